/* The session: the main walk over the records, windows from the samples,
 * decode jobs on the worker pool, and windows handed out in order.
 *
 * Windows are numbered when their pause sample is read, so their order is a
 * property of the file, not of the thread schedule.  A window is handed out
 * once every window before it has been: results that finish early wait in
 * the output list.  Decode jobs are consumed in submission order, which
 * keeps the stream matching of each queue sequential. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "session.h"
#include "sy_perf_event.h"

/* Decode jobs in flight per worker thread before the walk waits. */
#define SY_INFLIGHT_PER_THREAD 8
/* windows read but not handed out yet, before the walk waits: enough for
 * every thread to have a few pieces of stream trace (units.c) ahead */
#define SY_OUT_MAX(threads) (1024 + 1024 * (size_t)(threads))
/* and stretches decoded but not given to a window (a window of a program
 * busy with syscalls has dozens) */
#define SY_HELD_MAX(threads) (4096 + 2048 * (size_t)(threads))

void sy_session_opts_init(struct sy_session_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->depth = 64;
	o->win_unit = SY_UNIT_INSNS;
}

void sy_session_warn(struct sy_session *s, int err, uint64_t off,
		     const char *fmt, ...)
{
	struct sy_diag d;
	va_list ap;

	memset(&d, 0, sizeof(d));
	d.err = err;
	d.offset = off;
	d.has_offset = off != 0;
	va_start(ap, fmt);
	vsnprintf(d.msg, sizeof(d.msg), fmt, ap);
	va_end(ap);
	if (err < 0)
		s->sum.damage++;
	if (s->warn_fn)
		s->warn_fn(s->warn_ctx, &d);
}

static void sy_reader_warn(void *ctx, const struct sy_diag *d)
{
	struct sy_session *s = ctx;

	if (d->err < 0)
		s->sum.damage++;
	if (s->warn_fn)
		s->warn_fn(s->warn_ctx, d);
}

static void sy_image_warn(void *ctx, const struct sy_diag *d)
{
	struct sy_session *s = ctx;

	if (s->warn_fn)
		s->warn_fn(s->warn_ctx, d);
}

/* A pipe cannot be read twice: copy it to an unlinked temporary file, which
 * is then mapped like any other input. */
static int sy_spool_stdin(struct sy_session *s)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	char buf[1 << 16];
	int fd;

	snprintf(path, sizeof(path), "%s/strobe-synth-XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return sy_diag_set_nooff(&s->diag, -SY_E_IO,
					 "cannot create a spool file in %s: %s",
					 dir && *dir ? dir : "/tmp",
					 strerror(errno));
	unlink(path);
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return sy_diag_set_nooff(&s->diag, -SY_E_IO,
						 "read: %s", strerror(errno));
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(fd, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				close(fd);
				return sy_diag_set_nooff(
					&s->diag, -SY_E_IO,
					"cannot spool standard input: %s",
					strerror(errno));
			}
			off += w;
		}
	}
	lseek(fd, 0, SEEK_SET);
	s->spool_fd = fd;
	return 0;
}

static int sy_reopen(struct sy_session *s)
{
	struct sy_diag d = { 0 };
	int err;

	sy_perf_close(s->r);
	s->r = NULL;
	if (s->spool_fd >= 0)
		err = sy_perf_open_fd(&s->r, s->spool_fd, "-", &d);
	else
		err = sy_perf_open(&s->r, s->path, &d);
	if (err) {
		s->diag = d;
		return err;
	}
	return 0;
}

int sy_session_open(struct sy_session **out, const struct sy_session_opts *opts,
		    struct sy_diag *diag)
{
	struct sy_session *s = calloc(1, sizeof(*s));
	struct stat st;
	int err;

