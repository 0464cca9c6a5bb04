/* The PT fast path's block cache (src/decode/pt_blocks.h) against the
 * fixture truth: every instruction the x86-64 fixture programs executed
 * (tests/fixtures/truth/ *-x86_64.truth, recorded from the running
 * program) is measured to its recorded size and classed as its recorded
 * branch kind says libipt classes it; a run from each of them counts the
 * straight-line instructions up to the next branch and ends there;
 * what the walk must not guess (far indirect transfers, the VMX and
 * return forms of the 0F 01 group, MOV CR3, PTWRITE, VMPTRLD, unknown
 * modes, unreadable code) is doubtful, and the rest of those groups is
 * measured as libipt's ptic_other. */
#include <criterion/criterion.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_pt.h"
#include "fx_truth.h"
#include "sy_error.h"

#include "decode/code_cache.h"
#include "decode/pt_blocks.h"

static size_t truth_read(void *ctx, uint32_t ctxid, uint64_t addr,
			 uint8_t *buf, size_t len)
{
	const struct fx_truth *t = ctx;
	size_t n = 0;

	(void)ctxid;
	while (n < len && fx_truth_read_mem(t, addr + n, buf + n, 1) == 0)
		n++;
	return n;
}

static enum pt_insn_class want_class(uint8_t kind)
{
	switch (kind) {
	case SY_BR_COND:
		return ptic_cond_jump;
	case SY_BR_CALL:
	case SY_BR_IND_CALL:
		return ptic_call;
	case SY_BR_JUMP:
	case SY_BR_IND_JUMP:
		return ptic_jump;
	case SY_BR_RET:
		return ptic_return;
	case SY_BR_SYSCALL:
		return ptic_far_call;
	default:
		return ptic_other;
	}
}

static void check_program(const char *name, uint64_t *checked)
{
	char truth[256], elf[256];
	struct sy_code_cache *code = malloc(sizeof(*code));
	struct sy_diag d = { 0 };
	struct fx_truth t;
	struct sy_ptb b;

	snprintf(truth, sizeof(truth), "tests/fixtures/truth/%s.truth", name);
	snprintf(elf, sizeof(elf), "tests/fixtures/programs/bin/%s", name);
	cr_assert_not_null(code);
	cr_assert_eq(fx_truth_load(&t, truth, elf, &d), 0, "%s: %s", name,
		     d.msg);
	sy_code_cache_init(code, truth_read, &t);
	cr_assert_eq(sy_ptb_init(&b, code), 0);
	cr_assert(b.cs_ok, "capstone");
	for (size_t i = 0; i + 1 < t.n; i++) {
		const struct fx_insn *in = &t.insns[i];
		const struct sy_ptb_run *r;
		struct sy_ptb_insn x;
		size_t k;

		struct sy_ptb_insn again;

		cr_assert_eq(sy_ptb_decode(&b, 0, ptem_64bit, in->pc, &x), 0,
			     "%s: %#lx doubtful", name, (unsigned long)in->pc);
		/* the memoized answer is the measured one */
		cr_assert_eq(sy_ptb_decode(&b, 0, ptem_64bit, in->pc, &again),
			     0);
		cr_assert(!memcmp(&x, &again, sizeof(x)), "%s: %#lx memo",
			  name, (unsigned long)in->pc);
		cr_assert_eq(x.size, in->size, "%s: %#lx", name,
			     (unsigned long)in->pc);
		cr_assert_eq(x.iclass, want_class(in->kind), "%s: %#lx", name,
			     (unsigned long)in->pc);
		if (x.direct)
			cr_assert(in->kind == SY_BR_CALL ||
				  in->kind == SY_BR_JUMP);
		/* the run from here: the straight instructions the program
		 * executed next, up to its first branch */
		r = sy_ptb_run(&b, 0, ptem_64bit, in->pc);
		for (k = i; k + 1 < t.n && t.insns[k].kind == SY_BR_NONE &&
			    t.insns[k].next == t.insns[k].pc + t.insns[k].size;
		     k++)
			;
		if (t.insns[k].kind == SY_BR_NONE)
			continue;	/* the recording ended or jumped */
		cr_assert_eq(r->end, SY_PTB_BRANCH, "%s: %#lx", name,
			     (unsigned long)in->pc);
		cr_assert_eq(r->ninsn, k - i + 1, "%s: %#lx", name,
			     (unsigned long)in->pc);
		cr_assert_eq(r->last.ip, t.insns[k].pc);
		(*checked)++;
	}
	sy_ptb_fini(&b);
	free(code);
	fx_truth_fini(&t);
}

