#include "validate.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "missing.h"

int sy_validator_init(struct sy_validator *v,
		      const struct sy_synth_config *cfg)
{
	memset(v, 0, sizeof(*v));
	v->cfg = cfg;
	if (cs_open(cfg->kind == SY_TRACE_ETM ? CS_ARCH_ARM64 : CS_ARCH_X86,
		    cfg->kind == SY_TRACE_ETM ? CS_MODE_ARM : CS_MODE_64,
		    &v->cs) == CS_ERR_OK)
		v->cs_ok = 1;
	return sy_plausible_init(&v->pl, cfg->kind);
}

void sy_validator_fini(struct sy_validator *v)
{
	if (v->cs_ok)
		cs_close(&v->cs);
	v->cs_ok = 0;
	sy_plausible_fini(&v->pl);
	sy_blocks_drop(&v->mem);
}

void *sy_validator_new(void *cfg)
{
	struct sy_validator *v = malloc(sizeof(*v));

	if (v && sy_validator_init(v, cfg)) {
		sy_validator_free(v);
		v = NULL;
	}
	return v;
}

void sy_validator_free(void *v)
{
	if (!v)
		return;
	sy_validator_fini(v);
	free(v);
}

static void sy_reason(struct sy_win *w, enum sy_status st, const char *fmt,
		      ...) SY_PRINTF(3, 4);

static void sy_reason(struct sy_win *w, enum sy_status st, const char *fmt,
		      ...)
{
	va_list ap;

	w->pub.status = st;
	va_start(ap, fmt);
	vsnprintf(w->pub.reason, sizeof(w->pub.reason), fmt, ap);
	va_end(ap);
}

/* Instructions from @a up to @b on straight-line code, or UINT64_MAX when
 * @b is not reached within @max instructions. */
static uint64_t sy_insn_distance(const struct sy_validator *v,
				 const struct sy_win *w, uint64_t a, uint64_t b,
				 uint32_t max)
{
	const struct sy_aspace *as;
	uint8_t code[16];
	uint64_t n = 0;

	if (a == b)
		return 0;
	if (a > b)
		return UINT64_MAX;
	if (v->cfg->kind == SY_TRACE_ETM)
		return (b - a) % 4 == 0 && (b - a) / 4 <= max ? (b - a) / 4 :
							       UINT64_MAX;
	if (!v->cs_ok || !w->snap)
		return UINT64_MAX;
	as = sy_proc_snap_aspace(w->snap, w->pub.tid);
	while (a < b && n < max) {
		const uint8_t *p = code;
		size_t len = sy_aspace_read(as, a, code, sizeof(code));
		uint64_t addr = a;
		cs_insn *insn = cs_malloc(v->cs);

		if (!insn)
			return UINT64_MAX;
		int ok = len && cs_disasm_iter(v->cs, &p, &len, &addr, insn);
		cs_free(insn, 1);
		if (!ok)
			return UINT64_MAX;
		a = addr;
		n++;
	}
	return a == b ? n : UINT64_MAX;
}

static int sy_pinned(const struct sy_validator *v, const struct sy_win *w,
		     uint64_t trace, uint64_t sample, int trace_after)
{
	uint32_t skid = v->cfg->skid;

	if (trace == sample)
		return 1;
	if (!skid)
		return 0;
	/* the trace may lag the sample by up to skid instructions */
	return trace_after ?
		       sy_insn_distance(v, w, sample, trace, skid) <= skid :
		       sy_insn_distance(v, w, trace, sample, skid) <= skid;
}

static uint64_t sy_length(const struct sy_synth_config *cfg,
			  const struct sy_win *w)
{
	switch (cfg->win_unit) {
	case SY_UNIT_BRANCHES:
		return w->pub.branches;
	case SY_UNIT_NS:
		if (w->pub.has_resume && w->pub.has_pause)
			return w->pub.pause_time - w->pub.resume_time;
		return w->pub.has_trace_time ?
			       w->pub.trace_end - w->pub.trace_start :
			       0;
	default:
		return w->pub.insns;
	}
}