	if (!s)
		return -SY_E_NOMEM;
	s->o = *opts;
	s->warn_fn = opts->warn;
	s->warn_ctx = opts->warn_ctx;
	s->spool_fd = -1;
	s->path = strdup(opts->input ? opts->input : "perf.data");
	if (!s->path) {
		free(s);
		return -SY_E_NOMEM;
	}
	if (!strcmp(s->path, "-") &&
	    (fstat(STDIN_FILENO, &st) || !S_ISREG(st.st_mode))) {
		err = sy_spool_stdin(s);
		if (err)
			goto fail;
	}
	err = sy_reopen(s);
	if (err)
		goto fail;
	/* the prepass meets the same damage the main walk will report: it
	 * only counts it */
	err = sy_prepass(s);
	if (err)
		goto fail;
	err = sy_image_cache_new(&s->images, &s->o.images, &s->diag);
	if (err)
		goto fail;
	sy_image_cache_set_warn(s->images, sy_image_warn, s);
	err = sy_proc_table_new(&s->procs, s->images);
	if (err)
		goto fail;
	if (cs_open(s->kind == SY_TRACE_ETM ? CS_ARCH_ARM64 : CS_ARCH_X86,
		    s->kind == SY_TRACE_ETM ? CS_MODE_ARM : CS_MODE_64,
		    &s->cs) == CS_ERR_OK)
		s->cs_ok = 1;
	*out = s;
	return 0;

fail:
	if (diag) {
		*diag = s->diag;
		if (!diag->err)
			diag->err = err;
		if (!diag->msg[0])
			snprintf(diag->msg, sizeof(diag->msg), "%s",
				 sy_errstr(err));
	}
	sy_session_close(s);
	*out = NULL;
	return err;
}

static void sy_win_free(struct sy_win *w)
{
	if (!w)
		return;
	free(w->chain);
	sy_stretch_free_all(w->st, w->nr_st);
	free(w->stack);
	sy_place_free_window(w);
	sy_proc_snap_put(w->snap);
	free(w);
}

static void sy_job_free(struct sy_job *j)
{
	if (!j)
		return;
	free(j->chunks);
	sy_stretch_free_all(j->st, j->nr_st);
	sy_proc_snap_put(j->snap);
	free(j);
}

void sy_session_close(struct sy_session *s)
{
	if (!s)
		return;
	if (s->pool_up)
		sy_pool_fini(&s->pool);
	while (s->jobs_head) {
		struct sy_job *j = s->jobs_head;
		s->jobs_head = j->next;
		if (j->win)
			j->win->job = NULL;
		sy_job_free(j);
	}
	while (s->out_head) {
		struct sy_win *w = s->out_head;
		s->out_head = w->next;
		sy_win_free(w);
	}
	/* windows still waiting are on the output list, freed above */
	for (size_t i = 0; i < s->nr_queues; i++)
		sy_queue_free(s->queues[i]);
	free(s->queues);
	free(s->comms);
	free(s->attr_role);
	sy_auxtrace_info_fini(&s->info);
	sy_proc_table_free(s->procs);
	sy_image_cache_free(s->images);
	sy_perf_close(s->r);
	if (s->cs_ok)
		cs_close(&s->cs);
	if (s->spool_fd >= 0)
		close(s->spool_fd);
	free(s->path);
	free(s);
}

/* --- workers -------------------------------------------------------------- */

struct sy_wdec {
	const struct sy_queue *q;
	struct sy_decoder *d;
};

struct sy_wctx {
	struct sy_session *s;
	struct sy_mem_reader *mr;
	struct sy_wdec *dec;
	size_t nr_dec, cap_dec;
	struct sy_stretcher st;
};

static void *sy_wctx_new(void *arg)
{
	struct sy_session *s = arg;
	struct sy_wctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	if (sy_mem_reader_new(&c->mr, s->images)) {
		free(c);
		return NULL;
	}
	sy_stretcher_init(&c->st, s->o.depth);
	return c;
}

static void sy_wctx_free(void *arg)
{
	struct sy_wctx *c = arg;

	if (!c)
		return;
	for (size_t i = 0; i < c->nr_dec; i++)
		sy_decoder_free(c->dec[i].d);
	free(c->dec);
	sy_mem_reader_free(c->mr);
	sy_stretcher_fini(&c->st);
	free(c);
}

