/* The CYC packets of an Intel PT window (params.u.pt.cyc): libipt's query
 * and block decoders consume them for their time estimate but hand no
 * count out, so the window's bytes are walked once more with libipt's
 * packet decoder for (offset, cycles) pairs, and sy_pt_next puts each
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

/* Lists the CYC packets of @cfg's bytes at or past @from, from the first
 * PSB on as the decoders read them, past bad packets the way they
 * resynchronise.  Returns 0 or -SY_E_NOMEM. */
int sy_pt_cyc_scan(struct sy_pt_cyc *c, const struct pt_config *cfg,
		   uint64_t from);
void sy_pt_cyc_clear(struct sy_pt_cyc *c);
void sy_pt_cyc_fini(struct sy_pt_cyc *c);

#endif
