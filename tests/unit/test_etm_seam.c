/* Cutting one ETM stream into pieces decoded apart (sy_decode_etm_seam,
 * sy_decoder_set_seam in sy_decode.h): for random cuts of real-shaped
 * streams, the pieces' items joined by the documented rule are the items
 * of the uncut decode, field for field (offsets of a piece count from its
 * cut).  Both decoders (fast path and full), raw and formatted data:
 *   - streams encoded from the ground truth of a fixture program
 *     (tests/fixtures/truth) with frequent resynchronisation, timestamps,
 *     context IDs and overflows, raw (ETMv4, ETE) and as CoreSight frames
 *     interleaving two trace IDs (a seam per ID);
 *   - the AUX trace of the real captures in ../shared/fixtures/real/
 *     simpleperf-etm (ETE raw, ETMv4 formatted) over their binary;
 *   - the OpenCSD snapshots (juno-uname-002: six IDs in one ETB buffer;
 *     the ETE ones, raw).
 * A cut that sy_decode_etm_seam refuses is counted, never skipped
 * silently: every stream must give usable cuts.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_csfmt.h"
#include "fx_etm.h"
#include "fx_truth.h"
#include "sy_auxtrace.h"
#include "sy_bytes.h"
#include "sy_decode.h"
#include "sy_etm_sources.h"
#include "sy_image.h"
#include "sy_perf_reader.h"
#include "sy_perf_event.h"
#include "sy_snapshot.h"
#include "sy_test.h"

struct items {
	struct sy_dec_item *v;
	size_t n, cap;
};

static void items_add(struct items *l, const struct sy_dec_item *it,
		      uint64_t base)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		cr_assert_not_null(l->v);
	}
	l->v[l->n] = *it;
	l->v[l->n++].offset += base;
}

/* Decodes [lo, hi) of @data with a fresh decoder; items (offsets from 0 of
 * @data) are appended to @out from the @skip-th on.  Returns whether the
 * seam was reached. */
static int decode(const struct sy_dec_params *p, const uint8_t *data,
		  uint64_t lo, uint64_t hi, uint64_t seam, struct items *out,
		  int skip_prefix)
{
	struct sy_decoder *d;
	struct sy_dec_chunk ch = { data + lo, (size_t)(hi - lo) };
	struct sy_dec_item it;
	struct sy_dec_seam sm;
	uint64_t first = UINT64_MAX;
	int err, dropping = skip_prefix;

	cr_assert_eq(sy_decoder_alloc(&d, p), 0);
	cr_assert_eq(sy_decoder_set_seam(d, seam), 0);
	cr_assert_eq(sy_decoder_reset(d, &ch, 1, 0), 0);
	while ((err = sy_decoder_next(d, &it)) == 0) {
		/* the join rule: the piece after drops its items up to its
		 * first START or ERROR, and those that follow it from
		 * earlier bytes */
		if (dropping) {
			if (first == UINT64_MAX &&
			    (it.kind == SY_DEC_START || it.kind == SY_DEC_ERROR)) {
				first = it.offset;
				continue;
			}
			if (first == UINT64_MAX || it.offset < first)
				continue;
			dropping = 0;
		}
		items_add(out, &it, lo);
	}
	cr_assert_eq(err, -SY_E_EOS);
	cr_assert_eq(sy_decoder_seam(d, &sm), 0);
	sy_decoder_free(d);
	return sm.reached;
}

static void same(const struct items *a, const struct items *b,
		 const char *what)
{
	size_t n = a->n < b->n ? a->n : b->n;

	for (size_t i = 0; i < n; i++) {
		const struct sy_dec_item *x = &a->v[i], *y = &b->v[i];

		cr_assert(x->kind == y->kind && x->br == y->br &&
				  x->exc == y->exc && x->code == y->code &&
				  x->from == y->from && x->to == y->to &&
				  x->time == y->time && x->ninsn == y->ninsn &&
				  x->offset == y->offset,
			  "%s: item %zu of %zu: %s %#" PRIx64 "->%#" PRIx64
			  " @%" PRIu64 " n %" PRIu64 ", uncut %s %#" PRIx64
			  "->%#" PRIx64 " @%" PRIu64 " n %" PRIu64,
			  what, i, b->n, sy_dec_kind_name(x->kind), x->from,
			  x->to, x->offset, x->ninsn, sy_dec_kind_name(y->kind),
			  y->from, y->to, y->offset, y->ninsn);
	}
	cr_assert_eq(a->n, b->n, "%s: %zu items joined, %zu uncut", what, a->n,
		     b->n);
}

struct rng {
	uint64_t s;
};

