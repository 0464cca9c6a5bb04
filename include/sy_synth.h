/* Windows, validation and branch-stack synthesis.
 *
 * A session reads a perf.data file, cuts its AUX trace into windows (one
 * per resume -> pause stretch of each CPU or thread), decodes the windows
 * on worker threads, validates each one and hands the results to a
 * callback in window order, whatever the thread count:
 *
 *	sy_session_open(&s, &opts, &diag);
 *	sy_session_run(s, on_window, ctx);
 *	sy_session_close(s);
 *
 * `convert` turns each result into an llvm-profgen sample, `windows` lists
 * them.  Memory stays bounded: windows are decoded as soon as their bytes
 * and samples are known, and only a bounded number are in flight.
 */
#ifndef SY_SYNTH_H
#define SY_SYNTH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sy_branch.h"
#include "sy_decode.h"
#include "sy_error.h"
#include "sy_image.h"
#include "sy_image_cache.h"
#include "sy_proc.h"
#include "sy_perf_reader.h"

/* Window statuses, in the order they are tested: a window gets the first
 * that applies.  Name, then the meaning shown in summaries and man pages. */
#define SY_STATUSES(X)                                                        \
	X(OK, "ok", "trace covers the window and ends at the pause sample's IP") \
	X(PAUSED, "paused", "pause sample taken while trace was paused")       \
	X(EMPTY, "empty", "no trace, or no instruction, in the window")        \
	X(TRUNCATED, "truncated",                                              \
	  "AUX data truncated, partial, collided or lost")                     \
	X(DECODE_ERROR, "decode-error", "the trace could not be decoded")     \
	X(OVERFLOW, "overflow", "the trace unit overflowed inside the window") \
	X(START_MISMATCH, "start-mismatch",                                    \
	  "trace does not start at the resume sample's IP")                    \
	X(END_MISMATCH, "end-mismatch",                                        \
	  "trace does not end at the pause sample's IP")                       \
	X(THREAD_MISMATCH, "thread-mismatch",                                  \
	  "another thread ran inside the window")                              \
	X(TOO_SHORT, "too-short", "shorter than --window MIN")                 \
	X(TOO_LONG, "too-long", "longer than --window MAX")                    \
	X(FEW_BRANCHES, "few-branches", "fewer than --min-branches branches") \
	X(IMPLAUSIBLE, "implausible",                                          \
	  "otherwise ok, but a branch no program makes: damaged trace")

enum sy_status {
#define SY_ST_ENUM(e, name, what) SY_ST_##e,
	SY_STATUSES(SY_ST_ENUM)
#undef SY_ST_ENUM
	SY_ST_NR
};

const char *sy_status_name(enum sy_status st);

/* What makes a branch suspect: correct code may make it, damage makes it
 * more often (src/synth/plausible.c).  Name, as windows lists it. */
#define SY_SUSPECTS(X)                                                        \
	X(NONE, "")                                                           \
	X(RET_PAST, "return past the open calls")                             \
	X(RET_NONE_OPEN, "return to none of the open calls")                  \
	X(RET_NO_CALL, "return to no call site")                              \
	X(JUMP_OPEN, "jump to an open call's return")                         \
	X(INTO_FUNC, "indirect branch into another function")                 \
	X(CALLCHAIN, "open calls disagree with the callchain's caller")

enum sy_suspect_kind {
#define SY_SUS_ENUM(e, name) SY_SUS_##e,
	SY_SUSPECTS(SY_SUS_ENUM)
#undef SY_SUS_ENUM
	SY_SUS_NR
};

const char *sy_suspect_name(enum sy_suspect_kind k);

/* How the recording makes its windows (the kernel RFC "perf: SW strobing
 * for AUX trace windows"; src/synth/design.c), read from the attrs. */
