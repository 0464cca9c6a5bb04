"""The what-if recomputed from convert's outputs (t_windows_whatif.sh).

argv: NM-OUTPUT OBJDUMP-OUTPUT BYTES(0|1) CUTS(N,N,...) PERFSCRIPT
(convert --depth all: one sample per ok window's pause sample, counts
before repeats; llvm-nm-19 -S and llvm-objdump-19 -d of the binary).

The definition windows --what-if states (the profile llvm-profgen-19
builds), recomputed from the binary's symbols and disassembly:
- a sample whose leaf IP is a function's first or second instruction, a
  return or the instruction before a return counts at no cut;
- each sample is cut to its newest N branch entries; its ranges run from
  each entry's target to the next newer entry's source, that instruction
  included (none from the newest target to the leaf); a range whose start
  is after its end (or more than 64 KiB before it) is not counted, and
  older ranges of the sample have no callers;
- a range weighs its bytes, to the end of its last instruction (AArch64:
  divided by 4); it is keyed by the function whose symbol covers its start,
  by the name up to its first '.';
- its context: the sample's callers (the frames after the leaf, return
  addresses, outermost first), then, walking the entries from the newest,
  a return adds a frame named by its target and a call whose next
  instruction is the innermost frame removes that frame.
Prints one line per cut: N, function overlap, context overlap, kept share."""
import bisect
import re
import sys

nmout, dis, nbytes, cuts, ps = sys.argv[1:6]
nbytes = nbytes == "1"
cuts = [int(x) for x in cuts.split(",")]
syms = []
for line in open(nmout):
    p = line.split()   # llvm-nm -S: ADDRESS SIZE TYPE NAME
    if len(p) == 4 and p[2] in "tTwW":
        syms.append((int(p[0], 16), int(p[1], 16), p[3]))
syms = sorted({(a, s, n) for a, s, n in syms if s > 0})
starts = [a for a, _, _ in syms]

insns = {}
for line in open(dis):
    m = re.match(r"\s+([0-9a-f]+):\s+(\S+)", line)
    if m:
        insns[int(m.group(1), 16)] = m.group(2)
order = sorted(insns)
size = {a: order[i + 1] - a for i, a in enumerate(order[:-1])}
nxt = {a: order[i + 1] for i, a in enumerate(order[:-1])}
prev = {order[i + 1]: a for i, a in enumerate(order[:-1])}
is_ret = lambda a: insns.get(a, "").startswith("ret")
is_call = lambda a: insns.get(a, "") in ("bl", "blr", "call", "callq")

prolog_epilog = set()
for a, _, _ in syms:
    prolog_epilog |= {a, nxt.get(a)}
for a in order:
    if is_ret(a):
        prolog_epilog |= {a, prev.get(a)}


def func(addr):
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and addr < syms[i][0] + syms[i][1]:
        return syms[i][2].split(".")[0]
    return None

samples = []
count, frames = 1, []
for line in open(ps):
    line = line.rstrip("\n")
    if line.startswith("PERF_RECORD_MMAP2") or not line:
        continue
    if line.isdigit():
        count = int(line)
    elif line.startswith("\t"):
        frames.append(int(line.strip(), 16))
    else:
        ents = [tuple(int(x, 16) for x in e.split("/")[:2]) for e in line.split()]
        samples.append((count, frames, ents))
        count, frames = 1, []

K = len(cuts)
fw, cw = {}, {}
total = [0] * (K + 1)

def add(key, tab, k, n):
    tab.setdefault(key, [0] * (K + 1))[k] += n

for count, fr, ents in samples:
    if fr and fr[0] in prolog_epilog:
        continue
    stack = list(reversed(fr[1:]))
    invalid = False
    for i, (src, dst) in enumerate(ents):
        if i:
            a, b = dst, ents[i - 1][0]
            if a <= b and b - a <= 1 << 16 and b in size:
                n = b - a + size[b]
                n = (n if nbytes else n // 4) * count
                f = func(a)
                for k in range(K + 1):
                    if k == K or i < cuts[k]:
                        add(f, fw, k, n)
                        add((tuple(stack), f), cw, k, n)
                        total[k] += n
            elif not (a <= b and b - a <= 1 << 16):
                invalid = True
        if invalid:
            stack = []
        elif is_call(src):
            if stack and stack[-1] == src + size[src]:
                stack.pop()
        elif is_ret(src):
            stack.append(dst)

def overlap(tab, k):
    if not total[k] or not total[K]:
        return 0.0
    return sum(min(v[k] / total[k], v[K] / total[K]) for v in tab.values())

for k, n in enumerate(cuts):
    print("%d %.6f %.6f %.6f" % (n, overlap(fw, k), overlap(cw, k), total[k] / total[K] if total[K] else 0))
