/* Tests for the ground-truth layer (fx_truth.h) and the committed truth of
 * every fixture program.
 *
 * What the truth must satisfy is checked against facts that do not come
 * from the code under test:
 *   - the instruction semantics: a non-branch falls through, a direct
 *     branch goes to the target encoded in it (or falls through when
 *     conditional), every return goes back to its call site;
 *   - the fixture sources (tests/fixtures/programs/branchy.c and
 *     start-*.S): which functions call which, which are tail calls, how
 *     many system calls run;
 *   - the native CPU: the x86-64 run single-stepped with ptrace gives the
 *     identical PC list (test_fx_programs.c, with the other programs);
 *   - libzstd directly, to forge corrupt truth files.
 * Each consistency check also runs on a deliberately corrupted run and
 * must then fail (negative controls).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <zstd.h>

#include "fx_buf.h"
#include "fx_classify.h"
#include "fx_truth.h"
#include "sy_bytes.h"
#include "sy_error.h"
#include "sy_test.h"

/* Parameters are copied into the test worker (criterion may run it in a
 * re-executed process at another address), so no pointers in here. */
struct prog {
	char name[32];
	uint16_t machine;
	int pie;
	int pac;
	/* write() per report line (8, plus "loop" on x86-64), getpid,
	 * exit: counted from prog_main in branchy.c */
	unsigned syscalls;
};

/* Not const: cr_make_param_array casts it to void *. */
static struct prog progs[] = {
	{ "branchy-x86_64", FX_EM_X86_64, 0, 0, 11 },
	{ "branchy-aarch64", FX_EM_AARCH64, 0, 0, 10 },
	{ "branchy-aarch64-pac", FX_EM_AARCH64, 0, 1, 10 },
	{ "branchy-aarch64-pie", FX_EM_AARCH64, 1, 0, 10 },
};
#define NPROGS (sizeof(progs) / sizeof(progs[0]))

static const char *elf_path(const struct prog *p)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "tests/fixtures/programs/bin/%s", p->name);
	return buf;
}

static const char *truth_path(const struct prog *p)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "tests/fixtures/truth/%s.truth", p->name);
	return buf;
}

static void load(struct fx_truth *t, const struct prog *p)
{
	struct sy_diag d = { 0 };
	char elf[512];
	int err;

	snprintf(elf, sizeof(elf), "%s", elf_path(p));
	err = fx_truth_load(t, truth_path(p), elf, &d);
	cr_assert_eq(err, 0, "%s: %s (%s)", p->name, sy_errname(err), d.msg);
}

/* One parameter set per test: criterion looks them up by test name. */
#define FX_PROGRAMS(test)                                              \
	ParameterizedTestParameters(fx_truth, test)                    \
	{                                                              \
		return cr_make_param_array(struct prog, progs, NPROGS); \
	}

FX_PROGRAMS(program)
FX_PROGRAMS(program_calls_balance)
FX_PROGRAMS(program_exercises_all_kinds)
FX_PROGRAMS(program_callchains)

/* ---- consistency checks (also applied to corrupted runs) -------------- */

/* Returns the number of instructions whose successor contradicts the
 * instruction's semantics; describes the first in @msg. */
static size_t flow_violations(struct fx_truth *t, char *msg, size_t len)
{
	size_t bad = 0, i;

	msg[0] = 0;
	for (i = 0; i < t->n; i++) {
		const struct fx_insn *in = &t->insns[i];
		uint64_t fall = in->pc + in->size;
		struct fx_class c;
		uint8_t byte;
		int ok;

		if (fx_truth_class(t, i, &c) != 0) {
			ok = 0;
		} else if (i + 1 == t->n) {
			ok = in->next == 0;
		} else if (in->next != t->insns[i + 1].pc) {
			ok = 0;
		} else {
			switch (in->kind) {
			case SY_BR_NONE:
			case SY_BR_SYSCALL:	/* the kernel returns to pc+size */
				ok = in->next == fall;
				break;
			case SY_BR_COND:
				ok = in->next == c.target || in->next == fall;
				break;
			case SY_BR_JUMP:
			case SY_BR_CALL:
				ok = in->next == c.target;
				break;
			default:	/* indirect: any code address */
				ok = fx_truth_read_mem(t, in->next, &byte, 1) == 0;
				break;
			}
		}
		if (!ok && bad++ == 0)
			snprintf(msg, len, "insn %zu at %#llx (%s) -> %#llx", i,
				 (unsigned long long)in->pc,
				 sy_branch_kind_name(in->kind),
				 (unsigned long long)in->next);
	}
	return bad;
}

/* Steps a shadow stack over the whole run; returns the number of returns
 * that did not go back to their call site. */
static size_t ret_mismatches(const struct fx_truth *t,
			     struct fx_shadow_stack *s)
{
	size_t bad = 0, i;

	for (i = 0; i < t->n; i++) {
		int r = fx_shadow_step(s, &t->insns[i]);

		cr_assert_geq(r, 0);
		bad += r == FX_SHADOW_MISMATCH;
	}
	return bad;
}

/* ---- every committed program --------------------------------------------- */

ParameterizedTest(const struct prog *p, fx_truth, program)
{
	struct fx_truth t;
	const struct fx_elf_info *e;
	char msg[256];
	size_t v;

	load(&t, p);
	e = fx_classifier_elf(t.cls);
	cr_expect_eq(t.hdr.machine, p->machine);
	cr_expect_eq(e->type, p->pie ? 3 : 2);
	/* Size requirement of the fixtures. */
	cr_expect(t.n >= 20000 && t.n <= 200000, "%s: %zu insns", p->name, t.n);
	/* The run starts at the entry point, at the load bias qemu used. */
	cr_expect_eq(t.insns[0].pc, e->entry + t.hdr.load_bias);
	if (p->pie) {
		cr_expect_neq(t.hdr.load_bias, 0, "PIE must not load at 0");
		cr_expect_eq(t.hdr.load_bias & 0xfff, 0, "page-aligned base");
	} else {
		cr_expect_eq(t.hdr.load_bias, 0);
	}
	cr_expect_eq(t.insns[t.n - 1].next, 0);
	v = flow_violations(&t, msg, sizeof(msg));
	cr_expect_eq(v, 0, "%s: %zu violations, first: %s", p->name, v, msg);
	/* Classification ran once per distinct address, not per insn. */
	cr_expect_lt(fx_classifier_decodes(t.cls), t.n / 20);
	fx_truth_fini(&t);
}

