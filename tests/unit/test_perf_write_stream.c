/* Streaming perf.data output (sy_pw_stream): the bytes a streamed writer
 * leaves in a file or a pipe are exactly those of the in-memory builder
 * (which test_perf_writer proves against perf 6.1), whatever the size, the
 * layout and compression; perf 6.1 reads the streamed file; memory is not
 * the file's size; misuse and write errors are reported, not written. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sy_bytes.h"
#include "sy_perf_writer.h"
#include "sy_test.h"

static char g_dir[4096];

static void t_setup(void)
{
	snprintf(g_dir, sizeof(g_dir), "%s", sy_test_mkdtemp());
}

static void t_teardown(void)
{
	sy_test_rmtree(g_dir);
}

TestSuite(perf_write_stream, .init = t_setup, .fini = t_teardown,
	  .timeout = 300);

struct shape {
	int pipe;
	uint32_t compress;
	uint32_t nr_samples;
	int auxtrace;		/* AUXTRACE records (file mode: index) */
};

static const uint64_t g_ids[2] = { 7, 8 };

static void attr_init(struct sy_perf_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = 0; /* PERF_TYPE_HARDWARE */
	a->config = 0;
	a->sample_period = 1000;
	a->sample_type = SY_SAMPLE_IDENTIFIER | SY_SAMPLE_IP | SY_SAMPLE_TID |
			 SY_SAMPLE_TIME | SY_SAMPLE_CALLCHAIN |
			 SY_SAMPLE_BRANCH_STACK;
	/* user, any, hw_index */
	a->branch_sample_type = 1 | (1 << 3) | SY_BRANCH_HW_INDEX;
	a->flags = 1ULL << SY_ATTR_FLAG_SAMPLE_ID_ALL |
		   1ULL << SY_ATTR_FLAG_MMAP2 | 1ULL << SY_ATTR_FLAG_COMM |
		   1ULL << SY_ATTR_FLAG_EXCLUDE_KERNEL;
	a->ids = g_ids;
	a->nr_ids = 2;
	a->name = "cycles:u";
}

/* Writes the same content whatever the destination. */
static void fill(struct sy_pw *w, const struct shape *sh)
{
	struct sy_perf_attr a;
	struct sy_sample s, sid;
	struct sy_pw_mmap m;
	uint64_t chain[4] = { SY_CONTEXT_USER, 0x401000, 0x402000,
			      0x403000 };
	uint8_t br[64 * 24];
	uint8_t aux[200];

	attr_init(&a);
	cr_assert_geq(sy_pw_add_attr(w, &a), 0);
	cr_assert_eq(sy_pw_feat_string(w, SY_FEAT_HOSTNAME, "host"), 0);
	cr_assert_eq(sy_pw_feat_string(w, SY_FEAT_OSRELEASE, "6.1.0"), 0);
	cr_assert_eq(sy_pw_feat_string(w, SY_FEAT_ARCH, "x86_64"), 0);
	cr_assert_eq(sy_pw_feat_nrcpus(w, 2, 2), 0);
	cr_assert_eq(sy_pw_feat_event_desc(w), 0);
	memset(&sid, 0, sizeof(sid));
	sid.pid = sid.tid = 42;
	sid.id = 7;
	cr_assert_eq(sy_pw_comm(w, SY_MISC_COMM_EXEC, 42, 42, "prog", &a,
				&sid), 0);
	memset(&m, 0, sizeof(m));
	m.misc = SY_MISC_USER;
	m.pid = m.tid = 42;
	m.addr = 0x400000;
	m.len = 0x10000;
	m.prot = 5;
	m.flags = 2;
	m.filename = "/bin/prog";
	cr_assert_eq(sy_pw_mmap2(w, &m, &a, &sid), 0);
	for (uint32_t i = 0; i < sh->nr_samples; i++) {
		uint32_t nr = 1 + i % 64;

		for (uint32_t k = 0; k < nr; k++) {
			sy_put64(br + 24 * k, 0x401000 + 4 * ((i + k) % 997));
			sy_put64(br + 24 * k + 8, 0x402000 + 8 * k);
			sy_put64(br + 24 * k + 16, 2); /* predicted */
		}
		memset(&s, 0, sizeof(s));
		s.id = 7;
		s.ip = 0x401000 + 4 * (i % 997);
		s.pid = s.tid = 42;
		s.time = 1000 + i;
		s.callchain_nr = 4;
		s.callchain = (const uint8_t *)chain;
		s.branch_nr = nr;
		s.branch_has_hw_idx = 1;
		s.branch_hw_idx = UINT64_MAX;
		s.branches = br;
		cr_assert_eq(sy_pw_sample(w, &a, SY_MISC_USER, &s), 0);
		if (sh->auxtrace && i % 5000 == 0) {
			struct sy_pw_auxtrace at = { .offset = i, .cpu = 0 };

			memset(aux, (int)(i & 0xff), sizeof(aux));
			cr_assert_eq(sy_pw_auxtrace(w, &at, aux, sizeof(aux)),
				     0);
		}
		if (i % 1000 == 999)
			cr_assert_eq(sy_pw_finished_round(w), 0);
	}
}

