/* The full ETMv4 / ETE decode on the OpenCSD 1.3.3 C API.
 *
 * One decode tree per decoder object, built once: raw data (TRBE, or a sink
 * in CORESIGHT_FORMAT_RAW mode) is one source (OCSD_TRC_SRC_SINGLE);
 * formatted data (ETR / ETF / ETB: 16-byte frames interleaving several
 * trace IDs) goes through the frame deformatter with
 * OCSD_DFRMTR_FRAME_MEM_ALIGN (perf copies whole frames) and
 * OCSD_DFRMTR_RESET_ON_4X_FSYNC (perf's sinks may put a 4 x FSYNC barrier
 * at the start of a buffer).  Every window starts with OCSD_OP_RESET: the
 * tree forgets sync, addresses and speculation, and OpenCSD empties its
 * memory-access cache, so nothing carries over.
 *
 * OpenCSD pushes elements into a callback; the project's interface pulls.
 * As in perf's cs-etm-decoder, the callback converts elements into items
 * (etm_conv.c) in a ring and answers OCSD_RESP_WAIT once the ring holds
 * `soft` items; the backend pops items, and when the ring is empty this
 * file sends OCSD_OP_FLUSH after a WAIT (OpenCSD keeps the unsent elements
 * and the unprocessed bytes), else the next bytes with OCSD_OP_DATA, and at
 * the end OCSD_OP_EOT.  The callback never refuses an element: if OpenCSD
 * keeps calling after a WAIT (several trace IDs at EOT), the ring grows.
 *
 * With a params.trace_id only that source's decoder is created: the
 * deformatter drops the other IDs' bytes before any decoding (perf would
 * decode them all and throw the results away).
 *
 * Code is read through ocsd_dt_add_callback_trcid_mem_acc over all of the
 * address space but its last page (ETM_MEM_TOP): the trace ID tells which
 * source (hence which context ID) asks.  OpenCSD sends a PE_CONTEXT
 * element before it reads the code that follows it, so the callback sees
 * the new context in time.  The code cache (code_cache.c) sits in front of
 * read_mem.
 *
 * Bad trace never stops the window.  Bad packets and unreadable code come
 * from OpenCSD as elements (etm_conv.c).  A fatal datapath response
 * becomes ERROR(OCSD_ERR_DATA_DECODE_FATAL), then the tree is reset and
 * fed on after the failing byte (raw) or frame; packets OpenCSD 1.3.3
 * would crash on are kept from it the same way (etm_guard.c).  A reset
 * tree has forgotten which trace ID the frames carry (they name it only
 * when it changes), so a made-up frame names it again (restart_trees).
 */
#include <string.h>

#include "etm_full.h"
#include "etm_ocsd.h"

static uint32_t mem_cb(const void *ctx, const ocsd_vaddr_t addr,
		       const ocsd_mem_space_acc_t space, const uint8_t id,
		       const uint32_t req, uint8_t *buf)
{
	struct etm_full *f = (struct etm_full *)(uintptr_t)ctx;
	struct etm_conv *cv = f->cv;

	(void)space;
	f->dbg->mem_reqs++;
	return (uint32_t)sy_code_cache_read(cv->code,
					    etm_conv_ctxid(cv,
							   etm_conv_src(cv, id)),
					    addr, buf, req);
}

/* Whether OpenCSD may be asked to wait after element @el.  A wait changes
 * nothing OpenCSD sends, with one exception: when an Overflow or Discard
 * packet empties the element stack, the timestamps, cycle counts, events
 * and markers on it go out first, and a wait among them makes OpenCSD 1.3.3
 * leave the packet before its NO_SYNC, which then comes with the next
 * packet's index (TrcPktDecodeEtmV4I::processPacket stops on the wait in
 * the RESOLVE_ELEM state).  So the items would depend on where the ring
 * fills.  Those elements never wait; only a few can be queued at once. */
static int may_wait(const ocsd_generic_trace_elem *el)
{
	switch (el->elem_type) {
	case OCSD_GEN_TRC_ELEM_TIMESTAMP:
	case OCSD_GEN_TRC_ELEM_CYCLE_COUNT:
	case OCSD_GEN_TRC_ELEM_EVENT:
	case OCSD_GEN_TRC_ELEM_SYNC_MARKER:
		return 0;
	default:
		return 1;
	}
}

