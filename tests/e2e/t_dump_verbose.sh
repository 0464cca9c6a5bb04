# strobe-synth dump -v (issue 23, defect 12: dump lacked -v): under each
# record's line, its bytes; under an AUXTRACE record's, the first 64 bytes
# of its payload.  Every byte shown is checked against the file itself,
# read at the record's offset with od (an independent reader), on a
# recording with samples and on a TRBE recording.
. tests/e2e/lib.sh
require_tool python3
G=tests/fixtures/generated
for f in etm4-etr-samples ete-trbe-basic; do
	"$SY" dump -v "$G/$f.data" >"$T/$f.dump" 2>"$T/err" || { cat "$T/err"; fail "$f: dump -v failed"; }
	"$SY" dump "$G/$f.data" >"$T/$f.plain" || fail "$f: dump failed"
	grep -Ev '^    (aux )?[0-9a-f]{4}:( [0-9a-f]{2})' "$T/$f.dump" | cmp -s - "$T/$f.plain" ||
		fail "$f: -v changed the record lines"
	python3 - "$G/$f.data" "$T/$f.dump" <<'PY' || fail "$f: the bytes shown differ from the file"
import re, sys
data = open(sys.argv[1], 'rb').read()
recs = checked = 0
cur = None
def check(c):
    global checked
    if c is None:
        return
    off, size, body, aux = c
    want = data[off:off + size]
    if bytes(body) != want:
        sys.exit("record at %#x: shown %s, file %s" % (off, bytes(body).hex(), want.hex()))
    if aux:
        # AUXTRACE: the payload follows the record
        if bytes(aux) != data[off + size:off + size + len(aux)] or len(aux) > 64:
            sys.exit("AUXTRACE at %#x: payload bytes differ" % off)
    checked += 1
for line in open(sys.argv[2]):
    m = re.match(r'^(0x[0-9a-f]+) (\S+) size=(\d+)', line)
    if m:
        check(cur)
        recs += 1
        cur = (int(m.group(1), 16), int(m.group(3)), [], [])
        continue
    m = re.match(r'^    (aux )?[0-9a-f]{4}:((?: +[0-9a-f]{2})+)$', line.rstrip('\n'))
    if m and cur is not None:
        (cur[3] if m.group(1) else cur[2]).extend(int(b, 16) for b in m.group(2).split())
check(cur)
if recs < 10 or checked != recs:
    sys.exit("%d records, %d checked" % (recs, checked))
PY
done
grep -q '^    aux 0000:' "$T/etm4-etr-samples.dump" || fail "no AUXTRACE payload shown"
exit 0
