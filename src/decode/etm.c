/* The ETMv4 / ETE backend behind sy_decode.h.
 *
 * Items come out of a ring (etm_ring.c) that the decode fills through the
 * converter (etm_conv.c), by one of two ways that give the same items:
 *  - the fast path (etm_fast.c): OpenCSD parses packets, our walk makes
 *    OpenCSD's elements of them over a block cache;
 *  - the full decode (etm_full.c): OpenCSD's decoder follows every
 *    instruction and hands its elements over.
 * This file owns what they share: the sources and their flow states, the
 * ring, the code cache in front of read_mem (code_cache.c), the counters.
 *
 * A window starts on the fast path unless params say SY_ETM_DECODER_FULL.
 * When the walk meets what it does not model it gives the window up
 * having handed out only what OpenCSD would have handed out by then, in
 * the same order (see etm_walk.c).  The full decoder then decodes the
 * window again from its first byte with fresh flow states, and the ring
 * drops as many of its items as were pushed already: what follows is the
 * full decoder's continuation of the same item stream.  Trace bytes are
 * not counted twice (sy_etm_feed_used).
 *
 * One decoder per thread; the only global state is OpenCSD's, behind
 * sy_etm_ocsd_lock().
 */
#include <stdlib.h>
#include <string.h>

#include "decoder_impl.h"
#include "etm.h"
#include "etm_fast.h"
#include "etm_full.h"
#include "etm_ocsd.h"

/* TRCCONFIGR bits perf synthesises from attr.config (perf-data.md 4.1). */
#define TRCCONFIGR_VMID (1u << 7)
#define TRCCONFIGR_VMIDOPT (1u << 15)

struct etm {
	struct sy_decoder *d;
	struct sy_code_cache code;
	struct etm_conv cv;
	struct etm_full full;
	struct etm_fast fast;
	int has_fast;		/* the fast path was built (not FULL) */
	int on_fast;		/* this window is on the fast path */
	const struct sy_dec_chunk *chunks;	/* this window */
	size_t nchunks;
	size_t soft;		/* ring items before WAIT, this window */
	size_t soft_next;	/* sy_etm_set_ring, applied at reset */
	int cache_next;		/* sy_etm_set_mem_cache, applied at reset */
	int done;		/* the window's items are all out */
	struct sy_etm_debug dbg;
};

/* Which sources get a decoder; -SY_E_INVALID for impossible params. */
static int pick_sources(const struct sy_etm_params *p, size_t *first,
			size_t *count)
{
	size_t match = SIZE_MAX;

	if (!p->sources || p->nr_sources == 0 || p->nr_sources > ETM_NR_IDS)
		return -SY_E_INVALID;
	for (size_t i = 0; i < p->nr_sources; i++) {
		uint8_t id = sy_etm_source_id(&p->sources[i]);

		if (p->formatted && (id == 0 || id > 0x6f))
			return -SY_E_INVALID;
		for (size_t j = 0; p->formatted && j < i; j++)
			if (sy_etm_source_id(&p->sources[j]) == id)
				return -SY_E_INVALID;
		if (p->trace_id && id == p->trace_id && match == SIZE_MAX)
			match = i;
	}
	if (p->trace_id) {
		if (match == SIZE_MAX)
			return -SY_E_INVALID;
		*first = match;
		*count = 1;
	} else if (!p->formatted) {
		/* One raw stream is one trace unit. */
		if (p->nr_sources != 1)
			return -SY_E_INVALID;
		*first = 0;
		*count = 1;
	} else {
		*first = 0;
		*count = p->nr_sources;
	}
	return 0;
}

/* The flow states of the @n sources @src, by trace ID. */
static int add_sources(struct etm_conv *cv,
		       const struct sy_etm_source *const *src, size_t n)
{
	cv->src = calloc(n, sizeof(*cv->src));
	if (!cv->src)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		uint8_t id = sy_etm_source_id(src[i]);

		if (id >= ETM_NR_IDS || cv->slot[id])
			return -SY_E_DECODE;
		cv->src[i].id = id;
		/* contextid2: a kernel at EL2 keeps the pid in
		 * CONTEXTIDR_EL2, which the trace unit reports as the
		 * VMID. */
		cv->src[i].pid_vmid =
			(src[i]->trcconfigr &
			 (TRCCONFIGR_VMID | TRCCONFIGR_VMIDOPT)) ==
			(TRCCONFIGR_VMID | TRCCONFIGR_VMIDOPT);
		cv->nsrc++;
		cv->slot[id] = (uint8_t)cv->nsrc;
	}
	return 0;
}

