/* Windows made ready: those matching resolved, validated and given the
 * samples that interrupted them; and, without pause samples, one window
 * per stretch. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* The pause sample's frames, unpacked (chain.h) for the checks and the
 * output: 0 or -SY_E_NOMEM, also in w->place_err. */
static int sy_unpack_chain(struct sy_win *w, struct sy_blocks *mem)
{
	if (!w->packed.p)
		return 0;
	if (sy_chain_unpack(&w->packed, mem, &w->chain, &w->chain_blk))
		return w->place_err = -SY_E_NOMEM;
	w->pub.callchain = w->chain;
	w->pub.nr_callchain = w->packed.nr;
	sy_chain_free(&w->packed);
	return 0;
}

/* Pause windows (sy_window_sink.window_merge): each validated window to
 * the sink, on this thread, while its branches are in this core's cache.
 * The window's snapshot is set as the walk sets it. */
static void sy_vbatch_sink(struct sy_vbatch *b)
{
	const struct sy_window_sink *k = b->sink;

	if (!(b->job = k->job_new(k->ctx)))
		return;	/* the walk hands them to fn */
	for (size_t i = 0; i < b->nr && !b->err; i++) {
		struct sy_win *w = b->w[i];

		w->pub.snap = w->snap;
		b->err = k->window(b->job, &w->pub);
	}
}

static void sy_validate_work(void *thread_ctx, struct sy_work *wk)
{
	struct sy_vbatch *b = (struct sy_vbatch *)(void *)wk;
	struct sy_validator *v = sy_jobs_extra_ctx(thread_ctx);

	/* unpacking and placing read nothing validation writes; they are
	 * done here, off the walk's thread, before the window is validated
	 * as before */
	for (size_t i = 0; i < b->nr; i++) {
		sy_unpack_chain(b->w[i], &v->mem);
		sy_place_window(v->cfg, b->w[i], &v->mem);
		sy_validate(v, b->w[i]);
	}
	if (b->sink)
		sy_vbatch_sink(b);
}

/* A batch is full past this many windows or branches: enough work to
 * make handing it to a thread worth it, little enough to keep what waits
 * for it small. */
#define SY_VBATCH_WINDOWS 64
#define SY_VBATCH_BRANCHES 16384

static int sy_vbatch_full(const struct sy_vbatch *b)
{
	return b && (b->nr >= SY_VBATCH_WINDOWS ||
		     b->branches >= SY_VBATCH_BRANCHES);
}

/* Validation reads only the window, its snapshot and the code: it runs on
 * a worker, and the window is ready when the walk sees it done (walk.c).
 * Adds @w to batch *@bp (made on first use); 0 or -SY_E_NOMEM. */
static int sy_windows_validate(struct sy_vbatch **bp, struct sy_win *w)
{
	struct sy_vbatch *b = *bp;

	if (!b && !(b = *bp = calloc(1, sizeof(*b))))
		return -SY_E_NOMEM;
	if (b->nr == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		struct sy_win **n = realloc(b->w, cap * sizeof(*n));

		if (!n)
			return -SY_E_NOMEM;
		b->w = n;
		b->cap = cap;
	}
	b->w[b->nr++] = w;
	b->refs++;
	for (size_t i = 0; i < w->nr_st; i++)
		b->branches += w->st[i].len;
	w->batch = b;
	return 0;
}

/* Sends batch @b (NULL: none) to the workers. */
static void sy_windows_submit(struct sy_session *s, struct sy_vbatch *b)
{
	if (!b)
		return;
	b->work.run = sy_validate_work;
	/* (only pause windows' batches: sink_pauses is never set with the
	 * whole trace) */
	if (s->deliver.sink_pauses)
		b->sink = &s->deliver.sink;
	s->deliver.validating++;
	sy_jobs_submit_work(&s->jobs, &b->work);
}

int sy_windows_resolve(struct sy_session *s, struct sy_queue *q, int final)
{
	struct sy_vbatch *b = NULL;
	unsigned done = 0;
	struct sy_win *w;
	int r;

	if (final) {
		done |= SY_MATCH_NO_SAMPLES;
		if (!q->units.pending)
			done |= SY_MATCH_NO_TRACE;
	}
	/* the window takes its samples off the queue here, in window
	 * order; they are placed where it is validated (sy_validate_work) */
	while ((r = sy_matcher_next(&q->match, done, &w)) > 0) {
		if (sy_placer_take(&q->place, w) ||
		    sy_windows_validate(&b, w)) {
			r = -SY_E_NOMEM;
			break;
		}
		if (sy_vbatch_full(b)) {
			sy_windows_submit(s, b);
			b = NULL;
		}
	}
	/* what is batched goes, error or not: its windows wait for it */
	sy_windows_submit(s, b);
	if (r < 0)
		return r;
	/* samples after the last pause sample: no window to put them in */
	if (sy_matcher_settle(&q->match, done))
		s->sum.unplaced += sy_placer_drop(&q->place);
	return 0;
}

void sy_window_of_stretch_pub(struct sy_window *p, uint32_t cpu,
			      const struct sy_stretch *st, uint32_t ctxid)
{
	p->cpu = cpu;
	p->tid = st->has_ctx ? st->ctxid : ctxid;
	/* the process when the recording says it (the trace names threads) */
	p->pid = st->pid ? st->pid : p->tid;
}

/* The window of stretch @i of @j. */
static struct sy_win *sy_window_of_stretch(struct sy_qjob *j, size_t i)
{
	struct sy_job *job = &j->job;
	struct sy_win *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	sy_window_of_stretch_pub(&w->pub, j->q->cpu, &job->st[i], job->ctxid);
	w->st = malloc(sizeof(*w->st));
	if (!w->st) {
		free(w);
		return NULL;
	}
	w->st[0] = job->st[i];
	sy_stretch_moved(&job->st[i]);
	w->nr_st = 1;
	/* a whole-trace window's processes are those of its time: the job
	 * may hold windows before and after a replacement of code */
	w->snap = sy_proc_snap_get(sy_job_snap_at(job, &w->st[0]));
	return w;
}

/* The windows @j finished on its thread, in their place on the output
 * list: ready at once, they are merged when the walk comes to them. */
static int sy_windows_finished(struct sy_session *s, struct sy_qjob *j)
{
	struct sy_finished *f = j->fin;

	if (!f)
		return 0;
	j->fin = NULL;
	f->snap = sy_proc_snap_get(j->job.snap); /* their windows' */
	sy_maptl_copy(&f->maps, &j->job.maps);	/* (sy_job_snap_at) */
	sy_outq_append_finished(&s->deliver.out, f);
	return 0;
}

int sy_windows_whole(struct sy_session *s, struct sy_qjob *j, size_t *i)
{
	struct sy_vbatch *b = NULL;
	int err = 0;

	for (; *i < j->job.nr_st && !err && !sy_vbatch_full(b); ++*i) {
		if (j->job.st[*i].flags & SY_SF_FINISHED) {
			err = sy_windows_finished(s, j);
			continue;
		}
		struct sy_win *w = sy_window_of_stretch(j, *i);

		if (!w) {
			err = -SY_E_NOMEM;
			break;
		}
		sy_outq_append(&s->deliver.out, w);
		err = sy_windows_validate(&b, w);
	}
	sy_windows_submit(s, b);
	return err;
}
