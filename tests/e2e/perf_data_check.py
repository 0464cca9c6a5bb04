#!/usr/bin/env python3
"""Compares what perf 6.1 prints for a --format perf-data file with the
samples of the text formats of the same conversion.

  perf_data_check.py lbr OURS.lbr PERF.txt      PERF: perf script -G -F ip,brstack
  perf_data_check.py hybrid OURS.ps PERF.txt    PERF: perf script --show-mmap-events -F ip,brstack

Samples are compared as multisets (perf prints them in time order, the
text formats in first-seen order with repeat counts).  perf 6.1 prints
callchain frames relative to their mapping (map__map_ip: ip - start +
pgoff); they are turned back with the mapping perf itself lists."""
import collections
import re
import sys

mode, ours, theirs = sys.argv[1:4]


def branches(line):
    return tuple(tuple(int(x, 16) for x in t.split('/')[:2])
                 for t in line.split() if t.startswith('0x'))


def read_ours(path):
    samples = collections.Counter()
    rep, frames = 1, []
    for line in open(path):
        if line.startswith('PERF_RECORD_'):
            continue
        if re.fullmatch(r'\d+\n?', line):
            rep = int(line)
        elif line.startswith('\t'):
            frames.append(int(line, 16))
        elif line.startswith(' 0x'):
            samples[(tuple(frames), branches(line))] += rep
            rep, frames = 1, []
        elif line.strip():
            ip, rest = line.split(None, 1)
            samples[((int(ip, 16),), branches(rest))] += rep
            rep = 1
    return samples


def read_perf(path):
    samples = collections.Counter()
    maps, frames = [], []
    for line in open(path):
        m = re.match(r'PERF_RECORD_MMAP2? .*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) '
                     r'@ (0x[0-9a-f]+|0) ', line)
        if m:
            maps.append(tuple(int(x, 16) for x in m.groups()))
            continue
        if line.startswith('\t'):
            rel = int(line, 16)
            cand = [rel - pg + st for st, ln, pg in maps
                    if st <= rel - pg + st < st + ln]
            frames.append(cand[-1] if cand else rel)
        elif line.startswith(' 0x'):
            samples[(tuple(frames), branches(line))] += 1
            frames = []
        elif line.strip() and mode == 'lbr':
            ip, rest = line.split(None, 1)
            samples[((int(ip, 16),), branches(rest))] += 1
    return samples


a, b = read_ours(ours), read_perf(theirs)
bad = 0
for k in set(a) | set(b):
    if a[k] != b[k]:
        bad += 1
        if bad <= 5:
            print('sample %s...: ours %d, perf %d'
                  % ([hex(x) for x in k[0][:3]], a[k], b[k]))
print('%d samples (%d distinct), %d differ'
      % (sum(a.values()), len(a), bad), file=sys.stderr)
sys.exit(1 if bad or not a else 0)
