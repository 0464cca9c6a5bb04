/* The order in which an ETMv4/ETE trace unit emits packets, checked
 * against the path the walk follows through the code.
 *
 * A flipped bit in an atom or address packet sends a decoder down another
 * path, and OpenCSD follows it without a word: atoms that come while it
 * waits for an address are dropped, an address that comes when it waits
 * for none is simply taken.  The trace unit's own order says where that
 * path cannot be the one that ran (ETMv4 architecture, IHI0064; ETE,
 * IHI0099):
 *
 *  - An address packet follows only a taken indirect branch (its target),
 *    an exception (its return address, then its handler's), a Trace On,
 *    or a Trace Info (the periodic sync).  An address where the walk took
 *    a direct branch or none says the walk left the path that ran.
 *  - A taken indirect branch's atom closes its atom packet and its target
 *    address comes next, before any other atom.  An atom while that
 *    address is due (in the same packet or a later one) says the walked
 *    branch was not indirect where the program's was.
 *  - A Trace Info's address is the next instruction: where the walk is,
 *    unless a target address was due.
 *
 * These hold for every program; they are the trace unit's, not the code's.
 * They do not hold, and are off, for a unit that speculates (elements wait
 * for commit), one with the return stack on (returns may have no address)
 * or branch broadcast on (direct branches have one too), and until the
 * next sync after a transaction packet (ETE TME), whose order they do not
 * model.
 */
#include "etm_agree.h"
#include "etm_pkt.h"

void sy_etm_agree_reset(struct etm_agree *a)
{
	a->off_sync = 0;
	a->may_addr = 0;
	a->addr_seen = 0;
	a->synced = 0;
	a->ind_wait = 0;
}

void sy_etm_agree_init(struct etm_agree *a, uint32_t max_spec, int ret_stack,
		       int branch_broadcast)
{
	a->off = max_spec || ret_stack || branch_broadcast;
	sy_etm_agree_reset(a);
}

static enum etm_disagree address(struct etm_agree *a, uint64_t val, int on,
				 uint64_t addr, int need_addr)
{
	enum etm_disagree d = ETM_AGREE_OK;

	if (on && !a->may_addr && !(need_addr && !a->addr_seen))
		d = ETM_AGREE_ADDR;
	else if (on && a->synced && !a->addr_seen && !need_addr && val != addr)
		d = ETM_AGREE_SYNC;
	if (a->may_addr)
		a->may_addr--;
	a->addr_seen = 1;
	a->synced = 0;
	return d;
}

/* Packets that let addresses come: the count allowed, and whether the
 * next address is a sync's. */
static void opens(struct etm_agree *a, const ocsd_etmv4_i_pkt *k,
		  int need_addr)
{
	switch ((int)k->type) {
	case ETM4_PKT_I_TRACE_ON:
		if (!a->may_addr)
			a->may_addr = 1;
		a->synced = 0;
		break;
	case ETM4_PKT_I_TRACE_INFO:
		/* the sync's address, and a target still due after it */
		a->may_addr = (uint8_t)(1 + (need_addr && !a->addr_seen));
		a->synced = 1;
		if (!k->trace_info.bits.in_trans_state)
			a->off_sync = 0;
		break;
	case ETM4_PKT_I_EXCEPT:
		a->may_addr = 2;	/* return address, then handler */
		a->synced = 0;
		break;
	case ETE_PKT_I_TRANS_ST: case ETE_PKT_I_TRANS_COMMIT:
	case ETE_PKT_I_TRANS_FAIL:
		a->off_sync = 1;
		break;
	default:
		break;
	}
}

enum etm_disagree sy_etm_agree_packet(struct etm_agree *a,
				      const ocsd_etmv4_i_pkt *k, int follows,
				      uint64_t addr, int need_addr)
{
	int t = (int)k->type, on = follows && !a->off && !a->off_sync;
	enum etm_disagree d = ETM_AGREE_OK;

	if (etm_pkt_is_addr(t))
		return address(a, k->v_addr.val, on, addr, need_addr);
	if (etm_pkt_is_atom(t)) {
		if (on && a->ind_wait && !a->addr_seen && !a->may_addr)
			d = ETM_AGREE_ATOM;
		/* these atoms are committed now (no speculation) */
		a->may_addr = 0;
		a->addr_seen = 0;
		a->synced = 0;
		return d;
	}
	opens(a, k, need_addr);
	return d;
}

enum etm_disagree sy_etm_agree_atom(struct etm_agree *a)
{
	return a->ind_wait && !a->off && !a->off_sync ? ETM_AGREE_ATOM
						      : ETM_AGREE_OK;
}

void sy_etm_agree_indirect(struct etm_agree *a)
{
	a->ind_wait = 1;
}

void sy_etm_agree_addr(struct etm_agree *a)
{
	a->ind_wait = 0;
}

const char *sy_etm_agree_str(enum etm_disagree d)
{
	switch (d) {
	case ETM_AGREE_ADDR:
		return "an address packet where the code took no indirect "
		       "branch";
	case ETM_AGREE_ATOM:
		return "an atom where the code's indirect branch needs its "
		       "target address";
	case ETM_AGREE_SYNC:
		return "a sync's address is not where the code led";
	default:
		return "trace and code agree";
	}
}
