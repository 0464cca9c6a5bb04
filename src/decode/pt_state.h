/* The Intel PT decoder's state, private to pt.c (the decode: code reads,
 * items, blocks and events, the loop) and pt_ops.c (the backend ops that
 * make, reset and drive it). */
#ifndef SY_PT_STATE_H
#define SY_PT_STATE_H

#include <intel-pt.h>

#include "code_cache.h"
#include "decoder_impl.h"
#include "pt_cyc.h"
#include "pt_impl.h"
#include "pt_walk.h"
#include "pt_x86.h"

enum {
	SY_PT_NCLASS = 1024,		/* last instructions of blocks */
	/* Items one step of the decode may push (no step pushes more than
	 * a handful; any beyond are dropped, so that no input can make the
	 * queue grow), and the queue: several steps' items go out in place
	 * at once (pt_ops.c, sy_decoder_peek). */
	SY_PT_STEP_ITEMS = 16,
	SY_PT_QUEUE = 4 * SY_PT_STEP_ITEMS,
	/* Instructions the block decoder may walk without reading trace
	 * before we call it stuck (see the top of this file). */
	SY_PT_MAX_IDLE_INSNS = 1 << 18,
};

#define SY_PT_NO_IP UINT64_MAX

/* A decoded last instruction of a block, by its address and mode. */
struct sy_pt_class {
	uint64_t ip;			/* SY_PT_NO_IP: empty */
	uint8_t mode;
	uint8_t iclass;
	struct sy_x86_branch br;
};

enum sy_pt_phase {
	SY_PT_FIRST_SYNC,
	SY_PT_RUN,
	SY_PT_RESYNC,
	SY_PT_DONE,
};

/* The trace enables (TIP.PGE) between a failed run's error and the next
 * PSB, where libipt can start again (pt_sync.c).  libipt cannot decode
 * from an enable, but each is where a stretch of trace starts, and in a
 * paused-and-resumed recording where a window starts: each is reported
 * as an ERROR of its own, so every window the gap covers says its trace
 * could not be decoded rather than that it had none.  Its packets are
 * walked from the failed run's PSB, so that compressed IPs can be
 * expanded; the last TSC before an enable is the enable's time (the
 * processor sends one when tracing is enabled, when TSC packets are on). */
struct sy_pt_gap {
	struct pt_packet_decoder *pd;	/* NULL: no gap being walked */
	uint64_t from, to;		/* enables in [from, to) */
	uint64_t ip, tsc;		/* at the last enable */
	int have_ip, have_tsc;
	int st;				/* the resync's status, for after */
};

/* Walks @cfg's trace from the PSB at @psb for the enables in [@from,
 * @to).  Returns 0 or -SY_E_NOMEM. */
int sy_pt_gap_open(struct sy_pt_gap *g, const struct pt_config *cfg,
		   uint64_t psb, uint64_t from, uint64_t to);
/* The next enable: 1 with its offset in *@off (and g->ip, g->tsc), 0 when
 * there is none left (the walk is closed). */
int sy_pt_gap_next(struct sy_pt_gap *g, uint64_t *off);
void sy_pt_gap_close(struct sy_pt_gap *g);

struct sy_pt {
	struct sy_decoder *d;
	struct pt_config cfg;		/* all but begin/end */
	struct pt_image *image;		/* reads through @code */
	struct pt_block_decoder *blk;	/* one per window, unless @fast */

	/* The fast path (pt_walk.h) in place of @blk.  When it doubts, the
	 * step's items are dropped and, once the queue's earlier items are
	 * out (@fall_back_due), the window is decoded again by the block
	 * decoder from its start, the @committed items of the steps before
	 * skipped (@skip): the two give the same items, so the caller sees
	 * one stream. */
	int fast;
	int use_fast;			/* for the next reset */
	int fast_ok;			/* @walk could be made */
	int fall_back_due;
	struct sy_ptw walk;
	uint64_t committed, skip;
	uint32_t ctxid0;		/* the context at reset */
	int counted;			/* the window's unit is counted */

	/* The window. */
	const uint8_t *trace;
	size_t len;
	uint8_t *copy;			/* for windows of several chunks */
	size_t copy_cap;
	uint64_t report_from;
	int reporting;
	uint64_t *pge;			/* TIP.PGE offsets before report_from */
	size_t npge, pge_cap;
	size_t pge_skip;		/* enabled events still before the window */

