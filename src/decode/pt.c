/* Intel PT window decoder: libipt 2.0.5's block decoder behind sy_decode.h.
 *
 * Its calls go through pt_state.h's sy_pt_dec_*: to libipt's block decoder
 * (--decoder full), or to the fast path (pt_walk.h, the default), which
 * gives the same blocks, events, statuses and offsets from libipt's query
 * decoder and a block cache, and hands the window back to the block
 * decoder (pt_ops.c) where it does not model the trace.  Everything below
 * holds for both.
 *
 * What the items mean for PT
 * --------------------------
 * libipt is configured to end a block after every call and jump
 * (end_on_call, end_on_jump), so the instructions of one block are
 * contiguous and every taken branch sits at a block boundary.  The last
 * instruction of each block is decoded here (pt_x86.c) for its size and,
 * for near calls and jumps, whether it is direct and where it goes:
 *
 *   direct call / jump    BRANCH to the static target right away (the
 *                         next instruction too: it is taken);
 *   indirect, ret, far transfers
 *                         BRANCH once the successor is known: the next
 *                         block's IP, the FUP IP of an async disable, the
 *                         IP of a disable that carries one;
 *   conditional           the same where the successor differs from the
 *                         fall-through (else it was not taken);
 *   syscall + TIP.PGD     STOP(SYSCALL, from = the syscall, to = the
 *                         instruction after it); the TIP.PGE on return is
 *                         a START;
 *   FUP + TIP.PGD         STOP(EXCEPTION, to = FUP IP = the first
 *                         instruction not executed; at a pause that is the
 *                         pause sample's IP);
 *   OVF                   OVERFLOW(to = resume IP or 0), then START(resume
 *                         IP) when tracing stayed on; the branch before the
 *                         overflow is lost (libipt drops the straight-line
 *                         code between it and the OVF, so its successor is
 *                         unknown);
 *   trace just stops      STOP(END) after the last instruction that
 *                         consumed trace (libipt's pts_eos), to = its
 *                         successor, which the trace proves; the taken
 *                         branch to it is reported, the straight-line
 *                         code libipt would add after it is not.  (A PSB+
 *                         in that straight-line code proves execution up
 *                         to its FUP: then from = the instruction before
 *                         the FUP IP, to = the FUP IP.  Same before an
 *                         OVF.)
 *   stretch starts        CONTEXT first, with the thread params.ctx_at
 *   (TIP.PGE, PSB+ with   names for the time (a per-CPU trace's thread
 *   FUP, OVF resume)      comes from the recording, not the trace), and
 *                         the code of the stretch is read in it
 *   TSC                   TIME with the raw TSC when it changes, from the
 *                         tick events libipt sends when asked to
 *                         (enable_tick_events) and from every event that
 *                         carries a TSC.  libipt applies a TSC when a
 *                         query reads the packet after it, so a TSC
 *                         followed by another before any TNT, TIP or
 *                         event packet is never seen.
 *
 * Every item carries the instructions since the previous item, so the sum
 * of ninsn over a window is the number of instructions the trace proves.
 *
 * Errors are items: the code is the positive enum pt_error_code, the offset
 * where libipt's decoder stood.  Then the decoder resynchronises at the
 * next PSB (pt_blk_sync_forward) and reports a START there.  A resync must
 * move forward, and a run of 2^18 instructions without the decoder reading
 * a byte of trace (code that loops through direct jumps only, typical of a
 * corrupt trace) is an error too, so no input can make next() loop
 * forever.
 *
 * report_from: a window that resumes without PSB is decoded from the last
 * PSB before it, so the decoder first walks through the end of the
 * previous window.  Offsets cannot tell where its items end: libipt reads
 * ahead (status packets up to the next TIP, TNT or event packet, and whole
 * small windows while it looks for the events bound to an IP), so the last
 * items of the previous window may be handed out after the decoder moved
 * past report_from.  Packets can: at reset, libipt's packet decoder lists
 * the TIP.PGE packets before report_from, each of which gives exactly one
 * enabled event.  The window's own items start with the next enabled
 * event (its TIP.PGE), or with an ERROR located at or after report_from
 * (its bytes are bad), or at a resync that skipped past report_from (an
 * ERROR at report_from says its first bytes were lost).  A TIME item with
 * the current time comes first when the time is known by then, and the
 * first reported item counts no instructions of the previous window.
 *
 * An item's offset is where libipt's decoder stood before the call that
 * produced it (for errors: where it stopped): within a few packets of the
 * packet the item comes from, on either side (libipt reads ahead).
 */
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "code_cache.h"
#include "decoder_impl.h"
#include "pt_impl.h"
#include "pt_x86.h"

