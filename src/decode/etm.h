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

/* Counters since the last reset, or NULL when @d is not an ETM decoder. */
const struct sy_etm_debug *sy_etm_debug(const struct sy_decoder *d);

#endif
