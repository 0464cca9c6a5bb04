/* Round-trip proofs for the ETMv4 / ETE encoder (fx_etm), the CoreSight
 * frame formatter (fx_csfmt) and the snapshot writer (fx_snapshot).
 *
 * The encoder is only as good as an independent decoder says: every test
 * builds a program of real A64 instruction words, runs it in a small
 * interpreter (the ground truth), encodes the executed path, decodes the
 * bytes with the OpenCSD 1.3.3 C API (ETMV4I and ETE decoders, ARCH_AA64)
 * and compares what OpenCSD reports with what the truth says the trace
 * proves.  Snapshots are decoded a second time by trc_pkt_lister.  The
 * negative controls (flipped atom, missing Trace Info) show that the
 * comparison can fail.
 *
 * Tests never use the product decoder in src/decode/.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <opencsd/c_api/opencsd_c_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_csfmt.h"
#include "fx_etm.h"
#include "fx_snapshot.h"
#include "sy_branch.h"
#include "sy_bytes.h"
#include "sy_error.h"
#include "sy_test.h"

/* Under ASan, unwind malloc stacks slowly: OpenCSD's known 32-byte leak
 * per decode tree (tests/lsan.supp) is only suppressed when the stack
 * reaches ocsd_dt_set_gen_elem_outfn, and the fast frame-pointer unwinder
 * stops inside libstdc++'s operator new at random. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FX_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FX_TEST_ASAN 1
#endif
#ifdef FX_TEST_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}
#endif

/* ---- A64 program builder (hand assembler) ----
 *
 * Programs are real A64 instruction words (checked once with
 * aarch64-linux-gnu-objdump -D -b binary -m aarch64), laid out in up to
 * MAX_SEG segments at arbitrary addresses so that branch targets need
 * every address-packet size.  Branches name labels; fixups resolve them
 * once the program is complete. */

#define MAX_WORDS 16384
#define MAX_SEG 8
#define MAX_LABELS 4096

enum fix_kind { FIX_B26, FIX_B19, FIX_B14, FIX_ADR, FIX_MOV64 };

struct prog {
	uint32_t w[MAX_WORDS];
	size_t n;
	uint64_t seg_base[MAX_SEG];
	size_t seg_first[MAX_SEG];	/* first word of each segment */
	size_t nseg;
	int64_t lab[MAX_LABELS];	/* word index, -1 = unbound */
	size_t nlab;
	struct {
		size_t at, lab;
		enum fix_kind kind;
	} fix[MAX_WORDS];
	size_t nfix;
	uint64_t stop;			/* pc where the interpreter halts */
};

static struct prog *prog_new(void)
{
	struct prog *p = calloc(1, sizeof(*p));

	cr_assert_not_null(p);
	return p;
}

/* Starts a new segment at @base. */
static void p_org(struct prog *p, uint64_t base)
{
	cr_assert_lt(p->nseg, MAX_SEG);
	p->seg_base[p->nseg] = base;
	p->seg_first[p->nseg] = p->n;
	p->nseg++;
}

static size_t seg_of(const struct prog *p, size_t idx)
{
	size_t s = 0;

	for (size_t k = 0; k < p->nseg; k++)
		if (p->seg_first[k] <= idx)
			s = k;
	return s;
}

static size_t seg_len(const struct prog *p, size_t s)
{
	size_t end = s + 1 < p->nseg ? p->seg_first[s + 1] : p->n;

	return end - p->seg_first[s];
}

static uint64_t waddr(const struct prog *p, size_t idx)
{
	size_t s = seg_of(p, idx);

	return p->seg_base[s] + 4 * (uint64_t)(idx - p->seg_first[s]);
}

static uint64_t p_here(const struct prog *p)
{
	return waddr(p, p->n);
}

static size_t p_label(struct prog *p)
{
	cr_assert_lt(p->nlab, MAX_LABELS);
	p->lab[p->nlab] = -1;
	return p->nlab++;
}

static void p_bind(struct prog *p, size_t l)
{
	p->lab[l] = (int64_t)p->n;
}

static uint64_t lab_addr(const struct prog *p, size_t l)
{
	cr_assert_geq(p->lab[l], 0, "label %zu unbound", l);
	return waddr(p, (size_t)p->lab[l]);
}

static void emit(struct prog *p, uint32_t w)
{
	cr_assert_lt(p->n, MAX_WORDS);
	p->w[p->n++] = w;
}

static void emit_fix(struct prog *p, uint32_t w, size_t l, enum fix_kind k)
{
	cr_assert_lt(p->nfix, MAX_WORDS);
	p->fix[p->nfix].at = p->n;
	p->fix[p->nfix].lab = l;
	p->fix[p->nfix].kind = k;
	p->nfix++;
	emit(p, w);
}

#define A64_NOP 0xd503201fu
#define A64_RET 0xd65f03c0u
#define A64_RETAA 0xd65f0bffu

static void a_nop(struct prog *p) { emit(p, A64_NOP); }
static void a_b(struct prog *p, size_t l) { emit_fix(p, 0x14000000u, l, FIX_B26); }
static void a_bl(struct prog *p, size_t l) { emit_fix(p, 0x94000000u, l, FIX_B26); }
static void a_bcond(struct prog *p, unsigned cond, size_t l)
{
	emit_fix(p, 0x54000000u | (cond & 0xf), l, FIX_B19);
}
static void a_cbz(struct prog *p, unsigned rt, int nz, size_t l)
{
	emit_fix(p, (nz ? 0xb5000000u : 0xb4000000u) | rt, l, FIX_B19);
}
static void a_tbz(struct prog *p, unsigned rt, unsigned bit, int nz, size_t l)
{
	emit_fix(p, (nz ? 0x37000000u : 0x36000000u) | ((bit >> 5) << 31) |
		 ((bit & 31) << 19) | rt, l, FIX_B14);
}
static void a_adr(struct prog *p, unsigned rd, size_t l) { emit_fix(p, 0x10000000u | rd, l, FIX_ADR); }
static void a_br(struct prog *p, unsigned rn) { emit(p, 0xd61f0000u | rn << 5); }
static void a_blr(struct prog *p, unsigned rn) { emit(p, 0xd63f0000u | rn << 5); }
static void a_ret(struct prog *p) { emit(p, A64_RET); }
static void a_retaa(struct prog *p) { emit(p, A64_RETAA); }
static void a_svc(struct prog *p, unsigned imm) { emit(p, 0xd4000001u | (imm & 0xffff) << 5); }
static void a_add(struct prog *p, unsigned rd, unsigned rn, unsigned imm)
{
	emit(p, 0x91000000u | (imm & 0xfff) << 10 | rn << 5 | rd);
}
static void a_subs(struct prog *p, unsigned rd, unsigned rn, unsigned imm)
{
	emit(p, 0xf1000000u | (imm & 0xfff) << 10 | rn << 5 | rd);
}
static void a_movz(struct prog *p, unsigned rd, unsigned imm16)
{
	emit(p, 0xd2800000u | (imm16 & 0xffff) << 5 | rd);
}
/* movz + 3 movk: load the absolute address of label @l. */
static void a_mov64(struct prog *p, unsigned rd, size_t l)
{
	emit_fix(p, 0xd2800000u | rd, l, FIX_MOV64);
	emit(p, 0xf2a00000u | rd);
	emit(p, 0xf2c00000u | rd);
	emit(p, 0xf2e00000u | rd);
}

/* Resolves every fixup; fails the test on an out-of-range branch. */
static void p_link(struct prog *p)
{
	for (size_t i = 0; i < p->nfix; i++) {
		size_t at = p->fix[i].at;
		uint64_t from = waddr(p, at), to = lab_addr(p, p->fix[i].lab);
		int64_t off = (int64_t)(to - from);
		uint32_t *w = &p->w[at];

		switch (p->fix[i].kind) {
		case FIX_B26:
			cr_assert(off >= -(1 << 27) && off < (1 << 27));
			*w |= (uint32_t)(off >> 2) & 0x3ffffff;
			break;
		case FIX_B19:
			cr_assert(off >= -(1 << 20) && off < (1 << 20));
			*w |= ((uint32_t)(off >> 2) & 0x7ffff) << 5;
			break;
		case FIX_B14:
			cr_assert(off >= -(1 << 15) && off < (1 << 15));
			*w |= ((uint32_t)(off >> 2) & 0x3fff) << 5;
			break;
		case FIX_ADR:
			cr_assert(off >= -(1 << 20) && off < (1 << 20));
			*w |= ((uint32_t)off & 3) << 29 |
			      (((uint32_t)off >> 2) & 0x7ffff) << 5;
			break;
		case FIX_MOV64:
			for (unsigned k = 0; k < 4; k++)
				w[k] |= (uint32_t)((to >> (16 * k)) & 0xffff)
					<< 5;
			break;
		}
	}
}

/* ---- interpreter: the ground truth for the hand-built programs ---- */

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);

	v &= (1ull << bits) - 1;
	return (int64_t)((v ^ m) - m);
}

static int fetch(const struct prog *p, uint64_t pc, uint32_t *w)
{
	for (size_t s = 0; s < p->nseg; s++) {
		uint64_t b = p->seg_base[s];

		if (pc >= b && pc < b + 4 * seg_len(p, s)) {
			*w = p->w[p->seg_first[s] + (pc - b) / 4];
			return 1;
		}
	}
	return 0;
}

struct cpu {
	uint64_t x[32];
	int n, z, c, v;
};

static int cond_holds(const struct cpu *c, unsigned cond)
{
	int r;

	switch (cond >> 1) {
	case 0: r = c->z; break;
	case 1: r = c->c; break;
	case 2: r = c->n; break;
	case 3: r = c->v; break;
	case 4: r = c->c && !c->z; break;
	case 5: r = c->n == c->v; break;
	case 6: r = c->n == c->v && !c->z; break;
	default: r = 1; break;
	}
	if ((cond & 1) && cond != 15)
		r = !r;
	return r;
}

/* Executes from @entry until p->stop (not executed) or @max instructions,
 * recording each one with its successor and its branch kind.  Returns the
 * number recorded. */
static size_t run(const struct prog *p, uint64_t entry, struct fx_insn *out,
		  size_t max)
{
	struct cpu c;
	uint64_t pc = entry;
	size_t k = 0;

	memset(&c, 0, sizeof(c));
	while (k < max && pc != p->stop) {
		uint32_t w;
		uint64_t next = pc + 4;
		uint8_t kind = SY_BR_NONE;
		unsigned rd, rn;

		cr_assert(fetch(p, pc, &w), "pc 0x%" PRIx64 " outside image", pc);
		rd = w & 31;
		rn = (w >> 5) & 31;
		if (w == A64_NOP) {
		} else if ((w & 0xff800000u) == 0x91000000u) {	/* add */
			c.x[rd] = c.x[rn] + ((w >> 10) & 0xfff);
		} else if ((w & 0xff800000u) == 0xf1000000u) {	/* subs */
			uint64_t a = c.x[rn], b = (w >> 10) & 0xfff, r = a - b;
			c.n = (int)(r >> 63);
			c.z = r == 0;
			c.c = a >= b;
			c.v = (int)(((a ^ b) & (a ^ r)) >> 63);
			if (rd != 31)
				c.x[rd] = r;
		} else if ((w & 0xff800000u) == 0xd2800000u) {	/* movz */
			unsigned hw = (w >> 21) & 3;
			c.x[rd] = (uint64_t)((w >> 5) & 0xffff) << (16 * hw);
		} else if ((w & 0xff800000u) == 0xf2800000u) {	/* movk */
			unsigned hw = (w >> 21) & 3;
			c.x[rd] &= ~(0xffffull << (16 * hw));
			c.x[rd] |= (uint64_t)((w >> 5) & 0xffff) << (16 * hw);
		} else if ((w & 0x9f000000u) == 0x10000000u) {	/* adr */
			uint64_t imm = ((w >> 5) & 0x7ffff) << 2 | ((w >> 29) & 3);
			c.x[rd] = pc + (uint64_t)sext(imm, 21);
		} else if ((w & 0x7c000000u) == 0x14000000u) {	/* b, bl */
			kind = (w >> 31) ? SY_BR_CALL : SY_BR_JUMP;
			if (w >> 31)
				c.x[30] = pc + 4;
			next = pc + (uint64_t)(sext(w & 0x3ffffff, 26) * 4);
		} else if ((w & 0xff000010u) == 0x54000000u) {	/* b.cond */
			kind = SY_BR_COND;
			if (cond_holds(&c, w & 0xf))
				next = pc + (uint64_t)(sext(w >> 5, 19) * 4);
		} else if ((w & 0xfe000000u) == 0xb4000000u) {	/* cbz/cbnz */
			int nz = (w >> 24) & 1;
			kind = SY_BR_COND;
			if ((c.x[rd] != 0) == nz)
				next = pc + (uint64_t)(sext(w >> 5, 19) * 4);
		} else if ((w & 0x7e000000u) == 0x36000000u) {	/* tbz/tbnz */
			unsigned bit = (w >> 31) << 5 | ((w >> 19) & 31);
			int nz = (w >> 24) & 1;
			kind = SY_BR_COND;
			if ((int)((c.x[rd] >> bit) & 1) == nz)
				next = pc + (uint64_t)(sext(w >> 5, 14) * 4);
		} else if ((w & 0xfffffc1fu) == 0xd61f0000u) {	/* br */
			kind = SY_BR_IND_JUMP;
			next = c.x[rn];
		} else if ((w & 0xfffffc1fu) == 0xd63f0000u) {	/* blr */
			kind = SY_BR_IND_CALL;
			next = c.x[rn];
			c.x[30] = pc + 4;
		} else if ((w & 0xfffffc1fu) == 0xd65f0000u ||
			   w == A64_RETAA) {			/* ret, retaa */
			kind = SY_BR_RET;
			next = c.x[w == A64_RETAA ? 30 : rn];
		} else if ((w & 0xffe0001fu) == 0xd4000001u) {	/* svc */
			kind = SY_BR_SYSCALL;
			c.x[0] = 0;	/* the "kernel" returns 0 */
		} else {
			cr_assert_fail("unknown instruction 0x%08x at 0x%" PRIx64,
				       w, pc);
		}
		out[k].pc = pc;
		out[k].next = next;
		out[k].size = 4;
		out[k].kind = kind;
		k++;
		pc = next;
	}
	return k;
}

