/* Acceptance: every generated fixture converts to what its ground truth
 * says.  For each pause sample of the sidecar (tests/fixtures/generated/
 * NAME.truth, written from the qemu-recorded execution, never from our
 * decoder), the window strobe-synth ends with it has one of the statuses
 * the truth allows; for ok windows the branch stack and callchain equal the
 * truth's; the perfscript convert writes is byte-identical to one rendered
 * from the truth, whatever the thread count; and llvm-profgen 19 reads it as
 * hybrid samples and builds the same profile from both. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_sidecar.h"
#include "sy_perf_reader.h"
#include "sy_profgen.h"
#include "sy_synth.h"
#include "sy_test.h"

#define GEN "tests/fixtures/generated"
#define SY_ARRAY_SIZE_T(a) (sizeof(a) / sizeof((a)[0]))

/* Every mismatch is listed, then the test fails once. */
#define FAIL(...)                          \
	do {                               \
		cr_log_error(__VA_ARGS__); \
		failures++;                \
	} while (0)

struct got {
	uint64_t time, ip;
	uint32_t cpu, tid;
	enum sy_status status;
	char reason[160];
	struct sy_br *stack;
	uint32_t nr_stack;
	uint64_t *chain;
	uint32_t nr_chain;
};

struct run {
	struct got *v;		/* windows ended by a pause sample */
	size_t nr, cap;
	struct got *in;		/* other callchain samples placed */
	size_t nr_in, cap_in;
	struct sy_agg *agg;
	uint32_t depth;
};

static struct got *got_add(struct got **v, size_t *nr, size_t *cap,
			   uint64_t time, uint64_t ip, uint32_t cpu,
			   uint32_t tid, const struct sy_br *stack,
			   uint32_t nr_stack, const uint64_t *chain,
			   uint32_t nr_chain)
{
	struct got *g;

	if (*nr == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = realloc(*v, *cap * sizeof(**v));
		cr_assert_not_null(*v);
	}
	g = &(*v)[(*nr)++];
	memset(g, 0, sizeof(*g));
	g->time = time;
	g->ip = ip;
	g->cpu = cpu;
	g->tid = tid;
	g->nr_stack = nr_stack;
	g->stack = malloc((nr_stack + 1) * sizeof(*g->stack));
	if (nr_stack)
		memcpy(g->stack, stack, nr_stack * sizeof(*g->stack));
	g->nr_chain = nr_chain;
	g->chain = malloc((nr_chain + 1) * 8);
	if (nr_chain)
		memcpy(g->chain, chain, nr_chain * 8);
	return g;
}

static int on_window(void *ctx, const struct sy_window *w)
{
	struct run *r = ctx;
	struct got *g;

	/* what convert writes: the samples that interrupted the window, then
	 * its pause sample */
	for (uint32_t i = 0; i < w->nr_inner; i++) {
		const struct sy_inner_sample *in = &w->inner[i];

		if (r->agg && w->status == SY_ST_OK && in->nr_stack)
			cr_assert_eq(sy_agg_add(r->agg, in->callchain,
						in->nr_callchain, in->stack,
						in->nr_stack),
				     0);
		g = got_add(&r->in, &r->nr_in, &r->cap_in, in->time, in->ip,
			    w->cpu, in->tid, in->stack, in->nr_stack,
			    in->callchain, in->nr_callchain);
		g->status = w->status;
	}
	if (r->agg && w->status == SY_ST_OK && w->has_pause && w->nr_stack) {
		cr_assert_eq(sy_agg_add(r->agg, w->callchain, w->nr_callchain,
					w->stack, w->nr_stack),
			     0);
	}
	if (!w->has_pause)
		return 0;
	g = got_add(&r->v, &r->nr, &r->cap, w->pause_time, w->pause_ip,
		    w->cpu, w->tid, w->stack, w->nr_stack, w->callchain,
		    w->nr_callchain);
	g->status = w->status;
	snprintf(g->reason, sizeof(g->reason), "%s", w->reason);
	return 0;
}

