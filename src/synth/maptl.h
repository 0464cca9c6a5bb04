/* The map timeline: the moments a process's code was replaced, for decode
 * jobs that span them.
 *
 * A job reads code through one snapshot of the processes (sy_proc.h),
 * taken when the job is cut.  Where one job holds the trace of several
 * windows (a TRBE or PT stream), a later MMAP2 that maps other code over
 * code already run (dlclose and a dlopen at the same address, an exec, a
 * JIT or a remap over a text page) would be read for the earlier windows
 * too.  New mappings in unmapped ranges change nothing the trace could
 * have run before them, so only replacements are kept: at each, the
 * snapshot as it was just before, with the record's time.  Code at trace
 * time t is then read in the snapshot before the first replacement after
 * t, or in the job's own when none came after t (sy_maptl_at).
 *
 * Bounded: the last SY_MAPTL_MAX replacements; older ones are dropped
 * (counted), and trace older than the oldest kept is read as it was
 * before that one, as every job read before this timeline existed.
 */
#ifndef SY_MAPTL_H
#define SY_MAPTL_H

#include <stddef.h>
#include <stdint.h>

#include "sy_perf_event.h"
#include "sy_proc.h"

#define SY_MAPTL_MAX 16u

struct sy_maptl_entry {
	uint64_t time;			/* perf time of the replacing record */
	struct sy_proc_snap *before;	/* a reference */
	uint32_t pid;			/* whose code: UINT32_MAX the kernel's */
};

struct sy_maptl {
	struct sy_maptl_entry v[SY_MAPTL_MAX];
	size_t nr;
	uint64_t dropped;	/* replacements older than the kept ones */
};

void sy_maptl_init(struct sy_maptl *tl);
/* Drops every reference; accepts an initialised or zeroed timeline. */
void sy_maptl_fini(struct sy_maptl *tl);

/* Called before record @ev of type @type (perf time @time) is applied to
 * @t: when it replaces code (an MMAP or MMAP2 over an existing code
 * mapping of its process or of the kernel, an exec), keeps @t's snapshot
 * as it is now.  Returns 0 or -SY_E_NOMEM. */
int sy_maptl_note(struct sy_maptl *tl, struct sy_proc_table *t,
		  uint32_t type, const struct sy_event *ev, uint64_t time);

/* A copy holding its own references (a job's).  Cannot fail. */
void sy_maptl_copy(struct sy_maptl *dst, const struct sy_maptl *src);

/* The snapshot code at perf time @time is read in: before the first
 * replacement after @time; NULL when none came after it (the job's own
 * snapshot).  Borrowed from @tl. */
struct sy_proc_snap *sy_maptl_at(const struct sy_maptl *tl, uint64_t time);

#endif
