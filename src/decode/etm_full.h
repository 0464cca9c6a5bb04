/* The full ETMv4 / ETE decode: OpenCSD's decoder follows every instruction
 * and its generic elements become items (etm_conv.c).
 *
 * Private to the ETM backend (etm.c), which owns the converter, the code
 * cache and the counters this decoder writes to. */
#ifndef SY_ETM_FULL_H
#define SY_ETM_FULL_H

#include <opencsd/c_api/opencsd_c_api.h>

#include "etm_debug.h"
#include "etm_conv.h"
#include "etm_feed.h"
#include "etm_guard.h"

struct etm_full {
	struct etm_conv *cv;
	struct sy_etm_debug *dbg;
	uint64_t *bytes;	/* trace bytes consumed, for the statistics */
	dcd_tree_handle_t dt;
	struct etm_guard guard;
	struct etm_feed feed;
	size_t soft;		/* WAIT once this many items are queued */
	int need_flush;		/* last response was WAIT */
	int stalls;		/* responses in a row that made no progress */
	int eot_sent;
	int done;		/* nothing more will be pushed */
};

/* Builds the decode and guard trees for the @n sources @src, whose trace
 * IDs and flow states are cv->src[0..n) in that order.  Returns 0,
 * -SY_E_NOMEM or -SY_E_DECODE (OpenCSD refuses the configuration); on
 * failure call sy_etm_full_fini(). */
int sy_etm_full_init(struct etm_full *f, struct etm_conv *cv,
		  struct sy_etm_debug *dbg, uint64_t *bytes, int formatted,
		  const struct sy_etm_source *const *src, size_t n);
void sy_etm_full_fini(struct etm_full *f);
/* Builds both trees anew, for the same sources: OpenCSD keeps state
 * across OCSD_OP_RESET (etm_walk.c says which), a new tree has none.
 * Returns 0, -SY_E_NOMEM or -SY_E_DECODE; on failure call
 * sy_etm_full_fini(). */
int sy_etm_full_renew(struct etm_full *f,
		   const struct sy_etm_source *const *src, size_t n);

/* Starts the window @chunks from its first byte.  The converter is reset
 * by the caller. */
void sy_etm_full_reset(struct etm_full *f, const struct sy_dec_chunk *chunks,
		    size_t nchunks, size_t soft);

/* One call into OpenCSD, or the end of the window (f->done). */
void sy_etm_full_pump(struct etm_full *f);

#endif
