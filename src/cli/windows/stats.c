/* Window length distributions: percentiles (nearest rank) and linear
 * histogram bins chosen from the data, so that a person tuning the
 * resume and pause periods sees the spread of the lengths, whatever their
 * scale. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "windows.h"

/* @v with room for element @nr (of @size bytes): @v itself, a larger
 * copy, or NULL (@v untouched) when memory runs out. */
static void *sy_room(void *v, size_t nr, size_t *cap, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 256;
	void *n;

	if (nr < *cap)
		return v;
	n = realloc(v, ncap * size);
	if (n)
		*cap = ncap;
	return n;
}

static int sy_dist_add(struct sy_dist *d, uint64_t v)
{
	uint64_t *n = sy_room(d->v, d->nr, &d->cap, sizeof(*n));

	if (!n)
		return -SY_E_NOMEM;
	d->v = n;
	d->v[d->nr++] = v;
	return 0;
}

static int sy_lens_add(struct sy_wl *c, uint64_t insns, enum sy_status st)
{
	struct sy_wl_len *n = sy_room(c->lens, c->nr_lens, &c->cap_lens,
				      sizeof(*n));

	if (!n)
		return -SY_E_NOMEM;
	c->lens = n;
	c->lens[c->nr_lens++] = (struct sy_wl_len){ insns, st };
	return 0;
}

/* Length distributions are kept for windows that carry trace. */
int sy_wl_add(struct sy_wl *c, const struct sy_window *w)
{
	if (!w->insns && !w->bytes)
		return 0;
	if (sy_dist_add(&c->insns, w->insns) ||
	    sy_dist_add(&c->branches, w->branches) ||
	    sy_dist_add(&c->bytes, w->bytes) ||
	    sy_lens_add(c, w->insns, w->status))
		return -SY_E_NOMEM;
	if (w->has_resume && w->has_pause &&
	    sy_dist_add(&c->ns, w->pause_time - w->resume_time))
		return -SY_E_NOMEM;
	return 0;
}

static int sy_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void sy_wl_sort(struct sy_wl *c)
{
	struct sy_dist *d[] = { &c->insns, &c->branches, &c->ns, &c->bytes };

	for (size_t i = 0; i < 4; i++)
		if (d[i]->nr > 1)
			qsort(d[i]->v, d[i]->nr, sizeof(uint64_t), sy_cmp_u64);
}

/* Nearest-rank percentile of a sorted array. */
uint64_t sy_pct(const struct sy_dist *d, unsigned p)
{
	size_t k;

	if (!d->nr)
		return 0;
	k = (size_t)ceil((double)p / 100.0 * (double)d->nr);
	return d->v[k ? k - 1 : 0];
}

/* The smallest 1, 2 or 5 times a power of ten at or above @x. */
uint64_t sy_nice(double x)
{
	uint64_t p = 1;

	if (x <= 1.0)
		return 1;
	while (p <= UINT64_MAX / 10 && (double)p * 10.0 <= x)
		p *= 10;
	if ((double)p >= x)
		return p;
	if ((double)(2 * p) >= x)
		return 2 * p;
	if ((double)(5 * p) >= x || p > UINT64_MAX / 10)
		return 5 * p;
	return 10 * p;
}

/* About the square root of the count of bins (at least 5, at most 40),
 * each a round width, from a round start below the shortest window. */
int sy_hist_make(struct sy_hist *h, const struct sy_wl *c)
{
	uint64_t min = UINT64_MAX, max = 0;
	double want;

	memset(h, 0, sizeof(*h));
	if (!c->nr_lens)
		return 0;
	for (size_t i = 0; i < c->nr_lens; i++) {
		min = c->lens[i].insns < min ? c->lens[i].insns : min;
		max = c->lens[i].insns > max ? c->lens[i].insns : max;
	}
	want = ceil(sqrt((double)c->nr_lens));
	want = want < 5 ? 5 : want > 40 ? 40 : want;
	h->width = sy_nice((double)(max - min + 1) / want);
	h->lo = min / h->width * h->width;
	h->nr = (size_t)((max - h->lo) / h->width + 1);
	h->count = calloc(h->nr, sizeof(*h->count));
	h->total = calloc(h->nr, sizeof(*h->total));
	if (!h->count || !h->total) {
		sy_hist_fini(h);
		return -SY_E_NOMEM;
	}
	for (size_t i = 0; i < c->nr_lens; i++) {
		size_t b = (size_t)((c->lens[i].insns - h->lo) / h->width);

		h->count[b][c->lens[i].status]++;
		if (++h->total[b] > h->top)
			h->top = h->total[b];
	}
	return 0;
}

void sy_hist_fini(struct sy_hist *h)
{
	free(h->count);
	free(h->total);
	memset(h, 0, sizeof(*h));
}

void sy_wl_fini(struct sy_wl *c)
{
	free(c->insns.v);
	free(c->branches.v);
	free(c->ns.v);
	free(c->bytes.v);
	free(c->lens);
}
