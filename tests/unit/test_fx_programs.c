/* The fixture programs of real shapes (tests/fixtures/programs: interp,
 * deep, sigjmp, dynfx + libfx) and what their ground truth needs beyond
 * branchy's: other mapped objects (truth format version 2), signals and
 * non-local exits on the shadow stack (fx_shadow.h).
 *
 * Checked against facts that do not come from the code under test:
 *   - the instruction semantics (a non-branch falls through, a direct
 *     branch goes to its encoded target, a return to its call site) and
 *     the kernel's signal ABI (a handler is entered at its first
 *     instruction and returns to the sa_restorer trampoline, rt_sigreturn
 *     resumes at the interrupted instruction);
 *   - the sources: which functions tail-call, which raise and handle
 *     which signals and how often, where longjmp lands;
 *   - the native CPU: the x86-64 runs single-stepped with ptrace give the
 *     identical PC lists (the dynamically linked one from its entry point
 *     on, with libfx wherever the host's ld.so put it);
 *   - hand-made runs for the marking rules, and negative controls: the
 *     same checks fail on a run whose marks were removed.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <sys/user.h>
#endif

#include "fx_buf.h"
#include "fx_classify.h"
#include "fx_truth.h"
#include "sy_error.h"
#include "sy_test.h"

#define BIN "tests/fixtures/programs/bin/"
#define TRUTH "tests/fixtures/truth/"

struct prog {
	char name[32];
	uint16_t machine;
};

static struct prog progs[] = {
	{ "interp-x86_64", FX_EM_X86_64 },  { "interp-aarch64", FX_EM_AARCH64 },
	{ "deep-x86_64", FX_EM_X86_64 },    { "deep-aarch64", FX_EM_AARCH64 },
	{ "sigjmp-x86_64", FX_EM_X86_64 },  { "sigjmp-aarch64", FX_EM_AARCH64 },
	{ "dynfx-x86_64", FX_EM_X86_64 },   { "dynfx-aarch64", FX_EM_AARCH64 },
};
#define NPROGS (sizeof(progs) / sizeof(progs[0]))

static void load_named(struct fx_truth *t, const char *name)
{
	char elf[256], tr[256];
	struct sy_diag d = { 0 };
	int err;

	snprintf(elf, sizeof(elf), BIN "%s", name);
	snprintf(tr, sizeof(tr), TRUTH "%s.truth", name);
	err = fx_truth_load(t, tr, elf, &d);
	cr_assert_eq(err, 0, "%s: %s (%s)", name, sy_errname(err), d.msg);
}

ParameterizedTestParameters(fx_programs, run_is_consistent)
{
	return cr_make_param_array(struct prog, progs, NPROGS);
}

ParameterizedTestParameters(fx_programs, calls_balance)
{
	return cr_make_param_array(struct prog, progs, NPROGS);
}

/* The function containing run-time address @a, or "". */
static const char *func_of(const struct fx_truth *t, uint64_t a)
{
	struct fx_classifier *c;
	uint64_t bias;
	const char *name;

	if (fx_truth_object_at(t, a, &c, &bias) < 0 ||
	    fx_classifier_symbol(c, a - bias, &name, NULL, NULL) != 0)
		return "";
	return name;
}

static int is_entry(const struct fx_truth *t, uint64_t a, const char *fn)
{
	struct fx_classifier *c;
	uint64_t bias, start;
	const char *name;

	return fx_truth_object_at(t, a, &c, &bias) >= 0 &&
	       fx_classifier_symbol(c, a - bias, &name, &start, NULL) == 0 &&
	       start == a - bias && (!fn || !strcmp(name, fn));
}

/* Instructions whose successor contradicts their semantics.  A system call
 * returns to the next instruction unless the run marked it: a signal
 * delivered there enters a handler (a function's first instruction), an
 * rt_sigreturn resumes right after the system call that was interrupted. */
