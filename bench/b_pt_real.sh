#!/bin/sh
# Intel PT against the right floor (issue 25), figures only.
#
# Inputs: generated PT recordings of several program shapes
# (tests/fixtures/scenarios/pt-{basic,deep,interp}.scn, scaled with
# `sy-fixturegen --scale N --no-truth` to about PT_REAL_MB MB of trace,
# default 16; built in BENCH_TMP and deleted with it), the same of real
# programs (the corpus's x86-64 gzip, sort and xz: below; PT_REAL_CORPUS=0
# leaves them out), and the real Intel PT
# captures in ../shared/fixtures/real/quipper-intel-pt, whose traced code
# is not available: only the packet floor runs on them, over their two
# extracted AUX streams repeated PT_REAL_QUIPPER_REPS times (default 100).
#
# Rows, each one process (compare rows of one run, not runs):
#   floor-packets    bench_pt_floor: pt_pkt_next over the file's AUX bytes
#                    (no image, no instruction decode: nothing that follows
#                    the packets is faster); best of 3 in-process rounds,
#                    decode alone
#   floor-query      bench_pt_floor: libipt's query decoder (pt_qry_*) over
#                    the same bytes, no image: the floor of a walk that takes
#                    TNT bits, TIP targets, events and time from it, as
#                    libipt's block decoder does; best of 3, decode alone
#   convert -jN      strobe-synth convert --format lbr -o - (the
#                    PT fast path, src/decode/pt_walk.h); best of
#                    PT_REAL_RUNS (default 3) runs, as every convert row
#   convert full -jN the same with --decoder full (libipt's block decoder)
#   perf b           perf 6.1 script --itrace=b -F ip,addr
#   perf i100il64    perf 6.1 script --itrace=i100il64 -F ip,brstack
# Columns: wall seconds, peak anonymous RSS (the heap; ru_maxrss also counts
# the pages of the mapped input that are resident: convert drops those it
# passed, which on pt-deep, whose samples' deep callchains make the file 37x
# its trace, were 0.6 GB before), trace MB/s, millions of instructions and
# of taken branches per second.  Instructions and branches are convert's
# own counts (--stats-json "instructions", "branches": what the windows
# hold), the same numerators for every row so the rates compare as times.
# Each input's line also says how many of convert's decode units the fast
# path handed to libipt's block decoder (--stats-json pt_units): on real
# programs that was most of them until session 46.
# Then the peak anonymous RSS and ru_maxrss of convert -j1 / -j2 on the
# same scenario at full and at half the size (memory must not grow with the
# input; tests/e2e/t_pt_memory_flat.sh asserts it at smaller sizes).
# The libipt block-decoder floor is in bench_pt_decode (b_pt_decode.sh).
set -u
SY=$SY_BUILD/strobe-synth
GEN=$SY_BUILD/sy-fixturegen
FLOOR=$SY_BUILD/bench/bench_pt_floor
T=$BENCH_TMP/pt_real
ROOT=$(pwd)
SHARED=${STROBE_SHARED_DIR:-../shared}
QUIPPER=$SHARED/fixtures/real/quipper-intel-pt
MB=${PT_REAL_MB:-16}
QREPS=${PT_REAL_QUIPPER_REPS:-100}

for x in "$SY" "$GEN" "$FLOOR"; do
	[ -x "$x" ] || { echo "b_pt_real: $x not built (make bench)" >&2; exit 1; }
done
command -v python3 >/dev/null 2>&1 || { echo "b_pt_real: needs python3" >&2; exit 1; }
mkdir -p "$T" || exit 1
if command -v perf >/dev/null 2>&1; then PERF=perf; else PERF=; fi

# measure CMD...: "SECONDS ANON_KB MAXRSS_KB STATUS" (tests/measure)
measure() { "$ROOT/tests/measure" "$@"; }
fld() { echo "$2" | awk -v n="$1" '{ print (NF >= n ? $n : 0) }'; }

header() {
	printf "  %-18s %7s %7s %9s %8s %8s\n" run "wall s" "anon MB" \
		"trace MB/s" "Minsn/s" "Mbr/s"
}

