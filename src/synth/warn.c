#include "warn.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sy_warn_diag(struct sy_warner *w, const struct sy_diag *d, int count)
{
	if (count && d->err < 0)
		w->damage++;
	if (w->fn)
		w->fn(w->ctx, d);
}

void sy_warn(struct sy_warner *w, int err, uint64_t off, const char *fmt, ...)
{
	struct sy_diag d;
	va_list ap;

	memset(&d, 0, sizeof(d));
	d.err = err;
	d.offset = off;
	d.has_offset = off != 0;
	va_start(ap, fmt);
	vsnprintf(d.msg, sizeof(d.msg), fmt, ap);
	va_end(ap);
	sy_warn_diag(w, &d, 1);
}
