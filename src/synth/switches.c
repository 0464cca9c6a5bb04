#include "switches.h"

#include <stdlib.h>
#include <string.h>

#include "sy_bsearch.h"
#include "sy_error.h"
#include "sy_vec.h"

void sy_switches_init(struct sy_switches *sw)
{
	memset(sw, 0, sizeof(*sw));
}

void sy_switches_fini(struct sy_switches *sw)
{
	if (!sw)
		return;
	free(sw->v);
	memset(sw, 0, sizeof(*sw));
}

/* Entries at or before @time: the index after the last one (0: none). */
struct sy_switches_key {
	const struct sy_switches *sw;
	uint64_t time;
};

static int sy_switch_at_or_before(const void *ctx, size_t i)
{
	const struct sy_switches_key *k = ctx;

	return k->sw->v[i].time <= k->time;
}

static size_t sy_switches_upto(const struct sy_switches *sw, uint64_t time)
{
	struct sy_switches_key k = { sw, time };

	return sy_partition_point(sw->nr, sy_switch_at_or_before, &k);
}

int sy_switches_add(struct sy_switches *sw, uint64_t time, uint32_t pid,
		    uint32_t tid)
{
	size_t at;

	if (sy_grow((void **)&sw->v, &sw->cap, sw->nr, sizeof(*sw->v)))
		return -SY_E_NOMEM;
	/* records come in time order on one CPU; one that does not (a
	 * damaged file) still goes where its time says */
	at = sw->nr && sw->v[sw->nr - 1].time > time ?
		     sy_switches_upto(sw, time) :
		     sw->nr;
	memmove(&sw->v[at + 1], &sw->v[at], (sw->nr - at) * sizeof(*sw->v));
	sw->v[at].time = time;
	sw->v[at].pid = pid;
	sw->v[at].tid = tid;
	sw->nr++;
	sw->fed = 1;
	return 0;
}

int sy_switches_before(struct sy_switches *sw, uint32_t pid, uint32_t tid)
{
	/* the recording's first word on this CPU: the thread a switch-out
	 * takes off it had been running since before anything was recorded */
	if (sw->fed)
		return 0;
	return sy_switches_add(sw, 0, pid, tid);
}

const struct sy_switch *sy_switches_at(const struct sy_switches *sw,
				       uint64_t time)
{
	size_t n = sy_switches_upto(sw, time);

	return n ? &sw->v[n - 1] : NULL;
}

int sy_switches_pid(const struct sy_switches *sw, uint32_t tid,
		    uint32_t *pid)
{
	for (size_t i = sw->nr; i-- > 0;)
		if (sw->v[i].tid == tid) {
			*pid = sw->v[i].pid;
			return 1;
		}
	return 0;
}

/* The first entry lookups from @time on need: the last one before the
 * time of the entry in effect then. */
static size_t sy_switches_keep(const struct sy_switches *sw, uint64_t time)
{
	size_t n = sy_switches_upto(sw, time), m;

	if (!n || !sw->v[n - 1].time)
		return 0;
	m = sy_switches_upto(sw, sw->v[n - 1].time - 1);
	return m ? m - 1 : 0;
}

void sy_switches_trim(struct sy_switches *sw, uint64_t time)
{
	size_t k = sy_switches_keep(sw, time);

	if (!k)
		return;
	memmove(sw->v, &sw->v[k], (sw->nr - k) * sizeof(*sw->v));
	sw->nr -= k;
}

int sy_switches_copy(const struct sy_switches *sw, uint64_t time,
		     struct sy_switches *out)
{
	size_t k = sy_switches_keep(sw, time);

	sy_switches_init(out);
	if (k == sw->nr)
		return 0;
	out->v = malloc((sw->nr - k) * sizeof(*out->v));
	if (!out->v)
		return -SY_E_NOMEM;
	memcpy(out->v, &sw->v[k], (sw->nr - k) * sizeof(*out->v));
	out->nr = out->cap = sw->nr - k;
	out->fed = 1;
	return 0;
}
