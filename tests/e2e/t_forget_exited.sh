# A process's mappings stay after its EXIT only until every queue's trace
# written before it has gone to a decode job (which takes the snapshot it
# reads code in); then it is forgotten, and memory is that of the
# processes alive, not of every process the recording saw.
#
# Oracle: N runs of a program in fresh processes give exactly N times the
# samples of one run (the lbr output's counts), whatever was forgotten on
# the way; --stats-json's "processes" says what was held at once and what
# was forgotten.  ete-exit-late's runs alternate between two CPUs and each
# CPU's AUX record comes with its process's EXIT, so a CPU's trace of an
# exited process is cut into a job after the other CPU's jobs went: a
# TRBE job reads code in the maps of its cut, and forgetting a process as
# soon as any job went (not once its own CPU's trace did) loses its code
# (3229 of 6400 windows decode-error at 400 runs).
. tests/e2e/lib.sh
GEN=$SY_BUILD/sy-fixturegen
[ -x "$GEN" ] || fail "$GEN not built (make tools)"
command -v python3 >/dev/null 2>&1 || skip "needs python3"

cat >"$T/ete-exit-late.scn" <<'EOF'
program = branchy-aarch64
trace = ete
sink = trbe
R = 800
P = 1100
thread = 1000 1000 18300
thread = 2000 2000 19000
slice = 0 1000 6600
slice = 1 2000 11000
wakeup_bytes = 65536
EOF

# counts FILE [K]: the lbr file with each sample on one line after its
# count (1 when it has no count line) times K
counts() {
	awk -v K="${2:-1}" '/^PERF_RECORD/ { print; next }
		/^[0-9]+$/ { n = $1; next }
		{ print (n ? n : 1) * K " " $0; n = 0 }' "$1"
}

# procs FILE KEY: processes.KEY of a --stats-json file
procs() {
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["processes"][sys.argv[2]])' "$1" "$2"
}

# scenario, processes per run
for x in "$T/ete-exit-late.scn 2" \
	"tests/fixtures/scenarios/pt-basic.scn 1" \
	"tests/fixtures/scenarios/etm4-etr-basic.scn 1" \
	"tests/fixtures/scenarios/ete-trbe-basic.scn 1"; do
	set -- $x
	scn=$1 per=$2
	name=$(basename "$scn" .scn)
	for n in 1 800 1600; do
		"$GEN" --scale $n --no-truth -o "$T" "$scn" 2>"$T/gen.err" ||
			{ cat "$T/gen.err"; fail "$name: generator failed"; }
		"$SY" convert -q --format lbr --symfs . -o "$T/$name-$n.lbr" \
			--stats-json "$T/$name-$n.json" "$T/$name-x$n.data" ||
			fail "$name x$n: convert failed"
	done
	grep -q /P/ "$T/$name-1.lbr" || fail "$name: no samples"
	for n in 800 1600; do
		counts "$T/$name-1.lbr" $n >"$T/want"
		counts "$T/$name-$n.lbr" >"$T/got"
		cmp -s "$T/want" "$T/got" || {
			diff "$T/want" "$T/got" | head -5
			fail "$name x$n: not $n times the samples of one run"
		}
		all=$((n * per))
		f=$(procs "$T/$name-$n.json" forgotten)
		[ "$f" -ge $((all - per)) ] ||
			fail "$name x$n: $f of $all processes forgotten"
	done
	p1=$(procs "$T/$name-800.json" peak)
	p2=$(procs "$T/$name-1600.json" peak)
	# held at once: those whose trace is not all in jobs yet (up to about
	# two pieces of each CPU's stream), the same however long the
	# recording: not the 800 or 1600 runs' processes
	[ "$p2" -le $((p1 + 4)) ] && [ "$p2" -lt $((400 * per)) ] ||
		fail "$name: $p1 processes held at once at 800 runs, $p2 at 1600"
	echo "$name: at most $p1 / $p2 processes held at once at 800 / 1600 runs"
done
exit 0
