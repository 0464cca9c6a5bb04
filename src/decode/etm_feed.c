/* A window's trace bytes, span by span (see etm_feed.h). */
#include <string.h>

#include "etm_feed.h"

void sy_etm_feed_reset(struct etm_feed *f, const struct sy_dec_chunk *chunks,
		    size_t nchunks, int formatted)
{
	f->chunks = chunks;
	f->nchunks = nchunks;
	f->ci = 0;
	f->coff = 0;
	f->pos = 0;
	f->formatted = formatted;
	f->stage_len = f->stage_used = 0;
	f->counted = 0;
}

static void chunk_advance(struct etm_feed *f, size_t n)
{
	f->coff += n;
	while (f->ci < f->nchunks && f->coff == f->chunks[f->ci].len) {
		f->ci++;
		f->coff = 0;
	}
}

int sy_etm_feed_left(struct etm_feed *f)
{
	chunk_advance(f, 0);
	return f->stage_len || f->ci < f->nchunks;
}

/* Gathers the next frame into the stage when it does not lie whole in one
 * chunk.  A partial frame at the very end of the window is skipped. */
static void stage_frame(struct etm_feed *f)
{
	unsigned want = ETM_FRAME - (unsigned)(f->pos % ETM_FRAME);

	f->stage_len = f->stage_used = 0;
	while (f->stage_len < want && f->ci < f->nchunks) {
		size_t left = f->chunks[f->ci].len - f->coff;
		size_t n = want - f->stage_len < left ? want - f->stage_len
						      : left;

		memcpy(f->stage + f->stage_len, f->chunks[f->ci].data + f->coff,
		       n);
		f->stage_len += (unsigned)n;
		chunk_advance(f, n);
	}
	if (f->stage_len < want) {
		f->pos += f->stage_len;
		f->stage_len = 0;
	}
}

uint32_t sy_etm_feed_span(struct etm_feed *f, const uint8_t **p, uint32_t max)
{
	size_t left;
	uint32_t n;

	if (f->stage_len) {
		*p = f->stage + f->stage_used;
		return f->stage_len - f->stage_used;
	}
	left = f->chunks[f->ci].len - f->coff;
	*p = f->chunks[f->ci].data + f->coff;
	n = left > max ? max : (uint32_t)left;
	if (f->formatted) {
		if (f->pos % ETM_FRAME || n < ETM_FRAME) {
			stage_frame(f);
			return 0;
		}
		n &= ~(uint32_t)(ETM_FRAME - 1);
	}
	return n;
}

uint64_t sy_etm_feed_used(struct etm_feed *f, uint32_t used)
{
	uint64_t from, fresh = 0;

	if (f->stage_len) {
		f->stage_used += used;
		if (f->stage_used == f->stage_len)
			f->stage_len = f->stage_used = 0;
	} else {
		chunk_advance(f, used);
	}
	from = f->pos > f->counted ? f->pos : f->counted;
	f->pos += used;
	if (f->pos > from) {
		fresh = f->pos - from;
		f->counted = f->pos;
	}
	return fresh;
}

void sy_etm_feed_skip(struct etm_feed *f)
{
	uint64_t to = f->pos + 1;

	if (f->stage_len) {
		/* The staged frame's bytes are already off the chunks. */
		f->pos += f->stage_len - f->stage_used;
		f->stage_len = f->stage_used = 0;
		return;
	}
	if (f->formatted)
		to = (to + ETM_FRAME - 1) & ~(uint64_t)(ETM_FRAME - 1);
	while (f->pos < to && f->ci < f->nchunks) {
		size_t left = f->chunks[f->ci].len - f->coff;
		size_t n = to - f->pos < left ? (size_t)(to - f->pos) : left;

		chunk_advance(f, n);
		f->pos += n;
	}
}

int sy_etm_feed_frame_id_at(const struct etm_feed *f, uint64_t pos)
{
	uint8_t fr[ETM_FRAME];
	unsigned have = 0;
	uint64_t at = 0;
	int id = -1;

	for (size_t c = 0; c < f->nchunks && at < pos; c++) {
		const uint8_t *d = f->chunks[c].data;

		for (size_t i = 0; i < f->chunks[c].len && at < pos; i++, at++) {
			fr[have++] = d[i];
			if (have < ETM_FRAME)
				continue;
			/* even bytes with bit 0 set are ID changes */
			for (unsigned k = 0; k < ETM_FRAME - 1; k += 2)
				if (fr[k] & 1)
					id = fr[k] >> 1;
			have = 0;
		}
	}
	return id;
}
