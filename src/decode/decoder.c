/* Dispatch to the ETM or PT backend; counters that follow from the items
 * are kept here so both backends count the same way. */
#include <stdlib.h>
#include <string.h>

#include "decoder_impl.h"

int sy_decoder_alloc(struct sy_decoder **out, const struct sy_dec_params *p)
{
	struct sy_decoder *d;
	int err;

	if (!out || !p || !p->read_mem)
		return -SY_E_INVALID;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -SY_E_NOMEM;
	d->params = *p;
	d->seam = SY_DEC_NO_SEAM;
	switch (p->kind) {
	case SY_TRACE_ETM:
		d->ops = &sy_etm_decoder_ops;
		break;
	case SY_TRACE_PT:
		d->ops = &sy_pt_decoder_ops;
		break;
	default:
		free(d);
		return -SY_E_INVALID;
	}
	err = d->ops->init(d);
	if (err) {
		free(d);
		return err;
	}
	*out = d;
	return 0;
}

void sy_decoder_free(struct sy_decoder *d)
{
	if (!d)
		return;
	d->ops->fini(d);
	free(d);
}

int sy_decoder_params_same(const struct sy_dec_params *a,
			   const struct sy_dec_params *b)
{
	const struct sy_pt_params *x = &a->u.pt, *y = &b->u.pt;

	if (a == b)
		return 1;
	/* field by field: the padding between them is nobody's */
	return a->kind == SY_TRACE_PT && b->kind == SY_TRACE_PT &&
	       a->read_mem == b->read_mem && a->mem_ctx == b->mem_ctx &&
	       a->ctx_at == b->ctx_at && a->code_at == b->code_at &&
	       x->family == y->family && x->model == y->model &&
	       x->stepping == y->stepping && x->mtc_freq == y->mtc_freq &&
	       x->nom_freq == y->nom_freq &&
	       x->cpuid_0x15_eax == y->cpuid_0x15_eax &&
	       x->cpuid_0x15_ebx == y->cpuid_0x15_ebx &&
	       x->decoder == y->decoder && x->cyc == y->cyc;
}

int sy_decoder_reset(struct sy_decoder *d, const struct sy_dec_chunk *chunks,
		     size_t nr_chunks, uint64_t report_from)
{
	if (!d || (nr_chunks && !chunks))
		return -SY_E_INVALID;
	memset(&d->stats, 0, sizeof(d->stats));
	d->have_one = 0;
	d->in_run = 0;
	d->peeked_run = 0;
	return d->ops->reset(d, chunks, nr_chunks, report_from);
}

int sy_decode_find_sync(enum sy_trace_kind kind, const uint8_t *data,
			size_t len, uint64_t offset, uint64_t *sync)
{
	if (!data || !sync)
		return -SY_E_INVALID;
	switch (kind) {
	case SY_TRACE_ETM:
		return sy_etm_find_sync(data, len, offset, sync);
	case SY_TRACE_PT:
		return sy_pt_find_sync(data, len, offset, sync);
	default:
		return -SY_E_INVALID;
	}
}

int sy_decode_sync_end(enum sy_trace_kind kind, const uint8_t *data,
		       size_t len, uint64_t sync, uint64_t *end)
{
	if (!data || !end || sync >= len)
		return -SY_E_INVALID;
	switch (kind) {
	case SY_TRACE_ETM:
		*end = sync; /* an A-Sync proves nothing about execution */
		return 0;
	case SY_TRACE_PT:
		return sy_pt_sync_end(data, len, sync, end);
	default:
		return -SY_E_INVALID;
	}
}

int sy_decode_etm_seam(const struct sy_dec_params *p, const uint8_t *data,
		       size_t len, uint64_t cut, uint64_t *sync,
		       uint64_t *seam)
{
	if (!p || !data || !sync || !seam || p->kind != SY_TRACE_ETM)
		return -SY_E_INVALID;
	return sy_etm_seam(p, data, len, cut, sync, seam);
}

