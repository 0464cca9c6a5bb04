/* Tests for the shadow stack's marking of a run (fx_shadow.h): signal
 * deliveries, rt_sigreturns and non-local exits, on hand-made runs whose
 * right answer follows from the kernel's signal ABI (a handler returns to
 * its sa_restorer trampoline, rt_sigreturn resumes the interrupted code)
 * and from what a frame-pointer walker finds after a longjmp.  The marks
 * on the recorded programs are checked in test_fx_programs.c. */
#include <criterion/criterion.h>
#include <string.h>

#include "fx_shadow.h"
#include "sy_error.h"

/* ---- the marking rules on a hand-made run ---------------------------------- */

static int entries_hand(void *ctx, uint64_t a, size_t at)
{
	(void)ctx;
	(void)at;
	return a == 0x200 || a == 0x300 || a == 0x400 || a == 0x500 ||
	       a == 0x600 || a == 0x700 || a == 0x800;
}

Test(fx_shadow, marks_signals_and_longjmp)
{
	struct fx_insn run[] = {
		/* main calls f */
		{ 0x100, 0x200, 5, SY_BR_CALL, 0, 0, 0 },
		/* f's syscall: a signal is delivered, handler h */
		{ 0x200, 0x500, 4, SY_BR_SYSCALL, 0, 0, 0 },
		{ 0x500, 0x600, 5, SY_BR_CALL, 0, 0, 0 },	/* h calls g */
		{ 0x600, 0x505, 1, SY_BR_RET, 0, 0, 0 },
		{ 0x505, 0x700, 1, SY_BR_RET, 0, 0, 0 },	/* to the trampoline */
		{ 0x700, 0x204, 4, SY_BR_SYSCALL, 0, 0, 0 },	/* rt_sigreturn */
		{ 0x204, 0x300, 5, SY_BR_CALL, 0, 0, 0 },	/* setjmp */
		{ 0x300, 0x209, 1, SY_BR_RET, 0, 0, 0 },
		{ 0x209, 0x400, 5, SY_BR_CALL, 0, 0, 0 },	/* k */
		{ 0x400, 0x209, 4, SY_BR_IND_JUMP, 0, 0, 0 },	/* longjmp */
		{ 0x209, 0x800, 4, SY_BR_IND_JUMP, 0, 0, 0 },	/* tail call */
		{ 0x800, 0x105, 1, SY_BR_RET, 0, 0, 0 },
		{ 0x105, 0, 4, SY_BR_SYSCALL, 0, 0, 0 },	/* exit */
	};
	const size_t n = sizeof(run) / sizeof(run[0]);
	struct fx_shadow_stack s;
	uint64_t chain[8];
	int nc;

	cr_assert_eq(fx_shadow_mark(run, n, entries_hand, NULL, NULL), 0);
	cr_expect_eq(run[1].flags, FX_INSN_SIGNAL);
	cr_expect_eq(run[1].link, 0x700, "learnt from the handler's return");
	cr_expect_eq(run[5].flags, FX_INSN_SIGRETURN);
	cr_expect_eq(run[9].flags, FX_INSN_UNWIND);
	cr_expect_eq(run[9].depth, 1, "back in f: main's call is left");
	cr_expect_eq(run[10].flags, 0, "a jump to an entry is a tail call");
	cr_expect_eq(run[12].flags, 0, "exit is no discontinuity");
	fx_shadow_init(&s);
	for (size_t i = 0; i < n; i++) {
		if (run[i].pc == 0x600) {
			/* in g, called by the handler, entered from f */
			nc = fx_shadow_callchain(&s, 0x600, chain, 8);
			cr_expect_eq(nc, 4);
			cr_expect(chain[1] == 0x505 && chain[2] == 0x700 &&
				  chain[3] == 0x105);
		}
		cr_expect_eq(fx_shadow_step(&s, &run[i]), 0, "step %zu", i);
	}
	cr_expect_eq(s.depth, 0);
	fx_shadow_fini(&s);
	/* without the marks the handler's return is a mismatch */
	fx_shadow_init(&s);
	for (size_t i = 0; i < 5; i++) {
		struct fx_insn in = run[i];

		in.flags = 0;
		if (i == 4)
			cr_expect_eq(fx_shadow_step(&s, &in),
				     FX_SHADOW_MISMATCH);
		else
			fx_shadow_step(&s, &in);
	}
	fx_shadow_fini(&s);
}

/* A handler that never returns takes the one trampoline of the run; with
 * two different ones its return address cannot be known. */
Test(fx_shadow, restorer_rules)
{
	struct fx_insn run[] = {
		{ 0x100, 0x500, 4, SY_BR_SYSCALL, 0, 0, 0 },	/* -> h1 */
		{ 0x500, 0x700, 1, SY_BR_RET, 0, 0, 0 },	/* h1 returns */
		{ 0x700, 0x104, 4, SY_BR_SYSCALL, 0, 0, 0 },	/* rt_sigreturn */
		{ 0x104, 0x600, 4, SY_BR_SYSCALL, 0, 0, 0 },	/* -> h2 */
		{ 0x600, 0x999, 4, SY_BR_IND_JUMP, 0, 0, 0 },	/* never returns */
		{ 0x999, 0, 4, SY_BR_SYSCALL, 0, 0, 0 },
	};
	struct sy_diag d = { 0 };

	cr_assert_eq(fx_shadow_mark(run, 6, entries_hand, NULL, &d), 0);
	cr_expect_eq(run[3].flags, FX_INSN_SIGNAL);
	cr_expect_eq(run[3].link, 0x700, "the run's one trampoline");
	/* a second trampoline makes it unknowable */
	{
		struct fx_insn two[9];

		memcpy(two, run, 4 * sizeof(*run));
		two[3].next = 0x800;
		two[4] = (struct fx_insn){ 0x800, 0x710, 1, SY_BR_RET, 0, 0, 0 };
		two[5] = (struct fx_insn){ 0x710, 0x108, 4, SY_BR_SYSCALL, 0, 0,
					   0 };
		two[6] = (struct fx_insn){ 0x108, 0x600, 4, SY_BR_SYSCALL, 0,
					   0, 0 };
		two[7] = (struct fx_insn){ 0x600, 0x999, 4, SY_BR_IND_JUMP, 0,
					   0, 0 };
		two[8] = (struct fx_insn){ 0x999, 0, 4, SY_BR_SYSCALL, 0, 0, 0 };
		cr_expect_eq(fx_shadow_mark(two, 9, entries_hand, NULL, &d),
			     -SY_E_DECODE);
		cr_expect(strstr(d.msg, "sa_restorer"), "%s", d.msg);
	}
	cr_expect_eq(fx_shadow_mark(NULL, 1, entries_hand, NULL, NULL),
		     -SY_E_INVALID);
}
