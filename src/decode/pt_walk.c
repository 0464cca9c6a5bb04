/* The Intel PT fast path: libipt's block decoder over the block cache and
 * the query decoder; see pt_walk.h.  Each function below stands for the
 * block decoder's step of the same role (pt_block_decoder.c in libipt
 * 2.0.5) for what it models, and says "doubt" for what it does not. */
#include "pt_walk.h"

#include <stdlib.h>
#include <string.h>

/* The block decoder's block limit: its ninsn is 16 bits. */
#define SY_PTW_BLOCK_MAX 0xffffu

static int sy_ptw_doubt(struct sy_ptw *w)
{
	w->doubt = 1;
	return -pte_internal;
}

int sy_ptw_init(struct sy_ptw *w, struct sy_code_cache *code,
		const uint32_t *ctxid)
{
	memset(w, 0, sizeof(*w));
	w->ctxid = ctxid;
	return sy_ptb_init(&w->blocks, code);
}

void sy_ptw_fini(struct sy_ptw *w)
{
	pt_qry_free_decoder(w->q);
	w->q = NULL;
	sy_ptb_fini(&w->blocks);
}

int sy_ptw_reset(struct sy_ptw *w, const struct pt_config *cfg)
{
	struct pt_config c = *cfg;

	pt_qry_free_decoder(w->q);
	memset(&c.flags, 0, sizeof(c.flags));
	w->q = pt_qry_alloc_decoder(&c);
	if (!w->q)
		return -SY_E_NOMEM;
	w->skd022 = cfg->errata.skd022;
	w->doubt = 0;
	sy_ptb_clear(&w->blocks);
	return 0;
}

/* ------------------------------------------------------------------------
 * Return compression: libipt's ring of 64 return addresses.
 * ---------------------------------------------------------------------- */

static void sy_ptw_rs_push(struct sy_ptw *w, uint64_t ip)
{
	w->rs[w->rs_top] = ip;
	w->rs_top = w->rs_top == SY_PTW_RETSTACK ? 0 : w->rs_top + 1;
	if (w->rs_top == w->rs_bottom)
		w->rs_bottom = w->rs_bottom == SY_PTW_RETSTACK ?
				       0 : w->rs_bottom + 1;
}

static int sy_ptw_rs_pop(struct sy_ptw *w, uint64_t *ip)
{
	if (w->rs_top == w->rs_bottom)
		return -pte_retstack_empty;
	w->rs_top = w->rs_top ? w->rs_top - 1 : SY_PTW_RETSTACK;
	*ip = w->rs[w->rs_top];
	return 0;
}

/* A near call's return address is remembered, but for a direct call to
 * the next instruction (position-independent code reading its IP). */
static void sy_ptw_log_call(struct sy_ptw *w, const struct sy_ptb_insn *in)
{
	if (in->iclass == ptic_call && !(in->direct && in->zero_disp))
		sy_ptw_rs_push(w, in->ip + in->size);
}

/* ------------------------------------------------------------------------
 * Status, events and ticks.
 * ---------------------------------------------------------------------- */

static int sy_ptw_status(const struct sy_ptw *w, int flags)
{
	if (!w->enabled)
		flags |= pts_ip_suppressed;
	/* the end of the trace waits for the events before it */
	if ((w->status & pts_eos) && !w->process_event)
		flags |= pts_eos;
	return flags;
}

static int sy_ptw_fetch_event(struct sy_ptw *w)
{
	int st;

	if (w->process_event)
		return 1;
	if (!(w->status & pts_event_pending))
		return 0;
	st = pt_qry_event(w->q, &w->ev, sizeof(w->ev));
	if (st < 0)
		return st;
	w->process_event = 1;
	w->status = st;
	return 1;
}

/* After a branch query: a tick event when the time moved since the last
 * event (enable_tick_events). */