/* ---- decoded / expected event lists ---- */

enum ev_kind {
	EV_RANGE = 1,	/* decoder: a=st, b=en (exclusive), n=num_i,
			 * x = last_instr_exec | last_i_type << 4 */
	EV_INSN,	/* flattened: a=pc; x = 0, or for a branch that
			 * closes a range 1 + executed (1 = N, 2 = E) */
	EV_EXC,		/* x = exception number, a = return address */
	EV_TRACE_ON,	/* x = trace_on_reason */
	EV_NO_SYNC,	/* x = unsync_info */
	EV_TS,		/* a = timestamp */
	EV_CTX,		/* a = context ID, x = ctxt_id_valid | EL << 4 */
	EV_EOT,
	EV_OTHER,	/* x = element type: anything unexpected */
	EV_BAD,		/* flatten: range whose num_i disagrees with en-st */
};

struct ev {
	uint8_t kind;
	uint32_t x, n;
	uint64_t a, b;
};

struct evlist {
	struct ev *v;
	size_t n, cap;
};

static void ev_push(struct evlist *l, uint8_t kind, uint64_t a, uint64_t b,
		    uint32_t n, uint32_t x)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		cr_assert_not_null(l->v);
	}
	l->v[l->n].kind = kind;
	l->v[l->n].a = a;
	l->v[l->n].b = b;
	l->v[l->n].n = n;
	l->v[l->n].x = x;
	l->n++;
}