enum sy_design {
	SY_DESIGN_NONE,		/* no pause event: the whole trace */
	SY_DESIGN_MAINLINE,	/* pause/resume with unrelated periods */
	SY_DESIGN_STAGGER,	/* same event, equal periods (userspace
				 * stagger offsets them by W) */
	SY_DESIGN_FIRST_PERIOD,	/* the pause event's attr.first_period */
	SY_DESIGN_PAUSE_ARMED,	/* the pause event armed by the resume */
};

const char *sy_design_name(enum sy_design d);
/* The design of a recording whose pause event is @pause and resume event
 * @resume (either NULL when absent), and into @window the length each
 * window is designed to have, in events the pause event counts (0: the
 * design gives none, or the stagger's W, which only the recording shows). */
enum sy_design sy_design_of(const struct sy_perf_attr *pause,
			    const struct sy_perf_attr *resume,
			    uint64_t *window);
const char *sy_status_meaning(enum sy_status st);
/* Parses "ok", "end-mismatch"... Returns the status or -SY_E_INVALID. */
int sy_status_parse(const char *name);

enum sy_unit {
	SY_UNIT_INSNS,
	SY_UNIT_BRANCHES,
	SY_UNIT_NS,
};

/* How the trace bytes of a queue are cut. */
enum sy_sink {
	SY_SINK_NONE,
	SY_SINK_ETR,  /* formatted ETM, a PERF_RECORD_AUX per pause */
	SY_SINK_TRBE, /* raw ETM, no AUX record per window */
	SY_SINK_PT,   /* Intel PT */
};
const char *sy_sink_name(enum sy_sink s);

/* A callchain sample of another event (neither pause nor resume) that
 * interrupted the window's trace, placed where the trace shows that
 * interrupt: its stack holds the window's branches up to that point. */
struct sy_inner_sample {
	uint64_t time, ip, period;
	uint32_t pid, tid;
	const uint64_t *callchain; /* user frames, leaf first (ip) */
	uint32_t nr_callchain;
	const struct sy_br *stack; /* newest first, as the window's */
	uint32_t nr_stack;
};

/* One window, as handed to the callback.  Pointers are valid during the
 * callback only. */
struct sy_window {
	uint64_t index;		/* 0, 1, 2... in output order */
	enum sy_status status;
	char reason[160];	/* why, when not ok */
	uint32_t cpu;		/* per-thread recordings: the pause sample's */
	uint32_t pid, tid;
	const char *comm;	/* the process's comm, or NULL */
	/* samples that open and close the window (0 when absent) */
	int has_resume, has_pause;
	uint64_t resume_time, resume_ip;
	uint64_t pause_time, pause_ip, pause_period;
	const uint64_t *callchain; /* user frames, leaf first (pause_ip) */
	uint32_t nr_callchain;
	/* what the trace says */
	uint64_t bytes;		/* trace bytes */
	uint64_t insns;		/* instructions decoded */
	uint64_t branches;	/* taken branches decoded */
	/* a cycle-accurate ETM trace's cycle counts (has_cycles) */
	uint64_t cycles;
	int has_cycles;
	uint64_t start_addr, end_addr; /* first traced / resume address */
	uint64_t trace_start, trace_end; /* perf time from trace timestamps */
	int has_trace_time;
	uint64_t decode_errors;
	int first_error;	/* library error code of the first one */
	uint64_t first_error_offset;
	uint64_t first_error_addr; /* the address it could not read code at
				    * (0: unknown or another error) */
	/* branches correct code may make but damage makes more often
	 * (plausible.h): counted, never a reason to drop the window; the
	 * first of them, what made it one (enum sy_suspect_kind) and its
	 * ends (callchain: the caller frame and the open call's return) */
	uint32_t suspect;
	uint8_t suspect_kind;
	uint64_t suspect_from, suspect_to;
	/* the branch stack for the pause sample: newest first, cut at the
	 * newest discontinuity, at most depth entries */
	const struct sy_br *stack;
	uint32_t nr_stack;
	/* other callchain samples inside the window, in time order: those
	 * placed in its trace, and how many could not be */
	const struct sy_inner_sample *inner;
	uint32_t nr_inner;
	uint32_t unplaced;
	/* the address space at the window, for images and symbols */
	const struct sy_proc_snap *snap;
	/* with sy_session_opts.items: the decoder items of its stretches,
	 * one line each, in decoding order (NULL otherwise) */
	const char *items;
};

