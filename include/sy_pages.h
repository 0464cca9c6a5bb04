/* Pages of a read-only file mapping a caller is done with.
 *
 * convert maps its input and decodes AUX payloads straight from the
 * mapping: every page it touched would stay resident, counted in the
 * process's RSS, however long the recording.  Dropping the pages of trace
 * that is decoded keeps the resident input to what is being decoded.  A
 * dropped page of a private, never-written file mapping is read again from
 * the file when touched, so dropping one that is still needed costs a
 * page fault, never data.  Never call it on anonymous memory (it would
 * read back as zeros). */
#ifndef SY_PAGES_H
#define SY_PAGES_H

#include <stddef.h>

#include <stdint.h>

/* Drops the whole pages inside [@p, @p + @len) from the process. */
void sy_pages_drop(const void *p, size_t len);

/* Ranges to drop, gathered and dropped a batch at a time.  Each drop makes
 * the kernel flush the mapping's TLB entries on every CPU the process runs
 * on (an interrupt on each): dropped a job's bytes at a time (two ranges
 * per job of 128 KiB), that cost two threads a sixth of what the second
 * gained on dense trace.  Ranges that touch or overlap the batch (or come
 * within its join distance) join it; one that does not drops the batch
 * first.  The batch goes once its end is SY_PAGES_BATCH past where the
 * last drop ended (or its start): a range reaching back over dropped pages
 * (a small job's chunk with the SY_PAGES_AROUND on each side, walk.c) is
 * dropped again with the next megabyte, not at once (25,000 drops of 6 MB
 * each on pt-deep, one per job, on the walk's thread).  All zero is
 * empty. */
struct sy_pages_batch {
	uintptr_t lo, hi;
	uintptr_t mark;		/* where the last drop ended */
	/* Ranges up to this many bytes apart join too, and the pages between
	 * go with them: for a caller to whom those pages are only read again
	 * (the unit planner's reads of small AUX payloads, each between
	 * sample records: a drop per payload was 28,000 madvise calls on a
	 * recording of a window per AUX record).  0: touching only. */
	size_t join;
};

/* What one touch of a mapped file may bring into the process: the pages
 * the kernel maps around the faulting one (fault_around_bytes, 64 KiB),
 * or the whole large folio of the page cache it lies in (up to a PMD, 2
 * MiB, aligned in the file: ext4 has them since Linux 6.16).  Reading a
 * few bytes of PT every 128 KiB of trace kept 36 MB of a 90 MB file
 * resident on 6.18.  Dropping pages around what was read, this far on
 * each side, drops what the touch brought. */
#define SY_PAGES_AROUND ((uint64_t)2 << 20)

/* At least this much is dropped at once (what stays resident besides). */
#define SY_PAGES_BATCH ((size_t)1 << 20)

/* Adds [@p, @p + @len): the batch is dropped once it reaches
 * SY_PAGES_BATCH past the last drop, or before a range apart from it. */
void sy_pages_batch_add(struct sy_pages_batch *b, const void *p, size_t len);
/* Drops what the batch holds; it is empty after. */
void sy_pages_batch_flush(struct sy_pages_batch *b);

#endif
