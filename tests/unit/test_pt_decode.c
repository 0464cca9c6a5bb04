/* The Intel PT window decoder (src/decode/pt.c) against ground truth.
 *
 * The recorded run of tests/fixtures/programs/bin/branchy-x86_64 (41256
 * executed instructions, every branch kind, ten syscalls) is cut into
 * windows; tests/fixtures/gen/fx_pt.c encodes them as a paused and resumed
 * user-only PT stream (with or without PSB at a resume, FUP+TIP.PGD or a
 * stream that just stops at the end, overflows, periodic PSB+, return and IP
 * compression, TNT-8/64, TSC).  Each window is decoded on its own through
 * sy_decoder_* (from the last PSB before it, found with
 * sy_decode_find_sync, reporting from its first byte, often in pieces) and
 * the items are compared with what the truth says they must be
 * (exp_window):
 *
 *  - a BRANCH for every taken branch (from, to, kind), none for a syscall
 *    (its successor is the next instruction); a syscall gives
 *    STOP(SYSCALL, from = it, to = the next instruction) and, when the
 *    window goes on, START(the next instruction);
 *  - START(first instruction) first; FUP+TIP.PGD ends with
 *    STOP(EXCEPTION, from = last instruction, to = first one not executed);
 *  - a stream that just stops ends with STOP(END, from = the last
 *    instruction that consumed trace, to = its successor), the branch to
 *    that successor included, nothing after it;
 *  - an overflow: nothing after the last instruction that consumed trace
 *    before it, that instruction's branch not either (its successor never
 *    reaches the decoder), then OVERFLOW(resume IP, or 0 with TIP.PGE) and
 *    START(resume IP);
 *  - in both cases a PSB+ in the straight-line code before the end proves
 *    execution up to its FUP IP (found in the packets, tail_psb_fup);
 *  - every item's running instruction count (sum of ninsn up to and
 *    including it) is the index of the instruction it belongs to, so the
 *    sum over the window is the number of instructions the trace proves;
 *  - TIME items are exactly the TSC packets of the window (read with
 *    libipt's packet decoder, not from the encoder's bookkeeping), except
 *    a TSC that no decoder can see (times_match).
 *
 * The tests:
 *   psb_windows, nopsb_windows_compressed, tnt64_periodic_psb, time,
 *   end_none_and_overflow, random_streams
 *                       the above over ~1900 windows of 26 streams;
 *   chunks_are_one_buffer
 *                       pieces (also empty ones) decode like one buffer;
 *   code_cache          same items with and without the code cache, far
 *                       fewer read_mem calls, the context ID reaches
 *                       read_mem, a mapping starting mid-line works;
 *   ctx_at_names_each_stretch
 *                       with params.ctx_at (a per-CPU trace's thread from
 *                       the recording), each stretch's code is read in
 *                       the context it names for the stretch's start
 *                       time, a CONTEXT item with it comes before the
 *                       START, and the items are otherwise those without;
 *   find_sync_*         sy_decode_find_sync finds the PSBs libipt's packet
 *                       decoder finds, at every offset, and handles runs
 *                       of the PSB pattern as libipt does;
 *   window_without_psb  no PSB anywhere: one ERROR (pte_nosync) at byte 0;
 *                       a lost first window before a PSB one; padding;
 *   flipped_tnt_bit, truncated_windows, random_bytes, endless_direct_jump
 *                       broken input: items and the end, ERROR offsets in
 *                       the window, no hang; what comes before the first
 *                       error of a truncated window is true;
 *   real_capture_idx0/3 the Skylake capture without its binaries: one
 *                       ERROR (no memory mapped) per PSB of the ptdump
 *                       listing, between it and the next, to the end;
 *   x86_*               the last-instruction decoder against the program,
 *                       a table of encodings and capstone.
 *
 * Nothing here compares the decoder with itself, except the chunking and
 * code cache tests (the same bytes in pieces, or with the cache off, must
 * give the same items).
 */
#include <criterion/criterion.h>
#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_buf.h"
#include "fx_classify.h"
#include "fx_insn.h"
#include "fx_pt.h"
#include "fx_truth.h"
#include "sy_decode.h"
#include "sy_error.h"
#include "sy_test.h"

#include "decode/pt_impl.h"
#include "decode/pt_x86.h"

#define TRUTH "tests/fixtures/truth/branchy-x86_64.truth"
#define ELF "tests/fixtures/programs/bin/branchy-x86_64"
#define REAL_DIR "fixtures/real/quipper-intel-pt/aux-extracted/"

/* ------------------------------------------------------------------------
 * Fixture: the truth and a flat copy of its executable segment.
 * ---------------------------------------------------------------------- */

static struct fx_truth g_t;
static uint8_t *g_code;
static uint64_t g_code_base;
static size_t g_code_len;

struct mem {
	int none;		/* nothing mapped (the real capture) */
	uint64_t calls;
};

static size_t t_read_mem(void *ctx, uint32_t ctxid, uint64_t addr,
			 uint8_t *buf, size_t len)
{
	struct mem *m = ctx;
	size_t n;

	(void)ctxid;
	if (m) {
		m->calls++;
		if (m->none)
			return 0;
	}
	if (addr < g_code_base || addr - g_code_base >= g_code_len)
		return 0;
	n = g_code_len - (size_t)(addr - g_code_base);
	if (n > len)
		n = len;
	memcpy(buf, g_code + (addr - g_code_base), n);
	return n;
}

static void setup(void)
{
	struct sy_diag d = { 0 };
	uint64_t lo = UINT64_MAX, hi = 0;
	uint8_t c;
	size_t i;
	int err;

	err = fx_truth_load(&g_t, TRUTH, ELF, &d);
	cr_assert_eq(err, 0, "truth: %s (%s)", sy_errname(err), d.msg);
	for (i = 0; i < g_t.n; i++) {
		if (g_t.insns[i].pc < lo)
			lo = g_t.insns[i].pc;
		if (g_t.insns[i].pc + g_t.insns[i].size > hi)
			hi = g_t.insns[i].pc + g_t.insns[i].size;
	}
	/* Grow to the whole executable segment. */
	while (fx_truth_read_mem(&g_t, lo - 1, &c, 1) == 0)
		lo--;
	while (fx_truth_read_mem(&g_t, hi, &c, 1) == 0)
		hi++;
	g_code_base = lo;
	g_code_len = (size_t)(hi - lo);
	g_code = malloc(g_code_len);
	cr_assert_not_null(g_code);
	cr_assert_eq(fx_truth_read_mem(&g_t, lo, g_code, g_code_len), 0);
}

static void teardown(void)
{
	free(g_code);
	g_code = NULL;
	fx_truth_fini(&g_t);
}

TestSuite(pt_decode, .init = setup, .fini = teardown, .timeout = 120);

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static void pt_params(struct sy_dec_params *p, struct mem *m)
{
	struct fx_pt_hw hw;

	fx_pt_hw_init(&hw);
	memset(p, 0, sizeof(*p));
	p->kind = SY_TRACE_PT;
	p->read_mem = t_read_mem;
	p->mem_ctx = m;
	p->u.pt.family = hw.family;
	p->u.pt.model = hw.model;
	p->u.pt.stepping = hw.stepping;
	p->u.pt.mtc_freq = hw.mtc_freq;
	p->u.pt.nom_freq = hw.nom_freq;
	p->u.pt.cpuid_0x15_eax = hw.cpuid_15_eax;
	p->u.pt.cpuid_0x15_ebx = hw.cpuid_15_ebx;
}

static struct sy_decoder *new_decoder(struct mem *m)
{
	struct sy_dec_params p;
	struct sy_decoder *d;
	int err;

	pt_params(&p, m);
	err = sy_decoder_alloc(&d, &p);
	cr_assert_eq(err, 0, "alloc: %s", sy_errname(err));
	return d;
}

/* ------------------------------------------------------------------------
 * Item lists.
 * ---------------------------------------------------------------------- */

struct items {
	struct sy_dec_item *e;
	uint64_t *count;	/* running instruction count at each item */
	size_t n, cap;
};

static void items_add(struct items *l, const struct sy_dec_item *it,
		      uint64_t count)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->e = realloc(l->e, l->cap * sizeof(*l->e));
		l->count = realloc(l->count, l->cap * sizeof(*l->count));
		cr_assert(l->e && l->count);
	}
	l->e[l->n] = *it;
	l->count[l->n++] = count;
}

static void items_free(struct items *l)
{
	free(l->e);
	free(l->count);
	memset(l, 0, sizeof(*l));
}

/* Decodes what was set up with sy_decoder_reset; fails the test if next()
 * returns anything but items and -SY_E_EOS, or more than @max items. */
static void drain(struct sy_decoder *d, struct items *l, size_t max)
{
	struct sy_dec_item it;
	uint64_t count = 0;
	int err;

	while ((err = sy_decoder_next(d, &it)) == 0) {
		count += it.ninsn;
		items_add(l, &it, count);
		cr_assert_leq(l->n, max, "runaway decoder: %zu items", l->n);
	}
	cr_assert_eq(err, -SY_E_EOS, "next: %s", sy_errname(err));
	/* Once at the end, it stays there. */
	cr_assert_eq(sy_decoder_next(d, &it), -SY_E_EOS);
}

/* Decodes stream bytes [begin, end) as one window, from the last PSB at or
 * before @begin as the decoder contract asks, split into @nsplit chunks. */
static void decode_window(struct sy_decoder *d, const uint8_t *s, size_t begin,
			  size_t end, unsigned nsplit, uint64_t *rng,
			  struct items *l)
{
	struct sy_dec_chunk ch[8];
	uint64_t sync;
	size_t from = begin, cut[8], k, n = 0;
	int err;

	if (sy_decode_find_sync(SY_TRACE_PT, s, end, begin, &sync) == 0)
		from = (size_t)sync;
	cr_assert_leq(nsplit, 8);
	if (nsplit < 1 || end - from < nsplit)
		nsplit = 1;
	for (k = 0; k + 1 < nsplit; k++)
		cut[k] = from + 1 + (size_t)(rng_next(rng) % (end - from - 1));
	cut[nsplit - 1] = end;
	/* sort the cuts */
	for (k = 1; k < nsplit; k++) {
		size_t j = k, v = cut[k];

		while (j && cut[j - 1] > v) {
			cut[j] = cut[j - 1];
			j--;
		}
		cut[j] = v;
	}
	for (k = 0; k < nsplit; k++) {
		size_t a = k ? cut[k - 1] : from;

		ch[n].data = s + a;
		ch[n].len = cut[k] - a;
		n++;
	}
	err = sy_decoder_reset(d, ch, n, begin - from);
	cr_assert_eq(err, 0, "reset: %s", sy_errname(err));
	drain(d, l, 64 + 16 * (end - from));
}

static const char *stop_name(uint32_t c)
{
	switch (c) {
	case SY_STOP_EXCEPTION: return "exception";
	case SY_STOP_SYSCALL: return "syscall";
	case SY_STOP_DISABLE: return "disable";
	case SY_STOP_END: return "end";
	default: return "?";
	}
}

static void item_str(char *buf, size_t len, const struct sy_dec_item *it,
		     uint64_t count)
{
	snprintf(buf, len, "%-8s @%-6" PRIu64 " %#" PRIx64 " -> %#" PRIx64
		 " br %u code %u (%s) t %" PRIu64 " off %" PRIu64,
		 sy_dec_kind_name(it->kind), count, it->from, it->to, it->br,
		 it->code, it->kind == SY_DEC_STOP ? stop_name(it->code) : "",
		 it->time, it->offset);
}

static void items_dump(const struct items *l, size_t from, size_t to,
		       const char *tag)
{
	char buf[256];
	size_t i;

	for (i = from; i < to && i < l->n; i++) {
		item_str(buf, sizeof(buf), &l->e[i], l->count[i]);
		cr_log_info("%s %4zu %s", tag, i, buf);
	}
}

/* ------------------------------------------------------------------------
 * Expected items from the truth.
 * ---------------------------------------------------------------------- */

/* Instructions whose successor comes from the trace. */
static int needs_trace(const struct fx_insn *in)
{
	switch (in->kind) {
	case SY_BR_COND:
	case SY_BR_IND_JUMP:
	case SY_BR_IND_CALL:
	case SY_BR_RET:
	case SY_BR_SYSCALL:
	case SY_BR_ERET:
		return 1;
	default:
		return 0;
	}
}

static void exp_add(struct items *x, enum sy_dec_kind kind, int br,
		    uint32_t code, uint64_t from, uint64_t to, uint64_t count)
{
	struct sy_dec_item it;

	memset(&it, 0, sizeof(it));
	it.kind = (uint8_t)kind;
	it.br = (uint8_t)br;
	it.code = code;
	it.from = from;
	it.to = to;
	items_add(x, &it, count);
}

/* Where libipt's knowledge ends when the trace does: the items and the
 * count before / after the last instruction that consumed trace. */
struct ckpt {
	size_t n_before, n_after;
	uint64_t cnt;
	size_t lt;	/* that instruction, SIZE_MAX after a START */
};

/* Index of the instruction at @ip in the straight-line tail that ends
 * at @last (after the last instruction that consumed trace, and after
 * @lo), or SIZE_MAX. */
static size_t tail_index(const struct fx_pt_window *w, size_t lo, size_t last,
			 uint64_t ip)
{
	size_t i;

	if (!ip)
		return SIZE_MAX;
	for (i = last; i > lo && !needs_trace(&w->insns[i - 1]); i--)
		if (w->insns[i].pc == ip)
			return i;
	return i > lo && w->insns[i].pc == ip ? i : SIZE_MAX;
}

/* The items window @w must give (see the top of the file).  @j_ovf and
 * @j_end are the instructions at a PSB+ in the straight-line code before
 * the overflow and before a stream end without TIP.PGD (SIZE_MAX: none):
 * its FUP proves that execution got there, so libipt reports the code up
 * to it. */
