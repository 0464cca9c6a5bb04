/* Which thread runs on a CPU when: a per-CPU recording's context switch
 * records (PERF_RECORD_SWITCH_CPU_WIDE, and ITRACE_START where the trace
 * starts) as a timeline.
 *
 * A per-CPU Intel PT trace does not say which thread it is, so the code it
 * runs through cannot be read without knowing: perf's decoder takes the
 * thread from these records and changes it when the trace's time passes a
 * switch.  ITRACE_START and a switch-in record say that their thread runs
 * from their time on; a switch-out record that the thread it names next
 * does, and that its own ran up to then.
 *
 * The queue's timeline holds only what decode jobs still to come can need
 * (sy_switches_trim); a job is handed its part as a copy of its own
 * (sy_switches_copy), so that workers never read what the walk changes. */
#ifndef SY_SWITCHES_H
#define SY_SWITCHES_H

#include <stddef.h>
#include <stdint.h>

struct sy_switch {
	uint64_t time;		/* perf time */
	uint32_t pid, tid;	/* the thread that runs from @time on */
};

struct sy_switches {
	struct sy_switch *v;	/* sorted by time; in record order at equal
				 * times */
	size_t nr, cap;
	int fed;		/* something was added (trimmed or not) */
};

void sy_switches_init(struct sy_switches *sw);
/* Frees the entries (NULL-safe on a zeroed struct). */
void sy_switches_fini(struct sy_switches *sw);

/* @tid of process @pid runs from @time on.  Returns 0 or -SY_E_NOMEM. */
int sy_switches_add(struct sy_switches *sw, uint64_t time, uint32_t pid,
		    uint32_t tid);
/* @tid of @pid ran until a switch-out took it off the CPU: when nothing
 * was added before, it is the thread from the start (time 0).  Call it
 * before adding the switch-out's next thread.  Returns 0 or
 * -SY_E_NOMEM. */
int sy_switches_before(struct sy_switches *sw, uint32_t pid, uint32_t tid);

/* The entry in effect at @time: the last one at or before it; NULL when
 * none is (trace before the first switch record). */
const struct sy_switch *sy_switches_at(const struct sy_switches *sw,
				       uint64_t time);
/* The process of @tid: the newest entry naming it.  Returns 1 with *pid
 * set, 0 when no entry names it. */
int sy_switches_pid(const struct sy_switches *sw, uint32_t tid,
		    uint32_t *pid);

/* Drops what no lookup from @time on needs.  It keeps the entry in effect
 * at @time and the last one before that entry's time, so that lookups from
 * there on stay what they were: the trace's times are estimates (timing
 * packets, a clock converted), and the first bytes after a boundary taken
 * at @time may carry a time a little before it. */
void sy_switches_trim(struct sy_switches *sw, uint64_t time);
/* What lookups from @time on need (the entries trim would keep), copied
 * into *@out (initialised here, owned by the caller).  Returns 0 or
 * -SY_E_NOMEM (*@out empty). */
int sy_switches_copy(const struct sy_switches *sw, uint64_t time,
		     struct sy_switches *out);

#endif
