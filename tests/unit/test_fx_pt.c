/* Round-trip proofs for the Intel PT window encoder (tests/fixtures/gen/
 * fx_pt.c) against libipt 2.0.5's own decoders.
 *
 * A small x86-64 program is assembled here from real instruction encodings
 * (checked against objdump in prog_matches_objdump) into three code
 * regions whose addresses force every IP-compression case.  A walker
 * executes it with pseudo-random branch decisions and a real call stack,
 * giving ground truth as struct fx_insn.  The encoder turns windows of that
 * truth into PT; libipt's instruction-flow decoder (image via
 * pt_image_set_callback) and block decoder (image via
 * pt_iscache_add_file + pt_image_add_cached) decode it; the tests compare
 * every instruction IP and every event with what the truth says must be
 * there.  Nothing below compares against the encoder's own bookkeeping,
 * except to check that a construct actually occurred, and that is
 * cross-checked with libipt's packet decoder.
 *
 * What libipt 2.0.5 reports (established by the tests below):
 *  - every MODE.exec gives an exec_mode event, every CBR a cbr event (also
 *    inside a mid-window PSB+, bound to the FUP's IP, before that insn);
 *  - TIP.PGE: enabled(ip), TSC attached; syscall PGD: disabled with the IP
 *    suppressed; FUP+PGD: async_disabled at = FUP IP, ip suppressed;
 *  - a window without PSB decodes only when the decoder synchronised at an
 *    earlier PSB; a stream whose first window has no PSB loses that window
 *    (sync_forward skips to the first PSB, or returns -pte_eos);
 *  - OVF+FUP: overflow(ip = resume ip); OVF+PGE: overflow(suppressed),
 *    enabled(resume ip); straight-line instructions between the last
 *    trace-consuming instruction and the OVF are not reported;
 *  - a stream that stops without PGD: pts_eos after the last
 *    trace-consuming instruction; calling next again gives the straight-
 *    line tail up to the next trace-consuming instruction (which the block
 *    decoder includes in its last block), then -pte_eos;
 *  - a block always ends at an instruction that needs trace, so blocks are
 *    expanded statically here;
 *  - a TSC becomes the decoder's time when the packet after it is fetched,
 *    or right after a preceding TIP (it reads ahead after TIPs only);
 *  - no MODE.exec before the first instruction after a sync: -pte_bad_insn;
 *  - a flipped TNT bit: the decoders silently follow the wrong path, then
 *    fail with -pte_bad_retcomp / -pte_bad_query a few branches later.
 */
#include <criterion/criterion.h>
#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_buf.h"
#include "fx_insn.h"
#include "fx_pt.h"
#include "sy_error.h"
#include "sy_test.h"

/* ------------------------------------------------------------------------
 * A tiny assembler: real x86-64 encodings, labels, static classification.
 * ---------------------------------------------------------------------- */

enum {
	R_MAIN,		/* 0x401000 */
	R_B,		/* 0x452000: same top 32 bits as R_MAIN -> update_32 */
	R_C,		/* 0x7ffff7a12000: differs above bit 32 -> sext_48 */
	NREGION
};

static const uint64_t region_base[NREGION] = {
	0x401000, 0x452000, 0x7ffff7a12000ull
};

enum label {
	L_MAIN, L_TOP, L_TOP2, L_SKIP, L_OUT, L_LEAF, L_LEAF_X, L_DISP, L_SW,
	L_CASE0, L_CASE1, L_CASE2, L_SW_END, L_REC, L_REC_OUT, L_FAR, L_BFN,
	L_BX, L_CFN, L_CLEAF, L_CL2, L_HOT, L_HOT_TOP, NLABEL
};

/* How the walker decides a conditional branch. */
enum policy { POL_RANDOM, POL_REC, POL_RARE };

struct pinsn {
	uint64_t pc;
	uint8_t size;
	uint8_t kind;		/* enum sy_branch_kind */
	int policy;
	int target_label;	/* direct branches, -1 otherwise */
	uint64_t target;
	int nalt;		/* indirect: possible targets */
	int alt_label[3];
	uint64_t alt[3];
	const char *mnem;	/* objdump mnemonic prefix */
};

struct fixup {
	int region;
	size_t at;		/* offset of the field */
	int size;		/* 1, 4: rel to @end; 8: absolute */
	uint64_t end;		/* address after the instruction */
	int label;
};

struct prog {
	uint8_t code[NREGION][512];
	size_t len[NREGION];
	int cur;
	uint64_t label[NLABEL];
	struct pinsn ins[160];
	size_t nins;
	struct fixup fix[96];
	size_t nfix;
};

static struct prog g_prog;

static uint64_t here(const struct prog *p)
{
	return region_base[p->cur] + p->len[p->cur];
}

static void lbl(struct prog *p, int l)
{
	p->label[l] = here(p);
}

static struct pinsn *emit(struct prog *p, const uint8_t *bytes, size_t n,
			  enum sy_branch_kind kind, const char *mnem)
{
	struct pinsn *in = &p->ins[p->nins++];

	cr_assert(p->nins <= sizeof(p->ins) / sizeof(p->ins[0]));
	memset(in, 0, sizeof(*in));
	in->pc = here(p);
	in->size = (uint8_t)n;
	in->kind = (uint8_t)kind;
	in->target_label = -1;
	in->mnem = mnem;
	memcpy(p->code[p->cur] + p->len[p->cur], bytes, n);
	p->len[p->cur] += n;
	return in;
}

static void fix(struct prog *p, size_t field_off_from_end, int size, int l)
{
	struct fixup *f = &p->fix[p->nfix++];

	f->region = p->cur;
	f->at = p->len[p->cur] - field_off_from_end;
	f->size = size;
	f->end = here(p);
	f->label = l;
}

#define BYTES(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

static void a_other(struct prog *p, const uint8_t *b, size_t n, const char *m)
{
	emit(p, b, n, SY_BR_NONE, m);
}

/* jcc / loop / jrcxz rel8 */
static void a_jcc8(struct prog *p, uint8_t opc, int l, int pol, const char *m)
{
	uint8_t b[2] = { opc, 0 };
	struct pinsn *in = emit(p, b, 2, SY_BR_COND, m);

	in->target_label = l;
	in->policy = pol;
	fix(p, 1, 1, l);
}

static void a_jcc32(struct prog *p, uint8_t cc, int l, int pol, const char *m)
{
	uint8_t b[6] = { 0x0f, (uint8_t)(0x80 | cc), 0, 0, 0, 0 };
	struct pinsn *in = emit(p, b, 6, SY_BR_COND, m);

	in->target_label = l;
	in->policy = pol;
	fix(p, 4, 4, l);
}

static void a_jmp8(struct prog *p, int l)
{
	uint8_t b[2] = { 0xeb, 0 };

	emit(p, b, 2, SY_BR_JUMP, "jmp")->target_label = l;
	fix(p, 1, 1, l);
}

static void a_jmp32(struct prog *p, int l)
{
	uint8_t b[5] = { 0xe9, 0, 0, 0, 0 };

	emit(p, b, 5, SY_BR_JUMP, "jmp")->target_label = l;
	fix(p, 4, 4, l);
}

static void a_call(struct prog *p, int l)
{
	uint8_t b[5] = { 0xe8, 0, 0, 0, 0 };

	emit(p, b, 5, SY_BR_CALL, "call")->target_label = l;
	fix(p, 4, 4, l);
}

/* movabs $label, %rax */
static void a_movabs(struct prog *p, int l)
{
	uint8_t b[10] = { 0x48, 0xb8 };

	emit(p, b, 10, SY_BR_NONE, "movabs");
	fix(p, 8, 8, l);
}

static struct pinsn *a_ind(struct prog *p, const uint8_t *b, size_t n,
			   enum sy_branch_kind k, const char *m, int l0, int l1,
			   int l2)
{
	struct pinsn *in = emit(p, b, n, k, m);

	in->alt_label[in->nalt++] = l0;
	if (l1 >= 0)
		in->alt_label[in->nalt++] = l1;
	if (l2 >= 0)
		in->alt_label[in->nalt++] = l2;
	return in;
}

static void a_ret(struct prog *p)
{
	emit(p, BYTES(0xc3), SY_BR_RET, "ret");
}

static void build_prog(struct prog *p)
{
	struct pinsn *in;
	size_t i;
	int k;

	memset(p, 0, sizeof(*p));

	p->cur = R_MAIN;
	lbl(p, L_MAIN);
	a_other(p, BYTES(0x31, 0xc0), "xor");			/* xor %eax,%eax */
	a_other(p, BYTES(0xb9, 0x03, 0, 0, 0), "mov");		/* mov $3,%ecx */
	lbl(p, L_TOP);
	a_call(p, L_LEAF);
	a_call(p, L_DISP);
	a_call(p, L_SW);
	a_call(p, L_REC);
	/* call .+5; pop %rax: libipt does not push calls to the next insn */
	in = emit(p, BYTES(0xe8, 0, 0, 0, 0), SY_BR_CALL, "call");
	in->target = here(p);	/* a separate statement: sequenced */
	a_other(p, BYTES(0x58), "pop");
	a_other(p, BYTES(0x85, 0xc9), "test");			/* test %ecx,%ecx */
	a_jcc8(p, 0x74, L_SKIP, POL_RANDOM, "je");
	a_other(p, BYTES(0xb8, 0x27, 0, 0, 0), "mov");		/* mov $39,%eax */
	emit(p, BYTES(0x0f, 0x05), SY_BR_SYSCALL, "syscall");
	lbl(p, L_SKIP);
	a_call(p, L_FAR);
	a_call(p, L_HOT);
	a_jcc8(p, 0xe2, L_TOP, POL_RANDOM, "loop");
	a_jcc8(p, 0xe3, L_OUT, POL_RANDOM, "jrcxz");
	lbl(p, L_TOP2);
	a_jcc32(p, 0x4, L_TOP, POL_RANDOM, "je");		/* je rel32 */
	a_jmp8(p, L_TOP);
	lbl(p, L_OUT);
	a_jmp32(p, L_MAIN);

	lbl(p, L_LEAF);
	a_other(p, BYTES(0x48, 0x83, 0xc0, 0x01), "add");	/* add $1,%rax */
	a_other(p, BYTES(0x0f, 0x1f, 0x40, 0x00), "nop");	/* nopl 0(%rax) */
	a_jcc8(p, 0x75, L_LEAF_X, POL_RANDOM, "jne");
	a_other(p, BYTES(0x90), "nop");
	lbl(p, L_LEAF_X);
	a_ret(p);

	lbl(p, L_DISP);
	a_movabs(p, L_LEAF);
	a_ind(p, BYTES(0xff, 0xd0), SY_BR_IND_CALL, "call", L_LEAF, -1, -1);
	a_movabs(p, L_LEAF);
	/* tail call: leaf's ret goes straight back to disp's caller */
	a_ind(p, BYTES(0xff, 0xe0), SY_BR_IND_JUMP, "jmp", L_LEAF, -1, -1);

	lbl(p, L_SW);
	/* jmp *0x460000(,%rcx,8): a jump table */
	a_ind(p, BYTES(0xff, 0x24, 0xcd, 0x00, 0x00, 0x46, 0x00),
	      SY_BR_IND_JUMP, "jmp", L_CASE0, L_CASE1, L_CASE2);
	lbl(p, L_CASE0);
	a_other(p, BYTES(0x90), "nop");
	a_jmp8(p, L_SW_END);
	lbl(p, L_CASE1);
	a_other(p, BYTES(0x48, 0x83, 0xc0, 0x02), "add");
	a_jmp8(p, L_SW_END);
	lbl(p, L_CASE2);
	a_ret(p);
	lbl(p, L_SW_END);
	a_ret(p);

	lbl(p, L_REC);
	a_other(p, BYTES(0xff, 0xcf), "dec");			/* dec %edi */
	a_jcc8(p, 0x7e, L_REC_OUT, POL_REC, "jle");
	a_call(p, L_REC);
	lbl(p, L_REC_OUT);
	a_ret(p);

	lbl(p, L_FAR);
	a_movabs(p, L_BFN);
	a_ind(p, BYTES(0xff, 0xd0), SY_BR_IND_CALL, "call", L_BFN, -1, -1);
	a_movabs(p, L_CFN);
	a_ind(p, BYTES(0xff, 0xd0), SY_BR_IND_CALL, "call", L_CFN, -1, -1);
	a_ret(p);

	/* A hot loop of conditional branches only: long TNT runs. */
	lbl(p, L_HOT);
	a_other(p, BYTES(0xb9, 0x10, 0, 0, 0), "mov");		/* mov $16,%ecx */
	lbl(p, L_HOT_TOP);
	a_other(p, BYTES(0x85, 0xc9), "test");
	a_jcc8(p, 0x7f, L_HOT_TOP, POL_RARE, "jg");
	a_other(p, BYTES(0x48, 0x83, 0xc0, 0x01), "add");
	a_jcc8(p, 0xe2, L_HOT_TOP, POL_RARE, "loop");
	a_ret(p);

	p->cur = R_B;
	lbl(p, L_BFN);
	a_other(p, BYTES(0x90), "nop");
	a_jcc8(p, 0x74, L_BX, POL_RANDOM, "je");
	a_other(p, BYTES(0x48, 0x83, 0xc0, 0x03), "add");
	lbl(p, L_BX);
	a_ret(p);

	p->cur = R_C;
	lbl(p, L_CFN);
	a_call(p, L_CLEAF);
	a_ret(p);
	lbl(p, L_CLEAF);
	a_other(p, BYTES(0x85, 0xc9), "test");
	a_jcc8(p, 0x75, L_CL2, POL_RANDOM, "jne");
	a_other(p, BYTES(0x90), "nop");
	lbl(p, L_CL2);
	a_ret(p);

	for (i = 0; i < p->nfix; i++) {
		const struct fixup *f = &p->fix[i];
		uint8_t *at = p->code[f->region] + f->at;
		uint64_t t = p->label[f->label];
		int64_t rel = (int64_t)(t - f->end);

		if (f->size == 1) {
			cr_assert(rel >= -128 && rel <= 127, "rel8 fixup");
			at[0] = (uint8_t)(int8_t)rel;
		} else if (f->size == 4) {
			uint32_t v = (uint32_t)(int32_t)rel;

			memcpy(at, &v, 4);
		} else {
			memcpy(at, &t, 8);
		}
	}
	for (i = 0; i < p->nins; i++) {
		in = &p->ins[i];
		if (in->target_label >= 0)
			in->target = p->label[in->target_label];
		for (k = 0; k < in->nalt; k++)
			in->alt[k] = p->label[in->alt_label[k]];
	}
}

