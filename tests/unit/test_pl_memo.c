/* The plausibility checks' memo (src/synth/pl_memo.c). */
#include <criterion/criterion.h>
#include <inttypes.h>

#include "synth/pl_memo.h"

static struct sy_pl_key key(uint8_t type, uintptr_t img, uint64_t a,
			    uint64_t b)
{
	struct sy_pl_key k = { type, (const void *)img, NULL, a, b };

	return k;
}

Test(pl_memo, keeps_what_was_put_by_its_whole_key)
{
	struct sy_pl_memo m;
	struct sy_pl_key k = key(1, 0x1000, 40, 0);
	struct sy_insn in = { .size = 4, .kind = 3, .has_target = 1,
			      .target = 0x400100 };
	const struct sy_pl_memo_ent *e;

	sy_pl_memo_init(&m);
	cr_assert_not_null(m.v);
	cr_assert_null(sy_pl_memo_get(&m, &k));
	cr_assert_eq(sy_pl_memo_put(&m, &k, 3, &in), 3);
	e = sy_pl_memo_get(&m, &k);
	cr_assert_not_null(e);
	cr_assert_eq(e->verdict, 3);
	cr_assert_eq(e->insn.target, 0x400100);
	/* any other field of the key is another verdict */
	k = key(2, 0x1000, 40, 0);
	cr_assert_null(sy_pl_memo_get(&m, &k));
	k = key(1, 0x2000, 40, 0);
	cr_assert_null(sy_pl_memo_get(&m, &k));
	k = key(1, 0x1000, 44, 0);
	cr_assert_null(sy_pl_memo_get(&m, &k));
	k = key(1, 0x1000, 40, 1);
	cr_assert_null(sy_pl_memo_get(&m, &k));
	k.img2 = (const void *)0x10;
	k.b = 0;
	cr_assert_null(sy_pl_memo_get(&m, &k));
	cr_assert_eq(m.hits, 1);
	cr_assert_eq(m.misses, 6);
	sy_pl_memo_fini(&m);
	cr_assert_null(m.v);
}

/* Memory stays bounded: at three quarters full the table empties. */
Test(pl_memo, empties_when_three_quarters_full)
{
	struct sy_pl_memo m;
	uint64_t n = SY_PL_MEMO_CAP / 4 * 3;

	sy_pl_memo_init(&m);
	for (uint64_t i = 0; i < n; i++) {
		struct sy_pl_key k = key(1, 0x1000, i, 0);

		sy_pl_memo_put(&m, &k, 1, NULL);
	}
	cr_assert_eq(m.used, n);
	{
		struct sy_pl_key k = key(1, 0x1000, 0, 0);

		cr_assert_not_null(sy_pl_memo_get(&m, &k));
		k.a = n;
		sy_pl_memo_put(&m, &k, 2, NULL);
		cr_assert_eq(m.used, 1);
		cr_assert_not_null(sy_pl_memo_get(&m, &k));
		k.a = 0;
		cr_assert_null(sy_pl_memo_get(&m, &k));
	}
	sy_pl_memo_fini(&m);
}

/* It starts small and doubles as it fills: every verdict (and decoded
 * instruction) put before a growth is found after it, up to the cap. */
Test(pl_memo, grows_keeping_every_verdict)
{
	struct sy_pl_memo m;
	uint64_t n = SY_PL_MEMO_CAP / 4 * 3;

	sy_pl_memo_init(&m);
	cr_assert_eq(m.cap, SY_PL_MEMO_MIN);
	for (uint64_t i = 0; i < n; i++) {
		struct sy_pl_key k = key(1 + i % 3, 0x1000, i * 4, i & 1);
		struct sy_insn in = { .size = 4, .target = i };

		sy_pl_memo_put(&m, &k, 1 + (int)(i % 4), &in);
	}
	cr_assert_eq(m.cap, SY_PL_MEMO_CAP);
	cr_assert_eq(m.used, n);
	for (uint64_t i = 0; i < n; i++) {
		struct sy_pl_key k = key(1 + i % 3, 0x1000, i * 4, i & 1);
		const struct sy_pl_memo_ent *e = sy_pl_memo_get(&m, &k);

		cr_assert_not_null(e, "entry %" PRIu64, i);
		cr_assert_eq(e->verdict, 1 + i % 4);
		cr_assert_eq(e->insn.target, i);
	}
	sy_pl_memo_fini(&m);
}
