/* libFuzzer target: the perf.data reader over arbitrary bytes, mapped and
 * streamed through a pipe, with every record body, sample and AUXTRACE_INFO
 * parsed the way dump and convert parse them. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "sy_auxtrace.h"
#include "sy_perf_reader.h"
#include "sy_perf_event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sy_fuzz_walk(struct sy_perf_reader *r)
{
	struct sy_record rec;
	struct sy_diag d;
	int n = 0;

	while (sy_perf_next(r, &rec) == 0 && n++ < 100000) {
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
		if (rec.type == SY_REC_AUXTRACE && rec.aux_size) {
			volatile uint8_t x = rec.aux[0] ^ rec.aux[rec.aux_size - 1];
			(void)x;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sy_perf_reader *r;
	int fds[2];

	if (sy_perf_open_mem(&r, data, size, "fuzz", NULL) == 0) {
		sy_fuzz_walk(r);
		sy_perf_close(r);
	}
	/* the streaming path: everything fits in the pipe buffer */
	if (size <= 60000 && pipe(fds) == 0) {
		fcntl(fds[1], F_SETPIPE_SZ, 65536);
		if (write(fds[1], data, size) == (ssize_t)size) {
			close(fds[1]);
			fds[1] = -1;
			if (sy_perf_open_fd(&r, fds[0], "fuzz-pipe", NULL) == 0) {
				sy_fuzz_walk(r);
				sy_perf_close(r);
			}
		}
		if (fds[1] >= 0)
			close(fds[1]);
		close(fds[0]);
	}
	return 0;
}
