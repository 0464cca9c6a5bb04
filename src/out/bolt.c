/* BOLT pre-aggregated records (sy_bolt.h): a hash table of (binary, kind,
 * a, b) -> count, sorted when written.  Memory grows with the distinct
 * branches and ranges, which the code size bounds, not with the samples. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sy_bolt.h"

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
	uint32_t *tab;		/* open addressing: index + 1, 0 free */
	size_t tcap;
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
	free(b->tab);
	free(b->bins);
	free(b);
}

static size_t sy_bolt_hash(uint32_t bin, uint32_t kind, uint64_t a,
			   uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + ((uint64_t)bin << 33) +
						    kind);

	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return (size_t)(h ^ (h >> 31));
}

static int sy_bolt_grow(struct sy_bolt *b)
{
	size_t ncap = b->tcap ? b->tcap * 2 : 1024;
	uint32_t *t = calloc(ncap, sizeof(*t));

	if (!t)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < b->nr; i++) {
		const struct sy_bolt_rec *r = &b->recs[i];
		size_t j = sy_bolt_hash(r->bin, r->kind, r->a, r->b) &
			   (ncap - 1);

		while (t[j])
			j = (j + 1) & (ncap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(b->tab);
	b->tab = t;
	b->tcap = ncap;
	return 0;
}

static int sy_bolt_count(struct sy_bolt *b, uint32_t bin, uint32_t kind,
			 uint64_t x, uint64_t y, uint64_t count)
{
	size_t j;

	if ((b->nr + 1) * 2 > b->tcap && sy_bolt_grow(b))
		return -SY_E_NOMEM;
	j = sy_bolt_hash(bin, kind, x, y) & (b->tcap - 1);
	for (; b->tab[j]; j = (j + 1) & (b->tcap - 1)) {
		struct sy_bolt_rec *r = &b->recs[b->tab[j] - 1];

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
	b->tab[j] = (uint32_t)++b->nr;
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