static void exp_window(const struct fx_pt_window *w, size_t j_ovf,
		       size_t j_end, struct items *x)
{
	const struct fx_insn *in = w->insns;
	struct ckpt ck = { 0, 0, 0, SIZE_MAX };
	uint64_t cnt = 0;
	size_t i;

	exp_add(x, SY_DEC_START, 0, 0, 0, in[0].pc, 0);
	ck.n_before = ck.n_after = x->n;
	for (i = 0; i < w->n; i++) {
		const struct fx_insn *c = &in[i];

		if (i == j_ovf || i == j_end) {
			ck.n_before = ck.n_after = x->n;
			ck.cnt = cnt;
			ck.lt = i - 1;
		}
		cnt++;
		if (c->kind == SY_BR_SYSCALL) {
			exp_add(x, SY_DEC_STOP, 0, SY_STOP_SYSCALL, c->pc,
				c->pc + c->size, cnt);
			if (i + 1 < w->n)
				exp_add(x, SY_DEC_START, 0, 0, 0, in[i + 1].pc,
					cnt);
			ck.n_before = ck.n_after = x->n;
			ck.cnt = cnt;
			ck.lt = i + 1 < w->n ? SIZE_MAX : i;
		} else {
			if (needs_trace(c)) {
				ck.n_before = x->n;
				ck.cnt = cnt;
				ck.lt = i;
			}
			if (fx_insn_taken(c))
				exp_add(x, SY_DEC_BRANCH, c->kind, 0, c->pc,
					c->next, cnt);
			if (needs_trace(c))
				ck.n_after = x->n;
		}
		if (w->ovf_after >= 0 && (size_t)w->ovf_after == i) {
			size_t r = i + 1 + w->ovf_lost;

			x->n = ck.n_before;
			cnt = ck.cnt;
			exp_add(x, SY_DEC_OVERFLOW, 0, 0, 0,
				w->ovf_pge ? 0 : in[r].pc, cnt);
			exp_add(x, SY_DEC_START, 0, 0, 0, in[r].pc, cnt);
			ck.n_before = ck.n_after = x->n;
			ck.cnt = cnt;
			ck.lt = SIZE_MAX;
			i = r - 1;
		}
	}
	if (in[w->n - 1].kind == SY_BR_SYSCALL)
		return;
	if (w->end == FX_PT_END_PGD) {
		exp_add(x, SY_DEC_STOP, 0, SY_STOP_EXCEPTION, in[w->n - 1].pc,
			in[w->n - 1].next, cnt);
		return;
	}
	/* The stream just stops: the last trace-consuming instruction and
	 * where it went are proven, nothing after. */
	x->n = ck.n_after;
	if (ck.lt == SIZE_MAX)
		exp_add(x, SY_DEC_STOP, 0, SY_STOP_END, 0,
			x->e[ck.n_after - 1].to, ck.cnt);
	else
		exp_add(x, SY_DEC_STOP, 0, SY_STOP_END, in[ck.lt].pc,
			in[ck.lt].next, ck.cnt);
}

/* Compares the non-TIME items of @got with @want (kind, br, stop reason,
 * from, to, running count).  Returns -1 when equal, else the index of the
 * first difference (and logs the neighbourhood). */
static long items_cmp(const struct items *got, const struct items *want,
		      const char *what)
{
	struct items g = { 0 };
	size_t i, n;

	for (i = 0; i < got->n; i++)
		if (got->e[i].kind != SY_DEC_TIME)
			items_add(&g, &got->e[i], got->count[i]);
	n = g.n < want->n ? g.n : want->n;
	for (i = 0; i < n; i++) {
		const struct sy_dec_item *a = &g.e[i], *b = &want->e[i];

		if (a->kind != b->kind || a->from != b->from ||
		    a->to != b->to || g.count[i] != want->count[i])
			break;
		if (a->kind == SY_DEC_BRANCH && a->br != b->br)
			break;
		if (a->kind == SY_DEC_STOP && a->code != b->code)
			break;
	}
	if (i == g.n && i == want->n) {
		items_free(&g);
		return -1;
	}
	cr_log_info("%s: first difference at %zu (got %zu items, want %zu)",
		    what, i, g.n, want->n);
	items_dump(&g, i > 4 ? i - 4 : 0, i + 4, "got ");
	items_dump(want, i > 4 ? i - 4 : 0, i + 4, "want");
	items_free(&g);
	return (long)i;
}

/* ------------------------------------------------------------------------
 * Independent evidence from libipt's packet decoder.
 * ---------------------------------------------------------------------- */

struct pkts {
	uint64_t *psb;
	size_t npsb;
	uint64_t *tsc_off, *tsc;
	uint64_t *tsc_query;	/* offset of the first packet after the TSC
				 * that a decoder query reads (TNT, TIP*,
				 * FUP outside PSB+, OVF) */
	size_t ntsc;
	size_t ntnt8, ntnt64, novf, nipc16;
	/* every packet, with the full IP of FUP / TIP* (last-IP rules) */
	struct pkt_rec {
		uint64_t off, ip;
		uint8_t type, in_psb;
	} *all;
	size_t nall, allcap;
};

static uint64_t last_ip_apply(uint64_t last, const struct pt_packet_ip *ip)
{
	switch (ip->ipc) {
	case pt_ipc_update_16:
		return (last & ~0xffffull) | (ip->ip & 0xffffull);
	case pt_ipc_update_32:
		return (last & ~0xffffffffull) | (ip->ip & 0xffffffffull);
	case pt_ipc_sext_48:
		return (ip->ip & 0xffffffffffffull) |
		       (ip->ip & (1ull << 47) ? 0xffff000000000000ull : 0);
	case pt_ipc_full:
		return ip->ip;
	default:
		return last;
	}
}

static void pkts_scan(const uint8_t *s, size_t len, struct pkts *p)
{
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	size_t cap = 1 << 16, pend = 0;
	int st, in_psb = 0;
	uint64_t last = 0;

	memset(p, 0, sizeof(*p));
	p->psb = malloc(cap * sizeof(*p->psb));
	p->tsc_off = malloc(cap * sizeof(*p->tsc_off));
	p->tsc = malloc(cap * sizeof(*p->tsc));
	p->tsc_query = malloc(cap * sizeof(*p->tsc_query));
	cr_assert(p->psb && p->tsc_off && p->tsc && p->tsc_query);
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)(uintptr_t)s;
	cfg.end = cfg.begin + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	cr_assert_not_null(dec);
	for (st = pt_pkt_sync_forward(dec); st >= 0;) {
		struct pt_packet pkt;
		uint64_t off;

		cr_assert_eq(pt_pkt_get_offset(dec, &off), 0);
		st = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (st < 0)
			break;
		if (pkt.type == ppt_psb)
			last = 0;
		if (pkt.type == ppt_fup || pkt.type == ppt_tip ||
		    pkt.type == ppt_tip_pge || pkt.type == ppt_tip_pgd)
			last = last_ip_apply(last, &pkt.payload.ip);
		if (p->nall == p->allcap) {
			p->allcap = p->allcap ? 2 * p->allcap : 4096;
			p->all = realloc(p->all, p->allcap * sizeof(*p->all));
			cr_assert_not_null(p->all);
		}
		p->all[p->nall].off = off;
		p->all[p->nall].ip = last;
		p->all[p->nall].type = (uint8_t)pkt.type;
		p->all[p->nall].in_psb = (uint8_t)(in_psb || pkt.type == ppt_psb);
		p->nall++;
		switch (pkt.type) {
		case ppt_tnt_8:
		case ppt_tnt_64:
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
		case ppt_ovf:
			for (; pend < p->ntsc; pend++)
				p->tsc_query[pend] = off;
			break;
		case ppt_fup:
			if (!in_psb)
				for (; pend < p->ntsc; pend++)
					p->tsc_query[pend] = off;
			break;
		default:
			break;
		}
		if (pkt.type == ppt_psb) {
			cr_assert_lt(p->npsb, cap);
			p->psb[p->npsb++] = off;
			in_psb = 1;
		} else if (pkt.type == ppt_psbend) {
			in_psb = 0;
		} else if (pkt.type == ppt_tsc) {
			cr_assert_lt(p->ntsc, cap);
			p->tsc_off[p->ntsc] = off;
			p->tsc_query[p->ntsc] = UINT64_MAX;
			p->tsc[p->ntsc++] = pkt.payload.tsc.tsc;
		} else if (pkt.type == ppt_tnt_8) {
			p->ntnt8++;
		} else if (pkt.type == ppt_tnt_64) {
			p->ntnt64++;
		} else if (pkt.type == ppt_ovf) {
			p->novf++;
		} else if (pkt.type == ppt_tip || pkt.type == ppt_tip_pge ||
			   pkt.type == ppt_fup) {
			if (pkt.payload.ip.ipc == pt_ipc_update_16)
				p->nipc16++;
		}
	}
	cr_assert(st == -pte_eos, "packet decoder: %s",
		  pt_errstr(pt_errcode(st)));
	pt_pkt_free_decoder(dec);
}

static void pkts_free(struct pkts *p)
{
	free(p->psb);
	free(p->tsc_off);
	free(p->tsc);
	free(p->tsc_query);
	free(p->all);
}

static int is_query_pkt(const struct pkt_rec *r)
{
	return r->type == ppt_tnt_8 || r->type == ppt_tnt_64 ||
	       r->type == ppt_tip || r->type == ppt_tip_pge ||
	       r->type == ppt_tip_pgd;
}

/* The IP of the last PSB+ FUP in [begin, end) after the last query packet
 * there (a resync point in straight-line code, which proves that execution
 * got there), or 0. */
static uint64_t tail_psb_fup(const struct pkts *p, uint64_t begin,
			     uint64_t end)
{
	uint64_t ip = 0;
	size_t i;

	for (i = 0; i < p->nall; i++) {
		const struct pkt_rec *r = &p->all[i];

		if (r->off < begin || r->off >= end)
			continue;
		if (is_query_pkt(r))
			ip = 0;
		else if (r->type == ppt_fup && r->in_psb)
			ip = r->ip;
	}
	return ip;
}

static uint64_t ovf_offset(const struct pkts *p, uint64_t begin, uint64_t end)
{
	size_t i;

	for (i = 0; i < p->nall; i++)
		if (p->all[i].type == ppt_ovf && p->all[i].off >= begin &&
		    p->all[i].off < end)
			return p->all[i].off;
	return end;
}

/* TIME items of @got must be the TSC packets in [begin, end), in order,
 * each once.  libipt applies a TSC when a query reads a packet after it:
 * a TSC followed by another TSC (or the end of the window) before any
 * such packet is invisible to every decoder and may be missing. */
static int times_match(const struct items *got, const struct pkts *p,
		       size_t begin, size_t end)
{
	static uint64_t want[4096];
	static int may_skip[4096];
	size_t nw = 0, i, j, k = 0;
	int ok = 1;

	for (i = 0; i < p->ntsc; i++) {
		uint64_t next = end;

		if (p->tsc_off[i] < begin || p->tsc_off[i] >= end || nw >= 4096)
			continue;
		if (i + 1 < p->ntsc && p->tsc_off[i + 1] < end)
			next = p->tsc_off[i + 1];
		if (nw && want[nw - 1] == p->tsc[i])
			continue;
		want[nw] = p->tsc[i];
		may_skip[nw++] = p->tsc_query[i] >= next;
	}
	for (i = 0, j = 0; i < got->n && ok; i++) {
		if (got->e[i].kind != SY_DEC_TIME)
			continue;
		while (j < nw && got->e[i].time != want[j] && may_skip[j])
			j++;
		if (j >= nw || got->e[i].time != want[j]) {
			cr_log_info("TIME #%zu: got %#" PRIx64 ", want %#"
				    PRIx64 " (%zu TSC packets)", k,
				    got->e[i].time, j < nw ? want[j] : 0, nw);
			ok = 0;
			break;
		}
		j++;
		k++;
	}
	while (ok && j < nw && may_skip[j])
		j++;
	if (ok && j != nw) {
		cr_log_info("%zu TIME items, TSC packet %zu of %zu missing", k,
			    j, nw);
		ok = 0;
	}
	if (!ok) {
		for (i = 0; i < p->ntsc; i++)
			if (p->tsc_off[i] >= begin && p->tsc_off[i] < end)
				cr_log_info("  tsc @%" PRIu64 " %#" PRIx64,
					    p->tsc_off[i], p->tsc[i]);
		items_dump(got, 0, got->n, "  got");
	}
	return ok;
}

/* ------------------------------------------------------------------------
 * Random streams.
 * ---------------------------------------------------------------------- */

enum { MAXW = 48 };

struct stream {
	struct fx_pt_opts o;
	struct fx_pt_linear_time lt;
	struct fx_pt_window w[MAXW];
	struct fx_pt_window_info info[MAXW];
	size_t nw;
	struct fx_buf buf;
};

struct knobs {
	int ret_compress, ip_compress, tnt64, time;
	uint64_t psb_bytes, psb_insns;
	unsigned p_nopsb;	/* % of resumes without PSB */
	unsigned p_end_none;	/* % of windows that just stop */
	unsigned p_ovf;		/* % of windows with an overflow */
	size_t max_len, max_gap;
	uint32_t cyc;		/* CYC packets: cycles per instruction */
};

static void stream_build(struct stream *st, const struct knobs *k,
			 uint64_t seed)
{
	const size_t nt = g_t.n - 1;	/* never the final exit */
	uint64_t rng = seed * 0x9e3779b97f4a7c15ull | 1;
	size_t pos = (size_t)(rng_next(&rng) % 200);
	int prev_none = 0;
	struct fx_pt_enc enc;
	size_t i;
	int err;

	memset(st, 0, sizeof(*st));
	fx_pt_opts_init(&st->o);
	st->o.ret_compress = k->ret_compress;
	st->o.ip_compress = k->ip_compress;
	st->o.tnt = k->tnt64 ? FX_PT_TNT64 : FX_PT_TNT8;
	st->o.psb_period_bytes = k->psb_bytes;
	st->o.psb_period_insns = k->psb_insns;
	st->o.cycles_per_insn = k->cyc;
	if (k->time) {
		st->lt.ts0 = 0x10000 + seed * 977;
		st->lt.cycles = 1 + seed % 7;
		st->o.time_fn = fx_pt_time_linear;
		st->o.time_ctx = &st->lt;
		st->o.tsc_period_insns = 37;
		st->o.cbr = (uint8_t)(seed & 1 ? 0x1d : 0);
	}
	while (st->nw < MAXW) {
		struct fx_pt_window *w = &st->w[st->nw];
		size_t len = 1 + (size_t)(rng_next(&rng) % k->max_len);

		if (pos + len >= nt)
			break;
		fx_pt_window_init(w, g_t.insns + pos, len);
		w->first_idx = pos;
		if (!st->nw || prev_none)
			w->start = FX_PT_START_PSB;
		else if (rng_next(&rng) % 100 < k->p_nopsb)
			w->start = FX_PT_START_AUTO;
		else
			w->start = FX_PT_START_PSB;
		w->end = rng_next(&rng) % 100 < k->p_end_none ? FX_PT_END_NONE :
								FX_PT_END_PGD;
		if (len > 8 && rng_next(&rng) % 100 < k->p_ovf) {
			size_t a = (size_t)(rng_next(&rng) % (len - 6));

			if (w->insns[a].kind != SY_BR_SYSCALL) {
				w->ovf_after = (int64_t)a;
				w->ovf_lost = (size_t)(rng_next(&rng) % 4);
				w->ovf_pge = (int)(rng_next(&rng) & 1);
			}
		}
		prev_none = w->end == FX_PT_END_NONE;
		st->nw++;
		pos += len + (size_t)(rng_next(&rng) % (k->max_gap + 1));
	}
	fx_buf_init(&st->buf);
	cr_assert_eq(fx_pt_enc_init(&enc, &st->o, &st->buf), 0);
	for (i = 0; i < st->nw; i++) {
		err = fx_pt_enc_window(&enc, &st->w[i], &st->info[i]);
		cr_assert_eq(err, 0, "encode window %zu: %s (pte %d)", i,
			     sy_errname(err), enc.pt_err);
	}
	fx_pt_enc_fini(&enc);
}

