/* Branch sequences whose code checks passed (see proven.h). */
#include "proven.h"

#include <stdlib.h>
#include <string.h>

#include "sy_error.h"
#include "sy_hash.h"

/* Two records are three 16-byte vectors: the compare reads the ring as it
 * lies, two branches at a time (SSE2 on x86-64, NEON on A64). */
typedef uint64_t sy_proven_v __attribute__((vector_size(16)));

_Static_assert(sizeof(struct sy_br) == 3 * sizeof(uint64_t) &&
		       offsetof(struct sy_br, from) == 0 &&
		       offsetof(struct sy_br, to) == 8,
	       "a ring record is three words: source, target, then kind");

/* The bytes of four records that are their fields, as words: what the
 * ring holds in the others (padding) is never compared. */
static void sy_proven_fields_init(uint64_t *fields)
{
	struct sy_br m[4];

	memset(m, 0, sizeof(m));
	for (int i = 0; i < 4; i++) {
		memset(&m[i].from, 0xff, sizeof(m[i].from));
		memset(&m[i].to, 0xff, sizeof(m[i].to));
		memset(&m[i].kind, 0xff, sizeof(m[i].kind));
	}
	memcpy(fields, m, sizeof(m));
}

int sy_proven_init(struct sy_proven *p)
{
	memset(p, 0, sizeof(*p));
	sy_proven_fields_init(p->fields);
#if SY_PROVEN_WIDE
	__builtin_cpu_init();
	p->wide = __builtin_cpu_supports("avx2");
#endif
	p->v = calloc(SY_PROVEN_SEQS, sizeof(*p->v));
	p->once = calloc(SY_PROVEN_ONCE, sizeof(*p->once));
	if (!p->v || !p->once) {
		sy_proven_fini(p);
		return -SY_E_NOMEM;
	}
	return 0;
}

void sy_proven_fini(struct sy_proven *p)
{
	free(p->v);
	free(p->once);
	p->v = NULL;
	p->once = NULL;
}

void sy_proven_clear(struct sy_proven *p)
{
	/* an entry is only read when its n says so: only those put since
	 * the last clear are written (each is in a cache line of its own,
	 * and a snapshot of code that does not loop keeps few) */
	for (size_t w = 0; p->v && w < SY_PROVEN_SEQS / 64; w++) {
		for (uint64_t b = p->filled[w]; b; b &= b - 1) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(b);

			p->v[i].n = 0;
			p->tag[i] = 0;
		}
		p->filled[w] = 0;
	}
	/* the notes of the last epoch no longer match */
	p->epoch++;
}

/* The places of a sequence, mixed: its newest and oldest branches and
 * the branch before it (a loop's sequences mostly differ only where a
 * window enters the loop), its length and context. */
static inline uint64_t sy_proven_mix(const struct sy_br *br, unsigned n,
				     unsigned nctx)
{
	const struct sy_br *old = &br[n - 1];
	uint64_t ctx = nctx ? br[n].from : 0;
	uint64_t x = (br->from ^ old->to) * SY_HASH_K2 ^ old->from ^ ctx ^
		     (n << 2 | nctx);

	return x * SY_HASH_GOLDEN;
}

/* The place of a sequence (its two ways: even, and the odd after):
 * Fibonacci hashing, the product's top bits. */
static inline size_t sy_proven_slot(const struct sy_br *br, unsigned n,
				    unsigned nctx)
{
	return (size_t)(sy_proven_mix(br, n, nctx) >>
			(64 - SY_PROVEN_SEQS_LOG2)) &
	       (SY_PROVEN_SEQS - 2);
}

/* The note of a sequence with the places @mix in this epoch (never 0:
 * an empty note is no sighting; its low two bits are left for the count)
 * and where it is kept: the bits below the slot's, so that two sequences
 * of one slot (a loop entered at two places) keep two notes. */
