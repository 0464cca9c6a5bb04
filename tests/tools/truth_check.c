/* truth_check [--symfs DIR] [-j N] FILE.data FILE.truth: converts one
 * generated recording with the library (the session strobe-synth convert
 * runs) and compares every pause sample's window with the sidecar truth
 * the way tests/unit/test_convert_fixtures.c (statuses_and_stacks) does
 * for the committed fixtures: the window's status is one the truth allows;
 * for an ok window the IP, the callchain and the full branch stack equal
 * the truth's; every sample of the sampling event placed in a window is
 * one the truth puts in that window and, in an ok window, has its
 * callchain and stack.
 *
 * Written for the corpus (tests/corpus/run), whose recordings are made
 * outside the repository: one file, any symfs, and every disagreement
 * printed on its own line (window, pause IP, our status and reason, the
 * truth's) for the trust checks' authors.  The last line is
 *   windows W statuses S1=N1,... mismatches M
 * Exit 0 when nothing disagrees, 1 otherwise, 2 for a bad command line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_sidecar.h"
#include "sy_synth.h"

struct tc_got {
	uint64_t time, ip;
	uint32_t cpu, tid, status, nr_stack, nr_chain;
	const char *name;	/* strobe-synth's status (the truth has no
				 * "implausible") */
	char reason[200];
	uint64_t start_ip;
	struct sy_br *stack;
	uint64_t *chain;
	int inner;		/* a sample of the sampling event */
};

struct tc_run {
	struct tc_got *v;
	size_t n, cap;
	int oom;
};

static struct tc_got *tc_add(struct tc_run *r, uint64_t time, uint64_t ip,
			     uint32_t cpu, uint32_t tid,
			     const struct sy_br *st, uint32_t nst,
			     const uint64_t *ch, uint32_t nch)
{
	struct tc_got *g;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct tc_got *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->v = v;
		r->cap = cap;
	}
	g = &r->v[r->n];
	memset(g, 0, sizeof(*g));
	g->time = time;
	g->ip = ip;
	g->cpu = cpu;
	g->tid = tid;
	g->stack = malloc((nst + 1) * sizeof(*st));
	g->chain = malloc((nch + 1) * sizeof(*ch));
	if (!g->stack || !g->chain) {
		free(g->stack);
		free(g->chain);
		return NULL;
	}
	if (nst)
		memcpy(g->stack, st, nst * sizeof(*st));
	if (nch)
		memcpy(g->chain, ch, nch * sizeof(*ch));
	g->nr_stack = nst;
	g->nr_chain = nch;
	r->n++;
	return g;
}

static int tc_on_window(void *ctx, const struct sy_window *w)
{
	struct tc_run *r = ctx;
	struct tc_got *g;
	uint32_t set = 0;

	fx_status_parse(sy_status_name(w->status), &set);
	for (uint32_t i = 0; i < w->nr_inner; i++) {
		const struct sy_inner_sample *in = &w->inner[i];

		g = tc_add(r, in->time, in->ip, w->cpu, in->tid, in->stack,
			   in->nr_stack, in->callchain, in->nr_callchain);
		if (!g)
			return r->oom = 1, -SY_E_NOMEM;
		g->status = set;
		g->name = sy_status_name(w->status);
		g->inner = 1;
	}
	if (!w->has_pause)
		return 0;
	g = tc_add(r, w->pause_time, w->pause_ip, w->cpu, w->tid, w->stack,
		   w->nr_stack, w->callchain, w->nr_callchain);
	if (!g)
		return r->oom = 1, -SY_E_NOMEM;
	g->status = set;
	g->name = sy_status_name(w->status);
	snprintf(g->reason, sizeof(g->reason), "%s", w->reason);
	return 0;
}

static const struct tc_got *tc_find(const struct tc_run *r,
				    const struct fx_sidecar *sc,
				    const struct fx_sc_sample *p, int inner)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct tc_got *g = &r->v[i];

		if (g->inner == inner && g->time == p->time &&
		    (sc->per_thread ? g->tid == p->tid : g->cpu == p->cpu))
			return g;
	}
	return NULL;
}

static int tc_same(const struct tc_got *g, const struct fx_sc_sample *p)
{
	if (g->ip != p->ip || g->nr_chain != p->ncallchain ||
	    g->nr_stack != p->nbr)
		return 0;
	if (p->ncallchain &&
	    memcmp(g->chain, p->callchain, p->ncallchain * sizeof(uint64_t)))
		return 0;
	for (size_t k = 0; k < p->nbr; k++)
		if (g->stack[k].from != p->br[k].from ||
		    g->stack[k].to != p->br[k].to)
			return 0;
	return 1;
}

/* Prints where the stacks first differ. */
static void tc_diff(const struct tc_got *g, const struct fx_sc_sample *p)
{
	size_t k;

	if (g->ip != p->ip || g->nr_chain != p->ncallchain) {
		printf("  ip %#" PRIx64 " chain %u, truth ip %#" PRIx64
		       " chain %zu\n", g->ip, g->nr_chain, p->ip,
		       p->ncallchain);
		return;
	}
	for (k = 0; k < p->ncallchain && g->chain[k] == p->callchain[k]; k++)
		;
	if (k < p->ncallchain) {
		printf("  callchain frame %zu: %#" PRIx64 ", truth %#" PRIx64
		       "\n", k, g->chain[k], p->callchain[k]);
		return;
	}
	for (k = 0; k < p->nbr && k < g->nr_stack &&
		    g->stack[k].from == p->br[k].from &&
		    g->stack[k].to == p->br[k].to; k++)
		;
	printf("  %u branches, truth %zu; first difference at %zu", g->nr_stack,
	       p->nbr, k);
	if (k < p->nbr && k < g->nr_stack)
		printf(": %#" PRIx64 "->%#" PRIx64 ", truth %#" PRIx64
		       "->%#" PRIx64, g->stack[k].from, g->stack[k].to,
		       p->br[k].from, p->br[k].to);
	printf("\n");
}

