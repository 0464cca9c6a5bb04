#include "sy_arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct sy_arena_chunk {
	struct sy_arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

#define SY_ARENA_CHUNK 16384

void sy_arena_init(struct sy_arena *a)
{
	a->head = NULL;
}

void sy_arena_fini(struct sy_arena *a)
{
	struct sy_arena_chunk *c = a->head;

	while (c) {
		struct sy_arena_chunk *n = c->next;
		free(c);
		c = n;
	}
	a->head = NULL;
}

void *sy_arena_alloc(struct sy_arena *a, size_t n)
{
	struct sy_arena_chunk *c = a->head;

	if (n > SIZE_MAX / 2)
		return NULL;
	n = (n + 7) & ~(size_t)7;
	if (!n)
		n = 8;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > SY_ARENA_CHUNK ? n : SY_ARENA_CHUNK;

		c = calloc(1, sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

char *sy_arena_strndup(struct sy_arena *a, const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = sy_arena_alloc(a, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = 0;
	return p;
}
