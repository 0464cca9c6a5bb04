#include "finish.h"

#include <stdlib.h>
#include <string.h>

#include "session.h"

/* The window the walk would make of stretch @st of @j (windows.c),
 * validated and handed to the sink here. */
static void sy_finish_one(struct sy_validator *v, const struct sy_qjob *j,
			  struct sy_stretch *st, struct sy_finished *f)
{
	struct sy_win w;
	struct sy_window *p = &w.pub;

	memset(&w, 0, sizeof(w));
	p->index = SY_WINDOW_NO_INDEX;
	sy_window_of_stretch_pub(p, j->cpu, st, j->job.ctxid);
	w.st = st;
	w.nr_st = 1;
	w.snap = sy_job_snap_at(&j->job, st);
	sy_validate(v, &w);
	p->snap = w.snap;
	sy_summary_add_window(&f->sum, p);
	if (!f->err)
		f->err = f->sink->window(f->job, p);
	sy_stack_mem_free(&w.stack);
}

/* Finishes the stretches of @v (@nr closed so far) that are neither the
 * job's first nor its last and are not finished yet; their offsets are
 * the job's plus @delta (the AUX offset before sy_job_run adds it).  The
 * finished ones are always v[1 .. j->fin_next): the walk puts what the
 * sink made in the place of the first. */
static void sy_finish_upto(struct sy_validator *v, struct sy_qjob *j,
			   struct sy_stretch *st, size_t nr, uint64_t delta)
{
	struct sy_finished *f = j->fin;

	if (!j->sink || j->fin_refused || nr < 3)
		return;
	if (!f) {
		if (!(f = calloc(1, sizeof(*f))) ||
		    !(f->job = j->sink->job_new(j->sink->ctx))) {
			/* the walk makes every window of the job */
			free(f);
			j->fin_refused = 1;
			return;
		}
		f->sink = j->sink;
		j->fin = f;
		j->fin_next = 1;
	}
	for (; j->fin_next + 1 < nr; j->fin_next++) {
		struct sy_stretch *s = &st[j->fin_next];
		struct sy_stretch at = *s;

		at.off0 += delta;
		at.off1 += delta;
		at.first_error_off += delta;
		sy_finish_one(v, j, &at, f);
		s->flags |= SY_SF_FINISHED;
	}
}

void sy_finish_closed(void *validator, struct sy_job *job,
		      struct sy_stretch *st, size_t nr)
{
	sy_finish_upto(validator, (struct sy_qjob *)job, st, nr, job->aux_lo);
}

void sy_finish_job(void *validator, struct sy_job *job)
{
	struct sy_qjob *j = (struct sy_qjob *)job;

	sy_finish_upto(validator, j, job->st, job->nr_st, 0);
	/* their rings go with the job's end, as the rest of its memory:
	 * freed as they were finished, the blocks they were cut from went
	 * back to malloc one by one while the decode cut new ones, and the
	 * heap shrank and grew (18 times the page faults) */
	for (size_t i = 1; i < j->fin_next; i++)
		sy_stretch_release(&job->st[i]);
}
