/* Validation's plausibility checks (src/synth/plausible.c) and the
 * instruction classes they read (src/synth/insn.c), on the fixture
 * programs' real code.
 *
 * Windows are built by hand from branches the programs really make (taken
 * from the disassembly of tests/fixtures/programs/bin/branchy-*, addresses
 * in the comments) and then damaged one branch at a time, the way a
 * flipped trace bit damages them: each damaged window must be implausible
 * for the named reason, and the undamaged one ok.  The whole fixtures and
 * real captures are checked for false alarms end to end in
 * tests/e2e/t_damage_campaign.sh. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "synth/insn.h"
#include "synth/validate.h"
#include "sy_test.h"

#define A64_BIN "/tests/fixtures/programs/bin/branchy-aarch64"
#define X86_BIN "/tests/fixtures/programs/bin/branchy-x86_64"
#define PID 1000

struct world {
	struct sy_image_cache *cache;
	struct sy_proc_table *procs;
	struct sy_synth_config cfg;
	struct sy_validator v;
};

/* The program mapped the way the fixtures record it (symfs "."), or, with
 * @missing, a binary the cache cannot find. */
static void world_init_bin(struct world *w, enum sy_trace_kind kind,
			   const char *bin);

static void world_init(struct world *w, enum sy_trace_kind kind, int missing)
{
	int a64 = kind == SY_TRACE_ETM;

	world_init_bin(w, kind, missing ? "/no/such/binary" :
				a64	? A64_BIN :
					  X86_BIN);
}

/* @bin's text mapped the way the fixtures record it. */
static void world_init_bin(struct world *w, enum sy_trace_kind kind,
			   const char *bin)
{
	struct sy_image_opts o = { 0 };
	struct sy_diag d = { 0 };
	struct sy_ev_mmap m;
	int a64 = kind == SY_TRACE_ETM;

	memset(w, 0, sizeof(*w));
	o.symfs = ".";
	o.buildid_dir = "";
	cr_assert_eq(sy_image_cache_new(&w->cache, &o, &d), 0, "%s", d.msg);
	cr_assert_eq(sy_proc_table_new(&w->procs, w->cache), 0);
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = PID;
	m.is_mmap2 = 1;
	m.prot = SY_PROT_READ | SY_PROT_EXEC;
	m.addr = a64 ? 0x400000 : 0x401000;
	m.len = 0x1000;
	m.pgoff = a64 ? 0 : 0x1000;
	m.filename = bin;
	cr_assert_eq(sy_proc_table_mmap(w->procs, &m, SY_MISC_USER), 0);
	w->cfg.kind = kind;
	w->cfg.depth = 64;
	cr_assert_eq(sy_validator_init(&w->v, &w->cfg), 0);
}

static void world_fini(struct world *w)
{
	sy_validator_fini(&w->v);
	sy_proc_table_free(w->procs);
	sy_image_cache_free(w->cache);
}

/* One stretch holding @n branches (oldest first) that stopped at @end;
 * with @chain (leaf first, @nc frames) a pause sample there. */
static struct sy_win *window(struct world *w, const struct sy_br *br,
			     uint32_t n, uint64_t end, const uint64_t *chain,
			     uint32_t nc)
{
	struct sy_win *win = calloc(1, sizeof(*win));
	struct sy_stretch *st = calloc(1, sizeof(*st));

	cr_assert(win && st);
	st->ring = malloc(n * sizeof(*st->ring));
	cr_assert_not_null(st->ring);
	/* a closed stretch's ring: newest first */
	for (uint32_t i = 0; i < n; i++)
		st->ring[i] = br[n - 1 - i];
	st->cap = st->len = n;
	st->head = 0;
	st->branches = n;
	st->insns = 10 * (uint64_t)n;
	st->start_addr = br[0].from;
	st->end_addr = end;
	st->flags = SY_SF_STOPPED;
	win->st = st;
	win->nr_st = 1;
	win->pub.pid = win->pub.tid = PID;
	win->snap = sy_proc_table_snapshot(w->procs);
	if (chain) {
		win->chain = malloc(nc * sizeof(*chain));
		cr_assert_not_null(win->chain);
		memcpy(win->chain, chain, nc * sizeof(*chain));
		win->pub.callchain = win->chain;
		win->pub.nr_callchain = nc;
		win->pub.has_pause = 1;
		win->pub.pause_ip = end;
	}
	return win;
}

/* The suspect branches of the window check() validated last: how many,
 * and the first's kind and ends. */
static uint32_t last_suspect;
static struct {
	uint8_t kind;
	uint64_t from, to;
} first_suspect;

/* The first suspect branch of the last window was @kind, @from -> @to. */
static void want_first(enum sy_suspect_kind kind, uint64_t from, uint64_t to)
{
	cr_assert_eq(first_suspect.kind, kind, "kind %u, want %u: %s",
		     first_suspect.kind, kind, sy_suspect_name(kind));
	cr_assert_eq(first_suspect.from, from, "%#" PRIx64,
		     first_suspect.from);
	cr_assert_eq(first_suspect.to, to, "%#" PRIx64, first_suspect.to);
}

/* Validates and returns the status; the reason must start with @check
 * when the window is implausible. */
static enum sy_status check(struct world *w, const struct sy_br *br,
			    uint32_t n, uint64_t end, const uint64_t *chain,
			    uint32_t nc, const char *want)
{
	struct sy_win *win = window(w, br, n, end, chain, nc);
	enum sy_status st;

	sy_validate(&w->v, win);
	st = win->pub.status;
	last_suspect = win->pub.suspect;
	first_suspect.kind = win->pub.suspect_kind;
	first_suspect.from = win->pub.suspect_from;
	first_suspect.to = win->pub.suspect_to;
	if (!last_suspect)
		cr_assert_eq(first_suspect.kind, SY_SUS_NONE);
	if (want)
		cr_assert(st == SY_ST_IMPLAUSIBLE &&
				  !strncmp(win->pub.reason, want, strlen(want)),
			  "want '%s', got %s: %s", want, sy_status_name(st),
			  win->pub.reason);
	else
		cr_assert_eq(st, SY_ST_OK, "%s: %s", sy_status_name(st),
			     win->pub.reason);
	sy_win_free(win);
	return st;
}

