/* The Intel PT backend's ops (sy_decode.h through decoder_impl.h): making
 * the decoder, resetting it on a window's chunks (the TIP.PGE packets
 * before report_from listed first, see pt.c), and pulling items. */
#include <stdlib.h>
#include <string.h>

#include "pt_state.h"
#include "sy_vec.h"

/* ------------------------------------------------------------------------
 * Backend ops.
 * ---------------------------------------------------------------------- */

static int sy_pt_init(struct sy_decoder *d)
{
	const struct sy_pt_params *p = &d->params.u.pt;
	struct sy_pt *pt;
	int err = -SY_E_NOMEM;

	pt = calloc(1, sizeof(*pt));
	if (!pt)
		return -SY_E_NOMEM;
	pt->d = d;
	pt->cache_on = pt->cache_next = 1;
	pt->phase = SY_PT_DONE;

	pt_config_init(&pt->cfg);
	if (p->family) {
		pt->cfg.cpu.vendor = pcv_intel;
		pt->cfg.cpu.family = p->family;
		pt->cfg.cpu.model = p->model;
		pt->cfg.cpu.stepping = p->stepping;
		if (pt_cpu_errata(&pt->cfg.errata, &pt->cfg.cpu) < 0) {
			err = -SY_E_DECODE;
			goto fail;
		}
	}
	pt->cyc_on = p->cyc != 0;
	pt->cfg.mtc_freq = p->mtc_freq;
	pt->cfg.nom_freq = p->nom_freq;
	pt->cfg.cpuid_0x15_eax = p->cpuid_0x15_eax;
	pt->cfg.cpuid_0x15_ebx = p->cpuid_0x15_ebx;
	/* Every taken branch at a block boundary; see the top. */
	pt->cfg.flags.variant.block.end_on_call = 1;
	pt->cfg.flags.variant.block.end_on_jump = 1;
	pt->cfg.flags.variant.block.enable_tick_events = 1;

	pt->cls = calloc(SY_PT_NCLASS, sizeof(*pt->cls));
	pt->image = pt_image_alloc("strobe-synth");
	if (!pt->cls || !pt->image)
		goto fail;
	sy_code_cache_init(&pt->code, d->params.read_mem, d->params.mem_ctx);
	sy_pt_cls_flush(pt);
	if (pt_image_set_callback(pt->image, sy_pt_image_read, pt) < 0) {
		err = -SY_E_DECODE;
		goto fail;
	}
	if (sy_ptw_init(&pt->walk, &pt->code, &d->ctxid))
		goto fail;
	pt->fast_ok = 1;
	pt->use_fast = p->decoder == SY_PT_DECODER_FAST ||
		       (p->decoder == SY_PT_DECODER_AUTO && SY_PT_FAST_DEFAULT);
	d->impl = pt;
	return 0;
fail:
	sy_ptw_fini(&pt->walk);
	pt_image_free(pt->image);
	free(pt->cls);
	free(pt);
	return err;
}

static void sy_pt_fini(struct sy_decoder *d)
{
	struct sy_pt *pt = sy_pt_of(d);

	if (!pt)
		return;
	pt_blk_free_decoder(pt->blk);
	sy_ptw_fini(&pt->walk);
	sy_pt_gap_close(&pt->gap);
	sy_pt_cyc_fini(&pt->cyc);
	pt_image_free(pt->image);
	free(pt->cls);
	free(pt->copy);
	free(pt->pge);
	free(pt);
	d->impl = NULL;
}

static int sy_pt_add_pge(struct sy_pt *pt, uint64_t off)
{
	if (sy_grow((void **)&pt->pge, &pt->pge_cap, pt->npge,
		    sizeof(*pt->pge)))
		return -SY_E_NOMEM;
	pt->pge[pt->npge++] = off;
	return 0;
}

/* One packet walk lists the TIP.PGE packets before report_from (see the
 * top) and, with CYC on, the CYC packets from there on (pt_cyc.h). */
static int sy_pt_prefix_pkt(void *ctx, uint64_t off,
			    const struct pt_packet *pkt)
{
	struct sy_pt *pt = ctx;

	if (off < pt->report_from)
		return pkt->type == ppt_tip_pge ? sy_pt_add_pge(pt, off) : 0;
	if (!pt->cyc_on)
		return 1;
	return pkt->type == ppt_cyc ?
		       sy_pt_cyc_add(&pt->cyc, off, pkt->payload.cyc.value) : 0;
}

static int sy_pt_begin(struct sy_pt *pt, int fast);

