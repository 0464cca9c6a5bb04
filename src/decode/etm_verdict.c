/* Which packets OpenCSD 1.3.3's ETMv4/ETE decoder must never see.
 *
 * Three packet sequences make the 1.3.3 decoder touch invalid memory (found
 * by tests/fuzz/fuzz_etm_decode.c and fuzz_etm_fastpath.c, each reproduced
 * with the C API alone):
 *
 * 1. A Commit packet while an Exception packet still waits for its
 *    address packet: TrcPktDecodeEtmV4I::processException() pops the
 *    exception element (and a context element) and reads the next one
 *    without checking that the stack has one.  The architecture puts the
 *    address right after the exception, so this is never valid trace.
 *
 * 2. TrcPktDecodeEtmV4I::mispredictAtom() walks the P0 element stack from
 *    the newest element to the first atom and erases every address element
 *    on the way with EtmV4P0Stack::erase_curr_from_front(), which in 1.3.3
 *    leaves the walk's iterator dangling (and leaks the element).  So a
 *    Mispredict packet, or a Cancel with a mispredict (Cancel F1-mispred,
 *    F2, F3), after an address packet that no atom followed, makes OpenCSD
 *    read freed or invalid memory.  OpenCSD fixed the function after 1.3.3.
 *
 * 3. With the return stack on (TRCCONFIGR.RS), committing an exception
 *    while a taken indirect branch left a pop pending: commitElements()
 *    pops the return stack first, an empty one is an error that resets
 *    the decoder (and empties the element stack), and processException()
 *    then runs anyway on the empty stack.  Two packets do it (a taken
 *    return, then an exception, right after a Trace Info); valid trace
 *    does it when an exception is taken at the target of such a branch
 *    before the stack holds a return address, or, on a unit that
 *    speculates, when a Trace Info (which empties the stack when decoded)
 *    comes before the branch's commit.  Whether the pop is pending and the
 *    stack empty depends on the code: the walk (etm_walk.c) knows; the rule
 *    here, from the packets alone, is what the guard falls back to where
 *    the walk cannot follow, and a speculating unit's.
 *
 * 4. On a unit that does not speculate (TRCIDR8.MAXSPEC 0), a Trace Info
 *    packet with a speculation depth: the decoder then holds the elements
 *    as uncommitted, and at the end of the trace commits them all, an
 *    Exception still waiting for its address among them, which
 *    processException() then reads past as in case 1.  The architecture
 *    bounds the depth by MAXSPEC, so such a Trace Info is never valid
 *    trace (found by fuzz_etm_decode once it ran 1,000 inputs a second:
 *    a damaged Trace Info of depth 3,689,179 before an Exception at the
 *    end of the data).
 *
 * 5. On a unit that does not speculate, any speculation resolution packet
 *    (Commit, Cancel, Mispredict): the architecture lets no P0 element be
 *    speculative on such a unit (TRCIDR8.MAXSPEC is the most that can be
 *    at any time), so there is nothing to commit, cancel or mispredict,
 *    and such a packet is never valid trace.  Cases 1 and 2 only cut
 *    such a packet where the stack held what 1.3.3 trips on, and that
 *    was not enough: fuzz_etm_fastpath found a Cancel after an address
 *    and atoms that the auto-commit had already taken, on which
 *    mispredictAtom() still walked a freed element.  Cutting them all
 *    loses nothing a correct trace holds.
 *
 * 6. On a unit that speculates, a Trace Info whose speculation depth, or
 *    a Commit or Cancel (format 1) whose count, is more than TRCIDR8.MAXSPEC
 *    (the most elements that can be speculative at any time, so never
 *    valid trace).  cancelElements() counts a Cancel down one element at
 *    a time, past the element stack against the count of speculative
 *    elements that came before the trace (m_unseen_spec_elem), which a
 *    new 1.3.3 decoder reads uninitialised (valgrind): a damaged Cancel of
 *    2,062,937,047 elements took 5 s under ASan, whose fresh memory makes
 *    that count huge (20 s, libFuzzer's timeout, on a loaded machine;
 *    found by fuzz_etm_fastpath once it ran 1,000 inputs a second), 1 s
 *    with glibc's MALLOC_PERTURB_, and its items depended on the heap.
 *    Bounded by MAXSPEC, a request ends after a few elements whatever that
 *    count holds; a Commit's count and a Trace Info's depth get the same
 *    bound.  Case 4 is this rule for Trace Info at MAXSPEC 0.
 *
 * No option of 1.3.3 turns these paths off, so the decoder must never see
 * such a packet.  On a unit that does not speculate the rules cut only
 * packets that are never valid (cases 4 and 5).  On one that speculates
 * they are conservative: they ask whether an address packet came since
 * the newest atom, not whether its element is still uncommitted.  A-Sync
 * and Trace Info do not clear that: a synchronised decoder keeps its
 * element stack across them (the first version of the guard assumed
 * otherwise, and the fuzzer found the crash again).  A rare valid
 * sequence is then cut, rather than crashing the process.
 */
