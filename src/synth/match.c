#include "match.h"

#include <stdlib.h>
#include <string.h>

#include "sy_vec.h"

void sy_matcher_init(struct sy_matcher *m, size_t *held)
{
	memset(m, 0, sizeof(*m));
	m->held = held;
}

void sy_matcher_fini(struct sy_matcher *m)
{
	for (size_t i = m->ms_pos; i < m->nr_ms; i++)
		sy_stretch_release(&m->ms[i].st);
	free(m->ms);
	free(m->pend);
	free(m->res);
	free(m->ev);
	sy_matcher_init(m, m->held);
}

int sy_matcher_resume(struct sy_matcher *m, uint64_t time, uint64_t ip,
		      uint32_t tid, uint64_t seq)
{
	if (sy_grow((void **)&m->res, &m->cap_res, m->nr_res, sizeof(*m->res)))
		return -SY_E_NOMEM;
	m->res[m->nr_res].time = time;
	m->res[m->nr_res].ip = ip;
	m->res[m->nr_res].tid = tid;
	m->res[m->nr_res].seq = seq;
	m->nr_res++;
	return 0;
}

int sy_matcher_event(struct sy_matcher *m, enum sy_qev_kind kind,
		     uint64_t time, uint64_t flags)
{
	if (sy_grow((void **)&m->ev, &m->cap_ev, m->nr_ev, sizeof(*m->ev)))
		return -SY_E_NOMEM;
	m->ev[m->nr_ev].kind = kind;
	m->ev[m->nr_ev].time = time;
	m->ev[m->nr_ev].flags = flags;
	m->ev[m->nr_ev].tid = 0;
	m->ev[m->nr_ev].has_tid = 0;
	m->nr_ev++;
	return 0;
}

int sy_matcher_switch(struct sy_matcher *m, uint64_t time, uint64_t seq,
		      uint32_t tid, int has_tid)
{
	int err = sy_matcher_event(m, SY_QEV_SWITCH, time, seq);

	if (!err) {
		m->ev[m->nr_ev - 1].tid = tid;
		m->ev[m->nr_ev - 1].has_tid = has_tid;
	}
	return err;
}

int sy_matcher_pause(struct sy_matcher *m, struct sy_win *w)
{
	if (sy_grow((void **)&m->pend, &m->cap_pend, m->nr_pend,
		    sizeof(*m->pend)))
		return -SY_E_NOMEM;
	w->match.span_lo = m->has_last_pause ? m->last_pause_time : 0;
	w->match.has_span_lo = m->has_last_pause;
	m->last_pause_time = w->pub.pause_time;
	m->has_last_pause = 1;
	m->pend[m->nr_pend++] = w;
	return 0;
}

int sy_matcher_stretches(struct sy_matcher *m,
			 const struct sy_synth_config *cfg,
			 struct sy_stretch *v, size_t n, int has_aux_time,
			 uint64_t aux_time, uint64_t t_lo)
{
	for (size_t i = 0; i < n; i++) {
		struct sy_mstretch *ms;

		if (sy_grow((void **)&m->ms, &m->cap_ms, m->nr_ms,
			    sizeof(*m->ms)))
			return -SY_E_NOMEM;
		ms = &m->ms[m->nr_ms++];
		(*m->held)++;
		ms->st = v[i];
		sy_stretch_moved(&v[i]);
		if (ms->st.has_time) {
			ms->timed = 1;
			/* a stand-in taken when the trace started (PT's TSC
			 * before TIP.PGE) is the start; an older one says
			 * nothing, the stretch's last timestamp does */
			ms->pt0 = sy_timeconv_to_perf(
				&cfg->tc, ms->st.t0_stand_in &&
						  !(ms->st.flags & SY_SF_T0_START) ?
					  ms->st.t1 :
					  ms->st.t0);
			ms->pt1 = sy_timeconv_to_perf(&cfg->tc, ms->st.t1);
		} else if (has_aux_time) {
			/* timeless ETR: the AUX record written at the pause
			 * dates the whole group */
			ms->timed = 1;
			ms->pt0 = ms->pt1 = aux_time;
		} else if (ms->st.flags & SY_SF_NOTHING) {
			/* undecodable bytes before any timestamp: just after
			 * the data the unit follows */
			ms->timed = 1;
			ms->pt0 = ms->pt1 = t_lo + 1;
		} else {
			ms->timed = 0;
			ms->pt0 = ms->pt1 = 0;
		}
	}
	return 0;
}

