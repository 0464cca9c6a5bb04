/* Private to src/decode: the backend table behind include/sy_decode.h. */
#ifndef SY_DECODER_IMPL_H
#define SY_DECODER_IMPL_H

#include "sy_decode.h"

struct sy_decoder;

struct sy_decoder_ops {
	/* Sets d->impl.  Called with d->params already copied. */
	int (*init)(struct sy_decoder *d);
	void (*fini)(struct sy_decoder *d);
	int (*reset)(struct sy_decoder *d, const struct sy_dec_chunk *chunks,
		     size_t nr_chunks, uint64_t report_from);
	/* Same contract as sy_decoder_next(); the wrapper keeps the counters
	 * that follow from the items (insns, branches, errors, overflows). */
	int (*next)(struct sy_decoder *d, struct sy_dec_item *item);
	/* sy_decoder_peek() / sy_decoder_advance() in place; NULL: through
	 * next(), an item at a time */
	int (*peek)(struct sy_decoder *d, struct sy_dec_item **items,
		    size_t *n);
	void (*advance)(struct sy_decoder *d, size_t k);
};

struct sy_decoder {
	const struct sy_decoder_ops *ops;
	struct sy_dec_params params;
	struct sy_dec_stats stats;	/* backends add .bytes themselves */
	uint32_t ctxid;			/* for read_mem, see set_context */
	uint64_t seam;			/* sy_decoder_set_seam (ETM) */
	struct sy_dec_seam seam_out;	/* ... what the window did there */
	/* sy_decoder_peek() through next(): the item it got, not yet used */
	struct sy_dec_item one;
	int have_one;
	struct sy_dec_item *peeked;	/* what the last peek gave */
	/* next() hands a SY_DEC_BRANCHES item out branch by branch: this
	 * one, from branch run_at on (in_run set) */
	struct sy_dec_item run;
	uint32_t run_at;
	int in_run;
	int peeked_run;			/* the last peek gave run's next */
	void *impl;
};

extern const struct sy_decoder_ops sy_etm_decoder_ops;
extern const struct sy_decoder_ops sy_pt_decoder_ops;

/* Backend halves of sy_decode_find_sync(). */
int sy_etm_find_sync(const uint8_t *data, size_t len, uint64_t offset,
		     uint64_t *sync);
int sy_pt_find_sync(const uint8_t *data, size_t len, uint64_t offset,
		    uint64_t *sync);
int sy_pt_sync_end(const uint8_t *data, size_t len, uint64_t sync,
		   uint64_t *end);
/* sy_decode_etm_seam() (etm_seam.c). */
int sy_etm_seam(const struct sy_dec_params *p, const uint8_t *data,
		size_t len, uint64_t cut, uint64_t *sync, uint64_t *seam);

#endif
