/* Which trace belongs to which pause sample.
 *
 * The kernel may drop a pause or a resume that coincides with another (in
 * NMI context), so the samples alone do not say when trace ran.  The trace
 * does: each stretch carries its own timestamps and its end address.  So a
 * pause sample P owns the stretches that end after the previous pause
 * sample of its queue and no later than P (the pause stops the trace before
 * P is written).  Its window starts at the resume sample, among those not
 * yet used, whose IP the first stretch starts at (the resume takes effect
 * after its sample is written): a missed pause or resume then costs only
 * the samples it really affects.
 *
 * A pause sample that owns no stretch was taken while trace was paused
 * (status paused), unless a stretch runs across its time: then its pause
 * was missed and the trace kept running (end-mismatch).  That is known only
 * once the next stretch of the queue is, so pause samples wait for it; the
 * output order does not change, only when windows are handed out.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"

void sy_match_free(struct sy_queue *q)
{
	for (size_t i = q->ms_pos; i < q->nr_ms; i++)
		free(q->ms[i].st.ring);
	free(q->ms);
	free(q->pend);
	free(q->res);
	free(q->ev);
	for (size_t i = q->qs_pos; i < q->nr_qs; i++)
		free(q->qs[i].chain);
	free(q->qs);
	q->qs = NULL;
	q->ms = NULL;
	q->pend = NULL;
	q->res = NULL;
	q->ev = NULL;
}

int sy_match_resume(struct sy_queue *q, uint64_t time, uint64_t ip,
		    uint32_t tid, uint64_t seq)
{
	if (sy_grow((void **)&q->res, &q->cap_res, q->nr_res, sizeof(*q->res)))
		return -SY_E_NOMEM;
	q->res[q->nr_res].time = time;
	q->res[q->nr_res].ip = ip;
	q->res[q->nr_res].tid = tid;
	q->res[q->nr_res].seq = seq;
	q->nr_res++;
	return 0;
}

int sy_match_event(struct sy_queue *q, int kind, uint64_t time,
		   uint64_t flags)
{
	if (sy_grow((void **)&q->ev, &q->cap_ev, q->nr_ev, sizeof(*q->ev)))
		return -SY_E_NOMEM;
	q->ev[q->nr_ev].kind = kind;
	q->ev[q->nr_ev].time = time;
	q->ev[q->nr_ev].flags = flags;
	q->nr_ev++;
	return 0;
}

int sy_match_pause(struct sy_queue *q, struct sy_win *w)
{
	if (sy_grow((void **)&q->pend, &q->cap_pend, q->nr_pend,
		    sizeof(*q->pend)))
		return -SY_E_NOMEM;
	w->span_lo = q->has_last_pause ? q->last_pause_time : 0;
	w->has_span_lo = q->has_last_pause;
	q->last_pause_time = w->pub.pause_time;
	q->has_last_pause = 1;
	q->pend[q->nr_pend++] = w;
	return 0;
}

int sy_match_stretches(struct sy_session *s, struct sy_queue *q,
		       struct sy_stretch *v, size_t n, int has_aux_time,
		       uint64_t aux_time, uint64_t t_lo)
{
	for (size_t i = 0; i < n; i++) {
		struct sy_mstretch *m;

		if (sy_grow((void **)&q->ms, &q->cap_ms, q->nr_ms,
			    sizeof(*q->ms)))
			return -SY_E_NOMEM;
		m = &q->ms[q->nr_ms++];
		s->nr_held++;
		m->st = v[i];
		v[i].ring = NULL;
		if (m->st.has_time) {
			m->timed = 1;
			/* a stand-in taken when the trace started (PT's TSC
			 * before TIP.PGE) is the start; an older one says
			 * nothing, the stretch's last timestamp does */
			m->pt0 = sy_timeconv_to_perf(&s->tc,
						     m->st.t0_stand_in &&
						     !(m->st.flags & SY_SF_T0_START) ?
							     m->st.t1 :
							     m->st.t0);
			m->pt1 = sy_timeconv_to_perf(&s->tc, m->st.t1);
		} else if (has_aux_time) {
			/* timeless ETR: the AUX record written at the pause
			 * dates the whole group */
			m->timed = 1;
			m->pt0 = m->pt1 = aux_time;
		} else if (m->st.flags & SY_SF_NOTHING) {
			/* undecodable bytes before any timestamp: just after
			 * the data the unit follows */
			m->timed = 1;
			m->pt0 = m->pt1 = t_lo + 1;
		} else {
			m->timed = 0;
			m->pt0 = m->pt1 = 0;
		}
	}
	return 0;
}

