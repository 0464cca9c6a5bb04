/* Where one long ETM stream can be cut into pieces decoded apart
 * (sy_decode_etm_seam in sy_decode.h).
 *
 * A piece that starts at a cut is decoded by a fresh decoder: it knows
 * nothing until its source's first A-Sync, then Trace Info, and the
 * context and address packets that follow.  The decode of the whole
 * stream knows more there: the branch whose target the address packet
 * gives, the flow it was in, timestamps waiting on its element stack.
 * From the first atom after the address on, both decoders are in the same
 * state (same address, instruction set, context; the return stack is
 * emptied by Trace Info in both; with TRCIDR8.MAXSPEC 0 nothing waits to
 * be committed but timestamps, events and cycle counts), so their items
 * are the same but for that atom's own conversion: the fresh decoder
 * STARTs there (or reports the address unreadable), the whole decode
 * continues its flow.  So the piece before the cut is decoded through
 * that atom and ends with its items (etm_conv.c, at_seam), and the piece
 * after drops its items up to its first START or ERROR.
 *
 * That holds only when the sequence after the A-Sync is as described:
 * Trace Info, then nothing that commits or discards execution (atoms,
 * exceptions, overflow, discard) before an address packet and a context
 * packet with the context, then an atom.  A Trace On there (every window
 * after a resume starts so) is fine: it ends the whole decode's flow,
 * which the piece before gives, and the piece after has none to end.  This file finds the
 * A-Sync the fresh decoder will synchronise on, with OpenCSD's own packet
 * processor built as the decoders' (etm_ocsd.c), and checks the sequence.
 */
#include <string.h>

#include "decoder_impl.h"
#include "etm_ocsd.h"

#define SEAM_BLOCK 4096u

enum seam_state { S_ASYNC, S_TINFO, S_ADDR, S_DONE, S_BAD };

struct seam_scan {
	enum seam_state st;
	int have_ctx, have_addr;
	uint64_t sync, atom;
};

static ocsd_datapath_resp_t seam_sink(const void *ctx,
				      const ocsd_datapath_op_t op,
				      const ocsd_trc_index_t idx,
				      const void *pkt)
{
	struct seam_scan *sc = (struct seam_scan *)(uintptr_t)ctx;
	const ocsd_etmv4_i_pkt *k = pkt;

	if (op != OCSD_OP_DATA || !k || sc->st >= S_DONE)
		return OCSD_RESP_CONT;
	switch (sc->st) {
	case S_ASYNC:
		if (k->type == ETM4_PKT_I_ASYNC) {
			sc->sync = idx;
			sc->st = S_TINFO;
		}
		break;
	case S_TINFO:	/* a fresh decoder ignores everything else */
		if (k->type == ETM4_PKT_I_TRACE_INFO)
			sc->st = S_ADDR;
		break;
	default:
		switch ((int)k->type) {
		case ETM4_PKT_I_TIMESTAMP: case ETM4_PKT_I_CCNT_F1:
		case ETM4_PKT_I_CCNT_F2: case ETM4_PKT_I_CCNT_F3:
		case ETM4_PKT_I_EVENT: case ETE_PKT_I_TS_MARKER:
		case ETM4_PKT_I_IGNORE:
		case ETM4_PKT_I_TRACE_ON:	/* ends the whole decode's
						 * flow where a piece has none */
			break;
		case ETM4_PKT_I_CTXT:
			sc->have_ctx |= k->context.updated;
			break;
		case ETM4_PKT_I_ADDR_CTXT_L_32IS0: case ETM4_PKT_I_ADDR_CTXT_L_32IS1:
		case ETM4_PKT_I_ADDR_CTXT_L_64IS0: case ETM4_PKT_I_ADDR_CTXT_L_64IS1:
			sc->have_ctx |= k->context.updated;
			sc->have_addr = 1;
			break;
		case ETM4_PKT_I_ADDR_MATCH: case ETM4_PKT_I_ADDR_S_IS0:
		case ETM4_PKT_I_ADDR_S_IS1: case ETM4_PKT_I_ADDR_L_32IS0:
		case ETM4_PKT_I_ADDR_L_32IS1: case ETM4_PKT_I_ADDR_L_64IS0:
		case ETM4_PKT_I_ADDR_L_64IS1:
			sc->have_addr = 1;
			break;
		case ETM4_PKT_I_ATOM_F1: case ETM4_PKT_I_ATOM_F2:
		case ETM4_PKT_I_ATOM_F3: case ETM4_PKT_I_ATOM_F4:
		case ETM4_PKT_I_ATOM_F5: case ETM4_PKT_I_ATOM_F6:
			sc->atom = idx;
			sc->st = sc->have_ctx && sc->have_addr ? S_DONE : S_BAD;
			break;
		default:
			sc->st = S_BAD;
			break;
		}
		break;
	}
	/* decided: stop OpenCSD here rather than let it parse the rest of
	 * the block (up to a MiB a call, on the walk's thread) */
	return sc->st >= S_DONE ? OCSD_RESP_WAIT : OCSD_RESP_CONT;
}

