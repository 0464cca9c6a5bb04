/* Branch kinds shared by the decoders, synthesis and the fixture generator. */
#ifndef SY_BRANCH_H
#define SY_BRANCH_H

#include <stdint.h>

enum sy_branch_kind {
	SY_BR_NONE = 0,	 /* not a branch */
	SY_BR_COND,	 /* conditional direct branch (B.cond, CBZ, TBZ, jcc, loop) */
	SY_BR_JUMP,	 /* unconditional direct branch (B, jmp rel) */
	SY_BR_CALL,	 /* direct call (BL, call rel32) */
	SY_BR_IND_JUMP,	 /* indirect branch (BR, jmp *) */
	SY_BR_IND_CALL,	 /* indirect call (BLR, call *) */
	SY_BR_RET,	 /* return (RET, RETAA, ret) */
	SY_BR_SYSCALL,	 /* exception to a higher level (SVC, syscall) */
	SY_BR_ERET,	 /* exception return (ERET, sysret, iret) */
	SY_BR_NR
};

/* One taken branch of a branch stack: what synthesis hands to every output
 * (perf-script, lbr, bolt, perf.data), so it lives below all of them. */
struct sy_br {
	uint64_t from, to;
	uint8_t kind; /* enum sy_branch_kind */
};

/* "cond", "jump", ... for listings and JSON. */
const char *sy_branch_kind_name(enum sy_branch_kind kind);

#endif
