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
	pt->delivered = 0;
	pt->skip = 0;
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

/* The fast path doubts: the block decoder takes the window over from its
 * start, its first @delivered items already out. */
static int sy_pt_fall_back(struct sy_pt *pt)
{
	pt->d->stats.fallbacks++;
	pt->skip = pt->delivered;
	return sy_pt_begin(pt, 0);
}

static int sy_pt_next_item(struct sy_decoder *d, struct sy_dec_item *item)
{
	struct sy_pt *pt = sy_pt_of(d);
	int err;

	for (;;) {
		while (!pt->qn) {
			switch (pt->phase) {
			case SY_PT_FIRST_SYNC:
			case SY_PT_RESYNC:
				sy_pt_sync(pt);
				break;
			case SY_PT_RUN:
				sy_pt_run(pt);
				break;
			default:
				if (!pt->counted && pt->len) {
					pt->counted = 1;
					if (pt->fast)
						d->stats.fast_units++;
					else
						d->stats.full_units++;
				}
				return -SY_E_EOS;
			}
			if (pt->fast && pt->walk.doubt &&
			    (err = sy_pt_fall_back(pt)))
				return err;
		}
		*item = pt->q[pt->qhead];
		pt->qhead = (pt->qhead + 1) % SY_PT_QUEUE;
		pt->qn--;
		if (!pt->skip)
			break;
		pt->skip--;
	}
	pt->delivered++;
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

const struct sy_decoder_ops sy_pt_decoder_ops = {
	.init = sy_pt_init,
	.fini = sy_pt_fini,
	.reset = sy_pt_reset,
	.next = sy_pt_next,
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