static void run_free(struct run *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		free(r->v[i].stack);
		free(r->v[i].chain);
	}
	for (size_t i = 0; i < r->nr_in; i++) {
		free(r->in[i].stack);
		free(r->in[i].chain);
	}
	free(r->v);
	free(r->in);
}

/* Runs a session over fixture @name; with @out, renders the ok samples as a
 * perfscript into *out (MMAP2 lines left out: the truth has no mappings). */
/* @unit_bytes: stream decoding granularity (sy_session_opts); 1 cuts PT
 * at every PSB and gives ETM a slice per AUX record. */
static void convert(const char *name, const struct fx_sidecar *sc,
		    uint32_t depth, unsigned threads, uint64_t unit_bytes,
		    struct run *r, char **out)
{
	char path[512];
	struct sy_session_opts o;
	struct sy_session *s;
	struct sy_diag d = { 0 };
	struct sy_profgen *w = NULL;
	size_t len;
	FILE *f = NULL;
	int err;

	snprintf(path, sizeof(path), GEN "/%s.data", name);
	sy_session_opts_init(&o);
	o.input = path;
	o.images.symfs = ".";
	o.images.buildid_dir = "";
	/* a kernel-mode fixture: its image, as --vmlinux gives it */
	o.images.vmlinux = sc->kernel[0] ? sc->kernel : NULL;
	o.depth = depth;
	o.threads = threads;
	o.unit_bytes = unit_bytes;
	o.win_min = sc->min_insns;
	o.win_max = sc->max_insns;
	o.min_branches = sc->min_branches;
	memset(r, 0, sizeof(*r));
	if (out) {
		f = open_memstream(out, &len);
		cr_assert_eq(sy_profgen_open_file(&w, f, SY_PROFGEN_HYBRID), 0);
		cr_assert_eq(sy_agg_new(&r->agg, w, 0), 0);
	}
	err = sy_session_open(&s, &o, &d);
	cr_assert_eq(err, 0, "%s: %s", name, d.msg);
	err = sy_session_run(s, on_window, r);
	cr_assert(err == 0 || sc->npauses == 0, "%s: run: %s", name,
		  sy_errstr(err));
	sy_session_close(s);
	if (out) {
		cr_assert_eq(sy_agg_flush(r->agg), 0);
		sy_agg_free(r->agg);
		r->agg = NULL;
		cr_assert_eq(sy_profgen_commit(w, NULL), 0);
		fclose(f);
	}
}

/* The order strobe-synth writes samples in is the order perf delivers
 * the pause samples in: by time, equal times in file order, in a
 * recording with rounds (FINISHED_ROUND; a generated one has no record
 * written after its round); in file order without (src/synth/reorder.h).
 * Read with the reader, which knows nothing of windows. */
static size_t file_order(const char *name, uint64_t *time, uint32_t *cpu,
			 size_t max)
{
	char path[512];
	struct sy_perf_reader *r;
	struct sy_record rec;
	size_t n = 0;
	int rounds = 0;

	snprintf(path, sizeof(path), GEN "/%s.data", name);
	cr_assert_eq(sy_perf_open(&r, path, NULL), 0);
	while (sy_perf_next(r, &rec) == 0) {
		struct sy_sample sm;

		rounds |= rec.type == SY_REC_FINISHED_ROUND;
		if (rec.type != SY_REC_SAMPLE || !rec.attr ||
		    !(rec.attr->aux_action &
		      (SY_AUX_ACTION_PAUSE | SY_AUX_ACTION_PAUSE_ARMED)))
			continue;
		cr_assert_eq(sy_sample_parse(rec.attr, rec.data, rec.size, &sm,
					     NULL, 0),
			     0);
		cr_assert_lt(n, max);
		time[n] = sm.time;
		cpu[n] = sm.cpu;
		n++;
	}
	sy_perf_close(r);
	/* a stable insertion sort by time: equal times keep file order */
	for (size_t i = 1; rounds && i < n; i++) {
		uint64_t t = time[i];
		uint32_t c = cpu[i];
		size_t j = i;

		for (; j && time[j - 1] > t; j--) {
			time[j] = time[j - 1];
			cpu[j] = cpu[j - 1];
		}
		time[j] = t;
		cpu[j] = c;
	}
	return n;
}

