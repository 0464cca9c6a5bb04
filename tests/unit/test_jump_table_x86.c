/* x86-64 jump and call tables (src/synth/jump_table_x86.c) on hand-made
 * code in GCC's shapes: the bounded entries decide, anything the code
 * does not bound or a table that could change says "not known" (1). */
#include <criterion/criterion.h>
#include <string.h>

#include "synth/jump_table.h"

/* One flat memory: code and table, and whether the table is fixed. */
struct fake {
	uint64_t base;
	uint8_t mem[0x3000];
	int fixed;
};

static int fake_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	struct fake *f = ctx;

	if (addr < f->base || addr + n > f->base + sizeof(f->mem))
		return 0;
	memcpy(buf, f->mem + (addr - f->base), n);
	return 1;
}

static int fake_fixed(void *ctx, uint64_t addr, uint64_t len)
{
	struct fake *f = ctx;

	return f->fixed && addr >= f->base &&
	       addr + len <= f->base + sizeof(f->mem);
}

static void put(struct fake *f, uint64_t addr, const uint8_t *b, size_t n)
{
	memcpy(f->mem + (addr - f->base), b, n);
}

static void put64(struct fake *f, uint64_t addr, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		f->mem[addr - f->base + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}

static void put32(struct fake *f, uint64_t addr, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		f->mem[addr - f->base + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}

static struct sy_insn_decoder dec;

static void setup(void)
{
	cr_assert_eq(sy_insn_decoder_init(&dec, SY_TRACE_PT), 0);
}

static void teardown(void)
{
	sy_insn_decoder_fini(&dec);
}

static int hit(struct fake *f, uint64_t run, uint64_t from, uint64_t to,
	       int linked)
{
	const struct sy_jt_code k = { fake_read, fake_fixed, f };
	struct sy_br b = { .from = from, .to = to, .kind = SY_BR_IND_JUMP };

	return sy_jt_x86_hit(&k, &dec, &b, run, linked);
}

/* cmp $0xb,%edi; ja; mov %edi,%edi; jmp *0x402000(,%rdi,8): the
 * fixture program's op_switch */
static void absolute(struct fake *f, int write_index)
{
	static const uint8_t code[] = {
		0x83, 0xff, 0x0b,			/* cmp $0xb,%edi */
		0x0f, 0x87, 0x00, 0x01, 0x00, 0x00,	/* ja +0x100 */
		0x89, 0xff,				/* mov %edi,%edi */
		0xff, 0x24, 0xfd, 0x00, 0x20, 0x40, 0x00,
	};
	static const uint8_t bump[] = {
		0x83, 0xff, 0x0b, 0x0f, 0x87, 0x00, 0x01, 0x00, 0x00,
		0x83, 0xc7, 0x01,			/* add $1,%edi */
		0xff, 0x24, 0xfd, 0x00, 0x20, 0x40, 0x00,
	};

	memset(f, 0, sizeof(*f));
	f->base = 0x401000;
	f->fixed = 1;
	if (write_index)
		put(f, 0x401170, bump, sizeof(bump));
	else
		put(f, 0x401170, code, sizeof(code));
	for (uint64_t i = 0; i < 16; i++)
		put64(f, 0x402000 + 8 * i, 0x401200 + 0x10 * i);
}

Test(jt_x86, absolute_table, .init = setup, .fini = teardown)
{
	static struct fake f;

	absolute(&f, 0);
	/* entries 0..11 are the bounded ones */
	cr_assert_eq(hit(&f, 0x401170, 0x40117b, 0x401200, 1), 1);
	cr_assert_eq(hit(&f, 0x401170, 0x40117b, 0x4012b0, 1), 1);
	cr_assert_eq(hit(&f, 0x401170, 0x40117b, 0x401208, 1), 0);
	/* entry 12 is past the bound: no index the cmp lets through */
	cr_assert_eq(hit(&f, 0x401170, 0x40117b, 0x4012c0, 1), 0);
	/* a run that starts after the cmp knows no bound */
	cr_assert_eq(hit(&f, 0x401179, 0x40117b, 0x401208, 1), 1);
	/* not at its link-time address: the table may be another's */
	cr_assert_eq(hit(&f, 0x401170, 0x40117b, 0x401208, 0), 1);
	/* a table that can change */
	f.fixed = 0;
	cr_assert_eq(hit(&f, 0x401170, 0x40117b, 0x401208, 1), 1);
}

Test(jt_x86, index_written_after_the_check, .init = setup,
     .fini = teardown)
{
	static struct fake f;

	absolute(&f, 1);
	cr_assert_eq(hit(&f, 0x401170, 0x40117c, 0x401208, 1), 1);
}

/* PIE: lea TAB(%rip),%rdx; cmp $5,%edi; ja; mov %edi,%edi;
 * movslq (%rdx,%rdi,4),%rax; add %rdx,%rax; notrack jmp *%rax */
Test(jt_x86, relative_table, .init = setup, .fini = teardown)
{
	static struct fake f;
	static const uint8_t code[] = {
		0x48, 0x8d, 0x15, 0x00, 0x00, 0x00, 0x00, /* lea (%rip),%rdx */
		0x83, 0xff, 0x05,			/* cmp $5,%edi */
		0x77, 0x40,				/* ja */
		0x89, 0xff,				/* mov %edi,%edi */
		0x48, 0x63, 0x04, 0xba,		/* movslq (%rdx,%rdi,4),%rax */
		0x48, 0x01, 0xd0,			/* add %rdx,%rax */
		0x3e, 0xff, 0xe0,			/* notrack jmp *%rax */
	};
	uint64_t at = 0x401100, tab = 0x402400, jmp = at + sizeof(code) - 3;

	memset(&f, 0, sizeof(f));
	f.base = 0x401000;
	f.fixed = 1;
	put(&f, at, code, sizeof(code));
	put32(&f, at + 3, (uint32_t)(tab - (at + 7)));
	for (uint32_t i = 0; i < 8; i++)
		put32(&f, tab + 4 * i, (uint32_t)(0x401180 + 0x20 * i - tab));
	for (int linked = 0; linked <= 1; linked++) {
		cr_assert_eq(hit(&f, at, jmp, 0x401180, linked), 1);
		cr_assert_eq(hit(&f, at, jmp, 0x401220, linked), 1);
		cr_assert_eq(hit(&f, at, jmp, 0x401190, linked), 0);
		/* entry 6 is past the bound */
		cr_assert_eq(hit(&f, at, jmp, 0x401240, linked), 0);
	}
}

/* and $3,%eax; mov %rsi,%rdi; call *0x403320(,%rax,8): a call through
 * a table of function pointers, bounded by the mask */
Test(jt_x86, call_table_bounded_by_a_mask, .init = setup, .fini = teardown)
{
	static struct fake f;
	static const uint8_t code[] = {
		0x83, 0xe0, 0x03,			/* and $3,%eax */
		0x48, 0x89, 0xf7,			/* mov %rsi,%rdi */
		0xff, 0x14, 0xc5, 0x20, 0x23, 0x40, 0x00,
	};
	const struct sy_jt_code k = { fake_read, fake_fixed, &f };
	struct sy_br b = { .from = 0x4011a6, .kind = SY_BR_IND_CALL };

	memset(&f, 0, sizeof(f));
	f.base = 0x401000;
	f.fixed = 1;
	put(&f, 0x4011a0, code, sizeof(code));
	for (uint64_t i = 0; i < 4; i++)
		put64(&f, 0x402320 + 8 * i, 0x401400 + 0x40 * i);
	b.to = 0x4014c0;
	cr_assert_eq(sy_jt_x86_hit(&k, &dec, &b, 0x4011a0, 1), 1);
	b.to = 0x401420;
	cr_assert_eq(sy_jt_x86_hit(&k, &dec, &b, 0x4011a0, 1), 0);
}

/* A jump inside the run: the cmp before it need not be on the path (the
 * trace would have listed the jump as a branch), so no bound is known. */
Test(jt_x86, run_with_a_jump_is_not_straight, .init = setup,
     .fini = teardown)
{
	static struct fake f;
	static const uint8_t code[] = {
		0x83, 0xff, 0x0b,			/* cmp $0xb,%edi */
		0x0f, 0x87, 0x00, 0x01, 0x00, 0x00,	/* ja */
		0xeb, 0x00,				/* jmp .+2 */
		0xff, 0x24, 0xfd, 0x00, 0x20, 0x40, 0x00,
	};

	absolute(&f, 0);
	put(&f, 0x401170, code, sizeof(code));
	cr_assert_eq(hit(&f, 0x401170, 0x40117b, 0x401208, 1), 1);
	/* the same without the jump is known */
	f.mem[0x401179 - f.base] = 0x89;
	f.mem[0x40117a - f.base] = 0xff;
	cr_assert_eq(hit(&f, 0x401170, 0x40117b, 0x401208, 1), 0);
}
