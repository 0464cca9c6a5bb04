#include "sy_pages.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static uintptr_t sy_page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (uintptr_t)ps : 4096;
}

void sy_pages_drop(const void *p, size_t len)
{
	uintptr_t page = sy_page_size();
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(page - 1);

	/* advice only: when it fails, the pages stay */
	if (p && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void sy_pages_batch_flush(struct sy_pages_batch *b)
{
	if (b->hi > b->lo)
		sy_pages_drop((const void *)b->lo, b->hi - b->lo);
	b->lo = b->hi = b->mark = 0;
}

void sy_pages_batch_add(struct sy_pages_batch *b, const void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len;

	if (!p || !len)
		return;
	/* (a batch that was dropped up to a page's end is empty but not
	 * over: its mark holds) */
	if (b->hi && (lo > b->hi + b->join || hi + b->join < b->lo))
		sy_pages_batch_flush(b);	/* (join stays) */
	if (b->hi) {
		lo = lo < b->lo ? lo : b->lo;
		hi = hi > b->hi ? hi : b->hi;
	} else {
		b->mark = lo;
	}
	b->lo = lo;
	b->hi = hi;
	/* a megabyte past the last drop: ranges that reach back over what
	 * was dropped (a chunk and the pages around it) join without
	 * dropping those again one range at a time */
	if (b->hi - b->mark >= SY_PAGES_BATCH) {
		sy_pages_drop((const void *)b->lo, b->hi - b->lo);
		/* the last page, when the batch ends inside it, waits for the
		 * range that completes it */
		b->lo = b->hi & ~(sy_page_size() - 1);
		b->mark = b->hi;
	}
}
