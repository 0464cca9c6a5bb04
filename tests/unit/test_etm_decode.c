/* The ETMv4 / ETE window decoder (src/decode/etm*.c) against two oracles:
 *
 *  (a) OpenCSD's own reference decodes: the real snapshots in
 *      ../shared/fixtures/real/opencsd-snapshots (Juno ETMv4, six trace IDs
 *      in one frame-formatted buffer; ETE model captures, one with 64-bit
 *      timestamps) were listed by trc_pkt_lister from libopencsd 1.3.3.
 *      The listing's generic elements are turned into the items the
 *      contract (include/sy_decode.h, table in src/decode/etm_conv.c)
 *      promises and compared with what our decoder gives for the same
 *      bytes through our tree configuration, memory callback and ring;
 *  (b) ground truth: runs of the fixture programs recorded under qemu
 *      (tests/fixtures/truth), cut into windows, encoded by fx_etm (proven
 *      against OpenCSD in test_fx_etm.c) with every knob, decoded by our
 *      decoder.  The expected items are computed here from the executed
 *      instructions and the ETM rules alone: which instructions the trace
 *      proves, which branches were taken and where they went;
 *  (c) bad input: random bytes, truncation, wrong configurations, missing
 *      Trace Info, flipped bits: items or nothing, offsets inside the
 *      window, no hang; and the two inputs that crash OpenCSD 1.3.3 itself
 *      (found by tests/fuzz/fuzz_etm_decode.c) become ERROR items after
 *      which the next window decodes exactly.
 * Plus the decoder's mechanics: the OCSD_RESP_WAIT path (tiny rings), the
 * code-page cache (against read_mem itself), trace-ID filtering in frames,
 * report_from, the context ID read_mem gets (two processes with different
 * code at the same addresses), windows split over many buffers, sync-point
 * search, argument checks, and a negative control (a flipped atom is
 * caught).
 *
 * Items are compared as two parts: the "flow" (BRANCH, START, STOP,
 * OVERFLOW, ERROR) exactly, field by field, each with the number of
 * instructions executed since the previous flow item; and the side items
 * (TIME values, CONTEXT values) as sequences.  Where TIME and CONTEXT sit
 * between flow items is checked by a dedicated test.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz_etm_code.h"
#include "decode/etm.h"
#include "fx_csfmt.h"
#include "fx_etm.h"
#include "fx_truth.h"
#include "sy_bytes.h"
#include "sy_decode.h"
#include "sy_snapshot.h"
#include "sy_test.h"

/* OpenCSD's ocsd_err_t values the items carry (ocsd_if_types.h; the test
 * does not include OpenCSD). */
#define OCSD_ERR_DATA_DECODE_FATAL 16
#define OCSD_ERR_BAD_PACKET_SEQ 19
#define OCSD_ERR_BAD_DECODE_PKT 25
#define OCSD_ERR_MEM_NACC 27

/* See test_fx_etm.c: the LSan suppression of OpenCSD's known leak needs
 * full malloc stacks. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ETM_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ETM_TEST_ASAN 1
#endif
#ifdef ETM_TEST_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

/* OpenCSD 1.3.3 loses a P0 stack element when a bad packet follows an
 * address (found by tests/fuzz/fuzz_etm_decode.c, reproduced with the C
 * API alone); the bad-input tests may hit it. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:EtmV4P0Stack::create\n";
}
#endif

/* ------------------------------------------------------------------ */
/* item lists and the flow / side split                                */
/* ------------------------------------------------------------------ */

struct items {
	struct sy_dec_item *v;
	size_t n, cap;
};

static void items_push(struct items *l, const struct sy_dec_item *it)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		cr_assert_not_null(l->v);
	}
	l->v[l->n++] = *it;
}

static void items_free(struct items *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct flow {
	uint8_t kind, br;
	uint16_t exc;
	uint32_t code;
	uint64_t from, to, ninsn;
};

struct expect {
	struct flow *f;
	size_t nf, capf;
	uint64_t *time;
	size_t nt, capt;
	uint32_t *ctx;
	size_t nc, capc;
	uint32_t *cyc;		/* CYCLES items' counts, in order */
	size_t ncy, capcy;
};

static void x_flow(struct expect *x, const struct flow *f)
{
	if (x->nf == x->capf) {
		x->capf = x->capf ? 2 * x->capf : 256;
		x->f = realloc(x->f, x->capf * sizeof(*x->f));
		cr_assert_not_null(x->f);
	}
	x->f[x->nf++] = *f;
}

static void x_time(struct expect *x, uint64_t t)
{
	if (x->nt == x->capt) {
		x->capt = x->capt ? 2 * x->capt : 64;
		x->time = realloc(x->time, x->capt * sizeof(*x->time));
		cr_assert_not_null(x->time);
	}
	x->time[x->nt++] = t;
}

static void x_ctx(struct expect *x, uint32_t c)
{
	if (x->nc == x->capc) {
		x->capc = x->capc ? 2 * x->capc : 16;
		x->ctx = realloc(x->ctx, x->capc * sizeof(*x->ctx));
		cr_assert_not_null(x->ctx);
	}
	x->ctx[x->nc++] = c;
}

static void x_cyc(struct expect *x, uint32_t c)
{
	if (x->ncy == x->capcy) {
		x->capcy = x->capcy ? 2 * x->capcy : 64;
		x->cyc = realloc(x->cyc, x->capcy * sizeof(*x->cyc));
		cr_assert_not_null(x->cyc);
	}
	x->cyc[x->ncy++] = c;
}

static void x_free(struct expect *x)
{
	free(x->f);
	free(x->time);
	free(x->ctx);
	free(x->cyc);
	memset(x, 0, sizeof(*x));
}

/* Kind 0 in a flow list: instructions counted after the last flow item. */
#define FLOW_TAIL 0

static void to_expect(const struct items *l, struct expect *x)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct sy_dec_item *it = &l->v[i];
		struct flow f;

		acc += it->ninsn;
		switch (it->kind) {
		case SY_DEC_TIME:
			x_time(x, it->time);
			continue;
		case SY_DEC_CONTEXT:
			x_ctx(x, it->code);
			continue;
		case SY_DEC_CYCLES:
			x_cyc(x, it->code);
			continue;
		default:
			break;
		}
		f.kind = it->kind;
		f.br = it->br;
		f.exc = it->exc;
		f.code = it->code;
		f.from = it->from;
		f.to = it->to;
		f.ninsn = acc;
		acc = 0;
		x_flow(x, &f);
	}
	if (acc) {
		struct flow f = { .kind = FLOW_TAIL, .ninsn = acc };

		x_flow(x, &f);
	}
}

static const char *kname(uint8_t k)
{
	return k == FLOW_TAIL ? "tail" : sy_dec_kind_name((enum sy_dec_kind)k);
}

static void flow_str(const struct flow *f, char *b, size_t n)
{
	snprintf(b, n, "%s br=%u code=%u exc=%u from=0x%" PRIx64 " to=0x%" PRIx64
		 " ninsn=%" PRIu64, kname(f->kind), f->br, f->code, f->exc,
		 f->from, f->to, f->ninsn);
}

/* Compares decode (@got) with expectation (@want); on mismatch writes the
 * first difference to @why and returns 0. */
static int x_equal(const struct expect *got, const struct expect *want,
		   char *why, size_t wlen)
{
	size_t n = got->nf < want->nf ? got->nf : want->nf;
	char a[160], b[160];

	for (size_t i = 0; i < n; i++) {
		const struct flow *g = &got->f[i], *w = &want->f[i];

		if (g->kind != w->kind || g->br != w->br || g->exc != w->exc ||
		    g->code != w->code || g->from != w->from ||
		    g->to != w->to || g->ninsn != w->ninsn) {
			flow_str(g, a, sizeof(a));
			flow_str(w, b, sizeof(b));
			snprintf(why, wlen, "flow item %zu of %zu/%zu:\n  got  %s\n"
				 "  want %s", i, got->nf, want->nf, a, b);
			return 0;
		}
	}
	if (got->nf != want->nf) {
		const struct flow *e = got->nf > want->nf ? &got->f[n]
							  : &want->f[n];

		flow_str(e, a, sizeof(a));
		snprintf(why, wlen, "%s has %zu more flow items, first: %s",
			 got->nf > want->nf ? "decode" : "expectation",
			 got->nf > want->nf ? got->nf - n : want->nf - n, a);
		return 0;
	}
	if (got->nt != want->nt) {
		snprintf(why, wlen, "%zu TIME items, want %zu", got->nt,
			 want->nt);
		return 0;
	}
	for (size_t i = 0; i < got->nt; i++)
		if (got->time[i] != want->time[i]) {
			snprintf(why, wlen, "TIME %zu: 0x%" PRIx64 " want 0x%"
				 PRIx64, i, got->time[i], want->time[i]);
			return 0;
		}
	if (got->ncy != want->ncy) {
		snprintf(why, wlen, "%zu CYCLES items, want %zu", got->ncy,
			 want->ncy);
		return 0;
	}
	for (size_t i = 0; i < got->ncy; i++)
		if (got->cyc[i] != want->cyc[i]) {
			snprintf(why, wlen, "CYCLES %zu: %u want %u", i,
				 got->cyc[i], want->cyc[i]);
			return 0;
		}
	if (got->nc != want->nc) {
		snprintf(why, wlen, "%zu CONTEXT items, want %zu", got->nc,
			 want->nc);
		return 0;
	}
	for (size_t i = 0; i < got->nc; i++)
		if (got->ctx[i] != want->ctx[i]) {
			snprintf(why, wlen, "CONTEXT %zu: 0x%x want 0x%x", i,
				 got->ctx[i], want->ctx[i]);
			return 0;
		}
	snprintf(why, wlen, "equal");
	return 1;
}

static size_t x_count(const struct expect *x, uint8_t kind)
{
	size_t c = 0;

	for (size_t i = 0; i < x->nf; i++)
		c += x->f[i].kind == kind;
	return c;
}

static uint64_t x_insns(const struct expect *x)
{
	uint64_t c = 0;

	for (size_t i = 0; i < x->nf; i++)
		c += x->f[i].ninsn;
	return c;
}

/* ------------------------------------------------------------------ */
/* running our decoder                                                 */
/* ------------------------------------------------------------------ */

struct run_opts {
	size_t ring;		/* 0: default */
	int no_cache;
	uint64_t report_from;
	uint32_t ctxid;		/* sy_decoder_set_context */
	size_t chunk;		/* split the window into chunks; 0: one */
	int full_dbg;		/* run_decoder: the full decoder's counters */
};

static void item_str(const struct items *l, size_t i, char *b, size_t n)
{
	const struct sy_dec_item *x = &l->v[i];

	if (i >= l->n) {
		snprintf(b, n, "(none)");
		return;
	}
	snprintf(b, n, "%s br %u exc %u code %u %#" PRIx64 "->%#" PRIx64
		 " t %" PRIu64 " n %" PRIu64 " @%" PRIu64,
		 sy_dec_kind_name(x->kind), x->br, x->exc, x->code, x->from,
		 x->to, x->time, x->ninsn, x->offset);
}

static void items_same(const struct items *a, const struct items *b,
		       const char *what)
{
	size_t n = a->n > b->n ? a->n : b->n;

	for (size_t i = 0; i < n; i++) {
		const struct sy_dec_item *x = &a->v[i], *y = &b->v[i];
		char sa[160], sb[160];

		if (i < a->n && i < b->n && x->kind == y->kind &&
		    x->br == y->br && x->exc == y->exc && x->code == y->code &&
		    x->from == y->from && x->to == y->to &&
		    x->time == y->time && x->ninsn == y->ninsn &&
		    x->offset == y->offset)
			continue;
		item_str(a, i, sa, sizeof(sa));
		item_str(b, i, sb, sizeof(sb));
		cr_assert_fail("%s: item %zu of %zu/%zu differs: %s | %s", what,
			       i, a->n, b->n, sa, sb);
	}
}

/* Decodes @buf with @p into @out.  Asserts the contract that holds for
 * any input: next() ends with -SY_E_EOS, never hangs, offsets lie inside
 * the window, kinds and branch kinds are valid, ninsn adds up with the
 * statistics. */
static void decode_once(const struct sy_dec_params *p, const uint8_t *buf,
			size_t len, const struct run_opts *o,
			struct items *out, struct sy_etm_debug *dbg,
			struct sy_dec_stats *stats)
{
	struct sy_dec_chunk *ch = NULL;
	struct sy_decoder *d;
	struct sy_dec_item it;
	size_t nch = 0, limit = 64 * len + 100000;
	uint64_t insns = 0, branches = 0;
	int err;

	memset(out, 0, sizeof(*out));
	cr_assert_eq(sy_decoder_alloc(&d, p), 0);
	if (o && o->ring)
		cr_assert_eq(sy_etm_set_ring(d, o->ring), 0);
	if (o && o->no_cache)
		cr_assert_eq(sy_etm_set_mem_cache(d, 0), 0);
	if (o && o->ctxid)
		sy_decoder_set_context(d, o->ctxid);
	ch = calloc(o && o->chunk ? len / o->chunk + 1 : 1, sizeof(*ch));
	cr_assert_not_null(ch);
	if (o && o->chunk) {
		for (size_t at = 0; at < len; at += o->chunk) {
			ch[nch].data = buf + at;
			ch[nch].len = len - at < o->chunk ? len - at : o->chunk;
			nch++;
		}
	} else if (len) {
		ch[0].data = buf;
		ch[0].len = len;
		nch = 1;
	}
	cr_assert_eq(sy_decoder_reset(d, ch, nch, o ? o->report_from : 0), 0);
	while ((err = sy_decoder_next(d, &it)) == 0) {
		cr_assert_lt(out->n, limit, "decoder does not stop");
		cr_assert((it.kind >= SY_DEC_BRANCH &&
			   it.kind <= SY_DEC_CONTEXT) || it.kind == SY_DEC_CYCLES,
			  "bad item kind %u", it.kind);
		cr_assert_leq(it.offset, len, "item offset %" PRIu64
			      " beyond the window (%zu)", it.offset, len);
		if (o)
			cr_assert_geq(it.offset, o->report_from);
		if (it.kind == SY_DEC_BRANCH) {
			cr_assert(it.br > SY_BR_NONE && it.br < SY_BR_NR &&
				  it.br != SY_BR_SYSCALL, "bad branch kind");
			branches++;
		}
		insns += it.ninsn;
		items_push(out, &it);
	}
	cr_assert_eq(err, -SY_E_EOS, "next: %s", sy_errname(err));
	cr_assert_eq(sy_decoder_next(d, &it), -SY_E_EOS);
	cr_assert_eq(sy_decoder_stats(d)->insns, insns);
	cr_assert_eq(sy_decoder_stats(d)->branches, branches);
	cr_assert_leq(sy_decoder_stats(d)->bytes, len);
	*dbg = *sy_etm_debug(d);
	*stats = *sy_decoder_stats(d);
	sy_decoder_free(d);
	free(ch);
}

/* Windows the fast path finished, and gave up, over the whole run. */
static uint64_t fast_units, fast_fallbacks;

/* Every decode of this file runs twice: the fast path (the default) and
 * OpenCSD's full decoder must give the same items, field for field, and
 * count the same bytes.  The fast path's counters come back in @dbg
 * unless o->full_dbg. */
static void run_decoder(const struct sy_dec_params *p, const uint8_t *buf,
			size_t len, const struct run_opts *o,
			struct items *out, struct sy_etm_debug *dbg)
{
	struct sy_dec_params pf = *p;
	struct sy_etm_debug gfast, gfull;
	struct sy_dec_stats sfast, sfull;
	struct items full;

	pf.u.etm.decoder = SY_ETM_DECODER_FULL;
	decode_once(p, buf, len, o, out, &gfast, &sfast);
	decode_once(&pf, buf, len, o, &full, &gfull, &sfull);
	items_same(out, &full, "fast path vs full decoder");
	items_free(&full);
	cr_assert_eq(sfast.bytes, sfull.bytes);
	cr_assert_eq(sfull.full_units, 1);
	cr_assert_eq(sfull.fast_units + sfull.fallbacks, 0);
	if (p->u.etm.decoder == SY_ETM_DECODER_AUTO) {
		cr_assert_eq(sfast.fast_units + sfast.full_units, 1);
		cr_assert_eq(sfast.full_units, sfast.fallbacks);
		fast_units += sfast.fast_units;
		fast_fallbacks += sfast.fallbacks;
	}
	if (dbg)
		*dbg = o && o->full_dbg ? gfull : gfast;
}

/* ------------------------------------------------------------------ */
/* ground truth: programs, memory, the model of what a window proves   */
/* ------------------------------------------------------------------ */

static const char *const progs[] = {
	"branchy-aarch64", "branchy-aarch64-pac", "branchy-aarch64-pie",
};

static void load_truth(struct fx_truth *t, const char *name)
{
	char tp[256], ep[256];
	struct sy_diag dg;
	int err;

	snprintf(tp, sizeof(tp), "tests/fixtures/truth/%s.truth", name);
	snprintf(ep, sizeof(ep), "tests/fixtures/programs/bin/%s", name);
	memset(&dg, 0, sizeof(dg));
	err = fx_truth_load(t, tp, ep, &dg);
	cr_assert_eq(err, 0, "%s: %s (%s)", name, sy_errname(err), dg.msg);
	cr_assert_gt(t->n, 1000);
}

/* read_mem over the program image.  Context IDs: when @want_ctx is set,
 * reads under any other context ID return nothing (another process) and
 * are counted. */
struct tmem {
	const struct fx_truth *t;
	int check_ctx;
	uint32_t want_ctx;
	size_t wrong_ctx;
	size_t calls;
};