#define N(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* A64: one turn of prog_main's loop: bl op_switch (0x40086c), b.ls
 * (0x4002bc), the jump table's br (0x4002e0) to a case, its b back
 * (0x4002f4), ret (0x4002c8) to after the bl, b.ne (0x400878) to the loop
 * head. */
static const struct sy_br a64_turn[] = {
	{ 0x40086c, 0x4002b0, SY_BR_CALL },
	{ 0x4002bc, 0x4002cc, SY_BR_COND },
	{ 0x4002e0, 0x4002ec, SY_BR_IND_JUMP },
	{ 0x4002f4, 0x4002c4, SY_BR_JUMP },
	{ 0x4002c8, 0x400870, SY_BR_RET },
	{ 0x400878, 0x400850, SY_BR_COND },
};

/* @br with entry @i replaced by (from, to, kind). */
static struct sy_br *damaged(const struct sy_br *br, uint32_t n, uint32_t i,
			     uint64_t from, uint64_t to, int kind)
{
	static struct sy_br out[16];

	cr_assert(n <= 16 && i < n);
	memcpy(out, br, n * sizeof(*br));
	out[i].from = from;
	out[i].to = to;
	out[i].kind = (uint8_t)kind;
	return out;
}

Test(plausible, real_a64_branches_are_ok)
{
	struct world w;

	world_init(&w, SY_TRACE_ETM, 0);
	check(&w, a64_turn, N(a64_turn), 0x400850, NULL, 0, NULL);
	world_fini(&w);
}

/* What passed in one window is not taken for granted in the next of
 * another process, or of the same process once its code changed: the
 * validator keeps the branches it checked from window to window (a loop
 * makes the same few) only while both are the same.  One branch per
 * window, so that nothing else takes its place in what is kept. */
Test(plausible, checked_branches_are_kept_per_process_and_snapshot)
{
	const struct sy_br *call = &a64_turn[0];
	struct world w;
	struct sy_ev_mmap m;
	struct sy_win *win;

	world_init(&w, SY_TRACE_ETM, 0);
	check(&w, call, 1, 0x4002bc, NULL, 0, NULL);
	/* another process of the same snapshot, its code elsewhere */
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = PID + 1;
	m.is_mmap2 = 1;
	m.prot = SY_PROT_READ | SY_PROT_EXEC;
	m.addr = 0x500000;
	m.len = 0x1000;
	m.filename = A64_BIN;
	cr_assert_eq(sy_proc_table_mmap(w.procs, &m, SY_MISC_USER), 0);
	check(&w, call, 1, 0x4002bc, NULL, 0, NULL);
	win = window(&w, call, 1, 0x4002bc, NULL, 0);
	win->pub.pid = win->pub.tid = PID + 1;
	sy_validate(&w.v, win);
	cr_assert_eq(win->pub.status, SY_ST_IMPLAUSIBLE, "%s",
		     win->pub.reason);
	cr_assert(strstr(win->pub.reason, "outside executable mappings"),
		  "%s", win->pub.reason);
	sy_win_free(win);
	/* the same process once its code is data: a new snapshot */
	check(&w, call, 1, 0x4002bc, NULL, 0, NULL);
	m.pid = m.tid = PID;
	m.prot = SY_PROT_READ;
	m.addr = 0x400000;
	cr_assert_eq(sy_proc_table_mmap(w.procs, &m, SY_MISC_USER), 0);
	check(&w, call, 1, 0x4002bc, NULL, 0,
	      "branch source outside executable mappings");
	world_fini(&w);
}

/* What passed is kept for another process, or another snapshot, only
 * when its mappings are the same ones (sy_aspace_same): a fleet's
 * processes of one program at the same addresses are checked once.
 * Another program at the same address is not the same: branchy-aarch64's
 * bl at 0x40094c calls sort_check (0x4005f4), interp-aarch64's there
 * calls 0x400160, so the same branch is implausible in it, whatever
 * passed before in the other process. */
Test(plausible, checked_branches_are_kept_only_for_the_same_mappings)
{
	static const struct sy_br call[] = {
		{ 0x40094c, 0x4005f4, SY_BR_CALL },
	};
	struct world w;
	struct sy_ev_mmap m;
	struct sy_win *win;

	world_init(&w, SY_TRACE_ETM, 0);
	memset(&m, 0, sizeof(m));
	m.is_mmap2 = 1;
	m.prot = SY_PROT_READ | SY_PROT_EXEC;
	m.addr = 0x400000;
	m.len = 0x1000;
	/* PID + 1: the same program at the same address */
	m.pid = m.tid = PID + 1;
	m.filename = A64_BIN;
	cr_assert_eq(sy_proc_table_mmap(w.procs, &m, SY_MISC_USER), 0);
	/* PID + 2: another program there */
	m.pid = m.tid = PID + 2;
	m.filename = "/tests/fixtures/programs/bin/interp-aarch64";
	cr_assert_eq(sy_proc_table_mmap(w.procs, &m, SY_MISC_USER), 0);
	for (int round = 0; round < 2; round++) {
		check(&w, call, 1, 0x400600, NULL, 0, NULL);
		win = window(&w, call, 1, 0x400600, NULL, 0);
		win->pub.pid = win->pub.tid = PID + 1;
		sy_validate(&w.v, win);
		cr_assert_eq(win->pub.status, SY_ST_OK, "%s", win->pub.reason);
		sy_win_free(win);
		win = window(&w, call, 1, 0x400600, NULL, 0);
		win->pub.pid = win->pub.tid = PID + 2;
		sy_validate(&w.v, win);
		cr_assert_eq(win->pub.status, SY_ST_IMPLAUSIBLE, "round %d: %s",
			     round, sy_status_name(win->pub.status));
		cr_assert(strstr(win->pub.reason, "direct branch elsewhere"),
			  "%s", win->pub.reason);
		sy_win_free(win);
	}
	world_fini(&w);
}

