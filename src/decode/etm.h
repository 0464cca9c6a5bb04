/* Knobs and counters of the ETM backend for tests and benchmarks.
 *
 * Not part of include/: the product never needs them.  They let the unit
 * tests force OpenCSD's OCSD_RESP_WAIT path with a tiny item ring and let
 * the benchmark measure what the code cache in front of read_mem buys.
 * Every function returns -SY_E_INVALID when @d is not an ETM decoder.
 */
#ifndef SY_ETM_H
#define SY_ETM_H

#include <stddef.h>
#include <stdint.h>

#include "etm_debug.h"
#include "sy_decode.h"

/* Default number of items the ring holds before the element callback asks
 * OpenCSD to wait. */
#define SY_ETM_RING_DEFAULT 1024

/* Items in the ring before OCSD_RESP_WAIT (>= 1; takes effect at the next
 * reset).  Returns 0 or -SY_E_INVALID. */
int sy_etm_set_ring(struct sy_decoder *d, size_t items);

/* Turns the code cache in front of read_mem on (the default) or off.
 * Takes effect at the next reset.  Returns 0 or -SY_E_INVALID. */
int sy_etm_set_mem_cache(struct sy_decoder *d, int on);

/* Makes @d decode the next window as a decoder just allocated with the
 * same params and knobs would.  A reset is not that: OpenCSD 1.3.3's
 * decoder keeps the instruction address, the return stack and its
 * elements' context across OCSD_OP_RESET, and the fast path's walk keeps
 * them as it does (etm_walk.c).  So OpenCSD's trees are built anew and
 * the walks forget; the buffers and caches are kept (the fuzz targets
 * renew a decoder instead of making a new one: a new one's caches cost
 * more than most windows).  Call sy_decoder_reset() next.  Returns 0,
 * -SY_E_INVALID when @d is not an ETM decoder, -SY_E_NOMEM or
 * -SY_E_DECODE; after a failure only sy_decoder_free() may be called. */
int sy_etm_renew(struct sy_decoder *d);

/* Counters since the last reset, or NULL when @d is not an ETM decoder. */
const struct sy_etm_debug *sy_etm_debug(const struct sy_decoder *d);

#endif
