/* Merging identical samples (sy_profgen.h).  Keys are the frames and the
 * branch pairs laid end to end; entries keep their first-seen order. */
#include <stdlib.h>
#include <string.h>

#include "sy_profgen.h"

struct sy_agg_ent {
	uint64_t hash;
	size_t off;		/* key in the arena: u64 words */
	uint32_t nr_frames, nr_stack;
	uint64_t count;
};

struct sy_agg {
	struct sy_profgen *w;
	size_t budget;		/* bytes of keys before a flush */
	uint64_t *arena;
	size_t used, cap;	/* u64 words */
	struct sy_agg_ent *ents; /* first-seen order */
	size_t nr, cap_ents;
	uint32_t *table;	/* open addressing: entry index + 1, 0 empty */
	size_t tcap;
	struct sy_agg_stats st;
	struct sy_br *tmp;
	size_t tmp_cap;
};

int sy_agg_new(struct sy_agg **out, struct sy_profgen *w, size_t budget)
{
	struct sy_agg *a = calloc(1, sizeof(*a));

	if (!a)
		return -SY_E_NOMEM;
	a->w = w;
	a->budget = budget ? budget : (size_t)256 << 20;
	*out = a;
	return 0;
}

void sy_agg_free(struct sy_agg *a)
{
	if (!a)
		return;
	free(a->arena);
	free(a->ents);
	free(a->table);
	free(a->tmp);
	free(a);
}

const struct sy_agg_stats *sy_agg_stats(const struct sy_agg *a)
{
	return &a->st;
}

static uint64_t sy_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

int sy_agg_flush(struct sy_agg *a)
{
	int err = 0;

	for (size_t i = 0; i < a->nr && !err; i++) {
		const struct sy_agg_ent *e = &a->ents[i];
		const uint64_t *k = a->arena + e->off;

		if (a->tmp_cap < e->nr_stack) {
			struct sy_br *n = realloc(a->tmp, e->nr_stack * sizeof(*n));
			if (!n)
				return -SY_E_NOMEM;
			a->tmp = n;
			a->tmp_cap = e->nr_stack;
		}
		for (uint32_t j = 0; j < e->nr_stack; j++) {
			a->tmp[j].from = k[e->nr_frames + 2 * j];
			a->tmp[j].to = k[e->nr_frames + 2 * j + 1];
			a->tmp[j].kind = 0;
		}
		err = sy_profgen_sample(a->w, e->count, k, e->nr_frames,
					a->tmp, e->nr_stack);
		a->st.unique++;
	}
	a->nr = 0;
	a->used = 0;
	if (a->table)
		memset(a->table, 0, a->tcap * sizeof(*a->table));
	return err;
}

static int sy_agg_grow_table(struct sy_agg *a)
{
	size_t ncap = a->tcap ? a->tcap * 2 : 1024;
	uint32_t *t = calloc(ncap, sizeof(*t));

	if (!t)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < a->nr; i++) {
		size_t j = a->ents[i].hash & (ncap - 1);
		while (t[j])
			j = (j + 1) & (ncap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(a->table);
	a->table = t;
	a->tcap = ncap;
	return 0;
}

static uint64_t sy_rotl(uint64_t v, unsigned r)
{
	return v << r | v >> (64 - r);
}

/* The key's hash, in four independent lanes: a sample of a whole-trace
 * conversion is 64 branches, and one chain of multiplies over its 130
 * words was a third of the walk thread's time.  Only the table's probe
 * order depends on it, never the output (entries keep first-seen order). */
static uint64_t sy_agg_hash(const uint64_t *frames, uint32_t nr_frames,
			    const struct sy_br *stack, uint32_t nr_stack)
{
	const uint64_t k1 = 0x9e3779b97f4a7c15ULL, k2 = 0xc2b2ae3d27d4eb4fULL;
	uint64_t l[4] = { nr_frames * k1, nr_stack * k2, k1, k2 };
	uint32_t i;

	for (i = 0; i < nr_frames; i++)
		l[i & 1] = sy_rotl((l[i & 1] ^ frames[i]) * k1, 29);
	for (i = 0; i + 1 < nr_stack; i += 2) {
		l[0] = sy_rotl((l[0] ^ stack[i].from) * k1, 31);
		l[1] = sy_rotl((l[1] ^ stack[i].to) * k2, 27);
		l[2] = sy_rotl((l[2] ^ stack[i + 1].from) * k1, 33);
		l[3] = sy_rotl((l[3] ^ stack[i + 1].to) * k2, 23);
	}
	if (i < nr_stack) {
		l[0] = sy_rotl((l[0] ^ stack[i].from) * k1, 31);
		l[1] = sy_rotl((l[1] ^ stack[i].to) * k2, 27);
	}
	return sy_mix(sy_mix(sy_mix(l[0], l[1]), l[2]), l[3]);
}

int sy_agg_add(struct sy_agg *a, const uint64_t *frames, uint32_t nr_frames,
	       const struct sy_br *stack, uint32_t nr_stack)
{
	size_t words = nr_frames + 2 * (size_t)nr_stack;
	uint64_t h = sy_agg_hash(frames, nr_frames, stack, nr_stack);
	int err;

	a->st.samples++;
	if ((a->nr + 1) * 2 > a->tcap && (err = sy_agg_grow_table(a)))
		return err;
	size_t j = h & (a->tcap - 1);
	for (; a->table[j]; j = (j + 1) & (a->tcap - 1)) {
		struct sy_agg_ent *e = &a->ents[a->table[j] - 1];
		const uint64_t *k = a->arena + e->off;
		int same = e->hash == h && e->nr_frames == nr_frames &&
			   e->nr_stack == nr_stack &&
			   (!nr_frames || !memcmp(k, frames, nr_frames * 8));

		for (uint32_t i = 0; same && i < nr_stack; i++)
			same = k[nr_frames + 2 * i] == stack[i].from &&
			       k[nr_frames + 2 * i + 1] == stack[i].to;
		if (same) {
			e->count++;
			return 0;
		}
	}
	if ((a->used + words) * 8 > a->budget && a->nr) {
		a->st.flushes++;
		err = sy_agg_flush(a);
		if (err)
			return err;
		a->st.samples--; /* counted again by the retry */
		return sy_agg_add(a, frames, nr_frames, stack, nr_stack);
	}
	if (a->used + words > a->cap) {
		size_t ncap = a->cap ? a->cap * 2 : 65536;
		while (ncap < a->used + words)
			ncap *= 2;
		uint64_t *n = realloc(a->arena, ncap * 8);
		if (!n)
			return -SY_E_NOMEM;
		a->arena = n;
		a->cap = ncap;
	}
	if (a->nr == a->cap_ents) {
		size_t ncap = a->cap_ents ? a->cap_ents * 2 : 1024;
		struct sy_agg_ent *n = realloc(a->ents, ncap * sizeof(*n));
		if (!n)
			return -SY_E_NOMEM;
		a->ents = n;
		a->cap_ents = ncap;
	}
	uint64_t *k = a->arena + a->used;
	if (nr_frames)
		memcpy(k, frames, nr_frames * 8);
	for (uint32_t i = 0; i < nr_stack; i++) {
		k[nr_frames + 2 * i] = stack[i].from;
		k[nr_frames + 2 * i + 1] = stack[i].to;
	}
	a->ents[a->nr] = (struct sy_agg_ent){ h, a->used, nr_frames,
					      nr_stack, 1 };
	a->table[j] = (uint32_t)a->nr + 1;
	a->nr++;
	a->used += words;
	return 0;
}
