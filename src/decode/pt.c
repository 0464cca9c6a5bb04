/* Placeholder until the pt backend lands: refuses to decode. */
#include "decoder_impl.h"

static int sy_pt_init(struct sy_decoder *d)
{
	(void)d;
	return -SY_E_UNSUPPORTED;
}

static void sy_pt_fini(struct sy_decoder *d)
{
	(void)d;
}

static int sy_pt_reset(struct sy_decoder *d, const struct sy_dec_chunk *c,
			size_t n, uint64_t from)
{
	(void)d;
	(void)c;
	(void)n;
	(void)from;
	return -SY_E_UNSUPPORTED;
}

static int sy_pt_next(struct sy_decoder *d, struct sy_dec_item *it)
{
	(void)d;
	(void)it;
	return -SY_E_UNSUPPORTED;
}

const struct sy_decoder_ops sy_pt_decoder_ops = {
	.init = sy_pt_init,
	.fini = sy_pt_fini,
	.reset = sy_pt_reset,
	.next = sy_pt_next,
};

int sy_pt_find_sync(const uint8_t *data, size_t len, uint64_t offset,
		 uint64_t *sync)
{
	(void)data;
	(void)len;
	(void)offset;
	(void)sync;
	return -SY_E_UNSUPPORTED;
}
