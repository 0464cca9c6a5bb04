/* A64 jump tables, read from the code (see jump_table.h). */
#include "jump_table.h"

static uint32_t sy_jt_word(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

int sy_jt_range(const struct sy_jt_code *k, const struct sy_br *b,
		uint64_t run, uint64_t *lo, uint64_t *hi)
{
	static const int64_t span[8][2] = {
		{ 0, 255 }, { 0, 65535 }, { 0, 0 }, { 0, 0 },
		{ -128, 127 }, { -32768, 32767 }, { 0, 0 }, { 0, 0 },
	};
	uint8_t buf[12];
	uint32_t adr, add, br, opt, sh;
	uint64_t base;
	int64_t imm;

	if (b->from < 8 || run > b->from - 8 ||
	    !k->read(k->ctx, b->from - 8, buf, sizeof(buf)))
		return 0;
	adr = sy_jt_word(buf);
	add = sy_jt_word(buf + 4);
	br = sy_jt_word(buf + 8);
	opt = (add >> 13) & 7;
	sh = (add >> 10) & 7;
	/* BR Xn; ADD (extended register, 64-bit); ADR */
	if ((br & 0xfffffc1fu) != 0xd61f0000u ||
	    (add & 0xffe00000u) != 0x8b200000u ||
	    (adr & 0x9f000000u) != 0x10000000u ||
	    ((br >> 5) & 31) != (add & 31) || ((add >> 5) & 31) != (adr & 31) ||
	    (adr & 31) == 31 || (add & 31) == 31 ||
	    span[opt][0] == span[opt][1] || sh > 4)
		return 0;
	imm = (int64_t)((((adr >> 5) & 0x7ffffu) << 2) | ((adr >> 29) & 3));
	if (imm & (1 << 20))
		imm -= 1 << 21;
	base = b->from - 8 + (uint64_t)imm;
	*lo = base + (uint64_t)(span[opt][0] * (1 << sh));
	*hi = base + (uint64_t)(span[opt][1] * (1 << sh));
	return 1;
}

/* Largest switch whose table the check below reads (entries). */
#define SY_JT_MAX 1024u

/* The index bound of the jump table @b ends, from the code's own bounds
 * check (as BOLT's jump-table analysis reads it): GCC's
 *
 *   cmp wI, #N; b.ls L ... L: adrp xT, tab; add xT, xT, #lo;
 *   ldrb wE, [xT, wI, uxtw] (or ldrh ... uxtw #1); adr; add; br
 *
 * with the b.ls the run's taken branch @prev, and the cmp in the straight
 * run before it (so wI <= N when the table is read).  Returns the
 * number of entries (N + 1) with the table's address and entry size, or
 * 0 when the code is not that. */
static uint32_t sy_jt_bound(const struct sy_jt_code *k, const struct sy_br *b,
			    const struct sy_br *prev, const struct sy_br *p2,
			    uint64_t *tab, unsigned *esize)
{
	uint8_t buf[24];
	uint32_t w[6], cmp, bls, idx;
	int64_t imm;

	if (prev->kind != SY_BR_COND || prev->to != b->from - 20 ||
	    prev->from < 4 || !p2 || p2->kind == SY_BR_SYSCALL ||
	    p2->kind == SY_BR_ERET || p2->to > prev->from - 4 ||
	    !k->read(k->ctx, prev->from - 4, buf, 8))
		return 0;
	cmp = sy_jt_word(buf);
	bls = sy_jt_word(buf + 4);
	if (!k->read(k->ctx, b->from - 20, buf, sizeof(buf)))
		return 0;
	for (int i = 0; i < 6; i++)
		w[i] = sy_jt_word(buf + 4 * i);
	idx = (cmp >> 5) & 31;
	/* cmp wI, #imm12 (subs wzr); b.ls; adrp xT; add xT, xT, #imm12;
	 * ldrb wE, [xT, wI, uxtw] or ldrh wE, [xT, wI, uxtw #1] */
	if ((cmp & 0xffc0001fu) != 0x7100001fu ||
	    (bls & 0xff00001fu) != 0x54000009u ||
	    (w[0] & 0x9f000000u) != 0x90000000u ||
	    (w[1] & 0xffc00000u) != 0x91000000u ||
	    (w[1] & 31) != (w[0] & 31) || ((w[1] >> 5) & 31) != (w[0] & 31) ||
	    ((w[2] & 0xffe0fc00u) != 0x38604800u &&
	     (w[2] & 0xffe0fc00u) != 0x78605800u) ||
	    ((w[2] >> 5) & 31) != (w[0] & 31) || ((w[2] >> 16) & 31) != idx ||
	    (w[0] & 31) == idx || (w[2] & 31) != ((w[4] >> 16) & 31))
		return 0;
	imm = (int64_t)((((w[0] >> 5) & 0x7ffffu) << 2) | ((w[0] >> 29) & 3));
	if (imm & (1 << 20))
		imm -= 1 << 21;
	*tab = ((b->from - 20) & ~0xfffull) + (uint64_t)(imm * 4096) +
	       ((w[1] >> 10) & 0xfff);
	*esize = (w[2] & 0xffe0fc00u) == 0x78605800u ? 2 : 1;
	return ((cmp >> 10) & 0xfff) + 1;
}

int sy_jt_hit(const struct sy_jt_code *k, const struct sy_br *b,
	      const struct sy_br *prev, const struct sy_br *p2)
{
	uint8_t buf[8];
	uint32_t adr, add, n, opt, sh;
	unsigned es;
	uint64_t tab, base;
	int64_t imm;

	n = sy_jt_bound(k, b, prev, p2, &tab, &es);
	if (!n || n > SY_JT_MAX || !k->read(k->ctx, b->from - 8, buf, 8))
		return 1;
	adr = sy_jt_word(buf);
	add = sy_jt_word(buf + 4);
	imm = (int64_t)((((adr >> 5) & 0x7ffffu) << 2) | ((adr >> 29) & 3));
	if (imm & (1 << 20))
		imm -= 1 << 21;
	base = b->from - 8 + (uint64_t)imm;
	opt = (add >> 13) & 7;
	sh = (add >> 10) & 7;
	/* the entry the add extends: a byte with ldrb, a halfword with ldrh */
	if ((es == 1 && opt != 0 && opt != 4) ||
	    (es == 2 && opt != 1 && opt != 5))
		return 1;
	if (!k->fixed(k->ctx, tab, (uint64_t)n * es))
		return 1;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t e[2];
		int64_t v;

		if (!k->read(k->ctx, tab + (uint64_t)i * es, e, es))
			return 1;
		v = es == 1 ? (opt == 4 ? (int8_t)e[0] : e[0]) :
			      (opt == 5 ? (int16_t)(e[0] | e[1] << 8) :
					  (e[0] | e[1] << 8));
		if (base + (uint64_t)(v * (1 << sh)) == b->to)
			return 1;
	}
	return 0;
}
