/* libFuzzer target: the same bytes through the ETM fast path and through
 * OpenCSD's full decoder (sy_etm_params.decoder); the items must be equal,
 * field for field, in the same order.  The fast path may give a window up
 * (speculation, Q packets, ...): then the full decoder decodes it again and
 * the counters say so (sy_dec_stats.fallbacks).  Such a window is not
 * compared: OpenCSD's decoder keeps state from the windows it decoded
 * before (the address its last window ended at, the context of its last
 * elements), and the fast path's full decoder has decoded other windows
 * than the other one; after a fallback both decoders of the configuration
 * are renewed (sy_etm_renew: as new, OpenCSD's trees built again) so that
 * their histories stay the same.  Anything else traps.
 *
 * A renewed decoder's new OpenCSD trees outlive the input: libFuzzer's
 * per-input leak check would take each such input for a leak (OpenCSD
 * leaks 32 bytes per tree) and scan the whole heap, so tests/fuzz/run
 * checks its leaks at exit instead (SY_FUZZ_LEAKS_AT_EXIT).  Renewing
 * only the full decoder after a fallback is not enough: run at that
 * speed, the target traps within 30 s (the fast path's OpenCSD tree keeps
 * history too).  Renewing rather than making the decoders anew keeps
 * their caches: new ones cost more than most inputs (memset and page
 * faults of their block caches under ASan).
 *
 * Byte 0 picks the configuration (decoders are kept per configuration, as
 * in fuzz_etm_decode.c: OpenCSD leaks 32 bytes per tree):
 *   bit 0  frame-formatted (else a raw stream)
 *   bit 1  ETE (else ETMv4)
 *   bit 2  prepend A-Sync, Trace Info, Trace On and Address with Context
 *   bit 3  timestamps and context IDs in TRCCONFIGR
 *   bit 4  return stack (TRCCONFIGR.RS)
 *   bit 5  speculation depth 4 (TRCIDR8.MAXSPEC)
 *   bit 6  WFI / WFE traced as branches (TRCIDR2.WFXMODE); with bit 3,
 *          cycle-accurate too (TRCCONFIGR.CCI: Cycle Count packets and
 *          counts in timestamps, which both decoders hand out)
 *   bit 7  formatted: the data goes through the frame formatter as two
 *          interleaved trace IDs
 * Byte 1: bits 0-5 + 1 = chunk size, bit 6 splits the window into chunks
 * of that size, bit 7 gives the full decoder a ring of one item (its WAIT
 * path).  The rest is the trace.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/etm.h"
#include "fx_etm.h"
#include "fuzz_etm_image.h"
#include "sy_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* OpenCSD's own leaks, as in fuzz_etm_decode.c. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libstdc++.so\n";
}

/* The pair of decoders for configuration @mode. */
static struct sy_decoder **decoders(uint8_t mode)
{
	static struct sy_etm_source src[128][2];
	unsigned key = mode & 0x7f;

	if (!dec[key][0] || !dec[key][1]) {
		struct sy_dec_params p;

		for (int k = 0; k < 2; k++) {
			struct sy_etm_source *s = &src[key][k];

			s->trace_id = (uint8_t)(0x10 + k);
			s->ete = (mode >> 1) & 1;
			s->trcconfigr = ((mode & 8) ? (1u << 6 | 1u << 11) : 0) |
					((mode & 0x10) ? 1u << 12 : 0) |
					((mode & 0x48) == 0x48 ? 1u << 4 : 0);
			s->trcidr0 = 0x28000ea1;
			s->trcidr1 = s->ete ? 0x4100fff0 : 0x4100f443;
			s->trcidr2 = 0x488 | ((mode & 0x40) ? 0x80000000u : 0);
			s->trcidr8 = (mode & 0x20) ? 4 : 0;
			s->trcdevarch = s->ete ? 0x47715a13 : 0;
		}
		memset(&p, 0, sizeof(p));
		p.kind = SY_TRACE_ETM;
		p.read_mem = img_read;
		p.u.etm.formatted = mode & 1;
		p.u.etm.sources = src[key];
		p.u.etm.nr_sources = (mode & 1) ? 2 : 1;
		if (!dec[key][0] && sy_decoder_alloc(&dec[key][0], &p) < 0)
			abort();
		p.u.etm.decoder = SY_ETM_DECODER_FULL;
		if (!dec[key][1] && sy_decoder_alloc(&dec[key][1], &p) < 0)
			abort();
	}
	return dec[key];
}

