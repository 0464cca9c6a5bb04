/* libFuzzer target: the perf.data reader over arbitrary bytes, mapped and
 * streamed through a pipe, with every record body, sample and AUXTRACE_INFO
 * parsed the way dump and convert parse them; and a file read with pread
 * (sy_perf_skim) against the same bytes mapped: the same records, byte for
 * byte, and the same end, or an abort. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sy_auxtrace.h"
#include "sy_perf_reader.h"
#include "sy_perf_event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sy_fuzz_mix(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 0x100000001b3ull;
}

/* Walks @r; returns a digest of every record and of how the walk ended. */
static uint64_t sy_fuzz_walk(struct sy_perf_reader *r)
{
	struct sy_record rec;
	struct sy_diag d;
	uint64_t h = 0xcbf29ce484222325ull;
	int n = 0, err;

	while ((err = sy_perf_next(r, &rec)) == 0 && n++ < 100000) {
		uint64_t f[4] = { rec.type, rec.offset, rec.size,
				  rec.aux_size };

		sy_fuzz_mix(&h, f, sizeof(f));
		sy_fuzz_mix(&h, rec.data, rec.size);
		if (rec.aux_size)
			sy_fuzz_mix(&h, rec.aux, rec.aux_size);
		if (rec.type == SY_REC_SAMPLE && rec.attr) {
			struct sy_sample s;

			if (!sy_sample_parse(rec.attr, rec.data, rec.size, &s,
					     &d, rec.offset)) {
				volatile uint64_t sink = 0;
				for (uint64_t i = 0; i < s.callchain_nr; i++)
					sink += sy_sample_callchain(&s, i);
				(void)sink;
			}
			continue;
		}
		struct sy_event ev;
		if (sy_event_parse(&rec, &ev, &d))
			continue;
		if (rec.type == SY_REC_AUXTRACE_INFO) {
			struct sy_auxtrace_info info;

			if (!sy_auxtrace_info_parse(&info, &ev.u.auxtrace_info,
						    rec.offset, &d))
				sy_auxtrace_info_fini(&info);
		}
	}
	{
		const struct sy_diag *e = sy_perf_diag(r);
		uint64_t f[2] = { (uint64_t)err, e->offset };

		sy_fuzz_mix(&h, f, sizeof(f));
		sy_fuzz_mix(&h, e->msg, strlen(e->msg));
	}
	return h;
}

/* The same bytes as a file, mapped and walked, then skimmed and walked. */
static void sy_fuzz_skim(const uint8_t *data, size_t size)
{
	struct sy_perf_reader *r;
	uint64_t mapped, skimmed;
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return;
	if (!size || write(fd, data, size) != (ssize_t)size ||
	    lseek(fd, 0, SEEK_SET) != 0 ||
	    sy_perf_open_fd(&r, fd, "fuzz-file", NULL)) {
		close(fd);
		return;
	}
	mapped = sy_fuzz_walk(r);
	sy_perf_close(r);
	if (sy_perf_open_fd(&r, fd, "fuzz-file", NULL))
		abort();	/* it opened a moment ago */
	if (sy_perf_skim(r, 1))
		abort();
	skimmed = sy_fuzz_walk(r);
	sy_perf_close(r);
	close(fd);
	if (skimmed != mapped)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sy_perf_reader *r;
	int fds[2];

	if (sy_perf_open_mem(&r, data, size, "fuzz", NULL) == 0) {
		(void)sy_fuzz_walk(r);
		sy_perf_close(r);
	}
	sy_fuzz_skim(data, size);
	/* the streaming path: everything fits in the pipe buffer */
	if (size <= 60000 && pipe(fds) == 0) {
		fcntl(fds[1], F_SETPIPE_SZ, 65536);
		if (write(fds[1], data, size) == (ssize_t)size) {
			close(fds[1]);
			fds[1] = -1;
			if (sy_perf_open_fd(&r, fds[0], "fuzz-pipe", NULL) == 0) {
				(void)sy_fuzz_walk(r);
				sy_perf_close(r);
			}
		}
		if (fds[1] >= 0)
			close(fds[1]);
		close(fds[0]);
	}
	return 0;
}
