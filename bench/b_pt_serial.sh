#!/bin/sh
# How much of convert can two threads share on Intel PT (issue 25's -j2
# target), figures only, in CPU time so that a shared machine's load does
# not decide them.
#
# Inputs: the scaled PT scenarios of b_pt_real.sh (pt-basic, pt-deep,
# pt-interp, `sy-fixturegen --scale N --no-truth` to about PT_REAL_MB MB of
# trace, default 16; built in BENCH_TMP and deleted with it).
#
# Rows, per input:
#   serial       perf record -F 999 --call-graph dwarf of convert --format
#                lbr -j1: the share of its samples with none of the pool's
#                work on their stack (sy_job_run: decode jobs;
#                sy_validate_work: placing and validating windows;
#                sy_finish_job / sy_finish_closed: windows finished on the
#                decoding thread) -- the walk's records, matching, output,
#                the prepass -- and Amdahl's bound for two threads,
#                1 / (s + (1 - s) / 2)
#   cpu -j1/-j2  per-thread CPU seconds (utime + stime from
#                /proc/PID/task/*/stat, polled every 20 ms) of convert -j1
#                and -j2: the walk's thread and the worker; "two idle
#                cores" is cpu(-j1) / max(walk(-j2), cpu(-j2) / 2), what
#                -j2 would gain if each thread had a core (the walk's
#                thread also decodes while it waits, so on a loaded
#                machine this understates it)
# Needs perf (perf_event_paranoid <= 2) and python3; rows that cannot run
# say so.
set -u
SY=$SY_BUILD/strobe-synth
GEN=$SY_BUILD/sy-fixturegen
FLOOR=$SY_BUILD/bench/bench_pt_floor
T=$BENCH_TMP/pt_serial
ROOT=$(pwd)
MB=${PT_REAL_MB:-16}

for x in "$SY" "$GEN" "$FLOOR"; do
	[ -x "$x" ] || { echo "b_pt_serial: $x not built (make bench)" >&2; exit 1; }
done
command -v python3 >/dev/null 2>&1 || { echo "b_pt_serial: needs python3" >&2; exit 1; }
mkdir -p "$T" || exit 1

gen() {	# SCENARIO SCALE: prints the file it wrote
	"$GEN" --scale "$2" --no-truth -o "$T" "$ROOT/tests/fixtures/scenarios/$1.scn" \
		>/dev/null 2>"$T/gen.err" || { cat "$T/gen.err" >&2; return 1; }
	echo "$T/$1-x$2.data"
}

scaled() {	# SCENARIO: prints the file, about MB MB of PT
	f=$(gen "$1" 100) || return 1
	b=$(set -- $("$FLOOR" 1 "$f"); echo "$2")
	rm -f "$f"
	gen "$1" "$(awk -v b="$b" -v mb="$MB" 'BEGIN { s = int(mb * 1e6 * 100 / b); print (s < 1 ? 1 : s) }')"
}

convert() {	# J FILE
	echo "$SY" convert --format lbr -q -j"$1" --symfs "$ROOT" -o - "$2"
}

serial() {	# FILE
	perf record -q -F 999 --call-graph dwarf,16384 -o "$T/perf.data" -- \
		$(convert 1 "$1") >/dev/null 2>&1 || { echo "  serial: perf record failed"; return; }
	perf script -i "$T/perf.data" -F comm,tid,ip,sym 2>/dev/null | awk '
	function flush() { if (n) { tot++; if (!pool) ser++ } }
	/^[^ \t]/ { flush(); n = 1; pool = 0; next }
	/sy_job_run|sy_validate_work|sy_finish_job|sy_finish_closed/ { pool = 1 }
	END {
		flush()
		if (!tot) { print "  serial: no samples"; exit }
		s = ser / tot
		printf "  serial: %.1f%% of %d samples, -j2 at most %.2fx\n", 100 * s, tot, 1 / (s + (1 - s) / 2)
	}'
	rm -f "$T/perf.data"
}

# cpu J FILE: "CPU WALK OTHERS" seconds
cpu() {
	python3 - $(convert "$1" "$2") <<'EOF'
import os, subprocess, sys, time
hz = os.sysconf('SC_CLK_TCK')
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
last = {}
while p.poll() is None:
    try:
        for tid in os.listdir('/proc/%d/task' % p.pid):
            try:
                f = open('/proc/%d/task/%s/stat' % (p.pid, tid)).read().rsplit(')', 1)[1].split()
                last[int(tid)] = (int(f[11]) + int(f[12])) / hz
            except OSError:
                pass
    except OSError:
        pass
    time.sleep(0.02)
walk = last.get(p.pid, 0.0)
print("%.2f %.2f %.2f %d" % (walk + sum(v for k, v in last.items() if k != p.pid), walk,
      sum(v for k, v in last.items() if k != p.pid), p.returncode))
EOF
}

for sc in pt-basic pt-deep pt-interp; do
	f=$(scaled "$sc") || { echo "$sc: generation failed"; continue; }
	echo "$sc ($(basename "$f")):"
	if command -v perf >/dev/null 2>&1; then serial "$f"; else echo "  serial: skipped, no perf"; fi
	c1=$(cpu 1 "$f") c2=$(cpu 2 "$f")
	echo "$c1 $c2" | awk '{
		if ($4 || $8) { print "  cpu: convert failed"; exit }
		m = ($6 > $5 / 2) ? $6 : $5 / 2
		printf "  cpu -j1 %.2f s; -j2 %.2f s (walk %.2f, worker %.2f); two idle cores: %.2fx\n", $1, $5, $6, $7, (m > 0 ? $1 / m : 0) }'
	rm -f "$f"
done