int sy_decoder_set_seam(struct sy_decoder *d, uint64_t sync)
{
	if (!d || d->params.kind != SY_TRACE_ETM)
		return -SY_E_INVALID;
	d->seam = sync;
	return 0;
}

int sy_decoder_seam(const struct sy_decoder *d, struct sy_dec_seam *out)
{
	if (!d || !out || d->params.kind != SY_TRACE_ETM)
		return -SY_E_INVALID;
	*out = d->seam_out;
	return 0;
}

void sy_decoder_set_context(struct sy_decoder *d, uint32_t ctxid)
{
	d->ctxid = ctxid;
}

static inline void count(struct sy_decoder *d, const struct sy_dec_item *it)
{
	d->stats.insns += it->ninsn;
	switch (it->kind) {
	case SY_DEC_BRANCH:
		d->stats.branches++;
		break;
	case SY_DEC_BRANCHES:
		d->stats.insns += it->run->ninsn;
		d->stats.branches += it->code;
		break;
	case SY_DEC_ERROR:
		d->stats.errors++;
		break;
	case SY_DEC_OVERFLOW:
		d->stats.overflows++;
		break;
	default:
		break;
	}
}

/* The next branch of the run next() hands out, into *@item. */
static void run_next(struct sy_decoder *d, struct sy_dec_item *item)
{
	sy_dec_run_branch(&d->run, d->run_at, item);
	if (++d->run_at == d->run.code)
		d->in_run = 0;
}

int sy_decoder_next(struct sy_decoder *d, struct sy_dec_item *item)
{
	int err;

	if (d->in_run) {
		run_next(d, item);
	} else if (d->have_one) {	/* peeked, not used */
		*item = d->one;
		d->have_one = 0;
	} else if ((err = d->ops->next(d, item))) {
		return err;
	}
	if (item->kind == SY_DEC_BRANCHES) {
		/* its branches stay where they are until the backend is
		 * called again, which only the run's end does */
		d->run = *item;
		d->run_at = 0;
		d->in_run = 1;
		run_next(d, item);
	}
	count(d, item);
	return 0;
}

int sy_decoder_peek(struct sy_decoder *d, struct sy_dec_item **items,
		    size_t *n)
{
	int err;

	d->peeked_run = d->in_run;
	if (d->in_run) {
		/* next() was handing a run out: the rest of it first */
		sy_dec_run_branch(&d->run, d->run_at, &d->one);
		*items = d->peeked = &d->one;
		*n = 1;
		return 0;
	}
	if (d->ops->peek && !d->have_one) {
		if ((err = d->ops->peek(d, items, n)))
			return err;
		d->peeked = *items;
		return 0;
	}
	if (!d->have_one) {
		if ((err = d->ops->next(d, &d->one)))
			return err;
		d->have_one = 1;
	}
	*items = d->peeked = &d->one;
	*n = 1;
	return 0;
}

void sy_decoder_advance(struct sy_decoder *d, size_t k)
{
	for (size_t i = 0; i < k; i++)
		count(d, &d->peeked[i]);
	if (d->peeked_run) {
		if (k && ++d->run_at == d->run.code)
			d->in_run = 0;
		return;
	}
	if (d->have_one) {
		d->have_one = !k;
		return;
	}
	if (k)
		d->ops->advance(d, k);
}

const struct sy_dec_stats *sy_decoder_stats(const struct sy_decoder *d)
{
	return &d->stats;
}

const char *sy_dec_kind_name(enum sy_dec_kind kind)
{
	switch (kind) {
	case SY_DEC_BRANCH: return "branch";
	case SY_DEC_START: return "start";
	case SY_DEC_STOP: return "stop";
	case SY_DEC_OVERFLOW: return "overflow";
	case SY_DEC_ERROR: return "error";
	case SY_DEC_TIME: return "time";
	case SY_DEC_CONTEXT: return "context";
	case SY_DEC_BRANCHES: return "branches";
	case SY_DEC_CYCLES: return "cycles";
	default: return "?";
	}
}
