/* Bump allocator for data that lives as long as its owner (feature strings,
 * id arrays).  Freed all at once. */
#ifndef SY_ARENA_H
#define SY_ARENA_H

#include <stddef.h>

struct sy_arena_chunk;

struct sy_arena {
	struct sy_arena_chunk *head;
};

void sy_arena_init(struct sy_arena *a);
void sy_arena_fini(struct sy_arena *a);
/* 8-byte aligned, zeroed; NULL when out of memory. */
void *sy_arena_alloc(struct sy_arena *a, size_t n);
/* Copies at most @n bytes of @s, stopping at a NUL, and terminates. */
char *sy_arena_strndup(struct sy_arena *a, const char *s, size_t n);

#endif
