#include "comms.h"

#include <stdlib.h>
#include <string.h>

#include "sy_error.h"
#include "sy_vec.h"

void sy_comms_init(struct sy_comms *c)
{
	memset(c, 0, sizeof(*c));
}

void sy_comms_fini(struct sy_comms *c)
{
	free(c->pids);
	free(c->names);
	sy_hindex_fini(&c->ix);
	sy_comms_init(c);
}

static uint64_t sy_comms_hash(uint32_t pid)
{
	return sy_hash_u64(pid);
}

static uint64_t sy_comms_hash_of(const void *ctx, size_t i)
{
	return sy_comms_hash(((const struct sy_comms *)ctx)->pids[i].pid);
}

/* @pid's entry, or NULL; *@slot: where it goes when new. */
static struct sy_comm_pid *sy_comms_pid(const struct sy_comms *c,
					uint32_t pid, size_t *slot)
{
	size_t j;
	uint32_t e;

	if (!c->ix.cap)
		return NULL;
	for (j = sy_hindex_first(&c->ix, sy_comms_hash(pid));
	     (e = sy_hindex_at(&c->ix, j)); j = sy_hindex_next(&c->ix, j))
		if (c->pids[e - 1].pid == pid)
			return &c->pids[e - 1];
	if (slot)
		*slot = j;
	return NULL;
}

const char *sy_comms_get(const struct sy_comms *c, uint32_t pid,
			 uint64_t time)
{
	const struct sy_comm_pid *p = sy_comms_pid(c, pid, NULL);
	const struct sy_comm *n;

	if (!p || p->newest == UINT32_MAX)
		return NULL;
	/* newest first: the first at or before @time, else the oldest */
	for (n = &c->names[p->newest]; n->time > time && n->older;
	     n = &c->names[n->older - 1])
		;
	return n->comm;
}

/* A new entry for @pid (no name yet: newest UINT32_MAX). */
static struct sy_comm_pid *sy_comms_add_pid(struct sy_comms *c, uint32_t pid)
{
	size_t j = 0;
	struct sy_comm_pid *p;

	if (sy_hindex_reserve(&c->ix, c->nr_pids + 1, 64, sy_comms_hash_of,
			      c) ||
	    sy_grow((void **)&c->pids, &c->cap_pids, c->nr_pids,
		    sizeof(*c->pids)))
		return NULL;
	/* (the reserve may have placed the entries again: look anew) */
	sy_comms_pid(c, pid, &j);
	p = &c->pids[c->nr_pids];
	p->pid = pid;
	p->newest = UINT32_MAX;
	sy_hindex_set(&c->ix, j, c->nr_pids++);
	return p;
}

int sy_comms_set(struct sy_comms *c, uint32_t pid, uint64_t time,
		 const char *comm)
{
	struct sy_comm_pid *p = sy_comms_pid(c, pid, NULL);
	uint32_t newer = 0, at;	/* names + 1, 0: none */
	struct sy_comm *n;

	if (!p && !(p = sy_comms_add_pid(c, pid)))
		return -SY_E_NOMEM;
	/* its place: after the newest name at or before @time (a record
	 * read after a later one, as a round's may be; at one time, the
	 * one read last holds) */
	at = p->newest == UINT32_MAX ? 0 : p->newest + 1;
	while (at && c->names[at - 1].time > time) {
		newer = at;
		at = c->names[at - 1].older;
	}
	/* perf writes a COMM per thread, and again for each exec of the
	 * same program: a name the process already has then adds nothing */
	if (at && !strncmp(c->names[at - 1].comm, comm, sizeof(n->comm) - 1))
		return 0;
	if (c->nr_names >= UINT32_MAX - 1 ||
	    sy_grow((void **)&c->names, &c->cap_names, c->nr_names,
		    sizeof(*c->names)))
		return -SY_E_NOMEM;
	n = &c->names[c->nr_names];
	memset(n, 0, sizeof(*n));
	n->time = time;
	n->older = at;
	strncpy(n->comm, comm, sizeof(n->comm) - 1);
	if (newer)
		c->names[newer - 1].older = (uint32_t)c->nr_names + 1;
	else
		p->newest = (uint32_t)c->nr_names;
	c->nr_names++;
	return 0;
}

int sy_comms_fork(struct sy_comms *c, uint32_t child, uint32_t parent,
		  uint64_t time)
{
	const char *name = sy_comms_get(c, parent, time);
	char copy[sizeof(c->names->comm)];

	if (!name || child == parent)
		return 0;
	/* (set may move the names @name points into) */
	memcpy(copy, name, sizeof(copy));
	return sy_comms_set(c, child, time, copy);
}