static int sy_ptw_tick(struct sy_ptw *w, uint64_t ip)
{
	uint32_t lost_mtc = 0, lost_cyc = 0;
	uint64_t tsc = 0;
	int err;

	if (!w->enabled)
		return -pte_internal;
	if (w->process_event)
		return 0;
	err = pt_qry_time(w->q, &tsc, &lost_mtc, &lost_cyc);
	if (err < 0 && err != -pte_no_time)
		return err;
	if (tsc == w->ev.tsc)
		return 0;
	memset(&w->ev, 0, sizeof(w->ev));
	w->ev.type = ptev_tick;
	w->ev.variant.tick.ip = ip;
	w->ev.has_tsc = err != -pte_no_time;
	w->ev.tsc = tsc;
	w->ev.lost_mtc = lost_mtc;
	w->ev.lost_cyc = lost_cyc;
	w->process_event = 1;
	return 1;
}

static int sy_ptw_cond(struct sy_ptw *w, int *taken)
{
	int st = pt_qry_cond_branch(w->q, taken), err;

	if (st < 0)
		return st;
	err = sy_ptw_tick(w, w->ip);
	return err < 0 ? err : st;
}

/* ------------------------------------------------------------------------
 * Instructions.
 * ---------------------------------------------------------------------- */

/* The successor of @in without trace: 0 with *@ip, -pte_bad_query when
 * it needs trace. */
static int sy_ptw_static_next(const struct sy_ptb_insn *in, uint64_t *ip)
{
	if (in->iclass == ptic_other) {
		*ip = in->ip + in->size;
		return 0;
	}
	if (in->direct) {
		*ip = in->target;
		return 0;
	}
	return -pte_bad_query;
}

/* The successor of @in, which needs trace, into w->ip (left alone on
 * failure).  Returns the query's status or a negative error. */
static int sy_ptw_trace_next(struct sy_ptw *w, const struct sy_ptb_insn *in)
{
	uint64_t evip, ip;
	int st, taken, err;

	switch (in->iclass) {
	case ptic_cond_jump:
		st = sy_ptw_cond(w, &taken);
		if (st < 0)
			return st;
		w->ip = taken ? in->target : in->ip + in->size;
		return st;
	case ptic_return:
		/* a compressed return is a taken TNT bit */
		st = sy_ptw_cond(w, &taken);
		if (st >= 0) {
			if (!taken)
				return -pte_bad_retcomp;
			err = sy_ptw_rs_pop(w, &ip);
			if (err < 0)
				return err;
			w->ip = ip;
			return st;
		}
		if (st != -pte_bad_query)
			return st;
		break;
	case ptic_call:
	case ptic_jump:
		if (in->direct)
			return -pte_internal;
		break;
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
		break;
	default:
		return -pte_internal;
	}
	evip = w->ip;
	st = pt_qry_indirect_branch(w->q, &w->ip);
	if (st < 0)
		return st;
	err = sy_ptw_tick(w, evip);
	return err < 0 ? err : st;
}

/* The block ends at @in, which needs trace: one more step with it. */
static int sy_ptw_with_trace(struct sy_ptw *w, const struct sy_ptb_insn *in)
{
	int st = sy_ptw_trace_next(w, in);

	if (st < 0)
		return st;
	w->status = st;
	return st & pts_ip_suppressed ? -pte_noip : 0;
}

static void sy_ptw_add(struct pt_block *b, const struct sy_ptb_insn *in)
{
	b->end_ip = in->ip;
	b->iclass = (enum pt_insn_class)in->iclass;
	b->ninsn++;
}

/* Instruction by instruction to @target (any: to the first instruction
 * that needs trace), as the block decoder's proceed_to_ip and
 * proceed_to_insn do.  The last instruction walked in *@in.  Returns 1 at
 * @target, 0 when the block ends first (full, or after a direct call or
 * jump), -pte_bad_query at an instruction that needs trace (w->ip is
 * its), other negative errors. */
static int sy_ptw_walk_to(struct sy_ptw *w, struct pt_block *b, int any,
			  uint64_t target, struct sy_ptb_insn *in)
{
	uint64_t next;

	for (;;) {
		if (!any && w->ip == target)
			return 1;
		if (b->ninsn == SY_PTW_BLOCK_MAX)
			return 0;
		if (sy_ptb_decode(&w->blocks, *w->ctxid, w->mode, w->ip, in))
			return sy_ptw_doubt(w);
		sy_ptw_add(b, in);
		sy_ptw_log_call(w, in);
		if (sy_ptw_static_next(in, &next) < 0)
			return -pte_bad_query;
		w->ip = next;
		if (in->iclass == ptic_call || in->iclass == ptic_jump)
			return !any && w->ip == target;
	}
}

