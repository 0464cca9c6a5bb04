# e2e: alone (measures peak resident sizes; tests/e2e/run runs it by itself)
# windows' memory does not grow with the number of windows (issue 24): the
# dense real ETE capture's trace repeated into one long AUX record
# (tests/tools/aux_repeat, the shape of bench/bench_etm_real make) at 16
# and 128 MiB, 0.44 M and 3.5 M windows.  windows --summary and the
# streamed --json listing must peak at the same anonymous memory (RssAnon,
# polled: the heap) within 25% + 4 MB at both sizes, and under 100 MB
# resident (ru_maxrss) at each.  Their lengths' percentiles are binned
# past a bound (sy_dist.h), so the summary says so.  No timing is asserted.
. tests/e2e/lib.sh
R=$SHARED/fixtures/real/simpleperf-etm
require_path "$R/orig/perf_with_unformatted_trace.data"
REPEAT=$SY_BUILD/tests/aux_repeat
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:malloc_context_size=0"
[ -x "$REPEAT" ] || fail "$REPEAT not built (make tools)"

# peak CMD...: the peak RssAnon and ru_maxrss of CMD in kB (tests/measure)
peak() {
	set -- $(tests/measure "$@")
	[ "$4" = 0 ] || return 1
	echo "$2 $3"
}

# nwindows FILE: how many windows the summary counts
nwindows() {
	"$SY" windows -j 1 --summary --symfs "$R/symfs" "$1" |
		sed -n 's/^[^ ].*, \([0-9][0-9]*\) windows: .*/\1/p' | grep .
}

# 76 bytes of TRBE trace a copy: 16 and 128 MiB
"$REPEAT" -n 220753 "$R/orig/perf_with_unformatted_trace.data" "$T/small.data" \
	2>/dev/null || fail "aux_repeat failed"
"$REPEAT" -n 1766023 "$R/orig/perf_with_unformatted_trace.data" "$T/big.data" \
	2>/dev/null || fail "aux_repeat failed"
wa=$(nwindows "$T/small.data") && wb=$(nwindows "$T/big.data") ||
	fail "windows --summary failed"
[ "$wb" -ge $((wa * 7)) ] || fail "the big input has $wb windows, the small $wa"
"$SY" windows -j 1 --summary --symfs "$R/symfs" "$T/big.data" |
	grep -q 'a percentile is at most 0.20% below the exact one' ||
	fail "windows --summary does not state its percentiles' error"

for run in "--summary" "--json"; do
	m=$(peak "$SY" windows -j 1 $run --symfs "$R/symfs" "$T/small.data") ||
		fail "windows $run failed"
	set -- $m
	a=$1 ra=$2
	m=$(peak "$SY" windows -j 1 $run --symfs "$R/symfs" "$T/big.data") ||
		fail "windows $run failed"
	set -- $m
	b=$1 rb=$2
	echo "windows $run: ${a} kB anon (${ra} kB resident) at $wa windows," \
		"${b} kB (${rb} kB) at $wb"
	[ "$b" -le $((a + a / 4 + 4096)) ] ||
		fail "windows $run: peak anonymous memory grows with the windows (${a} kB -> ${b} kB)"
	[ "$ra" -lt 102400 ] && [ "$rb" -lt 102400 ] ||
		fail "windows $run: peak resident size ${ra} kB / ${rb} kB, not under 100 MB"
done
exit 0
