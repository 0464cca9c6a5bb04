# A damaged pause sample body whose callchain frame is rewritten to an
# address in no mapping (0x400... -> 0xae0000400...) is not written out
# silently (issue 27, bug 5): convert and windows note it once, at the
# sample's record, and the summary counts it; the sample is still written
# (its branches are the trace's).  The undamaged file says nothing of it.
. tests/e2e/lib.sh
require_tool python3
G=tests/fixtures/generated
python3 - "$G/etm4-etr-basic.data" "$T/chain.data" >"$T/off" <<'PY' || fail "no callchain found"
import struct, sys
sys.path.insert(0, "tests/damage")
import perfdata
d = bytearray(open(sys.argv[1], "rb").read())
pd = perfdata.PerfData(bytes(d))
USER = struct.pack("<Q", 0xfffffffffffffe00)
for r in pd.records:
    if r.type != 9:
        continue
    body = bytes(d[r.off:r.off + r.size])
    i = body.find(USER)
    if i < 0 or i + 24 > len(body):
        continue
    p = r.off + i + 16          # the leaf's caller frame
    v = struct.unpack_from("<Q", d, p)[0]
    if v >> 32:
        continue
    struct.pack_into("<Q", d, p, v | 0xae0000000000)
    open(sys.argv[2], "wb").write(d)
    print(r.off)
    break
else:
    sys.exit(1)
PY
off=$(cat "$T/off")
"$SY" convert --symfs . -o "$T/ok.ps" "$G/etm4-etr-basic.data" 2>"$T/err0" || fail "convert failed on the undamaged file"
grep -q "no mapping" "$T/err0" && { cat "$T/err0"; fail "undamaged file: a frame in no mapping"; }
"$SY" convert --symfs . -o "$T/d.ps" "$T/chain.data" 2>"$T/err" || { cat "$T/err"; fail "convert failed on the damaged sample"; }
[ "$(grep -c "callchain frame 1 at 0xae0000.* is in no mapping" "$T/err")" -eq 1 ] &&
	grep -q "chain.data: offset $off: " "$T/err" ||
	{ cat "$T/err"; fail "convert: not one note at the sample's record (offset $off)"; }
grep -q "1 pause sample with a callchain frame in no mapping" "$T/err" ||
	{ cat "$T/err"; fail "convert summary: not counted"; }
[ "$(grep -c '^ 0x' "$T/d.ps")" -eq "$(grep -c '^ 0x' "$T/ok.ps")" ] ||
	fail "the damaged sample's window was dropped or more were written"
"$SY" convert -q --symfs . -o "$T/s.out" --stats-json "$T/s.json" "$T/chain.data" ||
	fail "convert --stats-json failed on the damaged sample"
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert j["callchains_unmapped"] == 1, j["callchains_unmapped"]' "$T/s.json" ||
	fail "--stats-json: callchains_unmapped is not 1"
# the oddflow program's windows are all correct (the truth) and unusual:
# kept, counted as suspect in the JSON as in the summary line
"$SY" convert -q --symfs . -o "$T/o.out" --stats-json "$T/o.json" \
	"$G/etm4-etr-oddflow.data" || fail "convert failed on etm4-etr-oddflow"
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
s = j["by_status"]
assert s["implausible"] == 0 and s["ok"] == j["windows"], s
assert 0 < j["suspect_windows"] <= j["windows"], j["suspect_windows"]' "$T/o.json" ||
	fail "--stats-json: oddflow windows not all ok, or none counted suspect"
"$SY" windows --symfs . "$T/chain.data" >"$T/w.txt" 2>"$T/werr" || fail "windows failed"
grep -q "1 pause sample with a callchain frame in no mapping" "$T/w.txt" ||
	{ cat "$T/w.txt" "$T/werr"; fail "windows summary: not counted"; }
exit 0
