# windows --json carries what the text summary says (issue 24): the
# histogram's bins (the text's bounds and counts; their split by status
# recomputed from the JSON window list) and the periods' advice (P/R and
# P/2R from the generator's truth R and P, R mod P, and the warning the
# text prints), on every generated fixture.
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
# periods: from the truth's R and P
if j["same_event"] and R > P and not j["periods_freq"]:
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
want = ["r_le_p"] if R <= P else ["r_multiple_of_p"] if R % P == 0 else \
       ["r_mod_p_small"] if j["same_event"] and P > 1 and R % P < P // 100 else []
if j["warnings"] != want:
    bad.append("warnings %s, truth R=%d P=%d gives %s" % (j["warnings"], R, P, want))
for b in bad:
    print(sys.argv[1], b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no generated fixtures"
echo "windows --json: histogram and periods agree with the text and the truth in $n fixtures"
