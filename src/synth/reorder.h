/* Records in time order, as perf delivers them (issue 26).
 *
 * perf record empties each CPU's ring buffer in turn, so within one round
 * (up to a PERF_RECORD_FINISHED_ROUND) CPU 0's records come before CPU
 * 1's even where CPU 1's are older: an MMAP2 a thread on CPU 1 wrote
 * would reach the process model after the pause sample of a window on
 * CPU 0 that runs the mapped code.  perf's readers queue every record
 * that carries a time and, at each FINISHED_ROUND, hand out in time order
 * those up to the largest time seen by the end of the round before
 * (tools/perf/util/ordered-events.c, session.c process_finished_round):
 * nothing of a later round can be older than that.  This stage does the
 * same between the record reader and the walk:
 *
 *   - a record with a time (a sample with PERF_SAMPLE_TIME, another
 *     kernel record with sample_id_all and TIME) is copied into the queue;
 *     time 0 counts as none, as in perf (synthesized records);
 *   - a record without one (user records: AUXTRACE_INFO, AUXTRACE,
 *     ID_INDEX, TIME_CONV, HEADER_*, FINISHED_*; a record of no known
 *     attr) goes on at once, ahead of the queue, as in perf (AUXTRACE
 *     payloads are found through the prepass's map, never through the
 *     walk, so they are not copied);
 *   - FINISHED_ROUND releases the queue up to the previous round's
 *     largest time, then goes on itself; the end releases all;
 *   - equal times keep file order;
 *   - the queue is capped: past @cap bytes the older half of its time span
 *     is released (perf's OE_FLUSH__HALF), counted in `forced`;
 *   - a record older than what was released already (damage, or a round
 *     perf would also have got wrong) is still queued and released at the
 *     next release, counted in `late` (perf's nr_unordered_events).
 *
 * A recording without FINISHED_ROUND (or none of whose records carries a
 * time) is walked in file order, as before: sy_reorder_init(.., 0, ..).
 * perf would sort such a file whole; without rounds nothing bounds how
 * far back a record may reach, so sorting it would take the whole file. */
#ifndef SY_SYNTH_REORDER_H
#define SY_SYNTH_REORDER_H

#include <stddef.h>
#include <stdint.h>

#include "sy_perf_reader.h"

/* Bytes the queue may hold (copies and their entries) before it releases
 * the older half of its span. */
#define SY_REORDER_CAP_DEFAULT (64u << 20)

/* Takes one record (the walk).  Returns 0 or a negative error, which
 * stops the release and is passed back. */
typedef int (*sy_reorder_fn)(void *ctx, const struct sy_record *rec);

struct sy_reorder_ent;

struct sy_reorder {
	int on;			/* the recording has rounds */
	size_t cap;		/* bytes queued before a forced release */
	struct sy_reorder_ent *ent; /* queued, in file order */
	size_t nr, cap_ent;
	struct sy_reorder_ent *out; /* the ones being released, sorted */
	size_t cap_out;
	uint8_t *buf;		/* their copies, in file order */
	size_t len, cap_buf;
	uint64_t seq;		/* records queued so far: file order */
	uint64_t max_time;	/* largest time queued */
	uint64_t next_flush;	/* the next round releases up to this */
	uint64_t last_time;	/* of the record queued last */
	uint64_t released;	/* largest time released */
	int has_released;
	uint64_t forced;	/* releases the cap forced */
	uint64_t late;		/* records older than one released before */
	uint64_t queued;	/* records that went through the queue */
};

void sy_reorder_init(struct sy_reorder *o, int on, size_t cap);
void sy_reorder_fini(struct sy_reorder *o);

/* The time perf orders @rec by, in *@t: 1, or 0 when it has none (no
 * attr, a user record, no TIME in its sample or sample_id, time 0, too
 * short to hold it). */
int sy_reorder_time(const struct sy_record *rec, uint64_t *t);

/* One record read: handed to @fn now or queued (its bytes copied; the
 * copy handed out is flagged SY_RECORD_COPIED and lives until @fn
 * returns); a FINISHED_ROUND releases what it may first.  *@forced is
 * set when this call had to release because of the cap (NULL: not
 * told). */
int sy_reorder_push(struct sy_reorder *o, const struct sy_record *rec,
		    sy_reorder_fn fn, void *ctx, int *forced);

/* The end of the records: everything queued, in order. */
int sy_reorder_drain(struct sy_reorder *o, sy_reorder_fn fn, void *ctx);

#endif