/* xorshift64*: any fixed sequence does */
static uint64_t rnd(struct rng *r, uint64_t n)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return n ? (r->s * 0x2545f4914f6cdd1dull >> 11) % n : 0;
}

struct tally {
	size_t joins, cuts, refused, unsupported;
};

/* Random cuts of @data, decoded as pieces and joined, against the uncut
 * decode, with both decoders. */
static void check_stream(const struct sy_dec_params *p0, const uint8_t *data,
			 size_t len, unsigned trials, uint64_t seed,
			 const char *what, struct tally *t)
{
	struct rng r = { seed | 1 };
	uint64_t align = p0->u.etm.formatted ? 16 : 1, a, b;

	/* a trace unit with speculation: elements wait uncommitted across
	 * a synchronisation, no seam is exact */
	if (sy_decode_etm_seam(p0, data, len, 0, &a, &b) == -SY_E_UNSUPPORTED) {
		cr_assert_neq(p0->u.etm.sources[0].trcidr8, 0u);
		t->unsupported++;
		return;
	}
	for (int dec = 0; dec < 2; dec++) {
		struct sy_dec_params p = *p0;
		struct items whole = { 0 };

		p.u.etm.decoder = dec ? SY_ETM_DECODER_FULL : SY_ETM_DECODER_AUTO;
		decode(&p, data, 0, len, SY_DEC_NO_SEAM, &whole, 0);
		for (unsigned k = 0; k < trials; k++) {
			uint64_t cut[5], sync[5], seam[5];
			unsigned m = 0, want = 1 + (unsigned)rnd(&r, 4), tries = 0;
			struct items joined = { 0 };
			char why[160];

			cut[0] = 0;
			seam[0] = 0;
			while (m < want && tries++ < 20) {
				uint64_t lo = m ? seam[m] : 0;
				uint64_t c = lo + rnd(&r, (len - lo) / (want - m) + 1);
				int err;

				c = (c + align - 1) / align * align;
				if (c >= len)
					break;
				t->cuts++;
				err = sy_decode_etm_seam(&p, data, len, c,
							 &sync[m + 1],
							 &seam[m + 1]);
				if (err == -SY_E_DECODE || err == -SY_E_EOS) {
					t->refused++;
					if (err == -SY_E_EOS)
						break;
					continue;
				}
				cr_assert_eq(err, 0, "%s: seam at %" PRIu64, what,
					     c);
				cr_assert_leq(c, sync[m + 1]);
				cr_assert_lt(sync[m + 1], seam[m + 1]);
				cut[++m] = c;
			}
			for (unsigned i = 0; i <= m; i++) {
				uint64_t hi = i < m ? seam[i + 1] : len;
				uint64_t at = i < m ? sync[i + 1] - cut[i]
						    : SY_DEC_NO_SEAM;

				cr_assert(decode(&p, data, cut[i], hi, at,
						 &joined, i > 0) ||
						  i == m,
					  "%s: piece %u did not reach its seam",
					  what, i);
			}
			snprintf(why, sizeof(why), "%s, %s, %u cuts (last %" PRIu64
				 ")", what, dec ? "full" : "fast", m, cut[m]);
			same(&joined, &whole, why);
			t->joins += m;
			free(joined.v);
		}
		free(whole.v);
	}
}

/* ---- streams from the ground truth ---- */

static size_t truth_read(void *ctx, uint32_t ctxid, uint64_t addr,
			 uint8_t *buf, size_t len)
{
	size_t n = 0;

	(void)ctxid;
	while (n < len && fx_truth_read_mem(ctx, addr + n, buf + n, 1) == 0)
		n++;
	return n;
}

static void truth_source(struct sy_etm_source *s,
			 const struct fx_etm_config *cfg)
{
	cr_assert_eq(fx_etm_source(cfg, s), 0);
}

/* Windows of @t as one stream: resync every few waypoints, timestamps and
 * context IDs, an overflow now and then, some windows continuing after an
 * untraced gap. */
static void truth_stream(const struct fx_truth *t, struct fx_etm_enc *e,
			 struct rng *r)
{
	for (unsigned k = 0; k < 40; k++) {
		struct fx_etm_window w;
		size_t a = (size_t)rnd(r, t->n - 3000), n = 300 + rnd(r, 2000);

		fx_etm_window_init(&w);
		w.pid = 1000 + (uint32_t)rnd(r, 3);
		w.resync_period = 5 + (unsigned)rnd(r, 20);
		w.ts0 = 1000000 * (k + 1);
		w.cycles_per_insn = 1 + rnd(r, 3);
		w.no_sync = k && rnd(r, 4) == 0;
		if (rnd(r, 5) == 0) {
			w.overflow_after = 50 + rnd(r, n / 2);
			w.overflow_lost = rnd(r, 20);
		}
		if (rnd(r, 2)) {
			w.end = FX_ETM_END_EXCEPTION;
			w.end_ip = t->insns[a + n - 1].next;
		}
		cr_assert_eq(fx_etm_enc_window(e, t->insns + a, n, &w), 0);
	}
}

