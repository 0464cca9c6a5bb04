/* The ETM fast path's atom-run cache (see etm_runs.h). */
#include <stdlib.h>

#include "etm_conv.h"
#include "etm_runs.h"

int sy_etm_runs_init(struct etm_runs *c, struct etm_blocks *blocks)
{
	c->blocks = blocks;
	c->v = calloc(ETM_RUNS, sizeof(*c->v));
	if (!c->v)
		return -SY_E_NOMEM;
	c->gen = 1;		/* calloc's zeros are generation 0: empty */
	c->epoch = 1;		/* and epoch 0: not pinned */
	c->hits = c->misses = c->pinned = 0;
	return 0;
}

void sy_etm_runs_fini(struct etm_runs *c)
{
	free(c->v);
	c->v = NULL;
}

void sy_etm_runs_clear(struct etm_runs *c)
{
	if (++c->gen == 0) {	/* wrapped: generation 0 must mean empty */
		for (size_t i = 0; i < ETM_RUNS; i++)
			c->v[i].gen = 0;
		c->gen = 1;
	}
	/* the window's items went with it */
	etm_runs_unpin(c);
	c->hits = c->misses = c->pinned = 0;
}

/* process_atom() for each atom, without a return stack: the blocks, the
 * ranges, the address.  Returns 0 when a block cannot be read. */
static int run_fill(struct etm_runs *c, struct etm_run *e, uint64_t addr,
		    uint32_t ctxid, int wfi_wfe, uint32_t bits,
		    unsigned natoms)
{
	e->nr = 0;
	e->need_addr = 0;
	for (unsigned i = 0; i < natoms && !e->need_addr; i++) {
		const struct etm_block *b =
			etm_blocks_get(c->blocks, addr, ctxid, wfi_wfe);
		struct etm_run_range *r = &e->r[e->nr++];
		int taken = (bits >> i) & 1;

		/* an unconditional branch not taken: conv_range() reports
		 * it (etm_conv.c), so no run holds one */
		if (b->nacc || (!taken && !b->cond &&
				(b->type == OCSD_INSTR_BR ||
				 b->type == OCSD_INSTR_BR_INDIRECT)))
			return 0;
		r->st = addr;
		r->en = b->end;
		r->ninsn = b->ninsn;
		r->type = b->type;
		r->subtype = b->subtype;
		r->cond = b->cond;
		r->exec = (uint8_t)taken;
		r->br = 0;
		addr = b->end;
		if (taken && b->type == OCSD_INSTR_BR) {
			addr = b->target;
			r->br = sy_etm_conv_branch_kind(b->type, b->subtype, b->cond);
		} else if (taken && b->type == OCSD_INSTR_BR_INDIRECT) {
			e->need_addr = 1;
			r->br = sy_etm_conv_branch_kind(b->type, b->subtype, b->cond);
		}
	}
	e->end = addr;
	return 1;
}

/* The taken branches between the ranges, as sy_etm_conv_run hands them out:
 * what emit_branch() would give for each (etm_conv.c). */
static void run_branches(struct etm_run *e)
{
	uint64_t acc = 0, total = 0;
	uint32_t n = 0;

	for (unsigned i = 1; i < e->nr; i++) {
		const struct etm_run_range *p = &e->r[i - 1];

		if (p->br) {
			e->br[n++] = (struct sy_dec_br){
				.from = p->en - 4,
				.to = e->r[i].st,
				.ninsn = (uint32_t)acc,
				.br = p->br,
			};
			total += acc;
			acc = 0;
		}
		acc += e->r[i].ninsn;
	}
	e->branches.v = e->br;
	e->branches.n = n;
	e->branches.ninsn = total;
	e->tail_ninsn = acc;
}

const struct etm_run *sy_etm_runs_get(struct etm_runs *c, uint64_t addr,
				   uint32_t ctxid, int wfi_wfe, uint32_t bits,
				   unsigned natoms)
{
	struct etm_run *e =
		&c->v[((addr >> 2) ^ (addr >> 13) ^ bits * 0x9e3779b1u ^
		       natoms * 0x85ebu ^ ctxid * 0x9e5u) &
		      (ETM_RUNS - 1)];

	if (e->gen == c->gen && e->addr == addr && e->bits == bits &&
	    e->natoms == natoms && e->ctxid == ctxid &&
	    e->wfi_wfe == wfi_wfe) {
		c->hits++;
		e->pin = c->epoch;
		return e;
	}
	if (e->pin == c->epoch) {
		/* an item not taken yet points at it */
		c->pinned++;
		return NULL;
	}
	c->misses++;
	e->gen = 0;
	if (natoms > ETM_RUN_MAX ||
	    !run_fill(c, e, addr, ctxid, wfi_wfe, bits, natoms))
		return NULL;
	run_branches(e);
	e->pin = c->epoch;
	e->addr = addr;
	e->ctxid = ctxid;
	e->bits = bits;
	e->natoms = (uint8_t)natoms;
	e->wfi_wfe = (uint8_t)wfi_wfe;
	e->gen = c->gen;
	return e;
}
