"""Keeps, of convert's perf-script, each ok window's pause sample
(t_windows_whatif_profgen.sh): --what-if cuts only those, and convert
writes a window's placed samples of other events just before its pause
sample.  argv: WINDOWS-JSON (windows --json: the windows listing)
PERFSCRIPT OUT.  Fails rather than guess when the samples do not line up
with the windows (aggregated repeats, another count, a leaf that is not
the window's pause IP)."""
import json
import sys

js, ps, out = sys.argv[1:4]
wins = [w for w in json.load(open(js))["windows_list"]
        if w["status"] == "ok" and w["stack"]]
head, samples, cur = [], [], []
for line in open(ps):
    if line.startswith("PERF_RECORD"):
        head.append(line)
        continue
    if not line.strip():
        continue
    if line.strip().isdigit() and not line.startswith("\t"):
        sys.exit("%s: repeated samples: the windows cannot be told apart" % ps)
    cur.append(line)
    if line.startswith(" 0x"):
        samples.append(cur)
        cur = []
need = sum(w["inner_placed"] + 1 for w in wins)
if need != len(samples):
    sys.exit("%s: %d samples, the ok windows say %d" % (ps, len(samples), need))
keep, i = [], 0
for w in wins:
    i += w["inner_placed"]
    if int(samples[i][0].strip(), 16) != w["pause_ip"]:
        sys.exit("%s: window %d: leaf %s is not its pause IP %x" %
                 (ps, w["index"], samples[i][0].strip(), w["pause_ip"]))
    keep.append("".join(samples[i]))
    i += 1
open(out, "w").write("".join(head) + "".join(keep))
