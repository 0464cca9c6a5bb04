#include "plausible.h"

#include <elf.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boundary.h"
#include "jump_table.h"
#include "sigreturn.h"
#include "sy_branch.h"

/* Calls followed within one run of joined stretches. */
#define SY_PL_STACK 256
/* Longest straight run (instructions) read. */
#define SY_PL_RANGE_MAX 4096u

enum sy_pl_memo_type {
	SY_PL_M_INSN = 1,	/* the instruction at a */
	SY_PL_M_AFTER_CALL,	/* a call ends at a */
	SY_PL_M_RANGE,		/* the straight run [a, a + b] */
	SY_PL_M_TARGET,		/* what an indirect branch finds at a */
	SY_PL_M_FOREIGN,	/* a jump from b (in img2) to a */
	SY_PL_M_XTABLE,		/* x86: the table jump or call at a, its run
				 * b & 0x7ff bytes long, to b >> 11 in img2 */
};

/* Verdicts. */
enum { SY_PL_OK = 1, SY_PL_UNKNOWN, SY_PL_BAD, SY_PL_MID };
/* Where an indirect branch lands, seen from the function it leaves. */
enum { SY_PL_HOME = 1, SY_PL_ENTRY, SY_PL_RESUME, SY_PL_INSIDE };

int sy_plausible_init(struct sy_plausible *p, enum sy_trace_kind arch)
{
	memset(p, 0, sizeof(*p));
	p->arch = arch;
	sy_pl_memo_init(&p->memo);
	if (!p->memo.v || sy_pl_seen_init(&p->seen) ||
	    sy_proven_init(&p->proven)) {
		sy_pl_memo_fini(&p->memo);
		sy_pl_seen_fini(&p->seen);
		sy_proven_fini(&p->proven);
		return -SY_E_NOMEM;
	}
	/* without capstone every read of code is "unknown" */
	sy_insn_decoder_init(&p->dec, arch);
	return 0;
}

void sy_plausible_fini(struct sy_plausible *p)
{
	sy_proc_snap_put(p->snap);
	p->snap = NULL;
	sy_insn_decoder_fini(&p->dec);
	sy_pl_memo_fini(&p->memo);
	sy_pl_seen_fini(&p->seen);
	sy_proven_fini(&p->proven);
}

/* --- the window's code ------------------------------------------------------ */

/* Where an address's code lives. */
struct sy_loc {
	const struct sy_map *map;
	const struct sy_image *img;
	uint64_t off;		/* the code's key within img */
	uint64_t vaddr;		/* link-time address in img */
	const uint8_t *bytes;
	size_t avail;
};

/* A window's branches mostly stay in a few mappings and segments: the
 * last ones found are kept for the next lookups. */
#define SY_PL_CACHE 4

struct sy_pl_ctx {
	struct sy_plausible *p;
	const struct sy_win *w;
	int etm;		/* p->arch == SY_TRACE_ETM */
	const struct sy_proc_snap *snap;
	uint32_t id;
	/* the window's process and the kernel, looked up once: a lookup by
	 * id walks the snapshot's tries */
	const struct sy_aspace *as, *kernel;
	int proc_known;		/* the snapshot has the window's process */
	/* branches (with the straight run before them) whose places,
	 * encoding and run passed: a loop repeats a few of them (the
	 * validator's, kept while the snapshot and the thread are the
	 * same: what passed depends on nothing else) */
	struct sy_pl_seen *seen;
	/* from here to at: cleared at a window's setup */
	/* calls of the current run whose returns are still to come (ras
	 * last: the entries past nr_ras are never read) */
	unsigned nr_ras;
	int stack_ok;
	/* what correct code may do but damage more often does: how many,
	 * and the first */
	struct sy_pl_suspects sus;
	unsigned next_map, next_code;
	/* the branch before the one before the branch checked (NULL: none
	 * in this stretch): where the straight run to that one began */
	const struct sy_br *prev2;
	/* mappings, and contiguous code [lo, hi) with its location at lo
	 * (an empty [lo, hi) is never read) */
	const struct sy_map *maps[SY_PL_CACHE];
	uint64_t lo[SY_PL_CACHE], hi[SY_PL_CACHE];
	struct sy_loc at[SY_PL_CACHE];
	uint64_t ras[SY_PL_STACK];
};

/* The mapping at @addr in the window's process (or the kernel's). */
static const struct sy_map *sy_pl_map(struct sy_pl_ctx *c, uint64_t addr)
{
	const struct sy_map *m;

	for (unsigned i = 0; i < SY_PL_CACHE; i++)
		if (c->maps[i] && addr >= c->maps[i]->start &&
		    addr < c->maps[i]->end)
			return c->maps[i];
	m = sy_aspace_find(c->as, addr);
	if (!m)
		m = sy_aspace_find(c->kernel, addr);
	if (m)
		c->maps[c->next_map++ % SY_PL_CACHE] = m;
	return m;
}

