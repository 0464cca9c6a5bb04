/* Guard against OpenCSD 1.3.3 crashing on some packet sequences
 * (etm_verdict.c says which and why).
 *
 * Only OpenCSD knows where packets start, so a second tree with packet
 * processors only (no decoders, no memory) reads every byte first, one
 * feed ahead of the main tree, and records where such packets sit.  The
 * main tree is fed up to that point, then both trees are reset and fed
 * on after the packet (raw) or its frame (formatted data): the decoder
 * resynchronises at the next A-Sync, as after any bad packet, and the
 * loss becomes an ERROR item.  The C API has no packet callbacks for ETE
 * decoders; an ETMv4 packet processor with ETE's version parses ETE
 * streams packet for packet the same (etm_ocsd.c).
 *
 * A source with the return stack on and no speculation also has a walk
 * of its packets (etm_walk.c, the fast path's, its elements dropped): it
 * knows whether an exception would pop an empty return stack, and says so
 * as the fast path's walk does, so both decoders cut the same packets.
 * Once it cannot follow (a packet or code it does not model) the packet
 * rule (sy_etm_verdict_rs) decides for the rest of the scan; the fast path
 * gave the window up at the same packet.  The scan costs one packet parse
 * of the window (a fraction of the decode, see bench/b_etm_decode.sh), and
 * the walk where there is one.
 */
#include <stdlib.h>
#include <string.h>

#include "etm_guard.h"
#include "etm_ocsd.h"

static void add_cut(struct etm_guard *g, uint8_t id, uint64_t off,
		    uint32_t code)
{
	/* A full list only delays: the remaining packets are found again
	 * when the guard rescans after the first cut. */
	if (g->ncut == ETM_GUARD_CUTS)
		return;
	g->cut[g->ncut] = off;
	g->cut_id[g->ncut] = id;
	g->cut_code[g->ncut] = code;
	g->ncut++;
}

/* The shadow walks' elements are not wanted. */
static void drop(void *ctx, struct etm_src *src, uint64_t off,
		 const struct etm_elem *e)
{
	(void)ctx;
	(void)src;
	(void)off;
	(void)e;
}

/* Whether OpenCSD must not see packet @k of source @s; *@code: the
 * ERROR item's. */
static int verdict(struct etm_guard_src *s, ocsd_trc_index_t idx,
		   const ocsd_etmv4_i_pkt *k, uint32_t *code)
{
	int cut = sy_etm_verdict_packet(&s->v, k);
	int risk = sy_etm_verdict_rs(&s->v, k);
	enum etm_why why;

	if (cut || !s->has_shadow || s->shadow.why)
		return cut || risk;
	why = sy_etm_walk_op(&s->shadow, OCSD_OP_DATA, idx, k);
	if (why == ETM_WHY_DISAGREE)
		*code = SY_DEC_ERR_PATH;
	if (why == ETM_WHY_GUARD || why == ETM_WHY_DISAGREE)
		return 1;
	/* the walk gave up: the packet rule from here on */
	return why ? risk : 0;
}

static ocsd_datapath_resp_t pkt_sink(const void *ctx,
				     const ocsd_datapath_op_t op,
				     const ocsd_trc_index_t idx,
				     const void *pkt)
{
	struct etm_guard_src *s = (struct etm_guard_src *)(uintptr_t)ctx;
	uint32_t code = OCSD_ERR_BAD_PACKET_SEQ;

	if (op == OCSD_OP_DATA && pkt && verdict(s, idx, pkt, &code)) {
		add_cut(s->g, s->id, etm_offset_of(s->g->pos, idx), code);
		/* The scan stops at the first cut (sy_etm_guard_scan). */
		return OCSD_RESP_WAIT;
	}
	return OCSD_RESP_CONT;
}

/* The packet tree of the sources g->src, configured as @src. */
static int build_tree(struct etm_guard *g,
		      const struct sy_etm_source *const *src)
{
	g->dt = sy_etm_ocsd_tree(g->formatted);
	if (g->dt == C_API_INVALID_TREE_HANDLE)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < g->nsrc; i++)
		if (sy_etm_ocsd_add_pkt_proc(g->dt, src[i], g->src[i].id,
					  pkt_sink, &g->src[i]) != OCSD_OK)
			return -SY_E_DECODE;
	return 0;
}

