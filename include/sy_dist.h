/* A distribution of unsigned 64-bit values in bounded memory: exact (every
 * value kept) up to SY_DIST_EXACT_MAX values, then log-linear bins that
 * keep every value below SY_DIST_EXACT_BELOW exactly and larger ones to
 * within 1/SY_DIST_SUB_BINS of their size.  The count, minimum and maximum
 * stay exact.  Used for window lengths (strobe-synth windows), whose
 * number grows with the recording while the summary must not. */
#ifndef SY_DIST_H
#define SY_DIST_H

#include <stddef.h>
#include <stdint.h>

enum {
	SY_DIST_SUB_BITS = 9,
	/* values per power of two above SY_DIST_EXACT_BELOW */
	SY_DIST_SUB_BINS = 1 << SY_DIST_SUB_BITS,
	SY_DIST_EXACT_BELOW = 2 << SY_DIST_SUB_BITS,
	SY_DIST_NR_BINS = SY_DIST_EXACT_BELOW +
			  (64 - SY_DIST_SUB_BITS - 1) * SY_DIST_SUB_BINS,
	/* values kept one by one before the bins take over (512 KiB) */
	SY_DIST_EXACT_MAX = 1 << 16,
};

struct sy_dist {
	uint64_t *v;		/* exact values; NULL once binned */
	size_t nr_v, cap_v;
	uint64_t *bins;		/* SY_DIST_NR_BINS counts, or NULL */
	uint64_t n, min, max;
	int sorted;
};

void sy_dist_init(struct sy_dist *d);
void sy_dist_fini(struct sy_dist *d);
/* -SY_E_NOMEM when memory runs out (@d unchanged). */
int sy_dist_add(struct sy_dist *d, uint64_t v);
/* Every value is still known exactly (no bins yet). */
int sy_dist_exact(const struct sy_dist *d);
/* Nearest-rank percentile @p (0..100).  Exact while sy_dist_exact();
 * else at or below the true value by less than 1/SY_DIST_SUB_BINS of it
 * (p100 is the exact maximum).  Sorts the exact values on first use. */
uint64_t sy_dist_pct(struct sy_dist *d, unsigned p);

/* Visits the distribution as (value, count) pairs in ascending order:
 * exact values one by one, or each bin's lower bound with its count.
 * Returns 0 at the end.  @pos starts at 0. */
int sy_dist_next(struct sy_dist *d, size_t *pos, uint64_t *value,
		 uint64_t *count);

/* The bin of @v and the smallest value in bin @b (for the tests). */
size_t sy_dist_bin(uint64_t v);
uint64_t sy_dist_bin_lo(size_t b);

#endif
