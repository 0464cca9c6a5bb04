/* Private to src/decode: the x86 branch decoding the PT backend needs on top
 * of libipt.
 *
 * libipt's block decoder reports a block as (first ip, last ip, count,
 * instruction class of the last instruction), but neither the size of that
 * last instruction nor whether a near call or jump was direct.  Both decide
 * what a block boundary means: a conditional branch was taken exactly when
 * the next block does not start right after it, and a direct call or jump
 * goes to a target written in its bytes.  So the last instruction of every
 * block is decoded here - only as far as a branch needs (prefixes, opcode,
 * ModRM/SIB/displacement length, relative target); everything that is not a
 * branch is reported as SY_BR_NONE without a size.
 */
#ifndef SY_PT_X86_H
#define SY_PT_X86_H

#include <stddef.h>
#include <stdint.h>

#include "sy_branch.h"

struct sy_x86_branch {
	uint8_t kind;	 /* enum sy_branch_kind; SY_BR_NONE: not a branch */
	uint8_t size;	 /* length in bytes; 0 when kind == SY_BR_NONE */
	uint8_t direct;	 /* @target is the static target (near rel branch) */
	uint8_t far;	 /* far transfer (syscall, int, iret, far call...) */
	uint64_t target; /* for @direct */
};

/* Decodes the instruction at @ip whose bytes are @buf[0..@len) in a code
 * segment of @bits (16, 32 or 64).  Far calls and software interrupts
 * (syscall, sysenter, int n, call far) are SY_BR_SYSCALL, far returns
 * (sysret, sysexit, iret, ret far, vmlaunch/vmresume) SY_BR_ERET, far jumps
 * SY_BR_JUMP with @far set and no @direct target.
 *
 * Returns 0 (also for non-branches), -1 when @bits is invalid or the bytes
 * end before the branch instruction does. */
int sy_x86_branch_decode(const uint8_t *buf, size_t len, unsigned bits,
			 uint64_t ip, struct sy_x86_branch *out);

#endif
