/* A window's trace bytes, handed to an OpenCSD tree span by span.
 *
 * Private to the ETM backend.  A window may span several chunks (AUXTRACE
 * buffers); offsets count across them.  OpenCSD's deformatter takes whole
 * 16-byte frames only, so a frame split between two chunks is re-assembled
 * in a small stage first, and a partial frame at the very end of the
 * window, which cannot be decoded, is skipped. */
#ifndef SY_ETM_FEED_H
#define SY_ETM_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "sy_decode.h"

/* Bytes per OCSD_OP_DATA call.  OpenCSD takes 32-bit sizes, but the guard
 * (etm_guard.c) scans each span before the main tree sees it and rescans
 * from a cut, so a span bounds the work a corrupt packet costs. */
#define ETM_FEED_MAX (16u << 10)

#define ETM_FRAME 16u

struct etm_feed {
	const struct sy_dec_chunk *chunks;
	size_t nchunks, ci;	/* current chunk */
	size_t coff;		/* bytes of it already consumed */
	uint64_t pos;		/* window offset of the next byte to feed */
	int formatted;
	uint8_t stage[ETM_FRAME];
	unsigned stage_len, stage_used;	/* bytes staged / already fed */
	uint64_t counted;	/* bytes [0, counted) are in the statistics */
};

void sy_etm_feed_reset(struct etm_feed *f, const struct sy_dec_chunk *chunks,
		    size_t nchunks, int formatted);

/* Nonzero while bytes are left to feed. */
int sy_etm_feed_left(struct etm_feed *f);

/* The next span to feed in *@p: the staged frame, or as much of the current
 * chunk as fits @max (whole frames for formatted data).  Returns its length,
 * 0 when this call only staged (or dropped) a frame: call again. */
uint32_t sy_etm_feed_span(struct etm_feed *f, const uint8_t **p, uint32_t max);

/* @used bytes of the span were consumed.  Returns how many of them were
 * not counted yet (a tree decoding a window again counts nothing twice). */
uint64_t sy_etm_feed_used(struct etm_feed *f, uint32_t used);

/* Moves past the data that made a tree fail: at least one byte so that the
 * loop goes on, for frames to the next frame boundary (frames are aligned
 * to the start of the window). */
void sy_etm_feed_skip(struct etm_feed *f);

/* The trace ID current at window offset @pos (a frame boundary), -1 when no
 * frame named one yet: frames name their source only when it changes. */
int sy_etm_feed_frame_id_at(const struct etm_feed *f, uint64_t pos);

#endif
