#include "stretch.h"

#include <stdlib.h>
#include <string.h>

/* Rings are cut from the stretcher's blocks (sy_blocks.h): made on a
 * decoding thread, freed on the walk's. */

/* Frees @s's ring. */
static void sy_ring_free(struct sy_stretch *s)
{
	sy_blocks_free(s->ring, s->blk);
	s->ring = NULL;
	s->blk = NULL;
}

void sy_stretcher_init(struct sy_stretcher *st, uint32_t depth)
{
	memset(st, 0, sizeof(*st));
	st->depth = depth;
}

void sy_stretch_release(struct sy_stretch *s)
{
	sy_ring_free(s);
	sy_text_free(&s->items);
	sy_stretch_moved(s);
}

void sy_stretch_free_all(struct sy_stretch *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		sy_stretch_release(&v[i]);
	free(v);
}

void sy_stretcher_reset(struct sy_stretcher *st)
{
	uint32_t depth = st->depth;

	sy_stretch_free_all(st->v, st->nr);
	sy_stretch_release(&st->cur);
	sy_text_free(&st->pending);
	sy_blocks_drop(&st->mem);
	sy_stretcher_init(st, depth);
}

int sy_stretcher_text(struct sy_stretcher *st, const char *line, size_t n)
{
	return sy_text_add(st->open ? &st->cur.items : &st->pending, line, n);
}

void sy_stretcher_fini(struct sy_stretcher *st)
{
	sy_stretcher_reset(st);
}

/* the most a ring starts with from the last stretch's size */
#define SY_RING_HINT_MAX 4096

static int sy_ring_push(struct sy_stretcher *st, struct sy_stretch *s,
			const struct sy_dec_item *it)
{
	uint32_t depth = st->depth;

	if (s->len == s->cap && (!depth || s->cap < depth)) {
		/* grow; the ring never wrapped (it only wraps at depth), so
		 * it is oldest-first from 0 and head == len after */
		/* most stretches are short: start small, or as big as the
		 * last few */
		uint32_t ncap = s->cap ? s->cap * 2 : 8;

		while (!s->cap && ncap < st->ring_hint &&
		       ncap < SY_RING_HINT_MAX)
			ncap *= 2;
		struct sy_br *n;

		if (depth && ncap > depth)
			ncap = depth;
		if (s->blk && !s->head &&
		    sy_blocks_resize(&st->mem, s->blk, s->ring,
				     (size_t)s->cap * sizeof(*n),
				     (size_t)ncap * sizeof(*n))) {
			s->head = s->len;	/* in place */
			s->cap = ncap;
		} else {
			struct sy_block *b = NULL;

			n = sy_blocks_alloc(&st->mem, (size_t)ncap * sizeof(*n),
					    &b);
			if (!n && !(n = malloc((size_t)ncap * sizeof(*n))))
				return -SY_E_NOMEM;
			for (uint32_t i = 0; i < s->len; i++)
				n[i] = s->ring[(s->head + i) % s->cap];
			sy_ring_free(s);
			s->ring = n;
			s->blk = b;
			s->cap = ncap;
			s->head = s->len;
		}
	}
	sy_ring_write(s, it);
	return 0;
}

uint32_t sy_stretch_stack(const struct sy_stretch *s, struct sy_br *out,
			  uint32_t max)
{
	uint32_t n = s->len < max ? s->len : max;

	if (n)
		memcpy(out, s->ring, (size_t)n * sizeof(*out));
	return n;
}

static void sy_br_reverse(struct sy_br *v, uint32_t n)
{
	for (uint32_t i = 0, j = n; i + 1 < j; i++) {
		struct sy_br t = v[i];

		v[i] = v[--j];
		v[j] = t;
	}
}

/* The closing stretch's ring, newest first from ring[0], in place: the
 * newest are head-1 down to 0, then (when it wrapped) cap-1 down to head. */
static void sy_ring_turn(struct sy_stretch *s)
{
	if (s->len < s->cap) {
		sy_br_reverse(s->ring, s->len);	/* never wrapped */
	} else {
		sy_br_reverse(s->ring, s->head);
		sy_br_reverse(s->ring + s->head, s->cap - s->head);
	}
	s->head = 0;
}

