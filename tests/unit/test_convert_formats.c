/* convert's output formats (src/out/formats.c): whole-trace samples
 * logged where their windows were finished (sy_conv_log, on a decoding
 * thread in convert) and merged later write the bytes sy_conv_out_whole
 * writes for the same windows one by one.
 *
 * The windows are real: generated fixtures decoded as whole trace, among
 * them programs with a shared library, whose second mapping is first
 * touched well into the trace.  One output takes every window through
 * sy_conv_out_whole; the other takes runs of them through a log (of 1 to
 * 5 windows, like a job's) and the windows between directly, as the walk
 * does with each job's first and last.  The MMAP2 lines the writer puts
 * before the samples come out of the merge (their order is the order the
 * samples first touch the mappings), with samples of one branch to 64.
 * (The range a logged sample's addresses span is checked in
 * test_profgen.c.)
 *
 * Pause windows: their samples (the samples that interrupted the window,
 * then its pause sample) logged a window at a time (sy_conv_log_window,
 * sy_conv_log_sample) and merged window by window
 * (sy_conv_out_merge_window, as convert does on the run's thread when a
 * worker logged them) write what sy_conv_out_sample writes, in perfscript
 * and lbr. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sy_formats.h"
#include "sy_image.h"
#include "sy_proc.h"
#include "sy_synth.h"
#include "sy_test.h"

#define GEN "tests/fixtures/generated"

struct both {
	struct sy_conv_out *direct, *logged;
	struct sy_conv_log *log;
	struct sy_proc_snap **snaps; /* held until the log is merged */
	size_t nr_snaps;
	uint32_t depth;
	uint64_t windows, in_logs;
	uint64_t samples[2], entries[2];
};

static void merge_log(struct both *b)
{
	if (!b->log)
		return;
	cr_assert_eq(sy_conv_out_merge(b->logged, b->log), 0);
	sy_conv_log_free(b->log);
	b->log = NULL;
	for (size_t i = 0; i < b->nr_snaps; i++)
		sy_proc_snap_put(b->snaps[i]);
	b->nr_snaps = 0;
}

static int on_window(void *ctx, const struct sy_window *w)
{
	struct both *b = ctx;
	/* runs of 1-5 logged windows, one direct window between */
	uint64_t k = b->windows++ % 7;

	cr_assert_eq(sy_conv_out_whole(b->direct, w, b->depth, &b->samples[0],
				       &b->entries[0]),
		     0);
	if (k == 0 || k == 6) {
		merge_log(b);
		cr_assert_eq(sy_conv_out_whole(b->logged, w, b->depth,
					       &b->samples[1], &b->entries[1]),
			     0);
		return 0;
	}
	if (!b->log)
		cr_assert_eq(sy_conv_log_new(&b->log, SY_CONV_LBR), 0);
	b->snaps = realloc(b->snaps, (b->nr_snaps + 1) * sizeof(*b->snaps));
	cr_assert_not_null(b->snaps);
	/* the session's windows hold their snapshot until they are out */
	b->snaps[b->nr_snaps++] = sy_proc_snap_get(
		(struct sy_proc_snap *)(uintptr_t)w->snap);
	cr_assert_eq(sy_conv_log_whole(b->log, w, b->depth, &b->samples[1],
				       &b->entries[1]),
		     0);
	b->in_logs++;
	return 0;
}

/* @name decoded as whole trace into both outputs, samples of @depth
 * branches: the files must be equal.  Returns the MMAP2 lines. */
static size_t compare(const char *dir, const char *name, uint32_t depth)
{
	struct both b = { .depth = depth };
	struct sy_session_opts o;
	struct sy_session *s;
	struct sy_diag d = { 0 };
	char in[512], pd[600], pl[600];
	uint8_t *x, *y;
	size_t nx, ny, mmaps = 0;
	uint64_t unique[2];

	snprintf(in, sizeof(in), GEN "/%s.data", name);
	snprintf(pd, sizeof(pd), "%s/direct.lbr", dir);
	snprintf(pl, sizeof(pl), "%s/logged.lbr", dir);
	sy_session_opts_init(&o);
	o.input = in;
	o.images.symfs = ".";
	o.images.buildid_dir = "";
	o.threads = 1;
	o.whole_trace = 1;
	o.depth = 0;
	cr_assert_eq(sy_session_open(&s, &o, &d), 0, "%s: %s", in, d.msg);
	cr_assert_eq(sy_conv_out_open(&b.direct, SY_CONV_LBR, pd, s, NULL, &d),
		     0);
	cr_assert_eq(sy_conv_out_open(&b.logged, SY_CONV_LBR, pl, s, NULL, &d),
		     0);
	cr_assert(sy_conv_out_logs(b.logged));
	cr_assert_eq(sy_session_run(s, on_window, &b), 0, "%s", in);
	merge_log(&b);
	cr_assert_eq(sy_conv_out_commit(b.direct, &unique[0], &d), 0);
	cr_assert_eq(sy_conv_out_commit(b.logged, &unique[1], &d), 0);
	sy_session_close(s);
	free(b.snaps);
	x = sy_test_read_file(pd, &nx);
	y = sy_test_read_file(pl, &ny);
	cr_assert(x && y);
	cr_assert(nx == ny && !memcmp(x, y, nx),
		  "%s depth %u: logged samples write other bytes", name, depth);
	cr_assert_eq(unique[0], unique[1]);
	cr_assert_eq(b.samples[0], b.samples[1]);
	cr_assert_eq(b.entries[0], b.entries[1]);
	cr_assert_gt(b.in_logs, 5, "%s: %llu windows logged", name,
		     (unsigned long long)b.in_logs);
	for (size_t i = 0; i + 17 <= nx; i++)
		mmaps += (i == 0 || x[i - 1] == '\n') &&
			 !memcmp(x + i, "PERF_RECORD_MMAP2", 17);
	free(x);
	free(y);
	return mmaps;
}

