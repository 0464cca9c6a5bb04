/* The ETM fast path's walk: OpenCSD 1.3.3's ETMv4 / ETE decoder
 * (decoder/source/etmv4/trc_pkt_decode_etmv4i.cpp, TrcPktDecodeEtmV4I),
 * written again for what it does with A64 code, without its instruction
 * walk.
 *
 * OpenCSD's packet processor still parses every packet (etm_fast.c); this
 * file turns them into the generic elements the full decoder would send,
 * in the same order, in the same batches and with the same packet indexes:
 * the same state machine (NO_SYNC, WAIT_SYNC, WAIT_TINFO, DECODE,
 * RESOLVE), the same P0 element stack with its commit rule (commit
 * whatever goes past TRCIDR8.MAXSPEC), the same return stack, the same
 * exception processing.  Where OpenCSD follows instructions one by one
 * from an address to the next waypoint (traceInstrToWP), this walk looks
 * the block up in the block cache (etm_blocks.c), whose classifier agrees
 * with OpenCSD's instruction decode word for word (tests/unit/
 * test_etm_a64.c).
 *
 * Two shortcuts keep the elements' meaning without their cost.  Atoms
 * committed together are looked up as one run (etm_runs.h) when nothing
 * but their ranges and the address can come of them (no return stack):
 * one lookup per packet instead of a chain of block lookups, each keyed by
 * the last one's end.  And ranges are converted as they are walked while
 * their batch holds nothing else (the direct lane, out_range), with a
 * mark that undoes them if the batch is dropped; a formatted window's
 * spans are undone the same way (etm_fast.c).
 *
 * Batches matter twice: OpenCSD reads code for a whole batch before it
 * sends it, and the reads use the context the converter last saw (an
 * exception's own context element goes out after the code before the
 * exception was read); and when OpenCSD meets an error inside a commit it
 * resets and drops the batch it was building.  So elements wait here until
 * the point where OpenCSD sends them.
 *
 * What is not modelled stops the walk (enum etm_why) before the batch in
 * which it happens goes out: speculation resolution (Commit, Cancel,
 * Mispredict), Q packets, A32/T32 code, ETE source-address packets,
 * and the error paths OpenCSD takes inside a
 * commit (an exception without its address packet, a commit with nothing
 * left to commit, a return stack popped empty), whose outcome depends on
 * its memory management.  Everything handed out before is what OpenCSD
 * hands out for the same packets.
 */
#include <stdlib.h>
#include <string.h>

#include "etm_ocsd.h"
#include "etm_walk.h"
#include "etm_walk_stacks.h"

/* ---- the batch ---- */

static struct etm_elem *out_add(struct etm_walk *w, uint8_t type,
				uint32_t idx)
{
	struct etm_elem *e;

	if (w->nout == w->out_cap) {
		size_t cap = w->out_cap ? 2 * w->out_cap : 64;
		struct etm_elem *v = realloc(w->out, cap * sizeof(*v));
		uint32_t *x;

		if (!v)
			return NULL;
		w->out = v;
		x = realloc(w->out_idx, cap * sizeof(*x));
		if (!x)
			return NULL;
		w->out_idx = x;
		w->out_cap = cap;
	}
	e = &w->out[w->nout];
	w->out_idx[w->nout++] = idx;
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->isa = w->isa;
	return e;
}

/* The converter's context rule (etm_conv.c conv_context). */
static void track_context(struct etm_walk *w, const struct etm_elem *e)
{
	if (w->src->pid_vmid) {
		if (!e->vmid_valid)
			return;
		w->read_ctx = e->vmid;
	} else {
		if (!e->ctxt_valid)
			return;
		w->read_ctx = e->context_id;
	}
	w->have_ctx = 1;
}

/* OcsdGenElemStack::sendElements(): the batch goes on. */
static void out_send(struct etm_walk *w)
{
	w->mark.open = 0;	/* its direct ranges stay */
	for (size_t i = 0; i < w->nout; i++) {
		if (w->out[i].type == OCSD_GEN_TRC_ELEM_PE_CONTEXT)
			track_context(w, &w->out[i]);
		w->emit(w->emit_ctx, w->src,
			etm_offset_of(*w->pos, w->out_idx[i]), &w->out[i]);
	}
	w->nout = 0;
}

/* The context code is read in now. */
static uint32_t read_ctx(const struct etm_walk *w)
{
	return w->have_ctx ? w->read_ctx : *w->ctxid;
}

