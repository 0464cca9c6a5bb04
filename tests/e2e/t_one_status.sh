# e2e: long (minutes; tests/e2e/run starts it first)
# One window, one status, whichever command asks (issue 27, bug 4): for
# every generated fixture and every real capture in ../shared, the
# statuses windows --json lists, counted, equal convert's --stats-json
# by_status, at -j 1 and -j 3; and neither depends on --depth (4 or all:
# the validation sees the window, not the stack written).  The disagreement
# the issue measured was on a real glibc program's recording that is not
# in ../shared: this guards every recording that is.
. tests/e2e/lib.sh
require_tool python3
R=$SHARED/fixtures/real
[ -e "$R/simpleperf-etm/orig/perf_etm.data" ] ||
	skip "$R not found: the real captures are part of this test"
check() {	# FILE OPTIONS...
	f=$1
	shift
	for run in "1 4" "3 4" "1 all"; do
		set -- "$@"
		j=${run% *}
		depth=${run#* }
		"$SY" windows -q --json -j $j --depth $depth "$@" "$f" \
			>"$T/w-$j-$depth.json" 2>/dev/null || [ $? -eq 4 ] ||
			fail "$f: windows failed"
		rm -f "$T/c-$j-$depth.json"
		"$SY" convert -q -j $j --depth $depth --format lbr -o "$T/c-$j-$depth.out" \
			--stats-json "$T/c-$j-$depth.json" "$@" "$f" 2>/dev/null
		[ -s "$T/c-$j-$depth.json" ] || fail "$f: convert wrote no stats"
	done
	python3 - "$f" "$T" <<'PY' || fail "$f: statuses differ (above)"
import collections, json, sys
f, t = sys.argv[1:]
seen = {}
for run in ("1-4", "3-4", "1-all"):
    w = json.load(open("%s/w-%s.json" % (t, run)))
    c = json.load(open("%s/c-%s.json" % (t, run)))
    seen["windows " + run] = dict(collections.Counter(x["status"] for x in w["windows_list"]))
    seen["convert " + run] = {k: v for k, v in c["by_status"].items() if v}
if len({json.dumps(v, sort_keys=True) for v in seen.values()}) != 1:
    sys.exit("%s: %s" % (f, seen))
PY
	n=$((n + 1))
}
n=0
for f in tests/fixtures/generated/*.data; do
	check "$f" --symfs .
done
for f in "$R"/simpleperf-etm/orig/*.data; do
	check "$f" --symfs "$R/simpleperf-etm/symfs"
done
check "$R/quipper-intel-pt/perf.data.intel_pt-4.14"
echo "one status per window in $n recordings"
exit 0
