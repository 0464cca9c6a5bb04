/* The ETM fast path against OpenCSD's full decoder on recordings: every
 * generated ETM fixture (tests/fixtures/generated/ *.data) and every real
 * capture in ../shared/fixtures/real/simpleperf-etm/orig, decoded through
 * the whole session once with each (sy_session_opts.etm_decoder).  The
 * listing of every decoder item (kind, branch kind, from, to, code, exc,
 * instruction count, trace offset, time) and of every window (status,
 * reason, counts, branch stack, placed samples) must be identical, at one
 * and three threads, with the default stream slices and with one slice per
 * AUX record.  The counters show that the fast path really decoded: every
 * ETM recording has units it finished, and only the damaged fixtures may
 * hand units over to the full decoder.
 *
 * Synthetic streams (every ground-truth window, random bytes, bit flips)
 * and the OpenCSD snapshots get the same comparison in
 * tests/unit/test_etm_decode.c, whose every decode runs both ways.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sy_synth.h"
#include "sy_test.h"

#define GEN "tests/fixtures/generated"
#define REAL "fixtures/real/simpleperf-etm"

static int on_window(void *ctx, const struct sy_window *w)
{
	FILE *f = ctx;

	fprintf(f,
		"window %" PRIu64 " %s \"%s\" cpu %u %u/%u bytes %" PRIu64
		" insns %" PRIu64 " br %" PRIu64 " %#" PRIx64 "-%#" PRIx64
		" t %" PRIu64 "-%" PRIu64 " err %" PRIu64 " %d@%" PRIu64
		" unplaced %u\n",
		w->index, sy_status_name(w->status), w->reason, w->cpu, w->pid,
		w->tid, w->bytes, w->insns, w->branches, w->start_addr,
		w->end_addr, w->trace_start, w->trace_end, w->decode_errors,
		w->first_error, w->first_error_offset, w->unplaced);
	for (uint32_t i = 0; i < w->nr_stack; i++)
		fprintf(f, " %#" PRIx64 "->%#" PRIx64 "/%u", w->stack[i].from,
			w->stack[i].to, w->stack[i].kind);
	fputc('\n', f);
	for (uint32_t i = 0; i < w->nr_inner; i++) {
		const struct sy_inner_sample *in = &w->inner[i];

		fprintf(f, " inner %" PRIu64 " %#" PRIx64, in->time, in->ip);
		for (uint32_t k = 0; k < in->nr_stack; k++)
			fprintf(f, " %#" PRIx64 "->%#" PRIx64, in->stack[k].from,
				in->stack[k].to);
		fputc('\n', f);
	}
	if (w->items)
		fputs(w->items, f);
	return 0;
}

struct run {
	char *text;
	size_t len;
	struct sy_session_summary sum;
};

/* Decodes @path with @dec; everything it says goes to r->text: every
 * window with its decoder items, then, so that no item escapes the
 * comparison (items of trace no pause sample owns are in no window),
 * every stretch as a window of its own (the whole-trace mode). */
static void run_mode(const char *path, const char *symfs,
		     enum sy_etm_decoder dec, unsigned threads,
		     uint64_t unit_bytes, int whole, FILE *f,
		     struct sy_session_summary *sum);

static void run(const char *path, const char *symfs,
		enum sy_etm_decoder dec, unsigned threads, uint64_t unit_bytes,
		struct run *r)
{
	struct sy_session_summary whole;
	FILE *f = open_memstream(&r->text, &r->len);

	cr_assert_not_null(f);
	run_mode(path, symfs, dec, threads, unit_bytes, 0, f, &r->sum);
	run_mode(path, symfs, dec, threads, unit_bytes, 1, f, &whole);
	fclose(f);
}

static void run_mode(const char *path, const char *symfs,
		     enum sy_etm_decoder dec, unsigned threads,
		     uint64_t unit_bytes, int whole, FILE *f,
		     struct sy_session_summary *sum)
{
	struct sy_session_opts o;
	struct sy_session *s;
	struct sy_diag d = { 0 };
	int err;

	sy_session_opts_init(&o);
	o.input = path;
	o.images.symfs = symfs;
	o.images.buildid_dir = "";
	o.threads = threads;
	o.unit_bytes = unit_bytes;
	o.etm_decoder = dec;
	o.items = 1;
	o.whole_trace = whole;
	if (whole)
		o.depth = 0;
	err = sy_session_open(&s, &o, &d);
	cr_assert_eq(err, 0, "%s: %s", path, d.msg);
	if (!whole && !sy_session_has_pause(s)) {
		/* a plain trace recording: windows of the whole trace */
		sy_session_close(s);
		o.whole_trace = 1;
		cr_assert_eq(sy_session_open(&s, &o, &d), 0);
	}
	err = sy_session_run(s, on_window, f);
	fprintf(f, "run %d\n", err);
	*sum = *sy_session_summary(s);
	sy_session_close(s);
}

struct totals {
	uint64_t fast_units, full_units, fallbacks, insns, recordings;
};