/* What the validator keeps of the branches it checked belongs to one
 * snapshot and thread: a new one starts a new generation of the table,
 * and the table is emptied whole when the 255 generations wrap.
 * Snapshots alternate between the program's code mapped executable and
 * mapped as data, 600 of them: the b.ls is checked in each, ok exactly
 * when its code is executable; the bl is checked in the first (ok: kept,
 * in generation 1) and in every one that maps the code as data, where it
 * must fail, among them the 256th, generation 1 again after the wrap. */
Test(plausible, checked_branches_are_forgotten_with_their_snapshot)
{
	const struct sy_br *call = &a64_turn[0], *bls = &a64_turn[1];
	struct world w;
	struct sy_ev_mmap m;

	world_init(&w, SY_TRACE_ETM, 0);
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = PID;
	m.is_mmap2 = 1;
	m.addr = 0x400000;
	m.len = 0x1000;
	m.filename = A64_BIN;
	for (int i = 0; i < 600; i++) {
		int exec = i % 2 == 0;

		check(&w, bls, 1, 0x4002c4, NULL, 0,
		      exec ? NULL : "branch source outside executable mappings");
		if (!i || !exec)
			check(&w, call, 1, 0x4002bc, NULL, 0,
			      exec ? NULL :
				     "branch source outside executable mappings");
		m.prot = SY_PROT_READ | (exec ? 0 : SY_PROT_EXEC);
		cr_assert_eq(sy_proc_table_mmap(w.procs, &m, SY_MISC_USER), 0);
	}
	world_fini(&w);
}

Test(plausible, a64_branch_checks)
{
	static const struct {
		uint32_t i;
		uint64_t from, to;
		int kind;
		const char *why;
	} cases[] = {
		/* a target off the 4-byte grid */
		{ 2, 0x4002e0, 0x4002ee, SY_BR_IND_JUMP, "misaligned branch" },
		/* nothing is mapped at 0x500000 */
		{ 2, 0x4002e0, 0x500000, SY_BR_IND_JUMP,
		  "branch target outside executable mappings" },
		/* b.ls at 0x4002bc goes to 0x4002cc, nowhere else */
		{ 1, 0x4002bc, 0x4002d0, SY_BR_COND, "direct branch elsewhere" },
		/* the case at 0x4002e4 falls into `b 0x4002c4` at 0x4002e8,
		 * so the next taken branch cannot be the one at 0x4002f4 */
		{ 2, 0x4002e0, 0x4002e4, SY_BR_IND_JUMP,
		  "straight run crosses a branch" },
		/* 0x4002ac is the nop between is_even and op_switch: a
		 * no-op is a legal target, but no entry of op_switch's
		 * table gives it (nor could the straight run from it reach
		 * the next branch) */
		{ 2, 0x4002e0, 0x4002ac, SY_BR_IND_JUMP,
		  "indirect jump to no entry of its table" },
		/* 0x400748 is report's epilogue: `adr x0, 0x4002e4; add x2,
		 * x0, w2, sxtb #2` reach 0x4000e4..0x4004e0 only */
		{ 2, 0x4002e0, 0x400748, SY_BR_IND_JUMP,
		  "indirect jump outside its table's reach" },
		/* the open bl's return address, 0x58c past the table's base */
		{ 2, 0x4002e0, 0x400870, SY_BR_IND_JUMP,
		  "indirect jump outside its table's reach" },
		/* 0x4002f0 is inside the case at 0x4002ec: `cmp w0, #0xb;
		 * b.ls` bound the index to the table's 12 byte entries at
		 * 0x400978 (read-only code), and none gives it */
		{ 2, 0x4002e0, 0x4002f0, SY_BR_IND_JUMP,
		  "indirect jump to no entry of its table" },
		/* a taken branch where the code has none: 0x4002dc is the
		 * `add` before op_switch's `br x2` (a damaged ETE Source
		 * Address packet, or A64 code read as A32 after a damaged
		 * Context packet) */
		{ 2, 0x4002dc, 0x4002ec, SY_BR_IND_JUMP,
		  "taken ind-jump from no branch instruction" },
		/* `br x2` taken as a direct jump, `b.ls` as an indirect one */
		{ 2, 0x4002e0, 0x4002ec, SY_BR_JUMP,
		  "taken jump from an indirect branch" },
		{ 1, 0x4002bc, 0x4002cc, SY_BR_IND_JUMP,
		  "taken ind-jump from a direct branch" },
	};
	struct world w;

	world_init(&w, SY_TRACE_ETM, 0);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		check(&w,
		      damaged(a64_turn, N(a64_turn), cases[k].i, cases[k].from,
			      cases[k].to, cases[k].kind),
		      N(a64_turn), 0x400850, NULL, 0, cases[k].why);
	world_fini(&w);
}

/* A window's status depends on its own branches only, not on which windows
 * the validator (a worker thread's, or the decoding thread's for convert's
 * finished windows) checked before (issue 27, bug 4: windows and convert,
 * and -j 1 and -j 3, disagreed).  The jump table's bound is read from the
 * two branches before its br: a window that starts at the b.ls cannot
 * read it, so its jump to 0x4002f0 (inside a case, in the table's reach)
 * passes; the whole turn reads `cmp w0, #0xb; b.ls` and no entry gives
 * 0x4002f0.  Checked after the first, the second was ok: the validator
 * kept the jump as passed, keyed without the branches the bound is read
 * from. */
