/* Dropping pages (src/base/pages.c), seen on anonymous memory, where a
 * dropped page reads back as zeros (the library only drops pages of its
 * read-only input mapping, which read back from the file instead): whole
 * pages inside a range only; a batch drops nothing until it spans
 * SY_PAGES_BATCH or a range apart from it comes, keeps the page it ends
 * inside for the range that completes it, and drops everything on flush. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sy_pages.h"

static size_t page;

static unsigned char *fresh(size_t len)
{
	unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(m, MAP_FAILED);
	memset(m, 0xaa, len);
	page = (size_t)sysconf(_SC_PAGESIZE);
	return m;
}

/* Whether every byte of [lo, hi) of @m is @v. */
static int all(const unsigned char *m, size_t lo, size_t hi, unsigned char v)
{
	for (size_t i = lo; i < hi; i++)
		if (m[i] != v)
			return 0;
	return 1;
}

Test(pages, drop_takes_whole_pages_inside)
{
	size_t len = 8 * 4096 * 4;
	unsigned char *m = fresh(len);
	size_t lo = page + 100, hi = 5 * page + 7;

	sy_pages_drop(m + lo, hi - lo);
	cr_assert(all(m, 0, 2 * page, 0xaa), "the partial first page stays");
	cr_assert(all(m, 2 * page, 5 * page, 0), "whole pages inside go");
	cr_assert(all(m, 5 * page, len, 0xaa), "the partial last page stays");
	sy_pages_drop(NULL, 100);
	sy_pages_drop(m, 0);
	munmap(m, len);
}

Test(pages, batch_drops_a_megabyte_at_a_time)
{
	size_t len = 4 * SY_PAGES_BATCH;
	unsigned char *m = fresh(len);
	struct sy_pages_batch b = { 0 };
	size_t a = 300001, c = 700003, e = SY_PAGES_BATCH + 4097;
	size_t tail = e / page * page;

	/* ranges that follow each other, overlapping: nothing goes yet */
	sy_pages_batch_add(&b, m, a);
	sy_pages_batch_add(&b, m + a - 5000, c - a + 5000);
	cr_assert(all(m, 0, len, 0xaa), "dropped before the batch was full");
	/* past a megabyte: the whole pages so far go, the one the batch ends
	 * inside stays */
	sy_pages_batch_add(&b, m + c, e - c);
	cr_assert(all(m, 0, tail, 0), "a full batch is not dropped");
	cr_assert(all(m, tail, len, 0xaa), "more than the batch went");
	/* the range that completes that page, then one apart: the batch goes
	 * first, its last page with it */
	sy_pages_batch_add(&b, m + e, 2 * page);
	cr_assert(all(m, tail, len, 0xaa));
	sy_pages_batch_add(&b, m + 3 * SY_PAGES_BATCH, 10 * page);
	cr_assert(all(m, tail, tail + 2 * page, 0),
		  "the page a batch ended inside was never dropped");
	cr_assert(all(m, tail + 2 * page, len, 0xaa));
	/* the range apart waits for the flush */
	cr_assert(all(m, 3 * SY_PAGES_BATCH, 3 * SY_PAGES_BATCH + 10 * page,
		      0xaa));
	sy_pages_batch_flush(&b);
	cr_assert(all(m, 3 * SY_PAGES_BATCH, 3 * SY_PAGES_BATCH + 10 * page,
		      0));
	cr_assert(b.lo == 0 && b.hi == 0);
	sy_pages_batch_flush(&b);
	sy_pages_batch_add(&b, NULL, 5);
	cr_assert(b.lo == 0 && b.hi == 0);
	munmap(m, len);
}

/* Ranges that reach back over what a drop took (a chunk with the pages
 * around it, walk.c), one after another, each a little further on: they
 * join the batch, which goes again only a megabyte past its last drop, all
 * of it (the pages touched again since go too).  Before, a drop that ended
 * on a page boundary left the batch empty, and every such range was
 * dropped at once (one drop of megabytes per chunk). */
Test(pages, batch_reaching_back_waits_a_megabyte)
{
	size_t len = 4 * SY_PAGES_BATCH;
	unsigned char *m = fresh(len);
	struct sy_pages_batch b = { 0 };
	size_t step = 16 * page, end = SY_PAGES_BATCH;

	sy_pages_batch_add(&b, m, end);
	cr_assert(all(m, 0, end, 0), "a full batch is not dropped");
	/* touched again: the next ranges reach back over them */
	memset(m, 0xaa, end);
	for (size_t hi = end + step; hi < 2 * SY_PAGES_BATCH; hi += step) {
		sy_pages_batch_add(&b, m, hi);
		cr_assert(all(m, 0, hi, 0xaa),
			  "dropped again before a megabyte more came");
	}
	sy_pages_batch_add(&b, m + page, 2 * SY_PAGES_BATCH - page);
	cr_assert(all(m, 0, 2 * SY_PAGES_BATCH, 0),
		  "the batch did not go a megabyte past its last drop");
	cr_assert(all(m, 2 * SY_PAGES_BATCH, len, 0xaa));
	munmap(m, len);
}

/* A batch with a join distance takes ranges that far apart, and the pages
 * between go with them, in one drop; a range farther away drops the batch
 * first, and the distance holds after.  Without it, each range apart was a
 * drop of its own: 28,000 for the unit planner of a recording with an AUX
 * record per window (units.c). */
Test(pages, batch_joins_ranges_within_its_distance)
{
	size_t len = 4 * SY_PAGES_BATCH;
	unsigned char *m = fresh(len);
	struct sy_pages_batch b = { .join = 64 * page };

	/* three small ranges with gaps under the distance: nothing goes */
	sy_pages_batch_add(&b, m, page);
	sy_pages_batch_add(&b, m + 10 * page, page);
	sy_pages_batch_add(&b, m + 60 * page, 2 * page);
	cr_assert(all(m, 0, len, 0xaa), "dropped before a range apart came");
	/* one beyond the distance: the batch goes, the gaps with it */
	sy_pages_batch_add(&b, m + 200 * page, page);
	cr_assert(all(m, 0, 62 * page, 0), "the joined batch is not dropped");
	cr_assert(all(m, 62 * page, len, 0xaa), "more than the batch went");
	cr_assert_eq(b.join, 64 * page, "a drop lost the join distance");
	/* the distance still joins the next range to the new batch */
	sy_pages_batch_add(&b, m + 250 * page, page);
	cr_assert(all(m, 62 * page, len, 0xaa));
	sy_pages_batch_flush(&b);
	cr_assert(all(m, 200 * page, 251 * page, 0));
	cr_assert(all(m, 251 * page, len, 0xaa));
	munmap(m, len);
}
