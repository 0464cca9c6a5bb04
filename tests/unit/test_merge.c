/* Merging aggregated outputs (sy_merge.h): counts add up exactly against
 * a sum the test keeps itself, merging is associative and commutative
 * byte for byte, mismatched formats and build-ids and damaged lines are
 * refused with the file and line, and memory follows the distinct
 * samples, not the inputs. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sy_merge.h"

#ifndef __has_feature
#define __has_feature(x) 0
#endif

TestSuite(merge, .timeout = 120);

/* The sum of @n texts, in canonical form. */
static char *merged(const char *const *in, size_t n, int *err,
		    struct sy_diag *d)
{
	struct sy_merge *m;
	char *out = NULL;
	size_t len = 0;
	FILE *o;

	cr_assert_eq(sy_merge_new(&m), 0);
	*err = 0;
	for (size_t i = 0; i < n && !*err; i++) {
		FILE *f = fmemopen((void *)(uintptr_t)in[i], strlen(in[i]), "r");
		char name[16];

		snprintf(name, sizeof(name), "in%zu", i);
		*err = sy_merge_add(m, f, name, d);
		fclose(f);
	}
	o = open_memstream(&out, &len);
	if (!*err)
		cr_assert_eq(sy_merge_write(m, o), 0);
	fclose(o);
	sy_merge_free(m);
	return out;
}

/* A random perfscript of /x/prog loaded at @base with @n samples out of
 * a pool of 40, counts 1..5; *sum gains each sample's count (index = pool
 * entry). */
static char *random_perfscript_at(unsigned *seed, int n, uint64_t *sum,
				  uint64_t base)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	fprintf(f, "PERF_RECORD_MMAP2 7/7: [%#" PRIx64 "(0x1000) @ 0 <0a0b>]: "
		   "r-xp /x/prog\n", base);
	for (int i = 0; i < n; i++) {
		int k = rand_r(seed) % 40, c = 1 + rand_r(seed) % 5;

		if (c > 1)
			fprintf(f, "%d\n", c);
		fprintf(f, "\t%16" PRIx64 "\n\t%16" PRIx64 "\n 0x%x/%#" PRIx64
			   "/P/-/-/0 0x40/0x%x/P/-/-/0\n",
			base + 0x100 + (uint64_t)k, base + 0x200 + (uint64_t)(k % 3),
			0x400 + k, base + 0x100 + (uint64_t)k, 0x500 + k % 7);
		sum[k] += (uint64_t)c;
	}
	fclose(f);
	return out;
}

static char *random_perfscript(unsigned *seed, int n, uint64_t *sum)
{
	return random_perfscript_at(seed, n, sum, 0x400000);
}

