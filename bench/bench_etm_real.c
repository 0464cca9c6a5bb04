/* Real-shaped ETM recordings and what decoding them costs (bench/
 * b_etm_real.sh drives it).
 *
 *   bench_etm_real make IN OUT MIB
 *	Writes OUT (include/sy_perf_writer.h): the records, attrs and header
 *	features of the recording IN (one AUXTRACE record: the simpleperf
 *	captures), with the AUX payload's bytes that its AUX records cover
 *	repeated to at least MIB MiB in that one AUXTRACE record, and one
 *	more AUX record after the last one covering the repetitions.  The
 *	payloads start at an A-Sync, so every copy decodes as the first did:
 *	one long stream of the capture's loop, the shape of dense user code.
 *	Prints "TRACE_BYTES COPIES".
 *
 *   bench_etm_real decode FILE SYMFS VARIANT
 *	Decodes FILE's AUX payload (every AUXTRACE record's, each one stream)
 *	one way, reading code from the binaries its MMAP records name under
 *	SYMFS:
 *	  floor-full     a bare OpenCSD 1.3.3 tree with the full decoder whose
 *	                 element callback counts instructions and taken
 *	                 branches (the floor for any decode through OpenCSD)
 *	  floor-packets  the same tree with packet processors only and a
 *	                 packet sink that counts (no decoder can go below it)
 *	  ours-auto      sy_decoder (src/decode): the fast path
 *	  ours-full      sy_decoder forced to OpenCSD's full decoder
 *	Prints "VARIANT DECODE_S BYTES INSNS BRANCHES" (floor-packets: packets
 *	for instructions, 0 branches); DECODE_S is the decode alone, without
 *	reading the file.
 *
 *   bench_etm_real snapshot DIR MIB VARIANT
 *	The same on an OpenCSD snapshot directory: its trace buffer repeated
 *	to at least MIB MiB (in memory), its memory dumps for code.
 *
 *   bench_etm_real session FILE SYMFS auto|full THREADS
 *	The product's session (src/synth: prepass, decode, windows, stacks)
 *	on FILE with --format lbr's whole-trace windows, output not written,
 *	for the decoder choice the CLI does not offer yet.  Prints
 *	"session-DECODER-jTHREADS CPU_S WALL_S BYTES INSNS BRANCHES".
 *
 * Nothing is asserted about time.
 */
#include <inttypes.h>
#include <opencsd/c_api/opencsd_c_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sy_auxtrace.h"
#include "sy_decode.h"
#include "sy_image.h"
#include "sy_perf_reader.h"
#include "sy_perf_event.h"
#include "sy_perf_writer.h"
#include "sy_synth.h"

#include "decode/etm_ocsd.h"

/* The snapshot reader and the sources from AUXTRACE_INFO are test-side
 * code (tests/lib) that the bench build does not link: compile them in,
 * with the file reader the first needs from the test library. */
static uint8_t *sy_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = buf ? (size_t)n : 0;
	return buf;
}

#define SY_SNAP_STANDALONE
#include "../tests/lib/sy_snapshot.c"
#include "../tests/lib/sy_etm_sources.c"

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_etm_real: %s: %s\n", what, sy_errname(err));
	exit(1);
}

/* ---- make ---- */

/* The header features of @r, as recorded, but AUXTRACE (the writer makes
 * the index of the records it writes). */
static void copy_features(const struct sy_perf_reader *r, struct sy_pw *w)
{
	const struct sy_perf_info *in = sy_perf_info(r);
	uint64_t at = in->feat_offset;

	for (int bit = 0; bit < SY_FEAT_BITS; bit++) {
		const uint8_t *ent, *body;
		uint64_t off, len;

		if (!((in->feature_bits[bit / 64] >> (bit % 64)) & 1))
			continue;
		ent = sy_perf_bytes(r, at, 16);
		at += 16;
		if (!ent || bit == SY_FEAT_AUXTRACE)
			continue;
		memcpy(&off, ent, 8);
		memcpy(&len, ent + 8, 8);
		body = sy_perf_bytes(r, off, len);
		if (body && sy_pw_feat_raw(w, bit, body, len) < 0)
			die("feature", -SY_E_INVALID);
	}
}

