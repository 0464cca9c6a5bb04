# e2e: long (minutes; tests/e2e/run starts it first)
# windows --json carries what the text summary says (issue 24): the
# histogram's bins (the text's bounds and counts; their split by status
# recomputed from the JSON window list) and the periods' advice (P/R and
# P/2R from the generator's truth R and P, R mod P, and the warning the
# text prints), and the advice (the period for 64 branches in 95% of
# windows, windows and MB of trace per second per CPU) recomputed from the
# JSON window list, and the overhead (pause samples that fell into paused
# trace, trace bytes in windows that are not ok) counted from the list, on
# every generated fixture.
. tests/e2e/lib.sh
require_tool python3
n=0
for f in tests/fixtures/generated/*.data; do
	truth=${f%.data}.truth
	"$SY" windows --json --symfs . "$f" >"$T/w.json" 2>/dev/null
	[ $? -le 4 ] || fail "$f: windows --json failed"
	"$SY" windows --symfs . "$f" >"$T/w.txt" 2>/dev/null
	[ $? -le 4 ] || fail "$f: windows failed"
	python3 - "$T/w.json" "$T/w.txt" "$truth" <<'PY' || fail "$f: --json and the text disagree"
import json, re, sys
j = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
truth = dict(l.split(None, 1) for l in open(sys.argv[3]) if re.match(r"[RPS] ", l))
R, P = int(truth["R"]), int(truth["P"])
bad = []
# histogram: the text's bins, split by status as the list says
term = [tuple(map(int, m)) for m in
        re.findall(r"^\s+(\d+) \.\. (\d+)\s+(\d+) ", text, re.M)]
h = j["histogram"]
got = [(b["lo"], b["hi"], b["count"]) for b in h["bins"]] if h else []
if got != term:
    bad.append("histogram %s, text %s" % (got, term))
wl = [w for w in j["windows_list"] if w["bytes"] or w["instructions"]]
for b in (h["bins"] if h else []):
    want = {}
    for w in wl:
        if b["lo"] <= w["instructions"] <= b["hi"]:
            want[w["status"]] = want.get(w["status"], 0) + 1
    if b["by_status"] != want:
        bad.append("bin %d: %s, list %s" % (b["lo"], b["by_status"], want))
# periods: from the truth's R and P; the RFC's first_period and
# pause-armed time the pause themselves (t_windows_design_check.sh checks
# which design each is), so the mainline share and warnings are not given
# for them (a stagger looks like mainline with equal periods)
mainline = j["design"] not in ("first_period", "pause-armed")
if mainline and j["same_event"] and R > P and not j["periods_freq"]:
    if abs(j["branch_stack_share"] - P / R) > 1e-6 or \
       abs(j["duty_cycle"] - P / (2 * R)) > 1e-6 or j["r_mod_p"] != R % P:
        bad.append("share %s duty %s r_mod_p %s; truth R=%d P=%d" %
                   (j["branch_stack_share"], j["duty_cycle"], j["r_mod_p"], R, P))
    if not re.search(r"P/R = %.1f%%" % (100.0 * P / R), text):
        bad.append("the text does not say P/R")
elif j["branch_stack_share"] is not None:
    bad.append("a share where the text gives none")
warn = {"r_le_p": "R <= P", "r_multiple_of_p": "R is a multiple of P",
        "r_mod_p_small": "R mod P is under 1%"}
said = [k for k, v in warn.items() if "warning: " + v in text]
if said != j["warnings"]:
    bad.append("warnings %s, text %s" % (j["warnings"], said))
want = [] if not mainline else ["r_le_p"] if R <= P else \
       ["r_multiple_of_p"] if R % P == 0 else \
       ["r_mod_p_small"] if j["same_event"] and P > 1 and R % P < P // 100 else []
if j["warnings"] != want:
    bad.append("warnings %s, truth R=%d P=%d gives %s" % (j["warnings"], R, P, want))
# advice, recomputed from the list: the period for 64 branches in 95% of
# windows scales the p5 of branches (mainline, same event, R > P), and the
# rates are the windows with trace and all windows' bytes over the span
# of their times, per CPU
adv = j["advice"]
if wl:
    br = sorted(w["branches"] for w in wl)
    b5 = br[max(1, -(-5 * len(br) // 100)) - 1]
    if adv["branches_p5"] != b5:
        bad.append("branches_p5 %d, list %d" % (adv["branches_p5"], b5))
    share = mainline and j["same_event"] and R > P
    # the RFC's first_period and pause-armed: windows scale with W
    W = j["design_window"] if j["design"] in ("first_period", "pause-armed") else 0
    what, now = ("P", P) if share else ("W", W) if W else (None, 0)
    want = -(-now * 64 // b5) if what and b5 else None
    if adv["period_for_target"] != want:
        bad.append("period_for_target %s, recomputed %s" % (adv["period_for_target"], want))
    if want and not re.search(r"advice: %s ~ %d gives at least 64 taken branches in 95%% of windows" % (what, want), text):
        bad.append("the text does not give %s ~ %d" % (what, want))
allw = j["windows_list"]
firsts = [w["start_time"] or w["end_time"] for w in allw if w["start_time"] or w["end_time"]]
cpus = {w["cpu"] for w in allw if 0 <= w["cpu"] < 4096}
if firsts and max(w["end_time"] for w in allw) > min(firsts) and cpus:
    sec = (max(w["end_time"] for w in allw) - min(firsts)) / 1e9
    wr = len(wl) / sec / len(cpus)
    mb = sum(w["bytes"] for w in allw) / 1e6 / sec / len(cpus)
    if abs(adv["seconds"] - sec) > 1e-9 or adv["cpus"] != len(cpus) or \
       abs(adv["windows_per_s_per_cpu"] - wr) > 1e-6 * wr + 1e-6 or \
       abs(adv["trace_mb_per_s_per_cpu"] - mb) > 1e-6 * mb + 1e-9:
        bad.append("rates %s, recomputed %.9f s %d cpus %.6f/s %.9f MB/s" %
                   (adv, sec, len(cpus), wr, mb))
elif adv["seconds"] is not None:
    bad.append("rates where the list spans no time")
# overhead: pause samples into paused trace, trace bytes outside ok windows
tb = sum(w["bytes"] for w in allw)
nb = sum(w["bytes"] for w in allw if w["status"] != "ok")
npaused = sum(1 for w in allw if w["status"] == "paused")
if j["trace_bytes"] != tb or j["trace_bytes_not_ok"] != nb:
    bad.append("trace bytes %d/%d, list %d/%d" % (j["trace_bytes_not_ok"], j["trace_bytes"], nb, tb))
m = re.search(r"^overhead: (\d+) pause samples? fell into paused trace .*; (\d+) of (\d+) trace bytes", text, re.M)
if (npaused or nb) and (not m or tuple(map(int, m.groups())) != (npaused, nb, tb)):
    bad.append("overhead line %s, list %d paused, %d of %d bytes" % (m and m.groups(), npaused, nb, tb))
if not (npaused or nb) and m:
    bad.append("an overhead line with nothing to say")
for b in bad:
    print(sys.argv[1], b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no generated fixtures"
echo "windows --json: histogram and periods agree with the text and the truth in $n fixtures"
