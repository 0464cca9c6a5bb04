/* Placeholder until the etm backend lands: refuses to decode. */
#include "decoder_impl.h"

static int sy_etm_init(struct sy_decoder *d)
{
	(void)d;
	return -SY_E_UNSUPPORTED;
}

static void sy_etm_fini(struct sy_decoder *d)
{
	(void)d;
}

static int sy_etm_reset(struct sy_decoder *d, const struct sy_dec_chunk *c,
			size_t n, uint64_t from)
{
	(void)d;
	(void)c;
	(void)n;
	(void)from;
	return -SY_E_UNSUPPORTED;
}

static int sy_etm_next(struct sy_decoder *d, struct sy_dec_item *it)
{
	(void)d;
	(void)it;
	return -SY_E_UNSUPPORTED;
}

const struct sy_decoder_ops sy_etm_decoder_ops = {
	.init = sy_etm_init,
	.fini = sy_etm_fini,
	.reset = sy_etm_reset,
	.next = sy_etm_next,
};

int sy_etm_find_sync(const uint8_t *data, size_t len, uint64_t offset,
		uint64_t *sync)
{
	(void)data;
	(void)len;
	(void)offset;
	(void)sync;
	return -SY_E_UNSUPPORTED;
}