static int cmd_make(const char *in, const char *out, uint64_t mib)
{
	struct sy_perf_reader *r;
	struct sy_record rec;
	struct sy_pw *w;
	uint64_t covered = 0, last_aux = 0, n_aux = 0, copies, total;
	uint8_t *rep = NULL;
	int err;

	if ((err = sy_perf_open(&r, in, NULL)) < 0)
		die(in, err);
	/* what the AUX records cover, and where the last one is */
	while ((err = sy_perf_next(r, &rec)) == 0) {
		struct sy_event ev;

		if (rec.type != SY_REC_AUX || sy_event_parse(&rec, &ev, NULL))
			continue;
		if (ev.u.aux.aux_offset + ev.u.aux.aux_size > covered)
			covered = ev.u.aux.aux_offset + ev.u.aux.aux_size;
		last_aux = rec.offset;
		n_aux++;
	}
	sy_perf_close(r);
	if (!covered)
		die("no AUX record covers any trace", -SY_E_INVALID);
	copies = ((mib << 20) + covered - 1) / covered;
	total = copies * covered;

	if ((err = sy_perf_open(&r, in, NULL)) < 0)
		die(in, err);
	if ((err = sy_pw_alloc(&w, NULL)) < 0)
		die("writer", err);
	for (uint32_t i = 0; i < sy_perf_nr_attrs(r); i++) {
		struct sy_perf_attr a = *sy_perf_attr(r, i);

		a.size = 0;	/* perf 6.1's 128 */
		if ((err = sy_pw_add_attr(w, &a)) < 0)
			die("attr", err);
	}
	copy_features(r, w);
	while ((err = sy_perf_next(r, &rec)) == 0) {
		struct sy_event ev;

		if (rec.type == SY_REC_AUXTRACE) {
			struct sy_pw_auxtrace a;

			if (sy_event_parse(&rec, &ev, NULL) || !rec.aux ||
			    rec.aux_size < covered || rep)
				die("one AUXTRACE record holding the AUX data "
				    "expected", -SY_E_UNSUPPORTED);
			rep = malloc(total);
			if (!rep)
				die("repeat", -SY_E_NOMEM);
			for (uint64_t k = 0; k < copies; k++)
				memcpy(rep + k * covered, rec.aux, covered);
			memset(&a, 0, sizeof(a));
			a.offset = ev.u.auxtrace.offset;
			a.reference = ev.u.auxtrace.reference;
			a.idx = ev.u.auxtrace.idx;
			a.tid = ev.u.auxtrace.tid;
			a.cpu = ev.u.auxtrace.cpu;
			err = sy_pw_auxtrace(w, &a, rep, total);
		} else {
			err = sy_pw_record(w, rec.type, rec.misc, rec.data + 8,
					   rec.size - 8u);
		}
		if (err < 0)
			die("record", err);
		if (rec.type == SY_REC_AUX && rec.offset == last_aux) {
			/* the repetitions: one more AUX record */
			uint8_t body[65536];
			uint64_t off = covered, size = total - covered;

			memcpy(body, rec.data + 8, rec.size - 8u);
			memcpy(body, &off, 8);
			memcpy(body + 8, &size, 8);
			if ((err = sy_pw_record(w, rec.type, rec.misc, body,
						rec.size - 8u)) < 0)
				die("AUX", err);
		}
	}
	if (err != -SY_E_EOS)
		die(in, err);
	if (!rep)
		die("no AUXTRACE record", -SY_E_UNSUPPORTED);
	if ((err = sy_pw_write_file(w, out)) < 0)
		die(out, err);
	printf("%" PRIu64 " %" PRIu64 "\n", total, copies);
	free(rep);
	sy_pw_free(w);
	sy_perf_close(r);
	return 0;
}

/* ---- the recording's trace and code ---- */

struct b_map {
	uint64_t start, end, pgoff;
	struct sy_image *img;
};

struct b_stream {
	uint8_t *data;
	uint64_t len;
	int formatted;
	uint32_t cpu;
};

struct b_rec {
	struct b_map *map;
	size_t nmap;
	struct b_stream *st;
	size_t nst;
	struct sy_etm_source src[64];
	size_t nsrc;
	/* code: the recording's mappings, or a snapshot's dumps */
	sy_read_mem_fn read;
	void *read_ctx;
};

static void add_map(struct b_rec *b, const struct sy_ev_mmap *m,
		    const char *symfs)
{
	char path[4096];
	struct sy_image *img;

	if (m->is_mmap2 && !(m->prot & 4))	/* PROT_EXEC */
		return;
	snprintf(path, sizeof(path), "%s/%s", symfs, m->filename);
	if (sy_image_open(&img, path, NULL) < 0)
		return;		/* not there: not traced code */
	b->map = realloc(b->map, (b->nmap + 1) * sizeof(*b->map));
	if (!b->map)
		die("map", -SY_E_NOMEM);
	b->map[b->nmap].start = m->addr;
	b->map[b->nmap].end = m->addr + m->len;
	b->map[b->nmap].pgoff = m->pgoff;
	b->map[b->nmap++].img = img;
}