/* What a window's stretches add up to. */
struct sy_evidence {
	const struct sy_stretch *first, *last;	/* that ran code */
	uint32_t flags;		/* SY_SF_* of any stretch */
	int ctx_other;		/* a context ID of another thread */
};

/* The trace bytes stretches cover, first to last.  Not the last one's end
 * less the first one's start: a stretch of a lone timestamp (held back by
 * the decoder for an element) may come from bytes before its
 * predecessor's. */
static uint64_t sy_stretches_span(const struct sy_stretch *st, size_t nr)
{
	uint64_t lo = st[0].off0, hi = st[0].off1;

	for (size_t i = 1; i < nr; i++) {
		if (st[i].off0 < lo)
			lo = st[i].off0;
		if (st[i].off1 > hi)
			hi = st[i].off1;
	}
	return hi - lo;
}

/* Counts, times, ends and bytes of the window from its stretches. */
static void sy_sum_stretches(const struct sy_synth_config *cfg,
			     struct sy_win *w, struct sy_evidence *ev)
{
	struct sy_window *p = &w->pub;

	memset(ev, 0, sizeof(*ev));
	p->insns = p->branches = p->decode_errors = p->cycles = 0;
	p->has_cycles = 0;
	for (size_t i = 0; i < w->nr_st; i++) {
		const struct sy_stretch *st = &w->st[i];

		if (!(st->flags & SY_SF_NOTHING)) {
			if (!ev->first)
				ev->first = st;
			ev->last = st;
		}
		p->insns += st->insns;
		p->branches += st->branches;
		p->cycles += st->cycles;
		p->has_cycles |= st->has_cycles;
		if (st->errors && !p->decode_errors) {
			p->first_error = st->first_error;
			p->first_error_offset = st->first_error_off;
			p->first_error_addr = st->first_error_addr;
		}
		p->decode_errors += st->errors;
		ev->flags |= st->flags;
		if (st->has_ctx && p->has_pause && st->ctxid != p->tid &&
		    st->ctxid != p->pid)
			ev->ctx_other = 1;
		if (st->has_time) {
			uint64_t t0 = sy_timeconv_to_perf(&cfg->tc, st->t0);
			uint64_t t1 = sy_timeconv_to_perf(&cfg->tc, st->t1);

			if (!p->has_trace_time || t0 < p->trace_start)
				p->trace_start = t0;
			if (!p->has_trace_time || t1 > p->trace_end)
				p->trace_end = t1;
			p->has_trace_time = 1;
		}
	}
	if (ev->first)
		p->start_addr = ev->first->start_addr;
	if (ev->last)
		p->end_addr = ev->last->end_addr;
	p->bytes = w->ev.aux_bytes;
	if (!w->ev.aux_bytes && w->nr_st)
		p->bytes = sy_stretches_span(w->st, w->nr_st);
}

/* The stack: newest branch first, from the newest stretch and the ones it
 * continues (untraced excursions that came back where they left); never
 * across a discontinuity. */
static void sy_cut_stack(struct sy_validator *v, struct sy_win *w,
			 const struct sy_evidence *ev)
{
	struct sy_window *p = &w->pub;

	p->nr_stack = 0;
	if (ev->last && !(w->st[w->nr_st - 1].flags & SY_SF_NOTHING))
		sy_stretch_stack_upto(w->st, w->nr_st - 1, v->cfg->depth,
				      &v->mem, &w->stack, &p->stack,
				      &p->nr_stack);
}