static void ev_free(struct evlist *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static size_t ev_count(const struct evlist *l, uint8_t kind)
{
	size_t c = 0;

	for (size_t i = 0; i < l->n; i++)
		c += l->v[i].kind == kind;
	return c;
}

/* ---- OpenCSD decode harness ---- */

/* Packet kinds counted from OpenCSD's own packet parser. */
enum pk {
	PK_ASYNC, PK_TINFO, PK_TRACE_ON, PK_TS, PK_EXCEPT, PK_OVERFLOW,
	PK_CTXT, PK_ADDR_CTXT, PK_ADDR_L64, PK_ADDR_L32, PK_ADDR_S1,
	PK_ADDR_S2, PK_ADDR_MATCH, PK_F1, PK_F2, PK_F3, PK_F4, PK_F5, PK_F6,
	PK_BAD, PK_OTHER, PK_NR
};

#define MAX_ID 0x70

struct dec {
	struct evlist ev[MAX_ID];	/* generic elements per trace ID */
	uint32_t pk[MAX_ID][PK_NR];
	uint64_t cycles[MAX_ID];	/* cycle counts (cycle-accurate) */
	int fatal;
};

struct dsrc {
	enum fx_etm_arch arch;
	struct fx_etm_regs regs;
	ocsd_arch_version_t arch_ver;	/* 0 = ARCH_AA64 */
};

struct dmem {
	uint64_t addr;
	const uint8_t *data;
	size_t len;
};

struct pkt_ctx {
	struct dec *d;
	uint8_t id;
};

static void pkt_mon(const void *ctx, const ocsd_datapath_op_t op,
		    const ocsd_trc_index_t idx, const void *pkt,
		    const uint32_t size, const uint8_t *data)
{
	const struct pkt_ctx *c = ctx;
	const ocsd_etmv4_i_pkt *p = pkt;
	enum pk k;

	(void)idx;
	(void)data;
	if (op != OCSD_OP_DATA || !p)
		return;
	switch ((int)p->type) {
	case ETM4_PKT_I_ASYNC: k = PK_ASYNC; break;
	case ETM4_PKT_I_TRACE_INFO: k = PK_TINFO; break;
	case ETM4_PKT_I_TRACE_ON: k = PK_TRACE_ON; break;
	case ETM4_PKT_I_TIMESTAMP: k = PK_TS; break;
	case ETM4_PKT_I_EXCEPT: k = PK_EXCEPT; break;
	case ETM4_PKT_I_OVERFLOW: k = PK_OVERFLOW; break;
	case ETM4_PKT_I_CTXT: k = PK_CTXT; break;
	case ETM4_PKT_I_ADDR_CTXT_L_64IS0: k = PK_ADDR_CTXT; break;
	case ETM4_PKT_I_ADDR_L_64IS0: k = PK_ADDR_L64; break;
	case ETM4_PKT_I_ADDR_L_32IS0: k = PK_ADDR_L32; break;
	case ETM4_PKT_I_ADDR_S_IS0: k = size == 2 ? PK_ADDR_S1 : PK_ADDR_S2; break;
	case ETM4_PKT_I_ADDR_MATCH: k = PK_ADDR_MATCH; break;
	case ETM4_PKT_I_ATOM_F1: k = PK_F1; break;
	case ETM4_PKT_I_ATOM_F2: k = PK_F2; break;
	case ETM4_PKT_I_ATOM_F3: k = PK_F3; break;
	case ETM4_PKT_I_ATOM_F4: k = PK_F4; break;
	case ETM4_PKT_I_ATOM_F5: k = PK_F5; break;
	case ETM4_PKT_I_ATOM_F6: k = PK_F6; break;
	case ETM4_PKT_I_NOTSYNC: k = PK_OTHER; break;
	case ETM4_PKT_I_INCOMPLETE_EOT:
	case ETM4_PKT_I_NO_ERR_TYPE:
	case ETM4_PKT_I_BAD_SEQUENCE:
	case ETM4_PKT_I_BAD_TRACEMODE:
	case ETM4_PKT_I_RESERVED:
	case ETM4_PKT_I_RESERVED_CFG: k = PK_BAD; break;
	default: k = PK_OTHER; break;
	}
	c->d->pk[c->id][k]++;
}

static ocsd_datapath_resp_t elem_cb(const void *ctx,
				    const ocsd_trc_index_t idx,
				    const uint8_t id,
				    const ocsd_generic_trace_elem *el)
{
	struct dec *d = (struct dec *)(uintptr_t)ctx;
	struct evlist *l;

	(void)idx;
	cr_assert_lt(id, MAX_ID);
	l = &d->ev[id];
	switch (el->elem_type) {
	case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
		ev_push(l, EV_RANGE, el->st_addr, el->en_addr,
			el->num_instr_range,
			el->last_instr_exec | (uint32_t)el->last_i_type << 4);
		break;
	case OCSD_GEN_TRC_ELEM_EXCEPTION:
		ev_push(l, EV_EXC, el->excep_ret_addr ? el->en_addr : ~0ull,
			0, el->excep_ret_addr_br_tgt, el->exception_number);
		break;
	case OCSD_GEN_TRC_ELEM_TRACE_ON:
		ev_push(l, EV_TRACE_ON, 0, 0, 0, el->trace_on_reason);
		break;
	case OCSD_GEN_TRC_ELEM_NO_SYNC:
		ev_push(l, EV_NO_SYNC, 0, 0, 0, el->unsync_eot_info);
		break;
	case OCSD_GEN_TRC_ELEM_TIMESTAMP:
		ev_push(l, EV_TS, el->timestamp, 0, 0, 0);
		if (el->has_cc)
			d->cycles[id] += el->cycle_count;
		break;
	case OCSD_GEN_TRC_ELEM_CYCLE_COUNT:
		/* summed apart: the models know no cycles */
		d->cycles[id] += el->cycle_count;
		break;
	case OCSD_GEN_TRC_ELEM_PE_CONTEXT:
		ev_push(l, EV_CTX, el->context.context_id, 0, 0,
			el->context.ctxt_id_valid |
			(uint32_t)el->context.exception_level << 4);
		break;
	case OCSD_GEN_TRC_ELEM_EO_TRACE:
		ev_push(l, EV_EOT, 0, 0, 0, 0);
		break;
	default:
		ev_push(l, EV_OTHER, el->st_addr, 0, 0, el->elem_type);
		break;
	}
	return OCSD_RESP_CONT;
}

static void ocsd_cfg_v4(const struct dsrc *s, ocsd_etmv4_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->reg_idr0 = s->regs.trcidr0;
	c->reg_idr1 = s->regs.trcidr1;
	c->reg_idr2 = s->regs.trcidr2;
	c->reg_idr8 = s->regs.trcidr8;
	c->reg_configr = s->regs.trcconfigr;
	c->reg_traceidr = s->regs.trctraceidr;
	c->arch_ver = s->arch_ver ? s->arch_ver : ARCH_AA64;
	c->core_prof = profile_CortexA;
}

static void ocsd_cfg_ete(const struct dsrc *s, ocsd_ete_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->reg_idr0 = s->regs.trcidr0;
	c->reg_idr1 = s->regs.trcidr1;
	c->reg_idr2 = s->regs.trcidr2;
	c->reg_idr8 = s->regs.trcidr8;
	c->reg_devarch = s->regs.trcdevarch;
	c->reg_configr = s->regs.trcconfigr;
	c->reg_traceidr = s->regs.trctraceidr;
	c->arch_ver = s->arch_ver ? s->arch_ver : ARCH_AA64;
	c->core_prof = profile_CortexA;
}

/* Decodes @buf (raw stream of src[0], or 16-byte frames of all sources)
 * with a fresh OpenCSD tree.  The caller frees with dec_free(). */
static void decode(const uint8_t *buf, size_t len, int formatted,
		   const struct dsrc *src, size_t nsrc, const struct dmem *mem,
		   size_t nmem, struct dec *d)
{
	struct pkt_ctx pctx[8];
	dcd_tree_handle_t dt;
	size_t off = 0;

	memset(d, 0, sizeof(*d));
	cr_assert(nsrc >= 1 && nsrc <= 8);
	cr_assert(formatted || nsrc == 1);
	dt = ocsd_create_dcd_tree(formatted ? OCSD_TRC_SRC_FRAME_FORMATTED :
					      OCSD_TRC_SRC_SINGLE,
				  formatted ? OCSD_DFRMTR_FRAME_MEM_ALIGN |
					      OCSD_DFRMTR_RESET_ON_4X_FSYNC : 0);
	cr_assert_neq(dt, C_API_INVALID_TREE_HANDLE);
	for (size_t k = 0; k < nsrc; k++) {
		unsigned char csid = 0;
		ocsd_err_t err;

		if (src[k].arch == FX_ETM_ETE) {
			ocsd_ete_cfg c;
			ocsd_cfg_ete(&src[k], &c);
			err = ocsd_dt_create_decoder(dt, OCSD_BUILTIN_DCD_ETE,
					OCSD_CREATE_FLG_FULL_DECODER, &c, &csid);
		} else {
			ocsd_etmv4_cfg c;
			ocsd_cfg_v4(&src[k], &c);
			err = ocsd_dt_create_decoder(dt, OCSD_BUILTIN_DCD_ETMV4I,
					OCSD_CREATE_FLG_FULL_DECODER, &c, &csid);
		}
		cr_assert_eq(err, OCSD_OK, "create decoder: %d", err);
		cr_assert_eq(csid, src[k].regs.trctraceidr & 0x7f);
		/* The 1.3.3 C API attaches packet monitors (and printers)
		 * only to ETMv4: ETE returns OCSD_ERR_NO_PROTOCOL.  ETE packet
		 * kinds are counted from trc_pkt_lister listings instead. */
		if (src[k].arch == FX_ETM_ETE)
			continue;
		pctx[k].d = d;
		pctx[k].id = csid;
		err = ocsd_dt_attach_packet_callback(dt, csid,
				OCSD_C_API_CB_PKT_MON, (void *)pkt_mon,
				&pctx[k]);
		cr_assert_eq(err, OCSD_OK, "attach monitor: %d", err);
	}
	for (size_t m = 0; m < nmem; m++)
		cr_assert_eq(ocsd_dt_add_buffer_mem_acc(dt, mem[m].addr,
				OCSD_MEM_SPACE_ANY, mem[m].data,
				(uint32_t)mem[m].len), OCSD_OK);
	cr_assert_eq(ocsd_dt_set_gen_elem_outfn(dt, elem_cb, d), OCSD_OK);
	while (off < len) {
		uint32_t done = 0;
		ocsd_datapath_resp_t r = ocsd_dt_process_data(dt, OCSD_OP_DATA,
				off, (uint32_t)(len - off), buf + off, &done);

		off += done;
		if (OCSD_DATA_RESP_IS_FATAL(r)) {
			d->fatal = 1;
			break;
		}
		if (OCSD_DATA_RESP_IS_WAIT(r))
			ocsd_dt_process_data(dt, OCSD_OP_FLUSH, 0, 0, NULL,
					     NULL);
	}
	ocsd_dt_process_data(dt, OCSD_OP_EOT, 0, 0, NULL, NULL);
	ocsd_destroy_dcd_tree(dt);
}

static void dec_free(struct dec *d)
{
	for (size_t i = 0; i < MAX_ID; i++)
		ev_free(&d->ev[i]);
}

/* Turns decoded elements into the comparable token stream: one EV_INSN
 * per instruction of each range, exceptions, trace-on, timestamps and
 * resync losses.  PE_CONTEXT, EO_TRACE and the leading NO_SYNC carry no
 * path information and are left out (contexts are checked separately). */
static void flatten(const struct evlist *in, struct evlist *out)
{
	for (size_t i = 0; i < in->n; i++) {
		const struct ev *e = &in->v[i];

		switch (e->kind) {
		case EV_RANGE: {
			unsigned type = e->x >> 4;
			uint32_t last = 0;

			if (e->b <= e->a || (e->b - e->a) % 4 ||
			    (e->b - e->a) / 4 != e->n) {
				ev_push(out, EV_BAD, e->a, e->b, e->n, 0);
				break;
			}
			if (type == OCSD_INSTR_BR || type == OCSD_INSTR_BR_INDIRECT)
				last = 1 + (e->x & 1);
			for (uint64_t pc = e->a; pc < e->b; pc += 4)
				ev_push(out, EV_INSN, pc, 0, 0,
					pc + 4 == e->b ? last : 0);
			break;
		}
		case EV_NO_SYNC:
			/* Leading "not synchronised yet": decoder start, or the
			 * reset a 4 x FSYNC barrier causes. */
			if (out->n == 0 && (e->x == UNSYNC_INIT_DECODER ||
					    e->x == UNSYNC_RESET_DECODER))
				break;
			ev_push(out, e->kind, e->a, 0, 0, e->x);
			break;
		case EV_CTX:
		case EV_EOT:
			break;
		default:
			ev_push(out, e->kind, e->a, 0, 0, e->x);
			break;
		}
	}
}

static const char *ev_name(uint8_t k)
{
	static const char *const names[] = {
		"?", "RANGE", "INSN", "EXC", "TRACE_ON", "NO_SYNC", "TS",
		"CTX", "EOT", "OTHER", "BAD",
	};

	return k < SY_ARRAY_SIZE(names) ? names[k] : "?";
}

/* Compares token streams; on mismatch writes the first difference. */
static int ev_equal(const struct evlist *got, const struct evlist *want,
		    char *why, size_t wlen)
{
	size_t n = got->n < want->n ? got->n : want->n;

	for (size_t i = 0; i < n; i++) {
		const struct ev *g = &got->v[i], *w = &want->v[i];

		if (g->kind != w->kind || g->a != w->a || g->x != w->x) {
			snprintf(why, wlen,
				 "token %zu of %zu/%zu: got %s a=0x%" PRIx64
				 " x=%u, want %s a=0x%" PRIx64 " x=%u",
				 i, got->n, want->n, ev_name(g->kind), g->a,
				 g->x, ev_name(w->kind), w->a, w->x);
			return 0;
		}
	}
	if (got->n != want->n) {
		const struct ev *e = got->n > want->n ? &got->v[n] : &want->v[n];

		snprintf(why, wlen, "%s has %zu extra tokens, first %s a=0x%"
			 PRIx64, got->n > want->n ? "decode" : "truth",
			 got->n > want->n ? got->n - n : want->n - n,
			 ev_name(e->kind), e->a);
		return 0;
	}
	snprintf(why, wlen, "equal");
	return 1;
}

/* ---- the specification: what the trace of a window proves ---- */

static uint64_t model_ts(const struct fx_etm_window *w, size_t i)
{
	if (w->ts_fn)
		return w->ts_fn(w->ts_ctx, i);
	if (w->ts_table)
		return w->ts_table[i];
	return w->ts0 + (uint64_t)i * w->cycles_per_insn;
}

static int is_waypoint(const struct fx_insn *in)
{
	return in->kind != SY_BR_NONE && in->kind != SY_BR_SYSCALL;
}

/* Model output.  OpenCSD queues TRACE_ON and TIMESTAMP with the P0
 * elements and reports them when the next atom or exception commits, even
 * if that comes after a new A-Sync / Trace Info (the next window).  They
 * wait in @pend until then.  If no P0 element comes (measured with 1.3.3):
 *  - at an Overflow packet the queued timestamps are reported and a queued
 *    TRACE_ON is dropped (model_overflow);
 *  - at the end of the data timestamps are reported up to the first queued
 *    TRACE_ON; it and everything after it are dropped (model_eot). */
struct model {
	struct evlist *out;
	struct evlist pend;
	int after_overflow;	/* next TRACE_ON says "overflow" */
};

static void model_note(struct model *m, uint8_t kind, uint64_t a, uint32_t x)
{
	/* The first trace-on after an overflow gives that as its reason,
	 * even if it only comes with the next enable period. */
	if (kind == EV_TRACE_ON && m->after_overflow) {
		x = TRACE_ON_OVERFLOW;
		m->after_overflow = 0;
	}
	ev_push(&m->pend, kind, a, 0, 0, x);
}

static void model_flush(struct model *m)
{
	for (size_t i = 0; i < m->pend.n; i++)
		ev_push(m->out, m->pend.v[i].kind, m->pend.v[i].a, 0, 0,
			m->pend.v[i].x);
	m->pend.n = 0;
}

static void model_overflow(struct model *m)
{
	for (size_t i = 0; i < m->pend.n; i++)
		if (m->pend.v[i].kind == EV_TS)
			ev_push(m->out, EV_TS, m->pend.v[i].a, 0, 0, 0);
	m->pend.n = 0;
	ev_push(m->out, EV_NO_SYNC, 0, 0, 0, UNSYNC_OVERFLOW);
	m->after_overflow = 1;
}

/* Copies the model's output plus what the end of the data releases. */
static void model_eot(const struct model *m, struct evlist *out)
{
	for (size_t i = 0; i < m->out->n; i++)
		ev_push(out, m->out->v[i].kind, m->out->v[i].a, 0, 0,
			m->out->v[i].x);
	for (size_t i = 0; i < m->pend.n && m->pend.v[i].kind == EV_TS; i++)
		ev_push(out, EV_TS, m->pend.v[i].a, 0, 0, 0);
}

/* Instructions [from, to] become proven, in order. */
static void prove(struct model *m, const struct fx_insn *in, size_t from,
		  size_t to)
{
	model_flush(m);
	for (size_t i = from; i <= to; i++)
		ev_push(m->out, EV_INSN, in[i].pc, 0, 0,
			is_waypoint(&in[i]) ? 1u + (uint32_t)fx_insn_taken(&in[i])
					    : 0);
}

static void model_exc(struct model *m, uint64_t ret, uint32_t num)
{
	model_flush(m);
	ev_push(m->out, EV_EXC, ret, 0, 0, num);
}

/* Appends the tokens an exact decoder must produce for window @w over
 * @in[0..n), written from the ground truth and the ETM rules, not from
 * the encoder's packets:
 *  - an instruction is reported once a later P0 element proves it: the
 *    next waypoint (atom), an exception (its return address says where
 *    execution stopped); after the last waypoint nothing is reported
 *    unless the window ends with an exception;
 *  - SVC: the SVC is proven by the Call exception (return address svc+4);
 *    trace resumes with TRACE_ON at the next instruction;
 *  - overflow: unproven instructions are lost, NO_SYNC(overflow), then
 *    TRACE_ON(overflow) where tracing restarts;
 *  - timestamps where the trace (re)starts and at every resync, valued at
 *    the next instruction;
 *  - TRACE_ON and timestamps only with a later P0 element (struct model). */
static void model_window(struct model *mp, const struct fx_insn *in,
			 size_t n, const struct fx_etm_window *w, int ts)
{
	struct model m = *mp;
	size_t first = 0, waypoints = 0, i;
	int untraced = 0;

	model_note(&m, EV_TRACE_ON, 0, TRACE_ON_NORMAL);
	if (ts)
		model_note(&m, EV_TS, model_ts(w, 0), 0);
	for (i = 0; i < n; i++) {
		untraced = 0;
		if (in[i].kind == SY_BR_SYSCALL) {
			prove(&m, in, first, i);
			model_exc(&m, in[i].pc + 4, 0x2);
			first = i + 1;
			if (i + 1 < n) {
				model_note(&m, EV_TRACE_ON, 0, TRACE_ON_NORMAL);
				if (ts)
					model_note(&m, EV_TS, model_ts(w, i + 1),
						   0);
			} else {
				untraced = 1;
			}
		} else if (is_waypoint(&in[i])) {
			prove(&m, in, first, i);
			first = i + 1;
			waypoints++;
			if (w->resync_period && i + 1 < n &&
			    waypoints % w->resync_period == 0 && ts)
				model_note(&m, EV_TS, model_ts(w, i + 1), 0);
		}
		if (i == w->overflow_after && i + 1 < n) {
			size_t resume = i + 1 + w->overflow_lost;

			model_overflow(&m);
			if (resume >= n) {
				untraced = 1;
				break;
			}
			model_note(&m, EV_TRACE_ON, 0, TRACE_ON_NORMAL);
			if (ts)
				model_note(&m, EV_TS, model_ts(w, resume), 0);
			first = resume;
			i = resume - 1;
		}
	}
	if (w->end == FX_ETM_END_EXCEPTION && !untraced) {
		if (first < n)
			prove(&m, in, first, n - 1);
		model_exc(&m, w->end_ip, 0xe);
	}
	*mp = m;
}

/* ---- test programs ---- */

#define SEG0 0x400000ull
#define SEG1 0x452000ull	/* > 128 KiB from SEG0: 32-bit addresses */
#define SEG2 0x7fb7e01000ull	/* other upper half: 64-bit addresses */

static size_t prog_mem(const struct prog *p, struct dmem *m)
{
	for (size_t s = 0; s < p->nseg; s++) {
		m[s].addr = p->seg_base[s];
		m[s].data = (const uint8_t *)&p->w[p->seg_first[s]];
		m[s].len = 4 * seg_len(p, s);
	}
	return p->nseg;
}

/* Ends the program: the interpreter stops at this self-branch. */
static void p_stop(struct prog *p)
{
	size_t l = p_label(p);

	p_bind(p, l);
	p->stop = p_here(p);
	a_b(p, l);
}

/* Atom-pattern program: a counter i runs 0..63 and six TBZ on bits 0..5
 * of i each skip a NOP, so every N/E combination of six conditional
 * branches occurs, followed by BL (E), RET (E + address) and B.NE.  The
 * greedy packer then needs every atom format. */
static struct prog *prog_atoms(uint64_t *entry)
{
	struct prog *p = prog_new();
	size_t loop = p_label(p), leaf = p_label(p);

	p_org(p, SEG0);
	*entry = p_here(p);
	a_movz(p, 0, 0);
	a_movz(p, 9, 64);
	p_bind(p, loop);
	for (unsigned b = 0; b < 6; b++) {
		size_t skip = p_label(p);

		a_tbz(p, 0, b, 0, skip);
		a_nop(p);
		p_bind(p, skip);
	}
	a_bl(p, leaf);
	a_add(p, 0, 0, 1);
	a_subs(p, 9, 9, 1);
	a_bcond(p, 1 /* ne */, loop);
	p_stop(p);
	p_bind(p, leaf);
	a_nop(p);
	a_ret(p);
	p_link(p);
	return p;
}

/* Syscall program: a loop of SVC, CBZ on the returned x0 (taken), a
 * conditional back edge, and a final SVC. */
static struct prog *prog_syscalls(uint64_t *entry)
{
	struct prog *p = prog_new();
	size_t loop = p_label(p), skip = p_label(p);

	p_org(p, SEG0);
	*entry = p_here(p);
	a_movz(p, 9, 5);
	a_movz(p, 0, 7);
	p_bind(p, loop);
	a_add(p, 1, 1, 1);
	a_svc(p, 0);
	a_cbz(p, 0, 0, skip);
	a_nop(p);
	p_bind(p, skip);
	a_add(p, 2, 2, 3);
	a_subs(p, 9, 9, 1);
	a_bcond(p, 1, loop);
	a_nop(p);
	a_svc(p, 0);
	a_nop(p);
	p_stop(p);
	p_link(p);
	return p;
}

/* Address-compression program: indirect calls from SEG0 to functions at
 * distances that need each address packet size, placed so that the
 * transmitted fields are all ones (a dropped bit shows):
 *   near   SEG0 + 0x1fc      short, 1 byte (A[8:2] = 0x7f)
 *   mid    SEG0 + 0x1fffc    short, 2 bytes (A[16:2] all ones)
 *   b17    SEG0 + 0x20100    long 32 (bit 17 set, first beyond short)
 *   seg1   SEG1              long 32
 *   hi32   0xa53c96f0        long 32 (upper bytes non-zero)
 *   far    SEG2 + 0x7fc      long 64
 * Each is called twice per iteration from one call site, so the returns
 * and re-calls hit the address history (exact match).  The far function
 * returns with RETAA when @pauth. */
static struct prog *prog_compress(uint64_t *entry, int pauth)
{
	static const uint64_t at[6] = {
		SEG0 + 0x1fc, SEG0 + 0x1fffc, SEG0 + 0x20100, SEG1,
		0xa53c96f0ull, SEG2 + 0x7fc,
	};
	struct prog *p = prog_new();
	size_t loop = p_label(p), tbl = p_label(p), fn[6];

	for (unsigned k = 0; k < 6; k++)
		fn[k] = p_label(p);
	p_org(p, SEG0);
	*entry = p_here(p);
	a_movz(p, 9, 3);
	p_bind(p, loop);
	for (unsigned k = 0; k < 6; k++) {
		a_mov64(p, 16, fn[k]);
		a_blr(p, 16);
		a_blr(p, 16);
	}
	/* A jump table: BR to a label 8 bytes on (short address). */
	a_adr(p, 17, tbl);
	a_br(p, 17);
	a_nop(p);
	p_bind(p, tbl);
	a_subs(p, 9, 9, 1);
	a_bcond(p, 1, loop);
	p_stop(p);
	for (unsigned k = 0; k < 6; k++) {
		cr_assert_lt(p_here(p), at[k]);
		p_org(p, at[k]);
		p_bind(p, fn[k]);
		a_add(p, 3 + k, 3 + k, 1);
		if (pauth && k == 5)
			a_retaa(p);
		else
			a_ret(p);
	}
	p_link(p);
	return p;
}

/* ---- random programs ---- */

struct rng {
	uint64_t s;
};

static uint32_t rnd(struct rng *r, uint32_t n)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (uint32_t)((r->s * 0x2545f4914f6cdd1dull) >> 33) % n;
}

