/* perf.data writer against an independent oracle: Debian perf 6.1.
 *
 * Every test writes a file with sy_pw_*, runs perf on it and asserts on what
 * perf prints: the per-type record counts of `perf report -D` ("Aggregated
 * stats"), the field values of its record dumps, `perf script` lines and the
 * `--header-only` feature listing.  Where perf 6.1 cannot read a format
 * (COMPRESSED2, 136-byte attrs) the test checks that it refuses it, and
 * converts or decompresses on the test side with its own code.
 *
 * Never asserted: the writer's own statistics.  The test walks the output
 * bytes itself where it needs facts perf does not print (record boundaries
 * inside the zstd stream).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <zstd.h>

#include "sy_bytes.h"
#include "sy_perf_writer.h"
#include "sy_test.h"

/* Every perf run is bounded: some damaged files send perf 6.1 into an
 * endless loop (an AUXTRACE size that is not a multiple of 8 does). */
#define T_PERF "timeout 120 perf --no-pager"

/* --- Fixture ------------------------------------------------------------ */

static char g_dir[4096];

static void t_setup(void)
{
	snprintf(g_dir, sizeof(g_dir), "%s", sy_test_mkdtemp());
}

/* SY_PW_KEEP=1 keeps the files for a look with perf. */
static void t_teardown(void)
{
	if (getenv("SY_PW_KEEP"))
		fprintf(stderr, "kept %s\n", g_dir);
	else
		sy_test_rmtree(g_dir);
}

TestSuite(perf_writer, .init = t_setup, .fini = t_teardown, .timeout = 300);

/* "<tmpdir>/<name>", in one of a few rotating static buffers. */
static const char *t_path(const char *name)
{
	static char buf[4][sizeof(g_dir) + 128];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", g_dir, name);
	return buf[i];
}

/* Runs a shell command and returns its standard output followed by its
 * standard error (perf writes warnings into the middle of dump lines
 * otherwise); the test owns the buffer.  *status receives the exit status
 * of the command when non-NULL. */
static char *t_run(int *status, const char *fmt, ...) SY_PRINTF(2, 3);
static char *t_run(int *status, const char *fmt, ...)
{
	char inner[6144], cmd[16384];
	char *out = NULL;
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(inner, sizeof(inner), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd),
		 "{ %s; } 2>'%s/stderr.txt'; st=$?; cat '%s/stderr.txt'; "
		 "exit $st", inner, g_dir, g_dir);
	st = sy_test_run(cmd, &out, NULL);
	cr_assert(out != NULL, "could not run: %s", cmd);
	if (status)
		*status = st;
	return out;
}

/* perf report -D over a file, or over a real pipe for pipe-mode files. */
static char *t_dump(const char *file, int via_pipe)
{
	if (via_pipe)
		return t_run(NULL, "cat '%s' | " T_PERF " report -D -i -",
			     file);
	return t_run(NULL, T_PERF " report -D -i '%s'", file);
}

static void t_expect_line(const char *out, const char *needle)
{
	cr_expect(strstr(out, needle) != NULL,
		  "perf output lacks \"%s\"\n----\n%.6000s", needle, out);
}

static int t_count_lines(const char *out, const char *needle)
{
	int n = 0;
	const char *p = out;

	while ((p = strstr(p, needle)) != NULL) {
		n++;
		p += strlen(needle);
	}
	return n;
}

struct t_count {
	const char *name;	/* as perf prints it: "MMAP2", "FINISHED_ROUND" */
	long n;
};

/* Checks the "Aggregated stats" block of perf report -D: exactly the
 * expected types with the expected counts, TOTAL equal to their sum. */
static void t_expect_stats(const char *out, const struct t_count *exp,
			   size_t nexp)
{
	const char *p = strstr(out, "Aggregated stats");
	long total = 0, seen_total = -1;
	size_t i;

	cr_assert(p, "no Aggregated stats in perf output\n----\n%.6000s", out);
	for (i = 0; i < nexp; i++)
		total += exp[i].n;
	p = strchr(p, '\n');
	while (p && *++p) {
		char name[64];
		long n;
		const char *eol = strchr(p, '\n');

		if (sscanf(p, " %63s events: %ld", name, &n) != 2)
			break;	/* "<evsel> stats:" ends the block */
		if (!strcmp(name, "TOTAL")) {
			seen_total = n;
		} else {
			for (i = 0; i < nexp; i++)
				if (!strcmp(exp[i].name, name))
					break;
			cr_expect(i < nexp, "perf counted unexpected %s (%ld)",
				  name, n);
			if (i < nexp)
				cr_expect_eq(n, exp[i].n,
					     "%s: perf counted %ld, wrote %ld",
					     name, n, exp[i].n);
		}
		p = eol;
	}
	cr_expect_eq(seen_total, total, "TOTAL: perf %ld, expected %ld",
		     seen_total, total);
	for (i = 0; i < nexp; i++) {
		char key[96], key0[96];

		/* names are right-aligned in 20 columns, longer ones start
		 * the line */
		snprintf(key, sizeof(key), " %s events: ", exp[i].name);
		snprintf(key0, sizeof(key0), "\n%s events: ", exp[i].name);
		cr_expect(exp[i].n == 0 || strstr(out, key) || strstr(out, key0),
			  "perf did not count %s", exp[i].name);
	}
}

/* --- Writer helpers ------------------------------------------------------ */

#define T_FLAG(f) (1ULL << SY_ATTR_FLAG_##f)

static const uint64_t t_ids[2] = { 101, 102 };

/* A cpu-clock event as perf record makes it, IDENTIFIER first. */
static struct sy_perf_attr t_attr(void)
{
	struct sy_perf_attr a;

	memset(&a, 0, sizeof(a));
	a.type = 1;		/* PERF_TYPE_SOFTWARE, cpu-clock */
	a.sample_period = 4000;
	a.sample_type = SY_SAMPLE_IDENTIFIER | SY_SAMPLE_IP | SY_SAMPLE_TID |
			SY_SAMPLE_TIME | SY_SAMPLE_CPU | SY_SAMPLE_PERIOD |
			SY_SAMPLE_CALLCHAIN;
	a.flags = T_FLAG(SAMPLE_ID_ALL) | T_FLAG(MMAP) | T_FLAG(COMM) |
		  T_FLAG(MMAP2) | T_FLAG(COMM_EXEC) | T_FLAG(TASK);
	a.ids = t_ids;
	a.nr_ids = 2;
	a.name = "cpu-clock";
	return a;
}

static struct sy_sample t_sid(uint32_t cpu, uint64_t time)
{
	struct sy_sample s;

	memset(&s, 0, sizeof(s));
	s.pid = 42;
	s.tid = 43;
	s.time = time;
	s.cpu = cpu;
	s.id = 101;
	return s;
}

static struct sy_pw *t_writer(const struct sy_pw_config *cfg)
{
	struct sy_pw *w = NULL;
	int err = sy_pw_alloc(&w, cfg);

	cr_assert_eq(err, 0, "sy_pw_alloc: %s", sy_errstr(err));
	return w;
}

#define T_OK(call)                                                        \
	do {                                                              \
		int t_err_ = (call);                                      \
		cr_assert(t_err_ >= 0, "%s -> %s", #call,                 \
			  sy_errstr(t_err_));                             \
	} while (0)

static void t_features(struct sy_pw *w)
{
	static const char *const argv[] = { "/usr/bin/perf", "record", "-e",
					    "cpu-clock", "--", "myprog" };
	static const struct sy_perf_pmu pmus[] = { { 1, "software" },
						   { 9, "cs_etm" } };

	T_OK(sy_pw_feat_string(w, SY_FEAT_HOSTNAME, "writerhost"));
	T_OK(sy_pw_feat_string(w, SY_FEAT_OSRELEASE, "6.16.0-synth"));
	T_OK(sy_pw_feat_string(w, SY_FEAT_VERSION, "6.16.7"));
	T_OK(sy_pw_feat_string(w, SY_FEAT_ARCH, "x86_64"));
	T_OK(sy_pw_feat_nrcpus(w, 8, 4));
	T_OK(sy_pw_feat_cmdline(w, argv, 6));
	T_OK(sy_pw_feat_event_desc(w));
	T_OK(sy_pw_feat_pmu_mappings(w, pmus, 2));
}

/* @n samples with a user callchain, ip 0x401000 + i, period 4000 + i,
 * time 2000 + i, for the event whose id is a->ids[0]. */
static void t_samples(struct sy_pw *w, const struct sy_perf_attr *a, int n)
{
	static const uint64_t cc[4] = { SY_CONTEXT_USER, 0x401000, 0x401100,
					0x401234 };
	int i;

	for (i = 0; i < n; i++) {
		struct sy_sample s = t_sid(1, 2000 + (uint64_t)i);

		s.id = a->ids[0];
		s.ip = 0x401000 + (uint64_t)i;
		s.period = 4000 + (uint64_t)i;
		s.callchain_nr = 4;
		s.callchain = (const uint8_t *)cc;
		T_OK(sy_pw_sample(w, a, SY_MISC_USER, &s));
	}
}

static void t_mmap2(struct sy_pw *w, const struct sy_perf_attr *a)
{
	struct sy_pw_mmap m;
	struct sy_sample sid = t_sid(1, 1500);

	memset(&m, 0, sizeof(m));
	m.misc = SY_MISC_USER;
	m.pid = 42;
	m.tid = 43;
	m.addr = 0x400000;
	m.len = 0x3000;
	m.pgoff = 0x1000;
	m.maj = 8;
	m.min = 1;
	m.ino = 123456;
	m.prot = 5;		/* r-x */
	m.flags = 2;		/* private */
	m.filename = "/usr/bin/myprog";
	T_OK(sy_pw_mmap2(w, &m, a, &sid));
}