/* The resume sample a window starts at: among the unused ones up to the
 * window's first trace, the newest whose IP the trace starts at, else the
 * newest.  Without trace to pin it (@have_addr 0), the first since the
 * previous pause (the kernel ignores the later ones: trace already runs)
 * and strictly between the two pauses.  Earlier ones are used up with it. */
static void sy_pick_resume(struct sy_queue *q, struct sy_win *w,
			   uint64_t t_start, uint64_t addr, int have_addr)
{
	size_t best = SIZE_MAX, fallback = SIZE_MAX;

	for (size_t i = q->res_pos; i < q->nr_res; i++) {
		if (q->res[i].time > t_start)
			break;
		/* the trace starting at its IP proves a resume took effect,
		 * even one before a pause sample whose pause was missed; not
		 * one before a pause that stopped the trace (a resume on
		 * running trace at the same instruction of a loop) */
		if (have_addr && q->res[i].ip == addr &&
		    (!q->has_res_lo || q->res[i].time > q->res_lo ||
		     (q->res[i].time == q->res_lo &&
		      q->res[i].seq > q->res_lo_seq)))
			best = i;
		if (!have_addr) {
			/* a resume tied with a pause may be either side's */
			if (!w->has_span_lo || q->res[i].time > w->span_lo) {
				fallback = i;
				break;
			}
		} else if (!w->has_span_lo || q->res[i].time >= w->span_lo) {
			fallback = i;
		}
	}
	if (best == SIZE_MAX)
		best = fallback;
	if (best == SIZE_MAX)
		return;
	w->pub.has_resume = 1;
	w->pub.resume_time = q->res[best].time;
	w->pub.resume_ip = q->res[best].ip;
	w->resume_tid = q->res[best].tid;
	q->res_pos = best + 1;
}

/* AUX flags, context switches and lost data inside (lo, hi].  Lost data is
 * a range: a chunk missing from the file covers every window since the
 * previous AUX record (flags holds that record's time). */
static void sy_span_events(struct sy_queue *q, struct sy_win *w, uint64_t lo,
			   uint64_t hi)
{
	for (size_t i = q->ev_pos; i < q->nr_ev; i++) {
		const struct sy_qevent *e = &q->ev[i];

		if (e->kind == SY_QEV_LOST_RANGE ? e->flags >= hi :
						    e->time > hi)
			continue;
		if (e->time <= lo && !(e->time == lo && lo == 0))
			continue;
		switch (e->kind) {
		case SY_QEV_AUX:
			w->aux_flags |= e->flags;
			break;
		case SY_QEV_SWITCH:
			/* at the pause sample's time but read after it: the
			 * kernel switched after the pause interrupt */
			if (e->time == hi && e->flags > w->seq)
				break;
			w->switches++;
			break;
		case SY_QEV_LOST:
		case SY_QEV_LOST_RANGE:
			w->lost = 1;
			break;
		}
	}
}

/* Whether window @w's resume sample is of another thread than its pause
 * sample, and a context switch came after it and no later than @t_start,
 * where the window's trace begins: the resume was taken on the last
 * instruction before the switch. */
static int sy_resumed_across_switch(const struct sy_queue *q,
				    const struct sy_win *w, uint64_t t_start)
{
	if (w->resume_tid == w->pub.tid || !w->pub.has_pause)
		return 0;
	for (size_t i = q->ev_pos; i < q->nr_ev; i++) {
		const struct sy_qevent *e = &q->ev[i];

		if (e->kind == SY_QEV_SWITCH && e->time > w->pub.resume_time &&
		    e->time <= t_start)
			return 1;
	}
	return 0;
}

static void sy_drop_events(struct sy_queue *q, uint64_t upto)
{
	while (q->ev_pos < q->nr_ev && q->ev[q->ev_pos].time <= upto)
		q->ev_pos++;
	sy_compact(q->ev, &q->ev_pos, &q->nr_ev, sizeof(*q->ev));
}

static int sy_give(struct sy_session *s, struct sy_win *w, struct sy_queue *q,
		   size_t a, size_t b)
{
	if (b <= a)
		return 0;
	s->nr_held -= b - a;
	w->st = malloc((b - a) * sizeof(*w->st));
	if (!w->st)
		return -SY_E_NOMEM;
	for (size_t i = a; i < b; i++) {
		w->st[i - a] = q->ms[i].st;
		q->ms[i].st.ring = NULL;
	}
	w->nr_st = b - a;
	return 0;
}

