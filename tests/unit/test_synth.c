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

#include "../../src/synth/stretch.h"
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