Test(pt_blocks, fixture_programs_measured_and_classed_as_recorded,
     .timeout = 120)
{
	static const char *const progs[] = {
		"branchy-x86_64", "deep-x86_64", "dynfx-x86_64",
		"interp-x86_64", "mt-x86_64", "sigjmp-x86_64",
	};
	uint64_t checked = 0;

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		check_program(progs[i], &checked);
	cr_assert_gt(checked, 10000u);
}

static const uint8_t *g_bytes;
static size_t g_len;

static size_t bytes_read(void *ctx, uint32_t ctxid, uint64_t addr,
			 uint8_t *buf, size_t len)
{
	(void)ctx;
	(void)ctxid;
	if (addr < 0x1000 || addr - 0x1000 >= g_len)
		return 0;
	if (len > g_len - (addr - 0x1000))
		len = g_len - (size_t)(addr - 0x1000);
	memcpy(buf, g_bytes + (addr - 0x1000), len);
	return len;
}

/* @bytes at 0x1000 in @mode: sy_ptb_decode's answer. */
static int decode_bytes(const uint8_t *bytes, size_t len, int mode,
			struct sy_ptb_insn *x)
{
	struct sy_code_cache *code = malloc(sizeof(*code));
	struct sy_ptb b;
	int r;

	cr_assert_not_null(code);
	g_bytes = bytes;
	g_len = len;
	sy_code_cache_init(code, bytes_read, NULL);
	cr_assert_eq(sy_ptb_init(&b, code), 0);
	r = sy_ptb_decode(&b, 0, mode, 0x1000, x);
	sy_ptb_fini(&b);
	free(code);
	return r;
}

Test(pt_blocks, what_libipt_may_class_otherwise_is_doubtful)
{
	static const struct {
		uint8_t b[8];
		size_t n;
	} doubt[] = {
		{ { 0xff, 0x18 }, 2 },		/* call far [rax] */
		{ { 0xff, 0x28 }, 2 },		/* jmp far [rax] */
		{ { 0xff, 0xd8 }, 2 },		/* ff /3 mod 3: libipt far */
		{ { 0x0f, 0x01, 0xc1 }, 3 },	/* vmcall */
		{ { 0x0f, 0x01, 0xc2 }, 3 },	/* vmlaunch */
		{ { 0x0f, 0x01, 0xc3 }, 3 },	/* vmresume */
		{ { 0x0f, 0x01, 0xd9 }, 3 },	/* vmmcall: ours a far call */
		{ { 0xf2, 0x0f, 0x01, 0xca }, 4 },	/* erets: later libipt */
		{ { 0xf3, 0x0f, 0x01, 0xec }, 4 },	/* uiret: later libipt */
		{ { 0x0f, 0x01 }, 2 },		/* no byte to class it by */
		{ { 0x0f, 0x22, 0xd8 }, 3 },	/* mov cr3, rax */
		{ { 0xf3, 0x0f, 0xae, 0xe0 }, 4 },	/* ptwrite eax */
		{ { 0xf3, 0x48, 0x0f, 0xae, 0x20 }, 5 },  /* ptwrite [rax] */
		{ { 0xf3, 0x64, 0x0f, 0xae, 0x20 }, 5 },  /* F3 not last */
		{ { 0x0f, 0xae }, 2 },		/* no byte to class it by */
		{ { 0x0f, 0xc7, 0x30 }, 3 },	/* vmptrld [rax] */
		{ { 0xe8, 0x00 }, 2 },		/* call cut short */
	};
	struct sy_ptb_insn x;

	for (size_t i = 0; i < sizeof(doubt) / sizeof(doubt[0]); i++)
		cr_expect_eq(decode_bytes(doubt[i].b, doubt[i].n, ptem_64bit,
					  &x),
			     1, "case %zu", i);
	/* a plain ret in a mode the walk does not model */
	cr_expect_eq(decode_bytes((const uint8_t[]){ 0xc3 }, 1, ptem_16bit,
				  &x),
		     1);
	cr_expect_eq(decode_bytes((const uint8_t[]){ 0xc3 }, 1, ptem_unknown,
				  &x),
		     1);
	/* nothing there */
	cr_expect_eq(decode_bytes(NULL, 0, ptem_64bit, &x), -1);
}

