/* windows --what-if: what shorter windows would have given (issue 24).
 *
 * From one recording with long windows: each ok window cut to its newest
 * N taken branches, for several N, gives the profile a recording with
 * windows of N branches would have given.  A window's branch stack
 * (newest first) covers its straight-line ranges: from each branch's
 * target to the next newer branch's source, and from the newest target
 * to the pause IP, as llvm-profgen reads them.  The profile here is the
 * instructions of those ranges per function (the one whose symbol covers
 * the range's start) and per context (the pause sample's callers, then
 * the function).  Its overlap with the whole windows' profile is
 * sum over keys of min(share cut, share whole): 1 when the shorter
 * windows would have shown the same hot code in the same proportions.
 *
 * Instructions of a range: AArch64 instructions are 4 bytes; x86 ones are
 * not, and the range is counted in bytes (the unit is said).  Code
 * without a function symbol counts under its binary.  Memory: one entry
 * per distinct function and context, which the code bounds. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sy_hash.h"
#include "sy_image.h"
#include "sy_proc.h"
#include "sy_vec.h"
#include "windows.h"

/* Straight-line ranges longer than this are not one run of code: a
 * discontinuity the stack does not show (skipped, not counted). */
#define SY_WI_MAX_RANGE (1u << 16)

static const uint32_t sy_wi_default[] = { 8, 16, 32, 64, 128, 256 };

struct sy_wi_ent {
	uint64_t img, func, ctx;	/* key; ctx 0 in the function table */
	uint64_t w[SY_WI_MAX_N + 1];	/* per cut, then the whole window */
};

struct sy_wi_tab {
	struct sy_wi_ent *e;
	size_t nr, cap;
	struct sy_hindex ix;
};

static uint64_t sy_wi_key_hash(uint64_t img, uint64_t func, uint64_t ctx)
{
	return sy_hash_u64(sy_hash_combine(sy_hash_combine(img, func), ctx));
}

static uint64_t sy_wi_ent_hash(const void *ctx, size_t i)
{
	const struct sy_wi_ent *e = &((const struct sy_wi_tab *)ctx)->e[i];

	return sy_wi_key_hash(e->img, e->func, e->ctx);
}

static struct sy_wi_ent *sy_wi_get(struct sy_wi_tab *t, uint64_t img,
				   uint64_t func, uint64_t ctx)
{
	uint64_t h = sy_wi_key_hash(img, func, ctx);
	size_t j;
	uint32_t x;

	if (sy_hindex_reserve(&t->ix, t->nr + 1, 256, sy_wi_ent_hash, t))
		return NULL;
	for (j = sy_hindex_first(&t->ix, h); (x = sy_hindex_at(&t->ix, j));
	     j = sy_hindex_next(&t->ix, j)) {
		struct sy_wi_ent *e = &t->e[x - 1];

		if (e->img == img && e->func == func && e->ctx == ctx)
			return e;
	}
	if (sy_grow((void **)&t->e, &t->cap, t->nr, sizeof(*t->e)))
		return NULL;
	memset(&t->e[t->nr], 0, sizeof(t->e[0]));
	t->e[t->nr].img = img;
	t->e[t->nr].func = func;
	t->e[t->nr].ctx = ctx;
	sy_hindex_set(&t->ix, j, t->nr);
	return &t->e[t->nr++];
}

struct sy_whatif {
	uint32_t n[SY_WI_MAX_N];
	size_t nr_n;
	int bytes;		/* ranges counted in bytes (x86) */
	uint64_t windows;	/* ok windows looked at */
	uint64_t insns, branches; /* of those windows */
	struct sy_wi_tab funcs, ctxs;
	uint64_t total[SY_WI_MAX_N + 1];
};