/* Returns 1 with @l filled when @addr is code the image cache has. */
static int sy_pl_locate(struct sy_pl_ctx *c, uint64_t addr, struct sy_loc *l)
{
	unsigned k;

	for (unsigned i = 0; i < SY_PL_CACHE; i++) {
		uint64_t d = addr - c->lo[i];

		if (addr < c->lo[i] || addr >= c->hi[i])
			continue;
		*l = c->at[i];
		l->bytes += d;
		l->avail -= d;
		l->off += d;
		l->vaddr += d;
		return 1;
	}
	memset(l, 0, sizeof(*l));
	l->map = sy_pl_map(c, addr);
	if (!l->map || !l->map->img || !(l->map->flags & SY_MAP_CODE))
		return 0;
	l->bytes = sy_map_code(l->map, addr, &l->avail);
	if (!l->bytes)
		return 0;
	l->img = l->map->img;
	if (l->map->flags & SY_MAP_KERNEL) {
		l->off = l->vaddr = addr;
	} else {
		l->off = addr - l->map->start + l->map->pgoff;
		if (sy_image_off_to_vaddr(l->img, l->off, &l->vaddr))
			return 0;
	}
	k = c->next_code++ % SY_PL_CACHE;
	c->lo[k] = addr;
	c->hi[k] = addr + l->avail;
	c->at[k] = *l;
	return 1;
}

/* Copies @n bytes of code at @addr (across mappings); 1 when all exist. */
static int sy_pl_read(struct sy_pl_ctx *c, uint64_t addr, uint8_t *buf,
		      size_t n)
{
	while (n) {
		struct sy_loc l;
		size_t k;

		if (!sy_pl_locate(c, addr, &l))
			return 0;
		k = l.avail < n ? l.avail : n;
		memcpy(buf, l.bytes, k);
		buf += k;
		addr += k;
		n -= k;
	}
	return 1;
}

/* The instruction at @addr; 1 when known. */
static int sy_pl_insn(struct sy_pl_ctx *c, uint64_t addr, struct sy_insn *in)
{
	const struct sy_pl_memo_ent *e;
	struct sy_pl_key k = { .type = SY_PL_M_INSN };
	struct sy_loc l;

	if (!sy_pl_locate(c, addr, &l))
		return 0;
	k.img = l.img;
	k.a = l.off;
	e = sy_pl_memo_get(&c->p->memo, &k);
	if (e) {
		if (e->verdict != SY_PL_OK)
			return 0;
		*in = e->insn;
	} else {
		uint8_t buf[16];
		const uint8_t *code = l.bytes;
		size_t len = l.avail;
		int v;

		if (len < sizeof(buf) && sy_pl_read(c, addr, buf, sizeof(buf))) {
			code = buf;
			len = sizeof(buf);
		}
		memset(in, 0, sizeof(*in));
		v = sy_insn_decode(&c->p->dec, code, len, addr, in) ?
			    SY_PL_UNKNOWN :
			    SY_PL_OK;
		/* the target as a distance: the key is the image's */
		in->target -= addr;
		if (sy_pl_memo_put(&c->p->memo, &k, v, in) != SY_PL_OK)
			return 0;
	}
	in->target += addr;
	return 1;
}

/* A verdict about the code at @addr (and @n, what else it depends on),
 * kept per (image, offset, n). */
typedef int (*sy_pl_verdict_fn)(struct sy_pl_ctx *c, uint64_t addr,
				const struct sy_loc *l, uint64_t n);

static int sy_pl_cached(struct sy_pl_ctx *c, uint8_t type, uint64_t addr,
			uint64_t n, sy_pl_verdict_fn fn)
{
	const struct sy_pl_memo_ent *e;
	struct sy_pl_key k = { .type = type };
	struct sy_loc l;

	if (!sy_pl_locate(c, addr, &l))
		return SY_PL_UNKNOWN;
	k.img = l.img;
	k.a = l.off;
	k.b = n;
	e = sy_pl_memo_get(&c->p->memo, &k);
	return e ? e->verdict : sy_pl_memo_put(&c->p->memo, &k, fn(c, addr, &l, n), NULL);
}

/* The function symbol at @l: its name and how far into it @l is. */
static int sy_pl_func(const struct sy_loc *l, const char **name,
		      uint64_t *into)
{
	return sy_image_symbol(l->img, l->vaddr, name, into) == 0;
}

/* Same function, allowing for the parts compilers split off
 * (foo.cold, foo.part.0). */
static int sy_pl_same_func(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");

	return la == lb && !strncmp(a, b, la);
}

/* Whether a return to @to is a signal handler's return to its
 * trampoline (sigreturn.h; the code near a mapping's end is shorter). */
static int sy_pl_exempt(struct sy_pl_ctx *c, uint64_t to)
{
	uint8_t buf[SY_SIGRETURN_MAX];

	for (size_t n = sizeof(buf); n >= 7; n--)
		if (sy_pl_read(c, to, buf, n))
			return sy_sigreturn_code(c->p->arch, buf, n);
	return 0;
}

/* --- checks ----------------------------------------------------------------- */

/* Whether a call instruction ends exactly at @to (A64: the word before is
 * BL, BLR or a BLRAA form; x86: one of the lengths a call has).  Returns a
 * verdict. */
