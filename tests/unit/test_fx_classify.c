/* Tests for the fixture-side instruction classifier (fx_classify.h).
 *
 * Oracles, none of them the code under test:
 *   - encodings from the Arm ARM and the Intel SDM, every one also checked
 *     once against GNU as 2.40 (`aarch64-linux-gnu-as -march=armv8.3-a`,
 *     `as`) when this file was written;
 *   - capstone 4 itself for the A64 branch-register words it can decode,
 *     against the by-encoding fallback that handles the ones it cannot;
 *   - binutils objdump for every instruction of the x86-64 fixture binary
 *     (size and branch kind from the mnemonic);
 *   - readelf for build-ids and symbols; the fixture sources for the first
 *     instruction of _start.
 */
#include <capstone/capstone.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_classify.h"
#include "sy_bytes.h"
#include "sy_error.h"
#include "sy_test.h"

#define BIN_DIR "tests/fixtures/programs/bin/"
#define VA 0x1000u

static const char *const programs[] = {
	"branchy-x86_64", "branchy-aarch64", "branchy-aarch64-pac",
	"branchy-aarch64-pie",
};
#define NPROGRAMS (sizeof(programs) / sizeof(programs[0]))

static const char *bin_path(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), BIN_DIR "%s", name);
	return buf;
}

struct a64_case {
	uint32_t w;
	enum sy_branch_kind kind;
	int has_target;
	uint64_t target;	/* at VA */
	const char *text;
};

/* Encodings: Arm ARM A64 index; each word confirmed with GNU as. */
static const struct a64_case a64_cases[] = {
	{ 0x54000041, SY_BR_COND, 1, VA + 8, "b.ne .+8" },
	{ 0x54ffffe0, SY_BR_COND, 1, VA - 4, "b.eq .-4" },
	{ 0xb4000040, SY_BR_COND, 1, VA + 8, "cbz x0, .+8" },
	{ 0x35000060, SY_BR_COND, 1, VA + 12, "cbnz w0, .+12" },
	{ 0x37280043, SY_BR_COND, 1, VA + 8, "tbnz w3, #5, .+8" },
	{ 0x36000040, SY_BR_COND, 1, VA + 8, "tbz w0, #0, .+8" },
	{ 0x5400004e, SY_BR_JUMP, 1, VA + 8, "b.al .+8" },
	{ 0x14000002, SY_BR_JUMP, 1, VA + 8, "b .+8" },
	{ 0x17ffffff, SY_BR_JUMP, 1, VA - 4, "b .-4" },
	{ 0x94000002, SY_BR_CALL, 1, VA + 8, "bl .+8" },
	{ 0xd61f0000, SY_BR_IND_JUMP, 0, 0, "br x0" },
	{ 0xd63f0020, SY_BR_IND_CALL, 0, 0, "blr x1" },
	{ 0xd65f03c0, SY_BR_RET, 0, 0, "ret" },
	{ 0xd65f0020, SY_BR_RET, 0, 0, "ret x1" },
	{ 0xd65f0bff, SY_BR_RET, 0, 0, "retaa" },
	{ 0xd65f0fff, SY_BR_RET, 0, 0, "retab" },
	{ 0xd71f0822, SY_BR_IND_JUMP, 0, 0, "braa x1, x2" },
	{ 0xd71f0c22, SY_BR_IND_JUMP, 0, 0, "brab x1, x2" },
	{ 0xd61f083f, SY_BR_IND_JUMP, 0, 0, "braaz x1" },
	{ 0xd61f0c3f, SY_BR_IND_JUMP, 0, 0, "brabz x1" },
	{ 0xd73f0822, SY_BR_IND_CALL, 0, 0, "blraa x1, x2" },
	{ 0xd73f0c22, SY_BR_IND_CALL, 0, 0, "blrab x1, x2" },
	{ 0xd63f083f, SY_BR_IND_CALL, 0, 0, "blraaz x1" },
	{ 0xd63f0c3f, SY_BR_IND_CALL, 0, 0, "blrabz x1" },
	{ 0xd69f03e0, SY_BR_ERET, 0, 0, "eret" },
	{ 0xd69f0bff, SY_BR_ERET, 0, 0, "eretaa" },
	{ 0xd69f0fff, SY_BR_ERET, 0, 0, "eretab" },
	{ 0xd6bf03e0, SY_BR_ERET, 0, 0, "drps" },
	{ 0xd4000001, SY_BR_SYSCALL, 0, 0, "svc #0" },
	{ 0xd4000002, SY_BR_SYSCALL, 0, 0, "hvc #0" },
	{ 0xd4000003, SY_BR_SYSCALL, 0, 0, "smc #0" },
	{ 0xd503233f, SY_BR_NONE, 0, 0, "paciasp" },
	{ 0xd50323bf, SY_BR_NONE, 0, 0, "autiasp" },
	{ 0xd503201f, SY_BR_NONE, 0, 0, "nop" },
	{ 0x8b020020, SY_BR_NONE, 0, 0, "add x0, x1, x2" },
	{ 0xa9bf7bfd, SY_BR_NONE, 0, 0, "stp x29, x30, [sp, #-16]!" },
	{ 0x2518e3e0, SY_BR_NONE, 0, 0, "ptrue p0.b (SVE)" },
	{ 0x9adf1020, SY_BR_NONE, 0, 0, "irg x0, x1 (MTE)" },
};

