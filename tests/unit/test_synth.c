/* Stretch assembly, sample aggregation and the llvm-profgen writer.
 * Expected values follow from the rules in stretch.h and
 * ../shared/reference/llvm-profgen.md, worked out by hand per case. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/synth/stretch.h"
#include "sy_profgen.h"
#include "sy_test.h"

static struct sy_dec_item item(int kind, uint64_t from, uint64_t to,
			       uint32_t code, uint64_t ninsn)
{
	struct sy_dec_item it;

	memset(&it, 0, sizeof(it));
	it.kind = (uint8_t)kind;
	it.from = from;
	it.to = to;
	it.code = code;
	it.ninsn = ninsn;
	it.br = SY_BR_COND;
	return it;
}

static void push(struct sy_stretcher *st, struct sy_dec_item it)
{
	cr_assert_eq(sy_stretcher_push(st, &it), 0);
}

Test(stretch, window_with_ring_and_stop)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	struct sy_br out[8];
	size_t n;

	sy_stretcher_init(&st, 4);
	push(&st, item(SY_DEC_START, 0, 0x1000, 0, 0));
	for (uint64_t i = 0; i < 10; i++)
		push(&st, item(SY_DEC_BRANCH, 0x1000 + i * 16, 0x2000 + i * 16,
			       0, 3));
	push(&st, item(SY_DEC_STOP, 0, 0x9000, SY_STOP_EXCEPTION, 2));
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(v[0].start_addr, 0x1000);
	cr_assert_eq(v[0].end_addr, 0x9000);
	cr_assert(v[0].flags & SY_SF_STOPPED);
	cr_assert_eq(v[0].branches, 10);
	cr_assert_eq(v[0].insns, 32);
	/* depth 4: the four newest, newest first */
	cr_assert_eq(sy_stretch_stack(&v[0], out, 8), 4);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(out[i].from, 0x1000 + (uint64_t)(9 - i) * 16);
		cr_assert_eq(out[i].to, 0x2000 + (uint64_t)(9 - i) * 16);
	}
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}

Test(stretch, whole_window_keeps_everything)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	struct sy_br *out = calloc(1000, sizeof(*out));
	size_t n;

	sy_stretcher_init(&st, 0);
	push(&st, item(SY_DEC_START, 0, 0x1000, 0, 0));
	for (uint64_t i = 0; i < 1000; i++)
		push(&st, item(SY_DEC_BRANCH, i, i + 1, 0, 1));
	cr_assert_eq(sy_stretcher_finish(&st), 0);
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(sy_stretch_stack(&v[0], out, 1000), 1000);
	for (uint64_t i = 0; i < 1000; i++)
		cr_assert_eq(out[i].from, 999 - i);
	cr_assert_not(v[0].flags & SY_SF_STOPPED, "ended without a STOP");
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
	free(out);
}

Test(stretch, excursions_end_stretches_that_join)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	size_t n;

	sy_stretcher_init(&st, 64);
	push(&st, item(SY_DEC_START, 0, 0x1000, 0, 0));
	push(&st, item(SY_DEC_BRANCH, 0x1004, 0x1100, 0, 2));
	push(&st, item(SY_DEC_STOP, 0x1108, 0x110c, SY_STOP_SYSCALL, 3));
	push(&st, item(SY_DEC_START, 0, 0x110c, 0, 0));
	push(&st, item(SY_DEC_BRANCH, 0x1110, 0x1200, 0, 2));
	/* an interrupt, back where it left */
	push(&st, item(SY_DEC_STOP, 0, 0x1208, SY_STOP_EXCEPTION, 2));
	push(&st, item(SY_DEC_START, 0, 0x1208, 0, 0));
	/* back elsewhere (a signal, another thread): no join */
	push(&st, item(SY_DEC_STOP, 0x1208, 0x120c, SY_STOP_SYSCALL, 1));
	push(&st, item(SY_DEC_START, 0, 0x5000, 0, 0));
	push(&st, item(SY_DEC_STOP, 0, 0x5010, SY_STOP_EXCEPTION, 4));
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 4);
	cr_assert_eq(v[0].start_addr, 0x1000);
	cr_assert_eq(v[0].end_addr, 0x110c);
	cr_assert_eq(v[0].stop_reason, SY_STOP_SYSCALL);
	cr_assert(sy_stretch_joins(&v[0], &v[1]));
	cr_assert(sy_stretch_joins(&v[1], &v[2]));
	cr_assert_not(sy_stretch_joins(&v[2], &v[3]));
	cr_assert_eq(v[3].end_addr, 0x5010);
	/* an overflow between them breaks the join */
	v[2].flags |= SY_SF_OVERFLOW;
	cr_assert_not(sy_stretch_joins(&v[1], &v[2]));
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}

