/* The record walk: samples and events to their queues, and the one place
 * where decode jobs are collected, new ones sent and ready windows handed
 * out (sy_walk_pump), in window order.
 *
 * Records come in perf's order (time order round by round, reorder.h;
 * file order without rounds).  Windows are numbered when their pause
 * sample is walked, so their order is a property of the file, not of the
 * thread schedule.  A window is handed
 * out once every window before it has been: results that finish early
 * wait on the output list.  Jobs come back in submission order, which
 * keeps the matching of each queue sequential. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "session.h"
#include "sy_perf_event.h"

/* windows read but not handed out yet, before the walk waits: enough for
 * every thread to have a few pieces of stream trace (units.h) ahead */
#define SY_OUT_MAX(threads) (1024 + 1024 * (size_t)(threads))
/* and stretches decoded but not given to a window (a window of a program
 * busy with syscalls has dozens) */
#define SY_HELD_MAX(threads) (4096 + 2048 * (size_t)(threads))
/* and batches of windows validating: enough to keep the workers busy */
#define SY_VALIDATING_MAX(threads) (2 + 2 * (size_t)(threads))
/* and record bytes walked since the oldest job in flight went out: the
 * samples read meanwhile wait (their chains packed, chain.h) for trace
 * not decoded yet.  The trace bytes in flight bound the jobs (jobs.h), but
 * where samples outweigh the trace (PT with deep callchains: the file 37
 * times its trace) those bytes let the walk read tens of megabytes ahead,
 * and at -j2 how far it got before the decoders caught up, so the
 * resident size, depended on the threads' schedule (35-45 MB for
 * pt-deep). */
#define SY_AHEAD_MAX(threads) (((uint64_t)2 << 20) * (threads))

/* Bytes of records walked since the oldest job in flight was sent. */
static uint64_t sy_walk_ahead(const struct sy_session *s)
{
	const struct sy_qjob *head = (const struct sy_qjob *)s->jobs.head;

	return head ? s->walked - head->walked_at : 0;
}

int sy_walk_must_wait(const struct sy_session *s)
{
	return (s->deliver.out.nr > SY_OUT_MAX(s->sum.threads) ||
		s->held > SY_HELD_MAX(s->sum.threads) ||
		sy_walk_ahead(s) > SY_AHEAD_MAX(s->sum.threads)) &&
	       !sy_jobs_idle(&s->jobs);
}

/* --items: the item lines of the window's stretches, in order. */
static void sy_win_items(struct sy_win *w)
{
	for (size_t i = 0; i < w->nr_st; i++)
		if (sy_text_move(&w->items, &w->st[i].items))
			break;	/* only a listing: what fitted */
	w->pub.items = w->items.s ? w->items.s : "";
}

/* When window @p's process is named (comms.h): at its pause, else at its
 * trace's end, else now. */
static uint64_t sy_window_time(const struct sy_window *p)
{
	if (p->has_pause)
		return p->pause_time;
	return p->has_trace_time ? p->trace_end : SY_COMMS_LATEST;
}

/* Whether the oldest window's batch is validated (with @block, once it
 * is): then its windows are ready. */
static int sy_head_validated(struct sy_session *s, int block)
{
	struct sy_win *w = s->deliver.out.head ? s->deliver.out.head->win : NULL;
	struct sy_vbatch *b = w ? w->batch : NULL;

	if (!b || b->done || !sy_jobs_work_done(&s->jobs, &b->work, block))
		return 0;
	b->done = 1;
	for (size_t i = 0; i < b->nr; i++)
		b->w[i]->ready = 1;
	s->deliver.validating--;
	return 1;
}

/* A job's finished windows, in their place: what they add to the summary,
 * and the sink's context merged where they would have gone to fn. */
static void sy_emit_finished(struct sy_session *s, struct sy_finished *f)
{
	sy_summary_add_windows(&s->sum, &f->sum);
	s->sum.windows_in_jobs += f->sum.windows;
	if (!s->deliver.fn_ret)
		s->deliver.fn_ret = f->err ? f->err : s->deliver.sink.merge(s->deliver.sink.ctx, f->job);
}

/* Window @w to fn, or, where its worker gave it to the sink, its share
 * of what the sink made (windows.c). */
static int sy_emit_window(struct sy_session *s, struct sy_win *w)
{
	struct sy_vbatch *b = w->batch;

	if (!b || !b->job)
		return s->deliver.fn(s->deliver.fn_ctx, &w->pub);
	if (b->err)
		return b->err;
	return s->deliver.sink.window_merge(s->deliver.sink.ctx, b->job,
					    &w->pub);
}

