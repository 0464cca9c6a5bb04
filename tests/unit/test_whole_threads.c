/* Acceptance: per-CPU Intel PT without pause samples converts each stretch
 * in the thread that ran it (switches.h, the jobs' switch timelines).
 *
 * The inputs are the generated per-CPU PT fixtures whose trace is whole,
 * with aux_action cleared (tests/no-pause): the same trace, no pause or
 * resume sample, so the whole trace is converted and nothing but the
 * context switch records (ITRACE_START alone on one CPU) says which thread
 * each stretch is.  The oracle is the fixture's sidecar and the program
 * run it was generated from, never our decoder: every segment of every
 * window (truth indices of one thread's run) gives that thread's taken
 * branches.  Per thread, the branches of strobe-synth's windows (depth 0:
 * all of them) must be exactly those, and every window must be ok (or
 * empty: trace enabled while nothing ran) and carry its thread's process
 * id, whatever the thread count and however the stream is cut into jobs
 * (unit_bytes 1 cuts it at every PSB, where the thread comes from the
 * PSB+'s time).  perf 6.1 is the other oracle, in
 * tests/e2e/t_pt_whole_threads.sh. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_sidecar.h"
#include "fx_truth.h"
#include "sy_synth.h"
#include "sy_test.h"

#define GEN "tests/fixtures/generated"

TestSuite(whole_threads, .timeout = 300);

/* A taken branch of a thread. */
struct tbr {
	uint32_t tid;
	uint64_t from, to;
};

struct tbrs {
	struct tbr *v;
	size_t n, cap;
};

static void tbr_add(struct tbrs *l, uint32_t tid, uint64_t from, uint64_t to)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		cr_assert_not_null(l->v);
	}
	l->v[l->n++] = (struct tbr){ tid, from, to };
}

static int tbr_cmp(const void *a, const void *b)
{
	const struct tbr *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return 0;
}

/* The truth: every taken branch of every segment, as its thread's (the
 * system call is none: its successor is the next instruction, or where a
 * signal delivery went, which no user-only trace follows). */
static void truth_branches(const char *name, struct fx_sidecar *sc,
			   struct tbrs *out)
{
	char path[512], prog[256];
	struct fx_truth t;
	struct sy_diag d = { 0 };
	const char *base;
	uint64_t bias;

	snprintf(path, sizeof(path), GEN "/%s.truth", name);
	cr_assert_eq(fx_sidecar_load(sc, path, &d), 0, "%s: %s", path, d.msg);
	base = strrchr(sc->binary, '/');
	snprintf(prog, sizeof(prog), "%s", base ? base + 1 : sc->binary);
	snprintf(path, sizeof(path), "tests/fixtures/truth/%s.truth", prog);
	cr_assert_eq(fx_truth_load(&t, path, sc->binary, &d), 0, "%s: %s",
		     path, d.msg);
	bias = sc->load_base - sc->qemu_bias;
	for (size_t w = 0; w < sc->nwindows; w++) {
		const struct fx_sc_window *win = &sc->windows[w];

		/* nothing lost or damaged: every traced branch decodes */
		cr_assert(!win->has_lost &&
				  !(win->status & (FX_ST_DECODE_ERROR |
						   FX_ST_TRUNCATED)),
			  "%s window %zu: not a whole trace", name, w);
		for (size_t k = 0; k < win->nsegs; k++) {
			const struct fx_sc_seg *s = &win->segs[k];

			for (uint64_t i = s->start; i < s->end; i++) {
				const struct fx_insn *in = &t.insns[i];

				if (fx_insn_taken(in) &&
				    in->kind != SY_BR_SYSCALL)
					tbr_add(out, s->tid, in->pc + bias,
						in->next + bias);
			}
		}
	}
	fx_truth_fini(&t);
}

/* What a window is, for comparing runs: a stream cut into jobs gives the
 * windows of the stream decoded uncut. */
struct win {
	uint64_t tid, pid, status;	/* no padding: compared whole */
	uint64_t insns, branches, bytes;
};

struct got {
	const struct fx_sidecar *sc;
	struct tbrs br;
	size_t windows, bad_status, bad_pid;
	struct win *w;
	size_t nw;
};

static int on_window(void *ctx, const struct sy_window *w)
{
	struct got *g = ctx;
	uint32_t pid = UINT32_MAX;

	g->windows++;
	g->w = realloc(g->w, g->windows * sizeof(*g->w));
	cr_assert_not_null(g->w);
	g->w[g->nw++] = (struct win){ w->tid, w->pid, w->status, w->insns,
				      w->branches, w->bytes };
	/* empty: trace enabled while nothing ran (TSC + CBR alone) */
	if (w->status != SY_ST_OK && w->status != SY_ST_EMPTY) {
		cr_log_error("window %" PRIu64 " (cpu %u tid %u): %s", w->index,
			     w->cpu, w->tid, w->reason);
		g->bad_status++;
	}
	for (size_t i = 0; i < g->sc->nthreads; i++)
		if (g->sc->threads[i].tid == w->tid)
			pid = g->sc->threads[i].pid;
	if (w->pid != pid) {
		cr_log_error("window %" PRIu64 ": thread %u in process %u, "
			     "the truth says %u", w->index, w->tid, w->pid,
			     pid);
		g->bad_pid++;
	}
	for (uint32_t i = 0; i < w->nr_stack; i++)
		tbr_add(&g->br, w->tid, w->stack[i].from, w->stack[i].to);
	return 0;
}

static void convert(const char *input, unsigned threads, uint64_t unit_bytes,
		    struct got *g)
{
	struct sy_session_opts o;
	struct sy_session *s;
	struct sy_diag d = { 0 };