static int sy_pl_after_call_uncached(struct sy_pl_ctx *c, uint64_t to,
				     const struct sy_loc *l, uint64_t n)
{
	int etm = c->p->arch == SY_TRACE_ETM;
	int unknown = 0;

	for (unsigned len = etm ? 4 : 2; len <= (etm ? 4u : 10u); len++) {
		uint8_t buf[10];
		struct sy_insn in;

		if (!sy_pl_read(c, to - len, buf, len)) {
			unknown = 1;
			continue;
		}
		if (sy_insn_decode(&c->p->dec, buf, len, to - len, &in))
			continue;
		if (in.size == len &&
		    (in.kind == SY_BR_CALL || in.kind == SY_BR_IND_CALL))
			return SY_PL_OK;
	}
	(void)l;
	(void)n;
	return unknown || !c->p->dec.ok ? SY_PL_UNKNOWN : SY_PL_BAD;
}

static int sy_pl_after_call(struct sy_pl_ctx *c, uint64_t to)
{
	return sy_pl_cached(c, SY_PL_M_AFTER_CALL, to, 0,
			    sy_pl_after_call_uncached);
}

/* What an indirect branch finds at @to: the middle of an instruction, or
 * code.  A no-op is code: returns land on the alignment no-op after a
 * call, context switches and IFUNC stubs on a label that starts with one. */
static int sy_pl_target_uncached(struct sy_pl_ctx *c, uint64_t to,
				 const struct sy_loc *l, uint64_t n)
{
	(void)n;
	(void)to;
	if (c->p->arch == SY_TRACE_PT &&
	    sy_x86_boundary(&c->p->dec, l->img, l->vaddr) == SY_BOUNDARY_MID)
		return SY_PL_MID;
	return SY_PL_OK;
}

static int sy_pl_target(struct sy_pl_ctx *c, uint64_t to)
{
	return sy_pl_cached(c, SY_PL_M_TARGET, to, 0, sy_pl_target_uncached);
}

/* Where an indirect branch from @from lands: in its own function (or
 * where no symbol tells), at another function's entry, in another one
 * where a call returns (longjmp, a context switch resume there), or inside
 * another one. */
static int sy_pl_landing(struct sy_pl_ctx *c, uint64_t from, uint64_t to)
{
	const struct sy_pl_memo_ent *e;
	struct sy_pl_key k = { .type = SY_PL_M_FOREIGN };
	struct sy_loc lf, lt;
	const char *nf, *nt;
	uint64_t inf, intt;
	int v;

	if (!sy_pl_locate(c, from, &lf) || !sy_pl_locate(c, to, &lt))
		return SY_PL_HOME;
	k.img = lt.img;
	k.img2 = lf.img;
	k.a = lt.off;
	k.b = lf.off;
	if ((e = sy_pl_memo_get(&c->p->memo, &k)))
		return e->verdict;
	if (!sy_pl_func(&lf, &nf, &inf) || !sy_pl_func(&lt, &nt, &intt) ||
	    sy_pl_same_func(nf, nt))
		v = SY_PL_HOME;
	else if (!intt)
		v = SY_PL_ENTRY;
	else
		v = sy_pl_after_call(c, to) == SY_PL_BAD ? SY_PL_INSIDE :
							    SY_PL_RESUME;
	return sy_pl_memo_put(&c->p->memo, &k, v, NULL);
}

/* ETM: the straight run from @to (a branch target) to @from (the next
 * branch) holds no direct jump or call elsewhere than the next
 * instruction.  (An unconditional branch not taken is the decoder's to
 * report: SY_DEC_ERR_DISAGREE, etm_conv.c; one taken to the next
 * instruction is a branch item of its own.) */
static int sy_pl_range_uncached(struct sy_pl_ctx *c, uint64_t to,
				const struct sy_loc *l, uint64_t len)
{
	uint64_t a = to, from = to + len;

	(void)l;
	for (unsigned n = 0; a < from; n++) {
		struct sy_insn in;

		if (n == SY_PL_RANGE_MAX || !sy_pl_insn(c, a, &in))
			return SY_PL_UNKNOWN;
		if (in.has_target && in.kind != SY_BR_COND &&
		    in.target != a + in.size)
			return SY_PL_BAD;
		a += in.size;
	}
	return a == from ? SY_PL_OK : SY_PL_BAD;
}

static int sy_pl_range(struct sy_pl_ctx *c, uint64_t to, uint64_t from)
{
	return from < to ? SY_PL_BAD :
			   sy_pl_cached(c, SY_PL_M_RANGE, to, from - to,
					sy_pl_range_uncached);
}

static int sy_pl_in_callchain(const struct sy_win *w, uint64_t to)
{
	for (uint32_t i = 1; i < w->pub.nr_callchain; i++)
		if (w->pub.callchain[i] == to)
			return 1;
	return 0;
}

#define SY_PL_WHY(...) (snprintf(why, len, __VA_ARGS__), 1)

/* One more suspect branch, from @from to @to; the first is kept to say
 * which (the flow checks run in branch order, from a proven sequence
 * too, so the first is the same however the branches were checked). */
static void sy_pl_suspect(struct sy_pl_ctx *c, enum sy_suspect_kind k,
			  uint64_t from, uint64_t to)
{
	if (!c->sus.n++) {
		c->sus.kind = (uint8_t)k;
		c->sus.from = from;
		c->sus.to = to;
	}
}

