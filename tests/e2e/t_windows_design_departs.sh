# windows and convert name each window that departs from its strobing
# design, and why, against the generator's truth (issue 24; the sidecar's
# depart lines, tests/fixtures/gen/fx_sidecar.h):
#  - etm4-etr-design-throttle: pause-armed counting instructions, the
#    pause event throttled (PERF_RECORD_THROTTLE .. UNTHROTTLE): the
#    window whose designed pause fell in the throttled stretch runs long
#    and is flagged "throttled"; every other ok window holds the design;
#  - etm4-etr-design-stagger-throttle: the same with the userspace stagger
#    (a design by time): W is the other windows' duration, the throttled
#    window is off it and flagged "throttled";
#  - ete-trbe-design-stagger-fork: the userspace stagger with a forked
#    child whose inherited counters have no offset: W is the parent's
#    window duration (the child has more windows, a full period each), the
#    child's windows are flagged "no-stagger" and the child's pid is named
#    as not having inherited the stagger.
# Windows are matched to the truth's by CPU and resume time.  ONLY=NAME
# checks one of the two fixtures.
. tests/e2e/lib.sh
require_tool python3
G=tests/fixtures/generated
for n in ${ONLY:-etm4-etr-design-throttle etm4-etr-design-stagger-throttle \
	ete-trbe-design-stagger-fork}; do
	[ -f "$G/$n.data" ] || fail "$G/$n.data missing (make fixtures)"
	"$SY" windows -q --json --symfs . "$G/$n.data" >"$T/$n.json" ||
		fail "$n: windows --json failed"
	"$SY" windows -q --symfs . "$G/$n.data" >"$T/$n.txt" ||
		fail "$n: windows failed"
	"$SY" convert --symfs . -o "$T/$n.conv.out" --stats-json "$T/$n.conv.json" \
		"$G/$n.data" 2>"$T/$n.conv.err" ||
		{ cat "$T/$n.conv.err"; fail "$n: convert failed"; }
	python3 - "$n" "$T/$n.json" "$T/$n.txt" "$T/$n.conv.json" \
		"$T/$n.conv.err" "$G/$n.truth" <<'PY' || fail "$n: the design check disagrees with the truth"
import json, re, sys, statistics
name, js, txt, cjs, cerr, truth = sys.argv[1:]
j = json.load(open(js))
text = open(txt).read()
dc = j["design_check"]
def need(c, what):
    if not c:
        sys.exit("%s: %s (design_check %s)" % (name, what, dc))
pid_of, wins, depart = {}, [], {}
for line in open(truth):
    t = line.split()
    if not t:
        continue
    if t[0] == "thread":
        f = dict(kv.split("=", 1) for kv in t[1:])
        pid_of[int(f["tid"])] = int(f["pid"])
    elif t[0] == "window":
        f = dict(kv.split("=", 1) for kv in t[2:])
        f["idx"] = int(t[1])
        wins.append(f)
    elif t[0] == "depart":
        depart[int(t[1])] = t[2].split("=", 1)[1]
need(depart, "the truth has no departing window")
# the tool's windows by (cpu, resume time) -> the truth's
tw = {(w["cpu"], w["start_time"]): w["index"] for w in j["windows_list"]}
ok = [w for w in wins if w["status"] == "ok"]
def tool_index(w):
    k = (int(w["cpu"]), int(w["start_time"]))
    need(k in tw, "truth window %d (cpu %s, %s) not listed" % (w["idx"], k[0], k[1]))
    return tw[k]
want = {tool_index(w): depart[w["idx"]] for w in ok if w["idx"] in depart}
got = {d["window"]: d.get("why", "(none)") for d in dc.get("first_departing", [])}
need(len(want) <= 16, "more departures than the list names")
need(got == want, "departing %s, truth %s" % (got, want))
need(dc["checked"] == len(ok), "checked %d, truth ok %d" % (dc["checked"], len(ok)))
need(dc["depart"] == len(want), "depart %d, truth %d" % (dc["depart"], len(want)))
nthr = sum(1 for v in want.values() if v == "throttled")
need(dc["throttled"] == nthr, "throttled %d, truth %d" % (dc["throttled"], nthr))
if name == "etm4-etr-design-throttle":
    need(j["design"] == "pause-armed" and dc["want"] == 300, "design")
    need(nthr == len(want) == 1, "one throttled window in the truth")
    # the others hold the design exactly (no skid in the model)
    for w in ok:
        if w["idx"] not in depart:
            need(int(w["insns"]) == 300, "truth window %d: %s" % (w["idx"], w["insns"]))
        else:
            need(int(w["insns"]) > 330, "the throttled window is long")
    need(re.search(r"^design check: 4 of 5 ok windows .* 1 of them while "
                   r"the pause event was throttled", text, re.M), "text")
elif name == "etm4-etr-design-stagger-throttle":
    need(j["design"] == "userspace stagger", "design")
    need(nthr == len(want) == 1, "one throttled window in the truth")
    durs = [int(w["end_time"]) - int(w["start_time"]) for w in ok
            if w["idx"] not in depart]
    need(dc["median"] == statistics.median_low(durs) == 400, "W")
    need(dc["no_stagger"] == 0 and dc["not_inherited"] == [], "no child")
    need(re.search(r"^design check \(by time.* 1 of them while the pause "
                   r"event was throttled", text, re.M), "text")
else:
    need(j["design"] == "userspace stagger", "design")
    # W: the duration of the parent's windows in the truth, which the
    # child (more windows, a period each) must not hide
    par = [int(w["end_time"]) - int(w["start_time"]) for w in ok
           if w["idx"] not in depart]
    chi = [int(w["end_time"]) - int(w["start_time"]) for w in ok
           if w["idx"] in depart]
    need(len(chi) > len(par) > 0, "the child should have more windows")
    need(dc["median"] == statistics.median_low(par) == 400,
         "W %s, truth %s" % (dc["median"], par))
    need(dc["no_stagger"] == len(want), "no_stagger")
    kids = sorted({pid_of[int(w["tid"])] for w in ok if w["idx"] in depart})
    need(sorted(x["pid"] for x in dc["not_inherited"]) == kids,
         "not_inherited %s, truth %s" % (dc["not_inherited"], kids))
    need(all(x["windows"] == len(want) for x in dc["not_inherited"]), "count")
    for p in kids:
        need(re.search(r"^design check: pid %d did not inherit the stagger"
                       % p, text, re.M), "no line for pid %d" % p)
        need(re.search(r": design check: pid %d did not inherit the stagger"
                       % p, open(cerr).read(), re.M), "convert: pid %d" % p)
# convert checks with the same code: the same answer
need(json.load(open(cjs))["design_check"] == dc, "convert's design check differs")
PY
done
echo "windows: throttled and not-inherited departures as the truth says"
