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
#include "units.h"

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
	struct sy_auxmap aux;
	struct sy_dec_params dp; /* how its trace decodes */
	struct sy_etm_source *sources;
	struct sy_units units;
	struct sy_etr_group group;
	struct sy_matcher match;
	struct sy_placer place;
	/* what the samples say (the summary's view; windows come from the
	 * trace) */
	int seen;		/* a sample of this queue was read */
	int running;		/* trace paused or not, as the samples tell */
	uint32_t last_tid;
	uint64_t last_aux_time;	/* of the last AUX record walked */
	struct sy_order order;	/* of its samples */
};

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
