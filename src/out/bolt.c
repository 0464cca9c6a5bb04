/* BOLT pre-aggregated records (sy_bolt.h): a hash table of (binary, kind,
 * a, b) -> count, sorted when written.  Memory grows with the distinct
 * branches and ranges, which the code size bounds, not with the samples. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bolt.h"
#include "sy_hash.h"

enum { SY_BOLT_F = 0, SY_BOLT_B = 1 };

struct sy_bolt_rec {
	uint64_t a, b, count;
	uint32_t bin;
	uint32_t kind;
};

struct sy_bolt_bin {
	const struct sy_image *img;
	const char *path;
	uint64_t branches;
};

struct sy_bolt {
	struct sy_bolt_rec *recs;
	size_t nr, cap;
	struct sy_hindex ix;	/* (bin, kind, a, b) -> recs[] */
	struct sy_bolt_bin *bins;
	size_t nr_bins, cap_bins;
};

int sy_bolt_new(struct sy_bolt **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -SY_E_NOMEM;
}

void sy_bolt_free(struct sy_bolt *b)
{
	if (!b)
		return;
	free(b->recs);
	sy_hindex_fini(&b->ix);
	free(b->bins);
	free(b);
}

static uint64_t sy_bolt_hash(uint32_t bin, uint32_t kind, uint64_t a,
			     uint64_t b)
{
	return sy_hash_u64(a * SY_HASH_GOLDEN ^
			   (b + ((uint64_t)bin << 33) + kind));
}

static uint64_t sy_bolt_rec_hash(const void *ctx, size_t i)
{
	const struct sy_bolt_rec *r = &((const struct sy_bolt *)ctx)->recs[i];

	return sy_bolt_hash(r->bin, r->kind, r->a, r->b);
}

static int sy_bolt_count(struct sy_bolt *b, uint32_t bin, uint32_t kind,
			 uint64_t x, uint64_t y, uint64_t count)
{
	size_t j;
	uint32_t e;

	if (sy_hindex_reserve(&b->ix, b->nr + 1, 1024, sy_bolt_rec_hash, b))
		return -SY_E_NOMEM;
	for (j = sy_hindex_first(&b->ix, sy_bolt_hash(bin, kind, x, y));
	     (e = sy_hindex_at(&b->ix, j)); j = sy_hindex_next(&b->ix, j)) {
		struct sy_bolt_rec *r = &b->recs[e - 1];

		if (r->bin == bin && r->kind == kind && r->a == x &&
		    r->b == y) {
			r->count += count;
			return 0;
		}
	}
	if (b->nr >= UINT32_MAX - 1)
		return -SY_E_NOMEM;
	if (b->nr == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 1024;
		struct sy_bolt_rec *n = realloc(b->recs, ncap * sizeof(*n));

		if (!n)
			return -SY_E_NOMEM;
		b->recs = n;
		b->cap = ncap;
	}
	b->recs[b->nr] = (struct sy_bolt_rec){ x, y, count, bin, kind };
	sy_hindex_set(&b->ix, j, b->nr++);
	return 0;
}

/* The binary index of @img, registered on first sight; -1: no memory. */
static int64_t sy_bolt_bin(struct sy_bolt *b, const struct sy_map *m)
{
	for (size_t i = b->nr_bins; i-- > 0;)
		if (b->bins[i].img == m->img)
			return (int64_t)i;
	if (b->nr_bins == b->cap_bins) {
		size_t ncap = b->cap_bins ? b->cap_bins * 2 : 8;
		struct sy_bolt_bin *n = realloc(b->bins, ncap * sizeof(*n));

		if (!n)
			return -1;
		b->bins = n;
		b->cap_bins = ncap;
	}
	b->bins[b->nr_bins] = (struct sy_bolt_bin){ m->img, m->path, 0 };
	return (int64_t)b->nr_bins++;
}

/* An address in its binary: the link-time vaddr BOLT reads the ELF at. */
struct sy_bolt_loc {
	int64_t bin;		/* -1: in no known binary */
	uint64_t vaddr;
};

