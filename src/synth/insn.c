#include "insn.h"

#include <string.h>

#include "sy_branch.h"
#include "sy_bytes.h"
#include "sy_error.h"

#define SY_A64_NOP 0xd503201fu

int sy_insn_decoder_init(struct sy_insn_decoder *d, enum sy_trace_kind arch)
{
	int a64 = arch == SY_TRACE_ETM;

	memset(d, 0, sizeof(*d));
	d->arch = arch;
	if (cs_open(a64 ? CS_ARCH_ARM64 : CS_ARCH_X86,
		    a64 ? CS_MODE_ARM : CS_MODE_64, &d->cs) != CS_ERR_OK)
		return -SY_E_INTERNAL;
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	if (!d->insn) {
		cs_close(&d->cs);
		return -SY_E_INTERNAL;
	}
	if (!a64) {
		/* capstone 4's x86 printer sorts a static table of implicit
		 * registers the first time it prints an instruction, with no
		 * lock: do it here, on the thread that makes the workers'
		 * decoders before they start (a NOP is enough) */
		static const uint8_t nop = 0x90;
		const uint8_t *p = &nop;
		size_t len = 1;
		uint64_t addr = 0;

		cs_disasm_iter(d->cs, &p, &len, &addr, d->insn);
	}
	d->ok = 1;
	return 0;
}

void sy_insn_decoder_fini(struct sy_insn_decoder *d)
{
	if (!d->ok)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	d->ok = 0;
}

static void sy_insn_set(struct sy_insn *out, uint8_t size,
			enum sy_branch_kind kind)
{
	memset(out, 0, sizeof(*out));
	out->size = size;
	out->kind = (uint8_t)kind;
}

/* The A64 "unconditional branch (register)" class by its encoding: what
 * capstone 4 cannot decode there are the PAuth forms. */
static int sy_a64_brreg(uint32_t w, struct sy_insn *out)
{
	static const int8_t kinds[16] = {
		[0x0] = SY_BR_IND_JUMP, /* BR, BRAAZ, BRABZ */
		[0x1] = SY_BR_IND_CALL, /* BLR, BLRAAZ, BLRABZ */
		[0x2] = SY_BR_RET,      /* RET, RETAA, RETAB */
		[0x4] = SY_BR_ERET,     /* ERET, ERETAA, ERETAB */
		[0x5] = SY_BR_ERET,     /* DRPS */
		[0x8] = SY_BR_IND_JUMP, /* BRAA, BRAB */
		[0x9] = SY_BR_IND_CALL, /* BLRAA, BLRAB */
	};
	unsigned opc = (w >> 21) & 0xf;

	if ((w & 0xfe000000u) != 0xd6000000u || ((w >> 16) & 0x1f) != 0x1f ||
	    !kinds[opc])
		return -SY_E_DECODE;
	sy_insn_set(out, 4, (enum sy_branch_kind)kinds[opc]);
	return 0;
}

/* The direct target is the last immediate operand (B.cond has one, CBZ
 * two, TBZ three operands). */
static int sy_a64_target(const cs_arm64 *a, struct sy_insn *out)
{
	if (!a->op_count || a->operands[a->op_count - 1].type != ARM64_OP_IMM)
		return -SY_E_DECODE;
	out->target = (uint64_t)a->operands[a->op_count - 1].imm;
	out->has_target = 1;
	return 0;
}

