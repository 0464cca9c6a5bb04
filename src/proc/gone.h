/* What exited, until the process table may forget it (table.c).
 *
 * A process's space must stay readable after its EXIT: per-CPU AUX
 * buffers are often written out long after the processes they traced are
 * gone.  Kept for ever, every process of a long recording stays in the
 * table (3 MB of spaces for 16,000 short processes).  This keeps, per
 * id, what decides when it can go, and the drops due, oldest first; the
 * caller (sy_proc_table_forget) says up to which time no trace can need
 * them any more.
 *
 * A process goes when its leader has exited and no thread of it known to
 * the table is alive: a leader that leaves by pthread_exit leaves its
 * threads running in its space.  A thread's own entry (tid -> pid) goes
 * with its EXIT.  Anything that shows the id alive again (a FORK reusing
 * it, an exec, an mmap of the process) takes back the drop it has due, so
 * a drop never reaches a later owner of the id.  Only what the records
 * show is counted: a thread the table never knew cannot hold a process
 * (its trace cannot be read anyway: no record names its process).
 */
#ifndef SY_PROC_GONE_H
#define SY_PROC_GONE_H

#include <stddef.h>
#include <stdint.h>

enum sy_gone_kind { SY_GONE_PROC = 1, SY_GONE_THREAD };

/* What one id has: as a process, its live threads and whether its leader
 * exited; as either, the drop it has due (0: none). */
struct sy_gone_ent {
	uint32_t id;		/* key + 1 in the table: 0 is an empty slot */
	uint32_t threads;
	uint64_t due;		/* the drop's number, 0: none */
	uint8_t kind;		/* the due drop's (enum sy_gone_kind) */
	uint8_t leader_gone;
};

/* A drop due: the id's entry at or after @time, when its number is still
 * the id's due one. */
struct sy_gone_drop {
	uint64_t time, seq;
	uint32_t id;
	uint8_t kind;
};

struct sy_gone {
	struct sy_gone_ent *v;	/* open addressing, linear probing */
	size_t cap, nr;		/* cap: a power of two, or 0 */
	struct sy_gone_drop *q;	/* oldest first, from q[q_head] (sy_vec.h) */
	size_t q_head, q_nr, q_cap;
	uint64_t seq;
	uint64_t forgotten;	/* drops done (the stats, the tests) */
};

void sy_gone_init(struct sy_gone *g);
void sy_gone_fini(struct sy_gone *g);

/* The entry of @id, created (zeroed) with @create; NULL when absent or
 * out of memory, and for id UINT32_MAX, which has none (the caller keeps
 * it out).  Valid until the next call that creates or erases. */
struct sy_gone_ent *sy_gone_get(struct sy_gone *g, uint32_t id, int create);
/* Erases @id's entry, if any. */
void sy_gone_erase(struct sy_gone *g, uint32_t id);
/* Erases @e when it holds nothing (no threads, leader, or drop due). */
void sy_gone_tidy(struct sy_gone *g, struct sy_gone_ent *e);

/* @e's id is to go at @time (its drop replaces any it had due).  Returns
 * 0 or -SY_E_NOMEM. */
int sy_gone_due(struct sy_gone *g, struct sy_gone_ent *e,
		enum sy_gone_kind kind, uint64_t time);
/* Takes back the drop @id has due, if any. */
void sy_gone_cancel(struct sy_gone *g, uint32_t id);

/* The time of the oldest drop waiting (UINT64_MAX: none). */
uint64_t sy_gone_oldest(const struct sy_gone *g);
/* The oldest drop waiting, taken off the queue, when its time is at or
 * before @upto: 1 and *@d, else 0. */
int sy_gone_pop(struct sy_gone *g, uint64_t upto, struct sy_gone_drop *d);

#endif