#include <string.h>

#include "etm_pkt.h"
#include "etm_verdict.h"

static int is_src_addr(int t)
{
	return t >= ETE_PKT_I_SRC_ADDR_MATCH && t <= ETE_PKT_I_SRC_ADDR_L_64IS1;
}

static int is_mispredict(int t)
{
	return t == ETM4_PKT_I_MISPREDICT || t == ETM4_PKT_I_CANCEL_F1_MISPRED ||
	       t == ETM4_PKT_I_CANCEL_F2 || t == ETM4_PKT_I_CANCEL_F3;
}

/* A unit without speculation: nothing is ever speculative, so it never
 * sends what resolves speculation (case 5, which holds cases 1 and 2 for
 * such a unit), nor a Trace Info with a depth (case 4). */
static int verdict_plain(const ocsd_etmv4_i_pkt *k)
{
	int t = (int)k->type;

	if (t == ETM4_PKT_I_TRACE_INFO)
		return k->curr_spec_depth != 0;
	return t == ETM4_PKT_I_COMMIT || t == ETM4_PKT_I_CANCEL_F1 ||
	       is_mispredict(t);
}

/* Case 6: more elements speculative, committed or cancelled at once than
 * the unit can hold (TRCIDR8.MAXSPEC). */
static int over_max_spec(const struct etm_verdict *g,
			 const ocsd_etmv4_i_pkt *k)
{
	switch ((int)k->type) {
	case ETM4_PKT_I_TRACE_INFO:
		return k->curr_spec_depth > g->max_spec;
	case ETM4_PKT_I_COMMIT:
		return k->commit_elements > g->max_spec;
	case ETM4_PKT_I_CANCEL_F1:
	case ETM4_PKT_I_CANCEL_F1_MISPRED:
		return k->cancel_elements > g->max_spec;
	default:
		return 0;
	}
}

/* A unit that speculates: elements stay on the stack across atoms, but
 * mispredictAtom() only walks the elements newer than the newest atom,
 * and erasing the newest one is safe; it crashes on an address element
 * that a newer element buries. */
static int verdict_spec(struct etm_verdict *g, const ocsd_etmv4_i_pkt *k)
{
	int t = (int)k->type;

	if (over_max_spec(g, k))
		return 1;	/* case 6 */
	if (t == ETM4_PKT_I_EXCEPT)
		g->after_exc = 1;
	else if (etm_pkt_is_addr(t) || is_src_addr(t))
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
		if (etm_pkt_is_atom(t)) {
			g->addr_seen = g->addr_buried = 0;
		} else if (etm_pkt_is_addr(t)) {
			g->addr_seen = 1;
		} else if (g->addr_seen) {
			g->addr_buried = 1;
		}
		break;
	}
	return 0;
}

void sy_etm_verdict_init(struct etm_verdict *v, uint32_t max_spec, int rs)
{
	memset(v, 0, sizeof(*v));
	v->max_spec = max_spec;
	v->spec = max_spec != 0;
	v->rs = rs != 0;
}

int sy_etm_verdict_packet(struct etm_verdict *v, const ocsd_etmv4_i_pkt *k)
{
	return v->spec ? verdict_spec(v, k) : verdict_plain(k);
}

int sy_etm_verdict_rs(struct etm_verdict *v, const ocsd_etmv4_i_pkt *k)
{
	int t = (int)k->type, risk;

	if (!v->rs)
		return 0;
	if (t == ETM4_PKT_I_EXCEPT) {
		/* its commit takes the pending pop, if any */
		risk = v->rs_risk;
		v->rs_risk = 0;
		return risk;
	}
	if (etm_pkt_is_atom(t)) {
		/* A pop is left pending by a taken indirect branch: the
		 * newest atom when the atoms commit in order; a speculating
		 * unit may cancel or mispredict them later. */
		unsigned n = k->atom.num;

		v->rs_risk = v->spec || (n && ((k->atom.En_bits >> (n - 1)) & 1));
	} else if (is_src_addr(t) || is_mispredict(t) ||
		   t == ETM4_PKT_I_CANCEL_F1) {
		v->rs_risk = 1;
	} else if (etm_pkt_is_addr(t) || t == ETM4_PKT_I_TRACE_ON) {
		/* committed before the exception: an address takes the
		 * pop's place, Trace On empties the return stack */
		v->rs_risk = 0;
	} else if (t == ETM4_PKT_I_TRACE_INFO && !v->spec) {
		/* empties the return stack when decoded, after the older
		 * atoms (all committed unless the unit speculates) */
		v->rs_risk = 0;
	}
	return 0;
}
