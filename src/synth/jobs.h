/* Decode jobs: a range of trace bytes turned into stretches on a worker
 * thread.
 *
 * A job is what one call of the decode loop does: reset a decoder on its
 * chunks (or, for a slice of a stream, go on where the stream's decoder
 * stopped), pull items into a stretcher until the data ends or a limit,
 * and hand the closed stretches back.  Jobs are submitted in the order the
 * walk makes them and handed back in that same order, whatever thread ran
 * them and when: the caller's matching stays sequential per queue and its
 * output deterministic.
 *
 * Submitting only queues the job.  Nothing here calls back into the
 * caller: the caller collects finished jobs (sy_jobs_pop) at the points it
 * chooses.
 *
 * Where the decoder lives: a job without a stream uses its thread's
 * decoder for its parameters (one per thread and parameter set, reset for
 * every job); a job of a stream uses the stream's own decoder, which keeps
 * its state from one slice to the next (ETM, see units.h).
 */
#ifndef SY_JOBS_H
#define SY_JOBS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "maptl.h"
#include "stretch.h"
#include "switches.h"
#include "sy_decode.h"
#include "sy_image.h"
#include "sy_image_cache.h"
#include "sy_mem_reader.h"
#include "sy_perf_reader.h"
#include "sy_proc.h"
#include "sy_pool.h"
#include "timeconv.h"

struct sy_job;

/* What a job's decoder reads code through: the mem reader over the job's
 * address-space snapshot, and, for a per-thread queue, the queue's own
 * thread to read in when the trace names a thread the recording does not
 * know (a recording made in another pid namespace: perf then decodes with
 * the AUX queue's thread too); for a per-CPU PT queue without pause
 * samples, the job's switch timeline, which says the thread of each
 * stretch (sy_dec_params.ctx_at), and the trace clock's conversion. */
struct sy_jobmem {
	struct sy_mem_reader *mr;
	const struct sy_proc_snap *snap;
	/* the job's replacements of code and its own snapshot: code at a
	 * time before one of them is read as it was then (maptl.h,
	 * sy_dec_params.code_at) */
	const struct sy_maptl *maps;
	struct sy_proc_snap *own;
	uint64_t t_start;
	int has_fallback;
	uint32_t fallback;
	const struct sy_switches *threads;
	const struct sy_timeconv *tc;
};

/* A decoder that keeps its state across jobs (a stream's).  Its jobs are
 * numbered as they are submitted and run strictly in that order: a worker
 * that takes one before the previous has finished waits for it.  That
 * cannot deadlock: workers start jobs in submission order, so the one
 * waited for is already running on another worker. */
struct sy_decstate {
	struct sy_decoder *d;	/* made on first use, on a worker */
	struct sy_jobmem mem;
	struct sy_stretcher st;
	struct sy_dec_stats prev; /* the decoder's counts after the last job */
	uint64_t submitted;	/* jobs numbered so far (main thread) */
	pthread_mutex_t lock;
	pthread_cond_t turn;
	uint64_t finished;	/* jobs run, under lock */
};

void sy_decstate_init(struct sy_decstate *ds, uint32_t depth);
void sy_decstate_fini(struct sy_decstate *ds);
/* Numbers job @j of stream @ds (sets j->stream and j->seq). */
void sy_decstate_take(struct sy_decstate *ds, struct sy_job *j);

struct sy_job {
	struct sy_work work;
	struct sy_job *next;	/* submission order */
	/* input, set by the submitter */
	const struct sy_dec_params *dp; /* must outlive the job */
	struct sy_dec_chunk *chunks; /* owned, unless the stream's */
	size_t nr_chunks;
	int own_chunks;
	/* the file the chunks are in: a PT job reads them with pread
	 * (sy_job_gather); NULL: taken as they are */
	const struct sy_perf_reader *src;
	uint64_t report_from;
	uint32_t ctxid;
	struct sy_proc_snap *snap; /* a reference, dropped with the job */
	struct sy_decstate *stream; /* NULL: the thread's decoder */
	uint64_t seq;		/* a stream's job: its number in the stream */
	/* per-thread queues: the thread to read code in when the trace's
	 * context ID names none the recording knows */
	int has_fallback;
	uint32_t fallback_tid;
	/* per-CPU PT without pause samples: the part of the queue's switch
	 * timeline its bytes can need (owned; empty: ctxid throughout) and
	 * the trace clock to perf time, to look a stretch's start up in it */
	struct sy_switches threads;
	struct sy_timeconv tc;
	/* stream jobs: the code replacements the walk has seen (maptl.h;
	 * owned, dropped with the job), read by trace time through @tc */
	struct sy_maptl maps;
	uint64_t t_start;	/* its bytes were written after this perf
				 * time (0: not known) */
	/* output: decodes again in the code before a replacement (jobs.c,
	 * "code replaced while a job's trace ran") */
	uint32_t decoded_again;
	int fresh;		/* reset the decoder on the chunks first */
	int has_limit;		/* stop after the item at offset limit */
	uint64_t limit;
	/* a piece decodes through the PSB+ that starts the next one: from
	 * this offset on, a timestamp while no stretch is open is the next
	 * piece's (0: none) */
	uint64_t ext_from;
	/* ETM pieces cut at seams (sy_decode.h): the A-Sync (job offset) the
	 * decode runs through into the next piece (SY_DEC_NO_SEAM: none),
	 * set on a fresh decoder (the slice whose data ends there sees it
	 * reached); and whether the piece follows a seam, so that its items
	 * up to its first START or ERROR, and those behind it from earlier
	 * bytes, are the previous piece's */
	uint64_t seam_sync;
	int drop_head;
	uint64_t bytes;		/* trace bytes it decodes, for the budget */
	uint64_t aux_lo;	/* AUX offset of the chunks' first byte: item
				 * offsets count from it */
	/* the chunks are pages of the input's file mapping, dropped once
	 * decoded (sy_pages.h): resident input stays what is in flight; the
	 * collector drops them, a batch at a time (walk.c) */
	int drop_pages;
	/* output, set by the decode loop; the stretches' offsets are AUX
	 * offsets (aux_lo added) */
	struct sy_stretch *st;
	size_t nr_st;
	struct sy_dec_stats stats; /* what this job decoded */
	/* context IDs naming no thread of the recording: read in the
	 * fallback thread, or (without one) not at all; one of them */
	uint64_t ctx_remapped, ctx_unknown;
	uint32_t ctx_example;
	int seam_reached;	/* its last stretch goes on in the next piece */
	int err;
};