/* The rest of the groups libipt classes by more than their opcode is
 * its ptic_other, measured as any instruction: the walk goes on through
 * them.  Real programs run these all the time (ld.so's lazy binding
 * trampoline saves with XSAVE or XSAVEC; XGETBV in every ld.so's start;
 * fences; CMPXCHG16B), and doubting them gave most of a real gzip's PT to
 * the block decoder (tests/corpus/run checks that none is now). */
Test(pt_blocks, the_rest_of_those_groups_is_other)
{
	static const struct {
		uint8_t b[8];
		size_t n;
	} other[] = {
		{ { 0x0f, 0xae, 0x64, 0x24, 0x40 }, 5 },  /* xsave [rsp+64] */
		{ { 0x48, 0x0f, 0xae, 0x64, 0x24, 0x40 }, 6 },	/* xsave64 */
		{ { 0x0f, 0xae, 0x6c, 0x24, 0x40 }, 5 },  /* xrstor [rsp+64] */
		{ { 0x0f, 0xae, 0xe8 }, 3 },		/* lfence */
		{ { 0x0f, 0xae, 0xf0 }, 3 },		/* mfence */
		{ { 0x0f, 0xae, 0xf8 }, 3 },		/* sfence */
		{ { 0x0f, 0xae, 0x54, 0x24, 0x04 }, 5 },  /* ldmxcsr [rsp+4] */
		{ { 0x0f, 0x01, 0xd0 }, 3 },		/* xgetbv */
		{ { 0x0f, 0x01, 0xf9 }, 3 },		/* rdtscp */
		{ { 0xf0, 0x48, 0x0f, 0xc7, 0x0f }, 5 },  /* lock cmpxchg16b */
		{ { 0x0f, 0xc7, 0x64, 0x24, 0x40 }, 5 },  /* xsavec [rsp+64] */
		{ { 0x0f, 0xc7, 0xf0 }, 3 },		/* rdrand eax (mod 3) */
	};
	struct sy_ptb_insn x;

	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		cr_assert_eq(decode_bytes(other[i].b, other[i].n, ptem_64bit,
					  &x),
			     0, "case %zu", i);
		cr_expect_eq(x.iclass, ptic_other, "case %zu", i);
		cr_expect_eq(x.size, other[i].n, "case %zu", i);
	}
}

Test(pt_blocks, libipt_classes)
{
	struct sy_ptb_insn x;

	/* syscall, sysret, iret, int3, ret imm16: the far classes */
	cr_assert_eq(decode_bytes((const uint8_t[]){ 0x0f, 0x05 }, 2,
				  ptem_64bit, &x), 0);
	cr_expect_eq(x.iclass, ptic_far_call);
	cr_expect_eq(x.size, 2);
	cr_assert_eq(decode_bytes((const uint8_t[]){ 0x48, 0x0f, 0x07 }, 3,
				  ptem_64bit, &x), 0);
	cr_expect_eq(x.iclass, ptic_far_return);
	cr_assert_eq(decode_bytes((const uint8_t[]){ 0xcf }, 1, ptem_64bit,
				  &x), 0);
	cr_expect_eq(x.iclass, ptic_far_return);
	cr_assert_eq(decode_bytes((const uint8_t[]){ 0xcc }, 1, ptem_64bit,
				  &x), 0);
	cr_expect_eq(x.iclass, ptic_far_call);
	cr_assert_eq(decode_bytes((const uint8_t[]){ 0xc2, 0x08, 0x00 }, 3,
				  ptem_64bit, &x), 0);
	cr_expect_eq(x.iclass, ptic_return);
	cr_expect_eq(x.size, 3);
	/* loop, jrcxz: conditional; a direct call to the next instruction */
	cr_assert_eq(decode_bytes((const uint8_t[]){ 0xe2, 0xfe }, 2,
				  ptem_64bit, &x), 0);
	cr_expect_eq(x.iclass, ptic_cond_jump);
	cr_expect_eq(x.target, 0x1000);
	cr_assert_eq(decode_bytes((const uint8_t[]){ 0xe8, 0, 0, 0, 0 }, 5,
				  ptem_64bit, &x), 0);
	cr_expect_eq(x.iclass, ptic_call);
	cr_expect(x.direct && x.zero_disp);
	/* 32-bit: a near call and its target */
	cr_assert_eq(decode_bytes((const uint8_t[]){ 0xe8, 0x10, 0, 0, 0 }, 5,
				  ptem_32bit, &x), 0);
	cr_expect_eq(x.iclass, ptic_call);
	cr_expect_eq(x.target, 0x1015);
	/* 32-bit inc eax (a REX prefix in 64-bit mode) then ret */
	cr_assert_eq(decode_bytes((const uint8_t[]){ 0x40, 0xc3 }, 2,
				  ptem_32bit, &x), 0);
	cr_expect_eq(x.iclass, ptic_other);
	cr_expect_eq(x.size, 1);
	/* a VEX instruction is not a branch */
	cr_assert_eq(decode_bytes((const uint8_t[]){ 0xc5, 0xf8, 0x77 }, 3,
				  ptem_64bit, &x), 0);
	cr_expect_eq(x.iclass, ptic_other);
	cr_expect_eq(x.size, 3);
}