/* Whether the trace certainly tells where S sample @x interrupted its
 * window: no other sample of the window (resume while running, missed
 * pause, S) interrupted it at the same address.  Where one did, the trace's
 * timestamps may still tell them apart (test_place covers that rule), so
 * strobe-synth may place it or not; it must place every certain one. */
static int s_sample_placeable(const struct fx_sidecar *sc,
			      const struct fx_sc_sample *x)
{
	const struct fx_sc_sample *lists[3] = { sc->resumes, sc->pauses,
						 sc->samples };
	size_t nr[3] = { sc->nresumes, sc->npauses, sc->nsamples };

	if (x->window == FX_SC_NONE)
		return 0;
	for (int l = 0; l < 3; l++)
		for (size_t i = 0; i < nr[l]; i++) {
			const struct fx_sc_sample *y = &lists[l][i];

			/* the resume that started the window is no
			 * interrupt inside it: the trace starts there */
			if (l == 0 && y->window == x->window)
				continue;
			if (y != x && y->ip == x->ip && y->time != x->time &&
			    (sc->per_thread || y->cpu == x->cpu) &&
			    y->time >= sc->windows[x->window].start_time &&
			    y->time <= sc->windows[x->window].end_time)
				return 0;
		}
	return 1;
}

static void add_truth(struct sy_agg *a, const uint64_t *chain, size_t nchain,
		      const struct fx_sc_branch *br, size_t nbr, uint32_t depth)
{
	size_t n = nbr < depth ? nbr : depth;
	struct sy_br *st = calloc(n + 1, sizeof(*st));

	for (size_t k = 0; k < n; k++) {
		st[k].from = br[k].from;
		st[k].to = br[k].to;
	}
	cr_assert_eq(sy_agg_add(a, chain, (uint32_t)nchain, st, (uint32_t)n),
		     0);
	free(st);
}

/* Whether placed sample @g is S sample @x: the same time on the same
 * queue.  Per thread the queue is the thread's, and a window that spans a
 * migration has samples of several CPUs (strobe-synth reports the window's
 * CPU, the pause sample's): there the thread tells. */
static int same_sample(const struct fx_sidecar *sc, const struct got *g,
		       const struct fx_sc_sample *x)
{
	return g->time == x->time &&
	       (sc->per_thread ? g->tid == x->tid : g->cpu == x->cpu);
}

/* Whether strobe-synth placed S sample @x. */
static int was_placed(const struct fx_sidecar *sc, const struct run *r,
		      const struct fx_sc_sample *x)
{
	for (size_t i = 0; i < r->nr_in; i++)
		if (same_sample(sc, &r->in[i], x))
			return 1;
	return 0;
}

/* The truth's rendering of the same samples, in file order, through the
 * same writer: per ok window, the S samples that interrupted it and that
 * strobe-synth placed (@placed; which ones it may place is checked in
 * statuses_and_stacks, their contents come from the truth here), then its
 * pause sample. */