Test(merge, counts_add_up_exactly)
{
	unsigned seed = 7;
	uint64_t want[40] = { 0 }, got[40] = { 0 };
	char *in[4], *out, *save = NULL;
	struct sy_diag d = { 0 };
	uint64_t pending = 1;
	int err;

	for (int i = 0; i < 4; i++)
		in[i] = random_perfscript(&seed, 200, want);
	out = merged((const char *const *)in, 4, &err, &d);
	cr_assert_eq(err, 0, "%s", d.msg);
	/* one mapping line, its process ids dropped */
	cr_assert(!strncmp(out, "PERF_RECORD_MMAP2 0/0: [0x400000(0x1000) @ 0 "
				"<0a0b>]: r-xp /x/prog\n", 64));
	cr_assert_null(strstr(out + 1, "PERF_RECORD_MMAP2"));
	for (char *l = strtok_r(out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (l[0] >= '0' && l[0] <= '9') {
			pending = strtoull(l, NULL, 10);
		} else if (l[0] == '\t') {
			got[strtoull(l + 1, NULL, 16) - 0x400100] += pending;
			pending = 1;
			strtok_r(NULL, "\n", &save); /* second frame */
		}
	}
	for (int k = 0; k < 40; k++)
		cr_assert_eq(got[k], want[k], "sample %d: %" PRIu64 " vs %" PRIu64,
			     k, got[k], want[k]);
	for (int i = 0; i < 4; i++)
		free(in[i]);
	free(out);
}

Test(merge, merge_of_merges_is_one_merge_in_any_order)
{
	unsigned seed = 11;
	uint64_t sum[40] = { 0 };
	char *in[3], *ab, *abc, *left, *right, *cba;
	struct sy_diag d = { 0 };
	int err;

	for (int i = 0; i < 3; i++)
		in[i] = random_perfscript(&seed, 150, sum);
	ab = merged((const char *const[]){ in[0], in[1] }, 2, &err, &d);
	abc = merged((const char *const *)in, 3, &err, &d);
	left = merged((const char *const[]){ ab, in[2] }, 2, &err, &d);
	char *bc = merged((const char *const[]){ in[1], in[2] }, 2, &err, &d);
	right = merged((const char *const[]){ in[0], bc }, 2, &err, &d);
	cba = merged((const char *const[]){ in[2], in[1], in[0] }, 3, &err, &d);
	cr_assert_str_eq(left, abc, "(a+b)+c differs from a+b+c");
	cr_assert_str_eq(right, abc, "a+(b+c) differs from a+b+c");
	cr_assert_str_eq(cba, abc, "c+b+a differs from a+b+c");
	char *again = merged((const char *const[]){ abc }, 1, &err, &d);
	cr_assert_str_eq(again, abc, "merging a sum alone changes it");
	for (int i = 0; i < 3; i++)
		free(in[i]);
	free(ab), free(abc), free(left), free(bc), free(right), free(cba);
	free(again);
}

/* One binary at two addresses (ASLR): the same sample text means other
 * code in each file, so it is not added up; each sample comes after its
 * own line, so llvm-profgen reads it at its address; the canonical text
 * reads back as itself.  Lines no sample needs (a library the sample does
 * not touch) do not split samples: recordings of a non-PIE program whose
 * libraries moved add up. */
Test(merge, layouts_of_one_binary_stay_apart)
{
	static const char *const a =
		"PERF_RECORD_MMAP2 1/1: [0x400000(0x10000) @ 0 <aa>]: r-xp /bin/p\n"
		"\t  401000\n 0x401010/0x401000/P/-/-/0\n";
	static const char *const b =
		"PERF_RECORD_MMAP2 2/2: [0x3f8000(0x10000) @ 0 <aa>]: r-xp /bin/p\n"
		"\t  401000\n 0x401010/0x401000/P/-/-/0\n"
		"\t  3f9000\n 0x3f9010/0x3f9000/P/-/-/0\n";
	static const char *const want =
		"PERF_RECORD_MMAP2 0/0: [0x3f8000(0x10000) @ 0 <aa>]: r-xp /bin/p\n"
		"\t  3f9000\n 0x3f9010/0x3f9000/P/-/-/0\n"
		"\t  401000\n 0x401010/0x401000/P/-/-/0\n"
		"PERF_RECORD_MMAP2 0/0: [0x400000(0x10000) @ 0 <aa>]: r-xp /bin/p\n"
		"\t  401000\n 0x401010/0x401000/P/-/-/0\n";
	static const char *const c =
		"PERF_RECORD_MMAP2 3/3: [0x400000(0x10000) @ 0 <aa>]: r-xp /bin/p\n"
		"PERF_RECORD_MMAP2 3/3: [0x7f0000(0x1000) @ 0 <bb>]: r-xp /lib/q\n"
		"\t  401000\n 0x401010/0x401000/P/-/-/0\n"
		"\t  7f0010\n 0x401010/0x7f0000/P/-/-/0\n";
	struct sy_diag d = { 0 };
	int err;
	char *o = merged((const char *const[]){ a, b }, 2, &err, &d);
	char *ba = merged((const char *const[]){ b, a }, 2, &err, &d);
	char *again = merged((const char *const[]){ o }, 1, &err, &d);

	cr_assert_eq(err, 0, "%s", d.msg);
	cr_assert_str_eq(o, want);
	cr_assert_str_eq(ba, want);
	cr_assert_str_eq(again, want);
	free(o), free(ba), free(again);
	o = merged((const char *const[]){ a, c }, 2, &err, &d);
	cr_assert_eq(err, 0, "%s", d.msg);
	cr_assert_str_eq(o,
		"PERF_RECORD_MMAP2 0/0: [0x400000(0x10000) @ 0 <aa>]: r-xp /bin/p\n"
		"2\n\t  401000\n 0x401010/0x401000/P/-/-/0\n"
		"PERF_RECORD_MMAP2 0/0: [0x7f0000(0x1000) @ 0 <bb>]: r-xp /lib/q\n"
		"\t  7f0010\n 0x401010/0x7f0000/P/-/-/0\n");
	free(o);
}

/* Three recordings at two addresses, merged in every grouping: the same
 * bytes, and each address's samples sum to what was put in. */
Test(merge, layouts_merge_in_any_order)
{
	unsigned seed = 5;
	uint64_t want[2][40] = { { 0 } }, got[2][40] = { { 0 } };
	const uint64_t base[2] = { 0x5500000000, 0xaaaaaaab0000 };
	char *in[3], *abc, *ab, *left, *cba, *save = NULL;
	struct sy_diag d = { 0 };
	uint64_t pending = 1;
	int err, cur = -1;

	for (int i = 0; i < 3; i++)
		in[i] = random_perfscript_at(&seed, 120, want[i & 1], base[i & 1]);
	abc = merged((const char *const *)in, 3, &err, &d);
	cr_assert_eq(err, 0, "%s", d.msg);
	ab = merged((const char *const[]){ in[0], in[1] }, 2, &err, &d);
	left = merged((const char *const[]){ in[2], ab }, 2, &err, &d);
	cba = merged((const char *const[]){ in[2], in[1], in[0] }, 3, &err, &d);
	cr_assert_str_eq(left, abc);
	cr_assert_str_eq(cba, abc);
	for (char *l = strtok_r(abc, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "PERF_RECORD_MMAP2", 17)) {
			cur = strstr(l, "[0x5500000000(") ? 0 : 1;
		} else if (l[0] >= '0' && l[0] <= '9') {
			pending = strtoull(l, NULL, 10);
		} else if (l[0] == '\t') {
			cr_assert_geq(cur, 0, "a sample before any MMAP2 line");
			got[cur][strtoull(l + 1, NULL, 16) - base[cur] - 0x100] +=
				pending;
			pending = 1;
			strtok_r(NULL, "\n", &save); /* second frame */
		}
	}
	for (int j = 0; j < 2; j++)
		for (int k = 0; k < 40; k++)
			cr_assert_eq(got[j][k], want[j][k], "base %d sample %d", j, k);
	for (int i = 0; i < 3; i++)
		free(in[i]);
	free(abc), free(ab), free(left), free(cba);
}