/* A block without events: one run of the block cache. */
static int sy_ptw_no_event(struct sy_ptw *w, struct pt_block *b)
{
	const struct sy_ptb_run *r;

	r = sy_ptb_run(&w->blocks, *w->ctxid, w->mode, w->ip);
	if (r->end == SY_PTB_DOUBT)
		return sy_ptw_doubt(w);
	b->ninsn = (uint16_t)r->ninsn;
	b->end_ip = r->last.ip;
	b->iclass = (enum pt_insn_class)r->last.iclass;
	if (r->end == SY_PTB_CAP) {
		w->ip = r->next;
		return 0;
	}
	sy_ptw_log_call(w, &r->last);
	if (r->last.direct) {
		/* end_on_call, end_on_jump */
		w->ip = r->last.target;
		return 0;
	}
	w->ip = r->last.ip;
	return sy_ptw_with_trace(w, &r->last);
}

/* ------------------------------------------------------------------------
 * Events bound to instructions.
 * ---------------------------------------------------------------------- */

/* The erratum SKD022 turns an async disable at VMLAUNCH/VMRESUME into a
 * sync one: those are doubtful here, anything else is not it. */
static int sy_ptw_skd022(struct sy_ptw *w, uint64_t at)
{
	struct sy_ptb_insn in;

	if (!w->skd022)
		return 0;
	if (sy_ptb_decode(&w->blocks, *w->ctxid, w->mode, at, &in) > 0)
		return sy_ptw_doubt(w);
	return 0;
}

static int sy_ptw_proceed_disabled(struct sy_ptw *w, struct pt_block *b)
{
	struct sy_ptb_insn in;
	int st;

	memset(&in, 0, sizeof(in));
	st = sy_ptw_walk_to(w, b, w->ev.ip_suppressed,
			    w->ev.variant.disabled.ip, &in);
	if (st > 0 || st != -pte_bad_query)
		return st;
	/* it binds to the branch that needs trace; tracing is expected to
	 * resume after a call */
	if (in.iclass == ptic_call || in.iclass == ptic_far_call)
		w->ip = in.ip + in.size;
	else
		w->ip = 0;
	return 1;
}

/* To the IP of an event that binds to one, using trace on the way when
 * needed (exec mode, async paging): 1 there, 0 not yet. */
static int sy_ptw_proceed_to_ip_with_trace(struct sy_ptw *w,
					   struct pt_block *b, uint64_t ip)
{
	struct sy_ptb_insn in;
	int st;

	if (w->ev.ip_suppressed)
		return 1;
	memset(&in, 0, sizeof(in));
	st = sy_ptw_walk_to(w, b, 0, ip, &in);
	if (st == -pte_bad_query)
		st = sy_ptw_with_trace(w, &in);
	if (st < 0)
		return st;
	return w->ip == ip;
}

