/* Kinds of ETMv4/ETE instruction-trace packets, by OpenCSD 1.3.3's packet
 * type.  Private to the ETM backend (etm_verdict.c, etm_agree.c). */
#ifndef SY_ETM_PKT_H
#define SY_ETM_PKT_H

#include <opencsd/c_api/opencsd_c_api.h>

static inline int etm_pkt_is_atom(int t)
{
	return t == ETM4_PKT_I_ATOM_F1 || t == ETM4_PKT_I_ATOM_F2 ||
	       t == ETM4_PKT_I_ATOM_F3 || t == ETM4_PKT_I_ATOM_F4 ||
	       t == ETM4_PKT_I_ATOM_F5 || t == ETM4_PKT_I_ATOM_F6;
}

/* Packets that push an address element (ETMv4 addresses, with or without
 * context; ETE source addresses push another kind). */
static inline int etm_pkt_is_addr(int t)
{
	switch (t) {
	case ETM4_PKT_I_ADDR_CTXT_L_32IS0: case ETM4_PKT_I_ADDR_CTXT_L_32IS1:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS0: case ETM4_PKT_I_ADDR_CTXT_L_64IS1:
	case ETM4_PKT_I_ADDR_MATCH: case ETM4_PKT_I_ADDR_S_IS0:
	case ETM4_PKT_I_ADDR_S_IS1: case ETM4_PKT_I_ADDR_L_32IS0:
	case ETM4_PKT_I_ADDR_L_32IS1: case ETM4_PKT_I_ADDR_L_64IS0:
	case ETM4_PKT_I_ADDR_L_64IS1:
		return 1;
	default:
		return 0;
	}
}

#endif
