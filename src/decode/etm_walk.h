/* The ETM fast path's walk: OpenCSD packets of one trace source to the
 * elements OpenCSD's full decoder would make of them (see etm_walk.c).
 *
 * Private to the fast path (etm_fast.c).  One walker per source; it hands
 * the elements on (to the converter, etm_conv.c) in the batches OpenCSD
 * sends them in.  What it does not model makes it stop with a reason (enum
 * etm_why), before it hands out anything OpenCSD would not have: the
 * backend then decodes the window again with the full decoder. */
#ifndef SY_ETM_WALK_H
#define SY_ETM_WALK_H

#include <opencsd/c_api/opencsd_c_api.h>
#include <stdint.h>

#include "etm_blocks.h"
#include "etm_conv.h"
#include "etm_runs.h"
#include "etm_agree.h"
#include "etm_verdict.h"

/* Why the fast path gave a window up. */
enum etm_why {
	ETM_WHY_NONE = 0,
	ETM_WHY_SPEC,		/* Commit / Cancel / Mispredict packet */
	ETM_WHY_GUARD,		/* a packet the full decoder's guard keeps
				 * from OpenCSD (etm_guard.c) */
	ETM_WHY_Q,		/* Q packet */
	ETM_WHY_ISA,		/* A32 or T32 code */
	ETM_WHY_SRC_ADDR,	/* ETE source address packet */
	ETM_WHY_SEQ,		/* a sequence OpenCSD reports as an error
				 * inside a commit (exception without its
				 * address, commit overrun, return stack) */
	ETM_WHY_DISAGREE,	/* the trace contradicts the walked path
				 * (etm_agree.h): the guard cuts the packet */
	ETM_WHY_TREE,		/* the packet tree failed */
	ETM_WHY_NOMEM,
	ETM_WHY_NR
};

/* "spec", "q", ... */
const char *sy_etm_why_name(enum etm_why why);

/* What the decoder's configuration changes in the walk. */
struct etm_walk_cfg {
	uint32_t max_spec;	/* TRCIDR8.MAXSPEC */
	uint8_t ete;		/* ETE (version 5 and later) */
	uint8_t ts_marker;	/* timestamps wait for the first TS marker */
	uint8_t ret_stack;	/* TRCCONFIGR.RS */
	uint8_t branch_broadcast; /* TRCCONFIGR.BB */
	uint8_t wfi_wfe;	/* WFI / WFE are waypoints */
	uint8_t comm_trans_p0;	/* TSTART is a P0 element (TRCIDR0.COMMTRANS) */
	uint8_t cci;		/* TRCCONFIGR.CCI: cycle counts, and in
				 * timestamps too (OpenCSD's P0_TS_CC) */
};

/* Reads @c (an ETE source's as sy_etm_ocsd_decoder_cfg gives it) as
 * OpenCSD's EtmV4Config does. */
void sy_etm_walk_cfg_from(struct etm_walk_cfg *cfg, const ocsd_etmv4_cfg *c);

/* An element of the P0 stack (OpenCSD's TrcStackElem and kin). */
struct etm_p0 {
	uint8_t kind;		/* enum etm_p0_kind (etm_walk.c) */
	uint8_t is;		/* ADDR: instruction set bit; CTXT: IS */
	uint8_t prev_same;	/* EXCEP: address is the previous target */
	uint8_t natoms;		/* ATOM: atoms left */
	uint32_t bits;		/* ATOM: E bits, oldest first; EXCEP: number;
				 * TS: its cycle count (cfg.cci) */
	uint32_t idx;		/* index of the packet that made it */
	uint64_t val;		/* ADDR: address; TS: timestamp; CC: count */
	etmv4_context_t ctxt;	/* CTXT */
};

/* Where a walk's batches go: element @e of source @src at window offset
 * @off, in order. */
typedef void (*etm_walk_emit_fn)(void *ctx, struct etm_src *src, uint64_t off,
				 const struct etm_elem *e);

struct etm_walk {
	struct etm_src *src;	/* the converter's flow state of the source */
	etm_walk_emit_fn emit;
	void *emit_ctx;
	struct etm_blocks *blocks;
	const uint64_t *pos;	/* feed position, for element offsets */
	const uint32_t *ctxid;	/* the decoder's context until the trace's */
	struct etm_walk_cfg cfg;

