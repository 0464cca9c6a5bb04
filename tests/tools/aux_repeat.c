/* aux_repeat -n N IN OUT: a real-shaped long recording from a short one.
 *
 * Each queue's AUX trace (the payloads of its AUXTRACE records, in AUX
 * order) is repeated N times into ONE AUXTRACE record and ONE AUX record,
 * written where the queue's last AUXTRACE and AUX records were; every other
 * record, the attrs and the feature sections are copied as they are.  The
 * result is the shape that makes a converter's memory and speed show: one
 * long stream per CPU, the density of real code (loops of a few
 * instructions), tens of thousands of trace restarts in one record.
 *
 * For recordings without pause samples (the whole trace is converted) in
 * file layout; the trace of a formatted (ETR) queue keeps its 16-byte frame
 * alignment when its length is a multiple of 16, which perf's ETR buffers
 * are.  Used by the memory property test and the benchmarks; never
 * commits anything. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sy_perf_reader.h"
#include "sy_perf_event.h"
#include "sy_perf_writer.h"

#define MAXQ 256

struct q {
	uint32_t cpu, tid;
	uint8_t *bytes;		/* the queue's AUX trace, in AUX order */
	uint64_t len;		/* payload bytes (padded to 8) */
	uint64_t data_len;	/* of which the AUX records cover */
	uint64_t last_aux_off, last_auxtrace_off; /* record file offsets */
	uint8_t aux_rec[256];	/* its last AUX record, verbatim */
	uint16_t aux_rec_len;
	struct sy_ev_auxtrace at;
};

struct st {
	struct q q[MAXQ];
	size_t nq;
};

static struct q *q_of(struct st *s, uint32_t cpu, uint32_t tid)
{
	for (size_t i = 0; i < s->nq; i++)
		if (s->q[i].cpu == cpu && s->q[i].tid == tid)
			return &s->q[i];
	if (s->nq == MAXQ)
		return NULL;
	memset(&s->q[s->nq], 0, sizeof(s->q[0]));
	s->q[s->nq].cpu = cpu;
	s->q[s->nq].tid = tid;
	return &s->q[s->nq++];
}

static int die(const char *what, int err)
{
	fprintf(stderr, "aux_repeat: %s: %s\n", what, sy_errstr(err));
	return 1;
}

/* Pass 1: each queue's trace bytes and where its last records are. */
static int collect(struct sy_perf_reader *r, struct st *s)
{
	struct sy_record rec;
	int err;

	while ((err = sy_perf_next(r, &rec)) == 0) {
		struct sy_event ev;
		struct sy_diag d = { 0 };
		struct q *q;

		if ((rec.type != SY_REC_AUXTRACE && rec.type != SY_REC_AUX) ||
		    sy_event_parse(&rec, &ev, &d))
			continue;
		if (rec.type == SY_REC_AUX) {
			if (!ev.has_sid || rec.size > sizeof(q->aux_rec))
				continue;
			q = q_of(s, ev.sid.cpu,
				 ev.sid.cpu == (uint32_t)-1 ? ev.sid.tid : 0);
			if (!q)
				return -SY_E_LIMIT;
			if (ev.u.aux.aux_offset + ev.u.aux.aux_size > q->data_len)
				q->data_len = ev.u.aux.aux_offset +
					      ev.u.aux.aux_size;
			q->last_aux_off = rec.offset;
			memcpy(q->aux_rec, rec.data, rec.size);
			q->aux_rec_len = rec.size;
			continue;
		}
		q = q_of(s, ev.u.auxtrace.cpu,
			 ev.u.auxtrace.cpu == (uint32_t)-1 ? ev.u.auxtrace.tid : 0);
		if (!q)
			return -SY_E_LIMIT;
		if (ev.u.auxtrace.offset + rec.aux_size > q->len) {
			uint64_t nlen = ev.u.auxtrace.offset + rec.aux_size;
			uint8_t *n = realloc(q->bytes, nlen);

			if (!n)
				return -SY_E_NOMEM;
			memset(n + q->len, 0, nlen - q->len);
			q->bytes = n;
			q->len = nlen;
		}
		memcpy(q->bytes + ev.u.auxtrace.offset, rec.aux, rec.aux_size);
		q->last_auxtrace_off = rec.offset;
		q->at = ev.u.auxtrace;
	}
	if (err != -SY_E_EOS)
		return err;
	/* perf pads each payload to 8 bytes: repeat the trace, not the
	 * padding (zeros would run into the next copy's first packet) */
	for (size_t i = 0; i < s->nq; i++)
		if (s->q[i].data_len && s->q[i].data_len < s->q[i].len)
			s->q[i].len = s->q[i].data_len;
	return 0;
}