/* One decoder per queue configuration, per thread. */
static struct sy_decoder *sy_wctx_decoder(struct sy_wctx *c,
					  const struct sy_queue *q, int *err)
{
	struct sy_dec_params dp;

	for (size_t i = 0; i < c->nr_dec; i++)
		if (c->dec[i].q == q)
			return c->dec[i].d;
	if (c->nr_dec == c->cap_dec) {
		size_t ncap = c->cap_dec ? c->cap_dec * 2 : 8;
		struct sy_wdec *n = realloc(c->dec, ncap * sizeof(*n));
		if (!n) {
			*err = -SY_E_NOMEM;
			return NULL;
		}
		c->dec = n;
		c->cap_dec = ncap;
	}
	dp = q->dp;
	dp.mem_ctx = c->mr;
	*err = sy_decoder_alloc(&c->dec[c->nr_dec].d, &dp);
	if (*err)
		return NULL;
	c->dec[c->nr_dec].q = q;
	return c->dec[c->nr_dec++].d;
}

void sy_items_print(FILE *f, const struct sy_dec_item *it)
{
	fprintf(f,
		"  item %-8s from %#" PRIx64 " to %#" PRIx64 " br %-8s code %u "
		"exc %u ninsn %" PRIu64 " off %" PRIu64 " time %" PRIu64 "\n",
		sy_dec_kind_name(it->kind), it->from, it->to,
		sy_branch_kind_name(it->br), it->code, it->exc, it->ninsn,
		it->offset, it->time);
}

static void sy_job_run(void *ctx, struct sy_work *work)
{
	struct sy_job *j = (struct sy_job *)work;
	struct sy_wctx *c = ctx;
	struct sy_decoder *d;
	struct sy_dec_item it;
	int err;

	if (j->slice) {
		/* the queue's own decoder and stretcher: see units.c */
		sy_units_run_slice(c->s, j);
		return;
	}
	sy_stretcher_reset(&c->st);
	d = sy_wctx_decoder(c, j->q, &j->err);
	if (!d)
		return;
	sy_mem_reader_begin(c->mr, j->snap);
	sy_decoder_set_context(d, j->ctxid);
	err = sy_decoder_reset(d, j->chunks, j->nr_chunks, j->report_from);
	if (!err) {
		while ((err = sy_decoder_next(d, &it)) == 0) {
			/* a piece decodes through the PSB+ that starts the
			 * next one (units.c): a timestamp in it while trace
			 * is off dates the next piece's first stretch */
			if (j->ext_from && it.kind == SY_DEC_TIME &&
			    it.offset >= j->ext_from && !c->st.open)
				continue;
			if (c->s->o.items)
				sy_items_print(c->s->o.items, &it);
			if ((err = sy_stretcher_push(&c->st, &it)))
				break;
		}
		if (err == -SY_E_EOS)
			err = sy_stretcher_finish(&c->st);
	}
	sy_mem_reader_end(c->mr);
	j->stats = *sy_decoder_stats(d);
	j->st = sy_stretcher_take(&c->st, &j->nr_st);
	j->err = err;
}

/* --- windows and output --------------------------------------------------- */

static void sy_out_append(struct sy_session *s, struct sy_win *w)
{
	w->listed = 1;
	w->pub.index = s->next_index++;
	s->nr_out++;
	if (s->out_tail)
		s->out_tail->next = w;
	else
		s->out_head = w;
	s->out_tail = w;
}

static const char *sy_comm_of(struct sy_session *s, uint32_t pid);

static void sy_emit_ready(struct sy_session *s)
{
	while (s->out_head && s->out_head->ready) {
		struct sy_win *w = s->out_head;
		struct sy_window *p = &w->pub;

		s->out_head = w->next;
		if (!s->out_head)
			s->out_tail = NULL;
		s->nr_out--;
		s->sum.windows++;
		s->sum.by_status[p->status]++;
		s->sum.bytes += p->bytes;
		s->sum.insns += p->insns;
		s->sum.branches += p->branches;
		s->sum.unplaced += p->unplaced;
		s->sum.placed += p->nr_inner;
		p->snap = w->snap;
		p->comm = sy_comm_of(s, p->pid);
		if (s->fn && !s->fn_ret)
			s->fn_ret = s->fn(s->fn_ctx, p);
		sy_win_free(w);
	}
}

