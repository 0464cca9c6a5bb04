/* The session: opening a recording, running the walk over its records,
 * and the public API of include/sy_synth.h.  See README.md in this folder
 * for the way data goes from records to samples. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "session.h"

void sy_session_opts_init(struct sy_session_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->depth = 64;
	o->win_unit = SY_UNIT_INSNS;
}

static void sy_reader_warn(void *ctx, const struct sy_diag *d)
{
	struct sy_session *s = ctx;

	sy_warn_diag(&s->warn, d, 1);
}

static void sy_image_warn(void *ctx, const struct sy_diag *d)
{
	struct sy_session *s = ctx;

	sy_warn_diag(&s->warn, d, 0);
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
	s->in.spool_fd = fd;
	return 0;
}

static int sy_reopen(struct sy_session *s)
{
	struct sy_diag d = { 0 };
	int err;

	sy_perf_close(s->in.r);
	s->in.r = NULL;
	if (s->in.spool_fd >= 0)
		err = sy_perf_open_fd(&s->in.r, s->in.spool_fd, "-", &d);
	else
		err = sy_perf_open(&s->in.r, s->in.path, &d);
	if (err) {
		s->diag = d;
		return err;
	}
	return 0;
}

/* The configuration the options give; the prepass adds the rest. */
static void sy_config_from_opts(struct sy_synth_config *c,
				const struct sy_session_opts *o)
{
	memset(c, 0, sizeof(*c));
	/* (SY_WHOLE_TRACE_AUTO: decided once the attrs are read) */
	c->whole_trace = o->whole_trace == 1;
	c->depth = o->depth;
	c->skid = o->skid;
	c->win_unit = o->win_unit;
	c->win_min = o->win_min;
	c->win_max = o->win_max;
	c->min_branches = o->min_branches;
	c->unit_bytes = o->unit_bytes;
	c->etm_decoder = o->etm_decoder;
	c->items = o->items;
}

static const struct sy_mode_ops *sy_mode_pick(const struct sy_synth_config *c)
{
	if (c->whole_trace)
		return &sy_mode_whole;
	return c->sink == SY_SINK_ETR ? &sy_mode_etr : &sy_mode_stream;
}

static int sy_session_setup(struct sy_session *s)
{
	const struct sy_session_opts *o = &s->o;
	struct stat st;
	int err;

	if (!strcmp(s->in.path, "-") &&
	    (fstat(STDIN_FILENO, &st) || !S_ISREG(st.st_mode)) &&
	    (err = sy_spool_stdin(s)))
		return err;
	if ((err = sy_reopen(s)))
		return err;
	/* the prepass meets the same damage the main walk will report: it
	 * only counts it */
	if ((err = sy_prepass(s)))
		return err;
	s->mode = sy_mode_pick(&s->cfg);
	s->sum.sink = s->cfg.sink;
	s->sum.per_thread = s->cfg.per_thread;
	if ((err = sy_image_cache_new(&s->model.images, &o->images, &s->diag)))
		return err;
	sy_image_cache_set_warn(s->model.images, sy_image_warn, s);
	s->cfg.images = s->model.images;
	return sy_proc_table_new(&s->model.procs, s->model.images);
}