# row NAME SECONDS RSS_KB
row() {
	awk -v n="$1" -v s="$2" -v r="$3" -v b="$BYTES" -v i="$INSNS" \
	    -v br="$BRANCHES" 'BEGIN { if (s <= 0) s = 1e-9
		printf "  %-18s %7.3f %7s %9.1f %8.1f %8.1f\n", n, s,
		       (r > 0 ? sprintf("%.1f", r / 1024) : "-"),
		       b / 1e6 / s, i / 1e6 / s, br / 1e6 / s }'
}

# one NAME CMD...: measures CMD as row NAME (best wall of PT_REAL_RUNS,
# default 1, and the largest RSS of them); sets LAST_W
one() {
	rname=$1
	shift
	best=
	rss=0
	k=0
	while [ "$k" -lt "${RUNS:-1}" ]; do
		m=$(measure "$@")
		case "$(fld 4 "$m")" in
		0) ;;
		*) echo "  $rname: failed (status $(fld 4 "$m"))"; LAST_W=0; return ;;
		esac
		best=$(awk -v a="$best" -v b="$(fld 1 "$m")" 'BEGIN { print (a == "" || b < a) ? b : a }')
		rss=$(awk -v a="$rss" -v b="$(fld 2 "$m")" 'BEGIN { print (b > a) ? b : a }')
		k=$((k + 1))
	done
	row "$rname" "$best" "$rss"
	LAST_W=$best
}

ratio() {	# TEXT A B: A / B
	awk -v t="$1" -v a="$2" -v b="$3" 'BEGIN {
		if (a > 0 && b > 0) printf "    %s: %.2fx\n", t, a / b }'
}

# gen SCN SCALE: prints the file it wrote (SCN's programs are under SYMFS)
gen() {
	gname=$(sed -n 's/^name = //p' "$1")
	[ -n "$gname" ] || gname=$(basename "$1" .scn)
	"$GEN" -r "$SYMFS" --scale "$2" --no-truth -o "$T" "$1" \
		>/dev/null 2>"$T/gen.err" || { cat "$T/gen.err" >&2; return 1; }
	echo "$T/$gname-x$2.data"
}

scaled() {	# SCN (its binaries under SYMFS)
	f=$(gen "$1" 100) || return 1
	b=$(set -- $("$FLOOR" 1 "$f"); echo "$2")
	rm -f "$f"
	scale=$(awk -v b="$b" -v mb="$MB" 'BEGIN { s = int(mb * 1e6 * 100 / b); print (s < 1 ? 1 : s) }')
	f=$(gen "$1" "$scale") || return 1
	"$SY" convert --format lbr -q -j1 --symfs "$SYMFS" -o - \
		--stats-json "$T/stats.json" "$f" >/dev/null 2>&1
	INSNS=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["instructions"])' "$T/stats.json")
	BRANCHES=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["branches"])' "$T/stats.json")
	# units the fast path handed to libipt's block decoder: a real program
	# that needs any is decoded at the block decoder's speed there
	UNITS=$(python3 -c 'import json,sys; u = json.load(open(sys.argv[1]))["pt_units"]; print("%d units, %d handed to the block decoder" % (u["fast"] + u["full"], u["fallbacks"]))' "$T/stats.json")
	fl=$("$FLOOR" 3 "$f") || { echo "b_pt_real: floor failed on $f" >&2; return 1; }
	BYTES=$(fld 2 "$fl")
	echo "$(basename "$1" .scn) x$scale: $(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1e6 }') MB of PT, $INSNS instructions and $BRANCHES taken branches in windows (convert's counts), $(fld 3 "$fl") packets; fast path: $UNITS"
	header
	row floor-packets "$(fld 1 "$fl")" 0
	fp=$(fld 1 "$fl")
	row floor-query "$(fld 7 "$fl")" 0
	fq=$(fld 7 "$fl")
	RUNS=${PT_REAL_RUNS:-3}
	one "convert -j1" "$SY" convert --format lbr -q -j1 --symfs "$SYMFS" -o - "$f"
	cj1=$LAST_W
	one "convert -j2" "$SY" convert --format lbr -q -j2 --symfs "$SYMFS" -o - "$f"
	cj2=$LAST_W
	one "convert full -j1" "$SY" convert --decoder full --format lbr -q -j1 --symfs "$SYMFS" -o - "$f"
	fj1=$LAST_W
	one "convert full -j2" "$SY" convert --decoder full --format lbr -q -j2 --symfs "$SYMFS" -o - "$f"
	fj2=$LAST_W
	RUNS=1
	pb=
	pi=
	if [ -n "$PERF" ]; then
		one "perf b" "$PERF" script -i "$f" --symfs="$SYMFS" --itrace=b -F ip,addr
		pb=$LAST_W
		one "perf i100il64" "$PERF" script -i "$f" --symfs="$SYMFS" --itrace=i100il64 -F ip,brstack
		pi=$LAST_W
	fi
	echo "  ratios (wall):"
	[ -n "$pi" ] && ratio "convert -j1 faster than perf --itrace=i100il64" "$pi" "$cj1"
	[ -n "$pb" ] && ratio "convert -j1 faster than perf --itrace=b" "$pb" "$cj1"
	ratio "convert -j1 (whole process) over the packet floor (decode alone)" "$cj1" "$fp"
	ratio "convert -j1 (whole process) over the query floor (decode alone)" "$cj1" "$fq"
	ratio "query floor over packet floor" "$fq" "$fp"
	ratio "convert full -j1 over convert -j1" "$fj1" "$cj1"
	ratio "convert full -j2 over convert -j2" "$fj2" "$cj2"
	ratio "convert -j2 faster than -j1" "$cj1" "$cj2"
	ratio "convert full -j2 faster than full -j1" "$fj1" "$fj2"
	peaks "full size (x$scale)" "$f"
	rm -f "$f"
	half=$((scale / 2))
	[ "$half" -ge 1 ] || return 0
	f=$(gen "$1" "$half") || return 1
	peaks "half size (x$half)" "$f"
	rm -f "$f"
}

