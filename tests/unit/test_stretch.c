/* Stretch assembly, sample aggregation and the llvm-profgen writer.
 * Expected values follow from the rules in stretch.h and
 * ../shared/reference/llvm-profgen.md, worked out by hand per case. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "synth/stretch.h"
#include "sy_bytes.h"
#include "sy_test.h"

static struct sy_dec_item item(int kind, uint64_t from, uint64_t to,
			       uint32_t code, uint64_t ninsn)
{
	struct sy_dec_item it;

	memset(&it, 0, sizeof(it));
	it.kind = (uint8_t)kind;
	it.from = from;
	it.to = to;
	it.code = code;
	it.ninsn = ninsn;
	it.br = SY_BR_COND;
	return it;
}

static void push(struct sy_stretcher *st, struct sy_dec_item it)
{
	cr_assert_eq(sy_stretcher_push(st, &it), 0);
}

Test(stretch, window_with_ring_and_stop)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	struct sy_br out[8];
	size_t n;

	sy_stretcher_init(&st, 4);
	push(&st, item(SY_DEC_START, 0, 0x1000, 0, 0));
	for (uint64_t i = 0; i < 10; i++)
		push(&st, item(SY_DEC_BRANCH, 0x1000 + i * 16, 0x2000 + i * 16,
			       0, 3));
	push(&st, item(SY_DEC_STOP, 0, 0x9000, SY_STOP_EXCEPTION, 2));
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(v[0].start_addr, 0x1000);
	cr_assert_eq(v[0].end_addr, 0x9000);
	cr_assert(v[0].flags & SY_SF_STOPPED);
	cr_assert_eq(v[0].branches, 10);
	cr_assert_eq(v[0].insns, 32);
	/* depth 4: the four newest, newest first */
	cr_assert_eq(sy_stretch_stack(&v[0], out, 8), 4);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(out[i].from, 0x1000 + (uint64_t)(9 - i) * 16);
		cr_assert_eq(out[i].to, 0x2000 + (uint64_t)(9 - i) * 16);
	}
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}

Test(stretch, whole_window_keeps_everything)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	struct sy_br *out = calloc(1000, sizeof(*out));
	size_t n;

	sy_stretcher_init(&st, 0);
	push(&st, item(SY_DEC_START, 0, 0x1000, 0, 0));
	for (uint64_t i = 0; i < 1000; i++)
		push(&st, item(SY_DEC_BRANCH, i, i + 1, 0, 1));
	cr_assert_eq(sy_stretcher_finish(&st), 0);
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(sy_stretch_stack(&v[0], out, 1000), 1000);
	for (uint64_t i = 0; i < 1000; i++)
		cr_assert_eq(out[i].from, 999 - i);
	cr_assert_not(v[0].flags & SY_SF_STOPPED, "ended without a STOP");
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
	free(out);
}

/* Rings are cut from shared blocks (stretch.c): the newest grows and
 * shrinks in place, one too big goes to malloc, and a block lives until its
 * last ring is freed.  Stretches of many lengths, taken mid-stretch now and
 * then, freed in a scrambled order (half of them on another thread), must
 * each keep exactly their own branches. */
struct freer {
	struct sy_stretch *v;
	size_t n;
};

static void *free_odd(void *arg)
{
	struct freer *f = arg;

	for (size_t i = 1; i < f->n; i += 2)
		sy_stretch_release(&f->v[i]);
	return NULL;
}

