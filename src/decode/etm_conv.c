/* OpenCSD generic elements -> struct sy_dec_item, per trace source.
 *
 * OpenCSD reports what executed as INSTR_RANGE elements: [st, en) with the
 * type of the last instruction and whether it was executed (E atom).  A
 * taken branch is thus known at the end of its range, but its target only
 * when the next element says where execution went:
 *
 *   next element        BRANCH to                          then
 *   INSTR_RANGE         its start address                  -
 *   EXCEPTION           the preferred return address: the  STOP
 *                       exception came before the target
 *                       executed ("addr also prev br tgt")
 *   ADDR_NACC           the inaccessible address (where    ERROR
 *                       the decoder tried to go)
 *   any discontinuity   direct: the target in the          START later
 *   (TRACE_ON, NO_SYNC, instruction encoding (the E atom
 *   overflow, errors,   proves it was taken); indirect:
 *   end of data)        nothing, the branch is dropped
 *
 * A dropped branch's instructions still count: its ninsn goes to the next
 * item.  No BRANCH ever joins a range before a discontinuity to one after
 * it.
 *
 * Elements and what they become:
 *   INSTR_RANGE    START(to = st) if the flow was not running; a range
 *                  that does not start where the previous one ended also
 *                  restarts the flow (START, no branch)
 *   EXCEPTION      STOP(SY_STOP_SYSCALL for type 2 "Call" = SVC/HVC/SMC,
 *                  else SY_STOP_EXCEPTION; to = preferred return address,
 *                  from = last executed instruction or 0, exc = number),
 *                  also while the flow is not running (no START first:
 *                  a traced kernel without its image would give a START /
 *                  STOP pair per kernel exception).
 *   TRACE_ON       normal reason while running: trace was filtered off
 *                  without an exception: STOP(SY_STOP_DISABLE).  Overflow
 *                  reason: OVERFLOW unless the overflow NO_SYNC gave it.
 *   NO_SYNC        overflow: OVERFLOW; bad packet: ERROR(
 *                  OCSD_ERR_BAD_DECODE_PKT); other reasons while running:
 *                  STOP(SY_STOP_DISABLE) (e.g. a 4 x FSYNC barrier reset)
 *   ADDR_NACC      ERROR(OCSD_ERR_MEM_NACC, to = the address), once per
 *                  gap: a traced kernel without its image gives one per
 *                  kernel excursion, not one per kernel atom
 *   PE_CONTEXT     CONTEXT when the context ID (or, with contextid2, the
 *                  VMID) changes
 *   TIMESTAMP      TIME
 *   EO_TRACE       running: STOP(SY_STOP_END, to = the next address when
 *                  known: the fall-through or a direct target, else 0);
 *                  reason overflow (an Overflow packet was the last one,
 *                  so no NO_SYNC came): OVERFLOW
 *   I_RANGE_NOPATH instructions counted, flow restarts
 *   others         ignored (cycle counts, events, EXCEPTION_RET: A-profile
 *                  ERET is already the last instruction of a range)
 * and from etm.c, not from elements:
 *   a fatal datapath response   ERROR(OCSD_ERR_DATA_DECODE_FATAL), every
 *                               source's flow lost (the tree is reset)
 *   a packet kept from OpenCSD  ERROR(OCSD_ERR_BAD_PACKET_SEQ) on its
 *   (etm_guard.c)               source, every flow lost
 *
 * TIME items that arrive while a branch waits for its target, or while
 * the flow waits for its restart address, are held back and delivered
 * right after the BRANCH / START (or before any other item); so are
 * CONTEXT items behind a pending branch, while a CONTEXT that comes before
 * a restart goes out before its START (it is the restart's context):
 * OpenCSD reports a timestamp when the next atom commits, i.e. between the
 * range that ends in the branch and the range of its target, and the
 * branch happened before it.
 */
#include <stddef.h>
#include <string.h>

#include "etm_conv.h"
#include "etm_runs.h"

static void src_reset(struct etm_src *s)
{
	uint8_t id = s->id, vmid = s->pid_vmid;

	memset(s, 0, sizeof(*s));
	s->id = id;
	s->pid_vmid = vmid;
}

