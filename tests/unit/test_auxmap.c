/* The AUX map (src/synth/auxmap.h) driven directly: payloads as perf writes
 * them (each padded to 8 bytes, the next starting where the data ended),
 * holes where a chunk never reached the file, records whose bytes follow
 * each other or not, and the stream units planned from them.  Every
 * expected value is worked out from the rules in auxmap.h, stated beside
 * it. */
#include <criterion/criterion.h>

#include "synth/auxmap.h"

static void add_bufs(struct sy_auxmap *m, const uint64_t (*b)[3], size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(sy_auxmap_add_buf(m, b[i][0], b[i][1], b[i][2]), 0);
	sy_auxmap_sort(m);
}

static void add_recs(struct sy_auxmap *m, const uint64_t (*r)[2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct sy_auxrec rec = { .aux_off = r[i][0], .size = r[i][1],
					 .time = 100 * (i + 1),
					 .rec_off = 1000 + 40 * i };

		cr_assert_eq(sy_auxmap_add_rec(m, &rec), 0);
	}
}

/* Payloads added out of order come out sorted by AUX offset, with their
 * file offsets. */
Test(auxmap, payloads_sorted_by_aux_offset)
{
	static const uint64_t b[][3] = {
		{ 300, 100, 9000 }, { 0, 104, 5000 }, { 100, 200, 7000 },
	};
	struct sy_auxmap m;

	sy_auxmap_init(&m);
	add_bufs(&m, b, 3);
	cr_assert_eq(m.nr_bufs, 3);
	cr_assert_eq(m.bufs[0].aux_off, 0);
	cr_assert_eq(m.bufs[0].file_off, 5000);
	cr_assert_eq(m.bufs[1].aux_off, 100);
	cr_assert_eq(m.bufs[2].aux_off, 300);
	cr_assert_eq(m.bufs[2].file_off, 9000);
	sy_auxmap_fini(&m);
}

/* perf pads a payload to 8 bytes and starts the next one where the data
 * ended: [0, 104) then [100, 300).  The first payload's real bytes end at
 * 100, where the second starts; the last one's at its own end. */
Test(auxmap, padding_ends_where_the_next_payload_starts)
{
	static const uint64_t b[][3] = { { 0, 104, 5000 }, { 100, 200, 7000 } };
	struct sy_auxmap m;

	sy_auxmap_init(&m);
	add_bufs(&m, b, 2);
	cr_assert_eq(sy_auxmap_buf_end(&m, 0), 100);
	cr_assert_eq(sy_auxmap_buf_end(&m, 1), 300);
	/* byte 102 is in the second payload's real bytes, but the first
	 * payload still reaches it (its padding): the search steps back to
	 * the first payload that may hold it */
	cr_assert_eq(sy_auxmap_first_buf(&m, 102), 0);
	/* byte 200 only the second one reaches */
	cr_assert_eq(sy_auxmap_first_buf(&m, 200), 1);
	/* before everything: the first */
	cr_assert_eq(sy_auxmap_first_buf(&m, 0), 0);
	/* past everything: the last, whose end the caller compares */
	cr_assert_eq(sy_auxmap_first_buf(&m, 5000), 1);
	cr_assert(sy_auxmap_covered(&m, 0, 300));
	cr_assert(sy_auxmap_covered(&m, 50, 150));
	cr_assert_not(sy_auxmap_covered(&m, 0, 301));
	sy_auxmap_fini(&m);
}

/* A chunk perf never wrote leaves a hole: [0, 100) and [150, 250). */
Test(auxmap, a_hole_is_not_covered)
{
	static const uint64_t b[][3] = { { 0, 100, 5000 }, { 150, 100, 6000 } };
	struct sy_auxmap m;

	sy_auxmap_init(&m);
	add_bufs(&m, b, 2);
	cr_assert(sy_auxmap_covered(&m, 0, 100));
	cr_assert(sy_auxmap_covered(&m, 150, 250));
	cr_assert(sy_auxmap_covered(&m, 160, 170));
	cr_assert_not(sy_auxmap_covered(&m, 0, 250), "[100, 150) is missing");
	cr_assert_not(sy_auxmap_covered(&m, 99, 151));
	cr_assert_not(sy_auxmap_covered(&m, 120, 130), "inside the hole");
	sy_auxmap_fini(&m);
}

