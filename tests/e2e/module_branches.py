#!/usr/bin/env python3
"""Checks the branches of a --format lbr file whose source lies in a
kernel module against the module itself (llvm-objdump-19 -dr, AArch64):
the source must be a branch instruction of the module's .text, and a
direct branch must go where the instruction (with its relocation, when it
targets the module's own .text) says.

Usage: module_branches.py LBR KO BASE TEXT_AT
BASE: the module's load address (the recording's MMAP), TEXT_AT: where
the kernel puts .text in the module's core area (hex)."""
import re
import subprocess
import sys

lbr, ko, base, text_at = sys.argv[1], sys.argv[2], int(sys.argv[3], 16), int(sys.argv[4], 16)
dis = subprocess.run(['llvm-objdump-19', '-dr', '--no-show-raw-insn',
                      '--section=.text', ko], capture_output=True, text=True,
                     check=True).stdout
insn, reloc, last = {}, {}, None
for line in dis.split('\n'):
    m = re.match(r'\s+([0-9a-f]+):\s+(\S+)\s*(.*)', line)
    if m and 'R_AARCH64' not in line:
        last = int(m.group(1), 16)
        insn[last] = (m.group(2), m.group(3))
        continue
    m = re.search(r'(R_AARCH64_\w+)\s+(\S+)', line)
    if m and last is not None:
        reloc[last] = (m.group(1), m.group(2))
size = text_at + max(insn) + 4 if insn else 0
direct = re.compile(r'^(b|bl|b\.\w+|cbn?z|tbn?z)$')
checked = bad = 0
for line in open(lbr):
    if line.startswith('PERF_RECORD') or line.strip().isdigit():
        continue
    for tok in line.split()[1:]:
        f, t = (int(x, 16) for x in tok.split('/')[:2])
        if not base <= f < base + size:
            continue
        off = f - base - text_at
        if off not in insn:
            print('%x: not an instruction of .text' % f)
            bad += 1
            continue
        mn, ops = insn[off]
        if not (direct.match(mn) or mn in ('br', 'blr', 'ret')):
            print('%x: %s is not a branch' % (f, mn))
            bad += 1
            continue
        checked += 1
        if not direct.match(mn):
            continue
        r = reloc.get(off)
        if r and r[1].startswith('.text+'):
            want = base + text_at + int(r[1][6:], 16)
        elif r:
            continue        # into the kernel: the trace says where
        else:
            want = base + text_at + int(re.search(r'0x([0-9a-f]+)', ops).group(1), 16)
        if t != want:
            print('%x: %s goes to %x, the instruction says %x' % (f, mn, t, want))
            bad += 1
print('%d module branches checked, %d bad' % (checked, bad), file=sys.stderr)
sys.exit(1 if bad or not checked else 0)