struct run_stats {
	size_t windows, nopsb, end_none, ovf, syscalls, branches, times;
	size_t insns, multi_chunk;
	/* what the streams hold, says libipt's packet decoder */
	size_t psb, tnt8, tnt64, ovf_pkts, ipc16;
};

/* Decodes every window of @st and checks it against the truth; returns
 * the number of windows that differ. */
static size_t stream_check(struct stream *st, struct run_stats *rs,
			   uint64_t seed)
{
	struct sy_decoder *d = new_decoder(NULL);
	uint64_t rng = seed | 1;
	struct pkts p;
	size_t k, bad = 0;

	pkts_scan(st->buf.data, st->buf.len, &p);
	rs->psb += p.npsb;
	rs->tnt8 += p.ntnt8;
	rs->tnt64 += p.ntnt64;
	rs->ovf_pkts += p.novf;
	rs->ipc16 += p.nipc16;
	for (k = 0; k < st->nw; k++) {
		const struct fx_pt_window *w = &st->w[k];
		const struct fx_pt_window_info *wi = &st->info[k];
		struct items got = { 0 }, want = { 0 };
		unsigned nsplit = (unsigned)(rng_next(&rng) % 4) + 1;
		const struct sy_dec_stats *ds;
		size_t j;

		size_t j_ovf = SIZE_MAX, j_end = SIZE_MAX, lo = 0;
		uint64_t ovf_off = wi->end;

		decode_window(d, st->buf.data, wi->begin, wi->end, nsplit, &rng,
			      &got);
		if (w->ovf_after >= 0) {
			ovf_off = ovf_offset(&p, wi->begin, wi->end);
			j_ovf = tail_index(w, 0, (size_t)w->ovf_after,
					   tail_psb_fup(&p, wi->begin, ovf_off));
			lo = (size_t)w->ovf_after + 1 + w->ovf_lost;
		}
		if (w->end == FX_PT_END_NONE)
			j_end = tail_index(w, lo, w->n - 1,
					   tail_psb_fup(&p, ovf_off < wi->end ?
								ovf_off :
								wi->begin,
						       wi->end));
		exp_window(w, j_ovf, j_end, &want);
		if (items_cmp(&got, &want, "window") != -1 ||
		    (st->o.time_fn && !times_match(&got, &p, wi->begin,
						   wi->end))) {
			cr_log_error("seed %" PRIu64 " window %zu: insns [%"
				     PRIu64 ", +%zu) start %d (psb %d) end %d "
				     "ovf %" PRId64 "/%zu/%d, bytes [%zu, %zu)",
				     seed, k, w->first_idx, w->n, w->start,
				     wi->psb_start, w->end, w->ovf_after,
				     w->ovf_lost, w->ovf_pge, wi->begin, wi->end);
			bad++;
		}
		ds = sy_decoder_stats(d);
		cr_expect_eq(ds->insns, want.n ? want.count[want.n - 1] : 0);
		cr_expect_eq(ds->errors, 0);
		rs->windows++;
		rs->nopsb += !wi->psb_start;
		rs->end_none += w->end == FX_PT_END_NONE;
		rs->ovf += w->ovf_after >= 0;
		rs->multi_chunk += nsplit > 1;
		rs->insns += ds->insns;
		for (j = 0; j < got.n; j++) {
			rs->branches += got.e[j].kind == SY_DEC_BRANCH;
			rs->times += got.e[j].kind == SY_DEC_TIME;
			rs->syscalls += got.e[j].kind == SY_DEC_STOP &&
					got.e[j].code == SY_STOP_SYSCALL;
		}
		items_free(&got);
		items_free(&want);
	}
	pkts_free(&p);
	sy_decoder_free(d);
	return bad;
}

static void run_streams(const struct knobs *k, uint64_t seed0, int nseeds,
			struct run_stats *rs)
{
	int s;

	memset(rs, 0, sizeof(*rs));
	for (s = 0; s < nseeds; s++) {
		struct stream *st = malloc(sizeof(*st));
		size_t bad;

		cr_assert_not_null(st);
		stream_build(st, k, seed0 + (uint64_t)s);
		bad = stream_check(st, rs, seed0 + (uint64_t)s);
		cr_expect_eq(bad, 0, "seed %" PRIu64 ": %zu windows differ",
			     seed0 + (uint64_t)s, bad);
		fx_buf_fini(&st->buf);
		free(st);
	}
	cr_log_info("%zu windows (%zu without PSB, %zu just stop, %zu "
		    "overflow, %zu in pieces): %zu insns, %zu branches, %zu "
		    "syscall stops, %zu times; packets: %zu PSB, %zu TNT-8, "
		    "%zu TNT-64, %zu OVF, %zu update_16 IPs", rs->windows,
		    rs->nopsb, rs->end_none, rs->ovf, rs->multi_chunk, rs->insns,
		    rs->branches, rs->syscalls, rs->times, rs->psb, rs->tnt8,
		    rs->tnt64, rs->ovf_pkts, rs->ipc16);
	cr_expect_eq(rs->ovf_pkts, rs->ovf);
}

/* ------------------------------------------------------------------------
 * Windows against the truth.
 * ---------------------------------------------------------------------- */

/* Plain windows: PSB at every start, FUP+PGD ends, no compression. */
Test(pt_decode, psb_windows)
{
	struct knobs k = { .max_len = 3000, .max_gap = 400 };
	struct run_stats rs;

	run_streams(&k, 1, 3, &rs);
	cr_expect_gt(rs.syscalls, 0, "windows should contain syscalls");
	cr_expect_gt(rs.branches, 1000);
}

/* Resumes without PSB (decoded from the PSB of an earlier window), with
 * return and IP compression whose state crosses the window boundary. */
Test(pt_decode, nopsb_windows_compressed)
{
	struct knobs k = { .ret_compress = 1, .ip_compress = 1,
			   .p_nopsb = 80, .max_len = 1500, .max_gap = 300 };
	struct run_stats rs;

	run_streams(&k, 100, 4, &rs);
	cr_expect_gt(rs.nopsb, 20);
	cr_expect_gt(rs.multi_chunk, 10);
	cr_expect_gt(rs.ipc16, 100, "IP compression in use");
}

/* TNT-64, periodic PSB+ by bytes (so a window may be decoded from a PSB in
 * the middle of the previous one) and by instructions. */
Test(pt_decode, tnt64_periodic_psb)
{
	struct knobs k = { .ret_compress = 1, .ip_compress = 1, .tnt64 = 1,
			   .p_nopsb = 70, .psb_bytes = 256,
			   .max_len = 2000, .max_gap = 200 };
	struct knobs k2 = k;
	struct run_stats rs;

	run_streams(&k, 200, 3, &rs);
	cr_expect_gt(rs.tnt64, 100);
	cr_expect_gt(rs.psb, rs.windows - rs.nopsb, "PSBs inside windows");
	k2.psb_bytes = 0;
	k2.psb_insns = 29;
	k2.tnt64 = 0;
	run_streams(&k2, 300, 3, &rs);
	cr_expect_eq(rs.tnt64, 0);
	cr_expect_gt(rs.psb, 10 * rs.windows);
}

/* Time: TSC at every start, PSB+, enable and every 37 instructions; the
 * TIME items are exactly the window's TSC packets. */
Test(pt_decode, time)
{
	struct knobs k = { .ret_compress = 1, .time = 1, .p_nopsb = 60,
			   .psb_insns = 250, .max_len = 2500, .max_gap = 500 };
	struct run_stats rs;

	run_streams(&k, 400, 4, &rs);
	cr_expect_gt(rs.times, rs.windows * 3);
}

/* Windows that just stop (no FUP+TIP.PGD) and overflows. */
Test(pt_decode, end_none_and_overflow)
{
	struct knobs k = { .ret_compress = 1, .ip_compress = 1, .tnt64 = 1,
			   .time = 1, .p_nopsb = 50, .p_end_none = 35,
			   .p_ovf = 40, .max_len = 1200, .max_gap = 300 };
	struct run_stats rs;

	run_streams(&k, 500, 6, &rs);
	cr_expect_gt(rs.end_none, 20);
	cr_expect_gt(rs.ovf, 20);
}

/* Every option at once over many seeds. */
Test(pt_decode, random_streams)
{
	uint64_t seed;

	for (seed = 1000; seed < 1016; seed++) {
		struct knobs k = {
			.ret_compress = (int)(seed & 1),
			.ip_compress = (int)((seed >> 1) & 1),
			.tnt64 = (int)((seed >> 2) & 1),
			.time = (int)((seed >> 3) & 1),
			.psb_bytes = seed % 3 == 0 ? 128 : 0,
			.psb_insns = seed % 5 == 0 ? 11 : 0,
			.p_nopsb = 60, .p_end_none = 15, .p_ovf = 15,
			.max_len = 1 + (size_t)(seed % 4) * 700,
			.max_gap = 150,
		};
		struct run_stats rs;

		run_streams(&k, seed * 31, 1, &rs);
	}
}

/* Cutting the same window into pieces (empty ones too) changes nothing:
 * the items, their offsets and counts are those of the single buffer. */
Test(pt_decode, chunks_are_one_buffer)
{
	struct knobs k = { .ret_compress = 1, .ip_compress = 1, .time = 1,
			   .p_nopsb = 70, .max_len = 1500, .max_gap = 100 };
	struct stream *st = malloc(sizeof(*st));
	struct sy_decoder *d = new_decoder(NULL);
	uint64_t rng = 77;
	size_t w;

	cr_assert_not_null(st);
	stream_build(st, &k, 42);
	for (w = 0; w < st->nw; w++) {
		const struct fx_pt_window_info *wi = &st->info[w];
		struct items one = { 0 }, many = { 0 };
		struct sy_dec_chunk ch[6];
		uint64_t sync = wi->begin;
		size_t a, len, i, cut;

		cr_assert_eq(sy_decode_find_sync(SY_TRACE_PT, st->buf.data,
						 wi->end, wi->begin, &sync), 0);
		a = (size_t)sync;
		len = wi->end - a;
		decode_window(d, st->buf.data, wi->begin, wi->end, 1, &rng,
			      &one);
		/* empty, 1 byte, middle, empty, rest */
		cut = 1 + (size_t)(rng_next(&rng) % (len - 1));
		ch[0] = (struct sy_dec_chunk){ st->buf.data + a, 0 };
		ch[1] = (struct sy_dec_chunk){ st->buf.data + a, 1 };
		ch[2] = (struct sy_dec_chunk){ st->buf.data + a + 1, cut - 1 };
		ch[3] = (struct sy_dec_chunk){ NULL, 0 };
		ch[4] = (struct sy_dec_chunk){ st->buf.data + a + cut,
					       len - cut };
		cr_assert_eq(sy_decoder_reset(d, ch, 5, wi->begin - a), 0);
		drain(d, &many, 64 + 16 * len);
		cr_assert_eq(one.n, many.n);
		for (i = 0; i < one.n; i++)
			cr_assert(memcmp(&one.e[i], &many.e[i],
					 sizeof(one.e[i])) == 0,
				  "window %zu item %zu", w, i);
		items_free(&one);
		items_free(&many);
	}
	fx_buf_fini(&st->buf);
	free(st);
	sy_decoder_free(d);
}

/* sy_decoder_peek / sy_decoder_advance: the items of next(), in order,
 * and its counts, whether a peek's items are all used, some of them, none
 * (left for the next peek), or the first taken by next() after all. */
Test(pt_decode, peek_equals_next)
{
	struct knobs k = { .ret_compress = 1, .ip_compress = 1, .time = 1,
			   .p_nopsb = 70, .max_len = 1500, .max_gap = 100 };
	struct stream *st = malloc(sizeof(*st));
	struct sy_decoder *d = new_decoder(NULL);
	uint64_t rng = 78, several = 0;

	cr_assert_not_null(st);
	stream_build(st, &k, 43);
	for (size_t w = 0; w < st->nw; w++) {
		const struct fx_pt_window_info *wi = &st->info[w];
		struct items one = { 0 };
		struct sy_dec_stats s1;
		struct sy_dec_chunk ch;
		struct sy_dec_item *v, *v2, it;
		uint64_t sync = wi->begin, insns = 0;
		size_t n, n2, used, i = 0, step = 0;
		int err;

		cr_assert_eq(sy_decode_find_sync(SY_TRACE_PT, st->buf.data,
						 wi->end, wi->begin, &sync), 0);
		decode_window(d, st->buf.data, wi->begin, wi->end, 1, &rng,
			      &one);
		s1 = *sy_decoder_stats(d);
		ch.data = st->buf.data + sync;
		ch.len = wi->end - sync;
		cr_assert_eq(sy_decoder_reset(d, &ch, 1, wi->begin - sync), 0);
		for (;;) {
			if ((err = sy_decoder_peek(d, &v, &n)))
				break;
			cr_assert_geq(n, 1);
			several += n > 1;
			switch (step++ % 4) {
			case 0:		/* use them all */
				used = n;
				break;
			case 1:		/* the first */
				used = 1;
				break;
			case 2:		/* none, peek again: the same first */
				it = v[0];
				sy_decoder_advance(d, 0);
				cr_assert_eq(sy_decoder_peek(d, &v2, &n2), 0);
				cr_assert_geq(n2, 1);
				cr_assert(memcmp(&it, &v2[0], sizeof(it)) == 0);
				v = v2;
				n = n2;
				used = n > 1 ? n - 1 : 1;
				break;
			default:	/* none: next() */
				cr_assert_lt(i, one.n, "window %zu: more items",
					     w);
				cr_assert_eq(sy_decoder_next(d, &it), 0);
				cr_assert(memcmp(&it, &one.e[i], sizeof(it)) ==
						  0,
					  "window %zu item %zu", w, i);
				insns += it.ninsn;
				i++;
				continue;
			}
			for (size_t x = 0; x < used; x++) {
				cr_assert_lt(i, one.n, "window %zu: more items",
					     w);
				cr_assert(memcmp(&v[x], &one.e[i],
						 sizeof(v[x])) == 0,
					  "window %zu item %zu", w, i);
				insns += v[x].ninsn;
				i++;
			}
			sy_decoder_advance(d, used);
		}
		cr_assert_eq(err, -SY_E_EOS);
		cr_assert_eq(i, one.n, "window %zu", w);
		cr_assert_eq(sy_decoder_stats(d)->insns, s1.insns);
		cr_assert_eq(sy_decoder_stats(d)->insns, insns);
		cr_assert_eq(sy_decoder_stats(d)->branches, s1.branches);
		cr_assert_eq(sy_decoder_stats(d)->errors, s1.errors);
		items_free(&one);
	}
	/* the items came several at a time */
	cr_assert_gt(several, 0);
	fx_buf_fini(&st->buf);
	free(st);
	sy_decoder_free(d);
}

