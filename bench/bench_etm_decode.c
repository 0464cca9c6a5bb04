/* ETMv4 window decode throughput: strobe-synth's decoder (src/decode/etm*.c
 * through sy_decoder_*) against a floor measured in the same run: the same
 * OpenCSD 1.3.3 decode tree (same configuration, same memory callback
 * range) fed the same bytes window by window (OCSD_OP_RESET, OCSD_OP_DATA,
 * OCSD_OP_EOT) by a minimal loop whose element callback only counts
 * instructions.  Ours by default is the fast path (src/decode/etm_fast.c:
 * OpenCSD parses the packets, our walk makes the elements); forced to
 * OpenCSD's full decoder it adds to the floor the item conversion, the
 * push-to-pull ring, and the guard tree that keeps OpenCSD off packets it
 * crashes on (src/decode/etm_guard.c).
 *
 * The trace: the recorded run of tests/fixtures/programs/bin/
 * branchy-aarch64 (43009 instructions) encoded REPS times by
 * tests/fixtures/gen/fx_etm.c as perf would record it with pause/resume:
 * windows of 200..6000 instructions, each its own trace-unit enable
 * period ending with the pausing IRQ, timestamps and context IDs on,
 * address compression; once as raw streams (TRBE) and once in 16-byte
 * frames with a 4 x FSYNC barrier (ETR).
 *
 * Code comes from the ELF file through sy_image_read(), the product's
 * image layer.  OpenCSD 1.3.3 keeps 12 pages of 256 bytes of its own and
 * asks the callback for 256 bytes per miss; the code-page cache in front
 * of read_mem (src/decode/code_cache.c, 16 x 4 KiB, cleared per window) is
 * measured on and off, in ours and in the floor.
 *
 * Each variant runs ROUNDS times interleaved with the others; the best
 * round counts (the machine is shared).  Nothing is asserted about time.
 *
 * usage: bench_etm_decode [reps [rounds]]   (run from the project root)
 */
#include <inttypes.h>
#include <opencsd/c_api/opencsd_c_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sy_decode.h"
#include "sy_image.h"

/* The fixture encoder and truth loader are test-side code that the bench
 * build does not link; compile them in. */
#include "fx_buf.h"
#include "fx_classify.h"
#include "fx_csfmt.h"
#include "fx_etm.h"
#include "fx_truth.h"

#include "decode/code_cache.h"
#include "decode/etm.h"

#define B_TRUTH "tests/fixtures/truth/branchy-aarch64.truth"
#define B_ELF "tests/fixtures/programs/bin/branchy-aarch64"
#define B_ID 0x10
/* As src/decode/etm.c registers its callback. */
#define B_MEM_TOP (UINT64_MAX - 0x1000)

struct b_mem {
	const struct sy_image *img;
	uint64_t calls;
};

static size_t b_read_mem(void *ctx, uint32_t ctxid, uint64_t addr,
			 uint8_t *buf, size_t len)
{
	struct b_mem *m = ctx;

	(void)ctxid;
	m->calls++;
	return sy_image_read(m->img, addr, buf, len);
}

struct b_win {
	size_t begin, end;
};

struct b_set {
	struct fx_buf trace;
	struct b_win *w;
	size_t nw;
	uint64_t bytes;
	int formatted;
};

static double b_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t b_rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void b_config(struct fx_etm_config *cfg)
{
	fx_etm_config_init(cfg);
	cfg->trace_id = B_ID;
	cfg->timestamps = 1;
	cfg->context_id = 1;
}

