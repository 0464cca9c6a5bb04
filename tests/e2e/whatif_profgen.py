"""The what-if figures from llvm-profgen-19's own profiles (t_windows_whatif_profgen.sh).

argv: OBJDUMP CUTS(N,N,...) PREFIX.  For each N of CUTS and for "all",
PREFIX.N.nocs is llvm-profgen-19's text profile of convert --depth N's
perf-script with --ignore-stack-samples (no contexts), and PREFIX.N.cs its
unsymbolized context-sensitive profile (--skip-symbolization --use-offset=0
--compress-recursion=0); OBJDUMP is llvm-objdump-19 -d of the binary, for
the instructions' lengths.

Function level: each function's TotalSamples in the text profile (what
llvm-profgen adds up per function, in bytes of instructions).  Context
level: per context of the CS profile, its ranges' bytes (from the range's
start to the end of its last instruction) times their counts.  Each profile
normalised to 1; overlap = sum over keys of min(cut share, whole share);
kept = total of the cut over total of the whole (function level).

Prints one line per cut: N, function overlap, context overlap, kept; then
"functions F contexts C": the keys with weight in the whole profiles."""
import re
import sys

objdump, cuts, prefix = sys.argv[1], sys.argv[2].split(","), sys.argv[3]

addrs = set()
for line in open(objdump):
    m = re.match(r"\s+([0-9a-f]+):\s", line)
    if m:
        addrs.add(int(m.group(1), 16))
addrs = sorted(addrs)
size = {a: addrs[i + 1] - a for i, a in enumerate(addrs[:-1])}


def functions(path):
    """name -> TotalSamples of the top-level profiles (name:total:head)."""
    d = {}
    for line in open(path):
        if not line.strip() or line[0] in " \t":
            continue
        name, total, _head = line.rstrip("\n").rsplit(":", 2)
        d[name] = d.get(name, 0) + int(total)
    return d


def contexts(path):
    """[context] -> bytes of its ranges times their counts."""
    d, ctx = {}, None
    lines = [l.rstrip("\n") for l in open(path)]
    i = 0
    while i < len(lines):
        if lines[i].startswith("["):
            ctx = lines[i]
            i += 1
            continue
        n = int(lines[i])
        for l in lines[i + 1:i + 1 + n]:
            rng, count = l.strip().split(":")
            a, b = (int(x, 16) for x in rng.split("-"))
            d[ctx] = d.get(ctx, 0) + (b - a + size[b]) * int(count)
        i += 1 + n
        i += 1 + int(lines[i])  # the branch counts
    if ctx is None and d:
        sys.exit("%s: not a context-sensitive profile" % path)
    return d


def overlap(a, b):
    sa, sb = sum(a.values()), sum(b.values())
    if not sa or not sb:
        return 0.0
    return sum(min(a.get(k, 0) / sa, b.get(k, 0) / sb) for k in set(a) | set(b))


fa, ca = functions(prefix + ".all.nocs"), contexts(prefix + ".all.cs")
if not sum(fa.values()):
    sys.exit("llvm-profgen built an empty profile of the whole windows")
for n in cuts:
    f, c = functions(prefix + "." + n + ".nocs"), contexts(prefix + "." + n + ".cs")
    print("%s %.6f %.6f %.6f" % (n, overlap(f, fa), overlap(c, ca),
                                 sum(f.values()) / sum(fa.values())))
print("functions %d contexts %d" % (sum(1 for v in fa.values() if v),
                                    sum(1 for v in ca.values() if v)))