/* Counts per status name, in order of first appearance. */
struct tc_count {
	const char *name[32];
	size_t n[32], nr;
};

static void tc_count(struct tc_count *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nr && strcmp(c->name[i], name); i++)
		;
	if (i == c->nr) {
		if (c->nr == 32)
			return;
		c->name[c->nr++] = name;
	}
	c->n[i]++;
}

static size_t tc_pauses(const struct fx_sidecar *sc, const struct tc_run *r,
			struct tc_count *by)
{
	size_t bad = 0;
	char want[128];

	for (size_t i = 0; i < sc->npauses; i++) {
		const struct fx_sc_sample *p = &sc->pauses[i];
		const struct tc_got *g = tc_find(r, sc, p, 0);

		if (!g) {
			printf("MISMATCH pause %zu (window %d): no window\n",
			       i, p->window == FX_SC_NONE ? -1 :
							    (int)p->window);
			bad++;
			continue;
		}
		tc_count(by, g->name);
		fx_status_str(p->status, want, sizeof(want));
		if (!(g->status & p->status)) {
			printf("MISMATCH pause %zu (window %d, cpu %u, time "
			       "%" PRIu64 ", pause ip %#" PRIx64 "): %s (%s), "
			       "truth %s\n", i, p->window == FX_SC_NONE ? -1 :
			       (int)p->window, p->cpu, p->time, p->ip, g->name,
			       g->reason, want);
			bad++;
		} else if (p->status == FX_ST_OK && !tc_same(g, p)) {
			printf("MISMATCH pause %zu (window %u): ok, but not "
			       "the truth's stack\n", i, p->window);
			tc_diff(g, p);
			bad++;
		}
	}
	return bad;
}

/* Samples of the sampling event placed in windows. */
static size_t tc_inner(const struct fx_sidecar *sc, const struct tc_run *r)
{
	size_t bad = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct tc_got *g = &r->v[i];
		const struct fx_sc_sample *x = NULL;

		if (!g->inner)
			continue;
		for (size_t k = 0; k < sc->nsamples; k++)
			if (sc->samples[k].time == g->time &&
			    (sc->per_thread ? sc->samples[k].tid == g->tid :
					      sc->samples[k].cpu == g->cpu))
				x = &sc->samples[k];
		if (!x || x->window == FX_SC_NONE) {
			printf("MISMATCH sample at %" PRIu64 " placed in a "
			       "window, truth: %s\n", g->time,
			       x ? "outside every window" : "no such sample");
			bad++;
		} else if (x->status == FX_ST_OK && (g->status & FX_ST_OK) &&
			   !tc_same(g, x)) {
			printf("MISMATCH sample %u (window %u): not the "
			       "truth's stack\n", x->idx, x->window);
			tc_diff(g, x);
			bad++;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	const char *symfs = ".";
	unsigned threads = 1;
	struct sy_session_opts o;
	struct sy_session *s = NULL;
	struct sy_diag d = { 0 };
	struct fx_sidecar sc;
	struct tc_run r = { 0 };
	struct tc_count by = { 0 };
	size_t bad;
	int a = 1, err;

	for (; a + 1 < argc && argv[a][0] == '-'; a += 2)
		if (!strcmp(argv[a], "--symfs"))
			symfs = argv[a + 1];
		else if (!strcmp(argv[a], "-j"))
			threads = (unsigned)atoi(argv[a + 1]);
		else
			break;
	if (argc - a != 2 || threads < 1) {
		fprintf(stderr, "usage: truth_check [--symfs DIR] [-j N] "
				"FILE.data FILE.truth\n");
		return 2;
	}
	if (fx_sidecar_load(&sc, argv[a + 1], &d) < 0) {
		fprintf(stderr, "truth_check: %s: %s\n", argv[a + 1], d.msg);
		return 1;
	}
	sy_session_opts_init(&o);
	o.input = argv[a];
	o.images.symfs = symfs;
	o.images.buildid_dir = "";
	o.depth = 0;	/* every branch, as test_convert_fixtures */
	o.threads = threads;
	o.win_min = sc.min_insns;
	o.win_max = sc.max_insns;
	o.min_branches = sc.min_branches;
	err = sy_session_open(&s, &o, &d);
	if (err == 0)
		err = sy_session_run(s, tc_on_window, &r);
	sy_session_close(s);
	if (err < 0 || r.oom) {
		fprintf(stderr, "truth_check: %s: %s\n", argv[a],
			d.msg[0] ? d.msg : sy_errstr(err));
		return 1;
	}
	bad = tc_pauses(&sc, &r, &by) + tc_inner(&sc, &r);
	printf("windows %zu statuses ", sc.npauses);
	for (size_t i = 0; i < by.nr; i++)
		printf("%s%s=%zu", i ? "," : "", by.name[i], by.n[i]);
	printf(" mismatches %zu\n", bad);
	for (size_t i = 0; i < r.n; i++) {
		free(r.v[i].stack);
		free(r.v[i].chain);
	}
	free(r.v);
	fx_sidecar_fini(&sc);
	return bad ? 1 : 0;
}
