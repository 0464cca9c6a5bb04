/* Private to src/synth: the session's state, shared by session.c (record
 * walk, windows, output order), prepass.c (what is known before the walk)
 * and validate.c (statuses). */
#ifndef SY_SESSION_H
#define SY_SESSION_H

#include <capstone/capstone.h>

#include "stretch.h"
#include "sy_auxtrace.h"
#include "sy_image.h"
#include "sy_perf.h"
#include "sy_synth.h"
#include "timeconv.h"
#include "workers.h"

/* One AUXTRACE payload: where bytes of a queue's AUX area are in the file. */
struct sy_auxbuf {
	uint64_t aux_off, size;
	uint64_t file_off;
};

/* One PERF_RECORD_AUX of a queue. */
struct sy_auxrec {
	uint64_t aux_off, size, flags;
	uint64_t time;
	uint64_t rec_off;	/* file offset of the record */
};

struct sy_win;
struct sy_job;

/* Part of a stream unit decoded as one job: PT units are cut at PSBs into
 * pieces decoded independently (in parallel, with bounded memory: libipt
 * wants the bytes in one buffer).  An ETM unit is one piece, decoded by
 * one stateful decoder in slices as the walk reads its AUX records (an
 * ETM stream cut anywhere but at a restart would lose the branch whose
 * target comes after the cut). */
struct sy_piece {
	uint64_t lo, hi;	/* AUX offsets */
	uint64_t dec_hi;	/* decoded up to here: PT adds the PSB+ at hi */
	size_t first_rec;	/* the AUX record holding lo */
	size_t last_rec;	/* decodable once the walk read this record */
	uint64_t t_lo;		/* its data came after this perf time */
};

/* ETM: the piece being decoded in slices. */
struct sy_stream {
	struct sy_decoder *d;
	struct sy_mem_reader *mr;
	struct sy_stretcher st;
	struct sy_dec_chunk *chunks; /* the whole piece */
	size_t nr_chunks;
	int lost;
	struct sy_dec_stats prev; /* the decoder's counts at the last slice */
	int busy;		/* a slice is decoding */
	int started;		/* the piece's first slice went out */
	uint64_t sent;		/* bytes of the piece handed to slices */
	uint64_t t_lo;
};

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

/* A callchain sample of another event taken while the queue's trace ran,
 * waiting for the window whose trace it interrupted (place.c). */
struct sy_qsample {
	uint64_t time, ip, period;
	uint32_t pid, tid;
	uint64_t *chain;	/* user frames, leaf first */
	uint32_t nr_chain;
	int after_pause;	/* came after a pause sample, before the next
				 * resume: counted only if the trace shows it
				 * still ran (the pause was missed) */
};

/* LOST is a point in time; LOST_RANGE covers (flags, time]. */
enum { SY_QEV_AUX, SY_QEV_SWITCH, SY_QEV_LOST, SY_QEV_LOST_RANGE };

/* Something that happened on a queue at a time: AUX flags, a context
 * switch, lost records. */
struct sy_qevent {
	int kind;
	uint64_t time;
	uint64_t flags;
};

/* A CPU (per-CPU recording) or a thread (per-thread recording). */
struct sy_queue {
	uint32_t key;
	uint32_t cpu;		/* (uint32_t)-1 per thread */
	struct sy_auxbuf *bufs;
	size_t nr_bufs, cap_bufs;
	struct sy_auxrec *recs;
	size_t nr_recs, cap_recs;
	int raw;		/* AUX flag 0x100 seen (ETM without frames) */
	/* stream units: ranges of recs decoded as one piece */
	struct sy_dunit {
		size_t first, last; /* recs decoded together */
	} *units;
	size_t nr_units;
	struct sy_piece *pieces;
	size_t nr_pieces, next_piece;
	struct sy_stream stream;
	size_t walked;		/* AUX records the walk has read */
	uint64_t last_aux_time;	/* of the last AUX record walked */
	/* decoder configuration */
	struct sy_dec_params dp;
	struct sy_etm_source *sources;
	/* the kernel's pause/resume state as the samples tell it: only for
	 * the summary, windows come from the trace (match.c) */
	int running;
	uint32_t last_tid;
	/* ETR: the AUX records since the last pause sample */
	int g_has;
	uint64_t g_begin, g_end, g_bytes, g_time;
	/* matching (match.c) */
	struct sy_mstretch *ms;
	size_t nr_ms, cap_ms, ms_pos;
	struct sy_win **pend;
	size_t nr_pend, cap_pend, pend_pos;
	struct sy_resume *res;
	size_t nr_res, cap_res, res_pos;
	struct sy_qevent *ev;
	size_t nr_ev, cap_ev, ev_pos;
	struct sy_qsample *qs;
	size_t nr_qs, cap_qs, qs_pos;
	uint64_t last_pause_time;
	int has_last_pause;
	/* resumes before this pause sample (time, file order) cannot start
	 * the next window: it stopped the trace (unless it was missed) */
	int has_res_lo;
	uint64_t res_lo, res_lo_seq;
	uint64_t units_pending;
	int seen;		/* a sample of this queue was read */
};

