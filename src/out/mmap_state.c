/* MMAP2 lines in force (mmap_state.h). */
#include <stdlib.h>
#include <string.h>

#include "mmap_state.h"
#include "sy_error.h"
#include "sy_vec.h"

void sy_mmstate_init(struct sy_mmstate *s)
{
	memset(s, 0, sizeof(*s));
}

void sy_mmstate_fini(struct sy_mmstate *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++)
		free(s->ents[i].path);
	free(s->ents);
	memset(s, 0, sizeof(*s));
}

static struct sy_mmstate_ent *sy_mmstate_of(const struct sy_mmstate *s,
					     uint64_t pgoff, const char *path)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->ents[i].pgoff == pgoff && !strcmp(s->ents[i].path, path))
			return &s->ents[i];
	return NULL;
}

int sy_mmstate_in_force(const struct sy_mmstate *s, uint64_t start,
			uint64_t len, uint64_t pgoff, const char *path)
{
	const struct sy_mmstate_ent *e = sy_mmstate_of(s, pgoff, path);

	if (!e || e->start != start || e->end != start + len)
		return 0;
	/* a newer line of another binary over it hides part of it */
	for (size_t i = 0; i < s->nr; i++) {
		const struct sy_mmstate_ent *o = &s->ents[i];

		if (o->seq > e->seq && o->start < e->end && e->start < o->end)
			return 0;
	}
	return 1;
}

int sy_mmstate_conflicts(const struct sy_mmstate *s, uint64_t start,
			 uint64_t len, uint64_t pgoff, const char *path)
{
	if (sy_mmstate_in_force(s, start, len, pgoff, path))
		return 0;
	if (sy_mmstate_of(s, pgoff, path))
		return 1;
	for (size_t i = 0; i < s->nr; i++)
		if (s->ents[i].start < start + len && start < s->ents[i].end)
			return 1;
	return 0;
}

int sy_mmstate_note(struct sy_mmstate *s, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *path, uint64_t id)
{
	struct sy_mmstate_ent *e = sy_mmstate_of(s, pgoff, path);

	if (!e) {
		char *p = strdup(path);

		if (!p)
			return -SY_E_NOMEM;
		if (sy_grow((void **)&s->ents, &s->cap, s->nr,
			    sizeof(*s->ents))) {
			free(p);
			return -SY_E_NOMEM;
		}
		e = &s->ents[s->nr++];
		e->path = p;
		e->pgoff = pgoff;
	}
	e->start = start;
	e->end = start + len;
	e->id = id;
	e->seq = ++s->seq;
	return 0;
}

const struct sy_mmstate_ent *sy_mmstate_find(const struct sy_mmstate *s,
					     uint64_t addr)
{
	const struct sy_mmstate_ent *best = NULL;

	for (size_t i = 0; i < s->nr; i++) {
		const struct sy_mmstate_ent *e = &s->ents[i];

		if (addr >= e->start && addr < e->end &&
		    (!best || e->seq > best->seq))
			best = e;
	}
	return best;
}