static size_t flow_violations(const struct fx_truth *t, char *msg, size_t len)
{
	size_t bad = 0;

	msg[0] = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct fx_insn *in = &t->insns[i];
		uint64_t fall = in->pc + in->size;
		struct fx_class c;
		int ok;

		if (fx_truth_classify(t, in->pc, &c) != 0)
			ok = 0;
		else if (i + 1 == t->n)
			ok = in->next == 0;
		else if (in->next != t->insns[i + 1].pc)
			ok = 0;
		else if (in->kind == SY_BR_NONE)
			ok = in->next == fall;
		else if (in->kind == SY_BR_SYSCALL)
			ok = in->next == fall ||
			     ((in->flags & FX_INSN_SIGNAL) &&
			      is_entry(t, in->next, NULL)) ||
			     (in->flags & FX_INSN_SIGRETURN);
		else if (in->kind == SY_BR_COND)
			ok = in->next == c.target || in->next == fall;
		else if (in->kind == SY_BR_JUMP || in->kind == SY_BR_CALL)
			ok = in->next == c.target;
		else
			ok = fx_truth_object_at(t, in->next, NULL, NULL) >= 0;
		if (!ok && bad++ == 0)
			snprintf(msg, len, "insn %zu at %#llx (%s) -> %#llx", i,
				 (unsigned long long)in->pc,
				 sy_branch_kind_name(in->kind),
				 (unsigned long long)in->next);
	}
	return bad;
}

ParameterizedTest(const struct prog *p, fx_programs, run_is_consistent)
{
	struct fx_truth t;
	char msg[256];
	size_t v;

	load_named(&t, p->name);
	cr_expect_eq(t.hdr.machine, p->machine);
	cr_expect(t.n >= 5000 && t.n <= 200000, "%s: %zu insns", p->name, t.n);
	cr_expect_eq(t.insns[t.n - 1].next, 0);
	v = flow_violations(&t, msg, sizeof(msg));
	cr_expect_eq(v, 0, "%s: %zu violations, first: %s", p->name, v, msg);
	fx_truth_fini(&t);
}

/* Every return goes back to its call site on the marked run; the run ends
 * in _start's `call sys_exit` frame, as branchy's does. */
ParameterizedTest(const struct prog *p, fx_programs, calls_balance)
{
	struct fx_truth t;
	struct fx_shadow_stack s;
	size_t bad = 0;

	load_named(&t, p->name);
	fx_shadow_init(&s);
	for (size_t i = 0; i < t.n; i++) {
		int r = fx_shadow_step(&s, &t.insns[i]);

		cr_assert_geq(r, 0);
		bad += r == FX_SHADOW_MISMATCH;
	}
	cr_expect_eq(bad, 0, "%s: %zu returns off the shadow stack", p->name,
		     bad);
	cr_expect_eq(s.depth, 1, "%s: depth %zu at exit", p->name, s.depth);
	fx_shadow_fini(&s);
	fx_truth_fini(&t);
}

/* ---- what each program exists for ---------------------------------------- */

static size_t distinct(uint64_t *v, size_t *n, size_t cap, uint64_t x)
{
	for (size_t k = 0; k < *n; k++)
		if (v[k] == x)
			return *n;
	if (*n < cap)
		v[(*n)++] = x;
	return *n;
}

/* interp: the switch dispatches through its jump table to every opcode's
 * case, the threaded machine jumps from many handlers (one computed goto
 * each) to every handler. */
