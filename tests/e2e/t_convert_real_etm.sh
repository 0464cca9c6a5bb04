# The real ETM captures (simpleperf, no pause samples): convert says so and
# converts the whole trace into branch-only samples whose branch counts
# equal perf 6.1's reference decode.  The one difference is documented in
# ../shared/fixtures/real/simpleperf-etm/SOURCE.txt: at the very end of the
# trace perf writes a branch to 0 (10ec->0) whose target the trace does not
# prove; strobe-synth never invents a branch after the last traced one.
. tests/e2e/lib.sh
R=$SHARED/fixtures/real/simpleperf-etm
require_path "$R/orig/perf_etm.data"

for pair in perf_etm:582b2b0000 perf_with_unformatted_trace:629b292000; do
	name=${pair%%:*}
	base=${pair#*:}
	f=$R/orig/$name.data
	# hybrid output is impossible without pause samples: exit 5, one line
	"$SY" convert -o "$T/$name.ps" "$f" 2>"$T/err"
	[ $? -eq 5 ] || fail "$name: hybrid convert should exit 5"
	grep -q "no event pauses the trace" "$T/err" || fail "$name: no clear message"
	[ ! -e "$T/$name.ps" ] || fail "$name: output written although nothing was converted"

	"$SY" convert --format lbr --symfs "$R/symfs" -o "$T/$name.lbr" "$f" 2>"$T/err" ||
		{ cat "$T/err"; fail "$name: lbr convert failed"; }
	python3 tests/e2e/branch_counts.py "$base" <"$T/$name.lbr" >"$T/ours"
	grep -v -- '->0:' "$R/reference-perf61/$name.branch_counts.txt" >"$T/ref"
	diff -u "$T/ref" "$T/ours" || fail "$name: branch counts differ from perf 6.1"
	# perf's extra trace-end entries are exactly the documented ones
	grep -- '->0:' "$R/reference-perf61/$name.branch_counts.txt" >"$T/ends"
	[ "$(cat "$T/ends")" = "10ec->0:1" ] || fail "$name: unexpected trace-end entries in reference"
	# single- and multi-threaded runs give the same bytes
	"$SY" convert -j 1 --format lbr --symfs "$R/symfs" -o "$T/$name.1" "$f" 2>/dev/null
	"$SY" convert -j 4 --format lbr --symfs "$R/symfs" -o "$T/$name.4" "$f" 2>/dev/null
	cmp -s "$T/$name.1" "$T/$name.4" || fail "$name: output depends on thread count"
	cmp -s "$T/$name.1" "$T/$name.lbr" || fail "$name: output not deterministic"
done

# The real consumer: llvm-profgen-19 reads the lbr output of the real
# capture.  Its binary is stripped, its symbols only in .gnu_debugdata
# (MiniDebugInfo), and llvm-profgen takes function ranges from symbols or
# DWARF: without them it says "No samples in perf script!" whatever the
# input.  A copy given the functions of its own .gnu_debugdata
# (llvm-objcopy --add-symbol) lets llvm-profgen --skip-symbolization count
# every sample's branches: each count it gives is perf 6.1's for that
# branch (offsets from the text segment at 0x1000), the loop's two
# branches 100 times each.
require_tool llvm-profgen-19
require_tool llvm-objcopy-19
bin=$R/symfs/data/local/tmp/etm_test_loop
python3 - "$bin" "$T/syms" <<'PY' || fail "no symbols from .gnu_debugdata"
import lzma, struct, sys
d = open(sys.argv[1], "rb").read()
def secs(d):
    off, = struct.unpack_from("<Q", d, 0x28)
    ent, num, stri = struct.unpack_from("<HHH", d, 0x3a)
    sh = [struct.unpack_from("<IIQQQQIIQQ", d, off + i * ent) for i in range(num)]
    names = sh[stri]
    def name(o):
        b = d[names[4] + o:]
        return b[:b.index(b"\0")].decode()
    return {name(s[0]): s for s in sh}, sh
s, _ = secs(d)
text = s[".text"][3]
g = s[".gnu_debugdata"]
mini = lzma.decompress(d[g[4]:g[4] + g[5]])
ms, sh = secs(mini)
st, strs = ms[".symtab"], sh[ms[".symtab"][6]]
out = []
for i in range(st[5] // 24):
    nm, info, _, _, val, _ = struct.unpack_from("<IBBHQQ", mini, st[4] + i * 24)
    if info & 0xf != 2:        # STT_FUNC
        continue
    b = mini[strs[4] + nm:]
    out.append("--add-symbol=%s=.text:0x%x,function,%s" % (
        b[:b.index(b"\0")].decode(), val - text,
        "global" if info >> 4 == 1 else "local"))
assert out, "no function symbols"
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
llvm-objcopy-19 $(cat "$T/syms") "$bin" "$T/etm_test_loop" ||
	fail "llvm-objcopy-19 could not add the symbols"
llvm-profgen-19 --binary="$T/etm_test_loop" --perfscript="$T/perf_etm.lbr" \
	--skip-symbolization --output="$T/unsym" 2>"$T/pg.err" ||
	{ cat "$T/pg.err"; fail "llvm-profgen-19 rejected the lbr output"; }
grep -q 'No samples in perf script' "$T/pg.err" &&
	fail "llvm-profgen-19 found no samples in the lbr output"
python3 - "$T/unsym" "$R/reference-perf61/perf_etm.branch_counts.txt" <<'PY' ||
import sys
lines = open(sys.argv[1]).read().split("\n")
n = int(lines[0])
rest = lines[1 + n:]
m = int(rest[0])
got = {}
for l in rest[1:1 + m]:
    br, c = l.split(":")
    f, t = br.split("->")
    got[(int(f, 16) + 0x1000, int(t, 16) + 0x1000)] = int(c)
ref = {}
for l in open(sys.argv[2]):
    br, c = l.strip().split(":")
    f, t = br.split("->")
    ref[(int(f, 16), int(t, 16))] = int(c)
assert got, "llvm-profgen counted no branch"
bad = {k: v for k, v in got.items() if ref.get(k) != v}
assert not bad, "counts not perf's: %s" % bad
assert got.get((0x106c, 0x1074)) == 100 and got.get((0x1080, 0x105c)) == 100, got
PY
	fail "llvm-profgen-19's branch counts from the lbr output are not perf 6.1's"

# AUX records but no payload: nothing to decode, no error storm; nothing
# to convert is exit 5 with the reason, and no empty output is left
f=$R/orig/perf_with_missing_aux_data.data
"$SY" convert --format lbr -o "$T/missing.lbr" "$f" 2>"$T/err"
rc=$?
[ $rc -eq 5 ] || { cat "$T/err"; fail "missing-aux capture: exit $rc, not 5 (nothing to convert)"; }
[ "$(wc -l <"$T/err")" -le 6 ] || { cat "$T/err"; fail "missing-aux capture: error storm"; }
grep -q 'no sample written' "$T/err" || { cat "$T/err"; fail "missing-aux capture: no reason given"; }
[ ! -e "$T/missing.lbr" ] || fail "missing-aux capture left an output file"
exit 0
