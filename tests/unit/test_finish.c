/* Whole-trace windows finished on their decoding thread (src/synth/finish.h,
 * sy_window_sink) against the same windows handed out one by one on the
 * run's thread.
 *
 * Every generated fixture and the real ETMv4 and ETE captures are decoded
 * as whole trace twice: with a window callback alone, and with the same
 * callback plus a sink that lists the windows it is given into a buffer
 * per job, appended to the listing when the session merges the job.  The
 * listings (status, reason, counts, addresses, times, errors and the
 * whole branch stack of every window, in order) and the summaries must be
 * identical, at one and three threads and with small jobs (many seams to
 * join across).  The callback's windows must be numbered as if every
 * window had gone through it: the sink's take as many numbers as they
 * are.  And the sink must really take windows, most of them on the real
 * captures.
 *
 * Windows of pause samples, with the sink's window_merge (windows.c: a
 * batch's windows given to the sink by the worker that validated them,
 * each merged on the run's thread in window order): the same listing,
 * callchains and indices included, as the callback alone, at three
 * threads; each window merged must be the one the job was given in its
 * place; at one thread the sink is not used.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sy_synth.h"
#include "sy_test.h"

#define GEN "tests/fixtures/generated"
#define REAL "fixtures/real/simpleperf-etm"

/* One window, without its index (the sink's windows have none). */
static void list_window(FILE *f, const struct sy_window *w)
{
	fprintf(f,
		"%s \"%s\" cpu %u %u/%u bytes %" PRIu64 " insns %" PRIu64
		" br %" PRIu64 " %#" PRIx64 "-%#" PRIx64 " t %" PRIu64
		"-%" PRIu64 " err %" PRIu64 " %d@%" PRIu64 " addr %#" PRIx64
		" placed %u unplaced %u\n",
		sy_status_name(w->status), w->reason, w->cpu, w->pid, w->tid,
		w->bytes, w->insns, w->branches, w->start_addr, w->end_addr,
		w->trace_start, w->trace_end, w->decode_errors, w->first_error,
		w->first_error_offset, w->first_error_addr, w->nr_inner,
		w->unplaced);
	for (uint32_t i = 0; i < w->nr_stack; i++)
		fprintf(f, " %#" PRIx64 "->%#" PRIx64 "/%u", w->stack[i].from,
			w->stack[i].to, w->stack[i].kind);
	fputc('\n', f);
}

struct listing {
	FILE *f;
	int pauses;		/* windows of pause samples: index, chain */
	uint64_t listed;	/* windows so far */
	uint64_t by_sink;	/* of them, given to the sink */
	uint64_t bad_index;	/* callback windows numbered wrong */
	int in_merge;		/* a merge is running */
	int window_in_merge;	/* the callback ran inside one */
};

/* A window of a pause sample: its index and callchain too. */
static void list_pause(FILE *f, const struct sy_window *w)
{
	fprintf(f, "#%" PRIu64 " pause %#" PRIx64 " chain", w->index,
		w->pause_ip);
	for (uint32_t i = 0; i < w->nr_callchain; i++)
		fprintf(f, " %#" PRIx64, w->callchain[i]);
	for (uint32_t i = 0; i < w->nr_inner; i++)
		fprintf(f, " inner %#" PRIx64 "/%u/%u", w->inner[i].ip,
			w->inner[i].nr_callchain, w->inner[i].nr_stack);
	fputc(' ', f);
	list_window(f, w);
}

static int on_window(void *ctx, const struct sy_window *w)
{
	struct listing *l = ctx;

	l->window_in_merge |= l->in_merge;
	if (w->index != l->listed)
		l->bad_index++;
	if (l->pauses)
		list_pause(l->f, w);
	else
		list_window(l->f, w);
	l->listed++;
	return 0;
}

/* The sink's context for one job: its windows' lines. */
struct job_list {
	char *text;
	size_t len;
	FILE *f;
	uint64_t n;
	int indexed;		/* a window came with an index */
	/* pause windows: where each one's line starts, and the lines
	 * window_merge took */
	size_t *at;
	uint64_t merged;
};

static void *job_new(void *ctx)
{
	struct job_list *j = calloc(1, sizeof(*j));

	(void)ctx;
	if (j && !(j->f = open_memstream(&j->text, &j->len))) {
		free(j);
		return NULL;
	}
	return j;
}

