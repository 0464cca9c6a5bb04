/* libFuzzer target: arbitrary bytes as a whole perf.data file, through the
 * whole convert pipeline (src/synth/: prepass, decode, matching,
 * validation, aggregation, the llvm-profgen writer), the way `strobe-synth
 * convert` runs it: hybrid windows when some event pauses the trace, else
 * whole-trace windows.  Binaries come from tests/fixtures/programs (the
 * fixtures' MMAP2 paths are repository paths: symfs "."), so that mutated
 * fixtures reach instruction decoding.
 *
 * Every window handed out must be self-consistent (a status in range, a
 * stack no deeper than asked, present when its length says so, samples
 * that reference only what the window holds), and the run must end.
 * Whole-trace runs go twice, every window through the callback and with
 * a window sink (windows finished on the decoding thread, their samples
 * logged per job and merged in order, as convert does): the two must
 * write the same bytes.  So do runs by pause samples: at one thread
 * through the callback, and at two with a sink that merges by window
 * (a batch's windows logged where they were validated, each merged on
 * the run's thread in window order, as convert does). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sy_profgen.h"
#include "sy_synth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_DEPTH 16

struct fz_ctx {
	struct sy_agg *agg;
	int whole_trace;
	uint64_t last_index;
	int any;
};

/* Aborts unless @w is self-consistent. */
static void fz_check(const struct fz_ctx *c, const struct sy_window *w)
{
	uint64_t sum = 0;

	if (w->status >= SY_ST_NR)
		abort();
	if (!c->whole_trace && w->nr_stack > FZ_DEPTH)
		abort();
	if (w->nr_stack && !w->stack)
		abort();
	if (w->nr_callchain && !w->callchain)
		abort();
	if (memchr(w->reason, 0, sizeof(w->reason)) == NULL)
		abort();
	/* touch everything the window points at: ASan checks the bounds */
	for (uint32_t i = 0; i < w->nr_stack; i++)
		sum += w->stack[i].from ^ w->stack[i].to;
	for (uint32_t i = 0; i < w->nr_callchain; i++)
		sum += w->callchain[i];
	if (w->comm)
		sum += strlen(w->comm);
	(void)sum;
}

/* A window handed out (to the callback, or merged from the sink's log). */
static void fz_out(struct fz_ctx *c, const struct sy_window *w)
{
	fz_check(c, w);
	if (c->any && w->index <= c->last_index)
		abort(); /* window order is output order */
	c->any = 1;
	c->last_index = w->index;
}

static int fz_window(void *ctx, const struct sy_window *w)
{
	struct fz_ctx *c = ctx;

	fz_out(c, w);
	if (w->status != SY_ST_OK || !w->nr_stack)
		return 0;
	return sy_agg_add(c->agg, w->nr_callchain ? w->callchain : NULL,
			  w->nr_callchain, w->stack, w->nr_stack);
}

/* The sink: a job's samples logged on its thread, merged in order. */
struct fz_job {
	const struct fz_ctx *c;
	struct sy_agg_log *log;
	/* pause windows: where each one's samples start, and how many
	 * windows were merged */
	size_t *first;
	size_t nwin, merged;
};

static void *fz_job_new(void *ctx)
{
	struct fz_job *j = calloc(1, sizeof(*j));

	if (j && sy_agg_log_new(&j->log)) {
		free(j);
		return NULL;
	}
	if (j)
		j->c = ctx;
	return j;
}

static int fz_job_window(void *job, const struct sy_window *w)
{
	struct fz_job *j = job;

	fz_check(j->c, w);
	if ((w->index != SY_WINDOW_NO_INDEX) != !j->c->whole_trace)
		abort(); /* pause windows have their index, the others none */
	if (!j->c->whole_trace) {
		size_t *n = realloc(j->first, (j->nwin + 1) * sizeof(*n));

		if (!n)
			return -SY_E_NOMEM;
		j->first = n;
		j->first[j->nwin++] = sy_agg_log_samples(j->log);
	}
	if (w->status != SY_ST_OK || !w->nr_stack)
		return 0;
	return sy_agg_log_add(j->log, w->nr_callchain ? w->callchain : NULL,
			      w->nr_callchain, w->stack, w->nr_stack);
}