/* How far a run has got, for a progress line. */
struct sy_progress {
	uint64_t done;		/* input bytes read */
	uint64_t total;		/* input size, 0 when unknown (a pipe) */
	uint64_t windows;	/* windows found so far */
	int finished;		/* the last call of the run */
};

#define SY_WHOLE_TRACE_AUTO 2

struct sy_session_opts {
	const char *input;	/* "-" reads standard input */
	unsigned threads;	/* 0: one per online CPU */
	uint32_t depth;		/* branch stack entries; 0 = the whole window */
	uint32_t skid;		/* instructions of tolerance for the IP pins */
	enum sy_unit win_unit;
	uint64_t win_min, win_max; /* 0 = no bound */
	uint64_t min_branches;
	struct sy_image_opts images;
	/* No pause samples (a plain trace recording): cut every trace
	 * stretch into windows of `depth` branches instead.  Or
	 * SY_WHOLE_TRACE_AUTO: so when no event of the recording pauses the
	 * trace, with `whole_depth` branches (sy_session_has_pause says
	 * which; one pass over the file instead of opening it twice). */
	int whole_trace;
	uint32_t whole_depth;
	/* Keep every decoder item of each window, as text (sy_window.items):
	 * `windows --items`, for debugging; decodes on one thread. */
	int items;
	/* Bytes of stream trace (TRBE, PT) per decoding job: PT pieces are
	 * cut at the first PSB before each multiple, ETM slices end after
	 * it.  0: the default (128 KiB: on dense ETE trace a piece's
	 * stretches are 70 times its bytes, and -j2 holds two pieces per
	 * thread in flight); tests make it tiny. */
	uint64_t unit_bytes;
	/* ETM: the fast path (default) or OpenCSD's full decoder for every
	 * window (sy_decode.h) */
	enum sy_etm_decoder etm_decoder;
	/* Bytes of records the time ordering may hold before it lets out
	 * the older half of a round (src/synth/reorder.h); 0: the default
	 * (64 MiB); tests make it tiny. */
	size_t reorder_cap;
	/* Called about every thousand records while the run reads, and
	 * once more with finished set when it ends (NULL: nothing); the
	 * caller draws whatever it likes from it. */
	void (*progress)(void *ctx, const struct sy_progress *p);
	void *progress_ctx;
	/* Warnings met while running (damaged records, build-id mismatches,
	 * unsupported settings): one call each, d->err < 0 for damage;
	 * without a callback they are only counted in the summary. */
	void (*warn)(void *ctx, const struct sy_diag *d);
	void *warn_ctx;
};

void sy_session_opts_init(struct sy_session_opts *o);

/* One stretch of time in which the pause event was throttled on a CPU
 * (cpu UINT32_MAX: on every CPU: a per-thread recording, or records
 * without a CPU in their sample_id). */
struct sy_throttle {
	uint32_t cpu;
	uint64_t start, end;	/* perf time; end UINT64_MAX: never lifted */
};

