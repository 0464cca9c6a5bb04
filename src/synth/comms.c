#include "comms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sy_bsearch.h"
#include "sy_error.h"
#include "sy_vec.h"

void sy_comms_init(struct sy_comms *c)
{
	memset(c, 0, sizeof(*c));
}

void sy_comms_fini(struct sy_comms *c)
{
	free(c->v);
	sy_comms_init(c);
}

/* The slot of @pid, or where it goes (*@found 0). */
struct sy_comms_key {
	const struct sy_comms *c;
	uint32_t pid;
};

static int sy_comm_before(const void *ctx, size_t i)
{
	const struct sy_comms_key *k = ctx;

	return k->c->v[i].pid < k->pid;
}

static size_t sy_comms_find(const struct sy_comms *c, uint32_t pid,
			    int *found)
{
	struct sy_comms_key k = { c, pid };
	size_t lo = sy_partition_point(c->nr, sy_comm_before, &k);

	*found = lo < c->nr && c->v[lo].pid == pid;
	return lo;
}

int sy_comms_set(struct sy_comms *c, uint32_t pid, const char *comm)
{
	int found;
	size_t i = sy_comms_find(c, pid, &found);

	if (!found) {
		if (sy_grow((void **)&c->v, &c->cap, c->nr, sizeof(*c->v)))
			return -SY_E_NOMEM;
		memmove(&c->v[i + 1], &c->v[i], (c->nr - i) * sizeof(*c->v));
		c->nr++;
		memset(&c->v[i], 0, sizeof(c->v[i]));
		c->v[i].pid = pid;
	}
	snprintf(c->v[i].comm, sizeof(c->v[i].comm), "%s", comm);
	return 0;
}

const char *sy_comms_get(const struct sy_comms *c, uint32_t pid)
{
	int found;
	size_t i = sy_comms_find(c, pid, &found);

	return found ? c->v[i].comm : NULL;
}