/* A return mostly goes to an instruction that follows a call (any call
 * site), to a return address of the callchain, or to a signal trampoline,
 * but correct programs return elsewhere too: the C++ unwinder's exit
 * (libgcc's __builtin_eh_return, in _Unwind_RaiseException and
 * _Unwind_Resume) `ret`s to landing pads that follow a branch or another
 * `ret` (the corpus's cxxexc, issue 26).  So a return to no call site is
 * only suspect, as is one past or without an open call: unwinders,
 * longjmp-like runtimes and context switches return to call sites whose
 * calls the window never saw.  The run's calls are unknown after it.  x86
 * code may call without returning (`call 1f; 1: pop`), so there a return
 * to an older open call is one; A64 has no such idiom. */
static void sy_pl_return(struct sy_pl_ctx *c, const struct sy_br *b)
{
	if (c->stack_ok && c->nr_ras) {
		unsigned k = c->nr_ras;

		while (k-- > 0 && c->ras[k] != b->to)
			;
		if (k == c->nr_ras - 1 ||
		    (k != (unsigned)-1 && c->p->arch == SY_TRACE_PT)) {
			c->nr_ras = k;
			return;
		}
		if (k != (unsigned)-1) {
			/* to an older open call's return: after a call */
			sy_pl_suspect(c, SY_SUS_RET_PAST, b->from, b->to);
			c->stack_ok = 0;
			return;
		}
	}
	if (sy_pl_after_call(c, b->to) != SY_PL_BAD ||
	    sy_pl_in_callchain(c->w, b->to) || sy_pl_exempt(c, b->to)) {
		/* with calls open, it returns to none of them */
		if (c->stack_ok && c->nr_ras) {
			sy_pl_suspect(c, SY_SUS_RET_NONE_OPEN, b->from, b->to);
			c->stack_ok = 0;
		}
		return;
	}
	sy_pl_suspect(c, SY_SUS_RET_NO_CALL, b->from, b->to);
	c->stack_ok = 0;
}

/* A call: its return address goes on the run's stack. */
static void sy_pl_call(struct sy_pl_ctx *c, const struct sy_br *b)
{
	struct sy_insn in;
	uint64_t size = 4;

	if (c->p->arch == SY_TRACE_PT) {
		if (!sy_pl_insn(c, b->from, &in)) {
			c->stack_ok = 0;
			return;
		}
		size = in.size;
	}
	if (c->nr_ras == SY_PL_STACK) {
		memmove(c->ras, c->ras + 1, (SY_PL_STACK - 1) * sizeof(*c->ras));
		c->nr_ras--;
	}
	c->ras[c->nr_ras++] = b->from + size;
}

/* Where both ends of a branch are: aligned (A64) and in code mappings. */
static int sy_pl_places(struct sy_pl_ctx *c, const struct sy_br *b,
			char *why, size_t len)
{
	if (c->p->arch == SY_TRACE_ETM && ((b->from | b->to) & 3))
		return SY_PL_WHY("misaligned branch: %#" PRIx64 " -> %#" PRIx64,
				 b->from, b->to);
	if (!c->proc_known)
		return 0;
	for (int end = 0; end < 2; end++) {
		uint64_t a = end ? b->to : b->from;
		const struct sy_map *m = sy_pl_map(c, a);

		if (!m && (a >> 63))
			continue; /* kernel half: not always recorded */
		if (!m || !(m->flags & SY_MAP_CODE))
			return SY_PL_WHY("%s outside executable mappings: "
					 "%#" PRIx64 " -> %#" PRIx64,
					 end ? "branch target" : "branch source",
					 b->from, b->to);
	}
	return 0;
}

#define SY_PL_DIRECT(k) ((k) >= SY_BR_COND && (k) <= SY_BR_CALL)

/* ETM: the trace's taken branch is the code's: a branch at its source,
 * direct where the trace's is, a direct one going where its encoding says.
 * A damaged ETE Source Address packet makes OpenCSD take any instruction
 * for a branch, a damaged Context packet makes it read A64 code as A32
 * (the campaign's real TRBE capture: a `stur` "branching" past the next
 * `bl`).  Only in an AArch64 image is the A64 reading the only one. */
static int sy_pl_direct(struct sy_pl_ctx *c, const struct sy_br *b, char *why,
			size_t len)
{
	struct sy_insn in;
	struct sy_loc l;
	int direct = SY_PL_DIRECT(b->kind), none;

	if (c->p->arch != SY_TRACE_ETM || b->kind == SY_BR_NONE ||
	    b->kind == SY_BR_SYSCALL || !sy_pl_insn(c, b->from, &in))
		return 0;
	none = in.kind == SY_BR_NONE || in.kind == SY_BR_SYSCALL;
	if ((none || SY_PL_DIRECT(in.kind) != direct) &&
	    sy_pl_locate(c, b->from, &l) && sy_image_machine(l.img) == EM_AARCH64)
		return SY_PL_WHY("taken %s from %s: %#" PRIx64 " -> %#" PRIx64,
				 sy_branch_kind_name((enum sy_branch_kind)b->kind),
				 none ? "no branch instruction" :
				 direct ? "an indirect branch" : "a direct branch",
				 b->from, b->to);
	if (!direct || !in.has_target || in.target == b->to)
		return 0;
	return SY_PL_WHY("direct branch elsewhere: %#" PRIx64 " -> %#" PRIx64
			 ", its encoding says %#" PRIx64,
			 b->from, b->to, in.target);
}