static struct b_stream *add_stream(struct b_rec *b, uint64_t len)
{
	struct b_stream *st;

	b->st = realloc(b->st, (b->nst + 1) * sizeof(*b->st));
	if (!b->st)
		die("stream", -SY_E_NOMEM);
	st = &b->st[b->nst++];
	memset(st, 0, sizeof(*st));
	st->data = malloc(len ? len : 1);
	if (!st->data)
		die("stream", -SY_E_NOMEM);
	st->len = len;
	return st;
}

/* Code at runtime address @addr, as the recording mapped it. */
static size_t map_read(void *ctx, uint32_t ctxid, uint64_t addr,
		       uint8_t *buf, size_t len)
{
	const struct b_rec *b = ctx;

	(void)ctxid;
	for (size_t i = 0; i < b->nmap; i++) {
		const struct b_map *m = &b->map[i];
		const uint8_t *p;
		size_t avail;

		if (addr < m->start || addr >= m->end)
			continue;
		p = sy_image_code_off(m->img, addr - m->start + m->pgoff,
				      &avail);
		if (!p)
			return 0;
		if (avail > m->end - addr)
			avail = (size_t)(m->end - addr);
		if (avail > len)
			avail = len;
		memcpy(buf, p, avail);
		return avail;
	}
	return 0;
}

static void load(struct b_rec *b, const char *file, const char *symfs)
{
	struct sy_perf_reader *r;
	struct sy_record rec;
	struct sy_auxtrace_info info;
	int raw = 0, err;

	memset(b, 0, sizeof(*b));
	b->read = map_read;
	b->read_ctx = b;
	if ((err = sy_perf_open(&r, file, NULL)) < 0)
		die(file, err);
	while ((err = sy_perf_next(r, &rec)) == 0) {
		struct sy_event ev;
		struct b_stream *st;

		if (sy_event_parse(&rec, &ev, NULL))
			continue;
		switch (rec.type) {
		case SY_REC_MMAP: case SY_REC_MMAP2:
			add_map(b, &ev.u.mmap, symfs);
			break;
		case SY_REC_AUX:
			raw |= (ev.u.aux.flags & SY_AUX_FLAG_CORESIGHT_RAW) != 0;
			break;
		case SY_REC_AUXTRACE_INFO:
			if (sy_auxtrace_info_parse(&info, &ev.u.auxtrace_info,
						   rec.offset, NULL) == 0) {
				b->nsrc = sy_test_etm_sources(&info.u.etm,
							      b->src, 64);
				sy_auxtrace_info_fini(&info);
			}
			break;
		case SY_REC_AUXTRACE:
			if (!rec.aux)
				break;
			st = add_stream(b, rec.aux_size);
			memcpy(st->data, rec.aux, rec.aux_size);
			st->cpu = ev.u.auxtrace.cpu;
			break;
		default:
			break;
		}
	}
	for (size_t i = 0; i < b->nst; i++)
		b->st[i].formatted = !raw;
	sy_perf_close(r);
	if (!b->nst || !b->nsrc)
		die("no ETM trace", -SY_E_UNSUPPORTED);
}

/* The sources a stream decodes: a raw one only its CPU's. */
static size_t stream_sources(const struct b_rec *b, const struct b_stream *st,
			     const struct sy_etm_source **out)
{
	size_t n = 0;

	for (size_t i = 0; i < b->nsrc; i++)
		if (st->formatted || b->src[i].cpu == st->cpu)
			out[n++] = &b->src[i];
	return n;
}

/* ---- the floors ---- */

struct b_count {
	const struct b_rec *b;
	uint64_t insns, branches;
};

static uint32_t floor_mem(const void *ctx, const ocsd_vaddr_t addr,
			  const ocsd_mem_space_acc_t space, const uint8_t id,
			  const uint32_t req, uint8_t *buf)
{
	const struct b_count *c = ctx;

	(void)space;
	(void)id;
	return (uint32_t)c->b->read(c->b->read_ctx, 0, addr, buf, req);
}

static ocsd_datapath_resp_t floor_elem(const void *ctx,
				       const ocsd_trc_index_t idx,
				       const uint8_t id,
				       const ocsd_generic_trace_elem *e)
{
	struct b_count *c = (struct b_count *)(uintptr_t)ctx;

	(void)idx;
	(void)id;
	if (e->elem_type == OCSD_GEN_TRC_ELEM_INSTR_RANGE) {
		c->insns += e->num_instr_range;
		c->branches += e->last_instr_exec &&
			       (e->last_i_type == OCSD_INSTR_BR ||
				e->last_i_type == OCSD_INSTR_BR_INDIRECT);
	}
	return OCSD_RESP_CONT;
}