/* Words of the branch-register class that are unallocated. */
static const uint32_t a64_bad[] = {
	0xd67f03e0,	/* opc 0011 */
	0xd6ff03e0,	/* opc 0111 */
	0xd61e0000,	/* op2 != 11111 */
	0xd65f07ff,	/* RET with op3 000001 */
	0xd69f0000,	/* ERET with Rn != 31 */
	0xd71f0022,	/* BRAA opc with op3 000000 */
	0xd61f0820,	/* BRAAZ form with op4 != 11111 */
};

Test(fx_classify, a64_known_encodings)
{
	struct fx_classifier *c;
	size_t i;

	cr_assert_eq(fx_classifier_new(&c, FX_EM_AARCH64), 0);
	for (i = 0; i < sizeof(a64_cases) / sizeof(a64_cases[0]); i++) {
		const struct a64_case *k = &a64_cases[i];
		struct fx_class cl;
		uint8_t b[4];

		sy_put32(b, k->w);
		cr_assert_eq(fx_classify_insn(c, b, 4, VA, &cl), 0, "%s", k->text);
		cr_expect_eq(cl.kind, k->kind, "%s: kind %s, want %s", k->text,
			     sy_branch_kind_name(cl.kind),
			     sy_branch_kind_name(k->kind));
		cr_expect_eq(cl.size, 4, "%s", k->text);
		cr_expect_eq(cl.has_target, k->has_target, "%s", k->text);
		if (k->has_target)
			cr_expect_eq(cl.target, k->target, "%s: target %#llx",
				     k->text, (unsigned long long)cl.target);
	}
	for (i = 0; i < sizeof(a64_bad) / sizeof(a64_bad[0]); i++) {
		struct fx_class cl;
		uint8_t b[4];

		sy_put32(b, a64_bad[i]);
		cr_expect_eq(fx_classify_insn(c, b, 4, VA, &cl), -SY_E_DECODE,
			     "%08x must not classify", a64_bad[i]);
	}
	fx_classifier_free(c);
}

/* The PAuth words really take the fallback path: capstone 4 rejects them.
 * If a newer capstone decodes them, this test says so (and the fallback
 * is then merely unused, not wrong). */
Test(fx_classify, a64_pauth_needs_fallback)
{
	static const uint32_t pauth[] = { 0xd65f0bff, 0xd71f0822, 0xd73f0822,
					  0xd69f0bff };
	csh cs;
	cs_insn *in;
	size_t i;

	cr_assert_eq(cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs), CS_ERR_OK);
	for (i = 0; i < sizeof(pauth) / sizeof(pauth[0]); i++) {
		uint8_t b[4];
		size_t n;

		sy_put32(b, pauth[i]);
		n = cs_disasm(cs, b, 4, VA, 1, &in);
		if (n)
			cs_free(in, n);
		cr_expect_eq(n, 0, "capstone now decodes %08x", pauth[i]);
	}
	cs_close(&cs);
}

