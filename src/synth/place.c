#include "place.h"

#include <stdlib.h>
#include <string.h>

#include "sy_vec.h"

/* Samples a queue holds for a window at most: a CPU whose pause event
 * never fires must not hold the whole recording's samples. */
#define SY_QS_MAX 65536

void sy_placer_init(struct sy_placer *p)
{
	memset(p, 0, sizeof(*p));
}

void sy_placer_fini(struct sy_placer *p)
{
	sy_placer_drop(p);
	free(p->qs);
	sy_placer_init(p);
}

int sy_placer_add(struct sy_placer *p, uint64_t time, uint64_t ip,
		  uint64_t period, uint32_t pid, uint32_t tid, uint64_t *chain,
		  struct sy_block *chain_blk, uint32_t nr_chain,
		  int after_pause)
{
	struct sy_qsample *m;
	int dropped = 0;

	if (p->nr_qs - p->qs_pos >= SY_QS_MAX) {
		/* the oldest waited longest: no window is coming for it */
		sy_blocks_free(p->qs[p->qs_pos].chain,
			       p->qs[p->qs_pos].chain_blk);
		dropped = !p->qs[p->qs_pos].after_pause;
		p->qs_pos++;
		sy_compact(p->qs, &p->qs_pos, &p->nr_qs, sizeof(*p->qs));
	}
	if (sy_grow((void **)&p->qs, &p->cap_qs, p->nr_qs, sizeof(*p->qs))) {
		sy_blocks_free(chain, chain_blk);
		return -SY_E_NOMEM;
	}
	m = &p->qs[p->nr_qs++];
	m->time = time;
	m->ip = ip;
	m->period = period;
	m->pid = pid;
	m->tid = tid;
	m->chain = chain;
	m->chain_blk = chain_blk;
	m->nr_chain = nr_chain;
	m->after_pause = after_pause;
	return dropped;
}

/* Perf-time bounds of the stop that ends each stretch: after the last
 * timestamp seen up to it, before the first one taken after a later trace
 * start (a stand-in timestamp predates its start, so it bounds nothing). */
struct sy_bounds {
	uint64_t lo, hi;
	int lo_open;	/* lo is the stretch's start: the stop is after it */
};

static void sy_place_bounds(const struct sy_synth_config *cfg,
			    const struct sy_win *w, struct sy_bounds *b)
{
	uint64_t lo = 0, hi = UINT64_MAX;

	for (size_t i = 0; i < w->nr_st; i++) {
		const struct sy_stretch *st = &w->st[i];

		if (st->has_time) {
			uint64_t t1 = sy_timeconv_to_perf(&cfg->tc, st->t1);

			if (t1 > lo)
				lo = t1;
		}
		b[i].lo = lo;
		/* a sample stamped with the stretch's own start was taken
		 * in the interrupt that started its trace, not at its stop:
		 * the bound is strict (ETE/TRBE and PT, coarse clocks) */
		b[i].lo_open = st->has_time &&
			       sy_timeconv_to_perf(&cfg->tc, st->t1) == lo &&
			       sy_stretch_stops_after_start(st);
	}
	for (size_t i = w->nr_st; i-- > 0;) {
		b[i].hi = hi;
		const struct sy_stretch *st = &w->st[i];

		if (st->has_time && !st->t0_stand_in) {
			uint64_t t0 = sy_timeconv_to_perf(&cfg->tc, st->t0);

			if (t0 < hi)
				hi = t0;
		}
	}
}

/* The one stretch sample @m interrupted, from @from on, or -1. */
static long sy_place_find(const struct sy_win *w, const struct sy_bounds *b,
			  const struct sy_qsample *m, size_t from)
{
	long found = -1;

	for (size_t i = from; i < w->nr_st; i++) {
		const struct sy_stretch *st = &w->st[i];

		if (!(st->flags & SY_SF_STOPPED) || (st->flags & SY_SF_NOTHING) ||
		    (st->stop_reason != SY_STOP_EXCEPTION &&
		     st->stop_reason != SY_STOP_DISABLE) ||
		    st->end_addr != m->ip)
			continue;
		if (st->has_ctx && st->ctxid != m->tid && st->ctxid != m->pid)
			continue;
		if (m->time < b[i].lo || m->time > b[i].hi ||
		    (b[i].lo_open && m->time == b[i].lo))
			continue;
		if (found >= 0)
			return -1; /* ambiguous */
		found = (long)i;
	}
	return found;
}

/* Whether @w's trace was running at perf time @t: after its first
 * stretch's start timestamp and no later than its pause sample. */
