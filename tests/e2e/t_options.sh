# The options every command shares (issue 23, defect 12): merge knows
# -V/--version and -v/--verbose, windows and dump -q/--quiet (notes
# dropped, damage still said and still exit 4); each of these was an
# "invalid option" with the whole usage on 20e0247.
. tests/e2e/lib.sh

G=tests/fixtures/generated
for v in -V --version; do
	"$SY" merge $v >"$T/v" 2>&1 || { cat "$T/v"; fail "merge $v failed"; }
	grep -q '^strobe-synth merge [0-9]' "$T/v" || { cat "$T/v"; fail "merge $v: no version"; }
done
"$SY" convert -q --format lbr --symfs . -o "$T/a.lbr" "$G/etm4-etr-basic.data" || fail "convert failed"
"$SY" merge -v -o "$T/m.lbr" "$T/a.lbr" "$T/a.lbr" 2>"$T/err" || { cat "$T/err"; fail "merge -v failed"; }
[ "$(grep -c 'a.lbr: added' "$T/err")" -eq 2 ] || { cat "$T/err"; fail "merge -v: not a line per input"; }

# windows -q: the note about context IDs of another pid namespace goes
f=$G/ete-trbe-error-after-stop.data
"$SY" windows --summary --symfs . "$f" >/dev/null 2>"$T/err" || fail "windows failed"
grep -q 'note:' "$T/err" || { cat "$T/err"; fail "the fixture gives no note any more: choose another"; }
for q in -q --quiet; do
	"$SY" windows $q --summary --symfs . "$f" >"$T/out" 2>"$T/err" || fail "windows $q failed"
	[ ! -s "$T/err" ] || { cat "$T/err"; fail "windows $q: still notes"; }
	grep -q 'windows:' "$T/out" || fail "windows $q: no summary"
done

# dump -q: damage is still said, and still exit 4
d=tests/fuzz/regress/session-aux-range-wraps-whole-trace.data
expect_status 4 "$SY" dump -q "$d" >/dev/null 2>"$T/err"
grep -q 'OSRELEASE feature' "$T/err" || { cat "$T/err"; fail "dump -q: the damage is not said"; }
"$SY" dump -q "$G/etm4-etr-basic.data" >/dev/null 2>"$T/err" || fail "dump -q failed"
[ ! -s "$T/err" ] || { cat "$T/err"; fail "dump -q wrote to stderr"; }
# -o NAME/ names a directory: a usage error for a one-file format, and for
# bolt one that must exist (20e0247 took it as a file name, exit 1)
expect_status 2 "$SY" convert -q --symfs . -o "$T/newdir/" "$G/etm4-etr-basic.data" 2>"$T/err"
grep -q 'names a directory' "$T/err" || { cat "$T/err"; fail "-o DIR/: no reason"; }
expect_status 2 "$SY" convert -q --format bolt --symfs . -o "$T/newdir/" "$G/etm4-etr-basic.data" 2>"$T/err"
grep -q 'no such directory' "$T/err" || { cat "$T/err"; fail "-o DIR/ (bolt): no reason"; }
mkdir "$T/newdir"
"$SY" convert -q --format bolt --symfs . -o "$T/newdir/" "$G/etm4-etr-basic.data" ||
	fail "-o DIR/ (bolt, existing): failed"
[ -s "$T/newdir/branchy-aarch64.bolt" ] || fail "-o DIR/ (bolt): no file per binary"
echo "options: merge -V/-v, windows -q, dump -q and -o DIR/"
exit 0
