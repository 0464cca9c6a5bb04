#include "units.h"

#include <stdlib.h>
#include <string.h>

#include "sy_pages.h"
#include "sy_vec.h"

void sy_units_init(struct sy_units *u, const struct sy_synth_config *cfg)
{
	memset(u, 0, sizeof(*u));
	sy_decstate_init(&u->stream.ds, cfg->depth);
}

void sy_units_set_depth(struct sy_units *u, uint32_t depth)
{
	u->stream.ds.st.depth = depth;
}

void sy_units_fini(struct sy_units *u)
{
	sy_decstate_fini(&u->stream.ds);
	if (u->has_carry)
		sy_stretch_release(&u->carry);
	for (size_t i = 0; i < u->nr_pieces; i++)
		free(u->pieces[i].chunks);
	free(u->pieces);
	memset(u, 0, sizeof(*u));
}

static int sy_add_piece(struct sy_units *u, const struct sy_auxmap *m,
			uint64_t lo, uint64_t hi, uint64_t dec_hi, size_t first,
			size_t last)
{
	int after = u->nr_pieces && u->pieces[u->nr_pieces - 1].has_seam &&
		    u->pieces[u->nr_pieces - 1].hi == lo;
	struct sy_piece *p;
	size_t r_lo = sy_auxmap_rec_at(m, first, last, lo);

	if (sy_grow((void **)&u->pieces, &u->cap_pieces, u->nr_pieces,
		    sizeof(*p)))
		return -SY_E_NOMEM;
	p = &u->pieces[u->nr_pieces++];
	memset(p, 0, sizeof(*p));
	p->lo = lo;
	p->hi = hi;
	p->dec_hi = dec_hi;
	p->first_rec = r_lo;
	p->last_rec = dec_hi > lo ? sy_auxmap_rec_at(m, first, last, dec_hi - 1) :
				    last;
	p->t_lo = r_lo ? m->recs[r_lo - 1].time : 0;
	p->after_seam = after;
	return 0;
}

/* The last PSB at or before AUX offset @at, inside the payload holding @at
 * and not before @floor; 0 when there is none.  *@end: past its PSB+
 * (the PSB itself when the header is not whole in the payload). */
