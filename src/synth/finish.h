/* Whole-trace windows finished on the thread that decoded them.
 *
 * Without pause samples every stretch is a window.  A stretch inside a
 * job's output (neither its first, which may go on from the previous
 * piece, nor its last, which may go on into the next) is a window no
 * later job can change: right after the decode, on the same thread and
 * while its branches are still in that core's cache, it is validated and
 * handed to the session's sink (sy_window_sink), and its ring freed.  The
 * walk then sees such stretches only as flagged SY_SF_FINISHED, and puts
 * what the sink made in their place on the output list (walk.c), where
 * it is merged in window order.
 */
#ifndef SY_FINISH_H
#define SY_FINISH_H

#include "jobs.h"

/* The jobs' finish hook (sy_jobs_extra.finish): @validator is the
 * thread's.  Does nothing for a job sent without a sink; without memory
 * for the sink's context, leaves the job's windows to the walk. */
void sy_finish_job(void *validator, struct sy_job *job);

#endif