static int sy_pt_reset(struct sy_decoder *d, const struct sy_dec_chunk *chunks,
		       size_t nr_chunks, uint64_t report_from)
{
	struct sy_pt *pt = sy_pt_of(d);
	size_t i, len = 0;

	pt_blk_free_decoder(pt->blk);
	pt->blk = NULL;
	pt->trace = NULL;
	pt->len = 0;
	pt->phase = SY_PT_DONE;
	pt->qn = 0;
	pt->qhead = 0;

	for (i = 0; i < nr_chunks; i++) {
		if (!chunks[i].data && chunks[i].len)
			return -SY_E_INVALID;
		if (chunks[i].len > SIZE_MAX - len)
			return -SY_E_INVALID;
		len += chunks[i].len;
	}
	if (nr_chunks == 1) {
		pt->trace = chunks[0].data;
	} else if (len) {
		/* libipt wants one contiguous buffer. */
		if (len > pt->copy_cap) {
			uint8_t *p = realloc(pt->copy, len);

			if (!p)
				return -SY_E_NOMEM;
			pt->copy = p;
			pt->copy_cap = len;
		}
		len = 0;
		for (i = 0; i < nr_chunks; i++) {
			if (chunks[i].len)
				memcpy(pt->copy + len, chunks[i].data,
				       chunks[i].len);
			len += chunks[i].len;
		}
		pt->trace = pt->copy;
	}
	pt->len = len;

	pt->report_from = report_from;
	pt->ctxid0 = d->ctxid;
	pt->committed = 0;
	pt->skip = 0;
	pt->fall_back_due = 0;
	pt->have_one = 0;
	pt->counted = 0;
	pt->npge = 0;
	pt->have_held = 0;
	sy_pt_cyc_clear(&pt->cyc);
	if (len && (report_from || pt->cyc_on)) {
		struct pt_config cfg = pt->cfg;
		int err;

		cfg.begin = (uint8_t *)(uintptr_t)pt->trace;
		cfg.end = cfg.begin + len;
		err = sy_pt_pkt_walk(&cfg, sy_pt_prefix_pkt, pt);
		if (err)
			return err;
	}
	return sy_pt_begin(pt, pt->use_fast && pt->fast_ok);
}

/* Starts decoding the window from its first byte, with the fast path or
 * the block decoder. */
static int sy_pt_begin(struct sy_pt *pt, int fast)
{
	struct sy_decoder *d = pt->d;
	struct pt_config cfg;

	pt_blk_free_decoder(pt->blk);
	pt->blk = NULL;
	pt->fast = fast;
	pt->phase = SY_PT_DONE;
	pt->qn = 0;
	pt->qhead = 0;
	d->ctxid = pt->ctxid0;
	pt->reporting = pt->report_from == 0;
	pt->status = 0;
	pt->err_code = 0;
	pt->have_sync_off = 0;
	pt->have_fail = 0;
	sy_pt_gap_close(&pt->gap);
	pt->tracing = 0;
	pt->need_start = 0;
	pt->ninsn = 0;
	pt->idle_insns = 0;
	pt->idle_off = 0;
	pt->have_last = 0;
	pt->pending = 0;
	pt->have_time = 0;
	pt->pge_skip = 0;
	pt->nomap_ip = 0;
	memset(&pt->mem, 0, sizeof(pt->mem));
	pt->cache_on = pt->cache_next;
	pt->code.on = pt->cache_on;
	/* The caller may map different code for the next window; where it
	 * changes by time, the data's start reads the caller's own. */
	if (d->params.code_at)
		d->params.code_at(d->params.mem_ctx, SY_DEC_TIME_NONE);
	sy_code_cache_clear(&pt->code);
	sy_pt_cls_flush(pt);

	if (!pt->len)
		return 0;
	cfg = pt->cfg;
	cfg.begin = (uint8_t *)(uintptr_t)pt->trace;
	cfg.end = cfg.begin + pt->len;
	if (fast) {
		if (sy_ptw_reset(&pt->walk, &cfg))
			return -SY_E_NOMEM;
		pt->phase = SY_PT_FIRST_SYNC;
		return 0;
	}
	pt->blk = pt_blk_alloc_decoder(&cfg);
	if (!pt->blk)
		return -SY_E_NOMEM;
	if (pt_blk_set_image(pt->blk, pt->image) < 0) {
		pt_blk_free_decoder(pt->blk);
		pt->blk = NULL;
		return -SY_E_DECODE;
	}
	pt->phase = SY_PT_FIRST_SYNC;
	return 0;
}

/* The fast path doubted: the block decoder takes the window over from
 * its start, the @committed items of the steps before already out. */
static int sy_pt_fall_back(struct sy_pt *pt)
{
	pt->d->stats.fallbacks++;
	pt->skip = pt->committed;
	return sy_pt_begin(pt, 0);
}

/* One step of the decode, its items onto the queue.  Returns 1 when the
 * window is done (no step was taken). */
static int sy_pt_step(struct sy_pt *pt)
{
	unsigned before = pt->qn;

	pt->step_n = 0;
	pt->batch_stop = 0;
	switch (pt->phase) {
	case SY_PT_FIRST_SYNC:
	case SY_PT_RESYNC:
		sy_pt_sync(pt);
		break;
	case SY_PT_RUN:
		sy_pt_run(pt);
		break;
	default:
		return 1;
	}
	if (pt->fast && pt->walk.doubt) {
		/* the step's items are the block decoder's to give, once the
		 * items before them are out (as they were before it) */
		pt->qn = before;
		pt->fall_back_due = 1;
		return 0;
	}
	pt->committed += pt->qn - before;
	return 0;
}

