# e2e: alone (measures peak resident sizes; tests/e2e/run runs it by itself)
# Memory does not grow with the input (issue 12, section 3), as a property:
# the real captures' trace repeated into ONE long AUX record per CPU
# (tests/tools/aux_repeat: the shape of real, dense user code), at two sizes
# four times apart.  convert (lbr: the whole trace) at -j 1 and -j 2 must
# peak at the same anonymous memory (RssAnon, polled: the heap) and the
# same resident size (ru_maxrss: the heap and the pages of the mapped
# input, which convert drops once decoded) within 25% + 4 MB.  windows too:
# its length distributions are bounded (sy_dist.h; issue 24), so it gets no
# allowance per window (tests/e2e/t_windows_memory.sh: 16 and 128 MiB).
# No timing is asserted.
. tests/e2e/lib.sh
R=$SHARED/fixtures/real/simpleperf-etm
require_path "$R/orig/perf_etm.data"
REPEAT=$SY_BUILD/tests/aux_repeat
# Under ASan (make asan) freed memory waits in a quarantine and allocation
# stacks are kept, both growing with the work done: measure the program,
# not the sanitizer (use-after-free is the other tests' business)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:malloc_context_size=0"
[ -x "$REPEAT" ] || fail "$REPEAT not built (make tools)"

# peak CMD...: the peak RssAnon and ru_maxrss of CMD in kB (tests/measure)
peak() {
	set -- $(tests/measure "$@")
	[ "$4" = 0 ] || return 1
	echo "$2 $3"
}

# sizes large enough that the decoders' queue is full at 1x already (what
# is in flight is bounded, and reached after a few pieces), and the input
# large against the heap: 3.8 and 15 MB of ETR trace, 3 and 12 MB of TRBE
for spec in perf_etm:10000 perf_with_unformatted_trace:40000; do
	name=${spec%%:*}
	n=${spec#*:}
	"$REPEAT" -n "$n" "$R/orig/$name.data" "$T/small.data" 2>/dev/null ||
		fail "$name: aux_repeat failed"
	"$REPEAT" -n $((n * 4)) "$R/orig/$name.data" "$T/big.data" 2>/dev/null ||
		fail "$name: aux_repeat failed"
	for run in "convert -j 1 --format lbr" "convert -j 2 --format lbr" \
		"windows -j 1"; do
		set -- $run
		out=""
		[ "$1" = convert ] && out="-o $T/out"
		m=$(peak "$SY" $run --symfs "$R/symfs" $out "$T/small.data") ||
			fail "$name: $run failed"
		set -- $m
		a=$1 ra=$2
		m=$(peak "$SY" $run --symfs "$R/symfs" $out "$T/big.data") ||
			fail "$name: $run failed"
		set -- $m
		b=$1 rb=$2
		case $run in convert*)
			echo "$name: $run: maxrss ${ra} kB at 1x, ${rb} kB at 4x"
			[ "$rb" -le $((ra + ra / 4 + 4096)) ] ||
				fail "$name: $run: peak resident size grows with the input (${ra} kB -> ${rb} kB)"
		esac
		echo "$name: $run: ${a} kB at 1x, ${b} kB at 4x"
		[ "$b" -le $((a + a / 4 + 4096)) ] ||
			fail "$name: $run: peak anonymous memory grows with the input (${a} kB -> ${b} kB)"
	done
done
exit 0
