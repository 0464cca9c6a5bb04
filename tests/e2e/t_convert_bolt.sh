# convert --format bolt: BOLT's pre-aggregated profile (perf2bolt -pa).
# perf2bolt 19 reads it for the AArch64 (plain and PIE) and x86-64 fixture
# binaries without a parse error, and its fdata holds exactly the taken
# branches of the lbr output of the same conversion (bolt_vs_lbr.py); on
# simpleperf's real capture our records mean what simpleperf's own BOLT
# output means, but at the trace ends (bolt_vs_golden.py).  Deterministic
# at any -j; -o DIR writes one file per binary; a filter that matches
# nothing writes an empty profile.
. tests/e2e/lib.sh
require_tool perf2bolt-19
require_tool llvm-objdump-19
# perf2bolt-19 is llvm-bolt; it aggregates only when called "perf2bolt"
mkdir -p "$T/bin"
ln -s "$(readlink -f "$(command -v perf2bolt-19)")" "$T/bin/perf2bolt"
P2B=$T/bin/perf2bolt

for fx in etm4-etr-basic:branchy-aarch64 etm4-etr-pie:branchy-aarch64-pie \
	pt-basic:branchy-x86_64 ete-trbe-smp:branchy-aarch64 \
	etm4-etr-samples:branchy-aarch64 pt-samples:branchy-x86_64; do
	n=${fx%%:*}
	bin=tests/fixtures/programs/bin/${fx#*:}
	f=tests/fixtures/generated/$n.data
	"$SY" convert -q --symfs . --format bolt -o "$T/$n.bolt" "$f" ||
		fail "$n: bolt convert failed"
	"$SY" convert -q --symfs . --format lbr -o "$T/$n.lbr" "$f" ||
		fail "$n: lbr convert failed"
	grep -qv '^[BF] [0-9a-f]* [0-9a-f]* [0-9]*\( 0\)\?$' "$T/$n.bolt" &&
		fail "$n: a line outside the B/F grammar"
	"$P2B" -pa -p "$T/$n.bolt" -o "$T/$n.fdata" "$bin" >"$T/$n.log" 2>&1 ||
		{ cat "$T/$n.log"; fail "$n: perf2bolt failed"; }
	grep -q 'failed to parse\|BOLT-ERROR' "$T/$n.log" &&
		{ cat "$T/$n.log"; fail "$n: perf2bolt parse error"; }
	python3 tests/e2e/bolt_vs_lbr.py "$T/$n.lbr" "$T/$n.fdata" "$bin" ||
		fail "$n: perf2bolt's fdata disagrees with the lbr samples"
	"$SY" convert -q -j 3 --symfs . --format bolt -o "$T/$n.3" "$f"
	cmp -s "$T/$n.bolt" "$T/$n.3" || fail "$n: output depends on -j"
done

# simpleperf's real capture, formatted ETMv4 and raw ETE/TRBE: the golden
# file's trace starts (1000, 108c) and ends (10b0 and 10ec: the last
# traced branch, target unknown, and the ranges into them; 1088: a return
# simpleperf writes to 0, perf 6.1 and we to 10a4) are the only
# differences
R=$SHARED/fixtures/real/simpleperf-etm
require_path "$R/golden/perf_inject_bolt.data"
for n in perf_etm perf_with_unformatted_trace; do
	"$SY" convert -q --format bolt --symfs "$R/symfs" -o "$T/$n.bolt" \
		"$R/orig/$n.data" || fail "$n: bolt convert failed"
	python3 tests/e2e/bolt_vs_golden.py "$R/golden/perf_inject_bolt.data" \
		"$T/$n.bolt" 1000-1004,108c-10a0,10a4-10b0,10e0-10ec \
		1088,10b0,10ec || fail "$n: differs from simpleperf's BOLT output"
done

# -o DIR: one file per binary, named after it
mkdir "$T/dir"
"$SY" convert -q --symfs . --format bolt -o "$T/dir" \
	tests/fixtures/generated/pt-basic.data || fail "directory output failed"
[ "$(ls "$T/dir")" = "branchy-x86_64.bolt" ] || fail "directory: $(ls "$T/dir")"
cmp -s "$T/dir/branchy-x86_64.bolt" "$T/pt-basic.bolt" || fail "directory file differs"
# -o - streams the one binary's records
"$SY" convert -q --symfs . --format bolt -o - \
	tests/fixtures/generated/pt-basic.data >"$T/stdout.bolt" || fail "-o - failed"
cmp -s "$T/stdout.bolt" "$T/pt-basic.bolt" || fail "-o - differs"
# a filter that selects no binary: nothing to convert (exit 5, as for every
# format: convert(1)), and no file left behind
"$SY" convert -q --symfs . --format bolt --binary-filter nosuchbinary \
	-o "$T/none.bolt" tests/fixtures/generated/pt-basic.data 2>/dev/null
[ $? -eq 5 ] || fail "empty selection: expected exit 5"
[ ! -e "$T/none.bolt" ] || fail "empty selection left a file"
# two binaries into one file (issue 23, defect 12): it failed with exit 1
# after the whole run.  Now the run stops when a second binary gets
# branches: exit 2 (a usage error naming both and the two ways out), the
# stats JSON says so, no file is left, and on a long recording most
# windows are never decoded.  Loaded binaries the trace never enters stop
# nothing (simpleperf's capture above names 8 and converts to one file).
"$SY_BUILD/sy-fixturegen" --scale 100 --no-truth -o "$T/long" \
	tests/fixtures/scenarios/etm4-etr-dynfx.scn >/dev/null || fail "fixturegen failed"
f=$T/long/etm4-etr-dynfx-x100.data
for j in 1 3; do
	expect_status 2 "$SY" convert -j $j --symfs . --format bolt -o "$T/two.bolt" \
		--stats-json "$T/two.json" "$f" 2>"$T/two.err"
	[ "$(wc -l <"$T/two.err")" -eq 1 ] || { cat "$T/two.err"; fail "two binaries: not one line"; }
	grep -q '2 binaries have branches (.*-aarch64.*, .*-aarch64.*).*--binary-filter.*-o DIR/' "$T/two.err" ||
		{ cat "$T/two.err"; fail "two binaries: the message"; }
	grep -q 'libfx-aarch64.so' "$T/two.err" && grep -q 'dynfx-aarch64)\|dynfx-aarch64,' "$T/two.err" ||
		{ cat "$T/two.err"; fail "two binaries: not both named"; }
	grep -q '"exit_status": 2' "$T/two.json" || { cat "$T/two.json"; fail "two binaries: the JSON"; }
	[ ! -e "$T/two.bolt" ] || fail "two binaries: a file was left"
	ls "$T" | grep -q 'two.bolt.tmp' && fail "two binaries: a temporary file was left"
	w=$(sed -n 's/^  "windows": \([0-9]*\),/\1/p' "$T/two.json")
	[ -n "$w" ] && [ "$w" -lt 250 ] || fail "two binaries: $w of 500 windows decoded before the stop"
done
"$SY" convert -q --symfs . --format bolt --binary-filter dynfx-aarch64 -o "$T/one.bolt" "$f" ||
	fail "two binaries: --binary-filter failed"
mkdir "$T/two"
"$SY" convert -q --symfs . --format bolt -o "$T/two/" "$f" || fail "two binaries: -o DIR/ failed"
[ "$(ls "$T/two" | tr '\n' ' ')" = "dynfx-aarch64.bolt libfx-aarch64.so.bolt " ] ||
	fail "two binaries: $(ls "$T/two")"
[ -s "$T/one.bolt" ] && ! grep -qv '^[BF] [0-9a-f]* [0-9a-f]* [0-9]*\( 0\)\?$' "$T/one.bolt" ||
	fail "two binaries: the filtered file is empty or not B/F records"
# A binary's BOLT profile is its branches from every sample, whatever the
# sample's leaf, as perf2bolt aggregates them: --binary-filter gives the
# file -o DIR/ gives for that binary, byte for byte (it used to drop the
# samples whose leaf was in the other binary: fewer counts)
cmp -s "$T/one.bolt" "$T/two/dynfx-aarch64.bolt" ||
	fail "--binary-filter dynfx-aarch64 differs from -o DIR/'s dynfx-aarch64.bolt"
"$SY" convert -q --symfs . --format bolt --binary-filter libfx -o "$T/lib.bolt" "$f" ||
	fail "--binary-filter libfx failed"
cmp -s "$T/lib.bolt" "$T/two/libfx-aarch64.so.bolt" ||
	fail "--binary-filter libfx differs from -o DIR/'s libfx-aarch64.so.bolt"
exit 0