/* Whole-trace mode: every stretch is a window of its own. */
static int sy_whole_trace_windows(struct sy_session *s, struct sy_job *j)
{
	for (size_t i = 0; i < j->nr_st; i++) {
		struct sy_win *w = calloc(1, sizeof(*w));

		if (!w)
			return -SY_E_NOMEM;
		w->q = j->q;
		w->pub.cpu = j->q->cpu;
		w->pub.pid = w->pub.tid = j->st[i].has_ctx ? j->st[i].ctxid :
							      j->ctxid;
		w->st = malloc(sizeof(*w->st));
		if (!w->st) {
			free(w);
			return -SY_E_NOMEM;
		}
		w->st[0] = j->st[i];
		j->st[i].ring = NULL;
		w->nr_st = 1;
		w->snap = sy_proc_snap_get(j->snap);
		sy_out_append(s, w);
		sy_validate(s, w);
		w->ready = 1;
	}
	return 0;
}

static int sy_job_done(struct sy_session *s, struct sy_job *j)
{
	int err;

	if (j->err && j->err != -SY_E_EOS) {
		sy_session_warn(s, j->err, 0, "cpu %d: decoder failed: %s",
				(int)j->q->cpu, sy_errstr(j->err));
		if (j->err == -SY_E_NOMEM)
			return j->err;
	}
	s->sum.overflows += j->stats.overflows;
	s->sum.decode_errors += j->stats.errors;
	s->sum.fast_units += j->stats.fast_units;
	s->sum.full_units += j->stats.full_units;
	s->sum.fallbacks += j->stats.fallbacks;
	if (!j->win) {
		sy_units_job_done(j->q, j);
		/* the queue's next slice decodes while this one's stretches
		 * are matched */
		if (j->slice && !s->kicking) {
			s->kicking = 1;
			err = sy_units_kick(s, j->q);
			s->kicking = 0;
			if (err)
				return err;
		}
	}
	/* item offsets count from the job's first byte: make them AUX
	 * offsets, so that a window decoded in two pieces has a length */
	for (size_t i = 0; i < j->nr_st; i++) {
		j->st[i].off0 += j->aux_lo;
		j->st[i].off1 += j->aux_lo;
	}
	if (s->o.whole_trace)
		return sy_whole_trace_windows(s, j);
	if (j->win) {
		/* an ETR group: its pause sample owns what it holds */
		j->win->lost |= j->lost;
		j->win->group_done = 1;
		j->win->job = NULL;
	}
	err = sy_match_stretches(s, j->q, j->st, j->nr_st, j->has_aux_time,
				 j->aux_time, j->t_lo);
	if (!err)
		err = sy_match_run(s, j->q, 0);
	return err;
}

/* Consumes finished jobs in submission order; with @block, waits for the
 * oldest one. */
static int sy_drain(struct sy_session *s, int block)
{
	int err;

	while (s->jobs_head) {
		struct sy_job *j = s->jobs_head;

		if (block)
			sy_pool_wait(&s->pool, &j->work);
		else if (!sy_pool_poll(&s->pool, &j->work))
			break;
		s->jobs_head = j->next;
		if (!s->jobs_head)
			s->jobs_tail = NULL;
		s->inflight--;
		err = sy_job_done(s, j);
		sy_job_free(j);
		if (err)
			return err;
		block = 0;
	}
	/* ETM slices go on as soon as the previous one is done (not from
	 * inside a submit's drain: that would nest) */
	if (!s->kicking) {
		s->kicking = 1;
		for (size_t i = 0; i < s->nr_queues; i++)
			if ((err = sy_units_kick(s, s->queues[i])))
				break;
		s->kicking = 0;
		if (err)
			return err;
	}
	sy_emit_ready(s);
	return 0;
}