/* A ring that grew by doubling keeps only what it holds: a job's
 * stretches wait, all of them, until it is collected. */
static void sy_ring_fit(struct sy_stretcher *st, struct sy_stretch *s)
{
	struct sy_br *n;

	if (!s->ring || s->len == s->cap || !s->len)
		return;
	if (s->blk) {
		/* the newest ring gives back its tail; another stays as is
		 * (its block goes when its rings do) */
		if (sy_blocks_resize(&st->mem, s->blk, s->ring,
				     (size_t)s->cap * sizeof(*s->ring),
				     (size_t)s->len * sizeof(*s->ring))) {
			s->cap = s->len;
		}
		return;
	}
	n = realloc(s->ring, (size_t)s->len * sizeof(*n));
	if (!n)
		return;	/* the larger one will do */
	s->ring = n;
	s->cap = s->len;
}

static int sy_close(struct sy_stretcher *st)
{
	if (!st->open)
		return 0;
	/* the largest of the last few: dense trace alternates short and
	 * long stretches */
	st->ring_hint -= st->ring_hint / 8;
	if (st->cur.len > st->ring_hint)
		st->ring_hint = st->cur.len;
	if (st->cur.ring)
		sy_ring_turn(&st->cur);
	sy_ring_fit(st, &st->cur);
	if (st->nr == st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 8;
		struct sy_stretch *n = realloc(st->v, ncap * sizeof(*n));

		if (!n)
			return -SY_E_NOMEM;
		st->v = n;
		st->cap = ncap;
	}
	st->v[st->nr++] = st->cur;
	memset(&st->cur, 0, sizeof(st->cur));
	st->open = 0;
	return 0;
}

static void sy_open(struct sy_stretcher *st, const struct sy_dec_item *it);
static int sy_close(struct sy_stretcher *st);

/* An enable period without any instruction: a stretch of nothing, dated. */
static int sy_lone_stretch(struct sy_stretcher *st)
{
	struct sy_dec_item it;

	memset(&it, 0, sizeof(it));
	it.offset = st->lone_off;
	st->lone = 0;
	sy_open(st, &it);
	st->cur.flags |= SY_SF_NOTHING;
	st->cur.has_time = 1;
	st->cur.t0 = st->cur.t1 = st->lone_time;
	return sy_close(st);
}

static void sy_open(struct sy_stretcher *st, const struct sy_dec_item *it)
{
	struct sy_stretch *s = &st->cur;

	memset(s, 0, sizeof(*s));
	/* what was seen since the last stretch closed leads into this one */
	s->items = st->pending;
	memset(&st->pending, 0, sizeof(st->pending));
	st->open = 1;
	s->start_addr = it->to;
	s->off0 = s->off1 = it->offset;
	s->flags = st->pending_flags;
	s->has_ctx = st->has_ctx;
	s->ctxid = st->ctxid;
	s->pid = st->pid;
	st->pending_flags = 0;
	s->cycles = st->cycles_pending;
	s->has_cycles = st->has_cycles_pending;
	st->cycles_pending = 0;
	st->has_cycles_pending = 0;
}

/* An error inside a stretch ends it; one outside any stretch (bytes that
 * never decoded into trace) becomes a stretch of nothing but the error, so
 * the window whose time it falls in is told. */
static void sy_note_error(struct sy_stretcher *st, const struct sy_dec_item *it)
{
	struct sy_stretch *s = &st->cur;

	if (!st->open) {
		struct sy_dec_item at = *it;

		at.to = 0;
		sy_open(st, &at);
		s->flags |= SY_SF_NOTHING;
		if (st->has_time) {
			s->has_time = 1;
			s->t0_stand_in = 1;
			s->t0 = s->t1 = st->last_time;
		}
	}
	if (!s->errors) {
		s->first_error = (int)it->code;
		s->first_error_off = it->offset;
		s->first_error_addr = it->to;
	}
	s->errors++;
	s->flags |= SY_SF_ERROR;
}