/* ------------------------------------------------------------------------
 * The code cache in front of read_mem.
 * ---------------------------------------------------------------------- */

struct ctx_mem {
	uint64_t lo;		/* nothing mapped below */
	uint32_t want_ctxid;
	uint64_t calls, bad_ctxid;
};

static size_t ctx_read_mem(void *ctx, uint32_t ctxid, uint64_t addr,
			   uint8_t *buf, size_t len)
{
	struct ctx_mem *m = ctx;

	m->calls++;
	if (ctxid != m->want_ctxid)
		m->bad_ctxid++;
	if (addr < m->lo)
		return 0;
	return t_read_mem(NULL, ctxid, addr, buf, len);
}

/* Same items with the cache on and off, far fewer read_mem calls with it,
 * the context ID set with sy_decoder_set_context reaches read_mem, and a
 * mapping that starts in the middle of a cache line (the program's first
 * executed instruction is 0x401003; nothing is mapped below it here) still
 * decodes. */
Test(pt_decode, code_cache)
{
	struct ctx_mem m = { .lo = 0x401003, .want_ctxid = 4242 };
	struct fx_pt_window w;
	struct fx_pt_opts o;
	struct fx_buf buf;
	struct items got[2] = { { 0 }, { 0 } }, want = { 0 };
	struct sy_dec_params p;
	struct sy_decoder *d;
	uint64_t calls[2], rng = 1;
	const struct sy_pt_mem_stats *ms;
	int on;
	size_t i;

	cr_assert_eq(g_t.insns[0].pc, 0x401003);
	fx_pt_opts_init(&o);
	o.ret_compress = 1;
	fx_pt_window_init(&w, g_t.insns, 12000);
	fx_buf_init(&buf);
	cr_assert_eq(fx_pt_encode(&o, &w, &buf, NULL), 0);
	exp_window(&w, SIZE_MAX, SIZE_MAX, &want);

	pt_params(&p, NULL);
	p.read_mem = ctx_read_mem;
	p.mem_ctx = &m;
	cr_assert_eq(sy_decoder_alloc(&d, &p), 0);
	sy_decoder_set_context(d, 4242);
	for (on = 1; on >= 0; on--) {
		sy_pt_set_code_cache(d, on);
		m.calls = 0;
		decode_window(d, buf.data, 0, buf.len, 1, &rng, &got[on]);
		calls[on] = m.calls;
		cr_expect_eq(items_cmp(&got[on], &want, on ? "cache" : "nocache"),
			     -1);
		ms = sy_pt_mem_stats(d);
		cr_assert_not_null(ms);
		cr_expect_eq(ms->read_mem, m.calls);
	}
	cr_expect_eq(m.bad_ctxid, 0);
	cr_assert_eq(got[0].n, got[1].n);
	for (i = 0; i < got[0].n; i++)
		cr_assert(memcmp(&got[0].e[i], &got[1].e[i],
				 sizeof(got[0].e[i])) == 0);
	cr_log_info("read_mem calls: %" PRIu64 " with the cache, %" PRIu64
		    " without, for %" PRIu64 " instructions", calls[1],
		    calls[0], want.count[want.n - 1]);
	cr_expect_lt(calls[1] * 20, calls[0]);
	items_free(&got[0]);
	items_free(&got[1]);
	items_free(&want);
	fx_buf_fini(&buf);
	sy_decoder_free(d);
}

/* ------------------------------------------------------------------------
 * Contexts from the caller (params.ctx_at).
 * ---------------------------------------------------------------------- */

/* The "recording": window k of the stream runs in thread 1000 + k from the
 * TSC of its first instruction on; code is readable only in the thread the
 * last answer named. */
struct threads_mem {
	const struct stream *st;
	uint32_t answer;	/* UINT32_MAX: none yet */
	uint64_t asked, reads, bad_reads;
};

static uint64_t window_tsc(const struct stream *st, size_t k)
{
	struct fx_pt_linear_time lt = st->lt;

	return fx_pt_time_linear(&lt, st->w[k].first_idx);
}

static int threads_ctx_at(void *ctx, uint64_t time, uint32_t *ctxid)
{
	struct threads_mem *m = ctx;
	size_t k = m->st->nw;

	m->asked++;
	while (k > 0 && window_tsc(m->st, k - 1) > time)
		k--;
	if (!k)
		return 0;
	m->answer = 1000 + (uint32_t)(k - 1);
	*ctxid = m->answer;
	return 1;
}

static size_t threads_read_mem(void *ctx, uint32_t ctxid, uint64_t addr,
			       uint8_t *buf, size_t len)
{
	struct threads_mem *m = ctx;

	m->reads++;
	if (ctxid != m->answer) {
		m->bad_reads++;
		return 0;
	}
	return t_read_mem(NULL, ctxid, addr, buf, len);
}

/* The stream from byte @from on as one job (a per-CPU queue's piece), with
 * or without ctx_at. */
static void decode_stream(const struct stream *st, size_t from,
			  struct threads_mem *m, int with_ctx_at,
			  struct items *l)
{
	struct sy_dec_chunk ch = { st->buf.data + from, st->buf.len - from };
	struct sy_dec_params p;
	struct sy_decoder *d;

	pt_params(&p, NULL);
	p.read_mem = with_ctx_at ? threads_read_mem : t_read_mem;
	p.ctx_at = with_ctx_at ? threads_ctx_at : NULL;
	p.mem_ctx = with_ctx_at ? m : NULL;
	cr_assert_eq(sy_decoder_alloc(&d, &p), 0);
	sy_decoder_set_context(d, 7);	/* no thread of the stream */
	cr_assert_eq(sy_decoder_reset(d, &ch, 1, 0), 0);
	drain(d, l, 64 + 16 * st->buf.len);
	sy_decoder_free(d);
}

/* Pieces that start at a PSB inside a window (where a stream unit is cut):
 * the code after the sync is read in the window's thread from the first
 * block on, the PSB+'s TSC naming it.  Returns how many were checked. */
static size_t ctx_at_from_psbs(const struct stream *st)
{
	struct pkts p;
	size_t n = 0, w = 0;

	pkts_scan(st->buf.data, st->buf.len, &p);
	for (size_t i = 0; i < p.npsb; i++) {
		struct threads_mem m = { .st = st, .answer = UINT32_MAX };
		struct items got = { 0 };
		uint32_t cur = UINT32_MAX;

		while (w < st->nw && st->info[w].end <= p.psb[i])
			w++;
		if (w == st->nw || p.psb[i] <= st->info[w].begin)
			continue;
		decode_stream(st, (size_t)p.psb[i], &m, 1, &got);
		cr_assert_eq(m.bad_reads, 0, "from PSB at %" PRIu64, p.psb[i]);
		for (size_t k = 0; k < got.n; k++) {
			cr_assert_neq(got.e[k].kind, SY_DEC_ERROR);
			if (got.e[k].kind == SY_DEC_CONTEXT)
				cur = got.e[k].code;
			if (got.e[k].kind != SY_DEC_START)
				continue;
			cr_assert_eq(cur, 1000 + w, "from PSB at %" PRIu64,
				     p.psb[i]);
			break;
		}
		items_free(&got);
		n++;
	}
	pkts_free(&p);
	return n;
}

Test(pt_decode, ctx_at_names_each_stretch)
{
	struct knobs k = { .ret_compress = 1, .time = 1, .p_nopsb = 50,
			   .psb_insns = 250, .max_len = 1500, .max_gap = 300 };
	size_t starts = 0, contexts = 0, mid_psbs = 0;

	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct stream *st = malloc(sizeof(*st));
		struct threads_mem m = { .answer = UINT32_MAX };
		struct items got = { 0 }, plain = { 0 };
		uint64_t base = 0;
		uint32_t cur = UINT32_MAX;
		size_t w = 0, j = 0;

		cr_assert_not_null(st);
		stream_build(st, &k, seed);
		m.st = st;
		decode_stream(st, 0, &m, 1, &got);
		decode_stream(st, 0, NULL, 0, &plain);
		cr_expect_eq(m.bad_reads, 0,
			     "seed %" PRIu64 ": %" PRIu64 " of %" PRIu64
			     " code reads in another thread",
			     seed, m.bad_reads, m.reads);
		for (size_t i = 0; i < got.n; i++) {
			const struct sy_dec_item *it = &got.e[i];

			cr_assert_neq(it->kind, SY_DEC_ERROR, "seed %" PRIu64,
				      seed);
			if (it->kind == SY_DEC_CONTEXT) {
				cur = it->code;
				contexts++;
				cr_assert_eq(it->ninsn, 0);
				continue;
			}
			/* every traced instruction counts: the window a
			 * START is in follows from its count */
			while (w + 1 < st->nw &&
			       got.count[i] >= base + st->w[w].n)
				base += st->w[w++].n;
			if (it->kind == SY_DEC_START) {
				starts++;
				cr_assert_eq(cur, 1000 + w,
					     "seed %" PRIu64 " window %zu "
					     "started in thread %u",
					     seed, w, cur);
			}
			/* the rest is what the decoder gives without */
			cr_assert_lt(j, plain.n);
			cr_assert(!memcmp(it, &plain.e[j], sizeof(*it)),
				  "seed %" PRIu64 " item %zu", seed, i);
			j++;
		}
		cr_assert_eq(j, plain.n);
		cr_assert_eq(w + 1, st->nw, "seed %" PRIu64, seed);
		cr_assert_geq(m.asked, st->nw);
		items_free(&got);
		items_free(&plain);
		mid_psbs += ctx_at_from_psbs(st);
		fx_buf_fini(&st->buf);
		free(st);
	}
	cr_log_info("%zu stretches, %zu context items, %zu pieces from a "
		    "PSB inside a window", starts, contexts, mid_psbs);
	cr_expect_gt(starts, 100);
	cr_expect_gt(mid_psbs, 20);
}

/* ------------------------------------------------------------------------
 * Synchronisation points.
 * ---------------------------------------------------------------------- */

/* The last PSB at or before an offset, checked against the PSBs libipt's
 * packet decoder finds, for every offset of a stream with frequent PSB+. */
Test(pt_decode, find_sync_matches_packet_decoder)
{
	struct knobs k = { .ret_compress = 1, .p_nopsb = 80, .psb_bytes = 200,
			   .max_len = 800, .max_gap = 100 };
	struct stream *st = malloc(sizeof(*st));
	struct pkts p;
	uint64_t off, sync;
	size_t j = 0;

	cr_assert_not_null(st);
	stream_build(st, &k, 9);
	pkts_scan(st->buf.data, st->buf.len, &p);
	cr_assert_gt(p.npsb, 20);
	cr_assert_eq(p.psb[0], 0);
	for (off = 0; off < st->buf.len + 20; off++) {
		while (j + 1 < p.npsb && p.psb[j + 1] <= off)
			j++;
		cr_assert_eq(sy_decode_find_sync(SY_TRACE_PT, st->buf.data,
						 st->buf.len, off, &sync), 0);
		cr_assert_eq(sync, p.psb[j], "offset %" PRIu64, off);
	}
	/* Only the bytes up to the window end are given: a PSB that
	 * starts there does not count. */
	for (j = 1; j < p.npsb; j++) {
		cr_assert_eq(sy_decode_find_sync(SY_TRACE_PT, st->buf.data,
						 p.psb[j] + 15, p.psb[j],
						 &sync), 0);
		cr_assert_eq(sync, p.psb[j - 1]);
	}
	pkts_free(&p);
	fx_buf_fini(&st->buf);
	free(st);
}

/* The end of each PSB+ (where a piece cut at its PSB decodes up to, so the
 * header's FUP joins it to the next piece): just past the PSBEND, where a
 * walk of the whole stream with libipt's packet decoder reads the next
 * packet.  A header cut short is not whole. */
Test(pt_decode, sync_end_is_past_psbend)
{
	struct knobs k = { .ret_compress = 1, .p_nopsb = 80, .psb_bytes = 200,
			   .max_len = 800, .max_gap = 100 };
	struct stream *st = malloc(sizeof(*st));
	struct pkts p;
	uint64_t end;
	size_t a = 0, checked = 0;

	cr_assert_not_null(st);
	stream_build(st, &k, 9);
	pkts_scan(st->buf.data, st->buf.len, &p);
	for (size_t j = 0; j < p.npsb; j++) {
		uint64_t want;

		while (p.all[a].off != p.psb[j])
			a++;
		size_t e = a;
		while (e < p.nall && p.all[e].type != ppt_psbend)
			e++;
		cr_assert_lt(e, p.nall);
		want = e + 1 < p.nall ? p.all[e + 1].off : st->buf.len;
		cr_assert_eq(sy_decode_sync_end(SY_TRACE_PT, st->buf.data,
						st->buf.len, p.psb[j], &end),
			     0);
		cr_assert_eq(end, want, "PSB at %" PRIu64, p.psb[j]);
		cr_assert_eq(sy_decode_sync_end(SY_TRACE_PT, st->buf.data,
						want - 1, p.psb[j], &end),
			     -SY_E_EOS);
		checked++;
	}
	cr_assert_gt(checked, 20);
	/* not at a PSB: nothing to find */
	cr_assert_eq(sy_decode_sync_end(SY_TRACE_PT, st->buf.data, st->buf.len,
					p.psb[1] + 2, &end),
		     -SY_E_EOS);
	cr_assert_eq(sy_decode_sync_end(SY_TRACE_PT, st->buf.data, 4, 4, &end),
		     -SY_E_INVALID);
	pkts_free(&p);
	fx_buf_fini(&st->buf);
	free(st);
}

