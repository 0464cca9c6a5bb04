/* The Intel PT fast path's block cache; see pt_blocks.h. */
#include "pt_blocks.h"

#include <capstone/capstone.h>
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "pt_x86.h"

static void sy_ptb_cs_close(struct sy_ptb *b);

int sy_ptb_init(struct sy_ptb *b, struct sy_code_cache *code)
{
	csh h64 = 0, h32 = 0;

	memset(b, 0, sizeof(*b));
	b->code = code;
	b->v = malloc(SY_PTB_RUNS * sizeof(*b->v));
	b->memo = calloc(SY_PTB_MEMOS, sizeof(*b->memo));
	if (!b->v || !b->memo) {
		free(b->v);
		free(b->memo);
		b->v = NULL;
		b->memo = NULL;
		return -SY_E_NOMEM;
	}
	b->gen = 1;
	for (size_t i = 0; i < SY_PTB_RUNS; i++)
		b->v[i].ip = SY_PTB_EMPTY;
	/* without capstone every instruction is doubtful: the block
	 * decoder does it all */
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h64) == CS_ERR_OK &&
	    cs_open(CS_ARCH_X86, CS_MODE_32, &h32) == CS_ERR_OK) {
		b->cs64 = h64;
		b->cs32 = h32;
		b->csi64 = cs_malloc(h64);
		b->csi32 = cs_malloc(h32);
		b->cs_ok = b->csi64 && b->csi32;
		if (!b->cs_ok)
			sy_ptb_cs_close(b);
	} else if (h64) {
		cs_close(&h64);
	}
	return 0;
}

static void sy_ptb_cs_close(struct sy_ptb *b)
{
	csh h;

	if (b->csi64)
		cs_free(b->csi64, 1);
	if (b->csi32)
		cs_free(b->csi32, 1);
	b->csi64 = b->csi32 = NULL;
	if (b->cs64) {
		h = b->cs64;
		cs_close(&h);
	}
	if (b->cs32) {
		h = b->cs32;
		cs_close(&h);
	}
	b->cs64 = b->cs32 = 0;
	b->cs_ok = 0;
}

void sy_ptb_fini(struct sy_ptb *b)
{
	sy_ptb_cs_close(b);
	free(b->v);
	free(b->memo);
	b->v = NULL;
	b->memo = NULL;
}

void sy_ptb_clear(struct sy_ptb *b)
{
	if (!b->v)
		return;
	/* the memo is emptied by a new generation; once in 2^32 clears, by
	 * hand (0 is never a generation) */
	if (++b->gen == 0) {
		memset(b->memo, 0, SY_PTB_MEMOS * sizeof(*b->memo));
		b->gen = 1;
	}
	if (b->nused <= SY_PTB_USED) {
		for (uint32_t i = 0; i < b->nused; i++)
			b->v[b->used[i]].ip = SY_PTB_EMPTY;
	} else {
		for (size_t i = 0; i < SY_PTB_RUNS; i++)
			b->v[i].ip = SY_PTB_EMPTY;
	}
	b->nused = 0;
}

/* The legacy prefixes libipt's length decoder notes wherever they come
 * (pt_ild): operand size, REP / REPE, REPNE. */
enum {
	SY_PTB_P66 = 1,
	SY_PTB_PF3 = 2,
	SY_PTB_PF2 = 4,
};

/* Where the opcode starts after the legacy (and, in 64-bit mode, REX)
 * prefixes; which of 66h, F3h and F2h were among them in *@pfx.  -1: no
 * opcode within @n bytes. */
static int sy_ptb_opcode_at(const uint8_t *p, size_t n, unsigned bits,
			    unsigned *pfx)
{
	size_t i;

	*pfx = 0;
	for (i = 0; i < n; i++) {
		uint8_t c = p[i];

		if (c == 0x66)
			*pfx |= SY_PTB_P66;
		else if (c == 0xf3)
			*pfx |= SY_PTB_PF3;
		else if (c == 0xf2)
			*pfx |= SY_PTB_PF2;
		else if (c == 0x67 || c == 0x26 || c == 0x2e || c == 0x36 ||
			 c == 0x3e || c == 0x64 || c == 0x65 || c == 0xf0)
			;
		else if (bits == 64 && (c & 0xf0) == 0x40)
			;
		else
			return (int)i;
	}
	return -1;
}

