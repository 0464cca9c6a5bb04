/* The Intel PT fast path (src/decode/pt_walk.h) against libipt's block
 * decoder on recordings: every generated PT fixture
 * (tests/fixtures/generated/pt-*.data) and the real quipper captures in
 * ../shared/fixtures/real/quipper-intel-pt, decoded through the whole
 * session once with each (--decoder fast / full).  The listing of every
 * decoder item (kind, branch kind, from, to, code, exc, instruction count,
 * trace offset, time) and of every window (status, reason, counts, branch
 * stack, placed samples) must be identical, at one and three threads, with
 * the default stream slices and with one slice per AUX record.  The
 * counters show that the fast path really decoded: every fixture has
 * units it finished, and only the fixtures whose trace cannot all be
 * decoded (damaged bytes, code that cannot be read) hand units over.
 *
 * The scaled recordings get the same comparison through the CLI in
 * tests/e2e/t_pt_fastpath.sh, random and mutated streams in
 * tests/fuzz/fuzz_pt_fastpath.c.
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
#define REAL "fixtures/real/quipper-intel-pt"

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

/* Decodes @path with @dec; everything it says goes to r->text: every
 * window with its decoder items, then, so that no item escapes the
 * comparison (items of trace no pause sample owns are in no window),
 * every stretch as a window of its own (the whole-trace mode). */
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

struct totals {
	uint64_t fast_units, full_units, fallbacks, insns, items, recordings;
};

static uint64_t count_items(const char *text)
{
	uint64_t n = 0;

	for (const char *p = text; (p = strstr(p, "  item ")); p++)
		n++;
	return n;
}

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
		if (fast.len != full.len ||
		    memcmp(fast.text, full.text, fast.len) != 0) {
			sy_test_first_diff(fast.text, "fast", full.text, "full",
					   why, sizeof(why));
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
			t->items += count_items(fast.text);
			t->recordings++;
			fallbacks = fast.sum.fallbacks;
		}
		free(fast.text);
		free(full.text);
	}
	return fallbacks;
}

/* Fixtures whose trace holds what the fast path hands over: damaged
 * bytes, and code written at run time that no file holds (libipt's
 * -pte_nomap, a decode error). */
static int may_fall_back(const char *name)
{
	return strstr(name, "damage") || strstr(name, "anon");
}

Test(pt_fastpath, generated_fixtures_equal_block_decoder, .timeout = 900)
{
	struct totals t = { 0 };
	struct dirent *de;
	DIR *dir = opendir(GEN);
	char path[600];

	cr_assert_not_null(dir);
	while ((de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		struct totals one = { 0 };
		uint64_t fb;

		if (n < 6 || strcmp(de->d_name + n - 5, ".data") ||
		    strncmp(de->d_name, "pt-", 3))
			continue;
		snprintf(path, sizeof(path), GEN "/%s", de->d_name);
		fb = compare(path, ".", &one);
		if (!may_fall_back(de->d_name)) {
			cr_assert_eq(fb, 0, "%s: %" PRIu64 " fallbacks", path,
				     fb);
			/* the fast path did decode this recording */
			cr_assert_gt(one.fast_units, 0, "%s", path);
		}
		t.fast_units += one.fast_units;
		t.full_units += one.full_units;
		t.fallbacks += one.fallbacks;
		t.insns += one.insns;
		t.items += one.items;
		t.recordings++;
	}
	closedir(dir);
	cr_assert_geq(t.recordings, 30u);
	cr_assert_gt(t.insns, 50000u);
	cr_assert_gt(t.items, 10000u);
	cr_log_info("%" PRIu64 " recordings, %" PRIu64 " items: %" PRIu64
		    " units fast, %" PRIu64 " handed over",
		    t.recordings, t.items, t.fast_units, t.fallbacks);
}

/* The quipper captures' code is not in ../shared: every window's first
 * block is a -pte_nomap error, which the fast path hands over.  The
 * items still must be the block decoder's. */
Test(pt_fastpath, real_captures_equal_block_decoder, .timeout = 300)
{
	static const char *const names[] = {
		"perf.data.intel_pt-4.14",
		"perf.data.piped.intel_pt-4.14",
	};
	struct totals t = { 0 };
	char path[1200];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", sy_test_shared_path(REAL),
			 names[i]);
		sy_test_require_path(path);
		compare(path, "", &t);
	}
	cr_assert_gt(t.items, 10u);
}