struct sy_win {
	int listed;		/* on the output list */
	struct sy_win *next;	/* output list */
	struct sy_window pub;
	struct sy_queue *q;
	int ready;
	int ran_through;	/* a stretch spans its pause sample */
	int group_done;		/* ETR: the decode of its AUX group is done */
	uint64_t seq;		/* sample order in the file */
	uint64_t span_lo;	/* the previous pause sample's time */
	int has_span_lo;
	uint64_t aux_bytes;
	uint64_t aux_flags;
	int lost;
	uint32_t switches;
	uint32_t resume_tid;
	int resume_switched;	/* its resume came on the last instruction
				 * before a context switch (match.c) */
	uint64_t *chain;
	struct sy_stretch *st;
	size_t nr_st;
	struct sy_br *stack;
	struct sy_inner_sample *inner;
	struct sy_inner_mem {	/* what inner[i]'s pointers own */
		uint64_t *chain;
		struct sy_br *stack;
	} *inner_mem;
	struct sy_proc_snap *snap;
	struct sy_job *job;
};

struct sy_job {
	struct sy_work work;
	struct sy_job *next;	/* submission order */
	struct sy_session *s;
	struct sy_queue *q;
	struct sy_win *win;	/* NULL: a piece of a stream unit */
	int slice;		/* ETM: a slice of q->stream's piece */
	int first, final;	/* the piece's first / last slice */
	uint64_t limit;		/* stop after the item at this offset */
	uint64_t aux_lo;	/* AUX offset of the chunks' first byte */
	uint64_t ext_from;	/* PT piece: where the next piece's PSB+
				 * starts (0: not decoded past its end) */
	struct sy_dec_chunk *chunks;
	size_t nr_chunks;
	uint64_t report_from;
	uint64_t bytes;
	int lost;		/* bytes of the range are missing */
	int has_aux_time;	/* ETR group: the closing AUX record's time */
	uint64_t aux_time;
	uint64_t t_lo;		/* its data came after this perf time */
	struct sy_proc_snap *snap;
	uint32_t ctxid;
	struct sy_stretch *st;
	size_t nr_st;
	struct sy_dec_stats stats;
	int err;
};

struct sy_session {
	struct sy_session_opts o;
	struct sy_diag diag;
	struct sy_session_summary sum;
	void (*warn_fn)(void *ctx, const struct sy_diag *d);
	void *warn_ctx;
	int spool_fd;		/* standard input copied here, or -1 */
	char *path;
	struct sy_perf_reader *r;
	struct sy_auxtrace_info info;
	int has_info;
	enum sy_trace_kind kind;
	struct sy_timeconv tc;
	uint8_t *attr_role;	/* SY_ROLE_* per attr index */
	uint32_t nr_roles;
	uint8_t hwid[1024];	/* cpu -> trace id, 0 when unknown */
	struct sy_queue **queues;
	size_t nr_queues;
	struct sy_image_cache *images;
	struct sy_proc_table *procs;
	struct sy_pool pool;
	int pool_up;
	struct sy_job *jobs_head, *jobs_tail;
	size_t inflight;
	int kicking;		/* sending ETM slices (units.c) */
	struct sy_win *out_head, *out_tail;
	size_t nr_out;		/* windows on the output list */
	size_t nr_held;		/* stretches waiting for their window */
	uint64_t next_index;
	sy_window_fn fn;
	void *fn_ctx;
	int fn_ret;
	csh cs;
	int cs_ok;
	uint64_t pt_cpu[3];	/* family, model, stepping */
	int any_pause_attr;
	int start_paused;	/* the trace event has aux_start_paused */
	uint64_t sample_seq;	/* pause/resume samples read */
	struct sy_comm *comms;	/* pid -> comm, sorted by pid */
	size_t nr_comms, cap_comms;
};

struct sy_comm {
	uint32_t pid;
	char comm[16];
};

#define SY_ROLE_TRACE 0x1u
#define SY_ROLE_PAUSE 0x2u
#define SY_ROLE_RESUME 0x4u
#define SY_ROLE_CALLCHAIN 0x8u