static void etm_fini(struct sy_decoder *d)
{
	struct etm *e = d->impl;

	if (!e)
		return;
	sy_etm_full_fini(&e->full);
	if (e->has_fast)
		sy_etm_fast_fini(&e->fast);
	sy_etm_ring_fini(&e->cv.ring);
	free(e->cv.src);
	free(e);
	d->impl = NULL;
}

static int etm_init(struct sy_decoder *d)
{
	const struct sy_etm_params *p = &d->params.u.etm;
	const struct sy_etm_source *chosen[ETM_NR_IDS];
	size_t first = 0, count = 0;
	struct etm *e;
	int err;

	if ((err = pick_sources(p, &first, &count)) < 0)
		return err;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -SY_E_NOMEM;
	e->full.dt = e->full.guard.dt = C_API_INVALID_TREE_HANDLE;
	d->impl = e;
	e->d = d;
	e->soft_next = SY_ETM_RING_DEFAULT;
	e->cache_next = 1;
	e->done = 1;
	sy_code_cache_init(&e->code, d->params.read_mem, d->params.mem_ctx);
	e->cv.code = &e->code;
	e->cv.ctxid = &d->ctxid;
	for (size_t i = 0; i < count; i++)
		chosen[i] = &p->sources[first + i];
	if ((err = add_sources(&e->cv, chosen, count)) < 0 ||
	    (err = sy_etm_full_init(&e->full, &e->cv, &e->dbg, &d->stats.bytes,
				 p->formatted, chosen, count)) < 0 ||
	    (err = sy_etm_ring_reserve(&e->cv.ring, 64)) < 0)
		goto fail;
	if (p->decoder != SY_ETM_DECODER_FULL) {
		e->has_fast = 1;
		err = sy_etm_fast_init(&e->fast, &e->cv, &e->dbg, &d->stats.bytes,
				    p->formatted, chosen, count);
		if (err < 0)
			goto fail;
	}
	return 0;
fail:
	etm_fini(d);
	return err;
}

static int etm_reset(struct sy_decoder *d, const struct sy_dec_chunk *chunks,
		     size_t nr_chunks, uint64_t report_from)
{
	struct etm *e = d->impl;
	size_t soft = e->soft_next;

	e->done = 1;
	sy_etm_conv_reset(&e->cv, report_from, d->seam);
	/* Room for a full ring plus what one element can add (a BRANCH, the
	 * held-back items, a STOP): growing later is only for OpenCSD
	 * ignoring a WAIT. */
	if (sy_etm_ring_reserve(&e->cv.ring, soft + ETM_DEFER_MAX + 8) < 0)
		return -SY_E_NOMEM;
	memset(&e->dbg, 0, sizeof(e->dbg));
	e->code.on = e->cache_next;
	sy_code_cache_clear(&e->code);
	e->chunks = chunks;
	e->nchunks = nr_chunks;
	e->soft = soft;
	e->on_fast = e->has_fast;
	if (e->on_fast)
		sy_etm_fast_reset(&e->fast, chunks, nr_chunks);
	else
		sy_etm_full_reset(&e->full, chunks, nr_chunks, soft);
	e->done = 0;
	return 0;
}

/* The fast path gave the window up: the full decoder takes it over from
 * its first byte (see the top of the file). */
static void fall_back(struct etm *e)
{
	uint64_t counted = e->fast.feed.counted;

	e->dbg.fallbacks++;
	e->dbg.fallback_why = e->fast.why;
	e->dbg.fallback_off = e->fast.why_off;
	e->d->stats.fallbacks++;
	sy_etm_conv_restart(&e->cv);
	e->cv.ring.skip = e->cv.ring.pushed;
	sy_etm_full_reset(&e->full, e->chunks, e->nchunks, e->soft);
	e->full.feed.counted = counted;
	e->on_fast = 0;
}

/* One step of the window's decode; sets e->done after its last item.
 * Called with the ring empty: no item points into a run any more. */
static void step(struct etm *e)
{
	if (e->has_fast)
		etm_runs_unpin(&e->fast.runs);
	if (e->on_fast) {
		if (e->fast.why) {
			fall_back(e);
		} else if (e->fast.done) {
			e->d->stats.fast_units++;
			e->done = 1;
		} else {
			sy_etm_fast_pump(&e->fast);
		}
		return;
	}
	if (e->full.done) {
		e->d->stats.full_units++;
		e->done = 1;
		return;
	}
	sy_etm_full_pump(&e->full);
}