struct items {
	struct sy_dec_item *v;
	size_t n, cap;
};

/* Every item of @d's window into @l.  Traps on a broken contract. */
static void drain(struct sy_decoder *d, struct items *l, size_t len)
{
	struct sy_dec_item it;
	int err;

	l->n = 0;
	while ((err = sy_decoder_next(d, &it)) == 0) {
		if (it.offset > len || it.kind < SY_DEC_BRANCH ||
		    (it.kind > SY_DEC_CONTEXT && it.kind != SY_DEC_CYCLES) || l->n > 64 * len + 1000)
			__builtin_trap();
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 1024;
			l->v = realloc(l->v, l->cap * sizeof(*l->v));
			if (!l->v)
				abort();
		}
		l->v[l->n++] = it;
	}
	if (err != -SY_E_EOS)
		__builtin_trap();
}

static int same(const struct sy_dec_item *a, const struct sy_dec_item *b)
{
	return a->kind == b->kind && a->br == b->br && a->exc == b->exc &&
	       a->code == b->code && a->from == b->from && a->to == b->to &&
	       a->time == b->time && a->ninsn == b->ninsn &&
	       a->offset == b->offset;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct items got[2];
	struct sy_dec_chunk ch[64];
	struct sy_decoder **pair;
	const struct sy_dec_stats *sa, *sb;
	struct fx_buf raw, fb;
	size_t len, nch, chunk;
	uint8_t mode, opt;

	if (size < 2)
		return 0;
	/* as fuzz_etm_decode.c, halved: every input is decoded twice */
	if (size > SY_FUZZ_ETM_MAX / 2)
		size = SY_FUZZ_ETM_MAX / 2;
	mode = data[0];
	opt = data[1];
	chunk = (size_t)(opt & 0x3f) + 1;
	data += 2;
	size -= 2;
	img_fill();
	pair = decoders(mode);

	len = fuzz_window(data, size, mode & 4, (mode >> 1) & 1, (mode >> 3) & 1,
			  (mode & 1) && (mode & 0x80), chunk, opt & 0x40, &raw,
			  &fb, ch, &nch);
	sy_etm_set_ring(pair[1], (opt & 0x80) ? 1 : SY_ETM_RING_DEFAULT);
	for (int k = 0; k < 2; k++) {
		if (sy_decoder_reset(pair[k], ch, nch, 0) < 0)
			abort();
		drain(pair[k], &got[k], len);
	}
	sa = sy_decoder_stats(pair[0]);
	sb = sy_decoder_stats(pair[1]);
	if (sa->fast_units + sa->full_units != 1 ||
	    sa->full_units != sa->fallbacks || sb->full_units != 1)
		__builtin_trap();	/* a unit not counted once */
	if (sa->fallbacks) {
		/* a counted fallback: the histories part, start anew.  Both
		 * decoders: OpenCSD's full decoder, reset with OCSD_OP_RESET
		 * after a window the fast path gave up on, can decode the next
		 * window otherwise than a new one (kept, this target traps
		 * within a minute); renewing only one of the two does not
		 * help (see the top). */
		for (int k = 0; k < 2; k++)
			if (sy_etm_renew(pair[k]) < 0)
				abort();
	} else {
		if (got[0].n != got[1].n || sa->bytes != sb->bytes)
			__builtin_trap();	/* one stream is longer */
		for (size_t i = 0; i < got[0].n; i++)
			if (!same(&got[0].v[i], &got[1].v[i]))
				__builtin_trap();	/* the items differ */
	}
	fx_buf_fini(&raw);
	fx_buf_fini(&fb);
	return 0;
}
