/* Process names (COMM records), for the windows' comm field and the
 * --comm filter.
 *
 * A name holds from the time of the record that gave it: a window is
 * named as its process was at its pause (or its trace's end), as perf
 * names a sample by its thread's name at the sample's time.  The walk
 * hands windows out well after it read the records around them, and
 * how long after depends on the decoders (-j), so a name looked up at
 * hand-out time named windows before a rename by the new name, and
 * differently from run to run.  A process forked without exec has its
 * parent's name (perf copies it at the FORK). */
#ifndef SY_COMMS_H
#define SY_COMMS_H

#include <stddef.h>
#include <stdint.h>

#include "sy_hash.h"

/* sy_comms_get's time when the window has none: the latest name. */
#define SY_COMMS_LATEST UINT64_MAX

/* One name of a process, from a time on. */
struct sy_comm {
	uint64_t time;		/* from when (the record's; 0: unknown) */
	uint32_t older;		/* the process's name before, + 1 (0: none) */
	char comm[16];
};

/* A process: its newest name. */
struct sy_comm_pid {
	uint32_t pid;
	uint32_t newest;	/* names[] index */
};

/* A hash of pids, each with its names newest first: a pid used again
 * (its number wrapped) or renamed adds a name, never moves one (a sorted
 * array moved half its entries per insert once pids wrapped). */
struct sy_comms {
	struct sy_comm_pid *pids;
	size_t nr_pids, cap_pids;
	struct sy_hindex ix;	/* pid -> pids[] */
	struct sy_comm *names;
	size_t nr_names, cap_names;
};

void sy_comms_init(struct sy_comms *c);
void sy_comms_fini(struct sy_comms *c);
/* @pid is named @comm from @time on.  Returns 0 or -SY_E_NOMEM. */
int sy_comms_set(struct sy_comms *c, uint32_t pid, uint64_t time,
		 const char *comm);
/* @child, forked by @parent at @time, has @parent's name then (none when
 * @parent has none).  Returns 0 or -SY_E_NOMEM. */
int sy_comms_fork(struct sy_comms *c, uint32_t child, uint32_t parent,
		  uint64_t time);
/* @pid's name at @time: the latest given at or before it, else the
 * earliest given (a process named only after it ran); NULL when it has
 * none.  The pointer is valid until the next set or fork. */
const char *sy_comms_get(const struct sy_comms *c, uint32_t pid,
			 uint64_t time);

#endif
