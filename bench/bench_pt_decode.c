/* Intel PT window decode throughput: strobe-synth's decoder (src/decode/pt.c
 * through sy_decoder_*: the fast path, src/decode/pt_walk.h, and with
 * --decoder full libipt's block decoder) against a floor measured in the
 * same run, a bare
 * libipt block-decoder loop (pt_blk_sync_forward / pt_blk_event /
 * pt_blk_next, default flags) over the same bytes, the same windows and the
 * same read_mem callback, and the packet-only floor (pt_pkt_next over the
 * same bytes, no image: what a walk over a block cache is measured against).
 * Two more floors: the block-decoder loop with our flags over the same code
 * as a file in libipt's section cache, where libipt's own per-section block
 * cache serves it, and libipt's query decoder alone (b_qry_floor).
 *
 * The trace: the recorded run of tests/fixtures/programs/bin/branchy-x86_64
 * (41256 instructions) encoded REPS times by tests/fixtures/gen/fx_pt.c as
 * one paused/resumed per-CPU stream the way a Skylake writes it: windows of
 * 200..6000 instructions, return and IP compression, TNT-8, TSC and CBR at
 * every resume, FUP+TIP.PGD at every pause; twice: with a PSB only at the
 * first resume and once 4 KiB were written since the last one (what the
 * CPU does), and with a PSB at every resume.  Each window is decoded on
 * its own from the last PSB before it (sy_decode_find_sync), the floor
 * decodes the same byte range.  The fixture program's trace is dense (its
 * loops compress to a few bits per branch), so with resumes without PSB
 * both walk many instructions before each window.
 *
 * Each variant runs ROUNDS times interleaved with the others; the best
 * round counts (the machine is shared).  Nothing is asserted about time.
 *
 * usage: bench_pt_decode [reps [rounds]]   (run from the project root)
 */
#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sy_decode.h"

/* The fixture encoder and truth loader are test-side code that the bench
 * build does not link; compile them in. */
#include "fx_buf.h"
#include "fx_classify.h"
#include "fx_pt.h"
#include "fx_truth.h"

#include "decode/pt_impl.h"

#define B_TRUTH "tests/fixtures/truth/branchy-x86_64.truth"
#define B_ELF "tests/fixtures/programs/bin/branchy-x86_64"

struct b_img {
	uint64_t base;
	uint8_t *bytes;
	size_t len;
	uint64_t calls;
	/* the same bytes as a file in libipt's section cache (b_isc_init),
	 * for the block-cache floor */
	struct pt_image_section_cache *isc;
	int isid;
	char path[64];
};

static size_t b_read_mem(void *ctx, uint32_t ctxid, uint64_t addr,
			 uint8_t *buf, size_t len)
{
	struct b_img *m = ctx;
	size_t n;

	(void)ctxid;
	m->calls++;
	if (addr < m->base || addr - m->base >= m->len)
		return 0;
	n = m->len - (size_t)(addr - m->base);
	if (n > len)
		n = len;
	memcpy(buf, m->bytes + (addr - m->base), n);
	return n;
}

/* The floor's image callback: straight to the same read_mem. */
static int b_ipt_read(uint8_t *buf, size_t size, const struct pt_asid *asid,
		      uint64_t ip, void *ctx)
{
	size_t n = b_read_mem(ctx, 0, ip, buf, size);

	(void)asid;
	return n ? (int)n : -pte_nomap;
}

struct b_win {
	size_t sync, begin, end;
};

struct b_set {
	struct fx_buf trace;
	struct b_win *w;
	size_t nw;
	size_t loops;		/* decode the windows this many times */
	uint64_t win_bytes;	/* sum of end - begin, per loop */
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

static int b_build(struct b_set *s, const struct fx_truth *t, int reps,
		   enum fx_pt_start start)
{
	static struct fx_pt_linear_time lt = { 1000000, 3 };
	struct fx_pt_opts o;
	struct fx_pt_enc enc;
	uint64_t rng = 88172645463325252ull;
	size_t cap = 0, nt = t->n - 1;
	int r, err;