/* The by-encoding decoder against capstone over a sweep of the whole
 * branch-register class: wherever capstone decodes a word, both must
 * agree on the kind; wherever capstone gives up, the fallback may only
 * accept the PAuth forms (op3 = 0b00001x). */
Test(fx_classify, a64_brreg_agrees_with_capstone)
{
	static const unsigned rns[] = { 0, 1, 29, 30, 31 };
	static const unsigned op4s[] = { 0, 1, 2, 30, 31 };
	struct fx_classifier *c;
	unsigned opc, op3, r, o, op2;
	size_t agreed = 0, pauth = 0;

	cr_assert_eq(fx_classifier_new(&c, FX_EM_AARCH64), 0);
	for (op2 = 0x1e; op2 <= 0x1f; op2++)
	for (opc = 0; opc < 16; opc++)
	for (op3 = 0; op3 < 64; op3++)
	for (r = 0; r < 5; r++)
	for (o = 0; o < 5; o++) {
		uint32_t w = 0xd6000000u | opc << 21 | op2 << 16 | op3 << 10 |
			     rns[r] << 5 | op4s[o];
		struct fx_class viacs, enc;
		uint8_t b[4];
		int e1, e2;

		sy_put32(b, w);
		e1 = fx_classify_insn(c, b, 4, VA, &viacs);
		e2 = fx_classify_a64_brreg(w, &enc);
		if (e2 == 0 && (op3 & 0x3e) == 0x02) {
			pauth++;
			continue;	/* capstone cannot judge these */
		}
		if (e1 == 0 && e2 == 0) {
			cr_expect_eq(viacs.kind, enc.kind, "%08x", w);
			agreed++;
		} else {
			/* both reject, or capstone accepts what the
			 * encoding table calls unallocated: report */
			cr_expect_eq(e2 == 0, e1 == 0, "%08x: fallback %d, classify %d",
				     w, e2, e1);
		}
	}
	/* BR/BLR/RET over 5 Rn each, ERET and DRPS */
	cr_expect_geq(agreed, 17, "only %zu words cross-checked", agreed);
	cr_expect_gt(pauth, 0);
	fx_classifier_free(c);
}

struct x86_case {
	const char *bytes;
	unsigned len;
	enum sy_branch_kind kind;
	int has_target;
	uint64_t target;
	const char *text;
};