int sy_submit(struct sy_session *s, struct sy_job *j)
{
	unsigned limit = (s->pool.nr ? s->pool.nr : 1) * SY_INFLIGHT_PER_THREAD;

	j->s = s;
	j->work.run = sy_job_run;
	if (s->jobs_tail)
		s->jobs_tail->next = j;
	else
		s->jobs_head = j;
	s->jobs_tail = j;
	s->inflight++;
	sy_pool_submit(&s->pool, &j->work);
	if (s->inflight > limit)
		return sy_drain(s, 1);
	return 0;
}

struct sy_job *sy_job_new(struct sy_session *s, struct sy_queue *q,
			  uint64_t a, uint64_t b, uint32_t ctxid)
{
	struct sy_job *j = calloc(1, sizeof(*j));
	int n;

	if (!j)
		return NULL;
	j->q = q;
	j->ctxid = ctxid;
	n = sy_queue_chunks(s, q, a, b, &j->chunks, &j->lost);
	if (n < 0) {
		free(j);
		return NULL;
	}
	j->aux_lo = a;
	j->nr_chunks = (size_t)n;
	j->bytes = b - a;
	j->snap = sy_proc_table_snapshot(s->procs);
	return j;
}

/* --- the walk ------------------------------------------------------------- */

static struct sy_comm *sy_comm_slot(struct sy_session *s, uint32_t pid,
				     int create)
{
	size_t lo = 0, hi = s->nr_comms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->comms[mid].pid == pid)
			return &s->comms[mid];
		if (s->comms[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!create)
		return NULL;
	if (s->nr_comms == s->cap_comms) {
		size_t ncap = s->cap_comms ? s->cap_comms * 2 : 64;
		struct sy_comm *n = realloc(s->comms, ncap * sizeof(*n));
		if (!n)
			return NULL;
		s->comms = n;
		s->cap_comms = ncap;
	}
	memmove(&s->comms[lo + 1], &s->comms[lo],
		(s->nr_comms - lo) * sizeof(*s->comms));
	s->nr_comms++;
	memset(&s->comms[lo], 0, sizeof(s->comms[lo]));
	s->comms[lo].pid = pid;
	return &s->comms[lo];
}

static const char *sy_comm_of(struct sy_session *s, uint32_t pid)
{
	struct sy_comm *c = sy_comm_slot(s, pid, 0);

	return c ? c->comm : NULL;
}

/* Threads perf saw start before the recording have no FORK record: learn
 * them from any record naming pid and tid, so the trace's context ID (a
 * thread id on Linux) finds its process's code. */
static int sy_learn_thread(struct sy_session *s, uint32_t pid, uint32_t tid)
{
	struct sy_ev_task k;

	if (pid == tid || pid == (uint32_t)-1 || !pid ||
	    sy_proc_table_aspace(s->procs, tid) ||
	    !sy_proc_table_aspace(s->procs, pid))
		return 0;
	memset(&k, 0, sizeof(k));
	k.pid = k.ppid = pid;
	k.tid = tid;
	k.ptid = pid;
	return sy_proc_table_fork(s->procs, &k);
}

/* The user frames of a sample's callchain, leaf first, in a new array. */
static int sy_user_chain(const struct sy_sample *sm, uint64_t **out,
			 uint32_t *nr)
{
	uint64_t n = 0;
	int user = 0;

	*nr = 0;
	*out = malloc((sm->callchain_nr ? sm->callchain_nr : 1) * 8);
	if (!*out)
		return -SY_E_NOMEM;
	for (uint64_t i = 0; i < sm->callchain_nr; i++) {
		uint64_t ip = sy_sample_callchain(sm, i);

		if (ip >= SY_CONTEXT_MAX) {
			user = ip == SY_CONTEXT_USER;
			continue;
		}
		if (user)
			(*out)[n++] = ip;
	}
	*nr = (uint32_t)n;
	return 0;
}