static void interp_checks(const char *name)
{
	struct fx_truth t;
	uint64_t tab[32], sites[32], gotos[32];
	size_t ntab = 0, nsites = 0, ngotos = 0;

	load_named(&t, name);
	for (size_t i = 0; i < t.n; i++) {
		const struct fx_insn *in = &t.insns[i];
		const char *f = func_of(&t, in->pc);

		if (in->kind != SY_BR_IND_JUMP || strcmp(f, func_of(&t, in->next)))
			continue;
		if (!strcmp(f, "run_switch"))
			distinct(tab, &ntab, 32, in->next);
		if (!strcmp(f, "run_goto")) {
			distinct(sites, &nsites, 32, in->pc);
			distinct(gotos, &ngotos, 32, in->next);
		}
	}
	/* 17 opcodes, HALT leaves by returning */
	cr_expect_geq(ntab, 16, "%s: %zu jump-table targets", name, ntab);
	cr_expect_geq(nsites, 8, "%s: %zu computed-goto sites", name, nsites);
	cr_expect_geq(ngotos, 16, "%s: %zu computed-goto targets", name,
		      ngotos);
	fx_truth_fini(&t);
}

/* deep: deeper than perf's 127 frames, one frame per level although every
 * level is entered by a tail call (direct and indirect), and the mutual
 * tail recursion at the bottom does not grow the stack. */
static void deep_checks(const char *name)
{
	struct fx_truth t;
	struct fx_shadow_stack s;
	size_t tail = 0, itail = 0, pingpong = 0, at_ping = 0;

	load_named(&t, name);
	fx_shadow_init(&s);
	for (size_t i = 0; i < t.n; i++) {
		const struct fx_insn *in = &t.insns[i];
		const char *f = func_of(&t, in->pc);

		if (in->kind == SY_BR_JUMP && !strcmp(f, "hop_direct") &&
		    is_entry(&t, in->next, "descend"))
			tail++;
		if (in->kind == SY_BR_IND_JUMP && !strcmp(f, "hop_indirect") &&
		    is_entry(&t, in->next, "descend"))
			itail++;
		if (in->kind == SY_BR_JUMP && !strcmp(f, "ping") &&
		    is_entry(&t, in->next, "pong")) {
			pingpong++;
			at_ping = at_ping ? at_ping : s.depth;
		}
		fx_shadow_step(&s, in);
	}
	cr_expect_geq(s.max_depth, 200, "%s: max depth %zu", name,
		      s.max_depth);
	cr_expect_geq(tail, 300, "%s: %zu direct tail calls", name, tail);
	cr_expect_geq(itail, 100, "%s: %zu indirect tail calls", name, itail);
	cr_expect_geq(pingpong, 30, "%s: %zu ping -> pong", name, pingpong);
	cr_expect_geq(at_ping, 128, "%s: first ping at depth %zu", name,
		      at_ping);
	fx_shadow_fini(&s);
	fx_truth_fini(&t);
}

Test(fx_programs, interp_dispatches_both_ways)
{
	interp_checks("interp-x86_64");
	interp_checks("interp-aarch64");
}

Test(fx_programs, deep_recursion_with_tail_calls)
{
	deep_checks("deep-x86_64");
	deep_checks("deep-aarch64");
}

/* sigjmp (sigjmp.c): 10 SIGUSR1 from run_signals, one SIGUSR2 with a
 * nested SIGUSR1, then 10 passes of run_escapes, 5 of them through
 * SIGUSR2's handler that longjmps: 17 deliveries, 12 returns through
 * the trampoline, 10 longjmps, every one back into run_escapes right
 * after its call to fx_setjmp. */