/* Encodings: Intel SDM vol. 2; each confirmed with GNU as / objdump. */
static const struct x86_case x86_cases[] = {
	{ "\xe2\xfe", 2, SY_BR_COND, 1, VA, "loop ." },
	{ "\xe1\x10", 2, SY_BR_COND, 1, VA + 0x12, "loope .+0x12" },
	{ "\xe0\x00", 2, SY_BR_COND, 1, VA + 2, "loopne .+2" },
	{ "\xe3\x05", 2, SY_BR_COND, 1, VA + 7, "jrcxz .+7" },
	{ "\x67\xe3\x00", 3, SY_BR_COND, 1, VA + 3, "jecxz .+3" },
	{ "\x74\x00", 2, SY_BR_COND, 1, VA + 2, "je .+2" },
	{ "\x0f\x84\xf0\xff\xff\xff", 6, SY_BR_COND, 1, VA + 6 - 0x10, "je .-10" },
	{ "\x7f\x04", 2, SY_BR_COND, 1, VA + 6, "jg .+6" },
	{ "\xeb\x03", 2, SY_BR_JUMP, 1, VA + 5, "jmp .+5" },
	{ "\xe9\x10\x00\x00\x00", 5, SY_BR_JUMP, 1, VA + 0x15, "jmp rel32" },
	{ "\xe8\x00\x00\x00\x00", 5, SY_BR_CALL, 1, VA + 5, "call .+5" },
	{ "\xe8\xfb\xff\xff\xff", 5, SY_BR_CALL, 1, VA, "call ." },
	{ "\xff\xd0", 2, SY_BR_IND_CALL, 0, 0, "call *%rax" },
	{ "\xff\x53\x08", 3, SY_BR_IND_CALL, 0, 0, "call *0x8(%rbx)" },
	{ "\xff\x15\x00\x00\x00\x00", 6, SY_BR_IND_CALL, 0, 0, "call *0(%rip)" },
	{ "\xff\xe0", 2, SY_BR_IND_JUMP, 0, 0, "jmp *%rax" },
	{ "\xff\x24\xc5\x00\x10\x40\x00", 7, SY_BR_IND_JUMP, 0, 0,
	  "jmp *0x401000(,%rax,8) (jump table)" },
	{ "\x3e\xff\xe0", 3, SY_BR_IND_JUMP, 0, 0, "notrack jmp *%rax" },
	{ "\xc3", 1, SY_BR_RET, 0, 0, "ret" },
	{ "\xc2\x08\x00", 3, SY_BR_RET, 0, 0, "ret $8" },
	{ "\xf3\xc3", 2, SY_BR_RET, 0, 0, "repz ret" },
	{ "\xcb", 1, SY_BR_RET, 0, 0, "lret" },
	{ "\x0f\x05", 2, SY_BR_SYSCALL, 0, 0, "syscall" },
	{ "\x0f\x34", 2, SY_BR_SYSCALL, 0, 0, "sysenter" },
	{ "\xcd\x80", 2, SY_BR_SYSCALL, 0, 0, "int $0x80" },
	{ "\xcc", 1, SY_BR_SYSCALL, 0, 0, "int3" },
	{ "\x48\x0f\x07", 3, SY_BR_ERET, 0, 0, "sysretq" },
	{ "\x48\xcf", 2, SY_BR_ERET, 0, 0, "iretq" },
	{ "\x90", 1, SY_BR_NONE, 0, 0, "nop" },
	{ "\x55", 1, SY_BR_NONE, 0, 0, "push %rbp" },
	{ "\x48\x89\xe5", 3, SY_BR_NONE, 0, 0, "mov %rsp,%rbp" },
	{ "\x66\x2e\x0f\x1f\x84\x00\x00\x00\x00\x00", 10, SY_BR_NONE, 0, 0,
	  "cs nopw 0x0(%rax,%rax,1)" },
};

Test(fx_classify, x86_known_encodings)
{
	struct fx_classifier *c;
	size_t i;

	cr_assert_eq(fx_classifier_new(&c, FX_EM_X86_64), 0);
	for (i = 0; i < sizeof(x86_cases) / sizeof(x86_cases[0]); i++) {
		const struct x86_case *k = &x86_cases[i];
		uint8_t buf[16];
		struct fx_class cl;

		/* Trailing bytes after the instruction must not matter. */
		memset(buf, 0x90, sizeof(buf));
		memcpy(buf, k->bytes, k->len);
		cr_assert_eq(fx_classify_insn(c, buf, sizeof(buf), VA, &cl), 0,
			     "%s", k->text);
		cr_expect_eq(cl.kind, k->kind, "%s: kind %s, want %s", k->text,
			     sy_branch_kind_name(cl.kind),
			     sy_branch_kind_name(k->kind));
		cr_expect_eq(cl.size, k->len, "%s: size %u", k->text, cl.size);
		cr_expect_eq(cl.has_target, k->has_target, "%s", k->text);
		if (k->has_target)
			cr_expect_eq(cl.target, k->target, "%s: target %#llx",
				     k->text, (unsigned long long)cl.target);
	}
	fx_classifier_free(c);
}

