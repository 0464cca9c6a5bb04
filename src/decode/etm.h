/* Knobs and counters of the ETM backend for tests and benchmarks.
 *
 * Not part of include/: the product never needs them.  They let the unit
 * tests force OpenCSD's OCSD_RESP_WAIT path with a tiny item ring and let
 * the benchmark measure what the code-page cache in front of read_mem buys.
 * Every function returns -SY_E_INVALID when @d is not an ETM decoder.
 */
#ifndef SY_ETM_H
#define SY_ETM_H

#include <stddef.h>
#include <stdint.h>

#include "sy_decode.h"

/* Default number of items the ring holds before the element callback asks
 * OpenCSD to wait. */
#define SY_ETM_RING_DEFAULT 1024

struct sy_etm_debug {
	uint64_t waits;		/* OCSD_RESP_WAIT returned by our callback */
	uint64_t flushes;	/* OCSD_OP_FLUSH sent */
	uint64_t data_calls;	/* OCSD_OP_DATA sent */
	uint64_t ring_grows;	/* ring enlarged because OpenCSD kept going */
	uint64_t fatal;		/* fatal responses (tree reset and resumed) */
	uint64_t cuts;		/* packets kept from OpenCSD (etm_guard.c) */
	uint64_t mem_calls;	/* read_mem calls (misses when cached) */
	uint64_t mem_reqs;	/* OpenCSD memory requests */
};

/* Items in the ring before OCSD_RESP_WAIT (>= 1; takes effect at the next
 * reset).  Returns 0 or -SY_E_INVALID. */
int sy_etm_set_ring(struct sy_decoder *d, size_t items);

/* Turns the code-page cache in front of read_mem on (the default) or off.
 * Takes effect at the next reset.  Returns 0 or -SY_E_INVALID. */
int sy_etm_set_mem_cache(struct sy_decoder *d, int on);

/* Counters since the last reset, or NULL when @d is not an ETM decoder. */
const struct sy_etm_debug *sy_etm_debug(const struct sy_decoder *d);

/* ---- code-page cache, shared with the benchmark's floor ----
 *
 * OpenCSD 1.3.3 keeps its own 12 x 256-byte cache and asks the memory
 * callback for 256 bytes at a time; every miss of it is one read_mem call,
 * which in the product walks the process's mappings.  This cache keeps 16
 * whole 4 KiB pages per decoder, keyed by page and context ID, so a loop
 * body costs one read_mem per window instead of one per 256 bytes. */
#define SY_ETM_PAGE 4096u
#define SY_ETM_PAGES 16u

struct sy_etm_page {
	uint64_t base;		/* page address */
	uint32_t ctxid;
	uint16_t lo, hi;	/* bytes [lo, hi) of the page are valid */
	uint8_t valid;
	uint8_t data[SY_ETM_PAGE];
};

#define SY_ETM_DEAD 256u

struct sy_etm_mcache {
	sy_read_mem_fn read_mem;
	void *mem_ctx;
	uint64_t calls;		/* read_mem calls */
	/* Pages whose first byte is not mapped (page | 1, 0 = empty): a
	 * traced kernel without its image asks for thousands of addresses
	 * in a few hundred such pages. */
	uint64_t dead[SY_ETM_DEAD];
	uint32_t dead_ctx[SY_ETM_DEAD];
	struct sy_etm_page page[SY_ETM_PAGES];
};

/* Binds the cache to @read_mem and empties it. */
void sy_etm_mcache_init(struct sy_etm_mcache *c, sy_read_mem_fn read_mem,
			void *mem_ctx);
/* Forgets every page (new window: the mappings may have changed). */
void sy_etm_mcache_clear(struct sy_etm_mcache *c);
/* Reads up to @len bytes at @addr of @ctxid through the cache; returns the
 * bytes read (contiguous from @addr), 0 when nothing is mapped there. */
size_t sy_etm_mcache_read(struct sy_etm_mcache *c, uint32_t ctxid,
			  uint64_t addr, uint8_t *buf, size_t len);

#endif
