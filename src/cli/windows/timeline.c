/* windows --svg: window lengths over time, per CPU and per thread, for
 * the picture's timeline (issue 24), in memory that does not grow with
 * the recording: a fixed grid of time columns whose width doubles, pairs
 * of columns merging, whenever a window falls past the last one.  Each
 * cell keeps, per status, how many windows ended in it and their shortest
 * and longest length in instructions: what a column of points shows.
 * Rows are given to CPUs and threads as they first appear; those past
 * the last row share it. */
#include <stdlib.h>
#include <string.h>

#include "windows.h"

int sy_tl_init(struct sy_tl *tl)
{
	memset(tl, 0, sizeof(*tl));
	tl->cell = calloc((size_t)2 * SY_TL_ROWS * SY_TL_COLS * SY_ST_NR,
			  sizeof(*tl->cell));
	return tl->cell ? 0 : -SY_E_NOMEM;
}

void sy_tl_fini(struct sy_tl *tl)
{
	free(tl->cell);
	tl->cell = NULL;
}

static struct sy_tl_cell *sy_tl_at(const struct sy_tl *tl, int by,
				   size_t row, size_t col)
{
	return &tl->cell[(((size_t)by * SY_TL_ROWS + row) * SY_TL_COLS + col) *
			 SY_ST_NR];
}

const struct sy_tl_cell *sy_tl_cell(const struct sy_tl *tl, int by,
				    size_t row, size_t col)
{
	return sy_tl_at(tl, by, row, col);
}

static void sy_tl_merge(struct sy_tl_cell *to, const struct sy_tl_cell *c)
{
	if (!c->n)
		return;
	if (!to->n || c->min < to->min)
		to->min = c->min;
	if (c->max > to->max)
		to->max = c->max;
	to->n += c->n;
}

/* Columns twice as wide: column k takes the old 2k and 2k + 1. */
static void sy_tl_coarsen(struct sy_tl *tl)
{
	for (int by = 0; by < 2; by++)
		for (size_t row = 0; row < SY_TL_ROWS; row++)
			for (size_t k = 0; k < SY_TL_COLS; k++) {
				struct sy_tl_cell *to = sy_tl_at(tl, by, row, k);
				struct sy_tl_cell c[2][SY_ST_NR] = { 0 };

				if (2 * k < SY_TL_COLS)
					memcpy(c, sy_tl_at(tl, by, row, 2 * k),
					       sizeof(c));
				memset(to, 0, sizeof(c[0]));
				for (int st = 0; st < SY_ST_NR; st++) {
					sy_tl_merge(&to[st], &c[0][st]);
					sy_tl_merge(&to[st], &c[1][st]);
				}
			}
	tl->width *= 2;
	tl->cols = (tl->cols + 1) / 2;
}

/* Every column moved @s to the right (room before the first window: the
 * windows arrive in window order, not strictly in time order). */
static void sy_tl_shift(struct sy_tl *tl, size_t s)
{
	for (int by = 0; by < 2; by++)
		for (size_t row = 0; row < SY_TL_ROWS; row++) {
			struct sy_tl_cell *c = sy_tl_at(tl, by, row, 0);

			memmove(c + s * SY_ST_NR, c,
				tl->cols * SY_ST_NR * sizeof(*c));
			memset(c, 0, s * SY_ST_NR * sizeof(*c));
		}
	tl->cols += s;
	tl->t0 -= s * tl->width;
}

static size_t sy_tl_row(struct sy_tl *tl, int by, uint32_t key)
{
	for (size_t i = 0; i < tl->nr[by]; i++)
		if (tl->key[by][i] == key)
			return i;
	if (tl->nr[by] < SY_TL_ROWS - 1) {
		tl->key[by][tl->nr[by]] = key;
		return tl->nr[by]++;
	}
	tl->others[by] = 1;
	return SY_TL_ROWS - 1;
}

void sy_tl_add(struct sy_tl *tl, const struct sy_window *w)
{
	uint64_t t = w->pause_time ? w->pause_time : w->resume_time;
	size_t col;

	if (!tl->cell || !t)
		return;
	if (!tl->cols) {
		tl->t0 = t;
		tl->width = 1;
		tl->cols = 1;
	}
	/* before the first column: room made on the left, the columns
	 * coarsened until there is enough; a window before time 0 + width
	 * goes into the first column */
	while (t < tl->t0) {
		uint64_t s = (tl->t0 - t + tl->width - 1) / tl->width;

		if (s > tl->t0 / tl->width)
			s = tl->t0 / tl->width;
		if (s <= SY_TL_COLS - tl->cols) {
			if (s)
				sy_tl_shift(tl, (size_t)s);
			break;
		}
		sy_tl_coarsen(tl);
	}
	while (t >= tl->t0 && (t - tl->t0) / tl->width >= SY_TL_COLS)
		sy_tl_coarsen(tl);
	col = t < tl->t0 ? 0 : (size_t)((t - tl->t0) / tl->width);
	if (col >= tl->cols)
		tl->cols = col + 1;
	tl->seen[w->status]++;
	for (int by = 0; by < 2; by++) {
		struct sy_tl_cell one = { w->insns, w->insns, 1 };
		size_t row = sy_tl_row(tl, by, by ? w->tid : w->cpu);

		sy_tl_merge(&sy_tl_at(tl, by, row, col)[w->status], &one);
	}
}