/* Calls and returns balance: every ret goes back to the instruction after
 * its call (tail calls keep this true; the programs use no longjmp).  At
 * the end only _start's `call sys_exit` frame is left: sys_exit never
 * returns (start-*.S). */
ParameterizedTest(const struct prog *p, fx_truth, program_calls_balance)
{
	struct fx_truth t;
	struct fx_shadow_stack s;

	load(&t, p);
	fx_shadow_init(&s);
	cr_expect_eq(ret_mismatches(&t, &s), 0, "%s", p->name);
	cr_expect_eq(s.depth, 1, "%s: depth %zu at exit", p->name, s.depth);
	/* The deepest path: _start -> prog_main (1 return address), then
	 * is_even(41) -> is_odd(40) -> ... -> is_*(0), 42 more. */
	cr_expect_eq(s.max_depth, 43, "%s: max depth %zu", p->name,
		     s.max_depth);
	fx_shadow_fini(&s);
	fx_truth_fini(&t);
}

static int in_func(struct fx_truth *t, uint64_t rt_addr, const char *fn)
{
	const char *name;

	return fx_classifier_symbol(t->cls, rt_addr - t->hdr.load_bias, &name,
				    NULL, NULL) == 0 &&
	       strcmp(name, fn) == 0;
}

static int is_func_start(struct fx_truth *t, uint64_t rt_addr,
			 const char **name)
{
	uint64_t start;

	return fx_classifier_symbol(t->cls, rt_addr - t->hdr.load_bias, name,
				    &start, NULL) == 0 &&
	       start == rt_addr - t->hdr.load_bias;
}

/* The run really exercises every construct the programs exist for. */
ParameterizedTest(const struct prog *p, fx_truth, program_exercises_all_kinds)
{
	struct fx_truth t;
	size_t count[SY_BR_NR] = { 0 }, i;
	size_t recursion = 0, tail_direct = 0, tail_indirect = 0, retaa = 0;
	size_t paciasp = 0, loops = 0, jrcxz = 0;
	uint64_t table_targets[16], icall_targets[8];
	size_t ntable = 0, nicall = 0, k;

	load(&t, p);
	for (i = 0; i < t.n; i++) {
		const struct fx_insn *in = &t.insns[i];
		const char *caller = NULL, *callee = NULL;
		uint8_t b[4] = { 0 };

		count[in->kind]++;
		cr_assert_eq(fx_truth_read_mem(&t, in->pc, b, 1), 0);
		if (p->machine == FX_EM_AARCH64)
			cr_assert_eq(fx_truth_read_mem(&t, in->pc, b, 4), 0);
		fx_classifier_symbol(t.cls, in->pc - t.hdr.load_bias, &caller,
				     NULL, NULL);
		switch (in->kind) {
		case SY_BR_CALL:
			if (is_func_start(&t, in->next, &callee) && caller &&
			    strcmp(caller, callee) == 0)
				recursion++;
			break;
		case SY_BR_JUMP:
			if (is_func_start(&t, in->next, &callee) && caller &&
			    strcmp(caller, callee) != 0)
				tail_direct++;
			break;
		case SY_BR_IND_JUMP:
			if (is_func_start(&t, in->next, &callee)) {
				tail_indirect++;
			} else if (caller && strcmp(caller, "op_switch") == 0 &&
				   in_func(&t, in->next, "op_switch")) {
				for (k = 0; k < ntable; k++)
					if (table_targets[k] == in->next)
						break;
				if (k == ntable && ntable < 16)
					table_targets[ntable++] = in->next;
			}
			break;
		case SY_BR_IND_CALL:
			if (is_func_start(&t, in->next, &callee)) {
				for (k = 0; k < nicall; k++)
					if (icall_targets[k] == in->next)
						break;
				if (k == nicall && nicall < 8)
					icall_targets[nicall++] = in->next;
			}
			break;
		case SY_BR_RET:
			retaa += sy_le32(b) == 0xd65f0bff;
			break;
		case SY_BR_COND:
			loops += p->machine == FX_EM_X86_64 && b[0] == 0xe2;
			jrcxz += p->machine == FX_EM_X86_64 && b[0] == 0xe3;
			break;
		default:
			break;
		}
		paciasp += p->machine == FX_EM_AARCH64 && sy_le32(b) == 0xd503233f;
	}
	cr_expect_gt(count[SY_BR_COND], 0);
	cr_expect_gt(count[SY_BR_JUMP], 0);
	cr_expect_gt(count[SY_BR_CALL], 0);
	cr_expect_gt(count[SY_BR_IND_JUMP], 0);
	cr_expect_gt(count[SY_BR_IND_CALL], 0);
	cr_expect_gt(count[SY_BR_RET], 0);
	cr_expect_eq(count[SY_BR_SYSCALL], p->syscalls, "%s: %zu syscalls",
		     p->name, count[SY_BR_SYSCALL]);
	cr_expect_eq(count[SY_BR_ERET], 0, "user space cannot eret");
	cr_expect_gt(recursion, 0, "fib calls itself");
	cr_expect_gt(tail_direct, 0, "mix_tail jumps to mix");
	cr_expect_gt(tail_indirect, 0, "dispatch_tail jumps through ops[]");
	/* op_switch(i % 13): twelve cases reached through the table */
	cr_expect_geq(ntable, 12, "%s: %zu jump-table targets", p->name, ntable);
	/* apply(): op_add, op_mul, op_rot, op_neg */
	cr_expect_eq(nicall, 4, "%s: %zu indirect-call targets", p->name, nicall);
	if (p->pac) {
		cr_expect_gt(retaa, 0, "pac-ret build must execute retaa");
		cr_expect_gt(paciasp, 0, "pac-ret build must execute paciasp");
	} else {
		cr_expect_eq(retaa, 0);
		cr_expect_eq(paciasp, 0);
	}
	if (p->machine == FX_EM_X86_64) {
		/* asm_loop_count(0..7): loop runs 1+..+7 times, jrcxz once
		 * per call */
		cr_expect_eq(loops, 28, "loop executed %zu times", loops);
		cr_expect_eq(jrcxz, 8, "jrcxz executed %zu times", jrcxz);
	}
	/* The last instruction is the exit system call. */
	cr_expect_eq(t.insns[t.n - 1].kind, SY_BR_SYSCALL);
	cr_expect(in_func(&t, t.insns[t.n - 1].pc, "sys_exit"));
	fx_truth_fini(&t);
}

/* ---- callchains --------------------------------------------------------- */

