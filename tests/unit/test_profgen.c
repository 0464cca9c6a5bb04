/* llvm-profgen text writer and the aggregation in front of it
 * (sy_profgen.h): the grammar llvm-profgen 19 parses, counts summed
 * exactly, bounded memory, atomic output; llvm-profgen 19 itself as the
 * oracle for the aggregated branch-only form. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sy_profgen.h"
#include "sy_test.h"

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
	cr_assert_eq(sy_profgen_mmap_bid(w, 7, 7, 0x7f0000, 0x2000, 0x3000,
					 "/x/lib.so",
					 (const uint8_t *)"\x0a\x0b\x0c\x0d\x0e\x0f", 6),
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
		"PERF_RECORD_MMAP2 7/7: [0x7f0000(0x2000) @ 0x3000 <0a0b0c0d0e0f>]: r-xp /x/lib.so\n"
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
	cr_assert_eq(sy_agg_add(a, NULL, 0, st1, 1), 0);
	cr_assert_eq(sy_agg_add(a, NULL, 0, st1, 2), 0);
}

/* A repeated branch-only sample is written once after a count line, the
 * form llvm-profgen accepts before any sample (llvm-profgen.md 3.1). */
Test(profgen, lbr_samples_are_counted_not_repeated)
{
	char *out = run_writer(SY_PROFGEN_LBR, 0, fill_lbr);

	cr_assert_str_eq(out,
			 "2\n"
			 "          4005dc 0x4005c8/0x4005dc/P/-/-/0 "
			 "0x40062f/0x4005b0/P/-/-/0\n"
			 "          4005dc 0x4005c8/0x4005dc/P/-/-/0\n");
	free(out);
}

/* Two processes of one PIE, at 0x5500000000 and 0xaaaaaaab0000, taking
 * turns (a system-wide recording of a service): llvm-profgen moves the
 * binary's load address at each of its MMAP2 lines and reads a sample at
 * the address in force, so every turn writes its line again and the
 * samples held before it.  Before, the two lines came first and every
 * sample after both: all read at the second address. */
static void fill_two_bases(struct sy_agg *a, struct sy_profgen *w)
{
	static const uint64_t base[2] = { 0x5500000000, 0xaaaaaaab0000 };

	(void)w;
	for (int turn = 0; turn < 3; turn++) {
		uint64_t b = base[turn & 1], f = b + 0x20c;
		struct sy_br br = { b + 0x36c, b + 0x37c, 0 };

		cr_assert_eq(sy_agg_mmap_bid(a, 100 + (turn & 1), 100 + (turn & 1),
					     b, 0x1000, 0, "/x/pie", NULL, 0), 0);
		cr_assert_eq(sy_agg_mmap_bid(a, 100 + (turn & 1), 100 + (turn & 1),
					     b, 0x1000, 0, "/x/pie", NULL, 0), 0);
		for (int i = 0; i < 2; i++)
			cr_assert_eq(sy_agg_add(a, &f, 1, &br, 1), 0);
	}
	/* the same process again: its line is in force, nothing written */
	uint64_t f = base[0] + 0x20c;
	struct sy_br br = { base[0] + 0x36c, base[0] + 0x37c, 0 };
	cr_assert_eq(sy_agg_mmap_bid(a, 100, 100, base[0], 0x1000, 0, "/x/pie",
				     NULL, 0), 0);
	cr_assert_eq(sy_agg_add(a, &f, 1, &br, 1), 0);
}

