/* sy_etm_renew (src/decode/etm.h): a decoder renewed after a window
 * decodes the next window as a decoder just allocated does.
 *
 * The fuzz targets renew their decoders instead of making new ones, and
 * fuzz_etm_fastpath.c compares the fast path with the full decoder only as
 * long as both have the same history: after a window the fast path gave
 * up, both are renewed.  A reset is not a renewal: OpenCSD 1.3.3's decoder
 * keeps the instruction address, the return stack and its elements'
 * context across OCSD_OP_RESET, and the fast path's walk keeps them as it
 * does.  The oracle here is a decoder just allocated, never renewed.
 *
 * Windows A and B are random packets over the fuzzers' code image
 * (tests/fuzz/fuzz_etm_code.h).  A may end in random bytes (bad packets,
 * the guard's cuts, the fast path giving up: what the fuzzer renews
 * after).  B is what a new OpenCSD 1.3.3 decoder decodes the same every
 * time: valgrind shows it reading memory it never initialised in some
 * windows, so their items depend on the heap (an Exception before any
 * address walks from an instruction address never set; some bad packets'
 * offsets).  So B has an address before anything else and no bad packet;
 * what a decoder remembers shows in it through the context (a Context
 * packet without a context ID carries the last one seen).  With the return
 * stack on, atoms are not taken and A has no random bytes: an atom after a
 * taken indirect branch on an empty return stack makes OpenCSD 1.3.3 read
 * and write a freed element (commitElements() -> returnStackPop() ->
 * resetDecoder(); found by valgrind on this test), which the guard does
 * not keep from it yet.  For each pair, each configuration and both
 * decoders (fast path, full):
 *   new decoder: B                          -> the expected items
 *   decoder: A, renew, B                    -> the same items and counters
 *   decoder: A read half, renew, renew, B   -> the same
 * and, as the control that the comparison can fail, a decoder that is only
 * reset between A and B differs from the new one for some pairs. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz_etm_code.h"
#include "decode/etm.h"
#include "fx_buf.h"
#include "fx_csfmt.h"
#include "fx_etm.h"
#include "sy_decode.h"

#define NPAIRS 100
#define MAXITEMS (1u << 14)

struct rng {
	uint64_t s;
};

static uint64_t rnd64(struct rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

static unsigned rnd(struct rng *r, unsigned n)
{
	return (unsigned)(rnd64(r) % n);
}

/* An instruction address of the image, at its low or high mapping. */
static uint64_t img_addr(struct rng *r)
{
	return (rnd(r, 2) ? IMG_HI : IMG_LO) + 4ull * rnd(r, IMG_WORDS);
}

/* One configuration: bit 0 ETE, bit 1 timestamps and context IDs, bit 2
 * return stack, bit 3 speculation depth 4, bit 4 two sources in frames. */
static void source(struct sy_etm_source *s, unsigned cfg, uint8_t id)
{
	memset(s, 0, sizeof(*s));
	s->trace_id = id;
	s->ete = cfg & 1;
	/* ETMv4 with branch broadcast (TRCCONFIGR.BB): the random packets
	 * below put addresses and atoms in orders no trace unit sends for the
	 * code, which the packet-order rules (etm_agree.c) cut, and a cut's
	 * resynchronisation hides what the decoder remembered from A (the
	 * control below then finds nothing); branch broadcast turns those
	 * rules off.  ETE keeps them on, so a renewal must renew them too. */
	s->trcconfigr = ((cfg & 2) ? (1u << 6 | 1u << 11) : 0) |
			((cfg & 4) ? 1u << 12 : 0) | ((cfg & 1) ? 0 : 1u << 3);
	s->trcidr0 = 0x28000ea1;
	s->trcidr1 = s->ete ? 0x4100fff0 : 0x4100f443;
	s->trcidr2 = 0x488;
	s->trcidr8 = (cfg & 8) ? 4 : 0;
	s->trcdevarch = s->ete ? 0x47715a13 : 0;
}

static struct sy_decoder *new_decoder(struct sy_etm_source *src, unsigned cfg,
				      int full)
{
	struct sy_dec_params p;
	struct sy_decoder *d = NULL;

	source(&src[0], cfg, 0x10);
	source(&src[1], cfg, 0x11);
	memset(&p, 0, sizeof(p));
	p.kind = SY_TRACE_ETM;
	p.read_mem = img_read;
	p.u.etm.formatted = (cfg & 16) != 0;
	p.u.etm.sources = src;
	p.u.etm.nr_sources = (cfg & 16) ? 2 : 1;
	p.u.etm.decoder = full ? SY_ETM_DECODER_FULL : SY_ETM_DECODER_AUTO;
	cr_assert_eq(sy_decoder_alloc(&d, &p), 0);
	return d;
}