static int job_window(void *job, const struct sy_window *w)
{
	struct job_list *j = job;

	j->indexed |= w->index != SY_WINDOW_NO_INDEX;
	if (w->index != SY_WINDOW_NO_INDEX) {
		j->at = realloc(j->at, (j->n + 1) * sizeof(*j->at));
		cr_assert_not_null(j->at);
		fflush(j->f);
		j->at[j->n] = j->len;
		list_pause(j->f, w);
	} else {
		list_window(j->f, w);
	}
	j->n++;
	return 0;
}

/* A pause window on the run's thread: the line the job made of it where
 * it was validated, which must be the line of the window handed out. */
static int job_window_merge(void *ctx, void *job, const struct sy_window *w)
{
	struct listing *l = ctx;
	struct job_list *j = job;
	char *now = NULL;
	size_t nnow = 0, end;
	FILE *f = open_memstream(&now, &nnow);

	cr_assert_not_null(f);
	list_pause(f, w);
	fclose(f);
	fflush(j->f);
	cr_assert_lt(j->merged, j->n, "window %" PRIu64 ": merged past the "
		     "job's windows", w->index);
	end = j->merged + 1 < j->n ? j->at[j->merged + 1] : j->len;
	cr_assert(end - j->at[j->merged] == nnow &&
			  !memcmp(j->text + j->at[j->merged], now, nnow),
		  "window %" PRIu64 " merged in the place of another:\n%.*s%s",
		  w->index, (int)(end - j->at[j->merged]),
		  j->text + j->at[j->merged], now);
	fwrite(now, 1, nnow, l->f);
	free(now);
	j->merged++;
	if (w->index != l->listed)
		l->bad_index++;
	l->listed++;
	l->by_sink++;
	return 0;
}

static int job_merge(void *ctx, void *job)
{
	struct listing *l = ctx;
	struct job_list *j = job;

	l->in_merge = 1;
	fflush(j->f);
	cr_assert(!j->indexed, "a sink window has an index");
	fwrite(j->text, 1, j->len, l->f);
	l->listed += j->n;
	l->by_sink += j->n;
	l->in_merge = 0;
	return 0;
}

static void job_free(void *job)
{
	struct job_list *j = job;

	if (!j)
		return;
	fclose(j->f);
	free(j->text);
	free(j->at);
	free(j);
}

struct run {
	char *text;
	size_t len;
	int no_pause;		/* asked for pause windows, there are none */
	struct listing l;
	struct sy_session_summary sum;
	int err;
};

/* @path decoded as whole trace (@pauses: by its pause samples), with or
 * without the sink. */
static void run(const char *path, const char *symfs, unsigned threads,
		uint64_t unit_bytes, int sink, int pauses, struct run *r)
{
	struct sy_window_sink k = { &r->l, job_new, job_window, job_merge,
				    job_free, job_window_merge };
	struct sy_session_opts o;
	struct sy_session *s;
	struct sy_diag d = { 0 };

	memset(r, 0, sizeof(*r));
	r->l.f = open_memstream(&r->text, &r->len);
	r->l.pauses = pauses;
	cr_assert_not_null(r->l.f);
	sy_session_opts_init(&o);
	o.input = path;
	o.images.symfs = symfs;
	o.images.buildid_dir = "";
	o.threads = threads;
	o.unit_bytes = unit_bytes;
	o.whole_trace = !pauses;
	o.depth = 0;
	cr_assert_eq(sy_session_open(&s, &o, &d), 0, "%s: %s", path, d.msg);
	r->no_pause = pauses && !sy_session_has_pause(s);
	r->err = sy_session_run_sink(s, on_window, &r->l, sink ? &k : NULL);
	r->sum = *sy_session_summary(s);
	sy_session_close(s);
	fclose(r->l.f);
}

/* Both ways on @path in every configuration: identical.  Returns the
 * windows the sink took and *@windows the windows: whole trace at one
 * thread, pause windows (@pauses; none there: 0) at three. */
