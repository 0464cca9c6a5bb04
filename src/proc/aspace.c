/* Address spaces: one process's mappings at one moment.
 *
 * A space never changes once built.  Placing a mapping builds a new space
 * from the old one (one array copy of this process's mappings, O(n)), so a
 * snapshot holding the old one keeps seeing exactly what it saw.  Mappings
 * are kept sorted and disjoint, as the kernel keeps them: a new mapping cuts
 * away whatever it covers of older ones (perf's maps__fixup_overlappings),
 * and the pieces left on the right keep their file offsets.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "image_impl.h"
#include "sy_aspace.h"
#include "sy_bsearch.h"

struct sy_aspace {
	atomic_uint ref;
	size_t nr;
	struct sy_map maps[];	/* sorted by start, disjoint */
};

struct sy_aspace *sy_aspace_new(void)
{
	struct sy_aspace *as = calloc(1, sizeof(*as));

	if (as)
		atomic_init(&as->ref, 1);
	return as;
}

struct sy_aspace *sy_aspace_get(struct sy_aspace *as)
{
	if (as)
		atomic_fetch_add_explicit(&as->ref, 1, memory_order_relaxed);
	return as;
}

void sy_aspace_put(struct sy_aspace *as)
{
	if (as && atomic_fetch_sub_explicit(&as->ref, 1,
					    memory_order_acq_rel) == 1)
		free(as);
}

struct sy_aspace *sy_aspace_with_map(const struct sy_aspace *old,
				     const struct sy_map *m)
{
	size_t n = old ? old->nr : 0, k = 0;
	struct sy_aspace *as;
	int placed = 0;

	/* one old mapping may be split in two around @m */
	as = malloc(sizeof(*as) + (n + 2) * sizeof(as->maps[0]));
	if (!as)
		return NULL;
	atomic_init(&as->ref, 1);
	for (size_t i = 0; i < n; i++) {
		const struct sy_map *o = &old->maps[i];

		if (o->end <= m->start) {
			as->maps[k++] = *o;
			continue;
		}
		if (o->start >= m->end) {
			if (!placed) {
				as->maps[k++] = *m;
				placed = 1;
			}
			as->maps[k++] = *o;
			continue;
		}
		if (o->start < m->start) {
			as->maps[k] = *o;
			as->maps[k++].end = m->start;
		}
		if (!placed) {
			as->maps[k++] = *m;
			placed = 1;
		}
		if (o->end > m->end) {
			as->maps[k] = *o;
			as->maps[k].start = m->end;
			as->maps[k].pgoff = o->pgoff + (m->end - o->start);
			k++;
		}
	}
	if (!placed)
		as->maps[k++] = *m;
	as->nr = k;
	return as;
}

size_t sy_aspace_nr_maps(const struct sy_aspace *as)
{
	return as ? as->nr : 0;
}

const struct sy_map *sy_aspace_map(const struct sy_aspace *as, size_t i)
{
	return as && i < as->nr ? &as->maps[i] : NULL;
}

static int sy_map_same(const struct sy_map *m, const struct sy_map *n)
{
	/* (the build-id only finds the image, which is compared) */
	return m->start == n->start && m->end == n->end &&
	       m->pgoff == n->pgoff && m->path == n->path && m->img == n->img &&
	       m->err == n->err && m->prot == n->prot &&
	       m->flags == n->flags && m->reloc == n->reloc;
}

int sy_aspace_same(const struct sy_aspace *a, const struct sy_aspace *b)
{
	if (a == b)
		return 1;
	if (!a || !b || a->nr != b->nr)
		return 0;
	for (size_t i = 0; i < a->nr; i++)
		if (!sy_map_same(&a->maps[i], &b->maps[i]))
			return 0;
	return 1;
}

struct sy_aspace_key {
	const struct sy_aspace *as;
	uint64_t addr;
};