/* Edge cases of the pattern: where 02 82 runs longer than a PSB, libipt
 * syncs at its last 16 bytes (checked with pt_pkt_sync_forward), and so do
 * we; nothing shorter than a PSB is one. */
Test(pt_decode, find_sync_edges)
{
	uint8_t b[64];
	struct pt_config cfg;
	struct pt_packet_decoder *pd;
	uint64_t sync, lib;
	size_t i;

	memset(b, 0, sizeof(b));
	cr_expect_eq(sy_decode_find_sync(SY_TRACE_PT, b, 0, 0, &sync),
		     -SY_E_EOS);
	cr_expect_eq(sy_decode_find_sync(SY_TRACE_PT, b, sizeof(b), 40, &sync),
		     -SY_E_EOS);
	cr_expect_eq(sy_decode_find_sync(SY_TRACE_PT, NULL, 4, 0, &sync),
		     -SY_E_INVALID);
	/* 02 82 x 9 at 6: the PSB is at 8 */
	for (i = 0; i < 9; i++) {
		b[6 + 2 * i] = 0x02;
		b[7 + 2 * i] = 0x82;
	}
	b[24] = 0x02;	/* psbend follows */
	b[25] = 0x23;
	pt_config_init(&cfg);
	cfg.begin = b;
	cfg.end = b + sizeof(b);
	pd = pt_pkt_alloc_decoder(&cfg);
	cr_assert_not_null(pd);
	cr_assert_geq(pt_pkt_sync_forward(pd), 0);
	cr_assert_eq(pt_pkt_get_sync_offset(pd, &lib), 0);
	pt_pkt_free_decoder(pd);
	cr_expect_eq(lib, 8);
	cr_expect_eq(sy_decode_find_sync(SY_TRACE_PT, b, sizeof(b), 7, &sync),
		     -SY_E_EOS);
	cr_expect_eq(sy_decode_find_sync(SY_TRACE_PT, b, sizeof(b), 8, &sync),
		     0);
	cr_expect_eq(sync, 8);
	/* an offset inside the PSB, and past the end */
	cr_expect_eq(sy_decode_find_sync(SY_TRACE_PT, b, sizeof(b), 13, &sync),
		     0);
	cr_expect_eq(sync, 8);
	cr_expect_eq(sy_decode_find_sync(SY_TRACE_PT, b, sizeof(b), 1000,
					 &sync), 0);
	cr_expect_eq(sync, 8);
	/* Cut short, the run is two bytes shorter: the PSB moves to 6, for
	 * libipt as for us. */
	cfg.end = b + 23;
	pd = pt_pkt_alloc_decoder(&cfg);
	cr_assert_not_null(pd);
	cr_assert_geq(pt_pkt_sync_backward(pd), 0);
	cr_assert_eq(pt_pkt_get_sync_offset(pd, &lib), 0);
	pt_pkt_free_decoder(pd);
	cr_expect_eq(lib, 6);
	cr_expect_eq(sy_decode_find_sync(SY_TRACE_PT, b, 23, 8, &sync), 0);
	cr_expect_eq(sync, 6);
	cr_expect_eq(sy_decode_find_sync(SY_TRACE_PT, b, 21, 8, &sync),
		     -SY_E_EOS);
}

/* ------------------------------------------------------------------------
 * Broken input: errors are items, never hangs or crashes.
 * ---------------------------------------------------------------------- */

static size_t count_kind(const struct items *l, int kind)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		n += l->e[i].kind == kind;
	return n;
}

/* Every ERROR lies in the buffer, the counters agree with the items. */
static void check_sane(struct sy_decoder *d, const struct items *l,
		       size_t len)
{
	const struct sy_dec_stats *s = sy_decoder_stats(d);
	uint64_t insns = 0;
	size_t i;

	for (i = 0; i < l->n; i++) {
		insns += l->e[i].ninsn;
		if (l->e[i].kind == SY_DEC_ERROR) {
			cr_assert_leq(l->e[i].offset, len);
			cr_assert_neq(l->e[i].code, 0);
		}
	}
	cr_assert_eq(s->errors, count_kind(l, SY_DEC_ERROR));
	cr_assert_eq(s->branches, count_kind(l, SY_DEC_BRANCH));
	cr_assert_eq(s->overflows, count_kind(l, SY_DEC_OVERFLOW));
	cr_assert_eq(s->insns, insns);
}

/* A window whose bytes hold no PSB, and none before: one ERROR
 * (pte_nosync) at its first byte, then the end.  Padding alone is no
 * error; a PSB after lost bytes decodes from there. */
Test(pt_decode, window_without_psb)
{
	struct fx_pt_window w[2];
	struct fx_pt_window_info wi[2];
	struct fx_pt_enc enc;
	struct fx_pt_opts o;
	struct fx_buf buf;
	struct sy_decoder *d = new_decoder(NULL);
	struct items got = { 0 }, want = { 0 };
	struct sy_dec_chunk ch;
	uint8_t pad[100];
	uint64_t rng = 3, sync;

	fx_pt_opts_init(&o);
	fx_pt_window_init(&w[0], g_t.insns + 500, 700);
	w[0].start = FX_PT_START_NOPSB;
	fx_pt_window_init(&w[1], g_t.insns + 1500, 700);
	fx_buf_init(&buf);
	cr_assert_eq(fx_pt_enc_init(&enc, &o, &buf), 0);
	cr_assert_eq(fx_pt_enc_window(&enc, &w[0], &wi[0]), 0);
	cr_assert_eq(fx_pt_enc_window(&enc, &w[1], &wi[1]), 0);
	fx_pt_enc_fini(&enc);

	cr_assert_eq(sy_decode_find_sync(SY_TRACE_PT, buf.data, wi[0].end, 0,
					 &sync), -SY_E_EOS);
	decode_window(d, buf.data, wi[0].begin, wi[0].end, 1, &rng, &got);
	cr_assert_eq(got.n, 1);
	cr_expect_eq(got.e[0].kind, SY_DEC_ERROR);
	cr_expect_eq(got.e[0].code, pte_nosync);
	cr_expect_eq(got.e[0].offset, 0);
	check_sane(d, &got, wi[0].end);
	items_free(&got);

	/* Both windows as one: the first is lost, the second decodes. */
	ch.data = buf.data;
	ch.len = buf.len;
	cr_assert_eq(sy_decoder_reset(d, &ch, 1, 0), 0);
	drain(d, &got, 10000);
	cr_assert_gt(got.n, 2);
	cr_expect_eq(got.e[0].kind, SY_DEC_ERROR);
	cr_expect_eq(got.e[0].code, pte_nosync);
	cr_expect_eq(got.e[0].offset, 0);
	exp_window(&w[1], SIZE_MAX, SIZE_MAX, &want);
	{
		struct items rest = { 0 };
		size_t i;

		for (i = 1; i < got.n; i++)
			items_add(&rest, &got.e[i], got.count[i]);
		cr_expect_eq(items_cmp(&rest, &want, "after the lost window"),
			     -1);
		items_free(&rest);
	}
	items_free(&got);
	items_free(&want);

	/* Padding only, nothing at all. */
	memset(pad, 0, sizeof(pad));
	ch.data = pad;
	ch.len = sizeof(pad);
	cr_assert_eq(sy_decoder_reset(d, &ch, 1, 0), 0);
	drain(d, &got, 10);
	cr_expect_eq(got.n, 0);
	cr_assert_eq(sy_decoder_reset(d, NULL, 0, 0), 0);
	drain(d, &got, 10);
	cr_expect_eq(got.n, 0);
	cr_expect_eq(sy_decoder_reset(d, &(struct sy_dec_chunk){ NULL, 5 }, 1,
				      0), -SY_E_INVALID);
	fx_buf_fini(&buf);
	sy_decoder_free(d);
}

/* One flipped TNT bit: libipt follows the wrong path.  The decoder must
 * not crash or hang, and the damage must show: an ERROR item with an
 * offset inside the window (libipt notices a few branches later: a
 * compressed return with an empty stack, a TIP where a TNT should be), or
 * at least items that differ from the truth. */
Test(pt_decode, flipped_tnt_bit)
{
	struct sy_decoder *d = new_decoder(NULL);
	uint64_t rng = 12345;
	size_t trial, with_error = 0, differ = 0;

	for (trial = 0; trial < 40; trial++) {
		struct fx_pt_window w;
		struct fx_pt_window_info wi;
		struct fx_pt_opts o;
		struct fx_buf buf;
		struct items got = { 0 }, want = { 0 };
		size_t a = (size_t)(rng_next(&rng) % 30000), i;
		int err_seen = 0;

		fx_pt_opts_init(&o);
		o.ret_compress = (int)(trial & 1);
		o.tnt = trial & 2 ? FX_PT_TNT64 : FX_PT_TNT8;
		fx_pt_window_init(&w, g_t.insns + a, 3000);
		w.first_idx = a;
		w.flip_tnt = (int64_t)(rng_next(&rng) % 100);
		fx_buf_init(&buf);
		cr_assert_eq(fx_pt_encode(&o, &w, &buf, &wi), 0);
		if (wi.ntnt_bits <= (unsigned)w.flip_tnt) {
			fx_buf_fini(&buf);
			continue;
		}
		decode_window(d, buf.data, 0, buf.len, 1, &rng, &got);
		check_sane(d, &got, buf.len);
		exp_window(&w, SIZE_MAX, SIZE_MAX, &want);
		for (i = 0; i < got.n; i++)
			if (got.e[i].kind == SY_DEC_ERROR) {
				err_seen = 1;
				cr_expect_gt(got.e[i].offset, 0);
			}
		with_error += err_seen;
		if (err_seen || items_cmp(&got, &want, "flipped") != -1)
			differ++;
		else
			cr_log_error("trial %zu: flipped bit %" PRId64
				     " went unnoticed", trial, w.flip_tnt);
		items_free(&got);
		items_free(&want);
		fx_buf_fini(&buf);
	}
	cr_log_info("flipped TNT bit: %zu trials differ, %zu with an ERROR "
		    "item", differ, with_error);
	cr_expect_gt(with_error, 10);
	sy_decoder_free(d);
}

/* A window cut short anywhere (also inside a packet): whatever comes
 * before the first ERROR is true, nothing is invented after the last
 * byte. */
Test(pt_decode, truncated_windows)
{
	struct sy_decoder *d = new_decoder(NULL);
	uint64_t rng = 999;
	size_t trial, cut_errors = 0;

	for (trial = 0; trial < 120; trial++) {
		struct fx_pt_window w;
		struct fx_pt_opts o;
		struct fx_buf buf;
		struct items got = { 0 }, want = { 0 }, pre = { 0 };
		size_t a = (size_t)(rng_next(&rng) % 35000), i, n;

		fx_pt_opts_init(&o);
		o.ret_compress = (int)(trial & 1);
		o.ip_compress = (int)((trial >> 1) & 1);
		o.tnt = trial & 4 ? FX_PT_TNT64 : FX_PT_TNT8;
		fx_pt_window_init(&w, g_t.insns + a,
				  1 + (size_t)(rng_next(&rng) % 2000));
		w.first_idx = a;
		w.truncate = 1 + (size_t)(rng_next(&rng) % 40);
		fx_buf_init(&buf);
		cr_assert_eq(fx_pt_encode(&o, &w, &buf, NULL), 0);
		decode_window(d, buf.data, 0, buf.len, 1, &rng, &got);
		check_sane(d, &got, buf.len);
		exp_window(&w, SIZE_MAX, SIZE_MAX, &want);
		/* The items before the first error, without the last STOP:
		 * a prefix of the truth's. */
		for (i = 0; i < got.n && got.e[i].kind != SY_DEC_ERROR; i++)
			if (got.e[i].kind != SY_DEC_TIME)
				items_add(&pre, &got.e[i], got.count[i]);
		cut_errors += i < got.n;
		n = pre.n;
		if (n && pre.e[n - 1].kind == SY_DEC_STOP &&
		    pre.e[n - 1].code == SY_STOP_END) {
			const struct sy_dec_item *s = &pre.e[n - 1];
			uint64_t c = pre.count[n - 1];

			/* The end names the last proven instruction and
			 * where it went. */
			if (s->from) {
				cr_assert_gt(c, 0);
				cr_expect_eq(w.insns[c - 1].pc, s->from,
					     "trial %zu", trial);
				cr_expect_eq(w.insns[c - 1].next, s->to);
			}
			n--;
		}
		cr_assert_leq(n, want.n, "trial %zu", trial);
		pre.n = n;
		want.n = n;
		cr_expect_eq(items_cmp(&pre, &want, "truncated"), -1,
			     "trial %zu", trial);
		items_free(&got);
		items_free(&want);
		items_free(&pre);
		fx_buf_fini(&buf);
	}
	cr_log_info("truncated windows: %zu of 120 ended in an ERROR",
		    cut_errors);
	sy_decoder_free(d);
}

/* Random bytes, random bytes after a valid start, a valid window with a
 * few bytes changed, and no code at all: only items and the end. */
