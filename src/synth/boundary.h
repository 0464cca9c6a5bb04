/* x86-64 instruction boundaries in an image's code, for the plausibility
 * checks (plausible.c): whether an indirect branch lands where an
 * instruction starts or in the middle of one.  x86 code has no fixed
 * width, so boundaries are found by decoding forward from a place known
 * to be one: the start of the function symbol that covers the address,
 * or, in the padding between two functions, the end of the one before
 * (whose own instructions must end exactly there).  Without such a place,
 * or where the bytes cannot be decoded, nothing can be told.
 */
#ifndef SY_SYNTH_BOUNDARY_H
#define SY_SYNTH_BOUNDARY_H

#include <stdint.h>

#include "insn.h"
#include "sy_image.h"

enum sy_boundary {
	SY_BOUNDARY_UNKNOWN = 0,
	SY_BOUNDARY_ON,		/* an instruction starts there */
	SY_BOUNDARY_MID,	/* inside an instruction */
};

/* Bytes decoded from the known boundary at most: a function larger than
 * this (or an address further into one) is not swept. */
#define SY_BOUNDARY_SWEEP_MAX 65536u

/* Where link-time address @vaddr of @img falls, decoding with @dec (an
 * x86-64 decoder). */
enum sy_boundary sy_x86_boundary(struct sy_insn_decoder *dec,
				 const struct sy_image *img, uint64_t vaddr);

#endif