#if LIBIPT_VERSION < 0x200
#error "libipt 2.0 or newer required"
#endif

#include "pt_state.h"

/* ------------------------------------------------------------------------
 * Code reads.
 * ---------------------------------------------------------------------- */

/* libipt reads every instruction it decodes through the image callback,
 * 15 bytes at a time, through the decoders' code cache (code_cache.h). */
static size_t sy_pt_code_read(struct sy_pt *pt, uint64_t addr, uint8_t *buf,
			      size_t len)
{
	return sy_code_cache_read(&pt->code, pt->d->ctxid, addr, buf, len);
}

void sy_pt_cls_flush(struct sy_pt *pt)
{
	for (size_t i = 0; i < SY_PT_NCLASS; i++)
		pt->cls[i].ip = SY_PT_NO_IP;
	pt->cls_ctxid = pt->d->ctxid;
}

int sy_pt_image_read(uint8_t *buf, size_t size,
			    const struct pt_asid *asid, uint64_t ip, void *ctx)
{
	size_t n;

	(void)asid;
	n = sy_pt_code_read(ctx, ip, buf, size);
	if (!n)
		((struct sy_pt *)ctx)->nomap_ip = ip;
	return n ? (int)n : -pte_nomap;
}

/* ------------------------------------------------------------------------
 * Items.
 * ---------------------------------------------------------------------- */

static uint64_t sy_pt_offset(const struct sy_pt *pt)
{
	uint64_t off;

	if (!sy_pt_have_dec(pt) || sy_pt_dec_offset(pt, &off) < 0)
		return pt->report_from;
	return off;
}

static struct sy_dec_item *sy_pt_enqueue(struct sy_pt *pt,
					 enum sy_dec_kind kind, uint64_t off)
{
	struct sy_dec_item *it;

	/* no step pushes more than a handful of items: the queue is
	 * bounded whatever the input (pt_state.h) */
	if (pt->step_n == SY_PT_STEP_ITEMS)
		return &pt->discard;
	pt->step_n++;
	if (pt->skip) {
		/* the fast path's, already out (pt_ops.c) */
		pt->skip--;
		it = &pt->discard;
	} else {
		it = &pt->q[pt->qhead + pt->qn++];
	}
	memset(it, 0, sizeof(*it));
	it->kind = (uint8_t)kind;
	it->offset = off;
	it->ninsn = pt->ninsn;
	pt->ninsn = 0;
	return it;
}

/* Switches reporting on; see the top of the file. */
static void sy_pt_report_on(struct sy_pt *pt, uint64_t off)
{
	struct sy_dec_item *it;

	if (pt->reporting)
		return;
	pt->reporting = 1;
	pt->ninsn = 0;
	if (pt->have_time) {
		it = sy_pt_enqueue(pt, SY_DEC_TIME, off);
		it->time = pt->time;
	}
}

/* An item produced by a libipt call that started at @off (errors: where
 * the call ended).  Returns the item to fill in, a scratch item when it is
 * not reported. */
static struct sy_dec_item *sy_pt_push(struct sy_pt *pt, enum sy_dec_kind kind,
				      uint64_t off)
{
	if (!pt->reporting) {
		if (kind != SY_DEC_ERROR || off < pt->report_from) {
			pt->ninsn = 0;
			memset(&pt->discard, 0, sizeof(pt->discard));
			return &pt->discard;
		}
		sy_pt_report_on(pt, off);
	}
	return sy_pt_enqueue(pt, kind, off);
}

/* An error at @off that must be reported even before report_from: the
 * window's own bytes were lost. */
static void sy_pt_push_lost(struct sy_pt *pt, int code, uint64_t off)
{
	struct sy_dec_item *it;

	if (off < pt->report_from)
		off = pt->report_from;
	it = sy_pt_push(pt, SY_DEC_ERROR, off);
	it->code = (uint32_t)code;
}