Test(fx_classify, truncated_and_invalid)
{
	struct fx_classifier *c, *a;
	struct fx_class cl;
	const uint8_t call[] = { 0xe8, 0x00, 0x00 };
	const uint8_t ret[] = { 0xc0, 0x03, 0x5f, 0xd6 };

	cr_assert_eq(fx_classifier_new(&c, FX_EM_X86_64), 0);
	cr_assert_eq(fx_classifier_new(&a, FX_EM_AARCH64), 0);
	cr_expect_eq(fx_classify_insn(c, call, sizeof(call), VA, &cl),
		     -SY_E_DECODE, "call rel32 cut after 3 bytes");
	cr_expect_eq(fx_classify_insn(a, ret, 3, VA, &cl), -SY_E_DECODE);
	cr_expect_eq(fx_classify_insn(a, ret, 4, VA + 2, &cl), -SY_E_INVALID,
		     "misaligned A64 address");
	cr_expect_eq(fx_classify_insn(a, ret, 4, VA, &cl), 0);
	cr_expect_eq(fx_classify_insn(NULL, ret, 4, VA, &cl), -SY_E_INVALID);
	cr_expect_eq(fx_classify_insn(a, NULL, 4, VA, &cl), -SY_E_INVALID);
	cr_expect_eq(fx_classify_a64_brreg(0xd65f03c0, NULL), -SY_E_INVALID);
	cr_expect_eq(fx_classify_a64_brreg(0x14000002, &cl), -SY_E_DECODE,
		     "b is outside the branch-register class");
	fx_classifier_free(c);
	cr_expect_eq(fx_classifier_new(&c, 40 /* EM_ARM */), -SY_E_UNSUPPORTED);
	cr_expect_null(c);
	cr_expect_eq(fx_classify_at(a, VA, &cl), -SY_E_NO_IMAGE,
		     "a classifier without an image has no addresses");
	fx_classifier_free(a);
	fx_classifier_free(NULL);
}

Test(fx_classify, open_errors)
{
	const char *dir = sy_test_mkdtemp();
	struct fx_classifier *c = (struct fx_classifier *)(uintptr_t)1;
	char path[600];
	uint8_t eh[64] = { 0x7f, 'E', 'L', 'F', 2 /* 64 */, 1 /* LE */, 1 };

	cr_expect_eq(fx_classifier_open(&c, "tests/fixtures/no-such-file"),
		     -SY_E_IO);
	cr_expect_null(c);
	cr_expect_eq(fx_classifier_open(&c, "tests/fixtures/programs/build"),
		     -SY_E_BAD_ELF, "a shell script is no ELF");
	cr_expect_eq(fx_classifier_open(NULL, bin_path(programs[0])),
		     -SY_E_INVALID);
	/* A bare ELF64 header for RISC-V: valid ELF, wrong machine. */
	sy_put16(eh + 16, 2);	/* ET_EXEC */
	sy_put16(eh + 18, 243);	/* EM_RISCV */
	sy_put32(eh + 20, 1);
	sy_put16(eh + 52, 64);	/* e_ehsize */
	snprintf(path, sizeof(path), "%s/riscv.elf", dir);
	cr_assert_eq(sy_test_write_file(path, eh, sizeof(eh)), 0);
	cr_expect_eq(fx_classifier_open(&c, path), -SY_E_UNSUPPORTED);
	/* Same header as x86-64 but no program headers: nothing to run. */
	sy_put16(eh + 18, FX_EM_X86_64);
	cr_assert_eq(sy_test_write_file(path, eh, sizeof(eh)), 0);
	cr_expect_eq(fx_classifier_open(&c, path), -SY_E_BAD_ELF);
	sy_test_rmtree(dir);
}

