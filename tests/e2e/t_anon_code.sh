#!/bin/sh
# Code with no file (issue 26, item 3) and a later MMAP2 (item 2).
# etm4-etr-anon: at cycle 2600 the process maps anonymous executable
# memory (//anon, no file, no build-id) over its text page, same bytes;
# windows 2..4 run code there after that MMAP2.
#
#  1. The committed fixture agrees with its truth: windows 0 and 1 ok
#     (decoded from the program: the MMAP2 came later), 2..4
#     decode-error.
#  2. convert writes samples of the ok windows only (no sample made up
#     for code it could not read), and its summary and the windows
#     list say the code has no file and cannot be read (no advice to
#     pass --symfs, which cannot help).
#  3. The same scenario with that later MMAP2 left out of the file
#     (anon_mmap = 0): strobe-synth decodes windows 2..4 from the
#     program's file and the check must fail on exactly those.
#  4. pt-anon: the same on Intel PT, where one decode job holds every
#     window and so spans the MMAP2.  The code in force is the one of
#     each window's time (maptl.h), at 1 and 2 threads: windows 0 and 1
#     ok, 2..4 decode-error.  (Read with the maps of when the job was cut,
#     windows 0 and 1 were decode-error too.)  ETE/TRBE keeps the maps of
#     the job's cut: sy_code_at_fn in sy_decode.h says why.
. tests/e2e/lib.sh

GEN=$SY_BUILD/sy-fixturegen
TC=$SY_BUILD/tests/truth_check
[ -x "$GEN" ] || fail "$GEN not built"
[ -x "$TC" ] || fail "$TC not built (make tools)"
n=etm4-etr-anon
F=tests/fixtures/generated/$n

"$TC" "$F.data" "$F.truth" >"$T/tc" 2>&1 ||
	fail "$n disagrees with its truth: $(cat "$T/tc")"
grep -q '^windows 5 statuses ok=2,decode-error=3 mismatches 0$' "$T/tc" ||
	fail "$n: unexpected statuses: $(tail -1 "$T/tc")"

"$SY" convert --symfs . -o "$T/out.txt" "$F.data" 2>"$T/err" ||
	fail "$n: convert failed: $(cat "$T/err")"
grep -q ': 2 samples written (2 unique)' "$T/err" ||
	fail "$n: expected the 2 ok windows' samples: $(cat "$T/err")"
grep -q ': code with no file //anon: needed by 3 windows (written at run time: it cannot be read)$' "$T/err" ||
	fail "$n: the summary does not say the code has no file: $(cat "$T/err")"
grep -q 'use --symfs' "$T/err" && fail "$n: advice that cannot help: $(cat "$T/err")"
"$SY" windows --symfs . "$F.data" >"$T/w" 2>&1 || fail "$n: windows failed"
[ "$(grep -c 'decode-error .*(code with no file at //anon: written at run time, it cannot be read)$' "$T/w")" = 3 ] ||
	fail "$n: the windows' reasons do not say why: $(cat "$T/w")"
grep -q '^code with no file //anon: needed by 3 windows (written at run time: it cannot be read)$' "$T/w" ||
	fail "$n: the windows summary does not say the code has no file: $(cat "$T/w")"
grep -q 'use --symfs' "$T/w" && fail "$n: windows gives advice that cannot help: $(cat "$T/w")"

{
	cat "tests/fixtures/scenarios/$n.scn"
	echo "name = $n-nomap"
	echo "anon_mmap = 0"
} >"$T/$n-nomap.scn"
"$GEN" -o "$T" "$T/$n-nomap.scn" || fail "$n-nomap: generator failed"
expect_status 1 "$TC" "$T/$n-nomap.data" "$T/$n-nomap.truth" >"$T/tc2" 2>&1
[ "$(grep -c '^MISMATCH pause [234] .*: ok (.*truth decode-error' "$T/tc2")" = 3 ] ||
	fail "$n: a dropped later MMAP2 was not caught: $(cat "$T/tc2")"
F=tests/fixtures/generated/pt-anon
for j in 1 2; do
	"$TC" -j "$j" "$F.data" "$F.truth" >"$T/tc3" 2>&1 ||
		fail "pt-anon -j$j disagrees with its truth: $(cat "$T/tc3")"
	grep -q '^windows 5 statuses ok=2,decode-error=3 mismatches 0$' "$T/tc3" ||
		fail "pt-anon -j$j: unexpected statuses: $(tail -1 "$T/tc3")"
done
# and so does the command line
"$SY" windows --symfs . --json "$F.data" >"$T/pt.json" || fail "pt-anon: windows failed"
st=$(python3 -c 'import json,sys; print(" ".join(w["status"] for w in json.load(open(sys.argv[1]))["windows_list"]))' "$T/pt.json")
[ "$st" = "ok ok decode-error decode-error decode-error" ] ||
	fail "pt-anon: statuses $st"
echo "ok: code with no file is not read, said so, its MMAP2 is checked, and in force from its time on"