void sy_etm_conv_reset(struct etm_conv *cv, uint64_t report_from,
		    uint64_t seam_at)
{
	sy_etm_ring_clear(&cv->ring);
	cv->report_from = report_from;
	cv->seam_at = seam_at;
	sy_etm_conv_restart(cv);
}

void sy_etm_conv_restart(struct etm_conv *cv)
{
	for (size_t i = 0; i < cv->nsrc; i++)
		src_reset(&cv->src[i]);
	memset(&cv->seam, 0, sizeof(cv->seam));
}

void sy_etm_elem_from_ocsd(struct etm_elem *out, const ocsd_generic_trace_elem *in)
{
	out->type = (uint8_t)in->elem_type;
	out->i_type = (uint8_t)in->last_i_type;
	out->i_subtype = (uint8_t)in->last_i_subtype;
	out->exec = (uint8_t)in->last_instr_exec;
	out->cond = (uint8_t)in->last_instr_cond;
	out->size = in->last_instr_sz;
	out->isa = (uint8_t)in->isa;
	out->ret_valid = (uint8_t)in->excep_ret_addr;
	out->ctxt_valid = (uint8_t)in->context.ctxt_id_valid;
	out->vmid_valid = (uint8_t)in->context.vmid_valid;
	/* trace_on_reason and unsync_eot_info share a union with the
	 * exception number: read the one the type says */
	switch (in->elem_type) {
	case OCSD_GEN_TRC_ELEM_TRACE_ON:
		out->reason = (uint8_t)in->trace_on_reason;
		break;
	case OCSD_GEN_TRC_ELEM_NO_SYNC:
	case OCSD_GEN_TRC_ELEM_EO_TRACE:
		out->reason = (uint8_t)in->unsync_eot_info;
		break;
	default:
		out->reason = 0;
		break;
	}
	out->has_cc = (uint8_t)in->has_cc;
	out->cc = in->has_cc ? in->cycle_count : 0;
	out->ninsn = in->num_instr_range;
	out->exc = in->exception_number;
	out->context_id = in->context.context_id;
	out->vmid = in->context.vmid;
	out->st = in->st_addr;
	out->en = in->en_addr;
	out->timestamp = in->timestamp;
}

/* The ring slot of the next item, zeroed but for its kind, its offset and
 * the instructions executed since the previous item; NULL when it is not
 * reported.  Hot items are filled in place (see etm_ring_put). */
static inline struct sy_dec_item *emit_slot(struct etm_conv *cv,
					    struct etm_src *s,
					    enum sy_dec_kind kind,
					    uint64_t off)
{
	uint64_t ninsn = s->ninsn;
	struct sy_dec_item *d;

	s->ninsn = 0;
	/* Decoded but not reported: the window asked to be reported from a
	 * later byte (it was decoded from an earlier sync point). */
	if (off < cv->report_from || !(d = etm_ring_put(&cv->ring)))
		return NULL;
	/* field by field: the caller's stores of the same fields follow,
	 * and the compiler merges them (a memset first did not) */
	d->kind = (uint8_t)kind;
	d->br = 0;
	d->exc = 0;
	d->code = 0;
	d->from = 0;
	d->to = 0;
	d->time = 0;
	d->ninsn = ninsn;
	d->offset = off;
	return d;
}

static inline void emit(struct etm_conv *cv, struct etm_src *s,
			const struct sy_dec_item *it)
{
	struct sy_dec_item *d =
		emit_slot(cv, s, (enum sy_dec_kind)it->kind, it->offset);

	if (d) {
		uint64_t ninsn = d->ninsn;

		*d = *it;
		d->ninsn = ninsn;
	}
}

static void release_deferred(struct etm_conv *cv, struct etm_src *s)
{
	for (unsigned i = 0; i < s->ndefer; i++)
		emit(cv, s, &s->defer[i]);
	s->ndefer = 0;
}

static void item_init(struct sy_dec_item *it, enum sy_dec_kind kind,
		      uint64_t off)
{
	memset(it, 0, sizeof(*it));
	it->kind = (uint8_t)kind;
	it->offset = off;
}

