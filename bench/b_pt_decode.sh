#!/bin/sh
# Intel PT window decode: strobe-synth's decoder against a bare libipt
# block-decoder loop (also with libipt's own block cache over a file section)
# and against libipt's packet decoder alone (the floor of any walk of the
# packets) and its query decoder alone over the same windows
# (bench/bench_pt_decode.c).
# Arguments of the binary: repetitions of the recorded run, rounds.
set -eu
bin="${SY_BUILD:-build}/bench/bench_pt_decode"
if [ ! -x "$bin" ]; then
	echo "b_pt_decode: $bin not built (make bench)" >&2
	exit 1
fi
"$bin" "${PT_BENCH_REPS:-12}" "${PT_BENCH_ROUNDS:-7}"
