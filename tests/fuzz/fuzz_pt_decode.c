/* libFuzzer target: arbitrary bytes as one Intel PT window for the PT
 * decoder (src/decode/pt.c), with code from the x86-64 fixture program.
 *
 * Input layout: byte 0 picks options, bytes 1-2 where reporting starts,
 * the rest is trace.  Option bits:
 *   0-1  number of chunks - 1 (cut at pseudo-random points)
 *   2    prefix the trace with PSB, PSBEND, MODE.exec(64), TIP.PGE(entry of
 *        the program), so that mutations reach instruction decoding fast
 *   3    code cache off
 *   4    no code at all (read_mem returns 0)
 *   5    report_from from the last PSB before bytes 1-2 (sy_decode_find_sync)
 * Every item must be one of the documented kinds, ERROR offsets inside the
 * window, and next() must reach the end. */
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
static uint8_t fz_head[64];
static size_t fz_head_len;

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

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct fx_classifier *c;
	struct pt_encoder *enc;
	uint64_t off;

	(void)argc;
	(void)argv;
	/* The program's code, or a few branches when it is not there. */
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

	/* (at _start) */
	enc = fx_pt_head(fz_head, sizeof(fz_head), ptem_64bit, FZ_BASE + 3);
	if (!enc || pt_enc_get_offset(enc, &off) < 0)
		abort();
	fz_head_len = (size_t)off;
	pt_free_encoder(enc);
	return 0;
}

static int fz_kind_ok(const struct sy_dec_item *it)
{
	switch (it->kind) {
	case SY_DEC_BRANCH:
		return it->br > SY_BR_NONE && it->br < SY_BR_NR;
	case SY_DEC_STOP:
		return it->code >= SY_STOP_EXCEPTION && it->code <= SY_STOP_END;
	case SY_DEC_START:
	case SY_DEC_OVERFLOW:
	case SY_DEC_TIME:
		return 1;
	case SY_DEC_ERROR:
		return it->code != 0;
	default:
		return 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sy_dec_params prm;
	struct sy_dec_chunk ch[4];
	struct sy_decoder *d;
	struct sy_dec_item it;
	uint8_t *buf;
	uint64_t from, sync, insns = 0;
	size_t len, nch, i, a;
	unsigned opt;
	int err;

	if (size < 3)
		return 0;
	opt = data[0];
	from = (uint64_t)data[1] | (uint64_t)data[2] << 8;
	data += 3;
	size -= 3;

	/* The window: optional canned start + the input. */
	len = size + ((opt & 4) ? fz_head_len : 0);
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	i = 0;
	if (opt & 4) {
		memcpy(buf, fz_head, fz_head_len);
		i = fz_head_len;
	}
	if (size)
		memcpy(buf + i, data, size);
	if (from > len)
		from = len;
	if ((opt & 32) &&
	    sy_decode_find_sync(SY_TRACE_PT, buf, len, from, &sync) == 0) {
		if (sync > from)
			abort();
		a = (size_t)sync;
	} else {
		a = 0;
	}

	memset(&prm, 0, sizeof(prm));
	prm.kind = SY_TRACE_PT;
	prm.read_mem = fz_read_mem;
	prm.mem_ctx = (opt & 16) ? (void *)buf : NULL;
	prm.u.pt.family = 6;
	prm.u.pt.model = 78;
	prm.u.pt.stepping = 3;
	prm.u.pt.mtc_freq = 3;
	prm.u.pt.nom_freq = 12;
	prm.u.pt.cpuid_0x15_eax = 2;
	prm.u.pt.cpuid_0x15_ebx = 100;
	if (sy_decoder_alloc(&d, &prm) != 0)
		abort();
	sy_pt_set_code_cache(d, !(opt & 8));
	sy_decoder_set_context(d, opt);

	/* Chunks over buf[a, len). */
	nch = 1 + (opt & 3);
	for (i = 0; i < nch; i++) {
		size_t lo = a + (len - a) * i / nch;
		size_t hi = a + (len - a) * (i + 1) / nch;

		ch[i].data = buf + lo;
		ch[i].len = hi - lo;
	}
	if (sy_decoder_reset(d, ch, nch, from - a) != 0)
		abort();
	while ((err = sy_decoder_next(d, &it)) == 0) {
		if (!fz_kind_ok(&it))
			abort();
		if (it.kind == SY_DEC_ERROR && it.offset > len - a)
			abort();
		insns += it.ninsn;
	}
	if (err != -SY_E_EOS || sy_decoder_stats(d)->insns != insns)
		abort();
	if (sy_decoder_next(d, &it) != -SY_E_EOS)
		abort();
	sy_decoder_free(d);
	free(buf);
	return 0;
}
