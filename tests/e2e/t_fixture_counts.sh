# e2e: long (minutes; tests/e2e/run starts it first)
# Every generated fixture (tests/fixtures/generated/*.data) is read by
# `strobe-synth dump` without a single warning, and its per-type record
# counts equal those of perf 6.1's `perf report -D` ("Aggregated stats").
# perf 6.1 cannot read the 136-byte-attr fixture (it refuses the newer
# ABI): for that one only the reader is checked.  cs_etm fixtures with the
# AUXTRACE_INFO header version 2 (perf >= 6.3) are given to perf with the
# version patched to 1, which perf 6.1 needs; it changes no record count.
. tests/e2e/lib.sh
. tests/e2e/perf_stats.sh
require_tool perf

# v1 SRC DST: a copy with the cs_etm AUXTRACE_INFO header version 2 -> 1
# (priv[0], 16 bytes into the record; the prologue is never compressed, so
# the offset dump prints is the file offset)
v1() {
	cp "$1" "$2"
	"$SY" dump "$1" >"$T/dump.txt" 2>/dev/null
	grep -q 'cs_etm: header version 2' "$T/dump.txt" || return 0
	off=$(awk '$2 == "AUXTRACE_INFO" { print $1; exit }' "$T/dump.txt")
	[ -n "$off" ] || fail "no AUXTRACE_INFO in $1"
	printf '\001\000\000\000\000\000\000\000' |
		dd of="$2" bs=1 seek=$((off + 16)) conv=notrunc status=none
}

n=0
for f in tests/fixtures/generated/*.data; do
	[ -e "$f" ] || fail "no generated fixtures"
	name=$(basename "$f" .data)
	"$SY" dump "$f" >/dev/null 2>"$T/err" || { cat "$T/err"; fail "$name: dump failed"; }
	[ ! -s "$T/err" ] || { cat "$T/err"; fail "$name: dump warned"; }
	"$SY" dump - <"$f" >/dev/null 2>"$T/err" || fail "$name: dump of stdin failed"
	[ ! -s "$T/err" ] || { cat "$T/err"; fail "$name: dump of stdin warned"; }
	if grep -Eq '^file .*attr_size=(136|160)' "tests/fixtures/generated/$name.truth"; then
		echo "$name: reader only (perf 6.1 refuses attrs over 128 bytes)"
		continue
	fi
	mode=file
	grep -q '^file mode=pipe' "tests/fixtures/generated/$name.truth" && mode=pipe
	v1 "$f" "$T/v1.data"
	perf_counts "$T/v1.data" "$mode" >"$T/perf.cnt"
	[ -s "$T/perf.cnt" ] || fail "$name: perf printed no stats"
	sy_counts "$f" >"$T/sy.cnt" || fail "$name: strobe-synth dump --stats failed"
	diff -u "$T/perf.cnt" "$T/sy.cnt" || fail "$name: record counts differ from perf"
	n=$((n + 1))
done
[ $n -gt 20 ] || fail "only $n fixtures compared"
echo "$n fixtures: record counts equal perf's"