	memset(s, 0, sizeof(*s));
	s->loops = 1;
	fx_pt_opts_init(&o);
	o.ret_compress = 1;
	o.ip_compress = 1;
	o.psb_period_bytes = 4096;
	o.time_fn = fx_pt_time_linear;
	o.time_ctx = &lt;
	o.cbr = 0x1d;
	fx_buf_init(&s->trace);
	if (fx_pt_enc_init(&enc, &o, &s->trace))
		return -1;
	for (r = 0; r < reps; r++) {
		size_t pos = (size_t)(b_rng(&rng) % 50);

		for (;;) {
			struct fx_pt_window w;
			struct fx_pt_window_info wi;
			size_t len = 200 + (size_t)(b_rng(&rng) % 5800);

			if (pos + len >= nt)
				break;
			fx_pt_window_init(&w, t->insns + pos, len);
			w.first_idx = (uint64_t)r * t->n + pos;
			w.start = start;
			err = fx_pt_enc_window(&enc, &w, &wi);
			if (err)
				return -1;
			if (s->nw == cap) {
				cap = cap ? 2 * cap : 256;
				s->w = realloc(s->w, cap * sizeof(*s->w));
				if (!s->w)
					return -1;
			}
			s->w[s->nw].begin = wi.begin;
			s->w[s->nw].end = wi.end;
			s->nw++;
			pos += len + (size_t)(b_rng(&rng) % 300);
		}
	}
	fx_pt_enc_fini(&enc);
	for (size_t i = 0; i < s->nw; i++) {
		uint64_t sync;

		if (sy_decode_find_sync(SY_TRACE_PT, s->trace.data, s->w[i].end,
					s->w[i].begin, &sync))
			return -1;
		s->w[i].sync = (size_t)sync;
		s->win_bytes += s->w[i].end - s->w[i].begin;
	}
	return 0;
}

static void b_params(struct sy_dec_params *p, struct b_img *img)
{
	struct fx_pt_hw hw;

	fx_pt_hw_init(&hw);
	memset(p, 0, sizeof(*p));
	p->kind = SY_TRACE_PT;
	p->read_mem = b_read_mem;
	p->mem_ctx = img;
	p->u.pt.family = hw.family;
	p->u.pt.model = hw.model;
	p->u.pt.stepping = hw.stepping;
	p->u.pt.mtc_freq = hw.mtc_freq;
	p->u.pt.nom_freq = hw.nom_freq;
	p->u.pt.cpuid_0x15_eax = hw.cpuid_15_eax;
	p->u.pt.cpuid_0x15_ebx = hw.cpuid_15_ebx;
}

/* Ours: every window through sy_decoder_*.  Returns the instructions the
 * windows hold (sum of ninsn), or 0 on failure. */
static uint64_t b_ours(const struct b_set *s, struct sy_decoder *d,
		       uint64_t *branches)
{
	uint64_t insns = 0;
	size_t i;

	*branches = 0;
	for (i = 0; i < s->nw * s->loops; i++) {
		const struct b_win *w = &s->w[i % s->nw];
		struct sy_dec_chunk ch = {
			s->trace.data + w->sync,
			w->end - w->sync,
		};
		struct sy_dec_item it;
		int err;

		if (sy_decoder_reset(d, &ch, 1, w->begin - w->sync))
			return 0;
		while ((err = sy_decoder_next(d, &it)) == 0) {
			insns += it.ninsn;
			*branches += it.kind == SY_DEC_BRANCH;
			if (it.kind == SY_DEC_ERROR)
				return 0;
		}
		if (err != -SY_E_EOS)
			return 0;
	}
	return insns;
}

/* The floor: what any user of libipt's block decoder does at least.
 * @flags: ours (end_on_call/jump, tick events); @cached: the code comes from
 * a file section in libipt's section cache instead of the read callback,
 * so libipt's own per-section block cache serves the walk (our decoder
 * reads code through a callback: libipt keeps no block cache for that). */
static uint64_t b_floor(const struct b_set *s, struct b_img *img, int flags,
			int cached)
{
	struct pt_config cfg;
	struct fx_pt_hw hw;
	uint64_t insns = 0;
	size_t i;

	fx_pt_hw_init(&hw);
	for (i = 0; i < s->nw * s->loops; i++) {
		const struct b_win *w = &s->w[i % s->nw];
		struct pt_block_decoder *dec;
		int st;

		pt_config_init(&cfg);
		cfg.begin = s->trace.data + w->sync;
		cfg.end = s->trace.data + w->end;
		fx_pt_hw_pt_config(&hw, &cfg);
		cfg.flags.variant.block.end_on_call = flags != 0;
		cfg.flags.variant.block.end_on_jump = flags != 0;
		cfg.flags.variant.block.enable_tick_events = flags != 0;
		dec = pt_blk_alloc_decoder(&cfg);
		if (!dec)
			return 0;
		if (cached) {
			if (pt_image_add_cached(pt_blk_get_image(dec),
						img->isc, img->isid, NULL) < 0) {
				pt_blk_free_decoder(dec);
				return 0;
			}
		} else {
			pt_image_set_callback(pt_blk_get_image(dec),
					      b_ipt_read, img);
		}
		for (st = pt_blk_sync_forward(dec); st >= 0;) {
			struct pt_block b;
			struct pt_event ev;

			while (st & pts_event_pending) {
				st = pt_blk_event(dec, &ev, sizeof(ev));
				if (st < 0)
					break;
			}
			if (st < 0)
				break;
			st = pt_blk_next(dec, &b, sizeof(b));
			insns += b.ninsn;
		}
		pt_blk_free_decoder(dec);
		if (st != -pte_eos)
			return 0;
	}
	return insns;
}

/* The packet-only floor (issue 25): libipt's packet decoder over the same
 * byte ranges, no image and no instruction decode.  A walk of the packets
 * over a block cache cannot be faster.  Returns the packets (0 on
 * failure). */
static uint64_t b_pkt_floor(const struct b_set *s)
{
	uint64_t packets = 0;
	size_t i;

	for (i = 0; i < s->nw * s->loops; i++) {
		const struct b_win *w = &s->w[i % s->nw];
		struct pt_packet_decoder *dec;
		struct pt_config cfg;
		struct pt_packet pkt;
		int st;

		pt_config_init(&cfg);
		cfg.begin = s->trace.data + w->sync;
		cfg.end = s->trace.data + w->end;
		dec = pt_pkt_alloc_decoder(&cfg);
		if (!dec)
			return 0;
		st = pt_pkt_sync_forward(dec);
		while (st >= 0 && (st = pt_pkt_next(dec, &pkt, sizeof(pkt))) >= 0)
			packets++;
		pt_pkt_free_decoder(dec);
		if (st != -pte_eos)
			return 0;
	}
	return packets;
}

/* The query-decoder floor: libipt's query decoder (pt_qry_*, what its block
 * decoder asks for TNT bits, TIP targets, events and time) over the same
 * byte ranges, no image.  Without code nothing says which query comes
 * next: a TNT bit is asked for, and a TIP when the next packet is not a
 * TNT (libipt answers -pte_bad_query without moving).  A walk of a block
 * cache that takes the query decoder's answers (and so its offsets and
 * time, as the block decoder's) cannot be faster.  Returns the answers
 * (0 on failure). */
static uint64_t b_qry_floor(const struct b_set *s)
{
	uint64_t answers = 0;
	size_t i;

	for (i = 0; i < s->nw * s->loops; i++) {
		const struct b_win *w = &s->w[i % s->nw];
		struct pt_query_decoder *dec;
		struct pt_config cfg;
		struct fx_pt_hw hw;
		uint64_t ip;
		int st;

		pt_config_init(&cfg);
		cfg.begin = s->trace.data + w->sync;
		cfg.end = s->trace.data + w->end;
		fx_pt_hw_init(&hw);
		fx_pt_hw_pt_config(&hw, &cfg);
		dec = pt_qry_alloc_decoder(&cfg);
		if (!dec)
			return 0;
		for (st = pt_qry_sync_forward(dec, &ip); st >= 0;) {
			struct pt_event ev;
			int taken, q;

			while (st >= 0 && (st & pts_event_pending)) {
				st = pt_qry_event(dec, &ev, sizeof(ev));
				answers++;
			}
			if (st < 0 || (st & pts_eos))
				break;
			q = pt_qry_cond_branch(dec, &taken);
			if (q < 0)
				q = pt_qry_indirect_branch(dec, &ip);
			if (q < 0)
				break;
			answers++;
			st = q;
		}
		pt_qry_free_decoder(dec);
	}
	return answers;
}

/* The image's bytes in a temporary file, added to a section cache of
 * libipt's. Returns 0 or -1. */
static int b_isc_init(struct b_img *img)
{
	const char *dir = getenv("TMPDIR");
	FILE *f;
	int fd;

	snprintf(img->path, sizeof(img->path), "%s/sy-bench-pt-XXXXXX",
		 dir && strlen(dir) < 40 ? dir : "/tmp");
	fd = mkstemp(img->path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "wb");
	if (!f || fwrite(img->bytes, 1, img->len, f) != img->len) {
		if (f)
			fclose(f);
		remove(img->path);
		return -1;
	}
	if (fclose(f)) {
		remove(img->path);
		return -1;
	}
	img->isc = pt_iscache_alloc(NULL);
	img->isid = img->isc ? pt_iscache_add_file(img->isc, img->path, 0,
						   img->len, img->base) : -1;
	if (img->isid < 0)
		return -1;
	return 0;
}

static void b_isc_fini(struct b_img *img)
{
	pt_iscache_free(img->isc);
	if (img->path[0])
		remove(img->path);
}

#define B_NV 8

static const char *const b_name[B_NV] = {
	"ours (sy_decoder, code cache)",
	"ours without the code cache",
	"floor: bare pt_blk_next loop",
	"floor + end_on_call/jump, tick events",
	"floor: packets only (pt_pkt_next)",
	"floor + libipt's block cache (file)",
	"floor: query decoder only (pt_qry_*)",
	"ours, --decoder full (block decoder)",
};

/* Runs the eight variants over @s ROUNDS times, interleaved; prints the
 * best of each.  @d is the default decoder (the fast path), @dfull the
 * block decoder's. */
static int b_scenario(const char *title, const struct b_set *s,
		      struct sy_decoder *d, struct sy_decoder *dfull,
		      struct b_img *img, int rounds, unsigned only)
{
	double best[B_NV] = { 1e30, 1e30, 1e30, 1e30,
			      1e30, 1e30, 1e30, 1e30 };
	uint64_t win_insns = 0, walked = 0, calls[2] = { 0, 0 }, br = 0;
	uint64_t packets = 0;
	int r, v;