Test(pt_decode, random_bytes)
{
	struct mem none = { .none = 1 };
	struct sy_decoder *d = new_decoder(NULL), *dn = new_decoder(&none);
	struct fx_pt_window w;
	struct fx_pt_opts o;
	struct fx_buf good;
	uint64_t rng = 4242;
	uint8_t *b = malloc(8192);
	size_t trial, nerr = 0;

	cr_assert_not_null(b);
	fx_pt_opts_init(&o);
	o.psb_period_bytes = 512;
	fx_pt_window_init(&w, g_t.insns + 100, 20000);
	fx_buf_init(&good);
	cr_assert_eq(fx_pt_encode(&o, &w, &good, NULL), 0);
	cr_assert_gt(good.len, 1024);
	for (trial = 0; trial < 600; trial++) {
		struct items got = { 0 };
		struct sy_dec_chunk ch;
		size_t len = (size_t)(rng_next(&rng) % 4096), i;
		uint64_t from = 0;
		struct sy_decoder *dd = trial % 5 == 4 ? dn : d;

		switch (trial % 3) {
		case 0:
			for (i = 0; i < len; i++)
				b[i] = (uint8_t)rng_next(&rng);
			break;
		case 1:
			/* PSB+, MODE.exec, TIP.PGE of a real window */
			len = len < 40 ? 40 : len;
			memcpy(b, good.data, 40);
			for (i = 40; i < len; i++)
				b[i] = (uint8_t)rng_next(&rng);
			break;
		default:
			len = 1024 + len;
			memcpy(b, good.data, len);
			for (i = 0; i < 1 + trial % 7; i++)
				b[rng_next(&rng) % len] =
					(uint8_t)rng_next(&rng);
			if (trial & 8)
				from = rng_next(&rng) % len;
			break;
		}
		ch.data = b;
		ch.len = len;
		cr_assert_eq(sy_decoder_reset(dd, &ch, 1, from), 0);
		drain(dd, &got, 64 + 64 * len);
		check_sane(dd, &got, len);
		nerr += count_kind(&got, SY_DEC_ERROR);
		items_free(&got);
	}
	cr_log_info("random bytes: %zu ERROR items", nerr);
	cr_expect_gt(nerr, 100);
	fx_buf_fini(&good);
	free(b);
	sy_decoder_free(d);
	sy_decoder_free(dn);
}

static size_t t_jmp_mem(void *ctx, uint32_t ctxid, uint64_t addr,
			uint8_t *buf, size_t len)
{
	const uint8_t *code = ctx;

	(void)ctxid;
	if (addr < 0x7000 || addr >= 0x7003)
		return 0;
	if (len > 0x7003 - addr)
		len = (size_t)(0x7003 - addr);
	memcpy(buf, code + (addr - 0x7000), len);
	return len;
}

/* A hand-made trace in @trace (@cap bytes): PSB, PSBEND, MODE.exec 64,
 * TIP.PGE(0x7000), then the @n packets @tail.  Returns its length. */
static size_t t_hand_trace(uint8_t *trace, size_t cap,
			   const struct pt_packet *tail, size_t n)
{
	struct pt_encoder *enc;
	struct pt_packet pk;
	uint64_t len;

	enc = fx_pt_head(trace, cap, ptem_64bit, 0x7000);
	cr_assert_not_null(enc);
	for (size_t i = 0; i < n; i++) {
		pk = tail[i];
		cr_assert_gt(pt_enc_next(enc, &pk), 0);
	}
	cr_assert_eq(pt_enc_get_offset(enc, &len), 0);
	pt_free_encoder(enc);
	return (size_t)len;
}

/* A decoder over hand-made @trace (@n bytes) and code @read_mem reads
 * (@ctx), drained into @got (at most 2^18 + 100 items). */
static struct sy_decoder *t_hand_decode(const uint8_t *trace, size_t n,
					size_t (*read_mem)(void *, uint32_t,
							   uint64_t, uint8_t *,
							   size_t),
					void *ctx, struct items *got)
{
	struct sy_dec_params p;
	struct sy_dec_chunk ch;
	struct sy_decoder *d;

	pt_params(&p, NULL);
	p.read_mem = read_mem;
	p.mem_ctx = ctx;
	cr_assert_eq(sy_decoder_alloc(&d, &p), 0);
	ch.data = trace;
	ch.len = n;
	cr_assert_eq(sy_decoder_reset(d, &ch, 1, 0), 0);
	drain(d, got, (1u << 18) + 100);
	return d;
}

/* A direct jump to itself needs no trace: libipt would walk it forever
 * (one block per call) while a packet is still to come.  The decoder
 * gives up with an ERROR after 2^18 instructions without trace. */
Test(pt_decode, endless_direct_jump)
{
	static uint8_t code[] = { 0x90, 0xeb, 0xfe };	/* nop; jmp . */
	uint8_t trace[64];
	struct pt_packet pk;
	struct items got = { 0 };
	struct sy_decoder *d;
	size_t n;

	/* PSB+ to 0x7000, then TNT-8 */
	memset(&pk, 0, sizeof(pk));
	pk.type = ppt_tnt_8;
	pk.payload.tnt.bit_size = 3;
	pk.payload.tnt.payload = 5;
	n = t_hand_trace(trace, sizeof(trace), &pk, 1);
	d = t_hand_decode(trace, n, t_jmp_mem, code, &got);
	cr_assert_geq(got.n, 2);
	cr_expect_eq(got.e[0].kind, SY_DEC_START);
	cr_expect_eq(got.e[0].to, 0x7000);
	cr_expect_eq(got.e[1].kind, SY_DEC_BRANCH);
	cr_expect_eq(got.e[1].from, 0x7001);
	cr_expect_eq(got.e[1].to, 0x7001);
	cr_expect_eq(got.e[1].br, SY_BR_JUMP);
	cr_expect_eq(count_kind(&got, SY_DEC_ERROR), 1);
	cr_expect_eq(got.e[got.n - 1].kind, SY_DEC_ERROR);
	check_sane(d, &got, n);
	items_free(&got);
	sy_decoder_free(d);
}

/* 0x7000 jmp *%rax; 0x7002 call 0x7007; 0x7007 jz 0x7007 */
static const uint8_t t_next_code[] = { 0xff, 0xe0, 0xe8, 0x00, 0x00, 0x00,
				       0x00, 0x74, 0xfe };

static size_t t_next_mem(void *ctx, uint32_t ctxid, uint64_t addr,
			 uint8_t *buf, size_t len)
{
	uint64_t end = 0x7000 + sizeof(t_next_code);

	(void)ctx;
	(void)ctxid;
	if (addr < 0x7000 || addr >= end)
		return 0;
	if (len > end - addr)
		len = (size_t)(end - addr);
	memcpy(buf, t_next_code + (addr - 0x7000), len);
	return len;
}

/* Only a conditional branch to the next instruction is not taken: an
 * indirect jump there (the lazy PLT's jmp *GOT to its own push) and a
 * call there (the PIC call to the next instruction) are taken branches,
 * as an LBR records them, and as the ground truth of the real-program
 * corpus has them (sort's lazy PLT failed it before). */
Test(pt_decode, unconditional_branch_to_next_instruction)
{
	uint8_t trace[64];
	struct pt_packet pk[2];
	struct items got = { 0 };
	struct sy_decoder *d;
	size_t n;

	/* PSB+ to 0x7000, then TIP(0x7002), TNT-8 (taken, not taken: the
	 * jz, then code that cannot be read) */
	memset(pk, 0, sizeof(pk));
	pk[0].type = ppt_tip;
	pk[0].payload.ip.ipc = pt_ipc_sext_48;
	pk[0].payload.ip.ip = 0x7002;
	pk[1].type = ppt_tnt_8;
	pk[1].payload.tnt.bit_size = 2;
	pk[1].payload.tnt.payload = 2;
	n = t_hand_trace(trace, sizeof(trace), pk, 2);
	d = t_hand_decode(trace, n, t_next_mem, NULL, &got);
	cr_assert_geq(got.n, 4);
	cr_expect_eq(got.e[0].kind, SY_DEC_START);
	cr_expect_eq(got.e[0].to, 0x7000);
	cr_expect(got.e[1].kind == SY_DEC_BRANCH && got.e[1].from == 0x7000 &&
		  got.e[1].to == 0x7002 && got.e[1].br == SY_BR_IND_JUMP,
		  "jmp *%%rax to the next instruction: kind %d %#llx -> %#llx",
		  got.e[1].kind, (unsigned long long)got.e[1].from,
		  (unsigned long long)got.e[1].to);
	cr_expect(got.e[2].kind == SY_DEC_BRANCH && got.e[2].from == 0x7002 &&
		  got.e[2].to == 0x7007 && got.e[2].br == SY_BR_CALL,
		  "call to the next instruction: kind %d %#llx -> %#llx",
		  got.e[2].kind, (unsigned long long)got.e[2].from,
		  (unsigned long long)got.e[2].to);
	cr_expect(got.e[3].kind == SY_DEC_BRANCH && got.e[3].from == 0x7007 &&
		  got.e[3].to == 0x7007 && got.e[3].br == SY_BR_COND);
	cr_expect_eq(count_kind(&got, SY_DEC_BRANCH), 3, "the jz not taken is "
		     "no branch");
	check_sane(d, &got, n);
	items_free(&got);
	sy_decoder_free(d);
}

/* After an error, libipt decodes again only from the next PSB: every
 * trace enable before it starts a stretch that is reported as an error
 * of its own, at its IP: SY_DEC_ERR_LOST where its code could be read,
 * libipt's no-map where it could not (so the binary is named).  Before,
 * the enables said nothing, and the windows they start came out empty. */
Test(pt_decode, enables_after_an_error_until_the_next_psb)
{
	uint8_t trace[96];
	struct pt_packet pk[5];
	struct items got = { 0 };
	struct sy_decoder *d;
	size_t n, nerr = 0, k = 0;
	uint64_t want_to[3] = { 0, 0x7002, 0x9100 };
	uint32_t want_code[3] = { pte_nomap, SY_DEC_ERR_LOST, pte_nomap };

	/* PSB+ to 0x7000: jmp *%rax to 0x9000, where nothing is mapped;
	 * disabled, enabled at 0x7002 (readable), disabled, enabled at
	 * 0x9100 (an IP compressed against the last: 16 bits) */
	memset(pk, 0, sizeof(pk));
	pk[0].type = ppt_tip;
	pk[0].payload.ip.ipc = pt_ipc_sext_48;
	pk[0].payload.ip.ip = 0x9000;
	pk[1].type = ppt_tip_pgd;
	pk[1].payload.ip.ipc = pt_ipc_suppressed;
	pk[2].type = ppt_tip_pge;
	pk[2].payload.ip.ipc = pt_ipc_sext_48;
	pk[2].payload.ip.ip = 0x7002;
	pk[3].type = ppt_tip_pgd;
	pk[3].payload.ip.ipc = pt_ipc_suppressed;
	pk[4].type = ppt_tip_pge;
	pk[4].payload.ip.ipc = pt_ipc_update_16;
	pk[4].payload.ip.ip = 0x9100;
	n = t_hand_trace(trace, sizeof(trace), pk, 5);
	d = t_hand_decode(trace, n, t_next_mem, NULL, &got);
	for (size_t i = 0; i < got.n; i++) {
		const struct sy_dec_item *it = &got.e[i];

		if (it->kind != SY_DEC_ERROR)
			continue;
		cr_assert_lt(nerr, 3, "more than 3 errors");
		cr_expect_eq(it->code, want_code[nerr], "error %zu: code %#x",
			     nerr, it->code);
		if (nerr)
			cr_expect_eq(it->to, want_to[nerr],
				     "error %zu at %#llx", nerr,
				     (unsigned long long)it->to);
		/* libipt's error is where its decoder stopped, which may be
		 * the next enable's own packet; the enables are two packets
		 * apart */
		if (nerr < 2)
			cr_expect_geq(it->offset, k, "errors in trace order");
		else
			cr_expect_gt(it->offset, k, "errors in trace order");
		k = it->offset;
		nerr++;
	}
	cr_expect_eq(nerr, 3);
	check_sane(d, &got, n);
	items_free(&got);
	sy_decoder_free(d);
}

/* ------------------------------------------------------------------------
 * The real capture (Skylake, perf 4.14, user + kernel; binaries absent).
 * ---------------------------------------------------------------------- */

struct listing {
	uint64_t psb[64];
	size_t npsb;
	uint64_t pge_ip[64];	/* IPs of TIP.PGE packets */
	uint64_t pge_off[64];	/* and their offsets */
	size_t npge;
};

/* PSB offsets and TIP.PGE IPs from libipt's ptdump listing. */
static void read_listing(const char *gz, struct listing *l)
{
	char cmd[4200], *out = NULL, *line, *save = NULL;
	size_t len;

	memset(l, 0, sizeof(*l));
	snprintf(cmd, sizeof(cmd), "zcat '%s'", gz);
	cr_assert_eq(sy_test_run(cmd, &out, &len), 0, "%s", cmd);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long off, ip;
		char kind[32];
		int ipc;

		if (sscanf(line, "%llx %31s", &off, kind) != 2)
			continue;
		if (!strcmp(kind, "psb") && l->npsb < 64)
			l->psb[l->npsb++] = off;
		if (!strcmp(kind, "tip.pge") && l->npge < 64 &&
		    sscanf(line, "%llx %31s %d: %llx", &off, kind, &ipc, &ip) ==
			    4) {
			l->pge_off[l->npge] = off;
			l->pge_ip[l->npge++] = ip;
		}
	}
	free(out);
}