static const struct pinsn *prog_lookup(const struct prog *p, uint64_t pc)
{
	size_t i;

	for (i = 0; i < p->nins; i++)
		if (p->ins[i].pc == pc)
			return &p->ins[i];
	return NULL;
}

/* ------------------------------------------------------------------------
 * The walker: ground truth.
 * ---------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* Executes @n instructions from main.  Conditional branches follow their
 * policy; indirect branches pick one of their targets; calls and returns
 * use a real stack; rec recurses to a depth re-drawn in [0, 90) at every
 * call from main, so the 64-entry return stack overflows now and then. */
static struct fx_insn *walk(const struct prog *p, uint64_t seed, size_t n)
{
	struct fx_insn *out = calloc(n, sizeof(*out));
	uint64_t stack[512];
	size_t sp = 0, i;
	uint64_t pc = p->label[L_MAIN], rng = seed | 1;
	unsigned rec_depth = 0, rec_target = 0;

	cr_assert_not_null(out);
	for (i = 0; i < n; i++) {
		const struct pinsn *in = prog_lookup(p, pc);
		uint64_t fall, next;

		cr_assert_not_null(in, "walker lost at %#" PRIx64, pc);
		fall = in->pc + in->size;
		switch ((enum sy_branch_kind)in->kind) {
		case SY_BR_COND: {
			int taken;

			if (in->policy == POL_REC)
				taken = rec_depth >= rec_target;
			else if (in->policy == POL_RARE)
				taken = rng_next(&rng) % 8 != 0;
			else
				taken = rng_next(&rng) & 1;
			next = taken ? in->target : fall;
			break;
		}
		case SY_BR_JUMP:
			next = in->target;
			break;
		case SY_BR_CALL:
			next = in->target;
			if (next == fall)
				break;	/* call .+5: pushes, never returns */
			cr_assert(sp < 512);
			stack[sp++] = fall;
			if (next == p->label[L_REC]) {
				if (in->pc < p->label[L_LEAF]) {
					rec_depth = 0;
					rec_target = (unsigned)(rng_next(&rng) %
								90);
				} else {
					rec_depth++;
				}
			}
			break;
		case SY_BR_IND_CALL:
			next = in->alt[rng_next(&rng) % (uint64_t)in->nalt];
			cr_assert(sp < 512);
			stack[sp++] = fall;
			break;
		case SY_BR_IND_JUMP:
			next = in->alt[rng_next(&rng) % (uint64_t)in->nalt];
			break;
		case SY_BR_RET:
			cr_assert(sp > 0, "walker: ret with empty stack");
			next = stack[--sp];
			if (rec_depth && in->pc == p->label[L_REC_OUT])
				rec_depth--;
			break;
		default:
			next = fall;
			break;
		}
		out[i].pc = pc;
		out[i].next = next;
		out[i].size = in->size;
		out[i].kind = in->kind;
		pc = next;
	}
	return out;
}

/* ------------------------------------------------------------------------
 * Decode logs: what a decoder reported, in order.
 * ---------------------------------------------------------------------- */

enum titem { T_INSN, T_EVENT, T_ERROR, T_EOS };

struct tent {
	int item;
	int type;		/* T_EVENT: ptev_*; T_ERROR: pte_* */
	uint64_t ip;		/* insn ip; event ip/at */
	int ip_suppressed;
	int has_tsc;
	uint64_t tsc;		/* event tsc, or time after an insn */
	int iclass;
};

struct tlog {
	struct tent *e;
	size_t n, cap;
};

static void tlog_add(struct tlog *l, const struct tent *t)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->e = realloc(l->e, l->cap * sizeof(*l->e));
		cr_assert_not_null(l->e);
	}
	l->e[l->n++] = *t;
}

static void tlog_insn(struct tlog *l, uint64_t ip)
{
	struct tent t = { .item = T_INSN, .ip = ip };

	tlog_add(l, &t);
}

static void tlog_event(struct tlog *l, int type, uint64_t ip, int supp)
{
	struct tent t = { .item = T_EVENT, .type = type, .ip = ip,
			  .ip_suppressed = supp };

	tlog_add(l, &t);
}

static void tlog_free(struct tlog *l)
{
	free(l->e);
	memset(l, 0, sizeof(*l));
}

static const char *evname(int t)
{
	switch (t) {
	case ptev_enabled: return "enabled";
	case ptev_disabled: return "disabled";
	case ptev_async_disabled: return "async_disabled";
	case ptev_overflow: return "overflow";
	case ptev_exec_mode: return "exec_mode";
	case ptev_tick: return "tick";
	case ptev_cbr: return "cbr";
	default: return "event";
	}
}

static void tent_str(const struct tent *t, char *buf, size_t n)
{
	switch (t->item) {
	case T_INSN:
		snprintf(buf, n, "insn %#" PRIx64, t->ip);
		break;
	case T_EVENT:
		snprintf(buf, n, "%s %s%#" PRIx64 "%s", evname(t->type),
			 t->ip_suppressed ? "(suppressed) " : "", t->ip,
			 t->has_tsc ? " tsc" : "");
		break;
	case T_ERROR:
		snprintf(buf, n, "error %s", pt_errstr((enum pt_error_code)
							t->type));
		break;
	default:
		snprintf(buf, n, "eos");
		break;
	}
}

static void tlog_dump(const struct tlog *l, size_t from, size_t to,
		      const char *name)
{
	char b[128];
	size_t i;

	for (i = from; i < to && i < l->n; i++) {
		tent_str(&l->e[i], b, sizeof(b));
		cr_log_info("%s[%zu] %s", name, i, b);
	}
}

/* Event payload the tests compare: the IP that matters for each type. */
static uint64_t event_ip(const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_enabled: return ev->variant.enabled.ip;
	case ptev_disabled: return ev->ip_suppressed ? 0 :
					   ev->variant.disabled.ip;
	case ptev_async_disabled: return ev->variant.async_disabled.at;
	case ptev_overflow: return ev->ip_suppressed ? 0 :
					   ev->variant.overflow.ip;
	case ptev_exec_mode: return ev->variant.exec_mode.ip;
	case ptev_tick: return ev->variant.tick.ip;
	default: return 0;
	}
}

static void log_event(struct tlog *l, const struct pt_event *ev)
{
	struct tent t = { .item = T_EVENT, .type = ev->type,
			  .ip = event_ip(ev),
			  .ip_suppressed = ev->ip_suppressed,
			  .has_tsc = ev->has_tsc, .tsc = ev->tsc };

	tlog_add(l, &t);
}

static void log_error(struct tlog *l, int err)
{
	struct tent t = { .item = T_ERROR, .type = pt_errcode(err) };

	tlog_add(l, &t);
}

static void log_eos(struct tlog *l)
{
	struct tent t = { .item = T_EOS };

	tlog_add(l, &t);
}

/* ------------------------------------------------------------------------
 * libipt decoders.
 * ---------------------------------------------------------------------- */

static int read_mem(uint8_t *buf, size_t size, const struct pt_asid *asid,
		    uint64_t ip, void *ctx)
{
	const struct prog *p = ctx;
	int r;

	(void)asid;
	for (r = 0; r < NREGION; r++) {
		uint64_t b = region_base[r];

		if (ip >= b && ip < b + p->len[r]) {
			size_t n = (size_t)(b + p->len[r] - ip);

			if (n > size)
				n = size;
			memcpy(buf, p->code[r] + (ip - b), n);
			return (int)n;
		}
	}
	return -pte_nomap;
}

static void dec_config(struct pt_config *cfg, struct fx_buf *trace)
{
	struct fx_pt_hw hw;

	fx_pt_hw_init(&hw);
	pt_config_init(cfg);
	cfg->begin = trace->data;
	cfg->end = trace->data + trace->len;
	cr_assert_eq(fx_pt_hw_pt_config(&hw, cfg), 0);
}

struct dec_opts {
	int stop_at_eos;	/* stop at the first pts_eos, like ptxed */
	int no_resync;		/* stop at the first error */
};

/* Decodes @trace with pt_insn_decoder the way ptxed does (sync, drain
 * events while pts_event_pending, next), resyncing after errors. */
static void run_insn(struct fx_buf *trace, const struct dec_opts *o,
		     struct tlog *l)
{
	struct pt_config cfg;
	struct pt_insn_decoder *dec;
	struct pt_image *img;
	int status, rounds = 0, seen_eos = 0;

	dec_config(&cfg, trace);
	dec = pt_insn_alloc_decoder(&cfg);
	cr_assert_not_null(dec);
	img = pt_insn_get_image(dec);
	cr_assert_eq(pt_image_set_callback(img, read_mem, &g_prog), 0);