static enum etm_why give_up(struct etm_walk *w, enum etm_why why)
{
	w->why = why;
	w->nout = 0;		/* OpenCSD would not send it either */
	if (w->direct)
		sy_etm_conv_undo(w->direct, w->src, &w->mark);
	return why;
}

/* The trace contradicts the walked path: the full decoder's guard cuts
 * the packet (etm_guard.c), so the window goes to it. */
static enum etm_why disagree(struct etm_walk *w, enum etm_disagree d)
{
	w->disagree = (uint8_t)d;
	return ETM_WHY_DISAGREE;
}

/* ---- decoder state ---- */

/* resetDecoder(): the instruction address and the return stack stay. */
static void reset_decoder(struct etm_walk *w)
{
	w->state = W_NO_SYNC;
	w->is_64bit = 0;
	w->spec_depth = 0;
	w->need_ctxt = w->need_addr = 1;
	w->pending_addr = 0;
	w->prev_overflow = 0;
	w->p0_n = 0;
	w->nout = 0;
	w->last_is = 0;
	w->commit = 0;
	w->discard = 0;
	w->ts_marker_seen = 0;
	sy_etm_agree_reset(&w->agree);
}

/* handlePacketErr(): bad packets make the decoder start over. */
static void bad_packet(struct etm_walk *w)
{
	reset_decoder(w);
	w->unsync = UNSYNC_BAD_PACKET;
}

static uint8_t calc_isa(int sf, unsigned is)
{
	if (sf)
		return ocsd_isa_aarch64;
	return is == 0 ? ocsd_isa_arm : ocsd_isa_thumb2;
}

/* updateContext(): a PE_CONTEXT element from @c. */
static enum etm_why out_context(struct etm_walk *w, const struct etm_p0 *c,
				uint32_t idx)
{
	struct etm_elem *e = out_add(w, OCSD_GEN_TRC_ELEM_PE_CONTEXT, idx);

	if (!e)
		return ETM_WHY_NOMEM;
	w->is_64bit = c->ctxt.SF != 0;
	if (c->ctxt.updated_c) {
		w->el_ctxt_valid = 1;
		w->el_context_id = c->ctxt.ctxtID;
	}
	if (c->ctxt.updated_v) {
		w->el_vmid_valid = 1;
		w->el_vmid = c->ctxt.VMID;
	}
	e->ctxt_valid = w->el_ctxt_valid;
	e->context_id = w->el_context_id;
	e->vmid_valid = w->el_vmid_valid;
	e->vmid = w->el_vmid;
	w->isa = calc_isa(w->is_64bit, c->is);
	e->isa = w->isa;
	w->need_ctxt = 0;
	return ETM_WHY_NONE;
}

/* processTS_CC_EventElem() and processMarkerElem(): timestamps and cycle
 * counts become items (events and markers are ignored). */
static enum etm_why out_side(struct etm_walk *w, const struct etm_p0 *p)
{
	struct etm_elem *e;

	if (p->kind == P0_MARKER) {
		if (w->cfg.ts_marker)
			w->ts_marker_seen = 1;
		return ETM_WHY_NONE;
	}
	if (p->kind == P0_CC) {
		e = out_add(w, OCSD_GEN_TRC_ELEM_CYCLE_COUNT, p->idx);
		if (!e)
			return ETM_WHY_NOMEM;
		e->cc = (uint32_t)p->val;
		e->has_cc = 1;
		return ETM_WHY_NONE;
	}
	if (p->kind != P0_TS || (w->cfg.ts_marker && !w->ts_marker_seen))
		return ETM_WHY_NONE;
	e = out_add(w, OCSD_GEN_TRC_ELEM_TIMESTAMP, p->idx);
	if (!e)
		return ETM_WHY_NOMEM;
	e->timestamp = p->val;
	if (w->cfg.cci) {
		e->cc = p->bits;
		e->has_cc = 1;
	}
	return ETM_WHY_NONE;
}

/* Whether a range made now goes the direct lane: nothing of its batch
 * waits before it, and the batch's mark is taken. */
static int direct_now(struct etm_walk *w)
{
	return w->direct && !w->nout && w->isa == ocsd_isa_aarch64 &&
	       (w->mark.open || sy_etm_conv_mark(w->direct, w->src, &w->mark));
}

/* An INSTR_RANGE element for @n instructions [st, en) ending with @last.
 * In the direct lane, converted at once while nothing of its batch waits
 * before it: the items come out in the same order, and the mark undoes
 * them if the batch is dropped. */