/* One source's packets into @out: a synchronisation, an address (with a
 * context unless @bare), then random packets, then random bytes if
 * @junk. */
static void packets(struct rng *r, unsigned cfg, int bare, int junk,
		    struct fx_buf *out)
{
	static const unsigned exc[] = { FX_ETM_EXC_CALL, FX_ETM_EXC_TRAP,
					FX_ETM_EXC_IRQ,
					FX_ETM_EXC_DATA_FAULT };
	struct fx_etm_config c;
	struct fx_etm_enc e;
	unsigned n = 1 + rnd(r, 24);

	fx_etm_config_init(&c);
	c.arch = (cfg & 1) ? FX_ETM_ETE : FX_ETM_V4;
	c.timestamps = c.context_id = (cfg & 2) != 0;
	cr_assert_eq(fx_etm_init(&e, &c), 0);
	fx_etm_async(&e);
	fx_etm_trace_info(&e);
	if (rnd(r, 2))
		fx_etm_trace_on(&e);
	if (bare)
		fx_etm_addr_long64(&e, img_addr(r));
	else
		fx_etm_addr_ctxt(&e, img_addr(r), 1 + rnd(r, 3));
	for (unsigned i = 0; i < n; i++) {
		switch (rnd(r, 9)) {
		case 0:
			fx_etm_atom_flush(&e);
			fx_etm_exception(&e, exc[rnd(r, 4)], img_addr(r),
					 rnd(r, 2) ? FX_ETM_EXC_MATCH_PREV : 0);
			break;
		case 1:
			fx_etm_atom_flush(&e);
			fx_etm_addr_long64(&e, img_addr(r));
			break;
		case 2:
			fx_etm_atom_flush(&e);
			fx_etm_context(&e, 1, 1 + rnd(r, 3));
			break;
		case 3:
			/* the context unchanged: the last one seen */
			fx_etm_atom_flush(&e);
			fx_etm_context(&e, 0, 0);
			break;
		default:
			fx_etm_atom(&e, (cfg & 4) ? 0 : (int)rnd(r, 2));
			break;
		}
	}
	fx_etm_atom_flush(&e);
	fx_buf_put(out, e.out.data, e.out.len);
	fx_etm_fini(&e);
	for (unsigned i = junk ? 1 + rnd(r, 48) : 0; i > 0; i--)
		fx_buf_u8(out, (uint8_t)rnd64(r));
}

/* A window of configuration @cfg: one source's packets, or two sources'
 * in frames; random bytes at the end of some when @junk. */
static void window(struct rng *r, unsigned cfg, int junk, struct fx_buf *out)
{
	int bare = rnd(r, 2);

	junk = junk && rnd(r, 2) && !(cfg & 4);
	fx_buf_init(out);
	if (cfg & 16) {
		struct fx_buf s[2];
		struct fx_csfmt_stream st[2];

		for (int k = 0; k < 2; k++) {
			fx_buf_init(&s[k]);
			packets(r, cfg, bare, junk, &s[k]);
			st[k].trace_id = (uint8_t)(0x10 + k);
			st[k].data = s[k].data;
			st[k].len = s[k].len;
		}
		cr_assert_eq(fx_csfmt_interleave(out, st, 2, 1 + rnd(r, 16), 0),
			     0);
		fx_buf_fini(&s[0]);
		fx_buf_fini(&s[1]);
	} else {
		packets(r, cfg, bare, junk, out);
	}
}

struct result {
	struct sy_dec_item v[MAXITEMS];
	size_t n;
	int end;
	uint64_t bytes, fallbacks, fast_units, full_units;
};