/* The resume sample a window starts at: among the unused ones up to the
 * window's first trace, the newest whose IP the trace starts at, else the
 * newest.  Without trace to pin it (@have_addr 0), the first since the
 * previous pause (the kernel ignores the later ones: trace already runs)
 * and strictly between the two pauses.  Earlier ones are used up with it. */
static void sy_pick_resume(struct sy_matcher *m, struct sy_win *w,
			   uint64_t t_start, uint64_t addr, int have_addr)
{
	size_t best = SIZE_MAX, fallback = SIZE_MAX;

	for (size_t i = m->res_pos; i < m->nr_res; i++) {
		if (m->res[i].time > t_start)
			break;
		/* the trace starting at its IP proves a resume took effect,
		 * even one before a pause sample whose pause was missed; not
		 * one before a pause that stopped the trace (a resume on
		 * running trace at the same instruction of a loop) */
		if (have_addr && m->res[i].ip == addr &&
		    (!m->has_res_lo || m->res[i].time > m->res_lo ||
		     (m->res[i].time == m->res_lo &&
		      m->res[i].seq > m->res_lo_seq)))
			best = i;
		if (!have_addr) {
			/* a resume tied with a pause may be either side's */
			if (!w->match.has_span_lo || m->res[i].time > w->match.span_lo) {
				fallback = i;
				break;
			}
		} else if (!w->match.has_span_lo || m->res[i].time >= w->match.span_lo) {
			fallback = i;
		}
	}
	if (best == SIZE_MAX)
		best = fallback;
	if (best == SIZE_MAX)
		return;
	w->pub.has_resume = 1;
	w->pub.resume_time = m->res[best].time;
	w->pub.resume_ip = m->res[best].ip;
	w->match.resume_tid = m->res[best].tid;
	m->res_pos = best + 1;
}

/* AUX flags, context switches and lost data inside (lo, hi].  Lost data is
 * a range: a chunk missing from the file covers every window since the
 * previous AUX record (flags holds that record's time). */
static void sy_span_events(struct sy_matcher *m, struct sy_win *w,
			   uint64_t lo, uint64_t hi)
{
	for (size_t i = m->ev_pos; i < m->nr_ev; i++) {
		const struct sy_qevent *e = &m->ev[i];

		if (e->kind == SY_QEV_LOST_RANGE ? e->flags >= hi :
						    e->time > hi)
			continue;
		if (e->time <= lo && !(e->time == lo && lo == 0))
			continue;
		switch (e->kind) {
		case SY_QEV_AUX:
			w->ev.aux_flags |= e->flags;
			break;
		case SY_QEV_SWITCH:
			/* at the pause sample's time but read after it: the
			 * kernel switched after the pause interrupt */
			if (e->time == hi && e->flags > w->seq)
				break;
			/* the paused thread going out and coming back in
			 * (maybe from another CPU) runs no other thread's
			 * code here: its stack cannot join across the gap,
			 * whose ends are at different addresses
			 * (sy_stretch_joins), unless it ran nothing away */
			if (w->pub.has_pause && e->has_tid &&
			    e->tid == w->pub.tid)
				break;
			w->ev.switches++;
			break;
		case SY_QEV_LOST:
		case SY_QEV_LOST_RANGE:
			w->ev.lost = 1;
			break;
		}
	}
}

/* Whether a context switch came on the queue after window @w's resume
 * sample and no later than @t_start, where the window's trace on it
 * begins: the trace starts where the switch put a thread in, not at the
 * resume.  The resume was taken on the last instruction before the switch
 * (its sample is of the thread switched out), or the window's thread
 * was switched out and in again, here or on another CPU (a thread that
 * migrates in its window: its resume sample is on the CPU it left, the
 * trace here starts where it came in). */
static int sy_resumed_across_switch(const struct sy_matcher *m,
				    const struct sy_win *w, uint64_t t_start)
{
	if (!w->pub.has_pause)
		return 0;
	for (size_t i = m->ev_pos; i < m->nr_ev; i++) {
		const struct sy_qevent *e = &m->ev[i];

		if (e->kind == SY_QEV_SWITCH && e->time > w->pub.resume_time &&
		    e->time <= t_start)
			return 1;
	}
	return 0;
}

static void sy_drop_events(struct sy_matcher *m, uint64_t upto)
{
	while (m->ev_pos < m->nr_ev && m->ev[m->ev_pos].time <= upto)
		m->ev_pos++;
	sy_compact(m->ev, &m->ev_pos, &m->nr_ev, sizeof(*m->ev));
}