/* Emits an item that must not be overtaken by held-back ones. */
static void emit_flow(struct etm_conv *cv, struct etm_src *s,
		      struct sy_dec_item *it)
{
	release_deferred(cv, s);
	emit(cv, s, it);
}

/* TIME / CONTEXT: held back while the flow waits for an address. */
static void emit_side(struct etm_conv *cv, struct etm_src *s,
		      struct sy_dec_item *it)
{
	if (s->started && !s->pending) {
		emit(cv, s, it);
		return;
	}
	/* A pathological stream can pile up more than we hold; then they
	 * simply go out before the BRANCH / START they should follow. */
	if (s->ndefer == ETM_DEFER_MAX)
		release_deferred(cv, s);
	s->defer[s->ndefer++] = *it;
}

/* A BRANCH, written straight into its ring slot (the item of every taken
 * branch). */
static inline void emit_branch(struct etm_conv *cv, struct etm_src *s,
			       uint64_t to, uint64_t off)
{
	struct sy_dec_item *d = emit_slot(cv, s, SY_DEC_BRANCH, off);

	if (d) {
		d->br = s->pend_br;
		d->from = s->pend_from;
		d->to = to;
	}
	s->pending = 0;
	s->next_pc = to;
	s->have_next = 1;
	if (s->ndefer)
		release_deferred(cv, s);
}

static void emit_start(struct etm_conv *cv, struct etm_src *s, uint64_t to,
		       uint64_t off)
{
	struct sy_dec_item it;

	item_init(&it, SY_DEC_START, off);
	it.to = to;
	s->started = 1;
	s->nacc_reported = 0;
	s->have_last = 0;
	s->have_next = 0;
	emit(cv, s, &it);
	release_deferred(cv, s);
}

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);

	v &= (1ull << bits) - 1;
	return (int64_t)((v ^ m) - m);
}

/* Target of the A64 direct branch @w at @pc: B, BL, B.cond, BC.cond,
 * CBZ/CBNZ, TBZ/TBNZ.  Returns 0 if @w is none of them. */
static int a64_direct_target(uint32_t w, uint64_t pc, uint64_t *to)
{
	int64_t off;

	if ((w & 0x7c000000u) == 0x14000000u)		/* B, BL */
		off = sext(w, 26) * 4;
	else if ((w & 0xff000000u) == 0x54000000u)	/* B.cond, BC.cond */
		off = sext(w >> 5, 19) * 4;
	else if ((w & 0x7e000000u) == 0x34000000u)	/* CBZ, CBNZ */
		off = sext(w >> 5, 19) * 4;
	else if ((w & 0x7e000000u) == 0x36000000u)	/* TBZ, TBNZ */
		off = sext(w >> 5, 14) * 4;
	else
		return 0;
	*to = pc + (uint64_t)off;
	return 1;
}

/* The flow ends without the trace saying where the pending branch went:
 * keep it if its target is in its encoding, else drop it (its
 * instructions stay counted in s->ninsn for the next item). */
static void resolve_at_gap(struct etm_conv *cv, struct etm_src *s, uint64_t off)
{
	uint32_t w;
	uint64_t to;

	if (!s->pending)
		return;
	s->pending = 0;
	s->have_next = 0;
	if (!s->pend_direct || !s->pend_a64 ||
	    !sy_code_cache_word(cv->code, etm_conv_ctxid(cv, s), s->pend_from,
				&w))
		return;
	if (!a64_direct_target(w, s->pend_from, &to))
		return;
	s->pending = 1;
	emit_branch(cv, s, to, off);
}

/* Trace stops without an exception: STOP(@code) when the flow runs. */
static void stop_gap(struct etm_conv *cv, struct etm_src *s, uint64_t off,
		     enum sy_stop_reason code)
{
	struct sy_dec_item it;

	if (!s->started)
		return;
	resolve_at_gap(cv, s, off);
	item_init(&it, SY_DEC_STOP, off);
	it.code = code;
	it.from = s->have_last ? s->last_pc : 0;
	it.to = s->have_next ? s->next_pc : 0;
	s->started = 0;
	s->lost = 0;
	emit_flow(cv, s, &it);
}