static size_t tmem_read(void *ctx, uint32_t ctxid, uint64_t addr,
			uint8_t *buf, size_t len)
{
	struct tmem *m = ctx;
	size_t lo = 0, hi = len / 4;

	m->calls++;
	if (m->check_ctx && ctxid != m->want_ctx) {
		m->wrong_ctx++;
		return 0;
	}
	if (fx_truth_read_mem(m->t, addr, buf, len) == 0)
		return len;
	/* Longest readable prefix in whole words (segments end on 4-byte
	 * boundaries in these images). */
	while (lo < hi) {
		size_t mid = (lo + hi + 1) / 2;

		if (fx_truth_read_mem(m->t, addr, buf, 4 * mid) == 0)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (lo)
		fx_truth_read_mem(m->t, addr, buf, 4 * lo);
	return 4 * lo;
}

static int is_waypoint(const struct fx_insn *in)
{
	return in->kind != SY_BR_NONE && in->kind != SY_BR_SYSCALL;
}

static int is_direct(uint8_t kind)
{
	return kind == SY_BR_COND || kind == SY_BR_JUMP || kind == SY_BR_CALL;
}

/* The model: what a decoder that follows the contract must report for
 * encoded windows, from the executed instructions alone.  An instruction
 * is proven when a later P0 element covers it: the next waypoint's atom
 * or an exception's return address; anything after the last one is
 * never reported (ETM has nothing that says "trace stopped here"). */
struct model {
	struct expect *x;
	int cid, ts;
	int started, pending;
	struct fx_insn pend;		/* the taken branch whose target waits */
	const struct fx_insn *last;	/* last proven instruction */
	uint64_t acc;			/* proven since the last flow item */
	int have_ctx;
	uint32_t ctx;
	/* A Trace On while the flow runs (a new enable period after a window
	 * that just stopped): OpenCSD reports it with the next P0 element,
	 * and an overflow or the end of the data before that drops it. */
	int trace_on_queued;
	/* Likewise the context of an Address with Context packet: an
	 * overflow before the next P0 element discards it. */
	int ctx_queued;
	uint32_t ctx_next;
};

static void m_init(struct model *m, struct expect *x, int cid, int ts)
{
	memset(m, 0, sizeof(*m));
	m->x = x;
	m->cid = cid;
	m->ts = ts;
}

static void m_flow(struct model *m, uint8_t kind, uint8_t br, uint32_t code,
		   uint16_t exc, uint64_t from, uint64_t to)
{
	struct flow f = { .kind = kind, .br = br, .exc = exc, .code = code,
			  .from = from, .to = to, .ninsn = m->acc };

	m->acc = 0;
	x_flow(m->x, &f);
}

static void m_stop_gap(struct model *m, enum sy_stop_reason code);

static void m_trace_on(struct model *m)
{
	if (m->trace_on_queued) {
		m->trace_on_queued = 0;
		m_stop_gap(m, SY_STOP_DISABLE);
	}
	if (m->ctx_queued) {
		m->ctx_queued = 0;
		if (!m->have_ctx || m->ctx != m->ctx_next) {
			m->have_ctx = 1;
			m->ctx = m->ctx_next;
			x_ctx(m->x, m->ctx);
		}
	}
}

static void m_prove(struct model *m, const struct fx_insn *in)
{
	m_trace_on(m);
	if (!m->started) {
		m_flow(m, SY_DEC_START, 0, 0, 0, 0, in->pc);
		m->started = 1;
	} else if (m->pending) {
		cr_assert_eq(m->pend.next, in->pc, "model: broken flow");
		m_flow(m, SY_DEC_BRANCH, m->pend.kind, 0, 0, m->pend.pc, in->pc);
		m->pending = 0;
	}
	m->acc++;
	m->last = in;
	if (is_waypoint(in) && fx_insn_taken(in)) {
		m->pending = 1;
		m->pend = *in;
	}
}

static void m_exception(struct model *m, uint64_t ret, unsigned type)
{
	uint64_t from;

	m_trace_on(m);
	from = m->started ? m->last->pc : 0;

	if (m->pending) {
		/* The exception came before the target executed. */
		cr_assert_eq(m->pend.next, ret, "model: IRQ not at target");
		m_flow(m, SY_DEC_BRANCH, m->pend.kind, 0, 0, m->pend.pc, ret);
		m->pending = 0;
	}
	m_flow(m, SY_DEC_STOP, 0, type == FX_ETM_EXC_CALL ? SY_STOP_SYSCALL :
	       SY_STOP_EXCEPTION, (uint16_t)type, from, ret);
	m->started = 0;
}

/* The flow breaks without an address: a taken direct branch keeps its
 * target (E atom + encoding), an indirect one is lost.  Returns the
 * address execution continues at when known, else 0. */
static uint64_t m_gap(struct model *m)
{
	uint64_t next = 0;

	if (!m->started)
		return 0;
	if (m->pending) {
		if (is_direct(m->pend.kind)) {
			m_flow(m, SY_DEC_BRANCH, m->pend.kind, 0, 0, m->pend.pc,
			       m->pend.next);
			next = m->pend.next;
		}
		m->pending = 0;
	} else if (m->last) {
		next = m->last->pc + m->last->size;
	}
	return next;
}

static void m_stop_gap(struct model *m, enum sy_stop_reason code)
{
	uint64_t next;

	if (!m->started)
		return;
	next = m_gap(m);
	m_flow(m, SY_DEC_STOP, 0, code, 0, m->last->pc, next);
	m->started = 0;
}

static void m_overflow(struct model *m)
{
	m->trace_on_queued = 0;
	m->ctx_queued = 0;
	m_gap(m);
	m->started = 0;
	m_flow(m, SY_DEC_OVERFLOW, 0, 0, 0, 0, 0);
}

static uint64_t w_ts(const struct fx_etm_window *w, size_t i)
{
	if (w->ts_fn)
		return w->ts_fn(w->ts_ctx, i);
	if (w->ts_table)
		return w->ts_table[i];
	return w->ts0 + (uint64_t)i * w->cycles_per_insn;
}

/* Trace (re)starts: Trace On / Trace Info + Address with Context (+ TS). */
static void m_restart(struct model *m, const struct fx_etm_window *w,
		      size_t i)
{
	if (m->started)
		m->trace_on_queued = 1;
	if (m->cid) {
		m->ctx_queued = 1;
		m->ctx_next = w->pid;
	}
	if (m->ts)
		x_time(m->x, w_ts(w, i));
}

/* What one fx_etm_enc_window() of @in[0..n) proves (same knobs). */
static void m_window(struct model *m, const struct fx_insn *in, size_t n,
		     const struct fx_etm_window *w)
{
	size_t first = 0, waypoints = 0, i;
	int untraced = 0;

	m_restart(m, w, 0);
	for (i = 0; i < n; i++) {
		untraced = 0;
		if (in[i].kind == SY_BR_SYSCALL) {
			for (size_t k = first; k <= i; k++)
				m_prove(m, &in[k]);
			m_exception(m, in[i].pc + in[i].size, FX_ETM_EXC_CALL);
			first = i + 1;
			if (i + 1 < n)
				m_restart(m, w, i + 1);
			else
				untraced = 1;
		} else if (is_waypoint(&in[i])) {
			for (size_t k = first; k <= i; k++)
				m_prove(m, &in[k]);
			first = i + 1;
			waypoints++;
			if (w->resync_period && i + 1 < n &&
			    waypoints % w->resync_period == 0 && m->ts)
				x_time(m->x, w_ts(w, i + 1));
		}
		if (i == w->overflow_after && i + 1 < n) {
			size_t resume = i + 1 + w->overflow_lost;

			m_overflow(m);
			if (resume >= n) {
				untraced = 1;
				break;
			}
			m_restart(m, w, resume);
			first = resume;
			i = resume - 1;
		}
	}
	if (w->end == FX_ETM_END_EXCEPTION && !untraced) {
		for (size_t k = first; k < n; k++)
			m_prove(m, &in[k]);
		m_exception(m, w->end_ip, FX_ETM_EXC_IRQ);
	}
}

/* End of the decoded bytes. */
static void m_end(struct model *m)
{
	m->trace_on_queued = 0;
	m_stop_gap(m, SY_STOP_END);
	if (m->acc) {
		struct flow f = { .kind = FLOW_TAIL, .ninsn = m->acc };

		x_flow(m->x, &f);
	}
}

/* ---- one trace source: encoder + model ---- */

struct tsrc {
	struct fx_etm_config cfg;
	struct fx_etm_enc enc;
	struct expect want;
	struct model m;
	struct sy_etm_source s;
};

static void tsrc_init(struct tsrc *t, const struct fx_etm_config *cfg)
{
	memset(t, 0, sizeof(*t));
	t->cfg = *cfg;
	cr_assert_eq(fx_etm_init(&t->enc, cfg), 0);
	m_init(&t->m, &t->want, cfg->context_id, cfg->timestamps);
	cr_assert_eq(fx_etm_source(cfg, &t->s), 0);
}

static void tsrc_fini(struct tsrc *t)
{
	fx_etm_fini(&t->enc);
	x_free(&t->want);
}

static void tsrc_window(struct tsrc *t, const struct fx_insn *in, size_t n,
			const struct fx_etm_window *w)
{
	cr_assert_eq(fx_etm_enc_window(&t->enc, in, n, w), 0);
	m_window(&t->m, in, n, w);
}

static void params_init(struct sy_dec_params *p, struct tmem *mem,
			const struct sy_etm_source *src, size_t nsrc,
			int formatted, uint8_t trace_id)
{
	memset(p, 0, sizeof(*p));
	p->kind = SY_TRACE_ETM;
	p->read_mem = tmem_read;
	p->mem_ctx = mem;
	p->u.etm.formatted = formatted;
	p->u.etm.sources = src;
	p->u.etm.nr_sources = nsrc;
	p->u.etm.trace_id = trace_id;
}

/* What the random runs exercised: the tests fail if a construct never
 * occurred, so a change in the generator cannot silently shrink them. */
struct coverage {
	size_t br[SY_BR_NR];
	size_t stop[SY_STOP_END + 1];
	size_t irq_at_target, overflows, starts, times, contexts;
	size_t waits, windows;
};

static struct coverage cov;

static void count_coverage(const struct expect *x, const struct sy_etm_debug *g)
{
	for (size_t i = 0; i < x->nf; i++) {
		const struct flow *f = &x->f[i];

		switch (f->kind) {
		case SY_DEC_BRANCH:
			cov.br[f->br]++;
			if (i + 1 < x->nf && x->f[i + 1].kind == SY_DEC_STOP &&
			    x->f[i + 1].ninsn == 0 && x->f[i + 1].to == f->to)
				cov.irq_at_target++;
			break;
		case SY_DEC_STOP:
			if (f->code <= SY_STOP_END)
				cov.stop[f->code]++;
			break;
		case SY_DEC_OVERFLOW:
			cov.overflows++;
			break;
		case SY_DEC_START:
			cov.starts++;
			break;
		default:
			break;
		}
	}
	cov.times += x->nt;
	cov.contexts += x->nc;
	cov.waits += g->waits;
}

/* The expectation of @t with the end of the data applied, on a copy so
 * that more windows can be appended to the source afterwards. */
static void tsrc_expect(const struct tsrc *t, struct expect *want)
{
	struct model m = t->m;

	memset(want, 0, sizeof(*want));
	for (size_t i = 0; i < t->want.nf; i++)
		x_flow(want, &t->want.f[i]);
	for (size_t i = 0; i < t->want.nt; i++)
		x_time(want, t->want.time[i]);
	for (size_t i = 0; i < t->want.nc; i++)
		x_ctx(want, t->want.ctx[i]);
	m.x = want;
	m_end(&m);
}

/* Decodes @buf as source @t (raw, or one of @all in frames) and returns
 * whether it matches @t's model (@why says how not).  The items are kept
 * in @keep when not NULL. */
static int decode_matches(struct tsrc *t, const struct sy_etm_source *all,
			  size_t nall, int formatted, uint8_t trace_id,
			  const uint8_t *buf, size_t len, struct tmem *mem,
			  const struct run_opts *o, struct items *keep,
			  char *why, size_t wlen)
{
	struct sy_dec_params p;
	struct sy_etm_debug g;
	struct items got;
	struct expect gx, want;
	int eq;

	params_init(&p, mem, all, nall, formatted, trace_id);
	run_decoder(&p, buf, len, o, &got, &g);
	memset(&gx, 0, sizeof(gx));
	to_expect(&got, &gx);
	tsrc_expect(t, &want);
	eq = x_equal(&gx, &want, why, wlen);
	count_coverage(&gx, &g);
	if (keep)
		*keep = got;
	else
		items_free(&got);
	x_free(&gx);
	x_free(&want);
	return eq;
}

static void check_decode(struct tsrc *t, const struct sy_etm_source *all,
			 size_t nall, int formatted, uint8_t trace_id,
			 const uint8_t *buf, size_t len, struct tmem *mem,
			 const struct run_opts *o, const char *what)
{
	char why[1024];

	cr_assert(decode_matches(t, all, nall, formatted, trace_id, buf, len,
				 mem, o, NULL, why, sizeof(why)),
		  "%s: %s", what, why);
}

/* One window of @t, raw, checked against the model; the items are left in
 * @got (may be NULL). */
static void one_window(const struct fx_truth *t, struct tmem *mem,
		       const struct fx_etm_config *cfg, size_t a, size_t b,
		       const struct fx_etm_window *w, const struct run_opts *o,
		       struct items *got, const char *what)
{
	struct tsrc s;
	char why[1024];

	tsrc_init(&s, cfg);
	tsrc_window(&s, t->insns + a, b - a, w);
	cr_assert(decode_matches(&s, &s.s, 1, 0, 0, s.enc.out.data,
				 s.enc.out.len, mem, o, got, why, sizeof(why)),
		  "%s [%zu, %zu): %s", what, a, b, why);
	tsrc_fini(&s);
}

/* ------------------------------------------------------------------ */
/* (b) ground truth: randomised windows                                */
/* ------------------------------------------------------------------ */

struct rng {
	uint64_t s;
};

static uint64_t rnd64(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

static size_t rnd(struct rng *r, size_t n)
{
	return n ? (size_t)(rnd64(r) >> 11) % n : 0;
}

static void fill_random(struct rng *r, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(rnd64(r) >> 56);
}

/* Irregular timestamps with bit 63 set and multi-byte jumps. */
static uint64_t odd_ts(void *ctx, size_t i)
{
	uint64_t base = *(const uint64_t *)ctx;

	return base + (uint64_t)i * 0x10203 +
	       ((uint64_t)(i * i) % 977) * 0x4000000ull;
}

/* A random window of the truth.  A stream that just stops is cut after a
 * waypoint or an SVC: after a restart (Trace On + Timestamp) OpenCSD
 * releases the timestamp only with a later P0 element, and drops it at the
 * end of the data otherwise (test_fx_etm.c, model_eot). */
static void pick_window(struct rng *r, const struct fx_truth *t,
			size_t maxlen, size_t *a, size_t *b, int *irq)
{
	for (;;) {
		size_t len = 1 + rnd(r, maxlen);

		*a = rnd(r, t->n - 2 - len);
		*b = *a + len;
		*irq = rnd(r, 3) != 0;
		if (!*irq) {
			while (*b > *a && !is_waypoint(&t->insns[*b - 1]) &&
			       t->insns[*b - 1].kind != SY_BR_SYSCALL)
				(*b)--;
			if (*b == *a)
				continue;
		}
		return;
	}
}

static void random_window_knobs(struct rng *r, struct fx_etm_window *w,
				const struct fx_insn *in, size_t n, int irq,
				uint64_t *ts_base)
{
	static const unsigned periods[] = { 0, 0, 1, 2, 3, 7, 40 };

	fx_etm_window_init(w);
	w->pid = 100 + (uint32_t)rnd(r, 3);
	w->end = irq ? FX_ETM_END_EXCEPTION : FX_ETM_END_NONE;
	w->end_ip = in[n - 1].next;
	switch (rnd(r, 3)) {
	case 0:
		w->ts0 = rnd64(r) >> 24;
		w->cycles_per_insn = 1 + rnd(r, 1000);
		break;
	case 1:
		*ts_base = 0xfffffff000000000ull + (rnd64(r) >> 40);
		w->ts_fn = odd_ts;
		w->ts_ctx = ts_base;
		break;
	default:
		w->ts0 = 1;
		w->cycles_per_insn = 3;
		break;
	}
	w->resync_period = periods[rnd(r, SY_ARRAY_SIZE(periods))];
	if (n > 2 && rnd(r, 4) == 0) {
		w->overflow_after = rnd(r, n - 1);
		w->overflow_lost = rnd(r, 4) == 0 ? n : rnd(r, 30);
	}
}

static void random_config(struct rng *r, struct fx_etm_config *cfg,
			  uint8_t id)
{
	fx_etm_config_init(cfg);
	cfg->arch = rnd(r, 2) ? FX_ETM_ETE : FX_ETM_V4;
	cfg->trace_id = id;
	cfg->timestamps = (int)rnd(r, 2);
	cfg->context_id = (int)rnd(r, 2);
	cfg->compress = rnd(r, 4) != 0;
	cfg->tinfo = (enum fx_etm_tinfo)rnd(r, 3);
}

#define MAXSRC 3

static void random_case(const struct fx_truth *t, struct tmem *mem,
			struct rng *r, unsigned iter, size_t maxlen)
{
	static const size_t rings[] = { 0, 0, 1, 2, 3, 5, 64 };
	struct tsrc src[MAXSRC];
	struct sy_etm_source all[MAXSRC];
	struct fx_buf fb;
	struct run_opts o;
	uint64_t ts_base[MAXSRC][4];
	int formatted = (int)rnd(r, 2);
	size_t nsrc = formatted ? 1 + rnd(r, MAXSRC) : 1;
	const uint8_t *buf;
	size_t len;
	char what[256];

	fx_buf_init(&fb);
	for (size_t k = 0; k < nsrc; k++) {
		struct fx_etm_config cfg;
		size_t nwin = 1 + rnd(r, 3);

		random_config(r, &cfg, (uint8_t)(0x10 + 2 * k + rnd(r, 2)));
		tsrc_init(&src[k], &cfg);
		for (size_t wi = 0; wi < nwin; wi++) {
			struct fx_etm_window w;
			size_t a, b;
			int irq;

			pick_window(r, t, maxlen, &a, &b, &irq);
			random_window_knobs(r, &w, t->insns + a, b - a, irq,
					    &ts_base[k][wi]);
			tsrc_window(&src[k], t->insns + a, b - a, &w);
		}
		all[k] = src[k].s;
	}
	if (formatted) {
		struct fx_csfmt_stream st[MAXSRC];

		for (size_t k = 0; k < nsrc; k++) {
			st[k].trace_id = src[k].cfg.trace_id;
			st[k].data = src[k].enc.out.data;
			st[k].len = src[k].enc.out.len;
		}
		cr_assert_eq(fx_csfmt_interleave(&fb, st, nsrc, rnd(r, 40),
						 rnd(r, 2) ? FX_CSFMT_BARRIER : 0),
			     0);
		buf = fb.data;
		len = fb.len;
	} else {
		buf = src[0].enc.out.data;
		len = src[0].enc.out.len;
	}
	memset(&o, 0, sizeof(o));
	o.full_dbg = 1;	/* the WAIT path is the full decoder's */
	o.ring = rings[rnd(r, SY_ARRAY_SIZE(rings))];
	o.no_cache = rnd(r, 3) == 0;
	if (rnd(r, 3) == 0)
		o.chunk = rnd(r, 2) ? 16 * (1 + rnd(r, 8)) : 1 + rnd(r, 200);
	for (size_t k = 0; k < nsrc; k++) {
		snprintf(what, sizeof(what),
			 "iter %u src %zu/%zu %s id 0x%x fmt %d ts %d cid %d "
			 "compress %d tinfo %d ring %zu cache %d chunk %zu", iter,
			 k, nsrc, src[k].cfg.arch == FX_ETM_ETE ? "ETE" : "ETMv4",
			 src[k].cfg.trace_id, formatted, src[k].cfg.timestamps,
			 src[k].cfg.context_id, src[k].cfg.compress,
			 src[k].cfg.tinfo, o.ring, !o.no_cache, o.chunk);
		check_decode(&src[k], all, nsrc, formatted,
			     formatted || rnd(r, 2) ? src[k].cfg.trace_id : 0,
			     buf, len, mem, &o, what);
	}
	for (size_t k = 0; k < nsrc; k++)
		tsrc_fini(&src[k]);
	fx_buf_fini(&fb);
}

static void random_program(const char *prog, uint64_t seed, unsigned iters,
			   size_t maxlen)
{
	struct fx_truth t;
	struct tmem mem;
	struct rng r = { seed * 0x9e3779b97f4a7c15ull + 7 };
	const char *env = getenv("ETM_TEST_ITERS");	/* longer soak runs */

	if (env)
		iters = (unsigned)strtoul(env, NULL, 0);
	load_truth(&t, prog);
	memset(&mem, 0, sizeof(mem));
	mem.t = &t;
	memset(&cov, 0, sizeof(cov));
	fast_units = fast_fallbacks = 0;
	for (unsigned i = 0; i < iters; i++)
		random_case(&t, &mem, &r, i, maxlen);
	/* valid trace: the fast path decoded every window itself */
	cr_assert_gt(fast_units, iters);
	cr_assert_eq(fast_fallbacks, 0);
	/* Everything the generator can produce did occur. */
	for (int k = SY_BR_COND; k <= SY_BR_RET; k++)
		cr_assert_gt(cov.br[k], 0, "no %s branch",
			     sy_branch_kind_name((enum sy_branch_kind)k));
	cr_assert_gt(cov.stop[SY_STOP_SYSCALL], 0);
	cr_assert_gt(cov.stop[SY_STOP_EXCEPTION], 0);
	cr_assert_gt(cov.stop[SY_STOP_END], 0);
	cr_assert_gt(cov.stop[SY_STOP_DISABLE], 0);
	cr_assert_gt(cov.irq_at_target, 0);
	cr_assert_gt(cov.overflows, 0);
	cr_assert_gt(cov.times, 0);
	cr_assert_gt(cov.contexts, 0);
	cr_assert_gt(cov.waits, 0);
	fx_truth_fini(&t);
}

Test(etm_truth, random_windows_plain)
{
	random_program("branchy-aarch64", 1, 300, 3000);
}

Test(etm_truth, random_windows_pauth)
{
	random_program("branchy-aarch64-pac", 2, 300, 3000);
}

Test(etm_truth, random_windows_pie)
{
	random_program("branchy-aarch64-pie", 3, 300, 3000);
}

Test(etm_truth, random_short_windows)
{
	random_program("branchy-aarch64", 4, 1500, 40);
}

/* ------------------------------------------------------------------ */
/* (b) ground truth: targeted properties                               */
/* ------------------------------------------------------------------ */

static const struct flow *last_flow(const struct expect *x)
{
	cr_assert_gt(x->nf, 0);
	return &x->f[x->nf - 1];
}

/* IRQ at the end of a window: the last item is STOP(EXCEPTION) whose
 * address is the first instruction that did not execute, i.e. the pause
 * sample's IP, and every instruction of the window is counted. */
Test(etm_truth, irq_end_is_pause_ip)
{
	for (size_t pi = 0; pi < SY_ARRAY_SIZE(progs); pi++) {
		struct fx_truth t;
		struct tmem mem = { 0 };
		size_t at_branch = 0, at_ret = 0;

		load_truth(&t, progs[pi]);
		mem.t = &t;
		for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
			struct fx_etm_config cfg;

			fx_etm_config_init(&cfg);
			cfg.arch = (enum fx_etm_arch)arch;
			for (size_t b = 18550; b < 18700; b++) {
				struct fx_etm_window w;
				struct items got;
				struct expect x = { 0 };
				size_t a = b - 1 - (b * 7) % 97;
				const struct fx_insn *end = &t.insns[b - 1];

				fx_etm_window_init(&w);
				w.end = FX_ETM_END_EXCEPTION;
				w.end_ip = end->next;
				one_window(&t, &mem, &cfg, a, b, &w, NULL, &got,
					   progs[pi]);
				to_expect(&got, &x);
				cr_assert_eq(last_flow(&x)->kind, SY_DEC_STOP);
				if (end->kind == SY_BR_SYSCALL) {
					/* ends in EL1: no IRQ packet */
					cr_assert_eq(last_flow(&x)->code,
						     SY_STOP_SYSCALL);
				} else {
					cr_assert_eq(last_flow(&x)->code,
						     SY_STOP_EXCEPTION);
					cr_assert_eq(last_flow(&x)->exc, 0xe);
				}
				cr_assert_eq(last_flow(&x)->to, end->next,
					     "STOP to 0x%" PRIx64 " want 0x%"
					     PRIx64, last_flow(&x)->to, end->next);
				cr_assert_eq(last_flow(&x)->from, end->pc);
				cr_assert_eq(x_insns(&x), b - a);
				if (fx_insn_taken(end) && end->kind != SY_BR_SYSCALL) {
					at_branch++;
					at_ret += end->kind == SY_BR_RET;
				}
				items_free(&got);
				x_free(&x);
			}
		}
		cr_assert_gt(at_branch, 0);
		cr_assert_gt(at_ret, 0);
		fx_truth_fini(&t);
	}
}

/* A stream that just stops: STOP(END) after the last waypoint, its
 * address known for a direct branch (from the encoding) or a fall-
 * through, 0 after an indirect branch, which is then not reported. */
Test(etm_truth, stream_just_stops)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	size_t seen_direct = 0, seen_indirect = 0, seen_not_taken = 0;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	for (size_t b = 2000; b < 2400; b++) {
		const struct fx_insn *end = &t.insns[b - 1];
		struct fx_etm_config cfg;
		struct fx_etm_window w;
		struct items got;
		struct expect x = { 0 };
		size_t a = b - 50, nbr = 0;

		if (!is_waypoint(end))
			continue;
		fx_etm_config_init(&cfg);
		cfg.arch = b % 2 ? FX_ETM_ETE : FX_ETM_V4;
		fx_etm_window_init(&w);
		one_window(&t, &mem, &cfg, a, b, &w, NULL, &got, "stops");
		to_expect(&got, &x);
		cr_assert_eq(last_flow(&x)->kind, SY_DEC_STOP);
		cr_assert_eq(last_flow(&x)->code, SY_STOP_END);
		cr_assert_eq(last_flow(&x)->from, end->pc);
		cr_assert_eq(x_insns(&x), b - a);
		for (size_t i = a; i < b; i++)
			nbr += fx_insn_taken(&t.insns[i]);
		if (!fx_insn_taken(end)) {
			seen_not_taken++;
			cr_assert_eq(last_flow(&x)->to, end->pc + 4);
			cr_assert_eq(x_count(&x, SY_DEC_BRANCH), nbr);
		} else if (is_direct(end->kind)) {
			seen_direct++;
			cr_assert_eq(last_flow(&x)->to, end->next);
			cr_assert_eq(x_count(&x, SY_DEC_BRANCH), nbr);
			cr_assert_eq(x.f[x.nf - 2].kind, SY_DEC_BRANCH);
			cr_assert_eq(x.f[x.nf - 2].to, end->next);
		} else {
			seen_indirect++;
			cr_assert_eq(last_flow(&x)->to, 0);
			cr_assert_eq(x_count(&x, SY_DEC_BRANCH), nbr - 1);
		}
		items_free(&got);
		x_free(&x);
	}
	cr_assert_gt(seen_direct, 0);
	cr_assert_gt(seen_indirect, 0);
	cr_assert_gt(seen_not_taken, 0);
	fx_truth_fini(&t);
}

