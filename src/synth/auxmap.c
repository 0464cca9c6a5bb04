#include "auxmap.h"

#include <stdlib.h>
#include <string.h>

#include "sy_bsearch.h"
#include "sy_vec.h"

void sy_auxmap_init(struct sy_auxmap *m)
{
	memset(m, 0, sizeof(*m));
}

void sy_auxmap_fini(struct sy_auxmap *m)
{
	free(m->bufs);
	free(m->recs);
	free(m->units);
	sy_auxmap_init(m);
}

int sy_auxmap_add_buf(struct sy_auxmap *m, uint64_t aux_off, uint64_t size,
		      uint64_t file_off)
{
	if (sy_grow((void **)&m->bufs, &m->cap_bufs, m->nr_bufs,
		    sizeof(*m->bufs)))
		return -SY_E_NOMEM;
	m->bufs[m->nr_bufs].aux_off = aux_off;
	m->bufs[m->nr_bufs].size = size;
	m->bufs[m->nr_bufs].file_off = file_off;
	m->nr_bufs++;
	return 0;
}

int sy_auxmap_add_rec(struct sy_auxmap *m, const struct sy_auxrec *r)
{
	if (sy_grow((void **)&m->recs, &m->cap_recs, m->nr_recs,
		    sizeof(*m->recs)))
		return -SY_E_NOMEM;
	m->recs[m->nr_recs++] = *r;
	return 0;
}

static int sy_cmp_buf(const void *a, const void *b)
{
	const struct sy_auxbuf *x = a, *y = b;

	return x->aux_off < y->aux_off ? -1 : x->aux_off > y->aux_off;
}

void sy_auxmap_sort(struct sy_auxmap *m)
{
	if (m->nr_bufs)
		qsort(m->bufs, m->nr_bufs, sizeof(*m->bufs), sy_cmp_buf);
}

/* perf pads every AUXTRACE payload to 8 bytes but starts the next one where
 * the data ended: where two payloads overlap, the later one holds the real
 * bytes and the earlier one padding. */
uint64_t sy_auxmap_buf_end(const struct sy_auxmap *m, size_t i)
{
	uint64_t end = m->bufs[i].aux_off + m->bufs[i].size;

	if (i + 1 < m->nr_bufs && m->bufs[i + 1].aux_off < end &&
	    m->bufs[i + 1].aux_off >= m->bufs[i].aux_off)
		end = m->bufs[i + 1].aux_off;
	return end;
}

/* A file has one payload per AUXTRACE record (hundreds of thousands in a
 * long recording), so no scan from the start.  Steps back over earlier
 * payloads that still reach @a (overlapping payloads). */
struct sy_auxmap_key {
	const struct sy_auxmap *m;
	uint64_t off;
};

static int sy_buf_starts_at_or_below(const void *ctx, size_t i)
{
	const struct sy_auxmap_key *k = ctx;

	return k->m->bufs[i].aux_off <= k->off;
}

size_t sy_auxmap_first_buf(const struct sy_auxmap *m, uint64_t a)
{
	struct sy_auxmap_key k = { m, a };
	/* first payload starting after a */
	size_t lo = sy_partition_point(m->nr_bufs, sy_buf_starts_at_or_below,
				       &k);

	if (lo)
		lo--;
	while (lo && m->bufs[lo - 1].aux_off + m->bufs[lo - 1].size > a)
		lo--;
	return lo;
}

int sy_auxmap_covered(const struct sy_auxmap *m, uint64_t a, uint64_t b)
{
	uint64_t at = a;

	for (size_t i = sy_auxmap_first_buf(m, a); i < m->nr_bufs && at < b;
	     i++) {
		uint64_t end = sy_auxmap_buf_end(m, i);

		if (end <= at)
			continue;
		if (m->bufs[i].aux_off > at)
			return 0;
		at = end;
	}
	return at >= b;
}

int sy_auxmap_chunks(const struct sy_auxmap *m, const struct sy_perf_reader *r,
		     uint64_t a, uint64_t b, struct sy_dec_chunk **out,
		     int *lost)
{
	struct sy_dec_chunk *v = NULL;
	size_t nr = 0, cap = 0;
	uint64_t at = a;

	*out = NULL;
	for (size_t i = sy_auxmap_first_buf(m, a); i < m->nr_bufs && at < b;
	     i++) {
		const struct sy_auxbuf *bf = &m->bufs[i];
		uint64_t lo = bf->aux_off, hi = sy_auxmap_buf_end(m, i);
		const uint8_t *p;

		if (hi <= at || lo >= b)
			continue;
		if (lo > at)
			*lost = 1; /* a hole: a chunk never made it */
		if (lo < at)
			lo = at;
		if (hi > b)
			hi = b;
		p = sy_perf_bytes(r, bf->file_off + (lo - bf->aux_off), hi - lo);
		if (!p) {
			*lost = 1;
			continue;
		}
		if (sy_grow((void **)&v, &cap, nr, sizeof(*v))) {
			free(v);
			return -SY_E_NOMEM;
		}
		v[nr].data = p;
		v[nr].len = (size_t)(hi - lo);
		nr++;
		at = hi;
	}
	if (at < b)
		*lost = 1;
	*out = v;
	return (int)nr;
}

/* A gap (lost data, a chunk perf never wrote) ends a unit: the trace after
 * it must resynchronise, and splicing the two sides together would make up
 * control flow. */
int sy_auxmap_plan_units(struct sy_auxmap *m, int each_alone)
{
	int open = 0;

	free(m->units);
	m->nr_units = 0;
	m->units = calloc(m->nr_recs ? m->nr_recs : 1, sizeof(*m->units));
	if (!m->units)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < m->nr_recs; i++) {
		const struct sy_auxrec *r = &m->recs[i];

		if (!sy_auxmap_covered(m, r->aux_off, r->aux_off + r->size)) {
			open = 0;
			continue;
		}
		if (open && (r->aux_off != m->recs[i - 1].aux_off +
						  m->recs[i - 1].size ||
			     each_alone))
			open = 0;
		if (!open) {
			m->units[m->nr_units].first = i;
			m->nr_units++;
			open = 1;
		}
		m->units[m->nr_units - 1].last = i;
	}
	return 0;
}

struct sy_auxrec_key {
	const struct sy_auxrec *recs;
	uint64_t off;
};

static int sy_rec_ends_at_or_before(const void *ctx, size_t i)
{
	const struct sy_auxrec_key *k = ctx;

	return k->off >= k->recs[i].aux_off + k->recs[i].size;
}

size_t sy_auxmap_rec_at(const struct sy_auxmap *m, size_t first, size_t last,
			uint64_t off)
{
	struct sy_auxrec_key k = { m->recs + first, off };

	if (first >= last)
		return first;
	return first + sy_partition_point(last - first,
					  sy_rec_ends_at_or_before, &k);
}
