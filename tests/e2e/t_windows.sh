# e2e: long (minutes; tests/e2e/run starts it first)
# `strobe-synth windows` on every generated fixture, checked against
# oracles that are not strobe-synth:
#  - the window list (one per pause sample: status, thread, resume time)
#    against the generator's truth sidecar; where the truth lists several
#    statuses for a sample, the tool reports one of them;
#  - the percentiles and histogram in the summary, recomputed here from the
#    per-window list (nearest-rank, as the man page says);
#  - the resume and pause periods against `perf evlist -v` (the events
#    with a callchain are the pause event and, when the truth has S, the
#    sampling event of period S; perf 6.1 does not show aux_action);
#  - callchain samples of other events: the summary's placed count is the
#    listing's, and placed + unplaced are the samples it saw;
#  - the SVG histogram renders to a PNG with rsvg-convert.
. tests/e2e/lib.sh
require_tool perf
require_tool python3
require_tool rsvg-convert

n=0
for f in tests/fixtures/generated/*.data; do
	name=$(basename "$f" .data)
	truth=tests/fixtures/generated/$name.truth
	# the thresholds the truth validated with, as command-line options
	set -- $(awk '$1 == "thresholds" {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		lo = v["min_insns"] ? v["min_insns"] : ""
		hi = v["max_insns"] ? v["max_insns"] : ""
		if (lo != "" || hi != "") printf "--window %s:%s ", lo, hi
		if (v["min_branches"]) printf "--min-branches %s", v["min_branches"]
	}' "$truth")
	# a kernel-mode fixture's code is its kernel image's
	set -- "$@" $(awk '$1 == "kernel" { print "--vmlinux", $2 }' "$truth")
	"$SY" windows --json --symfs . "$@" "$f" >"$T/w.json" 2>"$T/err" ||
		{ cat "$T/err"; fail "$name: windows --json failed"; }
	"$SY" windows --symfs . "$@" "$f" >"$T/w.txt" 2>"$T/err" ||
		{ cat "$T/err"; fail "$name: windows failed"; }
	# perf 6.1 refuses attrs over 128 bytes; the periods of those are checked
	# against the truth only
	if grep -Eq '^file .*attr_size=(136|160)' "$truth"; then
		: >"$T/evlist"
	else
		perf evlist -v -i "$f" >"$T/evlist" 2>/dev/null ||
			fail "$name: perf evlist failed"
	fi
	python3 - "$name" "$truth" "$T/w.json" "$T/w.txt" "$T/evlist" <<'PY' || fail "$name: windows disagrees (above)"
import json, re, sys
name, truth, wj, wt, evl = sys.argv[1:]
bad = []
tw, tp, R, P, S = {}, [], None, None, 0
for line in open(truth):
    f = line.split()
    if line.startswith("window "):
        tw[f[1]] = dict(x.split("=", 1) for x in f[2:])
    elif line.startswith("pause "):
        tp.append(dict(x.split("=", 1) for x in f[2:]))
    elif line.startswith("R "):
        R = int(f[1])
    elif line.startswith("P "):
        P = int(f[1])
    elif line.startswith("S "):
        S = int(f[1])
j = json.load(open(wj))
wl = j["windows_list"]
# one entry per pause sample; the truth numbers them in time order
if len(wl) != len(tp) or j["windows"] != len(tp):
    bad.append("%d windows listed, truth has %d pause samples" % (len(wl), len(tp)))
else:
    mine = {(w["end_time"], w["cpu"]): w for w in wl}
    for t in tp:
        w = mine.get((int(t["time"]), int(t["cpu"])))
        if w is None:
            bad.append("no window for the pause sample at %s" % t["time"])
            continue
        if w["status"] not in t["status"].split("|"):
            bad.append("window %d: status %s, truth %s" % (w["index"], w["status"], t["status"]))
        if int(w["tid"]) != int(t["tid"]):
            bad.append("window %d: tid %s, truth %s" % (w["index"], w["tid"], t["tid"]))
        tw_ = tw.get(t["window"])
        # a decode error is reported where it is in the AUX area, inside
        # the bytes the truth wrote for the window (not counted from the
        # piece or group that was decoded)
        m = re.search(r"at trace byte (\d+)", w["reason"])
        if m and tw_ and "+" in tw_.get("aux", ""):
            lo, size = (int(x, 16) for x in tw_["aux"].split("+"))
            if not lo <= int(m.group(1)) < lo + size:
                bad.append("window %d: error at trace byte %s, outside its AUX bytes [%d, %d)"
                           % (w["index"], m.group(1), lo, lo + size))
        if tw_ and tw_["resume"] != "none" and w["status"] not in ("paused", "empty") \
           and str(w["start_time"]) != tw_["start_time"]:
            bad.append("window %d: starts at %d, truth %s" % (w["index"], w["start_time"], tw_["start_time"]))
counts = {}
for w in wl:
    counts[w["status"]] = counts.get(w["status"], 0) + 1
for s, c in j["by_status"].items():
    if counts.get(s, 0) != c:
        bad.append("by_status %s = %d, list has %d" % (s, c, counts.get(s, 0)))
# percentiles, nearest rank, over the windows with trace
withtrace = [w for w in wl if w["bytes"] > 0 or w["instructions"] > 0]
def rank(v, p):
    v = sorted(v)
    k = max(1, -(-p * len(v) // 100))
    return v[k - 1]
keys = {"instructions": "instructions", "branches": "branches", "bytes": "bytes",
        "ns": None}
for k, field in keys.items():
    if not withtrace:
        break
    # time: only windows with a resume sample (start_time 0: none)
    vals = [w[field] for w in withtrace] if field else \
           [w["end_time"] - w["start_time"] for w in withtrace if w["start_time"]]
    if not vals:
        continue
    got = j["percentiles"][k]
    for p in (5, 50, 95):
        if got["p%d" % p] != rank(vals, p):
            bad.append("p%d of %s: %d, recomputed %d" % (p, k, got["p%d" % p], rank(vals, p)))
    if got["max"] != max(vals):
        bad.append("max of %s: %d, recomputed %d" % (k, got["max"], max(vals)))
# terminal histogram: log2 buckets of instructions, counts sum to the list
hist = {}
for line in open(wt):
    m = re.match(r"\s+(\d+) \.\. (\d+)\s+(\d+) ", line)
    if m:
        hist[(int(m.group(1)), int(m.group(2)))] = int(m.group(3))
for (lo, hi), c in hist.items():
    want = sum(1 for w in withtrace if lo <= w["instructions"] <= hi)
    if c != want:
        bad.append("histogram %d..%d: %d, list has %d" % (lo, hi, c, want))
if withtrace and sum(hist.values()) != len(withtrace):
    bad.append("histogram holds %d windows, %d have trace" % (sum(hist.values()), len(withtrace)))
# periods: truth, and perf's own reading of the attrs
if j["resume_period"] != R or j["pause_period"] != P:
    bad.append("R/P %s/%s, truth %d/%d" % (j["resume_period"], j["pause_period"], R, P))
# the AUX event is the one perf 6.1 calls "unknown attr type"
ev = [l for l in open(evl) if "sample_period" in l
      and not l.startswith(("unknown attr type", "dummy"))]
if ev:
    pp = [int(re.search(r"sample_freq \}: (\d+)", l).group(1)) for l in ev if "CALLCHAIN" in l]
    rp = [int(re.search(r"sample_freq \}: (\d+)", l).group(1)) for l in ev if "CALLCHAIN" not in l]
    want = sorted([j["pause_period"]] + ([S] if S else []))
    if sorted(pp) != want or rp != [j["resume_period"]]:
        bad.append("perf evlist says R=%s P(,S)=%s" % (rp, pp))
# samples of other events placed in windows
placed = sum(w["inner_placed"] for w in wl)
unplaced = sum(w["inner_unplaced"] for w in wl)
if j["placed"] != placed or j["unplaced"] < unplaced or \
        j["placed"] + j["unplaced"] != j["inner_samples"]:
    bad.append("placed %d unplaced %d of %d; the list has %d and %d" %
               (j["placed"], j["unplaced"], j["inner_samples"], placed, unplaced))
if bool(S) != bool(j["inner_samples"]):
    bad.append("%d samples of other events, truth S = %d" % (j["inner_samples"], S))
for b in bad:
    print("%s: %s" % (name, b), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no generated fixtures"

# the SVG is a picture a person can open: it renders, its bars are the
# terminal histogram's (linear bins, split by status), its percentile marks
# are the text's, and its title counts what the text counts
for name in etm4-etr-damage etm4-etr-missed pt-basic; do
	f=tests/fixtures/generated/$name.data
	"$SY" windows --svg "$T/h.svg" --symfs . "$f" >"$T/w.txt" 2>"$T/err" ||
		{ cat "$T/err"; fail "$name: windows --svg failed"; }
	rsvg-convert -o "$T/h.png" "$T/h.svg" 2>"$T/err" ||
		{ cat "$T/err"; fail "$name: rsvg-convert cannot render the histogram"; }
	python3 - "$T/h.png" "$T/h.svg" "$T/w.txt" <<'PY' || fail "$name: the rendered histogram is wrong"
import re, struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", b[16:24])
assert w >= 320 and h >= 200, "%dx%d" % (w, h)
svg = open(sys.argv[2]).read()
bars = {int(lo): (int(hi), int(n)) for lo, hi, n in
        re.findall(r"<title>(\d+) \.\. (\d+): (\d+) windows</title>", svg)}
text = open(sys.argv[3]).read()
term = {}
for line in text.splitlines():
    m = re.match(r"\s+(\d+) \.\. (\d+)\s+(\d+) ", line)
    if m:
        term[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
assert term and bars == term, (bars, term)
# linear bins: every bin the same width
widths = {hi - lo for lo, (hi, n) in term.items()}
assert len(widths) == 1, widths
# the stacked parts of the bars add up to the windows with trace, by status
parts = re.findall(r"<title>(\d+) ([a-z-]+)</title>", svg)
# resume and pause times in seconds as perf script prints them, "-" unknown
listed = re.findall(r"^\s+\d+\s+\d+\s+\d+\s+(?:\d+\.\d{9}|-)\s+(?:\d+\.\d{9}|-)\s+(\d+)\s+(\d+)\s+\d+ ([a-z-]+)", text, re.M)
assert listed, "no window listed"
want = {}
for nbytes, insns, st in listed:
    if int(nbytes) or int(insns):
        want[st] = want.get(st, 0) + 1
got = {}
for n, st in parts:
    got[st] = got.get(st, 0) + int(n)
assert got == want, (got, want)
# p5/p50/p95 marked with the text's values
m = re.search(r"^  instructions\s+(\d+)\s+(\d+)\s+(\d+)", text, re.M)
for p, v in zip((5, 50, 95), m.groups()):
    assert re.search(r">p%d %s<" % (p, v), svg), "p%d %s not marked" % (p, v)
# both axes labelled; the title counts the text's windows
assert ">windows<" in svg and "window length in instructions" in svg
total = re.search(r"\), (\d+) windows?:", text).group(1)
assert re.search(r": %d of %s windows? carry trace<" % (sum(want.values()), total), svg), "title count"
PY
done
# --svg - is standard output, not a file named '-'
(cd "$T" && "$OLDPWD/$SY" windows --svg - --symfs "$OLDPWD" "$OLDPWD/$f" >"$T/stdout.svg" 2>"$T/err") ||
	{ cat "$T/err"; fail "windows --svg - failed"; }
[ ! -e "$T/-" ] || fail "windows --svg - wrote a file named '-'"
rsvg-convert -o "$T/stdout.png" "$T/stdout.svg" || fail "windows --svg -: standard output is not the SVG"
# file names reach the JSON escaped: a quote or backslash keeps it valid
q="$T/we\"ird\\name.data"
cp tests/fixtures/generated/etm4-etr-damage.data "$q"
"$SY" windows --json --symfs . "$q" >"$T/q.json" 2>/dev/null || fail "windows --json on an odd name"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["input"] == sys.argv[2]' \
	"$T/q.json" "$q" || fail "windows --json: the input name is not escaped"
# a failed --svg leaves nothing behind
expect_status 1 "$SY" windows --summary --svg /nonexistent-dir/h.svg --symfs . "$f" >/dev/null 2>"$T/err"
grep -q 'h.svg' "$T/err" || fail "--svg failure does not name the file"
# with the program's code missing (no --symfs: nothing decodes), a
# window still covers no more trace than the file holds (the span of a
# window whose decoder held timestamps back from earlier bytes was once
# negative: 2^64 - 3 bytes)
for f in tests/fixtures/generated/*trbe*.data; do
	"$SY" windows --json "$f" >"$T/nc.json" 2>/dev/null
	python3 - "$T/nc.json" "$(wc -c <"$f")" <<'PY' || fail "$f: windows without code: impossible byte counts"
import json, sys
j = json.load(open(sys.argv[1]))
size = int(sys.argv[2])
bad = [w for w in j["windows_list"] if not 0 <= w["bytes"] <= size]
for w in bad:
    print("window %d: %d bytes, the file has %d" % (w["index"], w["bytes"], size))
sys.exit(1 if bad else 0)
PY
done
# times (issue 23, defect 7): listed in seconds as perf script prints them,
# so that a window's listed pause time pasted into --time selects it alone;
# the summary gives the windows' time span; an unknown time is "-"
G=tests/fixtures/generated
"$SY" windows --symfs . "$G/etm4-etr-basic.data" >"$T/t.txt" || fail "windows failed"
pt=$(awk '$1 == 2 { print $5 }' "$T/t.txt")
echo "$pt" | grep -Eq '^[0-9]+\.[0-9]{9}$' || { cat "$T/t.txt"; fail "pause time not in seconds: $pt"; }
"$SY" windows --symfs . --time "$pt,$pt" "$G/etm4-etr-basic.data" >"$T/t1.txt" || fail "windows --time failed"
[ "$(awk '$1 ~ /^[0-9]+$/ && $5 ~ /^([0-9]+[.][0-9]+|-)$/' "$T/t1.txt" | wc -l)" -eq 1 ] &&
	awk '$1 ~ /^[0-9]+$/ && $5 ~ /^([0-9]+[.][0-9]+|-)$/ { print $1 }' "$T/t1.txt" | grep -qx 2 ||
	{ cat "$T/t1.txt"; fail "--time with the listed pause time did not select window 2 alone"; }
grep -q '^time span of the windows: [0-9]*\.[0-9]\{9\} to [0-9]*\.[0-9]\{9\}' "$T/t.txt" ||
	{ cat "$T/t.txt"; fail "no time span in the summary"; }
"$SY" windows --symfs . "$G/etm4-etr-pausefirst.data" >"$T/t2.txt" || fail "windows failed"
awk '$1 ~ /^[0-9]+$/ && $5 ~ /^([0-9]+[.][0-9]+|-)$/ && $4 == "-"' "$T/t2.txt" | grep -q . ||
	{ cat "$T/t2.txt"; fail "a window without a resume sample shows no '-'"; }
echo "windows: $n fixtures agree with their truth, perf evlist and rsvg-convert"
