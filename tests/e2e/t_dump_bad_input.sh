# Damaged input gives one line "strobe-synth: FILE: offset N: what" and the
# documented exit code; everything before the damage is still printed.
. tests/e2e/lib.sh
require_tool perf
f=$T/ok.data
perf record -q -e cpu-clock -g -o "$f" -- sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' \
	>/dev/null 2>&1 || skip "perf record cannot record here"
"$SY" dump "$f" >/dev/null || fail "dump of a good file failed"

one_line() { # one_line STDERR_FILE PATTERN
	n=$(wc -l <"$1")
	[ "$n" -eq 1 ] || { cat "$1"; fail "expected one line on stderr, got $n"; }
	grep -Eq "$2" "$1" || { cat "$1"; fail "stderr does not match $2"; }
}

# offset of the Nth SAMPLE record (hex in dump output)
off_hex=$("$SY" dump "$f" | awk '$2 == "SAMPLE" { n++; if (n == 3) { print $1; exit } }')
off=$(printf '%d' "$off_hex")
[ "$off" -gt 0 ] || fail "no SAMPLE record found"

# 1. truncated inside a record: exit 4, offset of that record
head -c $((off + 12)) "$f" >"$T/trunc.data"
"$SY" dump "$T/trunc.data" >"$T/out" 2>"$T/err"
[ $? -eq 4 ] || fail "truncated file: exit code $?"
one_line "$T/err" "^strobe-synth: $T/trunc.data: offset $off: .*runs past the end"
grep -q "SAMPLE" "$T/out" || fail "records before the damage were not printed"

# 2. a record of size 0
cp "$f" "$T/zero.data"
printf '\000\000' | dd of="$T/zero.data" bs=1 seek=$((off + 6)) conv=notrunc 2>/dev/null
"$SY" dump "$T/zero.data" >/dev/null 2>"$T/err"
[ $? -eq 4 ] || fail "zero-size record: wrong exit code"
one_line "$T/err" "^strobe-synth: $T/zero.data: offset $off: record size 0 is smaller than its 8-byte header$"

# 3. --stats on the same file still counts what came before
"$SY" dump --stats "$T/zero.data" >"$T/out" 2>/dev/null
grep -q '^SAMPLE ' "$T/out" || fail "--stats printed nothing before the damage"

# 4. not a perf.data file / other-endian / missing file: exit 3
printf 'hello world, not perf' >"$T/text"
"$SY" dump "$T/text" >/dev/null 2>"$T/err"
[ $? -eq 3 ] || fail "text file: wrong exit code"
one_line "$T/err" "^strobe-synth: $T/text: offset 0: not a perf.data file"
cp "$f" "$T/swapped.data"
printf '2ELIFREP' | dd of="$T/swapped.data" bs=1 conv=notrunc 2>/dev/null
"$SY" dump "$T/swapped.data" >/dev/null 2>"$T/err"
[ $? -eq 3 ] || fail "swapped file: wrong exit code"
one_line "$T/err" "other-endian"
"$SY" dump "$T/nonexistent" >/dev/null 2>"$T/err"
[ $? -eq 3 ] || fail "missing file: wrong exit code"
one_line "$T/err" "^strobe-synth: $T/nonexistent: cannot open: No such file"

# 5. bad command line: exit 2
"$SY" dump --bogus "$f" >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad option: wrong exit code"
"$SY" frobnicate >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad command: wrong exit code"

# 6. truncated at every 97th byte: never a crash (exit >= 128) or a hang
size=$(wc -c <"$f")
n=0
while [ $n -lt "$size" ]; do
	head -c $n "$f" >"$T/cut.data"
	timeout 10 "$SY" dump "$T/cut.data" >/dev/null 2>&1
	rc=$?
	[ $rc -eq 3 ] || [ $rc -eq 4 ] || fail "cut at $n: exit code $rc"
	n=$((n + 97))
done
exit 0
