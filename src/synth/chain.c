#include "chain.h"

#include <stdlib.h>

#include "sy_error.h"

static size_t sy_chain_room(uint32_t max)
{
	return (max ? (size_t)max : 1) * SY_CHAIN_FRAME_MAX;
}

int sy_chain_reserve(struct sy_chain *c, struct sy_blocks *mem, uint32_t max)
{
	size_t room = sy_chain_room(max);

	c->blk = NULL;
	c->nr = c->len = 0;
	c->p = mem ? sy_blocks_alloc(mem, room, &c->blk) : NULL;
	if (!c->p && !(c->p = malloc(room)))
		return -SY_E_NOMEM;
	return 0;
}

void sy_chain_fit(struct sy_chain *c, struct sy_blocks *mem, uint32_t max)
{
	size_t room = sy_chain_room(max), len = c->len ? c->len : 1;
	uint8_t *p;

	if (c->blk)
		sy_blocks_resize(mem, c->blk, c->p, room, len);
	else if (len < room && (p = realloc(c->p, len)))
		c->p = p;
}

int sy_chain_pack(struct sy_chain *c, struct sy_blocks *mem,
		  const uint64_t *ip, uint32_t nr)
{
	uint64_t prev = 0;
	size_t len = 0;

	if (sy_chain_reserve(c, mem, nr))
		return -SY_E_NOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		len += sy_chain_put(c->p + len, prev, ip[i]);
		prev = ip[i];
	}
	c->nr = nr;
	c->len = (uint32_t)len;
	sy_chain_fit(c, mem, nr);
	return 0;
}

int sy_chain_unpack(struct sy_chain *c, struct sy_blocks *mem,
		    uint64_t **out, struct sy_block **blk)
{
	size_t size = (size_t)c->nr * sizeof(**out);
	const uint8_t *p = c->p;
	uint64_t prev = 0, *a;

	*out = NULL;
	*blk = NULL;
	if (!c->nr)
		return 0;
	a = mem ? sy_blocks_alloc(mem, size, blk) : NULL;
	if (!a && !(a = malloc(size)))
		return -SY_E_NOMEM;
	for (uint32_t i = 0; i < c->nr; i++)
		a[i] = prev = sy_chain_get(&p, prev);
	*out = a;
	return 0;
}

void sy_chain_free(struct sy_chain *c)
{
	if (!c)
		return;
	sy_blocks_free(c->p, c->blk);
	*c = (struct sy_chain){ 0 };
}

void sy_chains_free(struct sy_chain *first, size_t nr, size_t stride)
{
	struct sy_block *blk = NULL;
	size_t run = 0;

	for (size_t i = 0; i < nr; i++) {
		struct sy_chain *c =
			(struct sy_chain *)(void *)((char *)first + i * stride);

		if (!c->blk) {
			sy_chain_free(c);
			continue;
		}
		if (c->blk != blk) {
			sy_block_put_n(blk, run);
			blk = c->blk;
			run = 0;
		}
		run++;
		*c = (struct sy_chain){ 0 };
	}
	sy_block_put_n(blk, run);
}