Test(merge, bolt_records_and_lbr_samples)
{
	struct sy_diag d = { 0 };
	int err;
	char *o = merged((const char *const[]){ "B 10 20 3 1\nF 20 30 3\n",
						"F 20 30 2\nB 10 20 4 0\nB 5 6 1 0\n" },
			 2, &err, &d);

	cr_assert_eq(err, 0, "%s", d.msg);
	cr_assert_str_eq(o, "F 20 30 5\nB 5 6 1 0\nB 10 20 7 1\n");
	free(o);
	o = merged((const char *const[]){ "   401000 0x1/0x2/P/-/-/0\n",
					  "2\n   401000 0x1/0x2/P/-/-/0\n" },
		   2, &err, &d);
	cr_assert_eq(err, 0, "%s", d.msg);
	cr_assert_str_eq(o, "3\n   401000 0x1/0x2/P/-/-/0\n");
	free(o);
}

Test(merge, refuses_what_cannot_be_summed)
{
	struct sy_diag d = { 0 };
	int err;
	char *o;

	o = merged((const char *const[]){ "B 1 2 3 0\n",
					  "   401000 0x1/0x2/P/-/-/0\n" },
		   2, &err, &d);
	cr_assert_eq(err, -SY_E_INVALID);
	cr_assert(strstr(d.msg, "in1: line 1") && strstr(d.msg, "bolt"),
		  "%s", d.msg);
	free(o);
	o = merged((const char *const[]){
			   "PERF_RECORD_MMAP2 1/1: [0x400000(0x1000) @ 0 "
			   "<aaaa>]: r-xp /bin/p\n",
			   "PERF_RECORD_MMAP2 2/2: [0x400000(0x1000) @ 0 "
			   "<bbbb>]: r-xp /bin/p\n" },
		   2, &err, &d);
	cr_assert_eq(err, -SY_E_BUILD_ID);
	cr_assert(strstr(d.msg, "/bin/p") && strstr(d.msg, "aaaa") &&
		  strstr(d.msg, "bbbb"), "%s", d.msg);
	free(o);
	static const char *const bad[] = {
		"B 1 2 x 0\n", "\t401000\n", "3\n", "hello\n",
		"\t40100g\n 0x1/0x2\n", "B 1 2 3\n", "2\nB 1 2 3 0\n",
		"0\n   401000 0x1/0x2/P/-/-/0\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = merged((const char *const[]){ bad[i] }, 1, &err, &d);
		cr_assert_eq(err, -SY_E_BAD_RECORD, "%zu: %s", i, bad[i]);
		cr_assert(strstr(d.msg, "in0: line "), "%s", d.msg);
		free(o);
	}
	o = merged((const char *const[]){ "B 1 2 18446744073709551615 0\n",
					  "B 1 2 1 0\n" },
		   2, &err, &d);
	cr_assert_eq(err, -SY_E_LIMIT, "%s", d.msg);
	free(o);
}

/* The same 40 distinct samples in 2000 inputs of 400: what the sum holds
 * is that of the 40, not of the 800000 samples read; and so is the
 * process's peak (not measured under ASan, whose quarantine keeps what
 * is freed). */
Test(merge, memory_follows_distinct_samples)
{
	unsigned seed = 3;
	uint64_t sum[40] = { 0 };
	char *in = random_perfscript(&seed, 400, sum);
	struct sy_merge *m;
	struct sy_diag d = { 0 };
	struct rusage r0, r1;
	uint64_t held = 0;

	cr_assert_eq(sy_merge_new(&m), 0);
	for (int i = 0; i < 2000; i++) {
		FILE *f = fmemopen(in, strlen(in), "r");

		cr_assert_eq(sy_merge_add(m, f, "in", &d), 0, "%s", d.msg);
		fclose(f);
		if (i == 10) {
			getrusage(RUSAGE_SELF, &r0);
			held = sy_merge_stats(m)->held;
		}
	}
	getrusage(RUSAGE_SELF, &r1);
	cr_assert_eq(sy_merge_stats(m)->distinct, 40);
	cr_assert_eq(sy_merge_stats(m)->held, held, "held %" PRIu64 " then %"
		     PRIu64 " bytes", held, sy_merge_stats(m)->held);
#if !defined(__SANITIZE_ADDRESS__) && !__has_feature(address_sanitizer)
	cr_assert_lt(r1.ru_maxrss - r0.ru_maxrss, 1024, "grew %ld KiB",
		     r1.ru_maxrss - r0.ru_maxrss);
#endif
	sy_merge_free(m);
	free(in);
}