static enum etm_why out_range(struct etm_walk *w, uint32_t idx, uint64_t st,
			      uint64_t en, uint64_t n,
			      const struct etm_block *last, int exec)
{
	struct etm_elem *e;

	if (direct_now(w)) {
		sy_etm_conv_range(w->direct, w->src, etm_offset_of(*w->pos, idx),
			       st, en, (uint32_t)n, last->type, last->subtype,
			       last->cond, (uint8_t)exec);
		return ETM_WHY_NONE;
	}
	e = out_add(w, OCSD_GEN_TRC_ELEM_INSTR_RANGE, idx);
	if (!e)
		return ETM_WHY_NOMEM;
	e->st = st;
	e->en = en;
	e->ninsn = (uint32_t)n;
	e->i_type = last->type;
	e->i_subtype = last->subtype;
	e->cond = last->cond;
	e->exec = (uint8_t)exec;
	e->size = 4;
	return ETM_WHY_NONE;
}

static enum etm_why out_nacc(struct etm_walk *w, uint32_t idx, uint64_t at)
{
	struct etm_elem *e = out_add(w, OCSD_GEN_TRC_ELEM_ADDR_NACC, idx);

	if (!e)
		return ETM_WHY_NOMEM;
	e->st = at;
	return ETM_WHY_NONE;
}

/* ---- committing elements ---- */

/* processAtom(): the block from the current address, then the atom. */
static enum etm_why process_atom(struct etm_walk *w, int taken, uint32_t idx)
{
	const struct etm_block *b;
	uint64_t st = w->addr;
	enum etm_why why;

	if (w->isa != ocsd_isa_aarch64)
		return ETM_WHY_ISA;
	b = etm_blocks_get(w->blocks, st,
			   read_ctx(w), w->cfg.wfi_wfe);
	w->addr = b->end;
	if (b->nacc) {
		w->need_addr = 1;
		if (b->ninsn &&
		    (why = out_range(w, idx, st, b->end, b->ninsn, b, 1)))
			return why;
		return out_nacc(w, idx, b->end);
	}
	if (taken && b->type == OCSD_INSTR_BR) {
		w->addr = b->target;
		if (b->link)
			rs_push(w, b->end, w->isa);
	} else if (taken && b->type == OCSD_INSTR_BR_INDIRECT) {
		w->need_addr = 1;
		sy_etm_agree_indirect(&w->agree);
		if (b->link)
			rs_push(w, b->end, w->isa);
		if (w->cfg.ret_stack)
			w->rs_pop_pending = 1;
		/* ETE traces no ERET packet: OpenCSD adds an EXCEPTION_RET
		 * element, which becomes no item. */
	}
	return out_range(w, idx, st, b->end, b->ninsn, b, taken);
}

/* The next @n atoms of @p as one run (etm_runs.h): the ranges the
 * atom-by-atom walk would make, found with one lookup.  Returns 0 when they
 * are not a run (the caller walks them). */
static int commit_run(struct etm_walk *w, struct etm_p0 *p, unsigned n)
{
	uint32_t bits = n < 32 ? p->bits & ((1u << n) - 1) : p->bits;
	const struct etm_run *run = sy_etm_runs_get(w->runs, w->addr, read_ctx(w),
						 w->cfg.wfi_wfe, bits, n);
	uint64_t off = etm_offset_of(*w->pos, p->idx);

	if (!run)
		return 0;
	if (!(direct_now(w) &&
	      sy_etm_conv_run(w->direct, w->src, off, run))) {
		for (unsigned i = 0; i < run->nr; i++) {
			const struct etm_run_range *r = &run->r[i];
			struct etm_block last = { 0 };
			enum etm_why why;

			last.type = r->type;
			last.subtype = r->subtype;
			last.cond = r->cond;
			if ((why = out_range(w, p->idx, r->st, r->en, r->ninsn,
					     &last, r->exec)))
				return -(int)why;
		}
	}
	w->addr = run->end;
	if (run->need_addr) {
		w->need_addr = 1;
		sy_etm_agree_indirect(&w->agree);
		if (run->nr < n && sy_etm_agree_atom(&w->agree))
			return -(int)disagree(w, ETM_AGREE_ATOM);
	}
	/* atoms after an indirect branch are committed without code */
	p->bits = n < 32 ? p->bits >> n : 0;
	p->natoms = (uint8_t)(p->natoms - n);
	w->commit -= n;
	return 1;
}

static enum etm_why commit_atoms(struct etm_walk *w, struct etm_p0 *p)
{
	enum etm_why why;