static void t_write(struct sy_pw *w, const char *file)
{
	int err = sy_pw_write_file(w, file);

	cr_assert_eq(err, 0, "write %s: %s", file, sy_errstr(err));
}

/* Test-side walk of a data stream: calls @fn for each record. */
typedef void (*t_rec_fn)(void *ctx, const uint8_t *rec, size_t off);

static size_t t_walk(const uint8_t *p, size_t len, t_rec_fn fn, void *ctx)
{
	size_t off = 0, n = 0;

	while (off + 8 <= len) {
		uint32_t type = sy_le32(p + off);
		uint16_t size = sy_le16(p + off + 6);

		cr_assert(size >= 8 && off + size <= len,
			  "bad record at %zu (type %u size %u)", off, type,
			  size);
		if (fn)
			fn(ctx, p + off, off);
		off += size;
		if (type == SY_REC_AUXTRACE)
			off += (size_t)sy_le64(p + off - size + 8);
		n++;
	}
	cr_assert_eq(off, len, "stream does not end on a record boundary");
	return n;
}

/* The data section of a file-mode perf.data, or the stream of a pipe one. */
static const uint8_t *t_data(const uint8_t *f, size_t flen, size_t *len)
{
	uint64_t off, size;

	cr_assert(flen >= 16 && sy_le64(f) == SY_PERF_MAGIC2);
	if (sy_le64(f + 8) == SY_PERF_PIPE_HEADER_SIZE) {
		*len = flen - 16;
		return f + 16;
	}
	off = sy_le64(f + 40);
	size = sy_le64(f + 48);
	cr_assert(off + size <= flen);
	*len = (size_t)size;
	return f + off;
}

/* --- File mode: every record kind, counted and printed by perf ------------ */

Test(perf_writer, file_mode_records_counted_and_printed)
{
	const char *file = t_path("all.data");
	struct sy_perf_attr a = t_attr();
	struct sy_sample sid = t_sid(1, 1000);
	struct sy_pw *w;
	char *out;

	sy_test_require_tool("perf");
	w = t_writer(NULL);
	T_OK(sy_pw_add_attr(w, &a));
	t_features(w);

	{
		struct sy_pw_time_conv tc = { 10, 123, 456, 789, 0xffff, 1, 1 };
		struct sy_pw_id_index ix[2] = { { 101, 0, 0, 42, 0, 0 },
						{ 102, 1, 1, 42, 0, 0 } };
		struct sy_pw_thread th[1] = { { 42, "myprog" } };
		uint16_t cpus[3] = { 0, 2, 3 };
		uint64_t mask[1] = { 0x5 };

		T_OK(sy_pw_time_conv(w, &tc, 1));
		T_OK(sy_pw_id_index(w, ix, 2, 0));
		T_OK(sy_pw_thread_map(w, th, 1));
		T_OK(sy_pw_cpu_map_cpus(w, cpus, 3));
		T_OK(sy_pw_cpu_map_mask(w, mask, 1, 8));
		T_OK(sy_pw_cpu_map_range(w, 0, 0, 3));
		T_OK(sy_pw_event_update_str(w, SY_PW_EVENT_UPDATE_UNIT, 101,
					    "msec"));
		T_OK(sy_pw_event_update_scale(w, 101, 0.5));
	}
	{
		struct sy_pw_mmap m;

		memset(&m, 0, sizeof(m));
		m.misc = SY_MISC_KERNEL;
		m.pid = (uint32_t)-1;
		m.addr = 0xffffffff81000000ULL;
		m.len = 0x1200000;
		m.pgoff = 0xffffffff81000000ULL;
		m.filename = "[kernel.kallsyms]_text";
		T_OK(sy_pw_mmap(w, &m, &a, &sid));
	}
	T_OK(sy_pw_comm(w, 0, 42, 43, "myprog", &a, &sid));
	T_OK(sy_pw_finished_init(w));
	sid = t_sid(2, 990);	/* the trailer: perf prints "cpu time" */
	T_OK(sy_pw_task(w, SY_REC_FORK, 42, 1, 43, 1, 990, &a, &sid));
	sid = t_sid(1, 1000);
	T_OK(sy_pw_comm(w, SY_MISC_COMM_EXEC, 42, 43, "execd", &a, &sid));
	t_mmap2(w, &a);
	t_samples(w, &a, 5);
	T_OK(sy_pw_lost(w, 101, 17, &a, &sid));
	T_OK(sy_pw_lost_samples(w, 0, 9, &a, &sid));
	T_OK(sy_pw_throttle(w, 0, 3000, 101, 0, &a, &sid));
	T_OK(sy_pw_throttle(w, 1, 3100, 101, 0, &a, &sid));
	T_OK(sy_pw_switch(w, SY_MISC_SWITCH_OUT, &a, &sid));
	T_OK(sy_pw_switch(w, 0, &a, &sid));
	T_OK(sy_pw_switch_cpu_wide(w, SY_MISC_SWITCH_OUT, 77, 78, &a, &sid));
	T_OK(sy_pw_finished_round(w));
	T_OK(sy_pw_task(w, SY_REC_EXIT, 42, 1, 43, 1, 9000, &a, &sid));
	T_OK(sy_pw_finished_round(w));
	t_write(w, file);
	sy_pw_free(w);

	out = t_dump(file, 0);
	{
		const struct t_count exp[] = {
			{ "MMAP", 1 },		 { "LOST", 1 },
			{ "COMM", 2 },		 { "EXIT", 1 },
			{ "THROTTLE", 1 },	 { "UNTHROTTLE", 1 },
			{ "FORK", 1 },		 { "SAMPLE", 5 },
			{ "MMAP2", 1 },		 { "LOST_SAMPLES", 1 },
			{ "SWITCH", 2 },	 { "SWITCH_CPU_WIDE", 1 },
			{ "FINISHED_ROUND", 2 }, { "ID_INDEX", 1 },
			{ "THREAD_MAP", 1 },	 { "CPU_MAP", 3 },
			{ "EVENT_UPDATE", 2 },	 { "TIME_CONV", 1 },
			{ "FINISHED_INIT", 1 },
		};
		t_expect_stats(out, exp, SY_ARRAY_SIZE(exp));
	}
	t_expect_line(out, "PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1200000) "
			   "@ 0xffffffff81000000]: x [kernel.kallsyms]_text");
	t_expect_line(out, "PERF_RECORD_MMAP2 42/43: [0x400000(0x3000) @ 0x1000 "
			   "08:01 123456 0]: r-xp /usr/bin/myprog");
	t_expect_line(out, "PERF_RECORD_COMM: myprog:42/43");
	t_expect_line(out, "PERF_RECORD_COMM exec: execd:42/43");
	t_expect_line(out, "PERF_RECORD_FORK(42:43):(1:1)");
	t_expect_line(out, "PERF_RECORD_EXIT(42:43):(1:1)");
	t_expect_line(out, "PERF_RECORD_LOST: id:101: lost:17");
	t_expect_line(out, "PERF_RECORD_LOST_SAMPLES: id:101: lost samples :9");
	t_expect_line(out, "PERF_RECORD_THROTTLE: unhandled!");
	t_expect_line(out, "PERF_RECORD_UNTHROTTLE: unhandled!");
	t_expect_line(out, "PERF_RECORD_SWITCH OUT");
	t_expect_line(out, "PERF_RECORD_SWITCH IN");
	t_expect_line(out, "PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:"
			   "    77/78");
	t_expect_line(out, "... Time Shift      10\n... Time Muliplier  123\n"
			   "... Time Zero       456\n... Time Cycles     789\n");
	t_expect_line(out, "PERF_RECORD_ID_INDEX nr: 2");
	t_expect_line(out, "id: 102  idx: 1  cpu: 1  tid: 42");
	t_expect_line(out, "PERF_RECORD_THREAD_MAP nr: 1 thread: 42");
	t_expect_line(out, "PERF_RECORD_CPU_MAP: 0,2-3");
	t_expect_line(out, "PERF_RECORD_CPU_MAP: 0,2");
	t_expect_line(out, "PERF_RECORD_CPU_MAP: 0-3");
	t_expect_line(out, "... id:    101\n... unit:  msec\n");
	t_expect_line(out, "... id:    101\n... scale: 0.500000\n");
	/* sample_id trailers: perf prints "cpu time" from them */
	t_expect_line(out, "2 990 0x");
	t_expect_line(out, "]: PERF_RECORD_FORK(42:43):(1:1)");
	t_expect_line(out, "1 2003 0x");
	t_expect_line(out, "PERF_RECORD_SAMPLE(IP, 0x2): 42/43: 0x401003 period: 4003");
	t_expect_line(out, ".....  3: 0000000000401234");
	free(out);

	/* ips print relative to the MMAP2 map: ip - addr + pgoff */
	out = t_run(NULL, T_PERF " script -i '%s' -F comm,pid,tid,cpu,"
			  "time,ip,sym,dso,period,event", file);
	t_expect_line(out, "execd    42/43    [001]     0.000002:       4004 "
			   "cpu-clock: \n"
			   "\t            2000 [unknown] (/usr/bin/myprog)\n"
			   "\t            2100 [unknown] (/usr/bin/myprog)\n"
			   "\t            2234 [unknown] (/usr/bin/myprog)\n");
	cr_expect_eq(t_count_lines(out, "cpu-clock:"), 5, "%s", out);
	free(out);
}

