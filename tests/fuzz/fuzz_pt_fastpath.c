/* libFuzzer target: the same bytes as one Intel PT window through the PT
 * fast path (src/decode/pt_walk.h) and through libipt's block decoder
 * (sy_pt_params.decoder); the items must be equal, field for field, in the
 * same order (the fast path's taken in place, several at a time, as the
 * jobs take them, and every third through next()), and so must the
 * counters that follow from them.  Where the fast path gives the window
 * up (a decode error, TSX, a doubtful instruction, ...) the block
 * decoder decodes it again from its start and
 * the counters say so (sy_dec_stats.fallbacks); the items are compared all
 * the same: a fallback must not change them either.  Anything else traps.
 *
 * Input layout as in fuzz_pt_decode.c: byte 0 picks options, bytes 1-2
 * where reporting starts, the rest is trace.  Option bits:
 *   0-1  number of chunks - 1 (cut at pseudo-random points)
 *   2    prefix the trace with PSB, PSBEND, MODE.exec, TIP.PGE(entry of
 *        the program), so that mutations reach instruction decoding fast
 *   3    code cache off
 *   4    no code at all (read_mem returns 0)
 *   5    report_from from the last PSB before bytes 1-2
 *   6    the prefix's MODE.exec says 32-bit (else 64-bit)
 *   7    a Skylake with erratum SKD022 (else a Broadwell)
 *   3 and 7 both: CYC packets on (params.u.pt.cyc), whose counts both
 *        hand out as CYCLES items (pt_cyc.h), merged by offset
 */
#include <intel-pt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fx_classify.h"
#include "fx_pt.h"
#include "sy_decode.h"

#include "decode/pt_impl.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_ELF "tests/fixtures/programs/bin/branchy-x86_64"
#define FZ_BASE 0x401000ull

static uint8_t fz_code[0x4000];
static size_t fz_code_len;
static uint8_t fz_head[2][64];	/* 64-bit, 32-bit */
static size_t fz_head_len[2];

static size_t fz_read_mem(void *ctx, uint32_t ctxid, uint64_t addr,
			  uint8_t *buf, size_t len)
{
	size_t n;

	(void)ctxid;
	if (ctx || addr < FZ_BASE || addr - FZ_BASE >= fz_code_len)
		return 0;
	n = fz_code_len - (size_t)(addr - FZ_BASE);
	if (n > len)
		n = len;
	memcpy(buf, fz_code + (addr - FZ_BASE), n);
	return n;
}

static void fz_make_head(int bits32)
{
	struct pt_encoder *enc;
	uint64_t off;

	/* (at _start) */
	enc = fx_pt_head(fz_head[bits32], sizeof(fz_head[bits32]),
			 bits32 ? ptem_32bit : ptem_64bit, FZ_BASE + 3);
	if (!enc || pt_enc_get_offset(enc, &off) < 0)
		abort();
	fz_head_len[bits32] = (size_t)off;
	pt_free_encoder(enc);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct fx_classifier *c;

	(void)argc;
	(void)argv;
	if (fx_classifier_open(&c, FZ_ELF) == 0) {
		while (fz_code_len < sizeof(fz_code) &&
		       fx_classifier_read(c, FZ_BASE + fz_code_len,
					  fz_code + fz_code_len, 1) == 0)
			fz_code_len++;
		fx_classifier_free(c);
	}
	if (!fz_code_len) {
		static const uint8_t some[] = {
			0x31, 0xed, 0x74, 0x02, 0xeb, 0xfa, 0xe8, 0xf5, 0xff,
			0xff, 0xff, 0xff, 0xe0, 0x0f, 0x05, 0xc3, 0xe2, 0xf0,
		};

		memcpy(fz_code, some, sizeof(some));
		fz_code_len = sizeof(some);
	}
	fz_make_head(0);
	fz_make_head(1);
	return 0;
}

static struct sy_decoder *fz_decoder(unsigned opt, const uint8_t *buf,
				     enum sy_pt_decoder which)
{
	struct sy_dec_params prm;
	struct sy_decoder *d;