/* Both decoders on @path in every configuration: identical listings.
 * Returns the fallbacks of the fast path. */
static uint64_t compare(const char *path, const char *symfs,
			struct totals *t)
{
	static const struct {
		unsigned threads;
		uint64_t unit_bytes;
	} cfg[] = { { 1, 0 }, { 3, 0 }, { 1, 1 } };
	uint64_t fallbacks = 0;

	for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		struct run fast, full;
		char why[400];

		run(path, symfs, SY_ETM_DECODER_AUTO, cfg[c].threads,
		    cfg[c].unit_bytes, &fast);
		run(path, symfs, SY_ETM_DECODER_FULL, cfg[c].threads,
		    cfg[c].unit_bytes, &full);
		if (fast.len != full.len || memcmp(fast.text, full.text,
						   fast.len) != 0) {
			sy_test_first_diff(fast.text, "fast", full.text, "full", why,
					   sizeof(why));
			cr_assert_fail("%s -j %u unit %" PRIu64 ": %s", path,
				       cfg[c].threads, cfg[c].unit_bytes, why);
		}
		cr_assert_eq(full.sum.fast_units, 0);
		cr_assert_eq(full.sum.fallbacks, 0);
		cr_assert_eq(fast.sum.fast_units + fast.sum.full_units,
			     full.sum.full_units, "%s: units", path);
		cr_assert_eq(fast.sum.full_units, fast.sum.fallbacks);
		if (c == 0) {
			t->fast_units += fast.sum.fast_units;
			t->full_units += fast.sum.full_units;
			t->fallbacks += fast.sum.fallbacks;
			t->insns += fast.sum.insns;
			t->recordings++;
			/* a job decoded again read code that was replaced
			 * for some of its windows the first time: there the
			 * fast path's guard must hand over */
			fallbacks = fast.sum.decoded_again ?
					    0 : fast.sum.fallbacks;
			/* the fast path did decode this recording; but where
			 * a job spans a replacement of code (ete-trbe-dlfx),
			 * its first decode reads the later code for the
			 * earlier windows, which the fast path's guard hands
			 * to the full decoder, and its windows come from the
			 * decode again in the earlier code (jobs.c) */
			cr_assert(fast.sum.fast_units > 0 ||
					  fast.sum.decoded_again > 0,
				  "%s", path);
			cr_assert_eq(fast.sum.decoded_again,
				     full.sum.decoded_again, "%s", path);
		}
		free(fast.text);
		free(full.text);
	}
	return fallbacks;
}

static int is_etm(const char *name)
{
	return strncmp(name, "etm", 3) == 0 || strncmp(name, "ete", 3) == 0 ||
	       strcmp(name, "demo-etm.data") == 0;
}

Test(etm_fastpath, generated_fixtures_equal_full_decode, .timeout = 600)
{
	struct totals t = { 0 };
	struct dirent *de;
	DIR *dir = opendir(GEN);
	char path[600];

	cr_assert_not_null(dir);
	while ((de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		uint64_t fb;

		if (n < 6 || strcmp(de->d_name + n - 5, ".data") ||
		    !is_etm(de->d_name))
			continue;
		snprintf(path, sizeof(path), GEN "/%s", de->d_name);
		fb = compare(path, ".", &t);
		/* only damaged trace may hold what the fast path gives up */
		if (!strstr(de->d_name, "damage"))
			cr_assert_eq(fb, 0, "%s: %" PRIu64 " fallbacks", path,
				     fb);
	}
	closedir(dir);
	cr_assert_geq(t.recordings, 25u);
	cr_assert_gt(t.insns, 50000u);
	cr_log_info("%" PRIu64 " recordings: %" PRIu64 " units fast, %" PRIu64
		    " handed over", t.recordings, t.fast_units, t.fallbacks);
}

Test(etm_fastpath, real_captures_equal_full_decode, .timeout = 300)
{
	static const char *const names[] = {
		"perf_etm.data",
		"perf_with_unformatted_trace.data",
		"perf_kernel.data",
		"perf_with_missing_aux_data.data",
	};
	struct totals t = { 0 };
	char path[1200], symfs[1024];

	snprintf(symfs, sizeof(symfs), "%s", sy_test_shared_path(REAL "/symfs"));
	sy_test_require_path(symfs);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s",
			 sy_test_shared_path(REAL "/orig"), names[i]);
		sy_test_require_path(path);
		if (i == 3) {
			/* AUX records without payload: nothing to decode */
			struct run a, b;

			run(path, symfs, SY_ETM_DECODER_AUTO, 1, 0, &a);
			run(path, symfs, SY_ETM_DECODER_FULL, 1, 0, &b);
			cr_assert(a.len == b.len &&
				  !memcmp(a.text, b.text, a.len));
			free(a.text);
			free(b.text);
			continue;
		}
		cr_assert_eq(compare(path, symfs, &t), 0, "%s", path);
	}
	cr_assert_gt(t.insns, 1000u);
}
