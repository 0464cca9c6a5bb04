# The progress line on a terminal (strobe-synth(1)): bytes read, rate,
# percentage and ETA, windows so far; redrawn in place and erased when the
# run ends, so that nothing of it is left on the screen.  Not drawn when
# stderr is not a terminal.  The input is a scaled fixture (1.8 MB per 200
# runs of the PT scenario) fed through a pipe that waits 1.3 s first (the
# line appears only a second into the run; the pipe is copied whole before
# the conversion starts, cli/spool.c), and the conversion must last a
# quarter second for the line to show a rate: 2400 runs take about 0.9 s
# on a fast machine (600 runs took 0.24 s there and drew nothing).
. tests/e2e/lib.sh

require_tool script
GEN=${SY_BUILD}/sy-fixturegen
[ -x "$GEN" ] || fail "$GEN not built (make tools)"
cat >"$T/p.scn" <<'SCN'
program = branchy-x86_64
trace = pt
sink = pt
R = 700
P = 10000
start = 1000
insns = 40000
SCN
"$GEN" --scale 2400 --no-truth -o "$T" "$T/p.scn" 2>"$T/gen.err" || { cat "$T/gen.err"; fail "fixture generation"; }
big=$T/p-x2400.data
[ -s "$big" ] || fail "no scaled fixture"

# under a pseudo-terminal: script(1) records what the terminal received
script -qfec "sh -c '(sleep 1.3; cat \"$big\") | \"$SYA\" convert -j1 -q --symfs . --format lbr -o \"$T/p.lbr\" -'" \
	"$T/tty" >/dev/null 2>&1 || { cat "$T/tty"; fail "convert under a terminal failed"; }
python3 - "$T/tty" <<'PY' || fail "progress line (above)"
import re, sys
raw = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
body = raw.split("\n", 1)[1].rsplit("\nScript done", 1)[0]
lines = [l for l in re.split(r"\r\x1b\[K", body) if l]
assert lines, "no progress line drawn: %r" % body
for l in lines:
    m = re.fullmatch(r"strobe-synth: -: [0-9.]+ [KMG]?B read, [0-9.]+ [KMG]?B/s, +\d+%, ETA \d+:\d\d, \d+ windows?", l)
    assert m, "not a progress line: %r" % l
    assert len(l) < 80, "wider than a terminal: %r" % l
# erased at the end: the last thing written is the erase sequence
assert body.rstrip("\r\n").endswith("\r\x1b[K"), "the line is not erased at the end: %r" % body[-120:]
PY
# not a terminal: no progress text at all
(sleep 1.3; cat "$big") | "$SY" convert -j1 -q --symfs . --format lbr -o "$T/p2.lbr" - 2>"$T/err" ||
	fail "convert from a pipe failed"
[ ! -s "$T/err" ] || { cat -v "$T/err"; fail "progress text written to a file"; }
cmp -s "$T/p.lbr" "$T/p2.lbr" || fail "the terminal changed the output"
# one huge AUXTRACE record (issue 23, defect 9): the walk reads one record
# for the whole run, so the line counts the trace bytes decoded; 20e0247,
# counting records, drew nothing
R=$SHARED/fixtures/real/simpleperf-etm/perf61-compat/perf_with_unformatted_trace.data
require_path "$R"
"$SY_BUILD/tests/aux_repeat" -n 300000 "$R" "$T/one.data" >/dev/null || fail "aux_repeat"
script -qfec "sh -c '(sleep 1.3; cat \"$T/one.data\") | \"$SYA\" convert -j1 -q --symfs \"$(dirname "$R")/../symfs\" --format lbr -o \"$T/one.lbr\" -'" \
	"$T/tty1" >/dev/null 2>&1 || { cat "$T/tty1"; fail "convert of one huge record under a terminal failed"; }
python3 - "$T/tty1" <<'PY' || fail "progress line of one huge record (above)"
import re, sys
raw = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
pct = [int(p) for p in re.findall(r"read, [0-9.]+ [KMG]?B/s, +(\d+)%", raw)]
assert len(pct) >= 2, "fewer than two progress lines: %r" % raw[-300:]
assert pct == sorted(pct) and pct[-1] > pct[0], "the percentage does not grow: %r" % pct
PY
echo "progress: rate, percentage, ETA and windows on a terminal, erased at the end; nothing off a terminal"
exit 0