	for (r = 0; r < rounds; r++) {
		for (v = 0; v < B_NV; v++) {
			uint64_t n, b = 0;
			double t0;

			if (!(only & (1u << v)))
				continue;
			if (v < 2)
				sy_pt_set_code_cache(d, v == 0);
			img->calls = 0;
			t0 = b_now();
			if (v < 2)
				n = b_ours(s, d, &b);
			else if (v < 4)
				n = b_floor(s, img, v == 3, 0);
			else if (v == 4)
				n = b_pkt_floor(s);
			else if (v == 5)
				n = b_floor(s, img, 1, 1);
			else if (v == 6)
				n = b_qry_floor(s);
			else
				n = b_ours(s, dfull, &b);
			t0 = b_now() - t0;
			if (!n) {
				fprintf(stderr, "bench_pt_decode: %s: variant "
					"%d failed\n", title, v);
				return -1;
			}
			if (v < 2) {
				win_insns = n;
				br = b;
				calls[v] = img->calls;
			} else if (v == 2) {
				walked = n;
			} else if (v == 4) {
				packets = n;
			}
			if (t0 < best[v])
				best[v] = t0;
		}
	}
	printf("%s: %zu windows x %zu, %.3f MB of trace in them, %" PRIu64
	       " instructions and %" PRIu64 " branches in them; libipt walks %"
	       PRIu64 " instructions (from the PSB before each window), %"
	       PRIu64 " packets\n",
	       title, s->nw, s->loops, (double)s->win_bytes * s->loops / 1e6,
	       win_insns, br, walked, packets);
	if (only != (1u << B_NV) - 1)
		return 0;
	for (v = 2; v < B_NV + 2; v++) {
		int k = v % B_NV;

		printf("  %-38s %6.1f M walked insn/s %6.1f M window insn/s "
		       "%6.2f window MB/s (%.3f s)\n", b_name[k],
		       walked / best[k] / 1e6, win_insns / best[k] / 1e6,
		       (double)s->win_bytes * s->loops / best[k] / 1e6,
		       best[k]);
	}
	printf("  read_mem calls per walked instruction: %.4f with the cache, "
	       "%.3f without\n", (double)calls[0] / (double)walked,
	       (double)calls[1] / (double)walked);
	printf("  ratio ours/block-floor (time): %.2f; without the "
	       "code cache %.2f; the cache saves %.0f%% of ours\n",
	       best[0] / best[2], best[1] / best[2],
	       100.0 * (1.0 - best[0] / best[1]));
	printf("  ratio ours/packet-floor (time): %.2f; block-floor/"
	       "packet-floor %.2f\n", best[0] / best[4], best[2] / best[4]);
	printf("  ratio ours/block-floor with libipt's block cache (time): "
	       "%.2f; that floor/packet-floor %.2f; query-floor/packet-floor "
	       "%.2f\n", best[0] / best[5], best[5] / best[4],
	       best[6] / best[4]);
	printf("  ratio ours/query-floor (time): %.2f; --decoder full/ours "
	       "%.2f\n", best[0] / best[6], best[7] / best[0]);
	return 0;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 12;
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	/* for profiling: run only the variants in this mask */
	unsigned only = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) :
		(1u << B_NV) - 1;
	struct fx_truth t;
	struct sy_diag diag = { 0 };
	struct b_img img = { 0 };
	struct b_set resume, psb;
	struct sy_dec_params p;
	struct sy_decoder *d, *dfull;
	uint64_t lo = UINT64_MAX, hi = 0;
	uint8_t c;
	size_t i;
	int err;

