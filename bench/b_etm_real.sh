#!/bin/sh
# ETM on real-shaped trace (issue 12 section 4): the AUX payload of the
# real simpleperf captures in ../shared/fixtures/real/simpleperf-etm
# (perf_etm.data: ETMv4 in 16-byte frames from an ETR, cpu 7;
# perf_with_unformatted_trace.data: raw ETE from TRBE, cpu 0) repeated into
# one AUXTRACE record of ETM_REAL_MIB MiB (default "16 64") by
# `bench_etm_real make` (bench/bench_etm_real.c, the project's perf.data
# writer; the records, attrs and features of the capture, one more AUX
# record for the copies), built in BENCH_TMP and deleted with it.  Each
# copy starts at the capture's A-Sync: one long stream of its loop, dense
# user code (about 2.5 instructions and 0.5 taken branches per trace byte
# in ETMv4, 12 and 2.7 in ETE).  The OpenCSD juno snapshot's trace
# (ETMv4, six trace IDs in ETB frames) is decoded the same way from its
# directory (its trace buffer repeated in memory; no perf.data holds it, so
# only the decode rows run on it).
#
# Per input and size, each row one process, run once (the machine is
# shared: compare rows of one run, not runs):
#   floor-packets    OpenCSD packet processors alone (no decoder is faster)
#   floor-full       OpenCSD's full decoder, an element callback that counts
#   decode fast      src/decode's decoder, the fast path (default)
#   decode full      src/decode's decoder forced to OpenCSD's full decoder
#   convert -jN      strobe-synth convert --format lbr (the fast path)
#   convert full -jN the same with --decoder full when the CLI has it;
#                    else the session (decode, windows, stacks) without
#                    writing output, bench_etm_real session, for both
#                    decoders (rows "session ...")
#   perf b           perf script --itrace=b -F ip,addr (perf 6.1)
#   perf i100il64    perf script --itrace=i100il64 -F ip,brstack
# perf runs at the sizes in ETM_REAL_PERF_MIB (default 16; it is slow).
# Each process may use ETM_REAL_MAX_MB of address space (default 4096; a
# row that needs more fails and says so).
# Columns: wall and CPU seconds and peak RSS of the process, trace MB/s,
# millions of instructions and of taken branches per second (the counts of
# OpenCSD's own full decode, floor-full), MB of output read from its pipe.
# The decode rows also print the decode alone (without loading the file).
set -u
SY=$SY_BUILD/strobe-synth
B=$SY_BUILD/bench/bench_etm_real
T=$BENCH_TMP/etm_real
SHARED=${STROBE_SHARED_DIR:-../shared}
REAL=$SHARED/fixtures/real/simpleperf-etm
JUNO=$SHARED/fixtures/real/opencsd-snapshots/snapshots/juno-uname-002
SIZES=${ETM_REAL_MIB:-16 64}
PERF_SIZES=${ETM_REAL_PERF_MIB:-16}

for x in "$SY" "$B"; do
	[ -x "$x" ] || { echo "b_etm_real: $x not built (make bench)" >&2; exit 1; }
done
if [ ! -d "$REAL/perf61-compat" ]; then
	echo "b_etm_real: skipped: $REAL not found (set STROBE_SHARED_DIR)"
	exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "b_etm_real: needs python3" >&2; exit 1; }
mkdir -p "$T" || exit 1
SYMFS=$(cd "$REAL/symfs" && pwd)
if command -v perf >/dev/null 2>&1; then PERF=perf; else PERF=; fi
if "$SY" convert --help 2>&1 | grep -q -- '--decoder'; then HAVE_DEC=1; else HAVE_DEC=0; fi

# measure CMD...: runs CMD with its standard output read through a pipe
# (counted, as a consumer would) and prints "WALL CPU MAXRSS_KB OUT_BYTES
# STATUS LAST_LINE" (the last line of its output, for the decode rows).
# Its address space is limited to ETM_REAL_MAX_MB (default 4096): a
# process whose memory grows with the input fails rather than the machine.
measure() {
	python3 - "$@" <<'EOF'
import os, resource, subprocess, sys, time
lim = int(os.environ.get('ETM_REAL_MAX_MB', '4096')) << 20
def limit():
    resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, preexec_fn=limit)
n, last = 0, b''
while True:
    b = p.stdout.read(1 << 20)
    if not b:
        break
    n += len(b)
    last = (last + b)[-200:]