/* Hands out the windows that are ready, in order.  Windows waiting for a
 * worker to validate them hold their branches: past a few batches per
 * thread, the walk waits for the oldest. */
static void sy_emit_ready(struct sy_session *s)
{
	struct sy_outent *e;

	for (;;) {
		sy_head_validated(s, s->deliver.validating >
					     SY_VALIDATING_MAX(s->sum.threads));
		if (!(e = sy_outq_pop_ready(&s->deliver.out)))
			break;
		if (e->fin) {
			sy_emit_finished(s, e->fin);
			sy_finished_free(e->fin);
			continue;
		}
		struct sy_win *w = e->win;
		struct sy_window *p = &w->pub;

		if (s->cfg.items)
			sy_win_items(w);
		sy_summary_add_window(&s->sum, p);
		s->sum.inner_samples += w->counted;
		if (w->place_err && !s->deliver.fn_ret)
			s->deliver.fn_ret = w->place_err;
		p->snap = w->snap;
		p->comm = sy_comms_get(&s->model.comms, p->pid,
				       sy_window_time(p));
		if (s->deliver.fn && !s->deliver.fn_ret)
			s->deliver.fn_ret = sy_emit_window(s, w);
		sy_win_free(w);
	}
}

/* At the end: every window validated and handed out. */
static void sy_emit_all(struct sy_session *s)
{
	do
		sy_emit_ready(s);
	while (sy_head_validated(s, 1));
}

static void sy_qjob_free(struct sy_qjob *j)
{
	if (!j)
		return;
	sy_finished_free(j->fin);
	sy_job_release(&j->job);
	free(j);
}

/* The AUX offset of @q below which @j's bytes end, where every byte of
 * the queue is now in a job with the snapshot it reads code in: a range of
 * its own, or a piece's last slice (earlier slices, sent before, took
 * theirs before); 0 for the others. */
static uint64_t sy_qjob_snapped(const struct sy_qjob *j)
{
	if (j->has_task && j->task.slice)
		return j->task.final ? j->task.hi : 0;
	return j->job.aux_lo + j->job.bytes;
}

/* @q sent @j: the processes that exited before every queue's trace up to
 * then went to jobs are forgotten (sy_proc_table_forget): no job still to
 * come can read their code, and the windows and jobs that can hold their
 * snapshots.  Without it every process of a long recording stays in the
 * table to the end. */
static int sy_forget_exited(struct sy_session *s, struct sy_queue *q,
			    const struct sy_qjob *j)
{
	uint64_t hi = sy_qjob_snapped(j);

	if (hi > q->snapped)
		q->snapped = hi;
	/* (its frontier may have moved: found again when next needed, or
	 * the least could stay that of a queue that sends no more) */
	if (s->forget_by == q)
		s->forget_by = NULL;
	s->forget_jobs++;
	if (sy_proc_table_oldest_exit(s->model.procs) == UINT64_MAX)
		return 0;
	/* finding the least reads every queue: at most once per sixteenth
	 * of their number of jobs sent (a per-thread recording may have
	 * thousands of queues; a forget found later is a forget delayed) */
	if (!s->forget_by && 16 * s->forget_jobs >= s->queues.nr) {
		s->forget_jobs = 0;
		s->forget_upto = UINT64_MAX;
		for (size_t i = 0; i < s->queues.nr; i++) {
			uint64_t f = sy_queue_frontier(s->queues.v[i]);

			if (f < s->forget_upto || !s->forget_by) {
				s->forget_upto = f;
				s->forget_by = s->queues.v[i];
			}
		}
	}
	return sy_proc_table_forget(s->model.procs, s->forget_upto);
}

/* Sends the jobs @q may start now, collecting finished jobs whenever too
 * many are in flight.  Called at points of the walk only (an AUX record, a
 * pause sample, the end), never when a job finishes: what goes out then
 * depends on the file, not on the decoders' speed. */
static int sy_feed(struct sy_session *s, struct sy_queue *q)
{
	for (;;) {
		struct sy_qjob *j = NULL;
		int err = s->mode->next_job(s, q, &j);

		if (err == SY_JOB_WAIT) {
			/* the queue's stream has enough queued: collect (its
			 * oldest is in the list, so this ends) */
			if ((err = sy_walk_pump(s, 1)))
				return err;
			continue;
		}
		if (err || !j)
			return err;
		if (s->deliver.has_sink) {
			j->sink = &s->deliver.sink;
			j->cpu = q->cpu;
		}
		j->walked_at = s->walked;
		if ((err = sy_forget_exited(s, q, j))) {
			sy_qjob_free(j);
			return err;
		}
		sy_jobs_submit(&s->jobs, &j->job);
		if (sy_jobs_full(&s->jobs) && (err = sy_walk_pump(s, 1)))
			return err;
	}
}

