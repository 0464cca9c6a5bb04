/* The walk's two stacks, private to etm_walk.c: the return stack (the
 * addresses a return may take from it, as OpenCSD keeps them) and the P0
 * stack (elements waiting for their atoms or addresses).  Inline: they
 * run for every packet, and the walk is the fast path. */
#ifndef SY_ETM_WALK_STACKS_H
#define SY_ETM_WALK_STACKS_H

#include <stdlib.h>

#include "etm_walk.h"

enum etm_wstate {
	W_NO_SYNC,
	W_WAIT_SYNC,
	W_WAIT_TINFO,
	W_DECODE,
	W_RESOLVE,
};

enum etm_p0_kind {
	P0_ATOM = 1,
	P0_ADDR,
	P0_CTXT,
	P0_TRC_ON,
	P0_EXCEP,
	P0_EXCEP_RET,
	P0_EVENT,
	P0_TS,
	P0_CC,
	P0_MARKER,
	P0_TRANS_START,		/* P0 when transactions start P0 elements */
	P0_TRANS,		/* commit, fail, trace init: no item */
};

const char *sy_etm_why_name(enum etm_why why)
{
	static const char *const names[ETM_WHY_NR] = {
		[ETM_WHY_NONE] = "none",	 [ETM_WHY_SPEC] = "speculation",
		[ETM_WHY_GUARD] = "guard",
		[ETM_WHY_Q] = "q",		 [ETM_WHY_ISA] = "a32-t32",
		[ETM_WHY_SRC_ADDR] = "src-addr", [ETM_WHY_SEQ] = "sequence",
		[ETM_WHY_DISAGREE] = "disagree", [ETM_WHY_TREE] = "tree",
		[ETM_WHY_NOMEM] = "nomem",
	};

	return (unsigned)why < ETM_WHY_NR ? names[why] : "?";
}

void sy_etm_walk_cfg_from(struct etm_walk_cfg *cfg, const ocsd_etmv4_cfg *c)
{
	unsigned maj = (c->reg_idr1 >> 8) & 0xf, min = (c->reg_idr1 >> 4) & 0xf;
	unsigned full = maj << 4 | min;

	cfg->max_spec = c->reg_idr8;
	cfg->ete = maj >= 5;
	cfg->ts_marker = full >= 0x51 && (c->reg_idr0 & 0x800000u);
	cfg->ret_stack = (c->reg_configr & (1u << 12)) != 0;
	cfg->branch_broadcast = (c->reg_configr & (1u << 3)) != 0;
	cfg->wfi_wfe = (c->reg_idr2 & 0x80000000u) && full >= 0x43;
	cfg->comm_trans_p0 = (c->reg_idr0 & 0x40000000u) == 0;
	cfg->cci = (c->reg_configr & (1u << 4)) != 0;
}

/* ---- the return stack ---- */

static inline void rs_flush(struct etm_walk *w)
{
	w->rs_n = 0;
	w->rs_pop_pending = 0;
}

static inline void rs_push(struct etm_walk *w, uint64_t a, uint8_t isa)
{
	if (!w->cfg.ret_stack)
		return;
	w->rs_head = (w->rs_head + 1) & 0xf;
	w->rs_addr[w->rs_head] = a;
	w->rs_isa[w->rs_head] = isa;
	if (++w->rs_n > 16)
		w->rs_n = 16;
	w->rs_pop_pending = 0;
}

/* returnStackPop(): an indirect branch left its target to the stack. */
static inline enum etm_why rs_pop_pending(struct etm_walk *w)
{
	if (!w->rs_pop_pending)
		return ETM_WHY_NONE;
	w->rs_pop_pending = 0;
	if (w->rs_n <= 0)
		return ETM_WHY_SEQ;	/* OpenCSD: return stack overflow */
	w->addr = w->rs_addr[w->rs_head];
	w->addr_known = 1;
	w->isa = w->rs_isa[w->rs_head];
	w->rs_head = (w->rs_head - 1) & 0xf;
	w->rs_n--;
	w->need_addr = 0;
	return ETM_WHY_NONE;
}

/* Whether committing an Exception packet decoded now would make OpenCSD
 * 1.3.3 pop an empty return stack (etm_verdict.c, case 3), on a unit that
 * does not speculate.  The elements older than it still on the stack
 * commit first: an address takes the pop's place, Trace On empties the
 * stack.  An older P0 element is not followed: say yes (the trace is
 * invalid, the full decoder cuts the packet as the walk gives up). */
static inline int exception_pops_empty(const struct etm_walk *w)
{
	int pending = w->rs_pop_pending, n = w->rs_n;

	if (!w->cfg.ret_stack || w->state != W_DECODE)
		return 0;
	for (size_t i = 0; i < w->p0_n; i++) {
		switch (w->p0[(w->p0_old + i) & (w->p0_cap - 1)].kind) {
		case P0_ADDR:
			pending = 0;
			break;
		case P0_TRC_ON:
			pending = 0;
			n = 0;
			break;
		case P0_ATOM: case P0_EXCEP:
			return 1;
		case P0_TRANS_START:
			if (w->cfg.comm_trans_p0)
				return 1;
			break;
		default:
			break;
		}
	}
	return pending && n <= 0;
}

/* ---- the P0 stack ---- */

static inline struct etm_p0 *p0_oldest(struct etm_walk *w)
{
	return w->p0_n ? &w->p0[w->p0_old] : NULL;
}

static inline void p0_pop(struct etm_walk *w)
{
	if (!w->p0_n)
		return;
	w->p0_old = (w->p0_old + 1) & (w->p0_cap - 1);
	w->p0_n--;
}

/* A new newest element; the caller sets the fields its kind uses. */
static inline struct etm_p0 *p0_push(struct etm_walk *w, uint8_t kind)
{
	struct etm_p0 *e;

	if (w->p0_n == w->p0_cap) {
		size_t cap = w->p0_cap ? 2 * w->p0_cap : 16;
		struct etm_p0 *v = malloc(cap * sizeof(*v));

		if (!v)
			return NULL;
		for (size_t i = 0; i < w->p0_n; i++)
			v[i] = w->p0[(w->p0_old + i) & (w->p0_cap - 1)];
		free(w->p0);
		w->p0 = v;
		w->p0_old = 0;
		w->p0_cap = cap;
	}
	e = &w->p0[(w->p0_old + w->p0_n++) & (w->p0_cap - 1)];
	e->kind = kind;
	e->idx = w->idx;
	return e;
}

#endif
