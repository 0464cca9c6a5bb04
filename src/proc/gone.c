/* What exited, until the process table may forget it (see gone.h). */
#include "gone.h"

#include <stdlib.h>
#include <string.h>

#include "sy_error.h"
#include "sy_hash.h"
#include "sy_vec.h"

void sy_gone_init(struct sy_gone *g)
{
	memset(g, 0, sizeof(*g));
}

void sy_gone_fini(struct sy_gone *g)
{
	free(g->v);
	free(g->q);
	memset(g, 0, sizeof(*g));
}

static size_t sy_gone_home(const struct sy_gone *g, uint32_t id)
{
	return (size_t)((uint64_t)id * SY_HASH_GOLDEN >> 32) & (g->cap - 1);
}

static struct sy_gone_ent *sy_gone_find(const struct sy_gone *g, uint32_t id)
{
	if (!g->cap)
		return NULL;
	for (size_t i = sy_gone_home(g, id);; i = (i + 1) & (g->cap - 1)) {
		if (!g->v[i].id)
			return NULL;
		if (g->v[i].id == id + 1)
			return &g->v[i];
	}
}

/* Doubles the table (at most half full). */
static int sy_gone_rehash(struct sy_gone *g)
{
	size_t cap = g->cap ? 2 * g->cap : 64, old = g->cap;
	struct sy_gone_ent *v = calloc(cap, sizeof(*v)), *was = g->v;

	if (!v)
		return -SY_E_NOMEM;
	g->v = v;
	g->cap = cap;
	for (size_t i = 0; i < old; i++) {
		size_t j;

		if (!was[i].id)
			continue;
		for (j = sy_gone_home(g, was[i].id - 1); v[j].id;
		     j = (j + 1) & (cap - 1))
			;
		v[j] = was[i];
	}
	free(was);
	return 0;
}

struct sy_gone_ent *sy_gone_get(struct sy_gone *g, uint32_t id, int create)
{
	struct sy_gone_ent *e = sy_gone_find(g, id);
	size_t i;

	if (e || !create || id == UINT32_MAX)
		return e;
	if (2 * (g->nr + 1) > g->cap && sy_gone_rehash(g))
		return NULL;
	for (i = sy_gone_home(g, id); g->v[i].id; i = (i + 1) & (g->cap - 1))
		;
	memset(&g->v[i], 0, sizeof(g->v[i]));
	g->v[i].id = id + 1;
	g->nr++;
	return &g->v[i];
}

void sy_gone_erase(struct sy_gone *g, uint32_t id)
{
	struct sy_gone_ent *e = sy_gone_find(g, id);
	size_t i, j;

	if (!e)
		return;
	/* backward shift: each entry after the hole that may sit in it
	 * (its home is not between the hole and it) moves there */
	i = (size_t)(e - g->v);
	g->v[i].id = 0;
	g->nr--;
	for (j = (i + 1) & (g->cap - 1); g->v[j].id;
	     j = (j + 1) & (g->cap - 1)) {
		size_t h = sy_gone_home(g, g->v[j].id - 1);

		if (((j - h) & (g->cap - 1)) >= ((j - i) & (g->cap - 1))) {
			g->v[i] = g->v[j];
			g->v[j].id = 0;
			i = j;
		}
	}
}

void sy_gone_tidy(struct sy_gone *g, struct sy_gone_ent *e)
{
	if (e && !e->threads && !e->due && !e->leader_gone)
		sy_gone_erase(g, e->id - 1);
}

int sy_gone_due(struct sy_gone *g, struct sy_gone_ent *e,
		enum sy_gone_kind kind, uint64_t time)
{
	struct sy_gone_drop *d;

	if (sy_grow((void **)&g->q, &g->q_cap, g->q_nr, sizeof(*g->q)))
		return -SY_E_NOMEM;
	d = &g->q[g->q_nr++];
	d->time = time;
	d->seq = ++g->seq;
	d->id = e->id - 1;
	d->kind = (uint8_t)kind;
	e->due = d->seq;
	e->kind = (uint8_t)kind;
	return 0;
}

void sy_gone_cancel(struct sy_gone *g, uint32_t id)
{
	struct sy_gone_ent *e = sy_gone_find(g, id);

	if (e) {
		e->due = 0;
		e->kind = 0;
	}
}

uint64_t sy_gone_oldest(const struct sy_gone *g)
{
	return g->q_head < g->q_nr ? g->q[g->q_head].time : UINT64_MAX;
}

int sy_gone_pop(struct sy_gone *g, uint64_t upto, struct sy_gone_drop *d)
{
	if (g->q_head == g->q_nr || g->q[g->q_head].time > upto)
		return 0;
	*d = g->q[g->q_head++];
	sy_compact(g->q, &g->q_head, &g->q_nr, sizeof(*g->q));
	return 1;
}