Test(stretch, context_change_cuts_the_ring)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	struct sy_br out[8];
	size_t n;

	sy_stretcher_init(&st, 8);
	push(&st, item(SY_DEC_CONTEXT, 0, 0, 100, 0));
	push(&st, item(SY_DEC_START, 0, 0x1000, 0, 0));
	push(&st, item(SY_DEC_BRANCH, 1, 2, 0, 1));
	push(&st, item(SY_DEC_BRANCH, 3, 4, 0, 1));
	push(&st, item(SY_DEC_CONTEXT, 0, 0, 100, 0)); /* same: no cut */
	push(&st, item(SY_DEC_CONTEXT, 0, 0, 200, 0));
	push(&st, item(SY_DEC_BRANCH, 5, 6, 0, 1));
	push(&st, item(SY_DEC_STOP, 0, 7, SY_STOP_EXCEPTION, 1));
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 1);
	cr_assert(v[0].flags & SY_SF_CONTEXT);
	cr_assert_eq(v[0].ctxid, 200);
	cr_assert_eq(sy_stretch_stack(&v[0], out, 8), 1);
	cr_assert_eq(out[0].from, 5);
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}

Test(stretch, errors_and_overflow_are_discontinuities)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	size_t n;

	sy_stretcher_init(&st, 8);
	push(&st, item(SY_DEC_START, 0, 0x10, 0, 0));
	push(&st, item(SY_DEC_BRANCH, 0x14, 0x20, 0, 2));
	push(&st, item(SY_DEC_OVERFLOW, 0, 0, 0, 0));
	/* bytes that never decoded, outside any stretch: a stretch of
	 * nothing but the error, so the window it falls in is told */
	struct sy_dec_item e = item(SY_DEC_ERROR, 0, 0, 77, 0);
	e.offset = 123;
	push(&st, e);
	push(&st, item(SY_DEC_START, 0, 0x40, 0, 0));
	push(&st, item(SY_DEC_STOP, 0, 0x44, SY_STOP_EXCEPTION, 1));
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 3);
	cr_assert(v[0].flags & SY_SF_OVERFLOW);
	cr_assert(v[1].flags & SY_SF_ERROR);
	cr_assert(v[1].flags & SY_SF_NOTHING);
	cr_assert_eq(v[1].first_error, 77);
	cr_assert_eq(v[1].first_error_off, 123);
	cr_assert_eq(v[2].start_addr, 0x40);
	cr_assert_not(v[2].flags & (SY_SF_ERROR | SY_SF_OVERFLOW));
	cr_assert_not(sy_stretch_joins(&v[1], &v[2]));
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}