	/* The context ID the converter will read code in once it has seen
	 * every batch sent so far (etm_conv.c's rule; OpenCSD reads a batch's
	 * code before sending it).  Kept here: the batches may reach the
	 * converter later. */
	uint8_t have_ctx;
	uint32_t read_ctx;

	/* OpenCSD's decoder state (TrcPktDecodeEtmV4I) */
	uint8_t state;		/* enum etm_wstate (etm_walk.c) */
	uint8_t unsync;		/* unsync_info_t for the next NO_SYNC */
	uint8_t need_ctxt, need_addr, pending_addr, prev_overflow;
	uint8_t ts_marker_seen;
	uint8_t last_is;
	uint8_t is_64bit;
	uint8_t isa;		/* ocsd_isa of the next instruction */
	uint8_t addr_known;	/* addr was set in this window */
	uint64_t addr;		/* the next instruction */
	/* OpenCSD's elements carry the context of the element before them
	 * (OcsdGenElemStack::copyPersistentData), a context packet without a
	 * context ID keeps the last one seen, and the element objects live
	 * as long as the decoder: never reset. */
	uint8_t el_ctxt_valid, el_vmid_valid;
	uint32_t el_context_id, el_vmid;
	int64_t spec_depth;
	int64_t commit;		/* P0 elements to commit */
	uint8_t discard;
	uint32_t idx;		/* index of the current packet */

	/* the full decoder's guard (etm_guard.c): its verdict on the same
	 * packets tells where the full decoder takes a turn the walk does
	 * not follow */
	struct etm_verdict verdict;
	/* the trace's order against the walked path; its last verdict */
	struct etm_agree agree;
	uint8_t disagree;	/* enum etm_disagree */

	/* return stack (TrcAddrReturnStack) */
	uint64_t rs_addr[16];
	uint8_t rs_isa[16];
	int rs_head, rs_n;
	uint8_t rs_pop_pending;

	/* P0 stack: v[old] is the oldest of n, a ring of cap */
	struct etm_p0 *p0;
	size_t p0_old, p0_n, p0_cap;

	/* the batch of elements OpenCSD would send together */
	struct etm_elem *out;
	uint32_t *out_idx;
	size_t nout, out_cap;

	/* The direct lane: ranges are converted as they are walked
	 * (sy_etm_conv_range), while the batch is still empty, rather than
	 * built as elements, sent and converted.  NULL: off (the full
	 * decoder's guard walk).  OpenCSD drops a batch in which it meets an
	 * error: @mark undoes what the batch's ranges did when the walk gives
	 * up in it (a formatted window's span is undone too, etm_fast.c). */
	struct etm_conv *direct;
	/* atom runs (etm_runs.h); NULL: atom by atom */
	struct etm_runs *runs;
	struct sy_etm_conv_mark mark;

	enum etm_why why;	/* gave up (sticky until reset) */
	uint64_t packets;
	void *fast;		/* the driver's, for its packet sink */
};

int sy_etm_walk_init(struct etm_walk *w, struct etm_src *src,
		  etm_walk_emit_fn emit, void *emit_ctx,
		  struct etm_blocks *blocks, const uint64_t *pos,
		  const uint32_t *ctxid, const struct etm_walk_cfg *cfg);
void sy_etm_walk_fini(struct etm_walk *w);
/* @w as sy_etm_walk_init() made it, with its shortcuts, keeping its
 * buffers: the history a reset keeps (the instruction address, the return
 * stack, the elements' context) is forgotten too. */
void sy_etm_walk_renew(struct etm_walk *w);

/* The fast path's two shortcuts (etm_walk.c): atom runs from @runs (shared
 * by the walks of one decoder), and ranges converted as they are walked
 * into @cv, @w's source's converter (the direct lane). */
void sy_etm_walk_shortcuts(struct etm_walk *w, struct etm_runs *runs,
			struct etm_conv *cv);

/* One datapath operation of the source's packet processor, as its packet
 * sink receives it (OCSD_OP_DATA with a packet, OCSD_OP_EOT,
 * OCSD_OP_RESET, OCSD_OP_FLUSH).  Returns ETM_WHY_NONE, or why the walk
 * gave up (then w->why is set and further operations do nothing until a
 * reset). */
enum etm_why sy_etm_walk_op(struct etm_walk *w, ocsd_datapath_op_t op,
			 ocsd_trc_index_t idx, const ocsd_etmv4_i_pkt *pkt);

#endif
