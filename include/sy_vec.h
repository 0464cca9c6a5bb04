/* Growable arrays for the pipeline's queues of records, stretches and
 * samples: an array is a pointer, a count and a capacity kept by the
 * caller, so that each stage's struct shows what it holds. */
#ifndef SY_VEC_H
#define SY_VEC_H

#include <stddef.h>

/* Room for element @nr of the array *@v (capacity *@cap, doubled).
 * Returns 0 or -SY_E_NOMEM (the array is unchanged). */
int sy_grow(void **v, size_t *cap, size_t nr, size_t elem);

/* Drops the consumed head of an array (@pos of @nr used up): queues that
 * live as long as the recording must not keep what was matched. */
void sy_compact(void *v, size_t *pos, size_t *nr, size_t elem);

/* A growing string (NUL-terminated once anything was appended). */
struct sy_text {
	char *s;
	size_t len, cap;
};

/* Appends @n bytes of @p.  Returns 0 or -SY_E_NOMEM (unchanged). */
int sy_text_add(struct sy_text *t, const char *p, size_t n);
/* Appends @b to @a and empties @b. */
int sy_text_move(struct sy_text *a, struct sy_text *b);
void sy_text_free(struct sy_text *t);

#endif