static void load_truth(struct fx_truth *t)
{
	struct sy_diag dg = { 0 };

	cr_assert_eq(fx_truth_load(t, "tests/fixtures/truth/branchy-aarch64.truth",
				   "tests/fixtures/programs/bin/branchy-aarch64",
				   &dg),
		     0, "%s", dg.msg);
}

static void params(struct sy_dec_params *p, sy_read_mem_fn fn, void *ctx,
		   int formatted, const struct sy_etm_source *src, size_t n,
		   uint8_t id)
{
	memset(p, 0, sizeof(*p));
	p->kind = SY_TRACE_ETM;
	p->read_mem = fn;
	p->mem_ctx = ctx;
	p->u.etm.formatted = formatted;
	p->u.etm.sources = src;
	p->u.etm.nr_sources = n;
	p->u.etm.trace_id = id;
}

Test(etm_seam, truth_raw_streams, .timeout = 300)
{
	struct fx_truth t;
	struct tally tl = { 0 };
	struct rng r = { 11 };

	load_truth(&t);
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		struct fx_etm_config cfg;
		struct fx_etm_enc e;
		struct sy_etm_source src;
		struct sy_dec_params p;

		fx_etm_config_init(&cfg);
		cfg.arch = (enum fx_etm_arch)arch;
		cfg.timestamps = 1;
		cfg.context_id = 1;
		cr_assert_eq(fx_etm_init(&e, &cfg), 0);
		truth_stream(&t, &e, &r);
		truth_source(&src, &cfg);
		params(&p, truth_read, &t, 0, &src, 1, 0);
		check_stream(&p, e.out.data, e.out.len, 12, 3 + arch,
			     arch ? "ETE raw" : "ETMv4 raw", &tl);
		fx_etm_fini(&e);
	}
	cr_assert_gt(tl.joins, 40u);
	cr_assert_lt(tl.refused, tl.cuts / 2);
	fx_truth_fini(&t);
}

Test(etm_seam, truth_formatted_two_ids, .timeout = 300)
{
	struct fx_truth t;
	struct tally tl = { 0 };
	struct rng r = { 23 };
	struct fx_etm_enc e[2];
	struct sy_etm_source src[2];
	struct fx_buf fb;

	load_truth(&t);
	for (int k = 0; k < 2; k++) {
		struct fx_etm_config cfg;

		fx_etm_config_init(&cfg);
		cfg.trace_id = (uint8_t)(0x10 + 2 * k);
		cfg.timestamps = 1;
		cfg.context_id = 1;
		cr_assert_eq(fx_etm_init(&e[k], &cfg), 0);
		truth_stream(&t, &e[k], &r);
		truth_source(&src[k], &cfg);
	}
	fx_buf_init(&fb);
	{
		struct fx_csfmt_stream st[2] = {
			{ 0x10, e[0].out.data, e[0].out.len },
			{ 0x12, e[1].out.data, e[1].out.len },
		};

		cr_assert_eq(fx_csfmt_interleave(&fb, st, 2, 7, 0), 0);
	}
	for (int k = 0; k < 2; k++) {
		struct sy_dec_params p;

		params(&p, truth_read, &t, 1, src, 2, src[k].trace_id);
		check_stream(&p, fb.data, fb.len, 10, 40 + k,
			     k ? "frames, ID 0x12" : "frames, ID 0x10", &tl);
		fx_etm_fini(&e[k]);
	}
	cr_assert_gt(tl.joins, 20u);
	fx_buf_fini(&fb);
	fx_truth_fini(&t);
}

/* ---- the real captures ---- */

struct elf_mem {
	const struct sy_image *img;
	uint64_t base;		/* load base: runtime = base + vaddr */
};

static size_t elf_read(void *ctx, uint32_t ctxid, uint64_t addr,
		       uint8_t *buf, size_t len)
{
	const struct elf_mem *m = ctx;

	(void)ctxid;
	if (addr < m->base)
		return 0;
	return sy_image_read(m->img, addr - m->base, buf, len);
}

/* Concatenated AUX payload of @cpu in @path, and its sources. */
static uint8_t *real_trace(const char *path, uint32_t cpu, size_t *len,
			   struct sy_etm_source *src, size_t *nsrc)
{
	struct sy_perf_reader *r;
	struct sy_record rec;
	struct sy_auxtrace_info info;
	uint8_t *buf = NULL;

