/* The ETM fast path's basic-block cache: from an address, how many
 * instructions OpenCSD's instruction walk (traceInstrToWP) covers up to
 * the next waypoint, and what that waypoint is.
 *
 * Private to the fast path.  A block is keyed by its start address, the
 * context ID its code is read in and whether WFI/WFE are waypoints (a
 * source's configuration).  It is filled on a miss by classifying the A64
 * instructions from the start (etm_a64.c) through the code cache, exactly
 * as OpenCSD reads them: 4 bytes at a time, and an address where fewer
 * than 4 bytes can be read (or past ETM_MEM_TOP, outside OpenCSD's memory
 * accessor) ends the walk without a waypoint (ADDR_NACC).  The cache is
 * emptied with the code cache, at every window. */
#ifndef SY_ETM_BLOCKS_H
#define SY_ETM_BLOCKS_H

#include <stdint.h>

#include "code_cache.h"

struct etm_block {
	uint64_t start;		/* ETM_NO_BLOCK: empty */
	uint64_t end;		/* just after the last instruction walked */
	uint64_t target;	/* direct branch: its destination */
	uint32_t ctxid;
	uint32_t ninsn;		/* instructions walked, waypoint included */
	uint8_t wfi_wfe;	/* key: WFI/WFE are waypoints */
	uint8_t nacc;		/* no waypoint: @end cannot be read */
	uint8_t type;		/* the waypoint's ocsd_instr_type */
	uint8_t subtype;	/* ... ocsd_instr_subtype */
	uint8_t link;		/* ... pushes a return address */
	uint8_t cond;		/* ... is conditional */
};

#define ETM_NO_BLOCK UINT64_MAX
#define ETM_BLOCKS 8192u	/* a power of two */

/* Entries filled since the last clear that are remembered, so that a
 * clear after a short window empties those only: emptying all 8192 costs
 * more than decoding a small window (every pause sample's, and each input
 * of the fuzzers). */
#define ETM_BLOCKS_USED 256u

struct etm_blocks {
	struct sy_code_cache *code;
	struct etm_block *v;	/* ETM_BLOCKS entries, direct-mapped */
	uint64_t misses;
	/* the entries filled since the last clear; more than
	 * ETM_BLOCKS_USED: not remembered, all are emptied */
	uint32_t nused;
	uint16_t used[ETM_BLOCKS_USED];
};

int sy_etm_blocks_init(struct etm_blocks *b, struct sy_code_cache *code);
void sy_etm_blocks_fini(struct etm_blocks *b);
void sy_etm_blocks_clear(struct etm_blocks *b);

const struct etm_block *sy_etm_blocks_fill(struct etm_blocks *b,
					struct etm_block *e, uint64_t start,
					uint32_t ctxid, int wfi_wfe);

/* The block starting at @start in @ctxid's code. */
static inline const struct etm_block *etm_blocks_get(struct etm_blocks *b,
						     uint64_t start,
						     uint32_t ctxid,
						     int wfi_wfe)
{
	struct etm_block *e =
		&b->v[((start >> 2) ^ (start >> 15) ^ (uint64_t)ctxid * 0x9e5u) &
		      (ETM_BLOCKS - 1)];

	if (e->start == start && e->ctxid == ctxid && e->wfi_wfe == wfi_wfe)
		return e;
	return sy_etm_blocks_fill(b, e, start, ctxid, wfi_wfe);
}

/* OpenCSD's walk to an exception's preferred return address @to
 * (traceInstrToWP with traceToAddrNext): instructions one after the other,
 * waypoints or not, from @start until the next one would be @to, or until
 * one cannot be read.  *@end is where it stopped, *@nacc says it stopped
 * unreadable; returns the instructions walked and, in *@last, the class of
 * the last one (type OTHER when none). */
uint64_t sy_etm_blocks_walk_to(struct etm_blocks *b, uint64_t start,
			    uint64_t to, uint32_t ctxid, int wfi_wfe,
			    uint64_t *end, int *nacc, struct etm_block *last);

#endif