static void real_capture(const char *bin, const char *listing)
{
	char binp[4096], lstp[4096];
	struct mem none = { .none = 1 };
	struct sy_decoder *d;
	struct listing l;
	struct items got = { 0 };
	struct sy_dec_chunk ch;
	uint8_t *data;
	uint64_t sync, off;
	size_t len, i, j, k, nerr = 0, nstart = 0, ngap = 0, want_gap = 0;
	uint64_t first_err[64] = { 0 };

	snprintf(binp, sizeof(binp), "%s",
		 sy_test_shared_path(REAL_DIR "perf.data.intel_pt-4.14-aux-"));
	strncat(binp, bin, sizeof(binp) - strlen(binp) - 1);
	snprintf(lstp, sizeof(lstp), "%s", sy_test_shared_path(REAL_DIR));
	strncat(lstp, listing, sizeof(lstp) - strlen(lstp) - 1);
	sy_test_require_path(binp);
	sy_test_require_path(lstp);
	data = sy_test_read_file(binp, &len);
	cr_assert_not_null(data);
	read_listing(lstp, &l);
	cr_assert_gt(l.npsb, 0);

	/* Every PSB of the listing, and nothing else, is a sync point. */
	for (k = l.npsb, off = len; k-- > 0; off = sync - 1) {
		cr_assert_eq(sy_decode_find_sync(SY_TRACE_PT, data, len, off,
						 &sync), 0);
		cr_assert_eq(sync, l.psb[k], "PSB #%zu", k);
		if (!sync)
			break;
	}
	cr_assert_eq(k, 0);

	/* Decode it all with no code: libipt stops at the first instruction
	 * after each sync (no memory mapped); the decoder reports it and
	 * resyncs at the next PSB, through to the end.  Each trace enable
	 * (TIP.PGE) between that error and the next PSB starts a stretch of
	 * its own, which is reported too: an error at the enable, with the
	 * listing's IP (no code there either). */
	d = new_decoder(&none);
	ch.data = data;
	ch.len = len;
	cr_assert_eq(sy_decoder_reset(d, &ch, 1, 0), 0);
	drain(d, &got, 100000);
	check_sane(d, &got, len);
	cr_assert_gt(none.calls, 0);
	for (i = 0, k = 0; i < got.n; i++) {
		const struct sy_dec_item *it = &got.e[i];

		cr_expect_neq(it->kind, SY_DEC_BRANCH);
		if (it->kind == SY_DEC_START) {
			int known = 0;

			/* A START is a TIP.PGE of the listing or a PSB+
			 * FUP; either way a kernel address here. */
			for (j = 0; j < l.npge; j++)
				known |= l.pge_ip[j] == it->to;
			cr_expect(known || it->to >= 0xffff800000000000ull,
				  "START at %#" PRIx64, it->to);
			nstart++;
		}
		if (it->kind != SY_DEC_ERROR)
			continue;
		cr_expect_eq(it->code, pte_nomap, "error %u at %" PRIu64,
			     it->code, it->offset);
		nerr++;
		if (k < l.npsb && it->offset >= l.psb[k]) {
			/* The first error after PSB k, before the next. */
			if (k + 1 < l.npsb)
				cr_expect_lt(it->offset, l.psb[k + 1]);
			first_err[k++] = it->offset;
			continue;
		}
		/* Else an enable of the listing, after PSB k - 1's error. */
		cr_assert_gt(k, 0, "error at %" PRIu64 " before any PSB",
			     it->offset);
		for (j = 0; j < l.npge && l.pge_off[j] != it->offset; j++)
			;
		cr_assert_lt(j, l.npge, "error at %" PRIu64 " is no PSB's "
			     "and no TIP.PGE's", it->offset);
		cr_expect_gt(it->offset, first_err[k - 1]);
		cr_expect_eq(it->to, l.pge_ip[j], "at %" PRIu64, it->offset);
		ngap++;
	}
	cr_expect_eq(k, l.npsb, "errors after %zu of %zu PSBs", k, l.npsb);
	/* Every enable after its PSB's error is reported. */
	for (j = 0, k = 0; j < l.npge; j++) {
		while (k + 1 < l.npsb && l.pge_off[j] >= l.psb[k + 1])
			k++;
		want_gap += l.pge_off[j] >= l.psb[k] &&
			    l.pge_off[j] > first_err[k];
	}
	cr_expect_eq(ngap, want_gap, "%zu enables reported, %zu skipped",
		     ngap, want_gap);
	cr_expect_eq(nerr, l.npsb + ngap);
	cr_expect_geq(nstart, 1);
	cr_expect_eq(sy_decoder_stats(d)->bytes, len);
	cr_log_info("%s: %zu bytes, %zu PSBs, %zu items, %zu errors, %zu "
		    "starts", bin, len, l.npsb, got.n, nerr, nstart);
	items_free(&got);
	sy_decoder_free(d);
	free(data);
}

Test(pt_decode, real_capture_idx0)
{
	real_capture("idx0.bin", "ptdump-idx0.txt.gz");
}

Test(pt_decode, real_capture_idx3)
{
	real_capture("idx3.bin", "ptdump-idx3.txt.gz");
}

/* ------------------------------------------------------------------------
 * The branch decoder for the last instruction of a block.
 * ---------------------------------------------------------------------- */

/* Every instruction the program executes, against the capstone-based
 * classification of the truth. */
Test(pt_decode, x86_branches_of_the_program)
{
	size_t i, nbr = 0;

	for (i = 0; i < g_t.n; i++) {
		const struct fx_insn *in = &g_t.insns[i];
		struct sy_x86_branch br;
		struct fx_class c;
		uint8_t buf[15];
		size_t n = t_read_mem(NULL, 0, in->pc, buf, sizeof(buf));

		if (i && in->pc == g_t.insns[i - 1].pc)
			continue;
		cr_assert_eq(sy_x86_branch_decode(buf, n, 64, in->pc, &br), 0);
		cr_assert_eq(br.kind, in->kind, "%#" PRIx64, in->pc);
		if (in->kind == SY_BR_NONE)
			continue;
		nbr++;
		cr_assert_eq(br.size, in->size, "%#" PRIx64, in->pc);
		cr_assert_eq(fx_truth_class(&g_t, i, &c), 0);
		cr_assert_eq(br.direct, c.has_target, "%#" PRIx64, in->pc);
		if (br.direct)
			cr_assert_eq(br.target, c.target, "%#" PRIx64, in->pc);
	}
	cr_assert_gt(nbr, 1000);
}

/* Hand-made encodings for what the program does not contain: prefixes,
 * 16- and 32-bit code, ModRM/SIB/displacement forms, far transfers. */