Test(plausible, a_status_does_not_depend_on_earlier_windows)
{
	struct sy_br turn[N(a64_turn)];
	struct world w;

	memcpy(turn, damaged(a64_turn, N(a64_turn), 2, 0x4002e0, 0x4002f0,
			     SY_BR_IND_JUMP), sizeof(turn));
	world_init(&w, SY_TRACE_ETM, 0);
	/* the b.ls, the jump and the case's b, up to the ret */
	check(&w, turn + 1, 3, 0x4002c8, NULL, 0, NULL);
	check(&w, turn, N(turn), 0x400850, NULL, 0,
	      "indirect jump to no entry of its table");
	/* and the other way round */
	check(&w, turn + 1, 3, 0x4002c8, NULL, 0, NULL);
	world_fini(&w);
}

/* What correct code may do is never a reason: a return to an older call
 * site than the open one (a hand-written unwinder's `ret` to a saved
 * return address, 0x40015c after _start's bl) is suspect, and counted;
 * so is a return to an instruction no call precedes (0x400874): the C++
 * unwinder's exit `ret`s to landing pads after a `b` or a `ret` (the
 * corpus's cxxexc, issue 26, where this was "return not after a call"
 * and 224 of 1065 windows of a correct program were rejected). */
Test(plausible, a64_unusual_returns_are_suspect_not_implausible)
{
	struct world w;

	world_init(&w, SY_TRACE_ETM, 0);
	check(&w, a64_turn, N(a64_turn), 0x400850, NULL, 0, NULL);
	cr_assert_eq(last_suspect, 0);
	check(&w, damaged(a64_turn, 5, 4, 0x4002c8, 0x40015c, SY_BR_RET), 5,
	      0x40015c, NULL, 0, NULL);
	cr_assert_eq(last_suspect, 1);
	want_first(SY_SUS_RET_NONE_OPEN, 0x4002c8, 0x40015c);
	check(&w, damaged(a64_turn, 5, 4, 0x4002c8, 0x400874, SY_BR_RET), 5,
	      0x400874, NULL, 0, NULL);
	cr_assert_eq(last_suspect, 1);
	want_first(SY_SUS_RET_NO_CALL, 0x4002c8, 0x400874);
	world_fini(&w);
}

Test(plausible, a64_returns_without_open_call)
{
	/* ret from op_switch with its call before the window */
	static const struct sy_br after_call[] = {
		{ 0x4002c8, 0x400870, SY_BR_RET },
		{ 0x400878, 0x400850, SY_BR_COND },
	};
	static const struct sy_br not_after_call[] = {
		{ 0x4002c8, 0x400874, SY_BR_RET },
	};
	static const uint64_t chain[] = { 0x400878, 0x400874, 0x40015c };
	struct world w;

	world_init(&w, SY_TRACE_ETM, 0);
	check(&w, after_call, N(after_call), 0x400850, NULL, 0, NULL);
	/* after no call: suspect (a landing pad), counted */
	check(&w, not_after_call, 1, 0x400874, NULL, 0, NULL);
	cr_assert_eq(last_suspect, 1);
	want_first(SY_SUS_RET_NO_CALL, 0x4002c8, 0x400874);
	/* a return address the callchain shows is one (a signal frame) */
	check(&w, not_after_call, 1, 0x400878, chain, N(chain), NULL);
	cr_assert_eq(last_suspect, 0);
	world_fini(&w);
}

Test(plausible, unreadable_code_is_never_held_against_a_window)
{
	struct world w;

	/* damaged windows the code would refuse (above), but the binary
	 * cannot be found: only what needs no code can be told */
	world_init(&w, SY_TRACE_ETM, 1);
	check(&w, damaged(a64_turn, N(a64_turn), 2, 0x4002e0, 0x4002e4,
			  SY_BR_IND_JUMP),
	      N(a64_turn), 0x400850, NULL, 0, NULL);
	check(&w, damaged(a64_turn, N(a64_turn), 1, 0x4002bc, 0x4002d0,
			  SY_BR_COND),
	      N(a64_turn), 0x400850, NULL, 0, NULL);
	check(&w, damaged(a64_turn, N(a64_turn), 2, 0x4002e0, 0x4002ee,
			  SY_BR_IND_JUMP),
	      N(a64_turn), 0x400850, NULL, 0, "misaligned branch");
	/* straight-line code never runs backwards: 0x400748, then the
	 * next branch at 0x4002f4 */
	check(&w, damaged(a64_turn, N(a64_turn), 2, 0x4002e0, 0x400748,
			  SY_BR_IND_JUMP),
	      N(a64_turn), 0x400850, NULL, 0,
	      "straight run crosses a branch");
	world_fini(&w);
}

/* x86: _start calls prog_main (0x401005, returns to 0x40100a), which calls
 * op_switch (0x401646, returns to 0x40164b); op_switch's table jump
 * (0x40117b) goes to the case at 0x4011a0, which returns (0x4011a4). */
static const struct sy_br x86_calls[] = {
	{ 0x401005, 0x4015d0, SY_BR_CALL },
	{ 0x401646, 0x401170, SY_BR_CALL },
	{ 0x40117b, 0x4011a0, SY_BR_IND_JUMP },
};

