/* The ETM backend's item queue (see etm_ring.h). */
#include <stdlib.h>

#include "etm_ring.h"

static int ring_grow(struct etm_ring *r, size_t ncap)
{
	struct sy_dec_item *n = malloc(ncap * sizeof(*n));

	if (!n)
		return -SY_E_NOMEM;
	/* Linearise: items tail..head move to 0..count. */
	for (size_t i = 0; i < etm_ring_count(r); i++)
		n[i] = r->v[(r->tail + i) & (r->cap - 1)];
	r->head = etm_ring_count(r);
	r->tail = 0;
	free(r->v);
	r->v = n;
	r->cap = ncap;
	return 0;
}

void sy_etm_ring_fini(struct etm_ring *r)
{
	free(r->v);
	r->v = NULL;
	r->cap = 0;
}

void sy_etm_ring_clear(struct etm_ring *r)
{
	r->head = r->tail = 0;
	r->pushed = 0;
	r->skip = 0;
	r->grows = 0;
	r->fatal = 0;
}

int sy_etm_ring_reserve(struct etm_ring *r, size_t n)
{
	size_t cap = r->cap ? r->cap : 64;

	while (cap < n)
		cap *= 2;
	return cap == r->cap ? 0 : ring_grow(r, cap);
}

int sy_etm_ring_grow_full(struct etm_ring *r)
{
	if (ring_grow(r, r->cap ? 2 * r->cap : 64) < 0) {
		r->fatal = -SY_E_NOMEM;
		return r->fatal;
	}
	r->grows++;
	return 0;
}
