#include "timeconv.h"

uint64_t sy_timeconv_to_perf(const struct sy_timeconv *tc, uint64_t cyc)
{
	uint64_t quot, rem;

	if (!tc->valid)
		return cyc;
	/* a short counter wraps: extend it from the reference point */
	if (tc->cap_short)
		cyc = tc->cycles + ((cyc - tc->cycles) & tc->mask);
	if (tc->shift >= 64)
		return tc->zero;
	quot = cyc >> tc->shift;
	rem = cyc & ((1ULL << tc->shift) - 1);
	return tc->zero + quot * tc->mult + ((rem * tc->mult) >> tc->shift);
}