static char *render_truth(const char *name, const struct fx_sidecar *sc,
			  uint32_t depth, const struct run *placed)
{
	static uint64_t time[4096];
	static uint32_t cpu[4096];
	size_t norder = file_order(name, time, cpu, 4096);
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct sy_profgen *w;
	struct sy_agg *a;

	cr_assert_eq(norder, sc->npauses);
	cr_assert_eq(sy_profgen_open_file(&w, f, SY_PROFGEN_HYBRID), 0);
	cr_assert_eq(sy_agg_new(&a, w, 0), 0);
	for (size_t o = 0; o < norder; o++) {
		const struct fx_sc_sample *p = NULL;

		for (size_t i = 0; i < sc->npauses; i++)
			if (sc->pauses[i].time == time[o] &&
			    sc->pauses[i].cpu == cpu[o])
				p = &sc->pauses[i];
		cr_assert_not_null(p);
		if (p->status != FX_ST_OK)
			continue;
		for (size_t i = 0; i < sc->nsamples; i++) {
			const struct fx_sc_sample *x = &sc->samples[i];

			if (x->window == p->window && x->nbr &&
			    was_placed(sc, placed, x))
				add_truth(a, x->callchain, x->ncallchain, x->br,
					  x->nbr, depth);
		}
		if (p->nbr)
			add_truth(a, p->callchain, p->ncallchain, p->br,
				  p->nbr, depth);
	}
	cr_assert_eq(sy_agg_flush(a), 0);
	sy_agg_free(a);
	cr_assert_eq(sy_profgen_commit(w, NULL), 0);
	fclose(f);
	return buf;
}

static size_t fixtures(char names[][64], size_t max)
{
	DIR *d = opendir(GEN);
	struct dirent *e;
	size_t n = 0;

	cr_assert_not_null(d, GEN " missing");
	while ((e = readdir(d)) && n < max) {
		size_t l = strlen(e->d_name);

		if (l > 6 && !strcmp(e->d_name + l - 6, ".truth") && l - 6 < 64) {
			memcpy(names[n], e->d_name, l - 6);
			names[n][l - 6] = 0;
			n++;
		}
	}
	closedir(d);
	cr_assert_gt(n, 20, "too few fixtures");
	return n;
}

static struct got *find(struct run *r, const struct fx_sc_sample *p)
{
	struct got *hit = NULL;

	for (size_t i = 0; i < r->nr; i++)
		if (r->v[i].time == p->time && r->v[i].cpu == p->cpu) {
			cr_assert_null(hit, "two windows end at one sample");
			hit = &r->v[i];
		}
	return hit;
}

static int stack_eq(const struct got *g, const struct fx_sc_branch *br,
		    size_t nbr)
{
	if (g->nr_stack != nbr)
		return 0;
	for (size_t k = 0; k < nbr; k++)
		if (g->stack[k].from != br[k].from || g->stack[k].to != br[k].to)
			return 0;
	return 1;
}

static int chain_eq(const struct got *g, const uint64_t *cc, size_t ncc)
{
	return g->nr_chain == ncc &&
	       (!ncc || !memcmp(g->chain, cc, ncc * sizeof(*cc)));
}

/* The S samples (callchain samples of an event without aux-action): every
 * one strobe-synth placed was inside a window and, when that window is ok,
 * has the truth's callchain and full stack; every one the trace can place
 * in an ok window was placed.  Returns the number of stacks compared. */
static size_t s_samples_check(const char *name, const struct fx_sidecar *sc,
			      const struct run *r, size_t *failures_out)
{
	size_t failures = 0, compared = 0;

	for (size_t i = 0; i < r->nr_in; i++) {
		const struct got *g = &r->in[i];
		const struct fx_sc_sample *x = NULL;

		for (size_t k = 0; k < sc->nsamples; k++)
			if (same_sample(sc, g, &sc->samples[k]))
				x = &sc->samples[k];
		if (!x || x->window == FX_SC_NONE) {
			FAIL("%s: a sample at %llu placed in a window, truth: "
			     "%s", name, (unsigned long long)g->time,
			     x ? "outside every window" : "no such S sample");
			continue;
		}
		if (x->status != FX_ST_OK)
			continue;
		if (g->ip != x->ip || !chain_eq(g, x->callchain, x->ncallchain)) {
			FAIL("%s: S sample %u: ip or callchain differ", name,
			     x->idx);
			continue;
		}
		if (!stack_eq(g, x->br, x->nbr)) {
			FAIL("%s: S sample %u: %u branches, truth %zu (or "
			     "they differ)", name, x->idx, g->nr_stack, x->nbr);
			continue;
		}
		compared++;
	}
	for (size_t k = 0; k < sc->nsamples; k++) {
		const struct fx_sc_sample *x = &sc->samples[k];
		int placed = 0;

		if (x->status != FX_ST_OK || !s_sample_placeable(sc, x))
			continue;
		placed = was_placed(sc, r, x);
		if (!placed)
			FAIL("%s: S sample %u (window %u, %zu branches) was "
			     "not placed", name, x->idx, x->window, x->nbr);
	}
	*failures_out += failures;
	return compared;
}

