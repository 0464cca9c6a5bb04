/* The order of a queue's samples (src/synth/order.c): the kernel writes a
 * ring buffer in time order, so an older sample, or the same record again,
 * is a record copied or moved. */
#include <criterion/criterion.h>
#include <string.h>

#include "synth/order.h"

static const uint8_t a[] = { 9, 0, 0, 0, 2, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
static const uint8_t b[] = { 9, 0, 0, 0, 2, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 9 };

Test(order, newer_and_equal_times_pass)
{
	struct sy_order o;

	memset(&o, 0, sizeof(o));
	cr_assert_eq(sy_order_sample(&o, 100, a, sizeof(a)), SY_ORDER_OK);
	cr_assert_eq(sy_order_sample(&o, 200, a, sizeof(a)), SY_ORDER_OK);
	/* two events sampled at the same time: other bytes, both taken */
	cr_assert_eq(sy_order_sample(&o, 200, b, sizeof(b)), SY_ORDER_OK);
	cr_assert_eq(sy_order_sample(&o, 300, b, sizeof(b)), SY_ORDER_OK);
}

Test(order, copies_and_older_samples_are_refused)
{
	struct sy_order o;

	memset(&o, 0, sizeof(o));
	cr_assert_eq(sy_order_sample(&o, 200, a, sizeof(a)), SY_ORDER_OK);
	cr_assert_eq(sy_order_sample(&o, 200, a, sizeof(a)),
		     SY_ORDER_DUPLICATE);
	cr_assert_eq(sy_order_sample(&o, 199, b, sizeof(b)), SY_ORDER_EARLIER);
	/* a refused sample leaves the order as it was */
	cr_assert_eq(sy_order_sample(&o, 200, b, sizeof(b)), SY_ORDER_OK);
	cr_assert_eq(sy_order_sample(&o, 150, a, sizeof(a)), SY_ORDER_EARLIER);
	cr_assert_eq(o.time, 200);
}