static inline uint64_t *sy_proven_note(struct sy_proven *p, uint64_t mix,
				       uint64_t *note)
{
	uint64_t x = (mix ^ p->epoch * SY_HASH_K2) | 4;

	*note = x & ~3ull;
	return &p->once[(x >> (64 - SY_PROVEN_SEQS_LOG2 -
			       SY_PROVEN_ONCE_LOG2)) &
			(SY_PROVEN_ONCE - 1)];
}

int sy_proven_again(struct sy_proven *p, const struct sy_br *br, unsigned n,
		    unsigned nctx)
{
	uint64_t x, *o = sy_proven_note(p, sy_proven_mix(br, n, nctx), &x);

	/* the count of sightings before this one, in the note's low bits */
	if ((*o & ~3ull) != x) {
		*o = x | 1;
		return 0;
	}
	if ((*o & 3) >= 2)
		return 1;
	*o = x | 2;
	return 0;
}

/* Two records at @r as three 16-byte vectors @v (@f: sy_proven.fields
 * as vectors), their padding zeroed. */
static inline void sy_proven_load2(const unsigned char *r,
				   const sy_proven_v *f, sy_proven_v *v)
{
	memcpy(&v[0], r, 16);
	memcpy(&v[1], r + 16, 16);
	memcpy(&v[2], r + 32, 16);
	/* v[0] is a source and a target: no padding to mask */
	v[1] &= f[1];
	v[2] &= f[2];
}

/* One record at @r as three words @x, its padding zeroed. */
static inline void sy_proven_load1(const unsigned char *r,
				   const uint64_t *fields, uint64_t *x)
{
	memcpy(x, r, 3 * sizeof(*x));
	for (int i = 0; i < 3; i++)
		x[i] &= fields[i];
}

/* Nonzero when @m records at @br differ from @w in a field. */
static inline uint64_t sy_proven_diff(const uint64_t *fields,
				      const uint64_t *w,
				      const struct sy_br *br, unsigned m)
{
	const unsigned char *r = (const unsigned char *)br;
	const sy_proven_v *e = (const sy_proven_v *)w;
	const sy_proven_v *f = (const sy_proven_v *)fields;
	sy_proven_v acc = { 0, 0 };
	uint64_t d = 0;
	unsigned k = 0;

	for (; k + 1 < m; k += 2, r += 48, e += 3) {
		sy_proven_v v[3];

		sy_proven_load2(r, f, v);
		acc |= (v[0] ^ e[0]) | (v[1] ^ e[1]) | (v[2] ^ e[2]);
	}
	if (k < m) {
		uint64_t x[3];

		sy_proven_load1(r, fields, x);
		for (int i = 0; i < 3; i++)
			d |= x[i] ^ w[3 * k + i];
	}
	return d | acc[0] | acc[1];
}

#if SY_PROVEN_WIDE
/* Four records are three 32-byte vectors: the same compare with half the
 * loads and operations (the compare was two thirds of the checks' time
 * on the real ETE capture, whose loop's sequences all hit).  Compiled for
 * AVX2, run where the CPU has it (sy_proven_init). */
typedef uint64_t sy_proven_w __attribute__((vector_size(32)));

__attribute__((target("avx2"))) static uint64_t
sy_proven_diff_wide(const uint64_t *fields, const uint64_t *w,
		    const struct sy_br *br, unsigned m)
{
	const unsigned char *r = (const unsigned char *)br;
	const unsigned char *e = (const unsigned char *)w;
	sy_proven_w f0, f1, f2, acc = { 0, 0, 0, 0 };
	unsigned k = 0;

	/* words i of four records hold field i % 3 */
	memcpy(&f0, fields, 32);
	memcpy(&f1, fields + 4, 32);
	memcpy(&f2, fields + 8, 32);
	for (; k + 3 < m; k += 4, r += 96, e += 96) {
		sy_proven_w a, b, c, x, y, z;

		memcpy(&a, r, 32);
		memcpy(&b, r + 32, 32);
		memcpy(&c, r + 64, 32);
		memcpy(&x, e, 32);
		memcpy(&y, e + 32, 32);
		memcpy(&z, e + 64, 32);
		acc |= ((a & f0) ^ x) | ((b & f1) ^ y) | ((c & f2) ^ z);
	}
	return acc[0] | acc[1] | acc[2] | acc[3] |
	       (k < m ? sy_proven_diff(fields, (const uint64_t *)e,
				       (const struct sy_br *)r, m - k) :
			0);
}
#endif