static void statuses_and_stacks(uint64_t unit_bytes, unsigned threads)
{
	static char names[128][64];
	size_t n = fixtures(names, 128);
	size_t checked = 0, stacks = 0, failures = 0, s_stacks = 0, s_total = 0;

	for (size_t f = 0; f < n; f++) {
		struct fx_sidecar sc;
		struct sy_diag d = { 0 };
		char path[512];
		struct run r;

		snprintf(path, sizeof(path), GEN "/%s.truth", names[f]);
		cr_assert_eq(fx_sidecar_load(&sc, path, &d), 0, "%s: %s",
			     path, d.msg);
		convert(names[f], &sc, 0, threads, unit_bytes, &r, NULL);
		cr_assert_eq(r.nr, sc.npauses,
			     "%s: %zu windows end at a pause sample, truth has "
			     "%zu pause samples", names[f], r.nr, sc.npauses);
		for (size_t i = 0; i < sc.npauses; i++) {
			const struct fx_sc_sample *p = &sc.pauses[i];
			struct got *g = find(&r, p);
			uint32_t ours;
			char want[128];
			size_t k;

			if (!g) {
				FAIL("%s: pause %zu has no window", names[f], i);
				continue;
			}
			cr_assert_eq(fx_status_parse(sy_status_name(g->status),
						     &ours),
				     0);
			fx_status_str(p->status, want, sizeof(want));
			checked++;
			if (!(ours & p->status)) {
				FAIL("%s: pause %zu (time %llu): status %s (%s), "
				     "truth %s", names[f], i,
				     (unsigned long long)p->time,
				     sy_status_name(g->status), g->reason, want);
				continue;
			}
			if (p->status != FX_ST_OK)
				continue;
			if (g->ip != p->ip || g->nr_chain != p->ncallchain) {
				FAIL("%s: pause %zu: ip or callchain length "
				     "differ", names[f], i);
				continue;
			}
			for (k = 0; k < p->ncallchain; k++)
				if (g->chain[k] != p->callchain[k])
					break;
			if (k < p->ncallchain) {
				FAIL("%s: pause %zu: callchain frame %zu "
				     "differs", names[f], i, k);
				continue;
			}
			if (g->nr_stack != p->nbr) {
				FAIL("%s: pause %zu: %u branches, truth %zu",
				     names[f], i, g->nr_stack, p->nbr);
				continue;
			}
			for (k = 0; k < p->nbr; k++)
				if (g->stack[k].from != p->br[k].from ||
				    g->stack[k].to != p->br[k].to)
					break;
			if (k < p->nbr) {
				FAIL("%s: pause %zu branch %zu: %#llx->%#llx, "
				     "truth %#llx->%#llx", names[f], i, k,
				     (unsigned long long)g->stack[k].from,
				     (unsigned long long)g->stack[k].to,
				     (unsigned long long)p->br[k].from,
				     (unsigned long long)p->br[k].to);
				continue;
			}
			stacks++;
		}
		s_stacks += s_samples_check(names[f], &sc, &r, &failures);
		s_total += sc.nsamples;
		run_free(&r);
		fx_sidecar_fini(&sc);
	}
	cr_assert_eq(failures, 0, "%zu mismatches (listed above)", failures);
	cr_assert_gt(stacks, 50, "too few ok windows compared");
	cr_assert_gt(s_stacks, 10, "too few S samples compared (%zu in the "
		     "sidecars)", s_total);
	cr_log_info("%zu pause samples checked, %zu full stacks equal, %zu of "
		    "%zu S samples' stacks equal", checked, stacks, s_stacks,
		    s_total);
}

