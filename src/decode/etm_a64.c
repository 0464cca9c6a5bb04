/* A64 instruction classes as OpenCSD 1.3.3 sees them (see etm_a64.h).
 *
 * The encodings and their order are OpenCSD's (DecodeA64): indirect
 * branches first, then direct ones, then barriers (only ISB is a
 * waypoint), then WFx when traced as branches, then TSTART.  An encoding
 * that matches an earlier class never reaches a later test, as there. */
#include <opencsd/ocsd_if_types.h>

#include "etm_a64.h"

/* BR, BLR, RET, ERET and the PAuth forms; sets subtype and link. */
static int indirect(uint32_t w, struct etm_a64_insn *o)
{
	if ((w & 0xffdffc1fu) == 0xd61f0000u) {		/* BR, BLR */
		o->link = (w & 0x00200000u) != 0;
	} else if ((w & 0xfffffc1fu) == 0xd65f0000u) {	/* RET */
		o->subtype = OCSD_S_INSTR_V8_RET;
		return 1;
	} else if (w == 0xd69f03e0u) {			/* ERET */
		o->subtype = OCSD_S_INSTR_V8_ERET;
		return 1;
	} else if ((w & 0xffdff800u) == 0xd71f0800u ||	/* BRAA, BLRAA.. */
		   (w & 0xffdff81fu) == 0xd61f081fu) {	/* BRAAZ, BLRAAZ.. */
		o->link = (w & 0x00200000u) != 0;
	} else if ((w & 0xfffffbffu) == 0xd69f0bffu) {	/* ERETAA, ERETAB */
		o->subtype = OCSD_S_INSTR_V8_ERET;
		return 1;
	} else if ((w & 0xfffffbffu) == 0xd65f0bffu) {	/* RETAA, RETAB */
		o->subtype = OCSD_S_INSTR_V8_RET;
		return 1;
	} else {
		return 0;
	}
	if (o->link)
		o->subtype = OCSD_S_INSTR_BR_LINK;
	return 1;
}

static int64_t sext(uint32_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);

	return (int64_t)(((uint64_t)v ^ m) - m);
}

/* B, BL, B.cond, BC.cond, CB*, TB*; sets link, subtype and the target. */
static int direct(uint32_t w, uint64_t addr, struct etm_a64_insn *o)
{
	int64_t off;

	if ((w & 0xff000000u) == 0x54000000u) {		/* B.cond, BC.cond */
		off = sext((w >> 5) & 0x7ffffu, 19) * 4;
	} else if ((w & 0x7c000000u) == 0x14000000u) {	/* B, BL */
		off = sext(w & 0x3ffffffu, 26) * 4;
		if (w & 0x80000000u) {
			o->link = 1;
			o->subtype = OCSD_S_INSTR_BR_LINK;
		}
	} else if ((w & 0x7e000000u) == 0x34000000u) {	/* CBZ, CBNZ */
		off = sext((w >> 5) & 0x7ffffu, 19) * 4;
	} else if ((w & 0x7e000000u) == 0x36000000u) {	/* TBZ, TBNZ */
		off = sext((w >> 5) & 0x3fffu, 14) * 4;
	} else {
		return 0;
	}
	o->target = addr + (uint64_t)off;
	return 1;
}

static int wfx(uint32_t w)
{
	return (w & 0xffffffdfu) == 0xd503205fu ||	/* WFE, WFI */
	       (w & 0xffffffc0u) == 0xd5031000u;	/* WFET, WFIT */
}

int sy_etm_a64_decode(uint32_t w, uint64_t addr, int wfi_wfe,
		   struct etm_a64_insn *o)
{
	o->type = OCSD_INSTR_OTHER;
	o->subtype = OCSD_S_INSTR_NONE;
	o->link = 0;
	o->target = 0;
	/* CB*, TB*, B.cond, BC.cond */
	o->cond = (w & 0x7c000000u) == 0x34000000u ||
		  (w & 0xff000000u) == 0x54000000u;
	if (indirect(w, o))
		o->type = OCSD_INSTR_BR_INDIRECT;
	else if (direct(w, addr, o))
		o->type = OCSD_INSTR_BR;
	else if ((w & 0xfffff09fu) == 0xd503309fu && (w & 0x60u) != 0x60u)
		/* DSB, DMB (not waypoints), ISB */
		o->type = (w & 0x60u) == 0x40u ? OCSD_INSTR_ISB
					       : OCSD_INSTR_OTHER;
	else if (wfi_wfe && wfx(w))
		o->type = OCSD_INSTR_WFI_WFE;
	else if ((w & 0xffffffe0u) == 0xd5233060u)	/* TSTART */
		o->type = OCSD_INSTR_TSTART;
	return o->type != OCSD_INSTR_OTHER;
}