static void rings_check(uint32_t depth)
{
	enum { NS = 400 };
	struct sy_stretcher st;
	struct sy_stretch all[NS + 1];
	uint32_t len[NS];
	size_t nall = 0;
	uint64_t seed = 12345;
	struct sy_br *out = calloc(2048, sizeof(*out));

	cr_assert_not_null(out);
	sy_stretcher_init(&st, depth);
	for (uint32_t k = 0; k < NS; k++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		/* mostly short and long in turn, now and then past a block's
		 * quarter (malloc'd) */
		len[k] = (uint32_t)(seed >> 33) % (k % 3 ? 40 : 900) + 1;
		push(&st, item(SY_DEC_START, 0, (uint64_t)k << 20, 0, 0));
		for (uint32_t j = 0; j < len[k]; j++) {
			uint64_t f = ((uint64_t)k << 20) | j;

			push(&st, item(SY_DEC_BRANCH, f, f + 1, 0, 1));
			if (k % 37 == 5 && j == len[k] / 2) {
				/* a slice ends mid-stretch */
				size_t n;
				struct sy_stretch *v = sy_stretcher_take(&st,
									 &n);

				for (size_t i = 0; i < n; i++)
					all[nall++] = v[i];
				free(v);
			}
		}
		push(&st, item(SY_DEC_STOP, 0, ((uint64_t)k << 20) + 0xfff,
			       SY_STOP_EXCEPTION, 1));
	}
	{
		size_t n;
		struct sy_stretch *v = sy_stretcher_take(&st, &n);

		for (size_t i = 0; i < n; i++)
			all[nall++] = v[i];
		free(v);
	}
	cr_assert_eq(nall, NS);
	for (uint32_t k = 0; k < NS; k++) {
		uint32_t want = depth && len[k] > depth ? depth : len[k];
		uint32_t got = sy_stretch_stack(&all[k], out, 2048);

		cr_assert_eq(got, want, "stretch %u: %u branches, not %u", k,
			     got, want);
		for (uint32_t i = 0; i < got; i++)
			cr_assert_eq(out[i].from,
				     ((uint64_t)k << 20 | (len[k] - 1 - i)),
				     "stretch %u, branch %u", k, i);
	}
	sy_stretcher_fini(&st);
	/* scrambled: the even ones here backwards, the odd ones on a
	 * thread */
	struct freer f = { all, nall };
	pthread_t t;

	cr_assert_eq(pthread_create(&t, NULL, free_odd, &f), 0);
	for (size_t i = nall; i-- > 0;)
		if (!(i & 1))
			sy_stretch_release(&all[i]);
	pthread_join(t, NULL);
	free(out);
}

Test(stretch, rings_from_blocks_keep_their_own_branches)
{
	rings_check(0);
	rings_check(16);
}

Test(stretch, excursions_end_stretches_that_join)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	size_t n;

	sy_stretcher_init(&st, 64);
	push(&st, item(SY_DEC_START, 0, 0x1000, 0, 0));
	push(&st, item(SY_DEC_BRANCH, 0x1004, 0x1100, 0, 2));
	push(&st, item(SY_DEC_STOP, 0x1108, 0x110c, SY_STOP_SYSCALL, 3));
	push(&st, item(SY_DEC_START, 0, 0x110c, 0, 0));
	push(&st, item(SY_DEC_BRANCH, 0x1110, 0x1200, 0, 2));
	/* an interrupt, back where it left */
	push(&st, item(SY_DEC_STOP, 0, 0x1208, SY_STOP_EXCEPTION, 2));
	push(&st, item(SY_DEC_START, 0, 0x1208, 0, 0));
	/* back elsewhere (a signal, another thread): no join */
	push(&st, item(SY_DEC_STOP, 0x1208, 0x120c, SY_STOP_SYSCALL, 1));
	push(&st, item(SY_DEC_START, 0, 0x5000, 0, 0));
	push(&st, item(SY_DEC_STOP, 0, 0x5010, SY_STOP_EXCEPTION, 4));
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 4);
	cr_assert_eq(v[0].start_addr, 0x1000);
	cr_assert_eq(v[0].end_addr, 0x110c);
	cr_assert_eq(v[0].stop_reason, SY_STOP_SYSCALL);
	cr_assert(sy_stretch_joins(&v[0], &v[1]));
	cr_assert(sy_stretch_joins(&v[1], &v[2]));
	cr_assert_not(sy_stretch_joins(&v[2], &v[3]));
	cr_assert_eq(v[3].end_addr, 0x5010);
	/* an overflow between them breaks the join */
	v[2].flags |= SY_SF_OVERFLOW;
	cr_assert_not(sy_stretch_joins(&v[1], &v[2]));
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}

Test(stretch, context_change_cuts_the_ring)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	struct sy_br out[8];
	size_t n;

	sy_stretcher_init(&st, 8);
	push(&st, item(SY_DEC_CONTEXT, 0, 0, 100, 0));
	push(&st, item(SY_DEC_START, 0, 0x1000, 0, 0));
	push(&st, item(SY_DEC_BRANCH, 1, 2, 0, 1));
	push(&st, item(SY_DEC_BRANCH, 3, 4, 0, 1));
	push(&st, item(SY_DEC_CONTEXT, 0, 0, 100, 0)); /* same: no cut */
	push(&st, item(SY_DEC_CONTEXT, 0, 0, 200, 0));
	push(&st, item(SY_DEC_BRANCH, 5, 6, 0, 1));
	push(&st, item(SY_DEC_STOP, 0, 7, SY_STOP_EXCEPTION, 1));
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 1);
	cr_assert(v[0].flags & SY_SF_CONTEXT);
	cr_assert_eq(v[0].ctxid, 200);
	cr_assert_eq(sy_stretch_stack(&v[0], out, 8), 1);
	cr_assert_eq(out[0].from, 5);
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}