/* Room for element @nr of the array *@v (capacity *@cap, doubled). */
int sy_grow(void **v, size_t *cap, size_t nr, size_t elem);
/* Drops the consumed head of an array (@pos of @nr used up): the queues
 * live as long as the recording, so what was matched must not pile up. */
void sy_compact(void *v, size_t *pos, size_t *nr, size_t elem);

void sy_session_warn(struct sy_session *s, int err, uint64_t off,
		     const char *fmt, ...) SY_PRINTF(4, 5);

/* prepass.c: roles, AUXTRACE_INFO, buffers and AUX records per queue,
 * decoder configurations.  Returns 0 or a negative error (diag set). */
int sy_prepass(struct sy_session *s);
struct sy_queue *sy_queue_get(struct sy_session *s, uint32_t key, int create);
/* The chunks of AUX range [a, b) of @q; sets *lost when bytes are missing.
 * Returns the number of chunks (0 when none), or -SY_E_NOMEM. */
int sy_queue_chunks(struct sy_session *s, struct sy_queue *q, uint64_t a,
		    uint64_t b, struct sy_dec_chunk **out, int *lost);
void sy_queue_free(struct sy_queue *q);
/* The first of q->bufs (sorted by AUX offset) that may hold byte @a. */
size_t sy_queue_first_buf(const struct sy_queue *q, uint64_t a);
/* Nonzero when AUXTRACE payloads hold every byte of [a, b). */
int sy_queue_covered(const struct sy_queue *q, uint64_t a, uint64_t b);

/* session.c: job plumbing shared with units.c. */
struct sy_job *sy_job_new(struct sy_session *s, struct sy_queue *q,
			  uint64_t a, uint64_t b, uint32_t ctxid);
int sy_submit(struct sy_session *s, struct sy_job *j);
void sy_items_print(FILE *f, const struct sy_dec_item *it);

/* units.c: stream units (TRBE, PT, whole-trace fragments).  Pieces are
 * planned when the walk starts; on_aux submits what the walk's progress
 * allows; kick continues ETM slices (call it whenever jobs finished);
 * walk_end releases everything left; job_done books a finished piece or
 * slice before its stretches are matched.  @bytes 0: the default sizes. */
int sy_units_plan(struct sy_session *s, struct sy_queue *q, uint64_t bytes);
int sy_units_on_aux(struct sy_session *s, struct sy_queue *q,
		    uint64_t rec_off);
int sy_units_kick(struct sy_session *s, struct sy_queue *q);
int sy_units_walk_end(struct sy_session *s, struct sy_queue *q);
/* Nonzero while pieces of @q remain to be submitted or decoded. */
int sy_units_pending(const struct sy_queue *q);
void sy_units_job_done(struct sy_queue *q, struct sy_job *j);
/* Worker side of an ETM slice. */
void sy_units_run_slice(struct sy_session *s, struct sy_job *j);
void sy_units_free(struct sy_queue *q);

/* validate.c: the status of a closed window whose stretches are known. */
void sy_validate(struct sy_session *s, struct sy_win *w);

/* place.c: other callchain samples.  sy_place_add queues one (taking
 * @chain); sy_place_window gives window @w, whose stretches are known, the
 * queued samples up to its pause sample (those of a window whose pause was
 * missed wait for the window that owns the trace); sy_place_drop counts
 * the samples no window took. */
int sy_place_add(struct sy_session *s, struct sy_queue *q, uint64_t time,
		 uint64_t ip, uint64_t period, uint32_t pid, uint32_t tid,
		 uint64_t *chain, uint32_t nr_chain);
int sy_place_window(struct sy_session *s, struct sy_queue *q,
		    struct sy_win *w);
void sy_place_drop(struct sy_session *s, struct sy_queue *q);
void sy_place_free_window(struct sy_win *w);

/* match.c: trace to pause samples. */
int sy_match_resume(struct sy_queue *q, uint64_t time, uint64_t ip,
		    uint32_t tid, uint64_t seq);
int sy_match_pause(struct sy_queue *q, struct sy_win *w);
int sy_match_event(struct sy_queue *q, int kind, uint64_t time,
		   uint64_t flags);
/* Takes the stretches (their rings move); @aux_time dates timeless ETR
 * stretches. */
int sy_match_stretches(struct sy_session *s, struct sy_queue *q,
		       struct sy_stretch *v, size_t n, int has_aux_time,
		       uint64_t aux_time, uint64_t t_lo);
/* Resolves every pause sample that can be; with @final, all of them. */
int sy_match_run(struct sy_session *s, struct sy_queue *q, int final);
void sy_match_free(struct sy_queue *q);

#endif