Test(plausible, x86_indirect_targets)
{
	static const struct sy_br turn[] = {
		{ 0x401646, 0x401170, SY_BR_CALL },
		{ 0x40117b, 0x4011a0, SY_BR_IND_JUMP },
		{ 0x4011a4, 0x40164b, SY_BR_RET },
	};
	struct world w;

	world_init(&w, SY_TRACE_PT, 0);
	check(&w, turn, N(turn), 0x40164b, NULL, 0, NULL);
	/* 0x4011b8 is the last byte of `xor $0x5a5a, %rax` at 0x4011b3,
	 * and 0x401182 the nopw after the table jump: neither is one of
	 * the 12 entries `cmp $0xb,%edi; ja` lets the jump read
	 * (jump_table_x86.c), which decides first */
	check(&w, damaged(turn, N(turn), 1, 0x40117b, 0x4011b8,
			  SY_BR_IND_JUMP),
	      N(turn), 0x40164b, NULL, 0,
	      "indirect jump to no entry of its table");
	check(&w, damaged(turn, N(turn), 1, 0x40117b, 0x401182,
			  SY_BR_IND_JUMP),
	      N(turn), 0x40164b, NULL, 0,
	      "indirect jump to no entry of its table");
	/* a return into the middle of prog_main's `add %rax,%r8` */
	check(&w, damaged(turn, N(turn), 2, 0x4011a4, 0x40164c, SY_BR_RET),
	      N(turn), 0x40164c, NULL, 0,
	      "indirect branch into an instruction");
	/* 0x4010cd is the nopl padding after a ret: a no-op is a legal
	 * target (returns and resume labels land on them); after no call,
	 * the return is suspect only */
	check(&w, damaged(turn, N(turn), 2, 0x4011a4, 0x4010cd, SY_BR_RET),
	      N(turn), 0x4010cd, NULL, 0, NULL);
	cr_assert_eq(last_suspect, 1);
	/* 0x40163c is prog_main's `lea`, after no call: suspect only */
	check(&w, damaged(turn, N(turn), 2, 0x4011a4, 0x40163c, SY_BR_RET),
	      N(turn), 0x40163c, NULL, 0, NULL);
	cr_assert_eq(last_suspect, 1);
	world_fini(&w);
}

/* x86: past a function's end, up to the next one, are the no-ops an
 * assembler pads with, whole: op_add (0x401220, 5 bytes) ends at
 * 0x401225, where an 11-byte nopw runs to op_mul (0x401230).  apply's
 * table call (0x4012ac, from prog_main's call at 0x401672) into the
 * middle of that no-op (one bit of a TIP's address off op_add's entry:
 * the damage campaign's pt-basic at byte 3214) goes into an instruction
 * as much as one inside a function does; to where the no-op starts, it
 * goes to a legal target (no symbol covers it: the landing checks say
 * nothing of it either). */
Test(plausible, x86_padding_after_a_function)
{
	static const struct sy_br call[] = {
		{ 0x401672, 0x4012a0, SY_BR_CALL },
		{ 0x4012ac, 0x401220, SY_BR_IND_CALL },
		{ 0x401224, 0x4012b3, SY_BR_RET },
	};
	/* the call's target instead, and the reason (NULL: ok): inside
	 * the nopw, its last byte, inside the nopl after op_switch
	 * (0x401219, 7 bytes); where each of them starts */
	static const struct { uint64_t to; const char *why; } to[] = {
		{ 0x401228, "indirect branch into an instruction" },
		{ 0x40122f, "indirect branch into an instruction" },
		{ 0x40121c, "indirect branch into an instruction" },
		{ 0x401225, NULL },
		{ 0x401219, NULL },
	};
	struct world w;

	world_init(&w, SY_TRACE_PT, 0);
	check(&w, call, N(call), 0x4012b3, NULL, 0, NULL);
	cr_assert_eq(last_suspect, 0);
	for (size_t i = 0; i < N(to); i++)
		check(&w, damaged(call, 2, 1, 0x4012ac, to[i].to,
				  SY_BR_IND_CALL),
		      2, to[i].to, NULL, 0, to[i].why);
	world_fini(&w);
}

/* A window with several suspect branches names the first, in branch
 * order, whether its branches were checked one by one or recalled as a
 * proven sequence (whose flow checks run again, in order): the second
 * time, on the same validator, it is the same.  op_switch's case returns
 * twice after no call: to prog_main's `lea` (0x40163c), then to the nopl
 * padding after a ret (0x4010cd). */
Test(plausible, the_first_suspect_branch_is_named)
{
	static const struct sy_br two[] = {
		{ 0x401646, 0x401170, SY_BR_CALL },
		{ 0x40117b, 0x4011a0, SY_BR_IND_JUMP },
		{ 0x4011a4, 0x40163c, SY_BR_RET },
		{ 0x401646, 0x401170, SY_BR_CALL },
		{ 0x40117b, 0x4011a0, SY_BR_IND_JUMP },
		{ 0x4011a4, 0x4010cd, SY_BR_RET },
	};
	struct world w;

	world_init(&w, SY_TRACE_PT, 0);
	for (int i = 0; i < 3; i++) {
		check(&w, two, N(two), 0x4010cd, NULL, 0, NULL);
		cr_assert_eq(last_suspect, 2, "run %d", i);
		want_first(SY_SUS_RET_NO_CALL, 0x4011a4, 0x40163c);
	}
	world_fini(&w);
}

Test(plausible, open_calls_and_the_callchain)
{
	/* _start's bl prog_main (0x400158, returns to 0x40015c), prog_main's
	 * bl ops_init (0x4007f8) and its return, bl sys_getpid (0x4007fc,
	 * returns to 0x400800); paused in sys_getpid.  A frame-pointer
	 * unwinder shows sys_getpid's return address or, sys_getpid being a
	 * leaf without a frame record, only prog_main's; never a frame the
	 * trace did not leave open */
	static const struct sy_br calls[] = {
		{ 0x400158, 0x4007e0, SY_BR_CALL },
		{ 0x4007f8, 0x4003b4, SY_BR_CALL },
		{ 0x4003f4, 0x4007fc, SY_BR_RET },
		{ 0x4007fc, 0x40016c, SY_BR_CALL },
	};
	static const uint64_t full[] = { 0x400170, 0x400800, 0x40015c };
	static const uint64_t leaf[] = { 0x400170, 0x40015c };
	static const uint64_t wrong[] = { 0x400170, 0x400824, 0x40015c };
	struct world w;

	world_init(&w, SY_TRACE_ETM, 0);
	check(&w, calls, N(calls), 0x400170, full, N(full), NULL);
	check(&w, calls, N(calls), 0x400170, leaf, N(leaf), NULL);
	cr_assert_eq(last_suspect, 0);
	/* a frame chain may be broken by code that keeps no frame record
	 * or switched stacks under it: only suspect */
	check(&w, calls, N(calls), 0x400170, wrong, N(wrong), NULL);
	cr_assert_eq(last_suspect, 1);
	/* the caller frame, and the newest open call's return */
	want_first(SY_SUS_CALLCHAIN, 0x400824, 0x400800);
	world_fini(&w);
	/* x86-64 code has no frame records by default: any frame may be
	 * missing, so the same disagreement tells nothing */
	world_init(&w, SY_TRACE_PT, 0);
	{
		static const uint64_t x86_wrong[] = { 0x4011a0, 0x401677,
						      0x40100a };

		check(&w, x86_calls, N(x86_calls), 0x4011a0, x86_wrong,
		      N(x86_wrong), NULL);
	}
	world_fini(&w);
}