	for (;;) {
		status = pt_insn_sync_forward(dec);
		if (status < 0) {
			if (status != -pte_eos)
				log_error(l, status);
			break;
		}
		for (;;) {
			struct pt_insn insn;
			struct tent t;
			uint64_t tm;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = pt_insn_event(dec, &ev, sizeof(ev));
				if (status < 0)
					break;
				log_event(l, &ev);
			}
			if (status < 0)
				break;
			if ((status & pts_eos) && !seen_eos) {
				seen_eos = 1;
				log_eos(l);
				if (o && o->stop_at_eos)
					goto done;
			}
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (status < 0)
				break;
			memset(&t, 0, sizeof(t));
			t.item = T_INSN;
			t.ip = insn.ip;
			t.iclass = insn.iclass;
			if (pt_insn_time(dec, &tm, NULL, NULL) >= 0) {
				t.has_tsc = 1;
				t.tsc = tm;
			}
			tlog_add(l, &t);
		}
		if (status == -pte_eos)
			break;
		log_error(l, status);
		if ((o && o->no_resync) || ++rounds > 1000)
			break;
	}
done:
	pt_insn_free_decoder(dec);
}

/* Static successor inside a block: blocks only continue through
 * instructions whose successor needs no trace. */
static int block_next(const struct prog *p, uint64_t pc, uint64_t *next)
{
	const struct pinsn *in = prog_lookup(p, pc);

	if (!in)
		return -1;
	switch ((enum sy_branch_kind)in->kind) {
	case SY_BR_NONE:
		*next = pc + in->size;
		return 0;
	case SY_BR_JUMP:
	case SY_BR_CALL:
		*next = in->target ? in->target : pc + in->size;
		return 0;
	default:
		return -1;	/* needs trace: must end the block */
	}
}

static char g_tmpdir[4096];

/* Same with pt_blk_decoder; each block is expanded into instruction IPs by
 * following the program statically from block.ip, and must end exactly at
 * block.end_ip after block.ninsn instructions. */
static void run_blk(struct fx_buf *trace, const struct dec_opts *o,
		    struct tlog *l)
{
	struct pt_config cfg;
	struct pt_block_decoder *dec;
	struct pt_image_section_cache *isc;
	struct pt_image *img;
	int status, rounds = 0, seen_eos = 0, r;

	if (!g_tmpdir[0]) {
		snprintf(g_tmpdir, sizeof(g_tmpdir), "%s", sy_test_mkdtemp());
		for (r = 0; r < NREGION; r++) {
			char path[4200];

			snprintf(path, sizeof(path), "%s/r%d.bin", g_tmpdir, r);
			cr_assert_eq(sy_test_write_file(path, g_prog.code[r],
							g_prog.len[r]), 0);
		}
	}
	dec_config(&cfg, trace);
	dec = pt_blk_alloc_decoder(&cfg);
	cr_assert_not_null(dec);
	isc = pt_iscache_alloc("fx_pt");
	cr_assert_not_null(isc);
	img = pt_blk_get_image(dec);
	for (r = 0; r < NREGION; r++) {
		char path[4200];
		int isid;

		snprintf(path, sizeof(path), "%s/r%d.bin", g_tmpdir, r);
		isid = pt_iscache_add_file(isc, path, 0, g_prog.len[r],
					   region_base[r]);
		cr_assert(isid > 0, "iscache: %s", pt_errstr(pt_errcode(isid)));
		cr_assert_eq(pt_image_add_cached(img, isc, isid, NULL), 0);
	}

	for (;;) {
		status = pt_blk_sync_forward(dec);
		if (status < 0) {
			if (status != -pte_eos)
				log_error(l, status);
			break;
		}
		for (;;) {
			struct pt_block blk;
			uint64_t pc;
			unsigned k;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = pt_blk_event(dec, &ev, sizeof(ev));
				if (status < 0)
					break;
				log_event(l, &ev);
			}
			if (status < 0)
				break;
			if ((status & pts_eos) && !seen_eos) {
				seen_eos = 1;
				log_eos(l);
				if (o && o->stop_at_eos)
					goto done;
			}
			memset(&blk, 0, sizeof(blk));
			status = pt_blk_next(dec, &blk, sizeof(blk));
			/* A block may come with an error and still hold
			 * instructions. */
			pc = blk.ip;
			for (k = 0; k < blk.ninsn; k++) {
				tlog_insn(l, pc);
				if (k + 1 < blk.ninsn &&
				    block_next(&g_prog, pc, &pc) < 0) {
					log_error(l, -pte_internal);
					break;
				}
			}
			if (blk.ninsn && pc != blk.end_ip)
				log_error(l, -pte_bad_query);
			if (status < 0)
				break;
		}
		if (status == -pte_eos)
			break;
		log_error(l, status);
		if ((o && o->no_resync) || ++rounds > 1000)
			break;
	}
done:
	pt_blk_free_decoder(dec);
	pt_iscache_free(isc);
}

/* ------------------------------------------------------------------------
 * Expected logs, from the truth and the rules in fx_pt.h.
 * ---------------------------------------------------------------------- */

/* Instructions whose successor the decoder must take from the trace. */
static int needs_trace(const struct fx_insn *in)
{
	switch (in->kind) {
	case SY_BR_COND:
	case SY_BR_IND_JUMP:
	case SY_BR_IND_CALL:
	case SY_BR_RET:
	case SY_BR_SYSCALL:
	case SY_BR_ERET:
		return 1;
	default:
		return 0;
	}
}

/* Drops trailing instructions after the last one that needed trace: what
 * libipt cannot report before an OVF or the end of the stream (it only
 * learns where straight-line code ends from the next packet). */
static void exp_drop_untraced_tail(struct tlog *x, const struct fx_insn *in,
				   size_t i)
{
	while (x->n && x->e[x->n - 1].item == T_INSN && !needs_trace(&in[i])) {
		x->n--;
		if (!i--)
			break;
	}
}

/* The expected log of windows @w[0..nw) cut from the run @t[0..nt) (the
 * windows' insns point into @t), by the rules libipt 2.0.5 follows:
 *  - TIP.PGE:  enabled(ip);
 *  - syscall:  the syscall, disabled (IP suppressed), enabled(return ip);
 *  - FUP+PGD:  async_disabled(at = first instruction not executed);
 *  - OVF:      instructions after the last trace-consuming one before the
 *              overflow are not reported; then overflow(resume ip), or with
 *              TIP.PGE overflow(suppressed) + enabled(resume ip);
 *  - no end:   up to the last trace-consuming instruction, pts_eos, then
 *              (calling next again) straight-line code up to the next
 *              instruction that needs trace, even past the window.
 *              The block decoder (@blk) also puts that next
 *              instruction into its last block, returned with -pte_eos.
 * exec_mode and cbr events are checked separately (see tlog_core). */
static void exp_windows(struct tlog *x, const struct fx_insn *t, size_t nt,
			const struct fx_pt_window *w, size_t nw, int blk)
{
	size_t k, i;

	for (k = 0; k < nw; k++) {
		const struct fx_insn *in = w[k].insns;
		size_t n = w[k].n;

		tlog_event(x, ptev_enabled, in[0].pc, 0);
		for (i = 0; i < n; i++) {
			tlog_insn(x, in[i].pc);
			if (in[i].kind == SY_BR_SYSCALL) {
				tlog_event(x, ptev_disabled, 0, 1);
				if (i + 1 < n)
					tlog_event(x, ptev_enabled,
						   in[i + 1].pc, 0);
			}
			if (w[k].ovf_after >= 0 &&
			    (size_t)w[k].ovf_after == i) {
				size_t r = i + 1 + w[k].ovf_lost;

				exp_drop_untraced_tail(x, in, i);
				if (w[k].ovf_pge) {
					tlog_event(x, ptev_overflow, 0, 1);
					tlog_event(x, ptev_enabled, in[r].pc,
						   0);
				} else {
					tlog_event(x, ptev_overflow, in[r].pc,
						   0);
				}
				i = r - 1;
			}
		}
		if (in[n - 1].kind == SY_BR_SYSCALL)
			continue;
		if (w[k].end == FX_PT_END_PGD) {
			tlog_event(x, ptev_async_disabled, in[n - 1].next, 1);
		} else {
			size_t j = (size_t)(in - t) + n;

			exp_drop_untraced_tail(x, in, n - 1);
			/* The tail: straight-line code from after the last
			 * trace-consuming instruction up to the next one. */
			while (j > (size_t)(in - t) && !needs_trace(&t[j - 1]))
				j--;
			for (; j < nt && !needs_trace(&t[j]); j++)
				tlog_insn(x, t[j].pc);
			if (blk && j < nt)
				tlog_insn(x, t[j].pc);
		}
	}
}

/* Returns the index of the first difference in (type, item, ip,
 * ip_suppressed), or -1 when @got equals @want; logs the neighbourhood of
 * a difference. */
static long tlog_cmp(const struct tlog *got, const struct tlog *want,
		     const char *name)
{
	size_t i, n = got->n < want->n ? got->n : want->n;

	for (i = 0; i < n; i++) {
		const struct tent *a = &got->e[i], *b = &want->e[i];

		if (a->item != b->item || a->ip != b->ip ||
		    (a->item == T_EVENT && (a->type != b->type ||
					    a->ip_suppressed !=
						    b->ip_suppressed)) ||
		    (a->item == T_ERROR && a->type != b->type))
			break;
	}
	if (i == got->n && i == want->n)
		return -1;
	cr_log_info("%s: first difference at %zu (got %zu, want %zu)", name,
		    i, got->n, want->n);
	tlog_dump(got, i > 3 ? i - 3 : 0, i + 4, "got ");
	tlog_dump(want, i > 3 ? i - 3 : 0, i + 4, "want");
	return (long)i;
}


/* The core of a log: instructions and the enable/disable/overflow events,
 * without eos markers and without the exec_mode / cbr / tick events that
 * every MODE.exec / CBR / TSC produces (checked in psb_plus_events and
 * timing). */
static void tlog_core(struct tlog *l)
{
	size_t i, j = 0;

	for (i = 0; i < l->n; i++) {
		const struct tent *e = &l->e[i];

		if (e->item == T_EOS)
			continue;
		if (e->item == T_EVENT && (e->type == ptev_exec_mode ||
					   e->type == ptev_cbr ||
					   e->type == ptev_tick))
			continue;
		l->e[j++] = *e;
	}
	l->n = j;
}

static size_t tlog_count(const struct tlog *l, int item, int type)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		if (l->e[i].item == item &&
		    (item != T_EVENT || l->e[i].type == type))
			n++;
	return n;
}

/* ------------------------------------------------------------------------
 * libipt's packet decoder: independent evidence of which packets a trace
 * holds.
 * ---------------------------------------------------------------------- */

struct pkt_stats {
	unsigned type[ppt_ptw + 1];
	unsigned ipc[8];	/* by enum pt_ip_compression */
	unsigned tnt8_max, tnt64_max;
	uint64_t psb_off[512];
	unsigned npsb;
	int err;		/* first error other than -pte_eos */
};

static void pkt_scan(struct fx_buf *trace, struct pkt_stats *s)
{
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	int st;

	memset(s, 0, sizeof(*s));
	dec_config(&cfg, trace);
	dec = pt_pkt_alloc_decoder(&cfg);
	cr_assert_not_null(dec);
	st = pt_pkt_sync_set(dec, 0);
	cr_assert_eq(st, 0);
	for (;;) {
		struct pt_packet pkt;
		uint64_t off;

		cr_assert_eq(pt_pkt_get_offset(dec, &off), 0);
		st = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (st < 0) {
			if (st != -pte_eos)
				s->err = st;
			break;
		}
		if (pkt.type <= ppt_ptw)
			s->type[pkt.type]++;
		switch (pkt.type) {
		case ppt_fup:
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
			s->ipc[pkt.payload.ip.ipc & 7]++;
			break;
		case ppt_tnt_8:
			if (pkt.payload.tnt.bit_size > s->tnt8_max)
				s->tnt8_max = pkt.payload.tnt.bit_size;
			break;
		case ppt_tnt_64:
			if (pkt.payload.tnt.bit_size > s->tnt64_max)
				s->tnt64_max = pkt.payload.tnt.bit_size;
			break;
		case ppt_psb:
			if (s->npsb < 512)
				s->psb_off[s->npsb] = off;
			s->npsb++;
			break;
		default:
			break;
		}
	}
	pt_pkt_free_decoder(dec);
}

