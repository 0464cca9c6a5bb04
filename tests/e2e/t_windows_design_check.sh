# windows checks each window against its strobing design (issue 24):
# fixtures recorded each way (tests/fixtures/scenarios/*design*.scn:
# pause-armed and first_period counting instructions, the userspace
# stagger counting cycles), compared with the generator's truth (.truth
# window lines): every ok window of the RFC's designs holds the designed
# instructions except those the truth says are longer (a missed pause
# leaves the trace running, disarmed, until the next resume re-arms it),
# the skid is measured as 0 (the generator's interrupts have none), and
# the stagger's W is the truth's window duration; convert says the same.
. tests/e2e/lib.sh
require_tool python3
G=tests/fixtures/generated
for n in etm4-etr-design-armed etm4-etr-design-first ete-trbe-design-stagger; do
	[ -f "$G/$n.data" ] || fail "$G/$n.data missing (make fixtures)"
	"$SY" windows -q --json --symfs . "$G/$n.data" >"$T/$n.json" ||
		fail "$n: windows failed"
	"$SY" windows -q --symfs . "$G/$n.data" >"$T/$n.txt" || fail "$n: windows failed"
	grep -q '^design check' "$T/$n.txt" || { cat "$T/$n.txt"; fail "$n: no design check line"; }
	python3 - "$n" "$T/$n.json" "$G/$n.truth" <<'PY' || fail "$n: the design check disagrees with the truth"
import json, re, sys, statistics
name, js, truth = sys.argv[1:]
j = json.load(open(js))
wins = []
for line in open(truth):
    if line.startswith("window "):
        f = dict(kv.split("=", 1) for kv in line.split()[2:])
        wins.append(f)
ok = [w for w in wins if w["status"] == "ok"]
dc = j["design_check"]
def need(c, what):
    if not c:
        sys.exit("%s: %s (design_check %s)" % (name, what, dc))
if name == "ete-trbe-design-stagger":
    need(j["design"] == "userspace stagger", "design " + j["design"])
    durs = [int(w["end_time"]) - int(w["start_time"]) for w in wins
            if int(w["insns"]) > 0]
    need(dc["unit"] == "ns", "unit")
    need(dc["median"] == statistics.median_low(durs), "W %s, truth %s" % (dc["median"], durs))
    need(dc["depart"] == 0, "departures")
else:
    want = {"etm4-etr-design-armed": 300, "etm4-etr-design-first": 250}[name]
    need(j["design"] == ("pause-armed" if "armed" in name else "first_period"), "design")
    need(dc["unit"] == "instructions" and dc["want"] == want, "want")
    longer = sorted(int(w["insns"]) for w in ok if int(w["insns"]) != want)
    need(dc["checked"] == len(ok), "checked %d, truth ok %d" % (dc["checked"], len(ok)))
    need(dc["depart"] == len(longer), "depart, truth %s" % longer)
    need(sorted(d["instructions"] for d in dc["first_departing"]) == longer[:4], "departing")
    need(dc["skid_max"] == 0, "skid")
    if "armed" in name:
        need(len(longer) == 1, "the missed pause should give one longer window")
PY
done
# convert's summary and --stats-json say the same (one check, both
# commands)
for n in etm4-etr-design-armed etm4-etr-design-first ete-trbe-design-stagger; do
	"$SY" convert --symfs . -o "$T/$n.conv.out" --stats-json "$T/$n.conv.json" "$G/$n.data" \
		2>"$T/$n.conv.err" || { cat "$T/$n.conv.err"; fail "$n: convert failed"; }
	grep -q ': design check' "$T/$n.conv.err" || { cat "$T/$n.conv.err"; fail "$n: convert has no design check line"; }
	python3 - "$T/$n.json" "$T/$n.conv.json" <<'PY' || fail "$n: convert's design check differs from windows'"
import json, sys
a, b = (json.load(open(x))["design_check"] for x in sys.argv[1:])
sys.exit(0 if a == b else "windows %s, convert %s" % (a, b))
PY
done
# the picture draws the designed length where it is in instructions (and
# renders); the stagger's W is a duration: nothing drawn
command -v rsvg-convert >/dev/null 2>&1 || skip "rsvg-convert (librsvg2-bin) not installed"
for x in etm4-etr-design-armed:300 etm4-etr-design-first:250 ete-trbe-design-stagger:-; do
	n=${x%%:*}
	want=${x#*:}
	"$SY" windows -q --summary --svg "$T/$n.svg" --symfs . "$G/$n.data" >/dev/null ||
		fail "$n: windows --svg failed"
	rsvg-convert -o "$T/$n.png" "$T/$n.svg" || fail "$n: the picture does not render"
	if [ "$want" = - ]; then
		grep -q 'designed length' "$T/$n.svg" && fail "$n: a designed length drawn"
	else
		grep -q "<title>designed length $want instructions</title>" "$T/$n.svg" &&
			grep -q ">design: $want<" "$T/$n.svg" ||
			fail "$n: the designed length $want is not drawn"
	fi
done
# mainline of one event counting instructions (R > P): lengths uniform
# over (0, P], each bin expecting n * width / P windows, drawn as a line
n=etm4-etr-count-insns
"$SY" windows -q --summary --svg "$T/$n.svg" --symfs . "$G/$n.data" >"$T/$n.txt" ||
	fail "$n: windows --svg failed"
rsvg-convert -o "$T/$n.png" "$T/$n.svg" || fail "$n: the picture does not render"
python3 - "$T/$n.svg" "$T/$n.txt" <<'PY' || fail "$n: the predicted line is not n * width / P"
import re, sys
svg, txt = open(sys.argv[1]).read(), open(sys.argv[2]).read()
m = re.search(r'<polyline points="([^"]*)"[^>]*><title>predicted: uniform over \(0, P = (\d+)\]', svg)
if not m or ">uniform (0, P]<" not in svg:
    sys.exit("no predicted line")
P = int(m.group(2))
n = int(re.search(r"histogram \(the (\d+) windows? with trace; instructions, bins of (\d+)", txt).group(1))
width = int(re.search(r"bins of (\d+)", txt).group(1))
ys = [float(p.split(",")[1]) for p in m.group(1).split()]
# the y axis: gridlines labelled with counts, linear (the histogram's:
# the panels under it, from y 480 on, have their own)
grid = {int(t): float(y) for y, t in re.findall(r'<text x="[\d.]+" y="([\d.]+)"[^>]*text-anchor="end">(\d+)</text>', svg) if float(y) < 480}
(c0, y0), (c1, y1) = sorted(grid.items())[0], sorted(grid.items())[-1]
want = n * width / P
got = c0 + (ys[1] - (y0 - 4)) * (c1 - c0) / ((y1 - 4) - (y0 - 4))
if P != 500 or abs(got - want) > 0.02:
    sys.exit("P %d, line at %.3f windows, want %.3f" % (P, got, want))
PY
# the mainline recording has no design to check
"$SY" windows -q --json --symfs . "$G/etm4-etr-basic.data" | grep -q '"design_check": null' ||
	fail "mainline: design_check should be null"
exit 0
