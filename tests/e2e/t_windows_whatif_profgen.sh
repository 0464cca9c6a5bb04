# windows --what-if (issue 24) against the real consumer: for each cut N,
# convert --depth N writes the perf-script a recording with windows of N
# taken branches would give (each pause sample's branch stack cut to its
# newest N entries); llvm-profgen-19 builds its profiles from it and from
# the whole windows' one (--depth all); whatif_profgen.py takes the
# overlaps from llvm-profgen's outputs alone (function TotalSamples of the
# text profile; ranges of the CS profile's contexts).  windows --json
# --what-if must give the same function overlap and kept share (to 1e-6)
# and the same advice (the smallest cut that saves trace and keeps 95%);
# its context overlap the same, or, when llvm-profgen has fewer contexts
# (it names call sites by source line, so two calls on one line are one
# context), at most llvm-profgen's (merging contexts only raises an
# overlap).  ETMv4, ETE SMP and PT fixtures: windows without samples of
# another event (which convert writes and --what-if does not cut), and,
# for deep recursion and an interpreter loop, windows with some, whose
# pause samples whatif_pause_only.py keeps (by the windows listing).
. tests/e2e/lib.sh
require_tool python3
require_tool llvm-profgen-19
require_tool llvm-objdump-19
G=tests/fixtures/generated
cuts=4,16,64,96,128,160
some_cut=0
ctx_equal=0
advised=0
for fx in etm4-etr-basic:branchy-aarch64: ete-trbe-smp:branchy-aarch64: \
	pt-basic:branchy-x86_64: pt-smp:branchy-x86_64: etm4-etr-missed:branchy-aarch64: \
	etm4-etr-deep-thread:deep-aarch64:p ete-trbe-deep-smp:deep-aarch64:p \
	pt-deep-thread:deep-x86_64:p etm4-etr-interp:interp-aarch64:p pt-interp:interp-x86_64:p; do
	IFS=: read -r f b p <<EOF2
$fx
EOF2
	bin=tests/fixtures/programs/bin/$b
	[ -s "$T/$b.dis" ] || llvm-objdump-19 -d --no-show-raw-insn "$bin" >"$T/$b.dis" ||
		fail "llvm-objdump-19 failed on $bin"
	[ -z "$p" ] || "$SY" windows -q --json --symfs . "$G/$f.data" >"$T/$f.list" ||
		fail "$f: windows --json failed"
	for d in $(echo $cuts | tr , ' ') all; do
		"$SY" convert -q --symfs . --depth "$d" -o "$T/$f.$d.ps" "$G/$f.data" ||
			fail "$f: convert --depth $d failed"
		if [ -n "$p" ]; then
			mv "$T/$f.$d.ps" "$T/$f.$d.all.ps"
			python3 tests/e2e/whatif_pause_only.py "$T/$f.list" "$T/$f.$d.all.ps" \
				"$T/$f.$d.ps" || fail "$f: the pause samples could not be kept at depth $d"
		fi
		llvm-profgen-19 --perfscript="$T/$f.$d.ps" --binary="$bin" --format=text \
			--ignore-stack-samples --profile-summary-cold-count=0 \
			--output="$T/$f.$d.nocs" >"$T/pg.log" 2>&1 ||
			{ cat "$T/pg.log"; fail "$f: llvm-profgen-19 (no contexts) failed at depth $d"; }
		llvm-profgen-19 --perfscript="$T/$f.$d.ps" --binary="$bin" --skip-symbolization \
			--use-offset=0 --compress-recursion=0 \
			--output="$T/$f.$d.cs" >"$T/pg.log" 2>&1 ||
			{ cat "$T/pg.log"; fail "$f: llvm-profgen-19 (contexts) failed at depth $d"; }
	done
	python3 tests/e2e/whatif_profgen.py "$T/$b.dis" $cuts "$T/$f" >"$T/$f.want" ||
		fail "$f: the overlaps from llvm-profgen's profiles could not be computed"
	"$SY" windows -q --json --what-if=$cuts --symfs . "$G/$f.data" >"$T/$f.json" ||
		fail "$f: windows --what-if failed"
	python3 - "$T/$f.want" "$T/$f.json" >"$T/$f.res" <<'PY' || { cat "$T/$f.want"; fail "$f: --what-if is not llvm-profgen-19's"; }
import json, sys
lines = open(sys.argv[1]).read().split("\n")
want = [l.split() for l in lines if l and not l.startswith("functions")]
pg_ctx = int([l for l in lines if l.startswith("functions")][0].split()[3])
w = json.load(open(sys.argv[2]))["what_if"]
got = w["cuts"]
ours_ctx = w.get("contexts", -1)
assert [int(x[0]) for x in want] == [c["branches"] for c in got], (want, got)
bad = []
for (n, fo, co, kept), c in zip(want, got):
    fo, co, kept = float(fo), float(co), float(kept)
    if abs(fo - c["function_overlap"]) > 2e-6:
        bad.append("N=%s function overlap %.6f, llvm-profgen's %.6f" % (n, c["function_overlap"], fo))
    if abs(kept - c["kept"]) > 2e-6:
        bad.append("N=%s kept %.6f, llvm-profgen's %.6f" % (n, c["kept"], kept))
    if ours_ctx == pg_ctx and abs(co - c["context_overlap"]) > 2e-6:
        bad.append("N=%s context overlap %.6f, llvm-profgen's %.6f (%d contexts each)" % (n, c["context_overlap"], co, pg_ctx))
    if ours_ctx != pg_ctx and not (ours_ctx > pg_ctx and c["context_overlap"] <= co + 2e-6):
        bad.append("N=%s context overlap %.6f over %d contexts, llvm-profgen's %.6f over %d" % (n, c["context_overlap"], ours_ctx, co, pg_ctx))
ok = [int(n) for n, fo, co, kept in want if float(fo) >= 0.95 and float(kept) < 1]
if w["advice_branches"] != (ok[0] if ok else None):
    bad.append("advice %s, llvm-profgen's figures give %s" % (w["advice_branches"], ok[0] if ok else None))
if bad:
    sys.exit("\n".join(bad))
print("cut" if any(float(x[1]) < 1 or float(x[2]) < 1 for x in want) else "",
      "ctx-equal" if ours_ctx == pg_ctx else "", "advised" if ok else "")
PY
	grep -q cut "$T/$f.res" && some_cut=1
	grep -q ctx-equal "$T/$f.res" && ctx_equal=1
	grep -q advised "$T/$f.res" && advised=1
done
[ $some_cut -eq 1 ] || fail "no cut changed any profile: the test would not see a wrong cut"
[ $ctx_equal -eq 1 ] || fail "no fixture where the contexts are llvm-profgen's one for one: the context overlap was never checked for equality"
[ $advised -eq 1 ] || fail "no fixture with a cut that keeps 95%: the advice was only checked to be none"
exit 0