static void lose_flow(struct etm_conv *cv, struct etm_src *s, uint64_t off)
{
	if (s->started)
		resolve_at_gap(cv, s, off);
	s->pending = 0;
	s->started = 0;
	s->lost = 0;	/* what restarts the flow says where it is */
}

static void overflow(struct etm_conv *cv, struct etm_src *s, uint64_t off)
{
	struct sy_dec_item it;

	lose_flow(cv, s, off);
	item_init(&it, SY_DEC_OVERFLOW, off);
	s->ovf_reported = 1;
	emit_flow(cv, s, &it);
}

static void emit_error(struct etm_conv *cv, struct etm_src *s, uint64_t off,
		  uint32_t code, uint64_t addr)
{
	struct sy_dec_item it;

	lose_flow(cv, s, off);
	item_init(&it, SY_DEC_ERROR, off);
	it.code = code;
	it.to = addr;
	emit_flow(cv, s, &it);
}

uint8_t sy_etm_conv_branch_kind(uint8_t i_type, uint8_t i_subtype, uint8_t cond)
{
	if (i_type == OCSD_INSTR_BR) {
		if (i_subtype == OCSD_S_INSTR_BR_LINK)
			return SY_BR_CALL;
		return cond ? SY_BR_COND : SY_BR_JUMP;
	}
	switch (i_subtype) {
	case OCSD_S_INSTR_BR_LINK:
		return SY_BR_IND_CALL;
	case OCSD_S_INSTR_V8_RET:
	case OCSD_S_INSTR_V7_IMPLIED_RET:
		return SY_BR_RET;
	case OCSD_S_INSTR_V8_ERET:
		return SY_BR_ERET;
	default:
		return SY_BR_IND_JUMP;
	}
}

/* The seam (sy_decoder_set_seam): the first element past the
 * synchronisation at cv->seam_at that executes code at its address.  It is
 * converted as usual, then the window ends: everything after is the next
 * piece's, which a fresh decoder gives from the synchronisation on, once
 * its first START or ERROR (this element's) is dropped. */
static int at_seam(struct etm_conv *cv, struct etm_src *s, uint64_t off,
		   uint64_t st)
{
	if (off < cv->seam_at)
		return 0;
	s->seam_done = 1;
	cv->seam.reached = 1;
	cv->seam.to = st;
	return 1;
}

/* After trace and code disagreed, where the decoder walks is not where
 * execution went (a damaged atom or address sent it elsewhere) until the
 * trace says so again: a taken indirect branch's target comes from the
 * trace (an address packet), so the range after one is where execution
 * is; exceptions, overflows and resynchronisations end the state in
 * lose_flow() and stop_gap().  Returns 1 to drop range @i_type / @exec. */
static int lost_range(struct etm_src *s, uint8_t i_type, uint8_t exec)
{
	if (s->lost_anchor) {
		s->lost = s->lost_anchor = 0;
		return 0;
	}
	if (exec && i_type == OCSD_INSTR_BR_INDIRECT)
		s->lost_anchor = 1;
	return 1;
}

/* An INSTR_RANGE [@st, @en) of @ninsn instructions whose last is of class
 * @i_type / @i_subtype / @cond, executed (@exec) or not, @size bytes long
 * (0: 4), in @isa.  Inline: the fast path's direct lane calls it for every
 * atom (sy_etm_conv_range). */