static uint8_t *in_memory(const struct shape *sh, size_t *len)
{
	struct sy_pw_config cfg = { .pipe = sh->pipe,
				    .compress = sh->compress };
	struct sy_pw *w;
	const uint8_t *p;
	uint8_t *copy;

	cr_assert_eq(sy_pw_alloc(&w, &cfg), 0);
	fill(w, sh);
	cr_assert_eq(sy_pw_output(w, &p, len), 0);
	copy = malloc(*len);
	memcpy(copy, p, *len);
	sy_pw_free(w);
	return copy;
}

static void streamed_to(const struct shape *sh, int fd)
{
	struct sy_pw_config cfg = { .pipe = sh->pipe,
				    .compress = sh->compress };
	struct sy_pw *w;
	const uint8_t *p;
	size_t len;

	cr_assert_eq(sy_pw_alloc(&w, &cfg), 0);
	cr_assert_eq(sy_pw_stream(w, fd), 0);
	fill(w, sh);
	cr_assert_eq(sy_pw_finish(w), 0);
	/* the bytes are in the file, not in memory */
	cr_assert_eq(sy_pw_output(w, &p, &len), -SY_E_INVALID);
	sy_pw_free(w);
}

static void same_bytes(const struct shape *sh, const char *name)
{
	char path[4200];
	size_t want_len, got_len;
	uint8_t *want, *got;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", g_dir, name);
	want = in_memory(sh, &want_len);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	streamed_to(sh, fd);
	close(fd);
	got = sy_test_read_file(path, &got_len);
	cr_assert_not_null(got);
	cr_assert_eq(got_len, want_len, "%s: %zu bytes streamed, %zu built",
		     name, got_len, want_len);
	cr_assert(!memcmp(got, want, want_len), "%s: bytes differ", name);
	free(got);
	free(want);
}

/* Over the 1 MiB chunk several times: samples of up to 64 branches. */
Test(perf_write_stream, file_mode_equals_the_builder)
{
	struct shape sh = { .nr_samples = 30000, .auxtrace = 1 };

	same_bytes(&sh, "file.data");
}

Test(perf_write_stream, compressed_file_equals_the_builder)
{
	struct shape sh = { .compress = SY_REC_COMPRESSED,
			    .nr_samples = 30000, .auxtrace = 1 };

	same_bytes(&sh, "zstd.data");
}

Test(perf_write_stream, pipe_mode_equals_the_builder)
{
	struct shape sh = { .pipe = 1, .nr_samples = 30000 };

	same_bytes(&sh, "pipe.data");
}

