/* Stream units: the trace of a TRBE or PT queue is one long stream (no AUX
 * record per window), so it must be decoded as the walk goes, in bounded
 * pieces, or a long recording would be held in memory whole.
 *
 * PT: each unit is cut at PSBs (where libipt can start decoding) into
 * pieces of about unit_bytes; pieces decode independently, on any thread.
 * A stretch cut by a piece boundary ends with STOP(END) where the PSB's
 * FUP says execution went on, and the next piece's stretch starts there:
 * matching joins the two (sy_stretch_joins), as it joins an excursion.
 *
 * ETM: a trace unit resynchronises (A-Sync) in the middle of a stretch too,
 * and a stream cut there loses the branch whose target address follows the
 * sync.  So an ETM unit is decoded by one decoder and one stretcher that
 * live with the queue, in slices: each slice pulls items up to the bytes
 * of the AUX records the walk has read (one record behind, so that the
 * address space is known for the code it reaches) and hands over the
 * stretches that closed.  Slices of a queue run one at a time; queues
 * (CPUs) run in parallel.
 *
 * A piece (or slice) goes out once the walk has read the AUX record that
 * holds its last byte: the address space is then known for its code. */
#include <stdlib.h>
#include <string.h>

#include "session.h"

#define SY_UNIT_BYTES_DEFAULT (256u << 10)

static uint64_t sy_unit_bytes(const struct sy_session *s)
{
	return s->o.unit_bytes ? s->o.unit_bytes : SY_UNIT_BYTES_DEFAULT;
}

/* The index of the AUX record holding byte @off of unit [first, last]
 * (whose records follow each other in the AUX area). */
static size_t sy_rec_at(const struct sy_queue *q, size_t first, size_t last,
			uint64_t off)
{
	while (first < last) {
		size_t mid = first + (last - first) / 2;

		if (off < q->recs[mid].aux_off + q->recs[mid].size)
			last = mid;
		else
			first = mid + 1;
	}
	return first;
}

static int sy_add_piece(struct sy_queue *q, size_t *cap, uint64_t lo,
			uint64_t hi, uint64_t dec_hi, size_t first, size_t last)
{
	struct sy_piece *p;
	size_t r_lo = sy_rec_at(q, first, last, lo);

	if (sy_grow((void **)&q->pieces, cap, q->nr_pieces, sizeof(*p)))
		return -SY_E_NOMEM;
	p = &q->pieces[q->nr_pieces++];
	p->lo = lo;
	p->hi = hi;
	p->dec_hi = dec_hi;
	p->first_rec = r_lo;
	p->last_rec = dec_hi > lo ? sy_rec_at(q, first, last, dec_hi - 1) : last;
	p->t_lo = r_lo ? q->recs[r_lo - 1].time : 0;
	return 0;
}

/* The last PSB at or before AUX offset @at, inside the buffer holding @at
 * and not before @floor; 0 when there is none.  *@end: past its PSB+
 * (the PSB itself when the header is not whole in the buffer). */
static uint64_t sy_psb_before(struct sy_session *s, const struct sy_queue *q,
			      uint64_t floor, uint64_t at, uint64_t *end)
{
	for (size_t i = sy_queue_first_buf(q, at); i < q->nr_bufs; i++) {
		const struct sy_auxbuf *b = &q->bufs[i];
		uint64_t lo = b->aux_off > floor ? b->aux_off : floor;
		const uint8_t *p;
		uint64_t sync;

		if (at < b->aux_off)
			break;
		if (at >= b->aux_off + b->size)
			continue;
		if (lo > at)
			return 0;
		p = sy_perf_bytes(s->r, b->file_off + (lo - b->aux_off),
				  b->aux_off + b->size - lo);
		if (!p || sy_decode_find_sync(SY_TRACE_PT, p,
					      b->aux_off + b->size - lo,
					      at - lo, &sync))
			return 0;
		/* the piece before decodes through the PSB+: its FUP proves
		 * the straight-line code up to where the next piece starts */
		if (sy_decode_sync_end(SY_TRACE_PT, p, b->aux_off + b->size - lo,
				       sync, end))
			*end = sync;
		*end += lo;
		return lo + sync;
	}
	return 0;
}