	/* Without a return stack an atom's only effects are its range and
	 * the address: a run of them can come from the run cache. */
	if (w->runs && !w->cfg.ret_stack && !w->need_ctxt && !w->need_addr &&
	    w->isa == ocsd_isa_aarch64 && p->natoms && w->commit > 0) {
		unsigned n = (uint64_t)w->commit < p->natoms
				     ? (unsigned)w->commit
				     : p->natoms;
		int r = commit_run(w, p, n);

		if (r < 0)
			return (enum etm_why)-r;
		if (r)
			return ETM_WHY_NONE;
	}
	while (p->natoms && w->commit) {
		int taken = p->bits & 1;

		p->bits >>= 1;
		p->natoms--;
		if ((why = rs_pop_pending(w)))
			return why;
		if (sy_etm_agree_atom(&w->agree))
			return disagree(w, ETM_AGREE_ATOM);
		if (!w->need_ctxt && !w->need_addr &&
		    (why = process_atom(w, taken, p->idx)))
			return why;
		w->commit--;
	}
	return ETM_WHY_NONE;
}

/* processException(): the exception, its context and its address (the
 * preferred return address) come off the stack together; the code up to
 * the return address is walked before the batch goes out. */
static enum etm_why process_exception(struct etm_walk *w)
{
	struct etm_p0 ex = *p0_oldest(w), ctxt, *a;
	int have_ctxt = 0, nacc = 0;
	uint64_t ret, end = 0, n = 0, st;
	struct etm_block last;
	enum etm_why why;

	p0_pop(w);
	a = p0_oldest(w);
	if (a && a->kind == P0_CTXT) {
		ctxt = *a;
		have_ctxt = 1;
		p0_pop(w);
		a = p0_oldest(w);
	}
	if (!a || a->kind != P0_ADDR)
		return ETM_WHY_SEQ;	/* "Address missing in exception" */
	/* the address element stays for the caller to delete, unprocessed */
	ret = a->val;
	if (ex.prev_same) {
		int b64 = w->isa == ocsd_isa_aarch64;

		if (have_ctxt)
			b64 = ctxt.ctxt.SF;
		w->addr = ret;
		w->addr_known = 1;
		w->isa = a->is == 0 ? (b64 ? ocsd_isa_aarch64 : ocsd_isa_arm)
				    : ocsd_isa_thumb2;
		w->need_addr = 0;
	}
	if (have_ctxt && (why = out_context(w, &ctxt, ex.idx)))
		return why;
	if (w->addr != ret) {
		/* OpenCSD walks from wherever its last window left it, or
		 * from uninitialised memory */
		if (!w->addr_known)
			return ETM_WHY_SEQ;
		if (w->isa != ocsd_isa_aarch64)
			return ETM_WHY_ISA;
		st = w->addr;
		n = sy_etm_blocks_walk_to(w->blocks, st, ret,
				       read_ctx(w),
				       w->cfg.wfi_wfe, &end, &nacc, &last);
		if (n > UINT32_MAX)
			return ETM_WHY_SEQ;
		w->addr = end;
		if (nacc)
			w->need_addr = 1;
		if (n && (why = out_range(w, ex.idx, st, end, n, &last, 1)))
			return why;
		if (nacc && (why = out_nacc(w, ex.idx, end)))
			return why;
	}
	{
		struct etm_elem *e = out_add(w, OCSD_GEN_TRC_ELEM_EXCEPTION,
					     ex.idx);

		if (!e)
			return ETM_WHY_NOMEM;
		e->en = ret;
		e->ret_valid = 1;
		e->exc = ex.bits;
	}
	return ETM_WHY_NONE;
}