peaks() {	# LABEL FILE: peak anonymous RSS and ru_maxrss of convert -j1, -j2
	for j in 1 2; do
		m=$(measure "$SY" convert --format lbr -q -j$j --symfs "$SYMFS" -o - "$2")
		echo "  $1: convert -j$j peak anon RSS $(awk -v r="$(fld 2 "$m")" 'BEGIN { printf "%.1f", r / 1024 }') MB, ru_maxrss $(awk -v r="$(fld 3 "$m")" 'BEGIN { printf "%.1f", r / 1024 }') MB"
	done
}

SYMFS=$ROOT
for s in pt-basic pt-deep pt-interp; do
	scaled "$ROOT/tests/fixtures/scenarios/$s.scn" || exit 1
done

# Real programs: the corpus's x86-64 ones (tests/corpus/programs.list,
# package "host": this machine's gzip, sort and two-threaded xz, run under
# qemu-x86_64 with the PC plugin and replayed into PT by sy-fixturegen, as
# `make corpus` checks them against their truth; tests/corpus/README.md).
# Each one-CPU recording (k1.scn) is scaled as the scenarios above, its run
# (or, with threads, its last slice) cut at the last instruction count,
# 5000 at a time, that leaves the trace paused (a repetition must start
# paused).
corpus_scn() {	# DIR: the one-CPU scenario of DIR's program, ending paused
	if grep -q '^slice = ' "$1/k1.scn"; then
		n=$(awk '$1 == "slice" { n = $5 } END { print n }' "$1/k1.scn")
	else
		n=$(awk -v p="$(basename "$1")" '$1 == p && $2 == "pt" { print $(NF - 3) }' "$T/corpus.out")
	fi
	i=0
	while [ "$i" -lt 200 ] && [ -n "$n" ] && [ "$n" -gt 5000 ]; do
		if grep -q '^slice = ' "$1/k1.scn"; then
			awk -v n="$n" '$1 == "slice" { last = NR } { l[NR] = $0 }
				END { for (k = 1; k <= NR; k++) {
					if (k == last) { split(l[k], f, " "); print "slice = " f[3] " " f[4] " " n }
					else if (l[k] !~ /^insns = /) print l[k] } }' \
				"$1/k1.scn" >"$T/$(basename "$1").scn"
		else
			sed '/^insns = /d' "$1/k1.scn" >"$T/$(basename "$1").scn"
			echo "insns = $n" >>"$T/$(basename "$1").scn"
		fi
		if "$GEN" -r "$1/root" --scale 2 --no-truth -o "$T/try" \
			"$T/$(basename "$1").scn" >/dev/null 2>&1; then
			rm -rf "$T/try"
			echo "$T/$(basename "$1").scn"
			return 0
		fi
		n=$((n - 5000))
		i=$((i + 1))
	done
	return 1
}

