/* Guard against OpenCSD 1.3.3 crashing on speculation packets.
 *
 * Two packet sequences make the 1.3.3 decoder touch invalid memory (both
 * found by tests/fuzz/fuzz_etm_decode.c, both reproduced with the C API
 * alone):
 *
 * 1. A Commit packet while an Exception packet still waits for its
 *    address packet: TrcPktDecodeEtmV4I::processException() pops the
 *    exception element (and a context element) and reads the next one
 *    without checking that the stack has one.  The architecture puts the
 *    address right after the exception, so this is never valid trace.
 *
 * 2. TrcPktDecodeEtmV4I::mispredictAtom() walks the P0 element stack from
 * the newest element to the first atom and erases every address element
 * on the way with EtmV4P0Stack::erase_curr_from_front(), which in 1.3.3
 * leaves the walk's iterator dangling (and leaks the element).  So a
 * Mispredict packet, or a Cancel with a mispredict (Cancel F1-mispred,
 * F2, F3), after an address packet that no atom followed, makes OpenCSD
 * read freed or invalid memory.  OpenCSD fixed the function after 1.3.3.
 *
 * No option of 1.3.3 turns the speculation packets off, so the decoder
 * must never see such a packet.
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
 * The rule is conservative: it only asks whether an address packet came
 * since the last atom, not whether its element is still uncommitted.  An
 * exception's own address packet does not count (it is committed with
 * the exception) when the trace unit does not speculate.  A-Sync and Trace Info do not clear it: a synchronised
 * decoder keeps its element stack across them (the first version of this
 * guard assumed otherwise, and the fuzzer found the crash again).  With
 * TRCIDR8.MAXSPEC == 0 every such packet is invalid anyway; with
 * speculation a rare valid sequence is cut, rather than crashing the
 * process.  The scan costs one packet parse of the window (a fraction of
 * the decode, see bench/b_etm_decode.sh).
 */
#include <stdlib.h>
#include <string.h>

#include "etm_guard.h"
#include "etm_ocsd.h"

static void add_cut(struct etm_guard *g, uint8_t id, uint64_t off)
{
	/* A full list only delays: the remaining packets are found again
	 * when the guard rescans after the first cut. */
	if (g->ncut == ETM_GUARD_CUTS)
		return;
	g->cut[g->ncut] = off;
	g->cut_id[g->ncut] = id;
	g->ncut++;
}

static int is_atom(int t)
{
	return t == ETM4_PKT_I_ATOM_F1 || t == ETM4_PKT_I_ATOM_F2 ||
	       t == ETM4_PKT_I_ATOM_F3 || t == ETM4_PKT_I_ATOM_F4 ||
	       t == ETM4_PKT_I_ATOM_F5 || t == ETM4_PKT_I_ATOM_F6;
}

/* Packets that push an address element (ETMv4 addresses, with or without
 * context; ETE source addresses push another kind). */
static int is_addr(int t)
{
	switch (t) {
	case ETM4_PKT_I_ADDR_CTXT_L_32IS0: case ETM4_PKT_I_ADDR_CTXT_L_32IS1:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS0: case ETM4_PKT_I_ADDR_CTXT_L_64IS1:
	case ETM4_PKT_I_ADDR_MATCH: case ETM4_PKT_I_ADDR_S_IS0:
	case ETM4_PKT_I_ADDR_S_IS1: case ETM4_PKT_I_ADDR_L_32IS0:
	case ETM4_PKT_I_ADDR_L_32IS1: case ETM4_PKT_I_ADDR_L_64IS0:
	case ETM4_PKT_I_ADDR_L_64IS1:
		return 1;
	default:
		return 0;
	}
}

static int is_src_addr(int t)
{
	return t >= ETE_PKT_I_SRC_ADDR_MATCH && t <= ETE_PKT_I_SRC_ADDR_L_64IS1;
}

static int is_mispredict(int t)
{
	return t == ETM4_PKT_I_MISPREDICT || t == ETM4_PKT_I_CANCEL_F1_MISPRED ||
	       t == ETM4_PKT_I_CANCEL_F2 || t == ETM4_PKT_I_CANCEL_F3;
}

/* A unit without speculation: the stack empties at every atom. */
static int verdict_plain(struct etm_guard_state *g, int t)
{
	if (is_atom(t)) {
		g->addr_pending = g->after_exc = 0;
	} else if (t == ETM4_PKT_I_EXCEPT) {
		g->after_exc = 1;
	} else if (is_addr(t) || is_src_addr(t)) {
		if (g->after_exc)
			g->after_exc = 0;
		else
			g->addr_pending = 1;
	} else if (t == ETM4_PKT_I_COMMIT ? g->after_exc
		   : is_mispredict(t) && g->addr_pending) {
		g->addr_pending = g->after_exc = 0;
		return 1;
	}
	return 0;
}

/* A unit that speculates: elements stay on the stack across atoms, but
 * mispredictAtom() only walks the elements newer than the newest atom,
 * and erasing the newest one is safe; it crashes on an address element
 * that a newer element buries. */
