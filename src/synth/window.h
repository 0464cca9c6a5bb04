/* A window being built: from its pause sample (or, without pause samples,
 * from one stretch) to the moment it is handed out.
 *
 * The walk makes it when it reads the pause sample and puts it on the
 * output list at once, so that windows keep the order of their pause
 * samples in the file.  Matching (match.h) gives it its stretches and its
 * resume sample, validation (validate.h) its status and stack, placement
 * (place.h) the other samples that interrupted it; then it is ready.
 */
#ifndef SY_WINDOW_H
#define SY_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "chain.h"
#include "maptl.h"
#include "stretch.h"
#include "sy_image.h"
#include "sy_proc.h"
#include "sy_pool.h"
#include "sy_synth.h"

/* What a placed sample's pointers in pub.inner own. */
struct sy_inner_mem {
	uint64_t *chain;
	struct sy_block *chain_blk;	/* chain's block, or NULL: malloc'd */
	struct sy_stack_mem stack;
};

/* A callchain sample of another event waiting for its window (place.h). */
struct sy_qsample {
	uint64_t time, ip, period;
	uint32_t pid, tid;
	struct sy_chain chain;	/* its frames, leaf first (chain.h) */
	int after_pause;	/* came after a pause sample, before the next
				 * resume: counted only if the trace shows it
				 * still ran (the pause was missed) */
};

struct sy_win;
struct sy_finished;

/* One place on the output list (struct sy_outq): a window being built, or
 * the windows a decode job finished on its thread (finish.h), which stand
 * together in one place, take as many numbers as they are and are ready
 * at once.  Embedded in what it stands for. */
struct sy_outent {
	struct sy_outent *next;
	struct sy_win *win;		/* a window, or NULL */
	struct sy_finished *fin;	/* or what a job finished */
};

/* What the windows of a decode job finished on its thread made (finish.h):
 * the sink's context, and what they add to the summary. */
struct sy_finished {
	struct sy_outent ent;	/* its place on the output list */
	const struct sy_window_sink *sink;
	void *job;		/* the sink's */
	struct sy_session_summary sum; /* sy_summary_add_window's counts */
	int err;		/* the first the sink returned */
	/* the address space of its windows, held until they are merged:
	 * the job's, or one before a replacement of code (jobs.h,
	 * sy_job_snap_at) */
	struct sy_proc_snap *snap;
	struct sy_maptl maps;
};

/* NULL-safe. */
void sy_finished_free(struct sy_finished *f);

/* What window @p adds to a summary (windows, by status, bytes,
 * instructions, branches, placed and unplaced samples); and those counts
 * of @from added to @s. */
void sy_summary_add_window(struct sy_session_summary *s,
			   const struct sy_window *p);
void sy_summary_add_windows(struct sy_session_summary *s,
			    const struct sy_session_summary *from);

/* Windows validated by one work item: a window of a program's trace may
 * have a few branches only, too little work to hand a thread alone. */
struct sy_vbatch {
	struct sy_work work;
	struct sy_win **w;
	size_t nr, cap;
	uint64_t branches;	/* in its windows' stretches */
	size_t refs;		/* its windows not freed yet */
	int done;		/* the walk saw the work done */
	/* pause windows: the sink their worker gives them to (NULL: none),
	 * the context it made (NULL: the walk hands them to fn) and the
	 * first error it returned */
	const struct sy_window_sink *sink;
	void *job;
	int err;
};

/* What matching (match.c) keeps of a window while its trace comes in. */
struct sy_win_match {
	uint64_t span_lo;	/* the previous pause sample's time */
	int has_span_lo;
	int ran_through;	/* a stretch spans its pause sample */
	int has_group;		/* ETR: a job decodes its AUX group */
	int group_done;		/* ETR: the decode of its AUX group is done */
	uint32_t resume_tid;
	int resume_switched;	/* its resume came on the last instruction
				 * before a context switch (match.c) */
};

/* What the records said about a window's trace, for validation. */
struct sy_win_evidence {
	uint64_t aux_bytes;	/* ETR: bytes of its AUX group */
	uint64_t aux_flags;
	int lost;
	uint32_t switches;	/* of other threads than the paused one */
};

struct sy_win {
	struct sy_window pub;
	struct sy_outent ent;	/* its place on the output list */
	int ready;		/* may be handed out */
	/* validated on a worker with the others of its batch (validate.h):
	 * ready once that is done */
	struct sy_vbatch *batch;
	uint64_t seq;		/* sample order in the file */
	struct sy_win_match match;
	struct sy_win_evidence ev;
	struct sy_stretch *st;
	size_t nr_st;
	/* the pause sample's frames until it is validated (chain.h): then
	 * chain, pub.callchain */
	struct sy_chain packed;
	/* what pub's pointers own */
	uint64_t *chain;
	struct sy_block *chain_blk;	/* chain's block, or NULL: malloc'd */
	struct sy_stack_mem stack;
	struct sy_inner_sample *inner;
	struct sy_inner_mem *inner_mem;
	struct sy_block *inner_blk, *inner_mem_blk; /* NULL: malloc'd */
	/* the samples it took from its queue, placed with its validation
	 * (sy_place_window), which frees them; how many of those after a
	 * pause sample turned out to be inside it; an error placing them */
	struct sy_qsample *qs;
	size_t nr_qs;
	uint64_t counted;
	int place_err;
	struct sy_proc_snap *snap;
	struct sy_text items;	/* --items: its stretches' item lines */
};

/* Frees the samples @w took from its queue (w->qs) and the chains of
 * those it did not place. */
void sy_win_forget_samples(struct sy_win *w);

/* NULL-safe.  The last window of a batch frees the batch. */
void sy_win_free(struct sy_win *w);
/* Frees the placed samples (pub.inner). */
void sy_win_free_inner(struct sy_win *w);


/* Windows in output order, waiting to be handed out. */
struct sy_outq {
	struct sy_outent *head, *tail;
	size_t nr;
	uint64_t next_index;
};

/* Appends window @w, numbering it: the output order. */
void sy_outq_append(struct sy_outq *o, struct sy_win *w);
/* Appends the windows a job finished (they take as many numbers as they
 * are). */
void sy_outq_append_finished(struct sy_outq *o, struct sy_finished *f);
/* The oldest entry if it is ready, taken off the list; else NULL. */
struct sy_outent *sy_outq_pop_ready(struct sy_outq *o);
/* Frees every entry on the list. */
void sy_outq_free(struct sy_outq *o);

#endif