static void sigjmp_checks(const char *name)
{
	struct fx_truth t;
	struct fx_shadow_stack s;
	size_t sig = 0, sigret = 0, unwind = 0, nested = 0, escaped = 0;
	uint64_t restorer = 0, setjmp_ret = 0;

	load_named(&t, name);
	fx_shadow_init(&s);
	for (size_t i = 0; i < t.n; i++) {
		const struct fx_insn *in = &t.insns[i];

		if (in->kind == SY_BR_CALL && is_entry(&t, in->next, "fx_setjmp"))
			setjmp_ret = in->pc + in->size;
		if (in->flags & FX_INSN_SIGNAL) {
			/* inside a handler: its trampoline frame is active */
			for (size_t k = 0; restorer && k < s.depth; k++)
				if (s.ret[k] == restorer) {
					nested++;
					break;
				}
			sig++;
			cr_expect(is_entry(&t, in->link, "fx_sigreturn"),
				  "%s: insn %zu returns to %#llx", name, i,
				  (unsigned long long)in->link);
			cr_expect(is_entry(&t, in->next, NULL));
			restorer = in->link;
			escaped += is_entry(&t, in->next, "on_usr2_escape");
		}
		if (in->flags & FX_INSN_SIGRETURN) {
			sigret++;
			cr_expect(!strcmp(func_of(&t, in->pc), "fx_sigreturn"));
		}
		if (in->flags & FX_INSN_UNWIND) {
			unwind++;
			cr_expect_eq(in->kind, SY_BR_IND_JUMP);
			cr_expect_eq(in->next, setjmp_ret, "%s: insn %zu", name,
				     i);
			/* gcc may clone it: run_escapes.constprop.0 */
			cr_expect(!strncmp(func_of(&t, in->next),
					   "run_escapes", 11));
			/* run_escapes' frame is _start's, prog_main's,
			 * run_escapes' own return addresses deep */
			fx_shadow_step(&s, in);
			cr_expect_eq(s.depth, 2, "%s: insn %zu depth %zu", name,
				     i, s.depth);
			continue;
		}
		fx_shadow_step(&s, in);
		/* the handler's caller, as the FP walker finds it */
		if (i && (t.insns[i - 1].flags & FX_INSN_SIGNAL))
			cr_expect_eq(s.ret[s.depth - 1], restorer);
	}
	cr_expect_eq(sig, 17, "%s: %zu deliveries", name, sig);
	cr_expect_eq(sigret, 12, "%s: %zu rt_sigreturns", name, sigret);
	cr_expect_eq(unwind, 10, "%s: %zu longjmps", name, unwind);
	cr_expect_eq(nested, 1, "%s: %zu nested", name, nested);
	cr_expect_eq(escaped, 5, "%s: %zu handlers left by longjmp", name,
		     escaped);
	fx_shadow_fini(&s);
	fx_truth_fini(&t);
}

Test(fx_programs, sigjmp_signals_and_longjmp)
{
	sigjmp_checks("sigjmp-x86_64");
	sigjmp_checks("sigjmp-aarch64");
}

/* dynfx: three objects, each where the truth says; calls into libfx go
 * through the program's PLT (bind-now: straight to the function ld.so
 * bound, for the IFUNC fx_checksum the implementation its resolver
 * picked), libfx calls its own exported fx_call_cmp through its PLT and
 * that one the program's comparison functions back through a pointer
 * (an indirect tail call), one of which calls into libfx again. */