static int put_auxtrace(struct sy_pw *w, const struct q *q, uint64_t n)
{
	struct sy_pw_auxtrace a = { 0 };
	uint8_t *big = malloc(q->len * n + 1);
	int err;

	if (!big)
		return -SY_E_NOMEM;
	for (uint64_t i = 0; i < n; i++)
		memcpy(big + i * q->len, q->bytes, q->len);
	a.offset = 0;
	a.reference = q->at.reference;
	a.idx = q->at.idx;
	a.tid = q->at.tid;
	a.cpu = q->at.cpu;
	err = sy_pw_auxtrace(w, &a, big, q->len * n);
	free(big);
	return err;
}

static int put_aux(struct sy_pw *w, const struct q *q, uint64_t n)
{
	uint8_t rec[256];
	uint64_t off = 0, size = q->len * n;

	/* PERF_RECORD_AUX: header, u64 aux_offset, u64 aux_size, u64 flags,
	 * sample_id */
	memcpy(rec, q->aux_rec, q->aux_rec_len);
	memcpy(rec + 8, &off, 8);
	memcpy(rec + 16, &size, 8);
	return sy_pw_raw(w, rec, q->aux_rec_len);
}

/* Pass 2: everything again, the repeated trace where each queue's last
 * records were. */
static int rewrite(struct sy_perf_reader *r, struct st *s, struct sy_pw *w,
		   uint64_t n)
{
	struct sy_record rec;
	int err;

	while ((err = sy_perf_next(r, &rec)) == 0) {
		if (rec.type == SY_REC_AUXTRACE || rec.type == SY_REC_AUX) {
			for (size_t i = 0; i < s->nq; i++) {
				struct q *q = &s->q[i];

				if (rec.offset == q->last_auxtrace_off &&
				    rec.type == SY_REC_AUXTRACE &&
				    (err = put_auxtrace(w, q, n)))
					return err;
				if (rec.offset == q->last_aux_off &&
				    rec.type == SY_REC_AUX && q->aux_rec_len &&
				    (err = put_aux(w, q, n)))
					return err;
			}
			continue;
		}
		if ((rec.flags & SY_RECORD_DECOMPRESSED) ||
		    rec.type == SY_REC_HEADER_ATTR ||
		    rec.type == SY_REC_HEADER_FEATURE ||
		    rec.type == SY_REC_FINISHED_INIT)
			continue;
		if ((err = sy_pw_raw(w, rec.data, rec.size)))
			return err;
	}
	return err == -SY_E_EOS ? 0 : err;
}

/* Attrs and features (raw payloads) as the input has them. */
static int copy_header(const struct sy_perf_reader *r, struct sy_pw *w)
{
	const struct sy_perf_info *info = sy_perf_info(r);
	uint64_t at = info->feat_offset;
	int err;

	for (uint32_t i = 0; i < sy_perf_nr_attrs(r); i++)
		if ((err = sy_pw_add_attr(w, sy_perf_attr(r, i))) < 0)
			return err;
	for (int bit = 0; bit < SY_FEAT_BITS; bit++) {
		const uint8_t *e, *p;
		uint64_t off, len;

		if (!((info->feature_bits[bit / 64] >> (bit % 64)) & 1))
			continue;
		e = sy_perf_bytes(r, at, 16);
		at += 16;
		if (!e)
			return -SY_E_TRUNCATED;
		memcpy(&off, e, 8);
		memcpy(&len, e + 8, 8);
		if (bit == SY_FEAT_AUXTRACE)
			continue; /* the writer indexes its own records */
		p = sy_perf_bytes(r, off, len);
		if (!p)
			return -SY_E_TRUNCATED;
		if ((err = sy_pw_feat_raw(w, bit, p, len)))
			return err;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sy_perf_reader *r = NULL;
	struct sy_pw *w = NULL;
	struct sy_diag d = { 0 };
	static struct st s;
	uint64_t n;
	int err;

	if (argc != 5 || strcmp(argv[1], "-n") || !(n = strtoull(argv[2], NULL, 0))) {
		fprintf(stderr, "usage: aux_repeat -n N IN OUT\n");
		return 2;
	}
	if ((err = sy_perf_open(&r, argv[3], &d)))
		return die(argv[3], err);
	if (sy_perf_info(r)->pipe) {
		fprintf(stderr, "aux_repeat: %s: pipe layout not supported\n",
			argv[3]);
		return 1;
	}
	if ((err = collect(r, &s)))
		return die("collect", err);
	sy_perf_close(r);
	if ((err = sy_perf_open(&r, argv[3], &d)))
		return die(argv[3], err);
	if ((err = sy_pw_alloc(&w, NULL)) || (err = copy_header(r, w)) ||
	    (err = rewrite(r, &s, w, n)) || (err = sy_pw_write_file(w, argv[4])))
		return die(argv[4], err);
	for (size_t i = 0; i < s.nq; i++) {
		fprintf(stderr, "aux_repeat: cpu %d: %" PRIu64 " bytes x %" PRIu64
				" = %" PRIu64 " bytes of trace\n",
			(int)s.q[i].cpu, s.q[i].len, n, s.q[i].len * n);
		free(s.q[i].bytes);
	}
	sy_pw_free(w);
	sy_perf_close(r);
	return 0;
}
