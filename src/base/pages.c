#include "sy_pages.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void sy_pages_drop(const void *p, size_t len)
{
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(page - 1);

	/* advice only: when it fails, the pages stay */
	if (p && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}