Test(stretch, own_timestamp_replaces_the_stand_in)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	size_t n;
	struct sy_dec_item t = item(SY_DEC_TIME, 0, 0, 0, 0);

	sy_stretcher_init(&st, 8);
	t.time = 500;
	push(&st, t);
	push(&st, item(SY_DEC_START, 0, 0x10, 0, 0));
	t.time = 700;
	push(&st, t); /* the stretch's own, before its first branch */
	push(&st, item(SY_DEC_BRANCH, 1, 2, 0, 1));
	t.time = 900;
	push(&st, t);
	push(&st, item(SY_DEC_STOP, 0, 3, SY_STOP_EXCEPTION, 1));
	/* a stretch with no timestamp of its own keeps the stand-in */
	push(&st, item(SY_DEC_START, 0, 0x50, 0, 0));
	push(&st, item(SY_DEC_STOP, 0, 0x54, SY_STOP_EXCEPTION, 1));
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(v[0].t0, 700);
	cr_assert_eq(v[0].t1, 900);
	cr_assert_not(v[0].t0_stand_in);
	cr_assert_eq(v[1].t0, 900);
	cr_assert(v[1].t0_stand_in);
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}

/* --- writer and aggregation ---------------------------------------------- */

static char *run_writer(enum sy_profgen_format fmt, size_t budget,
			void (*fill)(struct sy_agg *, struct sy_profgen *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct sy_profgen *w;
	struct sy_agg *a;

	cr_assert_eq(sy_profgen_open_file(&w, f, fmt), 0);
	cr_assert_eq(sy_agg_new(&a, w, budget), 0);
	fill(a, w);
	cr_assert_eq(sy_agg_flush(a), 0);
	sy_agg_free(a);
	cr_assert_eq(sy_profgen_commit(w, NULL), 0);
	fclose(f);
	return buf;
}

static const uint64_t fr1[] = { 0x4005dc, 0x400634, 0x400684 };
static const uint64_t fr2[] = { 0x4005b0, 0x400684 };
static const struct sy_br st1[] = { { 0x4005c8, 0x4005dc, 0 },
				    { 0x40062f, 0x4005b0, 0 } };

static void fill_hybrid(struct sy_agg *a, struct sy_profgen *w)
{
	cr_assert_eq(sy_profgen_mmap(w, 7, 7, 0x400000, 0x1000, 0, "/x/prog"),
		     0);
	cr_assert_eq(sy_profgen_mmap(w, 7, 7, 0x400000, 0x1000, 0, "/x/prog"),
		     0, "second call writes nothing");
	cr_assert_eq(sy_profgen_mmap(w, 7, 7, 0x7f0000, 0x2000, 0x3000,
				     "/x/lib.so"),
		     0);
	cr_assert_eq(sy_agg_add(a, fr1, 3, st1, 2), 0);
	cr_assert_eq(sy_agg_add(a, fr2, 2, st1, 1), 0);
	cr_assert_eq(sy_agg_add(a, fr1, 3, st1, 2), 0);
	cr_assert_eq(sy_agg_add(a, fr1, 3, st1, 2), 0);
}

Test(profgen, hybrid_text_matches_llvm_profgen_grammar)
{
	char *out = run_writer(SY_PROFGEN_HYBRID, 0, fill_hybrid);
	regex_t mm;
	const char *want =
		"PERF_RECORD_MMAP2 7/7: [0x400000(0x1000) @ 0 00:00 0 0]: r-xp /x/prog\n"
		"PERF_RECORD_MMAP2 7/7: [0x7f0000(0x2000) @ 0x3000 00:00 0 0]: r-xp /x/lib.so\n"
		"3\n"
		"\t          4005dc\n"
		"\t          400634\n"
		"\t          400684\n"
		" 0x4005c8/0x4005dc/P/-/-/0 0x40062f/0x4005b0/P/-/-/0\n"
		"\t          4005b0\n"
		"\t          400684\n"
		" 0x4005c8/0x4005dc/P/-/-/0\n";

	cr_assert_str_eq(out, want);
	/* llvm-profgen 19's MMAP2 regex (PerfReader.cpp) must match */
	cr_assert_eq(regcomp(&mm,
			     "PERF_RECORD_MMAP2 (-?[0-9]+)/[0-9]+: "
			     "\\[(0x[a-f0-9]+)\\((0x[a-f0-9]+)\\) @ "
			     "(0x[a-f0-9]+|0) .*\\]: [-a-z]+ (.*)",
			     REG_EXTENDED),
		     0);
	cr_assert_eq(regexec(&mm, out, 0, NULL, 0), 0);
	regfree(&mm);
	free(out);
}

static void fill_lbr(struct sy_agg *a, struct sy_profgen *w)
{
	(void)w;
	cr_assert_eq(sy_agg_add(a, NULL, 0, st1, 2), 0);
	cr_assert_eq(sy_agg_add(a, NULL, 0, st1, 2), 0);
}

Test(profgen, lbr_lines_repeat_instead_of_counting)
{
	char *out = run_writer(SY_PROFGEN_LBR, 0, fill_lbr);

	cr_assert_str_eq(out,
			 "          4005dc 0x4005c8/0x4005dc/P/-/-/0 "
			 "0x40062f/0x4005b0/P/-/-/0\n"
			 "          4005dc 0x4005c8/0x4005dc/P/-/-/0 "
			 "0x40062f/0x4005b0/P/-/-/0\n");
	free(out);
}

static void fill_many(struct sy_agg *a, struct sy_profgen *w)
{
	(void)w;
	/* 3 distinct samples, 300 times, with a budget of ~2 entries */
	for (int i = 0; i < 300; i++) {
		uint64_t f = 0x1000 + (uint64_t)(i % 3);
		cr_assert_eq(sy_agg_add(a, &f, 1, st1, 2), 0);
	}
	cr_assert_eq(sy_agg_stats(a)->samples, 300);
	cr_assert_gt(sy_agg_stats(a)->flushes, 10);
}

Test(profgen, bounded_aggregation_keeps_totals)
{
	char *out = run_writer(SY_PROFGEN_HYBRID, 80, fill_many);
	uint64_t total[3] = { 0 }, pending = 1;
	char *save = NULL;

	for (char *l = strtok_r(out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (l[0] >= '0' && l[0] <= '9')
			pending = strtoull(l, NULL, 10);
		else if (l[0] == '\t') {
			uint64_t f = strtoull(l + 1, NULL, 16);
			cr_assert(f >= 0x1000 && f < 0x1003);
			total[f - 0x1000] += pending;
			pending = 1;
		}
	}
	for (int i = 0; i < 3; i++)
		cr_assert_eq(total[i], 100, "sample %d: %llu", i,
			     (unsigned long long)total[i]);
	free(out);
}

Test(profgen, atomic_output)
{
	const char *dir = sy_test_mkdtemp();
	char path[4096];
	struct sy_profgen *w;
	struct sy_diag d = { 0 };
	DIR *dp;
	struct dirent *e;
	int nfiles = 0;

	snprintf(path, sizeof(path), "%s/out.perfscript", dir);
	cr_assert_eq(sy_profgen_open(&w, path, SY_PROFGEN_HYBRID, &d), 0);
	cr_assert_eq(sy_profgen_sample(w, 1, fr1, 3, st1, 2), 0);
	cr_assert_neq(access(path, F_OK), 0, "visible before commit");
	sy_profgen_abort(w);
	cr_assert_neq(access(path, F_OK), 0);
	dp = opendir(dir);
	while ((e = readdir(dp)))
		nfiles += e->d_name[0] != '.';
	closedir(dp);
	cr_assert_eq(nfiles, 0, "abort left a temporary file");

	cr_assert_eq(sy_profgen_open(&w, path, SY_PROFGEN_HYBRID, &d), 0);
	cr_assert_eq(sy_profgen_sample(w, 1, fr1, 3, st1, 2), 0);
	cr_assert_eq(sy_profgen_commit(w, &d), 0);
	cr_assert_eq(access(path, F_OK), 0);

	/* a destination in a missing directory fails up front */
	snprintf(path, sizeof(path), "%s/no/such/dir/out", dir);
	cr_assert_eq(sy_profgen_open(&w, path, SY_PROFGEN_HYBRID, &d),
		     -SY_E_OUTPUT);
	cr_assert(strstr(d.msg, "cannot create output"));
	sy_test_rmtree(dir);
}
