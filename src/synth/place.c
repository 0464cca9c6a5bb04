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
		  uint64_t period, uint32_t pid, uint32_t tid,
		  struct sy_chain *chain, int after_pause)
{
	struct sy_qsample *m;
	int dropped = 0;

	if (p->nr_qs - p->qs_pos >= SY_QS_MAX) {
		/* the oldest waited longest: no window is coming for it */
		sy_chain_free(&p->qs[p->qs_pos].chain);
		dropped = !p->qs[p->qs_pos].after_pause;
		p->qs_pos++;
		sy_compact(p->qs, &p->qs_pos, &p->nr_qs, sizeof(*p->qs));
	}
	if (sy_grow((void **)&p->qs, &p->cap_qs, p->nr_qs, sizeof(*p->qs))) {
		sy_chain_free(chain);
		return -SY_E_NOMEM;
	}
	m = &p->qs[p->nr_qs++];
	m->time = time;
	m->ip = ip;
	m->period = period;
	m->pid = pid;
	m->tid = tid;
	m->chain = *chain;
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

int sy_placer_take(struct sy_placer *p, struct sy_win *w)
{
	size_t n = 0;

	/* a pause that was missed stopped nothing: its samples interrupted
	 * the trace that the next pause sample's window owns */
	if (w->match.ran_through)
		return 0;
	while (p->qs_pos + n < p->nr_qs &&
	       p->qs[p->qs_pos + n].time <= w->pub.pause_time)
		n++;
	if (!n)
		return 0;
	w->qs = malloc(n * sizeof(*w->qs));
	if (!w->qs)
		return -SY_E_NOMEM;
	memcpy(w->qs, &p->qs[p->qs_pos], n * sizeof(*w->qs));
	w->nr_qs = n;
	p->qs_pos += n;
	sy_compact(p->qs, &p->qs_pos, &p->nr_qs, sizeof(*p->qs));
	if (p->qs_pos == p->nr_qs)
		sy_blocks_drop(&p->mem);
	return 0;
}

/* @n zeroed elements of @size bytes for window @w, cut from @mem (NULL,
 * or too large for a block: calloc'd, *@blk NULL). */
static void *sy_place_zalloc(struct sy_blocks *mem, size_t n, size_t size,
			     struct sy_block **blk)
{
	void *v;

	*blk = NULL;
	if (mem && n <= SY_BLOCKS_MAX / size &&
	    (v = sy_blocks_alloc(mem, n * size, blk)))
		return memset(v, 0, n * size);
	return calloc(n, size);
}

static int sy_place_all(const struct sy_synth_config *cfg, struct sy_win *w,
			struct sy_blocks *mem, const struct sy_bounds *b)
{
	size_t from = 0;

	for (size_t k = 0; k < w->nr_qs; k++) {
		struct sy_qsample *m = &w->qs[k];
		struct sy_inner_mem *im = &w->inner_mem[w->pub.nr_inner];
		struct sy_inner_sample *o;
		const struct sy_br *stack;
		uint32_t nr;
		long i = sy_place_one(cfg, w, b, m, from, &w->counted);

		if (i == -2)
			continue;
		if (i < 0) {
			w->pub.unplaced++;
			continue;
		}
		/* stack: NULL when it is the stretch's own; the packed
		 * chain stays until sy_place_window frees them all */
		if (sy_stretch_stack_upto(w->st, (size_t)i, cfg->depth, mem,
					  &im->stack, &stack, &nr) ||
		    sy_chain_unpack(&m->chain, mem, &im->chain,
				    &im->chain_blk)) {
			sy_stack_mem_free(&im->stack);
			return -SY_E_NOMEM;
		}
		o = &w->inner[w->pub.nr_inner++];
		o->time = m->time;
		o->ip = m->ip;
		o->period = m->period;
		o->pid = m->pid;
		o->tid = m->tid;
		o->callchain = im->chain;
		o->nr_callchain = m->chain.nr;
		o->stack = stack;
		o->nr_stack = nr;
		from = (size_t)i;
	}
	return 0;
}

int sy_place_window(const struct sy_synth_config *cfg, struct sy_win *w,
		    struct sy_blocks *mem)
{
	struct sy_bounds *b = NULL;
	size_t n = w->nr_qs;
	int err = 0;

	if (!n)
		return 0;
	w->inner = sy_place_zalloc(mem, n, sizeof(*w->inner), &w->inner_blk);
	w->inner_mem = sy_place_zalloc(mem, n, sizeof(*w->inner_mem),
				       &w->inner_mem_blk);
	if (w->nr_st)
		b = malloc(w->nr_st * sizeof(*b));
	if (!w->inner || !w->inner_mem || (w->nr_st && !b)) {
		err = -SY_E_NOMEM;
		goto out;
	}
	if (w->nr_st)
		sy_place_bounds(cfg, w, b);
	err = sy_place_all(cfg, w, mem, b);
	w->pub.inner = w->inner;
out:
	/* the packed chains go now, wherever it runs (a block's put is
	 * atomic), the placed ones unpacked; the array, malloc'd by the
	 * walk, goes with the window, on the walk's thread */
	sy_chains_free(&w->qs[0].chain, n, sizeof(*w->qs));
	free(b);
	if (err)
		w->place_err = err;
	return err;
}

int sy_placer_window(struct sy_placer *p, const struct sy_synth_config *cfg,
		     struct sy_win *w, uint64_t *counted)
{
	uint64_t before = w->counted;
	int err = sy_placer_take(p, w);

	if (!err)
		err = sy_place_window(cfg, w, NULL);
	*counted += w->counted - before;
	return err;
}

uint64_t sy_placer_drop(struct sy_placer *p)
{
	uint64_t n = 0;

	for (size_t i = p->qs_pos; i < p->nr_qs; i++) {
		n += !p->qs[i].after_pause;
		sy_chain_free(&p->qs[i].chain);
	}
	p->qs_pos = p->nr_qs = 0;
	sy_blocks_drop(&p->mem);
	return n;
}
