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
	"$SY" convert --symfs . -o /dev/null --stats-json "$T/$n.conv.json" "$G/$n.data" \
		2>"$T/$n.conv.err" || { cat "$T/$n.conv.err"; fail "$n: convert failed"; }
	grep -q ': design check' "$T/$n.conv.err" || { cat "$T/$n.conv.err"; fail "$n: convert has no design check line"; }
	python3 - "$T/$n.json" "$T/$n.conv.json" <<'PY' || fail "$n: convert's design check differs from windows'"
import json, sys
a, b = (json.load(open(x))["design_check"] for x in sys.argv[1:])
sys.exit(0 if a == b else "windows %s, convert %s" % (a, b))
PY
done
# the mainline recording has no design to check
"$SY" windows -q --json --symfs . "$G/etm4-etr-basic.data" | grep -q '"design_check": null' ||
	fail "mainline: design_check should be null"
exit 0