/* Function names of the frames of @chain: [0] the sample IP's function,
 * [k] the function containing the call that return address k follows
 * (the return address itself may be the next function's first byte when
 * the call is a noreturn tail, so look at ret - 1). */
static size_t chain_names(struct fx_truth *t, const uint64_t *chain, int n,
			  const char **names)
{
	int k;

	for (k = 0; k < n; k++) {
		uint64_t a = chain[k] - (k ? 1 : 0) - t->hdr.load_bias;

		if (fx_classifier_symbol(t->cls, a, &names[k], NULL, NULL) != 0)
			names[k] = "?";
	}
	return (size_t)n;
}

/* Every return address in a chain follows a call instruction. */
static int follows_call(struct fx_truth *t, uint64_t ret)
{
	static const unsigned sizes[] = { 2, 3, 4, 5, 6, 7 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct fx_class c;

		if (fx_classify_at(t->cls, ret - sizes[i] - t->hdr.load_bias,
				   &c) == 0 &&
		    c.size == sizes[i] &&
		    (c.kind == SY_BR_CALL || c.kind == SY_BR_IND_CALL))
			return 1;
	}
	return 0;
}

static int names_eq(const char *const *got, size_t n, const char *const *want,
		    size_t nwant)
{
	size_t k;

	if (n != nwant)
		return 0;
	for (k = 0; k < n; k++)
		if (strcmp(got[k], want[k]) != 0)
			return 0;
	return 1;
}

static void names_str(const char *const *names, size_t n, char *buf,
		      size_t len)
{
	size_t k, off = 0;

	buf[0] = 0;
	for (k = 0; k < n && off < len; k++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					k ? " <- " : "", names[k]);
}

/* Call paths fixed by branchy.c: at each entry of the named function the
 * whole chain is known, including across tail calls (mix is only ever
 * reached by mix_tail's tail call, so prog_main is its caller). */
ParameterizedTest(const struct prog *p, fx_truth, program_callchains)
{
	static const char *const leaf_path[] = { "leaf", "level3", "level2",
						 "level1", "prog_main",
						 "_start" };
	static const char *const mix_path[] = { "mix", "prog_main", "_start" };
	static const char *const write_path[] = { "sys_write", "report",
						  "prog_main", "_start" };
	struct fx_truth t;
	struct fx_shadow_stack s;
	uint64_t chain[128], leaf = 0, mix = 0, wr = 0, fib = 0;
	const char *names[128];
	char buf[512];
	size_t i, nleaf = 0, nmix = 0, nwrite = 0, fib_depth = 0, checked = 0;

	load(&t, p);
	cr_assert_eq(fx_classifier_symbol_addr(t.cls, "leaf", &leaf), 0);
	cr_assert_eq(fx_classifier_symbol_addr(t.cls, "mix", &mix), 0);
	cr_assert_eq(fx_classifier_symbol_addr(t.cls, "sys_write", &wr), 0);
	cr_assert_eq(fx_classifier_symbol_addr(t.cls, "fib", &fib), 0);
	fx_shadow_init(&s);
	for (i = 0; i < t.n; i++) {
		uint64_t st = t.insns[i].pc - t.hdr.load_bias;
		int n = fx_shadow_callchain(&s, t.insns[i].pc, chain, 128);
		size_t nn, k;

		cr_assert_geq(n, 1);
		cr_assert_eq(chain[0], t.insns[i].pc);
		nn = chain_names(&t, chain, n, names);
		names_str(names, nn, buf, sizeof(buf));
		if (st == leaf) {
			cr_expect(names_eq(names, nn, leaf_path, 6), "%s", buf);
			nleaf++;
		} else if (st == mix) {
			cr_expect(names_eq(names, nn, mix_path, 3), "%s", buf);
			nmix++;
		} else if (st == wr) {
			cr_expect(names_eq(names, nn, write_path, 4), "%s", buf);
			nwrite++;
		} else if (st == fib) {
			size_t d = 0;

			while (d < nn && strcmp(names[d], "fib") == 0)
				d++;
			if (d > fib_depth)
				fib_depth = d;
		}
		/* Every 37th sample: the chain's structure in general. */
		if (i % 37 == 0) {
			cr_expect_str_eq(names[nn - 1], "_start");
			for (k = 1; k < nn; k++)
				cr_expect(follows_call(&t, chain[k]),
					  "insn %zu: %#llx follows no call", i,
					  (unsigned long long)chain[k]);
			checked++;
		}
		cr_assert_geq(fx_shadow_step(&s, &t.insns[i]), 0);
	}
	/* level1 runs 12 times x 4 level2 x 2 level3 x 2 leaf */
	cr_expect_eq(nleaf, 12 * 4 * 2 * 2, "leaf entered %zu times", nleaf);
	/* 64 iterations x (mix_tail + mix_tail2) */
	cr_expect_eq(nmix, 128, "mix entered %zu times", nmix);
	cr_expect_eq(nwrite, p->syscalls - 2);
	/* fib(15): at least 14 nested fib frames (gcc may turn one of the
	 * two calls into a loop, never the depth of the other) */
	cr_expect_geq(fib_depth, 14, "fib depth %zu", fib_depth);
	cr_expect_gt(checked, 1000);
	fx_shadow_fini(&s);
	fx_truth_fini(&t);
}

/* fx_truth_callchain (replay from the start) equals stepping a stack,
 * and @max truncates the outermost frames, as perf does. */
Test(fx_truth, callchain_replay_and_truncation)
{
	struct fx_truth t;
	struct fx_shadow_stack s;
	uint64_t a[64], b[64];
	size_t i;
	int na, nb;

	load(&t, &progs[1]);
	fx_shadow_init(&s);
	for (i = 0; i < t.n; i++) {
		if (i % 4099 == 7 || i == t.n - 1) {
			na = fx_shadow_callchain(&s, t.insns[i].pc, a, 64);
			nb = fx_truth_callchain(t.insns, t.n, i, b, 64);
			cr_assert_eq(na, nb, "insn %zu", i);
			cr_assert_eq(memcmp(a, b, (size_t)na * sizeof(*a)), 0);
			if (na > 2) {
				nb = fx_shadow_callchain(&s, t.insns[i].pc, b, 2);
				cr_expect_eq(nb, 2);
				cr_expect(b[0] == a[0] && b[1] == a[1]);
			}
		}
		fx_shadow_step(&s, &t.insns[i]);
	}
	cr_expect_eq(fx_truth_callchain(t.insns, t.n, t.n, a, 64), -SY_E_INVALID);
	cr_expect_eq(fx_shadow_callchain(&s, 0, NULL, 4), -SY_E_INVALID);
	cr_expect_eq(fx_shadow_callchain(&s, 1, a, 0), 0);
	fx_shadow_fini(&s);
	fx_shadow_fini(NULL);
	fx_truth_fini(&t);
}