static int etm_next(struct sy_decoder *d, struct sy_dec_item *it)
{
	struct etm *e = d->impl;

	for (;;) {
		if (e->cv.ring.fatal)
			return e->cv.ring.fatal;
		if (etm_ring_pop(&e->cv.ring, it))
			return 0;
		if (e->done) {
			d->seam_out = e->cv.seam;
			return -SY_E_EOS;
		}
		step(e);
	}
}

/* The ring's oldest items, as far as they lie in one piece. */
static int etm_peek(struct sy_decoder *d, struct sy_dec_item **items,
		    size_t *n)
{
	struct etm *e = d->impl;
	struct etm_ring *r = &e->cv.ring;

	for (;;) {
		size_t have, at;

		if (r->fatal)
			return r->fatal;
		if ((have = etm_ring_count(r))) {
			at = r->tail & (r->cap - 1);
			*items = &r->v[at];
			*n = have < r->cap - at ? have : r->cap - at;
			return 0;
		}
		if (e->done) {
			d->seam_out = e->cv.seam;
			return -SY_E_EOS;
		}
		step(e);
	}
}

static void etm_advance(struct sy_decoder *d, size_t k)
{
	struct etm *e = d->impl;

	e->cv.ring.tail += k;
}

const struct sy_decoder_ops sy_etm_decoder_ops = {
	.init = etm_init,
	.fini = etm_fini,
	.reset = etm_reset,
	.next = etm_next,
	.peek = etm_peek,
	.advance = etm_advance,
};

/* ---- knobs (etm.h) ---- */

static struct etm *etm_of(const struct sy_decoder *d)
{
	return d && d->ops == &sy_etm_decoder_ops ? d->impl : NULL;
}

int sy_etm_set_ring(struct sy_decoder *d, size_t items)
{
	struct etm *e = etm_of(d);

	if (!e || items == 0)
		return -SY_E_INVALID;
	e->soft_next = items;
	return 0;
}

int sy_etm_set_mem_cache(struct sy_decoder *d, int on)
{
	struct etm *e = etm_of(d);

	if (!e)
		return -SY_E_INVALID;
	e->cache_next = !!on;
	return 0;
}

int sy_etm_renew(struct sy_decoder *d)
{
	struct etm *e = etm_of(d);
	const struct sy_etm_params *p;
	const struct sy_etm_source *chosen[ETM_NR_IDS];
	size_t first = 0, count = 0;
	int err;

	if (!e)
		return -SY_E_INVALID;
	p = &d->params.u.etm;
	if ((err = pick_sources(p, &first, &count)) < 0)
		return err;
	for (size_t i = 0; i < count; i++)
		chosen[i] = &p->sources[first + i];
	e->done = 1;
	e->chunks = NULL;
	e->nchunks = 0;
	/* the converter, the ring, the caches and the counters start afresh
	 * at every reset already */
	if ((err = sy_etm_full_renew(&e->full, chosen, count)) < 0)
		return err;
	return e->has_fast ? sy_etm_fast_renew(&e->fast, chosen, count) : 0;
}

const struct sy_etm_debug *sy_etm_debug(const struct sy_decoder *d)
{
	struct etm *e = etm_of(d);

	if (!e)
		return NULL;
	e->dbg.mem_calls = e->code.calls;
	e->dbg.ring_grows = e->cv.ring.grows;
	return &e->dbg;
}

/* ---- sync points ---- */

/* A-Sync: at least 11 zero bytes, then 0x80 (ETMv4 and ETE).  The packet
 * is the last 11 zeros and the 0x80: a longer run of zeros before it is
 * padding or the tail of something else. */
int sy_etm_find_sync(const uint8_t *data, size_t len, uint64_t offset,
		     uint64_t *sync)
{
	size_t i;

	if (len < 12)
		return -SY_E_EOS;
	/* The 0x80 of an A-Sync starting at or before @offset. */
	i = offset > len - 12 ? len - 1 : (size_t)offset + 11;
	for (;;) {
		if (data[i] == 0x80 && i >= 11) {
			size_t z = 0;

			while (z < 11 && data[i - 1 - z] == 0)
				z++;
			if (z == 11) {
				*sync = i - 11;
				return 0;
			}
		}
		if (i == 11)
			return -SY_E_EOS;
		i--;
	}
}
