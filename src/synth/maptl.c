/* The map timeline (maptl.h). */
#include <string.h>

#include "maptl.h"
#include "sy_error.h"
#include "sy_perf_reader.h"

void sy_maptl_init(struct sy_maptl *tl)
{
	memset(tl, 0, sizeof(*tl));
}

void sy_maptl_fini(struct sy_maptl *tl)
{
	for (size_t i = 0; i < tl->nr; i++)
		sy_proc_snap_put(tl->v[i].before);
	tl->nr = 0;
}

/* Whether [@lo, @hi) meets a code mapping of @as. */
static int sy_maptl_meets_code(const struct sy_aspace *as, uint64_t lo,
			       uint64_t hi)
{
	size_t n = as ? sy_aspace_nr_maps(as) : 0;

	for (size_t i = 0; i < n; i++) {
		const struct sy_map *m = sy_aspace_map(as, i);

		if (m->start >= hi)
			break;
		if (m->end > lo && (m->flags & SY_MAP_CODE))
			return 1;
	}
	return 0;
}

/* Whether record @ev replaces code the trace may already have run. */
static int sy_maptl_replaces(const struct sy_proc_table *t, uint32_t type,
			     const struct sy_event *ev)
{
	const struct sy_ev_mmap *m = &ev->u.mmap;
	const struct sy_aspace *as;
	uint64_t hi;

	if (type == SY_REC_COMM) {
		as = sy_proc_table_aspace(t, ev->u.comm.pid);
		return ev->u.comm.exec && as && sy_aspace_nr_maps(as);
	}
	if (type != SY_REC_MMAP && type != SY_REC_MMAP2)
		return 0;
	if (!m->len)
		return 0;
	hi = m->addr + m->len < m->addr ? UINT64_MAX : m->addr + m->len;
	return sy_maptl_meets_code(sy_proc_table_aspace(t, m->pid), m->addr,
				   hi);
}

int sy_maptl_note(struct sy_maptl *tl, struct sy_proc_table *t,
		  uint32_t type, const struct sy_event *ev, uint64_t time)
{
	struct sy_proc_snap *snap;

	if (!sy_maptl_replaces(t, type, ev))
		return 0;
	snap = sy_proc_table_snapshot(t);
	if (!snap)
		return -SY_E_NOMEM;
	if (tl->nr == SY_MAPTL_MAX) {
		sy_proc_snap_put(tl->v[0].before);
		memmove(tl->v, tl->v + 1, (tl->nr - 1) * sizeof(tl->v[0]));
		tl->nr--;
		tl->dropped++;
	}
	tl->v[tl->nr].time = time;
	tl->v[tl->nr].before = snap;
	tl->v[tl->nr].pid = type == SY_REC_COMM ? ev->u.comm.pid :
						  ev->u.mmap.pid;
	tl->nr++;
	return 0;
}

void sy_maptl_copy(struct sy_maptl *dst, const struct sy_maptl *src)
{
	*dst = *src;
	for (size_t i = 0; i < dst->nr; i++)
		sy_proc_snap_get(dst->v[i].before);
}

struct sy_proc_snap *sy_maptl_at(const struct sy_maptl *tl, uint64_t time)
{
	/* records come in file order, which is time order but for a few
	 * (per-CPU buffers): the first replacement after @time */
	for (size_t i = 0; i < tl->nr; i++)
		if (tl->v[i].time > time)
			return tl->v[i].before;
	return NULL;
}