#define RP_NFUNC 7	/* loop counters x9..x15, LR saves x19..x25 */

struct rp {
	struct prog *p;
	struct rng r;
	size_t fn[RP_NFUNC];
	uint64_t fn_seg[RP_NFUNC];
};

/* Every rnd() call is its own statement: argument evaluation order is
 * unspecified, and gcc and clang must build the same programs. */
static void rp_alu(struct rp *g)
{
	unsigned rd = rnd(&g->r, 8), rn = rnd(&g->r, 8);
	unsigned imm = 1 + rnd(&g->r, 4095);

	a_add(g->p, rd, rn, imm);
}

static void rp_call(struct rp *g, unsigned k)
{
	unsigned j = k + 1 + rnd(&g->r, RP_NFUNC - 1 - k);
	int far = g->fn_seg[j] == SEG2 || g->fn_seg[k] == SEG2;

	switch (far ? 2 : rnd(&g->r, 3)) {
	case 0:
		a_bl(g->p, g->fn[j]);
		break;
	case 1:
		a_adr(g->p, 16, g->fn[j]);
		a_blr(g->p, 16);
		break;
	default:
		a_mov64(g->p, 16, g->fn[j]);
		a_blr(g->p, 16);
		break;
	}
}

/* One random construct of function @k; loops only at depth 0. */
static void rp_item(struct rp *g, unsigned k, int depth)
{
	struct prog *p = g->p;
	size_t l = p_label(p);
	unsigned reg, bit, nz, imm, cond;

	switch (rnd(&g->r, 11)) {
	case 0:
	case 1:
		rp_alu(g);
		break;
	case 2:
		reg = rnd(&g->r, 8);
		nz = rnd(&g->r, 2);
		a_cbz(p, reg, (int)nz, l);
		rp_alu(g);
		p_bind(p, l);
		break;
	case 3:
		reg = rnd(&g->r, 8);
		bit = rnd(&g->r, 64);
		nz = rnd(&g->r, 2);
		a_tbz(p, reg, bit, (int)nz, l);
		rp_alu(g);
		if (rnd(&g->r, 2))
			rp_alu(g);
		p_bind(p, l);
		break;
	case 4:
		reg = rnd(&g->r, 8);
		imm = rnd(&g->r, 4096);
		cond = rnd(&g->r, 14);
		a_subs(p, 31, reg, imm);
		a_bcond(p, cond, l);
		rp_alu(g);
		p_bind(p, l);
		break;
	case 5:
	case 6:
		if (k + 1 < RP_NFUNC)
			rp_call(g, k);
		break;
	case 7:
		if (depth == 0) {
			unsigned cnt = 9 + k, body = 1 + rnd(&g->r, 3);

			a_movz(p, cnt, 2 + rnd(&g->r, 4));
			p_bind(p, l);
			for (unsigned b = 0; b < body; b++)
				rp_item(g, k, depth + 1);
			a_subs(p, cnt, cnt, 1);
			a_bcond(p, 1, l);
		} else {
			rp_alu(g);
		}
		break;
	case 8:
		a_adr(p, 17, l);
		a_br(p, 17);
		rp_alu(g);
		p_bind(p, l);
		break;
	case 9:
		a_b(p, l);
		rp_alu(g);
		p_bind(p, l);
		break;
	default:
		if (rnd(&g->r, 3) == 0)
			a_svc(p, 0);
		else
			a_nop(p);
		break;
	}
}

static void rp_function(struct rp *g, unsigned k)
{
	unsigned items = 3 + rnd(&g->r, 8);

	p_bind(g->p, g->fn[k]);
	a_add(g->p, 19 + k, 30, 0);	/* save LR (no stack needed) */
	for (unsigned i = 0; i < items; i++)
		rp_item(g, k, 0);
	a_add(g->p, 30, 19 + k, 0);
	if (rnd(&g->r, 3) == 0)
		a_retaa(g->p);
	else
		a_ret(g->p);
}

/* A random terminating program: main repeats calls to functions 1..6,
 * which only call higher-numbered functions (no recursion), spread over
 * three segments so calls and returns need every address size. */
static struct prog *prog_random(uint64_t seed, uint64_t *entry)
{
	struct rp g;
	size_t loop;

	memset(&g, 0, sizeof(g));
	g.p = prog_new();
	g.r.s = seed * 0x9e3779b97f4a7c15ull + 1;
	for (unsigned k = 0; k < RP_NFUNC; k++) {
		g.fn[k] = p_label(g.p);
		g.fn_seg[k] = k == 0 ? SEG0 : k % 3 == 0 ? SEG0 :
			      k % 3 == 1 ? SEG1 : SEG2;
	}
	loop = p_label(g.p);
	p_org(g.p, SEG0);
	*entry = p_here(g.p);
	p_bind(g.p, g.fn[0]);
	a_movz(g.p, 9, 4);
	p_bind(g.p, loop);
	for (unsigned c = 0; c < 4; c++) {
		rp_call(&g, 0);
		rp_item(&g, 0, 1);
	}
	a_subs(g.p, 9, 9, 1);
	a_bcond(g.p, 1, loop);
	p_stop(g.p);
	for (unsigned k = 1; k < RP_NFUNC; k++)
		if (g.fn_seg[k] == SEG0)
			rp_function(&g, k);
	p_org(g.p, SEG1);
	for (unsigned k = 1; k < RP_NFUNC; k++)
		if (g.fn_seg[k] == SEG1)
			rp_function(&g, k);
	p_org(g.p, SEG2);
	for (unsigned k = 1; k < RP_NFUNC; k++)
		if (g.fn_seg[k] == SEG2)
			rp_function(&g, k);
	p_link(g.p);
	return g.p;
}

/* ---- round-trip plumbing ---- */

#define MAX_INSNS 40000

/* A program, its memory for the decoder and its executed path. */
struct run {
	struct prog *p;
	struct dmem mem[MAX_SEG];
	size_t nmem;
	struct fx_insn *in;
	size_t n;
};

static void run_prog(struct run *r, struct prog *p, uint64_t entry,
		     size_t max)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->nmem = prog_mem(p, r->mem);
	r->in = calloc(max, sizeof(*r->in));
	cr_assert_not_null(r->in);
	r->n = run(p, entry, r->in, max);
	cr_assert_gt(r->n, 0);
}

static void run_free(struct run *r)
{
	free(r->in);
	free(r->p);
	memset(r, 0, sizeof(*r));
}

/* One trace source: configuration, encoder and the expected tokens. */
struct src {
	struct fx_etm_config cfg;
	struct fx_etm_enc enc;
	struct evlist want;
	struct model m;		/* writes to want */
	uint32_t pid;
};

static void src_init(struct src *s, enum fx_etm_arch arch, uint8_t id,
		     int ts, int cid, int compress)
{
	memset(s, 0, sizeof(*s));
	fx_etm_config_init(&s->cfg);
	s->cfg.arch = arch;
	s->cfg.trace_id = id;
	s->cfg.timestamps = ts;
	s->cfg.context_id = cid;
	s->cfg.compress = compress;
	s->m.out = &s->want;
	cr_assert_eq(fx_etm_init(&s->enc, &s->cfg), 0);
}

static void src_fini(struct src *s)
{
	fx_etm_fini(&s->enc);
	ev_free(&s->want);
	ev_free(&s->m.pend);
}

static void src_dsrc(const struct src *s, struct dsrc *d)
{
	memset(d, 0, sizeof(*d));
	d->arch = s->cfg.arch;
	cr_assert_eq(fx_etm_regs(&s->cfg, &d->regs), 0);
}

/* Window over in[a, b): IRQ end at the first instruction not executed. */
static void win(struct fx_etm_window *w, const struct fx_insn *in, size_t b,
		int irq)
{
	fx_etm_window_init(w);
	w->end = irq ? FX_ETM_END_EXCEPTION : FX_ETM_END_NONE;
	w->end_ip = in[b - 1].next;
}

static void src_window(struct src *s, const struct run *r, size_t a,
		       size_t b, const struct fx_etm_window *w)
{
	cr_assert(a < b && b <= r->n);
	cr_assert_eq(fx_etm_enc_window(&s->enc, r->in + a, b - a, w), 0);
	model_window(&s->m, r->in + a, b - a, w, s->cfg.timestamps);
	s->pid = w->pid;
}

static int src_matches(const struct src *s, const struct dec *d, char *why,
		       size_t wlen)
{
	struct evlist got = { 0 }, want = { 0 };
	int eq;

	flatten(&d->ev[s->cfg.trace_id], &got);
	model_eot(&s->m, &want);
	eq = ev_equal(&got, &want, why, wlen);
	ev_free(&got);
	ev_free(&want);
	return eq;
}