/* Decodes @w with @d, at most @limit items (SIZE_MAX: all). */
static void decode(struct sy_decoder *d, const struct fx_buf *w,
		   size_t limit, struct result *res)
{
	struct sy_dec_chunk ch = { w->data, w->len };
	const struct sy_dec_stats *st;

	cr_assert_eq(sy_decoder_reset(d, &ch, 1, 0), 0);
	res->n = 0;
	res->end = 0;
	while (res->n < limit &&
	       (res->end = sy_decoder_next(d, &res->v[res->n])) == 0) {
		cr_assert_lt(res->n, (size_t)MAXITEMS - 1);
		res->n++;
	}
	st = sy_decoder_stats(d);
	res->bytes = st->bytes;
	res->fallbacks = st->fallbacks;
	res->fast_units = st->fast_units;
	res->full_units = st->full_units;
}

static int same(const struct result *a, const struct result *b)
{
	if (a->n != b->n || a->end != b->end || a->bytes != b->bytes ||
	    a->fallbacks != b->fallbacks || a->fast_units != b->fast_units ||
	    a->full_units != b->full_units)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct sy_dec_item *x = &a->v[i], *y = &b->v[i];

		if (x->kind != y->kind || x->br != y->br || x->exc != y->exc ||
		    x->code != y->code || x->from != y->from ||
		    x->to != y->to || x->time != y->time ||
		    x->ninsn != y->ninsn || x->offset != y->offset)
			return 0;
	}
	return 1;
}

static struct result want, got;

/* Every pair of every configuration through decoder @full (0: the fast
 * path); returns how many pairs a reset-only decoder got wrong. */
static unsigned pairs(int full, unsigned *fallbacks)
{
	unsigned reset_wrong = 0;

	for (unsigned cfg = 0; cfg < 32; cfg++) {
		struct sy_etm_source s_new[2], s_re[2], s_reset[2];
		struct sy_decoder *re = new_decoder(s_re, cfg, full);
		struct sy_decoder *reset = new_decoder(s_reset, cfg, full);
		struct rng r = { 0x9e3779b97f4a7c15ull ^ (cfg * 7919u + 1) };
		struct fx_buf a, b;

		for (unsigned i = 0; i < NPAIRS; i++) {
			struct sy_decoder *fresh = new_decoder(s_new, cfg, full);

			window(&r, cfg, 1, &a);
			window(&r, cfg, 0, &b);
			decode(fresh, &b, SIZE_MAX, &want);
			*fallbacks += (unsigned)want.fallbacks;
			/* A, renewed, B */
			decode(re, &a, SIZE_MAX, &got);
			cr_assert_eq(sy_etm_renew(re), 0);
			decode(re, &b, SIZE_MAX, &got);
			cr_assert(same(&got, &want),
				  "cfg %u pair %u: renewed after a window, "
				  "%zu items, new: %zu", cfg, i, got.n, want.n);
			/* half of A read, renewed twice, B */
			decode(re, &a, got.n / 2, &got);
			cr_assert_eq(sy_etm_renew(re), 0);
			cr_assert_eq(sy_etm_renew(re), 0);
			decode(re, &b, SIZE_MAX, &got);
			cr_assert(same(&got, &want),
				  "cfg %u pair %u: renewed mid-window", cfg, i);
			/* the control: A, reset only, B */
			decode(reset, &a, SIZE_MAX, &got);
			decode(reset, &b, SIZE_MAX, &got);
			reset_wrong += !same(&got, &want);
			sy_decoder_free(fresh);
			fx_buf_fini(&a);
			fx_buf_fini(&b);
		}
		sy_decoder_free(re);
		sy_decoder_free(reset);
	}
	return reset_wrong;
}

Test(etm_renew, fast_path_as_new, .timeout = 300)
{
	unsigned fallbacks = 0, wrong;

	img_fill();
	wrong = pairs(0, &fallbacks);
	cr_log_info("fast path: %u of %u reset-only decodes differ, %u "
		    "fallbacks", wrong, 32 * NPAIRS, fallbacks);
	cr_assert_gt(wrong, 0u, "no pair tells a renewal from a reset");
	cr_assert_gt(fallbacks, 0u, "the fast path never gave a window up");
}

Test(etm_renew, full_decoder_as_new, .timeout = 300)
{
	unsigned fallbacks = 0, wrong;

	img_fill();
	wrong = pairs(1, &fallbacks);
	cr_log_info("full decoder: %u of %u reset-only decodes differ", wrong,
		    32 * NPAIRS);
	cr_assert_gt(wrong, 0u, "no pair tells a renewal from a reset");
}

Test(etm_renew, not_an_etm_decoder)
{
	cr_assert_eq(sy_etm_renew(NULL), -SY_E_INVALID);
}
