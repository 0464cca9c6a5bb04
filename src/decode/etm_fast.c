/* The ETM fast path's driver (see etm_fast.h).
 *
 * The packet tree is built like the full decoder's (same deformatter flags,
 * same sources, etm_ocsd.c) and fed the same window (etm_feed.c), so the
 * packets and their indexes are those the full decoder sees.  The packet
 * sink hands each packet to its source's walk.
 *
 * The walks' elements are converted as they are sent.  In a formatted
 * window that is undone when the walk gives the span up: the full
 * decoder's guard (etm_guard.c) cuts a formatted window at the start of the
 * frame that holds a packet OpenCSD would crash on: packets earlier in that
 * frame, and packets that end in it, never reach OpenCSD.  The walk meets
 * the packet after them and gives the window up; the span's start was
 * saved (span_mark), and going back to it means none of their items went
 * out, so the full decoder's items, decoding the window again, are the
 * continuation of ours.  A span is ETM_FAST_SPAN bytes.  (The elements
 * used to wait in an array until their span was parsed: the copies cost
 * more than the rare undo.)  A raw window is cut at the packet itself:
 * only the batch being built is dropped (etm_walk.c give_up).  When a
 * walk gives up, the sink answers a fatal response so that OpenCSD stops
 * at once.
 */
#include <stdlib.h>
#include <string.h>

#include "etm_fast.h"
#include "etm_ocsd.h"

/* Every element is converted as the walk sends it. */
static void convert(void *ctx, struct etm_src *src, uint64_t off,
		    const struct etm_elem *e)
{
	struct etm_fast *f = ctx;

	sy_etm_conv_elem(f->cv, src, off, e);
}

/* A formatted span starts: what converting it may change is saved. */
static void span_mark(struct etm_fast *f)
{
	struct etm_conv *cv = f->cv;

	memcpy(f->mark_src, cv->src, cv->nsrc * sizeof(*cv->src));
	sy_etm_conv_pos_save(cv, &f->mark_pos);
}

/* The walk gave the span up: its items are taken back, as if the span's
 * elements had never been converted (nothing pops the ring during a
 * span). */
static void span_undo(struct etm_fast *f)
{
	struct etm_conv *cv = f->cv;

	memcpy(cv->src, f->mark_src, cv->nsrc * sizeof(*cv->src));
	sy_etm_conv_pos_restore(cv, &f->mark_pos);
}

static ocsd_datapath_resp_t sink(const void *ctx, const ocsd_datapath_op_t op,
				 const ocsd_trc_index_t idx, const void *pkt)
{
	struct etm_walk *w = (struct etm_walk *)(uintptr_t)ctx;
	struct etm_fast *f = w->emit_ctx;
	enum etm_why why;

	if (f->why)
		return OCSD_RESP_FATAL_SYS_ERR;
	why = sy_etm_walk_op(w, op, idx, pkt);
	if (why && !f->why) {
		f->why = why;
		f->why_off = op == OCSD_OP_DATA ? etm_offset_of(f->feed.pos, idx)
						: f->feed.pos;
	}
	return f->why ? OCSD_RESP_FATAL_SYS_ERR : OCSD_RESP_CONT;
}

/* The packet tree of the @n sources @src, whose walks are f->walk[0..n)
 * (under the OpenCSD lock). */
static int build_tree(struct etm_fast *f,
		      const struct sy_etm_source *const *src, size_t n)
{
	f->dt = sy_etm_ocsd_tree(f->feed.formatted);
	if (f->dt == C_API_INVALID_TREE_HANDLE)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < n; i++)
		if (sy_etm_ocsd_add_pkt_proc(f->dt, src[i], f->cv->src[i].id,
					  sink, &f->walk[i]) != OCSD_OK)
			return -SY_E_DECODE;
	return 0;
}

