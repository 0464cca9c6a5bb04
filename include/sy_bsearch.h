/* The one binary search: the partition point of a sorted sequence.
 *
 * @before(ctx, i) says whether element @i lies before the point sought
 * (true for a prefix of 0..n-1, false for the rest); the result is the
 * first i for which it is false (n when it never is).  Every lookup in a
 * sorted table is one of these:
 *
 *	last mapping starting at or below addr:  pp(start <= addr) - 1
 *	first entry for a key (lower bound):     pp(key < sought)
 *	entries at or before a time:             pp(time <= t)
 *
 * Inline, so that a constant @before is inlined where it is called: the
 * address space lookup runs for every code read of a decoder. */
#ifndef SY_BSEARCH_H
#define SY_BSEARCH_H

#include <stddef.h>

typedef int (*sy_before_fn)(const void *ctx, size_t i);

static inline size_t sy_partition_point(size_t n, sy_before_fn before,
					const void *ctx)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
