#!/bin/sh
# What the window checks cost (issue 27): the share of `convert --format lbr
# -j1`'s CPU time spent in the plausibility and validation checks, from perf
# 6.1's profile of that run (bench/check_share.py: the checks' symbols are
# listed there, once), on real-shaped inputs built in BENCH_TMP and deleted
# with it:
#   ete-trbe    the raw ETE of ../shared/fixtures/real/simpleperf-etm's
#               perf_with_unformatted_trace.data repeated to CHECKS_MIB MiB
#               (default 64) by `bench_etm_real make` (as b_etm_real.sh):
#               one loop's windows again and again, the best case of the
#               checks' caches
#   etmv4-etr   perf_etm.data's ETMv4 in ETR frames, the same way
#   gen-interp  generated ETMv4 / ETR recordings (`sy-fixturegen --scale N
#   gen-dynfx   --no-truth`) of interp-aarch64 (a bytecode interpreter: jump
#               tables, computed gotos) and dynfx-aarch64 (PLT, a shared
#               library, callbacks), one run of the program per process
#               (40000 instructions, about 4 windows), to CHECKS_GEN_MB MB
#               of trace (default 16).  Every process maps the same objects
#               at the same addresses as the one before (a fleet's runs of
#               one program without address randomisation, or forked
#               workers), so the checks' caches, kept while the mappings are
#               the same, recall the branches of the processes before
#   gen-*-fresh the same file with every other process's objects named by
#               another path (bench/other_paths.py; a symbolic link under
#               the symfs leads to the same binaries, and the output is the
#               same but for those names): each process maps other objects
#               than the one before, as a new program or a randomised layout
#               does, so its branches are checked, not recalled: the checks'
#               worst case
# Rows: convert -j1's CPU seconds (user + system, the best of CHECKS_RUNS,
# default 3, without perf), then the checks' share of the profile (median
# of CHECKS_PERF_RUNS, default 3, at CHECK_SHARE_FREQ Hz, default 5000),
# capstone's share (only the checks call it in an ETM convert: their cost
# is the two added; see check_share.py), the samples and the largest check
# symbols of the median run.  Figures only: nothing here
# asserts a share or a time (the machine may be shared: compare rows of
# one run).
set -u
SY=$SY_BUILD/strobe-synth
GEN=$SY_BUILD/sy-fixturegen
B=$SY_BUILD/bench/bench_etm_real
T=$BENCH_TMP/checks
ROOT=$(pwd)
SHARED=${STROBE_SHARED_DIR:-../shared}
REAL=$SHARED/fixtures/real/simpleperf-etm
MIB=${CHECKS_MIB:-64}
GEN_MB=${CHECKS_GEN_MB:-16}
RUNS=${CHECKS_RUNS:-3}
PERF_RUNS=${CHECKS_PERF_RUNS:-3}
export CHECK_SHARE_FREQ=${CHECK_SHARE_FREQ:-5000}

for x in "$SY" "$GEN" "$B"; do
	[ -x "$x" ] || { echo "b_checks: $x not built (make bench)" >&2; exit 1; }
done
command -v python3 >/dev/null 2>&1 || { echo "b_checks: needs python3" >&2; exit 1; }
if ! command -v perf >/dev/null 2>&1; then
	echo "b_checks: skipped: no perf (the share is perf's profile)"
	exit 0
fi
mkdir -p "$T" || exit 1

# cpu CMD...: the best user + system seconds of RUNS runs of CMD
cpu() {
	python3 - "$RUNS" "$@" <<'EOF'
import os, subprocess, sys
best = None
for _ in range(int(sys.argv[1])):
    p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        print('failed')
        sys.exit(0)
    t = ru.ru_utime + ru.ru_stime
    best = t if best is None or t < best else best
print('%.2f' % best)
EOF
}

