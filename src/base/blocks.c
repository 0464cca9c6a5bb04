#include "sy_blocks.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

struct sy_block {
	atomic_size_t refs;	/* allocations in it, and the allocator's */
	size_t used;		/* bytes handed out (the allocator's only) */
	_Alignas(8) unsigned char mem[];
};

#define SY_BLOCK_ROOM (SY_BLOCK_BYTES - sizeof(struct sy_block))

static size_t sy_round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

void sy_block_put(struct sy_block *blk)
{
	if (blk && atomic_fetch_sub_explicit(&blk->refs, 1,
					     memory_order_acq_rel) == 1)
		free(blk);
}

void sy_blocks_free(void *p, struct sy_block *blk)
{
	if (blk)
		sy_block_put(blk);
	else
		free(p);
}

void *sy_blocks_alloc(struct sy_blocks *a, size_t size, struct sy_block **blk)
{
	struct sy_block *b = a->cur;

	size = sy_round8(size);
	if (!size || size > SY_BLOCKS_MAX)
		return NULL;
	if (!b || b->used + size > SY_BLOCK_ROOM) {
		b = malloc(SY_BLOCK_BYTES);
		if (!b)
			return NULL;
		atomic_init(&b->refs, 1);
		b->used = 0;
		sy_block_put(a->cur);
		a->cur = b;
	}
	atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
	b->used += size;
	*blk = b;
	return b->mem + b->used - size;
}

int sy_blocks_resize(struct sy_blocks *a, const struct sy_block *blk, void *p,
		     size_t old, size_t size)
{
	struct sy_block *b = a->cur;

	old = sy_round8(old);
	size = sy_round8(size);
	if (!b || b != blk || (unsigned char *)p + old != b->mem + b->used ||
	    !size || size > SY_BLOCKS_MAX ||
	    b->used - old + size > SY_BLOCK_ROOM)
		return 0;
	b->used = b->used - old + size;
	return 1;
}

void sy_blocks_drop(struct sy_blocks *a)
{
	sy_block_put(a->cur);
	a->cur = NULL;
}
