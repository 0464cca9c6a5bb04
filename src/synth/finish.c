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
	w.snap = j->job.snap;
	sy_validate(v, &w);
	p->snap = w.snap;
	sy_summary_add_window(&f->sum, p);
	if (!f->err)
		f->err = f->sink->window(f->job, p);
	sy_stack_mem_free(&w.stack);
}

void sy_finish_job(void *validator, struct sy_job *job)
{
	struct sy_qjob *j = (struct sy_qjob *)job;
	struct sy_finished *f;

	if (!j->sink || job->nr_st < 3)
		return;
	if (!(f = calloc(1, sizeof(*f))))
		return;
	f->sink = j->sink;
	if (!(f->job = f->sink->job_new(f->sink->ctx))) {
		free(f);
		return;
	}
	for (size_t i = 1; i + 1 < job->nr_st; i++) {
		sy_finish_one(validator, j, &job->st[i], f);
		sy_stretch_release(&job->st[i]);
		job->st[i].flags |= SY_SF_FINISHED;
	}
	j->fin = f;
}