static ocsd_datapath_resp_t elem_cb(const void *ctx,
				    const ocsd_trc_index_t idx,
				    const uint8_t id,
				    const ocsd_generic_trace_elem *el)
{
	struct etm_full *f = (struct etm_full *)(uintptr_t)ctx;
	struct etm_conv *cv = f->cv;
	struct etm_src *s = etm_conv_src(cv, id);

	if (s) {
		struct etm_elem e;

		sy_etm_elem_from_ocsd(&e, el);
		sy_etm_conv_elem(cv, s, etm_offset_of(f->feed.pos, idx), &e);
	}
	if (cv->ring.fatal)
		return OCSD_RESP_FATAL_SYS_ERR;
	if (etm_ring_count(&cv->ring) >= f->soft && may_wait(el)) {
		f->dbg->waits++;
		return OCSD_RESP_WAIT;
	}
	return OCSD_RESP_CONT;
}

/* The decode tree of the @n sources @src (under the OpenCSD lock). */
static int build_tree(struct etm_full *f,
		      const struct sy_etm_source *const *src, size_t n)
{
	f->dt = sy_etm_ocsd_tree(f->feed.formatted);
	if (f->dt == C_API_INVALID_TREE_HANDLE)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		unsigned char csid = 0;

		if (sy_etm_ocsd_add_decoder(f->dt, src[i], &csid) != OCSD_OK ||
		    csid != f->cv->src[i].id)
			return -SY_E_DECODE;
	}
	if (ocsd_dt_add_callback_trcid_mem_acc(f->dt, 0, ETM_MEM_TOP,
					       OCSD_MEM_SPACE_ANY, mem_cb,
					       f) != OCSD_OK ||
	    ocsd_dt_set_gen_elem_outfn(f->dt, elem_cb, f) != OCSD_OK)
		return -SY_E_DECODE;
	return 0;
}

int sy_etm_full_init(struct etm_full *f, struct etm_conv *cv,
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
	f->dt = f->guard.dt = C_API_INVALID_TREE_HANDLE;
	sy_etm_ocsd_lock();
	if ((err = build_tree(f, src, n)) == 0)
		err = sy_etm_guard_init(&f->guard, cv, formatted, src);
	sy_etm_ocsd_unlock();
	return err;
}

int sy_etm_full_renew(struct etm_full *f,
		   const struct sy_etm_source *const *src, size_t n)
{
	int err;

	sy_etm_ocsd_lock();
	sy_etm_ocsd_tree_free(&f->dt);
	if ((err = build_tree(f, src, n)) == 0)
		err = sy_etm_guard_renew(&f->guard, src);
	sy_etm_ocsd_unlock();
	f->done = 1;
	return err;
}

void sy_etm_full_fini(struct etm_full *f)
{
	sy_etm_ocsd_lock();
	sy_etm_ocsd_tree_free(&f->dt);
	sy_etm_guard_fini(&f->guard);
	sy_etm_ocsd_unlock();
}

void sy_etm_full_reset(struct etm_full *f, const struct sy_dec_chunk *chunks,
		    size_t nchunks, size_t soft)
{
	ocsd_dt_process_data(f->dt, OCSD_OP_RESET, 0, 0, NULL, NULL);
	sy_etm_feed_reset(&f->feed, chunks, nchunks, f->feed.formatted);
	f->soft = soft;
	f->need_flush = 0;
	f->stalls = 0;
	f->eot_sent = 0;
	f->done = 0;
	sy_etm_guard_reset(&f->guard, 0);
}

/* Both trees restart at the feed position, after skipping the bytes there
 * when @skip.  With frames, a made-up frame then names the trace ID current
 * at that point: bytes 0-13 for the null ID 0 (dropped by the
 * deformatter), byte 14 the ID.  It takes the index of the frame before the
 * position (the one skipped), so the real frames stay contiguous. */
static void restart_trees(struct etm_full *f, int skip)
{
	struct etm_feed *fd = &f->feed;
	uint8_t fr[ETM_FRAME];
	uint32_t used;
	int id;

	ocsd_dt_process_data(f->dt, OCSD_OP_RESET, 0, 0, NULL, NULL);
	f->need_flush = 0;
	if (skip)
		sy_etm_feed_skip(fd);
	sy_etm_guard_reset(&f->guard, fd->pos);
	if (!fd->formatted || fd->pos < ETM_FRAME || fd->pos % ETM_FRAME ||
	    (id = sy_etm_feed_frame_id_at(fd, fd->pos)) < 0)
		return;
	memset(fr, 0, sizeof(fr));
	for (unsigned k = 0; k < ETM_FRAME - 2; k += 2)
		fr[k] = 0x01;
	fr[ETM_FRAME - 2] = (uint8_t)(id << 1 | 1);
	ocsd_dt_process_data(f->dt, OCSD_OP_DATA,
			     (ocsd_trc_index_t)(fd->pos - ETM_FRAME),
			     sizeof(fr), fr, &used);
	sy_etm_guard_scan(&f->guard, fr, sizeof(fr), fd->pos - ETM_FRAME);
}