static inline void conv_range(struct etm_conv *cv, struct etm_src *s,
			      uint64_t off, uint64_t st, uint64_t en,
			      uint32_t ninsn, uint8_t i_type, uint8_t i_subtype,
			      uint8_t cond, uint8_t exec, uint8_t size,
			      uint8_t isa)
{
	uint64_t sz = size ? size : 4;
	int seam = at_seam(cv, s, off, st);

	if (s->lost && lost_range(s, i_type, exec))
		return;
	if (s->pending) {
		emit_branch(cv, s, st, off);
	} else if (!s->started ||
		   (s->have_next && s->next_pc != st)) {
		/* Not where the previous range said execution goes: never
		 * splice, restart the flow. */
		if (s->started)
			stop_gap(cv, s, off, SY_STOP_DISABLE);
		emit_start(cv, s, st, off);
	}
	if (seam)
		return;
	if (!exec && !cond && isa == ocsd_isa_aarch64 &&
	    (i_type == OCSD_INSTR_BR || i_type == OCSD_INSTR_BR_INDIRECT)) {
		/* an unconditional branch not taken: no execution of this
		 * code gives that N atom (an exception at the branch ends
		 * the range before it) */
		emit_error(cv, s, off, SY_DEC_ERR_DISAGREE, en - sz);
		s->lost = 1;
		s->lost_anchor = 0;
		return;
	}
	s->ninsn += ninsn;
	s->last_pc = en - sz;
	s->have_last = 1;
	s->next_pc = en;
	s->have_next = 1;
	if (exec && (i_type == OCSD_INSTR_BR ||
		     i_type == OCSD_INSTR_BR_INDIRECT)) {
		s->pending = 1;
		s->pend_from = s->last_pc;
		s->pend_br = sy_etm_conv_branch_kind(i_type, i_subtype, cond);
		s->pend_direct = i_type == OCSD_INSTR_BR;
		s->pend_a64 = isa == ocsd_isa_aarch64;
		s->have_next = 0;
	}
}

void sy_etm_conv_range(struct etm_conv *cv, struct etm_src *s, uint64_t off,
		    uint64_t st, uint64_t en, uint32_t ninsn, uint8_t i_type,
		    uint8_t i_subtype, uint8_t cond, uint8_t exec)
{
	if (!s->seam_done)
		conv_range(cv, s, off, st, en, ninsn, i_type, i_subtype, cond,
			   exec, 4, ocsd_isa_aarch64);
}

int sy_etm_conv_run(struct etm_conv *cv, struct etm_src *s, uint64_t off,
		 const struct etm_run *run)
{
	const struct etm_run_range *r = run->r;
	const struct etm_run_range *last = &r[run->nr - 1];

	/* the cases conv_range() handles that a run's later ranges could
	 * meet: a seam, dropped items, held-back items */
	if (s->seam_done || off >= cv->seam_at || off < cv->report_from ||
	    cv->ring.skip || s->ndefer || s->lost)
		return 0;
	conv_range(cv, s, off, r->st, r->en, r->ninsn, r->type, r->subtype,
		   r->cond, r->exec, 4, ocsd_isa_aarch64);
	/* The others start where the one before went (its end, or its
	 * taken branch's target): conv_range() without a START, STOP or
	 * seam.  Their branches are the run's, handed out as one item
	 * (emit_branch() for each, with nothing held back), counted as as
	 * many pushes (the full decoder makes an item of each); the state
	 * is written once at the end. */
	if (run->branches.n) {
		struct sy_dec_item *d =
			emit_slot(cv, s, SY_DEC_BRANCHES, off);

		if (d) {
			d->code = run->branches.n;
			d->run = &run->branches;
			cv->ring.pushed += run->branches.n - 1;
		}
		s->ninsn = run->tail_ninsn;
	} else {
		s->ninsn += run->tail_ninsn;
	}
	if (run->nr > 1) {
		s->pending = last->br != 0;
		if (s->pending) {
			s->pend_from = last->en - 4;
			s->pend_br = last->br;
			s->pend_direct = last->type == OCSD_INSTR_BR;
			s->pend_a64 = 1;
		}
	}
	s->last_pc = last->en - 4;
	s->have_last = 1;
	s->next_pc = last->en;
	s->have_next = !s->pending;
	return 1;
}

void sy_etm_conv_pos_save(const struct etm_conv *cv, struct etm_conv_pos *p)
{
	p->count = etm_ring_count(&cv->ring);
	p->pushed = cv->ring.pushed;
	p->seam = cv->seam;
}

void sy_etm_conv_pos_restore(struct etm_conv *cv, const struct etm_conv_pos *p)
{
	/* nothing popped, so the items since are the newest */
	cv->ring.head = cv->ring.tail + p->count;
	cv->ring.pushed = p->pushed;
	cv->seam = p->seam;
}