	*len = 0;
	*nsrc = 0;
	memset(&info, 0, sizeof(info));
	cr_assert_eq(sy_perf_open(&r, path, NULL), 0, "%s", path);
	while (sy_perf_next(r, &rec) == 0) {
		struct sy_event ev;

		if (rec.type != SY_REC_AUXTRACE_INFO &&
		    rec.type != SY_REC_AUXTRACE)
			continue;
		cr_assert_eq(sy_event_parse(&rec, &ev, NULL), 0);
		if (rec.type == SY_REC_AUXTRACE_INFO) {
			cr_assert_eq(sy_auxtrace_info_parse(&info,
							    &ev.u.auxtrace_info,
							    rec.offset, NULL),
				     0);
			continue;
		}
		if (ev.u.auxtrace.cpu != cpu || !rec.aux)
			continue;
		buf = realloc(buf, *len + rec.aux_size);
		cr_assert_not_null(buf);
		memcpy(buf + *len, rec.aux, rec.aux_size);
		*len += rec.aux_size;
	}
	*nsrc = sy_test_etm_sources(&info.u.etm, src, 16);
	sy_auxtrace_info_fini(&info);
	sy_perf_close(r);
	return buf;
}

Test(etm_seam, real_simpleperf_captures, .timeout = 300)
{
	static const struct {
		const char *name;
		uint64_t base;
		uint32_t cpu;
		int formatted;
	} caps[] = {
		{ "perf_with_unformatted_trace.data", 0x629b292000ull, 0, 0 },
		{ "perf_etm.data", 0x582b2b0000ull, 7, 1 },
	};
	const char *bin = sy_test_shared_path(
		"fixtures/real/simpleperf-etm/symfs/data/local/tmp/etm_test_loop");
	struct sy_image *img;
	struct tally tl = { 0 };

	sy_test_require_path(bin);
	cr_assert_eq(sy_image_open(&img, bin, NULL), 0);
	for (size_t i = 0; i < SY_ARRAY_SIZE(caps); i++) {
		char path[1024];
		struct sy_etm_source src[16];
		struct elf_mem m = { img, caps[i].base };
		struct sy_dec_params p;
		size_t len, nsrc, me = 0;
		uint8_t *data;

		snprintf(path, sizeof(path), "%s/%s",
			 sy_test_shared_path("fixtures/real/simpleperf-etm/orig"),
			 caps[i].name);
		data = real_trace(path, caps[i].cpu, &len, src, &nsrc);
		cr_assert_gt(len, 0u, "%s", path);
		while (me < nsrc && src[me].cpu != caps[i].cpu)
			me++;
		cr_assert_lt(me, nsrc);
		if (caps[i].formatted)
			params(&p, elf_read, &m, 1, src, nsrc, src[me].trace_id);
		else
			params(&p, elf_read, &m, 0, &src[me], 1, 0);
		check_stream(&p, data, len, 30, 7 + i, caps[i].name, &tl);
		free(data);
	}
	/* small captures: a few A-Syncs each */
	cr_assert_gt(tl.joins, 4u);
	sy_image_close(img);
}

/* ---- the OpenCSD snapshots ---- */

static void snapshot(const char *sub, const char *name, struct tally *tl)
{
	char dir[1024];
	struct sy_snap s;

	snprintf(dir, sizeof(dir), "%s/%s/%s",
		 sy_test_shared_path("fixtures/real/opencsd-snapshots"), sub,
		 name);
	sy_test_require_path(dir);
	sy_snap_load(dir, &s);
	for (size_t k = 0; k < s.nsrc; k++) {
		struct sy_dec_params p;
		char what[200];

		params(&p, sy_snap_read, &s, s.formatted, s.src, s.nsrc,
		       s.formatted ? (uint8_t)(s.src[k].trctraceidr & 0x7f) : 0);
		snprintf(what, sizeof(what), "%s ID 0x%x", name,
			 s.src[k].trctraceidr & 0x7f);
		check_stream(&p, s.trace, s.trace_len, 6, 70 + k, what, tl);
		if (!s.formatted)
			break;
	}
	sy_snap_free(&s);
}

Test(etm_seam, opencsd_snapshots, .timeout = 300)
{
	struct tally tl = { 0 };

	snapshot("snapshots", "juno-uname-002", &tl);
	cr_assert_gt(tl.joins, 10u);
	/* TRCIDR8.MAXSPEC 255: refused, not mis-joined */
	snapshot("snapshots-ete", "ete_spec_1", &tl);
	snapshot("snapshots-ete", "ts_bit64_set", &tl);
	cr_assert_geq(tl.unsupported, 1u);
}
