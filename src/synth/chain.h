/* A sample's callchain while it waits for its window: packed.
 *
 * The walk reads a sample long before a worker validates its window and
 * the output writes it: the decoders first have to reach its trace.  The
 * walk may read SY_AHEAD_MAX bytes of records ahead of them (walk.c), and
 * where samples outweigh the trace (deep callchains: a PT recording 37
 * times its trace) what those samples held was about 0.9 byte of heap per
 * byte walked, as uint64_t frames.  Held packed instead, each frame is
 * the zigzag varint of its difference from the frame before (the first:
 * from 0): a frame of the same function or object as the one before
 * takes 1-3 bytes, a recursion's repeated return address 1.  The worker
 * that validates the window unpacks it (the checks and the output read
 * arrays), so the packing is done once on the walk's thread and the
 * unpacking off it.
 */
#ifndef SY_SYNTH_CHAIN_H
#define SY_SYNTH_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "sy_blocks.h"

/* Bytes one packed frame takes at most (64 bits, 7 a byte). */
#define SY_CHAIN_FRAME_MAX 10

/* All zero: no frames. */
struct sy_chain {
	uint8_t *p;		/* the packed frames, NULL when none */
	struct sy_block *blk;	/* p's block, or NULL: malloc'd */
	uint32_t nr;		/* frames */
	uint32_t len;		/* bytes at p */
};

/* Packs frame @ip, which follows @prev (0 for the first), at @out:
 * returns the bytes written (1 to SY_CHAIN_FRAME_MAX). */
static inline size_t sy_chain_put(uint8_t *out, uint64_t prev, uint64_t ip)
{
	uint64_t d = ip - prev;
	uint64_t z = (d << 1) ^ (0 - (d >> 63));	/* zigzag */
	size_t n = 0;

	if (z < 0x80) {	/* most: a frame near the one before */
		*out = (uint8_t)z;
		return 1;
	}
	while (z >= 0x80) {
		out[n++] = (uint8_t)(z | 0x80);
		z >>= 7;
	}
	out[n++] = (uint8_t)z;
	return n;
}

/* The frame packed at *@p, which follows @prev; *@p moves past it.  Reads
 * only what sy_chain_put wrote. */
static inline uint64_t sy_chain_get(const uint8_t **p, uint64_t prev)
{
	const uint8_t *q = *p;
	uint64_t z = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t b = *q++;

		z |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	*p = q;
	return prev + ((z >> 1) ^ (0 - (z & 1)));
}

/* Room in @c for @max frames, cut from @mem (NULL, or too large for a
 * block: malloc'd), to fill with sy_chain_put (setting c->nr and c->len);
 * then sy_chain_fit.  Returns 0 or -SY_E_NOMEM (@c empty). */
int sy_chain_reserve(struct sy_chain *c, struct sy_blocks *mem, uint32_t max);
/* Gives back the room sy_chain_reserve(@c, @mem, @max) took beyond
 * c->len (where it can: the newest allocation of a block, or a malloc'd
 * array). */
void sy_chain_fit(struct sy_chain *c, struct sy_blocks *mem, uint32_t max);
/* The three at once: the @nr frames at @ip.  0 or -SY_E_NOMEM. */
int sy_chain_pack(struct sy_chain *c, struct sy_blocks *mem,
		  const uint64_t *ip, uint32_t nr);

/* The frames of @c, in a new array of c->nr cut from @mem (NULL, or too
 * large for a block: malloc'd; *@blk its block); @c stays (the caller
 * frees it, several at once: sy_chains_free).  No frames: *@out NULL.
 * Returns 0 or -SY_E_NOMEM. */
int sy_chain_unpack(struct sy_chain *c, struct sy_blocks *mem,
		    uint64_t **out, struct sy_block **blk);

/* Frees @c's bytes and empties it (NULL-safe; any thread). */
void sy_chain_free(struct sy_chain *c);
/* sy_chain_free on the chain of each of @nr elements of @stride bytes
 * from @first, a block's allocations freed together: the chains of a
 * window's samples were cut one after the other, and a free is an atomic
 * operation on a line another thread wrote (1.4% of pt-interp's CPU at
 * -j2, freed one by one). */
void sy_chains_free(struct sy_chain *first, size_t nr, size_t stride);

#endif
