/* strobe-synth windows --svg: what the picture's panels share.  svg.c
 * draws the frame and the window length histogram, svg_panels.c the
 * panels under it; each panel plots into a rectangle with the same axes,
 * bars and markers (svg_plot.c). */
#ifndef SY_WINDOWS_SVG_H
#define SY_WINDOWS_SVG_H

#include "svg_text.h"
#include "windows.h"

enum {
	SY_SVG_W = 900,
	SY_SVG_PANEL_H = 300,	/* each panel under the histogram */
	SY_SVG_PLOT_L = 80,	/* every plot's left and right */
	SY_SVG_PLOT_R = SY_SVG_W - 190,	/* legends are right of it */
};

/* A plot area in the picture's coordinates. */
struct sy_svg_plot {
	double l, r, t, b;
};

/* One colour per status, in enum order. */
extern const char *const sy_svg_colour[SY_ST_NR];

/* svg_plot.c */
/* The plot area of a panel whose top is @y0. */
struct sy_svg_plot sy_svg_panel(double y0);
/* y of @v on an axis from 0 at the bottom to @ymax at the top */
double sy_svg_y(const struct sy_svg_plot *p, double v, uint64_t ymax);
/* The y axis from 0 to a round value at or above @top: gridlines and
 * their labels.  Returns that value. */
uint64_t sy_svg_yaxis(struct sy_svg_text *t, const struct sy_svg_plot *p,
		      uint64_t top);
double sy_svg_hx(const struct sy_svg_plot *p, const struct sy_hist *h,
		 double v);
/* Bars of @h, stacked by status when @unit is NULL (window lengths);
 * else one colour, each bar's tooltip counting windows of @unit. */
void sy_svg_bars(struct sy_svg_text *t, const struct sy_svg_plot *p,
		 const struct sy_hist *h, uint64_t ymax, const char *unit);
/* A dashed vertical marker at @x from the plot's bottom up to its label,
 * the label right of it (left when that does not fit), raised row by
 * row above the plot until it is clear of the other labels. */
void sy_svg_marker(struct sy_svg_text *t, const struct sy_svg_plot *p,
		   double x, const char *colour, const char *label);
/* The panel's title above it, the x axis title under it, the y axis title
 * left of it (NULL: none), and its frame lines. */
void sy_svg_axes(struct sy_svg_text *t, const struct sy_svg_plot *p,
		 const char *title, const char *xtitle, const char *ytitle);

/* svg_panels.c: the height of the panels @c has data for; then each
 * panel, returning the height it used (0: nothing drawn). */
double sy_svg_panels_height(const struct sy_wl *c);
double sy_svg_branches(struct sy_svg_text *t, struct sy_wl *c, double y0);
double sy_svg_timeline(struct sy_svg_text *t, const struct sy_wl *c,
		       double y0);
double sy_svg_whatif(struct sy_svg_text *t, const struct sy_wl *c,
		     double y0);

#endif