static void sy_pt_time(struct sy_pt *pt, uint64_t tsc, uint64_t off)
{
	struct sy_dec_item *it;

	if (pt->have_time && tsc == pt->time)
		return;
	pt->time = tsc;
	pt->have_time = 1;
	it = sy_pt_push(pt, SY_DEC_TIME, off);
	it->time = tsc;
}

static void sy_pt_start(struct sy_pt *pt, uint64_t ip, uint64_t off)
{
	sy_pt_push(pt, SY_DEC_START, off)->to = ip;
	pt->tracing = 1;
	pt->need_start = 0;
	pt->have_last = 0;
	pt->pending = 0;
}

/* A stretch starts at trace time @tsc (@have_time: known): the context the
 * caller says runs then is read from here on, and a CONTEXT item says so
 * before the START.  It counts no instructions. */
static void sy_pt_context(struct sy_pt *pt, int have_time, uint64_t tsc,
			  uint64_t off)
{
	const struct sy_dec_params *p = &pt->d->params;
	uint64_t ninsn = pt->ninsn;
	struct sy_dec_item *it;
	uint32_t ctxid;

	pt->batch_stop = 1;

	/* the code in force then (a mapping replaced since): read afresh */
	if (p->code_at && have_time && p->code_at(p->mem_ctx, tsc)) {
		sy_code_cache_clear(&pt->code);
		sy_pt_cls_flush(pt);
		sy_ptb_clear(&pt->walk.blocks);
	}
	if (!p->ctx_at || !have_time || !p->ctx_at(p->mem_ctx, tsc, &ctxid))
		return;
	pt->d->ctxid = ctxid;
	it = sy_pt_push(pt, SY_DEC_CONTEXT, off);
	it->code = ctxid;
	it->ninsn = 0;
	pt->ninsn = ninsn;
}

static void sy_pt_stop(struct sy_pt *pt, enum sy_stop_reason why,
		       uint64_t to, uint64_t off)
{
	struct sy_dec_item *it = sy_pt_push(pt, SY_DEC_STOP, off);

	it->code = why;
	it->from = pt->have_last ? pt->last_ip : 0;
	it->to = to;
	pt->tracing = 0;
	pt->have_last = 0;
	pt->pending = 0;
}

static uint64_t sy_pt_fall(const struct sy_pt *pt)
{
	return pt->last.size ? pt->last_ip + pt->last.size : 0;
}

/* The instruction after the last one of the last block is @succ. */
static void sy_pt_resolve(struct sy_pt *pt, uint64_t succ, uint64_t off)
{
	struct sy_dec_item *it;

	if (!pt->pending)
		return;
	pt->pending = 0;
	if (!pt->last.size && pt->last.kind == SY_BR_COND) {
		/* Taken or not cannot be told without the size. */
		sy_pt_push(pt, SY_DEC_ERROR, off)->code = pte_bad_insn;
		return;
	}
	/* only a conditional branch can go to the next instruction without
	 * being taken: any other is a taken branch there (the lazy PLT's
	 * jmp *GOT to its own push, the PIC call to the next instruction),
	 * as an LBR records it */
	if (pt->last.size && succ == sy_pt_fall(pt) &&
	    pt->last.kind == SY_BR_COND)
		return;
	it = sy_pt_push(pt, SY_DEC_BRANCH, off);
	it->br = pt->last.kind;
	it->from = pt->last_ip;
	it->to = succ;
}

/* ------------------------------------------------------------------------
 * Blocks and events.
 * ---------------------------------------------------------------------- */

static unsigned sy_pt_bits(enum pt_exec_mode mode)
{
	switch (mode) {
	case ptem_16bit:
		return 16;
	case ptem_32bit:
		return 32;
	default:
		return 64;
	}
}

/* Does the decoded kind fit libipt's class of the instruction?  libipt's
 * decoder followed the trace with its class, so it wins; a mismatch leaves
 * the size unknown. */
static int sy_pt_class_fits(enum pt_insn_class iclass,
			    const struct sy_x86_branch *br)
{
	switch (iclass) {
	case ptic_cond_jump:
		return br->kind == SY_BR_COND;
	case ptic_call:
		return br->kind == SY_BR_CALL || br->kind == SY_BR_IND_CALL;
	case ptic_jump:
		return !br->far &&
		       (br->kind == SY_BR_JUMP || br->kind == SY_BR_IND_JUMP);
	case ptic_return:
		return br->kind == SY_BR_RET;
	case ptic_far_call:
		return br->kind == SY_BR_SYSCALL;
	case ptic_far_return:
		return br->kind == SY_BR_ERET;
	case ptic_far_jump:
		return br->far && br->kind == SY_BR_JUMP;
	default:
		return 0;
	}
}