/* Shadow stack semantics on a hand-made run: call, syscall (no push),
 * tail jump, ret, and a longjmp-like ret past two frames. */
Test(fx_truth, shadow_stack_rules)
{
	const struct fx_insn run[] = {
		{ 0x100, 0x200, 5, SY_BR_CALL, 0, 0, 0 },	/* push 0x105 */
		{ 0x200, 0x300, 2, SY_BR_IND_CALL, 0, 0, 0 },	/* push 0x202 */
		{ 0x300, 0x302, 2, SY_BR_SYSCALL, 0, 0, 0 },	/* no push */
		{ 0x302, 0x400, 5, SY_BR_JUMP, 0, 0, 0 },	/* tail call */
		{ 0x400, 0x202, 1, SY_BR_RET, 0, 0, 0 },		/* pops 0x202 */
		{ 0x202, 0x500, 5, SY_BR_CALL, 0, 0, 0 },	/* push 0x207 */
		{ 0x500, 0x600, 5, SY_BR_CALL, 0, 0, 0 },	/* push 0x505 */
		{ 0x600, 0x105, 1, SY_BR_RET, 0, 0, 0 },		/* longjmp-ish: to 0x105 */
		{ 0x105, 0x999, 1, SY_BR_RET, 0, 0, 0 },		/* nothing matches */
	};
	static const int want[] = { 0, 0, 0, 0, 0, 0, 0, FX_SHADOW_MISMATCH,
				    FX_SHADOW_MISMATCH };
	static const size_t depth[] = { 1, 2, 2, 2, 1, 2, 3, 0, 0 };
	struct fx_shadow_stack s;
	uint64_t chain[8];
	size_t i;

	fx_shadow_init(&s);
	for (i = 0; i < sizeof(run) / sizeof(run[0]); i++) {
		if (i == 4) {
			int n = fx_shadow_callchain(&s, run[i].pc, chain, 8);

			cr_expect_eq(n, 3);
			cr_expect(chain[0] == 0x400 && chain[1] == 0x202 &&
				  chain[2] == 0x105);
		}
		cr_expect_eq(fx_shadow_step(&s, &run[i]), want[i], "step %zu", i);
		cr_expect_eq(s.depth, depth[i], "step %zu: depth %zu", i, s.depth);
	}
	cr_expect_eq(s.max_depth, 3);
	cr_expect_eq(fx_shadow_step(&s, NULL), -SY_E_INVALID);
	fx_shadow_fini(&s);
}

/* ---- negative controls: the checks above catch a corrupted run --------- */

/* Rebuilds a run from PCs with one edit and returns the checks' verdicts. */
static void corrupted(const struct prog *p, void (*edit)(uint64_t *, size_t *),
		      size_t *flow, size_t *rets)
{
	struct fx_truth_hdr h;
	struct fx_truth t;
	struct fx_shadow_stack s;
	uint64_t *pcs;
	size_t n;
	char msg[256];

	cr_assert_eq(fx_truth_read(truth_path(p), &h, &pcs), 0);
	n = (size_t)h.count;
	edit(pcs, &n);
	cr_assert_eq(fx_truth_build(&t, &h, pcs, n, elf_path(p), NULL), 0);
	*flow = flow_violations(&t, msg, sizeof(msg));
	fx_shadow_init(&s);
	*rets = ret_mismatches(&t, &s);
	fx_shadow_fini(&s);
	fx_truth_fini(&t);
	free(pcs);
}

/* One instruction of straight-line code vanishes (a decoder that skips). */
static void drop_one(uint64_t *pcs, size_t *n)
{
	size_t i = *n / 2;

	memmove(pcs + i, pcs + i + 1, (*n - i - 1) * sizeof(*pcs));
	(*n)--;
}

/* The run is spliced: from the middle it continues with a copy of an
 * earlier stretch, as if a branch went elsewhere and returns then
 * returned to stale call sites. */
static void splice(uint64_t *pcs, size_t *n)
{
	size_t at = *n / 2, from = *n / 3, len = *n - at - 1;

	memmove(pcs + at, pcs + from, len * sizeof(*pcs));
	*n = at + len;
}

Test(fx_truth, checks_catch_corruption)
{
	size_t flow, rets, i;

	for (i = 0; i < NPROGS; i++) {
		corrupted(&progs[i], drop_one, &flow, &rets);
		cr_expect_gt(flow, 0, "%s: dropped insn not detected",
			     progs[i].name);
		corrupted(&progs[i], splice, &flow, &rets);
		cr_expect_gt(flow + rets, 0, "%s: splice not detected",
			     progs[i].name);
	}
}

/* A ret redirected to another valid code address is a flow-valid
 * indirect transfer, so only the shadow stack can catch it. */
Test(fx_truth, shadow_catches_wrong_return)
{
	struct fx_truth t;
	struct fx_shadow_stack s;
	size_t i, r = 0;

	load(&t, &progs[0]);
	for (i = t.n / 2; i < t.n && t.insns[i].kind != SY_BR_RET; i++)
		;
	cr_assert_lt(i, t.n);
	t.insns[i].next += 1;
	fx_shadow_init(&s);
	r = ret_mismatches(&t, &s);
	cr_expect_geq(r, 1);
	fx_shadow_fini(&s);
	fx_truth_fini(&t);
}

/* ---- file format ----------------------------------------------------------- */

static void hdr_for(struct fx_truth_hdr *h, uint16_t machine)
{
	memset(h, 0, sizeof(*h));
	h->machine = machine;
	h->build_id_len = 4;
	memcpy(h->build_id, "\x01\x02\x03\x04", 4);
	h->load_bias = 0x5500000000ull;
}

