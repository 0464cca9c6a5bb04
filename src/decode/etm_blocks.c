/* The ETM fast path's basic-block cache (see etm_blocks.h). */
#include <stdlib.h>
#include <string.h>

#include "etm_a64.h"
#include "etm_blocks.h"
#include "etm_ocsd.h"

int sy_etm_blocks_init(struct etm_blocks *b, struct sy_code_cache *code)
{
	b->code = code;
	b->v = malloc(ETM_BLOCKS * sizeof(*b->v));
	if (!b->v)
		return -SY_E_NOMEM;
	b->nused = ETM_BLOCKS_USED + 1;	/* nothing is empty yet */
	sy_etm_blocks_clear(b);
	return 0;
}

void sy_etm_blocks_fini(struct etm_blocks *b)
{
	free(b->v);
	b->v = NULL;
}

void sy_etm_blocks_clear(struct etm_blocks *b)
{
	/* every byte 0xff: start is ETM_NO_BLOCK (UINT64_MAX), the other
	 * fields are read only once start matches */
	if (b->nused > ETM_BLOCKS_USED)
		memset(b->v, 0xff, ETM_BLOCKS * sizeof(*b->v));
	else
		for (uint32_t i = 0; i < b->nused; i++)
			b->v[b->used[i]].start = ETM_NO_BLOCK;
	b->nused = 0;
	b->misses = 0;
}

/* The instruction word at @a as OpenCSD reads it: 0 when fewer than 4
 * bytes can be read there, or outside its memory accessor. */
static int word_at(struct etm_blocks *b, uint32_t ctxid, uint64_t a,
		   uint32_t *w)
{
	return a <= ETM_MEM_TOP && sy_code_cache_word(b->code, ctxid, a, w);
}

static void set_class(struct etm_block *e, const struct etm_a64_insn *in)
{
	e->type = in->type;
	e->subtype = in->subtype;
	e->link = in->link;
	e->cond = in->cond;
	e->target = in->target;
}

const struct etm_block *sy_etm_blocks_fill(struct etm_blocks *b,
					struct etm_block *e, uint64_t start,
					uint32_t ctxid, int wfi_wfe)
{
	struct etm_a64_insn in = { 0 };
	uint64_t a = start;
	uint32_t n = 0, w;

	b->misses++;
	if (b->nused < ETM_BLOCKS_USED)
		b->used[b->nused] = (uint16_t)(e - b->v);
	if (b->nused <= ETM_BLOCKS_USED)
		b->nused++;
	e->start = start;
	e->ctxid = ctxid;
	e->wfi_wfe = (uint8_t)wfi_wfe;
	e->nacc = 1;
	in.type = 0;
	/* A run of code without a waypoint ends where the mapping does
	 * (ADDR_NACC); 2^32 instructions of it cannot be told in an element
	 * (num_instr_range), nor be real: stop there as unreadable too. */
	while (n < UINT32_MAX && word_at(b, ctxid, a, &w)) {
		n++;
		a += 4;
		if (sy_etm_a64_decode(w, a - 4, wfi_wfe, &in)) {
			e->nacc = 0;
			break;
		}
	}
	set_class(e, &in);
	e->ninsn = n;
	e->end = a;
	return e;
}

uint64_t sy_etm_blocks_walk_to(struct etm_blocks *b, uint64_t start,
			    uint64_t to, uint32_t ctxid, int wfi_wfe,
			    uint64_t *end, int *nacc, struct etm_block *last)
{
	struct etm_a64_insn in = { 0 };
	uint64_t a = start, n = 0;
	uint32_t w = 0;

	*nacc = 1;
	while (word_at(b, ctxid, a, &w)) {
		n++;
		a += 4;
		if (a == to) {
			*nacc = 0;
			break;
		}
	}
	if (n)
		sy_etm_a64_decode(w, a - 4, wfi_wfe, &in);
	set_class(last, &in);
	*end = a;
	return n;
}