static int sy_give(struct sy_matcher *m, struct sy_win *w, size_t a, size_t b)
{
	if (b <= a)
		return 0;
	*m->held -= b - a;
	w->st = malloc((b - a) * sizeof(*w->st));
	if (!w->st)
		return -SY_E_NOMEM;
	for (size_t i = a; i < b; i++) {
		w->st[i - a] = m->ms[i].st;
		sy_stretch_moved(&m->ms[i].st);
	}
	w->nr_st = b - a;
	return 0;
}

static int sy_pinned_ip(const struct sy_mstretch *ms, uint64_t ip)
{
	return (ms->st.flags & SY_SF_STOPPED) && ms->st.end_addr == ip;
}

/* Whether stretch @ms's timestamps say it ran after pause sample @w. */
static int sy_runs_past(const struct sy_mstretch *ms, const struct sy_win *w)
{
	if (!ms->timed || !ms->st.has_time)
		return 0;
	return ms->pt1 > w->pub.pause_time ||
	       (ms->pt1 == w->pub.pause_time &&
		sy_stretch_stops_after_start(&ms->st));
}

/* Whether stretch @ms may be the one pause sample @w stopped: it stops at
 * the sample's IP, and no timestamp in it is later than the sample (the
 * pause stops the trace before its sample is written).  A missed pause at
 * the IP where the next pause really stops the trace (a loop) must not
 * claim that later run: the timestamps tell them apart.  A stretch whose
 * only timestamp is its own start stopped after it: a pause sample of that
 * very time was written before it ran (a missed pause whose interrupt
 * restarted the trace). */
static int sy_pinned_by(const struct sy_mstretch *ms, const struct sy_win *w)
{
	return sy_pinned_ip(ms, w->pub.pause_ip) && !sy_runs_past(ms, w);
}

/* Timestamps tie when a pause and a resume overflow at the same cycle: then
 * the order of the samples in the file says whether the stretch began before
 * pause sample @w (its resume came first) or after it. */
static int sy_starts_after(const struct sy_matcher *m,
			   const struct sy_mstretch *ms, const struct sy_win *w)
{
	if (ms->pt0 != w->pub.pause_time)
		return ms->pt0 > w->pub.pause_time;
	for (size_t i = m->res_pos; i < m->nr_res && m->res[i].time <= ms->pt0;
	     i++)
		if (m->res[i].time == ms->pt0 &&
		    m->res[i].ip == ms->st.start_addr)
			return m->res[i].seq > w->seq;
	return 0;
}

/* Whether stretch @k is bytes that decoded into nothing but an error
 * after stretch @k - 1 (@first or later, this pause sample's candidates)
 * stopped at pause sample @w: with no timestamp of its own it is dated by
 * the stopped stretch's last one, yet its bytes were written after that
 * stop, so they are a later window's. */
static int sy_error_after_stop(const struct sy_matcher *m, size_t k,
			       size_t first, const struct sy_win *w)
{
	const struct sy_mstretch *ms = &m->ms[k];

	return k > first && (ms->st.flags & SY_SF_NOTHING) &&
	       (ms->st.flags & SY_SF_ERROR) &&
	       (!ms->st.has_time || ms->st.t0_stand_in) &&
	       sy_pinned_by(&m->ms[k - 1], w);
}

/* Whether an AUX record that says TRUNCATED came in [@lo, @hi): the kernel
 * disables the trace there, so trace that ended before it was not stopped
 * by a pause sample after it. */
static int sy_truncated_in(const struct sy_matcher *m, uint64_t lo,
			   uint64_t hi)
{
	for (size_t i = m->ev_pos; i < m->nr_ev; i++) {
		const struct sy_qevent *e = &m->ev[i];

		if (e->kind == SY_QEV_AUX && e->time >= lo && e->time < hi &&
		    (e->flags & SY_AUX_FLAG_TRUNCATED))
			return 1;
	}
	return 0;
}

/* Whether a pause sample after the current one is known to stop stretch
 * @ms (its time is past what @ms saw and the trace stops at its IP, with
 * no truncation between): 1 yes, 0 no, -1 not known yet. */