/* ------------------------------------------------------------------------
 * Fixture and helpers.
 * ---------------------------------------------------------------------- */

static void setup(void)
{
	build_prog(&g_prog);
	g_tmpdir[0] = '\0';
}

static void teardown(void)
{
	if (g_tmpdir[0])
		sy_test_rmtree(g_tmpdir);
}

TestSuite(fx_pt, .init = setup, .fini = teardown);

static void encode(const struct fx_pt_opts *opts, const struct fx_pt_window *w,
		   size_t nw, struct fx_buf *trace)
{
	struct fx_pt_enc enc;
	size_t i;
	int err;

	fx_buf_init(trace);
	cr_assert_eq(fx_pt_enc_init(&enc, opts, trace), 0);
	for (i = 0; i < nw; i++) {
		err = fx_pt_enc_window(&enc, &w[i], NULL);
		cr_assert_eq(err, 0, "window %zu: %s (pte %d)", i,
			     sy_errstr(err), enc.pt_err);
	}
	fx_pt_enc_fini(&enc);
}

/* Decodes @trace with both decoders and compares their core logs with
 * @want.  Returns nonzero when both match. */
static int decode_matches(struct fx_buf *trace, const struct tlog *want,
			  const struct tlog *want_blk)
{
	struct tlog gi = { 0 }, gb = { 0 };
	int ok;

	run_insn(trace, NULL, &gi);
	run_blk(trace, NULL, &gb);
	tlog_core(&gi);
	tlog_core(&gb);
	ok = tlog_cmp(&gi, want, "insn") == -1;
	ok &= tlog_cmp(&gb, want_blk ? want_blk : want, "blk") == -1;
	tlog_free(&gi);
	tlog_free(&gb);
	return ok;
}

/* Encodes @w[0..nw) cut from @t[0..nt) into one stream, decodes it with
 * both decoders and asserts both equal the expected log. */
static void roundtrip(const struct fx_pt_opts *opts, const struct fx_insn *t,
		      size_t nt, const struct fx_pt_window *w, size_t nw,
		      struct fx_buf *keep)
{
	struct fx_buf trace;
	struct tlog want = { 0 }, want_blk = { 0 };

	encode(opts, w, nw, &trace);
	exp_windows(&want, t, nt, w, nw, 0);
	exp_windows(&want_blk, t, nt, w, nw, 1);
	cr_expect(decode_matches(&trace, &want, &want_blk),
		  "libipt's decoders differ from the truth (%zu bytes)",
		  trace.len);
	tlog_free(&want);
	tlog_free(&want_blk);
	if (keep)
		*keep = trace;
	else
		fx_buf_fini(&trace);
}

static void window(struct fx_pt_window *w, const struct fx_insn *t,
		   size_t first, size_t n, enum fx_pt_start start)
{
	fx_pt_window_init(w, t + first, n);
	w->first_idx = first;
	w->start = start;
}

/* Index of the first instruction of @kind in t[from..n), or n. */
static size_t find_kind(const struct fx_insn *t, size_t from, size_t n,
			int kind)
{
	for (; from < n; from++)
		if (t[from].kind == kind)
			return from;
	return n;
}

static size_t count_kind(const struct fx_insn *t, size_t n, int kind)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += t[i].kind == kind;
	return c;
}

/* ------------------------------------------------------------------------
 * The program itself.
 * ---------------------------------------------------------------------- */

/* Every instruction of the hand-assembled program is where objdump says,
 * with the length and the mnemonic we classified it by. */
Test(fx_pt, prog_matches_objdump)
{
	int r;

	sy_test_require_tool("objdump");
	for (r = 0; r < NREGION; r++) {
		char path[4200], cmd[8600], *out = NULL, *line, *save = NULL;
		const char *dir = sy_test_mkdtemp();
		size_t len, seen = 0, i;

		snprintf(path, sizeof(path), "%s/code.bin", dir);
		cr_assert_eq(sy_test_write_file(path, g_prog.code[r],
						g_prog.len[r]), 0);
		snprintf(cmd, sizeof(cmd),
			 "objdump -D -b binary -m i386:x86-64 --insn-width=16 "
			 "--adjust-vma=%#" PRIx64 " '%s'", region_base[r],
			 path);
		cr_assert_eq(sy_test_run(cmd, &out, &len), 0);
		for (line = strtok_r(out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			unsigned long long a;
			const struct pinsn *in;
			char *tab;
			int nbytes = 0;

			if (sscanf(line, " %llx:", &a) != 1 ||
			    !strchr(line, '\t'))
				continue;
			in = prog_lookup(&g_prog, a);
			cr_assert_not_null(in, "objdump insn at %llx is not "
					       "in the program table", a);
			/* "addr:\tbytes\tmnemonic operands" */
			tab = strchr(line, '\t') + 1;
			while (*tab && *tab != '\t') {
				if (*tab == ' ') {
					tab++;
					continue;
				}
				nbytes++;
				tab += 2;
			}
			cr_assert_eq(nbytes, in->size, "size at %llx", a);
			cr_assert(*tab == '\t');
			cr_assert_eq(strncmp(tab + 1, in->mnem,
					     strlen(in->mnem)), 0,
				     "at %llx objdump says '%s', table '%s'",
				     a, tab + 1, in->mnem);
			seen++;
		}
		for (i = 0; i < g_prog.nins; i++)
			if (g_prog.ins[i].pc >= region_base[r] &&
			    g_prog.ins[i].pc < region_base[r] + g_prog.len[r])
				seen--;
		cr_expect_eq(seen, 0, "region %d: instruction count", r);
		free(out);
		sy_test_rmtree(dir);
	}
}

/* The decoder's own classification agrees with ours for every executed
 * instruction (libipt decodes the bytes itself). */
Test(fx_pt, iclass_matches_program)
{
	struct fx_insn *t = walk(&g_prog, 7, 3000);
	struct fx_pt_opts o;
	struct fx_pt_window w;
	struct fx_buf trace;
	struct tlog g = { 0 };
	size_t i, n = 0;

	fx_pt_opts_init(&o);
	window(&w, t, 0, 3000, FX_PT_START_PSB);
	encode(&o, &w, 1, &trace);
	run_insn(&trace, NULL, &g);
	for (i = 0; i < g.n; i++) {
		const struct pinsn *in;
		int want;

		if (g.e[i].item != T_INSN)
			continue;
		in = prog_lookup(&g_prog, g.e[i].ip);
		cr_assert_not_null(in);
		switch (in->kind) {
		case SY_BR_COND: want = ptic_cond_jump; break;
		case SY_BR_JUMP: case SY_BR_IND_JUMP: want = ptic_jump; break;
		case SY_BR_CALL: case SY_BR_IND_CALL: want = ptic_call; break;
		case SY_BR_RET: want = ptic_return; break;
		case SY_BR_SYSCALL: want = ptic_far_call; break;
		default: want = ptic_other; break;
		}
		cr_expect_eq(g.e[i].iclass, want, "iclass at %#" PRIx64,
			     g.e[i].ip);
		n++;
	}
	cr_expect_eq(n, 3000);
	tlog_free(&g);
	fx_buf_fini(&trace);
	free(t);
}

/* ------------------------------------------------------------------------
 * Window starts and ends.
 * ---------------------------------------------------------------------- */

/* PSB+, MODE.exec, TIP.PGE ... FUP + TIP.PGD; syscalls as PGD/PGE. */
Test(fx_pt, psb_window)
{
	struct fx_insn *t = walk(&g_prog, 1, 4000);
	struct fx_pt_opts o;
	struct fx_pt_window w;
	struct fx_buf trace;
	struct pkt_stats ps;

	fx_pt_opts_init(&o);
	window(&w, t, 10, 3000, FX_PT_START_PSB);
	cr_assert(count_kind(t + 10, 3000, SY_BR_SYSCALL) >= 2);
	roundtrip(&o, t, 4000, &w, 1, &trace);
	pkt_scan(&trace, &ps);
	cr_expect_eq(ps.err, 0);
	cr_expect_eq(ps.npsb, 1);
	cr_expect_eq(ps.psb_off[0], 0);
	/* One PGE per start and per syscall return, one PGD per syscall and
	 * at the end; nothing but sext_48 / suppressed IPs. */
	cr_expect_eq(ps.type[ppt_tip_pge],
		     1 + count_kind(t + 10, 3000, SY_BR_SYSCALL));
	cr_expect_eq(ps.type[ppt_tip_pgd],
		     1 + count_kind(t + 10, 3000, SY_BR_SYSCALL));
	cr_expect_eq(ps.ipc[pt_ipc_update_16] + ps.ipc[pt_ipc_update_32], 0);
	cr_expect_eq(ps.tnt8_max <= 6, 1);
	cr_expect_eq(ps.type[ppt_tnt_64], 0);
	fx_buf_fini(&trace);
	free(t);
}

/* A resume usually has no PSB: several windows in one stream, only the
 * first with PSB+, gaps between them, decode in one pass. */
Test(fx_pt, nopsb_windows_one_stream)
{
	struct fx_insn *t = walk(&g_prog, 2, 6000);
	struct fx_pt_opts o;
	struct fx_pt_window w[5];
	struct fx_buf trace;
	struct pkt_stats ps;

	fx_pt_opts_init(&o);
	window(&w[0], t, 0, 700, FX_PT_START_PSB);
	window(&w[1], t, 900, 1000, FX_PT_START_NOPSB);
	window(&w[2], t, 1900, 5, FX_PT_START_NOPSB);	/* adjacent gap 0 */
	window(&w[3], t, 1905, 1200, FX_PT_START_AUTO);
	window(&w[4], t, 4000, 1500, FX_PT_START_NOPSB);
	roundtrip(&o, t, 6000, w, 5, &trace);
	pkt_scan(&trace, &ps);
	cr_expect_eq(ps.npsb, 1, "only the first window has a PSB");
	cr_expect_eq(ps.type[ppt_tip_pge],
		     5 + count_kind(t, 700, SY_BR_SYSCALL) +
			     count_kind(t + 900, 1000, SY_BR_SYSCALL) +
			     count_kind(t + 1900, 1205, SY_BR_SYSCALL) +
			     count_kind(t + 4000, 1500, SY_BR_SYSCALL));
	cr_expect_eq(ps.type[ppt_tip_pge], ps.type[ppt_tip_pgd]);
	fx_buf_fini(&trace);
	free(t);
}

/* Same with return and IP compression, whose decoder state crosses the
 * window boundaries: the PGE of window k is compressed against the FUP of
 * window k-1. */
Test(fx_pt, nopsb_windows_compressed_state)
{
	struct fx_insn *t = walk(&g_prog, 3, 8000);
	struct fx_pt_opts o;
	struct fx_pt_window w[6];
	struct fx_buf trace;
	struct pkt_stats ps;
	size_t k;

	fx_pt_opts_init(&o);
	o.ret_compress = 1;
	o.ip_compress = 1;
	for (k = 0; k < 6; k++)
		window(&w[k], t, 100 + k * 1300, 1100,
		       k ? FX_PT_START_NOPSB : FX_PT_START_PSB);
	roundtrip(&o, t, 8000, w, 6, &trace);
	pkt_scan(&trace, &ps);
	cr_expect_eq(ps.npsb, 1);
	cr_expect_gt(ps.ipc[pt_ipc_update_16], 0);
	fx_buf_fini(&trace);
	free(t);
}

/* A stream whose first window has no PSB: libipt cannot synchronise
 * there (pt_insn_sync_forward skips to the first PSB), so that window is
 * lost and decoding starts with the next PSB window.  Without any PSB the
 * decoder reports nothing (sync_forward: -pte_eos). */
Test(fx_pt, first_window_without_psb_is_skipped)
{
	struct fx_insn *t = walk(&g_prog, 4, 3000);
	struct fx_pt_opts o;
	struct fx_pt_window w[3];
	struct fx_buf trace;
	struct tlog want = { 0 }, g = { 0 };
	struct pt_config cfg;
	struct pt_insn_decoder *dec;

	fx_pt_opts_init(&o);
	window(&w[0], t, 0, 500, FX_PT_START_NOPSB);
	window(&w[1], t, 800, 900, FX_PT_START_PSB);
	window(&w[2], t, 2000, 600, FX_PT_START_NOPSB);
	encode(&o, w, 3, &trace);
	exp_windows(&want, t, 3000, &w[1], 2, 0);
	cr_expect(decode_matches(&trace, &want, NULL));
	tlog_free(&want);
	fx_buf_fini(&trace);

	encode(&o, w, 1, &trace);
	dec_config(&cfg, &trace);
	dec = pt_insn_alloc_decoder(&cfg);
	cr_assert_not_null(dec);
	cr_expect_eq(pt_insn_sync_forward(dec), -pte_eos);
	pt_insn_free_decoder(dec);
	run_blk(&trace, NULL, &g);
	cr_expect_eq(g.n, 0);
	tlog_free(&g);
	fx_buf_fini(&trace);
	free(t);
}

/* FUP + TIP.PGD: async_disabled at the first instruction not executed,
 * for windows ending right after every kind of instruction (the FUP IP is
 * what the pause sample's IP must be). */
Test(fx_pt, fup_pgd_end_ip)
{
	static const int kinds[] = {
		SY_BR_NONE, SY_BR_COND, SY_BR_JUMP, SY_BR_CALL,
		SY_BR_IND_JUMP, SY_BR_IND_CALL, SY_BR_RET,
	};
	struct fx_insn *t = walk(&g_prog, 5, 3000);
	size_t k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct fx_pt_opts o;
		struct fx_pt_window w;
		struct fx_buf trace;
		struct tlog g = { 0 };
		size_t end = find_kind(t, 200, 3000, kinds[k]);

		cr_assert_lt(end, 3000);
		fx_pt_opts_init(&o);
		o.ret_compress = (int)(k & 1);
		window(&w, t, 100, end + 1 - 100, FX_PT_START_PSB);
		roundtrip(&o, t, 3000, &w, 1, &trace);
		/* And explicitly: the last two entries. */
		run_insn(&trace, NULL, &g);
		tlog_core(&g);
		cr_assert_geq(g.n, 2);
		cr_expect_eq(g.e[g.n - 2].item, T_INSN);
		cr_expect_eq(g.e[g.n - 2].ip, t[end].pc);
		cr_expect_eq(g.e[g.n - 1].item, T_EVENT);
		cr_expect_eq(g.e[g.n - 1].type, ptev_async_disabled);
		cr_expect_eq(g.e[g.n - 1].ip, t[end + 1].pc,
			     "kind %d: at %#" PRIx64 " want %#" PRIx64,
			     kinds[k], g.e[g.n - 1].ip, t[end + 1].pc);
		tlog_free(&g);
		fx_buf_fini(&trace);
	}
	/* Both outcomes of a conditional branch as the last instruction. */
	for (k = 0; k < 2; k++) {
		struct fx_pt_opts o;
		struct fx_pt_window w;
		size_t end = 200;

		while (end < 3000 && !(t[end].kind == SY_BR_COND &&
				       fx_insn_taken(&t[end]) == (int)k))
			end++;
		cr_assert_lt(end, 3000);
		fx_pt_opts_init(&o);
		window(&w, t, 150, end + 1 - 150, FX_PT_START_PSB);
		roundtrip(&o, t, 3000, &w, 1, NULL);
	}
	free(t);
}