static int verdict_spec(struct etm_guard_state *g, const ocsd_etmv4_i_pkt *k)
{
	int t = (int)k->type;

	if (t == ETM4_PKT_I_EXCEPT)
		g->after_exc = 1;
	else if (is_addr(t) || is_src_addr(t))
		g->after_exc = 0;
	if (t == ETM4_PKT_I_COMMIT && g->after_exc) {
		g->after_exc = 0;
		return 1;
	}
	if (is_mispredict(t)) {
		/* A cancel goes first and may remove the newest atoms,
		 * exposing older elements: cut every one. */
		if (t != ETM4_PKT_I_MISPREDICT) {
			g->addr_seen = g->addr_buried = 0;
			return 1;
		}
		/* atoms of its own stop the walk at once */
		if (g->addr_buried && !k->atom.num) {
			g->addr_seen = g->addr_buried = 0;
			return 1;
		}
		if (k->atom.num)
			g->addr_seen = g->addr_buried = 0;
		return 0;
	}
	switch (t) {
	case ETM4_PKT_I_ASYNC: case ETM4_PKT_I_TRACE_INFO:
	case ETM4_PKT_I_IGNORE: case ETM4_PKT_I_COMMIT:
	case ETM4_PKT_I_CANCEL_F1:
		break;
	case ETM4_PKT_I_OVERFLOW: case ETM4_PKT_I_DISCARD:
	case ETM4_PKT_I_BAD_SEQUENCE: case ETM4_PKT_I_BAD_TRACEMODE:
	case ETM4_PKT_I_RESERVED: case ETM4_PKT_I_RESERVED_CFG:
		g->addr_seen = g->addr_buried = 0;	/* the stack empties */
		break;
	default:
		if (is_atom(t)) {
			g->addr_seen = g->addr_buried = 0;
		} else if (is_addr(t)) {
			g->addr_seen = 1;
		} else if (g->addr_seen) {
			g->addr_buried = 1;
		}
		break;
	}
	return 0;
}

int etm_guard_verdict(struct etm_guard_state *g, const ocsd_etmv4_i_pkt *k,
		      int spec)
{
	return spec ? verdict_spec(g, k) : verdict_plain(g, (int)k->type);
}

static ocsd_datapath_resp_t pkt_sink(const void *ctx,
				     const ocsd_datapath_op_t op,
				     const ocsd_trc_index_t idx,
				     const void *pkt)
{
	struct etm_guard_src *g = (struct etm_guard_src *)(uintptr_t)ctx;

	if (op == OCSD_OP_DATA && pkt &&
	    etm_guard_verdict(&g->st, pkt, g->spec))
		add_cut(g->g, g->id, etm_offset_of(g->g->pos, idx));
	return OCSD_RESP_CONT;
}

int etm_guard_init(struct etm_guard *g, int formatted,
		   const struct sy_etm_source *const *src, const uint8_t *id,
		   size_t n)
{
	g->dt = C_API_INVALID_TREE_HANDLE;
	g->nsrc = 0;
	g->src = calloc(n ? n : 1, sizeof(*g->src));
	if (!g->src)
		return -SY_E_NOMEM;
	g->dt = etm_ocsd_tree(formatted);
	if (g->dt == C_API_INVALID_TREE_HANDLE)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		g->src[i].g = g;
		g->src[i].id = id[i];
		g->src[i].spec = src[i]->trcidr8 != 0;
		if (etm_ocsd_add_pkt_proc(g->dt, src[i], id[i], pkt_sink,
					  &g->src[i]) != OCSD_OK)
			return -SY_E_DECODE;
		g->nsrc++;
	}
	return 0;
}

void etm_guard_fini(struct etm_guard *g)
{
	etm_ocsd_tree_free(&g->dt);
	free(g->src);
	g->src = NULL;
	g->nsrc = 0;
}

void etm_guard_reset(struct etm_guard *g, uint64_t pos)
{
	ocsd_dt_process_data(g->dt, OCSD_OP_RESET, 0, 0, NULL, NULL);
	for (size_t i = 0; i < g->nsrc; i++)
		memset(&g->src[i].st, 0, sizeof(g->src[i].st));
	g->pos = pos;
	g->ncut = 0;
}

void etm_guard_scan(struct etm_guard *g, const uint8_t *p, uint32_t n,
		    uint64_t off)
{
	while (n) {
		uint32_t used = 0;
		ocsd_datapath_resp_t r;

		g->pos = off;	/* index base for pkt_sink */
		r = ocsd_dt_process_data(g->dt, OCSD_OP_DATA,
					 (ocsd_trc_index_t)off, n, p, &used);
		if (used > n)
			used = n;
		if (OCSD_DATA_RESP_IS_FATAL(r) || !used) {
			/* The main tree will fail here too or soon after;
			 * cut so that both restart at the same byte. */
			add_cut(g, g->nsrc ? g->src[0].id : 0, off + used);
			break;
		}
		p += used;
		off += used;
		n -= used;
	}
	g->pos = off + n;
}