/* Every SVC inside a window: STOP(SYSCALL) at svc + 4 from the SVC, then
 * START at svc + 4 (EL1 is not traced). */
Test(etm_truth, syscalls_inside_windows)
{
	for (size_t pi = 0; pi < SY_ARRAY_SIZE(progs); pi++) {
		struct fx_truth t;
		struct tmem mem = { 0 };
		size_t nsvc = 0;

		load_truth(&t, progs[pi]);
		mem.t = &t;
		for (size_t i = 100; i + 100 < t.n; i++) {
			const struct fx_insn *svc = &t.insns[i];
			struct fx_etm_config cfg;
			struct fx_etm_window w;
			struct items got;
			struct expect x = { 0 };
			size_t k;

			if (svc->kind != SY_BR_SYSCALL)
				continue;
			fx_etm_config_init(&cfg);
			cfg.arch = nsvc % 2 ? FX_ETM_ETE : FX_ETM_V4;
			cfg.timestamps = 1;
			cfg.context_id = 1;
			fx_etm_window_init(&w);
			w.pid = 77;
			w.end = FX_ETM_END_EXCEPTION;
			w.end_ip = t.insns[i + 60].next;
			one_window(&t, &mem, &cfg, i - 40, i + 61, &w, NULL,
				   &got, progs[pi]);
			to_expect(&got, &x);
			for (k = 0; k < x.nf; k++)
				if (x.f[k].code == SY_STOP_SYSCALL &&
				    x.f[k].kind == SY_DEC_STOP)
					break;
			cr_assert_lt(k + 1, x.nf, "no syscall STOP");
			cr_assert_eq(x.f[k].to, svc->pc + 4);
			cr_assert_eq(x.f[k].from, svc->pc);
			cr_assert_eq(x.f[k].exc, 2);
			cr_assert_eq(x.f[k + 1].kind, SY_DEC_START);
			cr_assert_eq(x.f[k + 1].to, svc->pc + 4);
			cr_assert_eq(x_insns(&x), 101);
			/* Two restarts with a timestamp each, one context. */
			cr_assert_eq(x.nt, 2);
			cr_assert_eq(x.nc, 1);
			nsvc++;
			items_free(&got);
			x_free(&x);
		}
		cr_assert_geq(nsvc, 6);
		fx_truth_fini(&t);
	}
}

/* pac-ret: RETAA is a return (ARCH_AA64; ARCH_V8 would take it for an
 * ordinary instruction and walk a wrong path). */
Test(etm_truth, pauth_retaa_is_ret)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct fx_etm_config cfg;
	struct fx_etm_window w;
	struct items got;
	size_t retaa = 0;

	load_truth(&t, "branchy-aarch64-pac");
	mem.t = &t;
	fx_etm_config_init(&cfg);
	fx_etm_window_init(&w);
	w.end = FX_ETM_END_EXCEPTION;
	w.end_ip = t.insns[5999].next;
	one_window(&t, &mem, &cfg, 1000, 6000, &w, NULL, &got, "pac");
	for (size_t i = 0; i < got.n; i++) {
		uint8_t b[4];

		if (got.v[i].kind != SY_DEC_BRANCH)
			continue;
		cr_assert_eq(tmem_read(&mem, 0, got.v[i].from, b, 4), 4);
		if (sy_le32(b) == 0xd65f0bffu) {	/* retaa */
			cr_assert_eq(got.v[i].br, SY_BR_RET);
			retaa++;
		}
	}
	cr_assert_gt(retaa, 10);
	items_free(&got);
	fx_truth_fini(&t);
}

/* TIME carries the encoded values, 64-bit ones included. */
static uint64_t ts_big(void *ctx, size_t i)
{
	(void)ctx;
	return 0xfffffffff0006592ull + 0x1000001ull * i;
}

Test(etm_truth, timestamps_as_encoded)
{
	struct fx_truth t;
	struct tmem mem = { 0 };

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		struct fx_etm_config cfg;
		struct fx_etm_window w;
		struct items got;
		struct expect x = { 0 };
		size_t a = 5000, b = 5400, wp = 0, k = 1;

		fx_etm_config_init(&cfg);
		cfg.arch = (enum fx_etm_arch)arch;
		cfg.timestamps = 1;
		fx_etm_window_init(&w);
		w.end = FX_ETM_END_EXCEPTION;
		w.end_ip = t.insns[b - 1].next;
		w.ts_fn = ts_big;
		w.resync_period = 5;
		one_window(&t, &mem, &cfg, a, b, &w, NULL, &got, "ts");
		to_expect(&got, &x);
		cr_assert_eq(x.time[0], ts_big(NULL, 0));
		for (size_t i = a; i < b - 1; i++)
			if (is_waypoint(&t.insns[i]) && ++wp % 5 == 0) {
				cr_assert_lt(k, x.nt);
				cr_assert_eq(x.time[k], ts_big(NULL, i + 1 - a));
				k++;
			}
		cr_assert_eq(k, x.nt);
		cr_assert_gt(k, 10);
		items_free(&got);
		x_free(&x);
	}
	fx_truth_fini(&t);
}

/* Item order: a restart gives its CONTEXT first (what the restart runs
 * in: the stretch the START opens is that thread's), then START, then its
 * TIME; a resync timestamp after a taken branch comes after the BRANCH. */
Test(etm_truth, item_order)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct fx_etm_config cfg;
	struct fx_etm_window w;
	struct items got;
	size_t after_branch = 0;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	fx_etm_config_init(&cfg);
	cfg.timestamps = 1;
	cfg.context_id = 1;
	fx_etm_window_init(&w);
	w.pid = 4242;
	w.end = FX_ETM_END_EXCEPTION;
	w.end_ip = t.insns[1999].next;
	w.resync_period = 1;
	w.ts0 = 1000;
	one_window(&t, &mem, &cfg, 1000, 2000, &w, NULL, &got, "order");
	cr_assert_geq(got.n, 3);
	cr_assert_eq(got.v[0].kind, SY_DEC_CONTEXT);
	cr_assert_eq(got.v[0].code, 4242);
	cr_assert_eq(got.v[1].kind, SY_DEC_START);
	cr_assert_eq(got.v[1].to, t.insns[1000].pc);
	cr_assert_eq(got.v[2].kind, SY_DEC_TIME);
	cr_assert_eq(got.v[2].time, 1000);
	for (size_t i = 3; i < got.n; i++) {
		if (got.v[i].kind != SY_DEC_TIME)
			continue;
		/* Every waypoint is a resync here: a TIME follows each
		 * branch and carries no instructions of its own. */
		if (got.v[i - 1].kind == SY_DEC_BRANCH) {
			after_branch++;
			cr_assert_eq(got.v[i].ninsn, 0);
		}
	}
	cr_assert_gt(after_branch, 100);
	items_free(&got);
	fx_truth_fini(&t);
}

/* ------------------------------------------------------------------ */
/* decoder mechanics                                                   */
/* ------------------------------------------------------------------ */


/* A few windows of one program in one raw buffer, with everything on. */
static void busy_source(const struct fx_truth *t, struct tsrc *s,
			enum fx_etm_arch arch, uint8_t id)
{
	struct fx_etm_config cfg;
	static const size_t cuts[][2] = {
		{ 18500, 19100 }, { 3000, 3500 }, { 23100, 23300 },
	};

	fx_etm_config_init(&cfg);
	cfg.arch = arch;
	cfg.trace_id = id;
	cfg.timestamps = 1;
	cfg.context_id = 1;
	tsrc_init(s, &cfg);
	for (size_t k = 0; k < SY_ARRAY_SIZE(cuts); k++) {
		struct fx_etm_window w;
		const struct fx_insn *in = t->insns + cuts[k][0];
		size_t n = cuts[k][1] - cuts[k][0];

		fx_etm_window_init(&w);
		w.pid = 55;
		w.end = FX_ETM_END_EXCEPTION;
		w.end_ip = in[n - 1].next;
		w.resync_period = 9;
		w.ts0 = 100000 * (k + 1);
		if (k == 1) {
			w.overflow_after = 200;
			w.overflow_lost = 17;
		}
		tsrc_window(s, in, n, &w);
	}
}

/* OCSD_RESP_WAIT: a ring of one item makes the callback ask OpenCSD to
 * wait after nearly every element; the items must not change, and
 * OpenCSD must honour every wait (the ring never grows). */
Test(etm_decode, wait_path)
{
	struct fx_truth t;
	struct tmem mem = { 0 };

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		struct tsrc s;
		struct sy_dec_params p;
		struct items ref, got;
		struct sy_etm_debug g;
		struct run_opts o = { 0 };

		busy_source(&t, &s, (enum fx_etm_arch)arch, 0x10);
		check_decode(&s, &s.s, 1, 0, 0, s.enc.out.data, s.enc.out.len,
			     &mem, NULL, "default ring");
		params_init(&p, &mem, &s.s, 1, 0, 0);
		run_decoder(&p, s.enc.out.data, s.enc.out.len, NULL, &ref, &g);
		cr_assert_eq(g.waits, 0);
		for (size_t ring = 1; ring <= 4; ring++) {
			o.ring = ring;
			o.full_dbg = 1;
			run_decoder(&p, s.enc.out.data, s.enc.out.len, &o, &got,
				    &g);
			items_same(&got, &ref, "small ring");
			cr_assert_gt(g.waits, ref.n / (ring + 1));
			cr_assert_geq(g.flushes, g.waits);
			cr_assert_eq(g.ring_grows, 0);
			items_free(&got);
		}
		items_free(&ref);
		tsrc_fini(&s);
	}
	fx_truth_fini(&t);
}

