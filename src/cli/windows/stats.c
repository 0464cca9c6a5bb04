/* Window length distributions (bounded: sy_dist.h): percentiles (nearest
 * rank) and linear histogram bins chosen from the data, so that a person tuning the
 * resume and pause periods sees the spread of the lengths, whatever their
 * scale. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "windows.h"

/* The distributions of one summary, in order. */
static struct sy_dist *sy_wl_dist(struct sy_wl *c, size_t i)
{
	struct sy_dist *d[] = { &c->insns, &c->branches, &c->ns, &c->bytes };

	return i < 4 ? d[i] : i < 4 + SY_ST_NR ? &c->len_by[i - 4] : NULL;
}

void sy_wl_init(struct sy_wl *c)
{
	struct sy_dist *d;

	for (size_t i = 0; (d = sy_wl_dist(c, i)); i++)
		sy_dist_init(d);
	sy_dist_init(&c->dc.skid);
	sy_dist_init(&c->dc.ns);
}

/* The span of the recording the windows cover and their CPUs. */
static void sy_wl_span(struct sy_wl *c, const struct sy_window *w)
{
	uint64_t first = w->has_resume && w->resume_time ? w->resume_time :
							   w->pause_time;

	if (first && (!c->t_first || first < c->t_first))
		c->t_first = first;
	if (w->pause_time > c->t_last)
		c->t_last = w->pause_time;
	if (w->cpu < SY_WL_MAX_CPU)
		c->cpus[w->cpu / 64] |= 1ull << (w->cpu % 64);
	c->trace_bytes += w->bytes;
	if (w->status != SY_ST_OK)
		c->bytes_not_ok += w->bytes;
}

unsigned sy_wl_nr_cpus(const struct sy_wl *c)
{
	unsigned n = 0;

	for (size_t i = 0; i < SY_WL_MAX_CPU / 64; i++)
		n += (unsigned)__builtin_popcountll(c->cpus[i]);
	return n;
}

/* Length distributions are kept for windows that carry trace. */
int sy_wl_add(struct sy_wl *c, const struct sy_window *w)
{
	sy_wl_span(c, w);
	if (!w->insns && !w->bytes)
		return 0;
	if (sy_dist_add(&c->insns, w->insns) ||
	    sy_dist_add(&c->branches, w->branches) ||
	    sy_dist_add(&c->bytes, w->bytes) ||
	    sy_dist_add(&c->len_by[w->status], w->insns))
		return -SY_E_NOMEM;
	if (w->has_resume && w->has_pause &&
	    sy_dist_add(&c->ns, w->pause_time - w->resume_time))
		return -SY_E_NOMEM;
	return 0;
}

int sy_wl_exact(const struct sy_wl *c)
{
	/* len_by[] holds what insns holds, split by status */
	return sy_dist_exact(&c->insns) && sy_dist_exact(&c->branches) &&
	       sy_dist_exact(&c->ns) && sy_dist_exact(&c->bytes);
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
 * each a round width, from a round start below the smallest value.  Once
 * a distribution is binned (sy_dist.h), each of its bins counts at its
 * lower bound. */
int sy_hist_make(struct sy_hist *h, struct sy_dist *all, struct sy_dist *by)
{
	uint64_t v, k, min = all->min, max = all->max;
	double want;

	memset(h, 0, sizeof(*h));
	if (!all->n)
		return 0;
	want = ceil(sqrt((double)all->n));
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
	for (int st = 0; st < (by ? SY_ST_NR : 1); st++)
		for (size_t pos = 0;
		     sy_dist_next(by ? &by[st] : all, &pos, &v, &k);) {
			size_t b = (size_t)((v - h->lo) / h->width);

			h->count[b][st] += k;
			h->total[b] += k;
		}
	for (size_t b = 0; b < h->nr; b++)
		h->top = h->total[b] > h->top ? h->total[b] : h->top;
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
	struct sy_dist *d;

	for (size_t i = 0; (d = sy_wl_dist(c, i)); i++)
		sy_dist_fini(d);
	sy_dcheck_fini(&c->dc);
	sy_tl_fini(&c->tl);
}
