/* What the ETM fuzz targets share: the code image (fuzz_etm_code.h), the
 * packets that synchronise a decoder so that mutations act on one that
 * is, and the window an input makes.  Included by one fuzz target each
 * (each is one translation unit). */
#ifndef FUZZ_ETM_IMAGE_H
#define FUZZ_ETM_IMAGE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_etm_code.h"
#include "fx_csfmt.h"
#include "fx_etm.h"
#include "sy_decode.h"

/* The longest window an ETM target decodes (fuzz_etm_decode.c says why). */
#define SY_FUZZ_ETM_MAX (4u << 10)

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
