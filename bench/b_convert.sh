#!/bin/sh
# strobe-synth convert on scaled recordings (sy-fixturegen --scale, generated
# here into BENCH_TMP and deleted with it) of ETMv4 / ETR, ETE / TRBE and
# Intel PT, next to the peer perf 6.1 (`perf script --itrace=b -F ip,addr`,
# OpenCSD / its PT decoder) on the same kind of file, and convert's peak
# memory at two sizes (1x and 4x) to show whether it stays bounded.
#
# Sizes, in MB of trace (AUXTRACE payload): CONVERT_MB (default 16) for
# convert -j1 and -jN; CONVERT_PERF_MB (default 4) for perf, which is slower
# and prints every branch, and for the 1x memory figure.  Each run of the
# program is one process (40000 instructions, 4 windows of about 9300); the
# scenarios are written below, cs_etm_version 1 so that perf 6.1 reads them
# as they are.  Nothing here asserts a time: figures only.
set -u
SY=$SY_BUILD/strobe-synth
GEN=$SY_BUILD/sy-fixturegen
T=$BENCH_TMP/convert
BIG_MB=${CONVERT_MB:-16}
SMALL_MB=${CONVERT_PERF_MB:-4}
JOBS=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
ROOT=$(pwd)

for x in "$SY" "$GEN"; do
	[ -x "$x" ] || { echo "b_convert: $x not built (make bench)" >&2; exit 1; }
done
command -v python3 >/dev/null 2>&1 || { echo "b_convert: needs python3" >&2; exit 1; }
mkdir -p "$T" || exit 1

# measure CMD...: "SECONDS ANON_KB MAXRSS_KB STATUS" (tests/measure, shared
# with the memory tests)
measure() { "$ROOT/tests/measure" "$@"; }

# gen NAME REPS: sy-fixturegen --scale; prints "FILE TRACE_BYTES GEN_SECONDS"
gen() {
	"$GEN" -v --scale "$2" --no-truth -o "$T" "$T/$1.scn" 2>"$T/gen.err" ||
		{ cat "$T/gen.err" >&2; return 1; }
	awk -v f="$T/$1-x$2.data" '/bytes of trace/ {
		for (i = 1; i <= NF; i++) {
			if ($(i + 1) == "bytes" && $(i + 2) == "of") tb = $i
			if ($(i + 1) == "s,") s = $i
		}
		print f, tb, s }' "$T/gen.err"
}

mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
rate() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0 ? b / 1e6 / s : 0) }'; }

scenario() {	# NAME PROGRAM TRACE SINK
	{
		echo "# b_convert: one run of the program per process"
		echo "program = $2"
		echo "trace = $3"
		echo "sink = $4"
		echo "R = 700"
		echo "P = 10000"
		echo "start = 1000"
		echo "insns = 40000"
		[ "$3" = pt ] || echo "cs_etm_version = 1"
	} >"$T/$1.scn"
}

scenario bench-etr branchy-aarch64 etmv4 etr
scenario bench-trbe branchy-aarch64 ete trbe
scenario bench-pt branchy-x86_64 pt pt

have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1
echo "convert -o - (stdout to /dev/null) --symfs . on scaled recordings; trace MB = AUXTRACE payload; $JOBS CPUs"
[ "$BIG_MB" = "$SMALL_MB" ] || echo "perf runs on the ${SMALL_MB} MB file (it is slower); convert on both"
status=0
for kind in etr trbe pt; do
	name=bench-$kind
	case $kind in
	etr) what="ETMv4 / ETR" ;;
	trbe) what="ETE / TRBE" ;;
	pt) what="Intel PT" ;;
	esac
	out=$(gen "$name" 1) || { status=1; continue; }
	set -- $out
	per=$2
	big_reps=$(awk -v m="$BIG_MB" -v p="$per" 'BEGIN { n = int(m * 1e6 / p + 0.5); print (n < 1 ? 1 : n) }')
	small_reps=$(awk -v m="$SMALL_MB" -v p="$per" 'BEGIN { n = int(m * 1e6 / p + 0.5); print (n < 1 ? 1 : n) }')
	echo "$what ($name: $per bytes of trace per run):"
	out=$(gen "$name" "$big_reps") || { status=1; continue; }
	set -- $out
	big=$1 big_tb=$2
	echo "  sy-fixturegen --scale $big_reps: $(mb "$big_tb") MB of trace," \
		"$(mb "$(wc -c <"$big")") MB file in $3 s"
	cat "$big" >/dev/null	# page cache
	for j in 1 "$JOBS"; do
		set -- $(measure "$SY" convert -q -o - -j"$j" --symfs . "$big")
		[ "$4" = 0 ] || { echo "  convert -j$j FAILED (exit $4)"; status=1; continue; }
		echo "  strobe-synth convert -j$j: $(mb "$big_tb") MB in $1 s = $(rate "$big_tb" "$1") MB/s" \
			"(anon peak $(($2 / 1024)) MB, maxrss $(($3 / 1024)) MB)"
		[ "$j" = 1 ] && big_anon=$2 big_rss=$3
		[ "$j" = "$JOBS" ] && big_s=$1
	done
	if [ "$small_reps" = "$big_reps" ]; then
		small=$big small_tb=$big_tb
	else
		out=$(gen "$name" "$small_reps") || { status=1; continue; }
		set -- $out
		small=$1 small_tb=$2
		cat "$small" >/dev/null
	fi
	set -- $(measure "$SY" convert -q -o - -j1 --symfs . "$small")
	small_anon=$2 small_rss=$3
	set -- $(measure "$SY" convert -q -o - -j"$JOBS" --symfs . "$small")
	ours_s=$1
	[ "$small" = "$big" ] || echo "  strobe-synth convert -j$JOBS: $(mb "$small_tb") MB in $ours_s s =" \
		"$(rate "$small_tb" "$ours_s") MB/s"
	echo "  memory, convert -j1: $(mb "$small_tb") MB -> anon peak $((small_anon / 1024)) MB," \
		"maxrss $((small_rss / 1024)) MB; $(mb "$big_tb") MB ($(awk -v a="$big_tb" -v b="$small_tb" 'BEGIN { printf "%.1f", a / b }')x)" \
		"-> anon peak $((big_anon / 1024)) MB, maxrss $((big_rss / 1024)) MB"
	if [ $have_perf = 1 ]; then
		set -- $(measure sh -c "exec perf script -i '$small' --symfs='$ROOT' --itrace=b -F ip,addr >/dev/null 2>&1")
		if [ "$4" = 0 ]; then
			echo "  perf script --itrace=b -F ip,addr: $(mb "$small_tb") MB in $1 s =" \
				"$(rate "$small_tb" "$1") MB/s"
			echo "  ratio perf / ours (time, same $(mb "$small_tb") MB file, convert -j$JOBS):" \
				"$(awk -v p="$1" -v o="$ours_s" 'BEGIN { printf "%.1f", (o > 0 ? p / o : 0) }');" \
				"(MB/s, ours on the $(mb "$big_tb") MB file):" \
				"$(awk -v p="$1" -v o="$big_s" -v a="$small_tb" -v b="$big_tb" \
					'BEGIN { printf "%.1f", (o > 0 && a > 0 ? (b / o) / (a / p) : 0) }')"
		else
			echo "  perf script FAILED (exit $4)"
		fi
	fi
	rm -f "$T"/"$name"-x*.data
done
[ $have_perf = 1 ] || echo "perf not installed: no peer figures"
exit $status