Test(plausible, a64_indirect_branches_into_other_functions)
{
	/* apply's blr and dispatch_tail's br into ops_init past its entry,
	 * where no call returns; dispatch_tail's br to the return address
	 * of prog_main's open call to it (a return would do) */
	static const struct sy_br call_in[] = {
		{ 0x40041c, 0x4003b8, SY_BR_IND_CALL },
		{ 0x4003f4, 0x400420, SY_BR_RET },
	}, jump_in[] = {
		{ 0x400454, 0x4003b8, SY_BR_IND_JUMP },
	}, jump_open[] = {
		{ 0x4008ac, 0x400430, SY_BR_CALL },
		{ 0x400454, 0x4008b0, SY_BR_IND_JUMP },
	};
	struct world w;

	world_init(&w, SY_TRACE_ETM, 0);
	/* (four times: the later ones recall each branch's verdict and
	 * the last its sequence) */
	for (int i = 0; i < 4; i++) {
		check(&w, call_in, 2, 0x400420, NULL, 0, NULL);
		cr_assert_eq(last_suspect, 1);
		want_first(SY_SUS_INTO_FUNC, 0x40041c, 0x4003b8);
		check(&w, jump_in, 1, 0x4003b8, NULL, 0, NULL);
		cr_assert_eq(last_suspect, 1);
		want_first(SY_SUS_INTO_FUNC, 0x400454, 0x4003b8);
		check(&w, jump_open, 2, 0x4008b0, NULL, 0, NULL);
		cr_assert_eq(last_suspect, 1);
		want_first(SY_SUS_JUMP_OPEN, 0x400454, 0x4008b0);
	}
	world_fini(&w);
}

/* deep-aarch64: a call from hop_indirect's site in descend (returns to
 * 0x4002bc), @levels of descend's bl hop_direct (returns to 0x400294)
 * and its tail call back, then bottom's bl mixbits and its return, and
 * ping's return to the first call's return address. */
#define DEEP_BIN "/tests/fixtures/programs/bin/deep-aarch64"
static uint32_t deep_calls(struct sy_br *out, uint32_t levels)
{
	static const struct sy_br head[] = {
		{ 0x40028c, 0x4002b8, SY_BR_COND },
		{ 0x4002b8, 0x4001b0, SY_BR_CALL },
		{ 0x4001d0, 0x400260, SY_BR_IND_JUMP },
	}, level[] = {
		{ 0x400290, 0x4002f0, SY_BR_CALL },
		{ 0x400300, 0x400260, SY_BR_JUMP },
	}, tail[] = {
		{ 0x400270, 0x4002e0, SY_BR_COND },
		{ 0x4002ec, 0x400230, SY_BR_JUMP },
		{ 0x400240, 0x400190, SY_BR_CALL },
		{ 0x4001ac, 0x400244, SY_BR_RET },
		{ 0x400254, 0x400200, SY_BR_JUMP },
		{ 0x400214, 0x4002bc, SY_BR_RET },
	};
	uint32_t n = N(head);

	memcpy(out, head, sizeof(head));
	for (uint32_t i = 0; i < levels; i++, n += N(level))
		memcpy(out + n, level, sizeof(level));
	memcpy(out + n, tail, sizeof(tail));
	return n + N(tail);
}

Test(plausible, the_deepest_open_calls_drop_the_oldest)
{
	/* 256 open calls at most: with the first call one of 256 at the
	 * last return, that return skips open calls; one more call before
	 * it dropped the first, and the return goes to none of them */
	struct sy_br br[3 + 2 * 255 + 6];
	struct world w;

	world_init_bin(&w, SY_TRACE_ETM, DEEP_BIN);
	/* (four times: the last recalls the sequences) */
	for (int i = 0; i < 4; i++) {
		check(&w, br, deep_calls(br, 254), 0x4002bc, NULL, 0, NULL);
		cr_assert_eq(last_suspect, 1);
		want_first(SY_SUS_RET_PAST, 0x400214, 0x4002bc);
		check(&w, br, deep_calls(br, 255), 0x4002bc, NULL, 0, NULL);
		cr_assert_eq(last_suspect, 1);
		want_first(SY_SUS_RET_NONE_OPEN, 0x400214, 0x4002bc);
	}
	world_fini(&w);
}

static struct sy_insn decode(struct sy_insn_decoder *d, const uint8_t *code,
			     size_t len, uint64_t addr)
{
	struct sy_insn in;

	cr_assert_eq(sy_insn_decode(d, code, len, addr, &in), 0);
	return in;
}

/* A signal handler returns to the rt_sigreturn trampoline, not after a
 * call: glibc's __restore_rt (mov $15, %rax), or a freestanding program's
 * own (sigjmp: mov $15, %eax; A64: mov x8, #139), each followed by the
 * syscall.  The fixtures' sigjmp programs were implausible before both
 * x86 encodings were known. */
