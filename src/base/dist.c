/* Bounded distributions (sy_dist.h).  Exact values first, so that small
 * recordings get exact percentiles; past SY_DIST_EXACT_MAX values the
 * lengths go into log-linear bins (HDR-histogram style: the top
 * SY_DIST_SUB_BITS + 1 bits of a value choose its bin), so that memory
 * stays the same whatever the number of windows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sy_dist.h"
#include "sy_error.h"

void sy_dist_init(struct sy_dist *d)
{
	memset(d, 0, sizeof(*d));
	d->min = UINT64_MAX;
}

void sy_dist_fini(struct sy_dist *d)
{
	if (!d)
		return;
	free(d->v);
	free(d->bins);
	sy_dist_init(d);
}

size_t sy_dist_bin(uint64_t v)
{
	unsigned e, shift;

	if (v < SY_DIST_EXACT_BELOW)
		return (size_t)v;
	e = 63u - (unsigned)__builtin_clzll(v);	/* > SY_DIST_SUB_BITS */
	shift = e - SY_DIST_SUB_BITS;
	return SY_DIST_EXACT_BELOW +
	       (size_t)(e - SY_DIST_SUB_BITS - 1) * SY_DIST_SUB_BINS +
	       (size_t)((v >> shift) - SY_DIST_SUB_BINS);
}

uint64_t sy_dist_bin_lo(size_t b)
{
	size_t j;
	unsigned e;

	if (b < SY_DIST_EXACT_BELOW)
		return b;
	j = b - SY_DIST_EXACT_BELOW;
	e = SY_DIST_SUB_BITS + 1 + (unsigned)(j / SY_DIST_SUB_BINS);
	return (uint64_t)(SY_DIST_SUB_BINS + j % SY_DIST_SUB_BINS)
	       << (e - SY_DIST_SUB_BITS);
}

/* The exact values poured into bins: from here on memory is fixed. */
static int sy_dist_to_bins(struct sy_dist *d)
{
	d->bins = calloc(SY_DIST_NR_BINS, sizeof(*d->bins));
	if (!d->bins)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < d->nr_v; i++)
		d->bins[sy_dist_bin(d->v[i])]++;
	free(d->v);
	d->v = NULL;
	d->nr_v = d->cap_v = 0;
	return 0;
}

static int sy_dist_keep(struct sy_dist *d, uint64_t v)
{
	if (d->nr_v == d->cap_v) {
		size_t ncap = d->cap_v ? d->cap_v * 2 : 256;
		uint64_t *n = realloc(d->v, ncap * sizeof(*n));

		if (!n)
			return -SY_E_NOMEM;
		d->v = n;
		d->cap_v = ncap;
	}
	d->v[d->nr_v++] = v;
	d->sorted = 0;
	return 0;
}

int sy_dist_add(struct sy_dist *d, uint64_t v)
{
	int err;

	if (!d->bins && d->nr_v == SY_DIST_EXACT_MAX &&
	    (err = sy_dist_to_bins(d)))
		return err;
	if (d->bins)
		d->bins[sy_dist_bin(v)]++;
	else if ((err = sy_dist_keep(d, v)))
		return err;
	d->n++;
	d->min = v < d->min ? v : d->min;
	d->max = v > d->max ? v : d->max;
	return 0;
}

int sy_dist_exact(const struct sy_dist *d)
{
	return !d->bins;
}

static int sy_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void sy_dist_sort(struct sy_dist *d)
{
	if (!d->sorted && d->nr_v > 1)
		qsort(d->v, d->nr_v, sizeof(*d->v), sy_cmp_u64);
	d->sorted = 1;
}

uint64_t sy_dist_pct(struct sy_dist *d, unsigned p)
{
	uint64_t k, seen = 0;

	if (!d->n)
		return 0;
	if (p >= 100)
		return d->max;
	k = (uint64_t)ceil((double)p / 100.0 * (double)d->n);
	k = k ? k : 1;
	if (!d->bins) {
		sy_dist_sort(d);
		return d->v[k - 1];
	}
	for (size_t b = 0; b < SY_DIST_NR_BINS; b++) {
		seen += d->bins[b];
		if (seen >= k) {
			uint64_t lo = sy_dist_bin_lo(b);

			/* the smallest value is known: no bin below it */
			return lo < d->min ? d->min : lo;
		}
	}
	return d->max;
}

int sy_dist_next(struct sy_dist *d, size_t *pos, uint64_t *value,
		 uint64_t *count)
{
	if (!d->bins) {
		sy_dist_sort(d);
		if (*pos >= d->nr_v)
			return 0;
		*value = d->v[(*pos)++];
		*count = 1;
		return 1;
	}
	while (*pos < SY_DIST_NR_BINS && !d->bins[*pos])
		(*pos)++;
	if (*pos >= SY_DIST_NR_BINS)
		return 0;
	*value = sy_dist_bin_lo(*pos);
	*value = *value < d->min ? d->min : *value;
	*count = d->bins[(*pos)++];
	return 1;
}