static void dynfx_checks(const char *name, const char *lib)
{
	struct fx_truth t;
	struct fx_shadow_stack s;
	const struct fx_truth_obj *olib = NULL, *osys = NULL;
	size_t inlib = 0, plt_qsort = 0, plt_bsearch = 0, plt_ifunc = 0;
	size_t lib_plt = 0, callbacks = 0, reentry = 0;

	load_named(&t, name);
	cr_assert_eq(t.hdr.nobjs, 2, "%s", name);
	for (uint32_t k = 0; k < 2; k++) {
		if (t.hdr.objs[k].flags & FX_OBJ_LOCAL)
			olib = &t.hdr.objs[k];
		else
			osys = &t.hdr.objs[k];
	}
	cr_assert(olib && osys, "%s: one library, one ld.so", name);
	cr_expect_str_eq(olib->name, lib);
	cr_expect(!strncmp(osys->name, "/lib", 4) && strstr(osys->name, "ld-"),
		  "%s: interpreter %s", name, osys->name);
	cr_expect(olib->bias && !(olib->bias & 0xfff) &&
		  !(osys->bias & 0xfff));
	fx_shadow_init(&s);
	for (size_t i = 0; i < t.n; i++) {
		const struct fx_insn *in = &t.insns[i];
		int obj = fx_truth_object_at(&t, in->pc, NULL, NULL);
		const char *f = func_of(&t, in->pc);

		inlib += obj == 1;
		/* a PLT stub: no function symbol covers it */
		if (in->kind == SY_BR_IND_JUMP && !f[0] && obj == 0) {
			plt_qsort += is_entry(&t, in->next, "fx_qsort");
			plt_bsearch += is_entry(&t, in->next, "fx_bsearch");
			plt_ifunc += is_entry(&t, in->next, "checksum_words");
		}
		if (in->kind == SY_BR_IND_JUMP && !f[0] && obj == 1)
			lib_plt += is_entry(&t, in->next, "fx_call_cmp");
		/* fx_call_cmp's `return cmp(a, b)`: gcc makes it an
		 * indirect tail call */
		if ((in->kind == SY_BR_IND_CALL ||
		     in->kind == SY_BR_IND_JUMP) && obj == 1 &&
		    fx_truth_object_at(&t, in->next, NULL, NULL) == 0 &&
		    is_entry(&t, in->next, NULL))
			callbacks++;
		/* from a callback into libfx again, libfx frames below */
		if (in->kind == SY_BR_CALL && !strcmp(f, "cmp_rec") &&
		    s.depth >= 3)
			reentry++;
		fx_shadow_step(&s, in);
	}
	cr_expect_gt(inlib, t.n / 2, "%s: %zu of %zu PCs in libfx", name,
		     inlib, t.n);
	cr_expect_eq(plt_qsort, 4, "%s: %zu fx_qsort via the PLT", name,
		     plt_qsort);
	cr_expect_eq(plt_bsearch, 32, "%s: %zu fx_bsearch", name, plt_bsearch);
	cr_expect_gt(plt_ifunc, 100, "%s: %zu fx_checksum -> checksum_words",
		     name, plt_ifunc);
	cr_expect_eq(lib_plt, callbacks, "%s: %zu fx_call_cmp via libfx's PLT, "
		     "%zu callbacks", name, lib_plt, callbacks);
	cr_expect_eq(callbacks, 537, "%s: %zu callbacks (the program reports "
		     "callbacks=537)", name, callbacks);
	cr_expect_gt(reentry, 0, "%s: no call back into libfx", name);
	fx_shadow_fini(&s);
	fx_truth_fini(&t);
}

Test(fx_programs, dynfx_objects_plt_and_callbacks)
{
	dynfx_checks("dynfx-x86_64", "libfx-x86_64.so");
	dynfx_checks("dynfx-aarch64", "libfx-aarch64.so");
}

/* Negative control: without the marks the same runs do not balance (the
 * handlers' returns to the trampoline and the longjmps contradict a plain
 * call / return stack), so the marking is what makes the sigjmp
 * callchains right. */
Test(fx_programs, unmarked_signals_do_not_balance)
{
	static const char *const names[] = { "sigjmp-x86_64", "sigjmp-aarch64" };

	for (size_t k = 0; k < 2; k++) {
		struct fx_truth t;
		struct fx_shadow_stack s;
		size_t bad = 0;

		load_named(&t, names[k]);
		fx_shadow_init(&s);
		for (size_t i = 0; i < t.n; i++) {
			t.insns[i].flags = 0;
			bad += fx_shadow_step(&s, &t.insns[i]) ==
			       FX_SHADOW_MISMATCH;
		}
		cr_expect_geq(bad, 12, "%s: %zu mismatches", names[k], bad);
		fx_shadow_fini(&s);
		fx_truth_fini(&t);
	}
}

/* The committed dynamic truths refuse a libfx with another build-id, and
 * a stored PC in ld.so (a system object: never opened at test time). */
