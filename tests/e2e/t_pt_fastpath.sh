# e2e: long (minutes; tests/e2e/run starts it first)
# The Intel PT fast path (issue 25) against libipt's block decoder through
# the CLI, on scaled recordings (sy-fixturegen --scale 200 of pt-basic,
# pt-mt-smp and the cycle-accurate pt-design-cyc, whose CYC packets both
# hand out as CYCLES items: hundreds of windows, thousands of PSBs), every
# generated PT
# fixture and the real quipper capture: `windows --items` lists every
# decoder item (kind, from, to, code, instruction count, trace offset,
# time) the same with --decoder full as with the default, convert writes
# byte-identical profiles at -j1 and -j2 in two formats, and --stats-json
# says which decoder took the units (pt_units).  Item for item at every
# thread count and slice size: tests/unit/test_pt_fastpath.c.
. tests/e2e/lib.sh

GEN=${SY_BUILD}/sy-fixturegen
[ -x "$GEN" ] || fail "$GEN not built (make tools)"
Q=$SHARED/fixtures/real/quipper-intel-pt/perf.data.intel_pt-4.14
real=$Q
if [ ! -e "$Q" ]; then
	[ "${CI:-}" = "true" ] && fail "$Q not found (CI=true forbids skipping)"
	echo "SKIP (part): $Q not found; the real capture is not compared" >&2
	real=
fi
for s in pt-basic pt-mt-smp pt-design-cyc; do
	"$GEN" --scale 200 --no-truth -o "$T" tests/fixtures/scenarios/$s.scn \
		2>"$T/gen.err" || { cat "$T/gen.err"; fail "fixture generation"; }
	[ -s "$T/$s-x200.data" ] || fail "no scaled $s"
done

units() { python3 -c 'import json, sys; u = json.load(open(sys.argv[1]))["pt_units"]; print(u["fast"], u["full"], u["fallbacks"])' "$1"; }

n=0
for f in "$T/pt-basic-x200.data" "$T/pt-mt-smp-x200.data" \
	"$T/pt-design-cyc-x200.data" \
	tests/fixtures/generated/pt-*.data $real; do
	symfs=.
	fmts="perfscript lbr"
	case $f in "$Q") symfs=/nonexistent fmts=lbr ;; esac
	"$SY" windows --items --symfs "$symfs" -i "$f" >"$T/w.fast" 2>&1
	a=$?
	"$SY" windows --items --decoder full --symfs "$symfs" -i "$f" \
		>"$T/w.full" 2>&1
	b=$?
	[ $a -eq $b ] || fail "$f: windows exit $a fast, $b full"
	cmp -s "$T/w.fast" "$T/w.full" ||
		{ diff "$T/w.fast" "$T/w.full" | head -5; fail "$f: items differ"; }
	case $f in
	*-cyc*) grep -q cycles "$T/w.fast" || fail "$f: no CYCLES item" ;;
	esac
	for fmt in $fmts; do
		for j in 1 2; do
			"$SY" convert -q -j$j --format $fmt --symfs "$symfs" \
				-o "$T/fast" --stats-json "$T/fast.json" "$f" \
				2>"$T/fast.err"
			a=$?
			"$SY" convert -q -j$j --format $fmt --decoder full \
				--symfs "$symfs" -o "$T/full" \
				--stats-json "$T/full.json" "$f" 2>"$T/full.err"
			b=$?
			[ $a -eq $b ] || fail "$f: exit $a fast, $b full"
			cmp -s "$T/fast.err" "$T/full.err" ||
				fail "$f: the messages differ"
			[ $a -ne 0 ] && continue
			cmp -s "$T/fast" "$T/full" ||
				fail "$f $fmt -j$j: the profiles differ"
			set -- $(units "$T/full.json")
			[ "$1" -eq 0 ] && [ "$2" -gt 0 ] && [ "$3" -eq 0 ] ||
				fail "$f: --decoder full: pt_units $*"
			set -- $(units "$T/fast.json")
			[ $(($1 + $2)) -gt 0 ] && [ "$2" -eq "$3" ] ||
				fail "$f: fast: pt_units $*"
			case $f in
			*damage* | *anon* | "$Q") ;;
			*) [ "$1" -gt 0 ] && [ "$3" -eq 0 ] ||
				fail "$f: the fast path handed units over ($*)" ;;
			esac
		done
	done
	n=$((n + 1))
done
[ $n -ge 33 ] || fail "only $n recordings compared"
exit 0
