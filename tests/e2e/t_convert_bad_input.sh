# convert on damaged files and failing outputs, end to end: the exit codes
# of strobe-synth-convert(1), a one-line error naming the file and the
# offset, the windows before the damage still converted (and only samples
# the undamaged file also gives: nothing invented), and outputs written
# atomically (a failure leaves no file, and never a half-written one).
# Damage inside the trace (decode errors, overflows, truncated AUX) is the
# corruption scenarios' business: their statuses and samples are compared
# with the truth in tests/unit/test_convert_fixtures.c; here they must exit 0.
. tests/e2e/lib.sh

G=tests/fixtures/generated
f=$G/etm4-etr-smp.data
[ -e "$f" ] || fail "no generated fixtures"

# 0. corruption scenarios: bad windows are normal, exit 0, summary says so
for name in etm4-etr-damage ete-trbe-damage pt-damage; do
	expect_status 0 "$SY" convert --symfs . -o "$T/d.ps" "$G/$name.data" 2>"$T/err"
	grep -q 'decode-error' "$T/err" || fail "$name: summary does not count the decode error"
	grep -q 'truncated' "$T/err" || fail "$name: summary does not count the truncated window"
	[ -s "$T/d.ps" ] || fail "$name: the good windows were not written"
done

"$SY" convert --symfs . -o "$T/full.ps" "$f" 2>/dev/null || fail "full convert failed"
grep -q '/P/' "$T/full.ps" || fail "full convert gave no branches"

# 1. truncated inside a record, past the 15th sample: exit 4, one line
#    naming the file and an offset, the earlier windows written
off=$("$SY" dump "$f" | awk '$2 == "SAMPLE" { n++; if (n == 15) { print $1; exit } }')
[ -n "$off" ] || fail "no 15th sample in $f"
head -c $((off + 20)) "$f" >"$T/cut.data"
expect_status 4 "$SY" convert --symfs . -o "$T/cut.ps" "$T/cut.data" 2>"$T/err"
grep "cut.data" "$T/err" | grep -q "offset" || { cat "$T/err"; fail "truncation error lacks file or offset"; }
[ -s "$T/cut.ps" ] || fail "truncated file: the windows before the damage were not written"
grep -q '/P/' "$T/cut.ps" || fail "truncated file: no branch stack written"
# every branch stack written is one the whole file gives too
grep '/P/' "$T/cut.ps" | sort -u >"$T/cut.br"
grep '/P/' "$T/full.ps" | sort -u >"$T/full.br"
[ -z "$(comm -23 "$T/cut.br" "$T/full.br")" ] || fail "truncated file: a branch stack the whole file does not give"
[ "$(wc -l <"$T/cut.br")" -lt "$(wc -l <"$T/full.br")" ] || fail "truncated file: as many stacks as the whole file"

# 2. a record header with size 0 in the middle: exit 4, offset named
cp "$f" "$T/zero.data"
printf '\000\000' | dd of="$T/zero.data" bs=1 seek=$((off + 6)) conv=notrunc status=none
expect_status 4 "$SY" convert --symfs . -o "$T/zero.ps" "$T/zero.data" 2>"$T/err"
grep -q "zero.data.*offset $((off))\|zero.data.*offset $(printf '%#x' "$off")" "$T/err" ||
	{ cat "$T/err"; fail "zero-size record: error does not name its offset ($off)"; }

# 3. not a perf.data file: exit 3; an existing output is left untouched
#    and no temporary file is left beside it
printf 'old\n' >"$T/keep.ps"
head -c 4096 /dev/urandom >"$T/junk.data"
expect_status 3 "$SY" convert -o "$T/keep.ps" "$T/junk.data" 2>"$T/err"
[ "$(wc -l <"$T/err")" -eq 1 ] || { cat "$T/err"; fail "junk input: not a one-line error"; }
grep -q 'junk.data' "$T/err" || fail "junk input: error does not name the file"
[ "$(cat "$T/keep.ps")" = old ] || fail "junk input: the existing output was overwritten"
expect_status 3 "$SY" convert -o "$T/none.ps" "$T/missing.data" 2>/dev/null
[ ! -e "$T/none.ps" ] || fail "missing input: an output file was created"

# 4. the output cannot be written: exit 1, the path named, nothing left
expect_status 1 "$SY" convert --symfs . -o "$T/no/such/dir/o.ps" "$f" 2>"$T/err"
grep -q 'no/such/dir/o.ps' "$T/err" || { cat "$T/err"; fail "unwritable output: path not named"; }
if [ -w /dev/full ]; then
	expect_status 1 "$SY" convert --symfs . -o - "$f" >/dev/full 2>"$T/err"
	grep -qi 'standard output\|stdout\|space' "$T/err" || { cat "$T/err"; fail "full stdout: not reported"; }
fi
# no temporary files anywhere in the test directory
ls -a "$T" | grep -q 'tmp' && { ls -a "$T"; fail "a temporary file was left behind"; }

# 5. -o - streams the same bytes as -o FILE
"$SY" convert --symfs . -o - "$f" >"$T/stdout.ps" 2>/dev/null || fail "convert -o - failed"
cmp -s "$T/stdout.ps" "$T/full.ps" || fail "-o - differs from -o FILE"

# 6. bad command line: exit 2
expect_status 2 "$SY" convert --depth -3 "$f" 2>/dev/null
expect_status 2 "$SY" convert --format nope "$f" 2>/dev/null
expect_status 2 "$SY" convert --keep bogus-status "$f" 2>/dev/null
echo "convert: exit codes, error lines and atomic outputs as documented"
exit 0