static int b_build(struct b_set *s, const struct fx_truth *t, int reps,
		   int formatted)
{
	struct fx_etm_config cfg;
	uint64_t rng = 88172645463325252ull;
	size_t cap = 0, nt = t->n - 1;

	memset(s, 0, sizeof(*s));
	s->formatted = formatted;
	fx_buf_init(&s->trace);
	b_config(&cfg);
	for (int r = 0; r < reps; r++) {
		size_t pos = (size_t)(b_rng(&rng) % 50);

		for (;;) {
			struct fx_etm_enc e;
			struct fx_etm_window w;
			size_t len = 200 + (size_t)(b_rng(&rng) % 5800);

			if (pos + len >= nt)
				break;
			if (fx_etm_init(&e, &cfg))
				return -1;
			fx_etm_window_init(&w);
			w.pid = 1234;
			w.end = FX_ETM_END_EXCEPTION;
			w.end_ip = t->insns[pos + len - 1].next;
			w.ts0 = 1000000 + (uint64_t)pos * 3;
			w.cycles_per_insn = 3;
			if (fx_etm_enc_window(&e, t->insns + pos, len, &w))
				return -1;
			if (s->nw == cap) {
				cap = cap ? 2 * cap : 256;
				s->w = realloc(s->w, cap * sizeof(*s->w));
				if (!s->w)
					return -1;
			}
			s->w[s->nw].begin = s->trace.len;
			if (formatted) {
				struct fx_csfmt_stream st = { B_ID, e.out.data,
							      e.out.len };

				if (fx_csfmt_interleave(&s->trace, &st, 1, 0,
							FX_CSFMT_BARRIER))
					return -1;
			} else {
				fx_buf_put(&s->trace, e.out.data, e.out.len);
			}
			s->w[s->nw].end = s->trace.len;
			s->bytes += s->w[s->nw].end - s->w[s->nw].begin;
			s->nw++;
			fx_etm_fini(&e);
			pos += len + (size_t)(b_rng(&rng) % 300);
		}
	}
	return 0;
}

static void b_source(struct sy_etm_source *src)
{
	struct fx_etm_config cfg;

	b_config(&cfg);
	fx_etm_source(&cfg, src);
}

/* Ours: every window through sy_decoder_*.  Returns the instructions of
 * the windows (sum of ninsn), or 0 on failure. */
static uint64_t b_ours(const struct b_set *s, struct sy_decoder *d,
		       uint64_t *branches, uint64_t *reqs)
{
	uint64_t insns = 0;

	*branches = 0;
	*reqs = 0;
	for (size_t i = 0; i < s->nw; i++) {
		struct sy_dec_chunk ch = {
			s->trace.data + s->w[i].begin,
			s->w[i].end - s->w[i].begin,
		};
		struct sy_dec_item it;
		int err;

		if (sy_decoder_reset(d, &ch, 1, 0))
			return 0;
		while ((err = sy_decoder_next(d, &it)) == 0) {
			insns += it.ninsn;
			*branches += it.kind == SY_DEC_BRANCH;
			if (it.kind == SY_DEC_ERROR)
				return 0;
		}
		if (err != -SY_E_EOS)
			return 0;
		*reqs += sy_etm_debug(d)->mem_reqs;
	}
	return insns;
}

/* ---- the floor: a bare OpenCSD tree ---- */

struct b_floor {
	dcd_tree_handle_t dt;
	struct b_mem *mem;
	struct sy_code_cache mc;
	int cache;
	uint64_t insns;
};

static uint32_t b_floor_mem(const void *ctx, const ocsd_vaddr_t addr,
			    const ocsd_mem_space_acc_t space, const uint8_t id,
			    const uint32_t req, uint8_t *buf)
{
	struct b_floor *f = (struct b_floor *)(uintptr_t)ctx;

	(void)space;
	(void)id;
	if (f->cache)
		return (uint32_t)sy_code_cache_read(&f->mc, 0, addr, buf, req);
	return (uint32_t)b_read_mem(f->mem, 0, addr, buf, req);
}

static ocsd_datapath_resp_t b_floor_elem(const void *ctx,
					 const ocsd_trc_index_t idx,
					 const uint8_t id,
					 const ocsd_generic_trace_elem *el)
{
	struct b_floor *f = (struct b_floor *)(uintptr_t)ctx;

	(void)idx;
	(void)id;
	if (el->elem_type == OCSD_GEN_TRC_ELEM_INSTR_RANGE)
		f->insns += el->num_instr_range;
	return OCSD_RESP_CONT;
}

