#!/usr/bin/env python3
"""Compares a --format bolt file of a simpleperf capture with simpleperf's
own BOLT output (golden/perf_inject_bolt.data), AArch64 (4-byte
instructions).

Usage: bolt_vs_golden.py GOLDEN OURS TRACE_START_RANGES TRACE_END_BRANCHES

B records must be equal, except the golden's trace-end branches (target 0,
listed in TRACE_END_BRANCHES as FROM[,FROM...]) where ours has the real
target (perf 6.1 agrees: reference-perf61) or nothing after the last traced
branch.  F records are compared as what they mean, how often each
instruction executed: simpleperf ends a range at every conditional branch
(an ETM waypoint), strobe-synth only at taken ones (as a branch stack
gives them), so one of ours may cover several of simpleperf's.  The counts
must be equal except in the golden's ranges at trace starts and ends
(TRACE_START_RANGES, START-END[,...]), which a branch stack cannot hold."""
import collections
import sys

golden, ours, starts, ends = sys.argv[1:5]


def read(path):
    b, f = {}, collections.Counter()
    for line in open(path):
        p = line.split()
        if not p or p[0].startswith('//'):
            continue
        if p[0] == 'B':
            b[(int(p[1], 16), int(p[2], 16))] = int(p[3])
        elif p[0] == 'F':
            for a in range(int(p[1], 16), int(p[2], 16) + 4, 4):
                f[a] += int(p[3])
        else:
            raise SystemExit('%s: bad record %r' % (path, line))
    return b, f


gb, gf = read(golden)
ob, of = read(ours)
bad = 0
end_from = {int(x, 16) for x in ends.split(',')}
for k in sorted(set(gb) | set(ob)):
    if gb.get(k) == ob.get(k):
        continue
    if k[0] in end_from and (k[1] == 0 or k not in gb):
        continue
    print('B %x %x: golden %s, ours %s' % (k[0], k[1], gb.get(k), ob.get(k)))
    bad += 1
for r in starts.split(','):
    s, e = (int(x, 16) for x in r.split('-'))
    for a in range(s, e + 4, 4):
        gf[a] -= 1
for a in sorted(set(gf) | set(of)):
    if gf[a] != of[a]:
        print('instruction %x: golden %d, ours %d' % (a, gf[a], of[a]))
        bad += 1
sys.exit(1 if bad else 0)
