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
 *
 * A stretch is finished as soon as the next one closes (it is then not
 * the job's last): its ring was written and turned a moment before, and
 * is still in the core's cache.  Finished after the whole job's decode,
 * the rings of a 128 KiB piece of dense trace (megabytes) had left it,
 * and the validator, the first to read them again, paid for it: on the
 * bench's 64 MiB ETE repeat that was most of the checks' time (issue 27).
 */
#ifndef SY_FINISH_H
#define SY_FINISH_H

#include "jobs.h"

/* The jobs' finish hook (sy_jobs_extra.finish): @validator is the
 * thread's.  Does nothing for a job sent without a sink; without memory
 * for the sink's context, leaves the job's windows to the walk. */
void sy_finish_job(void *validator, struct sy_job *job);

/* The jobs' hook as stretches close (sy_jobs_extra.finish_closed): the
 * stretcher's @nr closed stretches @st, offsets not yet the AUX's.
 * Finishes those that are not the first or the last so far. */
void sy_finish_closed(void *validator, struct sy_job *job,
		      struct sy_stretch *st, size_t nr);

#endif
