/* Cutting a decoder's item stream into trace stretches.
 *
 * A stretch is what the trace proves about one uninterrupted run of traced
 * execution: it starts at a START item and ends at a STOP, a discontinuity
 * (overflow, error) or the end of the data.  A context change inside it cuts
 * its ring: the branches before it belong to another thread.
 *
 * An untraced excursion (syscall, interrupt) ends a stretch with a STOP
 * whose address is where execution went on; when the next stretch starts
 * exactly there, user-space control flow is continuous across the gap and
 * the two join (sy_stretch_joins).  Joining is left to the window that owns
 * both: a pause and the next resume at the same instruction look the same
 * to the trace, but belong to two windows.
 *
 * Each stretch keeps its newest `depth` branches in a ring (all of them
 * when depth is 0), its instruction count, times and flags.  When it
 * closes, its ring is turned in place, newest first: a window's stack is
 * then most often the newest stretch's branches as they are
 * (sy_stretch_stack_upto).  A copy of every ring into a stack was a
 * seventh of convert's CPU on dense trace at -j2 (the window is validated
 * on the other core than the one that decoded it, and the copy doubled
 * what a window held).
 */
#ifndef SY_STRETCH_H
#define SY_STRETCH_H

#include <stddef.h>
#include <stdint.h>

#include "sy_blocks.h"
#include "sy_decode.h"
#include "sy_synth.h"
#include "sy_vec.h"

#define SY_SF_OVERFLOW 0x01u	/* an overflow ended or preceded it */
#define SY_SF_ERROR 0x02u	/* a decode error ended or preceded it */
#define SY_SF_CONTEXT 0x04u	/* the context changed inside it */
#define SY_SF_STOPPED 0x10u	/* it ended with a STOP item (end_addr valid) */
#define SY_SF_CUT 0x20u		/* branches before a context change dropped */
#define SY_SF_NOTHING 0x40u	/* trace was enabled but nothing ran */
#define SY_SF_SEAM 0x100u	/* its piece ended at a seam while it ran: it
				 * goes on in the next piece (units.h) */
#define SY_SF_FINISHED 0x400u	/* made a window on its decoding thread
				 * (finish.h): only its flags are left */
#define SY_SF_CONT 0x200u	/* begun where the previous piece's seam
				 * left a stretch running */
#define SY_SF_T0_START 0x80u	/* t0 was taken when its trace started (ETM:
				 * the Timestamp after its START; PT: the TSC
				 * of the timing packets before its TIP.PGE),
				 * not earlier */

struct sy_stretch {
	uint64_t start_addr;
	uint64_t end_addr;	/* STOP.to: where execution went on untraced */
	uint64_t last_from;	/* last traced instruction, when known */
	uint8_t stop_reason;	/* enum sy_stop_reason, 0 without a STOP */
	uint16_t stop_exc;
	uint32_t flags;		/* SY_SF_* */
	int has_time;
	int t0_stand_in;	/* t0 is the timestamp before the START */
	uint64_t t0, t1;	/* trace clock: first and last timestamp */
	uint64_t insns, branches;
	uint64_t cycles;	/* SY_DEC_CYCLES counts, with has_cycles */
	int has_cycles;
	uint64_t errors;
	int first_error;
	uint64_t first_error_off;
	uint64_t first_error_addr; /* where code was missing, 0: unknown */
	uint64_t off0, off1;	/* byte offsets of its first and last item */
	int has_ctx;
	uint32_t ctxid;
	uint32_t pid;		/* the process of ctxid when the recording
				 * names it (PT per CPU), 0: not known */
	/* the newest branches: while the stretch is open a ring,
	 * ring[(head - 1 - i) % cap] the i-th newest, len <= cap; closed
	 * (as sy_stretcher_take hands them out), ring[i] is the i-th newest
	 * and head is 0 */
	struct sy_br *ring;
	struct sy_block *blk;	/* the block holding ring, NULL: malloc'd */
	uint32_t cap, len, head;
	struct sy_text items;	/* --items: its decoder items as text */
};

/* Frees what @s owns (its ring and item text). */
void sy_stretch_release(struct sy_stretch *s);
/* @s was copied elsewhere, which owns its ring and text now. */
static inline void sy_stretch_moved(struct sy_stretch *s)
{
	s->ring = NULL;
	s->blk = NULL;
	s->items.s = NULL;
	s->items.len = s->items.cap = 0;
}

/* Nonzero when @next continues @prev's control flow: @prev stopped where
 * @next starts, with no overflow, error or thread change between. */
int sy_stretch_joins(const struct sy_stretch *prev,
		     const struct sy_stretch *next);

/* Nonzero when @s ran an instruction and its only timestamp is the one
 * taken when its trace started: its stop came after that time, and a
 * sample stamped with exactly that time was taken before the trace started
 * (in the interrupt that resumed it), even where a coarse trace clock gives
 * both one value. */
int sy_stretch_stops_after_start(const struct sy_stretch *s);

/* Appends @b (which goes on where @a stops: a piece's CONT stretch after the
 * previous piece's SEAM one) to @a, keeping the newest @depth branches (0:
 * all); @b is released.  Returns 0 or -SY_E_NOMEM (@a unchanged). */
int sy_stretch_append(struct sy_stretch *a, struct sy_stretch *b,
		      uint32_t depth);

/* Copies up to @max branches of closed stretch @s, newest first, into
 * @out; returns how many. */