/* The code-page cache changes nothing but the number of read_mem calls. */
Test(etm_decode, mem_cache)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct tsrc s;
	struct sy_dec_params p;
	struct items on, off;
	struct sy_etm_debug gon, goff;
	struct run_opts o = { 0 };

	load_truth(&t, "branchy-aarch64-pie");
	mem.t = &t;
	busy_source(&t, &s, FX_ETM_V4, 0x10);
	params_init(&p, &mem, &s.s, 1, 0, 0);
	run_decoder(&p, s.enc.out.data, s.enc.out.len, NULL, &on, &gon);
	o.no_cache = 1;
	run_decoder(&p, s.enc.out.data, s.enc.out.len, &o, &off, &goff);
	items_same(&on, &off, "cache on/off");
	cr_assert_eq(gon.mem_reqs, goff.mem_reqs);
	cr_assert_geq(goff.mem_calls, goff.mem_reqs);
	cr_assert_lt(gon.mem_calls, goff.mem_calls);
	items_free(&on);
	items_free(&off);
	tsrc_fini(&s);
	fx_truth_fini(&t);
}

/* Frames with three trace IDs: each ID alone matches its own model; with
 * trace_id 0 all of them come out; an ID that is configured but absent
 * from the data gives nothing; an ID not configured is refused. */
Test(etm_decode, trace_id_filter)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct tsrc s[3];
	struct sy_etm_source all[4];
	struct fx_csfmt_stream st[3];
	struct fx_buf fb;
	struct sy_dec_params p;
	struct sy_decoder *d;
	struct items got;
	struct expect x = { 0 };
	size_t branches = 0;
	uint64_t insns = 0;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	fx_buf_init(&fb);
	for (int k = 0; k < 3; k++) {
		busy_source(&t, &s[k], k == 1 ? FX_ETM_ETE : FX_ETM_V4,
			    (uint8_t)(0x10 + 2 * k));
		all[k] = s[k].s;
		st[k].trace_id = s[k].cfg.trace_id;
		st[k].data = s[k].enc.out.data;
		st[k].len = s[k].enc.out.len;
	}
	cr_assert_eq(fx_csfmt_interleave(&fb, st, 3, 13, FX_CSFMT_BARRIER), 0);
	for (int k = 0; k < 3; k++) {
		struct expect want;

		check_decode(&s[k], all, 3, 1, s[k].cfg.trace_id, fb.data,
			     fb.len, &mem, NULL, "per ID");
		tsrc_expect(&s[k], &want);
		branches += x_count(&want, SY_DEC_BRANCH);
		insns += x_insns(&want);
		x_free(&want);
	}
	params_init(&p, &mem, all, 3, 1, 0);
	run_decoder(&p, fb.data, fb.len, NULL, &got, NULL);
	to_expect(&got, &x);
	cr_assert_eq(x_count(&x, SY_DEC_BRANCH), branches);
	cr_assert_eq(x_insns(&x), insns);
	items_free(&got);
	x_free(&x);
	/* configured, not in the data */
	all[3] = all[0];
	all[3].trace_id = 0x30;
	params_init(&p, &mem, all, 4, 1, 0x30);
	run_decoder(&p, fb.data, fb.len, NULL, &got, NULL);
	cr_assert_eq(got.n, 0);
	items_free(&got);
	/* not configured */
	params_init(&p, &mem, all, 3, 1, 0x31);
	cr_assert_eq(sy_decoder_alloc(&d, &p), -SY_E_INVALID);
	for (int k = 0; k < 3; k++)
		tsrc_fini(&s[k]);
	fx_buf_fini(&fb);
	fx_truth_fini(&t);
}

/* A window decoded from an earlier sync point reports only from its own
 * first byte on. */
Test(etm_decode, report_from)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct tsrc both, second;
	struct fx_etm_config cfg;
	struct fx_etm_window w1, w2;
	struct run_opts o = { 0 };
	size_t split;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	fx_etm_config_init(&cfg);
	cfg.timestamps = 1;
	cfg.context_id = 1;
	fx_etm_window_init(&w1);
	w1.pid = 1;
	w1.end = FX_ETM_END_EXCEPTION;
	w1.end_ip = t.insns[2999].next;
	w2 = w1;
	w2.pid = 2;
	w2.end_ip = t.insns[9999].next;
	w2.ts0 = 777;
	tsrc_init(&both, &cfg);
	tsrc_init(&second, &cfg);
	cr_assert_eq(fx_etm_enc_window(&both.enc, t.insns + 2000, 1000, &w1), 0);
	split = both.enc.out.len;
	cr_assert_eq(fx_etm_enc_window(&both.enc, t.insns + 9000, 1000, &w2), 0);
	m_window(&second.m, t.insns + 9000, 1000, &w2);
	o.report_from = split;
	check_decode(&second, &both.s, 1, 0, 0, both.enc.out.data,
		     both.enc.out.len, &mem, &o, "report_from");
	tsrc_fini(&both);
	tsrc_fini(&second);
	fx_truth_fini(&t);
}

/* read_mem gets the context ID of the code being decoded: two processes
 * with different code at the same addresses (the plain and the pac-ret
 * build), one window each, in one buffer. */
struct tmem2 {
	struct tmem m[2];
	uint32_t ctx[2];
	size_t unknown;
};

static size_t tmem2_read(void *ctx, uint32_t ctxid, uint64_t addr,
			 uint8_t *buf, size_t len)
{
	struct tmem2 *m = ctx;

	for (int k = 0; k < 2; k++)
		if (ctxid == m->ctx[k])
			return tmem_read(&m->m[k], ctxid, addr, buf, len);
	m->unknown++;
	return 0;
}

Test(etm_decode, context_for_read_mem)
{
	struct fx_truth t[2];
	struct tmem2 mem;
	struct fx_etm_config cfg;
	struct fx_etm_window w;
	struct tsrc s;
	struct sy_dec_params p;
	struct items got;
	struct run_opts o = { 0 };
	char why[1024];

	load_truth(&t[0], "branchy-aarch64");
	load_truth(&t[1], "branchy-aarch64-pac");
	memset(&mem, 0, sizeof(mem));
	for (int k = 0; k < 2; k++) {
		mem.m[k].t = &t[k];
		mem.ctx[k] = 300 + (uint32_t)k;
	}
	for (int cid = 1; cid >= 0; cid--) {
		fx_etm_config_init(&cfg);
		cfg.context_id = cid;
		tsrc_init(&s, &cfg);
		for (int k = 0; k < (cid ? 2 : 1); k++) {
			fx_etm_window_init(&w);
			w.pid = mem.ctx[k];
			w.end = FX_ETM_END_EXCEPTION;
			w.end_ip = t[k].insns[20999].next;
			tsrc_window(&s, t[k].insns + 20000, 1000, &w);
			fx_etm_window_init(&w);
			w.pid = mem.ctx[k];
			tsrc_window(&s, t[k].insns + 30000, 1000, &w);
		}
		/* Without context IDs in the trace, set_context decides. */
		o.ctxid = cid ? 0 : mem.ctx[0];
		{
			struct expect gx = { 0 }, want;

			memset(&p, 0, sizeof(p));
			p.kind = SY_TRACE_ETM;
			p.read_mem = tmem2_read;
			p.mem_ctx = &mem;
			p.u.etm.sources = &s.s;
			p.u.etm.nr_sources = 1;
			run_decoder(&p, s.enc.out.data, s.enc.out.len, &o, &got,
				    NULL);
			to_expect(&got, &gx);
			tsrc_expect(&s, &want);
			cr_assert(x_equal(&gx, &want, why, sizeof(why)),
				  "cid %d: %s", cid, why);
			cr_assert_eq(mem.unknown, 0);
			x_free(&gx);
			x_free(&want);
			items_free(&got);
		}
		tsrc_fini(&s);
	}
	fx_truth_fini(&t[0]);
	fx_truth_fini(&t[1]);
}

/* *@buf (*@len bytes) of trace ID @id in CoreSight frames, made in @fb. */
static void in_frames(struct fx_buf *fb, uint8_t id, const uint8_t **buf,
		      size_t *len)
{
	struct fx_csfmt_stream st;

	st.trace_id = id;
	st.data = *buf;
	st.len = *len;
	cr_assert_eq(fx_csfmt_interleave(fb, &st, 1, 0, 0), 0);
	*buf = fb->data;
	*len = fb->len;
}

/* Items of @buf taken in place (sy_decoder_peek), @take[i % 4] of each
 * peek at a time (0: none, the same items must come again), into @out,
 * SY_DEC_BRANCHES items as their branches (*@runs counts them); the
 * statistics into @stats. */
static void decode_peeking(const struct sy_dec_params *p, const uint8_t *buf,
			   size_t len, const size_t take[4], struct items *out,
			   struct sy_dec_stats *stats, size_t *runs)
{
	struct sy_dec_chunk ch = { buf, len };
	struct sy_dec_item *v, first;
	struct sy_decoder *d;
	size_t n, i = 0;
	int err;

	memset(out, 0, sizeof(*out));
	cr_assert_eq(sy_decoder_alloc(&d, p), 0);
	cr_assert_eq(sy_decoder_reset(d, &ch, 1, 0), 0);
	while ((err = sy_decoder_peek(d, &v, &n)) == 0) {
		size_t k = take[i++ % 4];

		cr_assert_geq(n, 1);
		cr_assert_lt(out->n, 64 * len + 100000, "peek does not stop");
		if (k > n)
			k = n;
		if (!k) {
			/* nothing used: the same items again */
			first = v[0];
			cr_assert_eq(sy_decoder_peek(d, &v, &n), 0);
			cr_assert_eq(memcmp(&first, v, sizeof(first)), 0);
		}
		for (size_t j = 0; j < k; j++) {
			struct sy_dec_item b;

			if (v[j].kind != SY_DEC_BRANCHES) {
				items_push(out, &v[j]);
				continue;
			}
			cr_assert_gt(v[j].code, 0);
			for (uint32_t r = 0; r < v[j].code; r++) {
				sy_dec_run_branch(&v[j], r, &b);
				items_push(out, &b);
			}
			++*runs;
		}
		sy_decoder_advance(d, k);
	}
	cr_assert_eq(err, -SY_E_EOS, "peek: %s", sy_errname(err));
	cr_assert_eq(sy_decoder_peek(d, &v, &n), -SY_E_EOS);
	*stats = *sy_decoder_stats(d);
	sy_decoder_free(d);
}

/* sy_decoder_peek / sy_decoder_advance give next()'s items and counts,
 * however many of each peek are used, on both decoders, raw and in
 * frames (the fast path's peek hands out its ring in place, where it may
 * wrap). */
Test(etm_decode, peek_equals_next)
{
	static const size_t takes[][4] = {
		{ 1, 1, 1, 1 }, { 3, 0, 1, 7 }, { 1000, 2, 0, 5000 },
	};
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct tsrc s;
	size_t runs[2] = { 0, 0 };

	struct fx_etm_config cfg;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	/* long enough for the ring (2048 items) to wrap several times */
	fx_etm_config_init(&cfg);
	cfg.arch = FX_ETM_ETE;
	cfg.timestamps = 1;
	tsrc_init(&s, &cfg);
	for (size_t at = 1000; at + 8000 <= t.n && at < 41000; at += 8000) {
		struct fx_etm_window w;

		fx_etm_window_init(&w);
		w.end = FX_ETM_END_EXCEPTION;
		w.end_ip = t.insns[at + 7999].next;
		w.resync_period = 9;
		w.ts0 = 1000 * at;
		tsrc_window(&s, t.insns + at, 8000, &w);
	}
	for (int fmt = 0; fmt <= 1; fmt++)
	for (int dec = 0; dec <= 1; dec++)
	for (size_t k = 0; k < SY_ARRAY_SIZE(takes); k++) {
		struct sy_dec_params p;
		struct items a, b;
		struct sy_dec_stats sa, sb;
		struct sy_etm_debug g;
		struct fx_buf fb;
		const uint8_t *buf = s.enc.out.data;
		size_t len = s.enc.out.len;

		fx_buf_init(&fb);
		if (fmt)
			in_frames(&fb, cfg.trace_id, &buf, &len);
		params_init(&p, &mem, &s.s, 1, fmt, 0);
		p.u.etm.decoder = dec ? SY_ETM_DECODER_FULL
				      : SY_ETM_DECODER_AUTO;
		decode_once(&p, buf, len, NULL, &a, &g, &sa);
		decode_peeking(&p, buf, len, takes[k], &b, &sb, &runs[dec]);
		cr_assert_gt(a.n, 8000, "%zu items", a.n);
		items_same(&a, &b, "next vs peek");
		cr_assert_eq(sa.insns, sb.insns);
		cr_assert_eq(sa.branches, sb.branches);
		cr_assert_eq(sa.errors, sb.errors);
		cr_assert_eq(sa.overflows, sb.overflows);
		cr_assert_eq(sa.bytes, sb.bytes);
		items_free(&a);
		items_free(&b);
		fx_buf_fini(&fb);
	}
	/* the fast path hands atom runs out whole; the full decoder never */
	cr_assert_gt(runs[0], 100, "%zu runs", runs[0]);
	cr_assert_eq(runs[1], 0);
	tsrc_fini(&s);
	fx_truth_fini(&t);
}

/* next() and peek() mixed on one decoder: next() hands an atom run out a
 * branch at a time, and a peek() in the middle of it gives the run's next
 * branch, not what follows the run. */
Test(etm_decode, next_and_peek_mixed)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct tsrc s;
	struct fx_etm_config cfg;
	struct fx_etm_window w;
	struct sy_dec_params p;
	struct items a, b;
	struct sy_dec_stats sa;
	struct sy_etm_debug g;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	fx_etm_config_init(&cfg);
	cfg.arch = FX_ETM_ETE;
	tsrc_init(&s, &cfg);
	fx_etm_window_init(&w);
	w.end = FX_ETM_END_EXCEPTION;
	w.end_ip = t.insns[1000 + 7999].next;
	tsrc_window(&s, t.insns + 1000, 8000, &w);
	params_init(&p, &mem, &s.s, 1, 0, 0);
	decode_once(&p, s.enc.out.data, s.enc.out.len, NULL, &a, &g, &sa);
	memset(&b, 0, sizeof(b));
	{
		struct sy_dec_chunk ch = { s.enc.out.data, s.enc.out.len };
		struct sy_decoder *d;
		struct sy_dec_item it, *v;
		size_t n, i = 0;
		int err;

		cr_assert_eq(sy_decoder_alloc(&d, &p), 0);
		cr_assert_eq(sy_decoder_reset(d, &ch, 1, 0), 0);
		for (;; i++) {
			if (i % 3 == 0) {
				if ((err = sy_decoder_next(d, &it)))
					break;
				cr_assert_neq(it.kind, SY_DEC_BRANCHES);
				items_push(&b, &it);
				continue;
			}
			if ((err = sy_decoder_peek(d, &v, &n)))
				break;
			if (v[0].kind == SY_DEC_BRANCHES) {
				for (uint32_t r = 0; r < v[0].code; r++) {
					sy_dec_run_branch(&v[0], r, &it);
					items_push(&b, &it);
				}
			} else {
				items_push(&b, &v[0]);
			}
			sy_decoder_advance(d, 1);
		}
		cr_assert_eq(err, -SY_E_EOS);
		cr_assert_eq(sy_decoder_stats(d)->branches, sa.branches);
		cr_assert_eq(sy_decoder_stats(d)->insns, sa.insns);
		sy_decoder_free(d);
	}
	cr_assert_gt(a.n, 1000, "%zu items", a.n);
	items_same(&a, &b, "next() vs next() and peek()");
	items_free(&a);
	items_free(&b);
	tsrc_fini(&s);
	fx_truth_fini(&t);
}

/* A window split over many AUXTRACE buffers decodes like one buffer,
 * offsets counting across them; frames may straddle buffers. */
Test(etm_decode, chunks)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct tsrc s;
	struct sy_dec_params p;
	struct items ref, got;
	struct fx_buf fb;
	struct fx_csfmt_stream st;
	static const size_t sizes[] = { 1, 2, 3, 7, 16, 33, 100, 4096 };

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	busy_source(&t, &s, FX_ETM_V4, 0x22);
	fx_buf_init(&fb);
	st.trace_id = 0x22;
	st.data = s.enc.out.data;
	st.len = s.enc.out.len;
	cr_assert_eq(fx_csfmt_interleave(&fb, &st, 1, 0, 0), 0);
	for (int fmt = 0; fmt <= 1; fmt++) {
		const uint8_t *buf = fmt ? fb.data : s.enc.out.data;
		size_t len = fmt ? fb.len : s.enc.out.len;

		params_init(&p, &mem, &s.s, 1, fmt, 0);
		run_decoder(&p, buf, len, NULL, &ref, NULL);
		check_decode(&s, &s.s, 1, fmt, 0, buf, len, &mem, NULL,
			     "one chunk");
		for (size_t k = 0; k < SY_ARRAY_SIZE(sizes); k++) {
			struct run_opts o = { .chunk = sizes[k] };

			char what[64];

			snprintf(what, sizeof(what), "fmt %d chunks of %zu", fmt,
				 sizes[k]);
			run_decoder(&p, buf, len, &o, &got, NULL);
			items_same(&got, &ref, what);
			items_free(&got);
		}
		items_free(&ref);
	}
	fx_buf_fini(&fb);
	tsrc_fini(&s);
	fx_truth_fini(&t);
}

/* The comparison can fail: one flipped atom makes the decode differ from
 * the truth (OpenCSD follows the wrong path without an error). */
