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
	uint64_t listed;	/* windows so far */
	uint64_t by_sink;	/* of them, given to the sink */
	uint64_t bad_index;	/* callback windows numbered wrong */
	int in_merge;		/* a merge is running */
	int window_in_merge;	/* the callback ran inside one */
};

static int on_window(void *ctx, const struct sy_window *w)
{
	struct listing *l = ctx;

	l->window_in_merge |= l->in_merge;
	if (w->index != l->listed)
		l->bad_index++;
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
	list_window(j->f, w);
	j->n++;
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
	free(j);
}

struct run {
	char *text;
	size_t len;
	struct listing l;
	struct sy_session_summary sum;
	int err;
};

/* @path decoded as whole trace, with or without the sink. */
static void run(const char *path, const char *symfs, unsigned threads,
		uint64_t unit_bytes, int sink, struct run *r)
{
	struct sy_window_sink k = { &r->l, job_new, job_window, job_merge,
				    job_free };
	struct sy_session_opts o;
	struct sy_session *s;
	struct sy_diag d = { 0 };

	memset(r, 0, sizeof(*r));
	r->l.f = open_memstream(&r->text, &r->len);
	cr_assert_not_null(r->l.f);
	sy_session_opts_init(&o);
	o.input = path;
	o.images.symfs = symfs;
	o.images.buildid_dir = "";
	o.threads = threads;
	o.unit_bytes = unit_bytes;
	o.whole_trace = 1;
	o.depth = 0;
	cr_assert_eq(sy_session_open(&s, &o, &d), 0, "%s: %s", path, d.msg);
	r->err = sy_session_run_sink(s, on_window, &r->l, sink ? &k : NULL);
	r->sum = *sy_session_summary(s);
	sy_session_close(s);
	fclose(r->l.f);
}

/* Both ways on @path in every configuration: identical.  Returns the
 * windows the sink took and *@windows the windows, at one thread. */
static uint64_t compare(const char *path, const char *symfs,
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

		run(path, symfs, cfg[c].threads, cfg[c].unit_bytes, 1, &a);
		run(path, symfs, cfg[c].threads, cfg[c].unit_bytes, 0, &b);
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
		cr_assert(!a.l.window_in_merge);
		cr_assert_eq(a.sum.windows, b.sum.windows, "%s", path);
		cr_assert_eq(a.sum.windows, a.l.listed, "%s", path);
		cr_assert_eq(a.sum.bytes, b.sum.bytes);
		cr_assert_eq(a.sum.insns, b.sum.insns);
		cr_assert_eq(a.sum.branches, b.sum.branches);
		cr_assert(!memcmp(a.sum.by_status, b.sum.by_status,
				  sizeof(a.sum.by_status)), "%s", path);
		if (c == 0) {
			by_sink = a.l.by_sink;
			*windows = a.l.listed;
		}
		free(a.text);
		free(b.text);
	}
	return by_sink;
}

Test(finish, generated_fixtures_equal_the_walk, .timeout = 600)
{
	struct dirent *de;
	DIR *dir = opendir(GEN);
	uint64_t sunk = 0, windows = 0, took = 0, recordings = 0;
	char path[600];

	cr_assert_not_null(dir);
	while ((de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		uint64_t w, k;

		if (n < 6 || strcmp(de->d_name + n - 5, ".data"))
			continue;
		snprintf(path, sizeof(path), GEN "/%s", de->d_name);
		k = compare(path, ".", &w);
		sunk += k;
		windows += w;
		took += k > 0;
		recordings++;
	}
	closedir(dir);
	cr_assert_geq(recordings, 60u);
	/* short recordings have few stretches per job; still, the sink
	 * takes windows of many of them */
	cr_assert_geq(took, 20u, "the sink took windows of %" PRIu64
		      " recordings", took);
	cr_log_info("%" PRIu64 " recordings: %" PRIu64 " of %" PRIu64
		    " windows finished in their jobs", recordings, sunk,
		    windows);
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
		sunk = compare(path, symfs, &windows);
		cr_log_info("%s: %" PRIu64 " of %" PRIu64, path, sunk, windows);
	}
}