/* A decoded chunk's pages go with the queue's next batch; where the
 * record walk passed it and dropped what was there (sy_perf_bytes_passed),
 * with what the decoder's touch brought around it (SY_PAGES_AROUND):
 * without that, half the file stayed resident on PT whose samples outweigh
 * the trace.  Nothing there is read again but by a job still to run,
 * which only faults it back. */
static void sy_drop_decoded(struct sy_session *s, struct sy_queue *q,
			    const struct sy_dec_chunk *c)
{
	const uint8_t *base = sy_perf_bytes(s->in.r, 0, 0);
	uint64_t passed = sy_perf_bytes_passed(s->in.r), lo, hi;

	if (!base || c->data < base || !c->len ||
	    (uint64_t)(c->data - base) + c->len > passed) {
		sy_pages_batch_add(&q->drop, c->data, c->len);
		return;
	}
	lo = (uint64_t)(c->data - base);
	hi = lo + c->len;
	lo = lo > SY_PAGES_AROUND ? (lo - SY_PAGES_AROUND) &
					    ~(SY_PAGES_AROUND - 1) : 0;
	hi = ((hi + SY_PAGES_AROUND) | (SY_PAGES_AROUND - 1)) + 1;
	hi = hi < passed ? hi : passed;
	sy_pages_batch_add(&q->drop, base + lo, hi - lo);
}

static int sy_job_done(struct sy_session *s, struct sy_qjob *j)
{
	struct sy_job *job = &j->job;
	int err;

	if (job->err && job->err != -SY_E_EOS) {
		sy_warn(&s->warn, job->err, 0, "cpu %d: decoder failed: %s",
			(int)j->q->cpu, sy_errstr(job->err));
		if (job->err == -SY_E_NOMEM)
			return job->err;
	}
	s->sum.overflows += job->stats.overflows;
	s->sum.decode_errors += job->stats.errors;
	s->sum.fast_units += job->stats.fast_units;
	s->sum.full_units += job->stats.full_units;
	s->sum.fallbacks += job->stats.fallbacks;
	s->sum.decoded_again += job->decoded_again;
	if ((job->ctx_remapped || job->ctx_unknown) &&
	    !s->sum.ctx_remapped && !s->sum.ctx_unknown)
		s->sum.ctx_example = job->ctx_example;
	s->sum.ctx_remapped += job->ctx_remapped;
	s->sum.ctx_unknown += job->ctx_unknown;
	/* its input is decoded (jobs come back in order): its pages go with
	 * the next megabyte's (before job_done: a slice's chunks are freed
	 * there) */
	for (size_t i = 0; job->drop_pages && i < job->nr_chunks; i++)
		sy_drop_decoded(s, j->q, &job->chunks[i]);
	if ((err = s->mode->job_done(s, j)))
		return err;
	/* without pause samples each stretch is a window: made a batch at a
	 * time, handed out as they are validated */
	for (size_t i = 0; s->cfg.whole_trace && i < job->nr_st;) {
		if ((err = sy_windows_whole(s, j, &i)))
			return err;
		sy_emit_ready(s);
	}
	return 0;
}

/* The caller draws the progress line (sy_session_opts.progress): trace
 * bytes decoded of those in the file, or, without trace, the file offset
 * of the record being read. */
void sy_walk_progress(struct sy_session *s, uint64_t off, int done)
{
	struct sy_progress p = {
		.done = s->aux_total ? s->aux_done : off,
		.total = s->aux_total ? s->aux_total :
					sy_perf_info(s->in.r)->file_size,
		.windows = s->sum.windows,
		.finished = done,
	};

	if (s->o.progress)
		s->o.progress(s->o.progress_ctx, &p);
}