/* Totals for the closing summary. */
struct sy_session_summary {
	const char *trace;	/* "cs_etm", "intel_pt" */
	enum sy_sink sink;
	int per_thread;
	uint64_t windows;
	uint64_t by_status[SY_ST_NR];
	uint64_t pause_samples, resume_samples;
	uint64_t resume_while_running; /* resume on running trace: no-op */
	uint64_t inner_samples;	/* other callchain samples while trace ran */
	uint64_t placed;	/* of those, placed in a window's trace */
	uint64_t unplaced;	/* of those, not placed */
	uint64_t decode_errors;
	uint64_t overflows;
	uint64_t bytes, insns, branches;
	/* ETM decode units by path (sy_dec_stats) */
	uint64_t fast_units, full_units, fallbacks;
	/* decodes of a job again in the code before a replacement of it
	 * (a dlclose and a dlopen at one address, an exec) that came after
	 * some of its trace and before its cut */
	uint64_t decoded_again;
	/* whole-trace windows finished on their decoding thread (given to
	 * a sy_window_sink) */
	uint64_t windows_in_jobs;
	uint64_t resume_period, pause_period; /* R and P from the attrs */
	int periods_freq;	/* the attrs use frequencies, not periods */
	int same_event;		/* resume and pause count the same event */
	enum sy_design design;	/* sy_design_of() the attrs */
	uint64_t design_window;	/* its designed length (0: none known) */
	int pause_counts_insns;	/* the pause event counts instructions */
	/* when the pause event was throttled (PERF_RECORD_THROTTLE to
	 * UNTHROTTLE, or to the end of the recording): its overflows are not
	 * taken then, so windows run long (owned by the session; sorted by
	 * cpu, then start; one CPU's never overlap) */
	struct sy_throttle *throttles;
	size_t nr_throttles;
	uint64_t damage;	/* damaged records (the reader's warnings) */
	int input_error;	/* reader error that ended the walk (0: none) */
	uint64_t lost_records;	/* PERF_RECORD_LOST / LOST_SAMPLES */
	uint64_t suspect;	/* windows with a suspect branch (sy_window) */
	/* pause samples with a user callchain frame in no mapping of their
	 * process (a damaged sample body or a broken frame chain) */
	uint64_t chain_unmapped;
	/* trace context IDs naming no thread of the recording (another pid
	 * namespace): changes to one, decoded in the per-thread queue's own
	 * thread (remapped) or not decoded (unknown); one such ID */
	uint64_t ctx_remapped, ctx_unknown;
	uint32_t ctx_example;
	/* the process model: the most processes it held at once, and the
	 * processes and threads it forgot after their exit, once no trace
	 * still to be decoded could need them (memory stays that of the
	 * processes alive, not of every process the recording saw) */
	uint64_t procs_peak, procs_forgotten;
	unsigned threads;
	double seconds;
};

/* The bogus-sample rate: implausible windows among those that passed
 * every other check (ok + implausible), 0 when there are none. */
double sy_summary_bogus_rate(const struct sy_session_summary *s);
/* "N implausible windows: bogus-sample rate R% ..." in @buf for the
 * summary, blaming the binaries before the trace when @forced of them were
 * read in another build, and saying that the windows with a suspect branch
 * were kept, or that @suspect_dropped of them were dropped (convert
 * --drop-suspect); returns 0 (nothing written) when no window is
 * implausible or suspect and no callchain is unmapped. */
int sy_summary_bogus_line(const struct sy_session_summary *s,
			  uint64_t forced, int drop_suspect,
			  uint64_t suspect_dropped, char *buf, size_t len);
/* "design: ..." (which strobing design made the windows, and their
 * designed length) in @buf for the summaries; 0 (nothing written) for a
 * whole-trace recording. */
int sy_summary_design_line(const struct sy_session_summary *s, char *buf,
			   size_t len);
/* Whether a window on @cpu from @from to @to (perf times) overlaps a
 * stretch in which the pause event was throttled (design.c). */
int sy_summary_throttled(const struct sy_session_summary *s, uint32_t cpu,
			 uint64_t from, uint64_t to);

typedef int (*sy_window_fn)(void *ctx, const struct sy_window *w);

struct sy_session;

/* Opens opts->input and reads what the windows need up front (attrs,
 * AUXTRACE_INFO, the AUX buffers).  Returns 0, or a negative error with
 * *diag filled: the input cannot be opened (-SY_E_IO, -SY_E_NOT_PERF...),
 * it holds no AUX trace this tool decodes (-SY_E_UNSUPPORTED), -SY_E_NOMEM.
 * @opts is copied (its strings and arrays must outlive the session). */