int sy_etm_conv_mark(const struct etm_conv *cv, const struct etm_src *s,
		  struct sy_etm_conv_mark *m)
{
	if (s->ndefer || cv->ring.skip)
		return 0;
	memcpy(&m->src, s, offsetof(struct etm_src, defer));
	sy_etm_conv_pos_save(cv, &m->pos);
	m->open = 1;
	return 1;
}

void sy_etm_conv_undo(struct etm_conv *cv, struct etm_src *s,
		   struct sy_etm_conv_mark *m)
{
	if (!m->open)
		return;
	/* nothing pops the ring while the walk runs (etm.c pops between
	 * pumps) */
	memcpy(s, &m->src, offsetof(struct etm_src, defer));
	s->ndefer = 0;
	sy_etm_conv_pos_restore(cv, &m->pos);
	m->open = 0;
}

static void conv_exception(struct etm_conv *cv, struct etm_src *s, uint64_t off,
			   const struct etm_elem *el)
{
	struct sy_dec_item it;
	uint64_t ret = el->ret_valid ? el->en : 0;

	if (s->pending) {
		/* Nothing ran between the branch and the exception: the
		 * return address is the branch target. */
		if (el->ret_valid)
			emit_branch(cv, s, ret, off);
		else
			resolve_at_gap(cv, s, off);
	}
	item_init(&it, SY_DEC_STOP, off);
	it.code = el->exc == 0x2 ? SY_STOP_SYSCALL
					      : SY_STOP_EXCEPTION;
	it.exc = (uint16_t)el->exc;
	it.to = ret;
	it.from = s->started && s->have_last ? s->last_pc : 0;
	s->pending = 0;
	s->started = 0;
	s->lost = 0;	/* the exception's address says where it is */
	emit_flow(cv, s, &it);
}

static void conv_context(struct etm_conv *cv, struct etm_src *s, uint64_t off,
			 const struct etm_elem *el)
{
	struct sy_dec_item it;
	uint32_t id;

	if (s->pid_vmid) {
		if (!el->vmid_valid)
			return;
		id = el->vmid;
	} else {
		if (!el->ctxt_valid)
			return;
		id = el->context_id;
	}
	if (s->have_ctx && s->ctxid == id)
		return;
	/* Set now, not when the item is pulled: OpenCSD reads the code of
	 * the following ranges before next() sees this item. */
	s->have_ctx = 1;
	s->ctxid = id;
	item_init(&it, SY_DEC_CONTEXT, off);
	it.code = id;
	/* While the flow waits for its restart address the new context is
	 * the restart's: it goes out before the START, so that the stretch
	 * the START opens belongs to it.  Behind a pending branch it is the
	 * target's context and follows the BRANCH. */
	if (!s->started) {
		release_deferred(cv, s);
		emit(cv, s, &it);
		return;
	}
	emit_side(cv, s, &it);
}

static void conv_no_sync(struct etm_conv *cv, struct etm_src *s, uint64_t off,
			 const struct etm_elem *el)
{
	switch (el->reason) {
	case UNSYNC_OVERFLOW:
		overflow(cv, s, off);
		break;
	case UNSYNC_BAD_PACKET:
		emit_error(cv, s, off, OCSD_ERR_BAD_DECODE_PKT, 0);
		break;
	default:
		stop_gap(cv, s, off, SY_STOP_DISABLE);
		lose_flow(cv, s, off);
		break;
	}
}

static void conv_trace_on(struct etm_conv *cv, struct etm_src *s, uint64_t off,
			  const struct etm_elem *el)
{
	if (el->reason == TRACE_ON_OVERFLOW) {
		/* Normally the overflow NO_SYNC came first. */
		if (!s->ovf_reported)
			overflow(cv, s, off);
		s->ovf_reported = 0;
		return;
	}
	stop_gap(cv, s, off, SY_STOP_DISABLE);
	s->nacc_reported = 0;
}

/* CYCLES: held back as TIME is, so that a count follows the flow it
 * came after. */
