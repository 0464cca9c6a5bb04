/* Merging identical samples (sy_profgen.h).  Keys are the frames and the
 * branch pairs laid end to end; entries keep their first-seen order.
 *
 * Both the aggregation and a job's sample log (sy_agg_log) keep their keys
 * in a table of their own (struct sy_agg_tab): the log deduplicates where
 * the samples are made, so that the aggregation later reads each distinct
 * key once per log instead of every sample's branches. */
#include <stdlib.h>
#include <string.h>

#include "sy_hash.h"
#include "sy_profgen.h"

struct sy_agg_ent {
	uint64_t hash;
	size_t off;		/* key in the arena: u64 words */
	uint32_t nr_frames, nr_stack;
	uint64_t count;
};

/* A key to look up or add: frames, then the branches either as they are
 * (@stack) or as the key's own from/to words (@pairs). */
struct sy_agg_key {
	uint64_t hash;
	const uint64_t *frames;
	uint32_t nr_frames, nr_stack;
	const struct sy_br *stack;
	const uint64_t *pairs;
};

/* Distinct keys in first-seen order, found through open addressing. */
struct sy_agg_tab {
	uint64_t *arena;
	size_t used, cap;	/* u64 words */
	struct sy_agg_ent *ents; /* first-seen order */
	size_t nr, cap_ents;
	struct sy_hindex ix;	/* key -> ents[] */
	size_t arena0;		/* words the arena starts with */
};

struct sy_agg {
	struct sy_profgen *w;
	size_t budget;		/* bytes of keys before a flush */
	struct sy_agg_tab t;
	/* flushes so far: what a log's remembered entry index is valid for
	 * (sy_agg_add_logged) */
	uint64_t gen;
	struct sy_agg_stats st;
	struct sy_br *tmp;
	size_t tmp_cap;
};

/* What a log knows of one of its keys besides the key itself. */
struct sy_agg_logent {
	uint64_t lo, hi;	/* the smallest and largest of its words */
	uint64_t gen;		/* idx below is valid while the aggregation's
				 * gen is this, plus one (0: never) */
	size_t idx;		/* its entry in the aggregation */
};

struct sy_agg_log {
	struct sy_agg_tab t;
	struct sy_agg_logent *info; /* per entry of t */
	size_t cap_info;
	uint32_t *seq;		/* the samples: their entries, in order */
	size_t nr_seq, cap_seq;
};

static void sy_agg_tab_fini(struct sy_agg_tab *t)
{
	free(t->arena);
	free(t->ents);
	sy_hindex_fini(&t->ix);
	memset(t, 0, sizeof(*t));
}

static void sy_agg_tab_clear(struct sy_agg_tab *t)
{
	t->nr = 0;
	t->used = 0;
	sy_hindex_clear(&t->ix);
}

static uint64_t sy_agg_ent_hash(const void *ctx, size_t i)
{
	return ((const struct sy_agg_tab *)ctx)->ents[i].hash;
}

static int sy_agg_key_eq(const struct sy_agg_ent *e, const uint64_t *k,
			 const struct sy_agg_key *key)
{
	if (e->hash != key->hash || e->nr_frames != key->nr_frames ||
	    e->nr_stack != key->nr_stack ||
	    (key->nr_frames && memcmp(k, key->frames, key->nr_frames * 8)))
		return 0;
	k += key->nr_frames;
	if (key->pairs)
		return !key->nr_stack ||
		       !memcmp(k, key->pairs, key->nr_stack * 16);
	for (uint32_t i = 0; i < key->nr_stack; i++)
		if (k[2 * i] != key->stack[i].from ||
		    k[2 * i + 1] != key->stack[i].to)
			return 0;
	return 1;
}

/* The entry holding @key (its index), or -1 with *@slot where it goes.
 * The table has room (sy_agg_tab_room). */
static long sy_agg_tab_find(const struct sy_agg_tab *t,
			    const struct sy_agg_key *key, size_t *slot)
{
	size_t j = sy_hindex_first(&t->ix, key->hash);
	uint32_t e;

	for (; (e = sy_hindex_at(&t->ix, j)); j = sy_hindex_next(&t->ix, j)) {
		size_t i = e - 1;

		if (sy_agg_key_eq(&t->ents[i], t->arena + t->ents[i].off, key))
			return (long)i;
	}
	*slot = j;
	return -1;
}

/* Room in the table for one more entry. */
static int sy_agg_tab_room(struct sy_agg_tab *t)
{
	return sy_hindex_reserve(&t->ix, t->nr + 1, 1024, sy_agg_ent_hash, t);
}

static size_t sy_agg_key_words(const struct sy_agg_key *key)
{
	return key->nr_frames + 2 * (size_t)key->nr_stack;
}