Test(plausible, handler_returns_to_the_sigreturn_trampoline)
{
	static const struct sy_br x86_ok[] = {
		{ 0x401132, 0x401054, SY_BR_RET }, /* work's ret: fx_sigreturn */
	};
	static const struct sy_br x86_bad[] = {
		{ 0x401132, 0x401059, SY_BR_RET }, /* into its syscall */
	};
	static const struct sy_br a64_ok[] = {
		{ 0x400280, 0x4001a8, SY_BR_RET }, /* on_usr1's: fx_sigreturn */
	};
	struct world w;

	world_init_bin(&w, SY_TRACE_PT,
		       "/tests/fixtures/programs/bin/sigjmp-x86_64");
	check(&w, x86_ok, N(x86_ok), 0x401054, NULL, 0, NULL);
	/* into its syscall: after no call, suspect only */
	check(&w, x86_bad, N(x86_bad), 0x401059, NULL, 0, NULL);
	cr_assert_eq(last_suspect, 1);
	world_fini(&w);
	world_init_bin(&w, SY_TRACE_ETM,
		       "/tests/fixtures/programs/bin/sigjmp-aarch64");
	check(&w, a64_ok, N(a64_ok), 0x4001a8, NULL, 0, NULL);
	world_fini(&w);
}

/* Long windows go through the proven-sequence table (proven.h): a loop
 * checked once is compared, not checked again.  What a window gets must
 * not depend on it: each window below, validated after the others by one
 * validator (its table warm), gets the status, reason and suspect count a
 * fresh validator gives it, and each damaged one the reason of its
 * damage (the cases of a64_branch_checks, in the first, a middle and the
 * last turn of a loop long enough for three sequences). */
#define TURNS ((int)(2 * SY_PROVEN_LEN / 6 + 3))	/* three sequences */

static void loop_of_turns(struct sy_br *out)
{
	for (int t = 0; t < TURNS; t++)
		memcpy(out + t * N(a64_turn), a64_turn, sizeof(a64_turn));
}

/* @br validated by @v: status, reason and suspects into @got. */
static void validate_with(struct world *w, struct sy_validator *v,
			  const struct sy_br *br, uint32_t n,
			  struct sy_window *got)
{
	struct sy_win *win = window(w, br, n, 0x400850, NULL, 0);

	sy_validate(v, win);
	got->status = win->pub.status;
	got->suspect = win->pub.suspect;
	memcpy(got->reason, win->pub.reason, sizeof(got->reason));
	sy_win_free(win);
}

/* @br by the world's validator (warm) and by a fresh one: the same. */
static enum sy_status warm_and_fresh(struct world *w, const struct sy_br *br,
				     uint32_t n, const char *want)
{
	struct sy_validator fresh;
	struct sy_window a, b;

	cr_assert_eq(sy_validator_init(&fresh, &w->cfg), 0);
	validate_with(w, &w->v, br, n, &a);
	validate_with(w, &fresh, br, n, &b);
	sy_validator_fini(&fresh);
	cr_assert_eq(a.status, b.status, "%s vs fresh %s: %s / %s",
		     sy_status_name(a.status), sy_status_name(b.status),
		     a.reason, b.reason);
	cr_assert_str_eq(a.reason, b.reason);
	cr_assert_eq(a.suspect, b.suspect);
	if (want)
		cr_assert(a.status == SY_ST_IMPLAUSIBLE &&
				  !strncmp(a.reason, want, strlen(want)),
			  "want '%s', got %s: %s", want,
			  sy_status_name(a.status), a.reason);
	else
		cr_assert_eq(a.status, SY_ST_OK, "%s", a.reason);
	return a.status;
}

Test(plausible, proven_sequences_give_what_a_fresh_check_gives)
{
	static const struct {
		uint32_t i;
		uint64_t from, to;
		int kind;
		const char *why;
	} cases[] = {
		{ 2, 0x4002e0, 0x4002ee, SY_BR_IND_JUMP, "misaligned branch" },
		{ 2, 0x4002e0, 0x500000, SY_BR_IND_JUMP,
		  "branch target outside executable mappings" },
		{ 1, 0x4002bc, 0x4002d0, SY_BR_COND, "direct branch elsewhere" },
		{ 2, 0x4002e0, 0x4002e4, SY_BR_IND_JUMP,
		  "straight run crosses a branch" },
		{ 2, 0x4002e0, 0x400748, SY_BR_IND_JUMP,
		  "indirect jump outside its table's reach" },
		{ 2, 0x4002e0, 0x4002f0, SY_BR_IND_JUMP,
		  "indirect jump to no entry of its table" },
		/* a return to after no call: suspect, counted, ok */
		{ 4, 0x4002c8, 0x400874, SY_BR_RET, NULL },
	};
	static const int at[] = { 0, TURNS / 2, TURNS - 1 };
	struct sy_br loop[TURNS * N(a64_turn)], bad[N(loop)];
	struct world w;

	world_init(&w, SY_TRACE_ETM, 0);
	loop_of_turns(loop);
	warm_and_fresh(&w, loop, N(loop), NULL);
	warm_and_fresh(&w, loop, N(loop), NULL);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		for (size_t t = 0; t < N(at); t++) {
			uint32_t i = at[t] * N(a64_turn) + cases[k].i;

			memcpy(bad, loop, sizeof(bad));
			bad[i].from = cases[k].from;
			bad[i].to = cases[k].to;
			bad[i].kind = (uint8_t)cases[k].kind;
			/* twice: the second finds what the first checked */
			warm_and_fresh(&w, bad, N(bad), cases[k].why);
			warm_and_fresh(&w, bad, N(bad), cases[k].why);
			warm_and_fresh(&w, loop, N(loop), NULL);
		}
	}
	/* the table was used, or this tested nothing */
	cr_assert_gt(w.v.pl.proven.hits, 10);
	world_fini(&w);
}

/* A jump table's bound is read from the two branches before its `br`: a
 * sequence that starts at the `br` is kept with them.  Here the same 28
 * branches, the first the jump to 0x4002f0 (in the table's reach, no
 * entry gives it), follow two windows' first SY_PROVEN_LEN (a sequence of
 * their own): in one after a return to the `b.ls` itself (the straight
 * run that holds the `cmp` is not in the trace: no bound), in the other
 * after the call before it (bound read: no entry).  Kept from the first,
 * it must still fail in the second. */
#define HEAD SY_PROVEN_LEN
#define TAIL 28