static enum sy_branch_kind sy_pt_class_kind(enum pt_insn_class iclass)
{
	switch (iclass) {
	case ptic_cond_jump:
		return SY_BR_COND;
	case ptic_call:
		return SY_BR_CALL;
	case ptic_jump:
	case ptic_far_jump:
		return SY_BR_JUMP;
	case ptic_return:
		return SY_BR_RET;
	case ptic_far_call:
		return SY_BR_SYSCALL;
	case ptic_far_return:
		return SY_BR_ERET;
	default:
		return SY_BR_NONE;
	}
}

static void sy_pt_classify_uncached(struct sy_pt *pt,
				    const struct pt_block *b,
				    struct sy_x86_branch *br)
{
	uint8_t buf[pt_max_insn_size];
	size_t n;

	memset(br, 0, sizeof(*br));
	if (b->truncated) {
		n = b->size < sizeof(buf) ? b->size : sizeof(buf);
		memcpy(buf, b->raw, n);
	} else {
		n = sy_pt_code_read(pt, b->end_ip, buf, sizeof(buf));
	}
	if (sy_x86_branch_decode(buf, n, sy_pt_bits(b->mode), b->end_ip, br) <
	    0)
		memset(br, 0, sizeof(*br));
	if (b->iclass == ptic_error || sy_pt_class_fits(b->iclass, br))
		return;
	memset(br, 0, sizeof(*br));
	br->kind = (uint8_t)sy_pt_class_kind(b->iclass);
	br->far = b->iclass == ptic_far_call || b->iclass == ptic_far_return ||
		  b->iclass == ptic_far_jump;
}

/* Loops end their blocks at the same few branches over and over. */
static void sy_pt_classify(struct sy_pt *pt, const struct pt_block *b,
			   struct sy_x86_branch *br)
{
	struct sy_pt_class *c;

	if (b->iclass == ptic_other || b->iclass == ptic_ptwrite) {
		memset(br, 0, sizeof(*br));
		return;
	}
	if (!pt->cache_on || b->truncated) {
		sy_pt_classify_uncached(pt, b, br);
		return;
	}
	if (pt->cls_ctxid != pt->d->ctxid)
		sy_pt_cls_flush(pt);
	c = &pt->cls[(b->end_ip ^ (b->end_ip >> 10)) % SY_PT_NCLASS];
	if (c->ip == b->end_ip && c->mode == b->mode &&
	    c->iclass == b->iclass) {
		*br = c->br;
		return;
	}
	sy_pt_classify_uncached(pt, b, br);
	c->ip = b->end_ip;
	c->mode = (uint8_t)b->mode;
	c->iclass = (uint8_t)b->iclass;
	c->br = *br;
}

static void sy_pt_block(struct sy_pt *pt, const struct pt_block *b,
			uint64_t off)
{
	if (pt->need_start || !pt->tracing)
		sy_pt_start(pt, b->ip, off);
	else
		sy_pt_resolve(pt, b->ip, off);
	pt->ninsn += b->ninsn;
	pt->idle_insns += b->ninsn;

	pt->have_last = 1;
	pt->last_ip = b->end_ip;
	sy_pt_classify(pt, b, &pt->last);
	pt->pending = pt->last.kind != SY_BR_NONE;
	if (pt->last.direct && pt->last.kind != SY_BR_COND) {
		/* A direct call or jump goes where its bytes say, the next
		 * instruction included. */
		pt->pending = 1;
		sy_pt_resolve(pt, pt->last.target, off);
	}
}

