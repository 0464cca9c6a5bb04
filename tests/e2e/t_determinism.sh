# e2e: long (minutes; tests/e2e/run starts it first)
# Output does not depend on the thread count or the thread schedule
# (issue 14, section 3): recordings without pause samples (the whole trace
# is converted, windows are single stretches) on several CPUs, where each
# CPU's ETM stream is decoded in slices and each PT piece reads its
# stretches in the threads of its own copy of the CPU's context switches.
# The SMP fixtures with aux_action cleared (no pause samples) and the real
# multi-CPU perf_kernel.data are converted and listed many times at -j 2
# and -j 4; every run must give the bytes of the -j 1 run.  session_check
# adds tiny stream jobs, against the streams decoded uncut.
. tests/e2e/lib.sh
R=$SHARED/fixtures/real/simpleperf-etm
require_path "$R/orig/perf_kernel.data"
RUNS=${DETERMINISM_RUNS:-8}


inputs=""
for f in etm4-etr-smp ete-trbe-smp pt-smp; do
	tests/no-pause "tests/fixtures/generated/$f.data" "$T/$f.data" ||
		fail "cannot rewrite $f"
	inputs="$inputs $T/$f.data"
done

# same CMD...: every run at -j 2 and -j 4 gives the -j 1 run's stdout and
# exit status
same() {
	"$SY" "$@" -j 1 >"$T/ref" 2>/dev/null
	rc=$?
	[ $rc -le 5 ] || fail "$*: exit $rc at -j 1"
	for j in 2 4; do
		k=0
		while [ $k -lt "$RUNS" ]; do
			"$SY" "$@" -j $j >"$T/out" 2>/dev/null
			[ $? -eq $rc ] || fail "$*: -j $j run $k: another exit status"
			cmp -s "$T/ref" "$T/out" ||
				fail "$*: -j $j run $k differs from -j 1"
			k=$((k + 1))
		done
	done
}

for f in $inputs; do
	same convert --format lbr --symfs . -o - "$f"
	same windows --json --symfs . "$f"
done
same windows --json --symfs "$R/symfs" "$R/orig/perf_kernel.data"
same convert --format lbr --symfs "$R/symfs" -o - "$R/orig/perf_kernel.data"
# tiny jobs (every seam cut) on 1 and 4 threads against the streams
# decoded uncut: the same windows, threads and errors (the pieces after a
# seam used to lose the thread the trace named before it), on the
# fixtures and on the real captures, one of them repeated into one long
# record (the shape of real dense trace)
"$SY_BUILD/tests/session_check" --symfs . $inputs ||
	fail "session_check: cut or threaded decode differs from the uncut stream"
"$SY_BUILD/tests/aux_repeat" -n 2000 "$R/orig/perf_etm.data" "$T/etm-long.data" \
	2>/dev/null || fail "aux_repeat failed"
"$SY_BUILD/tests/aux_repeat" -n 4000 "$R/orig/perf_with_unformatted_trace.data" \
	"$T/trbe-long.data" 2>/dev/null || fail "aux_repeat failed"
"$SY_BUILD/tests/session_check" --symfs "$R/symfs" "$R"/orig/perf_*.data \
	"$T/etm-long.data" "$T/trbe-long.data" ||
	fail "session_check: cut or threaded decode differs from the uncut stream (real captures)"

# json_count FILE KEY: a top-level count of a --stats-json file
json_count() {
	sed -n "s/^  \"$2\": \([0-9][0-9]*\),\$/\1/p" "$1" | grep .
}

# Whole-trace windows finished on their decoding threads (finish.h), most
# of a dense stream's: convert writes the bytes it writes when every window
# goes through the run's thread (as --verbose keeps them, for its notes)
for f in etm-long trbe-long; do
	for j in 1 2 3; do
		"$SY" convert --format lbr -q -j $j --symfs "$R/symfs" \
			-o "$T/sink.lbr" --stats-json "$T/sink.json" "$T/$f.data" ||
			fail "$f: convert -j $j failed"
		"$SY" convert --format lbr --verbose -j $j --symfs "$R/symfs" \
			-o "$T/walk.lbr" --stats-json "$T/walk.json" \
			"$T/$f.data" 2>/dev/null ||
			fail "$f: convert --verbose -j $j failed"
		cmp -s "$T/sink.lbr" "$T/walk.lbr" ||
			fail "$f: -j $j: windows finished in their jobs convert to other bytes"
		w=$(json_count "$T/sink.json" windows) &&
			k=$(json_count "$T/sink.json" windows_in_jobs) &&
			kw=$(json_count "$T/walk.json" windows_in_jobs) ||
			fail "$f: no window counts in --stats-json"
		[ $((k * 10)) -gt $((w * 9)) ] ||
			fail "$f: -j $j: only $k of $w windows finished in their jobs"
		[ "$kw" = 0 ] || fail "$f: --verbose: $kw windows finished in jobs"
	done
done
exit 0