_, status, ru = os.wait4(p.pid, 0)
dt = time.monotonic() - t0
line = last.strip().split(b'\n')[-1].decode(errors='replace') if last else '-'
print('%.3f %.3f %d %d %d %s' % (dt, ru.ru_utime + ru.ru_stime, ru.ru_maxrss,
      n, os.waitstatus_to_exitcode(status), line))
EOF
}

# row NAME WALL CPU RSS_KB OUT BYTES INSNS BRANCHES [DECODE_S]
row() {
	awk -v n="$1" -v w="$2" -v c="$3" -v r="$4" -v o="$5" -v b="$6" \
	    -v i="$7" -v br="$8" -v d="${9:-}" 'BEGIN {
		s = (d != "" ? d : w); if (s <= 0) s = 1e-9
		printf "  %-18s %7.2f %7.2f %7.1f %9.1f %8.1f %8.1f %8.1f", n, w, c,
		       r / 1024, b / 1e6 / s, i / 1e6 / s, br / 1e6 / s, o / 1e6
		if (d != "") printf "   (decode alone %.2f s)", d
		printf "\n" }'
}

header() {
	printf "  %-18s %7s %7s %7s %9s %8s %8s %8s\n" run "wall s" "cpu s" \
		"RSS MB" "trace MB/s" "Minsn/s" "Mbr/s" "out MB"
}

# fld N LINE: field N of LINE (0 when absent)
fld() {
	echo "$2" | awk -v n="$1" '{ print (NF >= n ? $n : 0) }'
}

# drow ROW LINE: a decode row from measure's LINE ("WALL CPU RSS OUT
# STATUS" then bench_etm_real's "VARIANT DECODE_S BYTES INSNS BRANCHES")
drow() {
	if [ "$(fld 5 "$2")" != 0 ]; then
		echo "  $1: failed (status $(fld 5 "$2"); ETM_REAL_MAX_MB=${ETM_REAL_MAX_MB:-4096})"
		return
	fi
	row "$1" "$(fld 1 "$2")" "$(fld 2 "$2")" "$(fld 3 "$2")" 0 "$BYTES" \
		"$INSNS" "$BRANCHES" "$(fld 7 "$2")"
}

# decode_rows KIND A1 A2: the four decode rows (bench_etm_real KIND A1 A2
# VARIANT); sets INSNS BRANCHES BYTES from floor-full and D_* (decode
# seconds) of each.
decode_rows() {
	M_ff=$(measure "$B" "$1" "$2" "$3" floor-full)
	M_fp=$(measure "$B" "$1" "$2" "$3" floor-packets)
	M_oa=$(measure "$B" "$1" "$2" "$3" ours-auto)
	M_of=$(measure "$B" "$1" "$2" "$3" ours-full)
	BYTES=$(fld 8 "$M_ff")
	INSNS=$(fld 9 "$M_ff")
	BRANCHES=$(fld 10 "$M_ff")
	W_fp=$(fld 1 "$M_fp")
	D_ff=$(fld 7 "$M_ff")
	D_fp=$(fld 7 "$M_fp")
	D_oa=$(fld 7 "$M_oa")
	D_of=$(fld 7 "$M_of")
	drow floor-packets "$M_fp"
	drow floor-full "$M_ff"
	drow "decode fast" "$M_oa"
	drow "decode full" "$M_of"
	# the fast path must give OpenCSD's instructions: say so if not
	[ "$(fld 9 "$M_oa")" = "$INSNS" ] && [ "$(fld 9 "$M_of")" = "$INSNS" ] ||
		echo "  (instructions differ: floor $INSNS, fast $(fld 9 "$M_oa"), full $(fld 9 "$M_of"))"
	echo "    $(awk -v i="$INSNS" -v b="$BRANCHES" -v p="$(fld 9 "$M_fp")" \
		-v t="$(fld 10 "$M_oa")" 'BEGIN { printf "%.1f M instructions, " \
		"%.1f M taken branches (OpenCSD; %.1f M branch items: the last " \
		"of each stretch waits for its target), %.1f M packets", i / 1e6,
		b / 1e6, t / 1e6, p / 1e6 }')"
}