/* A missed pause: the stream just stops.  libipt reports instructions up
 * to the last one that consumed trace, then pts_eos; calling
 * pt_insn_next again yields the straight-line tail up to the next
 * instruction that needs trace (even beyond the window), then -pte_eos.
 * ptxed-style decoding (stop at pts_eos) loses the tail. */
Test(fx_pt, stream_stops_without_pgd)
{
	struct fx_insn *t = walk(&g_prog, 6, 3000);
	size_t k;

	for (k = 0; k < 40; k++) {
		struct fx_pt_opts o;
		struct fx_pt_window w;
		struct fx_buf trace;
		struct tlog want = { 0 }, g = { 0 };
		struct dec_opts stop = { .stop_at_eos = 1 };
		size_t n = 300 + k, last_tc, next_tc;

		fx_pt_opts_init(&o);
		o.ret_compress = (int)(k & 1);
		window(&w, t, 50, n, FX_PT_START_PSB);
		w.end = FX_PT_END_NONE;
		roundtrip(&o, t, 3000, &w, 1, &trace);

		/* ptxed's way: everything up to the last trace-consuming
		 * instruction, then eos; nothing after. */
		for (last_tc = 50 + n - 1; !needs_trace(&t[last_tc]);
		     last_tc--)
			;
		for (next_tc = last_tc + 1; !needs_trace(&t[next_tc]);
		     next_tc++)
			;
		exp_windows(&want, t, 3000, &w, 1, 0);
		run_insn(&trace, &stop, &g);
		cr_expect_eq(g.e[g.n - 1].item, T_EOS);
		tlog_core(&g);
		want.n -= next_tc - last_tc - 1;
		cr_expect_eq(tlog_cmp(&g, &want, "ptxed-style"), -1);
		tlog_free(&want);
		tlog_free(&g);
		fx_buf_fini(&trace);
	}
	free(t);
}

/* ------------------------------------------------------------------------
 * Branch encodings.
 * ---------------------------------------------------------------------- */

static size_t max_call_depth(const struct fx_insn *t, size_t n)
{
	size_t i, d = 0, m = 0;

	for (i = 0; i < n; i++) {
		if ((t[i].kind == SY_BR_CALL && t[i].next != t[i].pc +
							   t[i].size) ||
		    t[i].kind == SY_BR_IND_CALL)
			d++;
		else if (t[i].kind == SY_BR_RET && d)
			d--;
		if (d > m)
			m = d;
	}
	return m;
}

/* Return compression on and off over the same truth, which recurses past
 * the 64-entry return stack: both decode exactly; with compression most
 * returns become TNT bits (fewer TIPs, counted by libipt's packet
 * decoder). */
Test(fx_pt, ret_compression)
{
	struct fx_insn *t = walk(&g_prog, 8, 20000);
	struct fx_pt_window w;
	struct fx_buf on, off;
	struct pkt_stats pon, poff;
	struct fx_pt_opts o;
	size_t nret = count_kind(t, 20000, SY_BR_RET);
	size_t nind = count_kind(t, 20000, SY_BR_IND_JUMP) +
		      count_kind(t, 20000, SY_BR_IND_CALL);

	cr_assert_gt(max_call_depth(t, 20000), 64 + 2,
		     "the truth should overflow the return stack");
	window(&w, t, 0, 20000, FX_PT_START_PSB);
	fx_pt_opts_init(&o);
	roundtrip(&o, t, 20000, &w, 1, &off);
	o.ret_compress = 1;
	roundtrip(&o, t, 20000, &w, 1, &on);
	pkt_scan(&off, &poff);
	pkt_scan(&on, &pon);
	cr_expect_eq(poff.type[ppt_tip], nret + nind);
	cr_expect_lt(pon.type[ppt_tip], nind + nret / 4,
		     "compressed: %u TIPs for %zu rets", pon.type[ppt_tip],
		     nret);
	cr_expect_lt(on.len, off.len);
	cr_log_info("ret compression: %zu -> %zu bytes", off.len, on.len);
	fx_buf_fini(&on);
	fx_buf_fini(&off);
	free(t);
}

/* IP compression: update_16 within a region, update_32 between 0x401000
 * and 0x452000, sext_48 to 0x7ffff7a12000; all three occur and decode. */
Test(fx_pt, ip_compression)
{
	struct fx_insn *t = walk(&g_prog, 9, 10000);
	struct fx_pt_window w[3];
	struct fx_buf trace, plain;
	struct pkt_stats ps;
	struct fx_pt_opts o;

	window(&w[0], t, 0, 4000, FX_PT_START_PSB);
	window(&w[1], t, 4100, 2000, FX_PT_START_NOPSB);
	window(&w[2], t, 6500, 3000, FX_PT_START_PSB);
	fx_pt_opts_init(&o);
	o.ip_compress = 1;
	roundtrip(&o, t, 10000, w, 3, &trace);
	pkt_scan(&trace, &ps);
	cr_expect_gt(ps.ipc[pt_ipc_update_16], 0);
	cr_expect_gt(ps.ipc[pt_ipc_update_32], 0);
	cr_expect_gt(ps.ipc[pt_ipc_sext_48], 0);
	o.ip_compress = 0;
	roundtrip(&o, t, 10000, w, 3, &plain);
	pkt_scan(&plain, &ps);
	cr_expect_eq(ps.ipc[pt_ipc_update_16] + ps.ipc[pt_ipc_update_32], 0);
	cr_expect_lt(trace.len, plain.len);
	fx_buf_fini(&trace);
	fx_buf_fini(&plain);
	free(t);
}

/* TNT-8 (<= 6 bits) and TNT-64 (up to 47 bits); deep recursion with
 * return compression makes long runs of TNT bits. */
Test(fx_pt, tnt8_and_tnt64)
{
	struct fx_insn *t = walk(&g_prog, 10, 20000);
	struct fx_pt_window w;
	struct fx_buf t8, t64;
	struct pkt_stats p8, p64;
	struct fx_pt_opts o;

	window(&w, t, 0, 20000, FX_PT_START_PSB);
	fx_pt_opts_init(&o);
	o.ret_compress = 1;
	roundtrip(&o, t, 20000, &w, 1, &t8);
	o.tnt = FX_PT_TNT64;
	roundtrip(&o, t, 20000, &w, 1, &t64);
	pkt_scan(&t8, &p8);
	pkt_scan(&t64, &p64);
	cr_expect_eq(p8.type[ppt_tnt_64], 0);
	cr_expect_eq(p8.tnt8_max, 6);
	cr_expect_gt(p64.type[ppt_tnt_64], 0);
	cr_expect_eq(p64.tnt64_max, 47);
	cr_expect_gt(p64.type[ppt_tnt_8], 0, "short runs still use TNT-8");
	fx_buf_fini(&t8);
	fx_buf_fini(&t64);
	free(t);
}

/* ------------------------------------------------------------------------
 * Resync, overflow.
 * ---------------------------------------------------------------------- */

/* Periodic PSB+ (by instructions and by bytes) decodes in one pass, and
 * every PSB is a self-contained sync point: decoding from each PSB offset
 * (pt_insn_sync_set) gives exactly the tail of the truth. */
