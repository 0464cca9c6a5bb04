/* Attrs and the map from sample ids to attrs (perf's rules: the id's place
 * in a sample depends on sample_type, IDENTIFIER puts it first). */
#include <inttypes.h>
#include <stdlib.h>

#include "reader_impl.h"
#include "sy_bytes.h"

static int sy_id_pos(uint64_t t)
{
	if (t & SY_SAMPLE_IDENTIFIER)
		return 0;
	if (!(t & SY_SAMPLE_ID))
		return -1;
	return !!(t & SY_SAMPLE_IP) + !!(t & SY_SAMPLE_TID) +
	       !!(t & SY_SAMPLE_TIME) + !!(t & SY_SAMPLE_ADDR);
}

static int sy_is_pos(uint64_t t)
{
	if (t & SY_SAMPLE_IDENTIFIER)
		return 1;
	if (!(t & SY_SAMPLE_ID))
		return -1;
	return 1 + !!(t & SY_SAMPLE_CPU) + !!(t & SY_SAMPLE_STREAM_ID);
}

static uint64_t sy_id_hash(const void *ctx, size_t i)
{
	return sy_hash_u64(((const struct sy_idmap *)ctx)->keys[i]);
}

static int sy_idmap_put(struct sy_idmap *m, uint64_t id, uint32_t val)
{
	size_t j;
	uint32_t e;

	if (!id)
		return 0;
	if (sy_hindex_reserve(&m->ix, m->n + 1, 64, sy_id_hash, m))
		return -SY_E_NOMEM;
	for (j = sy_hindex_first(&m->ix, sy_hash_u64(id));
	     (e = sy_hindex_at(&m->ix, j)); j = sy_hindex_next(&m->ix, j))
		if (m->keys[e - 1] == id)
			return 1; /* duplicate: the first attr keeps it */
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		uint64_t *nk = realloc(m->keys, ncap * sizeof(*nk));

		if (!nk)
			return -SY_E_NOMEM;
		m->keys = nk;
		uint32_t *nv = realloc(m->vals, ncap * sizeof(*nv));
		if (!nv)
			return -SY_E_NOMEM;
		m->vals = nv;
		m->cap = ncap;
	}
	m->keys[m->n] = id;
	m->vals[m->n] = val;
	sy_hindex_set(&m->ix, j, m->n++);
	return 0;
}

int sy_idmap_get(const struct sy_idmap *m, uint64_t id, uint32_t *val)
{
	size_t j;
	uint32_t e;

	if (!m->ix.cap || !id)
		return 0;
	for (j = sy_hindex_first(&m->ix, sy_hash_u64(id));
	     (e = sy_hindex_at(&m->ix, j)); j = sy_hindex_next(&m->ix, j))
		if (m->keys[e - 1] == id) {
			*val = m->vals[e - 1];
			return 1;
		}
	return 0;
}

/* Adds an attr decoded from @p (@len bytes of attr) with @nr_ids ids read
 * from @ids.  @off is for messages. */
int sy_perf_add_attr(struct sy_perf_reader *r, const uint8_t *p, size_t len,
		       const uint8_t *ids, uint64_t nr_ids, uint64_t off)
{
	struct sy_perf_attr *a;
	uint64_t *idv = NULL;

	if (r->nr_attrs == r->cap_attrs) {
		uint32_t ncap = r->cap_attrs ? r->cap_attrs * 2 : 8;
		struct sy_perf_attr **na =
			realloc(r->attrs, ncap * sizeof(*na));
		if (!na)
			return -SY_E_NOMEM;
		r->attrs = na;
		r->cap_attrs = ncap;
	}
	a = sy_arena_alloc(&r->arena, sizeof(*a));
	if (!a)
		return -SY_E_NOMEM;
	if (sy_perf_attr_decode(a, p, len))
		return sy_diag_set(&r->diag, off, -SY_E_BAD_ATTR,
				   "attr %u is only %zu bytes", r->nr_attrs,
				   len);
	if (nr_ids) {
		idv = sy_arena_alloc(&r->arena, nr_ids * 8);
		if (!idv)
			return -SY_E_NOMEM;
		for (uint64_t i = 0; i < nr_ids; i++) {
			idv[i] = sy_le64(ids + i * 8);
			int dup = sy_idmap_put(&r->idmap, idv[i], r->nr_attrs);
			if (dup < 0)
				return dup;
			if (dup)
				sy_perf_warn(r, -SY_E_BAD_ATTR, off,
					     "attr %u repeats event id %" PRIu64
					     " of an earlier attr",
					     r->nr_attrs, idv[i]);
		}
	}
	a->ids = idv;
	a->nr_ids = (uint32_t)nr_ids;
	a->index = r->nr_attrs;
	/* reported here, once: a sample of this attr cannot be parsed */
	if (a->sample_type & ~SY_SAMPLE_KNOWN_MASK)
		sy_perf_warn(r, -SY_E_BAD_ATTR, off,
			     "attr %u: unknown sample_type bits %#" PRIx64
			     "; its samples are skipped", r->nr_attrs,
			     (uint64_t)(a->sample_type & ~SY_SAMPLE_KNOWN_MASK));

	int ip = sy_id_pos(a->sample_type), sp = sy_is_pos(a->sample_type);
	if (r->nr_attrs == 0) {
		r->id_pos = ip;
		r->is_pos = sp;
	} else if (ip != r->id_pos || sp != r->is_pos) {
		/* perf refuses such files too (evlist__valid_sample_type):
		 * without a common id position no record can be attributed */
		return sy_diag_set(&r->diag, off, -SY_E_BAD_ATTR,
				   "attr %u keeps its sample id at another "
				   "position than attr 0", r->nr_attrs);
	}
	r->attrs[r->nr_attrs++] = a;
	return 0;
}

void sy_perf_apply_event_names(struct sy_perf_reader *r)
{
	for (uint32_t i = 0; i < r->fst.nr_descs; i++) {
		const struct sy_event_desc *d = &r->fst.descs[i];
		uint32_t idx;

		if (d->has_id && sy_idmap_get(&r->idmap, d->first_id, &idx))
			r->attrs[idx]->name = d->name;
		else if (!d->has_id && i < r->nr_attrs && !r->attrs[i]->name)
			r->attrs[i]->name = d->name;
	}
}