/* ID_INDEX split over records, MMAP2 with a build-id, the short TIME_CONV. */
Test(perf_writer, id_index_split_and_record_variants)
{
	const char *file = t_path("idx.data");
	struct sy_perf_attr a = t_attr();
	struct sy_pw_id_index *ix;
	struct sy_pw_time_conv tc = { 7, 9, 11, 0, 0, 0, 0 };
	struct sy_sample sid = t_sid(1, 1000);
	uint64_t *ids;
	struct sy_pw_mmap m;
	struct sy_pw *w;
	char *out;
	uint32_t i, n = 3000;

	sy_test_require_tool("perf");
	ids = calloc(n, sizeof(*ids));
	ix = calloc(n, sizeof(*ix));
	cr_assert(ids && ix);
	for (i = 0; i < n; i++) {
		ids[i] = 1000 + i;
		ix[i].id = 1000 + i;
		ix[i].idx = i % 4;
		ix[i].cpu = i % 4;
		ix[i].tid = 42;
	}
	a.ids = ids;
	a.nr_ids = n;
	w = t_writer(NULL);
	T_OK(sy_pw_add_attr(w, &a));
	T_OK(sy_pw_time_conv(w, &tc, 0));
	T_OK(sy_pw_id_index(w, ix, n, 0));
	memset(&m, 0, sizeof(m));
	m.misc = SY_MISC_USER | SY_MISC_MMAP_BUILD_ID;
	m.pid = 42;
	m.tid = 43;
	m.addr = 0x7f0000000000ULL;
	m.len = 0x21000;
	m.pgoff = 0;
	m.build_id_size = 20;
	for (i = 0; i < 20; i++)
		m.build_id[i] = (uint8_t)(0xe0 + i);
	m.prot = 5;
	m.flags = 2;
	m.filename = "/usr/lib/libsynth.so.1";
	sid.id = 1000;
	T_OK(sy_pw_mmap2(w, &m, &a, &sid));
	t_write(w, file);
	sy_pw_free(w);
	free(ids);
	free(ix);

	out = t_dump(file, 0);
	{
		const struct t_count exp[] = {
			{ "MMAP2", 1 }, { "ID_INDEX", 2 }, { "TIME_CONV", 1 },
		};
		t_expect_stats(out, exp, SY_ARRAY_SIZE(exp));
	}
	/* (65535 - 16) / 32 entries fit one record */
	t_expect_line(out, "PERF_RECORD_ID_INDEX nr: 2047\n");
	t_expect_line(out, "PERF_RECORD_ID_INDEX nr: 953\n");
	t_expect_line(out, " ... id: 3999  idx: 3  cpu: 3  tid: 42\n");
	t_expect_line(out, "... Time Shift      7\n... Time Muliplier  9\n"
			   "... Time Zero       11\n");
	t_expect_line(out, "PERF_RECORD_MMAP2 42/43: [0x7f0000000000(0x21000) @ 0 "
			   "<e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3>]: r-xp "
			   "/usr/lib/libsynth.so.1\n");
	free(out);
}

/* --- Features --------------------------------------------------------------- */

/* Payload of feature @bit in a file-mode perf.data (table entry i = i-th
 * set bit), or NULL. */
static const uint8_t *t_feature(const uint8_t *f, size_t flen, int bit,
				size_t *size)
{
	uint64_t table = sy_le64(f + 40) + sy_le64(f + 48);
	size_t i = 0;
	int b;

	for (b = 0; b < bit; b++)
		i += (sy_le64(f + 72 + 8 * (b / 64)) >> (b % 64)) & 1;
	if (!((sy_le64(f + 72 + 8 * (bit / 64)) >> (bit % 64)) & 1))
		return NULL;
	cr_assert(table + 16 * (i + 1) <= flen);
	*size = (size_t)sy_le64(f + table + 16 * i + 8);
	cr_assert(sy_le64(f + table + 16 * i) + *size <= flen);
	return f + sy_le64(f + table + 16 * i);
}

/* What perf's writer does and its reader does not check: strings padded to
 * NAME_ALIGN (64), build-id filenames too (header.c write_buildid), the
 * file header of perf_session__do_write_header. */
static void t_check_feature_layout(const char *file)
{
	const uint8_t *f, *p;
	size_t flen, size;

	f = sy_test_read_file(file, &flen);
	cr_assert(f);
	cr_expect_eq(sy_le64(f + 8), 104);
	cr_expect_eq(sy_le64(f + 16), 128 + 16);
	cr_expect_eq(sy_le64(f + 24), 104 + 3 * 8, "attrs after 3 ids");
	cr_expect_eq(sy_le64(f + 40), 104 + 3 * 8 + 2 * 144);
	cr_expect_eq(sy_le64(f + 56) | sy_le64(f + 64), 0, "event_types");
	p = t_feature(f, flen, SY_FEAT_HOSTNAME, &size);
	cr_assert(p);
	cr_expect_eq(size, 4 + 64);
	cr_expect_eq(sy_le32(p), 64);
	cr_expect(!memcmp(p + 4, "writerhost\0\0\0", 13));
	p = t_feature(f, flen, SY_FEAT_BUILD_ID, &size);
	cr_assert(p);
	cr_expect_eq(size, 2 * (36 + 64));
	cr_expect_eq(sy_le16(p + 6), 36 + 64);
	cr_expect_eq(sy_le32(p), 0, "BUILD_ID entry header.type");
	cr_expect_eq(p[100 + 12 + 20], 16, "size byte of the 16-byte id");
	p = t_feature(f, flen, SY_FEAT_NRCPUS, &size);
	cr_assert(p);
	cr_expect_eq(size, 8);
	free((void *)(uintptr_t)f);
}

Test(perf_writer, features_listed_by_header_only)
{
	const char *file = t_path("feat.data");
	struct sy_perf_attr a = t_attr();
	struct sy_perf_attr b = t_attr();
	static const uint64_t ids_b[1] = { 201 };
	struct sy_perf_build_id bid[2];
	struct sy_pw_group g = { "grp", 0, 2 };
	struct sy_pw *w;
	char *out;
	int i;

	sy_test_require_tool("perf");
	w = t_writer(NULL);
	b.ids = ids_b;
	b.nr_ids = 1;
	b.name = "instructions";
	b.type = 0;
	b.config = 1;
	T_OK(sy_pw_add_attr(w, &a));
	T_OK(sy_pw_add_attr(w, &b));
	t_features(w);
	T_OK(sy_pw_feat_string(w, SY_FEAT_CPUDESC, "Synthetic CPU @ 1GHz"));
	T_OK(sy_pw_feat_string(w, SY_FEAT_CPUID, "GenuineIntel,6,85,4"));
	T_OK(sy_pw_feat_total_mem(w, 16384000));
	T_OK(sy_pw_feat_group_desc(w, &g, 1));
	T_OK(sy_pw_feat_sample_time(w, 2000000000ULL, 5000000000ULL));
	T_OK(sy_pw_feat_clockid(w, 1));
	T_OK(sy_pw_feat_clock_data(w, 1, 1700000000123456789ULL,
				   2000000000ULL));

	memset(bid, 0, sizeof(bid));
	for (i = 0; i < 20; i++)
		bid[0].id[i] = (uint8_t)(0xa0 + i);
	bid[0].size = 20;
	bid[0].pid = -1;
	bid[0].misc = SY_MISC_KERNEL | SY_MISC_BUILD_ID_SIZE;
	bid[0].filename = "[kernel.kallsyms]";
	/* a 16-byte id in a 20-byte field: only MISC_BUILD_ID_SIZE says so */
	for (i = 0; i < 16; i++)
		bid[1].id[i] = (uint8_t)(0x10 + i);
	bid[1].size = 16;
	bid[1].pid = 42;
	bid[1].misc = SY_MISC_USER | SY_MISC_BUILD_ID_SIZE;
	bid[1].filename = "/usr/bin/myprog";
	T_OK(sy_pw_feat_build_id(w, bid, 2));

	t_samples(w, &a, 2);
	t_write(w, file);
	sy_pw_free(w);

	t_check_feature_layout(file);

	out = t_run(NULL, T_PERF " report --header-only -I -i '%s'",
		    file);
	t_expect_line(out, "# hostname : writerhost\n");
	t_expect_line(out, "# os release : 6.16.0-synth\n");
	t_expect_line(out, "# perf version : 6.16.7\n");
	t_expect_line(out, "# arch : x86_64\n");
	t_expect_line(out, "# nrcpus online : 4\n");
	t_expect_line(out, "# nrcpus avail : 8\n");
	t_expect_line(out, "# cpudesc : Synthetic CPU @ 1GHz\n");
	t_expect_line(out, "# cpuid : GenuineIntel,6,85,4\n");
	t_expect_line(out, "# total memory : 16384000 kB\n");
	t_expect_line(out, "# cmdline : /usr/bin/perf record -e cpu-clock -- myprog \n");
	t_expect_line(out, "# event : name = cpu-clock, , id = { 101, 102 }, "
			   "type = 1, size = 128,");
	/* perf leaves out fields that are 0, type included */
	t_expect_line(out, "# event : name = instructions, , id = { 201 }, "
			   "size = 128, config = 0x1,");
	t_expect_line(out, "sample_type = IP|TID|TIME|CALLCHAIN|CPU|PERIOD|IDENTIFIER");
	t_expect_line(out, "# pmu mappings: software = 1, cs_etm = 9\n");
	t_expect_line(out, "# group: grp{cpu-clock,instructions}\n");
	t_expect_line(out, "# time of first sample : 2.000000\n");
	t_expect_line(out, "# time of last sample : 5.000000\n");
	t_expect_line(out, "# clockid frequency: 1000 MHz\n");
	t_expect_line(out, "# clockid: monotonic (1)\n");
	t_expect_line(out, "# reference time: 2023-11-14 22:13:20.123456 = "
			   "1700000000.123456 (TOD) = 2.000000000 (monotonic)\n");
	free(out);

	out = t_run(NULL, T_PERF " buildid-list -i '%s'", file);
	t_expect_line(out, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3 "
			   "[kernel.kallsyms]\n");
	/* 16 significant bytes: perf prints exactly those */
	t_expect_line(out, "101112131415161718191a1b1c1d1e1f         "
			   "/usr/bin/myprog\n");
	free(out);
}