/* An indirect jump that resumes a frame of another function (longjmp, a
 * context switch): the run's calls are unknown after it; one to an open
 * call's return is unusual (a return would do) but correct code may. */
static void sy_pl_resume(struct sy_pl_ctx *c, const struct sy_br *b)
{
	unsigned k = c->nr_ras;

	while (c->stack_ok && k-- > 0 && c->ras[k] != b->to)
		;
	if (c->stack_ok && k != (unsigned)-1)
		sy_pl_suspect(c, SY_SUS_JUMP_OPEN, b->from, b->to);
	c->stack_ok = 0;
}

/* An indirect branch into the middle of an instruction is no program's;
 * one into another function away from its entry and from a call's return
 * (a context switch's resume label, a stripped binary's unnamed code) is
 * only suspect: symbols cannot tell damage from unusual code. */
static int sy_pl_indirect(struct sy_pl_ctx *c, const struct sy_br *b,
			  uint8_t *land, char *why, size_t len)
{
	int v;

	/* a branch the memo holds passed the target check before */
	if (!*land && sy_pl_target(c, b->to) == SY_PL_MID)
		return SY_PL_WHY("indirect branch into an instruction: "
				 "%#" PRIx64 " -> %#" PRIx64, b->from, b->to);
	if (b->kind == SY_BR_RET) {
		*land = 0xff;	/* checked; no landing verdict */
		return 0;
	}
	if (!*land)
		*land = (uint8_t)(sy_pl_landing(c, b->from, b->to) + 1);
	v = *land - 1;
	if (v == SY_PL_INSIDE) {
		sy_pl_suspect(c, SY_SUS_INTO_FUNC, b->from, b->to);
		if (b->kind == SY_BR_IND_JUMP)
			c->stack_ok = 0;
	}
	if (v == SY_PL_RESUME && b->kind == SY_BR_IND_JUMP)
		sy_pl_resume(c, b);
	return 0;
}

static int sy_pl_jt_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	return sy_pl_read(ctx, addr, buf, n);
}

static int sy_pl_jt_fixed(void *ctx, uint64_t addr, uint64_t len)
{
	const struct sy_map *m = sy_pl_map(ctx, addr);

	return m && !(m->prot & SY_PROT_WRITE) && (m->flags & SY_MAP_CODE) &&
	       addr + len <= m->end;
}

/* Whether the x86 table the indexed jump or call @b reads gives its
 * target (sy_jt_x86_hit): 1 yes or not known. */
static int sy_pl_x86_table(struct sy_pl_ctx *c, const struct sy_br *b,
			   uint64_t run)
{
	struct sy_loc l, lt;
	struct sy_jt_ro r;
	const struct sy_jt_code k = sy_jt_ro_code(&r);
	struct sy_pl_key key = { .type = SY_PL_M_XTABLE };
	const struct sy_pl_memo_ent *e;
	int v;

	/* (a run longer than the analysis reads is not known) */
	if (b->from - run >= 0x800 || !sy_pl_locate(c, b->from, &l) ||
	    (l.map->flags & SY_MAP_KERNEL) || !sy_pl_locate(c, b->to, &lt) ||
	    lt.off >> 53)
		return 1;
	key.img = l.img;
	key.img2 = lt.img;
	key.a = l.off;
	key.b = (b->from - run) | lt.off << 11;
	if ((e = sy_pl_memo_get(&c->p->memo, &key)))
		return e->verdict == SY_PL_OK;
	r.img = l.img;
	r.bias = l.vaddr - b->from;
	v = sy_jt_x86_hit(&k, &c->p->dec, b, run, r.bias == 0);
	return sy_pl_memo_put(&c->p->memo, &key, v ? SY_PL_OK : SY_PL_BAD, NULL) ==
	       SY_PL_OK;
}

/* The checks of @b that read only the code, for a branch the seen table
 * does not hold (sy_pl_code): where its ends are, its encoding, and the
 * straight run from @prev's target (@from, when @run or @xrun) to it; kept
 * in @e (@ej) when they pass.  Returns 1 with @why when one fails.  Apart
 * from the lookup, so that the loop over branches the table holds keeps
 * its values in registers. */
static __attribute__((noinline)) int
sy_pl_code_check(struct sy_pl_ctx *c, const struct sy_br *b,
		 const struct sy_br *prev, int run, int xrun, uint64_t from,
		 struct sy_pl_seen *e, char *why, size_t len)
{
	const struct sy_jt_code jt = { sy_pl_jt_read, sy_pl_jt_fixed, c };
	uint32_t gen = c->p->seen.gen;
	struct sy_pl_seen_jt *ej = &c->p->seen.jt[e - c->seen];
	int jump = run && b->kind == SY_BR_IND_JUMP, table = 0;
	uint64_t lo, hi;

