/* The ETM backend's item queue: OpenCSD (or the fast path) pushes items as
 * it produces them, sy_decoder_next() pops them.
 *
 * Private to the ETM backend.  The ring grows when a producer ignores the
 * hint to wait (OpenCSD keeps calling after OCSD_RESP_WAIT for several trace
 * IDs at the end of trace), so a push never fails but for memory.  It also
 * counts every push, and can drop a given number of pushes: when the fast
 * path gives a unit up, the full decoder decodes the unit again from its
 * start and its first items, already handed out, are dropped here. */
#ifndef SY_ETM_RING_H
#define SY_ETM_RING_H

#include <stddef.h>
#include <stdint.h>

#include "sy_decode.h"

struct etm_ring {
	struct sy_dec_item *v;
	size_t cap;		/* a power of two, or 0 */
	size_t head, tail;	/* items ever pushed / popped */
	uint64_t pushed;	/* items pushed since the last clear */
	uint64_t skip;		/* pushes still to drop */
	uint64_t grows;		/* times the ring had to grow while full */
	int fatal;		/* -SY_E_NOMEM: a push was lost */
};

void sy_etm_ring_fini(struct etm_ring *r);
/* Empties the ring (counters included); it keeps its memory. */
void sy_etm_ring_clear(struct etm_ring *r);
/* Makes room for @n items without growing.  Returns 0 or -SY_E_NOMEM. */
int sy_etm_ring_reserve(struct etm_ring *r, size_t n);
/* The ring is full: doubles it.  Returns 0, or -SY_E_NOMEM with r->fatal
 * set. */
int sy_etm_ring_grow_full(struct etm_ring *r);

static inline size_t etm_ring_count(const struct etm_ring *r);

/* Appends an item: returns its slot, counted as pushed, for the caller to
 * fill in; NULL when the push is dropped (see skip) or memory ran out
 * (r->fatal set).  A slot rather than a copy: a branch item built on the
 * stack field by field and copied whole had its wide loads wait for its
 * narrow stores (store forwarding), an eighth of -j1's time on dense
 * trace. */
static inline struct sy_dec_item *etm_ring_put(struct etm_ring *r)
{
	if (r->fatal)
		return NULL;
	if (r->skip) {
		r->skip--;
		return NULL;
	}
	if (etm_ring_count(r) == r->cap && sy_etm_ring_grow_full(r) < 0)
		return NULL;
	r->pushed++;
	return &r->v[r->head++ & (r->cap - 1)];
}

static inline size_t etm_ring_count(const struct etm_ring *r)
{
	return r->head - r->tail;
}

/* Pops the oldest item into *@it; returns 0 when the ring is empty. */
static inline int etm_ring_pop(struct etm_ring *r, struct sy_dec_item *it)
{
	if (r->head == r->tail)
		return 0;
	*it = r->v[r->tail++ & (r->cap - 1)];
	return 1;
}

#endif
