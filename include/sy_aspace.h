/* Address spaces: one process's mappings at one moment (struct
 * sy_aspace), immutable, and the code bytes behind each mapping. */
#ifndef SY_ASPACE_H
#define SY_ASPACE_H

#include <stddef.h>
#include <stdint.h>

#include "sy_error.h"
#include "sy_image.h"

#define SY_MAP_CODE 0x1u   /* executable: code reads are served */
#define SY_MAP_KERNEL 0x2u /* kernel image: vaddr = address - reloc */
#define SY_MAP_MODULE 0x4u /* relocatable .ko: vaddr = address - start */

/* One mapping, as recorded, trimmed by the mappings placed over it later. */
struct sy_map {
	uint64_t start, end;	/* runtime addresses [start, end) */
	uint64_t pgoff;		/* file offset of @start */
	const char *path;	/* as recorded, interned by the cache */
	const struct sy_image *img; /* NULL: not code or not found */
	int err;		/* code without img: the lookup's error */
	uint32_t prot;		/* SY_PROT_*; MMAP records: R|X or R (data) */
	uint32_t flags;		/* SY_MAP_* */
	uint8_t build_id_size;	/* 0: no recorded build-id */
	uint8_t build_id[SY_BUILD_ID_MAX];
	/* SY_MAP_KERNEL: runtime minus link-time address (KASLR): the
	 * recorded address of the symbol the MMAP names ("[kernel.kallsyms]
	 * _text": its pgoff, or its start when pgoff is 0, simpleperf's
	 * way) minus that symbol in the image; 0 for kcore. */
	uint64_t reloc;
};

/* The link-time (image) address of runtime @addr in @m, or -SY_E_INVALID
 * when @m has no image or @addr is not in its code. */
int sy_map_vaddr(const struct sy_map *m, uint64_t addr, uint64_t *vaddr);

/* One process's mappings at one moment; immutable. */
struct sy_aspace;

size_t sy_aspace_nr_maps(const struct sy_aspace *as);
/* Mappings sorted by start, never overlapping. */
const struct sy_map *sy_aspace_map(const struct sy_aspace *as, size_t i);
/* 1 when @a and @b hold the same mappings, field by field (the same
 * images at the same addresses): what a reader of code finds in one it
 * finds in the other.  Two processes forked from one, or one run of a
 * program after another without address randomisation, have the same.
 * NULL is the same only as NULL.  O(n). */
int sy_aspace_same(const struct sy_aspace *a, const struct sy_aspace *b);
/* The mapping containing @addr, or NULL.  O(log n). */
const struct sy_map *sy_aspace_find(const struct sy_aspace *as,
				    uint64_t addr);
/* Copies up to @len bytes of code at runtime @addr, across adjacent
 * mappings and segments.  Returns the bytes copied (0: unmapped, not code,
 * binary missing).  Accepts a NULL @as. */
size_t sy_aspace_read(const struct sy_aspace *as, uint64_t addr, uint8_t *buf,
		      size_t len);

/* Zero-copy form for one mapping: the bytes at @addr within @m and how many
 * follow contiguously (within the mapping and one segment), or NULL. */
const uint8_t *sy_map_code(const struct sy_map *m, uint64_t addr,
			   size_t *avail);

#endif
