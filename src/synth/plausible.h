/* Plausibility of a window whose trace looks whole: ETM and PT carry no
 * checksum, so a damaged byte can decode into a window that still starts
 * at its resume sample and stops at its pause sample.  What such a window
 * cannot hide is a branch no program makes.  Every branch a window keeps
 * (every stretch's ring: what any of its samples may emit) is checked
 * against the code of the window's process snapshot, oldest first, and the
 * first one that fails names the window's reason.  Each reason holds for
 * every correct program (issue 27); no rule knows a function by its name:
 *
 *   misaligned branch           A64: an address not on a 4-byte boundary
 *   outside executable mappings a source or target no code mapping of the
 *                               process holds
 *   direct branch elsewhere     ETM: a direct branch whose target is not
 *                               the one in its encoding
 *   straight run crosses a branch  ETM: between two taken branches the
 *                               code has an unconditional branch, call or
 *                               return (llvm-profgen's fall-through check)
 *   indirect branch into an instruction  x86: not on an instruction
 *                               boundary of the function it lands in
 *   indirect jump outside its table's reach  A64: the run ends in `adr xB,
 *                               base; add xT, xB, wE, {s,u}xt{b,h} #s; br
 *                               xT`, and the target is beyond base plus any
 *                               byte or halfword entry
 *   indirect jump to no entry of its table  A64: that run begins at the
 *                               taken `b.ls` of a `cmp wI, #N` (GCC's bounds
 *                               check, as BOLT reads it) and loads entry wI
 *                               of `adrp; add` (ldrb / ldrh): none of the N+1
 *                               entries, read from a mapping no one can
 *                               write, gives the target
 *
 * No-ops are legal targets (the return after a call, a context switch's
 * resume label, a stub's jump to aligned hand-written code).  What correct
 * code may do but damage does more often is counted as suspect and never
 * rejects: a return or indirect jump to an older open call's return or to
 * none (unwinders, longjmp, setcontext), a return to an instruction no
 * call precedes (the C++ unwinder's exit to a landing pad: the corpus's
 * cxxexc), an indirect branch into another
 * function away from its entry and from a call's return, open calls that
 * disagree with the pause sample's first caller frame.
 *
 * Conservative by construction: code that cannot be read (binary missing,
 * anonymous or kernel memory without an image, a process the snapshot does
 * not know) is never held against a window.  The decoders' own consistency
 * is not re-checked where it holds by construction (libipt follows the
 * code for direct branches and straight runs).
 *
 * Cost: decoded instructions and verdicts are kept in a bounded table keyed
 * by (image, offset), so a branch the program makes again costs a lookup;
 * a stretch's branches go SY_PROVEN_LEN at a time, and a sequence that
 * passed before with the same branches before it is compared, not checked
 * again (proven.h): only its calls, returns and indirect branches follow
 * the calls.  Every cache is keyed by all a verdict reads, so the verdicts
 * are the ones each branch's checks give.  Used by the validator on the
 * thread that validates windows.
 */
#ifndef SY_SYNTH_PLAUSIBLE_H
#define SY_SYNTH_PLAUSIBLE_H

#include <stddef.h>
#include <stdint.h>

#include "insn.h"
#include "pl_memo.h"
#include "pl_seen.h"
#include "proven.h"
#include "window.h"

struct sy_plausible {
	enum sy_trace_kind arch;
	struct sy_insn_decoder dec;
	struct sy_pl_memo memo;
	/* branches whose code checks passed, kept from window to window
	 * while the thread's space and the kernel's hold the same mappings
	 * (sy_aspace_same): windows of a loop are short and make the same
	 * few branches, and the processes of a fleet (forked workers, runs
	 * of one program) the same code at the same addresses */
	struct sy_pl_seen_tab seen;
	uint64_t seen_serial;	/* the last window's snapshot; 0: none */
	uint32_t seen_id;	/* and thread */
	/* that thread's space in that snapshot, and the kernel's, which
	 * the reference to the snapshot keeps */
	struct sy_proc_snap *snap;
	const struct sy_aspace *as, *kernel;
	/* sequences of such branches, kept and emptied with them: a loop's
	 * path costs one compare per branch (proven.h) */
	struct sy_proven proven;
};

/* Returns 0 or -SY_E_NOMEM.  Without capstone the checks that read code
 * are skipped. */
int sy_plausible_init(struct sy_plausible *p, enum sy_trace_kind arch);
void sy_plausible_fini(struct sy_plausible *p);

/* The suspect branches of a window: how many (counted, never a reason),
 * and the first: what made it one and its ends (sy_window). */
struct sy_pl_suspects {
	uint32_t n;
	uint8_t kind;		/* enum sy_suspect_kind */
	uint64_t from, to;
};

/* Checks the branches of @w.  Returns 0 when none is implausible, 1 with
 * the check and the first offending branch in @why; *@sus the suspect
 * branches found before it (all of them when it returns 0). */
int sy_plausible_window(struct sy_plausible *p, const struct sy_win *w,
			char *why, size_t len, struct sy_pl_suspects *sus);

#endif