static void sy_pt_event(struct sy_pt *pt, const struct pt_event *ev,
			uint64_t off)
{
	if (ev->has_tsc)
		sy_pt_time(pt, ev->tsc, off);
	switch (ev->type) {
	case ptev_enabled:
		/* A status update repeats what we know. */
		if (pt->tracing && ev->status_update)
			break;
		if (!pt->reporting && !ev->status_update) {
			if (pt->pge_skip)
				pt->pge_skip--;
			else
				sy_pt_report_on(pt, off);
		}
		/* a status update comes right after the sync that asked */
		if (!pt->tracing && !ev->status_update)
			sy_pt_context(pt, pt->have_time, pt->time, off);
		sy_pt_start(pt, ev->variant.enabled.ip, off);
		break;
	case ptev_disabled:
		if (pt->have_last && pt->last.kind == SY_BR_SYSCALL) {
			sy_pt_stop(pt, SY_STOP_SYSCALL, sy_pt_fall(pt), off);
		} else if (!ev->ip_suppressed) {
			sy_pt_resolve(pt, ev->variant.disabled.ip, off);
			sy_pt_stop(pt, SY_STOP_DISABLE, ev->variant.disabled.ip,
				   off);
		} else {
			sy_pt_stop(pt, SY_STOP_DISABLE, 0, off);
		}
		break;
	case ptev_async_disabled:
		sy_pt_resolve(pt, ev->variant.async_disabled.at, off);
		sy_pt_stop(pt, SY_STOP_EXCEPTION, ev->variant.async_disabled.at,
			   off);
		break;
	case ptev_async_branch:
		/* An interrupt while tracing both sides: stop before @from,
		 * continue at @to. */
		sy_pt_resolve(pt, ev->variant.async_branch.from, off);
		sy_pt_stop(pt, SY_STOP_EXCEPTION, ev->variant.async_branch.from,
			   off);
		if (!ev->ip_suppressed)
			sy_pt_start(pt, ev->variant.async_branch.to, off);
		break;
	case ptev_overflow:
		pt->pending = 0;
		pt->have_last = 0;
		pt->tracing = 0;
		sy_pt_push(pt, SY_DEC_OVERFLOW, off)->to =
			ev->ip_suppressed ? 0 : ev->variant.overflow.ip;
		if (!ev->ip_suppressed) {
			sy_pt_context(pt, pt->have_time, pt->time, off);
			sy_pt_start(pt, ev->variant.overflow.ip, off);
		}
		break;
	case ptev_stop:
		sy_pt_stop(pt, SY_STOP_DISABLE, 0, off);
		break;
	default:
		/* exec_mode, cbr, tick, paging, tsx, ...: no item; the block
		 * decoder applies what it needs itself. */
		break;
	}
}

/* ------------------------------------------------------------------------
 * The state machine behind next().
 * ---------------------------------------------------------------------- */

static int sy_pt_nonpad(const struct sy_pt *pt, uint64_t from, uint64_t to)
{
	uint64_t i;

	for (i = from; i < to && i < pt->len; i++)
		if (pt->trace[i])
			return 1;
	return 0;
}

/* Error @st from libipt; decoding goes on at the next PSB. */
static void sy_pt_fail(struct sy_pt *pt, int st)
{
	struct sy_dec_item *it;

	pt->err_code = pt_errcode(st);
	pt->pending = 0;
	pt->have_last = 0;
	pt->tracing = 0;
	pt->have_fail = pt->have_sync_off;
	pt->fail_psb = pt->sync_off;
	pt->fail_off = sy_pt_offset(pt);
	it = sy_pt_push(pt, SY_DEC_ERROR, pt->fail_off);
	it->code = (uint32_t)pt->err_code;
	/* as ETM's: the address code was missing at, so the binary can be
	 * named (sy_window_missing) */
	if (pt->err_code == pte_nomap)
		it->to = pt->nomap_ip;
	pt->nomap_ip = 0;
	pt->phase = SY_PT_RESYNC;
}

static void sy_pt_done(struct sy_pt *pt, uint64_t end)
{
	pt->phase = SY_PT_DONE;
	pt->d->stats.bytes = end > pt->report_from ? end - pt->report_from : 0;
}

/* Returns nonzero when a sync attempt that stopped at @pos made no
 * progress over the previous one. */
static int sy_pt_stuck(struct sy_pt *pt, uint64_t pos)
{
	if (pt->have_sync_off && pos <= pt->sync_off)
		return 1;
	pt->have_sync_off = 1;
	pt->sync_off = pos;
	return 0;
}

/* After a sync at the PSB at @off, trace may run on from the PSB+ (its
 * FUP): the first block is read right away, so the context of the PSB+'s
 * time is set now.  That is its TSC packet's: libipt applies it only once
 * it reads on.  Nothing is reported for the time itself, and where the
 * trace is not enabled there, the TIP.PGE that enables it asks again. */