/* Adds @key as a new entry at @slot (from sy_agg_tab_find), count 1. */
static int sy_agg_tab_insert(struct sy_agg_tab *t, size_t slot,
			     const struct sy_agg_key *key)
{
	size_t words = sy_agg_key_words(key);

	/* (an empty key still needs an arena to point into) */
	if (!t->arena || t->used + words > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 :
				 t->arena0 ? t->arena0 : 1024;
		while (ncap < t->used + words)
			ncap *= 2;
		uint64_t *n = realloc(t->arena, ncap * 8);
		if (!n)
			return -SY_E_NOMEM;
		t->arena = n;
		t->cap = ncap;
	}
	if (t->nr == t->cap_ents) {
		size_t ncap = t->cap_ents ? t->cap_ents * 2 : 1024;
		struct sy_agg_ent *n = realloc(t->ents, ncap * sizeof(*n));
		if (!n)
			return -SY_E_NOMEM;
		t->ents = n;
		t->cap_ents = ncap;
	}
	uint64_t *k = t->arena + t->used;
	if (key->nr_frames)
		memcpy(k, key->frames, key->nr_frames * 8);
	k += key->nr_frames;
	if (key->pairs && key->nr_stack)
		memcpy(k, key->pairs, key->nr_stack * 16);
	for (uint32_t i = 0; !key->pairs && i < key->nr_stack; i++) {
		k[2 * i] = key->stack[i].from;
		k[2 * i + 1] = key->stack[i].to;
	}
	t->ents[t->nr] = (struct sy_agg_ent){ key->hash, t->used,
					      key->nr_frames, key->nr_stack,
					      1 };
	sy_hindex_set(&t->ix, slot, t->nr);
	t->nr++;
	t->used += words;
	return 0;
}

int sy_agg_new(struct sy_agg **out, struct sy_profgen *w, size_t budget)
{
	struct sy_agg *a = calloc(1, sizeof(*a));

	if (!a)
		return -SY_E_NOMEM;
	a->w = w;
	a->budget = budget ? budget : (size_t)256 << 20;
	a->t.arena0 = 65536;
	*out = a;
	return 0;
}

void sy_agg_free(struct sy_agg *a)
{
	if (!a)
		return;
	sy_agg_tab_fini(&a->t);
	free(a->tmp);
	free(a);
}

const struct sy_agg_stats *sy_agg_stats(const struct sy_agg *a)
{
	return &a->st;
}

