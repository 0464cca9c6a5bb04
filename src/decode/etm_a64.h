/* A64 instructions as OpenCSD 1.3.3 classifies them for its instruction
 * walk (i_dec/trc_i_decode.cpp DecodeA64 and i_dec/trc_idec_arminst.cpp).
 *
 * Private to the ETM fast path.  The fast path must walk exactly the
 * instructions OpenCSD's decoder walks, so this is OpenCSD's rule, not the
 * architecture's: waypoints are every A64 branch (B, BL, B.cond, BC.cond,
 * CBZ/CBNZ, TBZ/TBNZ, BR, BLR, RET, ERET and, with ARCH_AA64, the PAuth
 * forms), ISB, TSTART, and WFI/WFE/WFIT/WFET when the trace unit traces
 * them as branches (TRCIDR2.WFXMODE on ETMv4.3 and later); DSB and DMB are
 * not (the decoder never sets dsb_dmb_waypoints).  The decoder is always
 * configured with ARCH_AA64 (etm_ocsd.c).  tests/unit/test_etm_a64.c checks
 * the agreement word for word against OpenCSD's own decode. */
#ifndef SY_ETM_A64_H
#define SY_ETM_A64_H

#include <stdint.h>

struct etm_a64_insn {
	uint8_t type;		/* ocsd_instr_type */
	uint8_t subtype;	/* ocsd_instr_subtype */
	uint8_t link;		/* BL, BLR, BLRAA...: pushes a return */
	uint8_t cond;		/* B.cond, CB*, TB* */
	uint64_t target;	/* OCSD_INSTR_BR: the branch destination */
};

/* Classifies the A64 instruction @w at @addr; @wfi_wfe: WFI and WFE are
 * waypoints.  Returns 1 when it is a waypoint (type != OCSD_INSTR_OTHER). */
int sy_etm_a64_decode(uint32_t w, uint64_t addr, int wfi_wfe,
		   struct etm_a64_insn *out);

#endif
