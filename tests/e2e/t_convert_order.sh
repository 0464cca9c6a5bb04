#!/bin/sh
# Records in perf's time order (issue 26, src/synth/reorder.h).
# The *-fork-order fixtures: pid 1000 on cpu 1 forks pid 2000, which runs
# on cpu 0; perf record writes each round CPU by CPU, so the child's pause
# samples come before the parent's older FORK in the file.  Walked in
# file order the child's 10 windows had no process (decode-error, on
# 830f83e); in perf's order all 16 are ok, as the truth says.
#
#  1. Each committed fixture (PT, ETMv4 / ETR, ETE / TRBE) agrees with its
#     truth: 16 windows ok.
#  2. The same recording in the pipe layout with zstd, read from a pipe
#     (`cat | convert -`): every window ok, the same samples as the file.
#  3. Windows are listed in time order (perf script's), equal times in
#     file order: the pause times of the listing never go back.
. tests/e2e/lib.sh

GEN=$SY_BUILD/sy-fixturegen
TC=$SY_BUILD/tests/truth_check
[ -x "$GEN" ] || fail "$GEN not built"
[ -x "$TC" ] || fail "$TC not built (make tools)"

for n in pt-fork-order etm4-etr-fork-order ete-trbe-fork-order; do
	F=tests/fixtures/generated/$n
	"$TC" "$F.data" "$F.truth" >"$T/tc" 2>&1 ||
		fail "$n disagrees with its truth: $(cat "$T/tc")"
	grep -q '^windows 16 statuses ok=16 mismatches 0$' "$T/tc" ||
		fail "$n: unexpected statuses: $(tail -1 "$T/tc")"
done

n=pt-fork-order
{
	cat "tests/fixtures/scenarios/$n.scn"
	echo "name = $n-pipe"
	echo "pipe = 1"
	echo "compress = 1"
} >"$T/$n-pipe.scn"
"$GEN" -o "$T" "$T/$n-pipe.scn" || fail "$n-pipe: generator failed"
"$TC" "$T/$n-pipe.data" "$T/$n-pipe.truth" >"$T/tc" 2>&1 ||
	fail "$n-pipe disagrees with its truth: $(cat "$T/tc")"
grep -q '^windows 16 statuses ok=16 mismatches 0$' "$T/tc" ||
	fail "$n-pipe: unexpected statuses: $(tail -1 "$T/tc")"
cat "$T/$n-pipe.data" | "$SY" windows --symfs . - >"$T/w" 2>&1 ||
	fail "$n-pipe: windows from a pipe failed: $(cat "$T/w")"
grep -q '^-: intel_pt (pt), 16 windows: 16 ok$' "$T/w" ||
	fail "$n-pipe: windows from a pipe: $(cat "$T/w")"
cat "$T/$n-pipe.data" | "$SY" convert -q --symfs . -o "$T/pipe.txt" - ||
	fail "$n-pipe: convert from a pipe failed"
"$SY" convert -q --symfs . -o "$T/file.txt" "tests/fixtures/generated/$n.data" ||
	fail "$n: convert failed"
[ -s "$T/file.txt" ] || fail "$n: no samples written"
cmp -s "$T/pipe.txt" "$T/file.txt" ||
	fail "$n: the pipe layout read from a pipe gives other samples than the file"

# the pause-time column of the listing (a dash for a window without a
# resume is the start column): never smaller than the line before
"$SY" windows --symfs . tests/fixtures/generated/$n.data >"$T/w" 2>&1 ||
	fail "$n: windows failed"
awk '$1 ~ /^[0-9]+$/ && $5 ~ /^[0-9]+[.][0-9]+$/ {
	t = $5 + 0; if (t < last) bad = 1; last = t; n++ }
     END { exit !(n == 16 && !bad) }' "$T/w" ||
	fail "$n: windows are not listed in time order: $(cat "$T/w")"
echo "ok: side-band records in perf's time order: a FORK written after the windows that need it is in force, from a file and from a pipe"