uint32_t sy_stretch_stack(const struct sy_stretch *s, struct sy_br *out,
			  uint32_t max);

/* A stack's memory: cut from a block (sy_block_put) or malloc'd. */
struct sy_stack_mem {
	struct sy_br *v;
	struct sy_block *blk;
};

/* NULL-safe; leaves @m empty. */
void sy_stack_mem_free(struct sy_stack_mem *m);

/* The newest branches of the run of joined (closed) stretches ending at
 * @v[@last] (a window's stack, or a placed sample's), at most @depth (0:
 * all), newest first: *@stack, *@nr of them.  When @v[@last] holds them
 * all, *@stack points into its ring (nothing is allocated, *@out stays
 * empty); else they are copied into new memory *@out, cut from @mem
 * (NULL: malloc'd).  Returns 0 or -SY_E_NOMEM. */
int sy_stretch_stack_upto(const struct sy_stretch *v, size_t last,
			  uint32_t depth, struct sy_blocks *mem,
			  struct sy_stack_mem *out, const struct sy_br **stack,
			  uint32_t *nr);

struct sy_stretcher {
	uint32_t depth;		/* 0: keep every branch */
	struct sy_text pending;	/* item text seen while no stretch was open:
				 * the next stretch's */
	struct sy_stretch *v;	/* closed stretches */
	size_t nr, cap;
	struct sy_stretch cur;
	int open;
	uint32_t pending_flags;	/* overflows between stretches */
	int has_time;
	uint64_t last_time;
	int has_ctx;
	uint32_t ctxid;
	uint32_t pid;		/* of ctxid (sy_stretcher_pid), 0: unknown */
	/* cycle counts while no stretch was open: the next one's */
	uint64_t cycles_pending;
	int has_cycles_pending;
	int lone;		/* a timestamp outside any stretch, pending */
	uint64_t lone_time, lone_off;
	/* branches of the last stretch closed: the next ring starts that
	 * big, rather than doubling from 8 each time (dense trace closes a
	 * stretch every hundred branches) */
	uint32_t ring_hint;
	/* what new rings are cut from, its block given up when the closed
	 * stretches are taken */
	struct sy_blocks mem;
};

void sy_stretcher_init(struct sy_stretcher *st, uint32_t depth);
/* Frees the stretches' rings too. */
void sy_stretcher_fini(struct sy_stretcher *st);
/* Forgets everything (rings freed), keeps the depth. */
void sy_stretcher_reset(struct sy_stretcher *st);
/* Feeds one item.  Returns 0 or -SY_E_NOMEM. */
int sy_stretcher_push(struct sy_stretcher *st, const struct sy_dec_item *it);

/* Branch @from -> @to of kind @br into @s's ring, which has room or wraps
 * (at its depth): the newest, over the oldest when full. */
static inline void sy_ring_put(struct sy_stretch *s, uint64_t from,
			       uint64_t to, uint8_t br)
{
	struct sy_br *b = &s->ring[s->head];

	b->from = from;
	b->to = to;
	b->kind = br;
	/* no division on the per-branch path: cap is any size (fitted) */
	if (++s->head == s->cap)
		s->head = 0;
	if (s->len < s->cap)
		s->len++;
}

static inline void sy_ring_write(struct sy_stretch *s,
				 const struct sy_dec_item *it)
{
	sy_ring_put(s, it->from, it->to, it->br);
}

/* sy_stretcher_push(), inline for the common item: a taken branch while a
 * stretch runs and its ring has room (a call and a jump table per branch
 * were a tenth of convert's time on dense trace). */
static inline int sy_stretcher_push_hot(struct sy_stretcher *st,
					const struct sy_dec_item *it)
{
	struct sy_stretch *s = &st->cur;

	if (it->kind != SY_DEC_BRANCH || !st->open || s->len >= s->cap ||
	    ((s->flags & SY_SF_CONT) && !s->start_addr && !s->branches))
		return sy_stretcher_push(st, it);
	s->insns += it->ninsn;
	if (it->offset > s->off1)
		s->off1 = it->offset;
	s->branches++;
	s->last_from = it->from;
	sy_ring_write(s, it);
	return 0;
}
/* The items that follow go on with a stretch the previous piece left
 * running at its seam: a stretch flagged SY_SF_CONT opens now, without a
 * START (its start is the previous piece's; alone, its first branch's
 * source, as after a resynchronisation). */
int sy_stretcher_continue(struct sy_stretcher *st, uint64_t off);
/* The thread the trace runs in from here (a context learnt where no item
 * of it is kept), unless a stretch is open. */
void sy_stretcher_context(struct sy_stretcher *st, uint32_t ctxid);

/* The process of the context the last CONTEXT item set (a decoder names
 * a thread only; the recording may say whose it is). */
void sy_stretcher_pid(struct sy_stretcher *st, uint32_t pid);

/* Text about an item, kept with the stretch open now or, when none is,
 * with the next one opened: the caller adds it before pushing the item,
 * but after pushing a START (whose text belongs to the stretch it opens). */
int sy_stretcher_text(struct sy_stretcher *st, const char *line, size_t n);
/* Closes the open stretch at the end of the data. */
int sy_stretcher_finish(struct sy_stretcher *st);
/* Hands the closed stretches (and ownership of their rings) to the caller;
 * the stretcher keeps its depth and starts empty. */
struct sy_stretch *sy_stretcher_take(struct sy_stretcher *st, size_t *nr);
void sy_stretch_free_all(struct sy_stretch *v, size_t nr);

#endif