/* Units: maximal runs of records whose bytes follow each other and are
 * all in the file.  Payloads hold [0, 150) and [200, 400); records:
 *   0 [0, 100)    1 [100, 150)  follow each other, in the file: unit {0, 1}
 *   2 [150, 200)  in the hole: no unit, and it ends the run
 *   3 [200, 300)  4 [320, 400)  both in the file, but 4 does not start
 *                 where 3 ended (bytes 300-320 were never recorded):
 *                 units {3} and {4} */
Test(auxmap, units_end_at_holes_and_jumps)
{
	static const uint64_t b[][3] = { { 0, 150, 5000 }, { 200, 200, 6000 } };
	static const uint64_t r[][2] = {
		{ 0, 100 }, { 100, 50 }, { 150, 50 }, { 200, 100 }, { 320, 80 },
	};
	struct sy_auxmap m;

	sy_auxmap_init(&m);
	add_bufs(&m, b, 2);
	add_recs(&m, r, 5);
	cr_assert_eq(sy_auxmap_plan_units(&m, 0), 0);
	cr_assert_eq(m.nr_units, 3);
	cr_assert_eq(m.units[0].first, 0);
	cr_assert_eq(m.units[0].last, 1);
	cr_assert_eq(m.units[1].first, 3);
	cr_assert_eq(m.units[1].last, 3);
	cr_assert_eq(m.units[2].first, 4);
	cr_assert_eq(m.units[2].last, 4);

	/* ETR without pause samples: every record alone, still none for the
	 * one in the hole */
	cr_assert_eq(sy_auxmap_plan_units(&m, 1), 0);
	cr_assert_eq(m.nr_units, 4);
	cr_assert_eq(m.units[0].first, 0);
	cr_assert_eq(m.units[0].last, 0);
	cr_assert_eq(m.units[1].first, 1);
	cr_assert_eq(m.units[2].first, 3);
	cr_assert_eq(m.units[3].first, 4);
	sy_auxmap_fini(&m);
}

/* No record, no unit; planning twice replaces the plan. */
Test(auxmap, no_records_no_units)
{
	struct sy_auxmap m;

	sy_auxmap_init(&m);
	cr_assert_eq(sy_auxmap_plan_units(&m, 0), 0);
	cr_assert_eq(m.nr_units, 0);
	cr_assert_eq(sy_auxmap_plan_units(&m, 0), 0);
	cr_assert_eq(m.nr_units, 0);
	sy_auxmap_fini(&m);
}

/* The record holding a byte, among unit records [first, last]:
 * 0 [0, 100), 1 [100, 150), 2 [150, 200). */
Test(auxmap, record_at_a_byte)
{
	static const uint64_t r[][2] = { { 0, 100 }, { 100, 50 }, { 150, 50 } };
	struct sy_auxmap m;

	sy_auxmap_init(&m);
	add_recs(&m, r, 3);
	cr_assert_eq(sy_auxmap_rec_at(&m, 0, 2, 0), 0);
	cr_assert_eq(sy_auxmap_rec_at(&m, 0, 2, 99), 0);
	cr_assert_eq(sy_auxmap_rec_at(&m, 0, 2, 100), 1, "a record's first "
		     "byte is its own");
	cr_assert_eq(sy_auxmap_rec_at(&m, 0, 2, 149), 1);
	cr_assert_eq(sy_auxmap_rec_at(&m, 0, 2, 150), 2);
	/* past the unit: its last record (the search never leaves it) */
	cr_assert_eq(sy_auxmap_rec_at(&m, 0, 2, 250), 2);
	/* a unit of records 1..2: a byte before it is its first record's */
	cr_assert_eq(sy_auxmap_rec_at(&m, 1, 2, 50), 1);
	cr_assert_eq(sy_auxmap_rec_at(&m, 1, 2, 160), 2);
	/* a unit of one record */
	cr_assert_eq(sy_auxmap_rec_at(&m, 1, 1, 120), 1);
	sy_auxmap_fini(&m);
}