	/* Decoding state. */
	enum sy_pt_phase phase;
	int status;			/* pts_* flags of the last libipt call */
	int err_code;			/* pt_error_code of the last error */
	uint64_t sync_off;		/* last sync attempt, for progress */
	int have_sync_off;
	/* the last error: the PSB its run started from, where it stopped */
	int have_fail;
	uint64_t fail_psb, fail_off;
	struct sy_pt_gap gap;
	int tracing;			/* between START and STOP */
	int need_start;			/* after a sync: the next block starts */
	uint64_t ninsn;			/* instructions since the last item */
	uint64_t idle_insns;		/* instructions since @idle_off moved */
	uint64_t idle_off;

	/* The last instruction of the last block, whose successor decides
	 * whether it was a taken branch. */
	int have_last;
	int pending;			/* successor still unknown */
	uint64_t last_ip;
	struct sy_x86_branch last;

	uint64_t time;
	int have_time;

	/* where libipt last asked for code and got none: the address of a
	 * -pte_nomap error (libipt's error says none) */
	uint64_t nomap_ip;

	/* CYC packets (params.u.pt.cyc, pt_cyc.h): the window's counts, and
	 * the decoder's next item while a count goes out before it */
	int cyc_on;
	struct sy_pt_cyc cyc;
	struct sy_dec_item held;
	int have_held;

	/* The queue, q[qhead .. qhead + qn), in one piece: it starts again
	 * at q[0] whenever it is empty, and steps go on only while
	 * SY_PT_STEP_ITEMS fit after it. */
	struct sy_dec_item q[SY_PT_QUEUE];
	unsigned qhead, qn;
	unsigned step_n;		/* items the current step pushed */
	/* the step asked the caller which code or thread runs when (whose
	 * answer the caller's handling of the items before may depend on):
	 * no step after it until they are out */
	int batch_stop;
	int batching;			/* for sy_decoder_peek: see pt.c */
	struct sy_dec_item discard;	/* target of suppressed items */
	/* sy_decoder_peek while CYC counts go out between the items: one
	 * item at a time, sy_pt_next's */
	struct sy_dec_item one;
	int have_one;

	int cache_on, cache_next;
	uint32_t cls_ctxid;		/* the context @cls holds */
	struct sy_pt_class *cls;
	struct sy_code_cache code;
	struct sy_pt_mem_stats mem;
};

static inline struct sy_pt *sy_pt_of(const struct sy_decoder *d)
{
	return d->impl;
}

/* The block decoder's calls pt.c makes, to libipt's or the fast path's. */
static inline int sy_pt_have_dec(const struct sy_pt *pt)
{
	return pt->fast ? pt->walk.q != NULL : pt->blk != NULL;
}

static inline int sy_pt_dec_offset(const struct sy_pt *pt, uint64_t *off)
{
	return pt->fast ? sy_ptw_get_offset(&pt->walk, off) :
			  pt_blk_get_offset(pt->blk, off);
}

static inline int sy_pt_dec_sync_offset(const struct sy_pt *pt,
					uint64_t *off)
{
	return pt->fast ? sy_ptw_get_sync_offset(&pt->walk, off) :
			  pt_blk_get_sync_offset(pt->blk, off);
}

static inline int sy_pt_dec_sync_forward(struct sy_pt *pt)
{
	return pt->fast ? sy_ptw_sync_forward(&pt->walk) :
			  pt_blk_sync_forward(pt->blk);
}

static inline int sy_pt_dec_next(struct sy_pt *pt, struct pt_block *b)
{
	return pt->fast ? sy_ptw_next(&pt->walk, b) :
			  pt_blk_next(pt->blk, b, sizeof(*b));
}

static inline int sy_pt_dec_event(struct sy_pt *pt, struct pt_event *ev)
{
	return pt->fast ? sy_ptw_event(&pt->walk, ev) :
			  pt_blk_event(pt->blk, ev, sizeof(*ev));
}

static inline int sy_pt_dec_time(struct sy_pt *pt, uint64_t *tsc)
{
	return pt->fast ? sy_ptw_time(&pt->walk, tsc) :
			  pt_blk_time(pt->blk, tsc, NULL, NULL);
}

/* pt.c: the code cache's classification slots emptied for the current
 * context; libipt's image callback; one step of the decode (items into the
 * queue); the first or next synchronisation. */
void sy_pt_cls_flush(struct sy_pt *pt);
int sy_pt_image_read(uint8_t *buf, size_t size, const struct pt_asid *asid,
		     uint64_t ip, void *ctx);
void sy_pt_run(struct sy_pt *pt);
void sy_pt_sync(struct sy_pt *pt);

/* Whether one more step's items fit after the queue (it stays in one
 * piece, pt_ops.c): where batched steps go on, between steps (pt_ops.c)
 * and between the blocks of one (pt.c). */
static inline int sy_pt_room(const struct sy_pt *pt)
{
	return pt->qhead + pt->qn <= SY_PT_QUEUE - SY_PT_STEP_ITEMS;
}

#endif
