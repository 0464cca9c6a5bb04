/* Windows made ready: those matching resolved, validated and given the
 * samples that interrupted them; and, without pause samples, one window
 * per stretch. */
#include <stdlib.h>
#include <string.h>

#include "session.h"

int sy_windows_resolve(struct sy_session *s, struct sy_queue *q, int final)
{
	unsigned done = 0;
	struct sy_win *w;
	int r;

	if (final) {
		done |= SY_MATCH_NO_SAMPLES;
		if (!q->units.pending)
			done |= SY_MATCH_NO_TRACE;
	}
	while ((r = sy_matcher_next(&q->match, done, &w)) > 0) {
		sy_validate(&s->val, w);
		if (sy_placer_window(&q->place, &s->cfg, w,
				     &s->sum.inner_samples))
			return -SY_E_NOMEM;
		w->ready = 1;
	}
	if (r < 0)
		return r;
	/* samples after the last pause sample: no window to put them in */
	if (sy_matcher_settle(&q->match, done))
		s->sum.unplaced += sy_placer_drop(&q->place);
	return 0;
}

int sy_windows_whole(struct sy_session *s, struct sy_qjob *j, size_t i)
{
	struct sy_job *job = &j->job;
	struct sy_win *w = calloc(1, sizeof(*w));

	if (!w)
		return -SY_E_NOMEM;
	w->pub.cpu = j->q->cpu;
	w->pub.tid = job->st[i].has_ctx ? job->st[i].ctxid : job->ctxid;
	/* the process when the recording says it (the trace names threads) */
	w->pub.pid = job->st[i].pid ? job->st[i].pid : w->pub.tid;
	w->st = malloc(sizeof(*w->st));
	if (!w->st) {
		free(w);
		return -SY_E_NOMEM;
	}
	w->st[0] = job->st[i];
	sy_stretch_moved(&job->st[i]);
	w->nr_st = 1;
	w->snap = sy_proc_snap_get(job->snap);
	sy_outq_append(&s->out, w);
	sy_validate(&s->val, w);
	w->ready = 1;
	return 0;
}
