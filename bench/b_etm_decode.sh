#!/bin/sh
# ETMv4 window decode: strobe-synth's decoder (the fast path, and forced to
# OpenCSD's full decoder) against a bare OpenCSD decode tree loop over the
# same windows (bench/bench_etm_decode.c), with and without the code-page
# cache in front of read_mem.  Real-shaped trace: b_etm_real.sh.
# Arguments of the binary: repetitions of the recorded run, rounds.
set -eu
bin="${SY_BUILD:-build}/bench/bench_etm_decode"
if [ ! -x "$bin" ]; then
	echo "b_etm_decode: $bin not built (make bench)" >&2
	exit 1
fi
"$bin" "${ETM_BENCH_REPS:-12}" "${ETM_BENCH_ROUNDS:-7}"