/* Opcodes whose libipt class or size our decoding may not match
 * (pt_blocks.h).  libipt's length decoder (pt_ild.c,
 * pt_instruction_decode) classes these by more than the opcode; the rest
 * of each group is its ptic_other, which capstone measures like any
 * instruction:
 *   FF /3, /5          far call, far jump (any mod)
 *   0F 01 C1 C2 C3     VMCALL, VMLAUNCH, VMRESUME; later libipt versions
 *   0F 01 CA EC        add ERETS / ERETU and UIRET: doubtful too, and
 *   0F 01 D9           VMMCALL, which pt_x86.c calls a far call and libipt
 *                      does not class.  XGETBV (0F 01 D0, in every ld.so's
 *                      start) and RDTSCP are not branches in any version
 *   0F 22 /3           MOV CR3
 *   0F AE /4 with F3   PTWRITE (without 66h); the group's XSAVE, XRSTOR,
 *                      the fences, LDMXCSR (ld.so's lazy binding
 *                      trampoline saves and restores with them) are not
 *   0F C7 /6 mod != 3  VMPTRLD; CMPXCHG16B, XSAVEC, RDRAND are not
 * and, where capstone and libipt measure other lengths (test_pt_blocks
 * measured_as_libipt_measures compares every one- and two-byte opcode
 * with every ModRM byte against libipt itself), none of which an Intel
 * CPU runs:
 *   0F A6, 0F A7       VIA PadLock
 *   66 / F2 0F 78      AMD SSE4a EXTRQ / INSERTQ with immediates
 *   68 with 66h and F2h or F3h   PUSH imm16 (capstone reads 32 bits)
 * A byte missing where the class would be read is doubtful. */
static int sy_ptb_doubtful_op(const uint8_t *p, size_t n, size_t at,
			      unsigned pfx)
{
	uint8_t op = p[at], modrm;
	unsigned reg, mod;

	if (op == 0x9a || op == 0xea)
		return 1;
	if (op == 0x68)
		return (pfx & SY_PTB_P66) && (pfx & (SY_PTB_PF3 | SY_PTB_PF2));
	if (op != 0xff && op != 0x0f)
		return 0;
	if (op == 0x0f) {
		if (at + 1 >= n)
			return 1;
		op = p[++at];
		if (op == 0xa6 || op == 0xa7)
			return 1;
		if (op == 0x78)
			return !!(pfx & (SY_PTB_P66 | SY_PTB_PF2));
		if (op != 0x01 && op != 0x22 && op != 0xae && op != 0xc7)
			return 0;
	}
	if (at + 1 >= n)
		return 1;
	modrm = p[at + 1];
	reg = (modrm >> 3) & 7;
	mod = modrm >> 6;
	switch (op) {
	case 0xff:
		return reg == 3 || reg == 5;
	case 0x01:
		return modrm == 0xc1 || modrm == 0xc2 || modrm == 0xc3 ||
		       modrm == 0xca || modrm == 0xec || modrm == 0xd9;
	case 0x22:
		return 1;
	case 0xae:
		return (pfx & SY_PTB_PF3) && !(pfx & SY_PTB_P66) && reg == 4;
	default:	/* 0xc7 */
		return mod != 3 && reg == 6;
	}
}

static enum pt_insn_class sy_ptb_class(const struct sy_x86_branch *br)
{
	switch (br->kind) {
	case SY_BR_COND:
		return ptic_cond_jump;
	case SY_BR_CALL:
	case SY_BR_IND_CALL:
		return ptic_call;
	case SY_BR_JUMP:
		return br->far ? ptic_far_jump : ptic_jump;
	case SY_BR_IND_JUMP:
		return ptic_jump;
	case SY_BR_RET:
		return ptic_return;
	case SY_BR_SYSCALL:
		return ptic_far_call;
	case SY_BR_ERET:
		return ptic_far_return;
	default:
		return ptic_other;
	}
}