Test(etm_decode, negative_control_flipped_atom)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	size_t caught = 0, tries = 0;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	for (size_t k = 0; k < 40; k += 3) {
		struct fx_etm_config cfg;
		struct fx_etm_window w;
		struct tsrc s;
		struct fx_etm_enc enc;
		char why[1024];

		fx_etm_config_init(&cfg);
		fx_etm_window_init(&w);
		w.end = FX_ETM_END_EXCEPTION;
		w.end_ip = t.insns[4999].next;
		tsrc_init(&s, &cfg);
		tsrc_window(&s, t.insns + 4000, 1000, &w);
		/* Same window with atom k flipped, judged by the truth. */
		cr_assert_eq(fx_etm_init(&enc, &cfg), 0);
		w.flip_atom = k;
		cr_assert_eq(fx_etm_enc_window(&enc, t.insns + 4000, 1000, &w), 0);
		tries++;
		caught += !decode_matches(&s, &s.s, 1, 0, 0, enc.out.data,
					  enc.out.len, &mem, NULL, NULL, why,
					  sizeof(why));
		fx_etm_fini(&enc);
		tsrc_fini(&s);
	}
	cr_assert_eq(caught, tries);
	fx_truth_fini(&t);
}

/* An A64 unconditional branch is always taken: a flipped atom that says
 * one was not is no execution of the code, and both decoders say so
 * (SY_DEC_ERR_DISAGREE at the branch, etm_conv.c); nothing they walked
 * after it is reported until an indirect branch's target (from the trace)
 * says where execution is.  A flipped conditional branch's atom gives no
 * such error at that branch.  Before the rule the same windows decoded to
 * a wrong path without any error (negative_control_flipped_atom). */
Test(etm_bad, unconditional_branch_not_taken)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	size_t uncond = 0, cond = 0;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	for (size_t i = 4000, k = 0; i < 4300; i++) {
		const struct fx_insn *in = &t.insns[i];
		struct fx_etm_config cfg;
		struct fx_etm_window w;
		struct tsrc s;
		struct sy_dec_params p;
		struct items got;
		size_t err_at = (size_t)-1;

		if (in->kind == SY_BR_NONE || in->kind == SY_BR_SYSCALL)
			continue;
		fx_etm_config_init(&cfg);
		fx_etm_window_init(&w);
		w.end = FX_ETM_END_EXCEPTION;
		w.end_ip = t.insns[4999].next;
		w.flip_atom = k++;
		tsrc_init(&s, &cfg);
		tsrc_window(&s, t.insns + 4000, 1000, &w);
		params_init(&p, &mem, &s.s, 1, 0, 0);
		run_decoder(&p, s.enc.out.data, s.enc.out.len, NULL, &got, NULL);
		for (size_t j = 0; j < got.n && err_at == (size_t)-1; j++)
			if (got.v[j].kind == SY_DEC_ERROR &&
			    got.v[j].code == SY_DEC_ERR_DISAGREE &&
			    got.v[j].to == in->pc)
				err_at = j;
		if (in->kind == SY_BR_COND) {
			cr_assert_eq(err_at, (size_t)-1, "flip %zu: a conditional "
				     "branch at %#llx reported", k - 1,
				     (unsigned long long)in->pc);
			cond++;
		} else {
			cr_assert_neq(err_at, (size_t)-1, "flip %zu: the %s at "
				      "%#llx not reported", k - 1,
				      sy_branch_kind_name((enum sy_branch_kind)in->kind),
				      (unsigned long long)in->pc);
			for (size_t j = err_at + 1; j < got.n &&
			     got.v[j].kind != SY_DEC_START; j++)
				cr_assert_neq(got.v[j].kind, SY_DEC_BRANCH,
					      "flip %zu: a branch walked after "
					      "the error", k - 1);
			uncond++;
		}
		items_free(&got);
		tsrc_fini(&s);
	}
	cr_assert_gt(uncond, 10);
	cr_assert_gt(cond, 10);
	fx_truth_fini(&t);
}

/* The branches the program takes anywhere in its run, sorted. */
struct edge_set {
	uint64_t (*v)[2];
	size_t n;
};

static int edge_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static void edges_of(const struct fx_truth *t, struct edge_set *e)
{
	e->v = calloc(t->n ? t->n : 1, sizeof(*e->v));
	cr_assert_not_null(e->v);
	e->n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->insns[i].kind != SY_BR_NONE) {
			e->v[e->n][0] = t->insns[i].pc;
			e->v[e->n++][1] = t->insns[i].next;
		}
	qsort(e->v, e->n, sizeof(*e->v), edge_cmp);
}

static int truth_edge(const struct edge_set *e, uint64_t from, uint64_t to)
{
	uint64_t k[2] = { from, to };

	return bsearch(k, e->v, e->n, sizeof(*e->v), edge_cmp) != NULL;
}

struct agree_tally {
	size_t windows, path_errors;
	size_t fabricating;	/* no error, a branch never taken */
};

/* Decodes one window of @t's run from @first with @w's damage knobs, and
 * tallies whether it reports SY_DEC_ERR_PATH and whether it hands out a
 * branch the program never takes.  After the error, nothing may be
 * reported until the decoder starts again. */
static void agree_window(const struct fx_truth *t, const struct edge_set *es,
			 struct tmem *mem, size_t first,
			 const struct fx_etm_window *wk, struct agree_tally *tl)
{
	struct fx_etm_config cfg;
	struct fx_etm_window w = *wk;
	struct sy_dec_params p;
	struct items got;
	struct tsrc s;
	int path = 0, fab = 0, after = 0, err = 0;

	fx_etm_config_init(&cfg);
	w.end = FX_ETM_END_EXCEPTION;
	w.end_ip = t->insns[first + 999].next;
	tsrc_init(&s, &cfg);
	tsrc_window(&s, t->insns + first, 1000, &w);
	params_init(&p, mem, &s.s, 1, 0, 0);
	run_decoder(&p, s.enc.out.data, s.enc.out.len, NULL, &got, NULL);
	for (size_t j = 0; j < got.n; j++) {
		const struct sy_dec_item *it = &got.v[j];
		uint32_t nb = it->kind == SY_DEC_BRANCHES ? it->code :
			      it->kind == SY_DEC_BRANCH;

		if (it->kind == SY_DEC_ERROR && it->code == SY_DEC_ERR_PATH)
			path = after = 1;
		err |= it->kind == SY_DEC_ERROR;
		if (it->kind == SY_DEC_START)
			after = 0;
		for (uint32_t b = 0; b < nb; b++) {
			struct sy_dec_item one = *it;

			if (it->kind == SY_DEC_BRANCHES)
				sy_dec_run_branch(it, b, &one);
			cr_assert(!after, "a branch %#llx -> %#llx after the "
				  "error, before a new start",
				  (unsigned long long)one.from,
				  (unsigned long long)one.to);
			fab |= !truth_edge(es, one.from, one.to);
		}
	}
	tl->windows++;
	tl->path_errors += path;
	tl->fabricating += fab && !err;
	items_free(&got);
	tsrc_fini(&s);
}

/* The trace unit's packet order against the walked path (etm_agree.c):
 * an address packet where the code took no indirect branch, an atom where
 * an indirect branch's target was due, or a sync's address away from the
 * path is no execution of the code.  Windows of the fixture program with
 * one atom inverted or one indirect branch's target address changed by a
 * bit (as a flipped bit in the trace does): many now say so
 * (SY_DEC_ERR_PATH) and hand out nothing after it; the same windows
 * undamaged, with and without periodic syncs, never do.  Of the 102
 * damaged windows, 81 report it and 17 still hand out a branch the program
 * never takes with no error at all (the rest of a flip is invisible: a
 * return whose target lost a bit lands on the next instruction).  On
 * c2422ae none reported it and 37 did. */
Test(etm_bad, packet_order_against_the_code, .timeout = 120)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct agree_tally clean = { 0 }, dmg = { 0 };
	static const unsigned bits[] = { 2, 3, 4, 6, 9 };
	struct edge_set es;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	edges_of(&t, &es);
	for (size_t first = 3000; first <= 6000; first += 1500) {
		for (unsigned sync = 0; sync <= 7; sync += 7) {
			struct fx_etm_window w;

			fx_etm_window_init(&w);
			w.resync_period = sync;
			agree_window(&t, &es, &mem, first, &w, &clean);
			for (size_t k = 0; k < 24; k += 2) {
				fx_etm_window_init(&w);
				w.resync_period = sync;
				w.flip_atom = k;
				agree_window(&t, &es, &mem, first, &w, &dmg);
			}
			for (size_t k = 0; k < 5; k++) {
				fx_etm_window_init(&w);
				w.resync_period = sync;
				w.flip_addr = k;
				w.flip_addr_bit = bits[k];
				agree_window(&t, &es, &mem, first, &w, &dmg);
			}
		}
	}
	cr_log_info("packet order: %zu damaged windows, %zu report it, %zu "
		    "hand out a branch never taken with no error", dmg.windows,
		    dmg.path_errors, dmg.fabricating);
	cr_assert_eq(clean.path_errors, 0);
	cr_assert_eq(clean.fabricating, 0);
	cr_assert_geq(dmg.path_errors, dmg.windows / 2);
	cr_assert_leq(dmg.fabricating, dmg.windows / 5);
	free(es.v);
	fx_truth_fini(&t);
}

/* Cycle-accurate windows (TRCCONFIGR.CCI) of the fixture program, with
 * timestamps, syscalls and periodic syncs: both decoders hand out the same
 * items (run_decoder), the fast path without giving the window up, and
 * their CYCLES items add up to the window's cycles: fx_etm counts
 * cycles_per_insn for every traced instruction and all of it before the
 * pause's IRQ, in Cycle Count packets and in the Timestamp packets' counts
 * (test_fx_etm proves the encoding with trc_pkt_lister). */
Test(etm_decode, cycle_accurate_counts, .timeout = 120)
{
	static const uint64_t cpi[] = { 1, 3, 2500 };
	struct fx_truth t;
	struct tmem mem = { 0 };
	const size_t first = 3000, n = 1500;
	size_t windows = 0, counts = 0;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++)
		for (size_t c = 0; c < 3; c++)
			for (unsigned sync = 0; sync <= 7; sync += 7) {
				struct fx_etm_config cfg;
				struct fx_etm_window w;
				struct sy_dec_params p;
				struct sy_etm_debug g;
				struct items got;
				struct tsrc src;
				uint64_t sum = 0;

				fx_etm_config_init(&cfg);
				cfg.arch = (enum fx_etm_arch)arch;
				cfg.timestamps = 1;
				cfg.context_id = 1;
				cfg.cycle_accurate = 1;
				fx_etm_window_init(&w);
				w.end = FX_ETM_END_EXCEPTION;
				w.end_ip = t.insns[first + n - 1].next;
				w.cycles_per_insn = cpi[c];
				w.ts0 = 1000;
				w.resync_period = sync;
				tsrc_init(&src, &cfg);
				tsrc_window(&src, t.insns + first, n, &w);
				params_init(&p, &mem, &src.s, 1, 0, 0);
				run_decoder(&p, src.enc.out.data,
					    src.enc.out.len, NULL, &got, &g);
				cr_assert_eq(g.fallbacks, 0, "the walk gave up");
				for (size_t k = 0; k < got.n; k++)
					if (got.v[k].kind == SY_DEC_CYCLES) {
						sum += got.v[k].code;
						counts++;
					}
				cr_assert_eq(sum, n * cpi[c], "cpi %" PRIu64
					     " sync %u: %" PRIu64 " cycles, "
					     "want %" PRIu64, cpi[c], sync,
					     sum, (uint64_t)(n * cpi[c]));
				windows++;
				items_free(&got);
				tsrc_fini(&src);
			}
	cr_assert_eq(windows, 12);
	cr_assert_gt(counts, windows * 20);
	fx_truth_fini(&t);
}

struct ts_fields {
	size_t off[256], len[256], n;
};

static void ts_field(void *ctx, enum fx_etm_field kind, size_t off,
		     size_t len, uint64_t value, int full)
{
	struct ts_fields *f = ctx;

	(void)value;
	(void)full;
	if (kind == FX_ETM_FIELD_TS && f->n < 256) {
		f->off[f->n] = off;
		f->len[f->n++] = len;
	}
}

/* A cycle-accurate unit's Timestamp packet without a count (N = 0) after
 * Cycle Count packets: OpenCSD's getCC() gives 0 for it, the packet's
 * count field still holding the last packet's count.  The fast path's walk
 * read that field, so its TIME items came with another count than the
 * full decoder's (fuzz_etm_fastpath found it within a minute of CCI being
 * fuzzed).  Every timestamp of cycle-accurate windows made N = 0: both
 * decoders give the same items (run_decoder). */
Test(etm_decode, cycle_accurate_timestamp_without_count, .timeout = 60)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	const size_t first = 3000, n = 1500;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		struct fx_etm_config cfg;
		struct fx_etm_window w;
		struct sy_dec_params p;
		struct ts_fields tf = { .n = 0 };
		struct items got;
		struct tsrc src;
		struct fx_buf *o;
		size_t patched = 0;

		fx_etm_config_init(&cfg);
		cfg.arch = (enum fx_etm_arch)arch;
		cfg.timestamps = 1;
		cfg.cycle_accurate = 1;
		fx_etm_window_init(&w);
		w.end = FX_ETM_END_EXCEPTION;
		w.end_ip = t.insns[first + n - 1].next;
		w.cycles_per_insn = 5;
		w.resync_period = 7;
		tsrc_init(&src, &cfg);
		src.enc.field_fn = ts_field;
		src.enc.field_ctx = &tf;
		tsrc_window(&src, t.insns + first, n, &w);
		o = &src.enc.out;
		/* last to first: each count's bytes go, the header's N too */
		for (size_t k = tf.n; k-- > 0;) {
			size_t h = tf.off[k] - 1, c = tf.off[k] + tf.len[k], e = c;

			cr_assert_eq(o->data[h], 0x03);
			while (o->data[e] & 0x80)
				e++;
			e++;
			o->data[h] = 0x02;
			memmove(o->data + c, o->data + e, o->len - e);
			o->len -= e - c;
			patched++;
		}
		cr_assert_gt(patched, 10);
		params_init(&p, &mem, &src.s, 1, 0, 0);
		run_decoder(&p, o->data, o->len, NULL, &got, NULL);
		items_free(&got);
		tsrc_fini(&src);
	}
	fx_truth_fini(&t);
}

/* One decoder per thread, several threads: OpenCSD 1.3.3's process-wide
 * state (tree list, error logger) must not be corrupted by concurrent
 * allocation, decoding of bad trace and freeing (src/decode/etm.c,
 * sy_etm_ocsd_lock).  Under ASan this test catches what a race breaks; every
 * thread must also see the items a lone decoder sees. */
struct thr {
	const struct fx_truth *t;
	const uint8_t *buf;
	size_t len;
	int formatted;
	const struct sy_etm_source *src;
	const struct items *ref;
	int ok;
};

static void *thr_main(void *arg)
{
	struct thr *a = arg;
	struct tmem mem = { 0 };

	mem.t = a->t;
	a->ok = 1;
	for (int k = 0; k < 25 && a->ok; k++) {
		struct sy_dec_params p;
		struct sy_decoder *d;
		struct sy_dec_chunk ch = { a->buf, a->len };
		struct sy_dec_item it;
		size_t n = 0;
		int err;

		params_init(&p, &mem, a->src, 1, a->formatted, 0);
		if (sy_decoder_alloc(&d, &p)) {
			a->ok = 0;
			break;
		}
		sy_decoder_reset(d, &ch, 1, 0);
		while ((err = sy_decoder_next(d, &it)) == 0) {
			if (n >= a->ref->n || it.kind != a->ref->v[n].kind ||
			    it.to != a->ref->v[n].to ||
			    it.ninsn != a->ref->v[n].ninsn)
				a->ok = 0;
			n++;
		}
		if (err != -SY_E_EOS || n != a->ref->n)
			a->ok = 0;
		sy_decoder_free(d);
	}
	return NULL;
}

Test(etm_decode, threads)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct tsrc s;
	struct fx_buf raw, fb;
	struct fx_csfmt_stream st;
	struct rng r = { 11 };
	struct items ref[2];
	struct thr a[4];
	pthread_t th[4];

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	busy_source(&t, &s, FX_ETM_V4, 0x10);
	/* good windows, then garbage: errors get logged inside OpenCSD */
	fx_buf_init(&raw);
	fx_buf_init(&fb);
	fx_buf_put(&raw, s.enc.out.data, s.enc.out.len);
	fx_buf_reserve(&raw, 2000);
	fill_random(&r, raw.data + raw.len, 2000);
	raw.len += 2000;
	st.trace_id = 0x10;
	st.data = raw.data;
	st.len = raw.len;
	cr_assert_eq(fx_csfmt_interleave(&fb, &st, 1, 0, 0), 0);
	for (int f = 0; f < 2; f++) {
		struct sy_dec_params p;

		params_init(&p, &mem, &s.s, 1, f, 0);
		run_decoder(&p, f ? fb.data : raw.data, f ? fb.len : raw.len,
			    NULL, &ref[f], NULL);
	}
	for (int k = 0; k < 4; k++) {
		a[k].t = &t;
		a[k].formatted = k & 1;
		a[k].buf = a[k].formatted ? fb.data : raw.data;
		a[k].len = a[k].formatted ? fb.len : raw.len;
		a[k].src = &s.s;
		a[k].ref = &ref[k & 1];
		cr_assert_eq(pthread_create(&th[k], NULL, thr_main, &a[k]), 0);
	}
	for (int k = 0; k < 4; k++) {
		pthread_join(th[k], NULL);
		cr_assert(a[k].ok, "thread %d saw other items", k);
	}
	items_free(&ref[0]);
	items_free(&ref[1]);
	fx_buf_fini(&raw);
	fx_buf_fini(&fb);
	tsrc_fini(&s);
	fx_truth_fini(&t);
}

/* ---- sync points and API contracts ---- */