/* One element of commitElements(); *@pop: delete it afterwards. */
static enum etm_why commit_one(struct etm_walk *w, struct etm_p0 *p,
			       int *flush, int *pop)
{
	struct etm_elem *e;
	enum etm_why why;

	switch (p->kind) {
	case P0_TRC_ON:
		sy_etm_agree_addr(&w->agree);
		e = out_add(w, OCSD_GEN_TRC_ELEM_TRACE_ON, p->idx);
		if (!e)
			return ETM_WHY_NOMEM;
		e->reason = w->prev_overflow ? TRACE_ON_OVERFLOW
					     : TRACE_ON_NORMAL;
		w->prev_overflow = 0;
		rs_flush(w);
		return ETM_WHY_NONE;
	case P0_ADDR:
		sy_etm_agree_addr(&w->agree);
		w->rs_pop_pending = 0;
		w->addr = p->val;
		w->addr_known = 1;
		w->isa = calc_isa(w->is_64bit, p->is);
		w->need_addr = 0;
		return ETM_WHY_NONE;
	case P0_CTXT:
		if (!p->ctxt.updated)
			return ETM_WHY_NONE;
		/* a new context goes out before any code is read in it */
		*flush = 1;
		return out_context(w, p, p->idx);
	case P0_ATOM:
		why = commit_atoms(w, p);
		*pop = p->natoms == 0;
		return why;
	case P0_EXCEP:
		sy_etm_agree_addr(&w->agree);
		if ((why = rs_pop_pending(w)) || (why = process_exception(w)))
			return why;
		w->commit--;
		return ETM_WHY_NONE;
	case P0_EXCEP_RET:	/* EXCEPTION_RET: no item, not P0 on A */
		return ETM_WHY_NONE;
	case P0_TRANS_START:	/* MEMTRANS elements become no item */
		if (w->cfg.comm_trans_p0)
			w->commit--;
		return ETM_WHY_NONE;
	case P0_TRANS:
		return ETM_WHY_NONE;
	default:		/* TS, CC, EVENT, MARKER */
		return out_side(w, p);
	}
}

/* commitElements(): from the oldest element on until w->commit P0
 * elements are done, or a context change makes the batch go out. */
static enum etm_why commit_elements(struct etm_walk *w)
{
	int64_t req = w->commit;
	int flush = 0;

	while (w->commit && !flush) {
		struct etm_p0 *p = p0_oldest(w);
		enum etm_why why;
		int pop = 1;

		if (!p)
			return ETM_WHY_SEQ;	/* "Not enough elements" */
		if ((why = commit_one(w, p, &flush, &pop)))
			return why;
		if (pop)
			p0_pop(w);
	}
	w->spec_depth -= req - w->commit;
	return ETM_WHY_NONE;
}

/* discardElements(): overflow or discard; timestamps still go out. */
static enum etm_why discard_elements(struct etm_walk *w)
{
	struct etm_p0 *p;
	enum etm_why why;

	while ((p = p0_oldest(w))) {
		if ((why = out_side(w, p)))
			return why;
		p0_pop(w);
	}
	w->commit = 0;
	w->discard = 0;
	w->spec_depth = 0;
	w->state = W_NO_SYNC;
	w->unsync = w->prev_overflow ? UNSYNC_OVERFLOW : UNSYNC_DISCARD;
	sy_etm_agree_reset(&w->agree);
	w->need_ctxt = w->need_addr = 1;
	w->pending_addr = 0;
	return ETM_WHY_NONE;
}

/* resolveElements() */
static enum etm_why resolve(struct etm_walk *w)
{
	enum etm_why why;

	while (w->commit || w->discard) {
		if (w->commit && (why = commit_elements(w)))
			return why;
		out_send(w);
		if (!w->commit && w->discard &&
		    (why = discard_elements(w)))
			return why;
		out_send(w);
	}
	if (w->state == W_RESOLVE)
		w->state = W_DECODE;
	return ETM_WHY_NONE;
}

/* ---- packets ---- */

static enum etm_why push_addr(struct etm_walk *w, const ocsd_etmv4_i_pkt *k)
{
	struct etm_p0 *p = p0_push(w, P0_ADDR);

	if (!p)
		return ETM_WHY_NOMEM;
	p->val = k->v_addr.val;
	p->is = w->last_is = k->v_addr_ISA;
	return ETM_WHY_NONE;
}

static enum etm_why push_ctxt(struct etm_walk *w, const ocsd_etmv4_i_pkt *k)
{
	struct etm_p0 *p = p0_push(w, P0_CTXT);

	if (!p)
		return ETM_WHY_NOMEM;
	p->ctxt = k->context;
	p->is = w->last_is;
	return ETM_WHY_NONE;
}

static enum etm_why push_param(struct etm_walk *w, uint8_t kind,
			       uint64_t val)
{
	struct etm_p0 *p = p0_push(w, kind);

	if (!p)
		return ETM_WHY_NOMEM;
	p->val = val;
	return ETM_WHY_NONE;
}

/* EtmV4ITrcPacket::getCC(): a packet's count only when it has one (a
 * Timestamp packet without one leaves the field as it was). */
static inline uint32_t pkt_cc(const ocsd_etmv4_i_pkt *k)
{
	return k->pkt_valid.bits.cc_valid ? k->cycle_count : 0;
}

/* decodePacket() for the packets that go on the P0 stack; *@is_addr:
 * an address packet.  Returns ETM_WHY_NR for a packet this does not
 * know. */
