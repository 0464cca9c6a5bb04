/* Records in time order, round by round, as perf delivers them
 * (reorder.h). */
#include <stdlib.h>
#include <string.h>

#include "reorder.h"
#include "sy_perf_abi.h"
#include "sy_vec.h"

/* A queued record: its sort key and where its copy is. */
struct sy_reorder_ent {
	uint64_t time;
	uint64_t seq;
	size_t off;		/* of its copy in buf */
	uint64_t rec_off;	/* sy_record.offset */
	const struct sy_perf_attr *attr;
	uint32_t type, flags;
	uint16_t misc, size;
};

void sy_reorder_init(struct sy_reorder *o, int on, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->on = on;
	o->cap = cap ? cap : SY_REORDER_CAP_DEFAULT;
}

void sy_reorder_fini(struct sy_reorder *o)
{
	if (!o)
		return;
	free(o->ent);
	free(o->out);
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

static uint64_t sy_get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* perf's evsel__parse_sample_timestamp: a sample's TIME follows its
 * IDENTIFIER, IP and TID; another kernel record's is in its sample_id
 * trailer, after TID. */
int sy_reorder_time(const struct sy_record *rec, uint64_t *t)
{
	const struct sy_perf_attr *a = rec->attr;
	uint64_t st;
	size_t off;

	*t = 0;
	if (!a || rec->type >= SY_REC_HEADER_ATTR)
		return 0;
	st = a->sample_type;
	if (!(st & SY_SAMPLE_TIME))
		return 0;
	if (rec->type == SY_REC_SAMPLE) {
		off = SY_PERF_EVENT_HEADER_SIZE +
		      8 * (!!(st & SY_SAMPLE_IDENTIFIER) + !!(st & SY_SAMPLE_IP) +
			   !!(st & SY_SAMPLE_TID));
	} else {
		size_t n = sy_sample_id_size(a);

		if (!n || rec->size < SY_PERF_EVENT_HEADER_SIZE + n)
			return 0;
		off = (size_t)rec->size - n + 8 * !!(st & SY_SAMPLE_TID);
	}
	if ((size_t)rec->size < off + 8)
		return 0;
	*t = sy_get_u64(rec->data + off);
	/* perf: 0 (and -1) is no time; such records go on at once */
	return *t && *t != UINT64_MAX;
}

static int sy_ent_cmp(const void *pa, const void *pb)
{
	const struct sy_reorder_ent *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static size_t sy_pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Drops the released entries (time <= @limit) and moves the copies of
 * the others to the front of buf, in file order. */
static void sy_reorder_compact(struct sy_reorder *o, uint64_t limit)
{
	size_t w = 0, pos = 0;

	for (size_t i = 0; i < o->nr; i++) {
		struct sy_reorder_ent e = o->ent[i];

		if (e.time <= limit)
			continue;
		if (e.off != pos)
			memmove(o->buf + pos, o->buf + e.off, e.size);
		e.off = pos;
		pos += sy_pad8(e.size);
		o->ent[w++] = e;
	}
	o->nr = w;
	o->len = pos;
}

/* Hands out, in (time, file order), every queued record of time <=
 * @limit. */
static int sy_reorder_release(struct sy_reorder *o, uint64_t limit,
			      sy_reorder_fn fn, void *ctx)
{
	size_t n = 0;
	int err = 0;

	for (size_t i = 0; i < o->nr; i++)
		if (o->ent[i].time <= limit)
			n++;
	if (!n)
		return 0;
	if (n > o->cap_out) {
		void *p = realloc(o->out, n * sizeof(*o->out));

		if (!p)
			return -SY_E_NOMEM;
		o->out = p;
		o->cap_out = n;
	}
	n = 0;
	for (size_t i = 0; i < o->nr; i++)
		if (o->ent[i].time <= limit)
			o->out[n++] = o->ent[i];
	qsort(o->out, n, sizeof(*o->out), sy_ent_cmp);
	for (size_t k = 0; k < n && !err; k++) {
		const struct sy_reorder_ent *e = &o->out[k];
		struct sy_record rec;

		memset(&rec, 0, sizeof(rec));
		rec.offset = e->rec_off;
		rec.type = e->type;
		rec.misc = e->misc;
		rec.size = e->size;
		rec.flags = e->flags | SY_RECORD_COPIED;
		rec.data = o->buf + e->off;
		rec.attr = e->attr;
		if (!o->has_released || e->time > o->released)
			o->released = e->time;
		o->has_released = 1;
		err = fn(ctx, &rec);
	}
	/* after an error too: the walk stops, what is left is not wanted */
	sy_reorder_compact(o, limit);
	return err;
}

/* The cap is reached: perf's OE_FLUSH__HALF, the records up to the middle
 * of the span from the oldest queued to the one queued last. */
static int sy_reorder_half(struct sy_reorder *o, sy_reorder_fn fn, void *ctx)
{
	uint64_t first = UINT64_MAX, last = o->last_time;

	for (size_t i = 0; i < o->nr; i++)
		if (o->ent[i].time < first)
			first = o->ent[i].time;
	if (last < first)
		last = first;
	o->forced++;
	return sy_reorder_release(o, first + (last - first) / 2, fn, ctx);
}

static int sy_reorder_queue(struct sy_reorder *o, const struct sy_record *rec,
			    uint64_t t)
{
	struct sy_reorder_ent *e;
	size_t need = o->len + sy_pad8(rec->size);

	if (sy_grow((void **)&o->ent, &o->cap_ent, o->nr, sizeof(*o->ent)))
		return -SY_E_NOMEM;
	if (need > o->cap_buf) {
		size_t c = o->cap_buf ? o->cap_buf : 1 << 16;
		void *p;

		while (c < need)
			c *= 2;
		if (!(p = realloc(o->buf, c)))
			return -SY_E_NOMEM;
		o->buf = p;
		o->cap_buf = c;
	}
	e = &o->ent[o->nr++];
	e->time = t;
	e->seq = o->seq++;
	e->off = o->len;
	e->rec_off = rec->offset;
	e->attr = rec->attr;
	e->type = rec->type;
	e->flags = rec->flags;
	e->misc = rec->misc;
	e->size = rec->size;
	memcpy(o->buf + o->len, rec->data, rec->size);
	o->len = need;
	if (o->has_released && t < o->released)
		o->late++;
	if (t > o->max_time)
		o->max_time = t;
	o->last_time = t;
	o->queued++;
	return 0;
}

int sy_reorder_push(struct sy_reorder *o, const struct sy_record *rec,
		    sy_reorder_fn fn, void *ctx, int *forced)
{
	uint64_t t;
	int err;

	if (forced)
		*forced = 0;
	if (!o->on)
		return fn(ctx, rec);
	if (rec->type == SY_REC_FINISHED_ROUND) {
		/* nothing of a later round is older than the largest time
		 * of the round before this one */
		if (o->seq && (err = sy_reorder_release(o, o->next_flush, fn,
							 ctx)))
			return err;
		o->next_flush = o->max_time;
		return fn(ctx, rec);
	}
	if (!sy_reorder_time(rec, &t))
		return fn(ctx, rec);
	if (o->nr && o->len + sy_pad8(rec->size) +
			     (o->nr + 1) * sizeof(struct sy_reorder_ent) >
		     o->cap) {
		if (forced)
			*forced = 1;
		if ((err = sy_reorder_half(o, fn, ctx)))
			return err;
	}
	return sy_reorder_queue(o, rec, t);
}

int sy_reorder_drain(struct sy_reorder *o, sy_reorder_fn fn, void *ctx)
{
	return sy_reorder_release(o, UINT64_MAX, fn, ctx);
}