	if (reps < 1 || rounds < 1)
		return 2;
	if (fx_truth_load(&t, B_TRUTH, B_ELF, &diag)) {
		fprintf(stderr, "bench_pt_decode: truth: %s\n", diag.msg);
		return 1;
	}
	for (i = 0; i < t.n; i++) {
		if (t.insns[i].pc < lo)
			lo = t.insns[i].pc;
		if (t.insns[i].pc + t.insns[i].size > hi)
			hi = t.insns[i].pc + t.insns[i].size;
	}
	while (fx_truth_read_mem(&t, lo - 1, &c, 1) == 0)
		lo--;
	while (fx_truth_read_mem(&t, hi, &c, 1) == 0)
		hi++;
	img.base = lo;
	img.len = (size_t)(hi - lo);
	img.bytes = malloc(img.len);
	if (!img.bytes || fx_truth_read_mem(&t, lo, img.bytes, img.len) ||
	    b_build(&resume, &t, reps, FX_PT_START_AUTO) ||
	    b_build(&psb, &t, reps, FX_PT_START_PSB)) {
		fprintf(stderr, "bench_pt_decode: cannot build the trace\n");
		return 1;
	}
	if (b_isc_init(&img)) {
		fprintf(stderr, "bench_pt_decode: cannot write the image "
			"for libipt's section cache\n");
		b_isc_fini(&img);
		return 1;
	}
	b_params(&p, &img);
	if (sy_decoder_alloc(&d, &p)) {
		fprintf(stderr, "bench_pt_decode: decoder refused\n");
		return 1;
	}
	p.u.pt.decoder = SY_PT_DECODER_FULL;
	if (sy_decoder_alloc(&dfull, &p)) {
		fprintf(stderr, "bench_pt_decode: decoder refused\n");
		return 1;
	}
	/* about as much work per round in both */
	psb.loops = 10;
	err = b_scenario("resumes without PSB (PSB every 4 KiB)", &resume, d,
			 dfull, &img, rounds, only);
	if (!err)
		err = b_scenario("every window with PSB", &psb, d, dfull, &img,
				 rounds, only);

	sy_decoder_free(d);
	sy_decoder_free(dfull);
	free(resume.w);
	fx_buf_fini(&resume.trace);
	free(psb.w);
	fx_buf_fini(&psb.trace);
	b_isc_fini(&img);
	free(img.bytes);
	fx_truth_fini(&t);
	return err ? 1 : 0;
}
