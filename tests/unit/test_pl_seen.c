/* The table of branches whose code checks passed (src/synth/pl_seen.c):
 * its generations and its places.  What the plausibility checks make of
 * it is tested in test_validate.c (checked_branches_are_*). */
#include <criterion/criterion.h>
#include <string.h>

#include "synth/pl_seen.h"

/* A clear is a new generation, 1..255; the 256th starts generation 1
 * again with every entry emptied, so that no key of generation 1 finds an
 * entry made in the generation 1 before. */
Test(pl_seen, generations_wrap_with_the_table_emptied)
{
	struct sy_pl_seen_tab t;
	const struct sy_br b = { 0x400100, 0x400200, SY_BR_CALL };

	cr_assert_eq(sy_pl_seen_init(&t), 0);
	sy_pl_seen_clear(&t);
	cr_assert_eq(t.gen, 1);
	t.v[7].kinds = sy_pl_kinds(&b, NULL, NULL, t.gen);
	t.v[7].from = b.from;
	for (uint32_t g = 2; g <= 255; g++) {
		sy_pl_seen_clear(&t);
		cr_assert_eq(t.gen, g);
		/* kept: another generation's entries never match */
		cr_assert_eq(t.v[7].from, b.from);
		cr_assert_neq(t.v[7].kinds, sy_pl_kinds(&b, NULL, NULL, t.gen));
	}
	sy_pl_seen_clear(&t);
	cr_assert_eq(t.gen, 1);
	for (uint32_t i = 0; i < SY_PL_SEEN; i++)
		cr_assert(t.v[i].kinds == 0 && t.v[i].from == 0, "entry %u", i);
	sy_pl_seen_fini(&t);
	sy_pl_seen_fini(&t);	/* NULL-safe */
}

/* The kinds word tells the branch's own kind from those before it and
 * the generation: a key without the branches before never equals one
 * with them. */
Test(pl_seen, kinds_tell_the_branches_before)
{
	const struct sy_br j = { 0x4002e0, 0x4002ec, SY_BR_IND_JUMP };
	const struct sy_br p = { 0x4002bc, 0x4002cc, SY_BR_COND };

	cr_assert_neq(sy_pl_kinds(&j, NULL, NULL, 1),
		      sy_pl_kinds(&j, &p, NULL, 1));
	cr_assert_neq(sy_pl_kinds(&j, &p, NULL, 1), sy_pl_kinds(&j, &p, &p, 1));
	cr_assert_neq(sy_pl_kinds(&j, NULL, NULL, 1),
		      sy_pl_kinds(&j, NULL, NULL, 2));
	cr_assert_neq(sy_pl_kinds(&j, &p, NULL, 1) & 0xff00u, 0);
	cr_assert_eq(sy_pl_kinds(&j, NULL, NULL, 9) & 0xff00u, 0);
}

/* A loop's branches (A64: 4-byte steps, a few middle bits apart) spread
 * over the table: 64 of them take at least 48 places. */
Test(pl_seen, a_loops_branches_spread)
{
	static uint8_t used[SY_PL_SEEN];
	unsigned n = 0;

	memset(used, 0, sizeof(used));
	for (uint64_t i = 0; i < 64; i++) {
		size_t at = sy_pl_seen_slot(0x400800 + 8 * i, 0x400804 + 8 * i,
					    0x400800 + 8 * i + 0x40);

		cr_assert_lt(at, SY_PL_SEEN);
		n += !used[at];
		used[at] = 1;
	}
	cr_assert_geq(n, 48, "%u places", n);
}
