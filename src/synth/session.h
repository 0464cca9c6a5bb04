/* Private to the session layer of src/synth (session.c, prepass.c, walk.c,
 * mode.c, windows.c): the session's own state.  The stages below it
 * (auxmap, units, jobs, match, place, validate) never see it.
 *
 *	session.c   open, run, close
 *	prepass.c   what is known before the walk: roles, configuration,
 *	            every queue's AUX map and decoder parameters
 *	walk.c      the record walk: samples and events to the queues; the
 *	            one place that collects jobs, sends new ones and hands
 *	            windows out
 *	mode.c      how a recording's trace is cut into jobs (ETR groups,
 *	            stream units, whole trace), chosen once
 *	windows.c   windows made from matching or from single stretches
 */
#ifndef SY_SESSION_H
#define SY_SESSION_H

#include "config.h"
#include "comms.h"
#include "finish.h"
#include "jobs.h"
#include "maptl.h"
#include "queue.h"
#include "reorder.h"
#include "sy_auxtrace.h"
#include "sy_image.h"
#include "sy_image_cache.h"
#include "sy_proc.h"
#include "sy_perf_reader.h"
#include "sy_synth.h"
#include "validate.h"
#include "warn.h"
#include "window.h"

/* A decode job with what the session needs to know about it. */
struct sy_qjob {
	struct sy_job job;	/* first: the jobs module hands this back */
	struct sy_queue *q;
	struct sy_win *win;	/* ETR group: the window it decodes for */
	int has_task;		/* a stream unit's piece or slice */
	struct sy_unit_task task;
	int lost;		/* bytes of the range are missing */
	int has_aux_time;	/* ETR group: the closing AUX record's time */
	uint64_t aux_time;
	uint64_t t_lo;		/* its data came after this perf time */
	uint64_t walked_at;	/* sy_session.walked when it was sent */
	/* whole trace: its windows finished on the decoding thread (set
	 * when it is sent; NULL: none), what that made */
	const struct sy_window_sink *sink;
	uint32_t cpu;		/* its queue's */
	struct sy_finished *fin;
	size_t fin_next;	/* stretches 1 .. fin_next - 1 are finished */
	int fin_refused;	/* no memory for them: the walk's windows */
};

struct sy_session;

/* How a recording's trace becomes jobs and their stretches windows. */
struct sy_mode_ops {
	const char *name;
	/* An AUX record with bytes was read for @q. */
	int (*on_aux)(struct sy_session *s, struct sy_queue *q,
		      const struct sy_ev_aux *a, uint64_t time,
		      uint64_t rec_off);
	/* Pause sample @w of @q was read and is waiting for its trace. */
	int (*on_pause)(struct sy_session *s, struct sy_queue *q,
			struct sy_win *w);
	/* The next job @q may start now in *@out (NULL: none).  Returns 0,
	 * SY_JOB_WAIT (one may go once older jobs are collected), or a
	 * negative error. */
	int (*next_job)(struct sy_session *s, struct sy_queue *q,
			struct sy_qjob **out);
	/* The walk read the last record. */
	void (*on_end)(struct sy_session *s, struct sy_queue *q);
	/* A job finished; its stretches carry AUX offsets. */
	int (*job_done)(struct sy_session *s, struct sy_qjob *j);
};

#define SY_JOB_WAIT 1

/* ETR with pause samples, stream units with pause samples, no pause
 * samples at all (whole trace). */
extern const struct sy_mode_ops sy_mode_etr, sy_mode_stream, sy_mode_whole;

#define SY_ROLE_TRACE 0x1u
#define SY_ROLE_PAUSE 0x2u
#define SY_ROLE_RESUME 0x4u
#define SY_ROLE_CALLCHAIN 0x8u

/* The recording being read. */
struct sy_session_input {
	int spool_fd;		/* standard input copied here, or -1 */
	char *path;
	struct sy_perf_reader *r;
	struct sy_auxtrace_info info;
	int has_info;
	uint64_t rounds;	/* FINISHED_ROUND records (prepass) */
};

/* What each attr's events are for (prepass.c). */
struct sy_session_roles {
	uint8_t *attr_role;	/* SY_ROLE_* per attr index */
	uint32_t nr_roles;
	int any_pause_attr;
};

/* The traced processes: binaries, address spaces over time, names. */
struct sy_session_model {
	struct sy_image_cache *images;
	struct sy_proc_table *procs;
	/* the code replacements stream jobs may span (maptl.h) */
	struct sy_maptl maptl;
	struct sy_comms comms;
	/* per CPU, from every sample of the recording (prepass): the one
	 * thread it ran and its process; pid 0 when none, UINT32_MAX when
	 * several threads.  Where the trace names a thread the recording
	 * does not know (a container's pid namespace), that thread is the
	 * one: several, and the trace's thread is not known. */
	struct sy_cpu_proc {
		uint32_t pid, tid;
	} *cpu_proc;
	uint32_t nr_cpu_proc;
};