static void sy_pt_sync_context(struct sy_pt *pt, uint64_t off)
{
	uint64_t end, tsc = 0;
	int has_tsc = 0;

	if ((pt->d->params.ctx_at || pt->d->params.code_at) &&
	    !sy_pt_psb_header(pt->trace, pt->len, off, &end, &has_tsc, &tsc))
		sy_pt_context(pt, has_tsc, tsc, off);
}

/* A trace enable libipt skipped after an error, at @off (struct
 * sy_pt_gap): a stretch starts there whose trace cannot be decoded.  Its
 * thread, time and an ERROR: no code at its IP when none can be read
 * there (the binary is then named, as for libipt's own error), else
 * SY_DEC_ERR_LOST (decoding starts again at the next PSB). */
static void sy_pt_gap_enable(struct sy_pt *pt, uint64_t off)
{
	const struct sy_pt_gap *g = &pt->gap;
	struct sy_dec_item *it;
	uint8_t b;
	int nomap;

	if (off < pt->report_from)
		return;
	sy_pt_report_on(pt, off);
	sy_pt_context(pt, g->have_tsc, g->tsc, off);
	if (g->have_tsc)
		sy_pt_time(pt, g->tsc, off);
	nomap = g->have_ip && !sy_pt_code_read(pt, g->ip, &b, 1);
	it = sy_pt_push(pt, SY_DEC_ERROR, off);
	it->code = nomap ? (uint32_t)pte_nomap : SY_DEC_ERR_LOST;
	it->to = g->have_ip ? g->ip : 0;
}

/* After an error: the next PSB (*@st, *@pos as pt_blk_sync_forward and
 * its offset), and the enables before it, one per call (1: one was
 * reported, call again).  Returns 0 when they are all out, -1 when the
 * sync's offset cannot be had. */
static int sy_pt_resync(struct sy_pt *pt, int first, int *st,
			uint64_t *pos)
{
	struct sy_pt_gap *g = &pt->gap;
	struct pt_config cfg;
	uint64_t off;

	if (!g->pd) {
		*st = sy_pt_dec_sync_forward(pt);
		*pos = pt->len;
		if (*st != -pte_eos && sy_pt_dec_sync_offset(pt, pos) < 0 &&
		    sy_pt_dec_offset(pt, pos) < 0)
			return -1;
		if (first || !pt->have_fail)
			return 0;
		pt->have_fail = 0;
		cfg = pt->cfg;
		cfg.begin = (uint8_t *)(uintptr_t)pt->trace;
		cfg.end = cfg.begin + pt->len;
		/* without memory for the walk, the enables go unreported, as
		 * they did before it */
		if (sy_pt_gap_open(g, &cfg, pt->fail_psb, pt->fail_off, *pos))
			return 0;
		g->st = *st;
	}
	if (sy_pt_gap_next(g, &off)) {
		sy_pt_gap_enable(pt, off);
		return 1;
	}
	*st = g->st;
	*pos = g->to;
	return 0;
}

void sy_pt_sync(struct sy_pt *pt)
{
	int first = pt->phase == SY_PT_FIRST_SYNC;
	uint64_t pos;
	int st, r;

	r = sy_pt_resync(pt, first, &st, &pos);
	if (r > 0)
		return;
	if (r < 0) {
		sy_pt_done(pt, pt->len);
		return;
	}
	if (st == -pte_eos) {
		/* No PSB (left): whatever the window holds from here on
		 * cannot be decoded. */
		if (first && sy_pt_nonpad(pt, pt->report_from, pt->len))
			sy_pt_push_lost(pt, pte_nosync, pt->report_from);
		else if (!first && !pt->reporting && pt->report_from < pt->len)
			sy_pt_push_lost(pt, pt->err_code, pt->report_from);
		sy_pt_done(pt, pt->len);
		return;
	}
	if (sy_pt_stuck(pt, pos)) {
		sy_pt_done(pt, pos);
		return;
	}
	/* Were the window's first bytes skipped? */
	if (first) {
		if (pos > pt->report_from &&
		    sy_pt_nonpad(pt, pt->report_from, pos))
			sy_pt_push_lost(pt, pte_nosync, pt->report_from);
	} else if (!pt->reporting && pos > pt->report_from) {
		sy_pt_push_lost(pt, pt->err_code, pt->report_from);
	}
	if (!pt->reporting && pos >= pt->report_from)
		sy_pt_report_on(pt, pos);
	if (!pt->reporting) {
		size_t i;

		/* The enabled events before the window, from here. */
		pt->pge_skip = 0;
		for (i = 0; i < pt->npge; i++)
			pt->pge_skip += pt->pge[i] >= pos;
	}
	if (st < 0) {
		/* A PSB+ we could not read; try the next one. */
		sy_pt_fail(pt, st);
		return;
	}
	pt->phase = SY_PT_RUN;
	pt->status = st;
	pt->tracing = 0;
	pt->need_start = 1;
	pt->have_last = 0;
	pt->pending = 0;
	pt->idle_insns = 0;
	pt->idle_off = pos;
	sy_pt_sync_context(pt, pos);
}