Test(profgen, a_pie_at_two_addresses_is_read_at_each)
{
	char *out = run_writer(SY_PROFGEN_LBR, 0, fill_two_bases);

	cr_assert_str_eq(out,
		"PERF_RECORD_MMAP2 100/100: [0x5500000000(0x1000) @ 0 00:00 0 0]: r-xp /x/pie\n"
		"2\n      550000020c 0x550000036c/0x550000037c/P/-/-/0\n"
		"PERF_RECORD_MMAP2 101/101: [0xaaaaaaab0000(0x1000) @ 0 00:00 0 0]: r-xp /x/pie\n"
		"2\n    aaaaaaab020c 0xaaaaaaab036c/0xaaaaaaab037c/P/-/-/0\n"
		"PERF_RECORD_MMAP2 100/100: [0x5500000000(0x1000) @ 0 00:00 0 0]: r-xp /x/pie\n"
		"3\n      550000020c 0x550000036c/0x550000037c/P/-/-/0\n");
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

/* --- sample logs ---------------------------------------------------------- */

/* Sample @i of a fixed stream: keys from a small alphabet, so that they
 * repeat within and across logs, of 0-2 frames and 0-5 branches. */
static uint32_t stream_sample(uint32_t i, uint64_t *frames, struct sy_br *st,
			      uint32_t *nr_stack)
{
	uint32_t x = i * 2654435761u;
	uint32_t k = (x >> 7) % 23, nf = k % 3;

	*nr_stack = (k * 7) % 6;
	for (uint32_t f = 0; f < nf; f++)
		frames[f] = 0x400000 + 0x10 * k + f;
	for (uint32_t b = 0; b < *nr_stack; b++)
		st[b] = (struct sy_br){ 0x401000 + 0x100 * k + b,
					0x3ff000 + 0x40 * b + k, 0 };
	return nf;
}

/* The stream into an aggregation with @budget: every sample added as it
 * comes (@logged 0), or in turns of up to 97 samples added directly and
 * logged (a job's windows finished on a worker), the logs added later in
 * order. */
static char *run_stream(size_t budget, int logged, struct sy_agg_stats *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct sy_profgen *w;
	struct sy_agg *a;
	const uint32_t n = 5000;

	cr_assert_eq(sy_profgen_open_file(&w, f, SY_PROFGEN_HYBRID), 0);
	cr_assert_eq(sy_agg_new(&a, w, budget), 0);
	for (uint32_t i = 0, turn = 0; i < n; turn++) {
		uint32_t m = 1 + (turn * 37) % 97;
		struct sy_agg_log *l = NULL;

		if (logged && turn % 2)
			cr_assert_eq(sy_agg_log_new(&l), 0);
		for (uint32_t k = 0; k < m && i < n; k++, i++) {
			uint64_t fr[2];
			struct sy_br sb[5];
			uint32_t ns, nf = stream_sample(i, fr, sb, &ns);

			if (l)
				cr_assert_eq(sy_agg_log_add(l, fr, nf, sb, ns),
					     0);
			else
				cr_assert_eq(sy_agg_add(a, fr, nf, sb, ns), 0);
		}
		for (size_t k = 0; k < sy_agg_log_samples(l); k++)
			cr_assert_eq(sy_agg_add_logged(a, l, k), 0);
		sy_agg_log_free(l);
	}
	cr_assert_eq(sy_agg_flush(a), 0);
	*st = *sy_agg_stats(a);
	sy_agg_free(a);
	cr_assert_eq(sy_profgen_commit(w, NULL), 0);
	fclose(f);
	return buf;
}

/* Logged samples added later write what adding them as they came writes,
 * byte for byte, with and without budget flushes between and inside
 * logs. */
Test(profgen, logged_samples_write_what_direct_ones_do)
{
	static const size_t budgets[] = { 0, 200, 1000, 4000 };

	for (size_t b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++) {
		struct sy_agg_stats sd, sl;
		char *direct = run_stream(budgets[b], 0, &sd);
		char *logged = run_stream(budgets[b], 1, &sl);

		cr_assert_str_eq(logged, direct, "budget %zu", budgets[b]);
		cr_assert_eq(sl.samples, 5000);
		cr_assert_eq(sl.samples, sd.samples);
		cr_assert_eq(sl.unique, sd.unique);
		cr_assert_eq(sl.flushes, sd.flushes);
		if (budgets[b] && budgets[b] < 4000)
			cr_assert_gt(sd.flushes, 10, "budget %zu", budgets[b]);
		free(direct);
		free(logged);
	}
}

/* A logged sample's key is its frames then its from/to pairs, with the
 * smallest and largest of them. */
Test(profgen, logged_sample_key_and_range)
{
	struct sy_agg_log *l;
	struct sy_agg_logged k;

	cr_assert_eq(sy_agg_log_new(&l), 0);
	cr_assert_eq(sy_agg_log_add(l, fr2, 2, st1, 2), 0);
	cr_assert_eq(sy_agg_log_add(l, NULL, 0, st1, 1), 0);
	cr_assert_eq(sy_agg_log_add(l, fr2, 2, st1, 2), 0);
	cr_assert_eq(sy_agg_log_samples(l), 3);
	sy_agg_log_sample(l, 2, &k);
	cr_assert_eq(k.nr_frames, 2);
	cr_assert_eq(k.nr_stack, 2);
	cr_assert_eq(k.words[0], 0x4005b0);
	cr_assert_eq(k.words[1], 0x400684);
	cr_assert_eq(k.words[2], 0x4005c8);
	cr_assert_eq(k.words[3], 0x4005dc);
	cr_assert_eq(k.words[4], 0x40062f);
	cr_assert_eq(k.words[5], 0x4005b0);
	cr_assert_eq(k.lo, 0x4005b0);
	cr_assert_eq(k.hi, 0x400684);
	sy_agg_log_sample(l, 1, &k);
	cr_assert_eq(k.nr_frames, 0);
	cr_assert_eq(k.nr_stack, 1);
	cr_assert_eq(k.lo, 0x4005c8);
	cr_assert_eq(k.hi, 0x4005dc);
	sy_agg_log_free(l);
	sy_agg_log_free(NULL);
	cr_assert_eq(sy_agg_log_samples(NULL), 0);
}

/* The numbers are written without printf: every width of value, 0 (which
 * "%#lx" prints bare), the top bit, and lines longer than the writer's
 * buffer come out as printf, the oracle, prints them. */
static const uint64_t num_vals[] = {
	0, 1, 0xf, 0x10, 0x123, 0xffff, 0x10000, 0x400000, 0xffffffff,
	0x100000000, 0x5500846528, 0xffffffffffff, 0x8000000000000000,
	0x7fffffffffffffff, 0xfedcba9876543210, UINT64_MAX,
};
#define NR_NUM (sizeof(num_vals) / sizeof(num_vals[0]))
#define NR_LONG 300	/* branches: some 13 KB, past the 4 KB buffer */

Test(profgen, numbers_print_as_printf_prints_them)
{
	static struct sy_br st[NR_LONG];
	uint64_t fr[NR_NUM];
	enum sy_profgen_format fmts[] = { SY_PROFGEN_HYBRID, SY_PROFGEN_LBR };

	for (size_t i = 0; i < NR_LONG; i++) {
		st[i].from = num_vals[i % NR_NUM];
		st[i].to = num_vals[(i * 7 + 3) % NR_NUM];
	}
	for (size_t i = 0; i < NR_NUM; i++)
		fr[i] = num_vals[NR_NUM - 1 - i];
	for (int k = 0; k < 2; k++)
		for (uint32_t n = 0; n <= NR_LONG; n += n < 3 ? 1 : 99) {
			char *got = NULL, *want = NULL;
			size_t glen = 0, wlen = 0;
			FILE *g = open_memstream(&got, &glen);
			FILE *f = open_memstream(&want, &wlen);
			struct sy_profgen *w;

			cr_assert_eq(sy_profgen_open_file(&w, g, fmts[k]), 0);
			cr_assert_eq(sy_profgen_sample(w, 5, fr, NR_NUM, st, n),
				     0);
			cr_assert_eq(sy_profgen_sample(w, 1, fr + 3, 1, st, n),
				     0);
			cr_assert_eq(sy_profgen_commit(w, NULL), 0);
			fclose(g);
			for (int r = 0; r < 2; r++) {
				const uint64_t *fp = r ? fr + 3 : fr;
				uint32_t nf = r ? 1 : NR_NUM;

				if (!r)
					fprintf(f, "5\n");
				if (fmts[k] == SY_PROFGEN_HYBRID)
					for (uint32_t i = 0; i < nf; i++)
						fprintf(f, "\t%16" PRIx64 "\n",
							fp[i]);
				else
					fprintf(f, "%16" PRIx64, fp[0]);
				for (uint32_t i = 0; i < n; i++)
					fprintf(f, " %#" PRIx64 "/%#" PRIx64
						"/P/-/-/0", st[i].from,
						st[i].to);
				fputc('\n', f);
			}
			fclose(f);
			cr_assert_str_eq(got, want, "format %d, %u branches",
					 k, n);
			free(got);
			free(want);
		}
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
