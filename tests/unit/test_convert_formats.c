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
 * test_profgen.c.) */
#include <criterion/criterion.h>
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
		cr_assert_eq(sy_conv_log_new(&b->log), 0);
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
