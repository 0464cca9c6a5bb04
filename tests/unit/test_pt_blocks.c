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