int sy_walk_pump(struct sy_session *s, int block)
{
	struct sy_job *job;
	int err;

	while ((job = sy_jobs_pop(&s->jobs, block))) {
		struct sy_qjob *j = (struct sy_qjob *)job;

		block = 0;
		s->aux_done += j->job.bytes;
		err = sy_job_done(s, j);
		sy_qjob_free(j);
		if (err)
			return err;
		/* windows go out as soon as they can: with one thread, the
		 * slices of a long piece all run inside this loop */
		sy_emit_ready(s);
		/* a huge AUXTRACE record is one record of the walk: its jobs
		 * move the progress line */
		sy_walk_progress(s, 0, 0);
	}
	sy_emit_ready(s);
	return 0;
}

/* Threads perf saw start before the recording have no FORK record: learn
 * them from any record naming pid and tid, so the trace's context ID (a
 * thread id on Linux) finds its process's code. */
static int sy_learn_thread(struct sy_session *s, uint32_t pid, uint32_t tid)
{
	struct sy_ev_task k;

	if (pid == tid || pid == (uint32_t)-1 || !pid ||
	    sy_proc_table_aspace(s->model.procs, tid) ||
	    !sy_proc_table_aspace(s->model.procs, pid))
		return 0;
	memset(&k, 0, sizeof(k));
	k.pid = k.ppid = pid;
	k.tid = tid;
	k.ptid = pid;
	return sy_proc_table_fork(s->model.procs, &k);
}

/* Whether the trace covers the kernel only (cs_etm//k, intel_pt//k: a
 * kernel profile of vmlinux): every trace attr excludes user space. */
static int sy_trace_kernel_only(const struct sy_session *s)
{
	int any = 0;

	for (uint32_t i = 0; i < s->roles.nr_roles; i++) {
		const struct sy_perf_attr *a = sy_perf_attr(s->in.r, i);

		if (!(s->roles.attr_role[i] & SY_ROLE_TRACE))
			continue;
		if (!sy_attr_flag(a, SY_ATTR_FLAG_EXCLUDE_USER) ||
		    sy_attr_flag(a, SY_ATTR_FLAG_EXCLUDE_KERNEL))
			return 0;
		any = 1;
	}
	return any;
}

/* The frames of a sample's callchain that go with its window's branches,
 * leaf first, packed into @c (chain.h), cut from @mem: those of the
 * context the trace covers.
 * perf writes a sample taken in the kernel as its kernel frames
 * (PERF_CONTEXT_KERNEL), then the user frames of the task it interrupted
 * (PERF_CONTEXT_USER); one taken in user space has user frames only.  A
 * kernel-only trace's branches are the kernel's, and so are its frames
 * (a kernel thread has no others); any other trace takes the user
 * frames, wherever the sample was taken. */
static int sy_trace_chain(const struct sy_session *s, struct sy_blocks *mem,
			  const struct sy_sample *sm, struct sy_chain *c)
{
	uint64_t want = sy_trace_kernel_only(s) ? SY_CONTEXT_KERNEL :
						  SY_CONTEXT_USER;
	uint32_t max = (uint32_t)sm->callchain_nr, n = 0;
	uint64_t prev = 0;
	uint8_t *o;
	int in = 0;

	if (sy_chain_reserve(c, mem, max))
		return -SY_E_NOMEM;
	/* (in locals: a store through o may alias c's fields) */
	o = c->p;
	for (uint32_t i = 0; i < max; i++) {
		uint64_t ip = sy_sample_callchain(sm, i);

		if (ip >= SY_CONTEXT_MAX)
			in = ip == want;
		else if (in) {
			o += sy_chain_put(o, prev, ip);
			prev = ip;
			n++;
		}
	}
	c->len = (uint32_t)(o - c->p);
	c->nr = n;
	/* the frames of other contexts give their room back */
	sy_chain_fit(c, mem, max);
	return 0;
}

/* A pause sample's user frame in no mapping of its process: perf's
 * unwinder reads return addresses off the stack, so such a frame is a
 * damaged sample body or a broken frame chain.  Its samples are still
 * written (the branches are the trace's), but never silently: the first
 * is noted at its record, all are counted. */
static void sy_check_chain(struct sy_session *s, const struct sy_win *w,
			   uint64_t off)
{
	const struct sy_window *p = &w->pub;
	const struct sy_map *m = NULL;
	const struct sy_aspace *as;
	const uint8_t *at = w->packed.p;
	uint64_t ip = 0;

	if (!w->snap || sy_trace_kernel_only(s) ||
	    !(as = sy_proc_snap_aspace(w->snap, p->tid)))
		return;
	for (uint32_t i = 0; i < w->packed.nr; i++) {
		ip = sy_chain_get(&at, ip);

		/* a deep chain's frames are mostly in the mapping of the
		 * frame before: no search for those */
		if ((ip >> 63) || (m && ip >= m->start && ip < m->end))
			continue;
		if ((m = sy_aspace_find(as, ip)))
			continue;
		if (!s->sum.chain_unmapped++)
			sy_warn(&s->warn, 0, off,
				"pause sample of tid %u: callchain frame %u "
				"at %#" PRIx64 " is in no mapping of its "
				"process (damaged sample or broken frame "
				"chain); such samples are counted in the "
				"summary", p->tid, i, ip);
		return;
	}
}

