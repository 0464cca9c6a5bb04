/* The branches whose code checks passed (see pl_seen.h). */
#include "pl_seen.h"

#include <stdlib.h>
#include <string.h>

#include "sy_error.h"

int sy_pl_seen_init(struct sy_pl_seen_tab *t)
{
	t->gen = 0;
	t->v = calloc(SY_PL_SEEN, sizeof(*t->v));
	t->jt = calloc(SY_PL_SEEN, sizeof(*t->jt));
	if (!t->v || !t->jt) {
		sy_pl_seen_fini(t);
		return -SY_E_NOMEM;
	}
	return 0;
}

void sy_pl_seen_fini(struct sy_pl_seen_tab *t)
{
	free(t->v);
	free(t->jt);
	t->v = NULL;
	t->jt = NULL;
}

void sy_pl_seen_clear(struct sy_pl_seen_tab *t)
{
	/* an entry of another generation never matches a key of this one;
	 * an indirect jump's jt entry is read only with its own entry */
	if (++t->gen > 255) {
		memset(t->v, 0, SY_PL_SEEN * sizeof(*t->v));
		t->gen = 1;
	}
}
