# --format lbr writes each distinct branch-only sample once, after a line
# with its count when it was seen more than once, and the MMAP2 lines of
# the binaries it touches.  llvm-profgen 19 builds exactly the profile
# from that file that it builds from the same samples written one line per
# occurrence (the form convert wrote before); the order is deterministic.
. tests/e2e/lib.sh
require_tool llvm-profgen-19
GEN=$SY_BUILD/sy-fixturegen
[ -x "$GEN" ] || fail "$GEN not built (make tools)"

# four runs of the fixture program (fresh processes): the same samples
# four times, the shape of any long recording
"$GEN" --scale 4 --no-truth -o "$T" \
	tests/fixtures/scenarios/etm4-etr-basic.scn 2>"$T/gen.err" ||
	{ cat "$T/gen.err"; fail "generator failed"; }
F=$T/etm4-etr-basic-x4.data
BIN=tests/fixtures/programs/bin/branchy-aarch64
"$SY" convert -q --format lbr --symfs . -o "$T/agg.lbr" "$F" ||
	fail "lbr convert failed"
grep -q '^4$' "$T/agg.lbr" || fail "no repeat-count line"
grep -q '^PERF_RECORD_MMAP2 .* r-xp /tests/fixtures/programs/bin/branchy-aarch64$' \
	"$T/agg.lbr" || fail "no MMAP2 line for the traced binary"
# the same samples, one line per occurrence
awk '/^[0-9]+$/ { n = $1; next } /^PERF_RECORD/ { print; next }
	{ for (i = 0; i < (n ? n : 1); i++) print; n = 0 }' \
	"$T/agg.lbr" >"$T/rep.lbr"
[ "$(grep -c /P/ "$T/rep.lbr")" -eq $((4 * $(grep -c /P/ "$T/agg.lbr"))) ] ||
	fail "expansion is not four times the samples"
flags="--format=text --profile-summary-cold-count=0 --csspgo-preinliner=0"
for form in agg rep; do
	llvm-profgen-19 --perfscript="$T/$form.lbr" --binary="$BIN" $flags \
		--output="$T/$form.prof" >"$T/$form.log" 2>&1 ||
		{ cat "$T/$form.log"; fail "llvm-profgen-19 failed on the $form form"; }
done
grep -q '^op_switch:' "$T/agg.prof" || fail "profile lacks the hot function"
cmp -s "$T/agg.prof" "$T/rep.prof" || {
	diff "$T/rep.prof" "$T/agg.prof"
	fail "aggregated and repeated forms give different profiles"
}
# deterministic, whatever the thread count
"$SY" convert -q -j 3 --format lbr --symfs . -o "$T/j3.lbr" "$F"
cmp -s "$T/agg.lbr" "$T/j3.lbr" || fail "output depends on -j"
exit 0