int sy_whatif_new(struct sy_whatif **out, const char *list, int bytes)
{
	struct sy_whatif *wi = calloc(1, sizeof(*wi));
	char *end;

	if (!wi)
		return -SY_E_NOMEM;
	wi->bytes = bytes;
	if (!list || !*list) {
		memcpy(wi->n, sy_wi_default, sizeof(sy_wi_default));
		wi->nr_n = sizeof(sy_wi_default) / sizeof(sy_wi_default[0]);
		*out = wi;
		return 0;
	}
	for (const char *p = list; *p;) {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || !v || v > 1u << 20 || wi->nr_n == SY_WI_MAX_N ||
		    (wi->nr_n && v <= wi->n[wi->nr_n - 1]) ||
		    (*end && *end != ',')) {
			free(wi);
			return -SY_E_INVALID;
		}
		wi->n[wi->nr_n++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	*out = wi;
	return 0;
}

void sy_whatif_free(struct sy_whatif *wi)
{
	if (!wi)
		return;
	free(wi->funcs.e);
	sy_hindex_fini(&wi->funcs.ix);
	free(wi->ctxs.e);
	sy_hindex_fini(&wi->ctxs.ix);
	free(wi);
}

/* The binary and function start of @addr (0 when no symbol covers it). */
static void sy_wi_func(const struct sy_window *w, uint64_t addr,
		       uint64_t *img, uint64_t *func)
{
	const struct sy_map *m = w->snap ?
					 sy_proc_snap_find(w->snap, w->pid, addr) :
					 NULL;
	const char *name;
	uint64_t vaddr, off;

	*img = 0;
	*func = 0;
	if (!m || !m->img)
		return;
	*img = (uint64_t)(uintptr_t)m->img;
	if ((m->flags & SY_MAP_KERNEL))
		vaddr = addr;
	else if (sy_image_off_to_vaddr(m->img, addr - m->start + m->pgoff,
				       &vaddr))
		return;
	if (!sy_image_symbol(m->img, vaddr, &name, &off))
		*func = vaddr - off;
}

/* Adds one range [a, b] (b the last instruction's address) to every cut
 * that keeps stack entry @i. */
static int sy_wi_range(struct sy_whatif *wi, const struct sy_window *w,
		       uint64_t ctx, uint32_t i, uint64_t a, uint64_t b)
{
	uint64_t img, func, n;
	struct sy_wi_ent *f, *c;

	if (b < a || b - a > SY_WI_MAX_RANGE)
		return 0;
	n = wi->bytes ? b - a + 1 : (b - a) / 4 + 1;
	sy_wi_func(w, a, &img, &func);
	f = sy_wi_get(&wi->funcs, img, func, 0);
	c = f ? sy_wi_get(&wi->ctxs, img, func, ctx) : NULL;
	if (!f || !c)
		return -SY_E_NOMEM;
	for (size_t k = 0; k <= wi->nr_n; k++)
		if (k == wi->nr_n || i < wi->n[k]) {
			f->w[k] += n;
			c->w[k] += n;
			wi->total[k] += n;
		}
	return 0;
}

int sy_whatif_add(struct sy_whatif *wi, const struct sy_window *w)
{
	uint64_t ctx = SY_HASH_FNV_OFFSET;
	int err = 0;

	if (w->status != SY_ST_OK || !w->nr_stack)
		return 0;
	wi->windows++;
	wi->insns += w->insns;
	wi->branches += w->branches;
	/* the callers of the pause sample: its context */
	for (uint32_t k = 1; k < w->nr_callchain; k++)
		ctx = sy_hash_combine(ctx, w->callchain[k]);
	/* the newest range ends where the pause stopped the trace: the
	 * instruction before the pause IP */
	if (w->has_pause && w->pause_ip > w->stack[0].to)
		err = sy_wi_range(wi, w, ctx, 0, w->stack[0].to,
				  w->pause_ip - (wi->bytes ? 1 : 4));
	for (uint32_t i = 1; i < w->nr_stack && !err; i++)
		err = sy_wi_range(wi, w, ctx, i, w->stack[i].to,
				  w->stack[i - 1].from);
	return err;
}

/* Instructions per taken branch in the ok windows: what a cut of N
 * branches is in window length. */
static double sy_wi_per(const struct sy_whatif *wi)
{
	return wi->branches ? (double)wi->insns / (double)wi->branches : 0;
}

/* sum over keys of min(cut share, whole share) */
static double sy_wi_overlap(const struct sy_whatif *wi,
			    const struct sy_wi_tab *t, size_t k)
{
	double o = 0, a = (double)wi->total[k], b = (double)wi->total[wi->nr_n];

	if (!a || !b)
		return 0;
	for (size_t i = 0; i < t->nr; i++) {
		double x = (double)t->e[i].w[k] / a;
		double y = (double)t->e[i].w[wi->nr_n] / b;

		o += x < y ? x : y;
	}
	return o;
}

/* The smallest cut that keeps 95% of the function-level profile and cuts
 * something; nr_n when none does. */
static size_t sy_wi_pick(const struct sy_whatif *wi)
{
	for (size_t k = 0; k < wi->nr_n; k++)
		if (wi->total[k] < wi->total[wi->nr_n] &&
		    sy_wi_overlap(wi, &wi->funcs, k) >= 0.95)
			return k;
	return wi->nr_n;
}

void sy_whatif_text(const struct sy_whatif *wi, FILE *f)
{
	const char *unit = wi->bytes ? "bytes" : "instructions";
	double per = sy_wi_per(wi);
	size_t pick;

	if (!wi->windows || !wi->total[wi->nr_n]) {
		fputs("what-if: no ok window with a branch stack\n", f);
		return;
	}
	fprintf(f, "what-if: the %" PRIu64 " ok windows cut to their newest N "
		   "taken branches (profile: %s of the ranges, per function "
		   "and per context):\n", wi->windows, unit);
	fprintf(f, "  %8s %14s %10s %10s %10s\n", "N", "~instructions",
		"function", "context", "kept");
	for (size_t k = 0; k <= wi->nr_n; k++) {
		char n[24];

		if (k < wi->nr_n)
			snprintf(n, sizeof(n), "%" PRIu32, wi->n[k]);
		fprintf(f, "  %8s %14.0f %9.1f%% %9.1f%% %9.1f%%\n",
			k < wi->nr_n ? n : "all",
			k < wi->nr_n ? per * wi->n[k] :
				       (double)wi->insns / (double)wi->windows,
			100 * sy_wi_overlap(wi, &wi->funcs, k),
			100 * sy_wi_overlap(wi, &wi->ctxs, k),
			100.0 * (double)wi->total[k] /
				(double)wi->total[wi->nr_n]);
	}
	pick = sy_wi_pick(wi);
	if (pick < wi->nr_n)
		fprintf(f, "  advice: windows of %" PRIu32 " taken branches "
			   "(about %.0f instructions at the observed %.1f per "
			   "branch) keep %.1f%% of the function-level profile "
			   "and save %.1f%% of the %s in ranges\n",
			wi->n[pick], per * wi->n[pick], per,
			100 * sy_wi_overlap(wi, &wi->funcs, pick),
			100.0 - 100.0 * (double)wi->total[pick] /
					(double)wi->total[wi->nr_n],
			unit);
	else
		fputs("  advice: no cut that saves trace keeps 95% of the "
		      "function-level profile: the windows are not longer "
		      "than they need to be\n", f);
}

void sy_whatif_json(const struct sy_whatif *wi, FILE *f)
{
	double per = sy_wi_per(wi);
	size_t pick = sy_wi_pick(wi);

	fprintf(f, ",\n  \"what_if\": {\"windows\": %" PRIu64 ", \"unit\": "
		   "\"%s\", \"insns_per_branch\": %.6f, \"cuts\": [",
		wi->windows, wi->bytes ? "bytes" : "instructions", per);
	for (size_t k = 0; k < wi->nr_n; k++)
		fprintf(f, "%s\n    {\"branches\": %" PRIu32 ", "
			   "\"function_overlap\": %.6f, \"context_overlap\": "
			   "%.6f, \"kept\": %.6f}",
			k ? "," : "", wi->n[k],
			sy_wi_overlap(wi, &wi->funcs, k),
			sy_wi_overlap(wi, &wi->ctxs, k),
			wi->total[wi->nr_n] ? (double)wi->total[k] /
						      (double)wi->total[wi->nr_n] :
					      0.0);
	fputs("],\n    \"advice_branches\": ", f);
	if (wi->windows && wi->total[wi->nr_n] && pick < wi->nr_n)
		fprintf(f, "%" PRIu32 "}", wi->n[pick]);
	else
		fputs("null}", f);
}

size_t sy_whatif_points(const struct sy_whatif *wi, struct sy_wi_point *p,
			int *pick)
{
	size_t k;

	*pick = -1;
	if (!wi->windows || !wi->total[wi->nr_n])
		return 0;
	for (k = 0; k < wi->nr_n; k++)
		p[k] = (struct sy_wi_point){
			wi->n[k], sy_wi_per(wi) * wi->n[k],
			sy_wi_overlap(wi, &wi->funcs, k),
			sy_wi_overlap(wi, &wi->ctxs, k),
			(double)wi->total[k] / (double)wi->total[wi->nr_n]
		};
	k = sy_wi_pick(wi);
	if (k < wi->nr_n)
		*pick = (int)k;
	return wi->nr_n;
}
