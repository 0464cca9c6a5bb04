# windows and convert name the strobing design a recording's attrs say
# (issue 24; kernel RFC "perf: SW strobing for AUX trace windows", not
# merged: include/sy_perf_abi.h keeps where its fields are taken from).
# A generated fixture's attrs are rewritten here (the truth is what this
# script writes): equal resume and pause periods (userspace stagger), a
# pause event with attr.first_period in 160- and 200-byte attrs (beyond
# the 136 bytes of VER8), one whose first_period is not past its period,
# and a pause event that is pause-armed only (aux_action bit 3), which
# must still end windows as the pause event.
. tests/e2e/lib.sh
require_tool python3
f=tests/fixtures/generated/etm4-etr-basic.data
[ -f "$f" ] || fail "$f missing (make fixtures)"

# rewrite IN OUT VARIANT: OUT is IN with its attrs changed; prints the
# pause period
rewrite() {
	python3 - "$@" <<'PY'
import struct, sys
src, dst, variant = sys.argv[1:4]
b = bytearray(open(src, "rb").read())
assert b[:8] == b"PERFILE2", "not a file-mode perf.data"
esz, aoff, asz = struct.unpack_from("<QQQ", b, 16)
old = esz - 16
ents = [bytes(b[aoff + i * esz: aoff + (i + 1) * esz]) for i in range(asz // esz)]
new = {"stagger": old, "armed": old, "fp160": 160, "fp200": 200, "fplow": 160}[variant]
out = []
P = None
for e in ents:
    a = bytearray(e[:old]) + bytearray(max(0, new - old))
    ids = e[old:]
    struct.pack_into("<I", a, 4, new)
    act = struct.unpack_from("<I", a, 116)[0]
    period = struct.unpack_from("<Q", a, 16)[0]
    if act & 2:
        P = period
    out.append((a, ids, act))
R = [struct.unpack_from("<Q", a, 16)[0] for a, _, act in out if act & 4][0]
for a, ids, act in out:
    if variant == "stagger" and act & 4:
        struct.pack_into("<Q", a, 16, P)
    if variant in ("fp160", "fp200") and act & 2:
        struct.pack_into("<Q", a, 152, P + 300)
    if variant == "fplow" and act & 2:
        struct.pack_into("<Q", a, 152, P)
    if variant == "armed" and act & 2:
        struct.pack_into("<I", a, 116, (act & ~2) | 8)
sec = b"".join(bytes(a) + ids for a, ids, _ in out)
if new == old:
    b[aoff:aoff + asz] = sec
else:
    while len(b) % 8:
        b.append(0)
    struct.pack_into("<QQQ", b, 16, new + 16, len(b), len(sec))
    b += sec
open(dst, "wb").write(b)
print(P)
PY
}

# check FILE DESIGN WINDOW TEXT: windows --json and the text summary, and
# convert's summary, name DESIGN with WINDOW
check() {
	"$SY" windows --json --symfs . "$1" >"$T/w.json" 2>"$T/err" ||
		{ cat "$T/err"; fail "$1: windows --json failed"; }
	python3 - "$T/w.json" "$2" "$3" "$want_pauses" <<'PY' || fail "$1: windows --json: wrong design"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["design"] == sys.argv[2], (j["design"], sys.argv[2])
assert j["design_window"] == int(sys.argv[3]), (j["design_window"], sys.argv[3])
assert j["pause_samples"] == int(sys.argv[4]), (j["pause_samples"], sys.argv[4])
PY
	"$SY" windows --summary --symfs . "$1" >"$T/w.txt" 2>"$T/err" ||
		{ cat "$T/err"; fail "$1: windows failed"; }
	grep -qF "design: $2$4" "$T/w.txt" ||
		{ cat "$T/w.txt"; fail "$1: windows does not say design: $2$4"; }
	"$SY" convert --symfs . -o "$T/out" "$1" >/dev/null 2>"$T/err" ||
		{ cat "$T/err"; fail "$1: convert failed"; }
	grep -qF "design: $2$4" "$T/err" ||
		{ cat "$T/err"; fail "$1: convert does not say design: $2$4"; }
}

want_pauses=$("$SY" windows --json --symfs . "$f" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["pause_samples"])')
[ "$want_pauses" -gt 0 ] || fail "$f has no pause samples"
check "$f" "mainline pause/resume" 0 " (unrelated periods"
rewrite "$f" "$T/s.data" stagger >/dev/null || fail "rewrite failed"
check "$T/s.data" "userspace stagger" 0 " (pause and resume count one event"
for v in fp160 fp200; do
	rewrite "$f" "$T/$v.data" $v >/dev/null || fail "rewrite failed"
	check "$T/$v.data" first_period 300 " (kernel RFC, not merged): windows of 300 pause events"
done
rewrite "$f" "$T/low.data" fplow >/dev/null || fail "rewrite failed"
check "$T/low.data" first_period 0 " (kernel RFC, not merged): no window length"
P=$(rewrite "$f" "$T/a.data" armed) || fail "rewrite failed"
check "$T/a.data" pause-armed "$P" " (kernel RFC, not merged): windows of $P pause events"
echo "windows: designs named from attrs of 128, 160 and 200 bytes"
