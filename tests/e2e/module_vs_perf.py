#!/usr/bin/env python3
"""Who reads a kernel module right: strobe-synth or perf 6.1?

Usage: module_vs_perf.py copies KO DIR MODPATH
       module_vs_perf.py check LBR KO BASE DIR

copies: writes two symfs trees for perf, DIR/unreloc and DIR/reloc, each
with a copy of KO at MODPATH (below).  check: LBR is strobe-synth's
--format lbr output of the recording, KO the module, BASE its load
address (the recording's MMAP, hex); DIR holds what perf 6.1 said
(t_convert_kernel.sh runs it):
  packets.txt   `perf report -D`: the trace's own address packets
  orig.txt      `perf script --itrace=b`, the module as it is
  unreloc.txt   the same with a copy whose .text section header says
                sh_offset - TEXT_AT: perf then reads the module's code, at
                the addresses the kernel put it, unrelocated
  reloc.txt     the same with that copy's own-code branch relocations
                applied here (R_AARCH64_JUMP26 / CALL26 against .text, from
                llvm-readelf-19 -r): the module as it is in memory

Perf 6.1 maps a module's .text to the start of the module's MMAP
(util/symbol-elf.c, dso__process_kernel_symbol: map->pgoff = the .text
sh_offset) and reads runtime address A at file offset A - start + pgoff,
without relocating (cs_etm__mem_access, dso__data_read_offset).  The
kernel lays the module out itself (layout_sections): rq_stats.ko's .text
(4 KiB aligned, after the NOBITS .plt) is at start + TEXT_AT.  Checked:

1. The trace's address packets inside the module are all in .text as the
   kernel lays it out, none in .text as perf maps it: the layout is the
   kernel's (TEXT_AT is computed from the section headers, as the kernel
   does, and must be what strobe-synth used).
2. orig: perf's module branches start at no instruction of the module's
   code: it read other bytes (the file offsets and their sections are
   printed).
3. unreloc: where both read the same code, perf agrees with us: in each of
   our windows every branch before the first one from an instruction with
   a relocation; at that one perf branches to the instruction itself (the
   unrelocated `b .`), we to where the relocation says.
4. reloc: given the module as the kernel relocated it, perf reports
   exactly our module branches (sources, and targets inside the module;
   a branch into the kernel, whose code nobody has here, perf joins to
   the next module address it could decode)."""
import os
import re
import struct
import subprocess
import sys

ko = sys.argv[2] if sys.argv[1] == 'copies' else sys.argv[3]


def sections():
    out = subprocess.run(['llvm-readelf-19', '-SW', ko], capture_output=True,
                         text=True, check=True).stdout
    secs = []
    for m in re.finditer(r'\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+[0-9a-f]{16}\s+'
                         r'([0-9a-f]+)\s+([0-9a-f]+)\s+\S+\s+(\S*)\s+\d+\s+'
                         r'\d+\s+(\d+)', out):
        idx, name, typ, off, size, flags, align = m.groups()
        secs.append(dict(idx=int(idx), name=name, type=typ,
                         off=int(off, 16), size=int(size, 16), flags=flags,
                         align=int(align)))
    return secs


def kernel_text_at(secs):
    """Where the kernel's layout_sections puts .text in the core area:
    executable allocated sections, header order, .init* left out, each at
    its alignment (arm64 gives the NOBITS .plt a few entries: it fits
    below any page-aligned .text)."""
    at = 0
    for s in secs:
        if 'A' not in s['flags'] or 'X' not in s['flags'] or \
                s['name'].startswith('.init'):
            continue
        a = max(s['align'], 1)
        at = (at + a - 1) // a * a
        if s['name'] == '.text':
            return at
        at += s['size']
    raise SystemExit('no .text')


secs = sections()
text = next(s for s in secs if s['name'] == '.text')
text_at = kernel_text_at(secs)
size = text['size']
bad = []

# relocations of .text against .text (the module's own code)
out = subprocess.run(['llvm-readelf-19', '-rW', ko], capture_output=True,
                     text=True, check=True).stdout
text_rel, own = set(), {}
sec = None
for line in out.split('\n'):
    m = re.match(r"Relocation section '(\S+)'", line)
    if m:
        sec = m.group(1)
        continue
    f = line.split()
    if sec and len(f) >= 5 and f[2].startswith('R_AARCH64_') and \
            re.match(r'[0-9a-f]{16}$', f[0]):
        hdr = next(s for s in secs if s['name'] == sec)
        # the RELA section's sh_info is its target: llvm-readelf names
        # .rela.text.def_work_fn's target .text by index only, so the
        # offsets are checked against .text's size below
        off = int(f[0], 16)
        if off < size and sec.startswith('.rela.text'):
            text_rel.add(off)
            if f[2] in ('R_AARCH64_JUMP26', 'R_AARCH64_CALL26') and \
                    f[4] == '.text':
                own[off] = int(f[6], 16)


