/* windows --svg: what every panel of the picture draws with (svg.h): its
 * plot area, the y axis of counts, bars over histogram bins, dashed
 * markers with their labels, and the axis titles and frame. */
#include <inttypes.h>

#include "svg.h"

const char *const sy_svg_colour[SY_ST_NR] = {
	"#2e7d32", "#9e9e9e", "#cfcfcf", "#ef6c00", "#c62828", "#6a1b9a",
	"#1565c0", "#00838f", "#6d4c41", "#f9a825", "#fdd835", "#afb42b",
};

struct sy_svg_plot sy_svg_panel(double y0)
{
	return (struct sy_svg_plot){ SY_SVG_PLOT_L, SY_SVG_PLOT_R, y0 + 64,
				     y0 + SY_SVG_PANEL_H - 56 };
}

double sy_svg_y(const struct sy_svg_plot *p, double v, uint64_t ymax)
{
	return p->b - v * (p->b - p->t) / (double)ymax;
}

uint64_t sy_svg_yaxis(struct sy_svg_text *t, const struct sy_svg_plot *p,
		      uint64_t top)
{
	uint64_t step = sy_nice((double)top / 6.0), ymax;
	char n[32];

	ymax = (top + step - 1) / step * step;
	if (!ymax)
		ymax = 1;
	for (uint64_t v = 0; v <= ymax; v += step) {
		double y = sy_svg_y(p, (double)v, ymax);

		fprintf(t->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			      "y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n",
			p->l, y, p->r, y);
		snprintf(n, sizeof(n), "%" PRIu64, v);
		sy_svg_label(t, &(struct sy_svg_label){ p->l - 6, y + 4, 11,
							SY_SVG_END, 0, 0 },
			     n);
	}
	return ymax;
}

double sy_svg_hx(const struct sy_svg_plot *p, const struct sy_hist *h,
		 double v)
{
	return p->l + (v - (double)h->lo) * (p->r - p->l) /
			      (double)(h->nr * h->width);
}

/* The stacked parts of one bar, each with its status as tooltip. */
static void sy_svg_stack(struct sy_svg_text *t, const struct sy_svg_plot *p,
			 const struct sy_hist *h, size_t b, uint64_t ymax,
			 int by_status)
{
	double bw = (p->r - p->l) / (double)h->nr, x = p->l + bw * (double)b;
	uint64_t below = 0;

	for (int st = 0; st < SY_ST_NR; st++) {
		uint64_t k = h->count[b][st];
		double y0 = sy_svg_y(p, (double)below, ymax);
		double y1 = sy_svg_y(p, (double)(below + k), ymax);

		if (!k)
			continue;
		fprintf(t->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			      "height=\"%.1f\" fill=\"%s\">",
			x + 1, y1, bw - 2, y0 - y1,
			by_status ? sy_svg_colour[st] : "#1565c0");
		if (by_status)
			fprintf(t->f, "<title>%" PRIu64 " %s</title>", k,
				sy_status_name(st));
		fputs("</rect>\n", t->f);
		below += k;
	}
}

void sy_svg_bars(struct sy_svg_text *t, const struct sy_svg_plot *p,
		 const struct sy_hist *h, uint64_t ymax, const char *unit)
{
	double bw = (p->r - p->l) / (double)h->nr;
	size_t every = h->nr > 10 ? (h->nr + 9) / 10 : 1;
	char n[32];

	for (size_t b = 0; b < h->nr; b++) {
		uint64_t lo = h->lo + b * h->width;
		double x = p->l + bw * (double)b;

		sy_svg_stack(t, p, h, b, ymax, !unit);
		/* the whole bar's count, for a reader and for the tests */
		fprintf(t->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			      "height=\"%.1f\" fill=\"none\" "
			      "pointer-events=\"all\"><title>%" PRIu64
			      " .. %" PRIu64 "%s%s: %" PRIu64
			      " windows</title></rect>\n",
			x, p->t, bw, p->b - p->t, lo, lo + h->width - 1,
			unit ? " " : "", unit ? unit : "", h->total[b]);
		/* a tick label that would touch its neighbour is left out */
		if (b % every == 0) {
			snprintf(n, sizeof(n), "%" PRIu64, lo);
			sy_svg_label(t, &(struct sy_svg_label){ x, p->b + 18,
								10,
								SY_SVG_MIDDLE,
								0, 0 },
				     n);
		}
	}
	snprintf(n, sizeof(n), "%" PRIu64, h->lo + h->nr * h->width);
	sy_svg_label(t, &(struct sy_svg_label){ p->r, p->b + 18, 10,
						SY_SVG_MIDDLE, 0, 0 },
		     n);
}

void sy_svg_marker(struct sy_svg_text *t, const struct sy_svg_plot *p,
		   double x, const char *colour, const char *label)
{
	double w = sy_svg_text_width(label, 11, 1), y = -1;
	struct sy_svg_label l = { x + 3, p->t - 12, 11, SY_SVG_START, 1, -15 };

	/* right of the line unless it would run past the plot */
	if (x + 3 + w <= p->r)
		y = sy_svg_label(t, &l, label);
	if (y < 0) {
		l.x = x - 3;
		l.anchor = SY_SVG_END;
		y = sy_svg_label(t, &l, label);
	}
	/* no free row: the line alone, its label a tooltip */
	fprintf(t->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		      "stroke=\"%s\" stroke-dasharray=\"5,3\"><title>",
		x, y < 0 ? p->t : y - 4, x, p->b, colour);
	sy_svg_escape(t->f, label);
	fputs("</title></line>\n", t->f);
}

void sy_svg_axes(struct sy_svg_text *t, const struct sy_svg_plot *p,
		 const char *title, const char *xtitle, const char *ytitle)
{
	if (title)
		sy_svg_label(t, &(struct sy_svg_label){ (p->l + p->r) / 2,
							p->t - 44, 13,
							SY_SVG_MIDDLE, 1, 0 },
			     title);
	if (xtitle)
		sy_svg_label(t, &(struct sy_svg_label){ (p->l + p->r) / 2,
							p->b + 48, 12,
							SY_SVG_MIDDLE, 0, 0 },
			     xtitle);
	if (ytitle)
		sy_svg_vlabel(t, 22, (p->t + p->b) / 2, 12, ytitle);
	fprintf(t->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		      "stroke=\"black\"/>\n<line x1=\"%.1f\" y1=\"%.1f\" "
		      "x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
		p->l, p->b, p->r, p->b, p->l, p->t, p->l, p->b);
}