/* Acts on a datapath response; @progress says whether the call consumed
 * bytes or produced items. */
static void handle_resp(struct etm_full *f, ocsd_datapath_resp_t r,
			int in_data, int progress)
{
	if (OCSD_DATA_RESP_IS_FATAL(r)) {
		/* The tree stays unusable until reset.  Report, reset, and
		 * go on after the bad bytes. */
		f->dbg->fatal++;
		sy_etm_conv_fatal(f->cv, f->feed.pos, OCSD_ERR_DATA_DECODE_FATAL);
		restart_trees(f, in_data);
		return;
	}
	if (OCSD_DATA_RESP_IS_WAIT(r)) {
		/* A WAIT we did not cause, or repeated ones that yield
		 * nothing, must not spin forever. */
		f->stalls = progress ? 0 : f->stalls + 1;
		f->need_flush = f->stalls < 4;
		return;
	}
	f->need_flush = 0;
	f->stalls = 0;
}

/* Hands OpenCSD the next bytes, after the guard has read them. */
static void feed(struct etm_full *f)
{
	struct etm_feed *fd = &f->feed;
	size_t before = f->cv->ring.head;
	const uint8_t *p;
	uint32_t n, used = 0;
	ocsd_datapath_resp_t r;

	n = sy_etm_feed_span(fd, &p, ETM_FEED_MAX);
	if (!n)
		return;
	if (f->guard.pos < fd->pos + n) {
		uint64_t seen = f->guard.pos - fd->pos;

		sy_etm_guard_scan(&f->guard, p + seen, (uint32_t)(n - seen),
			       f->guard.pos);
	}
	if (f->guard.ncut) {
		uint64_t cut = f->guard.cut[0];

		if (fd->formatted)
			cut &= ~(uint64_t)(ETM_FRAME - 1);
		if (cut <= fd->pos) {
			/* Everything before the packet is decoded and its
			 * elements delivered: drop the packet (or its frame)
			 * and resynchronise both trees after it. */
			f->dbg->cuts++;
			sy_etm_conv_cut(f->cv, f->guard.cut_id[0], f->guard.cut[0],
				     f->guard.cut_code[0]);
			restart_trees(f, 1);
			return;
		}
		if (cut - fd->pos < n)
			n = (uint32_t)(cut - fd->pos);
	}
	f->dbg->data_calls++;
	r = ocsd_dt_process_data(f->dt, OCSD_OP_DATA, (ocsd_trc_index_t)fd->pos,
				 n, p, &used);
	if (used > n)
		used = n;
	*f->bytes += sy_etm_feed_used(fd, used);
	handle_resp(f, r, 1, used || f->cv->ring.head != before);
	/* Nothing consumed and no wait: never spin on the same bytes. */
	if (!used && !f->need_flush && !OCSD_DATA_RESP_IS_FATAL(r))
		restart_trees(f, 1);
}

void sy_etm_full_pump(struct etm_full *f)
{
	size_t before = f->cv->ring.head;
	ocsd_datapath_resp_t r;

	if (f->need_flush) {
		f->dbg->flushes++;
		r = ocsd_dt_process_data(f->dt, OCSD_OP_FLUSH, 0, 0, NULL,
					 NULL);
		handle_resp(f, r, 0, f->cv->ring.head != before);
		return;
	}
	if (sy_etm_feed_left(&f->feed)) {
		feed(f);
		return;
	}
	if (!f->eot_sent) {
		f->eot_sent = 1;
		r = ocsd_dt_process_data(f->dt, OCSD_OP_EOT, 0, 0, NULL, NULL);
		handle_resp(f, r, 0, 1);
		return;
	}
	/* Sources whose EO_TRACE never came (a failed tree) end here. */
	for (size_t i = 0; i < f->cv->nsrc; i++)
		sy_etm_conv_end(f->cv, &f->cv->src[i], f->feed.pos);
	f->done = 1;
}