Test(fx_programs, truth_objects_are_checked)
{
	struct fx_truth_hdr h;
	struct fx_truth t;
	struct sy_diag d = { 0 };
	uint64_t *pcs = NULL;
	uint32_t sys = 0;

	cr_assert_eq(fx_truth_read(TRUTH "dynfx-aarch64.truth", &h, &pcs), 0);
	cr_assert_eq(fx_truth_build(&t, &h, pcs, (size_t)h.count,
				    BIN "dynfx-aarch64", &d), 0, "%s", d.msg);
	fx_truth_fini(&t);
	for (uint32_t k = 0; k < h.nobjs; k++) {
		if (!(h.objs[k].flags & FX_OBJ_LOCAL)) {
			sys = k;
			continue;
		}
		h.objs[k].build_id[0] ^= 1;
		cr_expect_eq(fx_truth_build(&t, &h, pcs, (size_t)h.count,
					    BIN "dynfx-aarch64", &d),
			     -SY_E_BUILD_ID);
		h.objs[k].build_id[0] ^= 1;
	}
	pcs[h.count / 2] = h.objs[sys].map_start + 0x100;
	cr_expect_eq(fx_truth_build(&t, &h, pcs, (size_t)h.count,
				    BIN "dynfx-aarch64", &d),
		     -SY_E_NO_IMAGE, "%s", d.msg);
	free(pcs);
}

/* ---- native cross-check ---------------------------------------------------- */

#if defined(__x86_64__)
struct native {
	uint64_t *v;
	size_t n, cap;
	uint64_t lib_lo, lib_hi;	/* libfx's text, natively */
};

/* libfx's executable mapping in the stopped child @pid. */
static void native_lib(pid_t pid, const char *lib, struct native *r)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char perm[8];

		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perm) == 3 &&
		    perm[2] == 'x' && strstr(line, lib)) {
			r->lib_lo = lo;
			r->lib_hi = hi;
		}
	}
	fclose(f);
	cr_assert(r->lib_hi, "%s not mapped", lib);
}

/* Single-steps @path natively and keeps its PCs from @entry on (a
 * dynamically linked program's ld.so startup is left out; with @lib, where
 * the host's ld.so mapped it is read there).  The trap the kernel reports
 * after a system call on whose return it then delivers a signal stopped
 * before that next instruction ran: it is dropped, and the signal passed
 * on. */
static void native_pcs(const char *path, uint64_t entry, const char *lib,
		       struct native *r)
{
	pid_t pid;
	int st, on = 0, out[2];

	memset(r, 0, sizeof(*r));
	r->cap = 1 << 16;
	r->v = malloc(r->cap * sizeof(*r->v));
	cr_assert_not_null(r->v);
	/* the program's report lines go to a pipe that stays open until it
	 * exits (a few hundred bytes: they fit its buffer) */
	cr_assert_eq(pipe(out), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(out[1], 1);
		close(out[0]);
		close(out[1]);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP,
		  "child did not stop after exec (ptrace not permitted?)");
	while (WIFSTOPPED(st)) {
		struct user_regs_struct regs;
		int sig = WSTOPSIG(st), pass = 0;

		cr_assert_eq(ptrace(PTRACE_GETREGS, pid, NULL, &regs), 0);
		if (sig != SIGTRAP) {
			pass = sig;
			if (r->n && r->v[r->n - 1] == regs.rip)
				r->n--;
		} else if (on || regs.rip == entry) {
			if (!on && lib)
				native_lib(pid, lib, r);
			on = 1;
			if (r->n == r->cap) {
				r->cap *= 2;
				r->v = realloc(r->v, r->cap * sizeof(*r->v));
				cr_assert_not_null(r->v);
			}
			r->v[r->n++] = regs.rip;
			cr_assert_lt(r->n, 2000000, "runaway");
		}
		cr_assert_eq(ptrace(PTRACE_SINGLESTEP, pid, NULL,
				    (void *)(intptr_t)pass), 0);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
	}
	close(out[0]);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
#endif

/* qemu's PC lists of the x86-64 programs (branchy's too) equal the CPU's
 * own; libfx is wherever the host's ld.so put it, so its PCs are compared
 * after moving them to where qemu had it.  ~250k single steps, 10 to 20
 * seconds. */
Test(fx_programs, x86_truth_equals_ptrace, .timeout = 120)
{
#if defined(__x86_64__)
	static const char *const names[] = { "branchy-x86_64", "interp-x86_64",
					     "deep-x86_64", "sigjmp-x86_64",
					     "dynfx-x86_64" };

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct fx_truth t;
		struct native r;
		const struct fx_truth_obj *lib = NULL;
		char elf[256];
		size_t i;

		load_named(&t, names[k]);
		for (uint32_t o = 0; o < t.hdr.nobjs; o++)
			if (t.hdr.objs[o].flags & FX_OBJ_LOCAL)
				lib = &t.hdr.objs[o];
		snprintf(elf, sizeof(elf), BIN "%s", names[k]);
		native_pcs(elf, t.insns[0].pc, lib ? lib->name : NULL, &r);
		for (i = 0; i < r.n; i++)
			if (lib && r.v[i] >= r.lib_lo && r.v[i] < r.lib_hi)
				r.v[i] = r.v[i] - r.lib_lo + lib->map_start;
		for (i = 0; i < r.n && i < t.n; i++)
			if (r.v[i] != t.insns[i].pc)
				break;
		cr_expect_eq(i, t.n, "%s: first difference at insn %zu: "
			     "ptrace %#llx, qemu %#llx", names[k], i,
			     i < r.n ? (unsigned long long)r.v[i] : 0ull,
			     i < t.n ? (unsigned long long)t.insns[i].pc : 0ull);
		cr_expect_eq(r.n, t.n, "%s: ptrace %zu insns, qemu %zu",
			     names[k], r.n, t.n);
		free(r.v);
		fx_truth_fini(&t);
	}
#else
	cr_skip_test("native x86-64 needed for the ptrace cross-check");
#endif
}