Test(etm_decode, find_sync)
{
	uint8_t buf[200];
	uint64_t at;

	memset(buf, 0x5a, sizeof(buf));
	/* A-Syncs at 10 and at 100 (that one after 20 zeros). */
	memset(buf + 10, 0, 11);
	buf[21] = 0x80;
	memset(buf + 91, 0, 20);
	buf[111] = 0x80;
	cr_assert_eq(sy_decode_find_sync(SY_TRACE_ETM, buf, sizeof(buf), 150,
					 &at), 0);
	cr_assert_eq(at, 100);
	cr_assert_eq(sy_decode_find_sync(SY_TRACE_ETM, buf, sizeof(buf), 100,
					 &at), 0);
	cr_assert_eq(at, 100);
	cr_assert_eq(sy_decode_find_sync(SY_TRACE_ETM, buf, sizeof(buf), 99,
					 &at), 0);
	cr_assert_eq(at, 10);
	cr_assert_eq(sy_decode_find_sync(SY_TRACE_ETM, buf, sizeof(buf), 10,
					 &at), 0);
	cr_assert_eq(at, 10);
	cr_assert_eq(sy_decode_find_sync(SY_TRACE_ETM, buf, sizeof(buf), 9,
					 &at), -SY_E_EOS);
	cr_assert_eq(sy_decode_find_sync(SY_TRACE_ETM, buf, sizeof(buf),
					 UINT64_MAX, &at), 0);
	cr_assert_eq(at, 100);
	/* An A-Sync cut by the end of the data is not one. */
	cr_assert_eq(sy_decode_find_sync(SY_TRACE_ETM, buf, 111, 150, &at), 0);
	cr_assert_eq(at, 10);
	cr_assert_eq(sy_decode_find_sync(SY_TRACE_ETM, buf, 5, 4, &at),
		     -SY_E_EOS);
	cr_assert_eq(sy_decode_find_sync(SY_TRACE_ETM, buf, 0, 0, &at),
		     -SY_E_EOS);
}

static size_t no_mem(void *ctx, uint32_t ctxid, uint64_t addr, uint8_t *buf,
		     size_t len)
{
	(void)ctx;
	(void)ctxid;
	(void)addr;
	(void)buf;
	(void)len;
	return 0;
}

Test(etm_decode, api_contracts)
{
	struct sy_etm_source src[3];
	struct sy_dec_params p;
	struct sy_decoder *d;
	struct sy_dec_item it;

	memset(src, 0, sizeof(src));
	for (int k = 0; k < 3; k++) {
		src[k].trace_id = (uint8_t)(0x10 + k);
		src[k].trcidr0 = 0x28000ea1;
		src[k].trcidr1 = 0x4100f443;
		src[k].trcidr2 = 0x488;
	}
	memset(&p, 0, sizeof(p));
	p.kind = SY_TRACE_ETM;
	p.read_mem = no_mem;
	/* no sources */
	cr_assert_eq(sy_decoder_alloc(&d, &p), -SY_E_INVALID);
	p.u.etm.sources = src;
	p.u.etm.nr_sources = 3;
	/* raw data is one trace unit: pick it */
	cr_assert_eq(sy_decoder_alloc(&d, &p), -SY_E_INVALID);
	p.u.etm.trace_id = 0x11;
	cr_assert_eq(sy_decoder_alloc(&d, &p), 0);
	sy_decoder_free(d);
	/* frames: IDs must be valid and distinct */
	p.u.etm.formatted = 1;
	p.u.etm.trace_id = 0;
	cr_assert_eq(sy_decoder_alloc(&d, &p), 0);
	sy_decoder_free(d);
	src[2].trace_id = 0x10;
	cr_assert_eq(sy_decoder_alloc(&d, &p), -SY_E_INVALID);
	src[2].trace_id = 0x70;
	cr_assert_eq(sy_decoder_alloc(&d, &p), -SY_E_INVALID);
	src[2].trace_id = 0;	/* falls back to TRCTRACEIDR */
	src[2].trctraceidr = 0x12;
	cr_assert_eq(sy_decoder_alloc(&d, &p), 0);
	/* an empty window, twice */
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(sy_decoder_reset(d, NULL, 0, 0), 0);
		cr_assert_eq(sy_decoder_next(d, &it), -SY_E_EOS);
	}
	cr_assert_eq(sy_etm_set_ring(d, 0), -SY_E_INVALID);
	cr_assert_eq(sy_etm_set_ring(NULL, 1), -SY_E_INVALID);
	cr_assert_eq(sy_etm_set_mem_cache(NULL, 1), -SY_E_INVALID);
	cr_assert_null(sy_etm_debug(NULL));
	sy_decoder_free(d);
	sy_decoder_free(NULL);
}

/* ------------------------------------------------------------------ */
/* (c) bad trace                                                       */
/* ------------------------------------------------------------------ */

/* Random bytes, alone or after a good start (so that the decoder is
 * synchronised when the garbage comes), raw and in frames: errors or
 * nothing, never a crash or a hang (run_decoder checks offsets and the
 * end). */
Test(etm_bad, random_bytes)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct rng r = { 99 };
	size_t errors = 0, bad_pkt = 0, fatal = 0;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	for (int iter = 0; iter < 200; iter++) {
		struct tsrc s;
		struct fx_buf raw, fb;
		struct fx_csfmt_stream st;
		struct fx_etm_config cfg;
		struct fx_etm_window w;
		struct sy_dec_params p;
		struct items got;
		size_t garbage = 1 + rnd(&r, 3000);
		int fmt = iter & 1, prefix = (iter >> 1) & 1;

		random_config(&r, &cfg, 0x10);
		tsrc_init(&s, &cfg);
		fx_buf_init(&raw);
		fx_buf_init(&fb);
		if (prefix) {
			fx_etm_window_init(&w);
			tsrc_window(&s, t.insns + 7000, 300, &w);
			fx_buf_put(&raw, s.enc.out.data, s.enc.out.len);
		}
		fx_buf_reserve(&raw, garbage);
		fill_random(&r, raw.data + raw.len, garbage);
		raw.len += garbage;
		if (fmt) {
			if (iter % 4 == 1) {
				/* garbage frames too, not only garbage data */
				fx_buf_reserve(&fb, raw.len);
				fill_random(&r, fb.data, raw.len & ~(size_t)15);
				fb.len = raw.len & ~(size_t)15;
			} else {
				st.trace_id = 0x10;
				st.data = raw.data;
				st.len = raw.len;
				cr_assert_eq(fx_csfmt_interleave(&fb, &st, 1, 0, 0),
					     0);
			}
		}
		params_init(&p, &mem, &s.s, 1, fmt, 0);
		run_decoder(&p, fmt ? fb.data : raw.data, fmt ? fb.len : raw.len,
			    NULL, &got, NULL);
		for (size_t i = 0; i < got.n; i++)
			if (got.v[i].kind == SY_DEC_ERROR) {
				errors++;
				bad_pkt += got.v[i].code == OCSD_ERR_BAD_DECODE_PKT;
				fatal += got.v[i].code == OCSD_ERR_DATA_DECODE_FATAL;
			}
		items_free(&got);
		fx_buf_fini(&raw);
		fx_buf_fini(&fb);
		tsrc_fini(&s);
	}
	/* Garbage after a sync point does produce error items: bad packets,
	 * and fatal responses after which the tree is reset and decoding
	 * goes on. */
	cr_assert_gt(errors, 0);
	cr_assert_gt(bad_pkt, 0);
	cr_assert_gt(fatal, 0);
	fx_truth_fini(&t);
}

/* A window cut anywhere: what is reported is a prefix of the full
 * window's branches (never a wrong one), the flow ends cleanly. */
Test(etm_bad, truncated_window)
{
	struct fx_truth t;
	struct tmem mem = { 0 };

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		struct tsrc s;
		struct sy_dec_params p;
		struct items full;

		busy_source(&t, &s, (enum fx_etm_arch)arch, 0x10);
		params_init(&p, &mem, &s.s, 1, 0, 0);
		run_decoder(&p, s.enc.out.data, s.enc.out.len, NULL, &full, NULL);
		for (size_t cut = 0; cut < s.enc.out.len; cut += 1 + cut / 16) {
			struct items got;
			size_t k = 0;

			run_decoder(&p, s.enc.out.data, cut, NULL, &got, NULL);
			for (size_t i = 0; i < got.n; i++) {
				if (got.v[i].kind != SY_DEC_BRANCH)
					continue;
				while (k < full.n && full.v[k].kind != SY_DEC_BRANCH)
					k++;
				cr_assert_lt(k, full.n, "cut %zu: extra branch", cut);
				cr_assert(got.v[i].from == full.v[k].from &&
					  got.v[i].to == full.v[k].to &&
					  got.v[i].br == full.v[k].br,
					  "cut %zu: branch %zu differs", cut, i);
				k++;
			}
			items_free(&got);
		}
		items_free(&full);
		tsrc_fini(&s);
	}
	fx_truth_fini(&t);
}

/* The configuration does not fit the trace: no crash, no hang, and what
 * must give nothing gives nothing. */
Test(etm_bad, wrong_config)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct tsrc v4, ete;
	struct sy_dec_params p;
	struct sy_etm_source bad;
	struct items got;
	struct fx_buf fb;
	struct fx_csfmt_stream st;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	busy_source(&t, &v4, FX_ETM_V4, 0x10);
	busy_source(&t, &ete, FX_ETM_ETE, 0x10);
	fx_buf_init(&fb);
	st.trace_id = 0x10;
	st.data = v4.enc.out.data;
	st.len = v4.enc.out.len;
	cr_assert_eq(fx_csfmt_interleave(&fb, &st, 1, 0, 0), 0);

	/* ETE bytes, ETMv4 decoder; ETMv4 bytes, ETE decoder */
	params_init(&p, &mem, &v4.s, 1, 0, 0);
	run_decoder(&p, ete.enc.out.data, ete.enc.out.len, NULL, &got, NULL);
	items_free(&got);
	params_init(&p, &mem, &ete.s, 1, 0, 0);
	run_decoder(&p, v4.enc.out.data, v4.enc.out.len, NULL, &got, NULL);
	items_free(&got);
	/* frames read as raw, raw read as frames */
	params_init(&p, &mem, &v4.s, 1, 0, 0);
	run_decoder(&p, fb.data, fb.len, NULL, &got, NULL);
	items_free(&got);
	params_init(&p, &mem, &v4.s, 1, 1, 0);
	run_decoder(&p, v4.enc.out.data, v4.enc.out.len, NULL, &got, NULL);
	items_free(&got);
	/* the data's trace ID is not the configured one: nothing */
	bad = v4.s;
	bad.trace_id = 0x24;
	params_init(&p, &mem, &bad, 1, 1, 0x24);
	run_decoder(&p, fb.data, fb.len, NULL, &got, NULL);
	cr_assert_eq(got.n, 0);
	items_free(&got);
	/* wrong address / context sizes (TRCIDR2) and no context tracing */
	bad = v4.s;
	bad.trcidr2 = 0;
	bad.trcconfigr = 0;
	params_init(&p, &mem, &bad, 1, 0, 0);
	run_decoder(&p, v4.enc.out.data, v4.enc.out.len, NULL, &got, NULL);
	items_free(&got);
	/* no memory at all: errors, no branches */
	params_init(&p, &mem, &v4.s, 1, 0, 0);
	p.read_mem = no_mem;
	run_decoder(&p, v4.enc.out.data, v4.enc.out.len, NULL, &got, NULL);
	cr_assert_gt(got.n, 0);
	for (size_t i = 0; i < got.n; i++) {
		cr_assert_neq(got.v[i].kind, SY_DEC_BRANCH);
		if (got.v[i].kind == SY_DEC_ERROR)
			cr_assert_eq(got.v[i].code, OCSD_ERR_MEM_NACC);
	}
	items_free(&got);
	fx_buf_fini(&fb);
	tsrc_fini(&v4);
	tsrc_fini(&ete);
	fx_truth_fini(&t);
}

/* Without Trace Info after the A-Sync the decoder never leaves NO_SYNC:
 * no items at all. */
Test(etm_bad, missing_trace_info)
{
	struct fx_truth t;
	struct tmem mem = { 0 };

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++) {
		struct fx_etm_config cfg;
		struct fx_etm_window w;
		struct tsrc s;
		struct sy_dec_params p;
		struct items got;

		fx_etm_config_init(&cfg);
		cfg.arch = (enum fx_etm_arch)arch;
		cfg.timestamps = 1;
		cfg.context_id = 1;
		tsrc_init(&s, &cfg);
		fx_etm_window_init(&w);
		w.skip_trace_info = 1;
		w.resync_period = 4;
		w.end = FX_ETM_END_EXCEPTION;
		w.end_ip = t.insns[7999].next;
		cr_assert_eq(fx_etm_enc_window(&s.enc, t.insns + 7000, 1000, &w),
			     0);
		params_init(&p, &mem, &s.s, 1, 0, 0);
		run_decoder(&p, s.enc.out.data, s.enc.out.len, NULL, &got, NULL);
		cr_assert_eq(got.n, 0, "%zu items", got.n);
		items_free(&got);
		tsrc_fini(&s);
	}
	fx_truth_fini(&t);
}

/* Inputs that crash OpenCSD 1.3.3 itself (found by the fuzzer, reproduced
 * with the C API alone; src/decode/etm_ocsd.h ETM_MEM_TOP and
 * src/decode/etm_verdict.c): an instruction address in the last bytes of
 * the address space, a Mispredict packet after an address packet (also
 * with an A-Sync and Trace Info between them), a Commit packet after an
 * Exception packet that has no address yet, and (return stack on) an
 * exception right after a taken return while the return stack is empty.
 * Each must become an ERROR item, and the window after it must decode
 * exactly as it would alone. */
static size_t next_of_kind(const struct fx_truth *t, size_t i, uint8_t kind)
{
	while (t->insns[i].kind != kind)
		i++;
	return i;
}

static void crash_prefix(struct fx_etm_enc *e, const struct fx_truth *t,
			 int kind)
{
	fx_etm_async(e);
	fx_etm_trace_info(e);
	fx_etm_trace_on(e);
	/* kinds 0-2: the address packet is a return's target, as the trace
	 * unit sends one (an address after a direct branch is no execution
	 * of the code: etm_agree.c) */
	fx_etm_addr_ctxt(e, t->insns[kind <= 2 ? next_of_kind(t, 7000,
							      SY_BR_RET)
					       : 7000].pc, 0);
	fx_etm_atom(e, 1);
	fx_etm_atom_flush(e);
	if (kind == 0) {
		fx_etm_addr_long64(e, 0xfffffffffffffffcull);
		fx_etm_atom(e, 1);
		fx_etm_atom_flush(e);
	} else if (kind == 4) {
		/* a taken return pops the return stack (emptied by the
		 * Trace Info) when the exception after it commits */
		size_t r = next_of_kind(t, 7000, SY_BR_RET);

		fx_etm_trace_info(e);
		fx_etm_addr_long64(e, t->insns[r].pc);
		fx_etm_atom(e, 1);
		fx_etm_atom_flush(e);
		fx_etm_exception(e, FX_ETM_EXC_IRQ, t->insns[7000].pc, 0);
	} else if (kind == 3) {
		/* Exception (IRQ) without its address, then Commit(1) */
		fx_buf_u8(&e->out, 0x06);
		fx_buf_u8(&e->out, 0x1d);
		fx_buf_u8(&e->out, 0x2d);
		fx_buf_u8(&e->out, 0x01);
	} else {
		fx_etm_addr_long64(e, t->insns[7000].pc);
		if (kind == 2) {
			/* a synchronised decoder keeps its element stack
			 * across A-Sync and Trace Info */
			fx_etm_async(e);
			fx_etm_trace_info(e);
		}
		fx_buf_u8(&e->out, 0x30);	/* Mispredict */
		fx_etm_atom(e, 1);
		fx_etm_atom_flush(e);
	}
	/* Ignore packets: with frames the guard drops the whole frame of the
	 * bad packet, which must not hold the next window's A-Sync. */
	for (int i = 0; i < 32; i++)
		fx_buf_u8(&e->out, 0x70);
}

Test(etm_bad, opencsd_crash_inputs)
{
	struct fx_truth t;
	struct tmem mem = { 0 };

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	for (int kind = 0; kind < 5; kind++)
	for (int arch = FX_ETM_V4; arch <= FX_ETM_ETE; arch++)
	for (int fmt = 0; fmt <= 1; fmt++) {
		struct fx_etm_config cfg;
		struct fx_etm_window w;
		struct tsrc alone, both;
		struct fx_buf fb;
		struct fx_csfmt_stream st;
		struct sy_dec_params p;
		struct items got;
		struct expect gx = { 0 }, want;
		const uint8_t *buf;
		size_t len, k, nerr = 0;
		struct sy_etm_debug g;

		fx_etm_config_init(&cfg);
		cfg.arch = (enum fx_etm_arch)arch;
		fx_etm_window_init(&w);
		w.end = FX_ETM_END_EXCEPTION;
		w.end_ip = t.insns[9999].next;
		tsrc_init(&alone, &cfg);
		tsrc_window(&alone, t.insns + 9000, 1000, &w);
		tsrc_init(&both, &cfg);
		if (kind == 4)
			both.s.trcconfigr |= 1u << 12;	/* TRCCONFIGR.RS */
		crash_prefix(&both.enc, &t, kind);
		cr_assert_eq(fx_etm_enc_window(&both.enc, t.insns + 9000, 1000,
					       &w), 0);
		fx_buf_init(&fb);
		buf = both.enc.out.data;
		len = both.enc.out.len;
		if (fmt) {
			st.trace_id = cfg.trace_id;
			st.data = buf;
			st.len = len;
			cr_assert_eq(fx_csfmt_interleave(&fb, &st, 1, 0, 0), 0);
			buf = fb.data;
			len = fb.len;
		}
		params_init(&p, &mem, &both.s, 1, fmt, 0);
		run_decoder(&p, buf, len, NULL, &got, &g);
		to_expect(&got, &gx);
		tsrc_expect(&alone, &want);
		for (k = 0; k < gx.nf; k++) {
			if (gx.f[k].kind != SY_DEC_ERROR)
				continue;
			nerr++;
			cr_assert_eq(gx.f[k].code, kind == 0 ? OCSD_ERR_MEM_NACC :
				     OCSD_ERR_BAD_PACKET_SEQ, "kind %d arch %d "
				     "fmt %d: code %u", kind, arch, fmt,
				     gx.f[k].code);
			if (kind == 0)
				cr_assert_eq(gx.f[k].to, 0xfffffffffffffffcull);
			break;
		}
		cr_assert_eq(nerr, 1, "kind %d arch %d fmt %d: no ERROR", kind,
			     arch, fmt);
		cr_assert_eq(g.cuts, (size_t)(kind != 0));
		/* the window after the bad packet, exactly */
		cr_assert_geq(gx.nf - k - 1, want.nf, "kind %d arch %d fmt %d: "
			      "%zu items after the error, want %zu", kind, arch,
			      fmt, gx.nf - k - 1, want.nf);
		for (size_t i = 0; i < want.nf; i++) {
			const struct flow *a = &gx.f[gx.nf - want.nf + i];
			const struct flow *b = &want.f[i];

			cr_assert(a->kind == b->kind && a->from == b->from &&
				  a->to == b->to && a->br == b->br &&
				  a->ninsn == b->ninsn,
				  "kind %d arch %d fmt %d: item %zu after the "
				  "error", kind, arch, fmt, i);
		}
		items_free(&got);
		x_free(&gx);
		x_free(&want);
		fx_buf_fini(&fb);
		tsrc_fini(&alone);
		tsrc_fini(&both);
	}
	fx_truth_fini(&t);
}