static int sy_later_owner(const struct sy_matcher *m,
			  const struct sy_mstretch *ms, int final)
{
	const struct sy_mstretch *next =
		ms + 1 < m->ms + m->nr_ms ? ms + 1 : NULL;
	int later_known = 0;

	for (size_t k = m->pend_pos + 1; k < m->nr_pend; k++) {
		const struct sy_win *w2 = m->pend[k];

		if (w2->pub.pause_time < ms->pt1)
			continue;
		/* pause samples come in time order; one after the next
		 * stretch began cannot have stopped this one */
		if (later_known && next && next->timed &&
		    w2->pub.pause_time > next->pt0)
			break;
		later_known = 1;
		/* truncated after the stretch: what stopped it came first */
		if (sy_truncated_in(m, ms->pt1, w2->pub.pause_time))
			break;
		if (sy_pinned_ip(ms, w2->pub.pause_ip))
			return 1;
	}
	return later_known || final ? 0 : -1;
}

/* Stretch @k joins stretch @k + 1 unless a pause sample explains the gap:
 * trace stopped at that sample's IP and started again only after it (a
 * pause and the next resume at the same instruction). */
static int sy_run_joins(const struct sy_matcher *m, size_t k)
{
	const struct sy_mstretch *ms = &m->ms[k];
	const struct sy_mstretch *next = &m->ms[k + 1];

	if (!sy_stretch_joins(&ms->st, &next->st))
		return 0;
	for (size_t i = m->pend_pos; i < m->nr_pend; i++) {
		const struct sy_win *w = m->pend[i];

		if (ms->timed && w->pub.pause_time < ms->pt1)
			continue;
		/* in time order: later ones come after the next stretch
		 * began, so they do not explain the gap */
		if (next->timed && w->pub.pause_time > next->pt0)
			break;
		if (sy_pinned_ip(ms, w->pub.pause_ip) &&
		    sy_starts_after(m, &m->ms[k + 1], w))
			return 0;
	}
	return 1;
}

/* Without timestamps: one run (to the next stop) per pause sample, in
 * order.  Sets *@b past it; returns whether the window is decided. */
static int sy_decide_timeless(const struct sy_matcher *m, int all, size_t *b)
{
	while (*b < m->nr_ms && !(m->ms[*b].st.flags & SY_SF_STOPPED))
		(*b)++;
	if (*b < m->nr_ms) {
		(*b)++;
		return 1;
	}
	return all;
}

/* Runs of joined stretches (excursions that came back where they left) are
 * owned whole.  A run that began before the pause sample either ends at
 * it, or ran through it when a later pause sample is the one it stops at.
 * Sets *@b past the window's stretches and *@ran_through; returns whether
 * the window is decided. */
static int sy_decide_timed(const struct sy_matcher *m, const struct sy_win *w,
			   int all, int final, size_t *b, int *ran_through)
{
	/* where the trace was last enabled as far as this pause sample
	 * knows: a run that stopped where no pause sample explains it (a
	 * signal delivered at a syscall, a context switch) and was followed
	 * by more trace before this sample did not end the enable period.
	 * If the period runs through this sample, its pause was missed and
	 * all of the period belongs to the pause that stops it, not only
	 * the part after the last such stop. */
	size_t period = *b, first = *b;

	while (*b < m->nr_ms) {
		const struct sy_mstretch *ms = &m->ms[*b];
		size_t e = *b + 1;
		int later, restarted;

		while (e < m->nr_ms && sy_run_joins(m, e - 1))
			e++;
		if (!ms->timed || sy_starts_after(m, ms, w) ||
		    sy_error_after_stop(m, *b, first, w))
			return 1;
		ms = &m->ms[e - 1];
		if (e == m->nr_ms && !all && !final &&
		    (ms->st.flags & SY_SF_STOPPED) && !sy_pinned_by(ms, w))
			return 0; /* the run may go on in the next unit: wait */
		/* the run ends at this pause sample, or is cut by a
		 * discontinuity, or trace started again before the pause
		 * sample: it ended before it */
		restarted = e < m->nr_ms && m->ms[e].timed &&
			    !sy_starts_after(m, &m->ms[e], w);
		if (sy_pinned_by(ms, w) ||
		    !(ms->st.flags & SY_SF_STOPPED) || restarted) {
			/* a new period may begin after a stop by this pause
			 * (not one at its IP after which trace ran again
			 * before its sample: another thread's, in the same
			 * code) or a discontinuity of the trace itself */
			if ((sy_pinned_by(ms, w) && !restarted) ||
			    !(ms->st.flags & SY_SF_STOPPED))
				period = e;
			*b = e;
			continue;
		}
		/* even with all of this pause sample's trace decoded (ETR:
		 * its AUX group), a later pause sample already read may be
		 * the one the run stops at: then this pause was missed */
		later = sy_later_owner(m, ms, final || all);
		if (later < 0)
			return 0;
		/* or its timestamps say it still ran after this pause
		 * sample: the pause was missed (the recording ended the
		 * run) */
		if (later || sy_runs_past(ms, w)) {
			*ran_through = 1;
			*b = period;
			return 1;
		}
		*b = e;
	}
	return all;
}

