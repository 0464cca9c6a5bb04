/* perf.data writer: COMPRESSED / COMPRESSED2 records (perf's util/zstd.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "write_impl.h"
#include "sy_bytes.h"

size_t sy_pwi_comp_piece(size_t max)
{
	size_t lo = 1, hi = max;

	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;

		if (ZSTD_compressBound(mid) <= max)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static int sy_pwi_emit_compressed(struct sy_pw *w, const uint8_t *z, size_t n)
{
	uint8_t hdr[16];
	size_t hlen, size;
	int err;

	if (w->cfg.compress == SY_REC_COMPRESSED2) {
		/* perf >= 6.16 (with the multi-record fix): every record has
		 * its own data_size and is padded to 8 */
		hlen = 16;
		size = (size_t)SY_ALIGN8(hlen + n);
		sy_put64(hdr + 8, n);
	} else {
		hlen = 8;
		size = hlen + n;
	}
	sy_put32(hdr, w->cfg.compress);
	sy_put16(hdr + 4, 0);
	sy_put16(hdr + 6, (uint16_t)size);
	err = sy_pwi_buf_put(&w->data, hdr, hlen);
	if (!err)
		err = sy_pwi_buf_put(&w->data, z, n);
	if (!err)
		err = sy_pwi_buf_put(&w->data, NULL, size - hlen - n);
	if (err)
		return err;
	w->stats.nr_compressed++;
	w->stats.bytes_out += size;
	if (w->cfg.compress < SY_REC_TYPE_LIMIT)
		w->stats.nr_type[w->cfg.compress]++;
	return 0;
}

/* Pushes @len bytes through zstd with ZSTD_e_flush, cutting the output
 * into records of at most comp_max_payload bytes. */
static int sy_pwi_comp_flush(struct sy_pw *w, const uint8_t *p, size_t len)
{
	ZSTD_inBuffer in = { p, len, 0 };
	size_t left;
	int err;

	do {
		ZSTD_outBuffer zo = { w->zout, w->cfg.comp_max_payload, 0 };

		left = ZSTD_compressStream2(w->zc, &zo, &in, ZSTD_e_flush);
		if (ZSTD_isError(left))
			return -SY_E_ZSTD;
		if (zo.pos) {
			err = sy_pwi_emit_compressed(w, w->zout, zo.pos);
			if (err)
				return err;
		}
	} while (in.pos < in.size || left);
	return 0;
}

/* Pushes the batch.  A compressed record holding only part of a zstd block
 * decodes to nothing, which perf (6.1 at least) rejects ("Couldn't
 * decompress data"), so unless comp_chain asks for perf's own cutting the
 * batch goes in pieces whose compressed size cannot exceed one record. */
int sy_pwi_comp_push(struct sy_pw *w)
{
	size_t off, n;
	int err;

	for (off = 0; off < w->batch.len; off += n) {
		n = w->batch.len - off;
		if (n > w->comp_piece)
			n = w->comp_piece;
		err = sy_pwi_comp_flush(w, w->batch.p + off, n);
		if (err)
			return err;
	}
	w->stats.bytes_in += w->batch.len;
	w->batch.len = 0;
	return 0;
}

int sy_pwi_comp_feed(struct sy_pw *w, const uint8_t *rec, size_t len)
{
	int err;

	while (len) {
		size_t n = w->cfg.comp_batch - w->batch.len;

		if (n > len)
			n = len;
		err = sy_pwi_buf_put(&w->batch, rec, n);
		if (err)
			return err;
		rec += n;
		len -= n;
		if (w->batch.len == w->cfg.comp_batch) {
			err = sy_pwi_comp_push(w);
			if (err)
				return err;
		}
	}
	return 0;
}

int sy_pw_set_compress(struct sy_pw *w, int on)
{
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (!w->zc)
		return on ? -SY_E_INVALID : 0;
	if (!on && w->comp_on) {
		err = sy_pwi_comp_push(w);
		if (err)
			return sy_pwi_fail(w, err);
	}
	w->comp_on = !!on;
	return 0;
}