/* The decode of @s must equal the model, parse without bad packets, and
 * every context must say the configured EL (0 unless a test asks for a
 * kernel trace) and carry the pid when traced. */
static void src_check(const struct src *s, const struct dec *d,
		      const char *what)
{
	const struct evlist *l = &d->ev[s->cfg.trace_id];
	char why[512];

	cr_assert_not(d->fatal, "%s: fatal decode error", what);
	cr_assert(src_matches(s, d, why, sizeof(why)), "%s: %s", what, why);
	cr_assert_eq(d->pk[s->cfg.trace_id][PK_BAD], 0, "%s: bad packets",
		     what);
	cr_assert_gt(ev_count(l, EV_CTX), 0, "%s: no PE context", what);
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].kind != EV_CTX)
			continue;
		cr_assert_eq(l->v[i].x >> 4, s->cfg.el, "%s: context not EL%u",
			     what, s->cfg.el);
		if (s->cfg.context_id)
			cr_assert(l->v[i].x & 1 && l->v[i].a == s->pid,
				  "%s: context id 0x%" PRIx64 " want 0x%x",
				  what, l->v[i].a, s->pid);
		else
			cr_assert_not(l->v[i].x & 1, "%s: unexpected CID",
				      what);
	}
}

static void decode_raw(const struct src *s, const struct run *r,
		       struct dec *d)
{
	struct dsrc ds;

	src_dsrc(s, &ds);
	decode(s->enc.out.data, s->enc.out.len, 0, &ds, 1, r->mem, r->nmem, d);
}

/* Encodes @r[a, b) with @w into a fresh source, decodes raw, checks. */
static void roundtrip(const struct run *r, enum fx_etm_arch arch, int ts,
		      int cid, int compress, size_t a, size_t b,
		      const struct fx_etm_window *w, struct dec *keep,
		      const char *what)
{
	struct src s;
	struct dec d;

	src_init(&s, arch, 0x10, ts, cid, compress);
	src_window(&s, r, a, b, w);
	decode_raw(&s, r, &d);
	src_check(&s, &d, what);
	if (keep)
		*keep = d;
	else
		dec_free(&d);
	src_fini(&s);
}

static const char *arch_name(enum fx_etm_arch a)
{
	return a == FX_ETM_ETE ? "ETE" : "ETMv4";
}

/* Index of the first instruction at or after @from matching @pred. */
static size_t find_insn(const struct run *r, size_t from,
			int (*pred)(const struct fx_insn *))
{
	for (size_t i = from; i < r->n; i++)
		if (pred(&r->in[i]))
			return i;
	cr_assert_fail("no such instruction after %zu", from);
	return 0;
}

static int is_taken_branch(const struct fx_insn *i)
{
	return is_waypoint(i) && fx_insn_taken(i);
}

static int is_not_taken_branch(const struct fx_insn *i)
{
	return is_waypoint(i) && !fx_insn_taken(i);
}

static int is_plain(const struct fx_insn *i)
{
	return i->kind == SY_BR_NONE;
}

static int is_svc(const struct fx_insn *i)
{
	return i->kind == SY_BR_SYSCALL;
}

/* ---- encoder round trips ---- */

Test(fx_etm, atom_formats_all)
{
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		enum fx_etm_arch a = (enum fx_etm_arch)arch;
		struct run r;
		struct fx_etm_window w;
		struct src s;
		struct dec d;
		uint64_t entry;
		struct prog *p = prog_atoms(&entry);

		run_prog(&r, p, entry, MAX_INSNS);
		src_init(&s, a, 0x10, 0, 0, 1);
		win(&w, r.in, r.n, 1);
		src_window(&s, &r, 0, r.n, &w);
		decode_raw(&s, &r, &d);
		src_check(&s, &d, arch_name(a));
		/* OpenCSD's packet parser, not the encoder, counts these
		 * (ETMv4 only; the ETE count is in the lister test).  The
		 * encoder's own statistics must agree with it. */
		for (int f = 1; a == FX_ETM_V4 && f <= 6; f++) {
			uint32_t got = d.pk[0x10][PK_F1 + f - 1];

			cr_assert_gt(got, 0, "atom format %d never used", f);
			cr_assert_eq(got, s.enc.stats.atom_fmt[f],
				     "F%d: OpenCSD %u, encoder %u", f, got,
				     s.enc.stats.atom_fmt[f]);
		}
		dec_free(&d);
		src_fini(&s);
		run_free(&r);
	}
}

Test(fx_etm, syscalls_and_irq_end)
{
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		enum fx_etm_arch a = (enum fx_etm_arch)arch;
		struct fx_etm_window w;
		struct run r;
		struct dec d;
		uint64_t entry;
		struct prog *p = prog_syscalls(&entry);
		size_t k, last_svc = 0;

		run_prog(&r, p, entry, MAX_INSNS);
		for (k = 0; k < r.n; k++)
			if (is_svc(&r.in[k]))
				last_svc = k;

		/* Whole run, SVCs inside, IRQ end after the last NOP. */
		win(&w, r.in, r.n, 1);
		roundtrip(&r, a, 0, 0, 1, 0, r.n, &w, &d, "svc window");
		cr_assert_eq(ev_count(&d.ev[0x10], EV_EXC), 7);
		cr_assert_eq(ev_count(&d.ev[0x10], EV_TRACE_ON), 7);
		dec_free(&d);

		/* Window ending with an SVC: EL1 is not traced, no IRQ. */
		win(&w, r.in, last_svc + 1, 1);
		roundtrip(&r, a, 0, 0, 1, 0, last_svc + 1, &w, NULL,
			  "ends in svc");

		/* Same without an IRQ: the tail after the last waypoint is
		 * lost (the model drops it; the decode must too). */
		win(&w, r.in, r.n, 0);
		roundtrip(&r, a, 0, 0, 1, 0, r.n, &w, NULL, "no end packet");

		/* IRQ after a plain instruction: the decoder walks to it. */
		k = find_insn(&r, 3, is_plain);
		win(&w, r.in, k + 1, 1);
		roundtrip(&r, a, 0, 0, 1, 1, k + 1, &w, &d, "irq after alu");
		cr_assert_eq(d.ev[0x10].v[d.ev[0x10].n - 2].kind, EV_EXC);
		cr_assert_eq(d.ev[0x10].v[d.ev[0x10].n - 2].n, 0);
		dec_free(&d);

		/* IRQ right at the target of a taken branch: E1 form, which
		 * OpenCSD reports as "address also branch target". */
		k = find_insn(&r, 3, is_taken_branch);
		win(&w, r.in, k + 1, 1);
		roundtrip(&r, a, 0, 0, 1, 1, k + 1, &w, &d, "irq at target");
		cr_assert_eq(d.ev[0x10].v[d.ev[0x10].n - 2].kind, EV_EXC);
		cr_assert_eq(d.ev[0x10].v[d.ev[0x10].n - 2].n, 1);
		dec_free(&d);

		/* IRQ after a not-taken branch. */
		k = find_insn(&r, 0, is_not_taken_branch);
		win(&w, r.in, k + 1, 1);
		roundtrip(&r, a, 0, 0, 1, 0, k + 1, &w, NULL, "irq after N");
		run_free(&r);
	}
}

Test(fx_etm, address_compression)
{
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		enum fx_etm_arch a = (enum fx_etm_arch)arch;
		struct fx_etm_window w;
		struct run r;
		struct dec d;
		uint64_t entry;
		struct prog *p = prog_compress(&entry, 0);

		run_prog(&r, p, entry, MAX_INSNS);
		win(&w, r.in, r.n, 1);
		roundtrip(&r, a, 0, 0, 1, 0, r.n, &w, &d, "compressed");
		if (a == FX_ETM_V4) {
			const uint32_t *pk = d.pk[0x10];

			/* Every address form, as parsed by OpenCSD. */
			cr_assert_gt(pk[PK_ADDR_S1], 0);
			cr_assert_gt(pk[PK_ADDR_S2], 0);
			cr_assert_gt(pk[PK_ADDR_L32], 0);
			cr_assert_gt(pk[PK_ADDR_L64], 0);
			cr_assert_gt(pk[PK_ADDR_MATCH], 0);
			cr_assert_eq(pk[PK_ADDR_CTXT], 1);
		}
		dec_free(&d);

		roundtrip(&r, a, 0, 0, 0, 0, r.n, &w, &d, "uncompressed");
		if (a == FX_ETM_V4) {
			const uint32_t *pk = d.pk[0x10];

			cr_assert_eq(pk[PK_ADDR_S1] + pk[PK_ADDR_S2] +
				     pk[PK_ADDR_L32] + pk[PK_ADDR_MATCH], 0);
			cr_assert_gt(pk[PK_ADDR_L64], 0);
		}
		dec_free(&d);
		run_free(&r);
	}
}

/* Irregular timestamps: wide jumps (multi-byte updates), bit 63 set. */
static uint64_t odd_ts(void *ctx, size_t i)
{
	(void)ctx;
	return 0xfffffff000000000ull + (uint64_t)i * 0x10203 +
	       ((uint64_t)(i * i) % 977) * 0x4000000ull;
}

Test(fx_etm, timestamps)
{
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		enum fx_etm_arch a = (enum fx_etm_arch)arch;
		struct fx_etm_window w;
		struct run r;
		struct dec d;
		uint64_t entry;
		struct prog *p = prog_syscalls(&entry);
		size_t ts_seen;

		run_prog(&r, p, entry, MAX_INSNS);
		/* Cycle model ts0 + i * cycles_per_insn, at start and at each
		 * trace-on after an SVC. */
		win(&w, r.in, r.n, 1);
		w.ts0 = 123456789;
		w.cycles_per_insn = 3;
		roundtrip(&r, a, 1, 0, 1, 0, r.n, &w, &d, "cycle model");
		ts_seen = ev_count(&d.ev[0x10], EV_TS);
		cr_assert_eq(ts_seen, 7, "%zu timestamps", ts_seen);
		cr_assert_eq(d.ev[0x10].v[3].kind, EV_TS);
		cr_assert_eq(d.ev[0x10].v[3].a, 123456789);
		dec_free(&d);

		/* A callback with irregular values, plus a resync (and its
		 * timestamp) after every second waypoint. */
		win(&w, r.in, r.n, 1);
		w.ts_fn = odd_ts;
		w.resync_period = 2;
		roundtrip(&r, a, 1, 0, 1, 0, r.n, &w, &d, "callback");
		cr_assert_gt(ev_count(&d.ev[0x10], EV_TS), 7);
		dec_free(&d);
		run_free(&r);

		/* A table, on a random program. */
		p = prog_random(7, &entry);
		run_prog(&r, p, entry, 3000);
		{
			uint64_t *tab = calloc(r.n, sizeof(*tab));

			cr_assert_not_null(tab);
			for (size_t i = 0; i < r.n; i++)
				tab[i] = (i * 0x9e3779b97f4a7c15ull) >> (i % 64);
			win(&w, r.in, r.n, 1);
			w.ts_table = tab;
			w.resync_period = 5;
			roundtrip(&r, a, 1, 0, 1, 0, r.n, &w, NULL, "table");
			free(tab);
		}
		run_free(&r);
	}
}

Test(fx_etm, periodic_resync)
{
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		enum fx_etm_arch a = (enum fx_etm_arch)arch;
		struct fx_etm_window w;
		struct run r;
		struct dec d;
		uint64_t entry;
		struct prog *p = prog_random(3, &entry);

		run_prog(&r, p, entry, 4000);
		for (unsigned period = 1; period <= 9; period++) {
			char what[64];

			snprintf(what, sizeof(what), "%s resync %u",
				 arch_name(a), period);
			win(&w, r.in, r.n, period & 1);
			w.resync_period = period;
			roundtrip(&r, a, period % 3 == 0, 0, 1, 0, r.n, &w, &d,
				  what);
			if (a == FX_ETM_V4)
				cr_assert_gt(d.pk[0x10][PK_ASYNC], 10, "%s", what);
			dec_free(&d);
		}
		run_free(&r);
	}
}

