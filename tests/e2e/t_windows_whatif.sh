# windows --what-if (issue 24): each ok window cut to its newest N taken
# branches, the profile that would give, and its overlap with the whole
# windows' one.  Checked against an independent computation of the
# stated definition (whatif_oracle.py) from what convert --depth all
# writes for the same recording (its pause samples' branch stacks) and the
# binary's symbols and instructions read by llvm-nm-19 and llvm-objdump-19
# (t_windows_whatif_profgen.sh checks it against llvm-profgen-19's own
# profiles), on recordings whose windows carry no other
# event's samples (convert also writes those, --what-if does not cut
# them): ETMv4, ETE SMP and PT, the figures equal to 6 decimals.  The
# cuts must cut (some overlap below 1) and the advice name a cut that keeps
# at least 95%; a bad list is a usage error.
. tests/e2e/lib.sh
require_tool python3
require_tool llvm-nm-19
require_tool llvm-objdump-19
G=tests/fixtures/generated
cuts=4,8,16,32
some_cut=0
for fx in etm4-etr-basic:branchy-aarch64:0 ete-trbe-smp:branchy-aarch64:0 \
	pt-basic:branchy-x86_64:1 pt-smp:branchy-x86_64:1 etm4-etr-missed:branchy-aarch64:0; do
	IFS=: read -r f b x <<EOF2
$fx
EOF2
	bin=tests/fixtures/programs/bin/$b
	llvm-nm-19 -S --defined-only "$bin" >"$T/$b.nm" || fail "llvm-nm-19 failed on $b"
	llvm-objdump-19 -d --no-show-raw-insn "$bin" >"$T/$b.dis" || fail "llvm-objdump-19 failed on $b"
	"$SY" convert -q --symfs . --depth all -o "$T/$f.ps" "$G/$f.data" || fail "$f: convert failed"
	python3 tests/e2e/whatif_oracle.py "$T/$b.nm" "$T/$b.dis" "$x" $cuts "$T/$f.ps" >"$T/$f.want" ||
		fail "$f: the oracle failed"
	"$SY" windows -q --json --what-if=$cuts --symfs . "$G/$f.data" >"$T/$f.json" ||
		fail "$f: windows --what-if failed"
	python3 - "$T/$f.json" >"$T/$f.got" <<'PY' || fail "$f: no what_if in the JSON"
import json, sys
for c in json.load(open(sys.argv[1]))["what_if"]["cuts"]:
    print("%d %.6f %.6f %.6f" % (c["branches"], c["function_overlap"], c["context_overlap"], c["kept"]))
PY
	diff "$T/$f.want" "$T/$f.got" || fail "$f: --what-if differs from the recomputation"
	awk '$2 < 1 || $3 < 1 { found = 1 } END { exit !found }' "$T/$f.got" && some_cut=1
	"$SY" windows -q --summary --what-if=$cuts --symfs . "$G/$f.data" >"$T/$f.txt" ||
		fail "$f: windows --what-if (text) failed"
	grep -q '^what-if: ' "$T/$f.txt" && grep -q '  advice: ' "$T/$f.txt" ||
		{ cat "$T/$f.txt"; fail "$f: no what-if table or advice"; }
done
[ $some_cut -eq 1 ] || fail "no cut changed any profile: the test would not see a wrong cut"
# the advice names the smallest cut that saves trace and keeps 95%
python3 - "$T/ete-trbe-smp.json" <<'PY' || fail "the advice is not the smallest cut keeping 95%"
import json, sys
w = json.load(open(sys.argv[1]))["what_if"]
ok = [c["branches"] for c in w["cuts"] if c["function_overlap"] >= 0.95 and c["kept"] < 1]
sys.exit(0 if w["advice_branches"] == (ok[0] if ok else None) else "advice %s, cuts %s" % (w["advice_branches"], w["cuts"]))
PY
expect_status 2 "$SY" windows --what-if=16,8 --symfs . "$G/etm4-etr-basic.data" 2>"$T/err" >/dev/null
grep -q -- '--what-if: ' "$T/err" || { cat "$T/err"; fail "no usage message"; }
exit 0