/* Build-id and ELF type of every committed binary, against readelf. */
Test(fx_classify, elf_info_matches_readelf)
{
	size_t i;

	sy_test_require_tool("readelf");
	for (i = 0; i < NPROGRAMS; i++) {
		struct fx_classifier *c;
		const struct fx_elf_info *e;
		char cmd[600], hex[2 * FX_BUILD_ID_MAX + 1], *out = NULL, *p;
		unsigned k;

		cr_assert_eq(fx_classifier_open(&c, bin_path(programs[i])), 0,
			     "%s", programs[i]);
		e = fx_classifier_elf(c);
		snprintf(cmd, sizeof(cmd), "readelf -nh %s", bin_path(programs[i]));
		cr_assert_eq(sy_test_run(cmd, &out, NULL), 0);
		p = strstr(out, "Build ID: ");
		cr_assert_not_null(p, "%s: readelf shows no build-id", programs[i]);
		for (k = 0; k < e->build_id_len; k++)
			snprintf(hex + 2 * k, 3, "%02x", e->build_id[k]);
		hex[2 * k] = 0;
		cr_expect_eq(e->build_id_len, 20, "%s", programs[i]);
		cr_expect_eq(strncmp(p + 10, hex, strlen(hex)), 0,
			     "%s: build-id %s", programs[i], hex);
		cr_expect_eq(e->machine,
			     strstr(programs[i], "x86_64") ? FX_EM_X86_64
							   : FX_EM_AARCH64);
		cr_expect_eq(e->type, strstr(programs[i], "-pie") ? 3 : 2);
		cr_expect_not_null(strstr(out, strstr(programs[i], "-pie")
						       ? "DYN (" : "EXEC ("));
		free(out);
		fx_classifier_free(c);
	}
}

/* The entry point is _start, whose first instruction the fixture sources
 * fix: `xorl %ebp,%ebp` (31 ed) and `mov x29, #0` (d280001d). */
Test(fx_classify, image_bytes_and_symbols)
{
	size_t i;

	for (i = 0; i < NPROGRAMS; i++) {
		struct fx_classifier *c;
		const struct fx_elf_info *e;
		const char *name = NULL;
		uint64_t start = 0, size = 0, fib = 0;
		uint8_t b[4];
		struct fx_class cl;

		cr_assert_eq(fx_classifier_open(&c, bin_path(programs[i])), 0);
		e = fx_classifier_elf(c);
		cr_assert_eq(fx_classifier_read(c, e->entry, b, 4), 0);
		if (e->machine == FX_EM_X86_64)
			cr_expect(b[0] == 0x31 && b[1] == 0xed, "%s", programs[i]);
		else
			cr_expect_eq(sy_le32(b), 0xd280001d, "%s", programs[i]);
		cr_expect_eq(fx_classifier_symbol(c, e->entry, &name, &start,
						  &size), 0);
		cr_expect_str_eq(name, "_start");
		cr_expect_eq(start, e->entry);
		cr_expect_eq(fx_classifier_symbol(c, e->entry + size, &name,
						  NULL, NULL) == 0 &&
				     strcmp(name, "_start") == 0, 0,
			     "_start must end at its size");
		cr_expect_eq(fx_classifier_symbol_addr(c, "fib", &fib), 0);
		cr_expect_eq(fx_classifier_symbol(c, fib + 4, &name, NULL, NULL), 0);
		cr_expect_str_eq(name, "fib");
		cr_expect_eq(fx_classifier_symbol_addr(c, "no_such_fn", &fib),
			     -SY_E_NO_IMAGE);
		cr_expect_eq(fx_classifier_read(c, UINT64_MAX - 8, b, 4),
			     -SY_E_NO_IMAGE);
		cr_expect_eq(fx_classify_at(c, e->entry - 0x100000, &cl),
			     -SY_E_NO_IMAGE);
		fx_classifier_free(c);
	}
}

/* Classification is cached per address: repeated lookups decode once,
 * and a cached failure stays a failure. */
Test(fx_classify, cache_per_address)
{
	struct fx_classifier *c;
	const struct fx_elf_info *e;
	struct fx_class a, b;
	int i;

	cr_assert_eq(fx_classifier_open(&c, bin_path("branchy-aarch64")), 0);
	e = fx_classifier_elf(c);
	cr_expect_eq(fx_classifier_decodes(c), 0);
	for (i = 0; i < 1000; i++) {
		cr_assert_eq(fx_classify_at(c, e->entry, &a), 0);
		cr_assert_eq(fx_classify_at(c, e->entry + 8, &b), 0);
	}
	cr_expect_eq(fx_classifier_decodes(c), 2);
	/* `bl prog_main` is _start's third instruction (start-aarch64.S). */
	cr_expect_eq(b.kind, SY_BR_CALL);
	cr_expect_eq(a.kind, SY_BR_NONE);
	fx_classifier_free(c);
}