Test(fx_etm, overflow)
{
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		enum fx_etm_arch a = (enum fx_etm_arch)arch;
		struct fx_etm_window w;
		struct run r;
		struct dec d;
		uint64_t entry;
		struct prog *p = prog_random(11, &entry);
		static const size_t at[] = { 0, 1, 17, 400, 1234 };
		static const size_t lost[] = { 0, 1, 9, 0, 55 };

		run_prog(&r, p, entry, 3000);
		cr_assert_gt(r.n, 2000);
		for (size_t k = 0; k < SY_ARRAY_SIZE(at); k++) {
			char what[64];

			snprintf(what, sizeof(what), "%s overflow after %zu",
				 arch_name(a), at[k]);
			win(&w, r.in, r.n, 1);
			w.overflow_after = at[k];
			w.overflow_lost = lost[k];
			roundtrip(&r, a, (int)(k & 1), 0, 1, 0, r.n, &w, &d,
				  what);
			cr_assert_eq(ev_count(&d.ev[0x10], EV_NO_SYNC), 2, "%s",
				     what);
			dec_free(&d);
		}
		/* Overflow right before the end: nothing traced after it. */
		win(&w, r.in, r.n, 1);
		w.overflow_after = r.n - 3;
		w.overflow_lost = 5;
		roundtrip(&r, a, 0, 0, 1, 0, r.n, &w, NULL, "overflow at end");
		run_free(&r);
	}
}

Test(fx_etm, pauth_retaa)
{
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		enum fx_etm_arch a = (enum fx_etm_arch)arch;
		struct fx_etm_window w;
		struct run r;
		struct dec d;
		struct dsrc ds;
		struct src s;
		uint64_t entry;
		struct prog *p = prog_compress(&entry, 1);
		char why[512];
		size_t nretaa = 0;

		run_prog(&r, p, entry, MAX_INSNS);
		for (size_t i = 0; i < r.n; i++) {
			uint32_t word;

			cr_assert(fetch(r.p, r.in[i].pc, &word));
			nretaa += word == A64_RETAA;
		}
		cr_assert_gt(nretaa, 0);
		win(&w, r.in, r.n, 1);
		roundtrip(&r, a, 0, 0, 1, 0, r.n, &w, NULL,
			  arch_name(a));

		/* ARCH_V8 (what perf picks for ETMv4 < 4.4) does not know
		 * RETAA is a branch: the same bytes then decode wrongly. */
		src_init(&s, a, 0x10, 0, 0, 1);
		src_window(&s, &r, 0, r.n, &w);
		src_dsrc(&s, &ds);
		ds.arch_ver = ARCH_V8;
		decode(s.enc.out.data, s.enc.out.len, 0, &ds, 1, r.mem, r.nmem,
		       &d);
		cr_assert_not(src_matches(&s, &d, why, sizeof(why)),
			      "ARCH_V8 decoded RETAA correctly?");
		dec_free(&d);
		src_fini(&s);
		run_free(&r);
	}
}

/* Many random programs, windows and options; several windows per buffer
 * (what an AUX buffer holds between pauses). */
Test(fx_etm, random_programs)
{
	size_t total = 0;

	const char *env = getenv("FX_ETM_SEEDS");	/* longer soak runs */
	uint64_t nseeds = env ? strtoull(env, NULL, 0) : 40;

	for (uint64_t seed = 1; seed <= nseeds; seed++) {
		struct rng rr = { seed * 77 + 5 };
		struct run r;
		uint64_t entry;
		struct prog *p = prog_random(seed, &entry);

		run_prog(&r, p, entry, 6000);
		for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
			enum fx_etm_arch a = (enum fx_etm_arch)arch;
			struct src s;
			struct dec d;
			char what[96];
			size_t pos = rnd(&rr, 50);

			int ts = (int)rnd(&rr, 2), cid = (int)rnd(&rr, 2);
			int compress = rnd(&rr, 4) != 0;

			src_init(&s, a, (uint8_t)(0x10 + 2 * (seed % 48)), ts,
				 cid, compress);
			for (int k = 0; k < 3 && pos + 2 < r.n; k++) {
				struct fx_etm_window w;
				size_t len = 1 + rnd(&rr, 1500);
				size_t b = pos + len < r.n ? pos + len : r.n;

				win(&w, r.in, b, (int)rnd(&rr, 3) != 0);
				w.pid = 1000 + (uint32_t)seed;
				w.ts0 = rnd(&rr, 1u << 30);
				w.cycles_per_insn = 1 + rnd(&rr, 5);
				w.resync_period = rnd(&rr, 3) ? 0 : 1 + rnd(&rr, 20);
				if (rnd(&rr, 4) == 0) {
					w.overflow_after = rnd(&rr, (uint32_t)(b - pos));
					w.overflow_lost = rnd(&rr, 20);
				}
				src_window(&s, &r, pos, b, &w);
				total += b - pos;
				pos = b + rnd(&rr, 300);
			}
			snprintf(what, sizeof(what), "seed %" PRIu64 " %s", seed,
				 arch_name(a));
			decode_raw(&s, &r, &d);
			src_check(&s, &d, what);
			dec_free(&d);
			src_fini(&s);
		}
		run_free(&r);
	}
	cr_assert_gt(total, 20000, "only %zu instructions checked", total);
}

Test(fx_etm, context_id)
{
	struct fx_etm_window w;
	struct run r;
	struct dec d;
	uint64_t entry;
	struct prog *p = prog_syscalls(&entry);

	run_prog(&r, p, entry, MAX_INSNS);
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		win(&w, r.in, r.n, 1);
		w.pid = 0x1234abcd;
		/* src_check compares every PE_CONTEXT's CONTEXTID with pid. */
		roundtrip(&r, (enum fx_etm_arch)arch, 0, 1, 1, 0, r.n, &w, &d,
			  "cid");
		cr_assert_eq(ev_count(&d.ev[0x10], EV_CTX), 7);
		dec_free(&d);
	}

	/* Context packets: 0x81 changes the context mid-stream, 0x80 keeps
	 * it (OpenCSD emits no element for an unchanged context). */
	{
		struct src s;
		size_t k = find_insn(&r, 2, is_taken_branch);
		const struct evlist *l;
		uint32_t pids[8];
		size_t np = 0;

		src_init(&s, FX_ETM_V4, 0x10, 0, 1, 1);
		cr_assert_eq(fx_etm_async(&s.enc), 0);
		cr_assert_eq(fx_etm_trace_info(&s.enc), 0);
		cr_assert_eq(fx_etm_trace_on(&s.enc), 0);
		cr_assert_eq(fx_etm_addr_ctxt(&s.enc, r.in[0].pc, 41), 0);
		cr_assert_eq(fx_etm_context(&s.enc, 1, 42), 0);
		for (size_t i = 0; i <= k; i++)
			if (is_waypoint(&r.in[i]))
				cr_assert_eq(fx_etm_atom(&s.enc,
					fx_insn_taken(&r.in[i])), 0);
		cr_assert_eq(fx_etm_context(&s.enc, 0, 0), 0);
		cr_assert_eq(fx_etm_context(&s.enc, 1, 43), 0);
		cr_assert_eq(fx_etm_exception(&s.enc, FX_ETM_EXC_IRQ,
					      r.in[k].next,
					      FX_ETM_EXC_MATCH_PREV), 0);
		decode_raw(&s, &r, &d);
		cr_assert_eq(d.pk[0x10][PK_CTXT], 3);
		l = &d.ev[0x10];
		for (size_t i = 0; i < l->n; i++)
			if (l->v[i].kind == EV_CTX && np < 8)
				pids[np++] = (uint32_t)l->v[i].a;
		cr_assert_eq(np, 3);
		cr_assert_eq(pids[0], 41);
		cr_assert_eq(pids[1], 42);
		cr_assert_eq(pids[2], 43);
		cr_assert_eq(ev_count(l, EV_EXC), 1);
		dec_free(&d);
		src_fini(&s);
	}
	run_free(&r);
}

/* Kernel-mode trace (cs_etm//k): every Address + Context says EL1, and
 * OpenCSD reports each context with EL1; the SVCs taken from EL1 still
 * decode as the user window's do (Exception, Trace On at the return). */
Test(fx_etm, exception_level_1)
{
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		struct fx_etm_window w;
		struct run r;
		struct src s;
		struct dec d;
		uint64_t entry;
		struct prog *p = prog_syscalls(&entry);
		const struct evlist *l;
		size_t nctx = 0;

		run_prog(&r, p, entry, MAX_INSNS);
		src_init(&s, (enum fx_etm_arch)arch, 0x10, 0, 1, 1);
		fx_etm_fini(&s.enc);
		s.cfg.el = 1;
		cr_assert_eq(fx_etm_init(&s.enc, &s.cfg), 0);
		win(&w, r.in, r.n, 1);
		w.pid = 61;
		src_window(&s, &r, 0, r.n, &w);
		decode_raw(&s, &r, &d);
		src_check(&s, &d, "el1");
		l = &d.ev[0x10];
		for (size_t i = 0; i < l->n; i++)
			if (l->v[i].kind == EV_CTX) {
				cr_assert_eq(l->v[i].x >> 4, 1, "%s: EL%u",
					     arch_name((enum fx_etm_arch)arch),
					     l->v[i].x >> 4);
				nctx++;
			}
		cr_assert_eq(nctx, 7, "a context at the start and at every "
			     "return from an SVC");
		cr_assert_eq(ev_count(l, EV_EXC), 7);
		dec_free(&d);
		src_fini(&s);
		run_free(&r);
	}
}

Test(fx_etm, trace_info_variants)
{
	static const enum fx_etm_tinfo v[] = {
		FX_ETM_TINFO_PLAIN, FX_ETM_TINFO_INFO, FX_ETM_TINFO_FULL,
	};
	struct fx_etm_window w;
	struct run r;
	uint64_t entry;
	struct prog *p = prog_random(5, &entry);

	run_prog(&r, p, entry, 2000);
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		for (size_t k = 0; k < SY_ARRAY_SIZE(v); k++) {
			struct src s;
			struct dec d;

			src_init(&s, (enum fx_etm_arch)arch, 0x10, 1, 0, 1);
			s.enc.cfg.tinfo = v[k];
			win(&w, r.in, r.n, 1);
			w.resync_period = 4;
			src_window(&s, &r, 0, r.n, &w);
			decode_raw(&s, &r, &d);
			src_check(&s, &d, "tinfo");
			dec_free(&d);
			src_fini(&s);
		}
	}
	run_free(&r);
}

/* ---- CoreSight frames ---- */

/* Three sources (two ETMv4, one ETE) in one formatted buffer, with every
 * interleaving granularity, so ID changes land on every frame position. */
Test(fx_csfmt, multi_source_roundtrip)
{
	static const size_t chunks[] = { 1, 2, 3, 5, 7, 11, 13, 14, 15, 16,
					 17, 31, 64, 0 };
	struct run r;
	struct src s[3];
	struct dsrc ds[3];
	uint64_t entry;
	struct prog *p = prog_random(21, &entry);
	unsigned id14 = 0, old_next = 0;

	run_prog(&r, p, entry, 5000);
	for (int k = 0; k < 3; k++) {
		struct fx_etm_window w;
		size_t a = (size_t)k * 700, b = a + 1500 + (size_t)k * 311;

		cr_assert_leq(b, r.n);
		src_init(&s[k], k == 2 ? FX_ETM_ETE : FX_ETM_V4,
			 (uint8_t)(0x10 + 2 * k), k != 1, k == 0, 1);
		win(&w, r.in, b, k != 2);
		w.pid = 500 + (uint32_t)k;
		w.resync_period = k == 1 ? 7 : 0;
		src_window(&s[k], &r, a, b, &w);
		src_dsrc(&s[k], &ds[k]);
	}
	for (size_t c = 0; c < SY_ARRAY_SIZE(chunks); c++) {
		for (unsigned barrier = 0; barrier <= 1; barrier++) {
			struct fx_csfmt_stream st[3];
			struct fx_buf out;
			struct dec d;
			char what[64];

			for (int k = 0; k < 3; k++) {
				st[k].trace_id = s[k].cfg.trace_id;
				st[k].data = s[k].enc.out.data;
				st[k].len = s[k].enc.out.len;
			}
			fx_buf_init(&out);
			cr_assert_eq(fx_csfmt_interleave(&out, st, 3, chunks[c],
				barrier ? FX_CSFMT_BARRIER : 0), 0);
			cr_assert_eq(out.len % 16, 0);
			if (barrier)
				for (size_t i = 0; i < 16; i++)
					cr_assert_eq(out.data[i], (i % 4) == 3 ?
						     0x7f : 0xff);
			/* Which frame layouts did this run produce?  (Parsed
			 * here from the frame definition, so the sweep is known
			 * to reach ID bytes at 14 and "old ID next" flags.) */
			for (size_t f = barrier ? 16 : 0; f < out.len; f += 16) {
				const uint8_t *fr = out.data + f;

				id14 += fr[14] & 1;
				for (unsigned e = 0; e < 7; e++)
					old_next += (fr[2 * e] & 1) &&
						    (fr[15] >> e & 1);
			}
			decode(out.data, out.len, 1, ds, 3, r.mem, r.nmem, &d);
			for (int k = 0; k < 3; k++) {
				snprintf(what, sizeof(what),
					 "chunk %zu barrier %u id 0x%x",
					 chunks[c], barrier, s[k].cfg.trace_id);
				src_check(&s[k], &d, what);
			}
			dec_free(&d);
			fx_buf_fini(&out);
		}
	}
	cr_assert_gt(id14, 0);
	cr_assert_gt(old_next, 0);
	for (int k = 0; k < 3; k++)
		src_fini(&s[k]);
	run_free(&r);
}

