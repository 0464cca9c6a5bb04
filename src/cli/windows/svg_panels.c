/* windows --svg: the panels under the length histogram, each answering
 * one question a person tuning the strobing asks (issue 24): how many
 * taken branches a window gives, against the branch stack's --depth; and
 * with --what-if, how much of the profile shorter windows would keep. */
#include <inttypes.h>
#include <math.h>

#include "svg.h"

static int sy_svg_has_whatif(const struct sy_wl *c)
{
	struct sy_wi_point p[SY_WI_MAX_N];
	int pick;

	return c->whatif && sy_whatif_points(c->whatif, p, &pick);
}

double sy_svg_panels_height(const struct sy_wl *c)
{
	return (c->branches.n ? SY_SVG_PANEL_H : 0) +
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
		    "N, taken branches kept per window (log scale)",
		    "% of the whole windows");
	sy_svg_yaxis(t, &p, 100);
	fprintf(t->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		      "stroke=\"#d50000\" stroke-dasharray=\"2,3\"><title>95%% "
		      "overlap</title></line>\n",
		p.l, y95, p.r, y95);
	for (size_t k = 0; k < nr; k++) {
		snprintf(s, sizeof(s), "%" PRIu32, pt[k].n);
		sy_svg_label(t, &(struct sy_svg_label){
				     sy_svg_cut_x(&p, pt, nr, k), p.b + 18, 10,
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
