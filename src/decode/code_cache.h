/* The decoders' one code-byte cache, in front of the caller's read_mem.
 *
 * Private to src/decode (tests and benchmarks include it by path).  Both
 * decoders read code through it: libipt's image callback (PT), OpenCSD's
 * memory callback and the block classifier of the ETM fast path.  In the
 * product read_mem walks a process snapshot (trie, then binary search over
 * the mappings) and copies from the image: too slow to call for every
 * instruction, and OpenCSD 1.3.3 asks for 256 bytes per miss of its own
 * 12 x 256-byte cache, libipt for 15 bytes per instruction.
 *
 * The cache keeps SY_CODE_PAGES whole 4 KiB pages, direct-mapped on the page
 * number and the context ID (two processes' copies of the same address do
 * not evict each other for context IDs one apart), plus a memo of pages
 * whose first byte is not mapped: a traced kernel without its image asks
 * for thousands of addresses in a few hundred such pages.  A page holds the
 * bytes read_mem gave for one range [lo, hi) of it, so mappings may start
 * and end anywhere.  The owner clears it for every window (the caller may
 * map other code then); keys carry the context ID, so a context change
 * needs nothing.
 */
#ifndef SY_CODE_CACHE_H
#define SY_CODE_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sy_decode.h"

#define SY_CODE_PAGE 4096u
#define SY_CODE_PAGES 16u
#define SY_CODE_DEAD 256u

/* Which page a slot holds (its bytes are in sy_code_cache.data): the keys
 * lie together, a few cache lines that a hit reads before the bytes. */
struct sy_code_page {
	uint64_t base;		/* page address; SY_CODE_NO_PAGE: empty */
	uint32_t ctxid;
	uint16_t lo, hi;	/* bytes [lo, hi) of the page are valid */
};

/* Never a page address (page addresses have their low 12 bits clear). */
#define SY_CODE_NO_PAGE UINT64_MAX

struct sy_code_cache {
	int on;			/* 0: every read goes to read_mem */
	struct sy_code_page page[SY_CODE_PAGES];
	sy_read_mem_fn read_mem;
	void *mem_ctx;
	uint64_t calls;		/* read_mem calls since the last clear */
	uint64_t dead[SY_CODE_DEAD];	/* page | 1, 0 = empty */
	uint32_t dead_ctx[SY_CODE_DEAD];
	uint8_t data[SY_CODE_PAGES][SY_CODE_PAGE];
};

/* Binds @c to @read_mem, turns it on and empties it. */
void sy_code_cache_init(struct sy_code_cache *c, sy_read_mem_fn read_mem,
			void *mem_ctx);
/* Forgets every page and the counter (a new window). */
void sy_code_cache_clear(struct sy_code_cache *c);

size_t sy_code_cache_read_slow(struct sy_code_cache *c, uint32_t ctxid,
			       uint64_t addr, uint8_t *buf, size_t len);

/* The slot of page @base of @ctxid. */
static inline unsigned sy_code_cache_slot(uint32_t ctxid, uint64_t base)
{
	return (unsigned)(((base >> 12) + 7ull * ctxid) % SY_CODE_PAGES);
}

/* Reads up to @len bytes at @addr of @ctxid; returns the bytes read
 * (contiguous from @addr), 0 when nothing is mapped there.  The hit is
 * inline: PT reads every instruction through here. */
static inline size_t sy_code_cache_read(struct sy_code_cache *c,
					uint32_t ctxid, uint64_t addr,
					uint8_t *buf, size_t len)
{
	uint64_t base = addr & ~(uint64_t)(SY_CODE_PAGE - 1);
	unsigned off = (unsigned)(addr - base);
	unsigned i = sy_code_cache_slot(ctxid, base);
	const struct sy_code_page *p = &c->page[i];

	if (p->base == base && p->ctxid == ctxid && off >= p->lo &&
	    len <= p->hi && off <= p->hi - len && c->on) {
		memcpy(buf, c->data[i] + off, len);
		return len;
	}
	return sy_code_cache_read_slow(c, ctxid, addr, buf, len);
}

/* The 4-byte little-endian word at @addr of @ctxid in *@w; returns 1, or
 * 0 when fewer than 4 bytes can be read there. */
static inline int sy_code_cache_word(struct sy_code_cache *c, uint32_t ctxid,
				     uint64_t addr, uint32_t *w)
{
	uint8_t b[4];

	if (sy_code_cache_read(c, ctxid, addr, b, 4) != 4)
		return 0;
	*w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	     (uint32_t)b[3] << 24;
	return 1;
}

#endif
