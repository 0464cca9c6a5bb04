/* Guard against OpenCSD 1.3.3 crashing on speculation packets (see
 * etm_guard.c).
 *
 * Private to the full decoder (etm_full.c): a packet-processor-only tree
 * that sees every byte one feed ahead of the decode tree and records where
 * the packets OpenCSD 1.3.3 would crash on sit. */
#ifndef SY_ETM_GUARD_H
#define SY_ETM_GUARD_H

#include <opencsd/c_api/opencsd_c_api.h>
#include <stddef.h>
#include <stdint.h>

#include "sy_decode.h"

#define ETM_GUARD_CUTS 64

/* What the guard knows of one source's element stack. */
struct etm_guard_state {
	uint8_t addr_pending;	/* an address packet since the last atom */
	uint8_t after_exc;	/* an exception waits for its address */
	uint8_t addr_seen;	/* speculating unit: an address element newer
				 * than the newest atom */
	uint8_t addr_buried;	/* ... and a newer element above it */
};

/* The guard's verdict on packet @k of a source (@spec: its trace unit
 * speculates): 1 when OpenCSD 1.3.3 must not see it.  The fast path asks
 * the same for the same packets (etm_walk.c). */
int etm_guard_verdict(struct etm_guard_state *g, const ocsd_etmv4_i_pkt *k,
		      int spec);

/* Per-source state of the packet scan. */
struct etm_guard_src {
	struct etm_guard *g;
	uint8_t id;
	uint8_t spec;		/* TRCIDR8.MAXSPEC > 0 */
	struct etm_guard_state st;
};

struct etm_guard {
	dcd_tree_handle_t dt;
	struct etm_guard_src *src;
	size_t nsrc;
	uint64_t pos;		/* bytes [0, pos) scanned */
	/* window offsets of the packets to keep from OpenCSD, ascending,
	 * and the trace IDs they belong to */
	uint64_t cut[ETM_GUARD_CUTS];
	uint8_t cut_id[ETM_GUARD_CUTS];
	size_t ncut;
};

/* Builds the guard tree for the @n sources @src with trace IDs @id.  Call
 * under etm_ocsd_lock(), as etm_guard_fini().  Returns 0, -SY_E_NOMEM or
 * -SY_E_DECODE. */
int etm_guard_init(struct etm_guard *g, int formatted,
		   const struct sy_etm_source *const *src, const uint8_t *id,
		   size_t n);
void etm_guard_fini(struct etm_guard *g);
/* Forgets the scan: the guard restarts at window offset @pos. */
void etm_guard_reset(struct etm_guard *g, uint64_t pos);
/* Scans the @n bytes at @p, window offset @off (== g->pos). */
void etm_guard_scan(struct etm_guard *g, const uint8_t *p, uint32_t n,
		    uint64_t off);

#endif
