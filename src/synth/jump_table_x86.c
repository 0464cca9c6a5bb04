/* x86-64 jump and call tables, read from the code (see jump_table.h).
 *
 * GCC and Clang lower a switch to a bounds check and a load from a table
 * in read-only data, in one straight run of code:
 *
 *   cmp $N, %eI; ja default; [mov %eI, %eI;] jmp *TAB(,%rI,8)
 *   cmp $N, %eI; ja default; lea TAB(%rip), %rB; [mov %eI, %eI;]
 *       movslq (%rB,%rI,4), %rD; add %rB, %rD; [notrack] jmp *%rD
 *
 * and an indexed call through a table of function pointers is bounded by
 * a mask (`and $M, %eI; ... call *TAB(,%rI,8)`).  The bound holds because
 * the run is straight (no taken branch between the previous branch's
 * target and this one) and nothing in it writes the index after the check
 * (capstone's register access, implicit writes included).  With the table
 * in a mapping nobody writes, the target is one of its first N + 1
 * entries, whatever the index was: another target is no program's. */
#include "jump_table.h"

#include <string.h>

/* Longest straight run decoded (bytes) and instructions kept from it. */
#define SY_JTX_RUN 1024u
#define SY_JTX_KEEP 12

struct sy_jtx_insn {
	uint64_t addr;
	unsigned id;
	uint8_t size, nop;
	cs_x86_op op[2];
	uint16_t writes;	/* general registers written, by family */
};