/* A window without any stretch. */
static void sy_check_no_trace(struct sy_win *w)
{
	const struct sy_window *p = &w->pub;

	if (w->match.ran_through)
		sy_reason(w, SY_ST_END_MISMATCH,
			  "trace ran through this pause sample: its pause was "
			  "missed");
	else if (w->ev.lost || (w->ev.aux_flags & (SY_AUX_FLAG_TRUNCATED |
					     SY_AUX_FLAG_COLLISION)))
		sy_reason(w, SY_ST_TRUNCATED,
			  "no trace: the window's AUX data was lost");
	else if (p->bytes)
		sy_reason(w, SY_ST_EMPTY, "no trace decoded");
	else if (p->has_resume)
		sy_reason(w, SY_ST_PAUSED,
			  "no trace before this pause sample: the resume "
			  "sample at %" PRIu64 " did not resume trace",
			  p->resume_time);
	else
		sy_reason(w, SY_ST_PAUSED,
			  "no trace before this pause sample: trace was "
			  "paused");
}

/* Whether the trace itself is whole: returns 1 with the status set when it
 * is not (empty, truncated, undecodable, overflowed). */
static int sy_check_data(struct sy_win *w, const struct sy_evidence *ev)
{
	const struct sy_window *p = &w->pub;

	/* a cut window may show no instruction because of the cut: as
	 * without any stretch, the cut is said first */
	if (w->ev.lost || (w->ev.aux_flags & (SY_AUX_FLAG_TRUNCATED |
					SY_AUX_FLAG_PARTIAL |
					SY_AUX_FLAG_COLLISION))) {
		sy_reason(w, SY_ST_TRUNCATED, "%s",
			  w->ev.lost ? "AUX bytes of the window are missing" :
			  (w->ev.aux_flags & SY_AUX_FLAG_TRUNCATED) ?
				    "AUX record flagged TRUNCATED" :
			  (w->ev.aux_flags & SY_AUX_FLAG_COLLISION) ?
				    "AUX record flagged COLLISION" :
				    "AUX record flagged PARTIAL");
		return 1;
	}
	if ((!ev->last && !p->decode_errors) ||
	    (!p->insns && !p->branches && !p->decode_errors)) {
		sy_reason(w, SY_ST_EMPTY, "no instruction executed");
		return 1;
	}
	if (p->decode_errors) {
		sy_reason(w, SY_ST_DECODE_ERROR,
			  "%" PRIu64 " decode error(s), first: code %d at "
			  "trace byte %" PRIu64,
			  p->decode_errors, p->first_error,
			  p->first_error_offset);
		return 1;
	}
	if (ev->flags & SY_SF_OVERFLOW) {
		sy_reason(w, SY_ST_OVERFLOW, "trace unit overflow");
		return 1;
	}
	return 0;
}

/* Whether the trace starts at the resume sample and stops at the pause
 * sample: returns 1 with the status set when not. */
static int sy_check_ends(const struct sy_validator *v, struct sy_win *w,
			 const struct sy_evidence *ev)
{
	const struct sy_window *p = &w->pub;
	const struct sy_stretch *first = ev->first, *last = ev->last;

	if (v->cfg->start_paused && p->has_pause && first && !p->has_resume) {
		sy_reason(w, SY_ST_START_MISMATCH,
			  "trace starts at %#" PRIx64 " with no resume sample "
			  "before it", first->start_addr);
		return 1;
	}
	/* a resume on the last instruction before a context switch: its
	 * sample has the previous thread's IP, the trace starts the next */
	if (p->has_resume && first && !w->match.resume_switched &&
	    !sy_pinned(v, w, first->start_addr, p->resume_ip, 1)) {
		sy_reason(w, SY_ST_START_MISMATCH,
			  "trace starts at %#" PRIx64 ", resume sample IP is "
			  "%#" PRIx64, first->start_addr, p->resume_ip);
		return 1;
	}
	if (!p->has_pause || !last)
		return 0;
	if (!(last->flags & SY_SF_STOPPED)) {
		sy_reason(w, SY_ST_END_MISMATCH,
			  "trace does not stop at an interrupt; pause sample IP "
			  "is %#" PRIx64, p->pause_ip);
		return 1;
	}
	if (!sy_pinned(v, w, last->end_addr, p->pause_ip, 0)) {
		sy_reason(w, SY_ST_END_MISMATCH,
			  "trace stops at %#" PRIx64 ", pause sample IP is "
			  "%#" PRIx64, last->end_addr, p->pause_ip);
		return 1;
	}
	return 0;
}