/* What an entry's tag is for a sequence of @n (1..) branches, the newest
 * from @from, with @nctx before it: never 0 (an empty entry's).  Equal
 * sequences have equal tags; only the entry's fields decide a match. */
static inline uint32_t sy_proven_tag(uint64_t from, unsigned n,
				     unsigned nctx)
{
	return (uint32_t)((from ^ from >> 32) << 10) | n << 2 | nctx;
}

/* Whether @s is the sequence @br (@n, @nctx). */
static inline int sy_proven_is(const struct sy_proven *p,
			       const struct sy_proven_seq *s,
			       const struct sy_br *br, unsigned n,
			       unsigned nctx)
{
	if (s->n != n || s->nctx != nctx || s->w[0] != br->from)
		return 0;
#if SY_PROVEN_WIDE
	if (p->wide)
		return !sy_proven_diff_wide(p->fields, s->w, br, n + nctx);
#endif
	return !sy_proven_diff(p->fields, s->w, br, n + nctx);
}

const struct sy_proven_seq *sy_proven_find(struct sy_proven *p,
					   const struct sy_br *br, unsigned n,
					   unsigned nctx)
{
	size_t at = sy_proven_slot(br, n, nctx);
	uint32_t tag = sy_proven_tag(br->from, n, nctx);
	uint64_t x;

	/* two ways, in place order (both tags are read at once; which is
	 * newer matters only to a put) */
	for (size_t k = at; k < at + 2; k++)
		if (p->tag[k] == tag && sy_proven_is(p, &p->v[k], br, n, nctx)) {
			p->hits++;
			return &p->v[k];
		}
	p->misses++;
	/* a sequence not found is mostly checked and then noted: its note
	 * is read after its branches' checks, by when it is in cache */
	__builtin_prefetch(sy_proven_note(p, sy_proven_mix(br, n, nctx), &x));
	return NULL;
}

/* Copies the @m records @br into @w, their padding zeroed, as
 * sy_proven_diff reads them. */
static void sy_proven_copy(const uint64_t *fields, uint64_t *w,
			   const struct sy_br *br, unsigned m)
{
	const unsigned char *r = (const unsigned char *)br;
	sy_proven_v *e = (sy_proven_v *)w;
	unsigned k = 0;

	for (; k + 1 < m; k += 2, r += 48, e += 3)
		sy_proven_load2(r, (const sy_proven_v *)fields, e);
	if (k < m)
		sy_proven_load1(r, fields, &w[3 * k]);
}

void sy_proven_put(struct sy_proven *p, const struct sy_br *br, unsigned n,
		   unsigned nctx, const uint8_t *flow, unsigned nflow,
		   const uint8_t *land)
{
	size_t at = sy_proven_slot(br, n, nctx);
	/* the older way takes it and becomes the newer one (moving the
	 * newer one's sequence there, a copy of up to 3 KB, was most of a
	 * put on code that does not loop) */
	size_t k = at + (p->newer[at / 2] ^ 1u);
	struct sy_proven_seq *s = &p->v[k];

	p->newer[at / 2] ^= 1;
	p->filled[k / 64] |= 1ull << (k % 64);
	p->tag[k] = sy_proven_tag(br->from, n, nctx);
	sy_proven_copy(p->fields, s->w, br, n + nctx);
	s->n = (uint8_t)n;
	s->nctx = (uint8_t)nctx;
	s->nflow = (uint8_t)nflow;
	/* (memcpy's pointers must be valid even for no bytes) */
	if (nflow)
		memcpy(s->flow, flow, nflow);
	if (n)
		memcpy(s->land, land, n);
}