/* The block decoder's proceed_event: to where the event binds. */
static int sy_ptw_proceed_event(struct sy_ptw *w, struct pt_block *b)
{
	struct sy_ptb_insn in;
	int st = 1;

	switch (w->ev.type) {
	case ptev_enabled:
	case ptev_overflow:
	case ptev_stop:
	case ptev_tick:
	case ptev_cbr:
	case ptev_mnt:
		break;
	case ptev_disabled:
		st = sy_ptw_proceed_disabled(w, b);
		break;
	case ptev_async_disabled:
		st = sy_ptw_walk_to(w, b, 0, w->ev.variant.async_disabled.at,
				    &in);
		if (st > 0 && sy_ptw_skd022(w, w->ev.variant.async_disabled.at))
			return -pte_internal;
		break;
	case ptev_async_branch:
		st = sy_ptw_walk_to(w, b, 0, w->ev.variant.async_branch.from,
				    &in);
		break;
	case ptev_paging:
		if (w->enabled)
			return sy_ptw_doubt(w);
		break;
	case ptev_exec_mode:
		st = sy_ptw_proceed_to_ip_with_trace(
			w, b, w->ev.variant.exec_mode.ip);
		break;
	case ptev_async_paging:
		/* a PSB+'s PIP, or one bound to an interrupt's TIP */
		st = sy_ptw_proceed_to_ip_with_trace(
			w, b, w->ev.variant.async_paging.ip);
		break;
	case ptev_tsx:
		/* transactions are followed (the flag is the block's), aborts
		 * are not */
		if (w->ev.variant.tsx.aborted)
			return sy_ptw_doubt(w);
		if (!w->ev.ip_suppressed)
			st = sy_ptw_walk_to(w, b, 0, w->ev.variant.tsx.ip,
					    &in);
		break;
	default:
		return sy_ptw_doubt(w);
	}
	if (st <= 0)
		return st;
	return sy_ptw_status(w, pts_event_pending);
}

/* The block decoder's proceed_trailing_event: whether the next event
 * applies here, at the end of a block or after an event. */
static int sy_ptw_trailing(struct sy_ptw *w)
{
	const struct pt_event *ev = &w->ev;
	int st = sy_ptw_fetch_event(w);

	if (st <= 0)
		return st < 0 ? st : sy_ptw_status(w, 0);
	switch (ev->type) {
	case ptev_disabled:
		break;
	case ptev_enabled:
	case ptev_overflow:
	case ptev_stop:
	case ptev_tick:
	case ptev_cbr:
	case ptev_mnt:
		return sy_ptw_status(w, pts_event_pending);
	case ptev_async_disabled:
		if (w->ip != ev->variant.async_disabled.at)
			break;
		if (sy_ptw_skd022(w, ev->variant.async_disabled.at) < 0)
			return -pte_internal;
		return sy_ptw_status(w, pts_event_pending);
	case ptev_async_branch:
		if (w->ip != ev->variant.async_branch.from)
			break;
		return sy_ptw_status(w, pts_event_pending);
	case ptev_paging:
		if (!w->enabled)
			return sy_ptw_status(w, pts_event_pending);
		break;
	case ptev_exec_mode:
		if (!ev->ip_suppressed && w->ip != ev->variant.exec_mode.ip)
			break;
		return sy_ptw_status(w, pts_event_pending);
	case ptev_async_paging:
		if (!ev->ip_suppressed && w->ip != ev->variant.async_paging.ip)
			break;
		return sy_ptw_status(w, pts_event_pending);
	case ptev_tsx:
		/* an abort may need erratum BDM64's guess: not modelled */
		if (ev->variant.tsx.aborted)
			return sy_ptw_doubt(w);
		if (!ev->ip_suppressed && w->ip != ev->variant.tsx.ip)
			break;
		return sy_ptw_status(w, pts_event_pending);
	default:
		return sy_ptw_doubt(w);
	}
	return sy_ptw_status(w, 0);
}

/* ------------------------------------------------------------------------
 * The block decoder's API.
 * ---------------------------------------------------------------------- */

/* Every libipt error but the end of the trace is the block decoder's to
 * report. */
static int sy_ptw_ret(struct sy_ptw *w, int st)
{
	if (st < 0 && st != -pte_eos)
		w->doubt = 1;
	return st;
}

int sy_ptw_sync_forward(struct sy_ptw *w)
{
	int st;

	w->mode = ptem_unknown;
	w->ip = 0;
	w->status = 0;
	w->enabled = 0;
	w->process_event = 0;
	w->speculative = 0;
	memset(&w->ev, 0, sizeof(w->ev));
	w->rs_top = w->rs_bottom = 0;
	st = pt_qry_sync_forward(w->q, &w->ip);
	if (st < 0)
		return sy_ptw_ret(w, st);
	w->status = st;
	if (!(st & pts_ip_suppressed))
		w->enabled = 1;
	return sy_ptw_ret(w, sy_ptw_trailing(w));
}