static void sy_pt_time_check(struct sy_pt *pt, uint64_t off)
{
	uint64_t tsc;

	if (sy_pt_dec_time(pt, &tsc) >= 0)
		sy_pt_time(pt, tsc, off);
}

/* The trace ends while tracing: report what it proves. */
static void sy_pt_end(struct sy_pt *pt, uint64_t off)
{
	struct pt_block b;
	uint64_t to = 0;
	int st;

	sy_pt_time_check(pt, off);
	if (pt->tracing) {
		/* libipt stops at the last instruction that consumed trace;
		 * its successor is where the next block would start. */
		memset(&b, 0, sizeof(b));
		st = sy_pt_dec_next(pt, &b);
		(void)st;
		if (b.ninsn) {
			to = b.ip;
			sy_pt_resolve(pt, to, off);
		} else if (pt->have_last && pt->last.direct &&
			   pt->last.kind != SY_BR_COND) {
			to = pt->last.target;
		}
		sy_pt_stop(pt, SY_STOP_END, to, off);
	}
	sy_pt_done(pt, pt->len);
}

static void sy_pt_run_one(struct sy_pt *pt)
{
	struct pt_event ev;
	struct pt_block b;
	uint64_t off = sy_pt_offset(pt);
	int st;

	if (off != pt->idle_off) {
		pt->idle_off = off;
		pt->idle_insns = 0;
	}
	if (pt->status & pts_event_pending) {
		st = sy_pt_dec_event(pt, &ev);
		if (st < 0) {
			sy_pt_fail(pt, st);
			return;
		}
		pt->status = st;
		sy_pt_event(pt, &ev, off);
		return;
	}
	if (pt->status & pts_eos) {
		sy_pt_end(pt, off);
		return;
	}
	if (pt->idle_insns > SY_PT_MAX_IDLE_INSNS) {
		sy_pt_fail(pt, -pte_internal);
		return;
	}

	memset(&b, 0, sizeof(b));
	st = sy_pt_dec_next(pt, &b);
	if (st == -pte_eos) {
		/* No pts_eos came first: treat the block as the unproven
		 * tail it is in that case. */
		if (pt->tracing && b.ninsn) {
			sy_pt_resolve(pt, b.ip, off);
			sy_pt_stop(pt, SY_STOP_END, b.ip, off);
		} else if (pt->tracing) {
			sy_pt_stop(pt, SY_STOP_END, 0, off);
		}
		sy_pt_done(pt, pt->len);
		return;
	}
	/* A block may come with an error and still hold instructions. */
	if (b.ninsn)
		sy_pt_block(pt, &b, off);
	if (st < 0) {
		sy_pt_fail(pt, st);
		return;
	}
	pt->status = st;
}

/* Whether the step goes on with the next block: while the caller takes
 * several steps' items at once (@batching), blocks follow each other
 * without going back to it, as long as their items fit (each block may
 * push SY_PT_STEP_ITEMS) and nothing but a block comes next.  A doubt
 * drops the items of the whole step, which the block decoder then gives
 * again (pt_ops.c): the same items. */
static int sy_pt_run_on(const struct sy_pt *pt)
{
	return pt->batching && pt->phase == SY_PT_RUN &&
	       !(pt->status & (pts_event_pending | pts_eos)) &&
	       !(pt->fast && pt->walk.doubt) && !pt->batch_stop &&
	       sy_pt_room(pt);
}

void sy_pt_run(struct sy_pt *pt)
{
	for (;;) {
		sy_pt_run_one(pt);
		if (!sy_pt_run_on(pt))
			return;
		pt->step_n = 0;
	}
}