/* dlfx-x86_64 maps its two objects itself, at the address it asks for:
 * natively the kernel puts them there too (the program exits 1 if dlfxb
 * does not land where dlfxa was), so the CPU's own PCs, the objects'
 * included, equal qemu's truth one for one, and the truth's objects are
 * where the PCs say (issue 26: a truth of objects over time). */
Test(fx_programs, dlfx_x86_truth_equals_ptrace, .timeout = 60)
{
#if defined(__x86_64__)
	struct fx_truth t;
	struct native r;
	size_t i, in_obj[2] = { 0, 0 };

	load_named(&t, "dlfx-x86_64");
	cr_assert_eq(t.hdr.nobjs, 2);
	cr_assert_eq(t.hdr.objs[0].map_start, t.hdr.objs[1].map_start,
		     "dlfxa and dlfxb at one address");
	native_pcs(BIN "dlfx-x86_64", t.insns[0].pc, NULL, &r);
	for (i = 0; i < r.n && i < t.n; i++)
		if (r.v[i] != t.insns[i].pc)
			break;
	cr_expect_eq(i, t.n, "first difference at insn %zu: ptrace %#llx, "
		     "qemu %#llx", i, i < r.n ? (unsigned long long)r.v[i] : 0ull,
		     i < t.n ? (unsigned long long)t.insns[i].pc : 0ull);
	cr_expect_eq(r.n, t.n, "ptrace %zu insns, qemu %zu", r.n, t.n);
	/* each object's PCs lie in its own time */
	for (i = 0; i < t.n; i++)
		for (uint32_t o = 0; o < 2; o++) {
			const struct fx_truth_obj *ob = &t.hdr.objs[o];

			if (t.insns[i].pc - ob->map_start < ob->map_len &&
			    i >= ob->from && i < ob->until)
				in_obj[o]++;
		}
	cr_expect_gt(in_obj[0], 1000, "dlfxa ran %zu insns", in_obj[0]);
	cr_expect_gt(in_obj[1], 1000, "dlfxb ran %zu insns", in_obj[1]);
	free(r.v);
	fx_truth_fini(&t);
#else
	cr_skip_test("native x86-64 needed for the ptrace cross-check");
#endif
}
