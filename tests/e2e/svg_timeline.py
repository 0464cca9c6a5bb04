#!/usr/bin/env python3
"""svg_timeline.py FILE.svg FILE.json: the timeline panel of windows --svg
agrees with the JSON listing of the same recording (issue 24).

Windows with a time (end, else start) are drawn, in a row per CPU when
they ran on more than one, else per thread; each point's tooltip counts
windows of one status in one time column with their shortest and longest
length.  Checked: per status, the windows, the shortest and the longest
length; the rows' labels (up to 15 rows, then "others")."""
import json
import re
import sys

svg = open(sys.argv[1]).read()
ws = json.load(open(sys.argv[2]))["windows_list"]
timed = [w for w in ws if (w.get("end_time") or w.get("start_time"))]
if not timed:
    assert "over time" not in svg, "a timeline without timed windows"
    sys.exit(0)
by = "cpu" if len({w["cpu"] for w in timed}) > 1 else "tid"
want = {}
for w in timed:
    n, lo, hi = want.get(w["status"], (0, None, None))
    v = w["instructions"]
    want[w["status"]] = (n + 1, v if lo is None else min(lo, v),
                         v if hi is None else max(hi, v))
got = {}
for n, st, lo, hi in re.findall(
        r"<title>(\d+) ([a-z-]+), (\d+) \.\. (\d+) instructions</title>", svg):
    n0, lo0, hi0 = got.get(st, (0, None, None))
    got[st] = (n0 + int(n), int(lo) if lo0 is None else min(lo0, int(lo)),
               int(hi) if hi0 is None else max(hi0, int(hi)))
assert got == want, (got, want)
keys = []
for w in timed:
    if w[by] not in keys:
        keys.append(w[by])
labels = re.findall(r">(%s \d+|others)</text>" % by, svg)
want_labels = ["%s %d" % (by, k) for k in keys[:15]] + (["others"] if len(keys) > 15 else [])
assert labels == want_labels, (labels, want_labels)
