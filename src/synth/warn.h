/* Warnings met while a session runs (damaged records, build-id mismatches,
 * unsupported settings): handed to the caller's callback one by one, and
 * damage counted for the summary. */
#ifndef SY_WARN_H
#define SY_WARN_H

#include <stdint.h>

#include "sy_error.h"

struct sy_warner {
	void (*fn)(void *ctx, const struct sy_diag *d);
	void *ctx;
	uint64_t damage;	/* warnings with err < 0 */
};

/* A warning of ours: @err < 0 for damage, 0 for a note; @off 0: none. */
void sy_warn(struct sy_warner *w, int err, uint64_t off, const char *fmt,
	     ...) SY_PRINTF(4, 5);
/* A warning of a library layer (the reader, the images); @count: whether
 * damage counts. */
void sy_warn_diag(struct sy_warner *w, const struct sy_diag *d, int count);

#endif