Test(stretch, errors_and_overflow_are_discontinuities)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	size_t n;

	sy_stretcher_init(&st, 8);
	push(&st, item(SY_DEC_START, 0, 0x10, 0, 0));
	push(&st, item(SY_DEC_BRANCH, 0x14, 0x20, 0, 2));
	push(&st, item(SY_DEC_OVERFLOW, 0, 0, 0, 0));
	/* bytes that never decoded, outside any stretch: a stretch of
	 * nothing but the error, so the window it falls in is told */
	struct sy_dec_item e = item(SY_DEC_ERROR, 0, 0, 77, 0);
	e.offset = 123;
	push(&st, e);
	push(&st, item(SY_DEC_START, 0, 0x40, 0, 0));
	push(&st, item(SY_DEC_STOP, 0, 0x44, SY_STOP_EXCEPTION, 1));
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 3);
	cr_assert(v[0].flags & SY_SF_OVERFLOW);
	cr_assert(v[1].flags & SY_SF_ERROR);
	cr_assert(v[1].flags & SY_SF_NOTHING);
	cr_assert_eq(v[1].first_error, 77);
	cr_assert_eq(v[1].first_error_off, 123);
	cr_assert_eq(v[2].start_addr, 0x40);
	cr_assert_not(v[2].flags & (SY_SF_ERROR | SY_SF_OVERFLOW));
	cr_assert_not(sy_stretch_joins(&v[1], &v[2]));
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}

Test(stretch, own_timestamp_replaces_the_stand_in)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	size_t n;
	struct sy_dec_item t = item(SY_DEC_TIME, 0, 0, 0, 0);

	sy_stretcher_init(&st, 8);
	t.time = 500;
	push(&st, t);
	push(&st, item(SY_DEC_START, 0, 0x10, 0, 0));
	t.time = 700;
	push(&st, t); /* the stretch's own, before its first branch */
	push(&st, item(SY_DEC_BRANCH, 1, 2, 0, 1));
	t.time = 900;
	push(&st, t);
	push(&st, item(SY_DEC_STOP, 0, 3, SY_STOP_EXCEPTION, 1));
	/* a stretch with no timestamp of its own keeps the stand-in */
	push(&st, item(SY_DEC_START, 0, 0x50, 0, 0));
	push(&st, item(SY_DEC_STOP, 0, 0x54, SY_STOP_EXCEPTION, 1));
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(v[0].t0, 700);
	cr_assert_eq(v[0].t1, 900);
	cr_assert_not(v[0].t0_stand_in);
	cr_assert_eq(v[1].t0, 900);
	cr_assert(v[1].t0_stand_in);
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}

/* A SY_DEC_BRANCHES item (the ETM fast path's atom runs) makes the
 * stretches its branches make pushed one by one, wherever it falls: as
 * the first thing after a gap (it opens a stretch), after a START, at the
 * start of a piece that goes on from the previous one (SY_SF_CONT: its
 * first branch's source is the start), over a ring that grows (depth 0)
 * or wraps (depth 4), and ended by a STOP or a context change. */
static void stretches_same(const struct sy_stretch *a, size_t na,
			   const struct sy_stretch *b, size_t nb)
{
	struct sy_br sa[64], sb[64];

	cr_assert_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		uint32_t ka = sy_stretch_stack(&a[i], sa, 64);
		uint32_t kb = sy_stretch_stack(&b[i], sb, 64);

		cr_assert_eq(a[i].start_addr, b[i].start_addr, "stretch %zu", i);
		cr_assert_eq(a[i].end_addr, b[i].end_addr);
		cr_assert_eq(a[i].last_from, b[i].last_from);
		cr_assert_eq(a[i].flags, b[i].flags);
		cr_assert_eq(a[i].insns, b[i].insns, "stretch %zu: %llu vs %llu",
			     i, (unsigned long long)a[i].insns,
			     (unsigned long long)b[i].insns);
		cr_assert_eq(a[i].branches, b[i].branches);
		cr_assert_eq(a[i].off0, b[i].off0);
		cr_assert_eq(a[i].off1, b[i].off1);
		cr_assert_eq(ka, kb);
		for (uint32_t k = 0; k < ka; k++) {
			cr_assert_eq(sa[k].from, sb[k].from);
			cr_assert_eq(sa[k].to, sb[k].to);
			cr_assert_eq(sa[k].kind, sb[k].kind);
		}
	}
}