static enum etm_why stack_packet(struct etm_walk *w,
				 const ocsd_etmv4_i_pkt *k, int *is_addr)
{
	struct etm_p0 *p;
	enum etm_why why;

	switch ((int)k->type) {
	case ETM4_PKT_I_TRACE_ON:
		return p0_push(w, P0_TRC_ON) ? ETM_WHY_NONE : ETM_WHY_NOMEM;
	case ETM4_PKT_I_ATOM_F1: case ETM4_PKT_I_ATOM_F2:
	case ETM4_PKT_I_ATOM_F3: case ETM4_PKT_I_ATOM_F4:
	case ETM4_PKT_I_ATOM_F5: case ETM4_PKT_I_ATOM_F6:
		if (!(p = p0_push(w, P0_ATOM)))
			return ETM_WHY_NOMEM;
		p->bits = k->atom.En_bits;
		p->natoms = k->atom.num;
		w->spec_depth += k->atom.num;
		return ETM_WHY_NONE;
	case ETM4_PKT_I_CTXT:
		return push_ctxt(w, k);
	case ETM4_PKT_I_ADDR_CTXT_L_64IS0: case ETM4_PKT_I_ADDR_CTXT_L_64IS1:
	case ETM4_PKT_I_ADDR_CTXT_L_32IS0: case ETM4_PKT_I_ADDR_CTXT_L_32IS1:
		w->last_is = k->v_addr_ISA;
		if ((why = push_ctxt(w, k)))
			return why;
		*is_addr = 1;
		return push_addr(w, k);
	case ETM4_PKT_I_ADDR_MATCH:
	case ETM4_PKT_I_ADDR_L_32IS0: case ETM4_PKT_I_ADDR_L_32IS1:
	case ETM4_PKT_I_ADDR_L_64IS0: case ETM4_PKT_I_ADDR_L_64IS1:
	case ETM4_PKT_I_ADDR_S_IS0: case ETM4_PKT_I_ADDR_S_IS1:
		*is_addr = 1;
		return push_addr(w, k);
	case ETM4_PKT_I_EXCEPT:
		if (!(p = p0_push(w, P0_EXCEP)))
			return ETM_WHY_NOMEM;
		p->prev_same = k->exception_info.addr_interp == 0x2;
		p->bits = k->exception_info.exceptionType;
		w->pending_addr = 1;
		return ETM_WHY_NONE;
	case ETM4_PKT_I_EXCEPT_RTN:
		return p0_push(w, P0_EXCEP_RET) ? ETM_WHY_NONE : ETM_WHY_NOMEM;
	case ETM4_PKT_I_EVENT:
		return push_param(w, P0_EVENT, k->event_val);
	case ETM4_PKT_I_CCNT_F1: case ETM4_PKT_I_CCNT_F2:
	case ETM4_PKT_I_CCNT_F3:
		return push_param(w, P0_CC, pkt_cc(k));
	case ETM4_PKT_I_TIMESTAMP:
		if (!(p = p0_push(w, P0_TS)))
			return ETM_WHY_NOMEM;
		p->val = k->pkt_valid.bits.ts_valid ? k->ts.timestamp : 0;
		/* P0_TS_CC: a cycle-accurate unit's timestamp carries the
		 * packet's count */
		p->bits = w->cfg.cci ? pkt_cc(k) : 0;
		return ETM_WHY_NONE;
	case ETE_PKT_I_TS_MARKER:
		return push_param(w, P0_MARKER, 0);
	case ETE_PKT_I_TRANS_ST:
		if (!p0_push(w, P0_TRANS_START))
			return ETM_WHY_NOMEM;
		if (w->cfg.comm_trans_p0)
			w->spec_depth++;
		return ETM_WHY_NONE;
	case ETE_PKT_I_TRANS_COMMIT:
	case ETE_PKT_I_TRANS_FAIL:
		return push_param(w, P0_TRANS, 0);
	default:
		return ETM_WHY_NR;
	}
}