/* A callchain sample of another event: one taken while trace ran
 * interrupted it somewhere in the window (place.h).  After a pause sample
 * the samples only say the trace is paused: the pause may have been
 * missed, and then the sample is in the window that goes on.  Only the
 * trace can tell, so it waits for it too, counted once the trace shows
 * that it ran. */
static int sy_on_other_sample(struct sy_session *s, struct sy_queue *q,
			      const struct sy_sample *sm)
{
	struct sy_chain chain;
	int r;

	if (q->running)
		s->sum.inner_samples++;
	if (s->cfg.whole_trace) {
		s->sum.unplaced += q->running;
		return 0;
	}
	if (sy_trace_chain(s, &q->place.mem, sm, &chain))
		return -SY_E_NOMEM;
	r = sy_placer_add(&q->place, sm->time, sm->ip, sm->period, sm->pid,
			  sm->tid, &chain, !q->running);
	if (r < 0)
		return r;
	s->sum.unplaced += (uint64_t)r;
	return 0;
}

/* A pause sample: its window goes on the output list now (window order is
 * the walk's order) and waits for its trace. */
static int sy_on_pause(struct sy_session *s, struct sy_queue *q,
		       const struct sy_sample *sm, uint64_t off)
{
	struct sy_win *w = calloc(1, sizeof(*w));
	int err;

	s->sum.pause_samples++;
	q->running = 0;
	if (!w)
		return -SY_E_NOMEM;
	/* per thread: where the thread was when it paused */
	w->pub.cpu = s->cfg.per_thread ? sm->cpu : q->cpu;
	w->pub.has_pause = 1;
	w->pub.pause_time = sm->time;
	w->pub.pause_ip = sm->ip;
	w->pub.pause_period = sm->period;
	w->pub.pid = sm->pid;
	w->pub.tid = sm->tid;
	w->match.resume_tid = sm->tid;
	w->seq = s->sample_seq++;
	sy_outq_append(&s->deliver.out, w);
	if (sm->type & SY_SAMPLE_CALLCHAIN) {
		/* unpacked where the window is validated (windows.c) */
		if (sy_trace_chain(s, &s->chains, sm, &w->packed))
			return -SY_E_NOMEM;
	}
	w->snap = sy_proc_table_snapshot(s->model.procs);
	sy_check_chain(s, w, off);
	if ((err = sy_matcher_pause(&q->match, w)) ||
	    (err = s->mode->on_pause(s, q, w)) || (err = sy_feed(s, q)))
		return err;
	return sy_windows_resolve(s, q, 0);
}

/* Whether the walk takes the samples of @rec's attr (its role), and
 * can parse them (a sample_type with bits no kernel defines was reported
 * once, when the reader read the attr). */
static int sy_sample_wanted(const struct sy_session *s,
			    const struct sy_record *rec)
{
	uint8_t role = s->roles.attr_role[rec->attr->index];

	return (role & (SY_ROLE_PAUSE | SY_ROLE_RESUME | SY_ROLE_CALLCHAIN)) &&
	       !(rec->attr->sample_type & ~SY_SAMPLE_KNOWN_MASK);
}

uint32_t sy_walk_order_check(struct sy_session *s, const struct sy_record *rec)
{
	struct sy_sample sm;
	struct sy_queue *q;
	enum sy_order_verdict v;
	const uint8_t *kept = NULL;

	if (rec->type != SY_REC_SAMPLE || !rec->attr ||
	    rec->attr->index >= s->roles.nr_roles || !sy_sample_wanted(s, rec) ||
	    sy_sample_parse(rec->attr, rec->data, rec->size, &sm, NULL,
			    rec->offset) ||
	    !(sm.type & SY_SAMPLE_TIME))
		return 0;	/* (a bad sample: the walk reports it) */
	q = sy_session_queue(s, sy_queue_key(&s->cfg, sm.cpu, sm.tid), 1);
	if (!q)
		return 0;	/* (the walk meets it again) */
	/* the record's bytes in the mapped file stay where they are (the
	 * reader's skimmed copy does not): compared there only when a
	 * duplicate is possible */
	if (sy_perf_bytes_droppable(s->in.r) &&
	    !(rec->flags & SY_RECORD_DECOMPRESSED))
		kept = sy_perf_bytes(s->in.r, rec->offset, rec->size);
	v = sy_order_sample(&q->order, sm.time, rec->data, rec->size, kept);
	return v == SY_ORDER_DUPLICATE ? SY_RECORD_ORDER_DUP :
	       v == SY_ORDER_EARLIER   ? SY_RECORD_ORDER_EARLIER :
					 0;
}