/* --- Every sample_type field, in kernel order ------------------------------- */

Test(perf_writer, sample_all_fields_parsed_by_perf)
{
	const char *file = t_path("sample.data");
	static const uint64_t ids[1] = { 7 };
	static const uint64_t rd[4] = { 111, 222, 333, 7 };
	static const uint64_t cc[3] = { SY_CONTEXT_USER, 0x1000, 0x2000 };
	static const uint8_t raw[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	static const uint64_t br[6] = { 0x1111, 0x2222, 0x1 | (5 << 4),
					0x3333, 0x4444, 0x2 };
	static const uint64_t ru[3] = { 0xa1, 0xa2, 0xa3 };
	static const uint64_t ri[2] = { 0xb1, 0xb2 };
	uint8_t stk[60], aux[20];
	struct sy_perf_attr a;
	struct sy_sample s;
	struct sy_pw *w;
	char *out;

	sy_test_require_tool("perf");
	memset(&a, 0, sizeof(a));
	a.type = 4;		/* PERF_TYPE_RAW */
	a.config = 0x1234;
	a.sample_period = 100;
	/* every bit perf 6.1 parses; WEIGHT_STRUCT shares WEIGHT's slot */
	a.sample_type = SY_SAMPLE_KNOWN_MASK & ~(uint64_t)SY_SAMPLE_WEIGHT_STRUCT;
	a.read_format = SY_READ_TOTAL_TIME_ENABLED |
			SY_READ_TOTAL_TIME_RUNNING | SY_READ_ID;
	a.branch_sample_type = SY_BRANCH_HW_INDEX | 1;
	a.sample_regs_user = 0x7;
	a.sample_regs_intr = 0x3;
	a.sample_stack_user = 64;
	a.flags = T_FLAG(SAMPLE_ID_ALL);
	a.ids = ids;
	a.nr_ids = 1;
	a.name = "raw";

	memset(stk, 0x5a, sizeof(stk));
	memset(aux, 0x77, sizeof(aux));
	memset(&s, 0, sizeof(s));
	s.id = 7;
	s.ip = 0xdead0;
	s.pid = 5;
	s.tid = 6;
	s.time = 123456789;
	s.addr = 0xadd0;
	s.stream_id = 99;
	s.cpu = 3;
	s.period = 100;
	s.read = (const uint8_t *)rd;
	s.read_size = sizeof(rd);
	s.callchain_nr = 3;
	s.callchain = (const uint8_t *)cc;
	s.raw_size = sizeof(raw);	/* 4 + 10 padded to 16 by the writer */
	s.raw = raw;
	s.branch_nr = 2;
	s.branch_hw_idx = 5;
	s.branches = (const uint8_t *)br;
	s.regs_user_abi = 2;
	s.regs_user_nr = 3;
	s.regs_user = (const uint8_t *)ru;
	s.stack_user_size = sizeof(stk);	/* padded to 64 */
	s.stack_user = stk;
	s.stack_user_dyn_size = 40;
	s.weight = 77;
	s.data_src = 0x68100142;
	s.transaction = 0x12;
	s.regs_intr_abi = 2;
	s.regs_intr_nr = 2;
	s.regs_intr = (const uint8_t *)ri;
	s.phys_addr = 0xfeed000;
	s.cgroup = 0xc6;
	s.data_page_size = 4096;
	s.code_page_size = 2097152;
	s.aux_size = sizeof(aux);	/* padded to 24, last field */
	s.aux = aux;

	w = t_writer(NULL);
	T_OK(sy_pw_add_attr(w, &a));
	T_OK(sy_pw_feat_string(w, SY_FEAT_ARCH, "x86_64"));
	T_OK(sy_pw_comm(w, 0, 5, 6, "prog", &a, NULL));
	T_OK(sy_pw_sample(w, &a, SY_MISC_USER, &s));
	t_write(w, file);
	sy_pw_free(w);

	out = t_dump(file, 0);
	{
		const struct t_count exp[] = { { "COMM", 1 }, { "SAMPLE", 1 } };
		t_expect_stats(out, exp, SY_ARRAY_SIZE(exp));
	}
	t_expect_line(out, "3 123456789 0x");
	t_expect_line(out, "PERF_RECORD_SAMPLE(IP, 0x2): 5/6: 0xdead0 period: 100 "
			   "addr: 0xadd0\n... FP chain: nr:3\n");
	t_expect_line(out, ".....  2: 0000000000002000\n");
	t_expect_line(out, "... branch stack: nr:2\n"
			   ".....  0: 0000000000001111 -> 0000000000002222 5 cycles M    0 \n"
			   ".....  1: 0000000000003333 -> 0000000000004444 0 cycles  P   0 \n");
	t_expect_line(out, "... user regs: mask 0x7 ABI 64-bit\n");
	t_expect_line(out, "0x00000000000000a3\n");
	t_expect_line(out, "... intr regs: mask 0x3 ABI 64-bit\n");
	t_expect_line(out, "0x00000000000000b2\n");
	t_expect_line(out, "... ustack: size 40, offset 0x");
	t_expect_line(out, "... weight: 77\n");
	t_expect_line(out, " . data_src: 0x68100142\n");
	t_expect_line(out, " .. phys_addr: 0xfeed000\n");
	t_expect_line(out, " .. data page size: 4K\n");
	t_expect_line(out, " .. code page size: 2M\n");
	t_expect_line(out, "... transaction: 12\n");
	t_expect_line(out, "...... time enabled 00000000000000de\n");
	t_expect_line(out, "...... time running 000000000000014d\n");
	t_expect_line(out, "..... id 0000000000000007, value 000000000000006f\n");
	free(out);
}

Test(perf_writer, sample_encode_rejects_inconsistent_input)
{
	struct sy_perf_attr a;
	struct sy_sample s;
	uint64_t regs[2] = { 1, 2 };
	uint8_t buf[256];

	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	a.sample_type = SY_SAMPLE_REGS_USER;
	a.sample_regs_user = 0x7;	/* three registers */
	s.regs_user_abi = 2;
	s.regs_user_nr = 2;
	s.regs_user = (const uint8_t *)regs;
	cr_expect_eq(sy_pw_sample_encode(&a, &s, buf, sizeof(buf)),
		     -SY_E_INVALID);
	a.sample_type = SY_SAMPLE_READ;
	a.read_format = SY_READ_ID;	/* 16 bytes */
	s.read = buf;
	s.read_size = 8;
	cr_expect_eq(sy_pw_sample_encode(&a, &s, buf, sizeof(buf)),
		     -SY_E_INVALID);
	a.sample_type = 1ULL << 40;
	cr_expect_eq(sy_pw_sample_encode(&a, &s, buf, sizeof(buf)),
		     -SY_E_INVALID);
	/* a body above a record's 65535 bytes */
	a.sample_type = SY_SAMPLE_CALLCHAIN;
	s.callchain_nr = 9000;
	s.callchain = (const uint8_t *)calloc(9000, 8);
	cr_expect_eq(sy_pw_sample_encode(&a, &s, NULL, 0), -SY_E_LIMIT);
	free((void *)(uintptr_t)s.callchain);
	/* measuring with a NULL buffer, writing into a short one */
	a.sample_type = SY_SAMPLE_IP | SY_SAMPLE_TID;
	cr_expect_eq(sy_pw_sample_encode(&a, &s, NULL, 0), 16);
	cr_expect_eq(sy_pw_sample_encode(&a, &s, buf, 8), -SY_E_LIMIT);
}

/* --- Attr size ------------------------------------------------------------- */

Test(perf_writer, attr_136_refused_by_perf_6_1)
{
	const char *f128 = t_path("a128.data");
	const char *f136 = t_path("a136.data");
	struct sy_pw_config cfg = { 0 };
	struct sy_perf_attr a = t_attr();
	const uint8_t *bytes;
	size_t len;
	struct sy_pw *w;
	char *out;
	int st;

	sy_test_require_tool("perf");
	w = t_writer(NULL);
	T_OK(sy_pw_add_attr(w, &a));
	t_samples(w, &a, 1);
	t_write(w, f128);
	sy_pw_free(w);
	out = t_run(&st, T_PERF " report -v -D -i '%s'", f128);
	cr_expect_eq(st, 0, "%s", out);
	t_expect_line(out, " SAMPLE events:          1");
	free(out);

	cfg.attr_size = SY_ATTR_SIZE_VER8;
	w = t_writer(&cfg);
	a.config3 = 0x33;
	T_OK(sy_pw_add_attr(w, &a));
	t_samples(w, &a, 1);
	T_OK(sy_pw_output(w, &bytes, &len));
	cr_assert_eq(sy_le64(bytes + 16), 136 + 16, "header attr_size");
	t_write(w, f136);
	sy_pw_free(w);
	out = t_run(&st, T_PERF " report -v -D -i '%s'", f136);
	cr_expect_neq(st, 0, "%s", out);
	t_expect_line(out, "file uses a more recent and unsupported ABI "
			   "(8 bytes extra)");
	free(out);
}

/* --- Pipe mode ---------------------------------------------------------------- */

Test(perf_writer, pipe_mode_through_a_real_pipe)
{
	const char *file = t_path("pipe.data");
	struct sy_pw_config cfg = { 0 };
	struct sy_perf_attr a = t_attr();
	struct sy_sample sid = t_sid(1, 1000);
	struct sy_perf_build_id bid;
	const uint8_t *bytes;
	size_t len;
	struct sy_pw *w;
	char *out;
	int i;

	sy_test_require_tool("perf");
	cfg.pipe = 1;
	w = t_writer(&cfg);
	T_OK(sy_pw_add_attr(w, &a));
	t_features(w);		/* 8 features: 8 FEATURE records + end mark */
	T_OK(sy_pw_comm(w, 0, 42, 43, "myprog", &a, &sid));
	/* too late for attrs and features now */
	cr_expect_eq(sy_pw_add_attr(w, &a), -SY_E_INVALID);
	cr_expect_eq(sy_pw_feat_total_mem(w, 1), -SY_E_INVALID);
	T_OK(sy_pw_finished_init(w));
	t_mmap2(w, &a);
	t_samples(w, &a, 3);
	memset(&bid, 0, sizeof(bid));
	for (i = 0; i < 20; i++)
		bid.id[i] = (uint8_t)(0xc0 + i);
	bid.size = 20;
	bid.pid = 42;
	bid.misc = SY_MISC_USER | SY_MISC_BUILD_ID_SIZE;
	bid.filename = "/usr/bin/myprog";
	T_OK(sy_pw_header_build_id(w, &bid));
	T_OK(sy_pw_task(w, SY_REC_EXIT, 42, 1, 43, 1, 9000, &a, &sid));
	T_OK(sy_pw_finished_round(w));
	t_write(w, file);
	T_OK(sy_pw_output(w, &bytes, &len));
	cr_assert_eq(sy_le64(bytes + 8), 16, "pipe header size");
	sy_pw_free(w);

	out = t_dump(file, 1);
	{
		const struct t_count exp[] = {
			{ "COMM", 1 },	 { "EXIT", 1 },
			{ "SAMPLE", 3 }, { "MMAP2", 1 },
			{ "ATTR", 1 },	 { "FINISHED_ROUND", 1 },
			{ "FEATURE", 9 }, { "BUILD_ID", 1 },
			{ "FINISHED_INIT", 1 },
		};
		t_expect_stats(out, exp, SY_ARRAY_SIZE(exp));
	}
	t_expect_line(out, "0@pipe [0x98]: event: 64\n");
	t_expect_line(out, "PERF_RECORD_MMAP2 42/43: [0x400000(0x3000) @ 0x1000 "
			   "08:01 123456 0]: r-xp /usr/bin/myprog");
	t_expect_line(out, "PERF_RECORD_SAMPLE(IP, 0x2): 42/43: 0x401002 period: 4002");
	free(out);

	out = t_run(NULL, "cat '%s' | " T_PERF " report --header-only -i -",
		    file);
	t_expect_line(out, "# hostname : writerhost\n");
	t_expect_line(out, "# event : name = cpu-clock, , id = { 101, 102 },");
	t_expect_line(out, "# pmu mappings: software = 1, cs_etm = 9\n");
	free(out);

	out = t_run(NULL, "cat '%s' | " T_PERF " script -i - -F comm,tid,"
			  "cpu,time,ip,sym,dso,period", file);
	t_expect_line(out, "myprog    43 [001]     0.000002:       4001 \n"
			   "\t            2000 [unknown] (/usr/bin/myprog)\n");
	cr_expect_eq(t_count_lines(out, "2234 [unknown] (/usr/bin/myprog)"), 3,
		     "%s", out);
	free(out);
}

/* sy_pw_write_fd into perf's stdin. */
Test(perf_writer, pipe_mode_written_to_fd)
{
	const char *res = t_path("fd.txt");
	struct sy_pw_config cfg = { 0 };
	struct sy_perf_attr a = t_attr();
	struct sy_pw *w;
	char cmd[8192];
	FILE *p;
	char *out;
	size_t len;

	sy_test_require_tool("perf");
	cfg.pipe = 1;
	w = t_writer(&cfg);
	T_OK(sy_pw_add_attr(w, &a));
	t_samples(w, &a, 4);
	signal(SIGPIPE, SIG_IGN);
	snprintf(cmd, sizeof(cmd),
		 T_PERF " report -D -i - > '%s' 2>&1", res);
	p = popen(cmd, "w");
	cr_assert(p);
	T_OK(sy_pw_write_fd(w, fileno(p)));
	cr_expect_eq(pclose(p), 0);
	sy_pw_free(w);
	out = (char *)sy_test_read_file(res, &len);
	cr_assert(out);
	out = realloc(out, len + 1);
	out[len] = 0;
	{
		const struct t_count exp[] = { { "SAMPLE", 4 }, { "ATTR", 1 },
					       { "FEATURE", 1 } };
		t_expect_stats(out, exp, SY_ARRAY_SIZE(exp));
	}
	free(out);
}

/* --- Compression ------------------------------------------------------------- */

struct t_zwalk {
	ZSTD_DStream *ds;
	uint8_t *plain;		/* decompressed stream */
	size_t len, cap;
	size_t *ends;		/* plain length after each compressed record */
	size_t nr_comp;
	uint32_t type;		/* 81 or 83 */
	int bad;
	int frame_ends;		/* zstd frames completed: perf never ends one */
};

static void t_zrec(void *ctx, const uint8_t *rec, size_t off)
{
	struct t_zwalk *z = ctx;
	uint16_t size = sy_le16(rec + 6);
	ZSTD_inBuffer in;

	(void)off;
	if (sy_le32(rec) != z->type)
		return;
	if (z->type == SY_REC_COMPRESSED2) {
		uint64_t ds = sy_le64(rec + 8);

		/* 83: 8-byte aligned size, real length in data_size */
		if (size % 8 || ds > (uint64_t)size - 16 || size - 16 - ds >= 8)
			z->bad = 1;
		in = (ZSTD_inBuffer){ rec + 16, (size_t)ds, 0 };
	} else {
		in = (ZSTD_inBuffer){ rec + 8, (size_t)size - 8, 0 };
	}
	while (in.pos < in.size) {
		ZSTD_outBuffer o;
		size_t r;

		if (z->cap - z->len < 65536) {
			z->cap = z->cap * 2 + 65536;
			z->plain = realloc(z->plain, z->cap);
		}
		o = (ZSTD_outBuffer){ z->plain + z->len, z->cap - z->len, 0 };
		r = ZSTD_decompressStream(z->ds, &o, &in);
		if (ZSTD_isError(r)) {
			z->bad = 1;
			return;
		}
		z->frame_ends += r == 0;
		z->len += o.pos;
	}
	z->ends = realloc(z->ends, (z->nr_comp + 1) * sizeof(*z->ends));
	z->ends[z->nr_comp++] = z->len;
}

/* Decompresses all compressed records of @data as one zstd stream. */
static void t_zdecode(struct t_zwalk *z, const uint8_t *data, size_t len,
		      uint32_t type)
{
	memset(z, 0, sizeof(*z));
	z->type = type;
	z->ds = ZSTD_createDStream();
	cr_assert(z->ds);
	ZSTD_initDStream(z->ds);
	t_walk(data, len, t_zrec, z);
	cr_assert(!z->bad, "compressed records are malformed");
	/* one continuous stream, flushed but never ended (util/zstd.c) */
	cr_expect_eq(z->frame_ends, 0, "zstd frame ended %d times",
		     z->frame_ends);
}

static void t_zfree(struct t_zwalk *z)
{
	ZSTD_freeDStream(z->ds);
	free(z->plain);
	free(z->ends);
}

/* Number of records in the decompressed stream that span the end of a
 * compressed record. */
static int t_straddling(const struct t_zwalk *z)
{
	size_t off = 0, k = 0;
	int n = 0;

	while (off + 8 <= z->len) {
		size_t end = off + sy_le16(z->plain + off + 6);

		while (k < z->nr_comp && z->ends[k] <= off)
			k++;
		if (k < z->nr_comp && z->ends[k] < end)
			n++;
		off = end;
	}
	return n;
}

static void t_compressed_file(const char *file, size_t batch)
{
	struct sy_pw_config cfg = { 0 };
	struct sy_perf_attr a = t_attr();
	struct sy_sample sid = t_sid(1, 1000);
	struct sy_pw *w;

	cfg.compress = SY_REC_COMPRESSED;
	cfg.comp_batch = batch;
	w = t_writer(&cfg);
	T_OK(sy_pw_add_attr(w, &a));
	t_features(w);
	/* like perf record: the synthesized prologue stays plain */
	T_OK(sy_pw_set_compress(w, 0));
	T_OK(sy_pw_comm(w, 0, 42, 43, "myprog", &a, &sid));
	T_OK(sy_pw_finished_init(w));
	T_OK(sy_pw_set_compress(w, 1));
	t_mmap2(w, &a);
	t_samples(w, &a, 40);
	T_OK(sy_pw_task(w, SY_REC_EXIT, 42, 1, 43, 1, 9000, &a, &sid));
	T_OK(sy_pw_set_compress(w, 0));
	T_OK(sy_pw_finished_round(w));
	t_write(w, file);
	sy_pw_free(w);
}

static size_t t_count_type(const uint8_t *data, size_t len, uint32_t type)
{
	size_t off = 0, n = 0;

	while (off + 8 <= len) {
		if (sy_le32(data + off) == type)
			n++;
		off += sy_le16(data + off + 6);
	}
	return n;
}

static void t_check_compressed(const char *file, int expect_straddle)
{
	struct t_zwalk z;
	uint8_t *bytes;
	const uint8_t *data;
	size_t flen, len, ncomp;
	char *out;

	bytes = sy_test_read_file(file, &flen);
	cr_assert(bytes);
	data = t_data(bytes, flen, &len);
	ncomp = t_count_type(data, len, SY_REC_COMPRESSED);
	cr_assert(ncomp >= 1);
	t_zdecode(&z, data, len, SY_REC_COMPRESSED);
	/* what the compressed records carry: mmap2, 40 samples, exit */
	cr_expect_eq(t_walk(z.plain, z.len, NULL, NULL), 42);
	if (expect_straddle)
		cr_expect(t_straddling(&z) > 0,
			  "no record straddles a compressed record");
	t_zfree(&z);
	free(bytes);

	out = t_dump(file, 0);
	{
		const struct t_count exp[] = {
			{ "COMM", 1 },	   { "EXIT", 1 },
			{ "SAMPLE", 40 },  { "MMAP2", 1 },
			{ "FINISHED_ROUND", 1 },
			{ "COMPRESSED", (long)ncomp },
			{ "FINISHED_INIT", 1 },
		};
		t_expect_stats(out, exp, SY_ARRAY_SIZE(exp));
	}
	t_expect_line(out, "PERF_RECORD_MMAP2 42/43: [0x400000(0x3000) @ 0x1000 "
			   "08:01 123456 0]: r-xp /usr/bin/myprog");
	cr_expect_eq(t_count_lines(out, "PERF_RECORD_SAMPLE(IP, 0x2): 42/43: "
					"0x401027 period: 4039"), 1);
	free(out);

	out = t_run(NULL, T_PERF " report --header-only -i '%s'", file);
	t_expect_line(out, "# compressed : Zstd, level = 1, ratio = ");
	free(out);
}

Test(perf_writer, compressed_81_read_by_perf)
{
	sy_test_require_tool("perf");
	t_compressed_file(t_path("z.data"), 0);
	t_check_compressed(t_path("z.data"), 0);
}

Test(perf_writer, compressed_81_records_straddle)
{
	sy_test_require_tool("perf");
	/* 100-byte batches: 96- and 120-byte records must cross them */
	t_compressed_file(t_path("zs.data"), 100);
	t_check_compressed(t_path("zs.data"), 1);
}

/* 200 samples with 200 bytes of noisy RAW data each. */
static void t_noisy_file(const char *file, int chain)
{
	struct sy_pw_config cfg = { 0 };
	struct sy_perf_attr a = t_attr();
	struct sy_pw *w;
	int i;

	cfg.compress = SY_REC_COMPRESSED;
	cfg.comp_max_payload = 512;
	cfg.comp_chain = chain;
	if (chain)
		cfg.comp_batch = 8192;
	a.sample_type |= SY_SAMPLE_RAW;
	w = t_writer(&cfg);
	T_OK(sy_pw_add_attr(w, &a));
	for (i = 0; i < 200; i++) {
		struct sy_sample s = t_sid(1, 5000 + (uint64_t)i);
		uint8_t raw[200];
		size_t k;

		for (k = 0; k < sizeof(raw); k++)
			raw[k] = (uint8_t)((k * 2654435761u +
					    (size_t)i * 40503u) >> 13);
		s.ip = 0x500000 + (uint64_t)i;
		s.raw = raw;
		s.raw_size = sizeof(raw);
		T_OK(sy_pw_sample(w, &a, SY_MISC_USER, &s));
	}
	t_write(w, file);
	sy_pw_free(w);
}

/* Small compressed records: the writer flushes in pieces whose output fits
 * one record, so every record decodes to something and perf reads them. */
Test(perf_writer, compressed_small_records_read_by_perf)
{
	const char *file = t_path("zsmall.data");
	struct t_zwalk z;
	uint8_t *bytes;
	const uint8_t *data;
	size_t flen, len, k;
	char *out;

	sy_test_require_tool("perf");
	t_noisy_file(file, 0);
	bytes = sy_test_read_file(file, &flen);
	cr_assert(bytes);
	data = t_data(bytes, flen, &len);
	t_zdecode(&z, data, len, SY_REC_COMPRESSED);
	cr_expect_eq(t_walk(z.plain, z.len, NULL, NULL), 200);
	cr_expect(z.nr_comp > 20, "only %zu compressed records", z.nr_comp);
	for (k = 1; k < z.nr_comp; k++)
		cr_expect_gt(z.ends[k], z.ends[k - 1],
			     "compressed record %zu decodes to nothing", k);
	{
		const struct t_count exp[] = {
			{ "SAMPLE", 200 }, { "COMPRESSED", (long)z.nr_comp },
		};
		t_zfree(&z);
		free(bytes);
		out = t_dump(file, 0);
		t_expect_stats(out, exp, SY_ARRAY_SIZE(exp));
	}
	t_expect_line(out, "PERF_RECORD_SAMPLE(IP, 0x2): 42/43: 0x5000c7 period: 0");
	free(out);
}

/* comp_chain: one flush per batch, its output cut over many records as
 * perf cuts a large ring-buffer push; records holding part of a zstd block
 * decode to nothing.  The stream must still decode as one. */
Test(perf_writer, compressed_chain_is_one_stream)
{
	const char *file = t_path("zchain.data");
	struct t_zwalk z;
	uint8_t *bytes;
	const uint8_t *data;
	size_t flen, len, k, empty = 0;

	t_noisy_file(file, 1);
	bytes = sy_test_read_file(file, &flen);
	cr_assert(bytes);
	data = t_data(bytes, flen, &len);
	t_zdecode(&z, data, len, SY_REC_COMPRESSED);
	cr_expect_eq(t_walk(z.plain, z.len, NULL, NULL), 200);
	for (k = 1; k < z.nr_comp; k++)
		empty += z.ends[k] == z.ends[k - 1];
	cr_expect_gt(empty, 0, "no record ends inside a zstd block");
	t_zfree(&z);
	free(bytes);
}

/* COMPRESSED2 (perf >= 6.16): perf 6.1 does not know type 83, so the test
 * checks the framing itself and re-frames each record as an 81 for perf. */
Test(perf_writer, compressed2_reframed_for_perf_6_1)
{
	const char *file = t_path("z2.data");
	const char *conv = t_path("z2as81.data");
	struct sy_pw_config cfg = { 0 };
	struct sy_perf_attr a = t_attr();
	struct sy_sample sid = t_sid(1, 1000);
	struct t_zwalk z;
	uint8_t *bytes, *o;
	const uint8_t *data;
	size_t flen, len, off, olen = 0;
	struct sy_pw *w;
	char *out;
	int st;

	sy_test_require_tool("perf");
	cfg.pipe = 1;
	cfg.compress = SY_REC_COMPRESSED2;
	cfg.comp_batch = 200;
	w = t_writer(&cfg);
	T_OK(sy_pw_add_attr(w, &a));
	t_features(w);
	T_OK(sy_pw_comm(w, 0, 42, 43, "myprog", &a, &sid));
	t_mmap2(w, &a);
	t_samples(w, &a, 20);
	T_OK(sy_pw_finished_round(w));
	t_write(w, file);
	sy_pw_free(w);

	out = t_dump(file, 1);
	t_expect_line(out, "failed to process type: 83");
	free(out);

	bytes = sy_test_read_file(file, &flen);
	cr_assert(bytes);
	data = t_data(bytes, flen, &len);
	t_zdecode(&z, data, len, SY_REC_COMPRESSED2);
	cr_expect(z.nr_comp >= 3);
	cr_expect(t_straddling(&z) > 0);
	cr_expect_eq(t_walk(z.plain, z.len, NULL, NULL), 23);
	t_zfree(&z);

	o = malloc(flen);
	cr_assert(o);
	memcpy(o, bytes, 16);
	olen = 16;
	for (off = 0; off < len;) {
		const uint8_t *r = data + off;
		uint16_t size = sy_le16(r + 6);

		if (sy_le32(r) == SY_REC_COMPRESSED2) {
			uint64_t ds = sy_le64(r + 8);

			sy_put32(o + olen, SY_REC_COMPRESSED);
			sy_put16(o + olen + 4, 0);
			sy_put16(o + olen + 6, (uint16_t)(8 + ds));
			memcpy(o + olen + 8, r + 16, (size_t)ds);
			olen += 8 + (size_t)ds;
		} else {
			memcpy(o + olen, r, size);
			olen += size;
		}
		off += size;
	}
	cr_assert_eq(sy_test_write_file(conv, o, olen), 0);
	free(o);
	free(bytes);

	out = t_run(&st, "cat '%s' | " T_PERF " report -D -i -", conv);
	{
		const struct t_count exp[] = {
			{ "COMM", 1 },	   { "SAMPLE", 20 },
			{ "MMAP2", 1 },	   { "FINISHED_ROUND", 1 },
			{ "ATTR", 1 },	   { "FEATURE", 10 },
			{ "COMPRESSED", (long)z.nr_comp },
		};
		t_expect_stats(out, exp, SY_ARRAY_SIZE(exp));
	}
	t_expect_line(out, "PERF_RECORD_SAMPLE(IP, 0x2): 42/43: 0x401013 period: 4019");
	free(out);
}

/* --- AUX area: AUXTRACE, AUX flags and the index ------------------------------ */

#define T_ETM_PMU 9

/* A two-CPU cs_etm capture as perf 6.1 expects it: AUXTRACE_INFO v1 with
 * ETMv4 blocks, per CPU an ITRACE_START, an AUX record (raw format, 13
 * bytes) and the AUXTRACE buffer holding A-Sync + TRACE_ON. */
static void t_etm_file(const char *file, enum sy_pw_index index, int compress)
{
	static const uint64_t ids[2] = { 11, 12 };
	static const struct sy_perf_pmu pmus[1] = { { T_ETM_PMU, "cs_etm" } };
	struct sy_pw_config cfg = { 0 };
	struct sy_perf_attr etm;
	struct sy_sample sid;
	uint64_t priv[3 + 2 * 10];
	uint8_t trace[13];
	struct sy_pw *w;
	int n = 0, c;

	memset(&etm, 0, sizeof(etm));
	etm.type = T_ETM_PMU;
	etm.sample_period = 1;
	etm.sample_type = SY_SAMPLE_IDENTIFIER | SY_SAMPLE_IP | SY_SAMPLE_TID |
			  SY_SAMPLE_TIME | SY_SAMPLE_CPU | SY_SAMPLE_PERIOD;
	etm.flags = T_FLAG(SAMPLE_ID_ALL) | T_FLAG(DISABLED);
	etm.ids = ids;
	etm.nr_ids = 2;
	etm.name = "cs_etm//u";

	cfg.auxtrace_index = index;
	cfg.compress = compress ? SY_REC_COMPRESSED : 0;
	cfg.comp_batch = 64;
	w = t_writer(&cfg);
	T_OK(sy_pw_add_attr(w, &etm));
	T_OK(sy_pw_feat_pmu_mappings(w, pmus, 1));
	T_OK(sy_pw_feat_string(w, SY_FEAT_ARCH, "aarch64"));
	T_OK(sy_pw_feat_nrcpus(w, 2, 2));
	T_OK(sy_pw_feat_event_desc(w));

	priv[n++] = 1;				/* CS_HEADER_VERSION_1 */
	priv[n++] = (uint64_t)T_ETM_PMU << 32 | 2; /* pmu type, nr_cpu */
	priv[n++] = 0;				/* snapshot */
	for (c = 0; c < 2; c++) {
		priv[n++] = 0x4040404040404040ULL; /* ETMv4 magic */
		priv[n++] = (uint64_t)c;
		priv[n++] = 7;			/* params that follow */
		priv[n++] = 0;			/* TRCCONFIGR */
		priv[n++] = 0x10 + 2 * (uint64_t)c; /* TRCTRACEIDR */
		priv[n++] = 0x28000ea1;		/* TRCIDR0 */
		priv[n++] = 0x4100f403;		/* TRCIDR1 */
		priv[n++] = 0x488;		/* TRCIDR2 */
		priv[n++] = 0;			/* TRCIDR8 */
		priv[n++] = 0xcc;		/* TRCAUTHSTATUS */
	}
	T_OK(sy_pw_set_compress(w, 0));
	T_OK(sy_pw_auxtrace_info(w, SY_AUXTRACE_CS_ETM, priv, (uint32_t)n));
	sid = t_sid(0, 1000);
	sid.pid = sid.tid = 42;
	sid.id = 11;
	T_OK(sy_pw_comm(w, 0, 42, 42, "etmprog", &etm, &sid));
	T_OK(sy_pw_finished_init(w));

	memset(trace, 0, sizeof(trace));
	trace[11] = 0x80;	/* A-Sync: 11 zeros + 0x80 */
	trace[12] = 0x04;	/* TRACE_ON */
	for (c = 0; c < 2; c++) {
		struct sy_pw_auxtrace at;

		sid.cpu = (uint32_t)c;
		sid.id = 11 + (uint64_t)c;
		sid.time = 2000 + (uint64_t)c;
		if (compress)	/* samples around, compressed */
			T_OK(sy_pw_set_compress(w, 1));
		t_samples(w, &etm, 3);
		T_OK(sy_pw_itrace_start(w, 42, 42, &etm, &sid));
		/* cs_etm 6.1 finds AUX records by peeking at the raw file, so
		 * they must stay outside compressed records for the index
		 * split to happen */
		T_OK(sy_pw_set_compress(w, 0));
		T_OK(sy_pw_aux(w, 0, sizeof(trace),
			       SY_AUX_FLAG_CORESIGHT_RAW |
				       (c ? SY_AUX_FLAG_TRUNCATED : 0),
			       &etm, &sid));
		memset(&at, 0, sizeof(at));
		at.offset = 0;
		at.reference = 0xabc0 + (uint64_t)c;
		at.idx = (uint32_t)c;
		at.tid = 42;
		at.cpu = (uint32_t)c;
		T_OK(sy_pw_auxtrace(w, &at, trace, sizeof(trace)));
	}
	{
		struct sy_pw_auxtrace_error e;

		memset(&e, 0, sizeof(e));
		e.type = 1;	/* PERF_AUXTRACE_ERROR_ITRACE */
		e.code = 6;
		e.cpu = 1;
		e.pid = 42;
		e.tid = 42;
		e.fmt = 1;
		e.ip = 0x401000;
		e.time = 2500;
		e.msg = "Synthetic error";
		T_OK(sy_pw_auxtrace_error(w, &e));
	}
	T_OK(sy_pw_task(w, SY_REC_EXIT, 42, 1, 42, 1, 9000, &etm, &sid));
	T_OK(sy_pw_finished_round(w));
	t_write(w, file);
	sy_pw_free(w);
}

static void t_expect_etm_common(const char *out, int nsamples)
{
	const struct t_count exp[] = {
		{ "COMM", 1 },		{ "EXIT", 1 },
		{ "SAMPLE", nsamples }, { "AUX", 2 },
		{ "ITRACE_START", 2 },	{ "ATTR", 2 }, /* cs_etm's synthesized */
		{ "FINISHED_ROUND", 1 }, { "AUXTRACE_INFO", 1 },
		{ "AUXTRACE", 2 },	{ "FINISHED_INIT", 1 },
		{ "AUXTRACE_ERROR", 1 },
	};

	t_expect_stats(out, exp, SY_ARRAY_SIZE(exp));
	t_expect_line(out, "PERF_RECORD_AUXTRACE_INFO type: 3");
	t_expect_line(out, "TRCTRACEIDR\t\t       12\n");
	/* size is the payload padded to 8 */
	t_expect_line(out, "PERF_RECORD_AUXTRACE size: 0x10  offset: 0  ref: 0xabc0  "
			   "idx: 0  tid: 42  cpu: 0\n");
	t_expect_line(out, "PERF_RECORD_AUXTRACE size: 0x10  offset: 0  ref: 0xabc1  "
			   "idx: 1  tid: 42  cpu: 1\n");
	t_expect_line(out, "PERF_RECORD_AUX offset: 0 size: 0xd flags: 0x100 []");
	t_expect_line(out, "PERF_RECORD_AUX offset: 0 size: 0xd flags: 0x101 [T]");
	t_expect_line(out, "PERF_RECORD_ITRACE_START pid: 42 tid: 42");
}

Test(perf_writer, auxtrace_index_splits_cs_etm_buffers)
{
	const char *file = t_path("etm.data");
	char *out;

	sy_test_require_tool("perf");
	t_etm_file(file, SY_PW_INDEX_AUTO, 0);
	out = t_dump(file, 0);
	t_expect_etm_common(out, 6);
	/* cs_etm queues AUXTRACE buffers through the index and cuts them at
	 * the AUX records (13 bytes, not the padded 16): wrong offsets or
	 * sizes in the index make it fail instead */
	cr_expect_eq(t_count_lines(out, "CoreSight ETMV4I Trace data: size 0xd bytes"),
		     2, "%s", out);
	cr_expect_eq(t_count_lines(out, "I_ASYNC : Alignment Synchronisation."),
		     2, "%s", out);
	cr_expect_eq(t_count_lines(out, "I_TRACE_ON : Trace On."), 2);
	cr_expect(!strstr(out, "failed to process"), "%s", out);
	free(out);

	/* perf script decodes through the index too, and prints the
	 * recorded AUXTRACE_ERROR */
	out = t_run(NULL, T_PERF " script --itrace=e -i '%s'", file);
	t_expect_line(out, " instruction trace error type 1 time 0.000002500 "
			   "cpu 1 pid 42 tid 42 ip 0x401000 code 6: "
			   "Synthetic error\n");
	free(out);
}

Test(perf_writer, auxtrace_without_index_is_streamed)
{
	const char *file = t_path("etm-noidx.data");
	char *out;

	sy_test_require_tool("perf");
	t_etm_file(file, SY_PW_INDEX_NONE, 0);
	out = t_dump(file, 0);
	t_expect_etm_common(out, 6);
	/* no index: whole buffers, in file order */
	cr_expect_eq(t_count_lines(out, "CoreSight ETMV4I Trace data: size 0x10 bytes"),
		     2, "%s", out);
	cr_expect_eq(t_count_lines(out, "size 0xd bytes"), 0);
	free(out);

	out = t_run(NULL, T_PERF " report --header-only -i '%s'", file);
	cr_expect(!strstr(out, "contains AUX area data"), "%s", out);
	free(out);
}

Test(perf_writer, auxtrace_index_simpleperf_layout_rejected_by_perf)
{
	const char *file = t_path("etm-sp.data");
	char *out;

	sy_test_require_tool("perf");
	t_etm_file(file, SY_PW_INDEX_SIMPLEPERF, 0);
	/* perf reads the first offset as the entry count */
	out = t_dump(file, 0);
	t_expect_line(out, "Failed to process auxtrace index");
	free(out);
}

/* A damaged index must be noticed by perf: proves the test would catch a
 * writer that got the offsets wrong. */
Test(perf_writer, auxtrace_index_corruption_detected_by_perf)
{
	const char *file = t_path("etm-bad.data");
	uint8_t *b;
	size_t len, i, nset = 0, pos = 0;
	uint64_t feat_off;
	char *out;

	sy_test_require_tool("perf");
	t_etm_file(file, SY_PW_INDEX_AUTO, 0);
	b = sy_test_read_file(file, &len);
	cr_assert(b);
	feat_off = sy_le64(b + 40) + sy_le64(b + 48);
	for (i = 0; i < SY_FEAT_AUXTRACE; i++)
		nset += (sy_le64(b + 72) >> i) & 1;
	cr_assert((sy_le64(b + 72) >> SY_FEAT_AUXTRACE) & 1);
	pos = (size_t)sy_le64(b + feat_off + 16 * nset);
	cr_assert_eq(sy_le64(b + pos), 2, "index count");
	/* the first entry must point at an AUXTRACE record of size 48 */
	cr_assert_eq(sy_le32(b + sy_le64(b + pos + 8)), SY_REC_AUXTRACE);
	cr_assert_eq(sy_le64(b + pos + 16), 48);
	sy_put64(b + pos + 8, sy_le64(b + pos + 8) + 8);
	cr_assert_eq(sy_test_write_file(file, b, len), 0);
	free(b);
	out = t_dump(file, 0);
	t_expect_line(out, "failed to process type: 70");
	cr_expect_eq(t_count_lines(out, "size 0xd bytes"), 0);
	free(out);
}

Test(perf_writer, auxtrace_index_amid_compressed_records)
{
	const char *file = t_path("etm-z.data");
	char *out;

	sy_test_require_tool("perf");
	t_etm_file(file, SY_PW_INDEX_AUTO, 1);
	out = t_dump(file, 0);
	t_expect_line(out, " COMPRESSED events: ");
	t_expect_line(out, " SAMPLE events:          6");
	t_expect_line(out, " AUXTRACE events:          2");
	cr_expect_eq(t_count_lines(out, "CoreSight ETMV4I Trace data: size 0xd bytes"),
		     2, "%s", out);
	cr_expect_eq(t_count_lines(out, "I_ASYNC : Alignment Synchronisation."),
		     2, "%s", out);
	cr_expect(!strstr(out, "failed to process"), "%s", out);
	free(out);
}

/* ARM SPE, streamed in pipe mode: the payload follows its record. */
Test(perf_writer, auxtrace_in_pipe_mode)
{
	const char *file = t_path("spe-pipe.data");
	struct sy_pw_config cfg = { 0 };
	struct sy_perf_attr a = t_attr();
	struct sy_sample sid = t_sid(2, 1000);
	static const uint64_t priv[2] = { 10, 1 }; /* PMU type, per-cpu */
	static const uint8_t pad[5] = { 0, 0, 0, 0, 0 }; /* SPE PAD packets */
	struct sy_pw_auxtrace at = { 0x40, 0x77, 0, 43, 2 };
	struct sy_pw_auxtrace_error e;
	struct sy_pw *w;
	char *out;

	sy_test_require_tool("perf");
	cfg.pipe = 1;
	w = t_writer(&cfg);
	T_OK(sy_pw_add_attr(w, &a));
	T_OK(sy_pw_auxtrace_info(w, SY_AUXTRACE_ARM_SPE, priv, 2));
	T_OK(sy_pw_aux(w, 0x40, 5, SY_AUX_FLAG_PARTIAL, &a, &sid));
	T_OK(sy_pw_auxtrace(w, &at, pad, sizeof(pad)));
	T_OK(sy_pw_aux_output_hw_id(w, 0x100000012ULL, &a, &sid));
	memset(&e, 0, sizeof(e));
	e.type = 1;
	e.code = 6;
	e.cpu = 2;
	e.pid = 42;
	e.tid = 43;
	e.fmt = 1;
	e.ip = 0x401000;
	e.time = 1500;
	e.msg = "Synthetic error";
	T_OK(sy_pw_auxtrace_error(w, &e));
	t_samples(w, &a, 1);
	t_write(w, file);
	sy_pw_free(w);

	out = t_dump(file, 1);
	{
		const struct t_count exp[] = {
			{ "SAMPLE", 1 },	  { "AUX", 1 },
			{ "AUX_OUTPUT_HW_ID", 1 }, { "ATTR", 1 },
			{ "AUXTRACE_INFO", 1 },	  { "AUXTRACE", 1 },
			{ "AUXTRACE_ERROR", 1 },  { "FEATURE", 1 },
		};
		t_expect_stats(out, exp, SY_ARRAY_SIZE(exp));
	}
	t_expect_line(out, "PERF_RECORD_AUXTRACE size: 0x8  offset: 0x40  ref: 0x77  "
			   "idx: 0  tid: 43  cpu: 2\n");
	t_expect_line(out, "ARM SPE data: size 0x8 bytes");
	t_expect_line(out, "PERF_RECORD_AUX offset: 0x40 size: 0x5 flags: 0x4 [P]");
	t_expect_line(out, "PERF_RECORD_AUX_OUTPUT_HW_ID hw_id: 0x100000012");
	t_expect_line(out, "PERF_RECORD_AUXTRACE_ERROR: unhandled!");
	free(out);
}

/* --- Output and API contract ---------------------------------------------------- */

Test(perf_writer, write_file_is_atomic)
{
	const char *file = t_path("atomic.data");
	struct sy_perf_attr a = t_attr();
	struct sy_pw *w;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int n = 0, err;

	w = t_writer(NULL);
	T_OK(sy_pw_add_attr(w, &a));
	t_samples(w, &a, 1);
	cr_assert_eq(sy_test_write_file(file, "old", 3), 0);
	t_write(w, file);
	cr_assert_eq(stat(file, &st), 0);
	cr_expect_gt(st.st_size, 104);
	d = opendir(g_dir);
	cr_assert(d);
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	cr_expect_eq(n, 1, "temporary file left behind");
	err = sy_pw_write_file(w, t_path("no/such/dir/x.data"));
	cr_expect_eq(err, -SY_E_IO);
	/* finished: nothing may be added */
	cr_expect_eq(sy_pw_finished_round(w), -SY_E_INVALID);
	cr_expect_eq(sy_pw_add_attr(w, &a), -SY_E_INVALID);
	sy_pw_free(w);
}

Test(perf_writer, api_contract)
{
	struct sy_pw_config cfg = { 0 };
	struct sy_perf_attr a = t_attr(), b = t_attr();
	static uint8_t big[70000];
	struct sy_pw *w = NULL;

	cr_expect_eq(sy_pw_alloc(NULL, NULL), -SY_E_INVALID);
	cfg.attr_size = 100;	/* not a multiple of 8 */
	cr_expect_eq(sy_pw_alloc(&w, &cfg), -SY_E_INVALID);
	cfg.attr_size = 0;
	cfg.compress = 82;
	cr_expect_eq(sy_pw_alloc(&w, &cfg), -SY_E_INVALID);
	cfg.compress = SY_REC_COMPRESSED;
	cfg.comp_chain = 1;
	cfg.comp_batch = 1 << 20;	/* more than perf's mmap_len */
	cr_expect_eq(sy_pw_alloc(&w, &cfg), -SY_E_INVALID);
	cfg.comp_chain = 0;
	cfg.comp_max_payload = 100;	/* below 128 */
	cr_expect_eq(sy_pw_alloc(&w, &cfg), -SY_E_INVALID);
	cr_expect_null(w);
	sy_pw_free(NULL);

	w = t_writer(NULL);
	cr_expect_eq(sy_pw_add_attr(w, &a), 0);
	b.size = SY_ATTR_SIZE_VER8;	/* file mode: one stride for all */
	cr_expect_eq(sy_pw_add_attr(w, &b), -SY_E_INVALID);
	cr_expect_eq(sy_pw_feat_string(w, SY_FEAT_NRCPUS, "x"), -SY_E_INVALID);
	cr_expect_eq(sy_pw_record(w, SY_REC_AUXTRACE, 0, NULL, 0),
		     -SY_E_INVALID);
	cr_expect_eq(sy_pw_record(w, 200, 0, big, sizeof(big)), -SY_E_LIMIT);
	cr_expect_eq(sy_pw_set_compress(w, 1), -SY_E_INVALID);
	cr_expect_eq(sy_pw_record(w, 200, 0, big, 16), 0);
	sy_pw_free(w);
}