	memset(&prm, 0, sizeof(prm));
	prm.kind = SY_TRACE_PT;
	prm.read_mem = fz_read_mem;
	prm.mem_ctx = (opt & 16) ? (void *)(uintptr_t)buf : NULL;
	prm.u.pt.family = 6;
	prm.u.pt.model = (opt & 128) ? 94 : 61;
	prm.u.pt.stepping = 3;
	prm.u.pt.mtc_freq = 3;
	prm.u.pt.nom_freq = 12;
	prm.u.pt.cpuid_0x15_eax = 2;
	prm.u.pt.cpuid_0x15_ebx = 100;
	prm.u.pt.decoder = which;
	prm.u.pt.cyc = (opt & 0x88) == 0x88;
	if (sy_decoder_alloc(&d, &prm) != 0)
		abort();
	sy_pt_set_code_cache(d, !(opt & 8));
	sy_decoder_set_context(d, opt);
	return d;
}

/* Every field of the two items (the union as the kind uses it). */
static int fz_same(const struct sy_dec_item *a, const struct sy_dec_item *b)
{
	if (a->kind != b->kind || a->br != b->br || a->exc != b->exc ||
	    a->code != b->code || a->from != b->from || a->to != b->to ||
	    a->ninsn != b->ninsn || a->offset != b->offset)
		return 0;
	return (a->kind != SY_DEC_TIME && a->kind != SY_DEC_CYCLES) ||
	       a->time == b->time;
}

/* The next item through sy_decoder_peek / sy_decoder_advance. */
static int fz_peek(struct sy_decoder *d, struct sy_dec_item *it)
{
	struct sy_dec_item *v;
	size_t n;
	int err = sy_decoder_peek(d, &v, &n);

	if (err)
		return err;
	if (!n)
		abort();
	*it = v[0];
	sy_decoder_advance(d, 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sy_dec_chunk ch[4];
	struct sy_decoder *fast, *full;
	struct sy_dec_item x, y;
	const struct sy_dec_stats *sf, *sb;
	uint8_t *buf;
	uint64_t from, sync;
	size_t len, nch, i, a, head;
	unsigned opt;
	int ef, eb;

	if (size < 3)
		return 0;
	opt = data[0];
	from = (uint64_t)data[1] | (uint64_t)data[2] << 8;
	data += 3;
	size -= 3;

	head = (opt & 4) ? fz_head_len[(opt >> 6) & 1] : 0;
	len = size + head;
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	if (head)
		memcpy(buf, fz_head[(opt >> 6) & 1], head);
	if (size)
		memcpy(buf + head, data, size);
	if (from > len)
		from = len;
	a = 0;
	if ((opt & 32) &&
	    sy_decode_find_sync(SY_TRACE_PT, buf, len, from, &sync) == 0)
		a = (size_t)sync;

	fast = fz_decoder(opt, buf, SY_PT_DECODER_FAST);
	full = fz_decoder(opt, buf, SY_PT_DECODER_FULL);
	nch = 1 + (opt & 3);
	for (i = 0; i < nch; i++) {
		size_t lo = a + (len - a) * i / nch;
		size_t hi = a + (len - a) * (i + 1) / nch;

		ch[i].data = buf + lo;
		ch[i].len = hi - lo;
	}
	if (sy_decoder_reset(fast, ch, nch, from - a) != 0 ||
	    sy_decoder_reset(full, ch, nch, from - a) != 0)
		abort();
	for (size_t k = 0;; k++) {
		/* the fast path as the jobs read it, several items in place
		 * (sy_decoder_peek), and, every third item, through next() */
		ef = k % 3 == 2 ? sy_decoder_next(fast, &x) : fz_peek(fast, &x);
		eb = sy_decoder_next(full, &y);
		if (ef != eb)
			abort();
		if (ef)
			break;
		if (!fz_same(&x, &y))
			abort();
	}
	if (ef != -SY_E_EOS)
		abort();
	sf = sy_decoder_stats(fast);
	sb = sy_decoder_stats(full);
	if (sf->insns != sb->insns || sf->branches != sb->branches ||
	    sf->errors != sb->errors || sf->overflows != sb->overflows ||
	    sf->bytes != sb->bytes)
		abort();
	/* a window is the fast path's, or handed over and counted */
	if (len && (sb->fast_units || sb->full_units != 1 ||
		    sf->fast_units + sf->full_units != 1 ||
		    sf->full_units != sf->fallbacks))
		abort();
	sy_decoder_free(fast);
	sy_decoder_free(full);
	free(buf);
	return 0;
}
