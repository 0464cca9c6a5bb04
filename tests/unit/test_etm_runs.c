/* The fast path's atom-run cache (src/decode/etm_runs.c) on a hand-made
 * A64 image whose blocks are known: what a run holds (its ranges, where
 * the walk ends, whether it needs an address), that an unreadable block
 * leaves the atoms to the walk, that a run is found again by its whole key
 * and forgotten by a clear.  The run's equality with OpenCSD's own decode
 * is test_etm_decode.c's and test_etm_fastpath.c's (every decode there
 * runs both decoders). */
#include <criterion/criterion.h>
#include <opencsd/c_api/opencsd_c_api.h>
#include <string.h>

#include "decode/etm_runs.h"
#include "sy_branch.h"

#define BASE 0x400000ull

/* 0x00 add x0, x0, #1; 0x04 cmp x0, #10; 0x08 b.ne 0x00; 0x0c bl 0x20;
 * 0x10 ret; 0x14-0x1c nop; 0x20 br x1; 0x24 cbz x1, 0x00; nothing mapped
 * from 0x28 on */
static const uint32_t prog[] = {
	0x91000400, 0xf100281f, 0x54ffffc1, 0x94000005, 0xd65f03c0,
	0xd503201f, 0xd503201f, 0xd503201f, 0xd61f0020, 0xb4fffee1,
};

static size_t read_prog(void *ctx, uint32_t ctxid, uint64_t addr,
			uint8_t *buf, size_t len)
{
	size_t have;

	(void)ctx;
	if (ctxid != 7 || addr < BASE || addr >= BASE + sizeof(prog))
		return 0;
	have = BASE + sizeof(prog) - addr;
	if (len > have)
		len = have;
	memcpy(buf, (const uint8_t *)prog + (addr - BASE), len);
	return len;
}

static struct sy_code_cache code;
static struct etm_blocks blocks;
static struct etm_runs runs;

static void setup(void)
{
	sy_code_cache_init(&code, read_prog, NULL);
	cr_assert_eq(sy_etm_blocks_init(&blocks, &code), 0);
	cr_assert_eq(sy_etm_runs_init(&runs, &blocks), 0);
}

static void teardown(void)
{
	sy_etm_runs_fini(&runs);
	sy_etm_blocks_fini(&blocks);
}

TestSuite(etm_runs, .init = setup, .fini = teardown);

static void range_is(const struct etm_run_range *r, uint64_t st, uint64_t en,
		     uint32_t ninsn, uint8_t type, uint8_t exec, uint8_t br)
{
	cr_assert_eq(r->st, BASE + st, "st %#llx", (unsigned long long)r->st);
	cr_assert_eq(r->en, BASE + en, "en %#llx", (unsigned long long)r->en);
	cr_assert_eq(r->ninsn, ninsn);
	cr_assert_eq(r->type, type);
	cr_assert_eq(r->exec, exec);
	cr_assert_eq(r->br, br);
}

Test(etm_runs, loop_taken_twice)
{
	const struct etm_run *r = sy_etm_runs_get(&runs, BASE, 7, 0, 0x3, 2);

	cr_assert_not_null(r);
	cr_assert_eq(r->nr, 2);
	range_is(&r->r[0], 0, 0x0c, 3, OCSD_INSTR_BR, 1, SY_BR_COND);
	range_is(&r->r[1], 0, 0x0c, 3, OCSD_INSTR_BR, 1, SY_BR_COND);
	cr_assert_eq(r->end, BASE);
	cr_assert_eq(r->need_addr, 0);
	/* the branch between the ranges, handed out as the run's item; the
	 * second range's branch waits for what comes next */
	cr_assert_eq(r->branches.n, 1);
	cr_assert_eq(r->branches.v, r->br);
	cr_assert_eq(r->br[0].from, BASE + 0x08);
	cr_assert_eq(r->br[0].to, BASE);
	cr_assert_eq(r->br[0].br, SY_BR_COND);
	cr_assert_eq(r->br[0].ninsn, 0, "the first range's are the item's");
	cr_assert_eq(r->branches.ninsn, 0);
	cr_assert_eq(r->tail_ninsn, 3);
}

/* N then E: falls through the b.ne into the bl, which goes to 0x20 */
Test(etm_runs, not_taken_then_call)
{
	const struct etm_run *r = sy_etm_runs_get(&runs, BASE, 7, 0, 0x2, 2);

	cr_assert_not_null(r);
	cr_assert_eq(r->nr, 2);
	range_is(&r->r[0], 0, 0x0c, 3, OCSD_INSTR_BR, 0, 0);
	range_is(&r->r[1], 0x0c, 0x10, 1, OCSD_INSTR_BR, 1, SY_BR_CALL);
	cr_assert_eq(r->end, BASE + 0x20);
	/* no branch between them: the bl's instructions come after */
	cr_assert_eq(r->branches.n, 0);
	cr_assert_eq(r->tail_ninsn, 1);
}

/* Taken, not taken, taken: the second branch's instructions are the
 * not-taken range's and its own range's. */
Test(etm_runs, branches_count_what_ran_between)
{
	const struct etm_run *r = sy_etm_runs_get(&runs, BASE, 7, 0, 0x5, 3);

	cr_assert_not_null(r);
	cr_assert_eq(r->nr, 3);
	cr_assert_eq(r->branches.n, 1);
	cr_assert_eq(r->br[0].from, BASE + 0x08);
	cr_assert_eq(r->br[0].to, BASE);
	cr_assert_eq(r->br[0].ninsn, 0);
	/* after it: N (the loop's 3), then the bl's 1, taken: pending */
	cr_assert_eq(r->tail_ninsn, 4);
	cr_assert_eq(r->r[2].br, SY_BR_CALL);
}

