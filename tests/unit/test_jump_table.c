/* A64 jump tables (src/synth/jump_table.c) on a hand-made switch:
 *
 *   0x00 cmp w0, #3              0x14 ldrb w1, [x1, w0, uxtw]
 *   0x04 b.ls 0x0c               0x18 adr x2, 0x24
 *   0x08 ret                     0x1c add x1, x2, w1, sxtb #2
 *   0x0c adrp x1, 0x0            0x20 br x1
 *   0x10 add x1, x1, #0x100      0x24.. the cases; table at 0x100: 0 1 2 3
 *
 * so the br reaches 0x24 - 512 .. 0x24 + 508 whatever it loads, and the
 * four entries give 0x24, 0x28, 0x2c and 0x30. */
#include <criterion/criterion.h>
#include <string.h>

#include "synth/jump_table.h"

#define BASE 0x400000ull

static uint8_t image[0x200];
static int table_fixed;

static void put(uint64_t off, uint32_t w)
{
	memcpy(image + off, &w, 4);
}

static void setup(void)
{
	memset(image, 0, sizeof(image));
	put(0x00, 0x71000c1f);
	put(0x04, 0x54000049);
	put(0x08, 0xd65f03c0);
	put(0x0c, 0x90000001);
	put(0x10, 0x91040021);
	put(0x14, 0x38604821);
	put(0x18, 0x10000062);
	put(0x1c, 0x8b218841);
	put(0x20, 0xd61f0020);
	for (int i = 0; i < 4; i++)
		image[0x100 + i] = (uint8_t)i;
	table_fixed = 1;
}

TestSuite(jump_table, .init = setup);

static int rd(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (addr < BASE || addr + n > BASE + sizeof(image))
		return 0;
	memcpy(buf, image + (addr - BASE), n);
	return 1;
}

static int fixed(void *ctx, uint64_t addr, uint64_t len)
{
	(void)ctx;
	return table_fixed && addr >= BASE && addr + len <= BASE + sizeof(image);
}

static const struct sy_jt_code code = { rd, fixed, NULL };

static struct sy_br br(uint64_t from, uint64_t to, enum sy_branch_kind kind)
{
	struct sy_br b;

	memset(&b, 0, sizeof(b));
	b.from = from;
	b.to = to;
	b.kind = (uint8_t)kind;
	return b;
}

Test(jump_table, reach_of_the_entries)
{
	struct sy_br b = br(BASE + 0x20, BASE + 0x28, SY_BR_IND_JUMP);
	uint64_t lo = 0, hi = 0;

	cr_assert_eq(sy_jt_range(&code, &b, BASE, &lo, &hi), 1);
	cr_assert_eq(lo, BASE + 0x24 - 512);
	cr_assert_eq(hi, BASE + 0x24 + 508);
	/* a run that started after the adr proves nothing */
	cr_assert_eq(sy_jt_range(&code, &b, BASE + 0x1c, &lo, &hi), 0);
	/* another instruction where the br is: not a table */
	put(0x20, 0xd65f03c0);
	cr_assert_eq(sy_jt_range(&code, &b, BASE, &lo, &hi), 0);
}

Test(jump_table, entries_of_the_bounded_table)
{
	struct sy_br bls = br(BASE + 0x04, BASE + 0x0c, SY_BR_COND);
	struct sy_br p2 = br(BASE - 0x40, BASE, SY_BR_CALL);

	for (uint64_t t = 0x24; t <= 0x30; t += 4) {
		struct sy_br b = br(BASE + 0x20, BASE + t, SY_BR_IND_JUMP);

		cr_assert_eq(sy_jt_hit(&code, &b, &bls, &p2), 1, "%#llx",
			     (unsigned long long)t);
	}
	{
		struct sy_br b = br(BASE + 0x20, BASE + 0x34, SY_BR_IND_JUMP);

		/* in reach, but no entry gives it */
		cr_assert_eq(sy_jt_hit(&code, &b, &bls, &p2), 0);
		/* a table someone may write tells nothing */
		table_fixed = 0;
		cr_assert_eq(sy_jt_hit(&code, &b, &bls, &p2), 1);
		table_fixed = 1;
		/* without the taken b.ls the index is not bounded */
		bls.kind = SY_BR_JUMP;
		cr_assert_eq(sy_jt_hit(&code, &b, &bls, &p2), 1);
		bls.kind = SY_BR_COND;
		/* a run that began after the cmp did not check it */
		p2.to = BASE + 0x04;
		cr_assert_eq(sy_jt_hit(&code, &b, &bls, &p2), 1);
	}
}