/* One frame worked out by hand from the formatter definition. */
Test(fx_csfmt, frame_by_hand)
{
	static const uint8_t a1[] = { 0xa1, 0xb3 }, b1[] = { 0xc5 };
	static const uint8_t a2[] = { 0xd7, 0xe9, 0xfb };
	/*  0: ID 0x10          1: a1 (0x10)
	 *  2: ID 0x22, aux=1   3: b3 still 0x10
	 *  4: ID 0x10, aux=1   5: c5 still 0x22
	 *  6: d6 + aux=1 = d7  7: e9
	 *  8: ID 0, aux=1      9: fb still 0x10
	 * 10..14: padding for ID 0; aux = bits 1..4 = 0x1e */
	static const uint8_t want[16] = {
		0x21, 0xa1, 0x45, 0xb3, 0x21, 0xc5, 0xd6, 0xe9,
		0x01, 0xfb, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1e,
	};
	struct fx_csfmt f;
	struct fx_buf out;

	fx_buf_init(&out);
	cr_assert_eq(fx_csfmt_init(&f, &out, 0), 0);
	cr_assert_eq(fx_csfmt_put(&f, 0x10, a1, sizeof(a1)), 0);
	cr_assert_eq(fx_csfmt_put(&f, 0x22, b1, sizeof(b1)), 0);
	cr_assert_eq(fx_csfmt_put(&f, 0x10, a2, sizeof(a2)), 0);
	cr_assert_eq(fx_csfmt_finish(&f), 0);
	cr_assert_eq(out.len, 16);
	cr_assert_arr_eq(out.data, want, 16);
	fx_buf_fini(&out);

	/* Errors: reserved IDs, NULL data. */
	fx_buf_init(&out);
	cr_assert_eq(fx_csfmt_init(&f, &out, 0x80), -SY_E_INVALID);
	cr_assert_eq(fx_csfmt_init(&f, &out, 0), 0);
	cr_assert_eq(fx_csfmt_put(&f, 0x00, a1, 1), -SY_E_INVALID);
	cr_assert_eq(fx_csfmt_put(&f, 0x70, a1, 1), -SY_E_INVALID);
	cr_assert_eq(fx_csfmt_put(&f, 0x10, NULL, 1), -SY_E_INVALID);
	cr_assert_eq(fx_csfmt_finish(&f), 0);
	cr_assert_eq(out.len, 0);
	fx_buf_fini(&out);
}

/* ---- negative controls: the comparison must be able to fail ---- */

Test(fx_etm, negative_flipped_atom)
{
	struct run r;
	uint64_t entry;
	struct prog *p = prog_random(9, &entry);
	size_t nway = 0;

	run_prog(&r, p, entry, 2000);
	for (size_t i = 0; i < r.n; i++)
		nway += is_waypoint(&r.in[i]);
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		/* An early atom, and the very last one (only its E/N tells). */
		const size_t flips[] = { 3, nway - 1 };

		for (size_t k = 0; k < 2; k++) {
			struct fx_etm_window w;
			struct src s;
			struct dec d;
			char why[512];

			src_init(&s, (enum fx_etm_arch)arch, 0x10, 0, 0, 1);
			win(&w, r.in, r.n, k == 0);
			w.flip_atom = flips[k];
			src_window(&s, &r, 0, r.n, &w);
			decode_raw(&s, &r, &d);
			cr_assert_not(src_matches(&s, &d, why, sizeof(why)),
				      "flipped atom %zu not detected", flips[k]);
			cr_log_info("flip %zu: %s", flips[k], why);
			dec_free(&d);
			src_fini(&s);
		}
	}
	run_free(&r);
}

Test(fx_etm, negative_no_trace_info)
{
	struct run r;
	uint64_t entry;
	struct prog *p = prog_random(9, &entry);

	run_prog(&r, p, entry, 2000);
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		struct fx_etm_window w;
		struct src s;
		struct dec d;

		src_init(&s, (enum fx_etm_arch)arch, 0x10, 1, 0, 1);
		win(&w, r.in, r.n, 1);
		w.skip_trace_info = 1;
		w.resync_period = 3;
		src_window(&s, &r, 0, r.n, &w);
		decode_raw(&s, &r, &d);
		cr_assert_eq(ev_count(&d.ev[0x10], EV_RANGE), 0);
		cr_assert_eq(ev_count(&d.ev[0x10], EV_EXC), 0);
		dec_free(&d);
		src_fini(&s);
	}
	run_free(&r);
}

/* A truncated window decodes to a strict prefix of the full one. */
Test(fx_etm, truncated)
{
	struct run r;
	uint64_t entry;
	struct prog *p = prog_random(13, &entry);

	run_prog(&r, p, entry, 2000);
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		struct fx_etm_window w;
		struct src full, cut;
		struct dec d;
		struct evlist got = { 0 };

		src_init(&full, (enum fx_etm_arch)arch, 0x10, 1, 0, 1);
		src_init(&cut, (enum fx_etm_arch)arch, 0x10, 1, 0, 1);
		win(&w, r.in, r.n, 1);
		src_window(&full, &r, 0, r.n, &w);
		w.truncate = full.enc.out.len / 2;
		cr_assert_eq(fx_etm_enc_window(&cut.enc, r.in, r.n, &w), 0);
		cr_assert_eq(cut.enc.out.len, full.enc.out.len / 2);
		cr_assert_arr_eq(cut.enc.out.data, full.enc.out.data,
				 cut.enc.out.len);
		decode_raw(&cut, &r, &d);
		flatten(&d.ev[0x10], &got);
		cr_assert_gt(got.n, 100);
		cr_assert_lt(got.n, full.want.n);
		for (size_t i = 0; i < got.n; i++)
			cr_assert(got.v[i].kind == full.want.v[i].kind &&
				  got.v[i].a == full.want.v[i].a,
				  "token %zu differs", i);
		ev_free(&got);
		dec_free(&d);
		src_fini(&full);
		src_fini(&cut);
	}
	run_free(&r);
}

/* ---- API contracts ---- */

Test(fx_etm, api_errors)
{
	struct fx_etm_config cfg;
	struct fx_etm_enc e;
	struct fx_etm_regs regs;
	struct fx_etm_window w;
	struct fx_insn in[2] = {
		{ 0x400000, 0x400004, 4, SY_BR_NONE, 0, 0, 0 },
		{ 0x400004, 0x400100, 4, SY_BR_JUMP, 0, 0, 0 },
	};

	fx_etm_config_init(&cfg);
	cfg.trace_id = 0;
	cr_assert_eq(fx_etm_init(&e, &cfg), -SY_E_INVALID);
	cfg.trace_id = 0x70;
	cr_assert_eq(fx_etm_init(&e, &cfg), -SY_E_INVALID);
	cfg.trace_id = 0x6f;
	cr_assert_eq(fx_etm_regs(NULL, &regs), -SY_E_INVALID);
	cr_assert_eq(fx_etm_init(&e, &cfg), 0);

	/* Compressed forms need a matching history. */
	cr_assert_eq(fx_etm_addr_long64(&e, 0x7f0000400000ull), 0);
	cr_assert_eq(fx_etm_addr_short(&e, 0x7f0000420000ull), -SY_E_INVALID);
	cr_assert_eq(fx_etm_addr_short(&e, 0x7f000041fffcull), 0);
	cr_assert_eq(fx_etm_addr_long32(&e, 0x7e0000400000ull), -SY_E_INVALID);
	cr_assert_eq(fx_etm_addr_long64(&e, 0x400002), -SY_E_INVALID);
	cr_assert_eq(fx_etm_addr_match(&e, 3), -SY_E_INVALID);
	/* Atom formats only take what they can express. */
	cr_assert_eq(fx_etm_atom_packet(&e, 4, 0xf, 4), -SY_E_INVALID);
	cr_assert_eq(fx_etm_atom_packet(&e, 5, 0x1f, 5), -SY_E_INVALID);
	cr_assert_eq(fx_etm_atom_packet(&e, 6, 0x7, 3), -SY_E_INVALID);
	cr_assert_eq(fx_etm_atom_packet(&e, 6, 0x5, 4), -SY_E_INVALID);
	cr_assert_eq(fx_etm_atom_packet(&e, 2, 0x1, 1), -SY_E_INVALID);
	cr_assert_eq(fx_etm_atom_packet(&e, 7, 0x1, 1), -SY_E_INVALID);
	cr_assert_eq(fx_etm_timestamp(&e, 1), -SY_E_INVALID);	/* TS off */
	cr_assert_eq(fx_etm_exception(&e, 32, 0x400000, 0), -SY_E_INVALID);

	/* Windows must be consistent with the truth. */
	fx_etm_window_init(&w);
	cr_assert_eq(fx_etm_enc_window(&e, in, 0, &w), -SY_E_INVALID);
	in[0].next = 0x400008;
	cr_assert_eq(fx_etm_enc_window(&e, in, 2, &w), -SY_E_INVALID);
	in[0].next = 0x400004;
	w.end = FX_ETM_END_EXCEPTION;
	w.end_ip = 0x400104;
	cr_assert_eq(fx_etm_enc_window(&e, in, 2, &w), -SY_E_INVALID);
	w.end_ip = 0x400100;
	cr_assert_eq(fx_etm_enc_window(&e, in, 2, &w), 0);
	fx_etm_fini(&e);
	fx_etm_fini(NULL);

	cfg.arch = FX_ETM_ETE;
	cr_assert_eq(fx_etm_init(&e, &cfg), 0);
	cr_assert_eq(fx_etm_exception(&e, FX_ETM_EXC_RESET, 0, 0),
		     -SY_E_INVALID);
	fx_etm_fini(&e);
}

/* Register values: what perf would put in AUXTRACE_INFO. */
Test(fx_etm, regs)
{
	struct fx_etm_config cfg;
	struct fx_etm_regs r;

	fx_etm_config_init(&cfg);
	cfg.trace_id = 0x12;
	cr_assert_eq(fx_etm_regs(&cfg, &r), 0);
	cr_assert_eq(r.trcconfigr, 0);
	cr_assert_eq(r.trctraceidr, 0x12);
	/* TRCIDR1.TRCARCHMIN >= 4: perf configures ARCH_AA64. */
	cr_assert_geq((r.trcidr1 >> 4) & 0xf, 4);
	cr_assert_eq((r.trcidr1 >> 8) & 0xf, 4);
	cr_assert_eq(r.trcdevarch, 0);
	cfg.timestamps = 1;
	cfg.context_id = 1;
	cfg.arch = FX_ETM_ETE;
	cr_assert_eq(fx_etm_regs(&cfg, &r), 0);
	cr_assert_eq(r.trcconfigr, 0x840);	/* CID bit 6, TS bit 11 */
	cr_assert_eq((r.trcdevarch >> 12) & 0xf, 5);	/* ARCHVER: ETE */
	cr_assert_eq(r.trcdevarch & 0xfff, 0xa13);	/* ARCHPART */
}

/* ---- second oracle: trc_pkt_lister on a written snapshot ---- */

static void snap_write(const char *dir, struct src *const *s, size_t ns,
		       const struct run *r, const uint8_t *trace, size_t len,
		       int formatted)
{
	struct fx_snap_source ss[4];
	struct fx_snap_mem m[MAX_SEG];
	struct fx_snap sn;

	cr_assert_leq(ns, 4);
	for (size_t k = 0; k < ns; k++) {
		ss[k].arch = s[k]->cfg.arch;
		ss[k].core_type = NULL;
		cr_assert_eq(fx_etm_regs(&s[k]->cfg, &ss[k].regs), 0);
	}
	for (size_t i = 0; i < r->nmem; i++) {
		m[i].addr = r->mem[i].addr;
		m[i].data = r->mem[i].data;
		m[i].len = r->mem[i].len;
	}
	sn.src = ss;
	sn.nsrc = ns;
	sn.mem = m;
	sn.nmem = r->nmem;
	sn.trace = trace;
	sn.trace_len = len;
	sn.formatted = formatted;
	cr_assert_eq(fx_snapshot_write(dir, &sn), 0);
}

