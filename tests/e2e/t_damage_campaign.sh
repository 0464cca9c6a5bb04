# The damage campaign of issue 14, kept: seeded mutants of generated
# fixtures and real captures (tests/damage/mutate.py: AUX payload bit flips
# and byte overwrites, record header and body damage, attrs, features, the
# file header, truncations, duplicated and moved samples) through
# strobe-synth convert, each compared with the undamaged file's output by
# tests/damage/campaign.py, which fails on any of:
#   - a signal death, a hang (20 s), an exit status outside {0, 3, 4, 5};
#   - a duplicated or moved sample that is not reported by exactly one line
#     naming the file and the record's offset, or an unknown-sample_type attr
#     not reported once at the attr;
#   - a sample, after a duplicated or moved record, that the undamaged file
#     does not give;
#   - more samples carrying a branch the undamaged file never has (a
#     fabricated sample) than the figure measured with the plausibility
#     checks (below).
#
# The fabricated figures are measured, not wished for: ETM and PT carry no
# checksum, and some damage makes a path that every static check accepts (a
# jump-table branch to another case of the same switch, an indirect call to
# another function's entry, a syscall that seems to return elsewhere); and
# with --format lbr (no pause samples) a window that ends in a decode error
# still gives its branches, so a damaged last address before the error is
# kept.  With the same mutants, strobe-synth before the checks (18373c4)
# gives 6 and 25 fabricated samples, and neither reports the duplicated or
# moved samples nor the attrs once.
. tests/e2e/lib.sh
require_tool python3
need_shared=
[ "${CI:-}" = "true" ] && need_shared=--require-shared

# every kind in turn: 360 mutants of 12 inputs
python3 tests/damage/campaign.py --sy "$SY" --shared "$SHARED" $need_shared \
	--seed 14 --per-input 30 --max-fabricated 0 ||
	fail "damage campaign (all kinds) failed (above)"
# the trace itself: 480 AUX payload bit flips and byte overwrites
python3 tests/damage/campaign.py --sy "$SY" --shared "$SHARED" $need_shared \
	--seed 15 --per-input 40 --kinds payload-flip,payload-byte \
	--max-fabricated 6 ||
	fail "damage campaign (AUX payload) failed (above)"
[ -e "$SHARED/fixtures/real/simpleperf-etm/orig/perf_etm.data" ] ||
	skip "$SHARED/fixtures/real not found: the generated fixtures passed, the real captures were left out"
exit 0