/* ---- objdump as an independent disassembler for the x86-64 binary ---- */

static enum sy_branch_kind objdump_kind(const char *mn, const char *ops)
{
	static const char *const prefixes[] = { "bnd", "notrack", "rep", "repz",
						"repnz", "lock", "data16", "cs",
						"ds" };
	char w[32];
	size_t i;
	int ind;

	for (;;) {
		if (sscanf(mn, "%31s", w) != 1)
			return SY_BR_NONE;
		for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			if (strcmp(w, prefixes[i]) == 0)
				break;
		if (i == sizeof(prefixes) / sizeof(prefixes[0]))
			break;
		mn = strstr(mn, w) + strlen(w);
	}
	ind = ops && strchr(ops, '*') != NULL;
	if (strncmp(w, "call", 4) == 0 || strcmp(w, "lcall") == 0)
		return ind || w[0] == 'l' ? SY_BR_IND_CALL : SY_BR_CALL;
	if (strncmp(w, "jmp", 3) == 0 || strcmp(w, "ljmp") == 0)
		return ind || w[0] == 'l' ? SY_BR_IND_JUMP : SY_BR_JUMP;
	if (w[0] == 'j' || strncmp(w, "loop", 4) == 0)
		return SY_BR_COND;
	if (strncmp(w, "ret", 3) == 0 || strncmp(w, "lret", 4) == 0)
		return SY_BR_RET;
	if (strcmp(w, "syscall") == 0 || strncmp(w, "int", 3) == 0 ||
	    strcmp(w, "sysenter") == 0)
		return SY_BR_SYSCALL;
	if (strncmp(w, "iret", 4) == 0 || strncmp(w, "sysret", 6) == 0)
		return SY_BR_ERET;
	return SY_BR_NONE;
}

Test(fx_classify, x86_binary_matches_objdump)
{
	struct fx_classifier *c;
	char *out = NULL, *line, *save = NULL;
	size_t checked = 0, branches = 0;

	sy_test_require_tool("objdump");
	cr_assert_eq(fx_classifier_open(&c, bin_path("branchy-x86_64")), 0);
	cr_assert_eq(sy_test_run("objdump -d -w " BIN_DIR "branchy-x86_64",
				 &out, NULL), 0);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		/* "  401005:\te8 c6 05 00 00       \tcall   4015d0 <prog_main>" */
		char *t1 = strchr(line, '\t'), *t2, *ops;
		unsigned long long addr;
		unsigned size = 0;
		struct fx_class cl;
		enum sy_branch_kind want;

		if (!t1 || sscanf(line, " %llx:", &addr) != 1)
			continue;
		t2 = strchr(t1 + 1, '\t');
		if (!t2)
			continue;	/* a continuation line of bytes */
		for (char *p = t1 + 1; p < t2; p++)
			if (p[0] != ' ' && (p == t1 + 1 || p[-1] == ' '))
				size++;
		ops = strpbrk(t2 + 1, " ");
		want = objdump_kind(t2 + 1, ops);
		cr_assert_eq(fx_classify_at(c, addr, &cl), 0, "%s", line);
		cr_expect_eq(cl.size, size, "%s: size %u", line, cl.size);
		cr_expect_eq(cl.kind, want, "%s: kind %s, objdump says %s", line,
			     sy_branch_kind_name(cl.kind),
			     sy_branch_kind_name(want));
		if (cl.has_target) {
			unsigned long long t;
			char *sp = ops;

			while (sp && *sp == ' ')
				sp++;
			cr_expect(sp && sscanf(sp, "%llx", &t) == 1 &&
					  t == cl.target,
				  "%s: target %#llx", line,
				  (unsigned long long)cl.target);
		}
		checked++;
		branches += cl.kind != SY_BR_NONE;
	}
	cr_expect_gt(checked, 200, "only %zu instructions listed", checked);
	cr_expect_gt(branches, 50);
	free(out);
	fx_classifier_free(c);
}