/* A trace unit that speculates (TRCIDR8.MAXSPEC 4): tests/fuzz/
 * fuzz_etm_fastpath found frames of two ETE sources on which OpenCSD
 * 1.3.3's mispredictAtom() crashed past the guard (the exception's own
 * address was left uncommitted on the stack).  Decoded both ways, fed a
 * byte at a time as the fuzzer did. */
Test(etm_bad, speculating_unit_mispredict)
{
	struct sy_etm_source src[2];
	struct sy_dec_params p;
	struct run_opts o = { 0 };
	struct items got;
	size_t len;
	uint8_t *buf = sy_test_read_file(
		"tests/fuzz/regress/etm-spec-mispredict.frames", &len);

	cr_assert_not_null(buf);
	memset(src, 0, sizeof(src));
	for (int k = 0; k < 2; k++) {
		src[k].trace_id = (uint8_t)(0x10 + k);
		src[k].ete = 1;
		src[k].trcconfigr = 1u << 6 | 1u << 11 | 1u << 12;
		src[k].trcidr0 = 0x28000ea1;
		src[k].trcidr1 = 0x4100fff0;
		src[k].trcidr2 = 0x80000488;
		src[k].trcidr8 = 4;
		src[k].trcdevarch = 0x47715a13;
	}
	memset(&p, 0, sizeof(p));
	p.kind = SY_TRACE_ETM;
	p.read_mem = no_mem;
	p.u.etm.formatted = 1;
	p.u.etm.sources = src;
	p.u.etm.nr_sources = 2;
	o.chunk = 1;
	run_decoder(&p, buf, len, &o, &got, NULL);
	cr_assert_gt(got.n, 0u);
	items_free(&got);
	free(buf);
}

/* A damaged Trace Info with a speculation depth (3,689,179) on a unit that
 * does not speculate, then an Exception at the end of the data: OpenCSD
 * 1.3.3 committed the held elements at the end and processException()
 * read past the stack (etm_verdict.c, case 4).  tests/fuzz/
 * fuzz_etm_decode found the bytes; decoded both ways, whole. */
Test(etm_bad, trace_info_spec_depth_without_speculation)
{
	struct sy_etm_source src;
	struct sy_dec_params p;
	struct run_opts o = { 0 };
	struct items got;
	size_t len;
	uint8_t *buf = sy_test_read_file(
		"tests/fuzz/regress/etm-trace-info-spec.raw", &len);

	cr_assert_not_null(buf);
	memset(&src, 0, sizeof(src));
	src.trace_id = 0x10;
	src.trcidr0 = 0x28000ea1;
	src.trcidr1 = 0x4100f443;
	src.trcidr2 = 0x488;
	memset(&p, 0, sizeof(p));
	p.kind = SY_TRACE_ETM;
	p.read_mem = no_mem;
	p.u.etm.sources = &src;
	p.u.etm.nr_sources = 1;
	run_decoder(&p, buf, len, &o, &got, NULL);
	cr_assert_gt(got.n, 0u);
	items_free(&got);
	free(buf);
}

/* A unit that speculates at most 4 elements (TRCIDR8.MAXSPEC 4): a Trace
 * Info of depth 5, a Commit or a Cancel of 2,062,937,047 elements (the
 * count fuzz_etm_fastpath found) is never valid trace and is kept from
 * OpenCSD (etm_verdict.c, case 6): an ERROR(BAD_PACKET_SEQ) at the packet.
 * 1.3.3 counted such a Cancel down one element at a time against a count
 * it never initialised: 1 s with glibc's MALLOC_PERTURB_, 5 s under ASan,
 * and the items depended on the heap.  Depth 4 is valid: no error.  Both
 * decoders, whole and a byte at a time. */
Test(etm_bad, speculation_beyond_maxspec)
{
	/* A-Sync, Trace Info without sections, then the packet */
	static const uint8_t sync[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					0x80, 0x01, 0x00 };
	static const struct {
		uint8_t pkt[8];
		size_t len;
		uint64_t at;	/* window offset of the bad packet */
	} w[] = {
		/* Cancel format 1 (0x2e), the count in 7-bit groups */
		{ { 0x2e, 0xd7, 0xd7, 0xd7, 0xd7, 0x07 }, 6, 14 },
		/* Commit (0x2d) */
		{ { 0x2d, 0xd7, 0xd7, 0xd7, 0xd7, 0x07 }, 6, 14 },
		/* a second Trace Info, its SPEC section only (0x04): 5 */
		{ { 0x01, 0x04, 0x05 }, 3, 14 },
		/* ... 4, the most the unit holds: valid */
		{ { 0x01, 0x04, 0x04 }, 3, UINT64_MAX },
	};
	struct sy_etm_source src;
	struct sy_dec_params p;

	memset(&src, 0, sizeof(src));
	src.trace_id = 0x10;
	src.trcidr0 = 0x28000ea1;
	src.trcidr1 = 0x4100f443;
	src.trcidr2 = 0x488;
	src.trcidr8 = 4;
	memset(&p, 0, sizeof(p));
	p.kind = SY_TRACE_ETM;
	p.read_mem = no_mem;
	p.u.etm.sources = &src;
	p.u.etm.nr_sources = 1;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		uint8_t buf[sizeof(sync) + 8];
		size_t len = sizeof(sync) + w[i].len;

		memcpy(buf, sync, sizeof(sync));
		memcpy(buf + sizeof(sync), w[i].pkt, w[i].len);
		for (int k = 0; k < 2; k++) {
			struct run_opts o = { 0 };
			struct items got;
			size_t cut = 0;

			o.chunk = k;	/* 0: whole, 1: a byte at a time */
			run_decoder(&p, buf, len, &o, &got, NULL);
			for (size_t j = 0; j < got.n; j++) {
				const struct sy_dec_item *it = &got.v[j];

				cr_assert(it->kind == SY_DEC_ERROR,
					  "window %zu: item %zu is a %s", i, j,
					  sy_dec_kind_name(it->kind));
				cut += it->code == OCSD_ERR_BAD_PACKET_SEQ &&
				       it->offset == w[i].at;
			}
			if (w[i].at == UINT64_MAX)
				cr_assert_eq(got.n, 0u, "window %zu: %zu items",
					     i, got.n);
			else
				cr_assert_eq(cut, 1u,
					     "window %zu: %zu items, no cut "
					     "at %" PRIu64,
					     i, got.n, w[i].at);
			items_free(&got);
		}
	}
}

/* An ETE unit that does not speculate, and a Cancel packet after an
 * address and atoms at the end of the data: OpenCSD 1.3.3's
 * mispredictAtom() dereferenced a freed element (etm_verdict.c, case 5:
 * such a unit never sends Commit, Cancel or Mispredict).  tests/fuzz/
 * fuzz_etm_fastpath found the bytes (preamble included); decoded both
 * ways, whole and a byte at a time. */
Test(etm_bad, cancel_without_speculation)
{
	struct sy_etm_source src;
	struct sy_dec_params p;
	struct items got;
	size_t len;
	uint8_t *buf = sy_test_read_file(
		"tests/fuzz/regress/etm-nospec-cancel.raw", &len);

	cr_assert_not_null(buf);
	img_fill();
	memset(&src, 0, sizeof(src));
	src.trace_id = 0x10;
	src.ete = 1;
	src.trcconfigr = 1u << 6 | 1u << 11;
	src.trcidr0 = 0x28000ea1;
	src.trcidr1 = 0x4100fff0;
	src.trcidr2 = 0x488;
	src.trcdevarch = 0x47715a13;
	memset(&p, 0, sizeof(p));
	p.kind = SY_TRACE_ETM;
	p.read_mem = img_read;	/* the fuzzer's code */
	p.u.etm.sources = &src;
	p.u.etm.nr_sources = 1;
	for (int k = 0; k < 4; k++) {
		struct run_opts o = { 0 };

		o.chunk = (k & 1) ? 64 : 0;	/* the fuzzer's, and whole */
		o.ring = (k & 2) ? 1 : 0;	/* its ring of one item */
		run_decoder(&p, buf, len, &o, &got, NULL);
		cr_assert_gt(got.n, 0u);
		items_free(&got);
	}
	free(buf);
}

/* With the return stack on (TRCCONFIGR.RS), an exception committed while
 * a taken return waits for its target pops the return stack first; OpenCSD
 * 1.3.3 crashes when that stack is empty (etm_verdict.c, case 3).  The
 * packets say the same in each case below; the code and the stack decide:
 *   0  bl, then ret, exception at the return address: the pop finds the
 *      bl's return address; no cut, the exception is reported
 *   1  ret with its target address, then the exception: the address takes
 *      the pop's place; no cut
 *   2  a taken return on an empty stack (Trace Info emptied it), then the
 *      exception: cut (crashed before)
 *   3  the same on a unit that speculates (TRCIDR8.MAXSPEC 4): the
 *      exception commits after four more atoms; cut (crashed before)
 * Both decoders give the same items (run_decoder); the fast path follows
 * cases 0 and 1 itself. */
Test(etm_bad, return_stack_exceptions)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	size_t c, r;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	c = next_of_kind(&t, 7000, SY_BR_CALL);
	r = next_of_kind(&t, 7000, SY_BR_RET);
	for (int kind = 0; kind < 4; kind++) {
		uint64_t back = t.insns[c].pc + 4;
		struct fx_etm_config cfg;
		struct tsrc s;
		struct sy_dec_params p;
		struct sy_etm_debug g;
		struct items got;
		size_t nerr = 0, nexc = 0;

		fx_etm_config_init(&cfg);
		tsrc_init(&s, &cfg);
		s.s.trcconfigr |= 1u << 12;
		if (kind == 3)
			s.s.trcidr8 = 4;
		fx_etm_async(&s.enc);
		fx_etm_trace_info(&s.enc);
		fx_etm_trace_on(&s.enc);
		fx_etm_addr_ctxt(&s.enc, t.insns[kind ? r : c].pc, 0);
		fx_etm_atom(&s.enc, 1);
		fx_etm_atom_flush(&s.enc);
		if (kind == 0) {
			fx_etm_addr_long64(&s.enc, t.insns[r].pc);
			fx_etm_atom(&s.enc, 1);
			fx_etm_atom_flush(&s.enc);
		} else if (kind == 1) {
			fx_etm_addr_long64(&s.enc, back);
		}
		fx_etm_exception(&s.enc, FX_ETM_EXC_IRQ, back, 0);
		for (int i = 0; i < 6; i++)
			fx_etm_atom(&s.enc, 1);
		fx_etm_atom_flush(&s.enc);
		params_init(&p, &mem, &s.s, 1, 0, 0);
		run_decoder(&p, s.enc.out.data, s.enc.out.len, NULL, &got, &g);
		for (size_t i = 0; i < got.n; i++) {
			nerr += got.v[i].kind == SY_DEC_ERROR;
			nexc += got.v[i].kind == SY_DEC_STOP &&
				got.v[i].code == SY_STOP_EXCEPTION &&
				got.v[i].to == back;
		}
		cr_assert_eq(nerr, (size_t)(kind >= 2), "kind %d: %zu errors",
			     kind, nerr);
		cr_assert_eq(nexc, (size_t)(kind < 2), "kind %d: %zu exceptions",
			     kind, nexc);
		cr_assert_eq(g.fallbacks, (uint64_t)(kind >= 2), "kind %d",
			     kind);
		items_free(&got);
		tsrc_fini(&s);
	}
	fx_truth_fini(&t);
}

/* A source whose trace starts at @pc (A-Sync, Trace Info, Trace On, an
 * address with context), with the return stack on when @rs. */
static void source_at(struct tsrc *s, uint64_t pc, int rs)
{
	struct fx_etm_config cfg;

	fx_etm_config_init(&cfg);
	tsrc_init(s, &cfg);
	if (rs)
		s->s.trcconfigr |= 1u << 12;	/* TRCCONFIGR.RS */
	fx_etm_async(&s->enc);
	fx_etm_trace_info(&s->enc);
	fx_etm_trace_on(&s->enc);
	fx_etm_addr_ctxt(&s->enc, pc, 0);
}

/* @s's trace decoded both ways (run_decoder), raw or in frames (@fmt);
 * the fast path gave it up once. */
static void decode_given_up(struct tsrc *s, struct tmem *mem, int fmt,
			    struct items *got)
{
	struct sy_dec_params p;
	struct sy_etm_debug g;
	struct fx_buf fb;
	const uint8_t *buf = s->enc.out.data;
	size_t len = s->enc.out.len;

	fx_buf_init(&fb);
	if (fmt)
		in_frames(&fb, s->cfg.trace_id, &buf, &len);
	params_init(&p, mem, &s->s, 1, fmt, 0);
	run_decoder(&p, buf, len, NULL, got, &g);
	cr_assert_eq(g.fallbacks, 1, "fmt %d: the walk gave up", fmt);
	fx_buf_fini(&fb);
}

/* The fast path converts a raw window's ranges as it walks them (the
 * direct lane, etm_walk.c out_range), but OpenCSD drops the batch of
 * elements in which it meets an error.  With the return stack on, one atom
 * packet "E E" from a RET: the RET's range (the window's first, so a START
 * with it) goes out at once, then the second atom pops the empty stack
 * (Trace Info emptied it) and the walk gives the window up in the same
 * batch.  The START must be taken back: the full decoder, decoding the
 * window again, never made it, and its first items would be dropped as
 * already out.  Both decoders give the same items (run_decoder), in a raw
 * stream and in frames. */
Test(etm_bad, direct_lane_batch_dropped)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	size_t r;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	r = next_of_kind(&t, 7000, SY_BR_RET);
	for (int fmt = 0; fmt <= 1; fmt++) {
		struct tsrc s;
		struct items got;
		size_t nstart = 0;

		source_at(&s, t.insns[r].pc, 1);
		cr_assert_eq(fx_etm_atom_packet(&s.enc, 2, 3, 2), 0);
		/* good trace after it, which both decoders resume at */
		fx_etm_async(&s.enc);
		fx_etm_trace_info(&s.enc);
		fx_etm_addr_ctxt(&s.enc, t.insns[7000].pc, 0);
		for (int i = 0; i < 8; i++)
			fx_etm_atom(&s.enc, 1);
		fx_etm_atom_flush(&s.enc);
		decode_given_up(&s, &mem, fmt, &got);
		for (size_t i = 0; i < got.n; i++)
			nstart += got.v[i].kind == SY_DEC_START &&
				  got.v[i].to == t.insns[r].pc;
		cr_assert_eq(nstart, 0, "fmt %d: the dropped batch's START "
			     "went out", fmt);
		items_free(&got);
		tsrc_fini(&s);
	}
	fx_truth_fini(&t);
}

/* A loop of one block in the truth's trace: a taken direct branch whose
 * target runs straight back to it (no other waypoint between); returns
 * the target's index, the branch at *@br. */
static size_t one_block_loop(const struct fx_truth *t, size_t *br)
{
	for (size_t i = 0; i + 1 < t->n; i++) {
		const struct fx_insn *b = &t->insns[i];
		size_t k = i + 1;

		if ((b->kind != SY_BR_COND && b->kind != SY_BR_JUMP) ||
		    !fx_insn_taken(b) || b->next >= b->pc)
			continue;
		while (k < t->n && t->insns[k].kind == SY_BR_NONE)
			k++;
		if (k < t->n && t->insns[k].pc == b->pc) {
			*br = k;
			return i + 1;
		}
	}
	cr_assert_fail("no loop of one block in the truth");
	return 0;
}

/* A formatted window given up in a later span, after its ring grew in
 * that span: the ring renumbers its items when it grows (oldest first from
 * 0), and the span's undo must count from the oldest item, not go back to
 * the old number (which, with items popped before the span, brought back
 * stale slots as items).  The first span holds a few branches (popped
 * before the next is fed), the second more than the ring holds, then a
 * Mispredict the fast path gives up on.  Both decoders give the same items
 * (run_decoder), framed and raw. */
Test(etm_bad, span_undone_after_ring_grew)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	size_t top, br;

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	top = one_block_loop(&t, &br);
	for (int fmt = 0; fmt <= 1; fmt++) {
		struct tsrc s;
		struct items got;
		size_t nbr = 0;

		source_at(&s, t.insns[top].pc, 0);
		for (int i = 0; i < 100; i++)
			fx_etm_atom(&s.enc, 1);
		fx_etm_atom_flush(&s.enc);
		/* past the first span (2048 bytes of frames, 1920 of trace) */
		for (int i = 0; i < 170; i++)
			fx_etm_async(&s.enc);
		cr_assert_gt(s.enc.out.len, 1920 + 12);
		for (int i = 0; i < 5000; i++)
			fx_etm_atom(&s.enc, 1);
		fx_etm_atom_flush(&s.enc);
		fx_buf_u8(&s.enc.out, 0x30);	/* Mispredict */
		fx_etm_atom(&s.enc, 1);
		fx_etm_atom_flush(&s.enc);
		cr_assert_lt(s.enc.out.len, 3 * 1920);
		decode_given_up(&s, &mem, fmt, &got);
		for (size_t i = 0; i < got.n; i++)
			nbr += got.v[i].kind == SY_DEC_BRANCH;
		cr_assert_geq(nbr, 100, "fmt %d: %zu branches", fmt, nbr);
		items_free(&got);
		tsrc_fini(&s);
	}
	fx_truth_fini(&t);
}