static int sy_a64_decode(struct sy_insn_decoder *d, const uint8_t *code,
			 size_t len, uint64_t addr, struct sy_insn *out)
{
	const uint8_t *p = code;
	size_t n = 4;
	uint64_t a = addr;
	uint32_t w;
	const cs_arm64 *x;

	if (len < 4 || (addr & 3))
		return -SY_E_DECODE;
	w = sy_le32(code);
	if (!cs_disasm_iter(d->cs, &p, &n, &a, d->insn)) {
		if (sy_a64_brreg(w, out) == 0)
			return 0;
		sy_insn_set(out, 4, SY_BR_NONE);
		out->padding = w == 0; /* UDF #0 */
		return w == 0 ? 0 : -SY_E_DECODE;
	}
	sy_insn_set(out, 4, SY_BR_NONE);
	x = &d->insn->detail->arm64;
	switch (d->insn->id) {
	case ARM64_INS_B:
		out->kind = x->cc != ARM64_CC_INVALID && x->cc != ARM64_CC_AL ?
				    SY_BR_COND : SY_BR_JUMP;
		return sy_a64_target(x, out);
	case ARM64_INS_BL:
		out->kind = SY_BR_CALL;
		return sy_a64_target(x, out);
	case ARM64_INS_CBZ:
	case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ:
	case ARM64_INS_TBNZ:
		out->kind = SY_BR_COND;
		return sy_a64_target(x, out);
	case ARM64_INS_BR:
	case ARM64_INS_BLR:
	case ARM64_INS_RET:
	case ARM64_INS_ERET:
	case ARM64_INS_DRPS:
		return sy_a64_brreg(w, out);
	case ARM64_INS_SVC:
	case ARM64_INS_HVC:
	case ARM64_INS_SMC:
		out->kind = SY_BR_SYSCALL;
		return 0;
	default:
		out->padding = w == SY_A64_NOP;
		return 0;
	}
}

/* x86 no-op and trap padding by its bytes: capstone names the hint no-ops
 * (ENDBR64 among them in some versions) NOP as well. */
static int sy_x86_padding(const uint8_t *code, size_t len)
{
	size_t i = 0;

	if (len && code[0] == 0xcc)
		return 1;
	while (i < len && (code[i] == 0x66 || code[i] == 0x2e))
		i++;
	if (i < len && code[i] == 0x90)
		return 1;
	return i + 2 < len && code[i] == 0x0f && code[i + 1] == 0x1f &&
	       ((code[i + 2] >> 3) & 7) == 0;
}

static enum sy_branch_kind sy_x86_kind(unsigned id)
{
	switch (id) {
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JE:
	case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL:
	case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS:
	case X86_INS_JO: case X86_INS_JP: case X86_INS_JRCXZ: case X86_INS_JS:
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return SY_BR_COND;
	case X86_INS_JMP:
		return SY_BR_JUMP; /* IND_JUMP without an immediate */
	case X86_INS_LJMP:
		return SY_BR_IND_JUMP;
	case X86_INS_CALL:
		return SY_BR_CALL; /* IND_CALL without an immediate */
	case X86_INS_LCALL:
		return SY_BR_IND_CALL;
	case X86_INS_RET: case X86_INS_RETF: case X86_INS_RETFQ:
		return SY_BR_RET;
	case X86_INS_SYSCALL: case X86_INS_SYSENTER: case X86_INS_INT:
	case X86_INS_INT1: case X86_INS_INT3: case X86_INS_INTO:
		return SY_BR_SYSCALL;
	case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ:
	case X86_INS_SYSRET: case X86_INS_SYSEXIT:
		return SY_BR_ERET;
	default:
		return SY_BR_NONE;
	}
}

static int sy_x86_decode(struct sy_insn_decoder *d, const uint8_t *code,
			 size_t len, uint64_t addr, struct sy_insn *out)
{
	const uint8_t *p = code;
	size_t n = len < 15 ? len : 15;
	uint64_t a = addr;
	const cs_x86 *x;
	enum sy_branch_kind k;

	if (!cs_disasm_iter(d->cs, &p, &n, &a, d->insn))
		return -SY_E_DECODE;
	k = sy_x86_kind(d->insn->id);
	sy_insn_set(out, (uint8_t)d->insn->size, k);
	out->padding = sy_x86_padding(code, d->insn->size);
	if (k != SY_BR_COND && k != SY_BR_JUMP && k != SY_BR_CALL)
		return 0;
	x = &d->insn->detail->x86;
	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		out->target = (uint64_t)x->operands[0].imm;
		out->has_target = 1;
	} else if (k == SY_BR_COND) {
		return -SY_E_DECODE;
	} else {
		out->kind = k == SY_BR_JUMP ? SY_BR_IND_JUMP : SY_BR_IND_CALL;
	}
	return 0;
}

int sy_insn_decode(struct sy_insn_decoder *d, const uint8_t *code, size_t len,
		   uint64_t addr, struct sy_insn *out)
{
	if (!d->ok || !len)
		return -SY_E_DECODE;
	return d->arch == SY_TRACE_ETM ? sy_a64_decode(d, code, len, addr, out) :
					 sy_x86_decode(d, code, len, addr, out);
}