static int sy_map_starts_at_or_below(const void *ctx, size_t i)
{
	const struct sy_aspace_key *k = ctx;

	return k->as->maps[i].start <= k->addr;
}

const struct sy_map *sy_aspace_find(const struct sy_aspace *as, uint64_t addr)
{
	struct sy_aspace_key k = { as, addr };
	size_t lo;

	if (!as)
		return NULL;
	/* first mapping starting above addr; the one before may hold it */
	lo = sy_partition_point(as->nr, sy_map_starts_at_or_below, &k);
	if (lo && addr < as->maps[lo - 1].end)
		return &as->maps[lo - 1];
	return NULL;
}

/* Runtime minus link-time address for maps that are not file-offset
 * based. */
static uint64_t sy_map_bias(const struct sy_map *m)
{
	return (m->flags & SY_MAP_KERNEL) ? m->reloc : m->start;
}

int sy_map_vaddr(const struct sy_map *m, uint64_t addr, uint64_t *vaddr)
{
	if (!m->img || addr < m->start || addr >= m->end)
		return -SY_E_INVALID;
	if (m->flags & (SY_MAP_KERNEL | SY_MAP_MODULE)) {
		*vaddr = addr - sy_map_bias(m);
		return 0;
	}
	return sy_image_off_to_vaddr(m->img, m->pgoff + (addr - m->start),
				     vaddr);
}

const uint8_t *sy_map_piece(const struct sy_map *m, uint64_t addr,
			    uint64_t *lo, uint64_t *hi)
{
	const struct sy_image_seg *segs;
	size_t nr;

	if (!(m->flags & SY_MAP_CODE) || !m->img || addr < m->start ||
	    addr >= m->end)
		return NULL;
	segs = sy_image_segs(m->img);
	nr = sy_image_nr_segs(m->img);
	for (size_t i = 0; i < nr; i++) {
		const struct sy_image_seg *s = &segs[i];
		uint64_t l, h, off;
		size_t avail;

		if (m->flags & (SY_MAP_KERNEL | SY_MAP_MODULE)) {
			/* runtime = link-time + bias: the kernel's KASLR
			 * offset, a module's load address */
			uint64_t bias = sy_map_bias(m);

			if (addr - bias < s->vaddr ||
			    addr - bias - s->vaddr >= s->filesz)
				continue;
			l = s->vaddr + bias > m->start ? s->vaddr + bias :
							 m->start;
			h = s->vaddr + bias + s->filesz;
			off = s->offset + (l - bias - s->vaddr);
		} else {
			off = m->pgoff + (addr - m->start);
			if (off < s->offset || off - s->offset >= s->filesz)
				continue;
			l = s->offset > m->pgoff ?
				    m->start + (s->offset - m->pgoff) :
				    m->start;
			h = m->start + (s->offset + s->filesz - m->pgoff);
			off = m->pgoff + (l - m->start);
		}
		if (h > m->end || h < l)
			h = m->end;
		*lo = l;
		*hi = h;
		return sy_image_code_off(m->img, off, &avail);
	}
	return NULL;
}

const uint8_t *sy_map_code(const struct sy_map *m, uint64_t addr,
			   size_t *avail)
{
	uint64_t lo, hi;
	const uint8_t *base = sy_map_piece(m, addr, &lo, &hi);

	if (!base) {
		*avail = 0;
		return NULL;
	}
	*avail = (size_t)(hi - addr);
	return base + (addr - lo);
}

size_t sy_aspace_read(const struct sy_aspace *as, uint64_t addr, uint8_t *buf,
		      size_t len)
{
	size_t done = 0;

	while (done < len) {
		const struct sy_map *m = sy_aspace_find(as, addr);
		size_t avail;
		const uint8_t *p = m ? sy_map_code(m, addr, &avail) : NULL;

		if (!p)
			break;
		if (avail > len - done)
			avail = len - done;
		memcpy(buf + done, p, avail);
		done += avail;
		addr += avail;
	}
	return done;
}
