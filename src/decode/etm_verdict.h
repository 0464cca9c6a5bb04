/* Which packets OpenCSD 1.3.3's decoder must never see (see etm_verdict.c),
 * from the packets alone.
 *
 * Private to the ETM backend: the full decoder's guard (etm_guard.c) cuts
 * such packets out of the stream, and the fast path's walk (etm_walk.c)
 * asks the same of the same packets to give the window up where the full
 * decoder would cut. */
#ifndef SY_ETM_VERDICT_H
#define SY_ETM_VERDICT_H

#include <opencsd/c_api/opencsd_c_api.h>
#include <stdint.h>

/* What the verdicts know of one source's element stack. */
struct etm_verdict {
	uint32_t max_spec;	/* TRCIDR8.MAXSPEC */
	uint8_t spec;		/* the trace unit speculates (MAXSPEC > 0) */
	uint8_t rs;		/* the return stack is on (TRCCONFIGR.RS) */
	uint8_t after_exc;	/* speculating unit: an exception waits for
				 * its address */
	uint8_t addr_seen;	/* speculating unit: an address element newer
				 * than the newest atom */
	uint8_t addr_buried;	/* ... and a newer element above it */
	uint8_t rs_risk;	/* a return stack pop may be pending */
};

/* For a source that speculates up to @max_spec elements (TRCIDR8.MAXSPEC)
 * and has its return stack on (@rs); also the reset. */
void sy_etm_verdict_init(struct etm_verdict *v, uint32_t max_spec, int rs);

/* 1 when OpenCSD 1.3.3 must not see packet @k, the next of the source.
 * Call for every packet (it follows the element stack). */
int sy_etm_verdict_packet(struct etm_verdict *v, const ocsd_etmv4_i_pkt *k);

/* With the return stack on: 1 when @k is an Exception packet whose commit
 * may find a return stack pop pending, for all the packets can tell (the
 * walk knows exactly; this is the rule when it cannot follow).  Call for
 * every packet after sy_etm_verdict_packet(). */
int sy_etm_verdict_rs(struct etm_verdict *v, const ocsd_etmv4_i_pkt *k);

#endif