static int sy_on_sample(struct sy_session *s, const struct sy_record *rec)
{
	uint8_t role = s->attr_role[rec->attr->index];
	struct sy_sample sm;
	struct sy_diag d = { 0 };
	struct sy_queue *q;
	struct sy_win *w;
	int err;

	if (!(role & (SY_ROLE_PAUSE | SY_ROLE_RESUME | SY_ROLE_CALLCHAIN)))
		return 0;
	if (sy_sample_parse(rec->attr, rec->data, rec->size, &sm, &d,
			    rec->offset)) {
		sy_session_warn(s, d.err, d.offset, "%s", d.msg);
		return 0;
	}
	if (sm.type & SY_SAMPLE_TID) {
		err = sy_learn_thread(s, sm.pid, sm.tid);
		if (err)
			return err;
	}
	q = sy_queue_get(s, s->sum.per_thread ? sm.tid : sm.cpu, 1);
	if (!q)
		return -SY_E_NOMEM;
	if (!q->seen) {
		q->seen = 1;
		q->running = !s->start_paused;
		if (s->sum.per_thread)
			q->cpu = (uint32_t)-1;
	}
	if (!(role & (SY_ROLE_PAUSE | SY_ROLE_RESUME))) {
		uint64_t *chain;
		uint32_t n;

		/* another callchain sample: one taken while trace ran
		 * interrupted it somewhere in the window (place.c) */
		if (!q->running)
			return 0;
		s->sum.inner_samples++;
		if (s->o.whole_trace) {
			s->sum.unplaced++;
			return 0;
		}
		if (sy_user_chain(&sm, &chain, &n))
			return -SY_E_NOMEM;
		return sy_place_add(s, q, sm.time, sm.ip, sm.period, sm.pid,
				    sm.tid, chain, n);
	}
	q->last_tid = sm.tid;
	if (role & SY_ROLE_RESUME) {
		s->sum.resume_samples++;
		if (q->running)
			s->sum.resume_while_running++;
		q->running = 1;
		return sy_match_resume(q, sm.time, sm.ip, sm.tid,
				       s->sample_seq++);
	}

	s->sum.pause_samples++;
	q->running = 0;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -SY_E_NOMEM;
	w->q = q;
	/* per thread: where the thread was when it paused */
	w->pub.cpu = s->sum.per_thread ? sm.cpu : q->cpu;
	w->pub.has_pause = 1;
	w->pub.pause_time = sm.time;
	w->pub.pause_ip = sm.ip;
	w->pub.pause_period = sm.period;
	w->pub.pid = sm.pid;
	w->pub.tid = sm.tid;
	w->resume_tid = sm.tid;
	w->seq = s->sample_seq++;
	sy_out_append(s, w);
	if (sm.type & SY_SAMPLE_CALLCHAIN) {
		if (sy_user_chain(&sm, &w->chain, &w->pub.nr_callchain))
			return -SY_E_NOMEM;
		w->pub.callchain = w->chain;
	}
	w->snap = sy_proc_table_snapshot(s->procs);
	err = sy_match_pause(q, w);
	if (err)
		return err;
	if (s->sum.sink == SY_SINK_ETR && q->g_has) {
		/* the AUX records since the last pause sample: the sink wrote
		 * the last one when this pause stopped the trace */
		struct sy_job *j = sy_job_new(s, q, q->g_begin, q->g_end,
					      sm.tid);

		if (!j)
			return -SY_E_NOMEM;
		j->win = w;
		j->has_aux_time = 1;
		j->aux_time = q->g_time;
		w->job = j;
		w->aux_bytes = q->g_bytes;
		q->g_has = 0;
		q->g_bytes = 0;
		err = sy_submit(s, j);
		if (err)
			return err;
	}
	return sy_match_run(s, q, 0);
}