/* decodePacket() */
static enum etm_why decode_packet(struct etm_walk *w,
				  const ocsd_etmv4_i_pkt *k)
{
	enum etm_why why;
	int is_addr = 0;

	switch ((int)k->type) {
	case ETM4_PKT_I_ASYNC:
	case ETM4_PKT_I_IGNORE:
	case ETM4_PKT_I_FUNC_RET:	/* nothing on an A-profile core */
		break;
	case ETM4_PKT_I_TRACE_INFO:
		rs_flush(w);
		break;
	case ETM4_PKT_I_MISPREDICT: case ETM4_PKT_I_CANCEL_F1:
	case ETM4_PKT_I_CANCEL_F1_MISPRED: case ETM4_PKT_I_CANCEL_F2:
	case ETM4_PKT_I_CANCEL_F3: case ETM4_PKT_I_COMMIT:
		return ETM_WHY_SPEC;
	case ETM4_PKT_I_OVERFLOW:
		w->prev_overflow = 1;
		/* fall through */
	case ETM4_PKT_I_DISCARD:
		w->spec_depth = 0;
		w->discard = 1;
		break;
	case ETM4_PKT_I_Q:
		return ETM_WHY_Q;
	case ETE_PKT_I_SRC_ADDR_MATCH: case ETE_PKT_I_SRC_ADDR_S_IS0:
	case ETE_PKT_I_SRC_ADDR_S_IS1: case ETE_PKT_I_SRC_ADDR_L_32IS0:
	case ETE_PKT_I_SRC_ADDR_L_32IS1: case ETE_PKT_I_SRC_ADDR_L_64IS0:
	case ETE_PKT_I_SRC_ADDR_L_64IS1:
		return ETM_WHY_SRC_ADDR;
	default:
		why = stack_packet(w, k, &is_addr);
		if (why == ETM_WHY_NR) {
			/* bad, reserved, unsupported (data trace,
			 * conditional trace) and unknown packets alike */
			bad_packet(w);
			return ETM_WHY_NONE;
		}
		if (why)
			return why;
		break;
	}
	if (is_addr && w->pending_addr) {
		w->spec_depth++;	/* the exception waited for it */
		w->pending_addr = 0;
	}
	if (w->spec_depth > (int64_t)w->cfg.max_spec)
		w->commit = w->spec_depth - (int64_t)w->cfg.max_spec;
	if (w->commit || w->discard)
		w->state = W_RESOLVE;
	return ETM_WHY_NONE;
}

/* processPacket() */
static enum etm_why process_packet(struct etm_walk *w,
				   const ocsd_etmv4_i_pkt *k)
{
	enum etm_why why;
	struct etm_elem *e;

	for (;;) {
		switch (w->state) {
		case W_NO_SYNC:
			w->nout = 0;
			if (!(e = out_add(w, OCSD_GEN_TRC_ELEM_NO_SYNC, w->idx)))
				return ETM_WHY_NOMEM;
			e->reason = w->unsync;
			out_send(w);
			w->state = W_WAIT_SYNC;
			continue;
		case W_WAIT_SYNC:
			if (k->type == ETM4_PKT_I_ASYNC)
				w->state = W_WAIT_TINFO;
			return ETM_WHY_NONE;
		case W_WAIT_TINFO:
			w->need_ctxt = w->need_addr = 1;
			if (k->type == ETM4_PKT_I_TRACE_INFO) {
				if (k->trace_info.bits.in_trans_state &&
				    !p0_push(w, P0_TRANS))
					return ETM_WHY_NOMEM;
				w->spec_depth = k->pkt_valid.bits.spec_depth_valid
							? k->curr_spec_depth
							: 0;
				w->state = W_DECODE;
				rs_flush(w);
			} else if (w->cfg.ete && k->type == ETM4_PKT_I_EVENT) {
				return decode_packet(w, k);
			}
			return ETM_WHY_NONE;
		case W_DECODE:
			if ((why = decode_packet(w, k)))
				return why;
			if (w->state != W_RESOLVE)
				return ETM_WHY_NONE;
			continue;
		default:
			/* a discard leaves the decoder unsynced: the NO_SYNC
			 * goes out at this very packet */
			if ((why = resolve(w)))
				return why;
			if (w->state == W_DECODE)
				return ETM_WHY_NONE;
			continue;
		}
	}
}

/* commitElemOnEOT(): what is left of the stack, then EO_TRACE. */
static enum etm_why end_of_trace(struct etm_walk *w)
{
	struct etm_p0 *p;
	struct etm_elem *e;
	enum etm_why why;

	while ((p = p0_oldest(w))) {
		switch (p->kind) {
		case P0_ATOM: case P0_TRC_ON: case P0_EXCEP:
		case P0_EXCEP_RET:
			w->p0_n = 0;	/* uncommitted P0: drop the rest */
			continue;
		case P0_TRANS_START:
			if (w->cfg.comm_trans_p0) {
				w->p0_n = 0;
				continue;
			}
			break;
		case P0_ADDR: case P0_CTXT: case P0_TRANS:
			break;
		default:
			if ((why = out_side(w, p)))
				return why;
			break;
		}
		p0_pop(w);
	}
	if (!(e = out_add(w, OCSD_GEN_TRC_ELEM_EO_TRACE, w->idx)))
		return ETM_WHY_NOMEM;
	e->reason = w->prev_overflow ? UNSYNC_OVERFLOW : UNSYNC_EOT;
	out_send(w);
	return ETM_WHY_NONE;
}