Test(convert_formats, logged_whole_trace_writes_what_direct_does,
     .timeout = 120)
{
	static const char *const names[] = {
		"etm4-etr-dynfx", "ete-trbe-dynfx-smp", "etm4-etr-interp",
		"etm4-etr-deep", "pt-smp",
	};
	static const uint32_t depths[] = { 1, 3, 64 };
	const char *dir = sy_test_mkdtemp();
	size_t two = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (size_t k = 0; k < sizeof(depths) / sizeof(depths[0]); k++)
			two += compare(dir, names[i], depths[k]) >= 2;
	/* the programs with a library write its mapping too */
	cr_assert_geq(two, 4);
	sy_test_rmtree(dir);
}

/* --- pause windows: samples logged per window, merged one window at a
 * time (sy_conv_log_window, sy_conv_log_sample, sy_conv_out_merge_window),
 * against the same samples written directly ------------------------------ */

struct pauses {
	enum sy_conv_format fmt;
	struct sy_conv_out *direct, *logged;
	/* logs of 1 to 5 windows, merged window by window as their windows
	 * come again (here: at once, in order) */
	struct sy_conv_log *log;
	uint64_t windows, samples;
};

/* A window's samples, as convert makes them: those that interrupted it,
 * then its pause sample. */
static void each_sample(const struct sy_window *w,
			void (*fn)(struct pauses *, const struct sy_window *,
				   const struct sy_conv_sample *),
			struct pauses *p)
{
	for (uint32_t i = 0; i < w->nr_inner; i++) {
		const struct sy_inner_sample *in = &w->inner[i];
		struct sy_conv_sample cs = {
			.ip = in->ip,
			.frames = in->nr_callchain ? in->callchain : NULL,
			.nr_frames = in->nr_callchain,
			.stack = in->stack, .nr_stack = in->nr_stack,
		};

		fn(p, w, &cs);
	}
	if (w->has_pause && w->nr_stack) {
		struct sy_conv_sample cs = {
			.ip = w->pause_ip,
			.frames = w->nr_callchain ? w->callchain : NULL,
			.nr_frames = w->nr_callchain,
			.stack = w->stack, .nr_stack = w->nr_stack,
		};

		fn(p, w, &cs);
	}
}

static void put_direct(struct pauses *p, const struct sy_window *w,
		       const struct sy_conv_sample *cs)
{
	cr_assert_eq(sy_conv_out_sample(p->direct, w, cs), 0);
	p->samples++;
}

static void put_logged(struct pauses *p, const struct sy_window *w,
		       const struct sy_conv_sample *cs)
{
	(void)w;
	cr_assert_eq(sy_conv_log_sample(p->log, cs), 0);
}

static int on_pause_window(void *ctx, const struct sy_window *w)
{
	struct pauses *p = ctx;

	each_sample(w, put_direct, p);
	if (!p->log)
		cr_assert_eq(sy_conv_log_new(&p->log, p->fmt), 0);
	cr_assert_eq(sy_conv_log_window(p->log, w), 0);
	each_sample(w, put_logged, p);
	/* the window merged where it would have been written (the session
	 * hands it out again in its place: here, at once) */
	cr_assert(!sy_conv_log_all_merged(p->log));
	cr_assert_eq(sy_conv_out_merge_window(p->logged, p->log, w), 0);
	if (++p->windows % 5 == 0) {
		cr_assert(sy_conv_log_all_merged(p->log));
		cr_assert_eq(sy_conv_out_merge_window(p->logged, p->log, w),
			     -SY_E_INVALID, "merged past the log's windows");
		sy_conv_log_free(p->log);
		p->log = NULL;
	}
	return 0;
}

