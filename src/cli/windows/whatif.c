/* windows --what-if: what shorter windows would have given (issue 24).
 *
 * From one recording with long windows: each ok window cut to its newest
 * N taken branches, for several N, gives the profile a recording with
 * windows of N branches would have given.  Its overlap with the whole
 * windows' profile is sum over keys of min(share cut, share whole): 1
 * when the shorter windows would have shown the same hot code in the same
 * proportions.
 *
 * The profile is the one llvm-profgen-19 builds from convert --depth N's
 * perf-script, computed here without running it:
 *  - the ranges: from each branch's target to the next newer branch's
 *    source, that branch included; none from the newest target to the
 *    pause (llvm-profgen does not count that piece);
 *  - weighted in bytes, the last instruction's whole length included, as
 *    llvm-profgen's function TotalSamples (non-CS, ProfileGenerator) count
 *    them; on AArch64 divided by 4, which gives the same shares;
 *  - per function: the symbol covering the range's start, by its name up
 *    to the first '.' (DWARF names "f.cold", "f.part.0" f);
 *  - per context: llvm-profgen's unwinder (sy_wi_unwind) from the pause
 *    sample's callers: returns enter a frame, calls leave it;
 *  - a window whose pause IP llvm-profgen takes for a prolog or epilog
 *    (sy_wi_dropped) counts at no cut.
 * The function overlap and the kept share then equal those of
 * llvm-profgen-19's text profiles (--ignore-stack-samples) of the cut and
 * whole perf-scripts (tests/e2e/t_windows_whatif_profgen.sh, to 6
 * decimals).  The context overlap equals the one of its CS contexts
 * (unsymbolized, --compress-recursion=0) but for one thing not read here,
 * DWARF lines: llvm-profgen names a call site by its line, so two calls
 * on one line are one context to it and two here; merging keys only
 * raises an overlap, so this one is then a lower bound.  Its symbolized
 * CS profile also adds inferred call counts to callers; neither changes
 * the advice, which reads the function overlap.
 *
 * Code without a function symbol counts under its binary; each binary's
 * code under its own keys (llvm-profgen reads one binary and takes the
 * others' addresses as external).  Memory: one entry per distinct
 * function and context, and the window's frames. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sy_aspace.h"
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
	uint64_t dropped;	/* ok windows llvm-profgen would drop */
	uint64_t insns, branches; /* of those windows */
	struct sy_wi_tab funcs, ctxs;
	uint64_t total[SY_WI_MAX_N + 1];
	/* the window being added: its calling context (sy_wi_push) */
	uint64_t *ctx, *ret;
	size_t nr_ctx, cap_ctx, cap_ret;
	/* decoding: x86 instruction lengths, returns near the pause IP */
	csh cs;
	cs_insn *insn;
	int cs_ok;
};

int sy_whatif_new(struct sy_whatif **out, const char *list, int bytes)
{
	struct sy_whatif *wi = calloc(1, sizeof(*wi));
	char *end;

	if (!wi)
		return -SY_E_NOMEM;
	wi->bytes = bytes;
	wi->cs_ok = cs_open(bytes ? CS_ARCH_X86 : CS_ARCH_ARM64,
			    bytes ? CS_MODE_64 : CS_MODE_ARM, &wi->cs) ==
		    CS_ERR_OK;
	if (wi->cs_ok)
		cs_option(wi->cs, CS_OPT_DETAIL, CS_OPT_ON);
	wi->insn = wi->cs_ok ? cs_malloc(wi->cs) : NULL;
	if (!wi->insn) {
		sy_whatif_free(wi);
		return -SY_E_NOMEM;
	}
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
			sy_whatif_free(wi);
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
	free(wi->ctx);
	free(wi->ret);
	if (wi->insn)
		cs_free(wi->insn, 1);
	if (wi->cs_ok)
		cs_close(&wi->cs);
	free(wi);
}

/* Where an address is: its binary, its function's key (the symbol's
 * name up to its first '.', which is the source function's name DWARF
 * gives GCC's clones and split parts, "f.cold", "f.part.0", as
 * llvm-profgen names them; 0 without a symbol) and its symbol's runtime
 * start (0 without one). */
struct sy_wi_loc {
	uint64_t img, key, start;
};

static void sy_wi_func(const struct sy_window *w, uint64_t addr,
		       struct sy_wi_loc *l)
{
	const struct sy_map *m = w->snap ?
					 sy_proc_snap_find(w->snap, w->pid, addr) :
					 NULL;
	const char *name;
	uint64_t vaddr, off;

