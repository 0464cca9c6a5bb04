/* Reader throughput.
 *   bench_reader gen FILE MB     writes a pause/resume-shaped recording of
 *                                about MB megabytes (samples with callchains,
 *                                AUX records, AUXTRACE chunks, sideband)
 *   bench_reader walk FILE       walks every record and parses every sample;
 *                                prints records/s and MB/s (best of 3) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sy_perf_reader.h"
#include "sy_perf_writer.h"

static double sy_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_gen(const char *path, unsigned mb)
{
	static uint64_t ids0[] = { 1 }, ids1[] = { 2 }, ids2[] = { 3 };
	struct sy_perf_attr a[3];
	struct sy_pw *w;
	struct sy_sample s;
	uint64_t chain[17];
	static uint8_t aux[32768];
	uint64_t target = (uint64_t)mb << 20, bytes = 0, t = 1000, auxoff = 0;

	memset(a, 0, sizeof(a));
	for (int i = 0; i < 3; i++) {
		a[i].sample_type = SY_SAMPLE_IDENTIFIER | SY_SAMPLE_IP |
				   SY_SAMPLE_TID | SY_SAMPLE_TIME |
				   SY_SAMPLE_CPU | SY_SAMPLE_PERIOD;
		a[i].flags = 1ULL << SY_ATTR_FLAG_SAMPLE_ID_ALL;
	}
	a[0].type = 8;
	a[0].aux_action = SY_AUX_ACTION_START_PAUSED;
	a[0].ids = ids0;
	a[1].aux_action = SY_AUX_ACTION_RESUME;
	a[1].ids = ids1;
	a[2].aux_action = SY_AUX_ACTION_PAUSE;
	a[2].sample_type |= SY_SAMPLE_CALLCHAIN;
	a[2].ids = ids2;
	for (int i = 0; i < 3; i++)
		a[i].nr_ids = 1;
	for (size_t i = 0; i < sizeof(aux); i++)
		aux[i] = (uint8_t)(i * 131);
	if (sy_pw_alloc(&w, NULL) || sy_pw_add_attr(w, &a[0]) < 0 ||
	    sy_pw_add_attr(w, &a[1]) < 0 || sy_pw_add_attr(w, &a[2]) < 0)
		return 1;
	/* perf needs an AUXTRACE_INFO before AUXTRACE records; ARM SPE's is
	 * the simplest (pmu type, per-cpu mmaps) */
	uint64_t spe[2] = { 8, 1 };
	sy_pw_auxtrace_info(w, SY_AUXTRACE_ARM_SPE, spe, 2);
	chain[0] = SY_CONTEXT_USER;
	for (int k = 1; k < 17; k++)
		chain[k] = 0x400000 + (uint64_t)k * 64;
	for (uint64_t n = 0; bytes < target; n++) {
		memset(&s, 0, sizeof(s));
		s.pid = s.tid = 100;
		s.cpu = (uint32_t)(n % 4);
		s.time = t++;
		s.ip = 0x400000 + (n % 4096) * 4;
		s.period = 1000;
		s.id = 2;
		sy_pw_sample(w, &a[1], SY_MISC_USER, &s);
		s.id = 3;
		s.time = t++;
		s.callchain = (const uint8_t *)chain;
		s.callchain_nr = 1 + n % 16;
		sy_pw_sample(w, &a[2], SY_MISC_USER, &s);
		bytes += 48 + 64 + s.callchain_nr * 8;
		if (n % 64 == 63) {
			s.id = 1;
			sy_pw_aux(w, auxoff, sizeof(aux) / 4, 0, &a[0], &s);
			struct sy_pw_auxtrace at = { .offset = auxoff, .cpu = s.cpu,
						     .idx = s.cpu };
			sy_pw_auxtrace(w, &at, aux, sizeof(aux) / 4);
			auxoff += sizeof(aux) / 4;
			sy_pw_finished_round(w);
			bytes += 64 + 48 + sizeof(aux) / 4 + 8;
		}
	}
	int err = sy_pw_write_file(w, path);
	sy_pw_free(w);
	if (err) {
		fprintf(stderr, "bench_reader: cannot write %s: %s\n", path,
			sy_errstr(err));
		return 1;
	}
	return 0;
}

static int bench_walk(const char *path)
{
	double best = 1e30;
	uint64_t nrec = 0, bytes = 0;

	for (int rep = 0; rep < 3; rep++) {
		struct sy_perf_reader *r;
		struct sy_record rec;
		struct sy_sample s;
		uint64_t sink = 0;
		double t0 = sy_now();

		if (sy_perf_open(&r, path, NULL))
			return 1;
		nrec = 0;
		while (sy_perf_next(r, &rec) == 0) {
			nrec++;
			if (rec.type == SY_REC_SAMPLE && rec.attr &&
			    !sy_sample_parse(rec.attr, rec.data, rec.size, &s,
					     NULL, 0))
				sink += s.ip + s.callchain_nr;
		}
		bytes = sy_perf_info(r)->file_size;
		sy_perf_close(r);
		double dt = sy_now() - t0;
		if (dt < best)
			best = dt;
		if (sink == 42)
			puts("");
	}
	printf("records %llu bytes %llu seconds %.4f records/s %.0f MB/s %.0f\n",
	       (unsigned long long)nrec, (unsigned long long)bytes, best,
	       (double)nrec / best, (double)bytes / best / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return bench_gen(argv[2], (unsigned)atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "walk"))
		return bench_walk(argv[2]);
	fprintf(stderr, "usage: bench_reader gen FILE MB | walk FILE\n");
	return 2;
}