/* A memoized instruction stands until the cache is cleared (the owner
 * clears it with the code cache, when other code may be mapped), and is
 * kept apart per execution mode and context. */
Test(pt_blocks, memo_forgotten_at_clear_and_keyed_by_mode_and_context)
{
	static const uint8_t ret[] = { 0xc3 };
	static const uint8_t call[] = { 0xe8, 0x10, 0x00, 0x00, 0x00 };
	static const uint8_t sysret[] = { 0x48, 0x0f, 0x07 };
	struct sy_code_cache *code = malloc(sizeof(*code));
	struct sy_ptb_insn x;
	struct sy_ptb b;

	cr_assert_not_null(code);
	g_bytes = ret;
	g_len = sizeof(ret);
	sy_code_cache_init(code, bytes_read, NULL);
	cr_assert_eq(sy_ptb_init(&b, code), 0);
	cr_assert_eq(sy_ptb_decode(&b, 0, ptem_64bit, 0x1000, &x), 0);
	cr_assert_eq(x.iclass, ptic_return);
	/* other bytes mapped there: read afresh only after the clears */
	g_bytes = call;
	g_len = sizeof(call);
	sy_code_cache_clear(code);
	sy_ptb_clear(&b);
	cr_assert_eq(sy_ptb_decode(&b, 0, ptem_64bit, 0x1000, &x), 0);
	cr_expect_eq(x.iclass, ptic_call);
	cr_expect_eq(x.size, 5);
	cr_expect_eq(x.target, 0x1015);
	/* the same bytes in another mode and context */
	g_bytes = sysret;
	g_len = sizeof(sysret);
	sy_code_cache_clear(code);
	sy_ptb_clear(&b);
	cr_assert_eq(sy_ptb_decode(&b, 7, ptem_64bit, 0x1000, &x), 0);
	cr_expect_eq(x.iclass, ptic_far_return);
	cr_expect_eq(x.size, 3);
	cr_assert_eq(sy_ptb_decode(&b, 7, ptem_32bit, 0x1000, &x), 0);
	cr_expect_eq(x.iclass, ptic_other);	/* dec eax */
	cr_expect_eq(x.size, 1);
	cr_assert_eq(sy_ptb_decode(&b, 7, ptem_16bit, 0x1000, &x), 1);
	sy_ptb_fini(&b);
	free(code);
}

/* Context 7 reads a ret at 0x1000, any other a call. */
static size_t ctx_read(void *ctx, uint32_t ctxid, uint64_t addr,
		       uint8_t *buf, size_t len)
{
	static const uint8_t ret[] = { 0xc3 };
	static const uint8_t call[] = { 0xe8, 0x10, 0x00, 0x00, 0x00 };

	(void)ctx;
	g_bytes = ctxid == 7 ? ret : call;
	g_len = ctxid == 7 ? sizeof(ret) : sizeof(call);
	return bytes_read(NULL, ctxid, addr, buf, len);
}