Test(fx_pt, periodic_psb)
{
	struct fx_insn *t = walk(&g_prog, 11, 6000);
	struct fx_pt_window w[2];
	struct fx_pt_opts o;
	int mode;

	for (mode = 0; mode < 2; mode++) {
		struct fx_buf trace;
		struct pkt_stats ps;
		struct tlog want = { 0 };
		size_t nwant = 0, i;
		unsigned p;

		fx_pt_opts_init(&o);
		o.ret_compress = 1;
		o.ip_compress = 1;
		if (mode)
			o.psb_period_bytes = 96;
		else
			o.psb_period_insns = 7;
		window(&w[0], t, 0, 2500, FX_PT_START_PSB);
		window(&w[1], t, 3000, 2500, FX_PT_START_NOPSB);
		roundtrip(&o, t, 6000, w, 2, &trace);
		pkt_scan(&trace, &ps);
		cr_expect_gt(ps.npsb, mode ? 15u : 600u, "%u PSBs", ps.npsb);
		/* By bytes: a PSB+ once 96 bytes were written since the last,
		 * at the next instruction boundary (one instruction adds at
		 * most a TIP + a TNT); window 2 starts without PSB. */
		for (i = 1; mode && i < ps.npsb && i < 512; i++) {
			uint64_t d = ps.psb_off[i] - ps.psb_off[i - 1];

			cr_expect(d >= 96 && d <= 96 + 48,
				  "PSB spacing %" PRIu64, d);
		}

		exp_windows(&want, t, 6000, w, 2, 0);
		nwant = tlog_count(&want, T_INSN, 0);
		for (p = 1; p < ps.npsb && p < 512; p += 7) {
			struct pt_config cfg;
			struct pt_insn_decoder *dec;
			struct pt_insn insn;
			size_t got = 0, j;
			int st;

			dec_config(&cfg, &trace);
			dec = pt_insn_alloc_decoder(&cfg);
			cr_assert_not_null(dec);
			cr_assert_eq(pt_image_set_callback(
					     pt_insn_get_image(dec), read_mem,
					     &g_prog), 0);
			st = pt_insn_sync_set(dec, ps.psb_off[p]);
			cr_assert_geq(st, 0);
			/* Collect the instructions of this suffix. */
			{
				uint64_t *ips = malloc(nwant * sizeof(*ips));

				cr_assert_not_null(ips);
				for (;;) {
					struct pt_event ev;

					while (st >= 0 &&
					       (st & pts_event_pending))
						st = pt_insn_event(dec, &ev,
								   sizeof(ev));
					if (st < 0)
						break;
					st = pt_insn_next(dec, &insn,
							  sizeof(insn));
					if (st < 0)
						break;
					cr_assert_lt(got, nwant);
					ips[got++] = insn.ip;
				}
				cr_expect_eq(st, -pte_eos);
				cr_assert_gt(got, 0);
				/* got must equal the last @got instructions
				 * of the expected log. */
				j = want.n;
				for (i = got; i-- > 0;) {
					while (want.e[--j].item != T_INSN)
						;
					if (want.e[j].ip != ips[i])
						break;
				}
				cr_expect_eq(i, (size_t)-1,
					     "sync at PSB %u (offset %" PRIu64
					     "): suffix differs at %zu", p,
					     ps.psb_off[p], i);
				free(ips);
			}
			pt_insn_free_decoder(dec);
		}
		tlog_free(&want);
		fx_buf_fini(&trace);
	}
	free(t);
}

/* OVF resumed with FUP (tracing stayed on) and with TIP.PGE (overflow
 * resolved while off), after every kind of instruction, losing 0..3
 * instructions. */
Test(fx_pt, overflow)
{
	struct fx_insn *t = walk(&g_prog, 12, 4000);
	size_t k;

	for (k = 0; k < 48; k++) {
		struct fx_pt_opts o;
		struct fx_pt_window w[2];
		struct fx_buf trace;
		struct pkt_stats ps;

		fx_pt_opts_init(&o);
		o.ret_compress = (int)(k & 1);
		o.ip_compress = (int)((k >> 1) & 1);
		window(&w[0], t, 0, 1000, FX_PT_START_PSB);
		window(&w[1], t, 1500, 2000, FX_PT_START_NOPSB);
		w[1].ovf_after = (int64_t)(100 + k * 13);
		w[1].ovf_lost = k % 4;
		w[1].ovf_pge = (int)((k >> 2) & 1);
		if (w[1].insns[w[1].ovf_after].kind == SY_BR_SYSCALL)
			continue;
		roundtrip(&o, t, 4000, w, 2, &trace);
		pkt_scan(&trace, &ps);
		cr_expect_eq(ps.type[ppt_ovf], 1);
		fx_buf_fini(&trace);
	}
	free(t);
}

/* ------------------------------------------------------------------------
 * Timing.
 * ---------------------------------------------------------------------- */

/* The full expected log (all events but tick) and the time libipt must
 * report after each instruction, for windows without overflow and with
 * END_PGD, encoded with TSC, CBR, a TSC period and an instruction PSB
 * period.  Rules:
 *  - each CBR gives a cbr event; each MODE.exec an exec_mode event at the
 *    IP it binds to (the PGE's, or the FUP's inside PSB+);
 *  - window start / syscall return: cbr, enabled, exec_mode;
 *  - periodic PSB+ before instruction i: exec_mode(pc_i), cbr;
 *  - a TSC sent before instruction i (TNT flushed first) is applied when
 *    libipt fetches the packet after it, i.e. at the first
 *    trace-consuming instruction at or after i (N) - or earlier, right
 *    after the last trace-consuming instruction before i (L), when that
 *    one consumed a TIP (libipt reads ahead after a TIP, not after a
 *    TNT).  So before L the old time is right, from N on the new one, in
 *    [L, N) either.  A TSC sent with an enable is the time of the
 *    enabled event and of every instruction after it.  */
struct tsc_emit {
	size_t p;		/* position of the instruction it precedes */
	size_t l;		/* last trace-consuming position before, or
				 * SIZE_MAX */
	size_t n;		/* first trace-consuming position from p on */
	uint64_t v;
};

struct timed {
	struct tlog x;
	size_t ninsn;
	size_t last_tc;		/* instruction position, or SIZE_MAX */
	struct tsc_emit em[2048];
	size_t nem;
	uint64_t *must, *may;	/* per instruction, after exp_timed_done */
};

static void timed_tsc(struct timed *d, uint64_t tsc, int enable)
{
	struct tsc_emit *e = &d->em[d->nem++];

	cr_assert_leq(d->nem, 2048);
	e->p = d->ninsn;
	e->l = d->last_tc;
	e->n = enable ? d->ninsn : SIZE_MAX;
	e->v = tsc;
}

/* Instruction @q needs trace: it fetches the packets after pending TSCs. */
static void timed_tc(struct timed *d, size_t q)
{
	size_t e;

	for (e = d->nem; e-- > 0 && d->em[e].n == SIZE_MAX;)
		d->em[e].n = q;
	d->last_tc = q;
}

static void exp_timed_done(struct timed *d)
{
	size_t e, q;

	d->must = calloc(d->ninsn + 1, sizeof(*d->must));
	d->may = calloc(d->ninsn + 1, sizeof(*d->may));
	cr_assert(d->must && d->may);
	for (e = 0; e < d->nem; e++) {
		size_t n = d->em[e].n == SIZE_MAX ? d->ninsn : d->em[e].n;
		size_t l = d->em[e].l == SIZE_MAX ? 0 : d->em[e].l;

		for (q = n; q < d->ninsn; q++)
			d->must[q] = d->em[e].v;
		for (q = l; q < n; q++)
			d->may[q] = d->em[e].v;
	}
}

static void exp_timed(struct timed *d, const struct fx_pt_window *w,
		      size_t nw, const struct fx_pt_linear_time *lt,
		      uint64_t tsc_period, uint64_t psb_period, uint8_t cbr)
{
	uint64_t since_psb = 0, since_tsc = 0;
	size_t k, i;

	d->ninsn = 0;
	d->last_tc = SIZE_MAX;
	for (k = 0; k < nw; k++) {
		const struct fx_insn *in = w[k].insns;
		int enabled = 0;

		cr_assert(w[k].start != FX_PT_START_AUTO);
		if (w[k].start == FX_PT_START_PSB)
			since_psb = 0;
		for (i = 0; i < w[k].n; i++) {
			uint64_t tm = lt->ts0 + (w[k].first_idx + i) *
						     lt->cycles;

			if (!enabled) {
				timed_tsc(d, tm, 1);
				since_tsc = 0;
				if (cbr)
					tlog_event(&d->x, ptev_cbr, 0, 0);
				tlog_event(&d->x, ptev_enabled, in[i].pc, 0);
				tlog_event(&d->x, ptev_exec_mode, in[i].pc, 0);
				enabled = 1;
			} else if (psb_period && since_psb >= psb_period) {
				timed_tsc(d, tm, 0);
				since_tsc = 0;
				since_psb = 0;
				tlog_event(&d->x, ptev_exec_mode, in[i].pc, 0);
				if (cbr)
					tlog_event(&d->x, ptev_cbr, 0, 0);
			} else if (tsc_period && since_tsc >= tsc_period) {
				timed_tsc(d, tm, 0);
				since_tsc = 0;
			}
			tlog_insn(&d->x, in[i].pc);
			if (needs_trace(&in[i]))
				timed_tc(d, d->ninsn);
			d->ninsn++;
			since_psb++;
			since_tsc++;
			if (in[i].kind == SY_BR_SYSCALL) {
				tlog_event(&d->x, ptev_disabled, 0, 1);
				enabled = 0;
			}
		}
		if (enabled) {
			tlog_event(&d->x, ptev_async_disabled,
				   in[w[k].n - 1].next, 1);
			d->last_tc = d->ninsn - 1;
		}
	}
	exp_timed_done(d);
}

/* Exact event order with CBR and PSB+ events, TSC on every enabled event,
 * and the time libipt reports after every instruction. */
Test(fx_pt, timing)
{
	struct fx_insn *t = walk(&g_prog, 13, 7000);
	struct fx_pt_linear_time lt = { 0x123456789ull, 3 };
	struct fx_pt_opts o;
	struct fx_pt_window w[3];
	struct fx_buf trace;
	struct timed d;
	struct tlog g = { 0 };
	size_t i, q = 0, nsys, nbad = 0, ne = 0, nen = 0, nexact = 0;

	fx_pt_opts_init(&o);
	o.time_fn = fx_pt_time_linear;
	o.time_ctx = &lt;
	o.cbr = 0x1d;
	o.tsc_period_insns = 10;
	o.psb_period_insns = 97;
	o.ret_compress = 1;
	window(&w[0], t, 10, 2000, FX_PT_START_PSB);
	window(&w[1], t, 2500, 2000, FX_PT_START_NOPSB);
	window(&w[2], t, 4700, 2000, FX_PT_START_NOPSB);
	nsys = count_kind(t + 10, 2000, SY_BR_SYSCALL) +
	       count_kind(t + 2500, 2000, SY_BR_SYSCALL) +
	       count_kind(t + 4700, 2000, SY_BR_SYSCALL);
	cr_assert_geq(nsys, 2);
	roundtrip(&o, t, 7000, w, 3, &trace);

	memset(&d, 0, sizeof(d));
	exp_timed(&d, w, 3, &lt, 10, 97, 0x1d);
	run_insn(&trace, NULL, &g);
	for (i = 0, q = 0; i < g.n; i++) {
		struct tent *e = &g.e[i];

		if (e->item == T_EVENT && e->type == ptev_enabled) {
			/* The enabled event carries the TSC sent with it:
			 * the one emitted for the next instruction. */
			cr_expect(e->has_tsc);
			while (ne < d.nem && d.em[ne].p < q)
				ne++;
			cr_assert_lt(ne, d.nem);
			cr_expect_eq(e->tsc, d.em[ne].v, "enabled before insn "
				     "%zu: tsc %#" PRIx64 " want %#" PRIx64, q,
				     e->tsc, d.em[ne].v);
			nen++;
		}
		if (e->item == T_INSN) {
			cr_assert(e->has_tsc);
			cr_assert_lt(q, d.ninsn);
			if (e->tsc != d.must[q] && e->tsc != d.may[q] &&
			    nbad++ < 5)
				cr_log_error("insn %zu (%#" PRIx64 "): time %#"
					     PRIx64 " want %#" PRIx64
					     " (or %#" PRIx64 ")", q, e->ip,
					     e->tsc, d.must[q], d.may[q]);
			nexact += e->tsc == d.must[q];
			q++;
		}
	}
	cr_expect_eq(nen, 3 + nsys);
	cr_log_info("timing: %zu TSCs, %zu of %zu instructions at the "
		    "certain time", d.nem, nexact, q);
	cr_expect_eq(nbad, 0, "%zu instructions with the wrong time", nbad);
	/* Compare events too (but not the eos marker). */
	for (i = 0, q = 0; i < g.n; i++)
		if (g.e[i].item != T_EOS)
			g.e[q++] = g.e[i];
	g.n = q;
	cr_expect_eq(tlog_cmp(&g, &d.x, "timed"), -1,
		     "event order with CBR/PSB+ differs");
	tlog_free(&g);
	tlog_free(&d.x);
	free(d.must);
	free(d.may);
	fx_buf_fini(&trace);
	free(t);
}