/* Flipped bits anywhere in good trace: terminates, offsets in range. */
Test(etm_bad, bit_flips)
{
	struct fx_truth t;
	struct tmem mem = { 0 };
	struct tsrc s;
	struct rng r = { 5 };

	load_truth(&t, "branchy-aarch64");
	mem.t = &t;
	busy_source(&t, &s, FX_ETM_V4, 0x10);
	for (int iter = 0; iter < 300; iter++) {
		struct sy_dec_params p;
		struct items got;
		uint8_t *b = malloc(s.enc.out.len);

		cr_assert_not_null(b);
		memcpy(b, s.enc.out.data, s.enc.out.len);
		for (int k = 0; k < 1 + iter % 5; k++) {
			size_t at = rnd(&r, s.enc.out.len);

			b[at] ^= (uint8_t)(1u << rnd(&r, 8));
		}
		params_init(&p, &mem, &s.s, 1, 0, 0);
		run_decoder(&p, b, s.enc.out.len, NULL, &got, NULL);
		items_free(&got);
		free(b);
	}
	tsrc_fini(&s);
	fx_truth_fini(&t);
}

/* ------------------------------------------------------------------ */
/* (a) real snapshots against trc_pkt_lister 1.3.3                     */
/* ------------------------------------------------------------------ */

#define SNAP_DIR "fixtures/real/opencsd-snapshots"


/* ---- the listing's generic elements ---- */

enum lkind {
	L_RANGE, L_EXC, L_TS, L_CTX, L_TRACE_ON, L_NO_SYNC, L_NACC, L_EOT,
	L_CC, L_OTHER,
};

struct lel {
	uint8_t kind, id;
	uint8_t exec, dir, ind, link, ret, eret, cond, a64, br_tgt;
	uint8_t has_ret, ctx_valid, ovf, bad, has_cc;
	uint32_t num, sz, exc, ctx, cc;
	uint64_t st, en, addr, ts;
};

struct llist {
	struct lel *v;
	size_t n, cap;
};

static void lel_parse(const char *line, size_t len, struct llist *l)
{
	char buf[512];
	struct lel e;
	unsigned id;
	const char *p, *q;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, line, len);
	buf[len] = 0;
	p = strstr(buf, "OCSD_GEN_TRC_ELEM_");
	if (!p || sscanf(buf, "Idx:%*u; ID:%x;", &id) != 1)
		return;
	memset(&e, 0, sizeof(e));
	e.id = (uint8_t)id;
	p += strlen("OCSD_GEN_TRC_ELEM_");
	if (!strncmp(p, "INSTR_RANGE(", 12)) {
		e.kind = L_RANGE;
		q = strstr(p, "exec range=");
		cr_assert_not_null(q);
		cr_assert_eq(sscanf(q, "exec range=0x%" SCNx64 ":[0x%" SCNx64
				    "] num_i(%u) last_sz(%u)", &e.st, &e.en,
				    &e.num, &e.sz), 4, "%s", buf);
		q = strstr(p, ") E ");
		e.exec = q != NULL;
		e.a64 = strstr(p, "(ISA=A64)") != NULL;
		e.ind = strstr(p, " iBR ") != NULL;
		e.dir = !e.ind && strstr(p, " BR  ") != NULL;
		e.link = strstr(p, "b+link") != NULL;
		e.ret = strstr(p, "A64:ret") != NULL ||
			strstr(p, "V7:impl ret") != NULL;
		e.eret = strstr(p, "A64:eret") != NULL;
		e.cond = strstr(p, "<cond>") != NULL;
	} else if (!strncmp(p, "EXCEPTION(", 10)) {
		e.kind = L_EXC;
		q = strstr(p, "pref ret addr:0x");
		if (q) {
			e.has_ret = 1;
			e.addr = strtoull(q + 16, NULL, 16);
		}
		e.br_tgt = strstr(p, "[addr also prev br tgt]") != NULL;
		q = strstr(p, "excep num (0x");
		cr_assert_not_null(q);
		e.exc = (uint32_t)strtoul(q + 13, NULL, 16);
	} else if (!strncmp(p, "TIMESTAMP(", 10)) {
		e.kind = L_TS;
		q = strstr(p, "TS=0x");
		cr_assert_not_null(q);
		e.ts = strtoull(q + 5, NULL, 16);
		q = strstr(p, "CC=");
		if (q) {
			e.has_cc = 1;
			e.cc = (uint32_t)strtoul(q + 3, NULL, 10);
		}
	} else if (!strncmp(p, "CYCLE_COUNT(", 12)) {
		e.kind = L_CC;
		q = strstr(p, "[CC=");
		cr_assert_not_null(q, "%s", buf);
		e.has_cc = 1;
		e.cc = (uint32_t)strtoul(q + 4, NULL, 10);
	} else if (!strncmp(p, "PE_CONTEXT(", 11)) {
		e.kind = L_CTX;
		q = strstr(p, "CTXTID=0x");
		if (q) {
			e.ctx_valid = 1;
			e.ctx = (uint32_t)strtoul(q + 9, NULL, 16);
		}
	} else if (!strncmp(p, "TRACE_ON(", 9)) {
		e.kind = L_TRACE_ON;
		e.ovf = strstr(p, "[overflow]") != NULL;
	} else if (!strncmp(p, "NO_SYNC(", 8)) {
		e.kind = L_NO_SYNC;
		e.ovf = strstr(p, "[overflow]") != NULL;
		e.bad = strstr(p, "[bad-packet]") != NULL;
	} else if (!strncmp(p, "ADDR_NACC(", 10)) {
		e.kind = L_NACC;
		cr_assert_eq(sscanf(p, "ADDR_NACC( 0x%" SCNx64, &e.addr), 1);
	} else if (!strncmp(p, "EO_TRACE(", 9)) {
		e.kind = L_EOT;
		e.ovf = strstr(p, "[overflow]") != NULL;
	} else {
		e.kind = L_OTHER;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		cr_assert_not_null(l->v);
	}
	l->v[l->n++] = e;
}

static void listing_load(const char *path, struct llist *l)
{
	char cmd[1200];
	char *out = NULL, *line;
	size_t olen = 0;

	snprintf(cmd, sizeof(cmd), "zcat '%s'", path);
	cr_assert_eq(sy_test_run(cmd, &out, &olen), 0, "%s", cmd);
	memset(l, 0, sizeof(*l));
	for (line = out; line < out + olen;) {
		char *nl = memchr(line, '\n', (size_t)(out + olen - line));
		size_t len = nl ? (size_t)(nl - line) : (size_t)(out + olen - line);

		lel_parse(line, len, l);
		line += len + 1;
	}
	free(out);
}

/* ---- the contract applied to the listing (sy_decode.h and the table in
 * etm_conv.c): the expected items of one trace ID ---- */

struct lstate {
	struct expect *x;
	struct sy_snap *mem;
	int started, pending, pend_direct, pend_a64, have_last, have_next;
	int ovf, nacc, have_ctx;
	uint8_t pend_br;
	uint64_t pend_from, last_pc, next_pc, acc;
	uint32_t ctx;
};

static void l_flow(struct lstate *s, uint8_t kind, uint8_t br, uint32_t code,
		   uint16_t exc, uint64_t from, uint64_t to)
{
	struct flow f = { .kind = kind, .br = br, .exc = exc, .code = code,
			  .from = from, .to = to, .ninsn = s->acc };

	s->acc = 0;
	x_flow(s->x, &f);
}

static void l_branch(struct lstate *s, uint64_t to)
{
	l_flow(s, SY_DEC_BRANCH, s->pend_br, 0, 0, s->pend_from, to);
	s->pending = 0;
	s->next_pc = to;
	s->have_next = 1;
}

/* A64 direct branch targets, from the Arm ARM encodings. */
static int a64_target(uint32_t w, uint64_t pc, uint64_t *to)
{
	int64_t imm;

	if ((w & 0x7c000000u) == 0x14000000u) {		/* B / BL: imm26 */
		imm = (int64_t)(w & 0x3ffffffu);
		imm = (imm ^ 0x2000000) - 0x2000000;
	} else if ((w & 0xff000000u) == 0x54000000u ||	/* B.cond: imm19 */
		   (w & 0x7e000000u) == 0x34000000u) {	/* CBZ/CBNZ */
		imm = (int64_t)((w >> 5) & 0x7ffffu);
		imm = (imm ^ 0x40000) - 0x40000;
	} else if ((w & 0x7e000000u) == 0x36000000u) {	/* TBZ/TBNZ: imm14 */
		imm = (int64_t)((w >> 5) & 0x3fffu);
		imm = (imm ^ 0x2000) - 0x2000;
	} else {
		return 0;
	}
	*to = pc + (uint64_t)(imm * 4);
	return 1;
}

static void l_gap(struct lstate *s)
{
	uint8_t b[4];
	uint64_t to;

	if (!s->pending)
		return;
	s->pending = 0;
	s->have_next = 0;
	if (s->pend_direct && s->pend_a64 &&
	    sy_snap_read(s->mem, 0, s->pend_from, b, 4) == 4 &&
	    a64_target(sy_le32(b), s->pend_from, &to))
		l_branch(s, to);
}

static void l_stop_gap(struct lstate *s, uint32_t code)
{
	if (!s->started)
		return;
	l_gap(s);
	l_flow(s, SY_DEC_STOP, 0, code, 0, s->have_last ? s->last_pc : 0,
	       s->have_next ? s->next_pc : 0);
	s->started = 0;
}

static void l_lose(struct lstate *s)
{
	if (s->started)
		l_gap(s);
	s->pending = 0;
	s->started = 0;
}

static void l_overflow(struct lstate *s)
{
	l_lose(s);
	l_flow(s, SY_DEC_OVERFLOW, 0, 0, 0, 0, 0);
	s->ovf = 1;
}

static void l_error(struct lstate *s, uint32_t code, uint64_t addr)
{
	l_lose(s);
	l_flow(s, SY_DEC_ERROR, 0, code, 0, 0, addr);
}

static uint8_t l_kind(const struct lel *e)
{
	if (e->dir)
		return e->link ? SY_BR_CALL : e->cond ? SY_BR_COND : SY_BR_JUMP;
	if (e->link)
		return SY_BR_IND_CALL;
	if (e->ret)
		return SY_BR_RET;
	return e->eret ? SY_BR_ERET : SY_BR_IND_JUMP;
}

static void listing_expect(const struct llist *l, uint8_t id, struct sy_snap *mem,
			   struct expect *x)
{
	struct lstate s;

	memset(&s, 0, sizeof(s));
	memset(x, 0, sizeof(*x));
	s.x = x;
	s.mem = mem;
	for (size_t i = 0; i < l->n; i++) {
		const struct lel *e = &l->v[i];

		if (e->id != id)
			continue;
		switch (e->kind) {
		case L_RANGE:
			if (s.pending) {
				l_branch(&s, e->st);
			} else if (!s.started ||
				   (s.have_next && s.next_pc != e->st)) {
				l_stop_gap(&s, SY_STOP_DISABLE);
				l_flow(&s, SY_DEC_START, 0, 0, 0, 0, e->st);
				s.started = 1;
				s.nacc = 0;
				s.have_last = 0;
			}
			s.acc += e->num;
			s.last_pc = e->en - (e->sz ? e->sz : 4);
			s.have_last = 1;
			s.next_pc = e->en;
			s.have_next = 1;
			if (e->exec && (e->dir || e->ind)) {
				s.pending = 1;
				s.pend_from = s.last_pc;
				s.pend_br = l_kind(e);
				s.pend_direct = e->dir;
				s.pend_a64 = e->a64;
				s.have_next = 0;
			}
			break;
		case L_EXC: {
			uint64_t ret = e->has_ret ? e->addr : 0;

			if (s.pending) {
				if (e->has_ret)
					l_branch(&s, ret);
				else
					l_gap(&s);
			}
			l_flow(&s, SY_DEC_STOP, 0, e->exc == 2 ? SY_STOP_SYSCALL :
			       SY_STOP_EXCEPTION, (uint16_t)e->exc,
			       s.started && s.have_last ? s.last_pc : 0, ret);
			s.pending = 0;
			s.started = 0;
			break;
		}
		case L_CTX:
			if (e->ctx_valid && (!s.have_ctx || s.ctx != e->ctx)) {
				s.have_ctx = 1;
				s.ctx = e->ctx;
				x_ctx(x, e->ctx);
			}
			break;
		case L_TS:
			x_time(x, e->ts);
			if (e->has_cc)
				x_cyc(x, e->cc);
			break;
		case L_CC:
			x_cyc(x, e->cc);
			break;
		case L_TRACE_ON:
			if (e->ovf) {
				if (!s.ovf)
					l_overflow(&s);
				s.ovf = 0;
			} else {
				l_stop_gap(&s, SY_STOP_DISABLE);
			}
			break;
		case L_NO_SYNC:
			if (e->ovf) {
				l_overflow(&s);
			} else if (e->bad) {
				l_error(&s, OCSD_ERR_BAD_DECODE_PKT, 0);
			} else {
				l_stop_gap(&s, SY_STOP_DISABLE);
				l_lose(&s);
			}
			break;
		case L_NACC:
			if (s.pending)
				l_branch(&s, e->addr);
			if (s.nacc) {
				l_lose(&s);
			} else {
				s.nacc = 1;
				l_error(&s, OCSD_ERR_MEM_NACC, e->addr);
			}
			break;
		case L_EOT:
			if (e->ovf && !s.ovf)
				l_overflow(&s);
			l_stop_gap(&s, SY_STOP_END);
			break;
		default:
			break;
		}
	}
	if (s.acc) {
		struct flow f = { .kind = FLOW_TAIL, .ninsn = s.acc };

		x_flow(x, &f);
	}
}

/* Decodes snapshot @name per trace ID with our decoder and compares with
 * the reference listing.  Returns the number of instructions decoded. */
static uint64_t real_snapshot(const char *sub, const char *name)
{
	char dir[1024], lst[1200], why[1024];
	struct sy_snap s;
	int n;
	struct llist l;
	struct sy_dec_params p;
	uint64_t total = 0;

	snprintf(dir, sizeof(dir), "%s", sy_test_shared_path(SNAP_DIR));
	sy_test_require_path(dir);
	n = snprintf(lst, sizeof(lst), "%s/results-trc_pkt_lister-1.3.3/%s.ppl.gz",
		     dir, name);
	cr_assert(n > 0 && (size_t)n < sizeof(lst));
	n = snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/%s/%s",
		     sub, name);
	cr_assert(n > 0);
	sy_snap_load(dir, &s);
	listing_load(lst, &l);
	cr_assert_gt(l.n, 0, "%s: empty listing", lst);
	for (size_t k = 0; k < s.nsrc; k++) {
		uint8_t id = (uint8_t)(s.src[k].trctraceidr & 0x7f);
		struct expect want, gx;
		struct items got;
		struct sy_etm_debug g;
		struct run_opts o = { 0 };

		listing_expect(&l, id, &s, &want);
		memset(&p, 0, sizeof(p));
		p.kind = SY_TRACE_ETM;
		p.read_mem = sy_snap_read;
		p.mem_ctx = &s;
		p.u.etm.formatted = s.formatted;
		p.u.etm.sources = s.src;
		p.u.etm.nr_sources = s.nsrc;
		p.u.etm.trace_id = id;
		for (int variant = 0; variant < 2; variant++) {
			/* and once through the WAIT path without the cache */
			o.ring = variant ? 2 : 0;
			o.no_cache = variant;
			o.full_dbg = variant;
			run_decoder(&p, s.trace, s.trace_len, &o, &got, &g);
			memset(&gx, 0, sizeof(gx));
			to_expect(&got, &gx);
			cr_assert(x_equal(&gx, &want, why, sizeof(why)),
				  "%s ID 0x%x variant %d: %s", name, id, variant,
				  why);
			if (variant)
				cr_assert(g.waits > 0 || got.n < 2);
			else
				total += x_insns(&gx);
			x_free(&gx);
			items_free(&got);
		}
		x_free(&want);
	}
	free(l.v);
	sy_snap_free(&s);
	return total;
}

Test(etm_real, juno_uname_etmv4_six_ids)
{
	char dir[1024];
	struct sy_snap s;
	struct llist l;
	struct expect want;
	uint64_t listed = 0;

	/* the listing's ranges, for the total */
	snprintf(dir, sizeof(dir), "%s", sy_test_shared_path(SNAP_DIR));
	sy_test_require_path(dir);
	cr_assert_gt(real_snapshot("snapshots", "juno-uname-002"), 0);
	cr_assert_lt(strlen(dir) + 60, sizeof(dir));
	strcat(dir, "/results-trc_pkt_lister-1.3.3/juno-uname-002.ppl.gz");
	listing_load(dir, &l);
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].kind == L_RANGE)
			listed += l.v[i].num;
	/* NACC of the untraced kernel became ERROR items, once per gap */
	memset(&s, 0, sizeof(s));
	listing_expect(&l, 0x16, &s, &want);
	cr_assert_gt(x_count(&want, SY_DEC_ERROR), 10);
	cr_assert_gt(x_count(&want, SY_DEC_OVERFLOW), 10);
	cr_assert_gt(x_count(&want, SY_DEC_BRANCH), 1000);
	cr_assert_eq(x_insns(&want), listed);
	x_free(&want);
	free(l.v);
}

Test(etm_real, ete_spec_1)
{
	cr_assert_gt(real_snapshot("snapshots-ete", "ete_spec_1"), 0);
}

Test(etm_real, ete_ts_bit64_set)
{
	cr_assert_gt(real_snapshot("snapshots-ete", "ts_bit64_set"), 0);
}

Test(etm_real, ete_src_addr)
{
	cr_assert_gt(real_snapshot("snapshots-ete", "src_addr"), 0);
}