/* Feeds @v[0..n) to a stretcher of @depth, SY_DEC_BRANCHES items as they
 * are (@whole) or as their branches one by one. */
static struct sy_stretch *feed(uint32_t depth, const struct sy_dec_item *v,
			       size_t n, int whole, int cont, size_t *nr)
{
	struct sy_stretcher st;
	struct sy_stretch *out;

	sy_stretcher_init(&st, depth);
	if (cont)
		cr_assert_eq(sy_stretcher_continue(&st, 0), 0);
	for (size_t i = 0; i < n; i++) {
		if (whole || v[i].kind != SY_DEC_BRANCHES) {
			cr_assert_eq(sy_stretcher_push(&st, &v[i]), 0);
			continue;
		}
		for (uint32_t k = 0; k < v[i].code; k++) {
			struct sy_dec_item b;

			sy_dec_run_branch(&v[i], k, &b);
			cr_assert_eq(sy_stretcher_push(&st, &b), 0);
		}
	}
	cr_assert_eq(sy_stretcher_finish(&st), 0);
	out = sy_stretcher_take(&st, nr);
	sy_stretcher_fini(&st);
	return out;
}

Test(stretch, branch_runs_equal_their_branches)
{
	static struct sy_dec_br br[40];
	struct sy_dec_run run = { br, 40, 0 };
	/* a run with no START before it, one after a START, a context
	 * change cutting one, a STOP; offsets 10, 11, ... */
	static const struct {
		int kind;
		uint64_t from, to;
		uint32_t code;
		uint64_t ninsn;
	} spec[] = {
		{ SY_DEC_BRANCHES, 0, 0, 40, 7 },
		{ SY_DEC_BRANCH, 0x9000, 0x9100, 0, 2 },
		{ SY_DEC_STOP, 0x9100, 0xa000, SY_STOP_SYSCALL, 1 },
		{ SY_DEC_START, 0, 0xa000, 0, 0 },
		{ SY_DEC_BRANCHES, 0, 0, 40, 3 },
		{ SY_DEC_CONTEXT, 0, 0, 77, 0 },
		{ SY_DEC_CONTEXT, 0, 0, 78, 0 },
		{ SY_DEC_BRANCHES, 0, 0, 40, 0 },
		{ SY_DEC_STOP, 0, 0xb000, SY_STOP_EXCEPTION, 4 },
	};
	struct sy_dec_item v[SY_ARRAY_SIZE(spec)];
	size_t n = SY_ARRAY_SIZE(spec);

	for (uint32_t i = 0; i < 40; i++) {
		br[i] = (struct sy_dec_br){ 0x1000 + 16 * i, 0x1004 + 16 * i,
					    i % 5, SY_BR_COND + i % 3 };
		run.ninsn += br[i].ninsn;
	}
	for (size_t i = 0; i < n; i++) {
		v[i] = item(spec[i].kind, spec[i].from, spec[i].to,
			    spec[i].code, spec[i].ninsn);
		v[i].offset = 10 + i;
		if (spec[i].kind == SY_DEC_BRANCHES)
			v[i].run = &run;
	}
	for (uint32_t depth = 0; depth <= 4; depth += 4)
		for (int cont = 0; cont <= 1; cont++) {
			size_t na, nb;
			struct sy_stretch *a = feed(depth, v, n, 0, cont, &na);
			struct sy_stretch *b = feed(depth, v, n, 1, cont, &nb);

			cr_assert_eq(na, 2, "%zu stretches", na);
			stretches_same(a, na, b, nb);
			sy_stretch_free_all(a, na);
			sy_stretch_free_all(b, nb);
		}
}

/* A closed stretch's ring is newest first: a stack its newest stretch
 * holds is that ring as it is (nothing allocated), at most depth of it; a
 * stack across joined stretches is a copy, newest first. */