/* A sample older than the one before it on its queue, or that one again
 * (sy_walk_order_check said so in file order): reported at its offset and
 * ignored (order.h). */
static int sy_out_of_order(struct sy_session *s, struct sy_queue *q,
			   const struct sy_record *rec,
			   const struct sy_sample *sm)
{
	if (!(rec->flags & (SY_RECORD_ORDER_DUP | SY_RECORD_ORDER_EARLIER)))
		return 0;
	sy_warn(&s->warn, -SY_E_BAD_RECORD, rec->offset,
		"sample %s the previous one of %s %u (time %" PRIu64 "); "
		"ignored: a record copied or moved",
		rec->flags & SY_RECORD_ORDER_DUP ? "repeats" : "is older than",
		s->cfg.per_thread ? "thread" : "cpu", q->key, sm->time);
	return 1;
}

static int sy_on_sample(struct sy_session *s, const struct sy_record *rec)
{
	uint8_t role = s->roles.attr_role[rec->attr->index];
	struct sy_sample sm;
	struct sy_diag d = { 0 };
	struct sy_queue *q;
	int err;

	if (!sy_sample_wanted(s, rec))
		return 0;
	if (sy_sample_parse(rec->attr, rec->data, rec->size, &sm, &d,
			    rec->offset)) {
		sy_warn(&s->warn, d.err, d.offset, "%s", d.msg);
		return 0;
	}
	if ((sm.type & SY_SAMPLE_TID) &&
	    (err = sy_learn_thread(s, sm.pid, sm.tid)))
		return err;
	q = sy_session_queue(s, sy_queue_key(&s->cfg, sm.cpu, sm.tid), 1);
	if (!q)
		return -SY_E_NOMEM;
	if ((sm.type & SY_SAMPLE_TIME) && sy_out_of_order(s, q, rec, &sm))
		return 0;
	if ((sm.type & SY_SAMPLE_TIME) && !q->t_first)
		q->t_first = sm.time;
	if (!q->seen) {
		q->seen = 1;
		q->running = !s->cfg.start_paused;
		if (s->cfg.per_thread)
			q->cpu = (uint32_t)-1;
	}
	if (!(role & (SY_ROLE_PAUSE | SY_ROLE_RESUME)))
		return sy_on_other_sample(s, q, &sm);
	q->last_tid = sm.tid;
	if (s->cfg.whole_trace) {
		/* every stretch is a window of its own: pause and resume
		 * samples own none (counted only) */
		if (role & SY_ROLE_RESUME)
			s->sum.resume_samples++;
		else
			s->sum.pause_samples++;
		return 0;
	}
	if (role & SY_ROLE_RESUME) {
		s->sum.resume_samples++;
		if (q->running)
			s->sum.resume_while_running++;
		q->running = 1;
		return sy_matcher_resume(&q->match, sm.time, sm.ip, sm.tid,
					 s->sample_seq++);
	}
	return sy_on_pause(s, q, &sm, rec->offset);
}

static int sy_on_aux(struct sy_session *s, const struct sy_record *rec,
		     const struct sy_event *ev)
{
	struct sy_queue *q = sy_session_queue(
		s, sy_queue_key(&s->cfg, ev->sid.cpu, ev->sid.tid), 0);
	const struct sy_ev_aux *a = &ev->u.aux;
	uint64_t bad = a->flags & (SY_AUX_FLAG_TRUNCATED | SY_AUX_FLAG_PARTIAL |
				   SY_AUX_FLAG_COLLISION);
	int err;

	if (!q)
		return 0;
	if (bad && (err = sy_matcher_event(&q->match, SY_QEV_AUX,
					   ev->sid.time, bad)))
		return err;
	/* a chunk that never made it into the file: every window since the
	 * previous AUX record may have had bytes in it */
	if (a->aux_size &&
	    !sy_auxmap_covered(&q->aux, a->aux_offset,
			       a->aux_offset + a->aux_size) &&
	    (err = sy_matcher_event(&q->match, SY_QEV_LOST_RANGE,
				    ev->sid.time, q->last_aux_time)))
		return err;
	q->last_aux_time = ev->sid.time;
	if ((err = s->mode->on_aux(s, q, a, ev->sid.time, rec->offset)))
		return err;
	/* stream units go as the walk reads their AUX records: the address
	 * space is then known */
	return sy_feed(s, q);
}

