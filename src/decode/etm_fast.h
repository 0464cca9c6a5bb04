/* The ETM fast path: OpenCSD parses packets (a tree of packet processors,
 * OCSD_CREATE_FLG_PACKET_PROC, no decoder), the walk (etm_walk.c) makes the
 * full decoder's elements of them over a block cache (etm_blocks.c), and
 * the converter makes items of those, as for the full decoder.
 *
 * Private to the ETM backend (etm.c), which owns the converter, the code
 * cache and the counters, and decodes a window with the full decoder
 * instead when f->why says this path gave it up. */
#ifndef SY_ETM_FAST_H
#define SY_ETM_FAST_H

#include <opencsd/c_api/opencsd_c_api.h>

#include "etm_blocks.h"
#include "etm_conv.h"
#include "etm_debug.h"
#include "etm_feed.h"
#include "etm_walk.h"

/* Fast-path span: a formatted window is given up a span at a time. */
#define ETM_FAST_SPAN 2048u

struct etm_fast {
	struct etm_conv *cv;
	struct sy_etm_debug *dbg;
	uint64_t *bytes;	/* trace bytes consumed, for the statistics */
	dcd_tree_handle_t dt;
	struct etm_feed feed;
	struct etm_blocks blocks;
	struct etm_runs runs;	/* over @blocks */
	struct etm_walk *walk;	/* one per source, as cv->src */
	/* a formatted span's start (span_mark): the flows of every source
	 * and where the output stood, restored when the walk gives the span
	 * up (etm_fast.c) */
	struct etm_src *mark_src;
	struct etm_conv_pos mark_pos;
	int eot_sent;
	int done;		/* every item is out */
	enum etm_why why;	/* gave the window up */
	uint64_t why_off;	/* ... at this window offset */
};

/* Builds the packet tree for the @n sources @src, whose flow states are
 * cv->src[0..n).  Returns 0, -SY_E_NOMEM or -SY_E_DECODE; on failure call
 * sy_etm_fast_fini(). */
int sy_etm_fast_init(struct etm_fast *f, struct etm_conv *cv,
		  struct sy_etm_debug *dbg, uint64_t *bytes, int formatted,
		  const struct sy_etm_source *const *src, size_t n);
void sy_etm_fast_fini(struct etm_fast *f);
/* Builds the packet tree anew and makes the walks as new, for the same
 * sources (see sy_etm_full_renew).  Returns 0, -SY_E_NOMEM or
 * -SY_E_DECODE; on failure call sy_etm_fast_fini(). */
int sy_etm_fast_renew(struct etm_fast *f,
		   const struct sy_etm_source *const *src, size_t n);

/* Starts the window @chunks (the caller resets the converter and clears the
 * code cache). */
void sy_etm_fast_reset(struct etm_fast *f, const struct sy_dec_chunk *chunks,
		    size_t nchunks);

/* One call into OpenCSD, or the end of the window (f->done); f->why when
 * the walk gave up. */
void sy_etm_fast_pump(struct etm_fast *f);

#endif