/* The one source a seam is for: the raw stream's, or params' trace ID. */
static const struct sy_etm_source *seam_source(const struct sy_etm_params *p)
{
	if (!p->sources || !p->nr_sources)
		return NULL;
	if (!p->formatted)
		return p->nr_sources == 1 ? &p->sources[0] : NULL;
	for (size_t i = 0; p->trace_id && i < p->nr_sources; i++)
		if (sy_etm_source_id(&p->sources[i]) == p->trace_id)
			return &p->sources[i];
	return NULL;
}

int sy_etm_seam(const struct sy_dec_params *p, const uint8_t *data,
		size_t len, uint64_t cut, uint64_t *sync, uint64_t *seam)
{
	const struct sy_etm_params *ep = &p->u.etm;
	const struct sy_etm_source *src = seam_source(ep);
	struct seam_scan sc = { S_ASYNC, 0, 0, 0, 0 };
	dcd_tree_handle_t dt;
	uint64_t at = cut;
	int err = 0;

	if (!src || cut > len || (ep->formatted && cut % 16))
		return -SY_E_INVALID;
	if (src->trcidr8)
		return -SY_E_UNSUPPORTED;	/* elements wait uncommitted */
	sy_etm_ocsd_lock();
	dt = sy_etm_ocsd_tree(ep->formatted);
	if (dt == C_API_INVALID_TREE_HANDLE)
		err = -SY_E_NOMEM;
	else if (sy_etm_ocsd_add_pkt_proc(dt, src, sy_etm_source_id(src), seam_sink,
				       &sc) != OCSD_OK)
		err = -SY_E_DECODE;
	sy_etm_ocsd_unlock();
	/* whole frames, as the decoders are fed, a few KiB at a time: the
	 * deformatter reads a whole block before its first frame (looking
	 * for frame syncs), and a seam lies within an A-Sync period */
	while (!err && sc.st < S_DONE && len - at >= (ep->formatted ? 16 : 1)) {
		uint32_t n = len - at > SEAM_BLOCK ? SEAM_BLOCK : (uint32_t)(len - at);
		uint32_t used = 0;
		ocsd_datapath_resp_t r;

		if (ep->formatted)
			n &= ~15u;
		r = ocsd_dt_process_data(dt, OCSD_OP_DATA, (ocsd_trc_index_t)at,
					 n, data + at, &used);
		if (!OCSD_DATA_RESP_IS_CONT(r) || !used)
			break;
		at += used;
	}
	sy_etm_ocsd_lock();
	sy_etm_ocsd_tree_free(&dt);
	sy_etm_ocsd_unlock();
	if (err)
		return err;
	if (sc.st == S_ASYNC)
		return -SY_E_EOS;
	/* OpenCSD's 32-bit indexes, back to offsets */
	*sync = etm_offset_of(cut, (ocsd_trc_index_t)sc.sync);
	if (sc.st != S_DONE)
		return sc.st == S_BAD ? -SY_E_DECODE : -SY_E_EOS;
	sc.atom = etm_offset_of(cut, (ocsd_trc_index_t)sc.atom);
	/* through the atom's frame, or its byte */
	*seam = ep->formatted ? (sc.atom | 15) + 1 : sc.atom + 1;
	return 0;
}
