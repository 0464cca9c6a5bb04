# windows --svg: no two labels of the picture overlap and every label is
# inside it (issue 24: on dense real ETE "p95 920" covered the legend's
# title).  Text boxes are estimated from the SVG's own coordinates: a
# character 0.62 (bold 0.7) of the font size wide, 0.8 of it above the
# baseline and 0.25 below; the rotated axis title is left out.  Checked on
# the dense ETE capture repeated (tests/tools/aux_repeat: windows of 24
# and 920 instructions, p95 at the right edge) and on every generated
# fixture; each picture must render with rsvg-convert.
. tests/e2e/lib.sh
require_tool python3
require_tool rsvg-convert
R=$SHARED/fixtures/real/simpleperf-etm
require_path "$R/orig/perf_with_unformatted_trace.data"
REPEAT=$SY_BUILD/tests/aux_repeat
[ -x "$REPEAT" ] || fail "$REPEAT not built (make tools)"
"$REPEAT" -n 2000 "$R/orig/perf_with_unformatted_trace.data" "$T/ete.data" \
	2>/dev/null || fail "aux_repeat failed"

n=0
for f in "$T/ete.data" tests/fixtures/generated/*.data; do
	symfs=.
	[ "$f" = "$T/ete.data" ] && symfs=$R/symfs
	rm -f "$T/h.svg"
	# damaged fixtures exit 4 with their picture written
	"$SY" windows --summary --svg "$T/h.svg" --symfs "$symfs" "$f" \
		>/dev/null 2>"$T/err"
	[ $? -le 4 ] && [ -s "$T/h.svg" ] ||
		{ cat "$T/err"; fail "$f: windows --svg failed"; }
	rsvg-convert -o "$T/h.png" "$T/h.svg" ||
		fail "$f: rsvg-convert cannot render the picture"
	python3 - "$T/h.svg" <<'PY' || fail "$f: labels of the picture overlap"
import re, sys
svg = open(sys.argv[1]).read()
W, H = map(float, re.search(r'<svg[^>]* width="(\d+)" height="(\d+)"', svg).groups())
boxes = []
for m in re.finditer(r'<text ([^>]*)>([^<]*)</text>', svg):
    attrs, s = m.groups()
    if "transform=" in attrs:
        continue
    a = dict(re.findall(r'([a-z-]+)="([^"]*)"', attrs))
    x, y, size = float(a["x"]), float(a["y"]), float(a["font-size"])
    s = s.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
    w = len(s) * size * (0.7 if a.get("font-weight") == "bold" else 0.62)
    x0 = {"start": x, "middle": x - w / 2, "end": x - w}[a["text-anchor"]]
    boxes.append((x0, y - 0.8 * size, x0 + w, y + 0.25 * size, s))
bad = []
for i, b in enumerate(boxes):
    if b[0] < 0 or b[1] < 0 or b[2] > W or b[3] > H:
        bad.append("%r is outside the picture" % b[4])
    for c in boxes[i + 1:]:
        if b[0] < c[2] and c[0] < b[2] and b[1] < c[3] and c[1] < b[3]:
            bad.append("%r overlaps %r" % (b[4], c[4]))
for x in bad:
    print(x, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	# the dense capture's p95 is at the right edge, next to the legend
	[ "$f" != "$T/ete.data" ] || grep -q '>p95 920<' "$T/h.svg" ||
		fail "$f: p95 920 not marked (not the shape this test needs)"
	n=$((n + 1))
done
echo "windows --svg: no overlapping labels in $n pictures"