Test(convert_formats, pause_windows_logged_write_what_direct_does,
     .timeout = 120)
{
	static const char *const names[] = {
		"etm4-etr-oddflow", "ete-trbe-oddflow", "pt-dlfx",
		"etm4-etr-dlfx-smp", "pt-migrate", "etm4-etr-samples",
		"etm4-etr-deep", "pt-interp",
	};
	static const enum sy_conv_format fmts[] = { SY_CONV_PERFSCRIPT,
						    SY_CONV_LBR };
	const char *dir = sy_test_mkdtemp();
	uint64_t samples = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (size_t k = 0; k < 2; k++) {
			struct pauses p = { .fmt = fmts[k] };
			struct sy_session_opts o;
			struct sy_session *s;
			struct sy_diag d = { 0 };
			char in[512], pd[600], pl[600];
			uint8_t *x, *y;
			size_t nx, ny;
			uint64_t unique[2];

			snprintf(in, sizeof(in), GEN "/%s.data", names[i]);
			snprintf(pd, sizeof(pd), "%s/direct", dir);
			snprintf(pl, sizeof(pl), "%s/logged", dir);
			sy_session_opts_init(&o);
			o.input = in;
			o.images.symfs = ".";
			o.images.buildid_dir = "";
			o.threads = 1;
			cr_assert_eq(sy_session_open(&s, &o, &d), 0, "%s: %s",
				     in, d.msg);
			cr_assert_eq(sy_conv_out_open(&p.direct, p.fmt, pd, s,
						      NULL, &d), 0);
			cr_assert_eq(sy_conv_out_open(&p.logged, p.fmt, pl, s,
						      NULL, &d), 0);
			cr_assert(sy_conv_out_logs(p.logged));
			cr_assert_eq(sy_session_run(s, on_pause_window, &p), 0,
				     "%s", in);
			sy_conv_log_free(p.log);
			cr_assert_eq(sy_conv_out_commit(p.direct, &unique[0],
							&d), 0);
			cr_assert_eq(sy_conv_out_commit(p.logged, &unique[1],
							&d), 0);
			sy_session_close(s);
			x = sy_test_read_file(pd, &nx);
			y = sy_test_read_file(pl, &ny);
			cr_assert(x && y);
			cr_assert(nx == ny && !memcmp(x, y, nx),
				  "%s %s: logged samples write other bytes",
				  names[i], k ? "lbr" : "perfscript");
			cr_assert_eq(unique[0], unique[1]);
			cr_assert_geq(p.samples, 10, "%s: %" PRIu64
				      " samples", names[i], p.samples);
			samples += p.samples;
			free(x);
			free(y);
		}
	cr_log_info("%" PRIu64 " samples", samples);
	sy_test_rmtree(dir);
}

/* Two samples with the same leaf and branches and other callers: lbr
 * writes the leaf alone, so they are one sample there, two in
 * perfscript, logged as written directly. */
Test(convert_formats, a_logged_lbr_sample_is_its_leaf)
{
	static const uint64_t f1[] = { 0x1000, 0x2000 }, f2[] = { 0x1000,
								  0x3000 };
	static const struct sy_br st[] = { { .from = 0x1100, .to = 0x1000 } };
	const char *dir = sy_test_mkdtemp();
	struct sy_window w = { .pid = 1, .tid = 1 };

	for (int lbr = 0; lbr < 2; lbr++) {
		enum sy_conv_format fmt = lbr ? SY_CONV_LBR :
						SY_CONV_PERFSCRIPT;
		struct sy_conv_out *direct, *logged;
		struct sy_conv_log *log;
		struct sy_diag d = { 0 };
		char pd[600], pl[600];
		uint64_t unique[2];
		uint8_t *x, *y;
		size_t nx, ny;

		snprintf(pd, sizeof(pd), "%s/direct", dir);
		snprintf(pl, sizeof(pl), "%s/logged", dir);
		cr_assert_eq(sy_conv_out_open(&direct, fmt, pd, NULL, NULL, &d),
			     0);
		cr_assert_eq(sy_conv_out_open(&logged, fmt, pl, NULL, NULL, &d),
			     0);
		cr_assert_eq(sy_conv_log_new(&log, fmt), 0);
		cr_assert_eq(sy_conv_log_window(log, &w), 0);
		for (int k = 0; k < 2; k++) {
			struct sy_conv_sample cs = {
				.ip = 0x1000, .frames = k ? f2 : f1,
				.nr_frames = 2, .stack = st, .nr_stack = 1,
			};

			cr_assert_eq(sy_conv_out_sample(direct, &w, &cs), 0);
			cr_assert_eq(sy_conv_log_sample(log, &cs), 0);
		}
		cr_assert_eq(sy_conv_out_merge_window(logged, log, &w), 0);
		sy_conv_log_free(log);
		cr_assert_eq(sy_conv_out_commit(direct, &unique[0], &d), 0);
		cr_assert_eq(sy_conv_out_commit(logged, &unique[1], &d), 0);
		cr_assert_eq(unique[0], lbr ? 1u : 2u);
		cr_assert_eq(unique[1], unique[0], "%s",
			     lbr ? "lbr" : "perfscript");
		x = sy_test_read_file(pd, &nx);
		y = sy_test_read_file(pl, &ny);
		cr_assert(x && y && nx == ny && !memcmp(x, y, nx));
		free(x);
		free(y);
	}
	sy_test_rmtree(dir);
}