/* Cycle-accurate (cycles_per_insn: CYC packets), read back with libipt's
 * packet decoder: every CYC comes right before a TNT, TIP, FUP, TIP.PGD or
 * PSB, never two in a row, and a window the pause ends (FUP + TIP.PGD)
 * counts exactly its instructions times cycles_per_insn in its CYC
 * payloads, across syscalls, periodic PSB+ and TSC; libipt's instruction
 * and block decoders still decode the stream to the truth.  The same
 * windows without cycles_per_insn have no CYC, and the attr.config says
 * cyc exactly when it is on. */
Test(fx_pt, cycle_accurate)
{
	struct fx_insn *t = walk(&g_prog, 17, 9000);
	struct fx_pt_linear_time lt = { 0x1000, 3 };
	struct fx_pt_opts o;
	struct fx_pt_window w[4];
	struct fx_pt_window_info info[4];
	struct fx_pt_enc enc;
	struct fx_pt_hw hw;
	struct fx_buf trace;
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct pkt_stats ps;
	uint64_t sum[4] = { 0 }, ncyc = 0, off;
	int prev_cyc = 0, st;
	size_t i;

	fx_pt_opts_init(&o);
	o.time_fn = fx_pt_time_linear;
	o.time_ctx = &lt;
	o.cbr = 0x1d;
	o.tsc_period_insns = 23;
	o.psb_period_insns = 301;
	o.ret_compress = 1;
	o.ip_compress = 1;
	window(&w[0], t, 10, 2000, FX_PT_START_PSB);
	window(&w[1], t, 2500, 2000, FX_PT_START_NOPSB);
	window(&w[2], t, 4700, 7, FX_PT_START_NOPSB);
	window(&w[3], t, 5000, 3000, FX_PT_START_AUTO);
	cr_assert_geq(count_kind(t + 10, 2000, SY_BR_SYSCALL), 1);
	encode(&o, w, 4, &trace);
	pkt_scan(&trace, &ps);
	cr_expect_eq(ps.type[ppt_cyc], 0, "no CYC unless asked for");
	fx_buf_fini(&trace);
	fx_pt_hw_init(&hw);
	cr_expect_eq(fx_pt_hw_attr_config(&hw, &o) & FX_PT_CFG_CYC, 0);

	o.cycles_per_insn = 3;
	cr_expect_eq(fx_pt_hw_attr_config(&hw, &o) & FX_PT_CFG_CYC,
		     FX_PT_CFG_CYC);
	roundtrip(&o, t, 9000, w, 4, NULL);
	fx_buf_init(&trace);
	cr_assert_eq(fx_pt_enc_init(&enc, &o, &trace), 0);
	for (i = 0; i < 4; i++)
		cr_assert_eq(fx_pt_enc_window(&enc, &w[i], &info[i]), 0);
	fx_pt_enc_fini(&enc);

	dec_config(&cfg, &trace);
	dec = pt_pkt_alloc_decoder(&cfg);
	cr_assert_not_null(dec);
	cr_assert_eq(pt_pkt_sync_set(dec, 0), 0);
	for (;;) {
		struct pt_packet pkt;

		cr_assert_eq(pt_pkt_get_offset(dec, &off), 0);
		st = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (st == -pte_eos)
			break;
		cr_assert_geq(st, 0, "packet at %" PRIu64 ": %d", off, st);
		if (prev_cyc)
			cr_expect(pkt.type == ppt_tnt_8 ||
				  pkt.type == ppt_tnt_64 ||
				  pkt.type == ppt_tip || pkt.type == ppt_fup ||
				  pkt.type == ppt_tip_pgd ||
				  pkt.type == ppt_psb,
				  "CYC before packet type %d at %" PRIu64,
				  pkt.type, off);
		prev_cyc = pkt.type == ppt_cyc;
		if (pkt.type != ppt_cyc)
			continue;
		cr_expect_gt(pkt.payload.cyc.value, 0);
		ncyc++;
		for (i = 0; i < 4; i++)
			if (off >= info[i].begin && off < info[i].end)
				sum[i] += pkt.payload.cyc.value;
	}
	pt_pkt_free_decoder(dec);
	for (i = 0; i < 4; i++)
		cr_expect_eq(sum[i], (uint64_t)w[i].n * 3,
			     "window %zu: %" PRIu64 " cycles, %zu "
			     "instructions x 3", i, sum[i], w[i].n);
	cr_expect_gt(ncyc, 100);
	fx_buf_fini(&trace);
	free(t);
}

/* ------------------------------------------------------------------------
 * Many windows, every option, several seeds.
 * ---------------------------------------------------------------------- */

Test(fx_pt, random_streams)
{
	uint64_t seed;

	for (seed = 1; seed <= 12; seed++) {
		const size_t nt = 30000;
		struct fx_insn *t = walk(&g_prog, seed * 7919, nt);
		struct fx_pt_linear_time lt = { 1000 * seed, 2 + seed % 5 };
		struct fx_pt_window w[64];
		struct fx_pt_opts o;
		uint64_t rng = seed * 0x9e3779b97f4a7c15ull;
		size_t nw = 0, pos = 0;

		fx_pt_opts_init(&o);
		o.ret_compress = (int)(seed & 1);
		o.ip_compress = (int)((seed >> 1) & 1);
		o.tnt = (seed >> 2) & 1 ? FX_PT_TNT64 : FX_PT_TNT8;
		o.psb_period_bytes = seed % 3 == 0 ? 128 : seed % 3 == 1 ?
							   4096 : 0;
		o.psb_period_insns = seed % 4 == 0 ? 13 : 0;
		if (seed % 2) {
			o.time_fn = fx_pt_time_linear;
			o.time_ctx = &lt;
			o.tsc_period_insns = 50;
			o.cbr = 0x20;
		}
		while (nw < 64) {
			size_t len = 1 + (size_t)(rng_next(&rng) % 3000);
			size_t gap = (size_t)(rng_next(&rng) % 500);

			if (pos + len >= nt - 50)
				break;
			window(&w[nw], t, pos, len,
			       nw ? (enum fx_pt_start)(rng_next(&rng) % 3) :
				    FX_PT_START_PSB);
			if (len > 20 && rng_next(&rng) % 4 == 0) {
				w[nw].ovf_after = (int64_t)(rng_next(&rng) %
							    (len - 10));
				w[nw].ovf_lost = (size_t)(rng_next(&rng) % 5);
				w[nw].ovf_pge = (int)(rng_next(&rng) & 1);
				if (w[nw].insns[w[nw].ovf_after].kind ==
				    SY_BR_SYSCALL)
					w[nw].ovf_after = -1;
			}
			pos += len + gap;
			nw++;
		}
		cr_log_info("seed %" PRIu64 ": %zu windows", seed, nw);
		roundtrip(&o, t, nt, w, nw, NULL);
		free(t);
	}
}

/* ------------------------------------------------------------------------
 * Negative controls: the comparison must be able to fail.
 * ---------------------------------------------------------------------- */

/* One flipped TNT bit: without return compression the k-th TNT bit is
 * the k-th conditional branch, so the decoders follow the truth exactly
 * up to that branch and diverge right after it. */
Test(fx_pt, flipped_tnt_bit_is_detected)
{
	struct fx_insn *t = walk(&g_prog, 14, 3000);
	struct fx_pt_opts o;
	struct fx_pt_window w;
	struct fx_buf trace;
	struct tlog want = { 0 }, g = { 0 };
	size_t i, q, f = 0, ncond = 0, nerr;
	int ret;

	window(&w, t, 0, 3000, FX_PT_START_PSB);
	exp_windows(&want, t, 3000, &w, 1, 0);

	for (ret = 0; ret < 2; ret++) {
		fx_pt_opts_init(&o);
		o.ret_compress = ret;
		w.flip_tnt = -1;
		encode(&o, &w, 1, &trace);
		cr_expect(decode_matches(&trace, &want, NULL),
			  "control without the flip");
		fx_buf_fini(&trace);
		w.flip_tnt = 40;
		encode(&o, &w, 1, &trace);
		cr_expect_not(decode_matches(&trace, &want, NULL),
			      "a flipped TNT bit went unnoticed");
		fx_buf_fini(&trace);
	}

	/* Exactly where, without return compression. */
	for (i = 0; i < 3000; i++)
		if (t[i].kind == SY_BR_COND && ncond++ == 40) {
			f = i;
			break;
		}
	fx_pt_opts_init(&o);
	w.flip_tnt = 40;
	encode(&o, &w, 1, &trace);
	run_insn(&trace, NULL, &g);
	tlog_core(&g);
	for (i = 0, q = 0; i < g.n && g.e[i].item != T_ERROR; i++) {
		if (g.e[i].item != T_INSN)
			continue;
		if (g.e[i].ip != t[q].pc)
			break;
		q++;
	}
	cr_expect_eq(q, f + 1, "first wrong instruction at %zu, the flipped "
		     "branch is %zu", q, f);
	nerr = tlog_count(&g, T_ERROR, 0);
	cr_log_info("flipped TNT bit: diverges after insn %zu; %zu decode "
		    "errors follow", f, nerr);
	tlog_free(&g);
	fx_buf_fini(&trace);
	tlog_free(&want);
	free(t);
}

/* Without MODE.exec the decoder has no execution mode after its sync and
 * cannot decode a single instruction (-pte_bad_insn); once a mode is
 * known, a later window without MODE.exec still decodes (libipt keeps the
 * mode across TIP.PGD). */
Test(fx_pt, missing_mode_exec_fails)
{
	struct fx_insn *t = walk(&g_prog, 15, 3000);
	struct fx_pt_opts o;
	struct fx_pt_window w[2];
	struct fx_buf trace;
	struct tlog want = { 0 }, g = { 0 };
	size_t i;

	fx_pt_opts_init(&o);
	window(&w[0], t, 0, 1000, FX_PT_START_PSB);
	w[0].drop_mode_exec = 1;
	encode(&o, w, 1, &trace);
	exp_windows(&want, t, 3000, w, 1, 0);
	cr_expect_not(decode_matches(&trace, &want, NULL));
	run_insn(&trace, NULL, &g);
	cr_expect_eq(tlog_count(&g, T_INSN, 0), 0);
	for (i = 0; i < g.n && g.e[i].item != T_ERROR; i++)
		;
	cr_assert_lt(i, g.n, "no decode error");
	cr_expect_eq(g.e[i].type, pte_bad_insn, "error %s",
		     pt_errstr((enum pt_error_code)g.e[i].type));
	tlog_free(&g);
	tlog_free(&want);
	fx_buf_fini(&trace);

	w[0].drop_mode_exec = 0;
	window(&w[1], t, 1500, 1000, FX_PT_START_NOPSB);
	w[1].drop_mode_exec = 1;
	roundtrip(&o, t, 3000, w, 2, NULL);
	free(t);
}

