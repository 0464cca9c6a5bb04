# dump --stats equals perf's per-type counts on every real capture in
# ../shared/fixtures/real that perf 6.1 can read.
. tests/e2e/lib.sh
. tests/e2e/perf_stats.sh
require_tool perf
R=$SHARED/fixtures/real
require_path "$R"

n=0
for f in "$R"/simpleperf-etm/orig/*.data "$R"/simpleperf-etm/perf61-compat/*.data \
	"$R"/quipper-intel-pt/perf.data.intel_pt-4.14 \
	"$R"/autofdo-etm-inject-output/*.data; do
	[ -f "$f" ] || continue
	perf_counts "$f" >"$T/perf.cnt"
	[ -s "$T/perf.cnt" ] || fail "$f: perf printed no stats"
	sy_counts "$f" >"$T/sy.cnt" || fail "$f: dump --stats failed"
	diff -u "$T/perf.cnt" "$T/sy.cnt" || fail "$f: counts differ from perf"
	cat "$f" | "$SY" dump --stats - | awk '{print $1, $2}' | sort >"$T/sy-s.cnt"
	diff -u "$T/perf.cnt" "$T/sy-s.cnt" || fail "$f: streamed counts differ"
	n=$((n + 1))
done
# pipe-mode capture: perf reads it only through a real pipe
f=$R/quipper-intel-pt/perf.data.piped.intel_pt-4.14
if [ -f "$f" ]; then
	perf_counts "$f" pipe >"$T/perf.cnt"
	sy_counts "$f" >"$T/sy.cnt"
	diff -u "$T/perf.cnt" "$T/sy.cnt" || fail "$f: counts differ from perf"
	cat "$f" | "$SY" dump --stats - | awk '{print $1, $2}' | sort >"$T/sy-s.cnt"
	diff -u "$T/perf.cnt" "$T/sy-s.cnt" || fail "$f: streamed counts differ"
	n=$((n + 1))
fi
[ $n -ge 10 ] || fail "only $n captures compared"
echo "compared $n captures with perf"
