#!/usr/bin/env python3
"""svg_labels.py FILE.svg: exit 1 when two text labels of the picture
overlap or one leaves its viewBox (windows --svg, issue 24).

Text boxes are estimated from the SVG's own attributes with the metrics
of DejaVu Sans, the usual sans-serif: a character 0.64 of the font size
wide (digits are 0.636; bold 0.7), the font size above the baseline
(ascent 0.93) and a quarter of it below (descent 0.24).  A label rotated
by -90 degrees about its anchor (the y axis titles) is the same box
turned.  The file must also be well-formed XML with a viewBox."""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def box(t):
    s = "".join(t.itertext())
    size = float(t.get("font-size"))
    x, y = float(t.get("x")), float(t.get("y"))
    w = len(s) * size * (0.7 if t.get("font-weight") == "bold" else 0.64)
    anchor = t.get("text-anchor", "start")
    a = {"start": 0.0, "middle": w / 2, "end": w}[anchor]
    # along the text: [-a, w - a]; across it: [-size, 0.25 * size]
    tr = t.get("transform", "")
    if not tr:
        return (x - a, y - size, x - a + w, y + 0.25 * size, s)
    m = re.fullmatch(r"rotate\(-90 ([\d.]+) ([\d.]+)\)", tr)
    if not m or float(m.group(1)) != x or float(m.group(2)) != y:
        raise ValueError("unsupported transform %r on %r" % (tr, s))
    # rotated -90 about (x, y): the text runs upwards
    return (x - size, y - (w - a), x + 0.25 * size, y + a, s)


def main():
    root = ET.parse(sys.argv[1]).getroot()
    vx, vy, vw, vh = map(float, root.get("viewBox").split())
    boxes = [box(t) for t in root.iter(NS + "text")]
    if not boxes:
        print("no text in the picture", file=sys.stderr)
        return 1
    bad = []
    for i, b in enumerate(boxes):
        if b[0] < vx or b[1] < vy or b[2] > vx + vw or b[3] > vy + vh:
            bad.append("%r is outside the picture %s" % (b[4], b[:4]))
        for c in boxes[i + 1:]:
            if b[0] < c[2] and c[0] < b[2] and b[1] < c[3] and c[1] < b[3]:
                bad.append("%r %s overlaps %r %s" % (b[4], b[:4], c[4], c[:4]))
    for x in bad:
        print(x, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
