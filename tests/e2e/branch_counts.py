#!/usr/bin/env python3
"""Branch counts of an llvm-profgen branch-only (--format lbr) file, in the
form of ../shared/fixtures/real/tools/branch_counts.py: from->to:count, with
offsets relative to BASE (hex).  Usage: branch_counts.py BASE < FILE"""
import collections
import sys

base = int(sys.argv[1], 16)
counts = collections.Counter()
for line in sys.stdin:
    if line.startswith('PERF_RECORD_MMAP2'):
        continue  # mappings, as llvm-profgen reads them: no branch
    for tok in line.split()[1:]:
        f, t = tok.split('/')[:2]
        counts[(int(f, 16) - base, int(t, 16) - base)] += 1
for (f, t), n in sorted(counts.items()):
    print('%x->%x:%d' % (f, t, n))
