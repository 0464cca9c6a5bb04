/* windows --svg: the panels under the length histogram, each answering
 * one question a person tuning the strobing asks (issue 24): how many
 * taken branches a window gives, against the branch stack's --depth;
 * where in the recording, on which CPU or thread, windows were short or
 * went wrong; and with --what-if, how much of the profile shorter
 * windows would keep. */
#include <inttypes.h>
#include <math.h>

#include "svg.h"

static int sy_svg_has_whatif(const struct sy_wl *c)
{
	struct sy_wi_point p[SY_WI_MAX_N];
	int pick;

	return c->whatif && sy_whatif_points(c->whatif, p, &pick);
}

/* Rows per CPU when the windows ran on more than one, else per thread
 * (a per-thread recording on one CPU, or one CPU's trace). */
static int sy_svg_tl_by(const struct sy_tl *tl)
{
	return tl->nr[0] + (size_t)tl->others[0] > 1 ? 0 : 1;
}

/* The timeline's rows and the height of its plot: a row each, or the
 * legend's length when that is longer. */
static double sy_svg_tl_body(const struct sy_tl *tl, size_t *rows)
{
	int by = sy_svg_tl_by(tl), keys = 0;

	*rows = tl->nr[by] + (size_t)tl->others[by];
	for (int st = 0; st < SY_ST_NR; st++)
		keys += !!tl->seen[st];
	return *rows * 36.0 > keys * 18.0 ? *rows * 36.0 : keys * 18.0;
}

static double sy_svg_tl_height(const struct sy_wl *c)
{
	size_t rows;
	double body = sy_svg_tl_body(&c->tl, &rows);

	return c->tl.cell && c->tl.cols && rows ? body + 120 : 0;
}

/* The points of one row: per time column and status, a bar from the
 * shortest to the longest window that ended there. */
static void sy_svg_tl_row(struct sy_svg_text *t, const struct sy_svg_plot *p,
			  const struct sy_tl *tl, int by, size_t row,
			  double bottom, uint64_t top)
{
	for (size_t col = 0; col < tl->cols; col++) {
		const struct sy_tl_cell *cell = sy_tl_cell(tl, by, row, col);
		double x = p->l + ((double)col + 0.5) * (p->r - p->l) /
					  (double)tl->cols;

		for (int st = 0; st < SY_ST_NR; st++) {
			double y0, y1;

			if (!cell[st].n)
				continue;
			y0 = bottom - (double)cell[st].min / (double)top * 30;
			y1 = bottom - (double)cell[st].max / (double)top * 30;
			fprintf(t->f, "<rect x=\"%.1f\" y=\"%.1f\" "
				      "width=\"3\" height=\"%.1f\" fill=\"%s\">"
				      "<title>%" PRIu64 " %s, %" PRIu64
				      " .. %" PRIu64 " instructions</title>"
				      "</rect>\n",
				x - 1.5, y1 - 1.5, y0 - y1 + 3,
				sy_svg_colour[st], cell[st].n,
				sy_status_name(st), cell[st].min,
				cell[st].max);
		}
	}
}

/* The unit of the time axis: the largest at or below the span. */
static const char *sy_svg_tl_unit(double span, double *div)
{
	static const char *const name[] = { "ns", "µs", "ms", "s" };
	int u = 0;

	*div = 1;
	while (u < 3 && span >= *div * 1000) {
		*div *= 1000;
		u++;
	}
	return name[u];
}

/* Time ticks under the plot, since the first column. */
static void sy_svg_tl_ticks(struct sy_svg_text *t, const struct sy_svg_plot *p,
			    const struct sy_tl *tl)
{
	double span = (double)tl->cols * (double)tl->width, div;
	uint64_t step = sy_nice(span / 6);
	char s[32];

	sy_svg_tl_unit(span, &div);
	for (uint64_t v = 0; (double)v <= span; v += step) {
		snprintf(s, sizeof(s), "%g", (double)v / div);
		sy_svg_label(t, &(struct sy_svg_label){
				     p->l + (double)v / span * (p->r - p->l),
				     p->b + 18, 10, SY_SVG_MIDDLE, 0, 0 },
			     s);
	}
}

/* Window length over time, a row per CPU or thread, coloured by status:
 * where in the recording windows were cut short, lost or damaged. */