/* @out[0 .. @n): the last branches of a turn, then whole turns. */
static void turns_ending(struct sy_br *out, uint32_t n)
{
	uint32_t k = 0, part = n % N(a64_turn);

	memcpy(out, a64_turn + N(a64_turn) - part, part * sizeof(*out));
	for (k = part; k < n; k += N(a64_turn))
		memcpy(out + k, a64_turn, sizeof(a64_turn));
}

Test(plausible, a_proven_sequence_holds_only_after_the_same_branches)
{
	static const struct sy_br to_bls = { 0x4002c8, 0x4002bc, SY_BR_RET };
	struct sy_br w1[HEAD + TAIL], w2[HEAD + TAIL], tail[TAIL];
	struct world w;
	uint32_t k;

	/* the 28: the jump, the rest of its turn, four turns */
	memcpy(tail, damaged(a64_turn, N(a64_turn), 2, 0x4002e0, 0x4002f0,
			     SY_BR_IND_JUMP) + 2, 4 * sizeof(*tail));
	for (int t = 0; t < 4; t++)
		memcpy(tail + 4 + t * 6, a64_turn, sizeof(a64_turn));
	/* window 1: turns, a turn up to its ret, which returns to the b.ls;
	 * the b.ls again; the 28 */
	k = HEAD - 6;
	turns_ending(w1, k);
	memcpy(w1 + k, a64_turn, 4 * sizeof(*w1));
	k += 4;
	w1[k++] = to_bls;
	w1[k++] = a64_turn[1];
	memcpy(w1 + k, tail, sizeof(tail));
	/* window 2: turns, the call and the b.ls; the 28 */
	k = HEAD - 2;
	turns_ending(w2, k);
	w2[k++] = a64_turn[0];
	w2[k++] = a64_turn[1];
	memcpy(w2 + k, tail, sizeof(tail));
	world_init(&w, SY_TRACE_ETM, 0);
	/* (w1's sequences are kept the third time they pass) */
	for (int i = 0; i < 3; i++)
		warm_and_fresh(&w, w1, N(w1), NULL);
	warm_and_fresh(&w, w2, N(w2), "indirect jump to no entry of its table");
	warm_and_fresh(&w, w1, N(w1), NULL);
	world_fini(&w);
}

Test(insn, a64_classes_and_padding)
{
	/* words as the Arm ARM encodes them (little-endian) */
	static const struct {
		uint32_t w;
		int kind, padding;
	} cases[] = {
		{ 0xd63f0100, SY_BR_IND_CALL, 0 }, /* blr x8 */
		{ 0xd73f0900, SY_BR_IND_CALL, 0 }, /* blraa x8, x0 */
		{ 0xd65f0bff, SY_BR_RET, 0 },      /* retaa */
		{ 0xd61f0200, SY_BR_IND_JUMP, 0 }, /* br x16 */
		{ 0xd503201f, SY_BR_NONE, 1 },     /* nop */
		{ 0xd503245f, SY_BR_NONE, 0 },     /* bti c: a landing pad */
		{ 0xd503233f, SY_BR_NONE, 0 },     /* paciasp */
		{ 0x00000000, SY_BR_NONE, 1 },     /* udf #0 */
	};
	struct sy_insn_decoder d;

	cr_assert_eq(sy_insn_decoder_init(&d, SY_TRACE_ETM), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t b[4];
		struct sy_insn in;

		memcpy(b, &cases[i].w, 4);
		in = decode(&d, b, 4, 0x1000);
		cr_assert_eq(in.kind, cases[i].kind, "%#x", cases[i].w);
		cr_assert_eq(in.padding, cases[i].padding, "%#x", cases[i].w);
	}
	/* bl -4 and b.ne +8: direct targets */
	cr_assert_eq(decode(&d, (const uint8_t *)"\xff\xff\xff\x97", 4, 0x1000)
			     .target,
		     0xffc);
	cr_assert_eq(decode(&d, (const uint8_t *)"\x41\x00\x00\x54", 4, 0x1000)
			     .kind,
		     SY_BR_COND);
	sy_insn_decoder_fini(&d);
}

Test(insn, x86_classes_and_padding)
{
	static const struct {
		const char *bytes;
		size_t len;
		int kind, padding, size;
	} cases[] = {
		{ "\xe8\x10\x00\x00\x00", 5, SY_BR_CALL, 0, 5 },
		{ "\xff\xd0", 2, SY_BR_IND_CALL, 0, 2 },	/* call *%rax */
		{ "\xff\xe0", 2, SY_BR_IND_JUMP, 0, 2 },	/* jmp *%rax */
		{ "\xc3", 1, SY_BR_RET, 0, 1 },
		{ "\x90", 1, SY_BR_NONE, 1, 1 },
		{ "\x66\x0f\x1f\x44\x00\x00", 6, SY_BR_NONE, 1, 6 },
		{ "\x66\x2e\x0f\x1f\x84\x00\x00\x00\x00\x00", 10, SY_BR_NONE,
		  1, 10 },
		{ "\xcc", 1, SY_BR_SYSCALL, 1, 1 },		/* int3 */
		{ "\xf3\x0f\x1e\xfa", 4, SY_BR_NONE, 0, 4 },	/* endbr64 */
		{ "\x75\x02", 2, SY_BR_COND, 0, 2 },
	};
	struct sy_insn_decoder d;

	cr_assert_eq(sy_insn_decoder_init(&d, SY_TRACE_PT), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sy_insn in = decode(&d, (const uint8_t *)cases[i].bytes,
					   cases[i].len, 0x1000);

		cr_assert_eq(in.kind, cases[i].kind, "case %zu", i);
		cr_assert_eq(in.padding, cases[i].padding, "case %zu", i);
		cr_assert_eq(in.size, cases[i].size, "case %zu", i);
	}
	cr_assert_eq(decode(&d, (const uint8_t *)"\xe8\x10\x00\x00\x00", 5,
			    0x1000).target,
		     0x1015);
	sy_insn_decoder_fini(&d);
}