static int fz_job_merge(void *ctx, void *job)
{
	struct fz_ctx *c = ctx;
	struct fz_job *j = job;
	int err = 0;

	for (size_t i = 0; i < sy_agg_log_samples(j->log) && !err; i++)
		err = sy_agg_add_logged(c->agg, j->log, i);
	return err;
}

/* A pause window in its place: the samples its worker logged. */
static int fz_job_window_merge(void *ctx, void *job, const struct sy_window *w)
{
	struct fz_ctx *c = ctx;
	struct fz_job *j = job;
	size_t end;
	int err = 0;

	fz_out(c, w);
	if (j->merged >= j->nwin)
		abort(); /* merged more windows than the batch had */
	end = j->merged + 1 < j->nwin ? j->first[j->merged + 1] :
					 sy_agg_log_samples(j->log);
	for (size_t i = j->first[j->merged]; i < end && !err; i++)
		err = sy_agg_add_logged(c->agg, j->log, i);
	j->merged++;
	return err;
}

static void fz_job_free(void *job)
{
	struct fz_job *j = job;

	if (j) {
		sy_agg_log_free(j->log);
		free(j->first);
	}
	free(j);
}

static void fz_run(const char *path, int whole_trace, int sink,
		   unsigned threads, FILE *out)
{
	struct sy_session_opts o;
	struct sy_session *s = NULL;
	struct sy_profgen *w = NULL;
	struct fz_ctx c = { 0 };
	struct sy_window_sink k = { &c, fz_job_new, fz_job_window,
				    fz_job_merge, fz_job_free,
				    fz_job_window_merge };
	struct sy_diag d;

	sy_session_opts_init(&o);
	o.input = path;
	o.threads = threads;
	o.depth = whole_trace ? 0 : FZ_DEPTH;
	o.whole_trace = whole_trace;
	o.images.symfs = ".";
	o.images.buildid_dir = "";
	memset(&d, 0, sizeof(d));
	if (sy_session_open(&s, &o, &d))
		return;
	if (!whole_trace && !sy_session_has_pause(s)) {
		/* a plain trace recording: whole trace only (fz_twice) */
		sy_session_close(s);
		return;
	}
	c.whole_trace = whole_trace;
	if (sy_profgen_open_file(&w, out, whole_trace ? SY_PROFGEN_LBR :
							 SY_PROFGEN_HYBRID) ||
	    sy_agg_new(&c.agg, w, 1 << 16))
		goto out;
	(void)sy_session_run_sink(s, fz_window, &c, sink ? &k : NULL);
	(void)sy_agg_flush(c.agg);
	(void)sy_session_summary(s);
out:
	sy_agg_free(c.agg);
	if (w)
		sy_profgen_commit(w, &d);
	sy_session_close(s);
}

/* Each way twice, without and with the sink: the same bytes.  The whole
 * trace (@whole_trace) at one thread, its windows finished in their jobs
 * the second time; windows by pause samples at one thread through the
 * callback, then at two through the sink that merges by window. */
static void fz_twice(const char *path, int whole_trace)
{
	char *text[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };

	for (int k = 0; k < 2; k++) {
		FILE *f = open_memstream(&text[k], &len[k]);

		if (!f)
			abort();
		fz_run(path, whole_trace, k, k && !whole_trace ? 2 : 1, f);
		fclose(f);
	}
	if (len[0] != len[1] || memcmp(text[0], text[1], len[0]))
		abort(); /* the sink's windows write other bytes */
	free(text[0]);
	free(text[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	fd = memfd_create("fuzz-perf-data", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fz_twice(path, 0);
	fz_twice(path, 1);
	close(fd);
	return 0;
}