Test(convert_fixtures, statuses_and_stacks_equal_the_truth, .timeout = 300)
{
	statuses_and_stacks(0, 1);
}

/* The same with stream trace decoded in the smallest pieces (PT cut at
 * every PSB, matched back together; ETM in a slice per AUX record) on
 * three threads: what bounds memory must not change a single window. */
Test(convert_fixtures, statuses_and_stacks_with_tiny_units, .timeout = 300)
{
	statuses_and_stacks(1, 3);
}

Test(convert_fixtures, perfscript_is_the_truths_whatever_the_threads,
     .timeout = 300)
{
	static char names[128][64];
	size_t n = fixtures(names, 128);
	size_t failures = 0;

	for (size_t f = 0; f < n; f++) {
		struct fx_sidecar sc;
		struct sy_diag d = { 0 };
		char path[512];
		struct run r1, r3;
		char *ours1, *ours3, *want;

		snprintf(path, sizeof(path), GEN "/%s.truth", names[f]);
		cr_assert_eq(fx_sidecar_load(&sc, path, &d), 0);
		convert(names[f], &sc, 64, 1, 0, &r1, &ours1);
		convert(names[f], &sc, 64, 3, 1, &r3, &ours3);
		want = render_truth(names[f], &sc, 64, &r1);
		if (strcmp(ours1, want)) {
			size_t at = 0, line = 1;

			while (ours1[at] && ours1[at] == want[at])
				line += ours1[at++] == '\n';
			FAIL("%s: perfscript differs from the truth's at line "
			     "%zu: ours \"%.60s\", truth \"%.60s\"",
			     names[f], line, ours1 + at, want + at);
		}
		if (strcmp(ours1, ours3))
			FAIL("%s: 1 thread vs 3 threads with tiny units "
			     "give different output",
			     names[f]);
		free(ours1);
		free(ours3);
		free(want);
		run_free(&r1);
		run_free(&r3);
		fx_sidecar_fini(&sc);
	}
	cr_assert_eq(failures, 0, "%zu fixtures differ (listed above)",
		     failures);
}

/* Lines of llvm-profgen's output that warn. */
static size_t warnings(const char *out)
{
	size_t n = 0;

	for (const char *l = out; (l = strstr(l, "warning:")); l++)
		n++;
	return n;
}

/* The lines of @out that contain @what, in order, for comparison. */
static char *lines_with(const char *out, const char *what)
{
	size_t cap = strlen(out) + 1, len = 0;
	char *r = malloc(cap);

	cr_assert_not_null(r);
	r[0] = 0;
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t ll = nl ? (size_t)(nl - l) + 1 : strlen(l);
		const char *hit = strstr(l, what);

		if (hit && hit < l + ll) {
			memcpy(r + len, l, ll);
			len += ll;
			r[len] = 0;
		}
		l += ll;
	}
	return r;
}

/* What llvm-profgen says about a perfscript that means the samples
 * contradict the binary: a branch stack that does not fit the callchain,
 * garbage addresses, samples it throws away. */
static const char *const profgen_complaints[] = {
	"doesn't match call frame stack", "Bogus", "Invalid",
};

/* Runs llvm-profgen 19 on @ps with @binary into @prof (@kernel: the
 * binary is a kernel image, found by its "[kernel.kallsyms]" map);
 * returns its output (stdout and stderr). */
static char *profgen(const char *ps, const char *binary, const char *prof,
		     const char *name, int kernel)
{
	char cmd[2048], *out = NULL;
	int rc;

	snprintf(cmd, sizeof(cmd),
		 "llvm-profgen-19 %s--perfscript=%s --binary=%s "
		 "--format=text --profile-summary-cold-count=0 "
		 "--csspgo-preinliner=0 --gen-cs-nested-profile=0 "
		 "--output=%s 2>&1", kernel ? "--kernel " : "", ps, binary,
		 prof);
	rc = sy_test_run(cmd, &out, NULL);
	cr_assert_eq(rc, 0, "%s: %s", name, out);
	return out ? out : strdup("");
}

