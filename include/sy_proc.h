/* The process model: the traced binaries and the address spaces they live
 * in, one header per concept (sy_image.h, sy_image_cache.h, sy_aspace.h,
 * this file, sy_mem_reader.h).
 *
 * Decoders read the traced program's code through sy_read_mem_fn
 * (sy_decode.h).  This layer answers those reads from three pieces:
 *
 *   struct sy_image         one ELF file, mapped once read-only; its
 *                           executable PT_LOAD segments, machine, type and
 *                           GNU build-id.  Immutable after open, so any
 *                           number of threads may read it at once.
 *   struct sy_image_cache   finds the file for a recorded path and build-id
 *                           (--binary, --symfs, the perf build-id cache, the
 *                           recorded path), verifies build-ids, opens every
 *                           file once, and counts what could not be found.
 *   struct sy_proc_table    the processes of a recording, fed with MMAP,
 *                           MMAP2, COMM, FORK and EXIT records in file
 *                           order.  It hands out immutable, refcounted
 *                           snapshots (struct sy_proc_snap) that a window
 *                           decoded later, on another thread, reads from
 *                           while the table moves on.
 *   struct sy_mem_reader    one per decoding thread: sy_mem_read() is the
 *                           sy_read_mem_fn over a snapshot.
 *
 * Typical use:
 *
 *	sy_image_cache_new(&cache, &opts, &diag);
 *	sy_proc_table_new(&procs, cache);
 *	sy_proc_table_set_build_ids(procs, sy_perf_features(r));
 *	while (sy_perf_next(r, &rec) == 0) {
 *		sy_event_parse(&rec, &ev, &diag);
 *		sy_proc_table_feed(procs, &rec, &ev);
 *		if (rec.type == SY_REC_AUX)	// a window ends here
 *			win->snap = sy_proc_table_snapshot(procs);
 *	}
 *	// on a decoding thread:
 *	// params.read_mem = sy_mem_read, params.mem_ctx = rd
 *	sy_mem_reader_begin(rd, win->snap);
 *	...decode...
 *	sy_mem_reader_end(rd);			// charges missing binaries
 *	// at the end:
 *	n = sy_image_cache_missing(cache, list, max);	// one line per binary
 *
 * Lifetimes: the cache owns every image and every recorded path string; it
 * must outlive the tables, snapshots and readers made with it.  Snapshots
 * outlive the table that made them (they hold references, not pointers into
 * the table).
 *
 * Threads: an image, a snapshot and everything reached from a snapshot
 * (address spaces, maps) are immutable and safe to share.  The cache locks
 * internally: any thread may call it.  A table is used by one thread at a
 * time (the one walking the records).  A reader belongs to one thread.
 *
 * Errors are 0 / -SY_E_*; details go to a struct sy_diag whose message
 * starts with the file name.
 */
#ifndef SY_PROC_H
#define SY_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "sy_aspace.h"
#include "sy_error.h"
#include "sy_image_cache.h"
#include "sy_perf_reader.h"
#include "sy_perf_event.h"

/* Every process of a recording at one moment; immutable, refcounted. */
struct sy_proc_snap;

struct sy_proc_table;

/* Returns 0, -SY_E_INVALID (NULL @cache) or -SY_E_NOMEM. */
int sy_proc_table_new(struct sy_proc_table **out,
		      struct sy_image_cache *cache);
/* Accepts NULL.  Snapshots taken from it stay valid. */
void sy_proc_table_free(struct sy_proc_table *t);

/* Build-ids of the BUILD_ID feature, for MMAP records and MMAP2 records
 * without one: matched by filename, preferring an entry of the same pid,
 * then pid -1.  Copies what it needs.  Returns 0 or -SY_E_NOMEM. */
int sy_proc_table_set_build_ids(struct sy_proc_table *t,
				const struct sy_perf_features *f);

/* Applies one record, in file order: MMAP/MMAP2 place a mapping in the
 * space of its pid (pid -1: the kernel space, consulted for every process
 * when its own space has nothing at an address); COMM with the exec flag
 * empties the space; FORK gives a new process its parent's space (a new
 * thread only joins its process, reads with its tid see that space); EXIT
 * ends a process or thread but leaves its last space readable under its
 * id, because per-CPU AUX buffers are often written out after the
 * processes they traced exited, until sy_proc_table_forget; a FORK or exec
 * reusing the id replaces it.
 * Other record types are ignored.  Code mappings (MMAP2 with PROT_EXEC or prot 0,
 * MMAP without MISC_MMAP_DATA) are looked up in the cache now; a missing
 * binary is not an error.  Returns 0 or -SY_E_NOMEM (the table is unchanged
 * then). */
int sy_proc_table_feed(struct sy_proc_table *t, const struct sy_record *rec,
		       const struct sy_event *ev);

/* The same per record type.  @misc is the record header's misc. */
int sy_proc_table_mmap(struct sy_proc_table *t, const struct sy_ev_mmap *m,
		       uint16_t misc);
int sy_proc_table_comm(struct sy_proc_table *t, const struct sy_ev_comm *c);
int sy_proc_table_fork(struct sy_proc_table *t, const struct sy_ev_task *k);
int sy_proc_table_exit(struct sy_proc_table *t, const struct sy_ev_task *k);

/* Forgets the processes and threads that exited at or before @upto (by
 * their EXIT records' times): later snapshots do not have them, earlier
 * ones keep them.  The caller's promise: every snapshot that trace written
 * by @upto needs has been taken.  A process goes once its leader and every
 * thread of it the table knows exited; an id that a later record showed
 * alive again (a FORK, exec or mmap) is not touched.  Returns 0 or
 * -SY_E_NOMEM. */
int sy_proc_table_forget(struct sy_proc_table *t, uint64_t upto);
/* The time of the oldest EXIT not forgotten yet (UINT64_MAX: none). */
uint64_t sy_proc_table_oldest_exit(const struct sy_proc_table *t);
/* How many processes and threads were forgotten so far. */
uint64_t sy_proc_table_forgotten(const struct sy_proc_table *t);
/* The most processes the table held at once so far. */
size_t sy_proc_table_peak(const struct sy_proc_table *t);

/* The current space of @pid (or of a known thread id), borrowed until the
 * next call that changes the table; NULL when unknown. */
const struct sy_aspace *sy_proc_table_aspace(const struct sy_proc_table *t,
					     uint32_t pid);

/* A new reference to the table as it is now.  Taking it costs O(processes
 * + threads) when the table changed since the last one, nothing otherwise
 * (the same snapshot is returned).  NULL when out of memory. */
struct sy_proc_snap *sy_proc_table_snapshot(struct sy_proc_table *t);

/* Reference counting; thread-safe.  put accepts NULL. */
struct sy_proc_snap *sy_proc_snap_get(struct sy_proc_snap *s);
void sy_proc_snap_put(struct sy_proc_snap *s);

/* Space of a process or thread id, NULL when unknown; the kernel space
 * (may be NULL). */
const struct sy_aspace *sy_proc_snap_aspace(const struct sy_proc_snap *s,
					    uint32_t id);
const struct sy_aspace *sy_proc_snap_kernel(const struct sy_proc_snap *s);
/* A number no other snapshot of the table has (0 for NULL): what a cache
 * keyed by snapshot compares, where an address could be a freed one's. */
uint64_t sy_proc_snap_serial(const struct sy_proc_snap *s);
/* The mapping at @addr for @id: its own space, then the kernel's. */
const struct sy_map *sy_proc_snap_find(const struct sy_proc_snap *s,
				       uint32_t id, uint64_t addr);

#endif