int sy_units_plan(struct sy_session *s, struct sy_queue *q, uint64_t bytes)
{
	size_t cap = 0;
	int err;

	if (!bytes)
		bytes = sy_unit_bytes(s);
	sy_stretcher_init(&q->stream.st, s->o.depth);
	for (size_t u = 0; u < q->nr_units; u++) {
		size_t first = q->units[u].first, last = q->units[u].last;
		uint64_t lo = q->recs[first].aux_off;
		uint64_t end = q->recs[last].aux_off + q->recs[last].size;

		if (s->kind == SY_TRACE_PT) {
			for (uint64_t at = lo + bytes; at < end; at += bytes) {
				uint64_t psb_end;
				uint64_t psb = sy_psb_before(s, q, lo, at,
							     &psb_end);

				if (!psb || psb <= lo)
					continue;
				err = sy_add_piece(q, &cap, lo, psb, psb_end,
						   first, last);
				if (err)
					return err;
				lo = psb;
			}
		}
		err = sy_add_piece(q, &cap, lo, end, end, first, last);
		if (err)
			return err;
	}
	return 0;
}

void sy_units_free(struct sy_queue *q)
{
	sy_decoder_free(q->stream.d);
	sy_mem_reader_free(q->stream.mr);
	sy_stretcher_fini(&q->stream.st);
	free(q->stream.chunks);
	free(q->pieces);
}

int sy_units_pending(const struct sy_queue *q)
{
	return q->next_piece < q->nr_pieces;
}

static int sy_submit_piece(struct sy_session *s, struct sy_queue *q)
{
	const struct sy_piece *p = &q->pieces[q->next_piece];
	struct sy_job *j = sy_job_new(s, q, p->lo, p->dec_hi, q->last_tid);

	if (!j)
		return -SY_E_NOMEM;
	j->bytes = p->hi - p->lo;
	if (p->dec_hi > p->hi)
		j->ext_from = p->hi - p->lo;
	j->t_lo = p->t_lo;
	j->final = 1;
	q->next_piece++;
	q->units_pending++;
	return sy_submit(s, j);
}

/* ETM: the next slice of the current piece, if the walk read enough. */
int sy_units_kick(struct sy_session *s, struct sy_queue *q)
{
	struct sy_stream *st = &q->stream;
	const struct sy_piece *p;
	struct sy_job *j;
	uint64_t limit;
	int final;

	if (s->kind == SY_TRACE_PT || st->busy || !sy_units_pending(q))
		return 0;
	p = &q->pieces[q->next_piece];
	if (q->walked > p->last_rec) {
		limit = p->hi;
	} else {
		/* one record behind the walk */
		if (q->walked < 2)
			return 0;
		const struct sy_auxrec *r = &q->recs[q->walked - 2];

		limit = r->aux_off + r->size;
		/* a damaged record may claim bytes far past the piece:
		 * slices never go beyond it, or they would never end */
		if (limit > p->hi || limit < r->aux_off)
			limit = p->hi;
		if (limit <= p->lo + st->sent ||
		    limit - p->lo - st->sent < sy_unit_bytes(s))
			return 0;
	}
	/* a slice hands its stretches over when it ends: not too many */
	if (limit - p->lo - st->sent > sy_unit_bytes(s))
		limit = p->lo + st->sent + sy_unit_bytes(s);
	final = limit == p->hi;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -SY_E_NOMEM;
	j->q = q;
	j->slice = 1;
	j->ctxid = q->last_tid;
	j->snap = sy_proc_table_snapshot(s->procs);
	j->first = !st->started;
	j->final = final;
	j->limit = limit - p->lo;
	j->aux_lo = p->lo;
	j->bytes = limit - p->lo - st->sent;
	j->t_lo = st->started ? st->t_lo : p->t_lo;
	if (!st->started) {
		int n = sy_queue_chunks(s, q, p->lo, p->hi, &st->chunks,
					&st->lost);

		if (n < 0) {
			sy_proc_snap_put(j->snap);
			free(j);
			return n;
		}
		st->nr_chunks = (size_t)n;
		st->started = 1;
		q->units_pending++;
	}
	if (!final) {
		/* the next slice's data came after the record before the
		 * one holding its first byte */
		size_t r = sy_rec_at(q, p->first_rec, p->last_rec, limit);

		st->t_lo = r ? q->recs[r - 1].time : 0;
	}
	st->sent = limit - p->lo;
	st->busy = 1;
	return sy_submit(s, j);
}