Test(pt_blocks, memo_keeps_contexts_apart)
{
	struct sy_code_cache *code = malloc(sizeof(*code));
	struct sy_ptb_insn x;
	struct sy_ptb b;

	cr_assert_not_null(code);
	sy_code_cache_init(code, ctx_read, NULL);
	cr_assert_eq(sy_ptb_init(&b, code), 0);
	/* 7 and 7 + 4096 share a memo slot */
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(sy_ptb_decode(&b, 7, ptem_64bit, 0x1000, &x), 0);
		cr_expect_eq(x.iclass, ptic_return);
		cr_assert_eq(sy_ptb_decode(&b, 7 + 4096, ptem_64bit, 0x1000,
					   &x), 0);
		cr_expect_eq(x.iclass, ptic_call);
	}
	sy_ptb_fini(&b);
	free(code);
}

/* --- libipt itself as the oracle -------------------------------------------
 *
 * libipt 2.0.5 exports no length decoder, but its instruction decoder
 * hands out each instruction, with its size and class, before it reads
 * the trace that says where the next one is: a trace that enables
 * tracing at 0x1000 in 64-bit mode (PSB, PSBEND, MODE.exec, TIP.PGE) and
 * an image of @bytes there give libipt's answer for the first
 * instruction. */

static const uint8_t *o_bytes;
static size_t o_len;

static int oracle_read(uint8_t *buf, size_t size, const struct pt_asid *asid,
		       uint64_t ip, void *ctx)
{
	(void)asid;
	(void)ctx;
	if (ip < 0x1000 || ip - 0x1000 >= o_len)
		return -pte_nomap;
	if (size > o_len - (ip - 0x1000))
		size = o_len - (size_t)(ip - 0x1000);
	memcpy(buf, o_bytes + (ip - 0x1000), size);
	return (int)size;
}

/* libipt's class and size of the instruction @bytes at 0x1000 in @mode:
 * 0, or libipt's error. */
static int libipt_insn(const uint8_t *bytes, size_t len, enum pt_exec_mode mode,
		       struct pt_insn *insn)
{
	static uint8_t trace[64];
	struct pt_config cfg;
	struct pt_encoder *enc;
	struct pt_insn_decoder *dec;
	struct pt_image *image;
	struct pt_event ev;
	uint64_t tlen;
	int st;

	enc = fx_pt_head(trace, sizeof(trace), mode, 0x1000);
	cr_assert_not_null(enc);
	cr_assert_eq(pt_enc_get_offset(enc, &tlen), 0);
	pt_free_encoder(enc);
	pt_config_init(&cfg);
	cfg.begin = trace;
	cfg.end = trace + tlen;
	o_bytes = bytes;
	o_len = len;
	dec = pt_insn_alloc_decoder(&cfg);
	image = pt_image_alloc(NULL);
	cr_assert(dec && image);
	cr_assert_eq(pt_image_set_callback(image, oracle_read, NULL), 0);
	cr_assert_eq(pt_insn_set_image(dec, image), 0);
	st = pt_insn_sync_forward(dec);
	while (st >= 0 && (st & pts_event_pending))
		st = pt_insn_event(dec, &ev, sizeof(ev));
	cr_assert_geq(st, 0, "libipt: %s", pt_errstr(pt_errcode(st)));
	memset(insn, 0, sizeof(*insn));
	/* (what follows the instruction needs trace there is not: only the
	 * instruction is asked for, which libipt hands out first) */
	st = pt_insn_next(dec, insn, sizeof(*insn));
	pt_insn_free_decoder(dec);
	pt_image_free(image);
	return insn->size ? 0 : st;
}

/* One block cache for many instructions at 0x1000 (bytes_read's),
 * emptied before each. */
struct sweep {
	struct sy_code_cache *code;
	struct sy_ptb b;
	unsigned compared, doubtful;
};