	if (sy_pl_places(c, b, why, len) || sy_pl_direct(c, b, why, len))
		return 1;
	if (run && sy_pl_range(c, prev->to, b->from) == SY_PL_BAD)
		return SY_PL_WHY("straight run crosses a branch: %#" PRIx64
				 " -> %#" PRIx64 " then %#" PRIx64 " -> "
				 "%#" PRIx64, prev->from, prev->to, b->from,
				 b->to);
	if (jump && (table = sy_jt_range(&jt, b, prev->to, &lo, &hi)) &&
	    (b->to < lo || b->to > hi))
		return SY_PL_WHY("indirect jump outside its table's reach: "
				 "%#" PRIx64 " -> %#" PRIx64 ", its entries "
				 "reach %#" PRIx64 "..%#" PRIx64,
				 b->from, b->to, lo, hi);
	if (table && !sy_jt_hit(&jt, b, prev, c->prev2))
		return SY_PL_WHY("indirect jump to no entry of its table: "
				 "%#" PRIx64 " -> %#" PRIx64, b->from, b->to);
	if (xrun && !sy_pl_x86_table(c, b, prev->to))
		return SY_PL_WHY("indirect %s to no entry of its table: "
				 "%#" PRIx64 " -> %#" PRIx64,
				 b->kind == SY_BR_IND_JUMP ? "jump" : "call",
				 b->from, b->to);
	e->run = from;
	e->from = b->from;
	e->to = b->to;
	e->land = 0;
	/* the kinds without the branches before: what the checks read
	 * unless the branch is an indirect jump whose run holds a table */
	e->kinds = sy_pl_kinds(b, NULL, NULL, gen);
	if (table) {
		e->kinds = sy_pl_kinds(b, prev, c->prev2, gen);
		ej->pfrom = prev->from;
		ej->p2to = c->prev2 ? c->prev2->to : 0;
	}
	return 0;
}

/* What the lookups of a sequence's branches read, loaded once per
 * sequence into registers: the loop's byte stores (the landing verdicts)
 * may alias anything, so fields read through the context were loaded again
 * for each branch. */
struct sy_pl_look {
	uint32_t gen;			/* c->p->seen.gen */
	uint32_t genw;			/* sy_pl_kinds(, NULL, NULL, gen), no kind */
	struct sy_pl_seen *v;		/* c->seen */
	struct sy_pl_seen_jt *jt;	/* c->p->seen.jt */
};

/* The checks of @b that read only the code (sy_pl_code_check), unless
 * the seen table holds @b with every input they read: *@seen is its
 * entry.  Returns 1 with @why when one fails.  @etm (the trace's ISA) and
 * @after (1: @prev is not NULL) are constants where it is inlined, so
 * that each loop over branches tests only what its ISA reads. */
static inline __attribute__((always_inline)) int
sy_pl_code(struct sy_pl_ctx *c, struct sy_pl_look t, const int etm,
	   const int after, const struct sy_br *b, const struct sy_br *prev,
	   struct sy_pl_seen **seen, char *why, size_t len)
{
	int run = (after || prev) && etm && prev->kind != SY_BR_SYSCALL &&
		  prev->kind != SY_BR_ERET;
	/* x86: an indexed jump or call reads its table's bound from its
	 * straight run, which starts at the previous branch's target */
	int xrun = (after || prev) && !etm &&
		   (b->kind == SY_BR_IND_JUMP || b->kind == SY_BR_IND_CALL) &&
		   prev->kind != SY_BR_SYSCALL && prev->kind != SY_BR_ERET &&
		   prev->to <= b->from;
	uint64_t from = run || xrun ? prev->to : UINT64_MAX;
	size_t at = sy_pl_seen_slot(from, b->from, b->to);
	struct sy_pl_seen *e = &t.v[at];

	*seen = e;
	if (e->from == b->from && e->to == b->to && e->run == from) {
		if (e->kinds == ((uint32_t)(b->kind + 1) | t.genw))
			return 0;
		if (run && b->kind == SY_BR_IND_JUMP &&
		    e->kinds == sy_pl_kinds(b, prev, c->prev2, t.gen) &&
		    t.jt[at].pfrom == prev->from &&
		    t.jt[at].p2to == (c->prev2 ? c->prev2->to : 0))
			return 0;
	}
	return sy_pl_code_check(c, b, prev, run, xrun, from, e, why, len);
}

/* The kinds of branch whose checks depend on the branches before them
 * beyond the code (the open calls, the suspect count). */
#define SY_PL_FLOW_KINDS                                                     \
	(1u << SY_BR_CALL | 1u << SY_BR_IND_CALL | 1u << SY_BR_IND_JUMP |    \
	 1u << SY_BR_RET)

/* The checks of @b that follow the calls: @land is its landing verdict
 * (0: not found yet; then it is found and kept there).  Every case, for
 * what sy_pl_flow does not settle inline. */
static __attribute__((noinline)) int
sy_pl_flow_slow(struct sy_pl_ctx *c, const struct sy_br *b, uint8_t *land,
		char *why, size_t len)
{
	switch (b->kind) {
	case SY_BR_CALL:
		sy_pl_call(c, b);
		return 0;
	case SY_BR_IND_CALL:
		if (sy_pl_indirect(c, b, land, why, len))
			return 1;
		sy_pl_call(c, b);
		return 0;
	case SY_BR_IND_JUMP:
		return sy_pl_indirect(c, b, land, why, len);
	case SY_BR_RET:
		if (sy_pl_indirect(c, b, land, why, len))
			return 1;
		sy_pl_return(c, b);
		return 0;
	default:
		return 0;
	}
}

