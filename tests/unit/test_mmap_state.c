/* MMAP2 lines in force (src/out/mmap_state.h), as llvm-profgen 19 reads a
 * perf script: one load address per binary, moved by each of its lines;
 * an address means the newest line over it. */
#include <criterion/criterion.h>

#include "out/mmap_state.h"

TestSuite(mmap_state);

Test(mmap_state, a_binary_has_one_address_the_newest)
{
	struct sy_mmstate s;

	sy_mmstate_init(&s);
	cr_assert_not(sy_mmstate_in_force(&s, 0x1000, 0x100, 0, "/p"));
	cr_assert_eq(sy_mmstate_note(&s, 0x1000, 0x100, 0, "/p", 1), 0);
	cr_assert(sy_mmstate_in_force(&s, 0x1000, 0x100, 0, "/p"));
	cr_assert_not(sy_mmstate_in_force(&s, 0x1000, 0x200, 0, "/p"),
		      "another length is another line");
	cr_assert_not(sy_mmstate_in_force(&s, 0x1000, 0x100, 0x1000, "/p"),
		      "another offset is another segment");
	/* the binary moves: its old address means nothing now */
	cr_assert_eq(sy_mmstate_note(&s, 0x9000, 0x100, 0, "/p", 2), 0);
	cr_assert_not(sy_mmstate_in_force(&s, 0x1000, 0x100, 0, "/p"));
	cr_assert_null(sy_mmstate_find(&s, 0x1010));
	cr_assert_eq(sy_mmstate_find(&s, 0x9010)->id, 2);
	cr_assert_null(sy_mmstate_find(&s, 0x9100), "the end is outside");
	sy_mmstate_fini(&s);
	sy_mmstate_fini(&s);	/* twice is harmless */
}

Test(mmap_state, a_newer_line_over_an_older_one_hides_it)
{
	struct sy_mmstate s;

	sy_mmstate_init(&s);
	cr_assert_eq(sy_mmstate_note(&s, 0x1000, 0x1000, 0, "/lib/a", 1), 0);
	cr_assert_eq(sy_mmstate_note(&s, 0x1800, 0x1000, 0, "/lib/b", 2), 0);
	cr_assert_eq(sy_mmstate_find(&s, 0x1100)->id, 1);
	cr_assert_eq(sy_mmstate_find(&s, 0x1900)->id, 2, "newest wins");
	cr_assert_not(sy_mmstate_in_force(&s, 0x1000, 0x1000, 0, "/lib/a"),
		      "b covers part of a: a must be written again");
	cr_assert(sy_mmstate_in_force(&s, 0x1800, 0x1000, 0, "/lib/b"));
	cr_assert_eq(sy_mmstate_note(&s, 0x1000, 0x1000, 0, "/lib/a", 3), 0);
	cr_assert_eq(sy_mmstate_find(&s, 0x1900)->id, 3);
	cr_assert(sy_mmstate_in_force(&s, 0x1000, 0x1000, 0, "/lib/a"));
	cr_assert_not(sy_mmstate_in_force(&s, 0x1800, 0x1000, 0, "/lib/b"));
	sy_mmstate_fini(&s);
}

Test(mmap_state, conflicts_are_changes_not_new_binaries)
{
	struct sy_mmstate s;

	sy_mmstate_init(&s);
	cr_assert_eq(sy_mmstate_note(&s, 0x1000, 0x1000, 0, "/p", 1), 0);
	cr_assert_not(sy_mmstate_conflicts(&s, 0x1000, 0x1000, 0, "/p"),
		      "in force");
	cr_assert_not(sy_mmstate_conflicts(&s, 0x8000, 0x1000, 0, "/lib"),
		      "a new binary elsewhere changes nothing written");
	cr_assert(sy_mmstate_conflicts(&s, 0x9000, 0x1000, 0, "/p"),
		  "the binary moves");
	cr_assert(sy_mmstate_conflicts(&s, 0x1800, 0x1000, 0, "/lib"),
		  "another binary over its addresses");
	sy_mmstate_fini(&s);
}