static int sy_on_switch(struct sy_session *s, const struct sy_event *ev)
{
	struct sy_queue *q;

	if (!ev->has_sid)
		return 0;
	if (ev->u.sw.cpu_wide &&
	    sy_learn_thread(s, ev->u.sw.next_prev_pid, ev->u.sw.next_prev_tid))
		return -SY_E_NOMEM;
	/* per thread, a queue holds its thread's own trace: being scheduled
	 * out and in (maybe on another CPU) is an untraced excursion like an
	 * interrupt, not another thread inside */
	if (s->cfg.per_thread)
		return 0;
	/* flags: the pause/resume samples read before it, so that a switch
	 * stamped with a pause sample's time but written after it (the
	 * kernel switches after the interrupt) is not inside that window */
	q = sy_session_queue(s, ev->sid.cpu, 0);
	if (q && sy_queue_tracks_threads(&s->cfg) &&
	    sy_queue_thread_record(q, ev))
		return -SY_E_NOMEM;
	return q ? sy_matcher_switch(&q->match, ev->sid.time, s->sample_seq,
				     ev->sid.tid,
				     !!(ev->sid.type & SY_SAMPLE_TID)) :
		   0;
}

/* Per-CPU PT converted whole: the thread the trace starts in on a CPU. */
static int sy_on_itrace_start(struct sy_session *s, const struct sy_event *ev)
{
	const struct sy_ev_itrace_start *it = &ev->u.itrace_start;
	struct sy_queue *q;

	if (!ev->has_sid)
		return 0;
	if (sy_learn_thread(s, it->pid, it->tid))
		return -SY_E_NOMEM;
	q = sy_session_queue(s, ev->sid.cpu, 0);
	return q && sy_queue_thread_record(q, ev) ? -SY_E_NOMEM : 0;
}

static int sy_on_lost(struct sy_session *s, const struct sy_event *ev)
{
	struct sy_queue *q;

	s->sum.lost_records++;
	if (!ev->has_sid)
		return 0;
	q = sy_session_queue(s, sy_queue_key(&s->cfg, ev->sid.cpu, ev->sid.tid),
			     0);
	return q ? sy_matcher_event(&q->match, SY_QEV_LOST, ev->sid.time, 0) :
		   0;
}

/* Before @rec changes the processes: a replacement of code that stream
 * jobs may span is kept with its time (maptl.h).  The PT decoder reads
 * code by time; an ETM job is decoded again where a stretch ran before
 * one (jobs.c, "code replaced while a job's trace ran"). */
static int sy_note_replace(struct sy_session *s, const struct sy_record *rec,
			   const struct sy_event *ev)
{
	if (!ev->has_sid || !(ev->sid.type & SY_SAMPLE_TIME))
		return 0;
	return sy_maptl_note(&s->model.maptl, s->model.procs, rec->type, ev,
			     ev->sid.time);
}

/* A side-band record's time (0: it has none). */
static uint64_t sy_rec_time(const struct sy_event *ev)
{
	if (ev->has_sid && (ev->sid.type & SY_SAMPLE_TIME))
		return ev->sid.time;
	return 0;
}