static int b_floor_init(struct b_floor *f, int formatted, struct b_mem *mem)
{
	struct sy_etm_source src;
	ocsd_etmv4_cfg c;
	unsigned char csid;

	memset(f, 0, sizeof(*f));
	f->mem = mem;
	sy_code_cache_init(&f->mc, b_read_mem, mem);
	b_source(&src);
	memset(&c, 0, sizeof(c));
	c.reg_idr0 = src.trcidr0;
	c.reg_idr1 = src.trcidr1;
	c.reg_idr2 = src.trcidr2;
	c.reg_idr8 = src.trcidr8;
	c.reg_configr = src.trcconfigr;
	c.reg_traceidr = B_ID;
	c.arch_ver = ARCH_AA64;
	c.core_prof = profile_CortexA;
	f->dt = ocsd_create_dcd_tree(formatted ? OCSD_TRC_SRC_FRAME_FORMATTED :
				     OCSD_TRC_SRC_SINGLE,
				     formatted ? OCSD_DFRMTR_FRAME_MEM_ALIGN |
				     OCSD_DFRMTR_RESET_ON_4X_FSYNC : 0);
	if (f->dt == C_API_INVALID_TREE_HANDLE ||
	    ocsd_dt_create_decoder(f->dt, OCSD_BUILTIN_DCD_ETMV4I,
				   OCSD_CREATE_FLG_FULL_DECODER, &c,
				   &csid) != OCSD_OK ||
	    ocsd_dt_add_callback_trcid_mem_acc(f->dt, 0, B_MEM_TOP,
					       OCSD_MEM_SPACE_ANY, b_floor_mem,
					       f) != OCSD_OK ||
	    ocsd_dt_set_gen_elem_outfn(f->dt, b_floor_elem, f) != OCSD_OK)
		return -1;
	return 0;
}

static uint64_t b_floor_run(struct b_floor *f, const struct b_set *s)
{
	f->insns = 0;
	for (size_t i = 0; i < s->nw; i++) {
		const uint8_t *p = s->trace.data + s->w[i].begin;
		uint32_t len = (uint32_t)(s->w[i].end - s->w[i].begin);
		uint32_t used = 0;

		sy_code_cache_clear(&f->mc);
		ocsd_dt_process_data(f->dt, OCSD_OP_RESET, 0, 0, NULL, NULL);
		if (OCSD_DATA_RESP_IS_FATAL(ocsd_dt_process_data(f->dt,
				OCSD_OP_DATA, 0, len, p, &used)) ||
		    used != len)
			return 0;
		ocsd_dt_process_data(f->dt, OCSD_OP_EOT, 0, 0, NULL, NULL);
	}
	return f->insns;
}

static const char *const b_name[5] = {
	"ours (sy_decoder, page cache)",
	"ours without the page cache",
	"floor: bare OpenCSD tree loop",
	"floor + the page cache",
	"ours, OpenCSD's full decoder",
};

static int b_scenario(const char *title, const struct b_set *s,
		      struct b_mem *mem, int rounds)
{
	struct sy_etm_source src;
	struct sy_dec_params p;
	struct sy_decoder *d, *dfull;
	struct b_floor fl;
	double best[5] = { 1e30, 1e30, 1e30, 1e30, 1e30 };
	uint64_t insns[5] = { 0 }, calls[5] = { 0 }, reqs = 0, br = 0;

