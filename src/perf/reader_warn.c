/* The reader's warnings: counted, handed to the callback, or kept (a few)
 * until one is set, since opening a file already meets some. */
#include <stdio.h>

#include "reader_impl.h"
#include "sy_bytes.h"

void sy_perf_warn_diag(struct sy_perf_reader *r, const struct sy_diag *d)
{
	r->nr_warnings++;
	if (d->err < 0)
		r->nr_damage++;
	if (r->warn_fn)
		r->warn_fn(r->warn_ctx, d);
	else if (r->nr_early < SY_ARRAY_SIZE(r->early))
		r->early[r->nr_early++] = *d;
}

/* @err < 0 marks damage to the file; 0 is only a notice (newer record
 * types, unfinished recording). */
void sy_perf_warn(struct sy_perf_reader *r, int err, uint64_t off,
			 const char *fmt, ...) SY_PRINTF(4, 5);

void sy_perf_warn(struct sy_perf_reader *r, int err, uint64_t off,
			 const char *fmt, ...)
{
	struct sy_diag d;
	va_list ap;

	memset(&d, 0, sizeof(d));
	d.offset = off;
	d.has_offset = 1;
	d.err = err;
	va_start(ap, fmt);
	vsnprintf(d.msg, sizeof(d.msg), fmt, ap);
	va_end(ap);
	sy_perf_warn_diag(r, &d);
}