int sy_units_on_aux(struct sy_session *s, struct sy_queue *q,
		    uint64_t rec_off)
{
	/* the records are in file order: find this one */
	while (q->walked < q->nr_recs && q->recs[q->walked].rec_off < rec_off)
		q->walked++;
	if (q->walked >= q->nr_recs || q->recs[q->walked].rec_off != rec_off)
		return 0;
	q->walked++;
	if (s->kind != SY_TRACE_PT)
		return sy_units_kick(s, q);
	while (sy_units_pending(q) &&
	       q->pieces[q->next_piece].last_rec < q->walked) {
		int err = sy_submit_piece(s, q);

		if (err)
			return err;
	}
	return 0;
}

int sy_units_walk_end(struct sy_session *s, struct sy_queue *q)
{
	q->walked = q->nr_recs;
	if (s->kind != SY_TRACE_PT)
		return sy_units_kick(s, q);
	while (sy_units_pending(q)) {
		int err = sy_submit_piece(s, q);

		if (err)
			return err;
	}
	return 0;
}

void sy_units_job_done(struct sy_queue *q, struct sy_job *j)
{
	struct sy_stream *st = &q->stream;

	if (!j->slice) {
		q->units_pending--;
		return;
	}
	st->busy = 0;
	if (!j->final)
		return;
	free(st->chunks);
	st->chunks = NULL;
	st->nr_chunks = 0;
	st->started = 0;
	st->sent = 0;
	q->next_piece++;
	q->units_pending--;
}

void sy_units_run_slice(struct sy_session *s, struct sy_job *j)
{
	struct sy_queue *q = j->q;
	struct sy_stream *st = &q->stream;
	const struct sy_dec_stats *now;
	struct sy_dec_item it;
	int err = 0;

	if (!st->mr && (err = sy_mem_reader_new(&st->mr, s->images)))
		goto out;
	if (!st->d) {
		struct sy_dec_params dp = q->dp;

		dp.mem_ctx = st->mr;
		if ((err = sy_decoder_alloc(&st->d, &dp)))
			goto out;
	}
	sy_mem_reader_begin(st->mr, j->snap);
	if (j->first) {
		sy_stretcher_reset(&st->st);
		sy_decoder_set_context(st->d, j->ctxid);
		err = sy_decoder_reset(st->d, st->chunks, st->nr_chunks, 0);
		memset(&st->prev, 0, sizeof(st->prev));
	}
	while (!err && (err = sy_decoder_next(st->d, &it)) == 0) {
		if (s->o.items)
			sy_items_print(s->o.items, &it);
		if ((err = sy_stretcher_push(&st->st, &it)))
			break;
		if (!j->final && it.offset >= j->limit)
			break;
	}
	if (err == -SY_E_EOS)
		err = sy_stretcher_finish(&st->st);
	sy_mem_reader_end(st->mr);
	now = sy_decoder_stats(st->d);
	j->stats.insns = now->insns - st->prev.insns;
	j->stats.branches = now->branches - st->prev.branches;
	j->stats.bytes = now->bytes - st->prev.bytes;
	j->stats.errors = now->errors - st->prev.errors;
	j->stats.overflows = now->overflows - st->prev.overflows;
	j->stats.fast_units = now->fast_units - st->prev.fast_units;
	j->stats.full_units = now->full_units - st->prev.full_units;
	j->stats.fallbacks = now->fallbacks - st->prev.fallbacks;
	st->prev = *now;
	j->st = sy_stretcher_take(&st->st, &j->nr_st);
	j->lost = st->lost;
out:
	j->err = err;
}
