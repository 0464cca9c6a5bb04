# dump --stats equals perf's own per-type record counts on perf.data files
# recorded now with software events: file and pipe mode, with and without
# zstd compression (-z), read mapped and streamed.
. tests/e2e/lib.sh
. tests/e2e/perf_stats.sh
require_tool perf

work='i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'
rec() { # rec OUT EXTRA...: records a short shell loop
	out=$1; shift
	perf record -q -F 20000 -e cpu-clock -g "$@" -o "$out" -- sh -c "$work" \
		>/dev/null 2>"$T/rec.err" || {
		cat "$T/rec.err" >&2
		skip "perf record cannot record here (perf_event_paranoid?)"
	}
}
rec "$T/file.data"
rec "$T/z.data" -z
perf record -q -F 20000 -e cpu-clock -g -o - -- sh -c "$work" >"$T/pipe.data" 2>/dev/null ||
	fail "perf record -o - failed"
perf record -q -F 20000 -e cpu-clock -g -z -o - -- sh -c "$work" >"$T/pipez.data" 2>/dev/null ||
	fail "perf record -z -o - failed"

check() { # check NAME FILE PERFMODE
	perf_counts "$2" "$3" >"$T/perf.cnt"
	[ -s "$T/perf.cnt" ] || fail "$1: perf printed no stats"
	sy_counts "$2" >"$T/sy.cnt" || fail "$1: strobe-synth dump failed"
	diff -u "$T/perf.cnt" "$T/sy.cnt" || fail "$1: counts differ from perf (mapped)"
	"$SY" dump --stats - <"$2" | awk '{print $1, $2}' | sort >"$T/sy-stdin.cnt"
	diff -u "$T/perf.cnt" "$T/sy-stdin.cnt" || fail "$1: counts differ (stdin file)"
	cat "$2" | "$SY" dump --stats - | awk '{print $1, $2}' | sort >"$T/sy-pipe.cnt"
	diff -u "$T/perf.cnt" "$T/sy-pipe.cnt" || fail "$1: counts differ (streamed)"
	echo "$1: $(tr '\n' ' ' <"$T/sy.cnt")"
}
check file "$T/file.data" file
check compressed "$T/z.data" file
check pipe "$T/pipe.data" pipe
check pipe-compressed "$T/pipez.data" pipe
grep -q COMPRESSED "$T/sy.cnt" || true
# the -z recordings must really contain compressed records
sy_counts "$T/z.data" | grep -q '^COMPRESSED ' || fail "-z file holds no COMPRESSED records"
# and a full dump must decode every record without complaint
"$SY" dump "$T/z.data" >/dev/null 2>"$T/err" || { cat "$T/err"; fail "dump of -z file failed"; }
[ ! -s "$T/err" ] || { cat "$T/err"; fail "dump of -z file warned"; }
exit 0