double sy_svg_timeline(struct sy_svg_text *t, const struct sy_wl *c,
		       double y0)
{
	const struct sy_tl *tl = &c->tl;
	struct sy_svg_plot p = sy_svg_panel(y0);
	int by = sy_svg_tl_by(tl), key = 0;
	uint64_t top = c->insns.max ? c->insns.max : 1;
	double div;
	size_t rows;
	char s[96];

	if (!sy_svg_tl_height(c))
		return 0;
	p.b = p.t + sy_svg_tl_body(tl, &rows);
	snprintf(s, sizeof(s), "window length over time, per %s (each row 0 "
			       ".. %" PRIu64 " instructions)",
		 by ? "thread" : "CPU", top);
	sy_svg_axes(t, &p, s, NULL, NULL);
	snprintf(s, sizeof(s), "time since the first window ended (%s)",
		 sy_svg_tl_unit((double)tl->cols * (double)tl->width, &div));
	sy_svg_label(t, &(struct sy_svg_label){ (p.l + p.r) / 2, p.b + 48, 12,
						SY_SVG_MIDDLE, 0, 0 },
		     s);
	for (size_t row = 0; row < rows; row++) {
		double bottom = p.t + 36.0 * (double)row + 33;

		fprintf(t->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			      "y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n",
			p.l, bottom, p.r, bottom);
		if (row == SY_TL_ROWS - 1)
			snprintf(s, sizeof(s), "others");
		else
			snprintf(s, sizeof(s), "%s %" PRIu32, by ? "tid" : "cpu",
				 tl->key[by][row]);
		sy_svg_label(t, &(struct sy_svg_label){ p.l - 6, bottom, 10,
							SY_SVG_END, 0, 0 },
			     s);
		sy_svg_tl_row(t, &p, tl, by, row, bottom, top);
	}
	sy_svg_tl_ticks(t, &p, tl);
	for (int st = 0; st < SY_ST_NR; st++) {
		if (!tl->seen[st])
			continue;
		fprintf(t->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
			      "height=\"12\" fill=\"%s\"/>\n",
			p.r + 20, p.t + 18.0 * key + 2, sy_svg_colour[st]);
		sy_svg_label(t, &(struct sy_svg_label){ p.r + 38,
							p.t + 18.0 * key + 12,
							11, SY_SVG_START, 0, 0 },
			     sy_status_name(st));
		key++;
	}
	return sy_svg_tl_height(c);
}

double sy_svg_panels_height(const struct sy_wl *c)
{
	return (c->branches.n ? SY_SVG_PANEL_H : 0) + sy_svg_tl_height(c) +
	       (sy_svg_has_whatif(c) ? SY_SVG_PANEL_H : 0);
}

/* Legend entries right of a panel's plot, from its top. */
static void sy_svg_key(struct sy_svg_text *t, const struct sy_svg_plot *p,
		       int row, const char *colour, const char *dash,
		       const char *label)
{
	double y = p->t + 18.0 * row;

	fprintf(t->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		      "stroke=\"%s\" stroke-width=\"2\"%s/>\n",
		p->r + 20, y - 4, p->r + 32, y - 4, colour, dash);
	sy_svg_label(t, &(struct sy_svg_label){ p->r + 38, y, 11,
						SY_SVG_START, 0, 0 },
		     label);
}

/* Taken branches per window with trace, and the branch stack depth each
 * sample keeps (--depth): windows right of the marker lose their oldest
 * branches. */
double sy_svg_branches(struct sy_svg_text *t, struct sy_wl *c, double y0)
{
	struct sy_svg_plot p = sy_svg_panel(y0);
	uint32_t depth = c->cs.o.depth;
	struct sy_hist h;
	uint64_t ymax;
	char s[96];
	double x;

	if (!c->branches.n || sy_hist_make(&h, &c->branches, NULL))
		return 0;
	snprintf(s, sizeof(s), "taken branches per window (bins of %" PRIu64
			       ")", h.width);
	sy_svg_axes(t, &p, "taken branches per window", s, "windows");
	ymax = sy_svg_yaxis(t, &p, h.top);
	sy_svg_bars(t, &p, &h, ymax, "branches");
	if (depth) {
		/* a depth past the longest window: at the edge, said so */
		x = sy_svg_hx(&p, &h, (double)depth + 0.5);
		snprintf(s, sizeof(s), "--depth %" PRIu32 "%s", depth,
			 x > p.r ? " (right of the plot)" :
			 x < p.l ? " (left of the plot)" : "");
		x = x > p.r ? p.r : x < p.l ? p.l : x;
		sy_svg_marker(t, &p, x, "#d50000", s);
	}
	sy_svg_key(t, &p, 0, "#1565c0", "", "windows");
	if (depth)
		sy_svg_key(t, &p, 1, "#d50000", " stroke-dasharray=\"5,3\"",
			   "branch stack depth");
	else
		sy_svg_label(t, &(struct sy_svg_label){ p.r + 20, p.t + 18,
							11, SY_SVG_START, 0,
							0 },
			     "--depth all: no cut");
	sy_hist_fini(&h);
	return SY_SVG_PANEL_H;
}