static int sy_pinned_ip(const struct sy_mstretch *m, uint64_t ip)
{
	return (m->st.flags & SY_SF_STOPPED) && m->st.end_addr == ip;
}

/* Whether stretch @m's timestamps say it ran after pause sample @w. */
static int sy_runs_past(const struct sy_mstretch *m, const struct sy_win *w)
{
	if (!m->timed || !m->st.has_time)
		return 0;
	return m->pt1 > w->pub.pause_time ||
	       (m->pt1 == w->pub.pause_time &&
		sy_stretch_stops_after_start(&m->st));
}

/* Whether stretch @m may be the one pause sample @w stopped: it stops at
 * the sample's IP, and no timestamp in it is later than the sample (the
 * pause stops the trace before its sample is written).  A missed pause at
 * the IP where the next pause really stops the trace (a loop) must not
 * claim that later run: the timestamps tell them apart. */
static int sy_pinned_by(const struct sy_mstretch *m, const struct sy_win *w)
{
	/* a stretch whose only timestamp is its own start stopped after
	 * it: a pause sample of that very time was written before it ran
	 * (a missed pause whose interrupt restarted the trace) */
	return sy_pinned_ip(m, w->pub.pause_ip) && !sy_runs_past(m, w);
}

/* Timestamps tie when a pause and a resume overflow at the same cycle: then
 * the order of the samples in the file says whether the stretch began before
 * pause sample @w (its resume came first) or after it. */
static int sy_starts_after(const struct sy_queue *q, const struct sy_mstretch *m,
			   const struct sy_win *w)
{
	if (m->pt0 != w->pub.pause_time)
		return m->pt0 > w->pub.pause_time;
	for (size_t i = q->res_pos; i < q->nr_res && q->res[i].time <= m->pt0;
	     i++)
		if (q->res[i].time == m->pt0 && q->res[i].ip == m->st.start_addr)
			return q->res[i].seq > w->seq;
	return 0;
}

/* Whether a pause sample after the current one is known to stop stretch
 * @m (its time is past what @m saw and the trace stops at its IP): 1 yes,
 * 0 no, -1 not known yet. */
static int sy_later_owner(const struct sy_queue *q, const struct sy_mstretch *m,
			  int final)
{
	const struct sy_mstretch *next = m + 1 < q->ms + q->nr_ms ? m + 1 : NULL;
	int later_known = 0;

	for (size_t k = q->pend_pos + 1; k < q->nr_pend; k++) {
		const struct sy_win *w2 = q->pend[k];

		if (w2->pub.pause_time < m->pt1)
			continue;
		/* pause samples come in time order; one after the next
		 * stretch began cannot have stopped this one */
		if (later_known && next && next->timed &&
		    w2->pub.pause_time > next->pt0)
			break;
		later_known = 1;
		if (sy_pinned_ip(m, w2->pub.pause_ip))
			return 1;
	}
	return later_known || final ? 0 : -1;
}

/* Stretch @k joins stretch @k + 1 unless a pause sample explains the gap:
 * trace stopped at that sample's IP and started again only after it (a
 * pause and the next resume at the same instruction). */
static int sy_run_joins(const struct sy_queue *q, size_t k)
{
	const struct sy_mstretch *m = &q->ms[k];
	const struct sy_mstretch *next = &q->ms[k + 1];

	if (!sy_stretch_joins(&m->st, &next->st))
		return 0;
	for (size_t i = q->pend_pos; i < q->nr_pend; i++) {
		const struct sy_win *w = q->pend[i];

		if (m->timed && w->pub.pause_time < m->pt1)
			continue;
		/* in time order: later ones come after the next stretch
		 * began, so they do not explain the gap */
		if (next->timed && w->pub.pause_time > next->pt0)
			break;
		if (sy_pinned_ip(m, w->pub.pause_ip) &&
		    sy_starts_after(q, &q->ms[k + 1], w))
			return 0;
	}
	return 1;
}