Test(fx_truth, encode_decode_round_trip)
{
	/* Extreme deltas: forward, backward, wrap-around, 64-bit. */
	const uint64_t pcs[] = { 0, 4, 0, UINT64_MAX, 1, 0x8000000000000000ull,
				 0x7fffffffffffffffull, 0x400000, 0x3ffffc,
				 0x3ffffc, 0xffffffffffff0000ull };
	const size_t n = sizeof(pcs) / sizeof(pcs[0]);
	struct fx_truth_hdr h, g;
	struct fx_buf b;
	uint64_t *back;

	hdr_for(&h, FX_EM_AARCH64);
	fx_buf_init(&b);
	cr_assert_eq(fx_truth_encode(&b, &h, pcs, n), 0);
	cr_assert_eq(fx_truth_decode(b.data, b.len, &g, &back), 0);
	cr_expect_eq(g.count, n);
	cr_expect_eq(g.machine, FX_EM_AARCH64);
	cr_expect_eq(g.load_bias, h.load_bias);
	cr_expect_eq(g.build_id_len, 4);
	cr_expect_eq(memcmp(g.build_id, h.build_id, 4), 0);
	cr_expect_eq(memcmp(back, pcs, sizeof(pcs)), 0);
	free(back);
	/* Same input, same bytes. */
	{
		struct fx_buf c;

		fx_buf_init(&c);
		cr_assert_eq(fx_truth_encode(&c, &h, pcs, n), 0);
		cr_expect(c.len == b.len && memcmp(c.data, b.data, b.len) == 0);
		fx_buf_fini(&c);
	}
	cr_expect_eq(fx_truth_encode(&b, &h, pcs, 0), -SY_E_INVALID);
	h.build_id_len = FX_BUILD_ID_MAX + 1;
	cr_expect_eq(fx_truth_encode(&b, &h, pcs, n), -SY_E_INVALID);
	fx_buf_fini(&b);
}

/* The decompressed payload of a committed truth file, via libzstd
 * directly (not through fx_truth). */
static uint8_t *raw_of(const struct prog *p, size_t *len)
{
	size_t clen;
	uint8_t *c = sy_test_read_file(truth_path(p), &clen);
	unsigned long long rl;
	uint8_t *raw;

	cr_assert_not_null(c);
	rl = ZSTD_getFrameContentSize(c, clen);
	cr_assert(rl != ZSTD_CONTENTSIZE_ERROR && rl != ZSTD_CONTENTSIZE_UNKNOWN);
	raw = malloc(rl);
	cr_assert_eq(ZSTD_decompress(raw, rl, c, clen), rl);
	free(c);
	*len = (size_t)rl;
	return raw;
}

static int decode_forged(const uint8_t *raw, size_t len)
{
	size_t cap = ZSTD_compressBound(len), n;
	uint8_t *c = malloc(cap);
	struct fx_truth_hdr h;
	uint64_t *pcs = NULL;
	int err;

	n = ZSTD_compress(c, cap, raw, len, 3);
	cr_assert(!ZSTD_isError(n));
	err = fx_truth_decode(c, n, &h, &pcs);
	free(pcs);
	free(c);
	return err;
}

/* The committed files follow the documented layout byte for byte. */
Test(fx_truth, committed_layout)
{
	size_t i;

	for (i = 0; i < NPROGS; i++) {
		size_t len, k;
		uint8_t *raw = raw_of(&progs[i], &len);
		struct fx_truth_hdr h;
		uint64_t *pcs, pc = 0;
		const uint8_t *q = raw + 64;

		cr_assert_geq(len, 64);
		cr_expect_eq(memcmp(raw, "FXTRUTH\0", 8), 0);
		cr_expect_eq(sy_le32(raw + 8), 1);
		cr_expect_eq(sy_le16(raw + 12), progs[i].machine);
		cr_expect_eq(raw[14], 20);
		cr_assert_eq(fx_truth_read(truth_path(&progs[i]), &h, &pcs), 0);
		cr_expect_eq(sy_le64(raw + 24), h.count);
		/* Independent zigzag-LEB128 decode of the first PCs. */
		for (k = 0; k < 100; k++) {
			uint64_t z = 0;
			unsigned sh = 0;

			do {
				z |= (uint64_t)(*q & 0x7f) << sh;
				sh += 7;
			} while (*q++ & 0x80);
			pc += (z & 1) ? ~(z >> 1) : (z >> 1);
			cr_expect_eq(pc, pcs[k], "pc %zu", k);
		}
		free(sy_test_read_file(truth_path(&progs[i]), &len));
		cr_expect_lt(len, 100 * 1024, "truth file too big");
		free(pcs);
		free(raw);
	}
}

Test(fx_truth, corrupt_files_rejected)
{
	struct fx_truth_hdr h;
	uint64_t *pcs = NULL;
	size_t clen, len;
	uint8_t *c = sy_test_read_file(truth_path(&progs[0]), &clen);
	uint8_t *raw = raw_of(&progs[0], &len), *bad;

	cr_assert_not_null(c);
	/* Sanity: the unmodified file decodes. */
	cr_assert_eq(fx_truth_decode(c, clen, &h, &pcs), 0);
	free(pcs);

	/* Compressed layer: a flipped bit, a cut, trailing bytes, nothing. */
	c[clen / 2] ^= 0x10;
	cr_expect_lt(fx_truth_decode(c, clen, &h, &pcs), 0, "flipped bit");
	c[clen / 2] ^= 0x10;
	cr_expect_eq(fx_truth_decode(c, clen - 5, &h, &pcs), -SY_E_TRUNCATED);
	bad = malloc(clen + 3);
	memcpy(bad, c, clen);
	memcpy(bad + clen, "xyz", 3);
	cr_expect_eq(fx_truth_decode(bad, clen + 3, &h, &pcs), -SY_E_ZSTD);
	free(bad);
	cr_expect_eq(fx_truth_decode(c, 0, &h, &pcs), -SY_E_TRUNCATED);
	cr_expect_eq(fx_truth_decode("not zstd at all", 15, &h, &pcs),
		     -SY_E_ZSTD);

	/* Payload layer, forged with libzstd. */
	cr_expect_eq(decode_forged(raw, len), 0, "re-compressed original");
	raw[0] = 'X';
	cr_expect_eq(decode_forged(raw, len), -SY_E_BAD_HEADER, "magic");
	raw[0] = 'F';
	raw[8] = 2;
	cr_expect_eq(decode_forged(raw, len), -SY_E_BAD_HEADER, "version");
	raw[8] = 1;
	raw[15] = 1;
	cr_expect_eq(decode_forged(raw, len), -SY_E_BAD_HEADER, "reserved");
	raw[15] = 0;
	sy_put16(raw + 12, 40);
	cr_expect_eq(decode_forged(raw, len), -SY_E_BAD_HEADER, "machine");
	sy_put16(raw + 12, FX_EM_X86_64);
	raw[14] = 33;
	cr_expect_eq(decode_forged(raw, len), -SY_E_BAD_HEADER, "build-id len");
	raw[14] = 0;	/* the build-id bytes are now non-zero padding */
	cr_expect_eq(decode_forged(raw, len), -SY_E_BAD_HEADER, "padding");
	raw[14] = 20;
	sy_put64(raw + 24, sy_le64(raw + 24) + 1);
	cr_expect_eq(decode_forged(raw, len), -SY_E_TRUNCATED, "count + 1");
	sy_put64(raw + 24, sy_le64(raw + 24) - 2);
	cr_expect_eq(decode_forged(raw, len), -SY_E_BAD_RECORD, "count - 1");
	sy_put64(raw + 24, 0);
	cr_expect_eq(decode_forged(raw, len), -SY_E_BAD_HEADER, "count 0");
	sy_put64(raw + 24, UINT64_MAX);
	cr_expect_eq(decode_forged(raw, len), -SY_E_TRUNCATED, "huge count");
	cr_expect_eq(decode_forged(raw, 40), -SY_E_TRUNCATED, "short header");
	{
		/* An 11-byte LEB128 as the only PC. */
		uint8_t r2[64 + 11];

		memcpy(r2, raw, 64);
		sy_put64(r2 + 24, 1);
		memset(r2 + 64, 0xff, 10);
		r2[74] = 0x01;
		cr_expect_eq(decode_forged(r2, sizeof(r2)), -SY_E_BAD_RECORD);
	}
	free(raw);
	free(c);
	cr_expect_eq(fx_truth_read("tests/fixtures/truth/none.truth", &h, &pcs),
		     -SY_E_IO);
}