/* A stream cut inside the last window: the decoders report a prefix of
 * the truth and then stop (no async_disabled); never a wrong IP. */
Test(fx_pt, truncated_stream)
{
	struct fx_insn *t = walk(&g_prog, 16, 3000);
	size_t cut;

	for (cut = 1; cut < 40; cut += 3) {
		struct fx_pt_opts o;
		struct fx_pt_window w;
		struct fx_buf trace;
		struct tlog want = { 0 }, g = { 0 };
		size_t i, q = 0;

		fx_pt_opts_init(&o);
		o.ret_compress = 1;
		window(&w, t, 0, 2000, FX_PT_START_PSB);
		w.truncate = cut;
		encode(&o, &w, 1, &trace);
		exp_windows(&want, t, 3000, &w, 1, 0);
		cr_expect_not(decode_matches(&trace, &want, NULL));
		run_insn(&trace, NULL, &g);
		tlog_core(&g);
		cr_expect_eq(tlog_count(&g, T_EVENT, ptev_async_disabled), 0);
		for (i = 0; i < g.n; i++) {
			if (g.e[i].item != T_INSN)
				continue;
			/* The tail after the last packet is straight-line
			 * code, so even it is right. */
			cr_expect_eq(g.e[i].ip, t[q].pc, "cut %zu insn %zu",
				     cut, q);
			q++;
		}
		cr_expect_gt(q, 1000);
		tlog_free(&g);
		tlog_free(&want);
		fx_buf_fini(&trace);
	}
	free(t);
}

/* ------------------------------------------------------------------------
 * Decoder configuration and perf metadata.
 * ---------------------------------------------------------------------- */

/* What a perf.data reader derives from AUXTRACE_INFO priv[] and
 * attr.config (as perf's intel-pt.c does) equals fx_pt_hw_pt_config. */
static void cfg_from_priv(const uint64_t *priv, uint64_t attr_config,
			  struct pt_config *cfg)
{
	uint64_t mask = priv[FX_PT_PRIV_MTC_FREQ_BITS];
	unsigned shift = 0;

	while (mask && !(mask & (1ull << shift)))
		shift++;
	cfg->mtc_freq = (uint8_t)((attr_config & mask) >> shift);
	cfg->cpuid_0x15_ebx = (uint32_t)priv[FX_PT_PRIV_TSC_CTC_N];
	cfg->cpuid_0x15_eax = (uint32_t)priv[FX_PT_PRIV_TSC_CTC_D];
	cfg->nom_freq = (uint8_t)priv[FX_PT_PRIV_MAX_NONTURBO_RATIO];
}

Test(fx_pt, decoder_config_and_auxtrace_info)
{
	struct fx_pt_hw hw;
	struct fx_pt_opts o;
	struct pt_config a, b;
	uint64_t priv[FX_PT_PRIV_NR], cfgbits;

	fx_pt_hw_init(&hw);
	fx_pt_opts_init(&o);
	o.ret_compress = 1;
	o.time_fn = fx_pt_time_linear;
	pt_config_init(&a);
	cr_assert_eq(fx_pt_hw_pt_config(&hw, &a), 0);
	cr_expect_eq(a.cpu.vendor, pcv_intel);
	cr_expect_eq(a.cpu.family, 6);
	cr_expect_eq(a.cpu.model, 78);
	cr_expect_eq(a.errata.skd010, 1, "Skylake errata applied");
	cr_expect_eq(a.mtc_freq, 3);
	cr_expect_eq(a.nom_freq, 12);
	cr_expect_eq(a.cpuid_0x15_eax, 2);
	cr_expect_eq(a.cpuid_0x15_ebx, 100);

	memset(priv, 0, sizeof(priv));
	fx_pt_hw_auxtrace_priv(&hw, priv);
	cfgbits = fx_pt_hw_attr_config(&hw, &o);
	/* tsc, branch, pt, mtc_period 3, psb_period 3; noretcomp clear */
	cr_expect_eq(cfgbits, 0x300e401ull, "%#" PRIx64, cfgbits);
	o.ret_compress = 0;
	o.time_fn = NULL;
	cr_expect_eq(fx_pt_hw_attr_config(&hw, &o),
		     0x300e001ull | FX_PT_CFG_NORETCOMP);
	pt_config_init(&b);
	cfg_from_priv(priv, cfgbits, &b);
	cr_expect_eq(b.mtc_freq, a.mtc_freq);
	cr_expect_eq(b.nom_freq, a.nom_freq);
	cr_expect_eq(b.cpuid_0x15_eax, a.cpuid_0x15_eax);
	cr_expect_eq(b.cpuid_0x15_ebx, a.cpuid_0x15_ebx);
}

/* Our priv[] format fields equal those of a real Skylake capture. */
Test(fx_pt, auxtrace_info_matches_real_capture)
{
	const char *path = sy_test_shared_path(
		"fixtures/real/quipper-intel-pt/perf.data.intel_pt-4.14");
	struct fx_pt_hw hw;
	struct fx_pt_opts o;
	uint64_t priv[FX_PT_PRIV_NR], off, end, attr_config;
	uint8_t *d;
	size_t len;
	int k, found = 0;

	sy_test_require_path(path);
	d = sy_test_read_file(path, &len);
	cr_assert_not_null(d);
	cr_assert_geq(len, 104);
	memcpy(&off, d + 24, 8);		/* attrs.offset */
	memcpy(&attr_config, d + off + 8, 8);	/* attr[0].config */
	memcpy(&off, d + 40, 8);		/* data.offset */
	memcpy(&end, d + 48, 8);
	end += off;
	cr_assert_leq(end, len);
	while (off + 8 <= end) {
		uint32_t type;
		uint16_t size;
		uint64_t extra = 0;

		memcpy(&type, d + off, 4);
		memcpy(&size, d + off + 6, 2);
		cr_assert_geq(size, 8);
		if (type == 70) {
			uint64_t real[FX_PT_PRIV_NR];

			cr_assert_geq(size, 16 + 8 * FX_PT_PRIV_NR);
			memcpy(real, d + off + 16, sizeof(real));
			fx_pt_hw_init(&hw);
			memset(priv, 0, sizeof(priv));
			fx_pt_hw_auxtrace_priv(&hw, priv);
			for (k = FX_PT_PRIV_TSC_BIT; k < FX_PT_PRIV_NR; k++)
				if (k != FX_PT_PRIV_HAVE_SCHED_SWITCH &&
				    k != FX_PT_PRIV_SNAPSHOT_MODE)
					cr_expect_eq(priv[k], real[k],
						     "priv[%d] %#" PRIx64
						     " real %#" PRIx64, k,
						     priv[k], real[k]);
			found = 1;
			break;
		}
		if (type == 71)			/* AUXTRACE: payload follows */
			memcpy(&extra, d + off + 8, 8);
		off += size + extra;
	}
	cr_expect(found, "no AUXTRACE_INFO");
	/* The real capture also had MTC on, which we never emit. */
	fx_pt_opts_init(&o);
	o.ret_compress = 1;
	o.time_fn = fx_pt_time_linear;
	cr_expect_eq(fx_pt_hw_attr_config(&hw, &o) | FX_PT_CFG_MTC,
		     attr_config, "%#" PRIx64, attr_config);
	free(d);
}

/* ------------------------------------------------------------------------
 * Error paths.
 * ---------------------------------------------------------------------- */

static uint64_t huge_time(void *ctx, uint64_t idx)
{
	(void)ctx;
	(void)idx;
	return 1ull << 56;
}

Test(fx_pt, invalid_arguments)
{
	struct fx_insn *t = walk(&g_prog, 17, 100);
	struct fx_insn bad = { 0x401000, 0x401002, 2, SY_BR_NR, 0, 0, 0 };
	struct fx_pt_opts o;
	struct fx_pt_window w;
	struct fx_pt_enc e;
	struct fx_buf b;
	uint64_t table[10] = { 0 };

	fx_buf_init(&b);
	fx_pt_opts_init(&o);
	cr_expect_eq(fx_pt_enc_init(NULL, &o, &b), -SY_E_INVALID);
	cr_expect_eq(fx_pt_enc_init(&e, NULL, &b), -SY_E_INVALID);
	cr_expect_eq(fx_pt_enc_init(&e, &o, NULL), -SY_E_INVALID);
	o.tnt = (enum fx_pt_tnt)7;
	cr_expect_eq(fx_pt_enc_init(&e, &o, &b), -SY_E_INVALID);
	fx_pt_opts_init(&o);
	fx_pt_enc_fini(NULL);

	window(&w, t, 0, 0, FX_PT_START_PSB);
	cr_expect_eq(fx_pt_encode(&o, &w, &b, NULL), -SY_E_INVALID);
	window(&w, t, 0, 50, FX_PT_START_PSB);
	w.ovf_after = 49;
	cr_expect_eq(fx_pt_encode(&o, &w, &b, NULL), -SY_E_INVALID);
	w.ovf_after = 40;
	w.ovf_lost = 9;
	cr_expect_eq(fx_pt_encode(&o, &w, &b, NULL), -SY_E_INVALID);
	w.ovf_lost = 8;
	cr_expect_eq(fx_pt_encode(&o, &w, &b, NULL), 0);
	window(&w, t, 0, 50, (enum fx_pt_start)9);
	cr_expect_eq(fx_pt_encode(&o, &w, &b, NULL), -SY_E_INVALID);

	o.time_table = table;
	o.time_table_len = 10;
	window(&w, t, 5, 50, FX_PT_START_PSB);
	o.tsc_period_insns = 4;
	cr_expect_eq(fx_pt_encode(&o, &w, &b, NULL), -SY_E_INVALID,
		     "time index past the table");
	fx_pt_opts_init(&o);
	o.time_fn = huge_time;
	cr_expect_eq(fx_pt_encode(&o, &w, &b, NULL), -SY_E_INVALID,
		     "TSC beyond 56 bits");
	fx_pt_opts_init(&o);
	fx_pt_window_init(&w, &bad, 1);
	cr_expect_eq(fx_pt_encode(&o, &w, &b, NULL), -SY_E_INVALID);
	fx_buf_fini(&b);
	free(t);
}

/* Window info: offsets of the encoded window in the stream (for AUX
 * record writers). */
Test(fx_pt, window_info_offsets)
{
	struct fx_insn *t = walk(&g_prog, 18, 2000);
	struct fx_pt_opts o;
	struct fx_pt_window w[2];
	struct fx_pt_window_info info[2];
	struct fx_pt_enc e;
	struct fx_buf b;
	struct pkt_stats ps;

	fx_buf_init(&b);
	fx_pt_opts_init(&o);
	cr_assert_eq(fx_pt_enc_init(&e, &o, &b), 0);
	window(&w[0], t, 0, 500, FX_PT_START_PSB);
	window(&w[1], t, 700, 500, FX_PT_START_AUTO);
	cr_assert_eq(fx_pt_enc_window(&e, &w[0], &info[0]), 0);
	cr_assert_eq(fx_pt_enc_window(&e, &w[1], &info[1]), 0);
	fx_pt_enc_fini(&e);
	cr_expect_eq(info[0].begin, 0);
	cr_expect_eq(info[0].end, info[1].begin);
	cr_expect_eq(info[1].end, b.len);
	cr_expect_eq(info[0].psb_off, 0);
	cr_expect_eq(info[0].psb_start, 1);
	cr_expect_eq(info[1].psb_start, 0, "AUTO after a PSB: no PSB");
	cr_expect_eq(info[1].psb_off, SIZE_MAX);
	cr_expect_eq(info[0].end_ip, t[500].pc);
	pkt_scan(&b, &ps);
	cr_expect_eq(ps.npsb, info[0].npsb + info[1].npsb);
	fx_buf_fini(&b);
	free(t);
}
