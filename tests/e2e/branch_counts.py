#!/usr/bin/env python3
"""Branch counts of an llvm-profgen branch-only (--format lbr) file, in the
form of ../shared/fixtures/real/tools/branch_counts.py: from->to:count, with
offsets relative to BASE (hex).  MMAP2 lines are skipped; a line holding
only a number is the repeat count of the sample after it.
Usage: branch_counts.py BASE < FILE"""
import collections
import sys

base = int(sys.argv[1], 16)
counts = collections.Counter()
repeat = 1
for line in sys.stdin:
    if line.startswith('PERF_RECORD_'):
        continue
    if line.strip().isdigit():
        repeat = int(line)
        continue
    for tok in line.split()[1:]:
        f, t = tok.split('/')[:2]
        counts[(int(f, 16) - base, int(t, 16) - base)] += repeat
    repeat = 1
for (f, t), n in sorted(counts.items()):
    print('%x->%x:%d' % (f, t, n))
