/* How a recording's trace becomes decode jobs, chosen once when the
 * session opens (see sy_mode_ops in session.h):
 *
 *   etr     formatted ETM with pause samples: the sink writes a
 *           PERF_RECORD_AUX when a pause stops the trace, so the AUX
 *           records since the previous pause sample are one job, the
 *           window's own (its ETR group)
 *   stream  TRBE or PT with pause samples: one long stream per queue, cut
 *           into stream units decoded as the walk reads them (units.h);
 *           matching gives their stretches to the pause samples
 *   whole   no pause samples: stream units as above (an ETR buffer
 *           fragment is a unit of its own), every stretch a window
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* A per-thread queue holds one thread's trace: when the trace names a
 * thread the recording does not know, its code is read in that one. */
static void sy_qjob_fallback(const struct sy_session *s, struct sy_qjob *j)
{
	if (!s->cfg.per_thread)
		return;
	j->job.has_fallback = 1;
	j->job.fallback_tid = j->q->key;
}

/* A job of @q reading AUX range [a, b) in the address space as it is now. */
static struct sy_qjob *sy_qjob_new(struct sy_session *s, struct sy_queue *q,
				   uint64_t a, uint64_t b, uint32_t ctxid)
{
	struct sy_qjob *j = calloc(1, sizeof(*j));
	int n;

	if (!j)
		return NULL;
	j->q = q;
	j->job.aux_lo = a;
	j->job.dp = &q->dp;
	j->job.ctxid = ctxid;
	j->job.fresh = 1;
	j->job.seam_sync = SY_DEC_NO_SEAM;
	n = sy_auxmap_chunks(&q->aux, s->r, a, b, &j->job.chunks, &j->lost);
	if (n < 0) {
		free(j);
		return NULL;
	}
	j->job.nr_chunks = (size_t)n;
	j->job.own_chunks = 1;
	j->job.bytes = b - a;
	j->job.snap = sy_proc_table_snapshot(s->procs);
	sy_qjob_fallback(s, j);
	return j;
}

/* --- etr -------------------------------------------------------------- */

static int sy_etr_on_aux(struct sy_session *s, struct sy_queue *q,
			 const struct sy_ev_aux *a, uint64_t time,
			 uint64_t rec_off)
{
	struct sy_etr_group *g = &q->group;

	(void)s;
	(void)rec_off;
	if (!a->aux_size)
		return 0;
	if (!g->has || a->aux_offset < g->begin)
		g->begin = a->aux_offset;
	if (!g->has || a->aux_offset + a->aux_size > g->end)
		g->end = a->aux_offset + a->aux_size;
	g->has = 1;
	g->bytes += a->aux_size;
	g->time = time;
	return 0;
}

/* The AUX records since the last pause sample: the sink wrote the last one
 * when this pause stopped the trace. */
static int sy_etr_on_pause(struct sy_session *s, struct sy_queue *q,
			   struct sy_win *w)
{
	struct sy_etr_group *g = &q->group;
	struct sy_qjob *j;

	if (!g->has)
		return 0;
	j = sy_qjob_new(s, q, g->begin, g->end, w->pub.tid);
	if (!j)
		return -SY_E_NOMEM;
	j->win = w;
	w->has_group = 1;
	j->has_aux_time = 1;
	j->aux_time = g->time;
	w->aux_bytes = g->bytes;
	g->has = 0;
	g->bytes = 0;
	g->ready = j;
	return 0;
}

static int sy_etr_next_job(struct sy_session *s, struct sy_queue *q,
			   struct sy_qjob **out)
{
	(void)s;
	*out = q->group.ready;
	q->group.ready = NULL;
	return 0;
}

/* The AUX records after the last pause sample: the trace the recording
 * stopped.  No pause sample owns it, but it must be decoded: when the last
 * pause was missed, only this trace shows that the run went on through it
 * (its window is end-mismatch, not paused). */
static void sy_etr_on_end(struct sy_session *s, struct sy_queue *q)
{
	struct sy_etr_group *g = &q->group;
	struct sy_qjob *j;

	if (!g->has || g->ready)
		return;
	j = sy_qjob_new(s, q, g->begin, g->end, q->last_tid);
	if (!j)
		return;	/* out of memory: the window stays paused */
	j->has_aux_time = 1;
	j->aux_time = g->time;
	g->has = 0;
	g->bytes = 0;
	g->ready = j;
}

static int sy_match_job(struct sy_session *s, struct sy_qjob *j)
{
	int err = sy_matcher_stretches(&j->q->match, &s->cfg, j->job.st,
				       j->job.nr_st, j->has_aux_time,
				       j->aux_time, j->t_lo);

	return err ? err : sy_windows_resolve(s, j->q, 0);
}