int sy_etm_guard_init(struct etm_guard *g, struct etm_conv *cv, int formatted,
		   const struct sy_etm_source *const *src)
{
	int err;

	g->dt = C_API_INVALID_TREE_HANDLE;
	g->formatted = formatted;
	g->nsrc = 0;
	memset(&g->blocks, 0, sizeof(g->blocks));
	g->src = calloc(cv->nsrc ? cv->nsrc : 1, sizeof(*g->src));
	if (!g->src)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < cv->nsrc; i++) {
		struct etm_guard_src *s = &g->src[i];
		struct etm_walk_cfg wc;
		ocsd_etmv4_cfg c;

		s->g = g;
		s->id = cv->src[i].id;
		sy_etm_ocsd_decoder_cfg(src[i], s->id, &c);
		sy_etm_walk_cfg_from(&wc, &c);
		sy_etm_verdict_init(&s->v, wc.max_spec, wc.ret_stack);
		s->has_shadow = !wc.max_spec;
		sy_etm_walk_init(&s->shadow, &cv->src[i], drop, NULL, &g->blocks,
			      &g->pos, cv->ctxid, &wc);
		g->nsrc++;
		if (s->has_shadow && !g->blocks.v &&
		    (err = sy_etm_blocks_init(&g->blocks, cv->code)) < 0)
			return err;
	}
	return build_tree(g, src);
}

int sy_etm_guard_renew(struct etm_guard *g,
		    const struct sy_etm_source *const *src)
{
	sy_etm_ocsd_tree_free(&g->dt);
	for (size_t i = 0; i < g->nsrc; i++)
		sy_etm_walk_renew(&g->src[i].shadow);
	return build_tree(g, src);
}

void sy_etm_guard_fini(struct etm_guard *g)
{
	sy_etm_ocsd_tree_free(&g->dt);
	for (size_t i = 0; g->src && i < g->nsrc; i++)
		sy_etm_walk_fini(&g->src[i].shadow);
	free(g->src);
	g->src = NULL;
	g->nsrc = 0;
	sy_etm_blocks_fini(&g->blocks);
}

void sy_etm_guard_reset(struct etm_guard *g, uint64_t pos)
{
	ocsd_dt_process_data(g->dt, OCSD_OP_RESET, 0, 0, NULL, NULL);
	for (size_t i = 0; i < g->nsrc; i++) {
		struct etm_guard_src *s = &g->src[i];

		sy_etm_verdict_init(&s->v, s->v.max_spec, s->v.rs);
		sy_etm_walk_op(&s->shadow, OCSD_OP_RESET, 0, NULL);
	}
	if (!pos && g->blocks.v)
		sy_etm_blocks_clear(&g->blocks);	/* a new window */
	g->pos = pos;
	g->ncut = 0;
}

/* Only the first cut is ever used: the main tree is fed up to it, then
 * both trees restart after it and the guard, reset, scans again from
 * there (etm_full.c).  So the scan stops at the first cut, the packet
 * sink asking OpenCSD to wait, and scans nothing more until that reset:
 * what it would find is forgotten unused (a window's later cuts cost a
 * scan of the rest of the window each, quadratic in the cuts of a
 * damaged window).  g->pos stays where the scan stopped. */
void sy_etm_guard_scan(struct etm_guard *g, const uint8_t *p, uint32_t n,
		    uint64_t off)
{
	if (g->ncut)
		return;
	while (n) {
		uint32_t used = 0;
		ocsd_datapath_resp_t r;

		g->pos = off;	/* index base for pkt_sink */
		r = ocsd_dt_process_data(g->dt, OCSD_OP_DATA,
					 (ocsd_trc_index_t)off, n, p, &used);
		if (used > n)
			used = n;
		if (g->ncut) {
			g->pos = off + used;
			return;
		}
		if (OCSD_DATA_RESP_IS_FATAL(r) || !used) {
			/* The main tree will fail here too or soon after;
			 * cut so that both restart at the same byte. */
			add_cut(g, g->nsrc ? g->src[0].id : 0, off + used,
				OCSD_ERR_BAD_PACKET_SEQ);
			break;
		}
		p += used;
		off += used;
		n -= used;
	}
	g->pos = off + n;
}
