# e2e: long (minutes; tests/e2e/run starts it first)
# The plausibility checks never refuse undamaged trace: no window of any
# generated fixture or real capture is implausible, with the default branch
# stack depth and with every branch of each window kept (what convert
# --format lbr validates).  The windows counted ok prove the checks ran.
. tests/e2e/lib.sh
require_tool python3
R=$SHARED/fixtures/real

# implausible FILE OPTS...: prints "IMPLAUSIBLE OK" of windows --json, or
# nothing when the file holds no trace this tool decodes
implausible() {
	f=$1
	shift
	"$SY" windows --json -j 2 "$@" "$f" >"$T/w.json" 2>"$T/err" || return 0
	python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["by_status"]
print(s["implausible"], s["ok"])' "$T/w.json"
}

total_ok=0
check() {
	for depth in 64 all; do
		set -- $(implausible "$@" --depth "$depth")
		[ $# -eq 2 ] || continue
		[ "$1" -eq 0 ] || { sed -n '/implausible/p' "$T/w.json" | head -5
			fail "$f (--depth $depth): $1 implausible windows on undamaged trace"; }
		total_ok=$((total_ok + $2))
	done
}

n=0
for f in tests/fixtures/generated/*.data; do
	# a kernel-mode fixture's code is its kernel image's
	check "$f" --symfs . $(awk '$1 == "kernel" { print "--vmlinux", $2 }' \
		"${f%.data}.truth")
	n=$((n + 1))
done
[ $n -ge 40 ] || fail "only $n generated fixtures"
[ $total_ok -ge 150 ] || fail "only $total_ok ok windows in the generated fixtures: the checks did not run"

[ -d "$R" ] || skip "$R not found: real captures not checked (the generated fixtures passed)"
real_ok=$total_ok
for f in $(find "$R" -name '*.data' | sort) "$R"/quipper-intel-pt/perf.data.*intel_pt-4.14; do
	check "$f" --symfs "$R/simpleperf-etm/symfs"
done
[ $((total_ok - real_ok)) -ge 8 ] || fail "only $((total_ok - real_ok)) ok windows in the real captures"
echo "no implausible window: $real_ok ok windows of generated fixtures, $((total_ok - real_ok)) of real captures"
exit 0