	memset(l, 0, sizeof(*l));
	if (!m || !m->img)
		return;
	l->img = (uint64_t)(uintptr_t)m->img;
	if ((m->flags & SY_MAP_KERNEL))
		vaddr = addr;
	else if (sy_image_off_to_vaddr(m->img, addr - m->start + m->pgoff,
				       &vaddr))
		return;
	if (sy_image_symbol(m->img, vaddr, &name, &off) || !name)
		return;
	l->start = addr - off;
	l->key = sy_hash_bytes(SY_HASH_FNV_OFFSET, name, strcspn(name, ".")) |
		 1;
}

/* Decodes the instruction at runtime @addr into wi->insn; returns its
 * bytes, 0 when its code cannot be read or decoded. */
static uint64_t sy_wi_decode(struct sy_whatif *wi, const struct sy_window *w,
			     uint64_t addr)
{
	const struct sy_aspace *as = w->snap ?
					     sy_proc_snap_aspace(w->snap, w->pid) :
					     NULL;
	uint8_t code[16];
	const uint8_t *p = code;
	size_t len = sy_aspace_read(as, addr, code, sizeof(code));
	uint64_t at = addr;

	if (!wi->cs_ok || !len ||
	    !cs_disasm_iter(wi->cs, &p, &len, &at, wi->insn))
		return 0;
	return at - addr;
}

/* Bytes of the instruction at @addr: 4 on AArch64 (0: no code). */
static uint64_t sy_wi_insn_len(struct sy_whatif *wi, const struct sy_window *w,
			       uint64_t addr)
{
	return wi->bytes ? sy_wi_decode(wi, w, addr) : 4;
}

/* Whether the instruction at @addr is a return (@len: its bytes). */
static int sy_wi_is_ret(struct sy_whatif *wi, const struct sy_window *w,
			uint64_t addr, uint64_t *len)
{
	*len = sy_wi_decode(wi, w, addr);
	if (!*len || !wi->insn->detail)
		return 0;
	for (uint8_t g = 0; g < wi->insn->detail->groups_count; g++)
		if (wi->insn->detail->groups[g] == CS_GRP_RET)
			return 1;
	return 0;
}

/* llvm-profgen drops, without a word, a sample whose leaf IP is one of
 * the first two instructions of a function, a return or the instruction
 * before one (PrologEpilogTracker): a pause sample there gives no
 * profile at any cut.  Function starts are the ELF symbols' here,
 * llvm-profgen's are DWARF's (the same for compiled code).  Only hybrid
 * samples are checked: a stretch of a recording without pauses has no
 * pause sample and gives branch-only samples, which it does not drop. */
static int sy_wi_dropped(struct sy_whatif *wi, const struct sy_window *w)
{
	uint64_t ip = w->nr_callchain ? w->callchain[0] : w->pause_ip;
	struct sy_wi_loc l;
	uint64_t len;

	sy_wi_func(w, ip, &l);
	if (l.start && (l.start == ip ||
			l.start + sy_wi_insn_len(wi, w, l.start) == ip))
		return 1;
	if (sy_wi_is_ret(wi, w, ip, &len))
		return 1;
	return len && sy_wi_is_ret(wi, w, ip + len, &len);
}

/* Adds one range [a, b] (b the address of the branch that ends it) to
 * every cut that keeps stack entry @i, under the current context. */
