#!/usr/bin/env python3
"""Checks perf2bolt's reading of a --format bolt file against the
--format lbr file of the same conversion.

Usage: bolt_vs_lbr.py LBR FDATA BINARY

FDATA is what `perf2bolt -pa -p BOLT -o FDATA BINARY` wrote.  Every taken
branch of the lbr samples whose source lies in BINARY must appear in FDATA
with the same count, except returns (perf2bolt 19 keeps no return edges in
fdata); every FDATA edge that is not such a branch must be a fall-through
(its target the next instruction after its source, per llvm-objdump-19).
Runtime addresses of a position-independent binary are turned into its
link-time addresses with the lbr file's MMAP2 line (text p_vaddr ==
p_offset, as in the fixtures).  Prints one line per disagreement; exit 1
if there is one."""
import collections
import re
import subprocess
import sys

lbr, fdata, binary = sys.argv[1:4]

# instructions of the binary: address -> (next address, mnemonic)
insns = {}
prev = None
dis = subprocess.run(['llvm-objdump-19', '-d', '--no-show-raw-insn', binary],
                     capture_output=True, text=True, check=True).stdout
for line in dis.split('\n'):
    m = re.match(r'\s+([0-9a-f]+):\s+(\S+)', line)
    if not m:
        continue
    a = int(m.group(1), 16)
    if prev is not None:
        insns[prev] = (a, insns[prev][1])
    insns[a] = (None, m.group(2))
    prev = a

syms = {}
nm = subprocess.run(['nm', binary], capture_output=True, text=True).stdout
for line in nm.split('\n'):
    p = line.split()
    if len(p) == 3:
        syms[p[2]] = int(p[0], 16)


def loc(issym, name, off):
    off = int(off, 16)
    return syms[name.split('/')[0]] + off if issym != '0' else off


fd = collections.Counter()
for line in open(fdata):
    p = line.split()
    if len(p) == 8:
        fd[(loc(p[0], p[1], p[2]), loc(p[3], p[4], p[5]))] += int(p[7])

base = 0
pie = open(binary, 'rb').read(18)[16] == 3  # e_type ET_DYN
br = collections.Counter()
rep = 1
for line in open(lbr):
    if line.startswith('PERF_RECORD_MMAP2'):
        m = re.search(r'\[(0x[0-9a-f]+)\(0x[0-9a-f]+\) @ (0x[0-9a-f]+|0) ',
                      line)
        if pie and m and line.rstrip().endswith(binary.split('/')[-1]):
            base = int(m.group(1), 16) - int(m.group(2), 16)
        continue
    if line.strip().isdigit():
        rep = int(line)
        continue
    for tok in line.split()[1:]:
        f, t = (int(x, 16) - base for x in tok.split('/')[:2])
        if f in insns:
            br[(f, t if t in insns else 0)] += rep
    rep = 1

bad = 0
checked = 0
for k in sorted(set(br) | set(fd)):
    f, t = k
    if br[k]:
        if insns[f][1].startswith('ret'):
            if fd[k]:
                print('%x->%x: return in fdata (%d)' % (f, t, fd[k]))
                bad += 1
        elif br[k] != fd[k]:
            print('%x->%x: lbr %d, fdata %d' % (f, t, br[k], fd[k]))
            bad += 1
        else:
            checked += 1
    elif insns.get(f, (None,))[0] != t:
        print('%x->%x: fdata %d is neither a branch nor a fall-through'
              % (f, t, fd[k]))
        bad += 1
print('%d branches equal, %d fall-through edges, %d disagreements'
      % (checked, sum(1 for k in fd if not br[k]), bad), file=sys.stderr)
sys.exit(1 if bad or not checked else 0)