Test(fx_truth, wrong_elf_rejected)
{
	struct fx_truth t;
	struct fx_truth_hdr h;
	uint64_t *pcs;
	struct sy_diag d = { 0 };

	/* Other machine, then same machine but another build. */
	cr_expect_eq(fx_truth_load(&t, truth_path(&progs[0]), elf_path(&progs[1]),
				   &d), -SY_E_BUILD_ID);
	cr_expect_eq(fx_truth_load(&t, truth_path(&progs[1]), elf_path(&progs[2]),
				   NULL), -SY_E_BUILD_ID);
	cr_expect_null(t.insns);
	fx_truth_fini(&t);
	/* Without a build-id in the header, a non-zero bias on ET_EXEC is
	 * still caught, and PCs outside the image are. */
	cr_assert_eq(fx_truth_read(truth_path(&progs[1]), &h, &pcs), 0);
	h.build_id_len = 0;
	h.load_bias = 0x1000;
	cr_expect_eq(fx_truth_build(&t, &h, pcs, 10, elf_path(&progs[1]), NULL),
		     -SY_E_BAD_HEADER);
	h.load_bias = 0;
	pcs[3] = 0x10;
	cr_expect_eq(fx_truth_build(&t, &h, pcs, 10, elf_path(&progs[1]), &d),
		     -SY_E_NO_IMAGE);
	cr_expect_not_null(strstr(d.msg, "insn 3"), "%s", d.msg);
	pcs[3] = pcs[2] + 2;	/* misaligned A64 PC */
	cr_expect_eq(fx_truth_build(&t, &h, pcs, 10, elf_path(&progs[1]), NULL),
		     -SY_E_INVALID);
	cr_expect_eq(fx_truth_build(&t, &h, pcs, 0, elf_path(&progs[1]), NULL),
		     -SY_E_INVALID);
	free(pcs);
	fx_truth_fini(NULL);
}

/* ---- truth format version 2 ---------------------------------------------- */

static void hdr2(struct fx_truth_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->machine = FX_EM_AARCH64;
	h->build_id_len = 4;
	memcpy(h->build_id, "\x01\x02\x03\x04", 4);
	h->nobjs = 2;
	h->objs[0].bias = 0x5500846000;
	h->objs[0].map_start = 0x5500846000;
	h->objs[0].map_len = 0x1000;
	h->objs[0].flags = FX_OBJ_LOCAL;
	h->objs[0].build_id_len = 20;
	memset(h->objs[0].build_id, 0xab, 20);
	snprintf(h->objs[0].name, FX_TRUTH_NAME_MAX, "libfx-aarch64.so");
	h->objs[1].bias = 0x5500801000;
	h->objs[1].map_start = 0x5500801000;
	h->objs[1].map_len = 0x27000;
	h->objs[1].build_id_len = 20;
	memset(h->objs[1].build_id, 0xcd, 20);
	snprintf(h->objs[1].name, FX_TRUTH_NAME_MAX,
		 "/lib/ld-linux-aarch64.so.1");
}

/* The decompressed bytes of an encoded truth, for forging. */
static void enc_raw(const struct fx_buf *enc, struct fx_buf *raw)
{
	unsigned long long n = ZSTD_getFrameContentSize(enc->data, enc->len);

	fx_buf_init(raw);
	fx_buf_reserve(raw, (size_t)n);
	raw->len = ZSTD_decompress(raw->data, (size_t)n, enc->data, enc->len);
	cr_assert_eq(raw->len, n);
}

