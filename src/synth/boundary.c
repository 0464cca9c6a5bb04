/* x86-64 instruction boundaries from the symbols (see boundary.h). */
#include "boundary.h"

#include <stddef.h>

/* The instruction at link-time address @va of @img, decoded into @in.
 * Returns 1, or 0 when it cannot be read or decoded. */
static int sy_boundary_insn(struct sy_insn_decoder *dec,
			    const struct sy_image *img, uint64_t va,
			    struct sy_insn *in)
{
	size_t avail;
	const uint8_t *code = sy_image_code(img, va, &avail);

	return code && !sy_insn_decode(dec, code, avail, va, in);
}

/* From @va, a known boundary, to @vaddr: instructions of any kind, or
 * (@padding) no-ops and traps only. */
static enum sy_boundary sy_boundary_sweep(struct sy_insn_decoder *dec,
					  const struct sy_image *img,
					  uint64_t va, uint64_t vaddr,
					  int padding)
{
	struct sy_insn in;

	for (; va < vaddr; va += in.size)
		if (!sy_boundary_insn(dec, img, va, &in) ||
		    (padding && !in.padding))
			return SY_BOUNDARY_UNKNOWN;
	return va == vaddr ? SY_BOUNDARY_ON : SY_BOUNDARY_MID;
}

/* @vaddr, which no function symbol covers, in the padding after the
 * function before it.  Assemblers pad a function's end up to the next
 * one's alignment with whole no-ops (insn.h), so decoded from that
 * function's end, where its own instructions decoded from its start
 * must end, the padding's no-ops have the boundaries it was written
 * with: a branch to the middle of one goes into an instruction as much as
 * one inside a function does (and damage makes them: one bit of a TIP's
 * address moves a call from a small function's entry into the padding
 * after it).  Bytes other than no-ops before @vaddr (code no symbol
 * covers: a stripped binary's static functions) leave it unknown. */
static enum sy_boundary sy_boundary_after(struct sy_insn_decoder *dec,
					  const struct sy_image *img,
					  uint64_t vaddr)
{
	uint64_t start, size;

	if (sy_image_symbol_below(img, vaddr, &start, &size) || !size ||
	    vaddr - start > SY_BOUNDARY_SWEEP_MAX ||
	    sy_boundary_sweep(dec, img, start, start + size, 0) !=
		    SY_BOUNDARY_ON)
		return SY_BOUNDARY_UNKNOWN;
	return sy_boundary_sweep(dec, img, start + size, vaddr, 1);
}

enum sy_boundary sy_x86_boundary(struct sy_insn_decoder *dec,
				 const struct sy_image *img, uint64_t vaddr)
{
	const char *name;
	uint64_t into;

	if (sy_image_symbol(img, vaddr, &name, &into))
		return sy_boundary_after(dec, img, vaddr);
	if (into > SY_BOUNDARY_SWEEP_MAX)
		return SY_BOUNDARY_UNKNOWN;
	return sy_boundary_sweep(dec, img, vaddr - into, vaddr, 0);
}
