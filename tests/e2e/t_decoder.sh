# e2e: long (minutes; tests/e2e/run starts it first)
# --decoder fast|full (issue 12): the fast path and OpenCSD's full decode
# give the same profile, on every ETM fixture and the real captures, and
# --stats-json says which path decoded the units.
. tests/e2e/lib.sh
R=$SHARED/fixtures/real/simpleperf-etm
require_path "$R/orig/perf_etm.data"

units() { python3 -c 'import json, sys; u = json.load(open(sys.argv[1]))["etm_units"]; print(u["fast"], u["full"], u["fallbacks"])' "$1"; }

n=0
for f in tests/fixtures/generated/etm*.data tests/fixtures/generated/ete*.data \
	"$R/orig/perf_etm.data" "$R/orig/perf_with_unformatted_trace.data"; do
	symfs=.
	fmt=perfscript
	case $f in *simpleperf-etm*) symfs=$R/symfs fmt=lbr ;; esac
	"$SY" convert -q --format $fmt --symfs "$symfs" -o "$T/fast" \
		--stats-json "$T/fast.json" "$f" 2>/dev/null
	a=$?
	"$SY" convert -q --format $fmt --decoder full --symfs "$symfs" \
		-o "$T/full" --stats-json "$T/full.json" "$f" 2>/dev/null
	b=$?
	[ $a -eq $b ] || fail "$f: exit $a with the fast path, $b with --decoder full"
	[ $a -ne 0 ] && continue
	cmp -s "$T/fast" "$T/full" || fail "$f: the two decoders' profiles differ"
	set -- $(units "$T/full.json")
	[ "$1" -eq 0 ] && [ "$2" -gt 0 ] || fail "$f: --decoder full: units $*"
	set -- $(units "$T/fast.json")
	# a job that spans a replacement of code (ete-trbe-dlfx) reads the
	# later code for its earlier windows the first time, which the fast
	# path hands to the full decode; they come from its decode again
	again=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["decoded_again"])' "$T/fast.json")
	[ "$1" -gt 0 ] || [ "$again" -gt 0 ] ||
		fail "$f: the fast path decoded no unit ($*)"
	n=$((n + 1))
done
[ $n -ge 20 ] || fail "only $n recordings compared"
expect_status 2 "$SY" convert --decoder slow "$R/orig/perf_etm.data" 2>/dev/null
exit 0
