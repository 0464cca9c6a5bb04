/* Which trace belongs to which pause sample.
 *
 * The kernel may drop a pause or a resume that coincides with another (in
 * NMI context), so the samples alone do not say when trace ran.  The trace
 * does: each stretch carries its own timestamps and its end address.  So a
 * pause sample P owns the stretches that end after the previous pause
 * sample of its queue and no later than P (the pause stops the trace before
 * P is written).  Its window starts at the resume sample, among those not
 * yet used, whose IP the first stretch starts at (the resume takes effect
 * after its sample is written): a missed pause or resume then costs only
 * the samples it really affects.
 *
 * A pause sample that owns no stretch was taken while trace was paused
 * (status paused), unless a stretch runs across its time: then its pause
 * was missed and the trace kept running (end-mismatch).  That is known only
 * once the next stretch of the queue is, so pause samples wait for it; the
 * output order does not change, only when windows are handed out.
 *
 * One matcher per queue.  It is fed the queue's samples and events in file
 * order and its stretches in trace order, and hands out windows, oldest
 * first, as soon as their stretches are known (sy_matcher_next).
 */
#ifndef SY_MATCH_H
#define SY_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "stretch.h"
#include "window.h"

/* A stretch waiting for its pause sample, with perf times. */
struct sy_mstretch {
	struct sy_stretch st;
	int timed;
	uint64_t pt0, pt1;
};

struct sy_resume {
	uint64_t time, ip;
	uint32_t tid;
	uint64_t seq;		/* sample order in the file */
};

/* LOST is a point in time; LOST_RANGE covers (flags, time]. */
enum sy_qev_kind { SY_QEV_AUX, SY_QEV_SWITCH, SY_QEV_LOST, SY_QEV_LOST_RANGE };

/* Something that happened on a queue at a time: AUX flags, a context
 * switch, lost records. */
struct sy_qevent {
	int kind;
	uint64_t time;
	uint64_t flags;
	uint32_t tid;		/* SWITCH: the thread switched out or in */
	int has_tid;		/* SWITCH: the record names it */
};

struct sy_matcher {
	struct sy_mstretch *ms;
	size_t nr_ms, cap_ms, ms_pos;
	struct sy_win **pend;	/* pause samples waiting for their trace */
	size_t nr_pend, cap_pend, pend_pos;
	struct sy_resume *res;
	size_t nr_res, cap_res, res_pos;
	struct sy_qevent *ev;
	size_t nr_ev, cap_ev, ev_pos;
	uint64_t last_pause_time;
	int has_last_pause;
	/* resumes before this pause sample (time, file order) cannot start
	 * the next window: it stopped the trace (unless it was missed) */
	int has_res_lo;
	uint64_t res_lo, res_lo_seq;
	size_t *held;		/* stretches held, counted over all queues */
};

void sy_matcher_init(struct sy_matcher *m, size_t *held);
void sy_matcher_fini(struct sy_matcher *m);

/* The queue's samples and events, in file order.  Each returns 0 or
 * -SY_E_NOMEM. */
int sy_matcher_resume(struct sy_matcher *m, uint64_t time, uint64_t ip,
		      uint32_t tid, uint64_t seq);
int sy_matcher_event(struct sy_matcher *m, enum sy_qev_kind kind,
		     uint64_t time, uint64_t flags);
/* A context switch at @time, read after sample @seq, of thread @tid (out
 * or in) when @has_tid. */
int sy_matcher_switch(struct sy_matcher *m, uint64_t time, uint64_t seq,
		      uint32_t tid, int has_tid);
/* Pause sample @w waits for its trace (the matcher does not own it). */
int sy_matcher_pause(struct sy_matcher *m, struct sy_win *w);

/* The queue's next stretches (their rings move to the matcher);
 * @aux_time dates timeless ETR stretches, @t_lo stretches of nothing
 * before any timestamp. */
int sy_matcher_stretches(struct sy_matcher *m,
			 const struct sy_synth_config *cfg,
			 struct sy_stretch *v, size_t n, int has_aux_time,
			 uint64_t aux_time, uint64_t t_lo);

/* What the caller knows will not come any more. */
#define SY_MATCH_NO_SAMPLES 0x1u /* pause samples: the walk ended */
#define SY_MATCH_NO_TRACE 0x2u	 /* stretches: every job is done */

/* The oldest waiting pause sample, once its stretches, resume and span
 * events are known, in *@out: returns 1, or 0 when it must wait for more
 * trace (with both @done flags it never waits).  Returns -SY_E_NOMEM on
 * failure. */
int sy_matcher_next(struct sy_matcher *m, unsigned done, struct sy_win **out);

/* After sy_matcher_next returned 0: drops what was consumed; when no pause
 * sample will come (@done) and every one is resolved, also the stretches
 * after the last one (trace the recording ended with).  Returns nonzero in
 * that last case. */
int sy_matcher_settle(struct sy_matcher *m, unsigned done);

#endif