static int sy_push_start(struct sy_stretcher *st,
			 const struct sy_dec_item *it)
{
	struct sy_stretch *s = &st->cur;
	int lone = st->lone, err;

	st->lone = 0;
	err = sy_close(st);
	if (err)
		return err;
	sy_open(st, it);
	if (st->has_time) {
		/* the stretch's own timestamp normally follows; until then
		 * the last one seen stands in */
		s->t0 = s->t1 = st->last_time;
		s->has_time = 1;
		s->t0_stand_in = 1;
		/* a timestamp alone since the last stretch closed is this
		 * enable's (PT writes its TSC before the TIP.PGE): taken when
		 * the trace started */
		if (lone)
			s->flags |= SY_SF_T0_START;
	}
	return 0;
}

static int sy_push_time(struct sy_stretcher *st, const struct sy_dec_item *it)
{
	struct sy_stretch *s = &st->cur;
	int err;

	if (!st->open) {
		/* two timestamps with no trace between: trace was enabled and
		 * disabled again before the program ran (PT writes timing
		 * packets at every enable) */
		if (st->lone && (err = sy_lone_stretch(st)))
			return err;
		st->lone = 1;
		st->lone_time = it->time;
		st->lone_off = it->offset;
	} else {
		/* the stretch's own timestamp comes before its first
		 * instruction and replaces the stand-in from START; a later
		 * one (a PT PSB+ in straight-line code before the first
		 * branch) is not its start, and taken for it made a restart
		 * look later than it was */
		if (!s->has_time || (s->t0_stand_in && !s->insns)) {
			s->t0 = it->time;
			s->t0_stand_in = 0;
			s->flags |= SY_SF_T0_START;
		}
		s->has_time = 1;
		s->t1 = it->time;
	}
	st->has_time = 1;
	st->last_time = it->time;
	return 0;
}

void sy_stretcher_context(struct sy_stretcher *st, uint32_t ctxid)
{
	if (st->open)
		return;
	st->has_ctx = 1;
	st->ctxid = ctxid;
	st->pid = 0;
}

static void sy_push_context(struct sy_stretcher *st,
			    const struct sy_dec_item *it)
{
	struct sy_stretch *s = &st->cur;

	if (st->open && st->has_ctx && it->code != st->ctxid) {
		/* another thread: its branches are not ours */
		s->flags |= SY_SF_CONTEXT | SY_SF_CUT;
		s->len = 0;
		s->head = 0;
	}
	st->has_ctx = 1;
	st->ctxid = it->code;
	st->pid = 0;
	if (st->open) {
		s->has_ctx = 1;
		s->ctxid = it->code;
		s->pid = 0;
	}
}

void sy_stretcher_pid(struct sy_stretcher *st, uint32_t pid)
{
	st->pid = pid;
	if (st->open)
		st->cur.pid = pid;
}

/* The branches of SY_DEC_BRANCHES item @it, as their SY_DEC_BRANCH items
 * would be pushed one by one. */
static int sy_push_run(struct sy_stretcher *st, const struct sy_dec_item *it)
{
	const struct sy_dec_run *run = it->run;
	const struct sy_dec_br *x = run->v + 1;
	struct sy_stretch *s = &st->cur;
	uint32_t left = it->code - 1;
	struct sy_dec_item b;
	int err;

	if (!it->code)
		return 0;
	/* the first as it is: it may open a stretch or start one that goes
	 * on from the previous piece */
	sy_dec_run_branch(it, 0, &b);
	if ((err = sy_stretcher_push(st, &b)))
		return err;
	/* the others into the open stretch: same offset, no START, the
	 * counts added once */
	s->insns += run->ninsn - run->v[0].ninsn;
	s->branches += left;
	if (left)
		s->last_from = run->v[it->code - 1].from;
	for (; left; x++, left--) {
		if (s->len < s->cap) {
			sy_ring_put(s, x->from, x->to, x->br);
			continue;
		}
		/* full: it grows, or wraps at its depth */
		b.from = x->from;
		b.to = x->to;
		b.br = x->br;
		if ((err = sy_ring_push(st, s, &b)))
			return err;
	}
	return 0;
}