int sy_agg_flush(struct sy_agg *a)
{
	struct sy_agg_tab *t = &a->t;
	int err = 0;

	for (size_t i = 0; i < t->nr && !err; i++) {
		const struct sy_agg_ent *e = &t->ents[i];
		const uint64_t *k = t->arena + e->off;

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
	sy_agg_tab_clear(t);
	a->gen++;
	return err;
}

int sy_agg_mmap_bid(struct sy_agg *a, uint32_t pid, uint32_t tid,
		    uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path, const uint8_t *bid, size_t bid_len)
{
	int err = 0;

	if (a->t.nr && sy_profgen_mmap_conflicts(a->w, start, len, pgoff, path))
		err = sy_agg_flush(a);
	if (!err)
		err = sy_profgen_mmap_bid(a->w, pid, tid, start, len, pgoff,
					  path, bid, bid_len);
	return err;
}

/* The key's hash, in four independent lanes: a sample of a whole-trace
 * conversion is 64 branches, and one chain of multiplies over its 130
 * words was a third of the walk thread's time.  Only the table's probe
 * order depends on it, never the output (entries keep first-seen order). */
static uint64_t sy_agg_hash(const uint64_t *frames, uint32_t nr_frames,
			    const struct sy_br *stack, uint32_t nr_stack)
{
	const uint64_t k1 = SY_HASH_GOLDEN, k2 = SY_HASH_K2;
	uint64_t l[4] = { nr_frames * k1, nr_stack * k2, k1, k2 };
	uint32_t i;

	for (i = 0; i < nr_frames; i++)
		l[i & 1] = sy_hash_rotl((l[i & 1] ^ frames[i]) * k1, 29);
	for (i = 0; i + 1 < nr_stack; i += 2) {
		l[0] = sy_hash_rotl((l[0] ^ stack[i].from) * k1, 31);
		l[1] = sy_hash_rotl((l[1] ^ stack[i].to) * k2, 27);
		l[2] = sy_hash_rotl((l[2] ^ stack[i + 1].from) * k1, 33);
		l[3] = sy_hash_rotl((l[3] ^ stack[i + 1].to) * k2, 23);
	}
	if (i < nr_stack) {
		l[0] = sy_hash_rotl((l[0] ^ stack[i].from) * k1, 31);
		l[1] = sy_hash_rotl((l[1] ^ stack[i].to) * k2, 27);
	}
	return sy_hash_combine(sy_hash_combine(sy_hash_combine(l[0], l[1]), l[2]),
			       l[3]);
}

/* One sample of @key: counted in its entry, or a new entry (after a flush
 * when the budget is reached).  Sets *@idx to its entry. */
static int sy_agg_put(struct sy_agg *a, const struct sy_agg_key *key,
		      size_t *idx)
{
	size_t slot;
	long i;
	int err;

	a->st.samples++;
	if ((err = sy_agg_tab_room(&a->t)))
		return err;
	if ((i = sy_agg_tab_find(&a->t, key, &slot)) >= 0) {
		a->t.ents[i].count++;
		*idx = (size_t)i;
		return 0;
	}
	if ((a->t.used + sy_agg_key_words(key)) * 8 > a->budget && a->t.nr) {
		a->st.flushes++;
		if ((err = sy_agg_flush(a)))
			return err;
		a->st.samples--; /* counted again by the retry */
		return sy_agg_put(a, key, idx);
	}
	*idx = a->t.nr;
	return sy_agg_tab_insert(&a->t, slot, key);
}

int sy_agg_add(struct sy_agg *a, const uint64_t *frames, uint32_t nr_frames,
	       const struct sy_br *stack, uint32_t nr_stack)
{
	struct sy_agg_key key = {
		.hash = sy_agg_hash(frames, nr_frames, stack, nr_stack),
		.frames = frames, .nr_frames = nr_frames,
		.stack = stack, .nr_stack = nr_stack,
	};
	size_t idx;

	return sy_agg_put(a, &key, &idx);
}

/* --- a job's sample log --------------------------------------------------- */

int sy_agg_log_new(struct sy_agg_log **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -SY_E_NOMEM;
	/* a job's distinct samples are few on looping code (4 per job of the
	 * repeated real captures): a large first arena was mapped and
	 * unmapped per job, each unmap a TLB shootdown of the other core */
	(*out)->t.arena0 = 1024;
	return 0;
}

void sy_agg_log_free(struct sy_agg_log *l)
{
	if (!l)
		return;
	sy_agg_tab_fini(&l->t);
	free(l->info);
	free(l->seq);
	free(l);
}

int sy_agg_log_add(struct sy_agg_log *l, const uint64_t *frames,
		   uint32_t nr_frames, const struct sy_br *stack,
		   uint32_t nr_stack)
{
	struct sy_agg_key key = {
		.hash = sy_agg_hash(frames, nr_frames, stack, nr_stack),
		.frames = frames, .nr_frames = nr_frames,
		.stack = stack, .nr_stack = nr_stack,
	};
	size_t slot;
	long i;
	int err;

	if (l->nr_seq == l->cap_seq) {
		size_t ncap = l->cap_seq ? 2 * l->cap_seq : 1024;
		uint32_t *n = realloc(l->seq, ncap * sizeof(*n));

		if (!n)
			return -SY_E_NOMEM;
		l->seq = n;
		l->cap_seq = ncap;
	}
	if ((err = sy_agg_tab_room(&l->t)))
		return err;
	if ((i = sy_agg_tab_find(&l->t, &key, &slot)) < 0) {
		uint64_t lo = UINT64_MAX, hi = 0;

		if (l->t.nr == l->cap_info) {
			size_t ncap = l->cap_info ? 2 * l->cap_info : 1024;
			struct sy_agg_logent *n =
				realloc(l->info, ncap * sizeof(*n));

			if (!n)
				return -SY_E_NOMEM;
			l->info = n;
			l->cap_info = ncap;
		}
		for (uint32_t k = 0; k < nr_frames; k++) {
			lo = frames[k] < lo ? frames[k] : lo;
			hi = frames[k] > hi ? frames[k] : hi;
		}
		for (uint32_t k = 0; k < nr_stack; k++) {
			uint64_t a = stack[k].from, b = stack[k].to;

			lo = a < lo ? a : lo;
			lo = b < lo ? b : lo;
			hi = a > hi ? a : hi;
			hi = b > hi ? b : hi;
		}
		i = (long)l->t.nr;
		if ((err = sy_agg_tab_insert(&l->t, slot, &key)))
			return err;
		l->info[i] = (struct sy_agg_logent){ lo, hi, 0, 0 };
	}
	l->seq[l->nr_seq++] = (uint32_t)i;
	return 0;
}

size_t sy_agg_log_samples(const struct sy_agg_log *l)
{
	return l ? l->nr_seq : 0;
}

void sy_agg_log_sample(const struct sy_agg_log *l, size_t i,
		       struct sy_agg_logged *out)
{
	uint32_t e = l->seq[i];
	const struct sy_agg_ent *ent = &l->t.ents[e];

	out->words = l->t.arena + ent->off;
	out->nr_frames = ent->nr_frames;
	out->nr_stack = ent->nr_stack;
	out->lo = l->info[e].lo;
	out->hi = l->info[e].hi;
}

int sy_agg_add_logged(struct sy_agg *a, struct sy_agg_log *l, size_t i)
{
	uint32_t e = l->seq[i];
	struct sy_agg_logent *in = &l->info[e];
	const struct sy_agg_ent *ent = &l->t.ents[e];
	struct sy_agg_key key;
	int err;

	/* the entry this key went to before, unless a flush emptied the
	 * table since: what the lookup would find */
	if (in->gen == a->gen + 1) {
		a->st.samples++;
		a->t.ents[in->idx].count++;
		return 0;
	}
	key = (struct sy_agg_key){
		.hash = ent->hash,
		.frames = l->t.arena + ent->off, .nr_frames = ent->nr_frames,
		.pairs = l->t.arena + ent->off + ent->nr_frames,
		.nr_stack = ent->nr_stack,
	};
	if ((err = sy_agg_put(a, &key, &in->idx)))
		return err;
	in->gen = a->gen + 1;
	return 0;
}