def copies(outdir, modpath):
    """unreloc: .text's sh_offset lowered by text_at, so that perf's
    A - start + sh_offset is where the code of A is; reloc: that, with the
    module's own branch relocations applied to .text (the kernel's
    apply_relocate_add for JUMP26 / CALL26: imm26 = (S + A - P) >> 2)."""
    b = bytearray(open(ko, 'rb').read())
    shoff = struct.unpack_from('<Q', b, 0x28)[0]
    shentsize = struct.unpack_from('<H', b, 0x3a)[0]
    hdr = shoff + text['idx'] * shentsize
    struct.pack_into('<Q', b, hdr + 0x18, text['off'] - text_at)
    for kind in ('unreloc', 'reloc'):
        if kind == 'reloc':
            for off, tgt in own.items():
                w, = struct.unpack_from('<I', b, text['off'] + off)
                w = (w & 0xfc000000) | (((tgt - off) >> 2) & 0x3ffffff)
                struct.pack_into('<I', b, text['off'] + off, w)
        path = os.path.join(outdir, kind, modpath.lstrip('/'))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, 'wb').write(b)


if sys.argv[1] == 'copies':
    copies(sys.argv[3], sys.argv[4])
    sys.exit(0)
lbr, base, d = sys.argv[2], int(sys.argv[4], 16), sys.argv[5]
dis = subprocess.run(['llvm-objdump-19', '-d', '--no-show-raw-insn',
                      '--section=.text', ko], capture_output=True, text=True,
                     check=True).stdout
insn = {int(m.group(1), 16) for m in
        re.finditer(r'^\s+([0-9a-f]+):\s+\S', dis, re.M)}


def in_mod(a):
    return base <= a < base + 0x5000


# ours: each sample line is a window's (or stretch's) branches, newest first
ours = []
for line in open(lbr):
    if line.startswith('PERF_RECORD') or line.strip().isdigit():
        continue
    brs = []
    for tok in line.split()[1:]:
        f, t = (int(x, 16) for x in tok.split('/')[:2])
        brs.append((f, t))
    brs.reverse()
    if any(in_mod(f) for f, _ in brs):
        ours.append([b for b in brs if in_mod(b[0])])


def perf_branches(name):
    got = []
    for line in open('%s/%s' % (d, name)):
        m = re.search(r'\s([0-9a-f]+) \((\S+)\) =>\s+([0-9a-f]+) \(', line)
        if m and 'rq_stats.ko' in m.group(2):
            got.append((int(m.group(1), 16), int(m.group(3), 16)))
    return got


# 1. the trace's address packets
pk = [int(a, 16) for a in re.findall(r'I_ADDR\w*.*?Addr=0x([0-9A-F]+)',
                                     open(d + '/packets.txt').read())]
pk = sorted({a for a in pk if in_mod(a)})
if not pk:
    bad.append('no address packet in the module')
for a in pk:
    if not text_at <= a - base < text_at + size:
        bad.append('packet %x outside .text at +%#x' % (a, text_at))
    if a - base < size:
        bad.append('packet %x inside .text as perf maps it' % a)
print('address packets in the module: %s (.text at +%#x, size %#x)' %
      (' '.join('+%#x' % (a - base) for a in pk), text_at, size))

# 2. perf on the module as it is
orig = perf_branches('orig.txt')
if not orig:
    bad.append('perf reported no module branch')
for f, _ in orig:
    o = f - base - text_at
    if o in insn:
        bad.append('perf (module as is): %x is code' % f)
    fo = f - base + text['off']
    where = [s['name'] for s in secs if s['type'] != 'NOBITS' and
             s['off'] <= fo < s['off'] + s['size']] or ['no section']
    print('perf 6.1, module as is: branch from %x = file offset %#x (%s)'
          % (f, fo, where[0]))

# 3. unrelocated code at the right addresses
unreloc = perf_branches('unreloc.txt')
same = diff = 0
for w in ours:
    for f, t in w:
        o = f - base - text_at
        if o in text_rel:
            if (f, f) not in unreloc:
                bad.append('unrelocated: perf does not branch from %x to '
                           'itself' % f)
            print('relocated branch %x: perf 6.1 (unrelocated) %x -> %x, '
                  'strobe-synth %x -> %x' % (f, f, f, f, t))
            diff += 1
            break
        if not any(pf == f and (pt == t or not in_mod(t))
                   for pf, pt in unreloc):
            bad.append('unrelocated: perf lacks %x -> %x' % (f, t))
        same += 1
print('unrelocated copy: %d branches equal, %d at a relocated instruction'
      % (same, diff))
if not same or not diff:
    bad.append('nothing compared')

# 4. the module as the kernel relocated it
reloc = perf_branches('reloc.txt')
mine = [b for w in ours for b in w]
if sorted({f for f, _ in reloc}) != sorted({f for f, _ in mine}):
    bad.append('relocated copy: perf branches from %s, ours from %s' %
               (sorted('%x' % f for f, _ in reloc),
                sorted('%x' % f for f, _ in mine)))
for f, t in mine:
    if in_mod(t) and (f, t) not in reloc:
        bad.append('relocated copy: perf lacks %x -> %x' % (f, t))
print('relocated copy: %d module branches equal' % len(mine))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
