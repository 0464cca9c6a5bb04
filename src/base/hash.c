/* The open-addressing index of sy_hash.h: growth and teardown.  Probing is
 * inline in the header. */
#include <stdlib.h>
#include <string.h>

#include "sy_error.h"
#include "sy_hash.h"

int sy_hindex_reserve(struct sy_hindex *ix, size_t nr, size_t min_cap,
		      sy_hindex_hash_fn hash_of, const void *ctx)
{
	size_t ncap;
	uint32_t *t;

	if (nr * 2 <= ix->cap)
		return 0;
	/* entries are stored as index + 1 in 32 bits */
	if (nr >= UINT32_MAX - 1)
		return -SY_E_NOMEM;
	ncap = ix->cap ? ix->cap * 2 : (min_cap ? min_cap : 16);
	while (nr * 2 > ncap)
		ncap *= 2;
	t = calloc(ncap, sizeof(*t));
	if (!t)
		return -SY_E_NOMEM;
	/* the entries already placed are those before the one being added */
	for (size_t i = 0; i + 1 < nr; i++) {
		size_t j = (size_t)hash_of(ctx, i) & (ncap - 1);

		while (t[j])
			j = (j + 1) & (ncap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(ix->slot);
	ix->slot = t;
	ix->cap = ncap;
	return 0;
}

void sy_hindex_clear(struct sy_hindex *ix)
{
	if (ix->slot)
		memset(ix->slot, 0, ix->cap * sizeof(*ix->slot));
}

void sy_hindex_fini(struct sy_hindex *ix)
{
	if (!ix)
		return;
	free(ix->slot);
	ix->slot = NULL;
	ix->cap = 0;
}
