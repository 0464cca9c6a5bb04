/* Trace clock to perf time: TIME_CONV (ETM generic timer) or the intel_pt
 * AUXTRACE_INFO time fields (TSC), with perf's tsc_to_perf_time(). */
#ifndef SY_TIMECONV_H
#define SY_TIMECONV_H

#include <stdint.h>

struct sy_timeconv {
	int valid;
	uint64_t shift, mult, zero;
	uint64_t cycles, mask;
	int cap_short;
};

uint64_t sy_timeconv_to_perf(const struct sy_timeconv *tc, uint64_t cyc);

#endif