int sy_ptw_next(struct sy_ptw *w, struct pt_block *b)
{
	int st;

	memset(b, 0, sizeof(*b));
	b->ip = w->ip;
	b->mode = (enum pt_exec_mode)w->mode;
	b->speculative = w->speculative ? 1 : 0;
	st = sy_ptw_fetch_event(w);
	if (st != 0)
		return sy_ptw_ret(w, st < 0 ? st : sy_ptw_proceed_event(w, b));
	if (!w->enabled)
		return sy_ptw_ret(w, w->status & pts_eos ? -pte_eos :
							 -pte_no_enable);
	st = sy_ptw_no_event(w, b);
	if (st < 0)
		return sy_ptw_ret(w, st);
	return sy_ptw_ret(w, sy_ptw_trailing(w));
}

/* The block decoder's event processing (process_enabled and the rest). */
static int sy_ptw_apply(struct sy_ptw *w, struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_enabled:
		if (ev->variant.enabled.ip == w->ip)
			ev->variant.enabled.resumed = 1;
		if (ev->status_update || w->enabled)
			return -pte_bad_context;
		if (ev->ip_suppressed)
			return -pte_noip;
		w->ip = ev->variant.enabled.ip;
		w->enabled = 1;
		break;
	case ptev_async_disabled:
		if (w->ip != ev->variant.async_disabled.at)
			return -pte_bad_query;
		/* fall through */
	case ptev_disabled:
		if (ev->status_update || !w->enabled)
			return -pte_bad_context;
		w->enabled = 0;
		break;
	case ptev_async_branch:
		if (w->ip != ev->variant.async_branch.from)
			return -pte_bad_query;
		if (ev->status_update || !w->enabled)
			return -pte_bad_context;
		w->ip = ev->variant.async_branch.to;
		break;
	case ptev_async_paging:
		if (!ev->ip_suppressed && w->ip != ev->variant.async_paging.ip)
			return -pte_bad_query;
		/* fall through */
	case ptev_paging:
		/* the address space is the caller's (read_mem) */
		break;
	case ptev_tsx:
		if (!ev->ip_suppressed && w->ip != ev->variant.tsx.ip)
			return -pte_bad_query;
		w->speculative = ev->variant.tsx.speculative;
		break;
	case ptev_overflow:
		if (ev->status_update)
			return -pte_bad_context;
		w->enabled = !ev->ip_suppressed;
		w->ip = ev->ip_suppressed ? 0 : ev->variant.overflow.ip;
		w->speculative = 0;
		break;
	case ptev_exec_mode:
		if (!ev->ip_suppressed && w->ip != ev->variant.exec_mode.ip)
			return -pte_bad_query;
		if (ev->status_update && w->enabled &&
		    w->mode != ptem_unknown &&
		    w->mode != (int)ev->variant.exec_mode.mode)
			return -pte_bad_status_update;
		w->mode = ev->variant.exec_mode.mode;
		break;
	case ptev_stop:
		if (ev->status_update || w->enabled)
			return -pte_bad_context;
		break;
	case ptev_tick:
	case ptev_cbr:
	case ptev_mnt:
		break;
	default:
		return sy_ptw_doubt(w);
	}
	w->process_event = 0;
	return 0;
}

int sy_ptw_event(struct sy_ptw *w, struct pt_event *ev)
{
	int st;

	if (!w->process_event)
		return sy_ptw_ret(w, -pte_bad_query);
	st = sy_ptw_apply(w, &w->ev);
	if (st < 0)
		return sy_ptw_ret(w, st);
	*ev = w->ev;
	return sy_ptw_ret(w, sy_ptw_trailing(w));
}

int sy_ptw_get_offset(const struct sy_ptw *w, uint64_t *off)
{
	return pt_qry_get_offset(w->q, off);
}

int sy_ptw_get_sync_offset(const struct sy_ptw *w, uint64_t *off)
{
	return pt_qry_get_sync_offset(w->q, off);
}

int sy_ptw_time(struct sy_ptw *w, uint64_t *tsc)
{
	return pt_qry_time(w->q, tsc, NULL, NULL);
}
