/* Bounded distributions (src/base/dist.c): exact percentiles while every
 * value is kept, then log-linear bins whose percentiles are checked
 * against a sorted copy of the same values (nearest rank, computed here)
 * within the stated error, and memory that stops growing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "sy_dist.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank over a sorted array: the oracle. */
static uint64_t rank(const uint64_t *v, size_t n, unsigned p)
{
	size_t k = (size_t)ceil((double)p / 100.0 * (double)n);

	return v[k ? k - 1 : 0];
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

Test(dist, bins_cover_their_values)
{
	uint64_t vs[] = { 0, 1, 1023, 1024, 1025, 2047, 2048, 4095, 4096,
			  123456789, UINT64_MAX / 3, UINT64_MAX };

	for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
		size_t b = sy_dist_bin(vs[i]);
		uint64_t lo = sy_dist_bin_lo(b);

		cr_assert_lt(b, (size_t)SY_DIST_NR_BINS, "%zu", i);
		cr_assert_leq(lo, vs[i]);
		if (vs[i] < SY_DIST_EXACT_BELOW)
			cr_assert_eq(lo, vs[i]);
		else
			/* under 1/SY_DIST_SUB_BINS of the value below it */
			cr_assert_lt((double)(vs[i] - lo),
				     (double)vs[i] / SY_DIST_SUB_BINS);
		if (b + 1 < SY_DIST_NR_BINS)
			cr_assert_gt(sy_dist_bin_lo(b + 1), vs[i]);
	}
}

Test(dist, exact_while_small)
{
	enum { N = 5000 };
	static uint64_t v[N];
	struct sy_dist d;
	uint64_t s = 42;

	sy_dist_init(&d);
	for (size_t i = 0; i < N; i++) {
		v[i] = next_rand(&s) % 10000000;
		cr_assert_eq(sy_dist_add(&d, v[i]), 0);
	}
	qsort(v, N, sizeof(v[0]), cmp);
	cr_assert(sy_dist_exact(&d));
	for (unsigned p = 1; p <= 100; p++)
		cr_assert_eq(sy_dist_pct(&d, p), rank(v, N, p), "p%u", p);
	sy_dist_fini(&d);
}

Test(dist, binned_within_stated_error)
{
	enum { N = SY_DIST_EXACT_MAX * 3 };
	uint64_t *v = malloc(N * sizeof(*v)), s = 7, k, x;
	struct sy_dist d;
	size_t pos = 0;
	uint64_t total = 0, prev = 0;

	cr_assert_not_null(v);
	sy_dist_init(&d);
	for (size_t i = 0; i < N; i++) {
		/* lengths over six decades, small ones exact */
		v[i] = next_rand(&s) % (1ull << (next_rand(&s) % 24));
		cr_assert_eq(sy_dist_add(&d, v[i]), 0);
	}
	qsort(v, N, sizeof(v[0]), cmp);
	cr_assert_not(sy_dist_exact(&d));
	cr_assert_null(d.v, "exact values still held once binned");
	cr_assert_eq(d.n, (uint64_t)N);
	cr_assert_eq(d.min, v[0]);
	cr_assert_eq(sy_dist_pct(&d, 100), v[N - 1]);
	for (unsigned p = 1; p < 100; p++) {
		uint64_t want = rank(v, N, p), got = sy_dist_pct(&d, p);

		cr_assert_leq(got, want, "p%u", p);
		if (want < SY_DIST_EXACT_BELOW)
			cr_assert_eq(got, want, "p%u", p);
		else
			cr_assert_lt((double)(want - got),
				     (double)want / SY_DIST_SUB_BINS, "p%u", p);
	}
	/* the visit is ascending and counts every value */
	while (sy_dist_next(&d, &pos, &x, &k)) {
		cr_assert_geq(x, prev);
		prev = x;
		total += k;
	}
	cr_assert_eq(total, (uint64_t)N);
	free(v);
	sy_dist_fini(&d);
}

Test(dist, empty)
{
	struct sy_dist d;
	size_t pos = 0;
	uint64_t x, k;

	sy_dist_init(&d);
	cr_assert_eq(sy_dist_pct(&d, 50), 0);
	cr_assert_eq(sy_dist_next(&d, &pos, &x, &k), 0);
	sy_dist_fini(&d);
	sy_dist_fini(NULL);
}
