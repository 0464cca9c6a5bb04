/* The plausibility checks' memo (see pl_memo.h). */
#include "pl_memo.h"

#include <stdlib.h>
#include <string.h>

#include "sy_hash.h"

void sy_pl_memo_init(struct sy_pl_memo *m)
{
	memset(m, 0, sizeof(*m));
	m->v = calloc(SY_PL_MEMO_MIN, sizeof(*m->v));
	m->cap = m->v ? SY_PL_MEMO_MIN : 0;
}

void sy_pl_memo_fini(struct sy_pl_memo *m)
{
	free(m->v);
	m->v = NULL;
}

static uint64_t sy_pl_hash(uint8_t type, const void *img, const void *img2,
			   uint64_t a, uint64_t b)
{
	return sy_hash_u64((uint64_t)(uintptr_t)img ^
			   ((uint64_t)(uintptr_t)img2 << 7) ^
			   ((uint64_t)type << 56) ^ a * SY_HASH_GOLDEN ^
			   b * SY_HASH_K2);
}

static size_t sy_pl_slot(const struct sy_pl_memo *m,
			 const struct sy_pl_key *k)
{
	size_t mask = m->cap - 1;
	size_t i = sy_pl_hash(k->type, k->img, k->img2, k->a, k->b) & mask;

	for (;; i = (i + 1) & mask) {
		const struct sy_pl_memo_ent *e = &m->v[i];

		if (!e->type ||
		    (e->type == k->type && e->img == k->img &&
		     e->img2 == k->img2 && e->a == k->a && e->b == k->b))
			return i;
	}
}

const struct sy_pl_memo_ent *sy_pl_memo_get(struct sy_pl_memo *m,
					    const struct sy_pl_key *k)
{
	const struct sy_pl_memo_ent *e = &m->v[sy_pl_slot(m, k)];

	if (!e->type) {
		m->misses++;
		return NULL;
	}
	m->hits++;
	return e;
}

/* Twice the entries, the old ones moved over; 0, or -1 when there is no
 * memory for it (the table is then emptied instead, as at the cap). */
static int sy_pl_memo_grow(struct sy_pl_memo *m)
{
	struct sy_pl_memo old = *m;

	m->v = calloc(old.cap * 2, sizeof(*m->v));
	if (!m->v) {
		m->v = old.v;
		return -1;
	}
	m->cap = old.cap * 2;
	for (size_t i = 0; i < old.cap; i++)
		if (old.v[i].type) {
			const struct sy_pl_memo_ent *e = &old.v[i];
			const struct sy_pl_key k = { e->type, e->img, e->img2,
						     e->a, e->b };

			m->v[sy_pl_slot(m, &k)] = *e;
		}
	free(old.v);
	return 0;
}

uint8_t sy_pl_memo_put(struct sy_pl_memo *m, const struct sy_pl_key *k,
		       int verdict, const struct sy_insn *in)
{
	struct sy_pl_memo_ent *e;

	if (m->used >= m->cap / 4 * 3 &&
	    (m->cap >= SY_PL_MEMO_CAP || sy_pl_memo_grow(m))) {
		memset(m->v, 0, m->cap * sizeof(*m->v));
		m->used = 0;
	}
	e = &m->v[sy_pl_slot(m, k)];
	if (!e->type)
		m->used++;
	e->type = k->type;
	e->img = k->img;
	e->img2 = k->img2;
	e->a = k->a;
	e->b = k->b;
	e->verdict = (uint8_t)verdict;
	if (in)
		e->insn = *in;
	return e->verdict;
}