/* Other work the workers run between decode jobs (the session validates
 * windows there), with state of its own per thread, made next to each
 * thread's decoders by ctx_new (NULL: out of memory). */
struct sy_jobs_extra {
	void *(*ctx_new)(void *arg);
	void (*ctx_free)(void *ctx);
	void *arg;
	/* run on the decoding thread after each decode job, with that
	 * thread's state (NULL: nothing) */
	void (*finish)(void *ctx, struct sy_job *j);
	/* and while it decodes, when stretches closed: the @nr closed so
	 * far of the job (NULL: nothing) */
	void (*finish_closed)(void *ctx, struct sy_job *j,
			      struct sy_stretch *st, size_t nr);
};

struct sy_jobs {
	struct sy_pool pool;
	int up;
	struct sy_job *head, *tail;
	size_t inflight;
	size_t limit;		/* inflight before the caller should wait */
	/* and trace bytes in flight: a job's stretches hold its branches
	 * until it is collected (all of them without pause samples), so
	 * what waits is bounded in bytes too */
	uint64_t bytes_inflight, bytes_limit;
	/* what every worker needs */
	struct sy_image_cache *images;
	uint32_t depth;
	int items;		/* keep decoder items as text with stretches */
	struct sy_jobs_extra extra;
	_Atomic uint64_t decoders;	/* made by the threads, for jobs */
};

/* Decodes on @threads threads: the collecting thread (it runs queued jobs
 * while it waits) and @threads - 1 workers (0 or 1: jobs run in the
 * collecting thread, in order, when collected),
 * about @job_bytes of trace per job, each thread with @extra's state too
 * (NULL: none).  Returns 0 or -SY_E_NOMEM. */
int sy_jobs_init(struct sy_jobs *js, unsigned threads,
		 struct sy_image_cache *images, uint32_t depth, int items,
		 uint64_t job_bytes, const struct sy_jobs_extra *extra);
/* Waits for running jobs, stops the workers; jobs still queued are freed
 * by the caller (sy_jobs_pop with block). */
void sy_jobs_fini(struct sy_jobs *js);

/* Queues @j (its work callback is set here). */
void sy_jobs_submit(struct sy_jobs *js, struct sy_job *j);
/* The oldest job if it is finished (with @block, waits for it), taken off
 * the list; NULL when none. */
struct sy_job *sy_jobs_pop(struct sy_jobs *js, int block);
/* Nonzero when more jobs are in flight than the workers need to stay
 * busy: the caller should collect before making more. */
int sy_jobs_full(const struct sy_jobs *js);
static inline int sy_jobs_idle(const struct sy_jobs *js)
{
	return !js->head;
}

/* Queues @w, other work than a decode job: its run callback finds its
 * thread's extra state with sy_jobs_extra_ctx(its thread context).  It
 * starts before the decode jobs queued (sy_pool_submit_urgent): what it
 * finishes holds memory, which jobs still to run would only add to.  The
 * caller keeps @w until done. */
void sy_jobs_submit_work(struct sy_jobs *js, struct sy_work *w);
void *sy_jobs_extra_ctx(void *thread_ctx);
/* Nonzero when @w is done; with @block, waits for it (with one thread,
 * runs what was queued before it, and it). */
int sy_jobs_work_done(struct sy_jobs *js, struct sy_work *w, int block);

/* Frees what the job owns (chunks, stretches, snapshot reference, switch
 * timeline), not the job itself. */
void sy_job_release(struct sy_job *j);

/* The processes as they were when stretch @st of @j ran: before the first
 * replacement of code after its last timestamp (maptl.h), else the job's
 * own snapshot (also for a stretch without a time).  Borrowed from @j. */
struct sy_proc_snap *sy_job_snap_at(const struct sy_job *j,
				    const struct sy_stretch *st);

/* One decoder item as `windows --items` lists it, a line into @buf.
 * Returns its length. */
size_t sy_item_format(char *buf, size_t len, const struct sy_dec_item *it,
		      enum sy_trace_kind kind);

#endif
