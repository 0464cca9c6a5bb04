/* Guard against OpenCSD 1.3.3 crashing on some packet sequences (see
 * etm_verdict.c and etm_guard.c).
 *
 * Private to the full decoder (etm_full.c): a packet-processor-only tree
 * that sees every byte one feed ahead of the decode tree and records where
 * the packets OpenCSD 1.3.3 would crash on sit. */
#ifndef SY_ETM_GUARD_H
#define SY_ETM_GUARD_H

#include <opencsd/c_api/opencsd_c_api.h>
#include <stddef.h>
#include <stdint.h>

#include "etm_blocks.h"
#include "etm_conv.h"
#include "etm_verdict.h"
#include "etm_walk.h"
#include "sy_decode.h"

#define ETM_GUARD_CUTS 64

/* Per-source state of the packet scan. */
struct etm_guard_src {
	struct etm_guard *g;
	uint8_t id;
	struct etm_verdict v;
	/* no speculation: a walk of the same packets (etm_walk.c) says
	 * where the trace contradicts the code (etm_agree.h) and, with the
	 * return stack on, which exceptions would pop an empty return stack;
	 * while it follows (!shadow.why) */
	uint8_t has_shadow;
	struct etm_walk shadow;
};

struct etm_guard {
	dcd_tree_handle_t dt;
	int formatted;
	struct etm_guard_src *src;
	size_t nsrc;
	struct etm_blocks blocks;	/* the shadow walks' */
	uint64_t pos;		/* bytes [0, pos) scanned */
	/* window offsets of the packets to keep from OpenCSD, ascending,
	 * and the trace IDs they belong to */
	uint64_t cut[ETM_GUARD_CUTS];
	uint8_t cut_id[ETM_GUARD_CUTS];
	/* the ERROR item's code: OCSD_ERR_BAD_PACKET_SEQ, or
	 * SY_DEC_ERR_PATH where the trace contradicts the code */
	uint32_t cut_code[ETM_GUARD_CUTS];
	size_t ncut;
};

/* Builds the guard tree for the sources @src of the converter @cv (the
 * trace IDs, and the code the shadow walks read).  Call under
 * sy_etm_ocsd_lock(), as sy_etm_guard_fini().  Returns 0, -SY_E_NOMEM or
 * -SY_E_DECODE. */
int sy_etm_guard_init(struct etm_guard *g, struct etm_conv *cv, int formatted,
		   const struct sy_etm_source *const *src);
void sy_etm_guard_fini(struct etm_guard *g);
/* Builds the tree anew and makes the shadow walks as new, for the same
 * sources (under sy_etm_ocsd_lock(); see sy_etm_full_renew).  Returns 0,
 * -SY_E_NOMEM or -SY_E_DECODE; on failure call sy_etm_guard_fini(). */
int sy_etm_guard_renew(struct etm_guard *g,
		    const struct sy_etm_source *const *src);
/* Forgets the scan: the guard restarts at window offset @pos. */
void sy_etm_guard_reset(struct etm_guard *g, uint64_t pos);
/* Scans the @n bytes at @p, window offset @off (== g->pos). */
void sy_etm_guard_scan(struct etm_guard *g, const uint8_t *p, uint32_t n,
		    uint64_t off);

#endif