if [ "${PT_REAL_CORPUS:-1}" != 1 ]; then
	echo "b_pt_real: corpus left out (PT_REAL_CORPUS=${PT_REAL_CORPUS})"
elif command -v qemu-x86_64 >/dev/null 2>&1 &&
	[ -x "$SY_BUILD/tests/truth_check" ]; then
	mkdir -p "$T/corpus"
	if TMPDIR=$T/corpus SY_CORPUS_KEEP=1 "$ROOT/tests/corpus/run" \
		gzip-x86 sort-x86 xz-mt-x86 >"$T/corpus.out" 2>"$T/corpus.err"; then
		W=$(sed -n 's/^corpus: scratch files in //p' "$T/corpus.err")
		for p in gzip-x86 sort-x86 xz-mt-x86; do
			scn=$(corpus_scn "$W/$p") ||
				{ echo "b_pt_real: $p: no instruction count ends it paused"; continue; }
			SYMFS=$W/$p/root
			echo "real program (corpus, $(awk -v p="$p" '$1 == p { print $3; exit }' "$T/corpus.out")): $(awk '$1 == "insns" { i = $3 } $1 == "slice" { s = s " " $5 }
				END { print (i ? "insns " i : "slices of" s " instructions") }' "$scn") a run"
			scaled "$scn" || exit 1
		done
		rm -rf "$W"
	else
		echo "b_pt_real: corpus skipped: tests/corpus/run failed:"
		tail -n 3 "$T/corpus.err" "$T/corpus.out" | sed 's/^/  /'
	fi
else
	echo "b_pt_real: corpus skipped: needs qemu-x86_64 (scripts/install-deps --regen) and $SY_BUILD/tests/truth_check"
fi

if [ -d "$QUIPPER/aux-extracted" ]; then
	set --
	i=0
	while [ "$i" -lt "$QREPS" ]; do
		set -- "$@" "$QUIPPER"/aux-extracted/*-aux-idx*.bin
		i=$((i + 1))
	done
	fl=$("$FLOOR" 3 "$@") || { echo "b_pt_real: floor failed on quipper" >&2; exit 1; }
	echo "quipper-intel-pt (real Skylake capture, code not available), $QREPS x its 2 AUX streams: $(awk -v b="$(fld 2 "$fl")" 'BEGIN { printf "%.1f", b / 1e6 }') MB, $(fld 3 "$fl") packets, $(fld 5 "$fl") taken TNT bits, $(fld 6 "$fl") TIPs"
	awk -v s="$(fld 1 "$fl")" -v b="$(fld 2 "$fl")" -v p="$(fld 3 "$fl")" \
	    -v br="$(fld 5 "$fl") $(fld 6 "$fl")" 'BEGIN { split(br, x, " ")
		printf "  floor-packets      %7.3f s %9.1f trace MB/s %8.1f Mpackets/s %8.1f M taken TNT+TIP/s\n",
		       s, b / 1e6 / s, p / 1e6 / s, (x[1] + x[2]) / 1e6 / s }'
	awk -v s="$(fld 7 "$fl")" -v b="$(fld 2 "$fl")" -v f="$(fld 1 "$fl")" 'BEGIN {
		if (s <= 0) s = 1e-9
		printf "  floor-query        %7.3f s %9.1f trace MB/s (%.2fx the packet floor)\n",
		       s, b / 1e6 / s, (f > 0 ? s / f : 0) }'
else
	echo "b_pt_real: quipper skipped: $QUIPPER not found (set STROBE_SHARED_DIR)"
fi