/* Window @w owns stretches [a, b): its resume sample and the events of its
 * span follow. */
static int sy_resolve(struct sy_matcher *m, struct sy_win *w, size_t a,
		      size_t b, int ran_through)
{
	uint64_t hi = w->pub.pause_time, lo;

	if (sy_give(m, w, a, b))
		return -SY_E_NOMEM;
	m->ms_pos = b;
	w->match.ran_through = ran_through && a == b;
	if (w->nr_st && !(w->st[0].flags & SY_SF_NOTHING))
		sy_pick_resume(m, w, m->ms[a].timed ? m->ms[a].pt0 : hi,
			       w->st[0].start_addr, 1);
	else if (!w->match.ran_through)
		/* no trace (lost, never written, or bytes that did not
		 * decode): the window still started at its resume, if one
		 * came since the previous pause; a window whose pause was
		 * missed leaves its resumes to the one that owns the trace */
		sy_pick_resume(m, w, hi ? hi - 1 : 0, 0, 0);
	/* the window's own span: from its resume (or the previous pause) to
	 * its pause */
	lo = w->pub.has_resume ? w->pub.resume_time :
	     w->match.has_span_lo    ? w->match.span_lo :
				 0;
	if (w->pub.has_resume && w->nr_st && m->ms[a].timed &&
	    sy_resumed_across_switch(m, w, m->ms[a].pt0)) {
		/* the resume came on the last instruction before a context
		 * switch: the trace started in the thread switched to
		 * (convert(1), "Windows"), and the switch is before the
		 * window, not in it */
		w->match.resume_switched = 1;
		lo = m->ms[a].pt0;
	}
	sy_span_events(m, w, lo, hi);
	sy_drop_events(m, hi);
	if (!w->match.ran_through) {
		m->has_res_lo = 1;
		m->res_lo = hi;
		m->res_lo_seq = w->seq;
	}
	return 0;
}

int sy_matcher_next(struct sy_matcher *m, unsigned done, struct sy_win **out)
{
	int final = !!(done & SY_MATCH_NO_SAMPLES);
	struct sy_win *w;
	size_t a = m->ms_pos, b = a;
	int all, decided, ran_through = 0, err;

	*out = NULL;
	if (m->pend_pos >= m->nr_pend)
		return 0;
	w = m->pend[m->pend_pos];
	/* its own job has not come back: damaged timestamps in an earlier
	 * one must not decide it (the job still points at it) */
	if (w->match.has_group && !w->match.group_done)
		return 0;
	/* all of its stretches are known */
	all = (final && (done & SY_MATCH_NO_TRACE)) || w->match.group_done;
	if (b < m->nr_ms && !m->ms[b].timed)
		decided = sy_decide_timeless(m, all, &b);
	else
		decided = sy_decide_timed(m, w, all, final, &b, &ran_through);
	if (!decided)
		return 0;
	if ((err = sy_resolve(m, w, a, b, ran_through)))
		return err;
	m->pend_pos++;
	*out = w;
	return 1;
}

int sy_matcher_settle(struct sy_matcher *m, unsigned done)
{
	int final = !!(done & SY_MATCH_NO_SAMPLES);

	sy_compact(m->ms, &m->ms_pos, &m->nr_ms, sizeof(*m->ms));
	sy_compact(m->pend, &m->pend_pos, &m->nr_pend, sizeof(*m->pend));
	sy_compact(m->res, &m->res_pos, &m->nr_res, sizeof(*m->res));
	if (!final || m->pend_pos != m->nr_pend)
		return 0;
	/* stretches after the last pause sample: trace the recording ended
	 * with, no sample to attach it to */
	for (size_t i = m->ms_pos; i < m->nr_ms; i++)
		sy_stretch_release(&m->ms[i].st);
	*m->held -= m->nr_ms - m->ms_pos;
	m->ms_pos = m->nr_ms = 0;
	return 1;
}