static int sy_ptb_measure(struct sy_ptb *b, uint32_t ctxid, int mode,
			  uint64_t ip, struct sy_ptb_insn *out)
{
	uint8_t buf[15];
	const uint8_t *p = buf;
	struct sy_x86_branch br;
	unsigned bits;
	uint64_t addr = ip;
	size_t n, len;
	cs_insn *ci;
	unsigned pfx;
	int at;

	memset(out, 0, sizeof(*out));
	out->ip = ip;
	n = sy_code_cache_read(b->code, ctxid, ip, buf, sizeof(buf));
	if (!n)
		return -1;
	if (mode == ptem_64bit)
		bits = 64;
	else if (mode == ptem_32bit)
		bits = 32;
	else
		return 1;
	if (!b->cs_ok)
		return 1;
	at = sy_ptb_opcode_at(buf, n, bits, &pfx);
	if (at < 0 || sy_ptb_doubtful_op(buf, n, (size_t)at, pfx))
		return 1;
	ci = bits == 64 ? b->csi64 : b->csi32;
	len = n;
	if (!cs_disasm_iter(bits == 64 ? b->cs64 : b->cs32, &p, &len, &addr,
			    ci))
		return 1;
	out->size = (uint8_t)ci->size;
	if (sy_x86_branch_decode(buf, n, bits, ip, &br) < 0)
		return 1;
	out->iclass = (uint8_t)sy_ptb_class(&br);
	if (out->iclass == ptic_other)
		return 0;
	if (br.size != out->size)
		return 1;
	if (br.direct) {
		int64_t d = (int64_t)(br.target - (ip + br.size));

		/* libipt adds the displacement without truncating it to
		 * the operand size: where that would differ, doubt */
		if (bits == 32 && ((pfx & SY_PTB_P66) || d > INT32_MAX ||
				   d < INT32_MIN))
			return 1;
		out->direct = out->iclass != ptic_cond_jump;
		out->target = br.target;
		out->zero_disp = br.target == ip + br.size;
	}
	return 0;
}

static unsigned sy_ptb_slot(uint64_t ip, uint32_t ctxid, int mode)
{
	return (unsigned)((ip ^ (ip >> 13) ^ 7ull * ctxid ^ (uint64_t)mode) &
			  (SY_PTB_RUNS - 1));
}

int sy_ptb_decode(struct sy_ptb *b, uint32_t ctxid, int mode, uint64_t ip,
		  struct sy_ptb_insn *out)
{
	struct sy_ptb_memo *m =
		&b->memo[sy_ptb_slot(ip, ctxid, mode) & (SY_PTB_MEMOS - 1)];
	int rc;

	if (m->gen == b->gen && m->ip == ip && m->ctxid == ctxid &&
	    m->mode == (uint8_t)mode) {
		*out = m->in;
		return m->rc;
	}
	rc = sy_ptb_measure(b, ctxid, mode, ip, out);
	/* nothing readable is not kept: the code cache remembers that */
	if (rc >= 0) {
		m->ip = ip;
		m->ctxid = ctxid;
		m->mode = (uint8_t)mode;
		m->gen = b->gen;
		m->rc = (uint8_t)rc;
		m->in = *out;
	}
	return rc;
}

static void sy_ptb_fill(struct sy_ptb *b, struct sy_ptb_run *r,
			uint32_t ctxid, int mode, uint64_t ip)
{
	struct sy_ptb_insn in;
	uint64_t at = ip;

	r->ip = ip;
	r->ctxid = ctxid;
	r->mode = (uint8_t)mode;
	r->ninsn = 0;
	memset(&r->last, 0, sizeof(r->last));
	for (;;) {
		if (r->ninsn == SY_PTB_MAX_INSNS) {
			r->end = SY_PTB_CAP;
			r->next = at;
			return;
		}
		if (sy_ptb_decode(b, ctxid, mode, at, &in)) {
			r->end = SY_PTB_DOUBT;
			r->next = at;
			return;
		}
		r->ninsn++;
		r->last = in;
		if (in.iclass != ptic_other) {
			r->end = SY_PTB_BRANCH;
			r->next = at + in.size;
			return;
		}
		at += in.size;
	}
}

const struct sy_ptb_run *sy_ptb_run(struct sy_ptb *b, uint32_t ctxid, int mode,
				    uint64_t ip)
{
	unsigned i = sy_ptb_slot(ip, ctxid, mode);
	struct sy_ptb_run *r = &b->v[i];

	if (r->ip == ip && r->ctxid == ctxid && r->mode == mode)
		return r;
	b->misses++;
	if (r->ip == SY_PTB_EMPTY) {
		if (b->nused < SY_PTB_USED)
			b->used[b->nused] = (uint16_t)i;
		if (b->nused <= SY_PTB_USED)
			b->nused++;
	}
	sy_ptb_fill(b, r, ctxid, mode, ip);
	return r;
}