int sy_walk_record(struct sy_session *s, const struct sy_record *rec)
{
	struct sy_event ev;
	struct sy_diag d = { 0 };
	int err;

	if (rec->type == SY_REC_SAMPLE)
		return rec->attr && rec->attr->index < s->roles.nr_roles ?
			       sy_on_sample(s, rec) :
			       0;
	switch (rec->type) {
	case SY_REC_MMAP:
	case SY_REC_MMAP2:
	case SY_REC_COMM:
	case SY_REC_FORK:
	case SY_REC_EXIT:
	case SY_REC_AUX:
	case SY_REC_SWITCH:
	case SY_REC_SWITCH_CPU_WIDE:
	case SY_REC_LOST:
	case SY_REC_LOST_SAMPLES:
		break;
	case SY_REC_ITRACE_START:
		if (sy_queue_tracks_threads(&s->cfg))
			break;
		return 0;
	default:
		return 0;
	}
	if (sy_event_parse(rec, &ev, &d)) {
		sy_warn(&s->warn, d.err, d.offset, "%s", d.msg);
		return 0;
	}
	switch (rec->type) {
	case SY_REC_AUX:
		return ev.has_sid ? sy_on_aux(s, rec, &ev) : 0;
	case SY_REC_SWITCH:
	case SY_REC_SWITCH_CPU_WIDE:
		return sy_on_switch(s, &ev);
	case SY_REC_LOST:
	case SY_REC_LOST_SAMPLES:
		return sy_on_lost(s, &ev);
	case SY_REC_ITRACE_START:
		return sy_on_itrace_start(s, &ev);
	case SY_REC_COMM:
		/* the process's name is its leader's (or an exec's): perf
		 * writes one COMM per thread, with the thread's own name */
		if ((ev.u.comm.pid == ev.u.comm.tid || ev.u.comm.exec) &&
		    sy_comms_set(&s->model.comms, ev.u.comm.pid,
				 sy_rec_time(&ev), ev.u.comm.comm))
			return -SY_E_NOMEM;
		if ((err = sy_note_replace(s, rec, &ev)))
			return err;
		return sy_proc_table_feed(s->model.procs, rec, &ev);
	case SY_REC_FORK:
		/* a new process is named as its parent until it execs */
		if (ev.u.task.pid != ev.u.task.ppid &&
		    sy_comms_fork(&s->model.comms, ev.u.task.pid,
				  ev.u.task.ppid, ev.u.task.time))
			return -SY_E_NOMEM;
		/* fall through */
	default:
		if ((err = sy_note_replace(s, rec, &ev)))
			return err;
		return sy_proc_table_feed(s->model.procs, rec, &ev);
	}
}

/* Once per run: the trace named threads the recording does not know. */
static void sy_warn_contexts(struct sy_session *s)
{
	const struct sy_session_summary *m = &s->sum;
	uint32_t pid = 0;

	for (uint32_t c = 0; c < s->model.nr_cpu_proc && !pid; c++)
		if (s->model.cpu_proc[c].pid != UINT32_MAX)
			pid = s->model.cpu_proc[c].pid;
	if (m->ctx_remapped && s->cfg.per_thread)
		sy_warn(&s->warn, 0, 0,
			"the trace's context IDs name threads the recording "
			"does not know (e.g. %u, recorded in another pid "
			"namespace?): decoded in each AUX queue's own thread, "
			"as perf does",
			m->ctx_example);
	else if (m->ctx_remapped)
		sy_warn(&s->warn, 0, 0,
			"the trace's context IDs name threads the recording "
			"does not know (e.g. %u, recorded in another pid "
			"namespace?): read as the one thread every sample on "
			"their CPU names (e.g. in pid %u)%s",
			m->ctx_example, pid,
			m->ctx_unknown ? "; on CPUs that ran several "
					 "threads their code cannot be read" :
					 "");
	else if (m->ctx_unknown)
		sy_warn(&s->warn, 0, 0,
			"the trace's context IDs match no process of the "
			"recording (e.g. %u, recorded in another pid "
			"namespace?): their code cannot be read where "
			"samples name several threads on a CPU; a "
			"per-thread recording (perf record --per-thread) is "
			"decoded in its queues' threads",
			m->ctx_example);
}

int sy_walk_end(struct sy_session *s)
{
	int err;

	/* the recording ended: trace still running has no pause sample;
	 * stream units not yet sent go now */
	for (size_t i = 0; i < s->queues.nr && !s->deliver.fn_ret; i++) {
		struct sy_queue *q = s->queues.v[i];

		s->mode->on_end(s, q);
		if ((err = sy_feed(s, q)))
			return err;
	}
	/* collecting also sends the ETM slices still to come */
	while (!sy_jobs_idle(&s->jobs))
		if ((err = sy_walk_pump(s, 1)))
			return err;
	for (size_t i = 0; i < s->queues.nr; i++)
		sy_pages_batch_flush(&s->queues.v[i]->drop);
	for (size_t i = 0; i < s->queues.nr; i++)
		if ((err = sy_windows_resolve(s, s->queues.v[i], 1)))
			return err;
	sy_emit_all(s);
	sy_warn_contexts(s);
	s->sum.procs_peak = sy_proc_table_peak(s->model.procs);
	s->sum.procs_forgotten = sy_proc_table_forgotten(s->model.procs);
	return 0;
}