static ocsd_datapath_resp_t floor_pkt(const void *ctx,
				      const ocsd_datapath_op_t op,
				      const ocsd_trc_index_t idx,
				      const void *pkt)
{
	struct b_count *c = (struct b_count *)(uintptr_t)ctx;

	(void)idx;
	(void)pkt;
	c->insns += op == OCSD_OP_DATA;	/* packets */
	return OCSD_RESP_CONT;
}

/* One stream through a tree of decoders (@full) or packet processors. */
static void floor_stream(const struct b_rec *b, const struct b_stream *st,
			 int full, struct b_count *c)
{
	const struct sy_etm_source *src[64];
	size_t n = stream_sources(b, st, src);
	dcd_tree_handle_t dt = sy_etm_ocsd_tree(st->formatted);
	uint64_t at = 0;

	if (dt == C_API_INVALID_TREE_HANDLE)
		die("tree", -SY_E_NOMEM);
	for (size_t i = 0; i < n; i++) {
		unsigned char csid;

		if (full ? sy_etm_ocsd_add_decoder(dt, src[i], &csid)
			 : sy_etm_ocsd_add_pkt_proc(dt, src[i], src[i]->trace_id,
						 floor_pkt, c))
			die("decoder", -SY_E_DECODE);
	}
	if (full &&
	    (ocsd_dt_add_callback_trcid_mem_acc(dt, 0, ETM_MEM_TOP,
						OCSD_MEM_SPACE_ANY, floor_mem,
						c) != OCSD_OK ||
	     ocsd_dt_set_gen_elem_outfn(dt, floor_elem, c) != OCSD_OK))
		die("tree", -SY_E_DECODE);
	while (at < st->len) {
		uint32_t n32 = st->len - at > (1u << 20)
				       ? (1u << 20)
				       : (uint32_t)(st->len - at);
		uint32_t used = 0;
		ocsd_datapath_resp_t r =
			ocsd_dt_process_data(dt, OCSD_OP_DATA,
					     (ocsd_trc_index_t)at, n32,
					     st->data + at, &used);

		if (OCSD_DATA_RESP_IS_FATAL(r) || !used) {
			/* as the product does: start over after them */
			ocsd_dt_process_data(dt, OCSD_OP_RESET, 0, 0, NULL,
					     NULL);
			used = used ? used : 1;
		}
		at += used;
	}
	ocsd_dt_process_data(dt, OCSD_OP_EOT, 0, 0, NULL, NULL);
	ocsd_destroy_dcd_tree(dt);
}

/* ---- ours ---- */

static void ours_stream(const struct b_rec *b, const struct b_stream *st,
			enum sy_etm_decoder how, struct b_count *c)
{
	const struct sy_etm_source *one[64];
	struct sy_dec_params p;
	struct sy_decoder *d;
	struct sy_dec_chunk ch = { st->data, st->len };
	struct sy_dec_item *v;
	size_t n;
	int err;

	memset(&p, 0, sizeof(p));
	p.kind = SY_TRACE_ETM;
	p.read_mem = b->read;
	p.mem_ctx = b->read_ctx;
	p.u.etm.formatted = st->formatted;
	p.u.etm.sources = b->src;
	p.u.etm.nr_sources = b->nsrc;
	p.u.etm.decoder = how;
	if (!st->formatted) {
		if (!stream_sources(b, st, one))
			return;
		p.u.etm.trace_id = one[0]->trace_id;
	}
	if ((err = sy_decoder_alloc(&d, &p)) < 0 ||
	    (err = sy_decoder_reset(d, &ch, 1, 0)) < 0)
		die("decoder", err);
	/* items in place, as convert's decode loop takes them (jobs.c): an
	 * atom run's branches in one item; advance() counts each */
	while ((err = sy_decoder_peek(d, &v, &n)) == 0)
		sy_decoder_advance(d, n);
	if (err != -SY_E_EOS)
		die("decode", err);
	c->insns += sy_decoder_stats(d)->insns;
	c->branches += sy_decoder_stats(d)->branches;
	sy_decoder_free(d);
}

