#include "order.h"

#include <string.h>

#include "sy_hash.h"

/* Every byte of the record counts: two samples of one time and size that
 * differ anywhere are both taken (but for a collision of the hash). */
static uint64_t sy_order_hash(const uint8_t *p, size_t n)
{
	return sy_hash_words(SY_HASH_FNV_OFFSET, p, n);
}

enum sy_order_verdict sy_order_sample(struct sy_order *o, uint64_t time,
				      const uint8_t *rec, size_t size,
				      const uint8_t *kept)
{
	if (o->has && time < o->time)
		return SY_ORDER_EARLIER;
	/* hashing every sample cost the walk a quarter of its time on deep
	 * callchains: kept bytes are compared only when it can matter */
	if (o->has && time == o->time && size == o->size &&
	    (o->bytes ? !memcmp(o->bytes, rec, size) :
			sy_order_hash(rec, size) == o->hash))
		return SY_ORDER_DUPLICATE;
	o->has = 1;
	o->time = time;
	o->size = size;
	o->bytes = kept;
	o->hash = kept ? 0 : sy_order_hash(rec, size);
	return SY_ORDER_OK;
}
