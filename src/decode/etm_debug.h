/* Counters of the ETM backend (src/decode/etm*.c), for tests and
 * benchmarks through sy_etm_debug() (etm.h).  Each part of the backend adds
 * to its own fields; the backend clears them at every reset. */
#ifndef SY_ETM_DEBUG_H
#define SY_ETM_DEBUG_H

#include <stdint.h>

struct sy_etm_debug {
	uint64_t waits;		/* OCSD_RESP_WAIT returned by our callback */
	uint64_t flushes;	/* OCSD_OP_FLUSH sent */
	uint64_t data_calls;	/* OCSD_OP_DATA sent to the full decoder */
	uint64_t ring_grows;	/* ring enlarged because OpenCSD kept going */
	uint64_t fatal;		/* fatal responses (tree reset and resumed) */
	uint64_t cuts;		/* packets kept from OpenCSD (etm_guard.c) */
	uint64_t mem_calls;	/* read_mem calls (misses when cached) */
	uint64_t mem_reqs;	/* OpenCSD memory requests */
	/* the fast path (etm_fast.c) */
	uint64_t packets;	/* packets it walked (windows it finished) */
	uint64_t blocks;	/* blocks classified (block cache misses) */
	uint64_t fallbacks;	/* windows it gave up to the full decoder */
	uint32_t fallback_why;	/* enum etm_why of the last one (etm_walk.h) */
	uint64_t fallback_off;	/* ... at this window offset */
};

#endif