static int run_variant(const struct b_rec *b, const char *variant)
{
	static const char *const names[4] = {
		"floor-full", "floor-packets", "ours-auto", "ours-full",
	};
	struct b_count c = { b, 0, 0 };
	uint64_t bytes = 0;
	double t;
	int v = 0;

	while (v < 4 && strcmp(variant, names[v]))
		v++;
	if (v == 4) {
		fprintf(stderr, "bench_etm_real: no variant %s\n", variant);
		return 2;
	}
	t = now(CLOCK_MONOTONIC);
	for (size_t i = 0; i < b->nst; i++) {
		bytes += b->st[i].len;
		if (v < 2)
			floor_stream(b, &b->st[i], v == 0, &c);
		else
			ours_stream(b, &b->st[i],
				    v == 2 ? SY_ETM_DECODER_AUTO
					   : SY_ETM_DECODER_FULL,
				    &c);
	}
	printf("%s %.3f %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", names[v],
	       now(CLOCK_MONOTONIC) - t, bytes, c.insns, c.branches);
	return 0;
}

static int cmd_decode(const char *file, const char *symfs,
		      const char *variant)
{
	struct b_rec b;
	int ret;

	load(&b, file, symfs);
	ret = run_variant(&b, variant);
	for (size_t i = 0; i < b.nmap; i++)
		sy_image_close(b.map[i].img);
	for (size_t i = 0; i < b.nst; i++)
		free(b.st[i].data);
	free(b.map);
	free(b.st);
	return ret;
}

static int cmd_snapshot(const char *dir, uint64_t mib, const char *variant)
{
	struct sy_snap snap;
	struct b_rec b;
	struct b_stream *st;
	uint64_t copies;
	int ret;

	sy_snap_load(dir, &snap);
	memset(&b, 0, sizeof(b));
	b.read = sy_snap_read;
	b.read_ctx = &snap;
	for (size_t i = 0; i < snap.nsrc && i < 64; i++) {
		b.src[i] = snap.src[i];
		b.src[i].trace_id = (uint8_t)(snap.src[i].trctraceidr & 0x7f);
		b.src[i].cpu = (uint32_t)i;
		b.nsrc++;
	}
	copies = ((mib << 20) + snap.trace_len - 1) / snap.trace_len;
	st = add_stream(&b, copies * snap.trace_len);
	for (uint64_t k = 0; k < copies; k++)
		memcpy(st->data + k * snap.trace_len, snap.trace,
		       snap.trace_len);
	st->formatted = snap.formatted;
	ret = run_variant(&b, variant);
	free(st->data);
	free(b.st);
	sy_snap_free(&snap);
	return ret;
}

/* ---- session ---- */

static int no_window(void *ctx, const struct sy_window *w)
{
	(void)ctx;
	(void)w;
	return 0;
}

static int cmd_session(const char *file, const char *symfs, const char *how,
		       unsigned threads)
{
	struct sy_session_opts o;
	struct sy_session *s;
	struct sy_diag d = { 0 };
	const struct sy_session_summary *m;
	double cpu, wall;
	int err;

	sy_session_opts_init(&o);
	o.input = file;
	o.threads = threads;
	o.images.symfs = symfs;
	o.whole_trace = 1;	/* convert --format lbr without pause samples */
	o.etm_decoder = strcmp(how, "full") == 0 ? SY_ETM_DECODER_FULL
						 : SY_ETM_DECODER_AUTO;
	cpu = now(CLOCK_PROCESS_CPUTIME_ID);
	wall = now(CLOCK_MONOTONIC);
	if ((err = sy_session_open(&s, &o, &d)) < 0)
		die(d.msg, err);
	if ((err = sy_session_run(s, no_window, NULL)) < 0)
		die("run", err);
	m = sy_session_summary(s);
	printf("session-%s-j%u %.3f %.3f %" PRIu64 " %" PRIu64 " %" PRIu64
	       "\n", how, threads, now(CLOCK_PROCESS_CPUTIME_ID) - cpu,
	       now(CLOCK_MONOTONIC) - wall, m->bytes, m->insns, m->branches);
	sy_session_close(s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "make") == 0)
		return cmd_make(argv[2], argv[3], strtoull(argv[4], NULL, 0));
	if (argc == 5 && strcmp(argv[1], "decode") == 0)
		return cmd_decode(argv[2], argv[3], argv[4]);
	if (argc == 5 && strcmp(argv[1], "snapshot") == 0)
		return cmd_snapshot(argv[2], strtoull(argv[3], NULL, 0),
				    argv[4]);
	if (argc == 6 && strcmp(argv[1], "session") == 0)
		return cmd_session(argv[2], argv[3], argv[4],
				   (unsigned)strtoul(argv[5], NULL, 0));
	fprintf(stderr, "usage: bench_etm_real make IN OUT MIB\n"
			"       bench_etm_real decode FILE SYMFS VARIANT\n"
			"       bench_etm_real snapshot DIR MIB VARIANT\n"
			"       bench_etm_real session FILE SYMFS auto|full "
			"THREADS\n");
	return 2;
}
