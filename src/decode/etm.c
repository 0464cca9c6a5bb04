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
			size_t n)
{
	(void)d;
	(void)c;
	(void)n;
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
