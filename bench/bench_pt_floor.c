/* Intel PT packet-only floor (issue 25): libipt's packet decoder
 * (pt_pkt_sync_forward / pt_pkt_next) over the AUX bytes of a recording,
 * nothing else: no image, no instruction decode.  No decoder that follows
 * the trace's packets can be faster, so a walk over a block cache is
 * measured against this, not against pt_blk_next (bench_pt_decode).
 *
 * usage: bench_pt_floor ROUNDS FILE...
 *	FILE is a perf.data (its AUXTRACE payloads, each record one stream)
 *	or, when it is not one, a raw PT byte stream (e.g. the AUX data
 *	extracted from a capture).  Every stream is decoded ROUNDS times; the
 *	best round counts (the machine is shared).
 * Prints one line: "SECONDS BYTES PACKETS TNT_BITS TNT_TAKEN TIPS QSECONDS"
 * where SECONDS is the best round's time over all streams, TNT_TAKEN the
 * taken bits of the TNT packets and TIPS the TIP packets (not TIP.PGE/PGD):
 * taken conditional branches plus indirect transfers and uncompressed
 * returns, i.e. the taken branches the packets carry apart from direct
 * jumps and calls, which the packets do not name.  QSECONDS is the same
 * for libipt's query decoder alone (f_qry_stream), the floor of a walk
 * that takes its TNT bits, TIP targets, events and time from the query
 * decoder, as libipt's block decoder does.  Nothing is asserted.
 */
#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sy_error.h"
#include "sy_perf_reader.h"

struct f_stream {
	uint8_t *data;
	size_t len;
};

struct f_set {
	struct f_stream *st;
	size_t n, cap;
	uint64_t bytes;
};

struct f_count {
	uint64_t packets, tnt_bits, tnt_taken, tips;
};

static double f_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int f_add(struct f_set *s, const uint8_t *p, size_t len)
{
	struct f_stream *st;

	if (!len)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		void *nst = realloc(s->st, cap * sizeof(*s->st));

		if (!nst)
			return -1;
		s->st = nst;
		s->cap = cap;
	}
	st = &s->st[s->n];
	st->data = malloc(len);
	if (!st->data)
		return -1;
	memcpy(st->data, p, len);
	st->len = len;
	s->n++;
	s->bytes += len;
	return 0;
}

/* A perf.data's AUXTRACE payloads; 1 when FILE is not a perf.data. */
static int f_load_perf(struct f_set *s, const char *file)
{
	struct sy_perf_reader *r;
	struct sy_record rec;
	int err;

	if (sy_perf_open(&r, file, NULL) < 0)
		return 1;
	while ((err = sy_perf_next(r, &rec)) == 0) {
		if (rec.type == SY_REC_AUXTRACE && rec.aux &&
		    f_add(s, rec.aux, (size_t)rec.aux_size))
			break;
	}
	sy_perf_close(r);
	return err == -SY_E_EOS ? 0 : -1;
}

static int f_load_raw(struct f_set *s, const char *file)
{
	FILE *f = fopen(file, "rb");
	uint8_t *buf = NULL;
	long len;
	int err = -1;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len)) &&
	    fread(buf, 1, (size_t)len, f) == (size_t)len)
		err = f_add(s, buf, (size_t)len);
	free(buf);
	fclose(f);
	return err;
}

static void f_packet(const struct pt_packet *p, struct f_count *c)
{
	c->packets++;
	switch (p->type) {
	case ppt_tnt_8:
	case ppt_tnt_64:
		c->tnt_bits += p->payload.tnt.bit_size;
		c->tnt_taken += (uint64_t)__builtin_popcountll(
			p->payload.tnt.payload);
		break;
	case ppt_tip:
		c->tips++;
		break;
	default:
		break;
	}
}

/* One stream: sync, then every packet; after an error the decoder syncs
 * to the next PSB, as a trace reader would. */
static int f_stream(const struct f_stream *st, struct f_count *c)
{
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	int e;

	pt_config_init(&cfg);
	cfg.begin = st->data;
	cfg.end = st->data + st->len;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return -1;
	for (e = pt_pkt_sync_forward(dec); e >= 0;
	     e = pt_pkt_sync_forward(dec)) {
		struct pt_packet p;

		while ((e = pt_pkt_next(dec, &p, sizeof(p))) >= 0)
			f_packet(&p, c);
		if (e == -pte_eos)
			break;
	}
	pt_pkt_free_decoder(dec);
	return e == -pte_eos ? 0 : -1;
}

/* One stream through libipt's query decoder (pt_qry_*), no image: every
 * TNT bit, TIP and event is asked for.  Without code nothing says which
 * query comes next: a TNT bit is asked for first, a TIP when libipt says
 * the next packet is none (-pte_bad_query, without moving).  After an
 * error the decoder syncs to the next PSB.  Returns 0, -1 when the decoder
 * cannot be made. */
static int f_qry_stream(const struct f_stream *st, uint64_t *answers)
{
	struct pt_query_decoder *dec;
	struct pt_config cfg;
	uint64_t ip;
	int e;

	pt_config_init(&cfg);
	cfg.begin = st->data;
	cfg.end = st->data + st->len;
	dec = pt_qry_alloc_decoder(&cfg);
	if (!dec)
		return -1;
	for (e = pt_qry_sync_forward(dec, &ip); e >= 0;
	     e = pt_qry_sync_forward(dec, &ip)) {
		for (;;) {
			struct pt_event ev;
			int taken, q;

			while (e >= 0 && (e & pts_event_pending)) {
				e = pt_qry_event(dec, &ev, sizeof(ev));
				++*answers;
			}
			if (e < 0 || (e & pts_eos))
				break;
			q = pt_qry_cond_branch(dec, &taken);
			if (q < 0)
				q = pt_qry_indirect_branch(dec, &ip);
			if (q < 0)
				break;
			++*answers;
			e = q;
		}
	}
	pt_qry_free_decoder(dec);
	return 0;
}

int main(int argc, char **argv)
{
	struct f_set s = { 0 };
	struct f_count c = { 0 };
	double best = 1e30, qbest = 1e30;
	uint64_t answers = 0;	/* the query decoder's, unused */
	int rounds, i, err = 0;

	if (argc < 3 || (rounds = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: bench_pt_floor ROUNDS FILE...\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		int r = f_load_perf(&s, argv[i]);

		if (r == 1)
			r = f_load_raw(&s, argv[i]);
		if (r) {
			fprintf(stderr, "bench_pt_floor: %s: cannot read\n",
				argv[i]);
			return 1;
		}
	}
	if (!s.n) {
		fprintf(stderr, "bench_pt_floor: no PT trace\n");
		return 5;
	}
	for (i = 0; i < rounds && !err; i++) {
		double t0 = f_now();

		memset(&c, 0, sizeof(c));
		for (size_t k = 0; k < s.n && !err; k++)
			err = f_stream(&s.st[k], &c);
		t0 = f_now() - t0;
		if (t0 < best)
			best = t0;
		t0 = f_now();
		for (size_t k = 0; k < s.n && !err; k++)
			err = f_qry_stream(&s.st[k], &answers);
		t0 = f_now() - t0;
		if (t0 < qbest)
			qbest = t0;
	}
	for (size_t k = 0; k < s.n; k++)
		free(s.st[k].data);
	free(s.st);
	if (err) {
		fprintf(stderr, "bench_pt_floor: packet decode failed\n");
		return 4;
	}
	printf("%.6f %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
	       " %.6f\n", best, s.bytes, c.packets, c.tnt_bits, c.tnt_taken,
	       c.tips, qbest);
	return 0;
}
