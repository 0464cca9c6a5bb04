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
