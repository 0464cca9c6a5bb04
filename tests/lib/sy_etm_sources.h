/* The decoder's trace sources (sy_decode.h) from a recording's
 * AUXTRACE_INFO (sy_auxtrace.h), as the session makes them
 * (src/synth/prepass.c, without its AUX_OUTPUT_HW_ID trace IDs), for the
 * tests and benchmarks that decode real captures' AUX data directly.  No
 * criterion: bench/bench_etm_real.c compiles it in. */
#ifndef SY_ETM_SOURCES_H
#define SY_ETM_SOURCES_H

#include <stddef.h>

#include "sy_auxtrace.h"
#include "sy_decode.h"

/* One source per ETMv4 / ETE CPU block of @e, at most @max into @out;
 * returns how many. */
size_t sy_test_etm_sources(const struct sy_etm_info *e,
			   struct sy_etm_source *out, size_t max);

#endif