int sy_match_run(struct sy_session *s, struct sy_queue *q, int final)
{
	while (q->pend_pos < q->nr_pend) {
		struct sy_win *w = q->pend[q->pend_pos];
		uint64_t hi = w->pub.pause_time;
		size_t a = q->ms_pos, b = a;
		int all = (final && !q->units_pending) || w->group_done;
		int decided = 0, ran_through = 0;

		if (b < q->nr_ms && !q->ms[b].timed) {
			/* no timestamps at all: one run (to the next stop) per
			 * pause sample, in order */
			while (b < q->nr_ms && !(q->ms[b].st.flags & SY_SF_STOPPED))
				b++;
			if (b < q->nr_ms) {
				b++;
				decided = 1;
			} else if (all) {
				decided = 1;
			}
		} else {
			/* runs of joined stretches (excursions that came back
			 * where they left) are owned whole.  A run that began
			 * before the pause sample either ends at it, or ran
			 * through it when a later pause sample is the one it
			 * stops at. */
			while (b < q->nr_ms) {
				const struct sy_mstretch *m = &q->ms[b];
				size_t e = b + 1;
				int later;

				while (e < q->nr_ms && sy_run_joins(q, e - 1))
					e++;
				if (!m->timed || sy_starts_after(q, m, w)) {
					decided = 1;
					break;
				}
				m = &q->ms[e - 1];
				if (e == q->nr_ms && !all && !final &&
				    (m->st.flags & SY_SF_STOPPED) &&
				    !sy_pinned_by(m, w))
					break; /* the run may go on in the next
						* unit: wait */
				/* the run ends at this pause sample, or is cut
				 * by a discontinuity, or trace started again
				 * before the pause sample: it ended before it */
				if (sy_pinned_by(m, w) ||
				    !(m->st.flags & SY_SF_STOPPED) ||
				    (e < q->nr_ms && q->ms[e].timed &&
				     !sy_starts_after(q, &q->ms[e], w))) {
					b = e;
					continue;
				}
				/* even with all of this pause sample's trace
				 * decoded (ETR: its AUX group), a later pause
				 * sample already read may be the one the run
				 * stops at: then this pause was missed */
				later = sy_later_owner(q, m, final || all);
				if (later < 0)
					break;
				/* or its timestamps say it still ran after
				 * this pause sample: the pause was missed
				 * (the recording ended the run) */
				if (later || sy_runs_past(m, w)) {
					ran_through = 1;
					decided = 1;
					break;
				}
				b = e;
			}
			if (b == q->nr_ms && all)
				decided = 1;
		}
		if (!decided)
			break;
		if (sy_give(s, w, q, a, b))
			return -SY_E_NOMEM;
		q->ms_pos = b;
		w->ran_through = ran_through && a == b;
		if (w->nr_st && !(w->st[0].flags & SY_SF_NOTHING))
			sy_pick_resume(q, w,
				       q->ms[a].timed ? q->ms[a].pt0 : hi,
				       w->st[0].start_addr, 1);
		else if (!w->ran_through)
			/* no trace (lost, never written, or bytes that
			 * did not decode): the window
			 * still started at its resume, if one came since
			 * the previous pause; a window whose pause was
			 * missed leaves its resumes to the one that owns
			 * the trace */
			sy_pick_resume(q, w, hi ? hi - 1 : 0, 0, 0);
		/* the window's own span: from its resume (or the previous
		 * pause) to its pause */
		uint64_t lo = w->pub.has_resume ? w->pub.resume_time :
			      w->has_span_lo ? w->span_lo : 0;
		if (w->pub.has_resume && w->nr_st && q->ms[a].timed &&
		    sy_resumed_across_switch(q, w, q->ms[a].pt0)) {
			/* the resume came on the last instruction before a
			 * context switch: the trace started in the thread
			 * switched to (convert(1), "Windows"), and the
			 * switch is before the window, not in it */
			w->resume_switched = 1;
			lo = q->ms[a].pt0;
		}
		sy_span_events(q, w, lo, hi);
		sy_drop_events(q, hi);
		if (!w->ran_through) {
			q->has_res_lo = 1;
			q->res_lo = hi;
			q->res_lo_seq = w->seq;
		}
		sy_validate(s, w);
		if (sy_place_window(s, q, w))
			return -SY_E_NOMEM;
		w->ready = 1;
		q->pend_pos++;
	}
	sy_compact(q->ms, &q->ms_pos, &q->nr_ms, sizeof(*q->ms));
	sy_compact(q->pend, &q->pend_pos, &q->nr_pend, sizeof(*q->pend));
	sy_compact(q->res, &q->res_pos, &q->nr_res, sizeof(*q->res));
	if (final && q->pend_pos == q->nr_pend) {
		/* stretches after the last pause sample: trace the recording
		 * ended with, no sample to attach it to */
		for (size_t i = q->ms_pos; i < q->nr_ms; i++)
			free(q->ms[i].st.ring);
		s->nr_held -= q->nr_ms - q->ms_pos;
		q->ms_pos = q->nr_ms = 0;
		sy_place_drop(s, q);
	}
	return 0;
}
