/* What one instruction of the traced program is, for the plausibility
 * checks (plausible.h): its size, its branch kind, the target of a direct
 * branch, and whether it is padding.
 *
 * Capstone decodes; classification is by instruction id, never by group
 * (capstone 4 puts A64 `bl` in group jump and leaves x86 loop/jrcxz out).
 * Capstone 4 cannot decode the ARMv8.3 PAuth branches (BRAA, BLRAA, RETAA,
 * ...): a word of the A64 branch-register class it rejects is classified
 * by its encoding.
 *
 * Padding is what linkers and assemblers put between functions and no
 * program branches to: the canonical no-ops (A64 NOP; x86 0x90, 66 90 and
 * the 0F 1F /0 forms with 66 / 2E prefixes) and traps (x86 INT3, A64 UDF #0,
 * the all-zero word).  The HINT-space landing pads and PAuth instructions
 * (BTI, PACIASP) and x86 ENDBR64 are not padding: indirect branches go to
 * them by design.
 */
#ifndef SY_SYNTH_INSN_H
#define SY_SYNTH_INSN_H

#include <stddef.h>
#include <stdint.h>

#include <capstone/capstone.h>

#include "sy_decode.h"

struct sy_insn {
	uint8_t size;		/* bytes: 4 on A64, 1..15 on x86-64 */
	uint8_t kind;		/* enum sy_branch_kind */
	uint8_t has_target;	/* a direct branch: target is valid */
	uint8_t padding;	/* a no-op or trap of the kinds above */
	uint64_t target;
};

struct sy_insn_decoder {
	enum sy_trace_kind arch;	/* ETM: A64; PT: x86-64 */
	csh cs;
	cs_insn *insn;
	int ok;
};

/* Returns 0, or -SY_E_INTERNAL when capstone cannot be opened (then every
 * decode fails and the checks that need code are skipped). */
int sy_insn_decoder_init(struct sy_insn_decoder *d, enum sy_trace_kind arch);
void sy_insn_decoder_fini(struct sy_insn_decoder *d);

/* Decodes the instruction at runtime address @addr from @len bytes of
 * @code.  Returns 0, or -SY_E_DECODE (not an instruction, too few bytes,
 * no decoder). */
int sy_insn_decode(struct sy_insn_decoder *d, const uint8_t *code, size_t len,
		   uint64_t addr, struct sy_insn *out);

#endif