int sy_stretcher_push(struct sy_stretcher *st, const struct sy_dec_item *it)
{
	struct sy_stretch *s = &st->cur;

	if (it->kind == SY_DEC_BRANCHES)
		return sy_push_run(st, it);
	if (st->open) {
		s->insns += it->ninsn;
		/* items from bytes behind (timestamps OpenCSD held back for
		 * an element) do not move the end back */
		if (it->offset > s->off1)
			s->off1 = it->offset;
	}
	switch (it->kind) {
	case SY_DEC_BRANCH:
		if (!st->open) {
			/* a branch without a START: the decoder synced
			 * mid-stream; its source starts a stretch */
			struct sy_dec_item start = *it;
			start.to = it->from;
			sy_open(st, &start);
			s->insns = it->ninsn;
		} else if ((s->flags & SY_SF_CONT) && !s->start_addr &&
			   !s->branches) {
			s->start_addr = it->from;
		}
		s->branches++;
		s->last_from = it->from;
		return sy_ring_push(st, s, it);
	case SY_DEC_START:
		return sy_push_start(st, it);
	case SY_DEC_STOP:
		if (!st->open)
			return 0;
		s->end_addr = it->to;
		s->stop_reason = (uint8_t)it->code;
		s->stop_exc = it->exc;
		s->flags |= SY_SF_STOPPED;
		if (it->from)
			s->last_from = it->from;
		return sy_close(st);
	case SY_DEC_OVERFLOW:
		if (st->open) {
			s->flags |= SY_SF_OVERFLOW;
			return sy_close(st);
		}
		st->pending_flags |= SY_SF_OVERFLOW;
		return 0;
	case SY_DEC_ERROR:
		sy_note_error(st, it);
		return sy_close(st);
	case SY_DEC_TIME:
		return sy_push_time(st, it);
	case SY_DEC_CONTEXT:
		sy_push_context(st, it);
		return 0;
	case SY_DEC_CYCLES:
		/* counted up to a P0 element: one that comes between
		 * stretches ends at the next one's first */
		if (st->open) {
			s->cycles += it->code;
			s->has_cycles = 1;
		} else {
			st->cycles_pending += it->code;
			st->has_cycles_pending = 1;
		}
		return 0;
	default:
		return 0;
	}
}

int sy_stretcher_finish(struct sy_stretcher *st)
{
	int err = sy_close(st);

	if (!err && st->lone)
		err = sy_lone_stretch(st);
	return err;
}

int sy_stretcher_continue(struct sy_stretcher *st, uint64_t off)
{
	struct sy_dec_item it;
	int err = sy_close(st);

	if (err)
		return err;
	memset(&it, 0, sizeof(it));
	it.offset = off;
	sy_open(st, &it);
	st->cur.flags |= SY_SF_CONT;
	return 0;
}

struct sy_stretch *sy_stretcher_take(struct sy_stretcher *st, size_t *nr)
{
	struct sy_stretch *v = st->v;

	*nr = st->nr;
	st->v = NULL;
	st->nr = st->cap = 0;
	/* the next job cuts rings from a block of its own: one job's rings
	 * keep one job's blocks, whichever stream goes on */
	sy_blocks_drop(&st->mem);
	return v;
}

int sy_stretch_joins(const struct sy_stretch *prev,
		     const struct sy_stretch *next)
{
	return (prev->flags & SY_SF_STOPPED) && prev->end_addr &&
	       prev->end_addr == next->start_addr &&
	       !(next->flags & (SY_SF_OVERFLOW | SY_SF_ERROR)) &&
	       (!prev->has_ctx || !next->has_ctx ||
		prev->ctxid == next->ctxid);
}

void sy_stack_mem_free(struct sy_stack_mem *m)
{
	if (!m)
		return;
	sy_blocks_free(m->v, m->blk);
	m->v = NULL;
	m->blk = NULL;
}

