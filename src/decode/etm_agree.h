/* Whether an ETM/ETE packet stream agrees with the path walked through the
 * code (etm_agree.c): the trace's own consistency, which catches a damaged
 * stream (a flipped bit, a wrong binary) where the decoders would follow it
 * silently.
 *
 * Private to the ETM backend: the fast path's walk and the full decoder's
 * guard walk (etm_walk.c, etm_guard.c) ask it of the same packets, so both
 * decoders stop at the same packet. */
#ifndef SY_ETM_AGREE_H
#define SY_ETM_AGREE_H

#include <opencsd/c_api/opencsd_c_api.h>
#include <stdint.h>

/* What the trace says that the code cannot have done (0: nothing). */
enum etm_disagree {
	ETM_AGREE_OK = 0,
	ETM_AGREE_ADDR,		/* an address with no indirect branch,
				 * exception, trace on or sync before it */
	ETM_AGREE_ATOM,		/* an atom where an indirect branch's target
				 * address was due */
	ETM_AGREE_SYNC,		/* a periodic sync's address is not where the
				 * walk is */
};

struct etm_agree {
	uint8_t off;		/* the rules do not hold for this source */
	uint8_t off_sync;	/* ... until the next sync (a packet whose
				 * order the rules do not model) */
	uint8_t may_addr;	/* address packets that may come now */
	uint8_t addr_seen;	/* an address packet since the last atoms */
	uint8_t synced;		/* a Trace Info since the last atoms, with no
				 * discontinuity after it */
	uint8_t ind_wait;	/* the last atom was a taken indirect branch
				 * whose address has not come */
};

/* The rules hold only for a trace unit that neither speculates
 * (@max_spec 0), nor leaves out return addresses (return stack), nor traces
 * the targets of direct branches (branch broadcast). */
void sy_etm_agree_init(struct etm_agree *a, uint32_t max_spec, int ret_stack,
		       int branch_broadcast);
/* The decoder started over (no sync): also a new window. */
void sy_etm_agree_reset(struct etm_agree *a);

/* The walk's state before packet @k: it follows the code (in sync, with a
 * known address and context) at @addr, and waits for an address
 * (@need_addr).  Returns what @k contradicts, and takes note of @k. */
enum etm_disagree sy_etm_agree_packet(struct etm_agree *a,
				      const ocsd_etmv4_i_pkt *k, int follows,
				      uint64_t addr, int need_addr);

/* The walk commits an atom: ETM_AGREE_ATOM when it comes while a taken
 * indirect branch's target address is due. */
enum etm_disagree sy_etm_agree_atom(struct etm_agree *a);
/* The walk took an indirect branch: its target address is due. */
void sy_etm_agree_indirect(struct etm_agree *a);
/* The walk committed an address, exception or Trace On element. */
void sy_etm_agree_addr(struct etm_agree *a);

/* One line for @d. */
const char *sy_etm_agree_str(enum etm_disagree d);

#endif