static int sy_etr_job_done(struct sy_session *s, struct sy_qjob *j)
{
	/* an ETR group: its pause sample owns what it holds (the group
	 * after the last pause sample has none, sy_etr_on_end) */
	if (j->win) {
		j->win->lost |= j->lost;
		j->win->group_done = 1;
	}
	return sy_match_job(s, j);
}

const struct sy_mode_ops sy_mode_etr = {
	.name = "etr",
	.on_aux = sy_etr_on_aux,
	.on_pause = sy_etr_on_pause,
	.next_job = sy_etr_next_job,
	.on_end = sy_etr_on_end,
	.job_done = sy_etr_job_done,
};

/* --- stream units --------------------------------------------------------- */

static int sy_units_on_aux(struct sy_session *s, struct sy_queue *q,
			   const struct sy_ev_aux *a, uint64_t time,
			   uint64_t rec_off)
{
	(void)s;
	(void)a;
	(void)time;
	sy_units_walked(&q->units, &q->aux, rec_off);
	return 0;
}

static int sy_units_on_pause(struct sy_session *s, struct sy_queue *q,
			     struct sy_win *w)
{
	(void)s;
	(void)q;
	(void)w;
	return 0;
}

static int sy_units_next_job(struct sy_session *s, struct sy_queue *q,
			     struct sy_qjob **out)
{
	struct sy_unit_task t;
	struct sy_qjob *j;
	int r;

	*out = NULL;
	r = sy_units_next(&q->units, &q->aux, &s->cfg, s->r, &t);
	if (r <= 0)
		return r;
	if (r == SY_UNITS_WAIT)
		return SY_JOB_WAIT;
	if (t.slice) {
		/* the stream's decoder goes on where the last slice left it,
		 * over the piece's chunks (which the piece owns) */
		j = calloc(1, sizeof(*j));
		if (!j)
			return -SY_E_NOMEM;
		j->q = q;
		j->job.aux_lo = t.aux_lo;
		j->job.dp = &q->dp;
		j->job.ctxid = q->last_tid;
		j->job.snap = sy_proc_table_snapshot(s->procs);
		sy_qjob_fallback(s, j);
		j->job.chunks = t.piece->chunks;
		j->job.nr_chunks = t.piece->nr_chunks;
		sy_decstate_take(&t.stream->ds, &j->job);
		j->job.fresh = t.first;
		j->job.has_limit = !t.final;
		j->job.limit = t.limit;
		j->job.bytes = s->cfg.unit_bytes;
		j->lost = t.piece->lost;
		j->job.seam_sync = t.seam_sync;
	} else {
		j = sy_qjob_new(s, q, t.lo, t.hi, q->last_tid);
		if (!j)
			return -SY_E_NOMEM;
		j->job.ext_from = t.ext_from;
		j->job.seam_sync = t.seam_sync;
	}
	j->job.drop_head = t.drop_head;
	j->t_lo = t.t_lo;
	j->has_task = 1;
	j->task = t;
	*out = j;
	return 0;
}

static void sy_units_on_end(struct sy_session *s, struct sy_queue *q)
{
	(void)s;
	sy_units_walk_end(&q->units, &q->aux);
}

static int sy_stream_job_done(struct sy_session *s, struct sy_qjob *j)
{
	int err;

	sy_units_done(&j->q->units, &j->task);
	if ((err = sy_units_join(&j->q->units, &j->job.st, &j->job.nr_st,
				 s->cfg.depth)))
		return err;
	return sy_match_job(s, j);
}

const struct sy_mode_ops sy_mode_stream = {
	.name = "stream",
	.on_aux = sy_units_on_aux,
	.on_pause = sy_units_on_pause,
	.next_job = sy_units_next_job,
	.on_end = sy_units_on_end,
	.job_done = sy_stream_job_done,
};

/* --- whole trace ---------------------------------------------------------- */

static int sy_whole_job_done(struct sy_session *s, struct sy_qjob *j)
{
	sy_units_done(&j->q->units, &j->task);
	/* each stretch a window: the walk makes and hands them out one by
	 * one (sy_windows_whole) */
	return sy_units_join(&j->q->units, &j->job.st, &j->job.nr_st,
			     s->cfg.depth);
}

const struct sy_mode_ops sy_mode_whole = {
	.name = "whole",
	.on_aux = sy_units_on_aux,
	.on_pause = sy_units_on_pause,
	.next_job = sy_units_next_job,
	.on_end = sy_units_on_end,
	.job_done = sy_whole_job_done,
};