	sy_session_opts_init(&o);
	o.input = input;
	o.images.symfs = ".";
	o.images.buildid_dir = "";
	o.whole_trace = 1;
	o.depth = 0;
	o.threads = threads;
	o.unit_bytes = unit_bytes;
	cr_assert_eq(sy_session_open(&s, &o, &d), 0, "%s: %s", input, d.msg);
	cr_assert_eq(sy_session_run(s, on_window, g), 0, "%s", input);
	sy_session_close(s);
}

/* Lists the first differences of two sorted lists; returns their count. */
static size_t diff_branches(const char *what, const struct tbrs *want,
			    const struct tbrs *got)
{
	size_t i = 0, j = 0, n = 0;

	while (i < want->n || j < got->n) {
		int c = i == want->n ? 1 :
			j == got->n  ? -1 :
				       tbr_cmp(&want->v[i], &got->v[j]);
		const struct tbr *b = c < 0 ? &want->v[i] : &got->v[j];

		if (!c) {
			i++;
			j++;
			continue;
		}
		if (n++ < 8)
			cr_log_error("%s: thread %u %#" PRIx64 " -> %#" PRIx64
				     ": %s", what, b->tid, b->from, b->to,
				     c < 0 ? "in the truth, not converted" :
					     "converted, not in the truth");
		i += c < 0;
		j += c > 0;
	}
	return n;
}

static void check_fixture(const char *name)
{
	const char *dir = sy_test_mkdtemp();
	char cmd[1024], input[512];
	struct fx_sidecar sc;
	struct tbrs want = { 0 };
	static const struct {
		unsigned threads;
		uint64_t unit_bytes;
	} runs[] = { { 1, 0 }, { 3, 0 }, { 1, 1 }, { 3, 1 } };

	truth_branches(name, &sc, &want);
	qsort(want.v, want.n, sizeof(*want.v), tbr_cmp);
	snprintf(input, sizeof(input), "%s/%s.data", dir, name);
	snprintf(cmd, sizeof(cmd), "tests/no-pause " GEN "/%s.data '%s'", name,
		 input);
	cr_assert_eq(sy_test_run(cmd, NULL, NULL), 0, "%s", cmd);
	struct got first = { 0 };

	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		struct got g = { .sc = &sc };
		char what[320];

		snprintf(what, sizeof(what), "%s -j%u unit %" PRIu64, name,
			 runs[r].threads, runs[r].unit_bytes);
		convert(input, runs[r].threads, runs[r].unit_bytes, &g);
		qsort(g.br.v, g.br.n, sizeof(*g.br.v), tbr_cmp);
		cr_expect_gt(g.windows, 0, "%s", what);
		cr_expect_eq(g.bad_status, 0, "%s: windows neither ok nor "
			     "empty", what);
		cr_expect_eq(g.bad_pid, 0, "%s: windows of another process",
			     what);
		cr_expect_eq(diff_branches(what, &want, &g.br), 0,
			     "%s: %zu branches converted, %zu in the truth",
			     what, g.br.n, want.n);
		free(g.br.v);
		/* the first run decodes each stream uncut (the fixtures are
		 * far below a job's bytes) */
		if (!r) {
			first = g;
			continue;
		}
		cr_expect(g.nw == first.nw &&
				  !memcmp(g.w, first.w, g.nw * sizeof(*g.w)),
			  "%s: %zu windows, not those of the uncut stream (%zu)",
			  what, g.nw, first.nw);
		free(g.w);
	}
	free(first.w);
	cr_log_info("%s: %zu taken branches of %zu threads", name, want.n,
		    sc.nthreads);
	free(want.v);
	fx_sidecar_fini(&sc);
	sy_test_rmtree(dir);
}

/* Whether fixture @name is a per-CPU PT file-mode recording whose trace is
 * whole (no window damaged, truncated or overflowed: every traced branch
 * decodes), which tests/no-pause can rewrite. */
static int whole_per_cpu_pt(const char *name)
{
	char path[512];
	struct fx_sidecar sc;
	struct sy_diag d = { 0 };
	int ok;

	snprintf(path, sizeof(path), GEN "/%s.truth", name);
	cr_assert_eq(fx_sidecar_load(&sc, path, &d), 0, "%s: %s", path, d.msg);
	ok = !strcmp(sc.trace, "pt") && !sc.per_thread && !sc.pipe;
	for (size_t w = 0; ok && w < sc.nwindows; w++)
		ok = !sc.windows[w].has_lost &&
		     !(sc.windows[w].status &
		       (FX_ST_DECODE_ERROR | FX_ST_TRUNCATED | FX_ST_OVERFLOW));
	fx_sidecar_fini(&sc);
	return ok;
}

/* The SMP fixtures (switches inside and between windows, threads that
 * migrate) and the one-CPU ones, whose thread only ITRACE_START names. */
Test(whole_threads, every_whole_per_cpu_pt_fixture)
{
	DIR *dir = opendir(GEN);
	struct dirent *e;
	size_t n = 0, smp = 0;

	cr_assert_not_null(dir, "cannot open " GEN);
	while ((e = readdir(dir)) != NULL) {
		char name[256];
		size_t l = strlen(e->d_name);

		if (l < 9 || strncmp(e->d_name, "pt-", 3) ||
		    strcmp(e->d_name + l - 5, ".data") || l - 5 >= sizeof(name))
			continue;
		memcpy(name, e->d_name, l - 5);
		name[l - 5] = 0;
		if (!whole_per_cpu_pt(name))
			continue;
		check_fixture(name);
		n++;
		smp += strstr(name, "-smp") != NULL;
	}
	closedir(dir);
	cr_log_info("%zu fixtures, %zu of them SMP", n, smp);
	cr_expect_geq(n, 19);
	cr_expect_eq(smp, 6);	/* pt-mt-smp: threads of one process */
}
