/* The order of a queue's samples (src/synth/order.c): the kernel writes a
 * ring buffer in time order, so an older sample, or the same record again,
 * is a record copied or moved. */
#include <criterion/criterion.h>
#include <string.h>

#include "synth/order.h"

static const uint8_t a[] = { 9, 0, 0, 0, 2, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
static const uint8_t b[] = { 9, 0, 0, 0, 2, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 9 };

/* Each check runs with the bytes kept (@st: a mapped file, compared
 * exactly) and with only their hash kept (a stream). */
static enum sy_order_verdict take(struct sy_order *o, uint64_t t,
				  const uint8_t *p, size_t n, int st)
{
	return sy_order_sample(o, t, p, n, st ? p : NULL);
}

static void newer_and_equal(int st)
{
	struct sy_order o;

	memset(&o, 0, sizeof(o));
	cr_assert_eq(take(&o, 100, a, sizeof(a), st), SY_ORDER_OK);
	cr_assert_eq(take(&o, 200, a, sizeof(a), st), SY_ORDER_OK);
	/* two events sampled at the same time: other bytes, both taken */
	cr_assert_eq(take(&o, 200, b, sizeof(b), st), SY_ORDER_OK);
	cr_assert_eq(take(&o, 300, b, sizeof(b), st), SY_ORDER_OK);
}

Test(order, newer_and_equal_times_pass)
{
	newer_and_equal(0);
	newer_and_equal(1);
}

static void copies_and_older(int st)
{
	struct sy_order o;

	memset(&o, 0, sizeof(o));
	cr_assert_eq(take(&o, 200, a, sizeof(a), st), SY_ORDER_OK);
	cr_assert_eq(take(&o, 200, a, sizeof(a), st),
		     SY_ORDER_DUPLICATE);
	cr_assert_eq(take(&o, 199, b, sizeof(b), st),
		     SY_ORDER_EARLIER);
	/* a refused sample leaves the order as it was */
	cr_assert_eq(take(&o, 200, b, sizeof(b), st), SY_ORDER_OK);
	cr_assert_eq(take(&o, 150, a, sizeof(a), st),
		     SY_ORDER_EARLIER);
	cr_assert_eq(o.time, 200);
}

Test(order, copies_and_older_samples_are_refused)
{
	copies_and_older(0);
	copies_and_older(1);
}

/* A copy is refused only when every byte is equal: a sample with deep
 * callchains (1.6 KB) of the same time and size that differs in any one
 * bit, anywhere, is taken. */
static void every_byte(int st)
{
	static uint8_t r[1640], s[1640];
	struct sy_order o;

	for (size_t i = 0; i < sizeof(r); i++)
		r[i] = (uint8_t)(i * 7 + 3);
	for (size_t i = 0; i < sizeof(r); i++) {
		for (unsigned bit = 0; bit < 8; bit += 3) {
			memcpy(s, r, sizeof(r));
			s[i] ^= (uint8_t)(1u << bit);
			memset(&o, 0, sizeof(o));
			cr_assert_eq(take(&o, 5, r, sizeof(r), st),
				     SY_ORDER_OK);
			cr_assert_eq(take(&o, 5, s, sizeof(s), st),
				     SY_ORDER_OK, "byte %zu bit %u", i, bit);
			cr_assert_eq(take(&o, 5, s, sizeof(s), st),
				     SY_ORDER_DUPLICATE);
		}
	}
}

Test(order, every_byte_of_a_long_sample_counts)
{
	every_byte(0);
	every_byte(1);
}

/* The reader's copy of a record is gone by the next one (a skimmed
 * file, sy_perf_skim): what is compared is the kept bytes, the mapped
 * file's, not the copy handed in. */
Test(order, kept_bytes_are_compared_not_the_copy)
{
	uint8_t copy[sizeof(a)];
	struct sy_order o;

	memset(&o, 0, sizeof(o));
	memcpy(copy, a, sizeof(a));
	cr_assert_eq(sy_order_sample(&o, 7, copy, sizeof(copy), a),
		     SY_ORDER_OK);
	/* the buffer now holds the next record */
	memcpy(copy, b, sizeof(b));
	cr_assert_eq(sy_order_sample(&o, 7, copy, sizeof(copy), b),
		     SY_ORDER_OK);
	memcpy(copy, b, sizeof(b));
	cr_assert_eq(sy_order_sample(&o, 7, copy, sizeof(copy), b),
		     SY_ORDER_DUPLICATE);
}
