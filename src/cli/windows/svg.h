/* strobe-synth windows --svg: what the picture's panels share.  svg.c
 * draws the frame and the window length histogram, svg_panels.c the
 * panels under it; each panel plots into a rectangle with the same axes,
 * bars and markers. */
#ifndef SY_WINDOWS_SVG_H
#define SY_WINDOWS_SVG_H

#include "svg_text.h"
#include "windows.h"

enum {
	SY_SVG_W = 900,
	SY_SVG_PANEL_H = 300,	/* each panel under the histogram */
};

/* A plot area in the picture's coordinates. */
struct sy_svg_plot {
	double l, r, t, b;
};

/* One colour per status, in enum order. */
extern const char *const sy_svg_colour[SY_ST_NR];

/* The plot area of a panel whose top is @y0. */
struct sy_svg_plot sy_svg_panel(double y0);
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
 * left of it, and its frame lines. */
void sy_svg_axes(struct sy_svg_text *t, const struct sy_svg_plot *p,
		 const char *title, const char *xtitle, const char *ytitle);

#endif
