#include "sy_vec.h"

#include <stdlib.h>
#include <string.h>

#include "sy_error.h"

int sy_grow(void **v, size_t *cap, size_t nr, size_t elem)
{
	size_t ncap;
	void *n;

	if (nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	n = realloc(*v, ncap * elem);
	if (!n)
		return -SY_E_NOMEM;
	*v = n;
	*cap = ncap;
	return 0;
}

void sy_compact(void *v, size_t *pos, size_t *nr, size_t elem)
{
	if (*pos == *nr) {
		*pos = *nr = 0;
	} else if (*pos >= 256 && *pos * 2 >= *nr) {
		memmove(v, (char *)v + *pos * elem, (*nr - *pos) * elem);
		*nr -= *pos;
		*pos = 0;
	}
}