/* Profiles of @binary from ours and from the truth's rendering: equal,
 * no complaint on ours that the truth's own samples do not get too (the
 * same lines: a longjmp's branch stack or a handler's trampoline frame
 * trouble llvm-profgen in the truth as much), no more warnings.  Returns
 * whether the profile is context-sensitive. */
static int profgen_compare(const char *name, const char *ours,
			   const char *want, const char *binary,
			   const char *tag)
{
	char pours[600], pwant[600], *oo, *ow, *a, *b;
	size_t len;
	int cs, kernel = !strcmp(tag, "kernel");

	snprintf(pours, sizeof(pours), "%s.%s.prof", ours, tag);
	snprintf(pwant, sizeof(pwant), "%s.%s.prof", want, tag);
	oo = profgen(ours, binary, pours, name, kernel);
	ow = profgen(want, binary, pwant, name, kernel);
	for (size_t k = 0; k < SY_ARRAY_SIZE_T(profgen_complaints); k++) {
		char *lo = lines_with(oo, profgen_complaints[k]);
		char *lw = lines_with(ow, profgen_complaints[k]);

		cr_expect(!lo[0] || !strcmp(lo, lw), "%s (%s): ours: %s; the "
			  "truth's: %s", name, tag, lo, lw);
		free(lo);
		free(lw);
	}
	/* no more complaints about ours than about the truth's own
	 * samples */
	cr_expect_leq(warnings(oo), warnings(ow), "%s (%s): %zu warnings on "
		      "ours, %zu on the truth's: %s", name, tag, warnings(oo),
		      warnings(ow), oo);
	free(oo);
	free(ow);
	a = (char *)sy_test_read_file(pours, &len);
	a = realloc(a, len + 1);
	a[len] = 0;
	b = (char *)sy_test_read_file(pwant, &len);
	b = realloc(b, len + 1);
	b[len] = 0;
	cr_expect_gt(strlen(a), 0, "%s (%s): empty profile", name, tag);
	cr_expect_str_eq(a, b, "%s (%s): profiles differ", name, tag);
	/* hybrid: context-sensitive profile entries "[a @ b]" */
	cs = strstr(a, " @ ") != NULL;
	free(a);
	free(b);
	return cs;
}

/* The fixtures llvm-profgen is run on: everything but damage, zero-length
 * windows and thresholds (nothing or little to profile). */
static const char *const profgen_names[] = {
	"demo-etm",	   "etm4-etr-basic", "etm4-etr-pie",
	"etm4-etr-pac",	   "ete-trbe-basic", "ete-trbe-smp",
	"pt-basic",	   "pt-smp",	     "pt-missed",
	"etm4-etr-samples", "ete-trbe-samples", "pt-samples",
	"pt-thread",	   "etm4-etr-thread",
	/* issue 13: the placement and matching bugs */
	"etm4-etr-missed-samples", "ete-trbe-start-sample",
	"pt-start-sample", "etm4-etr-missed-pin", "pt-missed-pin",
	"ete-trbe-missed-end", "pt-missed-psb", "etm4-etr-missed-end",
	/* the definition: a resume before a context switch */
	"etm4-etr-resume-switch", "pt-resume-switch",
	/* programs of real shapes: every scenario of each */
	"etm4-etr-interp", "ete-trbe-interp-smp", "etm4-etr-interp-thread",
	"pt-interp", "pt-interp-smp", "pt-interp-thread",
	"etm4-etr-deep", "ete-trbe-deep-smp", "etm4-etr-deep-thread",
	"pt-deep", "pt-deep-smp", "pt-deep-thread",
	"etm4-etr-sigjmp", "ete-trbe-sigjmp-smp", "etm4-etr-sigjmp-thread",
	"pt-sigjmp", "pt-sigjmp-smp", "pt-sigjmp-thread",
	"etm4-etr-dynfx", "ete-trbe-dynfx-smp", "etm4-etr-dynfx-thread",
	"pt-dynfx", "pt-dynfx-smp", "pt-dynfx-thread",
	/* kernel-mode traces: a kernel profile of the image */
	"etm4-etr-kernel", "ete-trbe-kernel-smp",
};

