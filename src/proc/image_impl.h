/* Private to src/io/{image_cache,aspace,proc_table,mem_reader,elf_image,
 * elf_module}.c: building immutable address spaces, the pieces of code
 * behind a mapping, and kernel module layout. */
#ifndef SY_IMAGE_IMPL_H
#define SY_IMAGE_IMPL_H

#include "sy_aspace.h"
#include "sy_image.h"
#include "sy_image_cache.h"

/* A new empty space (one reference), or NULL. */
struct sy_aspace *sy_aspace_new(void);
/* A new space (one reference): @old (may be NULL) with @m placed over it,
 * the parts of older mappings under @m cut away.  NULL when out of
 * memory. */
struct sy_aspace *sy_aspace_with_map(const struct sy_aspace *old,
				     const struct sy_map *m);
/* Reference counting, thread-safe; put accepts NULL. */
struct sy_aspace *sy_aspace_get(struct sy_aspace *as);
void sy_aspace_put(struct sy_aspace *as);

/* The largest run of runtime addresses [*lo, *hi) around @addr in @m whose
 * bytes are contiguous file-backed code: byte x is base[x - *lo].  Returns
 * base, or NULL when @addr is not code (not executable, no image, outside
 * every executable segment). */
const uint8_t *sy_map_piece(const struct sy_map *m, uint64_t addr,
			    uint64_t *lo, uint64_t *hi);

/* The recorded path, interned (valid as long as the cache); NULL when out
 * of memory. */
const char *sy_image_cache_intern(struct sy_image_cache *c, const char *path);

/* The segments of a relocatable kernel module (elf_module.c): its core
 * executable sections where the kernel lays them out; the module's own
 * branch relocations applied to @copy (a writable copy of the file's
 * @raw_size bytes, or NULL).  Returns 0, -SY_E_BAD_ELF or -SY_E_NOMEM;
 * *@out is malloc'd (NULL when none). */
struct Elf;
int sy_module_segs(struct Elf *elf, uint8_t *copy, size_t raw_size,
		   struct sy_image_seg **out, size_t *nr_out);

#endif
