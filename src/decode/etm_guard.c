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
 * decoders; an ETMv4 packet processor given the ETE's TRCIDR1 (ARCHMAJ
 * 0b1111 or >= 5) parses ETE streams packet for packet the same (checked
 * against trc_pkt_lister's listings of the ETE snapshots).
 *
 * The rule is conservative: it only asks whether an address packet came
 * since the last atom, not whether its element is still uncommitted.  An
 * exception's own address packet does not count (it is committed with
 * the exception).  A-Sync and Trace Info do not clear it: a synchronised
 * decoder keeps its element stack across them (the first version of this
 * guard assumed otherwise, and the fuzzer found the crash again).  With
 * TRCIDR8.MAXSPEC == 0 every such packet is invalid anyway; with
 * speculation a rare valid sequence is cut, rather than crashing the
 * process.  The scan costs one packet parse of the window (a fraction of
 * the decode, see bench/b_etm_decode.sh).
 */
#include <stdlib.h>
#include <string.h>

#include "etm_impl.h"

/* Nothing in ocsd_if_types.h names the ETE version field; TRCIDR1
 * ARCHMAJ, bits 11:8. */
#define TRCIDR1_ARCHMAJ(v) (((v) >> 8) & 0xfu)

static void add_cut(struct etm *e, uint8_t id, uint64_t off)
{
	/* A full list only delays: the remaining packets are found again
	 * when the guard rescans after the first cut. */
	if (e->ncut == ETM_GUARD_CUTS)
		return;
	e->cut[e->ncut] = off;
	e->cut_id[e->ncut] = id;
	e->ncut++;
}

static ocsd_datapath_resp_t pkt_sink(const void *ctx,
				     const ocsd_datapath_op_t op,
				     const ocsd_trc_index_t idx,
				     const void *pkt)
{
	struct etm_guard_src *g = (struct etm_guard_src *)(uintptr_t)ctx;
	const ocsd_etmv4_i_pkt *k = pkt;
	struct etm *e = g->e;
	uint64_t off;
	int32_t delta;

	if (op != OCSD_OP_DATA || !k)
		return OCSD_RESP_CONT;
	switch ((int)k->type) {
	case ETM4_PKT_I_ATOM_F1:
	case ETM4_PKT_I_ATOM_F2:
	case ETM4_PKT_I_ATOM_F3:
	case ETM4_PKT_I_ATOM_F4:
	case ETM4_PKT_I_ATOM_F5:
	case ETM4_PKT_I_ATOM_F6:
		g->addr_pending = 0;
		g->after_exc = 0;
		break;
	case ETM4_PKT_I_EXCEPT:
		g->after_exc = 1;
		break;
	case ETM4_PKT_I_ADDR_CTXT_L_32IS0:
	case ETM4_PKT_I_ADDR_CTXT_L_32IS1:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS0:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS1:
	case ETM4_PKT_I_ADDR_MATCH:
	case ETM4_PKT_I_ADDR_S_IS0:
	case ETM4_PKT_I_ADDR_S_IS1:
	case ETM4_PKT_I_ADDR_L_32IS0:
	case ETM4_PKT_I_ADDR_L_32IS1:
	case ETM4_PKT_I_ADDR_L_64IS0:
	case ETM4_PKT_I_ADDR_L_64IS1:
	case ETE_PKT_I_SRC_ADDR_MATCH:
	case ETE_PKT_I_SRC_ADDR_S_IS0:
	case ETE_PKT_I_SRC_ADDR_S_IS1:
	case ETE_PKT_I_SRC_ADDR_L_32IS0:
	case ETE_PKT_I_SRC_ADDR_L_32IS1:
	case ETE_PKT_I_SRC_ADDR_L_64IS0:
	case ETE_PKT_I_SRC_ADDR_L_64IS1:
		if (g->after_exc)
			g->after_exc = 0;
		else
			g->addr_pending = 1;
		break;
	case ETM4_PKT_I_COMMIT:
	case ETM4_PKT_I_MISPREDICT:
	case ETM4_PKT_I_CANCEL_F1_MISPRED:
	case ETM4_PKT_I_CANCEL_F2:
	case ETM4_PKT_I_CANCEL_F3:
		if (k->type == ETM4_PKT_I_COMMIT ? !g->after_exc
						 : !g->addr_pending)
			break;
		/* 32-bit index back to the window offset, as in etm.c */
		delta = (int32_t)(uint32_t)((uint32_t)idx -
					    (uint32_t)e->guard_pos);
		off = delta < 0 && (uint64_t)-(int64_t)delta > e->guard_pos ?
		      0 : e->guard_pos + (uint64_t)(int64_t)delta;
		add_cut(e, g->id, off);
		g->addr_pending = 0;
		g->after_exc = 0;
		break;
	default:
		break;
	}
	return OCSD_RESP_CONT;
}

