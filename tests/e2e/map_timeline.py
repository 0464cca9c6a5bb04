#!/usr/bin/env python3
"""Checks the branches of a perfscript (strobe-synth convert) against the
code that was mapped where they lie when they ran, following the file's
MMAP2 lines in order: two objects mapped at one address one after the
other (dlfx, tests/fixtures/programs/dlfx.c) must each get the branches of
their own time.  With llvm-objdump-19 -d of each object, every branch
entry whose source lies in one of them must start at a branch
instruction of that object, a direct branch must go where the
instruction says, and a target in one of them must be an instruction of
it.

Usage: map_timeline.py PERFSCRIPT OBJ...
OBJ: the objects (shared objects whose segments lie at their file
offsets, as dlfx's do; their MMAP2 lines name them by path, matched by
file name).  Prints, per object, the branch entries and the functions they
came from: "OBJ N fn1,fn2,...", then "shared N": the run-time addresses
of branch sources in every object (one address, each object's branch in
its time); exit 1 on an entry that does not fit."""
import os
import re
import subprocess
import sys

ps, objs = sys.argv[1], sys.argv[2:]
BRANCH = re.compile(r'^(b|bl|br|blr|ret|eret|b\.\w+|cbn?z|tbn?z|'
                    r'j\w+|call\w*|ret\w*|loop\w*)$')
DIRECT = re.compile(r'^(b|bl|b\.\w+|cbn?z|tbn?z|j\w+|call\w*|loop\w*)$')


def disasm(path):
    """{vaddr: (mnemonic, direct target or None, function)}"""
    out = subprocess.run(['llvm-objdump-19', '-d', '--no-show-raw-insn',
                          path], capture_output=True, text=True,
                         check=True).stdout
    insn, fn = {}, None
    for line in out.split('\n'):
        m = re.match(r'^[0-9a-f]+ <(\S+)>:', line)
        if m:
            fn = m.group(1)
            continue
        m = re.match(r'\s+([0-9a-f]+):\s+(\S+)\s*(.*)', line)
        if not m:
            continue
        mn, ops = m.group(2), m.group(3)
        t = None
        if DIRECT.match(mn):
            # the last hex operand before "<sym>": the target
            h = re.findall(r'0x([0-9a-f]+)', ops.split('<')[0])
            if h:
                t = int(h[-1], 16)
        insn[int(m.group(1), 16)] = (mn, t, fn)
    return insn


code = {os.path.basename(o): disasm(o) for o in objs}
maps = []          # (start, len, pgoff, name) in force, latest last
seen = {n: [0, set()] for n in code}
addrs = {n: set() for n in code}   # run-time addresses of branch entries
bad = 0


def fail(msg):
    global bad
    if bad < 20:
        print(msg)
    bad += 1


def where(a):
    for start, ln, pgoff, name in reversed(maps):
        if start <= a < start + ln:
            return name, a - start + pgoff
    return None, None


for line in open(ps):
    m = re.match(r'PERF_RECORD_MMAP2 \S+ \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) '
                 r'@ (0x[0-9a-f]+|\d+) .*\]: \S+ (\S+)', line)
    if m:
        maps.append((int(m.group(1), 16), int(m.group(2), 16),
                     int(m.group(3), 0), os.path.basename(m.group(4))))
        continue
    if line.startswith('\t') or not line.strip() or '/' not in line:
        continue
    for tok in line.split():
        f, t = (int(x, 16) for x in tok.split('/')[:2])
        name, off = where(f)
        if name in code:
            i = code[name].get(off)
            if not i or not BRANCH.match(i[0]):
                fail('%s: %#x (%s+%#x) is no branch of it' %
                     (tok, f, name, off))
                continue
            if i[1] is not None and where(t) != (name, i[1]):
                fail('%s: the branch at %s+%#x goes to %#x' %
                     (tok, name, off, i[1]))
                continue
            seen[name][0] += 1
            seen[name][1].add(i[2])
            addrs[name].add(f)
        tname, toff = where(t)
        if tname in code and toff not in code[tname]:
            fail('%s: target %#x (%s+%#x) is no instruction of it' %
                 (tok, t, tname, toff))
for n in sorted(seen):
    print(n, seen[n][0], ','.join(sorted(seen[n][1])))
# branch sources at one run-time address that belonged to two objects
names = sorted(addrs)
shared = set.intersection(*(addrs[n] for n in names)) if names else set()
print('shared', len(shared))
sys.exit(1 if bad else 0)