/* Writes the truth's samples of fixture @name after the MMAP2 lines of
 * our output @ours into @want. */
static void write_truth_ps(const char *name, const struct fx_sidecar *sc,
			   const char *ours, const char *want)
{
	char *out, *truth;
	size_t len;
	struct run r;
	FILE *wf;

	out = (char *)sy_test_read_file(ours, &len);
	cr_assert_not_null(out);
	out = realloc(out, len + 1);
	out[len] = 0;
	wf = fopen(want, "w");
	cr_assert_not_null(wf);
	for (char *l = out; *l;) {
		char *nl = strchr(l, '\n');
		size_t ll = nl ? (size_t)(nl - l) + 1 : strlen(l);

		if (!strncmp(l, "PERF_RECORD_MMAP2", 17))
			fwrite(l, 1, ll, wf);
		l += ll;
	}
	convert(name, sc, 64, 1, 0, &r, NULL);
	truth = render_truth(name, sc, 64, &r);
	run_free(&r);
	fputs(truth, wf);
	fclose(wf);
	free(truth);
	free(out);
}

/* llvm-profgen 19 reads what convert writes as hybrid samples, without
 * complaining about mismatched samples more than about the truth's, and
 * builds the profile it builds from the truth's samples: of the program,
 * and of every library of the repository mapped with it (libfx), found by
 * llvm-profgen through its MMAP2 line. */
Test(convert_fixtures, llvm_profgen_builds_the_truths_profile, .timeout = 900)
{
	const char *dir;
	size_t hybrid = 0;

	sy_test_require_tool("llvm-profgen-19");
	dir = sy_test_mkdtemp();
	for (size_t f = 0; f < SY_ARRAY_SIZE_T(profgen_names); f++) {
		const char *name = profgen_names[f];
		struct fx_sidecar sc;
		struct sy_diag d = { 0 };
		char path[512], cmd[4096], ours[512], want[512];
		int cs;

		snprintf(path, sizeof(path), GEN "/%s.truth", name);
		cr_assert_eq(fx_sidecar_load(&sc, path, &d), 0, "%s", d.msg);
		snprintf(ours, sizeof(ours), "%s/%s.ours", dir, name);
		snprintf(want, sizeof(want), "%s/%s.truth", dir, name);
		snprintf(cmd, sizeof(cmd),
			 "%s convert -q --symfs . %s%s -o %s " GEN "/%s.data",
			 sy_test_prog(), sc.kernel[0] ? "--vmlinux " : "",
			 sc.kernel, ours, name);
		cr_assert_eq(sy_test_run(cmd, NULL, NULL), 0, "%s", cmd);
		write_truth_ps(name, &sc, ours, want);
		/* llvm-profgen --kernel: the kernel image, at the address
		 * its "[kernel.kallsyms]_text" map line says */
		if (sc.kernel[0])
			cs = profgen_compare(name, ours, want, sc.kernel,
					     "kernel");
		else
			cs = profgen_compare(name, ours, want, sc.binary,
					     "prog");
		for (size_t k = 0; k < sc.nmaps; k++) {
			char lib[300];

			if (strncmp(sc.maps[k].path, "/tests/", 7))
				continue;	/* ld.so: never traced */
			snprintf(lib, sizeof(lib), ".%s", sc.maps[k].path);
			cs |= profgen_compare(name, ours, want, lib, "lib");
		}
		hybrid += cs;
		cr_expect(cs, "%s: no context-sensitive profile", name);
		fx_sidecar_fini(&sc);
	}
	cr_assert_eq(hybrid, SY_ARRAY_SIZE_T(profgen_names),
		     "every fixture gives a context-sensitive profile");
	sy_test_rmtree(dir);
}