int sy_etm_fast_init(struct etm_fast *f, struct etm_conv *cv,
		  struct sy_etm_debug *dbg, uint64_t *bytes, int formatted,
		  const struct sy_etm_source *const *src, size_t n)
{
	int err = 0;

	memset(f, 0, sizeof(*f));
	f->cv = cv;
	f->dbg = dbg;
	f->bytes = bytes;
	f->feed.formatted = formatted;
	f->done = 1;
	f->dt = C_API_INVALID_TREE_HANDLE;
	if ((err = sy_etm_blocks_init(&f->blocks, cv->code)) < 0 ||
	    (err = sy_etm_runs_init(&f->runs, &f->blocks)) < 0)
		return err;
	f->walk = calloc(n ? n : 1, sizeof(*f->walk));
	f->mark_src = calloc(n ? n : 1, sizeof(*f->mark_src));
	if (!f->walk || !f->mark_src)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		struct etm_walk_cfg wc;
		ocsd_etmv4_cfg c;

		sy_etm_ocsd_decoder_cfg(src[i], cv->src[i].id, &c);
		sy_etm_walk_cfg_from(&wc, &c);
		sy_etm_walk_init(&f->walk[i], &cv->src[i], convert, f, &f->blocks,
			      &f->feed.pos, cv->ctxid, &wc);
		sy_etm_walk_shortcuts(&f->walk[i], &f->runs, cv);
	}
	sy_etm_ocsd_lock();
	err = build_tree(f, src, n);
	sy_etm_ocsd_unlock();
	return err;
}

int sy_etm_fast_renew(struct etm_fast *f,
		   const struct sy_etm_source *const *src, size_t n)
{
	int err;

	for (size_t i = 0; i < n; i++)
		sy_etm_walk_renew(&f->walk[i]);
	sy_etm_ocsd_lock();
	sy_etm_ocsd_tree_free(&f->dt);
	err = build_tree(f, src, n);
	sy_etm_ocsd_unlock();
	f->done = 1;
	return err;
}

void sy_etm_fast_fini(struct etm_fast *f)
{
	sy_etm_ocsd_lock();
	sy_etm_ocsd_tree_free(&f->dt);
	sy_etm_ocsd_unlock();
	for (size_t i = 0; f->walk && i < f->cv->nsrc; i++)
		sy_etm_walk_fini(&f->walk[i]);
	free(f->walk);
	f->walk = NULL;
	free(f->mark_src);
	f->mark_src = NULL;
	sy_etm_runs_fini(&f->runs);
	sy_etm_blocks_fini(&f->blocks);
}

void sy_etm_fast_reset(struct etm_fast *f, const struct sy_dec_chunk *chunks,
		    size_t nchunks)
{
	f->why = ETM_WHY_NONE;
	ocsd_dt_process_data(f->dt, OCSD_OP_RESET, 0, 0, NULL, NULL);
	sy_etm_feed_reset(&f->feed, chunks, nchunks, f->feed.formatted);
	sy_etm_blocks_clear(&f->blocks);
	sy_etm_runs_clear(&f->runs);
	f->eot_sent = 0;
	f->done = 0;
}

/* A response that does not let the walk go on gives the window up. */
static void check_resp(struct etm_fast *f, ocsd_datapath_resp_t r, int moved)
{
	if (f->why)
		return;
	if (!OCSD_DATA_RESP_IS_CONT(r) || !moved) {
		f->why = f->cv->ring.fatal ? ETM_WHY_NOMEM : ETM_WHY_TREE;
		f->why_off = f->feed.pos;
	}
}

static void feed(struct etm_fast *f)
{
	const uint8_t *p;
	uint32_t n, used = 0;
	ocsd_datapath_resp_t r;

	n = sy_etm_feed_span(&f->feed, &p, ETM_FAST_SPAN);
	if (!n)
		return;
	if (f->feed.formatted)
		span_mark(f);
	r = ocsd_dt_process_data(f->dt, OCSD_OP_DATA,
				 (ocsd_trc_index_t)f->feed.pos, n, p, &used);
	if (used > n)
		used = n;
	check_resp(f, r, used != 0);
	if (f->why && f->feed.formatted)
		span_undo(f);
	/* given up: the full decoder counts what this span held */
	if (!f->why)
		*f->bytes += sy_etm_feed_used(&f->feed, used);
}

void sy_etm_fast_pump(struct etm_fast *f)
{
	ocsd_datapath_resp_t r;

	if (sy_etm_feed_left(&f->feed)) {
		feed(f);
		return;
	}
	if (!f->eot_sent) {
		f->eot_sent = 1;
		if (f->feed.formatted)
			span_mark(f);
		r = ocsd_dt_process_data(f->dt, OCSD_OP_EOT, 0, 0, NULL, NULL);
		check_resp(f, r, 1);
		if (f->why && f->feed.formatted)
			span_undo(f);
		return;
	}
	for (size_t i = 0; i < f->cv->nsrc; i++)
		sy_etm_conv_end(f->cv, &f->cv->src[i], f->feed.pos);
	for (size_t i = 0; i < f->cv->nsrc; i++)
		f->dbg->packets += f->walk[i].packets;
	f->dbg->blocks += f->blocks.misses;
	f->done = 1;
}
