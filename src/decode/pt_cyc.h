/* The CYC packets of an Intel PT window (params.u.pt.cyc): libipt's query
 * and block decoders consume them for their time estimate but hand no
 * count out, so the window's bytes are walked once more with libipt's
 * packet decoder (the walk that also lists the TIP.PGE packets before
 * report_from) for (offset, cycles) pairs, and sy_pt_next puts each
 * out as a SY_DEC_CYCLES item before the first item whose packet comes
 * after it.  Both decoders' items carry the same offsets, so the fast
 * path and the block decoder give the same counts in the same places. */
#ifndef SY_PT_CYC_H
#define SY_PT_CYC_H

#include <stddef.h>
#include <stdint.h>

struct pt_config;

struct sy_pt_cyc_at {
	uint64_t off;		/* the CYC packet's offset in the window */
	uint64_t cycles;	/* its payload: cycles since the last CYC */
};

struct sy_pt_cyc {
	struct sy_pt_cyc_at *v;
	size_t n, cap;
	size_t next;		/* the first not handed out yet */
};

/* Appends the CYC packet at @off.  Returns 0 or -SY_E_NOMEM. */
int sy_pt_cyc_add(struct sy_pt_cyc *c, uint64_t off, uint64_t cycles);

/* Walks the packets of @cfg's bytes with libipt's packet decoder, from
 * the first PSB on as the decoders read them, past bad packets the way
 * they resynchronise: @fn(@ctx, offset, packet) for each, which returns 0
 * to go on, 1 to stop, or a negative error code.  Returns 0 or that
 * error (-SY_E_NOMEM when no decoder could be made).  One walk serves the
 * reset's lists (the TIP.PGE packets before report_from, pt.c; the CYC
 * packets after it). */
struct pt_packet;
typedef int (*sy_pt_pkt_fn)(void *ctx, uint64_t off,
			    const struct pt_packet *pkt);
int sy_pt_pkt_walk(const struct pt_config *cfg, sy_pt_pkt_fn fn, void *ctx);
void sy_pt_cyc_clear(struct sy_pt_cyc *c);
void sy_pt_cyc_fini(struct sy_pt_cyc *c);

#endif
