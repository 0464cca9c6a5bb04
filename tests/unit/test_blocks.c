/* Allocations cut from shared blocks (src/base/blocks.c): each keeps its
 * own bytes, the newest grows and shrinks in place, big ones are refused,
 * and blocks are freed by whichever thread frees their last allocation
 * (the leak and use-after-free checks are ASan's: make asan runs this
 * file). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sy_blocks.h"

enum { N = 3000 };

struct alloc {
	unsigned char *p;
	size_t size;
	struct sy_block *blk;
};

static void fill(struct alloc *a, unsigned seed)
{
	for (size_t i = 0; i < a->size; i++)
		a->p[i] = (unsigned char)(seed * 131 + i);
}

static int intact(const struct alloc *a, unsigned seed)
{
	for (size_t i = 0; i < a->size; i++)
		if (a->p[i] != (unsigned char)(seed * 131 + i))
			return 0;
	return 1;
}

struct half {
	struct alloc *a;
	size_t n;
};

static void *put_odd(void *arg)
{
	struct half *h = arg;

	for (size_t i = 1; i < h->n; i += 2)
		sy_block_put(h->a[i].blk);
	return NULL;
}

Test(blocks, allocations_keep_their_bytes_and_free_on_any_thread)
{
	struct sy_blocks b = { 0 };
	struct alloc *a = calloc(N, sizeof(*a));
	uint64_t seed = 7;
	size_t in_place = 0;

	cr_assert_not_null(a);
	for (unsigned k = 0; k < N; k++) {
		seed = seed * 6364136223846793005ULL + 1;
		a[k].size = (size_t)(seed >> 40) % 2000 + 1;
		a[k].p = sy_blocks_alloc(&b, a[k].size, &a[k].blk);
		cr_assert_not_null(a[k].p);
		cr_assert_eq((uintptr_t)a[k].p % 8, 0);
		fill(&a[k], k);
		/* now and then the newest grows, or gives back its tail */
		if (k % 5 == 0) {
			size_t to = k % 10 ? a[k].size * 2 : a[k].size / 2 + 1;

			if (sy_blocks_resize(&b, a[k].blk, a[k].p, a[k].size,
					     to)) {
				in_place++;
				if (to > a[k].size) {
					a[k].size = to;
					fill(&a[k], k);
				} else {
					a[k].size = to;
				}
			}
		}
		if (k % 700 == 699)
			sy_blocks_drop(&b);	/* a job's end */
	}
	cr_assert_gt(in_place, N / 10, "%zu resized in place", in_place);
	for (unsigned k = 0; k < N; k++)
		cr_assert(intact(&a[k], k), "allocation %u overwritten", k);
	sy_blocks_drop(&b);
	/* the odd ones on another thread, the even ones here */
	struct half h = { a, N };
	pthread_t t;

	cr_assert_eq(pthread_create(&t, NULL, put_odd, &h), 0);
	for (size_t i = 0; i < N; i += 2)
		sy_block_put(a[i].blk);
	pthread_join(t, NULL);
	free(a);
}

Test(blocks, only_the_newest_resizes_in_place)
{
	struct sy_blocks b = { 0 };
	struct sy_block *b1, *b2;
	void *p1 = sy_blocks_alloc(&b, 64, &b1);
	void *p2 = sy_blocks_alloc(&b, 64, &b2);

	cr_assert_eq(b1, b2);
	cr_assert_eq(sy_blocks_resize(&b, b1, p1, 64, 128), 0);
	cr_assert_eq(sy_blocks_resize(&b, b2, p2, 64, 128), 1);
	/* a block given up resizes nothing */
	sy_blocks_drop(&b);
	cr_assert_eq(sy_blocks_resize(&b, b2, p2, 128, 256), 0);
	sy_block_put(b1);
	sy_block_put(b2);
}

Test(blocks, big_and_empty_allocations_are_refused)
{
	struct sy_blocks b = { 0 };
	struct sy_block *blk = NULL;

	cr_assert_null(sy_blocks_alloc(&b, SY_BLOCKS_MAX + 1, &blk));
	cr_assert_null(sy_blocks_alloc(&b, 0, &blk));
	cr_assert_null(blk);
	void *p = sy_blocks_alloc(&b, SY_BLOCKS_MAX, &blk);

	cr_assert_not_null(p);
	cr_assert_eq(sy_blocks_resize(&b, blk, p, SY_BLOCKS_MAX,
				      SY_BLOCKS_MAX + 8), 0);
	sy_blocks_drop(&b);
	sy_block_put(blk);
}

/* The allocating side counts what it hands out and settles with the block
 * once, when it lets go: before that, every allocation freed does not
 * free the block (it still hands out, next to the last); after it, the
 * count is what is still out, and a block filled up and left for a new
 * one is settled the same way.  Thousands of allocations and frees in
 * one block, as many as it holds. */
Test(blocks, the_count_is_settled_when_the_block_is_let_go)
{
	struct sy_blocks b = { 0 };
	struct sy_block *blk, *first = NULL, *k;
	unsigned char *p, *last = NULL;
	size_t n = 0;

	/* 8-byte allocations until the block is full: each freed at once */
	for (;;) {
		p = sy_blocks_alloc(&b, 8, &blk);
		cr_assert_not_null(p);
		if (first && blk != first)
			break;
		first = blk;
		if (last)
			cr_assert_eq(p, last + 8);	/* still the same block */
		last = p;
		n++;
		sy_block_put(blk);
	}
	cr_assert_geq(n, SY_BLOCK_BYTES / 8 - 64 / 8 - 8);
	/* the full one was let go with none out, so it went (ASan); the new
	 * one has one out: kept by another after the allocator lets go */
	void *q = sy_blocks_alloc(&b, 8, &k);

	cr_assert_eq(k, blk);
	sy_blocks_drop(&b);
	cr_assert_eq(sy_block_out(blk), 2);
	sy_block_put(blk);
	cr_assert_eq(sy_block_out(blk), 1);
	sy_block_put(blk);	/* the last: freed */
	(void)q;
}