static int sy_bolt_locate(struct sy_bolt *b, const struct sy_proc_snap *snap,
			  uint32_t pid, uint64_t addr, struct sy_bolt_loc *l)
{
	const struct sy_map *m = snap ? sy_proc_snap_find(snap, pid, addr) :
					NULL;

	l->bin = -1;
	l->vaddr = 0;
	if (!m || !m->img)
		return 0;
	if (sy_map_vaddr(m, addr, &l->vaddr))
		return 0;
	l->bin = sy_bolt_bin(b, m);
	return l->bin < 0 ? -SY_E_NOMEM : 0;
}

int sy_bolt_add_stack(struct sy_bolt *b, const struct sy_proc_snap *snap,
		      uint32_t pid, const struct sy_br *stack, uint32_t n,
		      uint64_t count)
{
	struct sy_bolt_loc from, to, newer_from = { -1, 0 };
	int err = 0;

	/* oldest first, so that each entry's target meets the next newer
	 * entry's source: the fall-through between them */
	for (uint32_t i = n; i-- > 0 && !err;) {
		err = sy_bolt_locate(b, snap, pid, stack[i].from, &from);
		if (!err)
			err = sy_bolt_locate(b, snap, pid, stack[i].to, &to);
		if (err)
			break;
		if (from.bin >= 0) {
			err = sy_bolt_count(b, (uint32_t)from.bin, SY_BOLT_B,
					    from.vaddr,
					    to.bin == from.bin ? to.vaddr : 0,
					    count);
			b->bins[from.bin].branches += count;
		}
		/* a branch into the binary from elsewhere: from 0 */
		if (!err && to.bin >= 0 && to.bin != from.bin) {
			err = sy_bolt_count(b, (uint32_t)to.bin, SY_BOLT_B, 0,
					    to.vaddr, count);
			b->bins[to.bin].branches += count;
		}
		if (!err && i > 0) {
			err = sy_bolt_locate(b, snap, pid, stack[i - 1].from,
					     &newer_from);
			if (!err && to.bin >= 0 && newer_from.bin == to.bin &&
			    to.vaddr <= newer_from.vaddr)
				err = sy_bolt_count(b, (uint32_t)to.bin,
						    SY_BOLT_F, to.vaddr,
						    newer_from.vaddr, count);
		}
	}
	return err;
}

size_t sy_bolt_nr_binaries(const struct sy_bolt *b)
{
	return b->nr_bins;
}

const char *sy_bolt_binary_path(const struct sy_bolt *b, size_t i)
{
	return i < b->nr_bins ? b->bins[i].path : NULL;
}

const struct sy_image *sy_bolt_binary_image(const struct sy_bolt *b,
					    size_t i)
{
	return i < b->nr_bins ? b->bins[i].img : NULL;
}

uint64_t sy_bolt_binary_branches(const struct sy_bolt *b, size_t i)
{
	return i < b->nr_bins ? b->bins[i].branches : 0;
}

static int sy_bolt_cmp(const void *x, const void *y)
{
	const struct sy_bolt_rec *p = *(const struct sy_bolt_rec *const *)x;
	const struct sy_bolt_rec *q = *(const struct sy_bolt_rec *const *)y;

	if (p->kind != q->kind)
		return p->kind < q->kind ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return 0;
}

int sy_bolt_write(const struct sy_bolt *b, size_t bin, FILE *f)
{
	const struct sy_bolt_rec **v;
	size_t n = 0;

	v = malloc((b->nr ? b->nr : 1) * sizeof(*v));
	if (!v)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < b->nr; i++)
		if (b->recs[i].bin == bin)
			v[n++] = &b->recs[i];
	qsort(v, n, sizeof(*v), sy_bolt_cmp);
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind == SY_BOLT_F)
			fprintf(f, "F %" PRIx64 " %" PRIx64 " %" PRIu64 "\n",
				v[i]->a, v[i]->b, v[i]->count);
		else
			fprintf(f, "B %" PRIx64 " %" PRIx64 " %" PRIu64 " 0\n",
				v[i]->a, v[i]->b, v[i]->count);
	}
	free(v);
	return ferror(f) ? -SY_E_OUTPUT : 0;
}
