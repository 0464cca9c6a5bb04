/* Plausibility of a window whose trace looks whole: ETM and PT carry no
 * checksum, so a damaged byte can decode into a window that still starts
 * at its resume sample and stops at its pause sample.  What such a window
 * cannot hide is a branch no program makes.  Every branch a window keeps
 * (every stretch's ring: what any of its samples may emit) is checked
 * against the code of the window's process snapshot, oldest first, and the
 * first one that fails names the window's reason:
 *
 *   misaligned branch           A64: an address not on a 4-byte boundary
 *   outside executable mappings a source or target no code mapping of the
 *                               process holds
 *   direct branch elsewhere     ETM: a direct branch whose target is not
 *                               the one in its encoding
 *   straight run crosses a branch  ETM: between two taken branches the
 *                               code has an unconditional branch, call or
 *                               return (llvm-profgen's fall-through check)
 *   indirect branch into padding   a no-op or trap between functions
 *   indirect branch into an instruction  x86: not on an instruction
 *                               boundary of the function it lands in
 *   indirect jump into another function  not at its entry and not after
 *                               a call (where longjmp-like jumps resume)
 *   return not after a call     to an instruction no call precedes, and
 *                               not to a return address of the callchain
 *   return to no open call      a return that matches none of the calls
 *                               the window made and has not returned from
 *   open calls disagree with the callchain  A64: the pause sample's first
 *                               caller frame is neither of the two newest
 *                               calls still open (a frameless leaf hides
 *                               one, no more)
 *
 * Conservative by construction: code that cannot be read (binary missing,
 * anonymous or kernel memory without an image, a process the snapshot does
 * not know) is never held against a window, and the code that makes
 * unusual transfers on purpose (the unwinder's eh_return, longjmp,
 * setcontext, retpolines, signal returns) is recognised by its symbol or
 * its code.  The decoders' own consistency is not re-checked where it
 * holds by construction (libipt follows the code for direct branches and
 * straight runs).
 *
 * Cost: decoded instructions and verdicts are kept in a bounded table keyed
 * by (image, offset), so a branch the program makes again costs a lookup.
 * Used by the validator on the thread that validates windows.
 */
#ifndef SY_SYNTH_PLAUSIBLE_H
#define SY_SYNTH_PLAUSIBLE_H

#include <stddef.h>
#include <stdint.h>

#include "insn.h"
#include "window.h"

struct sy_pl_memo_ent;
struct sy_pl_seen;

struct sy_plausible {
	enum sy_trace_kind arch;
	struct sy_insn_decoder dec;
	struct sy_pl_memo_ent *memo;	/* open addressing, SY_PL_MEMO_CAP */
	size_t memo_used;
	uint64_t memo_hits, memo_misses;
	/* branches whose code checks passed, kept from window to window
	 * while the snapshot (its serial) and the thread are the same:
	 * windows of a loop are short and make the same few branches */
	struct sy_pl_seen *seen;
	uint64_t seen_serial;	/* 0: empty */
	uint32_t seen_id;
};

/* Returns 0 or -SY_E_NOMEM.  Without capstone the checks that read code
 * are skipped. */
int sy_plausible_init(struct sy_plausible *p, enum sy_trace_kind arch);
void sy_plausible_fini(struct sy_plausible *p);

/* Checks the branches of @w.  Returns 0 when none is implausible, 1 with
 * the check and the first offending branch in @why. */
int sy_plausible_window(struct sy_plausible *p, const struct sy_win *w,
			char *why, size_t len);

#endif