/* sy_pl_flow_slow's most common cases, settled inline with what they
 * change (a third of the branches are calls, returns and indirect
 * branches, and the call to the whole function, with its prologue and
 * epilogue, was most of their cost): an A64 call with room on the stack
 * (its return address is 4 bytes on), a return to the newest open call,
 * an indirect jump or call whose landing verdict, found before, is its
 * own function or another's entry (nothing more to do).  The rest: the
 * slow path, which does all. */
static inline int sy_pl_flow(struct sy_pl_ctx *c, const struct sy_br *b,
			     uint8_t *land, char *why, size_t len)
{
	unsigned n = c->nr_ras;
	/* a verdict found before (not 0), and one that asks nothing more */
	int plain = (uint8_t)(*land - (SY_PL_HOME + 1)) <= SY_PL_ENTRY - SY_PL_HOME;

	switch (b->kind) {
	case SY_BR_IND_CALL:
		if (!plain)
			break;
		/* fall through */
	case SY_BR_CALL:
		if (!c->etm || n == SY_PL_STACK)
			break;
		c->ras[n] = b->from + 4;
		c->nr_ras = n + 1;
		return 0;
	case SY_BR_IND_JUMP:
		if (plain)
			return 0;
		break;
	case SY_BR_RET:
		/* (a return's verdict, once found, is 0xff) */
		if (*land && c->stack_ok && n && c->ras[n - 1] == b->to) {
			c->nr_ras = n - 1;
			return 0;
		}
		break;
	default:
		return 0;
	}
	return sy_pl_flow_slow(c, b, land, why, len);
}

/* Checks the branches @seq[@k - 1] down to @seq[0] (oldest first) after
 * @prev (NULL only when @after is 0 and @k is 1): their landing verdicts
 * into @land, the indices of those with flow checks appended to @flow
 * (*@nflow of them).  Returns 1 with @why when one fails.  Inlined with
 * @etm and @after constant (sy_pl_code). */
static inline __attribute__((always_inline)) int
sy_pl_branches(struct sy_pl_ctx *c, struct sy_pl_look t, const int etm,
	       const int after, const struct sy_br *seq, unsigned k,
	       const struct sy_br *prev, uint8_t *land, uint8_t *flow,
	       unsigned *nflow, char *why, size_t len)
{
	unsigned nf = *nflow;

	while (k-- > 0) {
		const struct sy_br *b = &seq[k];
		struct sy_pl_seen *seen;

		if (sy_pl_code(c, t, etm, after, b, prev, &seen, why, len))
			return 1;
		/* (the others have no flow checks: most branches skip it) */
		if (SY_PL_FLOW_KINDS >> (b->kind & 31) & 1) {
			if (sy_pl_flow(c, b, &seen->land, why, len))
				return 1;
			flow[nf++] = (uint8_t)k;
		}
		land[k] = seen->land;
		c->prev2 = prev;
		prev = b;
	}
	*nflow = nf;
	return 0;
}

/* The @n branches @seq (newest first, as the ring holds them, with the
 * @nctx of the stretch before them at seq[n...]), oldest first.  A
 * sequence kept as proven (proven.h) has every input of the code checks
 * of each branch equal to one that passed them, so only its branches that
 * follow the calls are checked, with the landing verdicts found then;
 * another is checked branch by branch and, when it passes, kept. */
static int sy_pl_sequence(struct sy_pl_ctx *c, const struct sy_br *seq,
			  unsigned n, unsigned nctx, char *why, size_t len)
{
	const struct sy_proven_seq *s =
		sy_proven_find(&c->p->proven, seq, n, nctx);
	const struct sy_br *prev = nctx ? &seq[n] : NULL;
	const struct sy_pl_look t = { c->p->seen.gen, c->p->seen.gen << 24,
				      c->seen, c->p->seen.jt };
	uint8_t land[SY_PROVEN_LEN], flow[SY_PROVEN_LEN];
	unsigned nflow = 0, m = n;	/* m: the branches left */

	if (s) {
		for (unsigned i = 0; i < s->nflow; i++) {
			unsigned k = s->flow[i];
			uint8_t l = s->land[k];

			if (sy_pl_flow(c, &seq[k], &l, why, len))
				return 1;
		}
		return 0;
	}
	c->prev2 = nctx > 1 ? &seq[n + 1] : NULL;
	/* a stretch's first branch has none before it: checked alone, so
	 * that the loops know there is one */
	if (!prev) {
		m--;
		if (sy_pl_branches(c, t, c->etm, 0, seq + m, 1, NULL,
				   land + m, flow, &nflow, why, len))
			return 1;
		/* (its index in @seq) */
		if (nflow)
			flow[0] = (uint8_t)m;
		prev = &seq[m];
	}
	if (c->etm ? sy_pl_branches(c, t, 1, 1, seq, m, prev, land, flow,
				    &nflow, why, len) :
		     sy_pl_branches(c, t, 0, 1, seq, m, prev, land, flow,
				    &nflow, why, len))
		return 1;
	if (sy_proven_again(&c->p->proven, seq, n, nctx))
		sy_proven_put(&c->p->proven, seq, n, nctx, flow, nflow, land);
	return 0;
}