int etm_guard_init(struct etm *e, const struct sy_etm_source *const *src,
		   size_t n)
{
	e->gsrc = calloc(n, sizeof(*e->gsrc));
	if (!e->gsrc)
		return -SY_E_NOMEM;
	e->gdt = ocsd_create_dcd_tree(e->formatted ?
				      OCSD_TRC_SRC_FRAME_FORMATTED :
				      OCSD_TRC_SRC_SINGLE,
				      e->formatted ?
				      OCSD_DFRMTR_FRAME_MEM_ALIGN |
				      OCSD_DFRMTR_RESET_ON_4X_FSYNC : 0);
	if (e->gdt == C_API_INVALID_TREE_HANDLE)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct sy_etm_source *s = src[i];
		unsigned char csid = 0;
		ocsd_etmv4_cfg c;

		memset(&c, 0, sizeof(c));
		c.reg_idr0 = s->trcidr0;
		c.reg_idr1 = s->trcidr1;
		if (s->ete && TRCIDR1_ARCHMAJ(c.reg_idr1) < 5)
			c.reg_idr1 |= 0xf00u;	/* "see TRCDEVARCH": ETE */
		c.reg_idr2 = s->trcidr2;
		c.reg_idr8 = s->trcidr8;
		c.reg_configr = s->trcconfigr;
		c.reg_traceidr = e->src[i].id;
		c.arch_ver = ARCH_AA64;
		c.core_prof = profile_CortexA;
		e->gsrc[i].e = e;
		e->gsrc[i].id = e->src[i].id;
		if (ocsd_dt_create_decoder(e->gdt, OCSD_BUILTIN_DCD_ETMV4I,
					   OCSD_CREATE_FLG_PACKET_PROC, &c,
					   &csid) != OCSD_OK ||
		    csid != e->src[i].id ||
		    ocsd_dt_attach_packet_callback(e->gdt, csid,
						   OCSD_C_API_CB_PKT_SINK,
						   (void *)(uintptr_t)pkt_sink,
						   &e->gsrc[i]) != OCSD_OK)
			return -SY_E_DECODE;
	}
	return 0;
}

/* Called under etm.c's lock, like etm_guard_init(). */
void etm_guard_fini(struct etm *e)
{
	if (e->gdt != C_API_INVALID_TREE_HANDLE)
		ocsd_destroy_dcd_tree(e->gdt);
	e->gdt = C_API_INVALID_TREE_HANDLE;
	free(e->gsrc);
	e->gsrc = NULL;
}

void etm_guard_reset(struct etm *e, uint64_t pos)
{
	ocsd_dt_process_data(e->gdt, OCSD_OP_RESET, 0, 0, NULL, NULL);
	for (size_t i = 0; i < e->nsrc; i++) {
		e->gsrc[i].addr_pending = 0;
		e->gsrc[i].after_exc = 0;
	}
	e->guard_pos = pos;
	e->ncut = 0;
}

void etm_guard_scan(struct etm *e, const uint8_t *p, uint32_t n,
		    uint64_t off)
{
	while (n) {
		uint32_t used = 0;
		ocsd_datapath_resp_t r;

		e->guard_pos = off;	/* index base for pkt_sink */
		r = ocsd_dt_process_data(e->gdt, OCSD_OP_DATA,
					 (ocsd_trc_index_t)off, n, p, &used);
		if (used > n)
			used = n;
		if (OCSD_DATA_RESP_IS_FATAL(r) || !used) {
			/* The main tree will fail here too or soon after;
			 * cut so that both restart at the same byte. */
			add_cut(e, e->nsrc ? e->gsrc[0].id : 0, off + used);
			break;
		}
		p += used;
		off += used;
		n -= used;
	}
	e->guard_pos = off + n;
}
