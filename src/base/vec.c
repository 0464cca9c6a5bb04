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

int sy_text_add(struct sy_text *t, const char *p, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		size_t ncap = t->cap ? t->cap : 256;
		char *ns;

		while (ncap < t->len + n + 1)
			ncap *= 2;
		ns = realloc(t->s, ncap);
		if (!ns)
			return -SY_E_NOMEM;
		t->s = ns;
		t->cap = ncap;
	}
	memcpy(t->s + t->len, p, n);
	t->len += n;
	t->s[t->len] = 0;
	return 0;
}

int sy_text_move(struct sy_text *a, struct sy_text *b)
{
	int err = 0;

	if (b->len && !a->len) {
		sy_text_free(a);
		*a = *b;
		memset(b, 0, sizeof(*b));
		return 0;
	}
	if (b->len)
		err = sy_text_add(a, b->s, b->len);
	sy_text_free(b);
	return err;
}

void sy_text_free(struct sy_text *t)
{
	free(t->s);
	memset(t, 0, sizeof(*t));
}