	b_source(&src);
	memset(&p, 0, sizeof(p));
	p.kind = SY_TRACE_ETM;
	p.read_mem = b_read_mem;
	p.mem_ctx = mem;
	p.u.etm.formatted = s->formatted;
	p.u.etm.sources = &src;
	p.u.etm.nr_sources = 1;
	p.u.etm.trace_id = B_ID;
	if (sy_decoder_alloc(&d, &p) || b_floor_init(&fl, s->formatted, mem)) {
		fprintf(stderr, "bench_etm_decode: cannot set up decoders\n");
		return -1;
	}
	p.u.etm.decoder = SY_ETM_DECODER_FULL;
	if (sy_decoder_alloc(&dfull, &p)) {
		fprintf(stderr, "bench_etm_decode: cannot set up decoders\n");
		return -1;
	}
	for (int r = 0; r < rounds; r++) {
		for (int v = 0; v < 5; v++) {
			uint64_t n, b = 0, q = 0;
			double t0;

			mem->calls = 0;
			if (v < 2)
				sy_etm_set_mem_cache(d, v == 0);
			fl.cache = v == 3;
			t0 = b_now();
			if (v == 4)
				n = b_ours(s, dfull, &b, &q);
			else
				n = v < 2 ? b_ours(s, d, &b, &q)
					  : b_floor_run(&fl, s);
			t0 = b_now() - t0;
			if (!n) {
				fprintf(stderr, "bench_etm_decode: %s: variant "
					"%d failed\n", title, v);
				return -1;
			}
			insns[v] = n;
			calls[v] = mem->calls;
			if (v == 0)
				br = b;
			if (v == 4)
				reqs = q;	/* OpenCSD's own requests */
			if (t0 < best[v])
				best[v] = t0;
		}
	}
	printf("%s: %zu windows, %.3f MB of trace, %" PRIu64 " instructions "
	       "and %" PRIu64 " branches in them\n", title, s->nw,
	       (double)s->bytes / 1e6, insns[0], br);
	for (int v = 0; v < 5; v++)
		printf("  %-32s %7.1f M insn/s %7.2f MB/s (%.4f s)\n", b_name[v],
		       insns[v] / best[v] / 1e6, (double)s->bytes / best[v] / 1e6,
		       best[v]);
	printf("  per 1000 instructions: OpenCSD's full decoder asks the "
	       "callback %.2f times (its own 12 x 256 B cache absorbs the "
	       "rest); read_mem calls: the fast path %.2f with the page cache, "
	       "%.2f without; floor %.2f / %.2f\n", 1000.0 * reqs / insns[0],
	       1000.0 * calls[0] / insns[0], 1000.0 * calls[1] / insns[1],
	       1000.0 * calls[3] / insns[3], 1000.0 * calls[2] / insns[2]);
	printf("  ratio ours/floor (time): %.2f; with OpenCSD's full decoder "
	       "%.2f (aim <= 1.30); ours without the cache %.2f; the cache "
	       "saves %.0f%% of ours, %.0f%% of the floor\n",
	       best[0] / best[2], best[4] / best[2], best[1] / best[2],
	       100.0 * (1.0 - best[0] / best[1]),
	       100.0 * (1.0 - best[3] / best[2]));
	if (insns[0] != insns[2] || insns[4] != insns[2])
		printf("  NOTE: ours counted %" PRIu64 " instructions (%" PRIu64
		       " with the full decoder), the floor %" PRIu64 "\n",
		       insns[0], insns[4], insns[2]);
	sy_decoder_free(d);
	sy_decoder_free(dfull);
	ocsd_destroy_dcd_tree(fl.dt);
	return 0;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 12;
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	struct fx_truth t;
	struct sy_diag diag = { 0 };
	struct sy_image *img;
	struct b_mem mem = { 0 };
	struct b_set raw, fmt;
	int err;

	if (reps < 1 || rounds < 1)
		return 2;
	if (fx_truth_load(&t, B_TRUTH, B_ELF, &diag)) {
		fprintf(stderr, "bench_etm_decode: truth: %s\n", diag.msg);
		return 1;
	}
	if (sy_image_open(&img, B_ELF, &diag)) {
		fprintf(stderr, "bench_etm_decode: %s\n", diag.msg);
		return 1;
	}
	mem.img = img;
	if (b_build(&raw, &t, reps, 0) || b_build(&fmt, &t, reps, 1)) {
		fprintf(stderr, "bench_etm_decode: cannot build the trace\n");
		return 1;
	}
	err = b_scenario("raw windows (TRBE)", &raw, &mem, rounds);
	if (!err)
		err = b_scenario("framed windows (ETR, 4 x FSYNC barrier)", &fmt,
				 &mem, rounds);
	free(raw.w);
	fx_buf_fini(&raw.trace);
	free(fmt.w);
	fx_buf_fini(&fmt.trace);
	sy_image_close(img);
	fx_truth_fini(&t);
	return err ? 1 : 0;
}
