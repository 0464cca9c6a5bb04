/* Branch-only x86 instruction decoding; see pt_x86.h for why. */
#include "pt_x86.h"

#include <string.h>

enum { SY_X86_MAX_INSN = 15 };

/* Length of ModRM + SIB + displacement starting at @b[@p], or -1 when the
 * bytes end first. */
static int sy_x86_modrm_len(const uint8_t *b, size_t len, size_t p,
			    unsigned abits)
{
	unsigned mod, rm;
	int n = 1;

	if (p >= len)
		return -1;
	mod = b[p] >> 6;
	rm = b[p] & 7;
	if (mod == 3)
		return 1;
	if (abits == 16) {
		if (mod == 0 && rm == 6)
			n += 2;
		else if (mod == 1)
			n += 1;
		else if (mod == 2)
			n += 2;
		return n;
	}
	if (rm == 4) {
		if (p + 1 >= len)
			return -1;
		n += 1;
		if (mod == 0 && (b[p + 1] & 7) == 5)
			n += 4;
	} else if (mod == 0 && rm == 5) {
		n += 4;	/* disp32, RIP-relative in 64-bit mode */
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n;
}

static uint64_t sy_x86_trunc(uint64_t ip, unsigned obits)
{
	if (obits == 16)
		return ip & 0xffffull;
	if (obits == 32)
		return ip & 0xffffffffull;
	return ip;
}

static int64_t sy_x86_rel(const uint8_t *b, unsigned n)
{
	if (n == 1)
		return (int8_t)b[0];
	if (n == 2)
		return (int16_t)(uint16_t)(b[0] | b[1] << 8);
	return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 |
			 (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

static int sy_x86_set(struct sy_x86_branch *out, enum sy_branch_kind kind,
		      size_t size, size_t len)
{
	if (size > len)
		return -1;
	if (size > SY_X86_MAX_INSN) {
		/* Too long to be an instruction: the CPU would #GP. */
		memset(out, 0, sizeof(*out));
		return 0;
	}
	out->kind = (uint8_t)kind;
	out->size = (uint8_t)size;
	return 0;
}

/* Near relative branch: opcode ends at @p (exclusive), @n bytes of
 * displacement follow. */
static int sy_x86_rel_branch(struct sy_x86_branch *out, const uint8_t *b,
			     size_t len, size_t p, unsigned n,
			     enum sy_branch_kind kind, uint64_t ip,
			     unsigned obits)
{
	int err = sy_x86_set(out, kind, p + n, len);

	if (err || out->kind == SY_BR_NONE)
		return err;
	out->direct = 1;
	out->target = sy_x86_trunc(ip + out->size + (uint64_t)sy_x86_rel(b + p, n),
				   obits);
	return 0;
}

/* Kept whole: one switch over the one- and two-byte opcode maps, in the
 * order of the SDM's tables, so that a missing opcode is seen at a
 * glance; every case is a few lines. */
int sy_x86_branch_decode(const uint8_t *b, size_t len, unsigned bits,
			 uint64_t ip, struct sy_x86_branch *out)
{
	unsigned obits, abits, zrel;
	int osz = 0, asz = 0, m;
	size_t p = 0;
	uint8_t op;

	memset(out, 0, sizeof(*out));
	if (bits != 16 && bits != 32 && bits != 64)
		return -1;
	if (len > SY_X86_MAX_INSN)
		len = SY_X86_MAX_INSN;

	/* Legacy prefixes in any order; in 64-bit mode REX bytes too (only
	 * the one right before the opcode counts, and none of the branches
	 * below depend on REX.W except for the operand sizes that 64-bit
	 * mode fixes anyway). */
	for (;; p++) {
		if (p >= len)
			return -1;
		op = b[p];
		if (op == 0x66)
			osz = 1;
		else if (op == 0x67)
			asz = 1;
		else if (op == 0x26 || op == 0x2e || op == 0x36 || op == 0x3e ||
			 op == 0x64 || op == 0x65 || op == 0xf0 || op == 0xf2 ||
			 op == 0xf3)
			;
		else if (bits == 64 && (op & 0xf0) == 0x40)
			;
		else
			break;
	}
	if (bits == 64) {
		/* Near branches ignore 66h in 64-bit mode (Intel). */
		obits = 64;
		zrel = 4;
		abits = asz ? 32 : 64;
	} else {
		obits = (bits == 16) != osz ? 16 : 32;
		zrel = obits == 16 ? 2 : 4;
		abits = (bits == 16) != asz ? 16 : 32;
	}
	p++;	/* past the opcode byte */

	switch (op) {
	case 0x70: case 0x71: case 0x72: case 0x73:
	case 0x74: case 0x75: case 0x76: case 0x77:
	case 0x78: case 0x79: case 0x7a: case 0x7b:
	case 0x7c: case 0x7d: case 0x7e: case 0x7f:
	case 0xe0: case 0xe1: case 0xe2: case 0xe3:	/* loop*, jrcxz */
		return sy_x86_rel_branch(out, b, len, p, 1, SY_BR_COND, ip,
					 obits);
	case 0xeb:
		return sy_x86_rel_branch(out, b, len, p, 1, SY_BR_JUMP, ip,
					 obits);
	case 0xe9:
		return sy_x86_rel_branch(out, b, len, p, zrel, SY_BR_JUMP, ip,
					 obits);
	case 0xe8:
		return sy_x86_rel_branch(out, b, len, p, zrel, SY_BR_CALL, ip,
					 obits);
	case 0xc3:
		return sy_x86_set(out, SY_BR_RET, p, len);
	case 0xc2:
		return sy_x86_set(out, SY_BR_RET, p + 2, len);
	case 0xcb:	/* ret far */
	case 0xcf:	/* iret */
		out->far = 1;
		return sy_x86_set(out, SY_BR_ERET, p, len);
	case 0xca:
		out->far = 1;
		return sy_x86_set(out, SY_BR_ERET, p + 2, len);
	case 0xcc:	/* int3 */
	case 0xce:	/* into */
	case 0xf1:	/* int1 */
		out->far = 1;
		return sy_x86_set(out, SY_BR_SYSCALL, p, len);
	case 0xcd:	/* int n */
		out->far = 1;
		return sy_x86_set(out, SY_BR_SYSCALL, p + 1, len);
	case 0x9a:	/* call ptr16:16/32, not in 64-bit mode */
	case 0xea:	/* jmp ptr16:16/32 */
		if (bits == 64)
			return 0;
		out->far = 1;
		return sy_x86_set(out, op == 0x9a ? SY_BR_SYSCALL : SY_BR_JUMP,
				  p + 2 + (obits == 16 ? 2 : 4), len);
	case 0xff:
		m = sy_x86_modrm_len(b, len, p, abits);
		if (m < 0)
			return -1;
		switch ((b[p] >> 3) & 7) {
		case 2:
			return sy_x86_set(out, SY_BR_IND_CALL, p + (size_t)m,
					  len);
		case 4:
			return sy_x86_set(out, SY_BR_IND_JUMP, p + (size_t)m,
					  len);
		case 3:	/* call m16:16/32/64 */
		case 5:	/* jmp m16:16/32/64 */
			if ((b[p] >> 6) == 3)
				return 0;	/* #UD */
			out->far = 1;
			return sy_x86_set(out,
					  ((b[p] >> 3) & 7) == 3 ?
						  SY_BR_SYSCALL :
						  SY_BR_JUMP,
					  p + (size_t)m, len);
		default:
			return 0;
		}
	case 0x0f:
		if (p >= len)
			return -1;
		op = b[p++];
		if (op >= 0x80 && op <= 0x8f)
			return sy_x86_rel_branch(out, b, len, p, zrel,
						 SY_BR_COND, ip, obits);
		switch (op) {
		case 0x05:	/* syscall */
		case 0x34:	/* sysenter */
			out->far = 1;
			return sy_x86_set(out, SY_BR_SYSCALL, p, len);
		case 0x07:	/* sysret */
		case 0x35:	/* sysexit */
			out->far = 1;
			return sy_x86_set(out, SY_BR_ERET, p, len);
		case 0x01:
			if (p >= len)
				return -1;
			switch (b[p]) {
			case 0xc1:	/* vmcall */
			case 0xd9:	/* vmmcall */
				out->far = 1;
				return sy_x86_set(out, SY_BR_SYSCALL, p + 1,
						  len);
			case 0xc2:	/* vmlaunch */
			case 0xc3:	/* vmresume */
				out->far = 1;
				return sy_x86_set(out, SY_BR_ERET, p + 1, len);
			default:
				return 0;
			}
		default:
			return 0;
		}
	default:
		return 0;
	}
}