Test(pt_decode, x86_branch_encodings)
{
	static const struct {
		uint8_t b[15];
		uint8_t n, bits, kind, size, direct;
		uint64_t target;	/* at ip 0x1000 */
	} t[] = {
		{ { 0x74, 0x05 }, 2, 64, SY_BR_COND, 2, 1, 0x1007 },
		{ { 0x3e, 0x74, 0xfe }, 3, 64, SY_BR_COND, 3, 1, 0x1001 },
		{ { 0x0f, 0x85, 0x00, 0x01, 0, 0 }, 6, 64, SY_BR_COND, 6, 1,
		  0x1106 },
		{ { 0x66, 0x0f, 0x85, 0x10, 0, 0, 0 }, 7, 64, SY_BR_COND, 7, 1,
		  0x1017 },
		{ { 0x66, 0x0f, 0x85, 0x10, 0 }, 5, 32, SY_BR_COND, 5, 1,
		  0x1015 },
		{ { 0x0f, 0x85, 0x10, 0 }, 4, 16, SY_BR_COND, 4, 1, 0x1014 },
		{ { 0x67, 0xe3, 0x02 }, 3, 64, SY_BR_COND, 3, 1, 0x1005 },
		{ { 0xe2, 0x80 }, 2, 64, SY_BR_COND, 2, 1, 0xf82 },
		{ { 0xeb, 0x00 }, 2, 64, SY_BR_JUMP, 2, 1, 0x1002 },
		{ { 0xe9, 0xfb, 0xef, 0xff, 0xff }, 5, 64, SY_BR_JUMP, 5, 1,
		  0 },
		{ { 0xe9, 0x00, 0x10 }, 3, 16, SY_BR_JUMP, 3, 1, 0x2003 },
		{ { 0xe8, 0xfb, 0xff, 0xff, 0xff }, 5, 32, SY_BR_CALL, 5, 1,
		  0x1000 },
		{ { 0xf2, 0xe8, 0, 0, 0, 0 }, 6, 64, SY_BR_CALL, 6, 1, 0x1006 },
		{ { 0x40, 0xe8, 1, 0, 0, 0 }, 6, 64, SY_BR_CALL, 6, 1, 0x1007 },
		{ { 0x67, 0x4f, 0xe8, 1, 0, 0, 0 }, 7, 64, SY_BR_CALL, 7, 1,
		  0x1008 },
		{ { 0x66, 0xe8, 1, 0, 0, 0 }, 6, 64, SY_BR_CALL, 6, 1, 0x1007 },
		{ { 0xf2, 0x67, 0x4f, 0xc2, 0x11, 0x22 }, 6, 64, SY_BR_RET, 6,
		  0, 0 },
		{ { 0x66, 0x48, 0xff, 0x14, 0x24 }, 5, 64, SY_BR_IND_CALL, 5, 0,
		  0 },
		{ { 0xff, 0xd0 }, 2, 64, SY_BR_IND_CALL, 2, 0, 0 },
		{ { 0x41, 0xff, 0xd3 }, 3, 64, SY_BR_IND_CALL, 3, 0, 0 },
		{ { 0xff, 0x15, 1, 2, 3, 4 }, 6, 64, SY_BR_IND_CALL, 6, 0, 0 },
		{ { 0xff, 0x14, 0xc5, 1, 2, 3, 4 }, 7, 64, SY_BR_IND_CALL, 7, 0,
		  0 },
		{ { 0xff, 0x54, 0x24, 0x08 }, 4, 64, SY_BR_IND_CALL, 4, 0, 0 },
		{ { 0xff, 0x94, 0x24, 1, 2, 3, 4 }, 7, 64, SY_BR_IND_CALL, 7, 0,
		  0 },
		{ { 0xff, 0x14, 0x25, 1, 2, 3, 4 }, 7, 64, SY_BR_IND_CALL, 7, 0,
		  0 },
		{ { 0xff, 0x56, 0x10 }, 3, 16, SY_BR_IND_CALL, 3, 0, 0 },
		{ { 0xff, 0x16, 0x34, 0x12 }, 4, 16, SY_BR_IND_CALL, 4, 0, 0 },
		{ { 0x67, 0xff, 0x16, 0x34, 0x12 }, 5, 32, SY_BR_IND_CALL, 5, 0,
		  0 },
		{ { 0x3e, 0xff, 0xe0 }, 3, 64, SY_BR_IND_JUMP, 3, 0, 0 },
		{ { 0xff, 0x24, 0xc5, 0, 0, 0, 0 }, 7, 64, SY_BR_IND_JUMP, 7, 0,
		  0 },
		{ { 0xff, 0x60, 0x08 }, 3, 64, SY_BR_IND_JUMP, 3, 0, 0 },
		{ { 0xc3 }, 1, 64, SY_BR_RET, 1, 0, 0 },
		{ { 0xf2, 0xc3 }, 2, 64, SY_BR_RET, 2, 0, 0 },
		{ { 0xc2, 0x08, 0x00 }, 3, 64, SY_BR_RET, 3, 0, 0 },
		{ { 0x0f, 0x05 }, 2, 64, SY_BR_SYSCALL, 2, 0, 0 },
		{ { 0x0f, 0x34 }, 2, 32, SY_BR_SYSCALL, 2, 0, 0 },
		{ { 0xcd, 0x80 }, 2, 32, SY_BR_SYSCALL, 2, 0, 0 },
		{ { 0xcc }, 1, 64, SY_BR_SYSCALL, 1, 0, 0 },
		{ { 0xff, 0x18 }, 2, 64, SY_BR_SYSCALL, 2, 0, 0 },
		{ { 0x9a, 1, 2, 3, 4, 5, 6 }, 7, 32, SY_BR_SYSCALL, 7, 0, 0 },
		{ { 0x0f, 0x01, 0xc1 }, 3, 64, SY_BR_SYSCALL, 3, 0, 0 },
		{ { 0x48, 0x0f, 0x07 }, 3, 64, SY_BR_ERET, 3, 0, 0 },
		{ { 0x48, 0xcf }, 2, 64, SY_BR_ERET, 2, 0, 0 },
		{ { 0xca, 0x10, 0x00 }, 3, 64, SY_BR_ERET, 3, 0, 0 },
		{ { 0x0f, 0x01, 0xc3 }, 3, 64, SY_BR_ERET, 3, 0, 0 },
		{ { 0xea, 1, 2, 3, 4, 5, 6 }, 7, 32, SY_BR_JUMP, 7, 0, 0 },
		{ { 0xff, 0x28 }, 2, 64, SY_BR_JUMP, 2, 0, 0 },
		{ { 0x90 }, 1, 64, SY_BR_NONE, 0, 0, 0 },
		{ { 0x48, 0x89, 0xe5 }, 3, 64, SY_BR_NONE, 0, 0, 0 },
		{ { 0xff, 0xc0 }, 2, 64, SY_BR_NONE, 0, 0, 0 },
		{ { 0xff, 0xd8 }, 2, 64, SY_BR_NONE, 0, 0, 0 },
		{ { 0x9a, 1, 2, 3, 4, 5, 6 }, 7, 64, SY_BR_NONE, 0, 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sy_x86_branch br;

		cr_assert_eq(sy_x86_branch_decode(t[i].b, t[i].n, t[i].bits,
						  0x1000, &br), 0, "#%zu", i);
		cr_expect_eq(br.kind, t[i].kind, "#%zu", i);
		cr_expect_eq(br.size, t[i].size, "#%zu", i);
		cr_expect_eq(br.direct, t[i].direct, "#%zu", i);
		if (t[i].direct)
			cr_expect_eq(br.target, t[i].target, "#%zu: %#" PRIx64,
				     i, br.target);
		/* One byte short is no instruction. */
		if (t[i].size)
			cr_expect_eq(sy_x86_branch_decode(t[i].b, t[i].size - 1u,
							  t[i].bits, 0x1000,
							  &br), -1, "#%zu", i);
	}
	{
		struct sy_x86_branch br;
		uint8_t pfx[16];

		memset(pfx, 0x66, sizeof(pfx));
		pfx[15] = 0xc3;
		cr_expect_eq(sy_x86_branch_decode(pfx, 16, 64, 0, &br), -1);
		cr_expect_eq(sy_x86_branch_decode(pfx, 2, 48, 0, &br), -1);
	}
}

/* Random byte strings that start like branches, against capstone
 * (64-bit code).  Far transfers are classified differently on purpose
 * (capstone: far jmp/call = indirect, retf = ret; here by what they do to
 * the privilege level).  66h, 67h and REX.W are left to the table above
 * (checked with objdump): capstone 4 follows AMD for 66h on near branches
 * (Intel, whose CPUs write PT, ignores it in 64-bit mode) and miscounts
 * 67h/REX.W forms of call rel32 and ret imm16. */
Test(pt_decode, x86_branches_vs_capstone)
{
	static const uint8_t pfx[] = { 0xf2, 0xf3, 0x2e, 0x3e, 0x26, 0x64,
				       0x65, 0x36, 0xf0, 0x40, 0x41, 0x44 };
	static const uint8_t ops[] = { 0x70, 0x7f, 0xe0, 0xe3, 0xeb, 0xe9,
				       0xe8, 0xc3, 0xc2, 0xcc, 0xcd, 0xff,
				       0xff, 0xff, 0x0f, 0x0f, 0x90, 0x89 };
	struct fx_classifier *cs;
	uint64_t rng = 5;
	size_t trial, compared = 0;

	cr_assert_eq(fx_classifier_new(&cs, FX_EM_X86_64), 0);
	for (trial = 0; trial < 200000; trial++) {
		uint8_t b[15];
		struct sy_x86_branch br;
		struct fx_class c;
		size_t np = (size_t)(rng_next(&rng) % 4), i, p = 0;
		int ours;

		for (i = 0; i < np; i++)
			b[p++] = pfx[rng_next(&rng) % sizeof(pfx)];
		b[p++] = ops[rng_next(&rng) % sizeof(ops)];
		if (b[p - 1] == 0x0f)
			b[p++] = (uint8_t)(rng_next(&rng) % 3 == 0 ?
					   0x05 : 0x80 + rng_next(&rng) % 16);
		for (; p < sizeof(b); p++)
			b[p] = (uint8_t)rng_next(&rng);
		ours = sy_x86_branch_decode(b, sizeof(b), 64, 0x400000, &br);
		if (fx_classify_insn(cs, b, sizeof(b), 0x400000, &c) != 0)
			continue;	/* capstone: no instruction */
		cr_assert_eq(ours, 0);
		if (br.far)
			continue;
		compared++;
		cr_assert_eq(br.kind, c.kind, "trial %zu: %02x %02x %02x %02x: ours %d/%d cs %d/%d",
			     trial, b[0], b[1], b[2], b[3], br.kind, br.size,
			     c.kind, c.size);
		if (c.kind == SY_BR_NONE)
			continue;
		cr_assert_eq(br.size, c.size, "trial %zu: %02x %02x %02x %02x: "
			     "ours %d/%d cs %d/%d", trial, b[0], b[1], b[2],
			     b[3], br.kind, br.size, c.kind, c.size);
		cr_assert_eq(br.direct, c.has_target);
		if (br.direct)
			cr_assert_eq(br.target, c.target);
	}
	cr_log_info("%zu encodings compared with capstone", compared);
	cr_assert_gt(compared, 100000);
	fx_classifier_free(cs);
}

/* ------------------------------------------------------------------------
 * The fast path (src/decode/pt_walk.h) against libipt's block decoder.
 * ---------------------------------------------------------------------- */

static struct sy_decoder *new_decoder_cyc(struct mem *m,
					  enum sy_pt_decoder which, int cyc)
{
	struct sy_dec_params p;
	struct sy_decoder *d;

	pt_params(&p, m);
	p.u.pt.decoder = which;
	p.u.pt.cyc = (uint8_t)cyc;
	cr_assert_eq(sy_decoder_alloc(&d, &p), 0);
	return d;
}

static struct sy_decoder *new_decoder_as(struct mem *m,
					 enum sy_pt_decoder which)
{
	return new_decoder_cyc(m, which, 0);
}

static void items_same(const struct items *a, const struct items *b,
		       uint64_t seed, size_t win)
{
	cr_assert_eq(a->n, b->n, "seed %" PRIu64 " window %zu: %zu items fast, "
		     "%zu full", seed, win, a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct sy_dec_item *x = &a->e[i], *y = &b->e[i];

		cr_assert(x->kind == y->kind && x->br == y->br &&
			  x->exc == y->exc && x->code == y->code &&
			  x->from == y->from && x->to == y->to &&
			  x->ninsn == y->ninsn && x->offset == y->offset &&
			  ((x->kind != SY_DEC_TIME &&
			    x->kind != SY_DEC_CYCLES) || x->time == y->time),
			  "seed %" PRIu64 " window %zu item %zu: kind %u/%u "
			  "%#" PRIx64 "->%#" PRIx64 " / %#" PRIx64 "->%#"
			  PRIx64 " off %" PRIu64 "/%" PRIu64, seed, win, i,
			  x->kind, y->kind, x->from, x->to, y->from, y->to,
			  x->offset, y->offset);
	}
}

/* Every window of streams with every option (time with periodic TSCs, so
 * libipt's tick events; CBR; overflows; windows that just stop; return and
 * IP compression; TNT-64; PSB periods), decoded from its PSB as convert
 * does, and also the whole stream in one: the fast path's items equal the
 * block decoder's, field for field, and it decodes every window itself
 * (the whole stream, whose gaps between windows errors mark, it may hand
 * over). */
Test(pt_decode, fast_path_equals_block_decoder, .timeout = 300)
{
	struct mem m = { 0 };
	struct sy_decoder *fast0 = new_decoder_as(&m, SY_PT_DECODER_FAST);
	struct sy_decoder *full0 = new_decoder_as(&m, SY_PT_DECODER_FULL);
	struct sy_decoder *fast1 = new_decoder_cyc(&m, SY_PT_DECODER_FAST, 1);
	struct sy_decoder *full1 = new_decoder_cyc(&m, SY_PT_DECODER_FULL, 1);
	uint64_t windows = 0, times = 0, fell = 0, cycles = 0;

	/* seeds from 2024 on: CYC packets, read */
	for (uint64_t seed = 2000; seed < 2032; seed++) {
		struct sy_decoder *fast = seed < 2024 ? fast0 : fast1;
		struct sy_decoder *full = seed < 2024 ? full0 : full1;
		struct knobs k = {
			.ret_compress = (int)(seed & 1) || seed % 5 == 0,
			.ip_compress = (int)((seed >> 1) & 1),
			.tnt64 = (int)((seed >> 2) & 1),
			.time = seed % 4 != 3,
			.psb_bytes = seed % 3 == 0 ? 128 : 0,
			.psb_insns = seed % 5 == 0 ? 11 : 0,
			.p_nopsb = 60, .p_end_none = 15, .p_ovf = 15,
			.max_len = 1 + (size_t)(seed % 4) * 700,
			.max_gap = 150,
			.cyc = seed < 2024 ? 0 : 1 + (uint32_t)(seed % 3),
		};
		struct stream *st = malloc(sizeof(*st));
		uint64_t rng = seed;

		cr_assert_not_null(st);
		stream_build(st, &k, seed);
		for (size_t i = 0; i <= st->nw; i++) {
			size_t b = i < st->nw ? st->info[i].begin : 0;
			size_t e = i < st->nw ? st->info[i].end : st->buf.len;
			uint64_t r2 = rng;
			struct items a = { 0 }, c = { 0 };

			decode_window(fast, st->buf.data, b, e, 1 + i % 3,
				      &rng, &a);
			decode_window(full, st->buf.data, b, e, 1 + i % 3,
				      &r2, &c);
			items_same(&a, &c, seed, i);
			/* the whole stream runs through the gaps between
			 * windows, which errors (handed over) may mark */
			if (i < st->nw)
				fell += sy_decoder_stats(fast)->fallbacks;
			else if (sy_decoder_stats(fast)->fallbacks)
				cr_assert_gt(sy_decoder_stats(full)->errors, 0);
			for (size_t j = 0; j < a.n; j++) {
				times += a.e[j].kind == SY_DEC_TIME;
				cycles += a.e[j].kind == SY_DEC_CYCLES;
			}
			windows++;
			items_free(&a);
			items_free(&c);
		}
		fx_buf_fini(&st->buf);
		free(st);
	}
	sy_decoder_free(fast0);
	sy_decoder_free(full0);
	sy_decoder_free(fast1);
	sy_decoder_free(full1);
	cr_assert_gt(windows, 300u);
	cr_assert_gt(times, 1000u);
	cr_assert_gt(cycles, 1000u);
	/* the code is all there and the trace whole: nothing handed over */
	cr_assert_eq(fell, 0, "%" PRIu64 " windows handed over", fell);
	cr_log_info("%" PRIu64 " windows, %" PRIu64 " TIME items, %" PRIu64
		    " CYCLES items", windows, times, cycles);
}

/* Cycle-accurate windows (CYC packets, params.u.pt.cyc): every traced
 * instruction takes cpi cycles (the encoder's model, fx_pt.h), so the
 * CYCLES items of a window that the pause ends (FUP + TIP.PGD) add up to
 * its instructions times cpi, and those of each stretch (START to STOP, a
 * count before a START being that stretch's, as stretch.c sums them) to
 * the stretch's instructions times cpi.  The fast path and the block
 * decoder give the same items, the fast path without handing over; and
 * with params.u.pt.cyc off the same bytes give no CYCLES item at all. */
Test(pt_decode, cycle_accurate_counts, .timeout = 300)
{
	struct mem m = { 0 };
	struct sy_decoder *fast = new_decoder_cyc(&m, SY_PT_DECODER_FAST, 1);
	struct sy_decoder *full = new_decoder_cyc(&m, SY_PT_DECODER_FULL, 1);
	struct sy_decoder *off = new_decoder_as(&m, SY_PT_DECODER_FAST);
	uint64_t windows = 0, stretches = 0, counts = 0;

	for (uint64_t seed = 3000; seed < 3012; seed++) {
		struct knobs k = {
			.ret_compress = (int)(seed & 1),
			.ip_compress = (int)((seed >> 1) & 1),
			.tnt64 = (int)((seed >> 2) & 1),
			.time = seed % 3 != 2,
			.psb_bytes = seed % 3 == 0 ? 128 : 0,
			.psb_insns = seed % 4 == 1 ? 17 : 0,
			.p_nopsb = 60,
			.max_len = 1 + (size_t)(seed % 4) * 500,
			.max_gap = 150,
			.cyc = 1 + (uint32_t)(seed % 5),
		};
		struct stream *st = malloc(sizeof(*st));
		uint64_t rng = seed;

		cr_assert_not_null(st);
		stream_build(st, &k, seed);
		for (size_t i = 0; i < st->nw; i++) {
			size_t b = st->info[i].begin, e = st->info[i].end;
			uint64_t r2 = rng, r3 = rng, sum = 0, s_cyc = 0;
			uint64_t s_insn = 0;
			struct items a = { 0 }, c = { 0 }, z = { 0 };
			uint64_t from = b;
			int open = 0;

			/* item offsets count from where decode_window starts */
			if (sy_decode_find_sync(SY_TRACE_PT, st->buf.data, e,
						b, &from) != 0)
				from = b;
			decode_window(fast, st->buf.data, b, e, 1 + i % 3,
				      &rng, &a);
			decode_window(full, st->buf.data, b, e, 1 + i % 3,
				      &r2, &c);
			decode_window(off, st->buf.data, b, e, 1 + i % 3,
				      &r3, &z);
			items_same(&a, &c, seed, i);
			cr_assert_eq(sy_decoder_stats(fast)->fallbacks, 0);
			for (size_t j = 0; j < z.n; j++)
				cr_assert_neq(z.e[j].kind, SY_DEC_CYCLES);
			for (size_t j = 0; j < a.n; j++) {
				const struct sy_dec_item *it = &a.e[j];

				if (open)
					s_insn += it->ninsn;
				if (it->kind == SY_DEC_CYCLES) {
					cr_assert(it->offset >= b - from &&
						  it->offset < e - from);
					cr_assert_eq(it->time, it->code);
					sum += it->code;
					s_cyc += it->code;
					counts++;
				} else if (it->kind == SY_DEC_START) {
					open = 1;
					s_insn = 0;
				} else if (it->kind == SY_DEC_STOP) {
					cr_assert(open);
					cr_assert_eq(s_cyc, s_insn * k.cyc,
						     "seed %" PRIu64 " window "
						     "%zu item %zu: %" PRIu64
						     " cycles, %" PRIu64
						     " instructions x %u",
						     seed, i, j, s_cyc, s_insn,
						     k.cyc);
					open = 0;
					s_cyc = 0;
					stretches++;
				}
			}
			cr_assert_eq(sum, (uint64_t)st->w[i].n * k.cyc,
				     "seed %" PRIu64 " window %zu: %" PRIu64
				     " cycles, %zu instructions x %u", seed, i,
				     sum, st->w[i].n, k.cyc);
			windows++;
			items_free(&a);
			items_free(&c);
			items_free(&z);
		}
		fx_buf_fini(&st->buf);
		free(st);
	}
	sy_decoder_free(fast);
	sy_decoder_free(full);
	sy_decoder_free(off);
	cr_assert_gt(windows, 100u);
	cr_assert_gt(stretches, windows);
	cr_log_info("%" PRIu64 " windows, %" PRIu64 " stretches, %" PRIu64
		    " CYCLES items", windows, stretches, counts);
}

/* A CYC carries up to 64 bits (libipt's packet decoder reads them): the
 * item's code saturates at UINT32_MAX and its time holds the whole count,
 * one item per packet in both decoders (splitting it into 32-bit items
 * made a fuzzed window of huge counts run for minutes). */
Test(pt_decode, cycle_count_past_32_bits)
{
	static const uint64_t want[] = { 5000000000ull, 7, 1ull << 50 };
	struct mem m = { .none = 1 };
	uint8_t buf[128];
	struct pt_config cfg;
	struct pt_encoder *enc;
	struct pt_packet p;
	struct sy_dec_chunk ch;
	uint64_t len;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + sizeof(buf);
	enc = pt_alloc_encoder(&cfg);
	cr_assert_not_null(enc);
	for (int k = 0; k < 7; k++) {
		memset(&p, 0, sizeof(p));
		p.type = k == 0 ? ppt_psb : k == 1 ? ppt_psbend :
			 k == 2 ? ppt_mode : k == 3 ? ppt_tip_pge : ppt_cyc;
		if (k == 2) {
			p.payload.mode.leaf = pt_mol_exec;
			p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
		} else if (k == 3) {
			p.payload.ip.ipc = pt_ipc_sext_48;
			p.payload.ip.ip = 0x401000;
		} else if (k > 3) {
			p.payload.cyc.value = want[k - 4];
		}
		cr_assert_geq(pt_enc_next(enc, &p), 0);
	}
	cr_assert_eq(pt_enc_get_offset(enc, &len), 0);
	pt_free_encoder(enc);
	ch.data = buf;
	ch.len = (size_t)len;
	for (int fast = 0; fast < 2; fast++) {
		struct sy_decoder *d = new_decoder_cyc(
			&m, fast ? SY_PT_DECODER_FAST : SY_PT_DECODER_FULL, 1);
		struct items l = { 0 };
		size_t n = 0;

		cr_assert_eq(sy_decoder_reset(d, &ch, 1, 0), 0);
		drain(d, &l, 64);
		for (size_t i = 0; i < l.n; i++) {
			if (l.e[i].kind != SY_DEC_CYCLES)
				continue;
			cr_assert_lt(n, 3);
			cr_assert_eq(l.e[i].time, want[n]);
			cr_assert_eq(l.e[i].code, want[n] > UINT32_MAX ?
						  UINT32_MAX :
						  (uint32_t)want[n]);
			n++;
		}
		cr_assert_eq(n, 3, "%s: %zu CYCLES items", fast ? "fast" :
			     "full", n);
		items_free(&l);
		sy_decoder_free(d);
	}
}