/* The general register family (0..15) of @reg, or -1. */
static int sy_jtx_fam(unsigned reg)
{
	static const unsigned fam[][5] = {
		{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
		{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
		{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
		{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
		{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, 0 },
		{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, 0 },
		{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, 0 },
		{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, 0 },
		{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, 0 },
		{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, 0 },
		{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, 0 },
		{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, 0 },
		{ X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, 0 },
		{ X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, 0 },
		{ X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, 0 },
		{ X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, 0 },
	};

	if (reg == X86_REG_INVALID)
		return -1;
	for (int f = 0; f < 16; f++)
		for (int i = 0; i < 5; i++)
			if (fam[f][i] == reg)
				return f;
	return -1;
}

static int sy_jtx_transfer(unsigned id)
{
	switch (id) {
	case X86_INS_JMP: case X86_INS_LJMP: case X86_INS_CALL:
	case X86_INS_LCALL: case X86_INS_RET: case X86_INS_RETF:
	case X86_INS_RETFQ: case X86_INS_IRET: case X86_INS_IRETD:
	case X86_INS_IRETQ: case X86_INS_SYSCALL: case X86_INS_SYSENTER:
	case X86_INS_SYSRET: case X86_INS_SYSEXIT: case X86_INS_INT:
	case X86_INS_INT1: case X86_INS_INT3: case X86_INS_INTO:
	case X86_INS_UD2:
		return 1;
	default:
		return 0;
	}
}

/* Decodes the straight run [@run, @end] (its last instruction at @end) and
 * keeps its last SY_JTX_KEEP instructions in @v (oldest first).  Returns
 * how many, or 0 when the run does not decode to exactly @end. */
static size_t sy_jtx_run(const struct sy_jt_code *k, struct sy_insn_decoder *d,
			 uint64_t run, uint64_t end, struct sy_jtx_insn *v)
{
	uint8_t buf[SY_JTX_RUN + 16];
	size_t len = (size_t)(end - run) + 16, n = 0;
	const uint8_t *p = buf;
	uint64_t addr = run;

	if (!d->ok || run > end || end - run > SY_JTX_RUN ||
	    !k->read(k->ctx, run, buf, len))
		return 0;
	while (addr <= end) {
		struct sy_jtx_insn *e = &v[n % SY_JTX_KEEP];
		const cs_x86 *x;
		cs_regs rr, rw;
		uint8_t nr = 0, nw = 0;

		if (!cs_disasm_iter(d->cs, &p, &len, &addr, d->insn))
			return 0;
		x = &d->insn->detail->x86;
		memset(e, 0, sizeof(*e));
		e->addr = d->insn->address;
		e->id = d->insn->id;
		e->size = (uint8_t)d->insn->size;
		e->nop = x->op_count;
		memcpy(e->op, x->operands,
		       (x->op_count < 2 ? x->op_count : 2) * sizeof(e->op[0]));
		if (cs_regs_access(d->cs, d->insn, rr, &nr, rw, &nw))
			return 0;
		for (uint8_t i = 0; i < nw; i++) {
			int f = sy_jtx_fam(rw[i]);

			if (f >= 0)
				e->writes |= (uint16_t)(1u << f);
		}
		n++;
		if (e->addr == end)
			break;
		/* the run is straight: no transfer but a conditional branch
		 * not taken lies in it (else the trace listed a branch) */
		if (sy_jtx_transfer(e->id))
			return 0;
	}
	if (!n || v[(n - 1) % SY_JTX_KEEP].addr != end)
		return 0;
	/* oldest first */
	if (n > SY_JTX_KEEP) {
		struct sy_jtx_insn tmp[SY_JTX_KEEP];
		size_t s = n % SY_JTX_KEEP;

		for (size_t i = 0; i < SY_JTX_KEEP; i++)
			tmp[i] = v[(s + i) % SY_JTX_KEEP];
		memcpy(v, tmp, sizeof(tmp));
		n = SY_JTX_KEEP;
	}
	return n;
}

static int sy_jtx_reg(const struct sy_jtx_insn *e, int i, int fam)
{
	return e->nop > i && e->op[i].type == X86_OP_REG &&
	       sy_jtx_fam(e->op[i].reg) == fam;
}

/* The index bound before @load (v[load] reads the table with index family
 * @fam): `cmp $N, I; ja` or `and $M, I`, nothing after it writing I but a
 * zero-extending `mov %eI, %eI`.  Returns the entries (bound + 1), or 0. */
static uint64_t sy_jtx_bound(const struct sy_jtx_insn *v, size_t load, int fam)
{
	for (size_t i = load; i-- > 0;) {
		const struct sy_jtx_insn *e = &v[i];

		/* (a 32-bit write zero-extends: the whole index) */
		int full = e->nop == 2 && sy_jtx_reg(e, 0, fam) &&
			   e->op[0].size >= 4 && e->op[1].type == X86_OP_IMM &&
			   e->op[1].imm >= 0;

		if (e->id == X86_INS_AND && full)
			return (uint64_t)e->op[1].imm + 1;
		if (e->id == X86_INS_CMP && full && i + 1 < load &&
		    v[i + 1].id == X86_INS_JA)
			return (uint64_t)e->op[1].imm + 1;
		if (!(e->writes & (1u << fam)))
			continue;
		/* mov %eI, %eI keeps a value the check bounded */
		if (e->id == X86_INS_MOV && e->nop == 2 && sy_jtx_reg(e, 0, fam) &&
		    sy_jtx_reg(e, 1, fam) && e->op[0].reg == e->op[1].reg)
			continue;
		return 0;
	}
	return 0;
}

/* Whether the @n entries of @esize bytes at @tab give @to (an absolute
 * entry, or @base plus a signed 32-bit one): 1 yes or not known. */
static int sy_jtx_entries(const struct sy_jt_code *k, uint64_t tab,
			  uint64_t n, unsigned esize, uint64_t base, uint64_t to)
{
	if (!n || n > 1024 || !k->fixed(k->ctx, tab, n * esize))
		return 1;
	for (uint64_t i = 0; i < n; i++) {
		uint8_t e[8];
		uint64_t v = 0;

		if (!k->read(k->ctx, tab + i * esize, e, esize))
			return 1;
		for (unsigned j = esize; j-- > 0;)
			v = v << 8 | e[j];
		if (esize == 4)
			v = base + (uint64_t)(int64_t)(int32_t)(uint32_t)v;
		if (v == to)
			return 1;
	}
	return 0;
}

/* `movslq (%rB,%rI,4), %rD; add %rB, %rD; jmp *%rD` after `lea
 * TAB(%rip), %rB`: 1 yes or not known, 0 no. */
static int sy_jtx_relative(const struct sy_jt_code *k,
			   const struct sy_jtx_insn *v, size_t n, uint64_t to)
{
	const struct sy_jtx_insn *j = &v[n - 1], *add, *ld;
	int fd, fb, fi;

	if (n < 4)
		return 1;
	add = &v[n - 2];
	ld = &v[n - 3];
	fd = sy_jtx_fam(j->op[0].reg);
	if (add->id != X86_INS_ADD || add->nop != 2 || !sy_jtx_reg(add, 0, fd) ||
	    add->op[1].type != X86_OP_REG || ld->id != X86_INS_MOVSXD ||
	    ld->nop != 2 || !sy_jtx_reg(ld, 0, fd) ||
	    ld->op[1].type != X86_OP_MEM || ld->op[1].mem.scale != 4 ||
	    ld->op[1].mem.disp != 0 ||
	    sy_jtx_fam(ld->op[1].mem.base) != sy_jtx_fam(add->op[1].reg))
		return 1;
	fb = sy_jtx_fam(ld->op[1].mem.base);
	fi = sy_jtx_fam(ld->op[1].mem.index);
	if (fb < 0 || fi < 0 || fb == fi)
		return 1;
	for (size_t i = n - 3; i-- > 0;) {
		const struct sy_jtx_insn *e = &v[i];
		uint64_t tab;

		if (e->id == X86_INS_LEA && e->nop == 2 && sy_jtx_reg(e, 0, fb) &&
		    e->op[1].type == X86_OP_MEM &&
		    e->op[1].mem.base == X86_REG_RIP &&
		    e->op[1].mem.index == X86_REG_INVALID) {
			tab = e->addr + e->size + (uint64_t)e->op[1].mem.disp;
			return sy_jtx_entries(k, tab,
					      sy_jtx_bound(v, n - 3, fi), 4,
					      tab, to);
		}
		if (e->writes & (1u << fb))
			return 1;
	}
	return 1;
}

/* Whether the bytes at @p can be a table's jump or call: [notrack]
 * [REX] ff /4 or /2 with a SIB and no base (`*TAB(,I,8)`), or [notrack]
 * [REX] ff /4 on a register.  Most indirect calls are neither (virtual
 * calls load from a register), and need no decoding of their run. */
static int sy_jtx_shape(const uint8_t *p)
{
	if (p[0] == 0x3e)
		p++;
	if ((p[0] & 0xf0) == 0x40)
		p++;
	return p[0] == 0xff &&
	       (((p[1] == 0x24 || p[1] == 0x14) && (p[2] & 7) == 5) ||
		(p[1] & 0xf8) == 0xe0);
}

int sy_jt_x86_hit(const struct sy_jt_code *k, struct sy_insn_decoder *d,
		  const struct sy_br *b, uint64_t run, int linked)
{
	uint8_t head[4];
	struct sy_jtx_insn v[SY_JTX_KEEP];
	const struct sy_jtx_insn *j;
	size_t n;
	const cs_x86_op *o;

	if (!k->read(k->ctx, b->from, head, sizeof(head)) || !sy_jtx_shape(head))
		return 1;
	n = sy_jtx_run(k, d, run, b->from, v);
	if (!n)
		return 1;
	j = &v[n - 1];
	if ((j->id != X86_INS_JMP && j->id != X86_INS_CALL) || j->nop != 1)
		return 1;
	o = &j->op[0];
	if (linked && o->type == X86_OP_MEM && o->mem.base == X86_REG_INVALID &&
	    o->mem.segment == X86_REG_INVALID && o->mem.scale == 8 &&
	    o->mem.disp >= 0 && sy_jtx_fam(o->mem.index) >= 0)
		return sy_jtx_entries(k, (uint64_t)o->mem.disp,
				      sy_jtx_bound(v, n - 1,
						   sy_jtx_fam(o->mem.index)),
				      8, 0, b->to);
	if (o->type == X86_OP_REG && j->id == X86_INS_JMP &&
	    sy_jtx_fam(o->reg) >= 0)
		return sy_jtx_relative(k, v, n, b->to);
	return 1;
}

/* --- the binary's read-only segments ------------------------------------ */

static int sy_jt_ro_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	const struct sy_jt_ro *r = ctx;

	while (n) {
		size_t avail, k;
		const uint8_t *p = sy_image_rodata(r->img, addr + r->bias,
						   &avail);

		if (!p)
			return 0;
		k = avail < n ? avail : n;
		memcpy(buf, p, k);
		buf += k;
		addr += k;
		n -= k;
	}
	return 1;
}

static int sy_jt_ro_fixed(void *ctx, uint64_t addr, uint64_t len)
{
	const struct sy_jt_ro *r = ctx;

	while (len) {
		size_t avail;

		if (!sy_image_rodata(r->img, addr + r->bias, &avail))
			return 0;
		if (avail >= len)
			return 1;
		addr += avail;
		len -= avail;
	}
	return 1;
}

struct sy_jt_code sy_jt_ro_code(struct sy_jt_ro *r)
{
	const struct sy_jt_code k = { sy_jt_ro_read, sy_jt_ro_fixed, r };

	return k;
}
