/* A queue: one CPU's trace (per-CPU recording) or one thread's (per-thread
 * recording), with the state of every stage that works on it, each in its
 * own struct.  The session owns the queues; a stage sees only its part. */
#ifndef SY_QUEUE_H
#define SY_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "auxmap.h"
#include "config.h"
#include "match.h"
#include "order.h"
#include "place.h"
#include "switches.h"
#include "sy_pages.h"
#include "units.h"

struct sy_event;

struct sy_qjob;

/* ETR with pause samples: the AUX records since the last pause sample,
 * decoded as one job for that pause sample's window. */
struct sy_etr_group {
	int has;
	uint64_t begin, end;	/* AUX range */
	uint64_t bytes;
	uint64_t time;		/* of the last record */
	struct sy_qjob *ready;	/* made at the pause sample, not yet sent */
};

struct sy_queue {
	uint32_t key;
	uint32_t cpu;		/* (uint32_t)-1 per thread */
	/* the time of its first sample (0: none yet): trace that starts
	 * paused runs only after a resume sample, so its first bytes were
	 * written after this (maptl.h) */
	uint64_t t_first;
	struct sy_auxmap aux;
	struct sy_dec_params dp; /* how its trace decodes */
	struct sy_etm_source *sources;
	struct sy_units units;
	struct sy_etr_group group;
	struct sy_matcher match;
	struct sy_placer place;
	/* per-CPU PT without pause samples: which thread runs when, for the
	 * jobs still to come (sy_queue_tracks_threads) */
	struct sy_switches sw;
	int unnamed_warned;	/* said that a stretch had no thread */
	/* input pages of its jobs collected, to drop (sy_pages.h): a batch
	 * per queue, as each queue's trace is in payloads of its own */
	struct sy_pages_batch drop;
	/* what the samples say (the summary's view; windows come from the
	 * trace) */
	int seen;		/* a sample of this queue was read */
	int running;		/* trace paused or not, as the samples tell */
	uint32_t last_tid;
	uint64_t last_aux_time;	/* of the last AUX record walked */
	struct sy_order order;	/* of its samples */
	/* its AUX bytes below this offset all went to jobs, each with the
	 * process snapshot it reads code in; aux.recs[snap_rec] is the first
	 * record not all below it (sy_queue_frontier) */
	uint64_t snapped;
	size_t snap_rec;
	/* its records' times never go back (checked once: 1 yes, -1 no),
	 * which the frontier needs */
	int rec_times;
};

/* Whether the queues keep a switch timeline: per-CPU Intel PT converted
 * whole.  The trace names no thread and no pause or resume sample says
 * which one ran; ETM names its threads itself (context IDs), a per-thread
 * queue is its thread's, and with pause samples the samples name it. */
static inline int sy_queue_tracks_threads(const struct sy_synth_config *c)
{
	return c->kind == SY_TRACE_PT && c->whole_trace && !c->per_thread;
}

/* The time by which every byte @q's trace wrote went to a job that took
 * its snapshot (bytes in an AUX record were written by the record's time,
 * so all of them up to the last record wholly sent): the processes that
 * exited by then are no trace's of @q still to come.  0: none yet;
 * UINT64_MAX: every record went. */
uint64_t sy_queue_frontier(struct sy_queue *q);

/* Whether @q has stream pieces not handed out as jobs yet. */
int sy_queue_more_jobs(const struct sy_queue *q);

/* A record @ev of @q's CPU that says which thread runs on it (ITRACE_START,
 * SWITCH_CPU_WIDE; with a sample_id; others are ignored), into its
 * timeline while jobs are still to come.  Returns 0 or -SY_E_NOMEM. */
int sy_queue_thread_record(struct sy_queue *q, const struct sy_event *ev);

/* The queues of a session, sorted by key. */
struct sy_queues {
	struct sy_queue **v;
	size_t nr;
};

/* The queue of @key, created (stages initialised) when @create is set;
 * NULL when absent or out of memory. */
struct sy_queue *sy_queues_get(struct sy_queues *qs, uint32_t key, int create,
			       const struct sy_synth_config *cfg,
			       size_t *held);
void sy_queues_free(struct sy_queues *qs);

#endif