/* x of cut @k of @nr: evenly spaced by the logarithm of N (the default
 * cuts double). */
static double sy_svg_cut_x(const struct sy_svg_plot *p,
			   const struct sy_wi_point *pt, size_t nr, size_t k)
{
	double a = log((double)pt[0].n), b = log((double)pt[nr - 1].n);

	if (nr == 1 || b <= a)
		return (p->l + p->r) / 2;
	return p->l + 20 + (log((double)pt[k].n) - a) / (b - a) *
				   (p->r - p->l - 40);
}

/* One curve through the cuts, a dot with its value at each. */
static void sy_svg_curve(struct sy_svg_text *t, const struct sy_svg_plot *p,
			 const struct sy_wi_point *pt, size_t nr, int which,
			 const char *colour, const char *dash)
{
	static const char *const name[] = { "function overlap",
					    "context overlap", "kept" };

	fprintf(t->f, "<polyline fill=\"none\" stroke=\"%s\" "
		      "stroke-width=\"2\"%s points=\"", colour, dash);
	for (size_t k = 0; k < nr; k++) {
		double v = which == 0 ? pt[k].func :
			   which == 1 ? pt[k].ctx : pt[k].kept;

		fprintf(t->f, "%s%.1f,%.1f", k ? " " : "",
			sy_svg_cut_x(p, pt, nr, k), p->b - v * (p->b - p->t));
	}
	fputs("\"/>\n", t->f);
	for (size_t k = 0; k < nr; k++) {
		double v = which == 0 ? pt[k].func :
			   which == 1 ? pt[k].ctx : pt[k].kept;

		fprintf(t->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
			      "fill=\"%s\"><title>N = %" PRIu32 ": %s "
			      "%.1f%%</title></circle>\n",
			sy_svg_cut_x(p, pt, nr, k), p->b - v * (p->b - p->t),
			colour, pt[k].n, name[which], 100 * v);
	}
}

/* --what-if: each cut's overlap with the whole windows' profile and the
 * share of trace it keeps, against N on a log scale, with the 95% line
 * and the advised cut. */
double sy_svg_whatif(struct sy_svg_text *t, const struct sy_wl *c,
		     double y0)
{
	struct sy_svg_plot p = sy_svg_panel(y0);
	struct sy_wi_point pt[SY_WI_MAX_N];
	int pick;
	size_t nr = c->whatif ? sy_whatif_points(c->whatif, pt, &pick) : 0;
	double y95 = p.b - 0.95 * (p.b - p.t);
	char s[64];

	if (!nr)
		return 0;
	sy_svg_axes(t, &p, "what-if: windows cut to their newest N taken "
			   "branches",
		    "N taken branches kept per window (log scale); under it, "
		    "W: about that many instructions",
		    "% of the whole windows");
	sy_svg_yaxis(t, &p, 100);
	fprintf(t->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		      "stroke=\"#d50000\" stroke-dasharray=\"2,3\"><title>95%% "
		      "overlap</title></line>\n",
		p.l, y95, p.r, y95);
	/* each cut: N, and under it the window length W it means */
	for (size_t k = 0; k < nr; k++) {
		snprintf(s, sizeof(s), "%" PRIu32, pt[k].n);
		sy_svg_label(t, &(struct sy_svg_label){
				     sy_svg_cut_x(&p, pt, nr, k), p.b + 18, 10,
				     SY_SVG_MIDDLE, 0, 0 },
			     s);
		snprintf(s, sizeof(s), "~%.0f", pt[k].insns);
		sy_svg_label(t, &(struct sy_svg_label){
				     sy_svg_cut_x(&p, pt, nr, k), p.b + 32, 10,
				     SY_SVG_MIDDLE, 0, 0 },
			     s);
	}
	sy_svg_curve(t, &p, pt, nr, 2, "#9e9e9e", " stroke-dasharray=\"5,3\"");
	sy_svg_curve(t, &p, pt, nr, 1, "#6a1b9a", "");
	sy_svg_curve(t, &p, pt, nr, 0, "#1565c0", "");
	sy_svg_key(t, &p, 0, "#1565c0", "", "function overlap");
	sy_svg_key(t, &p, 1, "#6a1b9a", "", "context overlap");
	sy_svg_key(t, &p, 2, "#9e9e9e", " stroke-dasharray=\"5,3\"",
		   "trace kept");
	sy_svg_key(t, &p, 3, "#d50000", " stroke-dasharray=\"2,3\"",
		   "95% overlap");
	if (pick >= 0) {
		snprintf(s, sizeof(s), "advice: N = %" PRIu32, pt[pick].n);
		sy_svg_marker(t, &p, sy_svg_cut_x(&p, pt, nr, (size_t)pick),
			      "black", s);
	}
	return SY_SVG_PANEL_H;
}