static int sy_place_ran_at(const struct sy_synth_config *cfg,
			   const struct sy_win *w, uint64_t t)
{
	const struct sy_stretch *st = w->nr_st ? &w->st[0] : NULL;

	if (!st || !st->has_time || (st->flags & SY_SF_NOTHING))
		return 0;
	return sy_timeconv_to_perf(&cfg->tc, st->t0) < t &&
	       t <= w->pub.pause_time;
}

/* Where sample @m goes in @w: the stretch index, -1 unplaced (but one of
 * the window's), -2 none of the window's (it came while trace was
 * paused).  Counts it in *@counted when it came after a pause sample and
 * turns out to be the window's. */
static long sy_place_one(const struct sy_synth_config *cfg,
			 const struct sy_win *w, const struct sy_bounds *b,
			 const struct sy_qsample *m, size_t from,
			 uint64_t *counted)
{
	long i;

	/* one written after this window's own pause sample (the same
	 * interrupt) came after that pause stopped the trace */
	if (m->after_pause && m->time >= w->pub.pause_time)
		return -2;
	i = w->nr_st ? sy_place_find(w, b, m, from) : -1;
	if (m->after_pause) {
		/* it came after a pause sample: it is one of the window's
		 * only if the trace ran then (the pause was missed), else it
		 * came while paused and is none of the counted samples */
		if (i < 0 && !sy_place_ran_at(cfg, w, m->time))
			return -2;
		(*counted)++;
	}
	return i;
}

int sy_placer_window(struct sy_placer *p, const struct sy_synth_config *cfg,
		     struct sy_win *w, uint64_t *counted)
{
	struct sy_bounds *b = NULL;
	size_t n = 0, from = 0;
	int err = 0;

	/* a pause that was missed stopped nothing: its samples interrupted
	 * the trace that the next pause sample's window owns */
	if (w->match.ran_through)
		return 0;
	while (p->qs_pos + n < p->nr_qs &&
	       p->qs[p->qs_pos + n].time <= w->pub.pause_time)
		n++;
	if (!n)
		return 0;
	w->inner = calloc(n, sizeof(*w->inner));
	w->inner_mem = calloc(n, sizeof(*w->inner_mem));
	if (w->nr_st)
		b = malloc(w->nr_st * sizeof(*b));
	if (!w->inner || !w->inner_mem || (w->nr_st && !b)) {
		err = -SY_E_NOMEM;
		goto out;
	}
	if (w->nr_st)
		sy_place_bounds(cfg, w, b);
	for (size_t k = 0; k < n; k++) {
		struct sy_qsample *m = &p->qs[p->qs_pos + k];
		struct sy_inner_sample *o;
		const struct sy_br *stack;
		struct sy_stack_mem sm;
		uint32_t nr;
		long i = sy_place_one(cfg, w, b, m, from, counted);

		if (i == -2)
			continue;
		if (i < 0) {
			w->pub.unplaced++;
			continue;
		}
		/* on the walk's thread, which frees it too: malloc'd */
		err = sy_stretch_stack_upto(w->st, (size_t)i, cfg->depth, NULL,
					    &sm, &stack, &nr);
		if (err)
			goto out;
		w->inner_mem[w->pub.nr_inner].chain = m->chain;
		w->inner_mem[w->pub.nr_inner].chain_blk = m->chain_blk;
		/* NULL when the stack is the stretch's own */
		w->inner_mem[w->pub.nr_inner].stack = sm.v;
		o = &w->inner[w->pub.nr_inner++];
		o->time = m->time;
		o->ip = m->ip;
		o->period = m->period;
		o->pid = m->pid;
		o->tid = m->tid;
		o->callchain = m->chain;
		o->nr_callchain = m->nr_chain;
		o->stack = stack;
		o->nr_stack = nr;
		m->chain = NULL;
		m->chain_blk = NULL;
		from = (size_t)i;
	}
	w->pub.inner = w->inner;
out:
	for (size_t k = 0; k < n; k++)
		sy_blocks_free(p->qs[p->qs_pos + k].chain,
			       p->qs[p->qs_pos + k].chain_blk);
	p->qs_pos += n;
	sy_compact(p->qs, &p->qs_pos, &p->nr_qs, sizeof(*p->qs));
	if (p->qs_pos == p->nr_qs)
		sy_blocks_drop(&p->mem);
	free(b);
	return err;
}

uint64_t sy_placer_drop(struct sy_placer *p)
{
	uint64_t n = 0;

	for (size_t i = p->qs_pos; i < p->nr_qs; i++) {
		n += !p->qs[i].after_pause;
		sy_blocks_free(p->qs[i].chain, p->qs[i].chain_blk);
	}
	p->qs_pos = p->nr_qs = 0;
	sy_blocks_drop(&p->mem);
	return n;
}