# share CMD...: check_share.py's line of the run with the median share
share() {
	i=0
	: >"$T/share"
	while [ $i -lt "$PERF_RUNS" ]; do
		python3 "$ROOT/bench/check_share.py" "$SY" "$@" >>"$T/share" ||
			{ echo "- - 0 failed"; return; }
		i=$((i + 1))
	done
	sort -n "$T/share" | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }'
}

header() {
	printf "  %-18s %9s %9s %10s %8s  %s\n" input "cpu s" "checks %" \
		"capstone %" samples "largest check symbols (%)"
}

# row NAME CMD...: convert -j1 as CMD, measured both ways
row() {
	name=$1
	shift
	c=$(cpu "$@")
	set -- $(share "$@")
	printf "  %-18s %9s %9s %10s %8s  %s\n" "$name" "$c" "$1" "$2" "$3" \
		"$(echo "${4:--}" | tr ',' ' ')"
}

echo "convert --format lbr -q -j1 -o - (discarded); checks' share of perf's profile (median of $PERF_RUNS at $CHECK_SHARE_FREQ Hz)"
header
if [ -d "$REAL/perf61-compat" ]; then
	SYMFS=$(cd "$REAL/symfs" && pwd)
	for x in "ete-trbe perf_with_unformatted_trace.data" "etmv4-etr perf_etm.data"; do
		set -- $x
		f=$T/$1.data
		"$B" make "$REAL/perf61-compat/$2" "$f" "$MIB" >/dev/null ||
			{ echo "b_checks: cannot build $f" >&2; exit 1; }
		row "$1" "$SY" convert --format lbr -q -j1 --symfs "$SYMFS" -o - "$f"
		rm -f "$f"
	done
else
	echo "  (real captures skipped: $REAL not found; set STROBE_SHARED_DIR)"
fi
# the fresh rows' symfs: the programs' folder under its name and another
mkdir -p "$T/symfs/tests/fixtures/programs" || exit 1
ln -sfn "$ROOT/tests/fixtures/programs/bin" "$T/symfs/tests/fixtures/programs/bin"
ln -sfn "$ROOT/tests/fixtures/programs/bin" "$T/symfs/tests/fixtures/programs/bim"
for prog in interp dynfx; do
	scn=$T/gen-$prog.scn
	{
		echo "# b_checks: one run of the program per process"
		echo "program = $prog-aarch64"
		echo "trace = etmv4"
		echo "sink = etr"
		echo "R = 700"
		echo "P = 10000"
		echo "start = 1000"
		echo "insns = 40000"
		echo "cs_etm_version = 1"
	} >"$scn"
	"$GEN" -v --scale 1 --no-truth -o "$T" "$scn" 2>"$T/gen.err" ||
		{ cat "$T/gen.err" >&2; exit 1; }
	per=$(awk '/bytes of trace/ { for (i = 1; i < NF; i++)
		if ($(i + 1) == "bytes" && $(i + 2) == "of") print $i }' "$T/gen.err")
	reps=$(awk -v m="$GEN_MB" -v p="$per" 'BEGIN { n = int(m * 1e6 / p + 0.5); print (n < 1 ? 1 : n) }')
	"$GEN" --scale "$reps" --no-truth -o "$T" "$scn" 2>"$T/gen.err" ||
		{ cat "$T/gen.err" >&2; exit 1; }
	f=$T/gen-$prog-x$reps.data
	row "gen-$prog" "$SY" convert --format lbr -q -j1 --symfs "$ROOT" -o - "$f"
	python3 "$ROOT/bench/other_paths.py" "$f" "$T/fresh.data" \
		/programs/bin/ /programs/bim/ >/dev/null ||
		{ echo "b_checks: other_paths.py failed on $f" >&2; exit 1; }
	row "gen-$prog-fresh" "$SY" convert --format lbr -q -j1 --symfs "$T/symfs" \
		-o - "$T/fresh.data"
	rm -f "$f" "$T/fresh.data" "$T/gen-$prog-x1.data"
done
