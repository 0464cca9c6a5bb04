#!/bin/sh
# Output formats and merging, on inputs made here in BENCH_TMP:
#  1. llvm-profgen-19 on the same profile in --format lbr's counted form
#     and one line per occurrence (what convert wrote before), from a
#     recording of OUTPUTS_REPS runs of the fixture program (fresh
#     processes, the shape of a long recording);
#  2. merging OUTPUTS_N (default 1000) aggregated outputs: strobe-synth
#     merge on bolt and perfscript files against merge-fdata-19 on the
#     fdata perf2bolt makes of the same bolt files.  The outputs are those
#     of 10 recordings (1..10 runs of the fixture program) repeated.
# Figures only (time, peak RSS, ratios); nothing asserts a time.
set -u
SY=$SY_BUILD/strobe-synth
GEN=$SY_BUILD/sy-fixturegen
T=$BENCH_TMP/outputs
N=${OUTPUTS_N:-1000}
REPS=${OUTPUTS_REPS:-2000}
M="python3 bench/measure.py"
mkdir -p "$T" || exit 1
for x in "$SY" "$GEN"; do
	[ -x "$x" ] || { echo "b_outputs: $x not built (make bench)" >&2; exit 1; }
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# 1. llvm-profgen on both forms
if command -v llvm-profgen-19 >/dev/null 2>&1; then
	"$GEN" --scale "$REPS" --no-truth -o "$T" tests/fixtures/scenarios/pt-basic.scn 2>/dev/null ||
		{ echo "b_outputs: generator failed" >&2; exit 1; }
	"$SY" convert -q --symfs . --format lbr -o "$T/agg.lbr" "$T/pt-basic-x$REPS.data" || exit 1
	awk '/^[0-9]+$/ { n = $1; next } /^PERF_RECORD/ { print; next }
		{ for (i = 0; i < (n ? n : 1); i++) print; n = 0 }' "$T/agg.lbr" >"$T/rep.lbr"
	echo "llvm-profgen-19 --format=text on one profile ($REPS runs of pt-basic): two forms"
	for form in rep agg; do
		set -- $($M llvm-profgen-19 --perfscript="$T/$form.lbr" \
			--binary=tests/fixtures/programs/bin/branchy-x86_64 \
			--format=text --output="$T/$form.prof")
		eval "t_$form=$1"
		printf '  %-9s %8d lines %9d bytes  %6.2f s  %7d KB peak RSS  (exit %s)\n' \
			"$form" "$(wc -l <"$T/$form.lbr")" "$(wc -c <"$T/$form.lbr")" "$1" "$2" "$3"
	done
	cmp -s "$T/rep.prof" "$T/agg.prof" && same=yes || same=NO
	echo "  counted form: $(ratio "$t_rep" "$t_agg")x faster; same profile: $same"
else
	echo "b_outputs: llvm-profgen-19 not installed: part 1 skipped"
fi

# 2. merging N outputs
mkdir -p "$T/rec" "$T/b" "$T/p" "$T/f" "$T/bin"
ln -sf "$(readlink -f "$(command -v perf2bolt-19 2>/dev/null || echo /nonexistent)")" "$T/bin/perf2bolt"
for k in 1 2 3 4 5 6 7 8 9 10; do
	"$GEN" --scale $k --no-truth -o "$T/rec" tests/fixtures/scenarios/pt-samples.scn 2>/dev/null || exit 1
	f=$T/rec/pt-samples-x$k.data
	[ -e "$f" ] || f=$T/rec/pt-samples.data
	"$SY" convert -q --symfs . --format bolt -o "$T/rec/$k.bolt" "$f" || exit 1
	"$SY" convert -q --symfs . -o "$T/rec/$k.ps" "$f" || exit 1
	[ -x "$T/bin/perf2bolt" ] && "$T/bin/perf2bolt" -pa -p "$T/rec/$k.bolt" -o "$T/rec/$k.fdata" \
		tests/fixtures/programs/bin/branchy-x86_64 >/dev/null 2>&1
done
i=0
while [ $i -lt "$N" ]; do
	k=$((i % 10 + 1))
	ln "$T/rec/$k.bolt" "$T/b/$i.bolt"
	ln "$T/rec/$k.ps" "$T/p/$i.ps"
	[ -e "$T/rec/$k.fdata" ] && ln "$T/rec/$k.fdata" "$T/f/$i.fdata"
	i=$((i + 1))
done
echo "merging $N aggregated outputs ($(cat "$T"/b/* | wc -c) bytes of bolt, $(cat "$T"/p/* | wc -c) of perfscript)"
set -- $($M "$SY" merge -q -o "$T/m.bolt" "$T"/b/*.bolt)
tb=$1
printf '  strobe-synth merge, bolt        %6.3f s  %7d KB peak RSS  (exit %s)\n' "$1" "$2" "$3"
set -- $($M "$SY" merge -q -o "$T/m.ps" "$T"/p/*.ps)
printf '  strobe-synth merge, perfscript  %6.3f s  %7d KB peak RSS  (exit %s)\n' "$1" "$2" "$3"
if command -v merge-fdata-19 >/dev/null 2>&1 && [ -e "$T/f/0.fdata" ]; then
	set -- $($M sh -c 'merge-fdata-19 "$@" >"'"$T"'/m.fdata"' sh "$T"/f/*.fdata)
	printf '  merge-fdata-19, fdata           %6.3f s  %7d KB peak RSS  (exit %s)\n' "$1" "$2" "$3"
	echo "  strobe-synth merge (bolt) vs merge-fdata-19: $(ratio "$1" "$tb")x the speed"
else
	echo "  merge-fdata-19 or perf2bolt-19 not installed: no peer figure"
fi
