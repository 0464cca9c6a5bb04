/* windows --svg's timeline grid (src/cli/windows/timeline.c, compiled in
 * here: the CLI's objects are not a library): every window lands in one
 * cell whatever the span and the order of the times, the grid never grows
 * past its columns, rows go to CPUs and threads as they appear with the
 * rest sharing the last, and each cell keeps its shortest and longest
 * length. */
#include <criterion/criterion.h>
#include <string.h>

#include "cli/windows/timeline.c"

static struct sy_window win(uint32_t cpu, uint32_t tid, uint64_t t,
			    uint64_t insns, enum sy_status st)
{
	return (struct sy_window){ .cpu = cpu, .tid = tid, .pause_time = t,
				   .insns = insns, .status = st };
}

/* Windows, shortest and longest length of @st over the rows of @by. */
static void sum(const struct sy_tl *tl, int by, int st, uint64_t *n,
		uint64_t *lo, uint64_t *hi)
{
	*n = 0;
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t row = 0; row < SY_TL_ROWS; row++)
		for (size_t col = 0; col < SY_TL_COLS; col++) {
			const struct sy_tl_cell *c = &sy_tl_cell(tl, by, row,
								 col)[st];

			if (!c->n)
				continue;
			*n += c->n;
			*lo = c->min < *lo ? c->min : *lo;
			*hi = c->max > *hi ? c->max : *hi;
		}
}

Test(timeline, a_long_recording_coarsens_and_keeps_every_window)
{
	struct sy_tl tl;
	uint64_t n, lo, hi;

	cr_assert_eq(sy_tl_init(&tl), 0);
	/* one second of windows every millisecond, 20 threads on 3 CPUs */
	for (uint32_t i = 0; i < 1000; i++) {
		struct sy_window w = win(i % 3, 100 + i % 20,
					 1000000000ull + i * 1000000ull,
					 10 + i, i % 4 ? SY_ST_OK :
							 SY_ST_TRUNCATED);

		sy_tl_add(&tl, &w);
	}
	cr_assert_leq(tl.cols, SY_TL_COLS);
	cr_assert_geq(tl.cols * tl.width, 999000000ull);
	cr_assert_eq(tl.nr[0], 3);
	cr_assert_eq(tl.others[0], 0);
	cr_assert_eq(tl.nr[1], SY_TL_ROWS - 1);
	cr_assert_eq(tl.others[1], 1);
	for (int by = 0; by < 2; by++) {
		sum(&tl, by, SY_ST_OK, &n, &lo, &hi);
		cr_assert_eq(n, 750);
		cr_assert_eq(lo, 11);
		cr_assert_eq(hi, 1009);
		sum(&tl, by, SY_ST_TRUNCATED, &n, &lo, &hi);
		cr_assert_eq(n, 250);
		cr_assert_eq(lo, 10);
		cr_assert_eq(hi, 1006);
	}
	/* the last thread row: the 16th to 20th threads, 50 windows each */
	n = 0;
	for (size_t col = 0; col < SY_TL_COLS; col++)
		for (int st = 0; st < SY_ST_NR; st++)
			n += sy_tl_cell(&tl, 1, SY_TL_ROWS - 1, col)[st].n;
	cr_assert_eq(n, 250);
	cr_assert_eq(tl.seen[SY_ST_OK] + tl.seen[SY_ST_TRUNCATED], 1000);
	sy_tl_fini(&tl);
}

/* Column of the one window of thread row @row. */
static size_t col_of(const struct sy_tl *tl, size_t row)
{
	for (size_t col = 0; col < SY_TL_COLS; col++)
		if (sy_tl_cell(tl, 1, row, col)[SY_ST_OK].n)
			return col;
	return SIZE_MAX;
}

Test(timeline, earlier_windows_make_room_on_the_left)
{
	struct sy_tl tl;
	uint64_t times[] = { 5000, 4000, 9000, 100, 5000000, 3 };
	uint64_t n, lo, hi;

	cr_assert_eq(sy_tl_init(&tl), 0);
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		/* a thread each: its row finds it */
		struct sy_window w = win(0, (uint32_t)i, times[i], 1, SY_ST_OK);

		sy_tl_add(&tl, &w);
		cr_assert_leq(tl.cols, SY_TL_COLS);
		cr_assert_leq(tl.t0, times[i] < tl.width ? tl.width : times[i]);
	}
	sum(&tl, 0, SY_ST_OK, &n, &lo, &hi);
	cr_assert_eq(n, 6);
	/* in time order, left to right: 3, 100, 4000, 5000, 9000, 5000000 */
	cr_assert_leq(col_of(&tl, 5), col_of(&tl, 3));
	cr_assert_leq(col_of(&tl, 3), col_of(&tl, 1));
	cr_assert_leq(col_of(&tl, 1), col_of(&tl, 0));
	cr_assert_leq(col_of(&tl, 0), col_of(&tl, 2));
	cr_assert_lt(col_of(&tl, 2), col_of(&tl, 4));
	cr_assert_lt(col_of(&tl, 4), SY_TL_COLS);
	sy_tl_fini(&tl);
}

Test(timeline, windows_without_a_time_are_left_out)
{
	struct sy_tl tl;
	struct sy_window w = win(0, 1, 0, 100, SY_ST_OK);

	cr_assert_eq(sy_tl_init(&tl), 0);
	sy_tl_add(&tl, &w);
	cr_assert_eq(tl.cols, 0);
	cr_assert_eq(tl.seen[SY_ST_OK], 0);
	sy_tl_fini(&tl);
	/* not kept (no --svg): nothing happens */
	w.pause_time = 10;
	sy_tl_add(&tl, &w);
	cr_assert_eq(tl.cols, 0);
}