/* Decodes until the queue holds an item: 0, or -SY_E_EOS at the window's
 * end.  With @batch, steps go on while their items fit, so that the
 * caller takes several in place; they stop where the caller must see the
 * items before a step first (pt_state.h: @batch_stop, @fall_back_due),
 * so that nothing it sees depends on how far the decode ran ahead. */
static int sy_pt_fill(struct sy_pt *pt, int batch)
{
	struct sy_decoder *d = pt->d;
	int err;

	if (!pt->qn)
		pt->qhead = 0;
	pt->batching = batch;
	while (!pt->qn ||
	       (batch && !pt->batch_stop && !pt->fall_back_due &&
		sy_pt_room(pt))) {
		if (pt->fall_back_due) {
			/* the queue is empty */
			pt->fall_back_due = 0;
			if ((err = sy_pt_fall_back(pt)))
				return err;
			continue;
		}
		if (!sy_pt_step(pt))
			continue;
		if (pt->qn)
			return 0;
		if (!pt->counted && pt->len) {
			pt->counted = 1;
			if (pt->fast)
				d->stats.fast_units++;
			else
				d->stats.full_units++;
		}
		return -SY_E_EOS;
	}
	return 0;
}

static int sy_pt_next_item(struct sy_decoder *d, struct sy_dec_item *item)
{
	struct sy_pt *pt = sy_pt_of(d);
	int err = sy_pt_fill(pt, 0);

	if (err)
		return err;
	*item = pt->q[pt->qhead++];
	pt->qn--;
	return 0;
}

/* A count as an item: before the first item whose packet comes after
 * the CYC (pt_cyc.h), the rest after the window's last item.  A CYC may
 * carry up to 64 bits: @code saturates, @time holds the whole count (one
 * item each, so a damaged window's bytes cannot make billions of them). */
static void sy_pt_cyc_item(struct sy_pt *pt, struct sy_dec_item *item)
{
	const struct sy_pt_cyc_at *c = &pt->cyc.v[pt->cyc.next++];

	memset(item, 0, sizeof(*item));
	item->kind = SY_DEC_CYCLES;
	item->offset = c->off;
	item->code = c->cycles > UINT32_MAX ? UINT32_MAX : (uint32_t)c->cycles;
	item->time = c->cycles;
}

static int sy_pt_next(struct sy_decoder *d, struct sy_dec_item *item)
{
	struct sy_pt *pt = sy_pt_of(d);
	int err;

	if (pt->have_one) {	/* peeked, not used */
		*item = pt->one;
		pt->have_one = 0;
		return 0;
	}
	if (pt->cyc.next == pt->cyc.n && !pt->have_held)
		return sy_pt_next_item(d, item);
	if (!pt->have_held) {
		err = sy_pt_next_item(d, &pt->held);
		if (err == -SY_E_EOS) {
			sy_pt_cyc_item(pt, item);
			return 0;
		}
		if (err)
			return err;
		pt->have_held = 1;
	}
	if (pt->cyc.next < pt->cyc.n &&
	    pt->cyc.v[pt->cyc.next].off < pt->held.offset) {
		sy_pt_cyc_item(pt, item);
		return 0;
	}
	*item = pt->held;
	pt->have_held = 0;
	return 0;
}

/* The queue's items in place; while CYC counts go out between them, one
 * at a time (sy_pt_next's). */
static int sy_pt_peek(struct sy_decoder *d, struct sy_dec_item **items,
		      size_t *n)
{
	struct sy_pt *pt = sy_pt_of(d);
	int err;

	if (pt->have_one || pt->cyc.next != pt->cyc.n || pt->have_held) {
		if (!pt->have_one && (err = sy_pt_next(d, &pt->one)))
			return err;
		pt->have_one = 1;
		*items = &pt->one;
		*n = 1;
		return 0;
	}
	if ((err = sy_pt_fill(pt, 1)))
		return err;
	*items = &pt->q[pt->qhead];
	*n = pt->qn;
	return 0;
}

static void sy_pt_advance(struct sy_decoder *d, size_t k)
{
	struct sy_pt *pt = sy_pt_of(d);

	if (pt->have_one) {
		pt->have_one = !k;
		return;
	}
	pt->qhead += (unsigned)k;
	pt->qn -= (unsigned)k;
}

const struct sy_decoder_ops sy_pt_decoder_ops = {
	.init = sy_pt_init,
	.fini = sy_pt_fini,
	.reset = sy_pt_reset,
	.next = sy_pt_next,
	.peek = sy_pt_peek,
	.advance = sy_pt_advance,
};

void sy_pt_set_code_cache(struct sy_decoder *d, int on)
{
	if (d && d->ops == &sy_pt_decoder_ops)
		sy_pt_of(d)->cache_next = on;
}

const struct sy_pt_mem_stats *sy_pt_mem_stats(const struct sy_decoder *d)
{
	struct sy_pt *pt;

	if (!d || d->ops != &sy_pt_decoder_ops)
		return NULL;
	pt = sy_pt_of(d);
	pt->mem.read_mem = pt->code.calls;
	return &pt->mem;
}
