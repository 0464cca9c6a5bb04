"""The what-if recomputed from convert's outputs (t_windows_whatif.sh).

argv: BINARY NM-OUTPUT BYTES(0|1) CUTS(N,N,...) PERFSCRIPT (convert
--depth all, keep ok: one sample per ok window's pause sample, counts
before repeats).  Each sample is cut to its newest N branch entries; its
ranges are the straight-line code from each entry's target to the next
newer entry's source, and from the newest target to the instruction
before the leaf IP; weighted in instructions (AArch64, 4 bytes) or bytes;
keyed by the function whose symbol (nm) covers the range's start, and by
the callers (the frames after the leaf) and that function.  Prints one
line per cut: N, function overlap, context overlap, kept share."""
import bisect, sys

binary, nmout, nbytes, cuts, ps = sys.argv[1:6]
nbytes = nbytes == "1"
cuts = [int(x) for x in cuts.split(",")]
syms = []
for line in open(nmout):
    p = line.split()   # llvm-nm -S: ADDRESS SIZE TYPE NAME
    if len(p) == 4 and p[2] in "tTwW":
        syms.append((int(p[0], 16), int(p[1], 16), p[3]))
syms = sorted({(a, s, n) for a, s, n in syms if s > 0})
starts = [a for a, _, _ in syms]

def func(addr):
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and addr < syms[i][0] + syms[i][1]:
        return syms[i][0]
    return 0

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
    ctx = tuple(fr[1:])
    rs = []
    if fr and fr[0] > ents[0][1]:
        rs.append((0, ents[0][1], fr[0] - (1 if nbytes else 4)))
    for i in range(1, len(ents)):
        rs.append((i, ents[i][1], ents[i - 1][0]))
    for i, a, b in rs:
        if b < a or b - a > 1 << 16:
            continue
        n = (b - a + 1 if nbytes else (b - a) // 4 + 1) * count
        f = func(a)
        for k in range(K + 1):
            if k == K or i < cuts[k]:
                add(f, fw, k, n)
                add((ctx, f), cw, k, n)
                total[k] += n

def overlap(tab, k):
    if not total[k] or not total[K]:
        return 0.0
    return sum(min(v[k] / total[k], v[K] / total[K]) for v in tab.values())

for k, n in enumerate(cuts):
    print("%d %.6f %.6f %.6f" % (n, overlap(fw, k), overlap(cw, k), total[k] / total[K] if total[K] else 0))