/* @b (@n bytes) in @mode: measured as libipt measures it, or doubtful. */
static void sweep_one(struct sweep *w, const uint8_t *b, size_t n,
		      enum pt_exec_mode mode, const char *what, unsigned a,
		      unsigned c)
{
	struct sy_ptb_insn x;
	struct pt_insn want;

	g_bytes = b;
	g_len = n;
	sy_code_cache_clear(w->code);
	sy_ptb_clear(&w->b);
	if (sy_ptb_decode(&w->b, 0, mode, 0x1000, &x)) {
		w->doubtful++;
		return;
	}
	cr_assert_eq(libipt_insn(b, n, mode, &want), 0,
		     "%d-bit %s %#x, %#x: walked, libipt cannot decode it",
		     mode == ptem_64bit ? 64 : 32, what, a, c);
	cr_assert_eq(x.size, want.size,
		     "%d-bit %s %#x, %#x: size %u, libipt's %u",
		     mode == ptem_64bit ? 64 : 32, what, a, c, x.size,
		     want.size);
	cr_assert_eq(x.iclass, want.iclass,
		     "%d-bit %s %#x, %#x: class %u, libipt's %u",
		     mode == ptem_64bit ? 64 : 32, what, a, c, x.iclass,
		     (unsigned)want.iclass);
	w->compared++;
}

/* Every instruction the walk measures (not doubtful) has libipt's own
 * size and class: every one- and two-byte opcode with every ModRM byte
 * (then a SIB byte for base rsp and a displacement of zeros), in 64-bit
 * mode under each prefix libipt's length decoder notes (66h, F3h, F2h,
 * REX.W, a segment, LOCK, and 66h before and after F3h or F2h), in 32-bit
 * mode under 66h, F3h and F2h.  A doubtful one is safe (the block decoder
 * takes the window); one measured otherwise than libipt measures it would
 * make the fast path walk other instructions than libipt's block decoder.
 * Found this way, all outside what Intel CPUs run: VIA PadLock (0F A6,
 * 0F A7), AMD SSE4a with immediates (66 / F2 0F 78) and PUSH imm16 after
 * 66h and a REP prefix, where capstone and libipt measure other lengths. */
Test(pt_blocks, measured_as_libipt_measures, .timeout = 600)
{
	static const uint8_t pre64[][4] = {
		{ 0 }, { 1, 0x66 }, { 1, 0xf3 }, { 1, 0xf2 },
		{ 2, 0xf3, 0x66 }, { 2, 0x66, 0xf3 }, { 2, 0xf2, 0x66 },
		{ 2, 0x66, 0xf2 }, { 1, 0x48 }, { 2, 0xf3, 0x48 },
		{ 2, 0x66, 0x48 }, { 2, 0xf2, 0x48 }, { 1, 0x64 },
		{ 2, 0xf3, 0x64 }, { 1, 0xf0 }, { 3, 0x66, 0xf3, 0x48 },
	};
	static const uint8_t pre32[][4] = {
		{ 0 }, { 1, 0x66 }, { 1, 0xf3 }, { 1, 0xf2 },
		{ 2, 0x66, 0xf3 }, { 2, 0xf3, 0x66 },
	};
	struct sweep w;
	uint8_t b[16];

	memset(&w, 0, sizeof(w));
	w.code = malloc(sizeof(*w.code));
	cr_assert_not_null(w.code);
	sy_code_cache_init(w.code, bytes_read, NULL);
	cr_assert_eq(sy_ptb_init(&w.b, w.code), 0);
	for (int m = 0; m < 2; m++) {
		enum pt_exec_mode mode = m ? ptem_32bit : ptem_64bit;
		const uint8_t(*pre)[4] = m ? pre32 : pre64;
		size_t npre = m ? sizeof(pre32) / sizeof(pre32[0]) :
				  sizeof(pre64) / sizeof(pre64[0]);

		for (size_t p = 0; p < npre; p++)
			for (unsigned op = 0; op < 512; op++)
				for (unsigned k = 0; k < 256; k++) {
					size_t n = 0;

					for (unsigned i = 0; i < pre[p][0]; i++)
						b[n++] = pre[p][1 + i];
					if (op >= 256)
						b[n++] = 0x0f;
					b[n++] = (uint8_t)op;
					b[n++] = (uint8_t)k;
					b[n++] = 0x24;
					while (n < 15)
						b[n++] = 0;
					sweep_one(&w, b, n, mode, "prefixes",
						  (unsigned)p,
						  op << 8 | k);
				}
	}
	sy_ptb_fini(&w.b);
	free(w.code);
	cr_log_info("%u measured as libipt does, %u doubtful", w.compared,
		    w.doubtful);
	cr_assert_gt(w.compared, 1000000u);
}