static int sy_on_aux(struct sy_session *s, const struct sy_record *rec,
		     const struct sy_event *ev)
{
	uint32_t key = s->sum.per_thread ? ev->sid.tid : ev->sid.cpu;
	struct sy_queue *q = sy_queue_get(s, key, 0);
	const struct sy_ev_aux *a = &ev->u.aux;
	uint64_t bad = a->flags & (SY_AUX_FLAG_TRUNCATED | SY_AUX_FLAG_PARTIAL |
				   SY_AUX_FLAG_COLLISION);
	int err;

	if (!q)
		return 0;
	if (bad && (err = sy_match_event(q, SY_QEV_AUX, ev->sid.time, bad)))
		return err;
	/* a chunk that never made it into the file: every window since the
	 * previous AUX record may have had bytes in it */
	if (a->aux_size && !sy_queue_covered(q, a->aux_offset,
					     a->aux_offset + a->aux_size) &&
	    (err = sy_match_event(q, SY_QEV_LOST_RANGE, ev->sid.time,
				  q->last_aux_time)))
		return err;
	q->last_aux_time = ev->sid.time;
	if (s->sum.sink == SY_SINK_ETR && !s->o.whole_trace && a->aux_size) {
		if (!q->g_has || a->aux_offset < q->g_begin)
			q->g_begin = a->aux_offset;
		if (!q->g_has || a->aux_offset + a->aux_size > q->g_end)
			q->g_end = a->aux_offset + a->aux_size;
		q->g_has = 1;
		q->g_bytes += a->aux_size;
		q->g_time = ev->sid.time;
	}
	/* stream units (and whole-trace fragments) go as the walk reads
	 * their AUX records: the address space is then known */
	if (s->sum.sink != SY_SINK_ETR || s->o.whole_trace) {
		/* collect a finished slice first, so that the queue's next
		 * one can go now */
		if (q->stream.busy && (err = sy_drain(s, 0)))
			return err;
		return sy_units_on_aux(s, q, rec->offset);
	}
	return 0;
}

static int sy_on_record(struct sy_session *s, const struct sy_record *rec)
{
	struct sy_event ev;
	struct sy_diag d = { 0 };
	struct sy_queue *q;

	if (rec->type == SY_REC_SAMPLE)
		return rec->attr && rec->attr->index < s->nr_roles ?
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
	default:
		return 0;
	}
	if (sy_event_parse(rec, &ev, &d)) {
		sy_session_warn(s, d.err, d.offset, "%s", d.msg);
		return 0;
	}
	switch (rec->type) {
	case SY_REC_AUX:
		if (!ev.has_sid)
			return 0;
		return sy_on_aux(s, rec, &ev);
	case SY_REC_SWITCH:
	case SY_REC_SWITCH_CPU_WIDE:
		if (!ev.has_sid)
			return 0;
		if (ev.u.sw.cpu_wide &&
		    sy_learn_thread(s, ev.u.sw.next_prev_pid,
				    ev.u.sw.next_prev_tid))
			return -SY_E_NOMEM;
		/* per thread, a queue holds its thread's own trace: being
		 * scheduled out and in (maybe on another CPU) is an untraced
		 * excursion like an interrupt, not another thread inside */
		if (s->sum.per_thread)
			return 0;
		q = sy_queue_get(s, ev.sid.cpu, 0);
		return q ? sy_match_event(q, SY_QEV_SWITCH, ev.sid.time, 0) : 0;
	case SY_REC_LOST:
	case SY_REC_LOST_SAMPLES:
		s->sum.lost_records++;
		if (ev.has_sid) {
			q = sy_queue_get(s, s->sum.per_thread ? ev.sid.tid :
								ev.sid.cpu,
					 0);
			if (q)
				return sy_match_event(q, SY_QEV_LOST,
						      ev.sid.time, 0);
		}
		return 0;
	case SY_REC_COMM: {
		struct sy_comm *c = sy_comm_slot(s, ev.u.comm.pid, 1);

		if (!c)
			return -SY_E_NOMEM;
		snprintf(c->comm, sizeof(c->comm), "%s", ev.u.comm.comm);
		return sy_proc_table_feed(s->procs, rec, &ev);
	}
	default:
		return sy_proc_table_feed(s->procs, rec, &ev);
	}
}

static double sy_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sy_progress(struct sy_session *s, double t0, uint64_t off,
			int done)
{
	static const char fmt[] = "\rstrobe-synth: %3d%% of %s, %" PRIu64
				  " windows ";
	uint64_t size = sy_perf_info(s->r)->file_size;
	double now = sy_now();

	if (!s->o.progress || now - t0 < 1.0)
		return;
	if (done) {
		fprintf(stderr, "\r%60s\r", "");
		return;
	}
	fprintf(stderr, fmt, size ? (int)(off * 100 / size) : 0, s->path,
		s->sum.windows);
}