static char *lister_run(const char *dir)
{
	char cmd[4200];
	char *out = NULL;
	size_t len = 0;
	int st;

	/* 1.3.3 also writes trc_pkt_lister.ppl into the current directory,
	 * -logstdout or not: run it inside the temporary directory. */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && trc_pkt_lister -ss_dir . -decode -logstdout", dir);
	st = sy_test_run(cmd, &out, &len);
	cr_assert_eq(st, 0, "trc_pkt_lister exit %d", st);
	cr_assert_not_null(out);
	cr_assert_null(strstr(out, "OCSD_ERR"), "lister reported errors");
	return out;
}

/* INSTR_RANGE lines of trace ID @id as EV_RANGE (a, b, n). */
static void lister_ranges(const char *out, unsigned id, struct evlist *l)
{
	const char *line = out;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		const char *r = strstr(line, "OCSD_GEN_TRC_ELEM_INSTR_RANGE(");
		unsigned lid;

		if (r && (!nl || r < nl) &&
		    sscanf(line, "Idx:%*u; ID:%x;", &lid) == 1 && lid == id) {
			uint64_t st, en;
			unsigned n;

			cr_assert_eq(sscanf(r, "OCSD_GEN_TRC_ELEM_INSTR_RANGE("
					    "exec range=0x%" SCNx64 ":[0x%" SCNx64
					    "] num_i(%u)", &st, &en, &n), 3);
			ev_push(l, EV_RANGE, st, en, n, 0);
		}
		line = nl ? nl + 1 : NULL;
	}
}

static size_t count_str(const char *hay, const char *needle)
{
	size_t c = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		c++;
	return c;
}

/* The lister's ranges for @s equal the C API's, which equal the truth. */
static void lister_check(const char *out, const struct src *s,
			 const struct dec *d)
{
	struct evlist lr = { 0 };
	const struct evlist *cl = &d->ev[s->cfg.trace_id];
	size_t k = 0;

	lister_ranges(out, s->cfg.trace_id, &lr);
	cr_assert_gt(lr.n, 0, "no ranges for ID 0x%x", s->cfg.trace_id);
	for (size_t i = 0; i < cl->n; i++) {
		const struct ev *e = &cl->v[i];

		if (e->kind != EV_RANGE)
			continue;
		cr_assert_lt(k, lr.n, "lister has fewer ranges");
		cr_assert(lr.v[k].a == e->a && lr.v[k].b == e->b &&
			  lr.v[k].n == e->n,
			  "range %zu: lister 0x%" PRIx64 "-0x%" PRIx64 " (%u), "
			  "C API 0x%" PRIx64 "-0x%" PRIx64 " (%u)", k,
			  lr.v[k].a, lr.v[k].b, lr.v[k].n, e->a, e->b, e->n);
		k++;
	}
	cr_assert_eq(k, lr.n, "lister has more ranges");
	ev_free(&lr);
}

/* The snapshot directory, removed by the fixture even when a test fails. */
static char snap_dir[4096];

static void snap_setup(void)
{
	snap_dir[0] = 0;
}

static void snap_teardown(void)
{
	if (snap_dir[0])
		sy_test_rmtree(snap_dir);
}

static const char *snap_mkdir(void)
{
	snprintf(snap_dir, sizeof(snap_dir), "%s", sy_test_mkdtemp());
	return snap_dir;
}

Test(fx_snapshot, lister_raw, .init = snap_setup, .fini = snap_teardown)
{
	const char *dir;

	sy_test_require_tool("trc_pkt_lister");
	dir = snap_mkdir();
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		enum fx_etm_arch a = (enum fx_etm_arch)arch;
		struct fx_etm_window w;
		struct run r;
		struct src s;
		struct src *sp = &s;
		struct dec d;
		uint64_t entry;
		struct prog *p = prog_atoms(&entry);
		char *out;

		/* The atom program (every atom format), then a random one
		 * with SVCs, timestamps, context IDs, PAuth and resyncs. */
		run_prog(&r, p, entry, MAX_INSNS);
		src_init(&s, a, 0x10, 0, 0, 1);
		win(&w, r.in, r.n, 1);
		src_window(&s, &r, 0, r.n, &w);
		decode_raw(&s, &r, &d);
		src_check(&s, &d, "atoms");
		snap_write(dir, &sp, 1, &r, s.enc.out.data, s.enc.out.len, 0);
		out = lister_run(dir);
		lister_check(out, &s, &d);
		/* Atom formats as OpenCSD's lister names them: this is the
		 * packet-level proof for ETE, which the C API cannot give. */
		for (int f = 1; f <= 6; f++) {
			char needle[32];

			snprintf(needle, sizeof(needle), "I_ATOM_F%d ", f);
			cr_assert_gt(count_str(out, needle), 0, "%s: no %s",
				     arch_name(a), needle);
		}
		free(out);
		dec_free(&d);
		src_fini(&s);
		run_free(&r);

		p = prog_random(17, &entry);
		run_prog(&r, p, entry, 4000);
		src_init(&s, a, 0x10, 1, 1, 1);
		win(&w, r.in, r.n, 1);
		w.pid = 4321;
		w.ts0 = 1u << 20;
		w.resync_period = 9;
		src_window(&s, &r, 0, r.n, &w);
		decode_raw(&s, &r, &d);
		src_check(&s, &d, "random");
		snap_write(dir, &sp, 1, &r, s.enc.out.data, s.enc.out.len, 0);
		out = lister_run(dir);
		lister_check(out, &s, &d);
		cr_assert_eq(count_str(out, "OCSD_GEN_TRC_ELEM_TIMESTAMP("),
			     ev_count(&d.ev[0x10], EV_TS));
		cr_assert_eq(count_str(out, "OCSD_GEN_TRC_ELEM_EXCEPTION("),
			     ev_count(&d.ev[0x10], EV_EXC));
		free(out);
		dec_free(&d);
		src_fini(&s);
		run_free(&r);
	}
}

/* The lister's cycle counts (CYCLE_COUNT elements and the counts of
 * TIMESTAMP elements) summed. */
static uint64_t lister_cycles(const char *out)
{
	uint64_t sum = 0;
	const char *p;

	for (p = strstr(out, "OCSD_GEN_TRC_ELEM_CYCLE_COUNT("); p;
	     p = strstr(p + 1, "OCSD_GEN_TRC_ELEM_CYCLE_COUNT(")) {
		const char *q = strstr(p, "[CC=");

		cr_assert_not_null(q);
		sum += strtoull(q + 4, NULL, 10);
	}
	for (p = strstr(out, "OCSD_GEN_TRC_ELEM_TIMESTAMP("); p;
	     p = strstr(p + 1, "OCSD_GEN_TRC_ELEM_TIMESTAMP(")) {
		const char *nl = strchr(p, '\n');
		const char *q = strstr(p, "CC=");

		if (q && (!nl || q < nl))
			sum += strtoull(q + 3, NULL, 10);
	}
	return sum;
}

/* Cycle-accurate trace (cfg.cycle_accurate): OpenCSD's C API and
 * trc_pkt_lister both read counts that add up to the window's cycles (its
 * instructions times cycles_per_insn: it ends with an IRQ, before which
 * everything pending is counted), counts past 12 bits split into several
 * packets, with syscalls, timestamps and resyncs in the window. */
Test(fx_snapshot, lister_cycle_accurate, .init = snap_setup,
     .fini = snap_teardown)
{
	static const uint64_t cpi[] = { 3, 2500 };
	const char *dir;

	sy_test_require_tool("trc_pkt_lister");
	dir = snap_mkdir();
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		for (size_t c = 0; c < 2; c++) {
			enum fx_etm_arch a = (enum fx_etm_arch)arch;
			struct fx_etm_window w;
			struct run r;
			struct src s;
			struct src *sp = &s;
			struct dec d;
			uint64_t entry, want;
			struct prog *p = prog_syscalls(&entry);
			char *out;

			run_prog(&r, p, entry, MAX_INSNS);
			src_init(&s, a, 0x10, 1, 1, 1);
			fx_etm_fini(&s.enc);
			s.cfg.cycle_accurate = 1;
			cr_assert_eq(fx_etm_init(&s.enc, &s.cfg), 0);
			win(&w, r.in, r.n, 1);
			w.cycles_per_insn = cpi[c];
			w.ts0 = 1u << 20;
			w.resync_period = 7;
			src_window(&s, &r, 0, r.n, &w);
			want = (uint64_t)r.n * cpi[c];
			cr_assert_gt(s.enc.stats.cycle_counts, c ? r.n / 2 : 3);
			decode_raw(&s, &r, &d);
			src_check(&s, &d, "cycle-accurate");
			cr_assert_eq(d.cycles[0x10], want, "%s cpi %" PRIu64
				     ": C API %" PRIu64 " cycles, want %" PRIu64,
				     arch_name(a), cpi[c], d.cycles[0x10], want);
			snap_write(dir, &sp, 1, &r, s.enc.out.data,
				   s.enc.out.len, 0);
			out = lister_run(dir);
			lister_check(out, &s, &d);
			cr_assert_eq(lister_cycles(out), want,
				     "%s cpi %" PRIu64 ": lister %" PRIu64
				     " cycles, want %" PRIu64, arch_name(a),
				     cpi[c], lister_cycles(out), want);
			free(out);
			dec_free(&d);
			src_fini(&s);
			run_free(&r);
		}
	}
}

Test(fx_snapshot, lister_formatted, .init = snap_setup,
     .fini = snap_teardown)
{
	struct src s[3];
	struct src *sp[3] = { &s[0], &s[1], &s[2] };
	struct fx_csfmt_stream st[3];
	struct dsrc ds[3];
	struct fx_buf buf;
	struct run r;
	struct dec d;
	uint64_t entry;
	struct prog *p;
	const char *dir;
	char *out;

	sy_test_require_tool("trc_pkt_lister");
	dir = snap_mkdir();
	p = prog_random(23, &entry);
	run_prog(&r, p, entry, 5000);
	for (int k = 0; k < 3; k++) {
		struct fx_etm_window w;
		size_t a = (size_t)k * 500, b = a + 2000;

		cr_assert_leq(b, r.n);
		src_init(&s[k], k == 1 ? FX_ETM_ETE : FX_ETM_V4,
			 (uint8_t)(0x10 + 2 * k), k == 0, k == 2, 1);
		win(&w, r.in, b, 1);
		w.pid = 77 + (uint32_t)k;
		src_window(&s[k], &r, a, b, &w);
		src_dsrc(&s[k], &ds[k]);
		st[k].trace_id = s[k].cfg.trace_id;
		st[k].data = s[k].enc.out.data;
		st[k].len = s[k].enc.out.len;
	}
	fx_buf_init(&buf);
	/* With perf's FSYNC barrier in front: the lister skips it too. */
	cr_assert_eq(fx_csfmt_interleave(&buf, st, 3, 9, FX_CSFMT_BARRIER), 0);
	decode(buf.data, buf.len, 1, ds, 3, r.mem, r.nmem, &d);
	for (int k = 0; k < 3; k++)
		src_check(&s[k], &d, "formatted");
	snap_write(dir, sp, 3, &r, buf.data, buf.len, 1);
	out = lister_run(dir);
	for (int k = 0; k < 3; k++)
		lister_check(out, &s[k], &d);
	free(out);
	dec_free(&d);
	fx_buf_fini(&buf);
	for (int k = 0; k < 3; k++)
		src_fini(&s[k]);
	run_free(&r);
}

Test(fx_snapshot, invalid)
{
	struct fx_snap_source ss[2];
	struct fx_snap sn;
	uint8_t t[17] = { 0 };

	memset(ss, 0, sizeof(ss));
	memset(&sn, 0, sizeof(sn));
	cr_assert_eq(fx_snapshot_write("/nonexistent-dir/x", &sn),
		     -SY_E_INVALID);	/* no source */
	sn.src = ss;
	sn.nsrc = 2;
	sn.trace = t;
	sn.trace_len = 16;
	cr_assert_eq(fx_snapshot_write("/tmp", &sn), -SY_E_INVALID); /* raw x2 */
	sn.formatted = 1;
	sn.trace_len = 17;
	cr_assert_eq(fx_snapshot_write("/tmp", &sn), -SY_E_INVALID); /* not 16n */
	sn.trace_len = 16;
	cr_assert_eq(fx_snapshot_write("/nonexistent-dir/x", &sn), -SY_E_IO);
}
