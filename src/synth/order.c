#include "order.h"

#include "sy_hash.h"

/* Every byte of the record counts: two samples of one time and size that
 * differ anywhere are both taken (but for a collision of the hash). */
static uint64_t sy_order_hash(const uint8_t *p, size_t n)
{
	return sy_hash_words(SY_HASH_FNV_OFFSET, p, n);
}

enum sy_order_verdict sy_order_sample(struct sy_order *o, uint64_t time,
				      const uint8_t *rec, size_t size)
{
	uint64_t h;

	if (o->has && time < o->time)
		return SY_ORDER_EARLIER;
	h = sy_order_hash(rec, size);
	if (o->has && time == o->time && size == o->size && h == o->hash)
		return SY_ORDER_DUPLICATE;
	o->has = 1;
	o->time = time;
	o->hash = h;
	o->size = size;
	return SY_ORDER_OK;
}