/* Whether the full decoder's guard keeps packet @k from OpenCSD: the walk
 * gives the window up there. */
static int packet_cut(struct etm_walk *w, const ocsd_etmv4_i_pkt *k)
{
	int cut = sy_etm_verdict_packet(&w->verdict, k);

	if (w->verdict.spec)
		return sy_etm_verdict_rs(&w->verdict, k) || cut;
	return cut || (k->type == ETM4_PKT_I_EXCEPT && exception_pops_empty(w));
}

/* The walk follows the code: in sync, at a known address, in a known
 * context. */
static int follows(const struct etm_walk *w)
{
	return w->state == W_DECODE && w->addr_known && !w->need_ctxt;
}

enum etm_why sy_etm_walk_op(struct etm_walk *w, ocsd_datapath_op_t op,
			 ocsd_trc_index_t idx, const ocsd_etmv4_i_pkt *pkt)
{
	enum etm_why why = ETM_WHY_NONE;
	enum etm_disagree d;

	if (op == OCSD_OP_RESET) {
		reset_decoder(w);
		w->have_ctx = 0;	/* as the converter's flow */
		w->addr_known = 0;
		w->unsync = UNSYNC_RESET_DECODER;
		w->why = ETM_WHY_NONE;
		w->mark.open = 0;
		w->packets = 0;
		w->disagree = 0;
		sy_etm_verdict_init(&w->verdict, w->cfg.max_spec,
				 w->cfg.ret_stack);
		return ETM_WHY_NONE;
	}
	if (w->why)
		return w->why;
	switch (op) {
	case OCSD_OP_DATA:
		if (!pkt)
			return give_up(w, ETM_WHY_TREE);
		w->packets++;
		w->idx = idx;
		if (packet_cut(w, pkt))
			why = ETM_WHY_GUARD;
		else if ((d = sy_etm_agree_packet(&w->agree, pkt, follows(w),
						  w->addr, w->need_addr)))
			why = disagree(w, d);
		else
			why = process_packet(w, pkt);
		break;
	case OCSD_OP_EOT:
		why = end_of_trace(w);
		break;
	default:		/* FLUSH: nothing is ever held back */
		break;
	}
	return why ? give_up(w, why) : ETM_WHY_NONE;
}

int sy_etm_walk_init(struct etm_walk *w, struct etm_src *src,
		  etm_walk_emit_fn emit, void *emit_ctx,
		  struct etm_blocks *blocks, const uint64_t *pos,
		  const uint32_t *ctxid, const struct etm_walk_cfg *cfg)
{
	memset(w, 0, sizeof(*w));
	w->src = src;
	w->emit = emit;
	w->emit_ctx = emit_ctx;
	w->blocks = blocks;
	w->pos = pos;
	w->ctxid = ctxid;
	w->cfg = *cfg;
	w->unsync = UNSYNC_INIT_DECODER;
	sy_etm_verdict_init(&w->verdict, cfg->max_spec, cfg->ret_stack);
	sy_etm_agree_init(&w->agree, cfg->max_spec, cfg->ret_stack,
			  cfg->branch_broadcast);
	reset_decoder(w);
	return 0;
}

void sy_etm_walk_renew(struct etm_walk *w)
{
	struct etm_walk was = *w;

	sy_etm_walk_init(w, was.src, was.emit, was.emit_ctx, was.blocks,
		      was.pos, was.ctxid, &was.cfg);
	/* the stacks' storage, empty (p0_n and nout are 0) */
	w->p0 = was.p0;
	w->p0_cap = was.p0_cap;
	w->out = was.out;
	w->out_idx = was.out_idx;
	w->out_cap = was.out_cap;
	w->runs = was.runs;
	w->direct = was.direct;
	w->fast = was.fast;
}

void sy_etm_walk_shortcuts(struct etm_walk *w, struct etm_runs *runs,
			struct etm_conv *cv)
{
	w->runs = runs;
	w->direct = cv;
	w->mark.open = 0;
}

void sy_etm_walk_fini(struct etm_walk *w)
{
	free(w->p0);
	free(w->out);
	free(w->out_idx);
	w->p0 = NULL;
	w->out = NULL;
	w->out_idx = NULL;
}