int sy_session_run(struct sy_session *s, sy_window_fn fn, void *ctx)
{
	struct sy_record rec;
	unsigned threads = s->o.threads;
	double t0 = sy_now();
	uint64_t n = 0;
	int err, rerr;

	if (!threads) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		threads = c > 0 ? (unsigned)c : 1;
	}
	if (s->o.items)
		threads = 1; /* one readable listing */
	s->sum.threads = threads;
	s->fn = fn;
	s->fn_ctx = ctx;
	err = sy_reopen(s);
	if (err)
		return err;
	sy_perf_set_warn(s->r, sy_reader_warn, s);
	s->sum.damage = 0; /* the prepass saw the same damage */
	err = sy_proc_table_set_build_ids(s->procs, sy_perf_features(s->r));
	if (err)
		return err;
	/* one thread: run the jobs inline, no pool threads at all */
	err = sy_pool_init(&s->pool, threads > 1 ? threads : 0, sy_wctx_new,
			   sy_wctx_free, s);
	if (err)
		return err;
	s->pool_up = 1;
	for (size_t i = 0; i < s->nr_queues; i++) {
		err = sy_units_plan(s, s->queues[i], s->o.unit_bytes);
		if (err)
			goto out;
	}

	while ((rerr = sy_perf_next(s->r, &rec)) == 0 && !s->fn_ret) {
		err = sy_on_record(s, &rec);
		if (err)
			goto out;
		/* the walk waits for the decoders when too many windows
		 * wait for their trace: memory stays bounded however far
		 * ahead of them it could read */
		while ((s->nr_out > SY_OUT_MAX(threads) ||
			s->nr_held > SY_HELD_MAX(threads)) && s->jobs_head) {
			err = sy_drain(s, 1);
			if (err)
				goto out;
		}
		if ((++n & 1023) == 0) {
			err = sy_drain(s, 0);
			if (err)
				goto out;
			sy_progress(s, t0, rec.offset, 0);
		}
	}
	if (rerr != -SY_E_EOS) {
		s->diag = *sy_perf_diag(s->r);
		s->sum.input_error = rerr;
	}
	/* the recording ended: trace still running has no pause sample;
	 * stream units not yet submitted go now */
	for (size_t i = 0; i < s->nr_queues && !s->fn_ret; i++) {
		struct sy_queue *q = s->queues[i];

		if (s->sum.sink != SY_SINK_ETR || s->o.whole_trace) {
			err = sy_units_walk_end(s, q);
			if (err)
				goto out;
		}
	}
	/* draining also sends the ETM slices still to come */
	while (s->jobs_head) {
		err = sy_drain(s, 1);
		if (err)
			goto out;
	}
	for (size_t i = 0; i < s->nr_queues; i++) {
		err = sy_match_run(s, s->queues[i], 1);
		if (err)
			goto out;
	}
	sy_emit_ready(s);
	err = 0;
out:
	sy_progress(s, t0, 0, 1);
	sy_pool_fini(&s->pool);
	s->pool_up = 0;
	s->sum.seconds = sy_now() - t0;
	if (!err && s->fn_ret)
		err = s->fn_ret;
	if (!err && s->sum.input_error)
		err = s->sum.input_error;
	return err;
}

const struct sy_session_summary *sy_session_summary(const struct sy_session *s)
{
	return &s->sum;
}

int sy_session_has_pause(const struct sy_session *s)
{
	return s->any_pause_attr;
}

const struct sy_diag *sy_session_diag(const struct sy_session *s)
{
	return &s->diag;
}

const struct sy_perf_reader *sy_session_reader(const struct sy_session *s)
{
	return s->r;
}

size_t sy_session_missing(struct sy_session *s, struct sy_image_missing *out,
			  size_t max)
{
	return sy_image_cache_missing(s->images, out, max);
}