static void conv_cycles(struct etm_conv *cv, struct etm_src *s, uint64_t off,
			uint32_t cc)
{
	struct sy_dec_item it;

	item_init(&it, SY_DEC_CYCLES, off);
	it.code = cc;
	emit_side(cv, s, &it);
}

static void conv_nacc(struct etm_conv *cv, struct etm_src *s, uint64_t off,
		      const struct etm_elem *el)
{
	at_seam(cv, s, off, el->st);
	/* The decoder tried to go to st_addr: that is where a pending
	 * branch went. */
	if (s->pending)
		emit_branch(cv, s, el->st, off);
	if (s->nacc_reported) {
		lose_flow(cv, s, off);
		return;
	}
	s->nacc_reported = 1;
	emit_error(cv, s, off, OCSD_ERR_MEM_NACC, el->st);
}

void sy_etm_conv_end(struct etm_conv *cv, struct etm_src *s, uint64_t off)
{
	if (s->ended || s->seam_done)
		return;
	s->ended = 1;
	stop_gap(cv, s, off, SY_STOP_END);
	s->pending = 0;
	release_deferred(cv, s);
}

void sy_etm_conv_elem(struct etm_conv *cv, struct etm_src *s, uint64_t off,
		   const struct etm_elem *el)
{
	struct sy_dec_item it;

	if (s->seam_done)
		return;
	switch (el->type) {
	case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
		conv_range(cv, s, off, el->st, el->en, el->ninsn, el->i_type,
			   el->i_subtype, el->cond, el->exec, el->size,
			   el->isa);
		break;
	case OCSD_GEN_TRC_ELEM_EXCEPTION:
		conv_exception(cv, s, off, el);
		break;
	case OCSD_GEN_TRC_ELEM_PE_CONTEXT:
		conv_context(cv, s, off, el);
		break;
	case OCSD_GEN_TRC_ELEM_TIMESTAMP:
		item_init(&it, SY_DEC_TIME, off);
		it.time = el->timestamp;
		emit_side(cv, s, &it);
		if (el->has_cc)
			conv_cycles(cv, s, off, el->cc);
		break;
	case OCSD_GEN_TRC_ELEM_CYCLE_COUNT:
		if (el->has_cc)
			conv_cycles(cv, s, off, el->cc);
		break;
	case OCSD_GEN_TRC_ELEM_TRACE_ON:
		conv_trace_on(cv, s, off, el);
		break;
	case OCSD_GEN_TRC_ELEM_NO_SYNC:
		conv_no_sync(cv, s, off, el);
		break;
	case OCSD_GEN_TRC_ELEM_ADDR_NACC:
		conv_nacc(cv, s, off, el);
		break;
	case OCSD_GEN_TRC_ELEM_ADDR_UNKNOWN:
		lose_flow(cv, s, off);
		break;
	case OCSD_GEN_TRC_ELEM_I_RANGE_NOPATH:
		/* Executed, but the path is unknown: count, then restart. */
		lose_flow(cv, s, off);
		s->ninsn += el->ninsn;
		break;
	case OCSD_GEN_TRC_ELEM_EO_TRACE:
		/* An Overflow packet that is the last packet gives no NO_SYNC,
		 * only this reason on the end of trace. */
		if (el->reason == UNSYNC_OVERFLOW && !s->ovf_reported)
			overflow(cv, s, off);
		sy_etm_conv_end(cv, s, off);
		break;
	default:
		break;
	}
}

void sy_etm_conv_cut(struct etm_conv *cv, uint8_t id, uint64_t off, uint32_t code)
{
	for (size_t i = 0; i < cv->nsrc; i++) {
		struct etm_src *s = &cv->src[i];

		if (s->id == id)
			emit_error(cv, s, off, code, 0);
		else
			lose_flow(cv, s, off);
	}
}

void sy_etm_conv_fatal(struct etm_conv *cv, uint64_t off, uint32_t code)
{
	for (size_t i = 0; i < cv->nsrc; i++) {
		struct etm_src *s = &cv->src[i];

		/* The error belongs to the window, but items carry no trace
		 * ID: report it once, on the first source. */
		if (i == 0)
			emit_error(cv, s, off, code, 0);
		else
			lose_flow(cv, s, off);
	}
}