int sy_session_open(struct sy_session **out, const struct sy_session_opts *opts,
		    struct sy_diag *diag);
void sy_session_close(struct sy_session *s);


/* Runs the pipeline: @fn is called once per window, in window order (a
 * nonzero return stops the run and is returned).  Returns 0, or the
 * reader's error when damage ended the walk (every window before it was
 * handed out; details in sy_session_diag), or -SY_E_NOMEM. */
int sy_session_run(struct sy_session *s, sy_window_fn fn, void *ctx);

/* Whole-trace windows finished on the thread that decoded them.  Without
 * pause samples every stretch is a window: hundreds of thousands a second
 * of dense trace.  Validated on another thread and handed to @fn on the
 * run's, each window's branches were read again on other cores, which
 * cost a second thread much of its gain.  With a sink, most of those
 * windows (all but the first and last stretch of each decode job, which
 * may join a neighbour's) are validated where they were decoded and given
 * to @window there, a job's windows into a context of its own (@job_new,
 * on that thread); @merge then takes each context on the run's thread, in
 * window order, where those windows would have gone to @fn.  @window must
 * do what @fn does, into @job; windows there have no index
 * (SY_WINDOW_NO_INDEX) and no comm.  The sink is not used with the items
 * option, per-thread recordings, or per-CPU Intel PT decoded without pause
 * samples (its threads come from the walk). */
#define SY_WINDOW_NO_INDEX UINT64_MAX
struct sy_window_sink {
	void *ctx;
	void *(*job_new)(void *ctx);	/* NULL: out of memory */
	int (*window)(void *job, const struct sy_window *w);
	int (*merge)(void *ctx, void *job);
	void (*job_free)(void *job);	/* NULL-safe */
	/* Windows of pause samples, at more than one thread (NULL: they go
	 * to fn).  They are validated in batches on the workers (validate.h),
	 * and a window's output, made on the run's thread, read its branches
	 * and callchains again there, a cache line from the other core at a
	 * time: a fifth of that thread's time on Intel PT of an
	 * interpreter's windows.  With @window_merge, a batch's windows go to
	 * @window where they were validated, into a context of the batch's
	 * own (@job_new; these windows have their index, not their comm);
	 * then on the run's thread each window, in window order, goes to
	 * @window_merge with that context, where it would have gone to @fn:
	 * the window's share of what @window made, and what needs the run's
	 * order.  Not used with the items option. */
	int (*window_merge)(void *ctx, void *job, const struct sy_window *w);
};
/* sy_session_run with @sink (NULL: none): whole-trace windows, and with
 * its window_merge pause windows. */
int sy_session_run_sink(struct sy_session *s, sy_window_fn fn, void *ctx,
			const struct sy_window_sink *sink);

const struct sy_session_summary *sy_session_summary(const struct sy_session *s);
/* Nonzero when some event pauses the trace (aux_action pause): only then
 * can windows carry a callchain sample. */
int sy_session_has_pause(const struct sy_session *s);
const struct sy_diag *sy_session_diag(const struct sy_session *s);
/* The perf.data reader, for attrs and features (valid until close). */
const struct sy_perf_reader *sy_session_reader(const struct sy_session *s);
/* The binary whose missing code made window @w's first decode error (at
 * the address the decoder could not read, else at the window's first
 * traced or resume address), or NULL: the one a window's reason names.
 * Each window is counted, once, for it and for the binaries of its other
 * errors in sy_image_missing.windows, so a binary named for a window is
 * always in the missing list. */
const struct sy_map *sy_window_missing(const struct sy_window *w,
				       enum sy_trace_kind kind);
/* Missing binaries, as sy_image_cache_missing. */
/* Recorded binaries the run read in a file of another build
 * (--allow-mismatch). */
uint64_t sy_session_forced_binaries(struct sy_session *s);
size_t sy_session_missing(struct sy_session *s, struct sy_image_missing *out,
			  size_t max);

#endif
