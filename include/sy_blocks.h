/* Small allocations of one thread cut from shared blocks, each block freed
 * with the last allocation in it.
 *
 * The decoding threads make a window's branch rings and its stack; the
 * walk's thread frees them once the window is out.  Each malloc'd block
 * freed on the walk's thread took the allocating thread's malloc arena lock
 * while that thread allocated in it, and at -j2 the two queued on the lock
 * thousands of times a second.  Here the allocating side (struct
 * sy_blocks) belongs to one thread at a time and needs no lock; a block
 * counts its allocations still out atomically, so any thread frees
 * (sy_block_put), and only the last one calls free() (the allocating side
 * writes that count once per block, not per allocation: blocks.c).  The
 * newest allocation of the current block can grow and shrink in place (a
 * ring that doubles).
 *
 * A long-lived allocation keeps its whole block: allocations over
 * SY_BLOCKS_MAX bytes are refused (the caller mallocs them), which bounds
 * what one pins to SY_BLOCK_BYTES. */
#ifndef SY_BLOCKS_H
#define SY_BLOCKS_H

#include <stddef.h>

#define SY_BLOCK_BYTES ((size_t)64 << 10)
#define SY_BLOCKS_MAX (SY_BLOCK_BYTES / 4)

struct sy_block;

/* The allocating side; all zero is empty. */
struct sy_blocks {
	struct sy_block *cur;
	size_t used;		/* bytes of cur handed out */
	size_t handed;		/* allocations of cur handed out */
};

/* @size bytes (aligned to 8) from the current block, or from a new one when
 * it is full; *@blk is the block, to give to sy_block_put.  NULL when @size
 * is 0 or over SY_BLOCKS_MAX, or memory ran out: the caller mallocs. */
void *sy_blocks_alloc(struct sy_blocks *a, size_t size, struct sy_block **blk);
/* Gives @p (@old bytes from @blk) @size bytes in place, when it is the
 * newest allocation of the current block and the block has room: returns
 * 1; else 0, and nothing changed. */
int sy_blocks_resize(struct sy_blocks *a, const struct sy_block *blk, void *p,
		     size_t old, size_t size);
/* Stops cutting from the current block: it goes with its last allocation.
 * Also the allocating side's fini. */
void sy_blocks_drop(struct sy_blocks *a);
/* Frees one allocation of @blk (NULL-safe), from any thread. */
void sy_block_put(struct sy_block *blk);
/* Frees @n allocations of @blk at once (one atomic operation; NULL-safe,
 * and nothing when @n is 0). */
void sy_block_put_n(struct sy_block *blk, size_t n);
/* The allocations of @blk not freed yet, once the allocating side let go
 * of it (before: a larger number, see blocks.c).  For tests. */
size_t sy_block_out(struct sy_block *blk);
/* Frees @p: an allocation of @blk, or malloc'd when @blk is NULL. */
void sy_blocks_free(void *p, struct sy_block *blk);

#endif