static uint64_t compare(const char *path, const char *symfs, int pauses,
			uint64_t *windows)
{
	static const struct {
		unsigned threads;
		uint64_t unit_bytes;
	} cfg[] = { { 1, 0 }, { 3, 0 }, { 1, 64 }, { 3, 64 } };
	uint64_t by_sink = 0;

	for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		struct run a, b;
		char why[400];

		run(path, symfs, cfg[c].threads, cfg[c].unit_bytes, 1, pauses,
		    &a);
		run(path, symfs, cfg[c].threads, cfg[c].unit_bytes, 0, pauses,
		    &b);
		if (a.no_pause) {
			free(a.text);
			free(b.text);
			*windows = 0;
			return 0;
		}
		if (a.len != b.len || memcmp(a.text, b.text, a.len)) {
			sy_test_first_diff(a.text, "sink", b.text, "walk", why,
					   sizeof(why));
			cr_assert_fail("%s -j %u unit %" PRIu64 ": %s", path,
				       cfg[c].threads, cfg[c].unit_bytes, why);
		}
		cr_assert_eq(a.err, b.err, "%s", path);
		cr_assert_eq(a.l.bad_index, 0, "%s: callback windows numbered "
			     "as if the sink's were not there", path);
		cr_assert_eq(b.l.by_sink, 0);
		/* pause windows: at one thread validated where output */
		if (pauses && cfg[c].threads == 1)
			cr_assert_eq(a.l.by_sink, 0);
		cr_assert(!a.l.window_in_merge);
		cr_assert_eq(a.sum.windows, b.sum.windows, "%s", path);
		cr_assert_eq(a.sum.windows, a.l.listed, "%s", path);
		cr_assert_eq(a.sum.bytes, b.sum.bytes);
		cr_assert_eq(a.sum.insns, b.sum.insns);
		cr_assert_eq(a.sum.branches, b.sum.branches);
		cr_assert(!memcmp(a.sum.by_status, b.sum.by_status,
				  sizeof(a.sum.by_status)), "%s", path);
		if (c == (pauses ? 1 : 0)) {
			by_sink = a.l.by_sink;
			*windows = a.l.listed;
		}
		free(a.text);
		free(b.text);
	}
	return by_sink;
}

/* Every generated fixture both ways (compare); @pauses: by pause samples,
 * where each window must go through the sink.  Adds to the counts: the
 * windows the sink took, the windows, the recordings where it took some,
 * the recordings with windows. */
struct tally {
	uint64_t sunk, windows, took, recordings;
};

static void each_fixture(int pauses, struct tally *t)
{
	struct dirent *de;
	DIR *dir = opendir(GEN);
	char path[600];

	cr_assert_not_null(dir);
	while ((de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		uint64_t w, k;

		if (n < 6 || strcmp(de->d_name + n - 5, ".data"))
			continue;
		snprintf(path, sizeof(path), GEN "/%s", de->d_name);
		k = compare(path, ".", pauses, &w);
		if (pauses)
			cr_assert_eq(k, w, "%s: %" PRIu64 " of %" PRIu64
				     " windows through the sink", path, k, w);
		t->sunk += k;
		t->windows += w;
		t->took += k > 0;
		t->recordings += !pauses || w > 0;
	}
	closedir(dir);
}

Test(finish, generated_fixtures_equal_the_walk, .timeout = 600)
{
	struct tally t = { 0 };

	each_fixture(0, &t);
	cr_assert_geq(t.recordings, 60u);
	/* short recordings have few stretches per job; still, the sink
	 * takes windows of many of them */
	cr_assert_geq(t.took, 20u, "the sink took windows of %" PRIu64
		      " recordings", t.took);
	cr_log_info("%" PRIu64 " recordings: %" PRIu64 " of %" PRIu64
		    " windows finished in their jobs", t.recordings, t.sunk,
		    t.windows);
}

Test(finish, real_captures_equal_the_walk, .timeout = 300)
{
	static const char *const names[] = {
		"perf_etm.data",
		"perf_with_unformatted_trace.data",
	};
	char path[1200], symfs[1024];

	snprintf(symfs, sizeof(symfs), "%s", sy_test_shared_path(REAL "/symfs"));
	sy_test_require_path(symfs);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t windows, sunk;

		snprintf(path, sizeof(path), "%s/%s",
			 sy_test_shared_path(REAL "/orig"), names[i]);
		sy_test_require_path(path);
		sunk = compare(path, symfs, 0, &windows);
		cr_log_info("%s: %" PRIu64 " of %" PRIu64, path, sunk, windows);
	}
}

/* Pause windows (sy_window_sink.window_merge): at three threads every
 * window of a recording with pause samples goes through the sink, unless
 * memory for a batch's context ran out. */
Test(finish, pause_windows_through_the_sink_equal_the_walk, .timeout = 600)
{
	struct tally t = { 0 };

	each_fixture(1, &t);
	cr_assert_geq(t.recordings, 40u);
	cr_assert_eq(t.sunk, t.windows);
	cr_log_info("%" PRIu64 " recordings with pause windows: %" PRIu64
		    " windows through the sink", t.recordings, t.sunk);
}