/* Whether atoms @bits (oldest first) from BASE are ones this code can
 * give: N only at the b.ne (the bl and the br are always taken), nothing
 * after the br (it needs an address). */
static int valid_key(uint32_t bits, unsigned n)
{
	uint64_t at = 0;

	for (unsigned i = 0; i < n; i++) {
		int e = (bits >> i) & 1;

		if (at == 0x20)
			return 0;
		if (at == 0x00)
			at = e ? 0x00 : 0x0c;
		else if (!e)
			return 0;
		else
			at = 0x20;
	}
	return 1;
}

/* A run an item points at (sy_etm_conv_run) stays what it is: another key
 * for its entry gets no run (the walk takes those atoms) until the items
 * are taken (etm_runs_unpin); a clear unpins too. */
Test(etm_runs, pinned_until_the_items_are_taken)
{
	const struct etm_run *a = sy_etm_runs_get(&runs, BASE, 7, 0, 0x3, 2);
	struct etm_run keep;
	unsigned rn = 0;
	uint32_t rbits = 0;

	cr_assert_not_null(a);
	memcpy(&keep, a, sizeof(keep));
	/* more keys than entries: some land on a's, or on another pinned */
	for (unsigned n = 1; n <= 11 && !rn; n++)
		for (uint32_t bits = 0; bits < (1u << n) && !rn; bits++) {
			uint64_t before = runs.pinned;

			if (valid_key(bits, n) &&
			    !sy_etm_runs_get(&runs, BASE, 7, 0, bits, n) &&
			    runs.pinned > before) {
				rn = n;
				rbits = bits;
			}
		}
	cr_assert_gt(rn, 0, "no key was refused for a pinned entry");
	cr_assert_eq(memcmp(a, &keep, sizeof(keep)), 0,
		     "a pinned run was overwritten");
	etm_runs_unpin(&runs);
	cr_assert_not_null(sy_etm_runs_get(&runs, BASE, 7, 0, rbits, rn));
	/* and after a clear, the same key is found again (filled anew) */
	sy_etm_runs_clear(&runs);
	cr_assert_not_null(sy_etm_runs_get(&runs, BASE, 7, 0, rbits, rn));
}

/* A taken indirect branch ends the processing: the walk needs an address,
 * the run's other atoms are committed without code. */
Test(etm_runs, indirect_ends_the_run)
{
	const struct etm_run *r = sy_etm_runs_get(&runs, BASE + 0x20, 7, 0, 0x7,
					       3);

	cr_assert_not_null(r);
	cr_assert_eq(r->nr, 1);
	range_is(&r->r[0], 0x20, 0x24, 1, OCSD_INSTR_BR_INDIRECT, 1,
		 SY_BR_IND_JUMP);
	cr_assert_eq(r->need_addr, 1);
	cr_assert_eq(r->end, BASE + 0x24);
}

/* Unreadable code (ADDR_NACC) is the walk's to report: no run, at the
 * first atom or after readable ones. */
Test(etm_runs, unreadable_is_no_run)
{
	cr_assert_null(sy_etm_runs_get(&runs, BASE + 0x28, 7, 0, 0x1, 1));
	cr_assert_null(sy_etm_runs_get(&runs, BASE, 8, 0, 0x1, 1));
	/* the cbz not taken ends at 0x28; a second atom would walk from
	 * there, which cannot be read */
	cr_assert_eq(sy_etm_runs_get(&runs, BASE + 0x24, 7, 0, 0x0, 1)->end,
		     BASE + 0x28);
	cr_assert_null(sy_etm_runs_get(&runs, BASE + 0x24, 7, 0, 0x0, 2));
}

/* An N atom on an unconditional branch is no execution of this code: no
 * run holds one, so the walk hands it to etm_conv.c, which reports trace
 * and code disagreeing (SY_DEC_ERR_DISAGREE). */
Test(etm_runs, unconditional_not_taken_is_no_run)
{
	/* N at the b.ne, then N at the bl */
	cr_assert_null(sy_etm_runs_get(&runs, BASE, 7, 0, 0x0, 2));
	/* N at the b.ne, E at the bl, N at the br */
	cr_assert_null(sy_etm_runs_get(&runs, BASE, 7, 0, 0x2, 3));
	/* the same up to the bl is a run */
	cr_assert_not_null(sy_etm_runs_get(&runs, BASE, 7, 0, 0x2, 2));
}

/* Found again by the whole key, and only by it; a clear forgets all. */
Test(etm_runs, key_and_clear)
{
	const struct etm_run *a = sy_etm_runs_get(&runs, BASE, 7, 0, 0x3, 2);
	const struct etm_run *b;

	cr_assert_eq(runs.misses, 1);
	cr_assert_eq(sy_etm_runs_get(&runs, BASE, 7, 0, 0x3, 2), a);
	cr_assert_eq(runs.hits, 1);
	b = sy_etm_runs_get(&runs, BASE, 7, 0, 0x1, 2);	/* E then N */
	cr_assert_not_null(b);
	cr_assert_eq(runs.misses, 2);
	cr_assert_eq(b->r[1].exec, 0);
	cr_assert_eq(sy_etm_runs_get(&runs, BASE, 7, 0, 0x3, 1)->nr, 1);
	cr_assert_eq(runs.misses, 3);
	sy_etm_runs_clear(&runs);
	cr_assert_eq(runs.hits + runs.misses, 0);
	cr_assert_not_null(sy_etm_runs_get(&runs, BASE, 7, 0, 0x3, 2));
	cr_assert_eq(runs.misses, 1, "a clear keeps nothing");
}