Test(fx_truth, format_v2_objects)
{
	const uint64_t pcs[] = { 0x400380, 0x400384, 0x5500846100, 0x400388 };
	struct fx_truth_hdr h, back;
	struct fx_buf enc, raw;
	uint64_t *got = NULL;

	hdr2(&h);
	fx_buf_init(&enc);
	cr_assert_eq(fx_truth_encode(&enc, &h, pcs, 4), 0);
	cr_assert_eq(fx_truth_decode(enc.data, enc.len, &back, &got), 0);
	cr_expect_eq(back.nobjs, 2);
	cr_expect_eq(memcmp(back.objs, h.objs, sizeof(h.objs)), 0);
	cr_expect_eq(memcmp(got, pcs, sizeof(pcs)), 0);
	free(got);
	enc_raw(&enc, &raw);
	cr_expect_eq(sy_le32(raw.data + 8), 2, "version 2 with objects");
	cr_expect_eq(decode_forged(raw.data, raw.len), 0, "the forger itself is sound");
	/* damage: each must be refused */
	raw.data[68] = 1;	/* reserved */
	cr_expect_eq(decode_forged(raw.data, raw.len), -SY_E_BAD_HEADER);
	raw.data[68] = 0;
	raw.data[72 + 32] = 2;	/* flags: unknown bit */
	cr_expect_eq(decode_forged(raw.data, raw.len), -SY_E_BAD_HEADER);
	raw.data[72 + 32] = FX_OBJ_LOCAL;
	raw.data[72 + 33] = 0;	/* build-id length */
	cr_expect_eq(decode_forged(raw.data, raw.len), -SY_E_BAD_HEADER);
	raw.data[72 + 33] = 20;
	raw.data[72 + 34] = 0xff;	/* name runs past the data */
	cr_expect_neq(decode_forged(raw.data, raw.len), 0);
	raw.data[72 + 34] = 16;
	raw.data[72 + 72] = '/';	/* a local object is a file name */
	cr_expect_eq(decode_forged(raw.data, raw.len), -SY_E_BAD_HEADER);
	fx_buf_fini(&raw);
	/* a program without other objects stays version 1 */
	h.nobjs = 0;
	fx_buf_fini(&enc);
	fx_buf_init(&enc);
	cr_assert_eq(fx_truth_encode(&enc, &h, pcs, 4), 0);
	enc_raw(&enc, &raw);
	cr_expect_eq(sy_le32(raw.data + 8), 1);
	fx_buf_fini(&raw);
	/* a system object named like a file, a local one like a path */
	hdr2(&h);
	h.objs[1].name[0] = 'x';
	cr_expect_eq(fx_truth_encode(&enc, &h, pcs, 4), -SY_E_INVALID);
	fx_buf_fini(&enc);
	/* a local object under the program's directory (tests/corpus), but
	 * never outside it, nor at an absolute path */
	hdr2(&h);
	fx_buf_init(&enc);
	snprintf(h.objs[0].name, FX_TRUTH_NAME_MAX,
		 "lib/aarch64-linux-gnu/libc.so.6");
	cr_expect_eq(fx_truth_encode(&enc, &h, pcs, 4), 0);
	cr_assert_eq(fx_truth_decode(enc.data, enc.len, &back, &got), 0);
	cr_expect_str_eq(back.objs[0].name, "lib/aarch64-linux-gnu/libc.so.6");
	free(got);
	fx_buf_fini(&enc);
	fx_buf_init(&enc);
	snprintf(h.objs[0].name, FX_TRUTH_NAME_MAX, "lib/../../etc/x.so");
	cr_expect_eq(fx_truth_encode(&enc, &h, pcs, 4), -SY_E_INVALID);
	fx_buf_fini(&enc);
	fx_buf_init(&enc);
	snprintf(h.objs[0].name, FX_TRUTH_NAME_MAX, "/lib/libc.so.6");
	cr_expect_eq(fx_truth_encode(&enc, &h, pcs, 4), -SY_E_INVALID);
	fx_buf_fini(&enc);
}

/* The native cross-check of the x86-64 run (ptrace single-stepping) is in
 * test_fx_programs.c, with the other x86-64 programs. */

/* Version 3: several thread streams, one after another. */
Test(fx_truth, format_v3_threads)
{
	const uint64_t pcs[] = { 0x400380, 0x400384, 0x400500, 0x400504,
				 0x400600 };
	struct fx_truth_hdr h, back;
	struct fx_buf enc, raw;
	uint64_t *got = NULL;

	memset(&h, 0, sizeof(h));
	h.machine = FX_EM_AARCH64;
	h.nstreams = 3;
	h.stream[1] = 2;
	h.stream[2] = 4;
	fx_buf_init(&enc);
	cr_assert_eq(fx_truth_encode(&enc, &h, pcs, 5), 0);
	cr_assert_eq(fx_truth_decode(enc.data, enc.len, &back, &got), 0);
	cr_expect_eq(back.nstreams, 3);
	cr_expect_eq(back.stream[0], 0);
	cr_expect_eq(back.stream[1], 2);
	cr_expect_eq(back.stream[2], 4);
	cr_expect_eq(back.nobjs, 0);
	cr_expect_eq(memcmp(got, pcs, sizeof(pcs)), 0);
	free(got);
	enc_raw(&enc, &raw);
	cr_expect_eq(sy_le32(raw.data + 8), 3, "version 3 with threads");
	cr_expect_eq(sy_le32(raw.data + 68), 3);
	cr_expect_eq(decode_forged(raw.data, raw.len), 0);
	raw.data[72] = 5;	/* stream 1 starts past the run */
	cr_expect_eq(decode_forged(raw.data, raw.len), -SY_E_BAD_HEADER);
	raw.data[72] = 4;	/* streams 1 and 2 start together */
	cr_expect_eq(decode_forged(raw.data, raw.len), -SY_E_BAD_HEADER);
	raw.data[72] = 2;
	raw.data[68] = 1;	/* one stream is not version 3 */
	cr_expect_eq(decode_forged(raw.data, raw.len), -SY_E_BAD_HEADER);
	fx_buf_fini(&raw);
	fx_buf_fini(&enc);
	/* out of order on the way in */
	h.stream[2] = 1;
	fx_buf_init(&enc);
	cr_expect_eq(fx_truth_encode(&enc, &h, pcs, 5), -SY_E_INVALID);
	fx_buf_fini(&enc);
}

/* mt-<arch>: four threads recorded by pcplugin, one stream each.  The
 * main thread starts at the entry point; every other starts right after
 * a clone syscall of the main thread (the child returns where its parent
 * does), and each stream ends with its thread's exit syscall (next 0). */
static void mt_streams(const char *name)
{
	struct prog p = { { 0 }, 0, 0, 0, 0 };
	struct fx_truth t;
	size_t clones = 0;

	snprintf(p.name, sizeof(p.name), "%s", name);
	load(&t, &p);
	cr_assert_eq(t.hdr.nstreams, 4, "%s: streams", name);
	for (uint32_t k = 0; k < 4; k++) {
		size_t a = t.hdr.stream[k];
		size_t b = k + 1 < 4 ? t.hdr.stream[k + 1] : t.n;
		const struct fx_insn *last = &t.insns[b - 1];

		cr_expect_eq(last->kind, SY_BR_SYSCALL, "%s: stream %u ends "
			     "elsewhere than a syscall", name, k);
		cr_expect_eq(last->next, 0, "%s: stream %u runs on", name, k);
		for (size_t i = a; i + 1 < b; i++)
			cr_expect_neq(t.insns[i].next, 0, "%s: stream %u "
				      "ends early at %zu", name, k, i);
		if (k == 0) {
			cr_expect_eq(t.insns[0].pc,
				     fx_classifier_elf(t.cls)->entry);
			continue;
		}
		/* a syscall of stream 0 returns where stream k starts */
		for (size_t i = 0; i < t.hdr.stream[1]; i++)
			if (t.insns[i].kind == SY_BR_SYSCALL &&
			    t.insns[i].pc + t.insns[i].size == t.insns[a].pc) {
				clones++;
				break;
			}
	}
	cr_expect_eq(clones, 3, "%s: thread streams that start after a clone",
		     name);
	fx_truth_fini(&t);
}

