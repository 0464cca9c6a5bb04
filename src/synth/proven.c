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

/* The bytes of two records that are their fields, as words: what the
 * ring holds in the others (padding) is never compared. */
static void sy_proven_fields_init(uint64_t *fields)
{
	struct sy_br m[2];

	memset(m, 0, sizeof(m));
	for (int i = 0; i < 2; i++) {
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
	p->v = calloc(SY_PROVEN_SEQS, sizeof(*p->v));
	return p->v ? 0 : -SY_E_NOMEM;
}

void sy_proven_fini(struct sy_proven *p)
{
	free(p->v);
	p->v = NULL;
}

void sy_proven_clear(struct sy_proven *p)
{
	/* an entry is only read when its n says so */
	for (size_t i = 0; p->v && i < SY_PROVEN_SEQS; i++)
		p->v[i].n = 0;
}

/* The place of a sequence (its two ways: even, and the odd after): from
 * its newest and oldest branches and the branch before it (a loop's
 * sequences mostly differ only where a window enters the loop), its
 * length and context; Fibonacci hashing, the product's top bits. */
static inline size_t sy_proven_slot(const struct sy_br *br, unsigned n,
				    unsigned nctx)
{
	const struct sy_br *old = &br[n - 1];
	uint64_t ctx = nctx ? br[n].from : 0;
	uint64_t x = (br->from ^ old->to) * SY_HASH_K2 ^ old->from ^ ctx ^
		     (n << 2 | nctx);

	return (size_t)((x * SY_HASH_GOLDEN) >> (64 - SY_PROVEN_SEQS_LOG2)) &
	       (SY_PROVEN_SEQS - 2);
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
		sy_proven_v a, b, c;

		memcpy(&a, r, 16);
		memcpy(&b, r + 16, 16);
		memcpy(&c, r + 32, 16);
		/* a is a source and a target: no padding to mask */
		acc |= (a ^ e[0]) | ((b & f[1]) ^ e[1]) | ((c & f[2]) ^ e[2]);
	}
	if (k < m) {
		uint64_t x[3];

		memcpy(x, r, sizeof(x));
		for (int i = 0; i < 3; i++)
			d |= (x[i] & fields[i]) ^ w[3 * k + i];
	}
	return d | acc[0] | acc[1];
}

/* Whether @s is the sequence @br (@n, @nctx). */
static inline int sy_proven_is(const struct sy_proven *p,
			       const struct sy_proven_seq *s,
			       const struct sy_br *br, unsigned n,
			       unsigned nctx)
{
	return s->n == n && s->nctx == nctx && s->w[0] == br->from &&
	       !sy_proven_diff(p->fields, s->w, br, n + nctx);
}

const struct sy_proven_seq *sy_proven_find(struct sy_proven *p,
					   const struct sy_br *br, unsigned n,
					   unsigned nctx)
{
	const struct sy_proven_seq *s = &p->v[sy_proven_slot(br, n, nctx)];

	/* two ways: the newer first */
	if (sy_proven_is(p, s, br, n, nctx) ||
	    sy_proven_is(p, ++s, br, n, nctx)) {
		p->hits++;
		return s;
	}
	p->misses++;
	return NULL;
}

void sy_proven_put(struct sy_proven *p, const struct sy_br *br, unsigned n,
		   unsigned nctx, const uint8_t *flow, unsigned nflow,
		   const uint8_t *land)
{
	struct sy_proven_seq *s = &p->v[sy_proven_slot(br, n, nctx)];

	/* the newer way's sequence becomes the older one */
	if (s->n)
		s[1] = s[0];
	memcpy(s->w, br, (n + nctx) * sizeof(*br));
	for (unsigned i = 0; i < 3 * (n + nctx); i++)
		s->w[i] &= p->fields[i % 3];
	s->n = (uint8_t)n;
	s->nctx = (uint8_t)nctx;
	s->nflow = (uint8_t)nflow;
	/* (memcpy's pointers must be valid even for no bytes) */
	if (nflow)
		memcpy(s->flow, flow, nflow);
	if (n)
		memcpy(s->land, land, n);
}
