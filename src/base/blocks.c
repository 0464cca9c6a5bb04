#include "sy_blocks.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* The count of a block is shared by every thread that frees in it, so
 * the allocating side never writes it per allocation: a new block starts
 * charged with SY_BLOCK_BIAS, more than it can hand out, and the
 * allocating side counts what it hands out in its own struct; when it lets
 * go of the block, it takes back the charge it did not use, at once.
 * Before that the count cannot reach 0; after it, it reaches 0 with the
 * last free.  At -j2 an atomic add per allocation on a line the other core
 * was decrementing was 3.6% of a PT convert's CPU, most of it waiting for
 * that line (pt-interp, sy_blocks_alloc).  The count has its line to
 * itself: the bytes handed out next to it would bring it back.  (Not
 * aligned_alloc: glibc's memalign chunks were not reused as well, 0.85 MB
 * more heap on pt-deep.) */
#define SY_BLOCK_BIAS (SY_BLOCK_BYTES / 8 + 1)

struct sy_block {
	atomic_size_t refs;
	/* (malloc's alignment: the bytes handed out start 64 bytes on, past
	 * the count's line wherever it is) */
	unsigned char pad[64 - sizeof(atomic_size_t)];
	_Alignas(8) unsigned char mem[];
};

#define SY_BLOCK_ROOM (SY_BLOCK_BYTES - sizeof(struct sy_block))

static size_t sy_round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

void sy_block_put_n(struct sy_block *blk, size_t n)
{
	if (blk && n && atomic_fetch_sub_explicit(&blk->refs, n,
						  memory_order_acq_rel) == n)
		free(blk);
}

void sy_block_put(struct sy_block *blk)
{
	sy_block_put_n(blk, 1);
}

size_t sy_block_out(struct sy_block *blk)
{
	return atomic_load_explicit(&blk->refs, memory_order_acquire);
}

void sy_blocks_free(void *p, struct sy_block *blk)
{
	if (blk)
		sy_block_put(blk);
	else
		free(p);
}

/* Lets go of the current block: the charge its allocations did not use
 * goes back. */
static void sy_blocks_retire(struct sy_blocks *a)
{
	sy_block_put_n(a->cur, SY_BLOCK_BIAS - a->handed);
	a->cur = NULL;
	a->used = a->handed = 0;
}

void *sy_blocks_alloc(struct sy_blocks *a, size_t size, struct sy_block **blk)
{
	struct sy_block *b = a->cur;

	size = sy_round8(size);
	if (!size || size > SY_BLOCKS_MAX)
		return NULL;
	if (!b || a->used + size > SY_BLOCK_ROOM) {
		b = malloc(SY_BLOCK_BYTES);
		if (!b)
			return NULL;
		atomic_init(&b->refs, SY_BLOCK_BIAS);
		sy_blocks_retire(a);
		a->cur = b;
	}
	a->handed++;
	a->used += size;
	*blk = b;
	return b->mem + a->used - size;
}

int sy_blocks_resize(struct sy_blocks *a, const struct sy_block *blk, void *p,
		     size_t old, size_t size)
{
	struct sy_block *b = a->cur;

	old = sy_round8(old);
	size = sy_round8(size);
	if (!b || b != blk || (unsigned char *)p + old != b->mem + a->used ||
	    !size || size > SY_BLOCKS_MAX ||
	    a->used - old + size > SY_BLOCK_ROOM)
		return 0;
	a->used = a->used - old + size;
	return 1;
}

void sy_blocks_drop(struct sy_blocks *a)
{
	sy_blocks_retire(a);
}