Test(stretch, stack_is_the_newest_stretch_as_it_is)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	struct sy_stack_mem sm;
	const struct sy_br *stack;
	uint32_t nr;
	size_t n;

	sy_stretcher_init(&st, 0);
	push(&st, item(SY_DEC_START, 0, 0x100, 0, 0));
	for (uint64_t i = 0; i < 10; i++)
		push(&st, item(SY_DEC_BRANCH, 0x100 + i, 0x200 + i, 0, 1));
	/* a syscall that comes back where it left: the next joins it */
	push(&st, item(SY_DEC_STOP, 0, 0x300, SY_STOP_SYSCALL, 1));
	push(&st, item(SY_DEC_START, 0, 0x300, 0, 0));
	for (uint64_t i = 0; i < 3; i++)
		push(&st, item(SY_DEC_BRANCH, 0x300 + i, 0x400 + i, 0, 1));
	cr_assert_eq(sy_stretcher_finish(&st), 0);
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 2);
	cr_assert(sy_stretch_joins(&v[0], &v[1]));
	/* the first alone: its own ring, the newest 4 or all 10 */
	cr_assert_eq(sy_stretch_stack_upto(v, 0, 4, NULL, &sm, &stack, &nr), 0);
	cr_assert_eq(stack, v[0].ring);
	cr_assert_null(sm.v);
	cr_assert_eq(nr, 4);
	cr_assert_eq(stack[0].from, 0x109);
	cr_assert_eq(stack[3].from, 0x106);
	cr_assert_eq(sy_stretch_stack_upto(v, 0, 0, NULL, &sm, &stack, &nr), 0);
	cr_assert_eq(stack, v[0].ring);
	cr_assert_eq(nr, 10);
	/* up to the second: 3 of its own, within its ring at depth 2 */
	cr_assert_eq(sy_stretch_stack_upto(v, 1, 2, NULL, &sm, &stack, &nr), 0);
	cr_assert_eq(stack, v[1].ring);
	cr_assert_eq(nr, 2);
	/* at depth 5 the run's: a copy, the second's 3 then the first's */
	cr_assert_eq(sy_stretch_stack_upto(v, 1, 5, NULL, &sm, &stack, &nr), 0);
	cr_assert_not_null(sm.v);
	cr_assert_eq(stack, sm.v);
	cr_assert_eq(nr, 5);
	cr_assert_eq(stack[0].from, 0x302);
	cr_assert_eq(stack[2].from, 0x300);
	cr_assert_eq(stack[3].from, 0x109);
	cr_assert_eq(stack[4].from, 0x108);
	sy_stack_mem_free(&sm);
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}

/* Cycle counts (a cycle-accurate ETM trace): each stretch sums those that
 * come while it is open; one that comes between stretches (a count up to
 * the next P0 element, reported before its START) is the next stretch's;
 * a stretch appended to another brings its own; a stretch without any
 * says it has none. */
Test(stretch, cycle_counts)
{
	struct sy_stretcher st;
	struct sy_stretch *v;
	struct sy_dec_item c;
	size_t n;

	sy_stretcher_init(&st, 8);
	push(&st, item(SY_DEC_START, 0, 0x1000, 0, 0));
	c = item(SY_DEC_CYCLES, 0, 0, 7, 0);
	push(&st, c);
	push(&st, item(SY_DEC_BRANCH, 0x1004, 0x1100, 0, 2));
	c.code = 11;
	push(&st, c);
	push(&st, item(SY_DEC_STOP, 0, 0x1108, SY_STOP_EXCEPTION, 3));
	c.code = 5;
	push(&st, c);		/* between: the next stretch's */
	push(&st, item(SY_DEC_START, 0, 0x2000, 0, 0));
	c.code = 0;
	push(&st, c);		/* a count of none is still a count */
	push(&st, item(SY_DEC_BRANCH, 0x2004, 0x2100, 0, 2));
	push(&st, item(SY_DEC_STOP, 0, 0x2108, SY_STOP_EXCEPTION, 3));
	push(&st, item(SY_DEC_START, 0, 0x3000, 0, 0));
	push(&st, item(SY_DEC_BRANCH, 0x3004, 0x3100, 0, 2));
	push(&st, item(SY_DEC_STOP, 0, 0x3108, SY_STOP_EXCEPTION, 3));
	cr_assert_eq(sy_stretcher_finish(&st), 0);
	v = sy_stretcher_take(&st, &n);
	cr_assert_eq(n, 3);
	cr_assert(v[0].has_cycles);
	cr_assert_eq(v[0].cycles, 18);
	cr_assert(v[1].has_cycles);
	cr_assert_eq(v[1].cycles, 5);
	cr_assert_not(v[2].has_cycles);
	cr_assert_eq(v[2].cycles, 0);
	cr_assert_eq(sy_stretch_append(&v[0], &v[1], 8), 0);
	cr_assert_eq(v[0].cycles, 23);
	cr_assert(v[0].has_cycles);
	sy_stretch_free_all(v, n);
	sy_stretcher_fini(&st);
}