/* Whether one thread ran: returns 1 with the status set when not. */
static int sy_check_thread(struct sy_win *w, const struct sy_evidence *ev)
{
	const struct sy_window *p = &w->pub;
	int other_tid = p->has_resume && p->has_pause && !w->match.resume_switched &&
			w->match.resume_tid != p->tid;

	if (!w->ev.switches && !ev->ctx_other && !(ev->flags & SY_SF_CONTEXT) &&
	    !other_tid)
		return 0;
	sy_reason(w, SY_ST_THREAD_MISMATCH, "%s",
		  w->ev.switches ? "context switch inside the window" :
		  other_tid   ? "resumed and paused in different threads" :
				"trace context ID of another thread");
	return 1;
}

/* The user's bounds: returns 1 with the status set when out of them. */
static int sy_check_bounds(const struct sy_synth_config *cfg,
			   struct sy_win *w)
{
	const struct sy_window *p = &w->pub;
	uint64_t len = sy_length(cfg, w);

	if (cfg->win_min && len < cfg->win_min) {
		sy_reason(w, SY_ST_TOO_SHORT, "length %" PRIu64 " < %" PRIu64,
			  len, cfg->win_min);
		return 1;
	}
	if (cfg->win_max && len > cfg->win_max) {
		sy_reason(w, SY_ST_TOO_LONG, "length %" PRIu64 " > %" PRIu64,
			  len, cfg->win_max);
		return 1;
	}
	if (cfg->min_branches && p->branches < cfg->min_branches) {
		sy_reason(w, SY_ST_FEW_BRANCHES,
			  "%" PRIu64 " branches < %" PRIu64, p->branches,
			  cfg->min_branches);
		return 1;
	}
	return 0;
}

/* Whether every branch is one a program makes: returns 1 with the status
 * set when not. */
static int sy_check_plausible(struct sy_validator *v, struct sy_win *w)
{
	char why[sizeof(w->pub.reason)];
	struct sy_pl_suspects sus;
	int r = sy_plausible_window(&v->pl, w, why, sizeof(why), &sus);

	/* the branch read only when there is one: @sus was just written
	 * whole, and reading its two ends as one 16-byte load across those
	 * stores stalled, a window at a time (0.5% of a convert of real ETE
	 * trace, whose windows are short) */
	w->pub.suspect = sus.n;
	w->pub.suspect_kind = 0;
	w->pub.suspect_from = w->pub.suspect_to = 0;
	if (sus.n) {
		w->pub.suspect_kind = sus.kind;
		w->pub.suspect_from = sus.from;
		w->pub.suspect_to = sus.to;
	}
	if (!r)
		return 0;
	sy_reason(w, SY_ST_IMPLAUSIBLE, "%s", why);
	return 1;
}

void sy_validate(struct sy_validator *v, struct sy_win *w)
{
	struct sy_evidence ev;

	sy_sum_stretches(v->cfg, w, &ev);
	sy_win_charge_missing(v->cfg, w);
	sy_cut_stack(v, w, &ev);
	if (!w->nr_st && !w->pub.decode_errors) {
		sy_check_no_trace(w);
		return;
	}
	if (sy_check_data(w, &ev)) {
		/* the whole trace writes such a window's branches (as perf
		 * script does): they get the checks all the same */
		if (v->cfg->whole_trace && w->pub.status != SY_ST_EMPTY)
			sy_check_plausible(v, w);
		return;
	}
	if (sy_check_ends(v, w, &ev) ||
	    sy_check_thread(w, &ev) || sy_check_bounds(v->cfg, w) ||
	    sy_check_plausible(v, w))
		return;
	w->pub.status = SY_ST_OK;
	w->pub.reason[0] = 0;
}
