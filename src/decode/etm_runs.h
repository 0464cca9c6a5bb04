/* The ETM fast path's atom-run cache: what a run of atoms does from an
 * address, walked once through the block cache and reused.
 *
 * Private to the fast path.  Dense trace is loops: the same atom packet
 * (the same E/N bits) from the same address walks the same blocks every
 * time.  Walking them one block at a time is a chain of dependent loads
 * (each block's end or target is the key of the next), which was the
 * walk's largest cost; a run is found with one lookup per packet.  This
 * is simpleperf's branch-list idea (BranchListParser).  A run also holds
 * the taken branches between its ranges, which the converter hands out as
 * one SY_DEC_BRANCHES item pointing here (sy_etm_conv_run): a run an item
 * uses is pinned, not replaced, until the items are taken (the ring is
 * empty: etm_runs_unpin).
 *
 * A run is keyed by the address of its first atom, the context its code
 * is read in, whether WFI/WFE are waypoints, the number of atoms committed
 * together and their E/N bits.  It holds the INSTR_RANGE elements the
 * atoms make (etm_walk.c process_atom) and where the walk ends.  Runs are
 * only made where process_atom's effects are the ranges and the address
 * alone: no return stack (TRCCONFIGR.RS clear), A64 code, every block
 * readable (an ADDR_NACC is left to the walk).  An indirect taken branch
 * ends the processing (the walk needs an address); the run's remaining
 * atoms are committed without code, as the walk does.  The cache is
 * emptied with the block cache, at every window. */
#ifndef SY_ETM_RUNS_H
#define SY_ETM_RUNS_H

#include <stdint.h>

#include "etm_blocks.h"

#define ETM_RUN_MAX 32u		/* atoms in one packet: at most 24 */
#define ETM_RUNS 1024u		/* entries, direct-mapped, a power of two */

/* One INSTR_RANGE of a run. */
struct etm_run_range {
	uint64_t st, en;	/* [st, en) */
	uint32_t ninsn;
	uint8_t type, subtype, cond;	/* the last instruction's class */
	uint8_t exec;		/* E atom */
	uint8_t br;		/* enum sy_branch_kind when it ends in a
				 * taken branch (etm_conv.c), else 0 */
};

struct etm_run {
	uint64_t addr;		/* key: the first atom's address */
	uint32_t gen;		/* valid when the cache's generation */
	uint32_t ctxid;		/* key */
	uint32_t bits;		/* key: E bits, oldest first */
	uint8_t natoms;		/* key: atoms committed together */
	uint8_t wfi_wfe;	/* key */
	uint8_t nr;		/* ranges (atoms processed) */
	uint8_t need_addr;	/* an indirect branch ended the processing */
	uint64_t end;		/* the walk's address afterwards */
	struct etm_run_range r[ETM_RUN_MAX];
	/* the taken branches from one range to the next, each with the
	 * instructions since the one before (the first's: since r[0]'s
	 * end); and the instructions after the last (after r[0]'s end when
	 * there is none) */
	struct sy_dec_br br[ETM_RUN_MAX];
	struct sy_dec_run branches;	/* br[0..n) */
	uint64_t tail_ninsn;
	uint32_t pin;		/* an item uses it when the cache's epoch */
};

struct etm_runs {
	struct etm_blocks *blocks;
	struct etm_run *v;	/* ETM_RUNS entries */
	uint32_t gen;
	uint32_t epoch;		/* of the items not taken yet */
	uint64_t hits, misses, pinned;
};

int sy_etm_runs_init(struct etm_runs *c, struct etm_blocks *blocks);
void sy_etm_runs_fini(struct etm_runs *c);
/* Forgets every run (the code may differ in the next window), and unpins
 * them: no item of the last window is left. */
void sy_etm_runs_clear(struct etm_runs *c);
/* No item uses a run any more. */
static inline void etm_runs_unpin(struct etm_runs *c)
{
	c->epoch++;
}

/* The run of @natoms atoms (1..24) with E bits @bits (oldest first) from
 * @addr in @ctxid's code, pinned; NULL when it cannot be a run (a block
 * cannot be read, or its entry is pinned by another run), which leaves the
 * atoms to the walk. */
const struct etm_run *sy_etm_runs_get(struct etm_runs *c, uint64_t addr,
				   uint32_t ctxid, int wfi_wfe, uint32_t bits,
				   unsigned natoms);

#endif