/* The branches of one stretch, oldest first, SY_PROVEN_LEN at a time. */
static int sy_pl_stretch(struct sy_pl_ctx *c, const struct sy_stretch *st,
			 char *why, size_t len)
{
	/* a closed stretch's ring is newest first: ring[i - 1] is the
	 * oldest branch not checked yet */
	for (uint32_t i = st->len; i > 0;) {
		unsigned n = i < SY_PROVEN_LEN ? i : SY_PROVEN_LEN;
		uint32_t before = st->len - i;
		unsigned nctx = before < SY_PROVEN_CTX ? before : SY_PROVEN_CTX;

		i -= n;
		if (sy_pl_sequence(c, &st->ring[i], n, nctx, why, len))
			return 1;
	}
	return 0;
}

/* The calls still open at the pause and the pause sample's callchain.
 * A frame-pointer unwinder sees the return address of each frame that has
 * a frame record: a leaf function without one (or one in its prologue or
 * epilogue) hides the newest call, and a tail call keeps the return
 * address.  AArch64 code keeps frame records in every non-leaf function
 * (GCC and Clang defaults, the AAPCS64 frame chain), so the callchain's
 * first caller frame is the newest open call's return or the one below it.
 * x86-64 code is built without frame pointers by default (glibc is), so an
 * unwinder may skip any number of frames there: nothing can be told. */
static int sy_pl_open_calls(struct sy_pl_ctx *c, char *why, size_t len)
{
	const struct sy_window *p = &c->w->pub;
	unsigned n = c->nr_ras;
	uint64_t caller;

	if (c->p->arch != SY_TRACE_ETM || !p->has_pause ||
	    p->nr_callchain < 2 || !c->stack_ok || n < 2)
		return 0;
	caller = p->callchain[1];
	(void)why;
	(void)len;
	/* a frame chain is not always whole (hand-written code, a
	 * context switched under it): disagreeing is only suspect */
	if (caller != c->ras[n - 1] && caller != c->ras[n - 2])
		sy_pl_suspect(c, SY_SUS_CALLCHAIN, caller, c->ras[n - 1]);
	return 0;
}

int sy_plausible_window(struct sy_plausible *p, const struct sy_win *w,
			char *why, size_t len, struct sy_pl_suspects *sus)
{
	struct sy_pl_ctx c;
	int r = 0;

	/* (set here, not read back from *@sus just after zeroing it: a
	 * store-forwarding stall a window at a time) */
	c.sus = (struct sy_pl_suspects){ 0 };
	if (!w->snap) {
		*sus = c.sus;
		return 0;
	}
	/* field by field: a memset of them all was a `rep stos`, slower
	 * to start than the rest of a short window's setup */
	c.nr_ras = 0;
	c.stack_ok = 0;
	c.next_map = c.next_code = 0;
	c.prev2 = NULL;
	memset(c.maps, 0, sizeof(c.maps));
	memset(c.lo, 0, sizeof(c.lo));
	memset(c.hi, 0, sizeof(c.hi));
	c.p = p;
	c.etm = p->arch == SY_TRACE_ETM;
	c.w = w;
	c.snap = w->snap;
	c.id = w->pub.tid;
	c.seen = p->seen.v;
	if (p->seen_serial != sy_proc_snap_serial(c.snap) ||
	    p->seen_id != c.id) {
		/* another snapshot or thread: every input of the seen and
		 * proven branches' verdicts is their addresses and the code
		 * the two spaces map there, so they stay while the mappings
		 * are the same */
		const struct sy_aspace *as = sy_proc_snap_aspace(c.snap, c.id);
		const struct sy_aspace *kernel = sy_proc_snap_kernel(c.snap);

		if (!p->snap || !sy_aspace_same(as, p->as) ||
		    !sy_aspace_same(kernel, p->kernel)) {
			sy_pl_seen_clear(&p->seen);
			sy_proven_clear(&p->proven);
		}
		sy_proc_snap_put(p->snap);
		p->snap = sy_proc_snap_get(w->snap);
		p->seen_serial = sy_proc_snap_serial(c.snap);
		p->seen_id = c.id;
		p->as = as;
		p->kernel = kernel;
	}
	c.as = p->as;
	c.kernel = p->kernel;
	c.proc_known = c.as != NULL;
	for (size_t i = 0; i < w->nr_st; i++) {
		const struct sy_stretch *st = &w->st[i];

		if (st->flags & SY_SF_NOTHING)
			continue;
		/* a run of joined stretches keeps its calls; a stretch whose
		 * oldest branches were dropped starts without them */
		if (!i || !sy_stretch_joins(&w->st[i - 1], st) ||
		    st->branches > st->len || (st->flags & SY_SF_CUT)) {
			c.nr_ras = 0;
			c.stack_ok = 1;
		}
		if ((r = sy_pl_stretch(&c, st, why, len)))
			break;
	}
	if (!r)
		r = sy_pl_open_calls(&c, why, len);
	*sus = c.sus;
	return r;
}
