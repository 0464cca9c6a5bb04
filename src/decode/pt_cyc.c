/* The CYC packets of an Intel PT window, and the packet walk that finds
 * them; see pt_cyc.h. */
#include "pt_cyc.h"

#include <intel-pt.h>
#include <stdlib.h>

#include "sy_error.h"
#include "sy_vec.h"

int sy_pt_cyc_add(struct sy_pt_cyc *c, uint64_t off, uint64_t cycles)
{
	if (sy_grow((void **)&c->v, &c->cap, c->n, sizeof(*c->v)))
		return -SY_E_NOMEM;
	c->v[c->n].off = off;
	c->v[c->n].cycles = cycles;
	c->n++;
	return 0;
}

int sy_pt_pkt_walk(const struct pt_config *cfg, sy_pt_pkt_fn fn, void *ctx)
{
	struct pt_packet_decoder *pd;
	struct pt_packet pkt;
	uint64_t off;
	int st, r = 0;

	pd = pt_pkt_alloc_decoder(cfg);
	if (!pd)
		return -SY_E_NOMEM;
	for (st = pt_pkt_sync_forward(pd); st >= 0 && !r;) {
		if (pt_pkt_get_offset(pd, &off) < 0)
			break;
		st = pt_pkt_next(pd, &pkt, sizeof(pkt));
		if (st < 0) {
			if (st == -pte_eos)
				break;
			/* what the decoders do after a bad packet */
			st = pt_pkt_sync_forward(pd);
			continue;
		}
		r = fn(ctx, off, &pkt);
	}
	pt_pkt_free_decoder(pd);
	return r < 0 ? r : 0;
}

void sy_pt_cyc_clear(struct sy_pt_cyc *c)
{
	c->n = 0;
	c->next = 0;
}

void sy_pt_cyc_fini(struct sy_pt_cyc *c)
{
	if (!c)
		return;
	free(c->v);
	c->v = NULL;
	c->n = c->cap = c->next = 0;
}
