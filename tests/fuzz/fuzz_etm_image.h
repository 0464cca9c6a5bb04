/* The code image and the preamble the ETM fuzz targets share: every
 * waypoint class and an SVC, with targets inside the image, mapped twice
 * (low and high addresses), and the packets that synchronise a decoder
 * so that mutations act on one that is.  Included by one fuzz target each
 * (each is one translation unit). */
#ifndef FUZZ_ETM_IMAGE_H
#define FUZZ_ETM_IMAGE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fx_csfmt.h"
#include "fx_etm.h"
#include "sy_decode.h"

/* Longest window a target decodes (the configuration bytes excluded):
 * tests/fuzz/run gives these targets -max_len to match. */
#define FUZZ_ETM_MAX 2048u

#define IMG_WORDS 256
#define IMG_LO 0x400000ull
#define IMG_HI 0x7fb7e01000ull

/* Every waypoint class and an SVC, with targets inside the image. */
static const uint32_t pattern[] = {
	0xd503201f,	/* nop */
	0x54000041,	/* b.ne +8 */
	0xb4000060,	/* cbz x0, +12 */
	0x36180081,	/* tbz w1, #3, +16 */
	0x94000010,	/* bl +64 */
	0xd63f0040,	/* blr x2 */
	0xd61f0060,	/* br x3 */
	0xd65f03c0,	/* ret */
	0xd65f0bff,	/* retaa */
	0xd4000001,	/* svc #0 */
	0x17fffff6,	/* b -40 */
	0xd69f03e0,	/* eret */
	0x91000400,	/* add x0, x0, #1 */
	0xd503233f,	/* paciasp */
	0xd5033fdf,	/* isb */
	0xd503207f,	/* wfi */
	0xd73f0a11,	/* blraa x16, x17 */
	0x97fffff0,	/* bl -64 */
};

static uint8_t img[IMG_WORDS * 4];

static void img_fill(void)
{
	for (size_t i = 0; i < IMG_WORDS; i++) {
		uint32_t w = pattern[i % (sizeof(pattern) / sizeof(pattern[0]))];

		memcpy(img + 4 * i, &w, 4);
	}
}

static size_t img_read(void *ctx, uint32_t ctxid, uint64_t addr,
		       uint8_t *buf, size_t len)
{
	const uint64_t bases[2] = { IMG_LO, IMG_HI };

	(void)ctx;
	(void)ctxid;
	for (int k = 0; k < 2; k++) {
		if (addr >= bases[k] && addr - bases[k] < sizeof(img)) {
			size_t off = (size_t)(addr - bases[k]);
			size_t n = sizeof(img) - off < len ? sizeof(img) - off
							   : len;

			memcpy(buf, img + off, n);
			return n;
		}
	}
	return 0;
}

static void preamble(struct fx_buf *b, int ete, int ts_cid)
{
	struct fx_etm_config cfg;
	struct fx_etm_enc e;

	fx_etm_config_init(&cfg);
	cfg.arch = ete ? FX_ETM_ETE : FX_ETM_V4;
	cfg.timestamps = ts_cid;
	cfg.context_id = ts_cid;
	if (fx_etm_init(&e, &cfg) < 0)
		abort();
	fx_etm_async(&e);
	fx_etm_trace_info(&e);
	fx_etm_trace_on(&e);
	fx_etm_addr_ctxt(&e, IMG_LO, 42);
	fx_buf_put(b, e.out.data, e.out.len);
	fx_etm_fini(&e);
}

static struct sy_decoder *dec[128][2];

/* The window of the input @data: the preamble first when @sync (ETE when
 * @ete, timestamps and context IDs when @ts_cid), through the frame
 * formatter as two interleaved trace IDs when @interleave (@chunk % 17
 * bytes per turn), in *@nch chunks of @chunk bytes when @split (at most
 * 64), else one.  @raw and @fb hold the bytes; returns the length. */
static size_t fuzz_window(const uint8_t *data, size_t size, int sync, int ete,
			  int ts_cid, int interleave, size_t chunk, int split,
			  struct fx_buf *raw, struct fx_buf *fb,
			  struct sy_dec_chunk *ch, size_t *nch)
{
	const uint8_t *win;
	size_t len;

	fx_buf_init(raw);
	fx_buf_init(fb);
	if (sync)
		preamble(raw, ete, ts_cid);
	fx_buf_put(raw, data, size);
	win = raw->data;
	len = raw->len;
	if (interleave && raw->len) {
		struct fx_csfmt_stream st[2] = {
			{ 0x10, raw->data, raw->len / 2 },
			{ 0x11, raw->data + raw->len / 2, raw->len - raw->len / 2 },
		};

		if (fx_csfmt_interleave(fb, st, 2, chunk % 17, 0) < 0)
			abort();
		win = fb->data;
		len = fb->len;
	}
	*nch = 0;
	if (split) {
		size_t at = 0;

		while (at < len) {
			ch[*nch].data = win + at;
			ch[*nch].len = len - at < chunk ? len - at : chunk;
			if (*nch == 63)	/* the rest in one */
				ch[*nch].len = len - at;
			at += ch[(*nch)++].len;
		}
	} else if (len) {
		ch[0].data = win;
		ch[0].len = len;
		*nch = 1;
	}
	return len;
}

#endif
