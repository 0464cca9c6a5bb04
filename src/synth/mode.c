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
 *           fragment is a unit of its own), every stretch a window; per
 *           CPU, PT jobs take each stretch's thread from the queue's
 *           context switch records (switches.h): nothing else names it
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* When the trace names a thread the recording does not know (recorded
 * in a container's pid namespace: the trace has the root namespace's
 * ids), its code is read where no other reading is possible: a
 * per-thread queue's own thread; a CPU's queue, the one thread every
 * sample on that CPU names.  Two threads on the CPU, even of one
 * process: no guess (the thread checks need the trace's thread). */
static void sy_qjob_fallback(const struct sy_session *s, struct sy_qjob *j)
{
	const struct sy_cpu_proc *cp;

	if (s->cfg.per_thread) {
		j->job.has_fallback = 1;
		j->job.fallback_tid = j->q->key;
		return;
	}
	if (j->q->cpu >= s->model.nr_cpu_proc)
		return;
	cp = &s->model.cpu_proc[j->q->cpu];
	if (!cp->pid || cp->pid == UINT32_MAX)
		return;
	j->job.has_fallback = 1;
	j->job.fallback_tid = cp->tid;
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
	n = sy_auxmap_chunks(&q->aux, s->in.r, a, b, &j->job.chunks, &j->lost);
	if (n < 0) {
		free(j);
		return NULL;
	}
	j->job.nr_chunks = (size_t)n;
	j->job.own_chunks = 1;
	j->job.src = s->in.r;
	j->job.bytes = b - a;
	j->job.drop_pages = sy_perf_bytes_droppable(s->in.r);
	j->job.snap = sy_proc_table_snapshot(s->model.procs);
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
	w->match.has_group = 1;
	j->has_aux_time = 1;
	j->aux_time = g->time;
	w->ev.aux_bytes = g->bytes;
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
		j->win->ev.lost |= j->lost;
		j->win->match.group_done = 1;
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

/* Per-CPU PT without pause samples: the part of the queue's switch
 * timeline a job's bytes (written after @t_lo) can need, its own copy; the
 * queue keeps what later jobs need, nothing once none is to come. */
static int sy_qjob_threads(struct sy_session *s, struct sy_queue *q,
			   struct sy_qjob *j, uint64_t t_lo)
{
	int err;

	if (!sy_queue_tracks_threads(&s->cfg))
		return 0;
	if ((err = sy_switches_copy(&q->sw, t_lo, &j->job.threads)))
		return err;
	j->job.tc = s->cfg.tc;
	if (sy_queue_more_jobs(q))
		sy_switches_trim(&q->sw, t_lo);
	else
		sy_switches_fini(&q->sw);
	return 0;
}

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

/* The maps an ETM slice reads: as they were when its bytes were written,
 * where code its process ran was replaced since (a dlclose and a dlopen
 * at the same address, an exec: maptl.h), else as they are now.  A
 * stream's decoder state cannot be run twice, as a whole job's is (jobs.c,
 * "code replaced while a job's trace ran"); a replacement inside the
 * slice's own bytes is read in the maps after it. */
static struct sy_proc_snap *sy_qjob_slice_snap(struct sy_session *s,
					       const struct sy_unit_task *t)
{
	struct sy_proc_snap *was = NULL;

	if (s->cfg.kind == SY_TRACE_ETM && t->t_hi)
		was = sy_maptl_at(&s->model.maptl, t->t_hi);
	return was ? sy_proc_snap_get(was) :
		     sy_proc_table_snapshot(s->model.procs);
}

static int sy_units_next_job(struct sy_session *s, struct sy_queue *q,
			     struct sy_qjob **out)
{
	struct sy_unit_task t;
	struct sy_qjob *j;
	int r;

	*out = NULL;
	r = sy_units_next(&q->units, &q->aux, &s->cfg, s->in.r, &t);
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
		j->job.snap = sy_qjob_slice_snap(s, &t);
		sy_qjob_fallback(s, j);
		j->job.chunks = t.piece->chunks;
		j->job.nr_chunks = t.piece->nr_chunks;
		sy_decstate_take(&t.stream->ds, &j->job);
		j->job.fresh = t.first;
		j->job.has_limit = !t.final;
		/* the piece's slices share its chunks: the last drops them */
		j->job.drop_pages = t.final && sy_perf_bytes_droppable(s->in.r);
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
		if ((r = sy_qjob_threads(s, q, j, t.t_lo))) {
			sy_job_release(&j->job);
			free(j);
			return r;
		}
	}
	/* the code replacements its trace may span, by trace time */
	sy_maptl_copy(&j->job.maps, &s->model.maptl);
	j->job.tc = s->cfg.tc;
	j->job.t_start = t.t_lo ? t.t_lo : q->t_first;
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

/* A stretch no switch record named the thread of (trace before the CPU's
 * first one, or no time to look it up) was read in the queue's last known
 * thread, as before there was a timeline: said once per run where its code
 * was not found there. */
static void sy_whole_unnamed(struct sy_session *s, struct sy_qjob *j)
{
	const struct sy_stretch *st = NULL;
	char in[48] = "no thread (none is known)";

	if (!sy_queue_tracks_threads(&s->cfg))
		return;
	for (size_t i = 0; i < j->job.nr_st && !st; i++)
		if (!j->job.st[i].has_ctx && j->job.st[i].errors &&
		    sy_dec_err_no_code(SY_TRACE_PT, j->job.st[i].first_error))
			st = &j->job.st[i];
	for (size_t i = 0; st && i < s->queues.nr; i++)
		if (s->queues.v[i]->unnamed_warned)
			return;
	if (!st)
		return;
	j->q->unnamed_warned = 1;
	if (j->job.ctxid)
		snprintf(in, sizeof(in), "thread %u, the last one known",
			 j->job.ctxid);
	sy_warn(&s->warn, 0, 0,
		"cpu %u: no context switch or ITRACE_START record names the "
		"thread that ran at perf time %" PRIu64 "%s: its trace was "
		"read in %s and did not decode; per-CPU Intel PT needs the "
		"context switch records perf record -a writes",
		j->q->cpu,
		st->has_time ? sy_timeconv_to_perf(&s->cfg.tc, st->t0) : 0,
		st->has_time ? "" : " (the trace has no time)", in);
}

/* PT: a stretch the end of its piece cut (it ran through the next piece's
 * PSB+ and stopped at its FUP, SY_STOP_END) goes on in the next piece's
 * first stretch, which starts there: joined as an ETM seam's carry is
 * (sy_units_join), so that the windows are those of the stream decoded
 * uncut.  With pause samples, matching joins them instead. */
static void sy_whole_pt_cuts(const struct sy_units *u, struct sy_qjob *j)
{
	struct sy_stretch *v = j->job.st;
	size_t n = j->job.nr_st;

	if (!n)
		return;
	if (u->has_carry && sy_stretch_joins(&u->carry, &v[0]))
		v[0].flags |= SY_SF_CONT;
	if (j->job.ext_from && (v[n - 1].flags & SY_SF_STOPPED) &&
	    v[n - 1].stop_reason == SY_STOP_END)
		v[n - 1].flags |= SY_SF_SEAM;
}

static int sy_whole_job_done(struct sy_session *s, struct sy_qjob *j)
{
	sy_whole_unnamed(s, j);
	if (s->cfg.kind == SY_TRACE_PT)
		sy_whole_pt_cuts(&j->q->units, j);
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