# one ROW CMD...: measures CMD as row ROW; sets LAST_W
one() {
	rname=$1
	shift
	m=$(measure "$@")
	LAST_W=0
	if [ "$(fld 5 "$m")" != 0 ]; then
		echo "  $rname: failed (status $(fld 5 "$m"); ETM_REAL_MAX_MB=${ETM_REAL_MAX_MB:-4096})"
		return
	fi
	row "$rname" "$(fld 1 "$m")" "$(fld 2 "$m")" "$(fld 3 "$m")" \
		"$(fld 4 "$m")" "$BYTES" "$INSNS" "$BRANCHES"
	LAST_W=$(fld 1 "$m")
}

ratio() {	# TEXT A B: A / B
	awk -v t="$1" -v a="$2" -v b="$3" 'BEGIN {
		if (a > 0 && b > 0) printf "    %s: %.2fx\n", t, a / b }'
}

real_input() {	# NAME CAPTURE
	name=$1
	cap=$REAL/perf61-compat/$2
	for mib in $SIZES; do
		f=$T/$name-$mib.data
		made=$("$B" make "$cap" "$f" "$mib") ||
			{ echo "b_etm_real: cannot build $f" >&2; return 1; }
		echo "$name, $mib MiB: $(echo "$made" | awk '{ printf "%.1f MB of trace, %d copies", $1 / 1e6, $2 }') of $2's AUX data"
		header
		decode_rows decode "$f" "$SYMFS"
		one "convert -j1" "$SY" convert --format lbr -q -j1 --symfs "$SYMFS" -o - "$f"
		cj1=$LAST_W
		one "convert -j2" "$SY" convert --format lbr -q -j2 --symfs "$SYMFS" -o - "$f"
		cj2=$LAST_W
		if [ "$HAVE_DEC" = 1 ]; then
			one "convert full -j1" "$SY" convert --decoder full --format lbr -q -j1 --symfs "$SYMFS" -o - "$f"
			fj1=$LAST_W
			one "convert full -j2" "$SY" convert --decoder full --format lbr -q -j2 --symfs "$SYMFS" -o - "$f"
		else
			for d in auto full; do
				for j in 1 2; do
					one "session $d -j$j" "$B" session "$f" "$SYMFS" "$d" "$j"
					eval "S_${d}_$j=\$LAST_W"
				done
			done
			fj1=
		fi
		: "${S_auto_1:=0}" "${S_full_1:=0}"
		pb=
		pi=
		if [ -n "$PERF" ] && echo " $PERF_SIZES " | grep -q " $mib "; then
			one "perf b" "$PERF" script -i "$f" --symfs="$SYMFS" --itrace=b -F ip,addr
			pb=$LAST_W
			one "perf i100il64" "$PERF" script -i "$f" --symfs="$SYMFS" --itrace=i100il64 -F ip,brstack
			pi=$LAST_W
		fi
		echo "  ratios (wall):"
		[ -n "$pi" ] && ratio "convert -j1 faster than perf --itrace=i100il64" "$pi" "$cj1"
		[ -n "$pb" ] && ratio "convert -j1 faster than perf --itrace=b" "$pb" "$cj1"
		ratio "convert -j1 over the packet floor (process)" "$cj1" "$W_fp"
		ratio "convert -j2 faster than -j1" "$cj1" "$cj2"
		[ -n "$fj1" ] && ratio "convert -j1 faster than with --decoder full" "$fj1" "$cj1"
		[ -z "$fj1" ] && ratio "session -j1 fast path faster than full" "$S_full_1" "$S_auto_1"
		ratio "decode fast path faster than full (decode alone)" "$D_of" "$D_oa"
		ratio "decode fast path over the packet floor (decode alone)" "$D_oa" "$D_fp"
		ratio "decode full over OpenCSD's full floor (decode alone)" "$D_of" "$D_ff"
		rm -f "$f"
	done
}

real_input etmv4-etr perf_etm.data || exit 1
real_input ete-trbe perf_with_unformatted_trace.data || exit 1
if [ -d "$JUNO" ]; then
	for mib in $SIZES; do
		echo "juno-uname (OpenCSD snapshot, 6 ETMv4 IDs in ETB frames), $mib MiB in memory:"
		header
		decode_rows snapshot "$JUNO" "$mib"
		ratio "decode fast path faster than full (decode alone)" "$D_of" "$D_oa"
		ratio "decode fast path over the packet floor (decode alone)" "$D_oa" "$D_fp"
	done
fi