static int sy_wi_range(struct sy_whatif *wi, const struct sy_window *w,
		       uint32_t i, uint64_t a, uint64_t b)
{
	struct sy_wi_loc l;
	uint64_t n, blen;
	struct sy_wi_ent *f, *c;

	n = (b - a) + (blen = sy_wi_insn_len(wi, w, b));
	if (!blen)
		return 0;
	if (!wi->bytes)
		n /= 4;
	sy_wi_func(w, a, &l);
	f = sy_wi_get(&wi->funcs, l.img, l.key, 0);
	c = f ? sy_wi_get(&wi->ctxs, l.img, l.key,
			  wi->ctx[wi->nr_ctx - 1]) : NULL;
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

/* The calling context: wi->ctx[d] is the hash of the d outermost frames
 * (each named by its return address), wi->ctx[0] the empty one. */
static int sy_wi_push(struct sy_whatif *wi, uint64_t ret)
{
	if (sy_grow((void **)&wi->ctx, &wi->cap_ctx, wi->nr_ctx,
		    sizeof(*wi->ctx)) ||
	    sy_grow((void **)&wi->ret, &wi->cap_ret, wi->nr_ctx,
		    sizeof(*wi->ret)))
		return -SY_E_NOMEM;
	wi->ret[wi->nr_ctx] = ret;
	wi->ctx[wi->nr_ctx] = sy_hash_combine(wi->ctx[wi->nr_ctx - 1], ret);
	wi->nr_ctx++;
	return 0;
}

/* One older branch stack entry @e, as llvm-profgen's unwinder takes it
 * (VirtualUnwinder::unwindCall, unwindReturn, unwindBranch): a call
 * leaves the callee for the caller, whose frame it pops when the
 * caller is the next frame out; a return enters the callee, a frame
 * named by the return target; any other branch stays in the frame. */
static int sy_wi_unwind(struct sy_whatif *wi, const struct sy_window *w,
			const struct sy_br *e)
{
	uint64_t len;

	switch (e->kind) {
	case SY_BR_CALL:
	case SY_BR_IND_CALL:
		len = sy_wi_insn_len(wi, w, e->from);
		if (wi->nr_ctx > 1 && len &&
		    wi->ret[wi->nr_ctx - 1] == e->from + len)
			wi->nr_ctx--;
		return 0;
	case SY_BR_RET:
		return sy_wi_push(wi, e->to);
	default:
		return 0;
	}
}

int sy_whatif_add(struct sy_whatif *wi, const struct sy_window *w)
{
	int err = 0, invalid = 0;

	if (w->status != SY_ST_OK || !w->nr_stack)
		return 0;
	if (w->has_pause && sy_wi_dropped(wi, w)) {
		wi->dropped++;
		return 0;
	}
	wi->windows++;
	wi->insns += w->insns;
	wi->branches += w->branches;
	/* the pause sample's callers, outermost first, are the context of
	 * the newest range */
	wi->nr_ctx = 0;
	if (sy_grow((void **)&wi->ctx, &wi->cap_ctx, 0, sizeof(*wi->ctx)) ||
	    sy_grow((void **)&wi->ret, &wi->cap_ret, 0, sizeof(*wi->ret)))
		return -SY_E_NOMEM;
	wi->ctx[0] = SY_HASH_FNV_OFFSET;
	wi->ret[0] = 0;
	wi->nr_ctx = 1;
	for (uint32_t k = w->nr_callchain; k-- > 1 && !err;)
		err = sy_wi_push(wi, w->callchain[k]);
	/* the newest piece, from the newest target to the pause, is not a
	 * range: llvm-profgen counts none there (it does not know where the
	 * piece ends) */
	for (uint32_t i = 0; i < w->nr_stack && !err; i++) {
		const struct sy_br *e = &w->stack[i];

		if (i && e->to <= w->stack[i - 1].from &&
		    w->stack[i - 1].from - e->to <= SY_WI_MAX_RANGE)
			err = sy_wi_range(wi, w, i, e->to, w->stack[i - 1].from);
		else if (i) /* not one run of code: as llvm-profgen, no
			     * context from here on (UnwindState::setInvalid) */
			invalid = 1;
		if (invalid)
			wi->nr_ctx = 1;
		else if (!err)
			err = sy_wi_unwind(wi, w, e);
	}
	return err;
}

/* Instructions per taken branch in the ok windows: what a cut of N
 * branches is in window length. */
static double sy_wi_per(const struct sy_whatif *wi)
{
	return wi->branches ? (double)wi->insns / (double)wi->branches : 0;
}

/* Keys with weight in the whole windows' profile. */
static size_t sy_wi_nonzero(const struct sy_wi_tab *t, size_t k)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr; i++)
		n += t->e[i].w[k] != 0;
	return n;
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
		   "and per context, as llvm-profgen-19 builds it):\n",
		wi->windows, unit);
	if (wi->dropped)
		fprintf(f, "  (%" PRIu64 " more ok windows not counted: their "
			   "pause IP is where llvm-profgen drops a sample, a "
			   "function's first two instructions, a return or "
			   "the one before)\n", wi->dropped);
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

	fprintf(f, ",\n  \"what_if\": {\"windows\": %" PRIu64 ", \"dropped\": "
		   "%" PRIu64 ", \"functions\": %zu, \"contexts\": %zu, "
		   "\"unit\": \"%s\", \"insns_per_branch\": %.6f, \"cuts\": [",
		wi->windows, wi->dropped, sy_wi_nonzero(&wi->funcs, wi->nr_n),
		sy_wi_nonzero(&wi->ctxs, wi->nr_n),
		wi->bytes ? "bytes" : "instructions", per);
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