/* Windows on their way out: the output list, the batches being
 * validated, and where ready windows go. */
struct sy_session_delivery {
	struct sy_outq out;
	size_t validating;	/* batches of windows whose validation may
				 * be running (windows.c) */
	sy_window_fn fn;
	void *fn_ctx;
	int fn_ret;
	/* whole-trace windows finished in their jobs (finish.h) */
	struct sy_window_sink sink;
	int has_sink;
	/* pause windows given to the sink by the worker that validated them
	 * (windows.c) */
	int sink_pauses;
};

struct sy_session {
	struct sy_session_opts o;
	struct sy_synth_config cfg;
	const struct sy_mode_ops *mode;
	struct sy_warner warn;
	struct sy_diag diag;
	struct sy_session_summary sum;
	struct sy_session_input in;
	struct sy_session_roles roles;
	struct sy_session_model model;
	struct sy_session_delivery deliver;
	/* the progress line's: AUX bytes in the file, and decoded so far */
	uint64_t aux_total, aux_done;
	/* the walk's */
	struct sy_queues queues;
	/* what exited by this time is no trace's still to be given a
	 * snapshot (the least queue frontier, of forget_by's queue: only its
	 * moving can move it; NULL: to be found) */
	uint64_t forget_upto;
	struct sy_queue *forget_by;
	size_t forget_jobs;	/* jobs sent since it was last found */
	size_t held;		/* stretches waiting for their window */
	struct sy_jobs jobs;
	uint64_t sample_seq;	/* pause/resume samples read */
	/* records between the reader and the walk, in time order round by
	 * round (reorder.h) */
	struct sy_reorder reorder;
	uint64_t nr_walked;	/* records handed to the walk */
	uint64_t walked;	/* and their bytes (sy_walk_must_wait) */
	/* pause samples' chains: their windows are freed in the order of
	 * their pause samples, so each block goes soon after it is full */
	struct sy_blocks chains;
};

/* The queue of @key (created when @create). */
static inline struct sy_queue *sy_session_queue(struct sy_session *s,
						uint32_t key, int create)
{
	return sy_queues_get(&s->queues, key, create, &s->cfg, &s->held);
}

/* prepass.c: roles, AUXTRACE_INFO, configuration, every queue's AUX map,
 * decoder parameters and stream units.  Returns 0 or a negative error
 * (diag set). */
int sy_prepass(struct sy_session *s);

/* windows.c: windows of @q that matching resolved (with @final, all of
 * them), placed and sent to be validated; the windows of a whole-trace
 * job's stretches from *@i on (each stretch is one), a batch of them sent
 * to be validated, *@i past them.  The walk hands them out once validated
 * (walk.c).  Return 0 or -SY_E_NOMEM. */
int sy_windows_resolve(struct sy_session *s, struct sy_queue *q, int final);
int sy_windows_whole(struct sy_session *s, struct sy_qjob *j, size_t *i);
/* A whole-trace window's CPU, thread and process: stretch @st's of a job
 * on @cpu whose context ID was @ctxid when it started (the walk's windows
 * and those finished on the decoding thread, finish.h, alike). */
void sy_window_of_stretch_pub(struct sy_window *p, uint32_t cpu,
			      const struct sy_stretch *st, uint32_t ctxid);

/* walk.c: the record walk.  sy_walk_record handles one record; sy_walk_end
 * finishes every queue after the last one and hands out every window. */
int sy_walk_record(struct sy_session *s, const struct sy_record *rec);
/* Before the time ordering, in file order: the SY_RECORD_ORDER_* flag of
 * a sample older than the one before it on its queue, or that one again
 * (order.h), for the walk to report and ignore; 0 otherwise.  The file's
 * order tells that damage: time order would hide it. */
uint32_t sy_walk_order_check(struct sy_session *s, const struct sy_record *rec);
int sy_walk_end(struct sy_session *s);
/* Collects finished jobs, sends the ones that may go, hands out ready
 * windows; with @block, waits for the oldest job first. */
int sy_walk_pump(struct sy_session *s, int block);
/* Nonzero when the walk should wait for the decoders: too many windows
 * or stretches wait for their trace. */
int sy_walk_must_wait(const struct sy_session *s);

/* The progress line, drawn by the caller (sy_session_opts.progress): @off
 * is the record being read (without trace), @done the end of the run. */
void sy_walk_progress(struct sy_session *s, uint64_t off, int done);

#endif