Test(fx_truth, mt_program_thread_streams)
{
	mt_streams("mt-aarch64");
	mt_streams("mt-x86_64");
}

/* ---- version 4: objects over time ---------------------------------------- */

Test(fx_truth, format_v4_times)
{
	const uint64_t pcs[] = { 0x400380, 0x400384, 0x5500846100, 0x400388 };
	struct fx_truth_hdr h, back;
	struct fx_buf enc, raw;
	uint64_t *got = NULL;
	size_t t0;

	hdr2(&h);
	h.objs[0].from = 2;
	h.objs[0].until = 3;
	fx_buf_init(&enc);
	cr_assert_eq(fx_truth_encode(&enc, &h, pcs, 4), 0);
	cr_assert_eq(fx_truth_decode(enc.data, enc.len, &back, &got), 0);
	cr_expect_eq(back.objs[0].from, 2);
	cr_expect_eq(back.objs[0].until, 3);
	cr_expect_eq(back.objs[1].from, 0);
	cr_expect_eq(back.objs[1].until, 0);
	cr_expect_eq(memcmp(back.objs, h.objs, sizeof(h.objs)), 0);
	cr_expect_eq(memcmp(got, pcs, sizeof(pcs)), 0);
	free(got);
	enc_raw(&enc, &raw);
	cr_expect_eq(sy_le32(raw.data + 8), 4, "version 4 with times");
	cr_expect_eq(decode_forged(raw.data, raw.len), 0);
	/* the times follow the objects (72 bytes and the name each) */
	t0 = 72 + 72 + strlen(h.objs[0].name) + 72 + strlen(h.objs[1].name);
	cr_expect_eq(sy_le64(raw.data + t0), 2);
	cr_expect_eq(sy_le64(raw.data + t0 + 8), 3);
	raw.data[t0] = 3;	/* from == until: mapped over nothing */
	cr_expect_eq(decode_forged(raw.data, raw.len), -SY_E_BAD_HEADER);
	raw.data[t0] = 0;
	raw.data[t0 + 8] = 5;	/* until past the run */
	cr_expect_eq(decode_forged(raw.data, raw.len), -SY_E_BAD_HEADER);
	raw.data[t0 + 8] = 0;	/* no time at all is not version 4 */
	cr_expect_eq(decode_forged(raw.data, raw.len), -SY_E_BAD_HEADER);
	fx_buf_fini(&raw);
	fx_buf_fini(&enc);
	/* a time is an index of the one stream */
	fx_buf_init(&enc);
	h.nstreams = 2;
	h.stream[1] = 3;
	cr_expect_eq(fx_truth_encode(&enc, &h, pcs, 4), -SY_E_INVALID);
	h.nstreams = 0;
	h.objs[0].from = 5;
	h.objs[0].until = 0;
	cr_expect_eq(fx_truth_encode(&enc, &h, pcs, 4), -SY_E_INVALID);
	fx_buf_fini(&enc);
	/* without times the bytes stay version 2 */
	hdr2(&h);
	fx_buf_init(&enc);
	cr_assert_eq(fx_truth_encode(&enc, &h, pcs, 4), 0);
	enc_raw(&enc, &raw);
	cr_expect_eq(sy_le32(raw.data + 8), 2);
	fx_buf_fini(&raw);
	fx_buf_fini(&enc);
}

/* Two objects at one address one after the other: dynfx-aarch64's libfx,
 * and the same file 4 bytes further (another code at each address) from
 * the first index after libfx last ran.  Each PC is classified against
 * the one mapped when it ran; a PC of libfx before its mapping is in no
 * object. */
Test(fx_truth, objects_over_time)
{
	const char *elf = "tests/fixtures/programs/bin/dynfx-aarch64";
	struct fx_truth_hdr h;
	struct fx_truth t;
	struct fx_class a, b;
	uint64_t *pcs = NULL, addr;
	size_t first = SIZE_MAX, last = 0, k;
	int lib = -1;

	cr_assert_eq(fx_truth_read("tests/fixtures/truth/dynfx-aarch64.truth",
				   &h, &pcs), 0);
	for (uint32_t o = 0; o < h.nobjs; o++)
		if (h.objs[o].flags & FX_OBJ_LOCAL)
			lib = (int)o;
	cr_assert_geq(lib, 0);
	for (size_t i = 0; i < h.count; i++)
		if (pcs[i] - h.objs[lib].map_start < h.objs[lib].map_len) {
			if (first == SIZE_MAX)
				first = i;
			last = i;
		}
	cr_assert_lt(last + 1, h.count, "libfx runs, and not last");
	addr = pcs[last];
	k = last + 1;
	h.objs[h.nobjs] = h.objs[lib];
	h.objs[h.nobjs].bias += 4;
	h.objs[h.nobjs].map_start += 4;
	h.objs[h.nobjs].from = k;
	h.objs[lib].until = k;
	h.nobjs++;
	cr_assert_eq(fx_truth_build(&t, &h, pcs, h.count, elf, NULL), 0);
	cr_expect_eq(fx_truth_object_at_idx(&t, addr, last, NULL, NULL),
		     lib + 1);
	cr_expect_eq(fx_truth_object_at_idx(&t, addr, k, NULL, NULL),
		     (int)h.nobjs);
	/* at k, addr holds what addr - 4 held before k */
	cr_assert_eq(fx_truth_classify_idx(&t, addr, k, &a), 0);
	cr_assert_eq(fx_truth_classify_idx(&t, addr - 4, last, &b), 0);
	cr_expect_eq(a.size, b.size);
	cr_expect_eq(a.kind, b.kind);
	cr_expect_eq(a.has_target, b.has_target);
	if (a.has_target)
		cr_expect_eq(a.target, b.target + 4);
	fx_truth_fini(&t);
	/* libfx mapped only after its first PC ran: that PC is in no object */
	h.objs[lib].from = first + 1;
	cr_expect_eq(fx_truth_build(&t, &h, pcs, h.count, elf, NULL),
		     -SY_E_NO_IMAGE);
	free(pcs);
}