int sy_stretch_stack_upto(const struct sy_stretch *v, size_t last,
			  uint32_t depth, struct sy_blocks *mem,
			  struct sy_stack_mem *out, const struct sy_br **stack,
			  uint32_t *nr)
{
	size_t k = last;
	uint64_t total = v[last].len;
	uint32_t max, n = 0;

	/* the untraced excursions the run came back from belong to it; a
	 * discontinuity ends it */
	while (k > 0 && sy_stretch_joins(&v[k - 1], &v[k]))
		total += v[--k].len;
	max = depth ? depth : (uint32_t)(total < UINT32_MAX ? total : UINT32_MAX);
	out->v = NULL;
	out->blk = NULL;
	*stack = NULL;
	*nr = 0;
	if (!max)
		return 0;
	if ((max < total ? max : total) <= v[last].len) {
		/* the newest stretch holds them all: as they are */
		*stack = v[last].ring;
		*nr = max < v[last].len ? max : v[last].len;
		return 0;
	}
	/* made on a worker, freed on the walk's thread: from a block */
	if (mem)
		out->v = sy_blocks_alloc(mem, (size_t)max * sizeof(*out->v),
					 &out->blk);
	if (!out->v && !(out->v = malloc((size_t)max * sizeof(*out->v))))
		return -SY_E_NOMEM;
	for (size_t i = last + 1; i-- > k && n < max;)
		n += sy_stretch_stack(&v[i], out->v + n, max - n);
	*stack = out->v;
	*nr = n;
	return 0;
}

int sy_stretch_stops_after_start(const struct sy_stretch *s)
{
	return (s->flags & SY_SF_T0_START) && !(s->flags & SY_SF_NOTHING) &&
	       s->t1 == s->t0 && (s->insns || s->branches);
}

/* @a's branches followed by @b's, the newest @depth kept (0: all). */
static int sy_ring_join(struct sy_stretch *a, const struct sy_stretch *b,
			uint32_t depth)
{
	uint64_t total = (uint64_t)a->len + b->len;
	uint32_t keep = depth && total > depth ? depth : (uint32_t)total;
	uint32_t from_b = b->len < keep ? b->len : keep;
	struct sy_br *ring;

	if (!b->len)
		return 0;
	if (!(ring = malloc((size_t)keep * sizeof(*ring))))
		return -SY_E_NOMEM;
	/* newest first: @b's, then what room is left of @a's */
	memcpy(ring, b->ring, (size_t)from_b * sizeof(*ring));
	if (keep > from_b)
		memcpy(ring + from_b, a->ring,
		       (size_t)(keep - from_b) * sizeof(*ring));
	sy_ring_free(a);
	a->ring = ring;
	a->cap = a->len = keep;
	a->head = 0;
	return 0;
}

int sy_stretch_append(struct sy_stretch *a, struct sy_stretch *b,
		      uint32_t depth)
{
	int err;

	if (b->has_ctx && a->has_ctx && b->ctxid != a->ctxid) {
		/* another thread went on after the seam: not ours */
		a->flags |= SY_SF_CONTEXT | SY_SF_CUT;
		a->len = a->head = 0;
	}
	if ((err = sy_ring_join(a, b, depth)) ||
	    (err = sy_text_move(&a->items, &b->items)))
		return err;
	a->flags = (a->flags & ~SY_SF_SEAM) | (b->flags & ~SY_SF_CONT);
	a->end_addr = b->end_addr;
	a->stop_reason = b->stop_reason;
	a->stop_exc = b->stop_exc;
	if (b->last_from)
		a->last_from = b->last_from;
	if (b->has_time) {
		if (!a->has_time) {
			a->t0 = b->t0;
			a->t0_stand_in = b->t0_stand_in;
		}
		a->has_time = 1;
		a->t1 = b->t1;
	}
	a->insns += b->insns;
	a->branches += b->branches;
	a->cycles += b->cycles;
	a->has_cycles |= b->has_cycles;
	if (b->errors && !a->errors) {
		a->first_error = b->first_error;
		a->first_error_off = b->first_error_off;
		a->first_error_addr = b->first_error_addr;
	}
	a->errors += b->errors;
	if (b->off1 > a->off1)
		a->off1 = b->off1;
	if (b->has_ctx) {
		a->has_ctx = 1;
		a->ctxid = b->ctxid;
		a->pid = b->pid;
	}
	sy_stretch_release(b);
	return 0;
}