static uint64_t sy_psb_before(const struct sy_auxmap *m,
			      const struct sy_perf_reader *r, uint64_t floor,
			      uint64_t at, uint64_t *end)
{
	for (size_t i = sy_auxmap_first_buf(m, at); i < m->nr_bufs; i++) {
		const struct sy_auxbuf *b = &m->bufs[i];
		uint64_t lo = b->aux_off > floor ? b->aux_off : floor;
		const uint8_t *p;
		uint64_t sync;

		if (at < b->aux_off)
			break;
		if (at >= b->aux_off + b->size)
			continue;
		if (lo > at)
			return 0;
		p = sy_perf_bytes(r, b->file_off + (lo - b->aux_off),
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

/* A piece longer than this many units is decoded in slices (no seam to cut
 * it at: memory would follow its length). */
#define SY_SLICE_ABOVE 4

/* The kernel maps pages around the one a read faults in (fault-around). */
#define SY_FAULT_AROUND (64u << 10)

/* Drops the input's pages that AUX range [lo, hi) lies in, and those the
 * kernel may have mapped around them: looking for a seam read them, and
 * they are not needed until their piece is decoded (sy_pages.h).  Through
 * @drop, a megabyte at a time: a cut every few bytes (small units) made
 * a drop per cut, 1.4 million madvise calls on a 100 KiB PT capture. */
static void sy_scan_release(const struct sy_auxmap *m,
			    const struct sy_perf_reader *r,
			    struct sy_pages_batch *drop, uint64_t lo,
			    uint64_t hi)
{
	lo = lo > SY_FAULT_AROUND ? lo - SY_FAULT_AROUND : 0;
	hi += SY_FAULT_AROUND;
	for (size_t i = sy_auxmap_first_buf(m, lo);
	     sy_perf_bytes_droppable(r) && i < m->nr_bufs &&
	     m->bufs[i].aux_off < hi;
	     i++) {
		const struct sy_auxbuf *b = &m->bufs[i];
		uint64_t a = lo > b->aux_off ? lo : b->aux_off;
		uint64_t z = hi < sy_auxmap_buf_end(m, i) ? hi :
							 sy_auxmap_buf_end(m, i);

		if (a < z)
			sy_pages_batch_add(drop,
					   sy_perf_bytes(r, b->file_off +
							       (a - b->aux_off),
							 z - a),
					   z - a);
	}
}

/* PT: drops the input's pages around the payloads that hold AUX offset
 * @at, which sy_psb_before read, in the file, with what the reads brought
 * around them (SY_PAGES_AROUND): the sample records between small
 * payloads are no part of the AUX range sy_scan_release drops.  Through
 * @drop, as there. */
static void sy_psb_release(const struct sy_auxmap *m,
			   const struct sy_perf_reader *r,
			   struct sy_pages_batch *drop, uint64_t at)
{
	uint64_t size = sy_perf_info(r)->file_size;

	for (size_t i = sy_auxmap_first_buf(m, at);
	     sy_perf_bytes_droppable(r) && i < m->nr_bufs &&
	     m->bufs[i].aux_off <= at;
	     i++) {
		uint64_t lo = m->bufs[i].file_off, hi = lo + m->bufs[i].size;

		lo = lo > SY_PAGES_AROUND ? (lo - SY_PAGES_AROUND) &
						    ~(SY_PAGES_AROUND - 1) : 0;
		hi = ((hi + SY_PAGES_AROUND) | (SY_PAGES_AROUND - 1)) + 1;
		hi = hi < size ? hi : size;
		if (lo < hi)
			sy_pages_batch_add(drop, sy_perf_bytes(r, lo, hi - lo),
					   hi - lo);
	}
}

/* sy_seam_at's search from AUX offset *@c on (*@c: the cut found). */
static int sy_seam_find(const struct sy_auxmap *m,
			const struct sy_perf_reader *r,
			const struct sy_dec_params *dp, uint64_t end,
			uint64_t *cp, uint64_t *sync, uint64_t *seam)
{
	uint64_t align = dp->u.etm.formatted ? 16 : 1;
	uint64_t c = *cp;

	for (int tries = 0; tries < 64 && c < end; tries++) {
		size_t i = sy_auxmap_first_buf(m, c);
		const struct sy_auxbuf *b;
		const uint8_t *p;
		uint64_t s, e, bend;
		int err;

		while (i < m->nr_bufs && sy_auxmap_buf_end(m, i) <= c)
			i++;
		if (i >= m->nr_bufs || m->bufs[i].aux_off > c)
			break;
		b = &m->bufs[i];
		bend = sy_auxmap_buf_end(m, i) < end ? sy_auxmap_buf_end(m, i) :
							end;
		p = sy_perf_bytes(r, b->file_off + (c - b->aux_off), bend - c);
		if (!p)
			break;
		err = sy_decode_etm_seam(dp, p, (size_t)(bend - c), 0, &s, &e);
		if (err == -SY_E_UNSUPPORTED || err == -SY_E_INVALID)
			return -1;
		if (err == -SY_E_DECODE) {
			/* not the sequence that joins: after that A-Sync */
			c += (s + align) / align * align;
			continue;
		}
		if (err)
			break;
		*cp = c;
		*sync = c + s;
		*seam = c + e;
		return 0;
	}
	return 1;
}

/* ETM: the first seam at or after AUX offset @at of unit [ulo, end): the
 * cut (*cut, a frame boundary of formatted data), the A-Sync (*sync) and
 * where the piece before stops (*seam).  Returns 0, 1 when none is found
 * in the payload holding @at, or -1 when the trace unit allows none
 * (speculation, formatted data of several trace IDs). */
static int sy_seam_at(const struct sy_auxmap *m, const struct sy_perf_reader *r,
		      struct sy_pages_batch *drop,
		      const struct sy_dec_params *dp, uint64_t ulo,
		      uint64_t at, uint64_t end, uint64_t *cut,
		      uint64_t *sync, uint64_t *seam)
{
	uint64_t align = dp->u.etm.formatted ? 16 : 1;
	uint64_t c = ulo + (at - ulo + align - 1) / align * align;
	uint64_t c0 = c;
	int found = sy_seam_find(m, r, dp, end, &c, sync, seam);

	sy_scan_release(m, r, drop, c0, found ? end : *seam);
	if (found == 0)
		*cut = c;
	return found;
}

/* ETM: cuts unit [lo, end) of records [first, last] at seams about @bytes
 * apart; the last piece goes to the end. */
static int sy_plan_etm(struct sy_units *u, const struct sy_auxmap *m,
		       const struct sy_dec_params *dp,
		       const struct sy_perf_reader *r,
		       struct sy_pages_batch *drop, uint64_t bytes,
		       uint64_t lo, uint64_t end, size_t first, size_t last)
{
	uint64_t ulo = lo, at = lo + bytes, cut, sync, seam;
	int err, found;

	while (at < end &&
	       (found = sy_seam_at(m, r, drop, dp, ulo, at, end, &cut, &sync,
				   &seam)) >= 0) {
		if (found) {
			at += bytes;
			continue;
		}
		if ((err = sy_add_piece(u, m, lo, cut, seam, first, last)))
			return err;
		u->pieces[u->nr_pieces - 1].has_seam = 1;
		u->pieces[u->nr_pieces - 1].seam_sync = sync;
		lo = cut;
		/* the next cut comes after this seam: the piece from here
		 * decodes through it */
		at = cut + bytes > seam ? cut + bytes : seam;
	}
	return sy_add_piece(u, m, lo, end, end, first, last);
}

int sy_units_plan(struct sy_units *u, const struct sy_auxmap *m,
		  const struct sy_synth_config *cfg,
		  const struct sy_dec_params *dp,
		  const struct sy_perf_reader *r)
{
	uint64_t bytes = cfg->unit_bytes;
	/* the records between the payloads it reads were passed by the
	 * prepass: dropping them with the payloads costs nothing */
	struct sy_pages_batch drop = { .join = SY_PAGES_BATCH };
	int err = 0;

	for (size_t k = 0; k < m->nr_units; k++) {
		size_t first = m->units[k].first, last = m->units[k].last;
		uint64_t lo = m->recs[first].aux_off;
		uint64_t end = m->recs[last].aux_off + m->recs[last].size;

		if (cfg->kind == SY_TRACE_ETM) {
			err = sy_plan_etm(u, m, dp, r, &drop, bytes, lo, end,
					  first, last);
			if (err)
				goto out;
			continue;
		}
		if (cfg->kind == SY_TRACE_PT) {
			for (uint64_t at = lo + bytes; at < end; at += bytes) {
				uint64_t psb_end;
				uint64_t psb = sy_psb_before(m, r, lo, at,
							     &psb_end);

				sy_psb_release(m, r, &drop, at);
				if (!psb || psb <= lo)
					continue;
				err = sy_add_piece(u, m, lo, psb, psb_end, first,
						   last);
				if (err)
					goto out;
				lo = psb;
			}
		}
		err = sy_add_piece(u, m, lo, end, end, first, last);
		if (err)
			goto out;
	}
	/* ETM pieces without a seam nearby: slices of the queue's own
	 * decoder, so that memory does not follow their length */
	for (size_t i = 0; cfg->kind == SY_TRACE_ETM && i < u->nr_pieces; i++)
		u->pieces[i].sliced = u->pieces[i].dec_hi - u->pieces[i].lo >
				      SY_SLICE_ABOVE * bytes;
	/* looking for seams and PSBs brought pages of the whole trace in
	 * (a few KiB at every cut, and the kernel's fault-around): let them
	 * go until the decode reads them.  In one drop from the first payload
	 * to the end of the last, not one per payload (an madvise call, each
	 * a TLB flush, per AUX record): the records between payloads, which
	 * the prepass dropped behind it, are only read again, never lost
	 * (sy_pages.h). */
	if (sy_perf_bytes_droppable(r) && m->nr_bufs) {
		uint64_t lo = UINT64_MAX, hi = 0;

		for (size_t i = 0; i < m->nr_bufs; i++) {
			const struct sy_auxbuf *b = &m->bufs[i];

			lo = b->file_off < lo ? b->file_off : lo;
			hi = b->file_off + b->size > hi ? b->file_off + b->size :
							  hi;
		}
		sy_pages_drop(sy_perf_bytes(r, lo, hi - lo), hi - lo);
	}
out:
	sy_pages_batch_flush(&drop);
	return err;
}

void sy_units_walked(struct sy_units *u, const struct sy_auxmap *m,
		     uint64_t rec_off)
{
	/* the queue's records are in file order, and so walked (its CPU's
	 * ring is in time order; a record damage moved back is passed) */
	while (u->walked < m->nr_recs && m->recs[u->walked].rec_off < rec_off)
		u->walked++;
	if (u->walked < m->nr_recs && m->recs[u->walked].rec_off == rec_off)
		u->walked++;
}

void sy_units_walk_end(struct sy_units *u, const struct sy_auxmap *m)
{
	u->walked = m->nr_recs;
}

/* The next piece decoded whole, once the walk read its last record. */
static int sy_units_next_piece(struct sy_units *u,
			       const struct sy_synth_config *cfg,
			       struct sy_unit_task *t)
{
	const struct sy_piece *p;

	if (u->pieces[u->next_piece].last_rec >= u->walked)
		return 0;
	p = &u->pieces[u->next_piece++];
	u->pending++;
	memset(t, 0, sizeof(*t));
	t->lo = p->lo;
	t->hi = p->dec_hi;
	t->aux_lo = p->lo;
	if (cfg->kind == SY_TRACE_PT && p->dec_hi > p->hi)
		t->ext_from = p->hi - p->lo;
	t->t_lo = p->t_lo;
	t->final = 1;
	t->seam_sync = p->has_seam ? p->seam_sync - p->lo : SY_DEC_NO_SEAM;
	t->drop_head = p->after_seam;
	return 1;
}

/* ETM: how far the next slice of piece @p may go, 0 when not yet. */
static uint64_t sy_slice_limit(const struct sy_units *u,
			       const struct sy_auxmap *m,
			       const struct sy_piece *p, uint64_t unit)
{
	const struct sy_stream *st = &u->stream;
	const struct sy_auxrec *r;
	uint64_t limit;

	if (u->walked > p->last_rec) {
		limit = p->dec_hi;
	} else {
		/* one record behind the walk */
		if (u->walked < 2)
			return 0;
		r = &m->recs[u->walked - 2];
		limit = r->aux_off + r->size;
		/* a damaged record may claim bytes far past the piece:
		 * slices never go beyond it, or they would never end */
		if (limit > p->dec_hi || limit < r->aux_off)
			limit = p->dec_hi;
		if (limit <= p->lo + st->sent ||
		    limit - p->lo - st->sent < unit)
			return 0;
	}
	/* a slice hands its stretches over when it ends: not too many */
	if (limit - p->lo - st->sent > unit)
		limit = p->lo + st->sent + unit;
	return limit;
}

/* ETM: the next slice of the current piece, if the walk read enough. */
static int sy_units_next_slice(struct sy_units *u, const struct sy_auxmap *m,
			       const struct sy_synth_config *cfg,
			       const struct sy_perf_reader *r,
			       struct sy_unit_task *t)
{
	struct sy_stream *st = &u->stream;
	struct sy_piece *p;
	uint64_t limit;

	p = &u->pieces[u->next_piece];
	limit = sy_slice_limit(u, m, p, cfg->unit_bytes);
	if (!limit)
		return 0;
	if (st->outstanding >= SY_STREAM_AHEAD)
		return SY_UNITS_WAIT;
	st->outstanding++;
	memset(t, 0, sizeof(*t));
	t->slice = 1;
	t->stream = st;
	t->piece = p;
	t->lo = p->lo;
	t->hi = p->dec_hi;
	t->first = !st->started;
	t->final = limit == p->dec_hi;
	t->seam_sync = p->has_seam ? p->seam_sync - p->lo : SY_DEC_NO_SEAM;
	t->drop_head = t->first && p->after_seam;
	t->limit = limit - p->lo;
	t->aux_lo = p->lo;
	t->t_lo = st->started ? st->t_lo : p->t_lo;
	t->t_hi = m->recs[sy_auxmap_rec_at(m, p->first_rec, p->last_rec,
					   limit - 1)].time;
	if (!st->started) {
		int n = sy_auxmap_chunks(m, r, p->lo, p->dec_hi, &p->chunks,
					 &p->lost);

		if (n < 0)
			return n;
		p->nr_chunks = (size_t)n;
		st->started = 1;
		u->pending++;
	}
	if (t->final) {
		/* the piece is handed out whole: the next slice is the next
		 * piece's first */
		st->started = 0;
		st->sent = 0;
		u->next_piece++;
		return 1;
	}
	/* the next slice's data came after the record before the one
	 * holding its first byte */
	{
		size_t k = sy_auxmap_rec_at(m, p->first_rec, p->last_rec, limit);

		st->t_lo = k ? m->recs[k - 1].time : 0;
	}
	st->sent = limit - p->lo;
	return 1;
}

int sy_units_next(struct sy_units *u, const struct sy_auxmap *m,
		  const struct sy_synth_config *cfg,
		  const struct sy_perf_reader *r, struct sy_unit_task *t)
{
	if (u->next_piece >= u->nr_pieces)
		return 0;
	if (!u->pieces[u->next_piece].sliced)
		return sy_units_next_piece(u, cfg, t);
	return sy_units_next_slice(u, m, cfg, r, t);
}

/* Whether jobs of @u are still to come. */
static int sy_units_more(const struct sy_units *u)
{
	return u->pending || u->next_piece < u->nr_pieces;
}

int sy_units_join(struct sy_units *u, struct sy_stretch **v, size_t *n,
		  uint32_t depth)
{
	struct sy_stretch *nv;
	int err;

	if (u->has_carry && *n && ((*v)[0].flags & SY_SF_CONT)) {
		/* the running stretch goes on in this piece's first */
		if ((err = sy_stretch_append(&u->carry, &(*v)[0], depth)))
			return err;
		(*v)[0] = u->carry;
		u->has_carry = 0;
	} else if (u->has_carry && (*n || !sy_units_more(u))) {
		/* this piece did not go on with it (a job without stretches
		 * leaves it waiting; none comes after the last): it ends
		 * there */
		nv = realloc(*v, (*n + 1) * sizeof(**v));
		if (!nv)
			return -SY_E_NOMEM;
		memmove(nv + 1, nv, *n * sizeof(*nv));
		u->carry.flags &= ~SY_SF_SEAM;
		nv[0] = u->carry;
		*v = nv;
		(*n)++;
		u->has_carry = 0;
	}
	if (*n && ((*v)[*n - 1].flags & SY_SF_SEAM) && sy_units_more(u)) {
		u->carry = (*v)[--*n];
		u->has_carry = 1;
	}
	return 0;
}

void sy_units_done(struct sy_units *u, const struct sy_unit_task *t)
{
	u->stream.outstanding -= t->slice;
	if (!t->slice || !t->final) {
		u->pending -= !t->slice;
		return;
	}
	/* the piece's last slice: every earlier one is done too */
	free(t->piece->chunks);
	t->piece->chunks = NULL;
	t->piece->nr_chunks = 0;
	u->pending--;
}