int sy_session_open(struct sy_session **out, const struct sy_session_opts *opts,
		    struct sy_diag *diag)
{
	struct sy_session *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -SY_E_NOMEM;
	s->o = *opts;
	sy_config_from_opts(&s->cfg, opts);
	s->warn.fn = opts->warn;
	s->warn.ctx = opts->warn_ctx;
	s->in.spool_fd = -1;
	sy_comms_init(&s->model.comms);
	s->in.path = strdup(opts->input ? opts->input : "perf.data");
	if (!s->in.path) {
		free(s);
		return -SY_E_NOMEM;
	}
	err = sy_session_setup(s);
	if (err) {
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
	*out = s;
	return 0;
}

/* Stops the workers and frees every job still in flight. */
static void sy_session_stop_jobs(struct sy_session *s)
{
	struct sy_job *j;

	sy_jobs_fini(&s->jobs);
	while ((j = sy_jobs_pop(&s->jobs, 0))) {
		sy_job_release(j);
		free(j);
	}
}

void sy_session_close(struct sy_session *s)
{
	if (!s)
		return;
	sy_session_stop_jobs(s);
	sy_outq_free(&s->deliver.out);
	sy_queues_free(&s->queues);
	sy_reorder_fini(&s->reorder);
	sy_blocks_drop(&s->chains);
	sy_comms_fini(&s->model.comms);
	free(s->model.cpu_proc);
	free(s->sum.throttles);
	free(s->roles.attr_role);
	sy_auxtrace_info_fini(&s->in.info);
	sy_maptl_fini(&s->model.maptl);
	sy_proc_table_free(s->model.procs);
	sy_image_cache_free(s->model.images);
	sy_perf_close(s->in.r);
	if (s->in.spool_fd >= 0)
		close(s->in.spool_fd);
	free(s->in.path);
	free(s);
}

static double sy_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned sy_threads(const struct sy_session *s)
{
	long c;

	if (s->o.threads)
		return s->o.threads;
	c = sysconf(_SC_NPROCESSORS_ONLN);
	return c > 0 ? (unsigned)c : 1;
}

/* One record, in time order (reorder.h), to the walk. */
static int sy_session_take(void *ctx, const struct sy_record *rec)
{
	struct sy_session *s = ctx;
	int err;

	if (s->deliver.fn_ret)
		return 0;
	s->walked += rec->size;
	if ((err = sy_walk_record(s, rec)))
		return err;
	/* the walk waits for the decoders when too many windows
	 * wait for their trace: memory stays bounded however far
	 * ahead of them it could read */
	while (sy_walk_must_wait(s))
		if ((err = sy_walk_pump(s, 1)))
			return err;
	if ((++s->nr_walked & 1023) == 0) {
		if ((err = sy_walk_pump(s, 0)))
			return err;
		sy_walk_progress(s, rec->offset, 0);
	}
	return 0;
}

/* Once, at the end: rounds outgrew the time ordering's cap and went on
 * early (@off: where it happened first), and records came older than
 * ones handed on before. */
static void sy_session_order_notes(struct sy_session *s, uint64_t off)
{
	if (s->reorder.forced)
		sy_warn(&s->warn, 0, off,
			"%" PRIu64 " times a round of records held more than "
			"the %zu KiB the time ordering keeps (first here): the "
			"older half went on before its round ended, as perf "
			"does; a record of the round older than those is "
			"handed on out of time order",
			s->reorder.forced, s->reorder.cap >> 10);
	if (s->reorder.late)
		sy_warn(&s->warn, 0, 0,
			"%" PRIu64 " records are older than records of an "
			"earlier round (written after their round ended, or "
			"moved): handed on in the round they came in",
			s->reorder.late);
}

/* The main walk over the records; windows go out as they are ready.
 * With rounds (FINISHED_ROUND) the records go to the walk in time order,
 * as perf delivers them; without, in file order (reorder.h). */
static int sy_session_walk(struct sy_session *s)
{
	struct sy_record rec;
	uint64_t forced_at = 0;
	int err, rerr, forced;

	sy_reorder_init(&s->reorder, s->in.rounds > 0, s->o.reorder_cap);
	while ((rerr = sy_perf_next(s->in.r, &rec)) == 0 && !s->deliver.fn_ret) {
		rec.flags |= sy_walk_order_check(s, &rec);
		if ((err = sy_reorder_push(&s->reorder, &rec, sy_session_take,
					   s, &forced)))
			return err;
		if (forced && s->reorder.forced == 1)
			forced_at = rec.offset;
	}
	if (rerr != -SY_E_EOS) {
		s->diag = *sy_perf_diag(s->in.r);
		s->sum.input_error = rerr;
	}
	/* what damage left of the file still goes, in order */
	if ((err = sy_reorder_drain(&s->reorder, sy_session_take, s)))
		return err;
	sy_session_order_notes(s, forced_at);
	return sy_walk_end(s);
}

int sy_session_run(struct sy_session *s, sy_window_fn fn, void *ctx)
{
	return sy_session_run_sink(s, fn, ctx, NULL);
}

int sy_session_run_sink(struct sy_session *s, sy_window_fn fn, void *ctx,
			const struct sy_window_sink *sink)
{
	double t0 = sy_now();
	int err;

	s->sum.threads = sy_threads(s);
	s->deliver.fn = fn;
	s->deliver.fn_ctx = ctx;
	if (sink && fn && !s->cfg.items) {
		s->deliver.sink = *sink;
		/* the whole trace's windows, only where a job alone makes
		 * them (finish.h) */
		s->deliver.has_sink = s->cfg.whole_trace && !s->cfg.per_thread &&
				      !sy_queue_tracks_threads(&s->cfg);
		/* pause windows; at one thread they are validated where they
		 * are output: nothing to move */
		s->deliver.sink_pauses = sink->window_merge &&
					 !s->cfg.whole_trace &&
					 s->sum.threads > 1;
	}
	if ((err = sy_reopen(s)))
		return err;
	/* the walk keeps nothing of a record past its turn but what it
	 * copies (the time order copies anyway): read with pread, not
	 * faulted in page by page (sy_perf_skim); the AUX payloads the jobs
	 * decode stay in the mapping */
	(void)sy_perf_skim(s->in.r, 1);
	/* the prepass saw the same damage; the reader replays what it met
	 * while opening, which counts */
	s->warn.damage = 0;
	sy_perf_set_warn(s->in.r, sy_reader_warn, s);
	if ((err = sy_proc_table_set_build_ids(s->model.procs,
					       sy_perf_features(s->in.r))))
		return err;
	/* one thread: jobs run when collected, no pool threads at all; the
	 * workers validate windows too, each with a validator of its own.
	 * The code readers charge no missing binary: a reader serves a job,
	 * which may hold many windows or part of one; validation charges
	 * each window once (missing.h) */
	if ((err = sy_jobs_init(&s->jobs, s->sum.threads, NULL,
				s->cfg.depth, s->cfg.items, s->cfg.unit_bytes,
				&(struct sy_jobs_extra){ sy_validator_new,
							 sy_validator_free,
							 &s->cfg,
							 sy_finish_job,
							 sy_finish_closed })))
		return err;
	err = sy_session_walk(s);
	sy_walk_progress(s, 0, 1);
	sy_session_stop_jobs(s);
	s->sum.damage = s->warn.damage;
	s->sum.seconds = sy_now() - t0;
	if (!err && s->deliver.fn_ret)
		err = s->deliver.fn_ret;
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
	return s->roles.any_pause_attr;
}

const struct sy_diag *sy_session_diag(const struct sy_session *s)
{
	return &s->diag;
}

const struct sy_perf_reader *sy_session_reader(const struct sy_session *s)
{
	return s->in.r;
}

uint64_t sy_session_forced_binaries(struct sy_session *s)
{
	return sy_image_cache_nr_forced(s->model.images);
}

size_t sy_session_missing(struct sy_session *s, struct sy_image_missing *out,
			  size_t max)
{
	return sy_image_cache_missing(s->model.images, out, max);
}