Test(perf_write_stream, small_and_empty_files)
{
	struct shape one = { .nr_samples = 1 };
	struct shape none = { .nr_samples = 0 };
	struct shape pnone = { .pipe = 1, .nr_samples = 0 };

	same_bytes(&one, "one.data");
	same_bytes(&none, "none.data");
	same_bytes(&pnone, "pnone.data");
}

/* Through a real pipe, read by perf 6.1 at the other end: a pipe cannot
 * seek, so this is what `convert -o -` relies on. */
Test(perf_write_stream, pipe_to_perf)
{
	struct shape sh = { .pipe = 1, .nr_samples = 2000 };
	char cmd[8400], *out = NULL;
	int fds[2], st;
	pid_t pid;

	sy_test_require_tool("perf");
	snprintf(cmd, sizeof(cmd),
		 "perf --no-pager script -i - -F ip,brstack > '%s/script.txt' "
		 "2> '%s/script.err'",
		 g_dir, g_dir);
	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		close(fds[1]);
		dup2(fds[0], 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	streamed_to(&sh, fds[1]);
	close(fds[1]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "perf failed");
	snprintf(cmd, sizeof(cmd), "grep -c 0x '%s/script.txt'", g_dir);
	cr_assert_eq(sy_test_run(cmd, &out, NULL), 0);
	cr_assert_eq(atoi(out), 2000, "perf printed %s samples", out);
	free(out);
}

/* Memory stays far below the file's size: 200k samples of up to 64
 * branches make a file of about 150 MB. */
Test(perf_write_stream, memory_does_not_grow_with_the_file)
{
	struct shape sh = { .nr_samples = 200000 };
	struct rusage ru;
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/big.data", g_dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	streamed_to(&sh, fd);
	cr_assert_gt(lseek(fd, 0, SEEK_END), (off_t)100 << 20);
	close(fd);
	getrusage(RUSAGE_SELF, &ru);
	cr_assert_lt(ru.ru_maxrss, 64 * 1024, "peak RSS %ld KiB",
		     ru.ru_maxrss);
}

Test(perf_write_stream, misuse_and_write_errors)
{
	struct sy_pw *w;
	struct sy_perf_attr a;
	struct shape sh = { .nr_samples = 100000 };
	int fds[2], ro;
	char path[4200];

	attr_init(&a);
	/* no attr once records flow: the head's size is fixed */
	cr_assert_eq(sy_pw_alloc(&w, NULL), 0);
	cr_assert_eq(sy_pw_stream(w, -1), -SY_E_INVALID);
	snprintf(path, sizeof(path), "%s/misuse.data", g_dir);
	ro = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	cr_assert_eq(sy_pw_stream(w, ro), 0);
	cr_assert_eq(sy_pw_stream(w, ro), -SY_E_INVALID);
	cr_assert_geq(sy_pw_add_attr(w, &a), 0);
	cr_assert_eq(sy_pw_finished_round(w), 0);
	cr_assert_eq(sy_pw_add_attr(w, &a), -SY_E_INVALID);
	sy_pw_free(w);
	close(ro);

	/* a reader that went away: EPIPE, sticky, nothing crashes */
	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(pipe(fds), 0);
	close(fds[0]);
	cr_assert_eq(sy_pw_alloc(&w, &(struct sy_pw_config){ .pipe = 1 }), 0);
	cr_assert_eq(sy_pw_stream(w, fds[1]), 0);
	cr_assert_geq(sy_pw_add_attr(w, &a), 0);
	int err = 0;
	for (uint32_t i = 0; i < sh.nr_samples && !err; i++)
		err = sy_pw_finished_round(w);
	if (!err)
		err = sy_pw_finish(w);
	cr_assert_eq(err, -SY_E_IO);
	cr_assert_eq(sy_pw_stream_errno(w), EPIPE);
	cr_assert_eq(sy_pw_finished_round(w), -SY_E_IO, "errors are sticky");
	sy_pw_free(w);
	close(fds[1]);
}
