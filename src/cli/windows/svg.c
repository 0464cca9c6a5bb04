/* strobe-synth windows --svg: the window lengths as a picture for a
 * person tuning R and P.  On top, the histogram of lengths in
 * instructions: linear bins chosen from the data (the text histogram's),
 * bars stacked by status, p5/p50/p95 marked, what the strobing design
 * predicts drawn over it, both axes labelled and scaled, and the title
 * counting what the text counts.  Under it, the panels of svg_panels.c.
 * Every label goes through svg_text.c, so none covers another. */
#include <inttypes.h>
#include <string.h>

#include "sy_atomic_file.h"
#include "svg.h"

enum {
	HIST_H = 480,		/* the histogram's part of the picture */
	PLOT_L = SY_SVG_PLOT_L,	/* its plot area */
	PLOT_R = SY_SVG_PLOT_R,
	PLOT_T = 96,
	PLOT_B = HIST_H - 70,
};

/* p5, p50, p95: dashed lines, each labelled in the first free row. */
static void sy_svg_percentiles(struct sy_svg_text *t, struct sy_wl *c,
			       const struct sy_svg_plot *p,
			       const struct sy_hist *h)
{
	static const unsigned pct[] = { 5, 50, 95 };
	char label[48];

	for (size_t i = 0; i < 3; i++) {
		uint64_t v = sy_dist_pct(&c->insns, pct[i]);

		snprintf(label, sizeof(label), "p%u %" PRIu64, pct[i], v);
		sy_svg_marker(t, p, sy_svg_hx(p, h, (double)v + 0.5), "black",
			      label);
	}
}

/* The strobing design predicts window lengths in instructions only when
 * the pause event counts them (a cycles event has no scale here): the
 * RFC's designs, a spike at the designed length; mainline pause/resume
 * of one event (R > P), lengths uniform over (0, P]. */
static int sy_svg_has_design(const struct sy_wl *c,
			     const struct sy_session_summary *s)
{
	return s->pause_counts_insns && !s->periods_freq &&
	       (c->dc.want || (s->design == SY_DESIGN_MAINLINE &&
			       s->same_event &&
			       s->resume_period > s->pause_period &&
			       s->pause_period));
}

/* What the design predicts, drawn over the observed bars: a spike, or
 * each bin's share of the windows under a uniform law. */
static void sy_svg_design(FILE *f, const struct sy_wl *c,
			  const struct sy_session_summary *s,
			  const struct sy_svg_plot *p, const struct sy_hist *h,
			  uint64_t ymax)
{
	double x, x0, y;

	if (!sy_svg_has_design(c, s))
		return;
	if (c->dc.want) {
		x = sy_svg_hx(p, h, (double)c->dc.want + 0.5);
		if (x < p->l || x > p->r)
			return;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			   "y2=\"%.1f\" stroke=\"#d50000\" stroke-width=\"2\" "
			   "opacity=\"0.6\"><title>designed length %" PRIu64
			   " instructions</title></line>\n",
			x, p->t, x, p->b, c->dc.want);
		return;
	}
	/* expected windows per bin: n * width / P inside (0, P] */
	y = (double)c->insns.n * (double)h->width / (double)s->pause_period;
	y = sy_svg_y(p, y, ymax);
	if (y < p->t)
		y = p->t;
	x = sy_svg_hx(p, h, (double)s->pause_period + 1);
	if (x > p->r)
		x = p->r;
	x0 = sy_svg_hx(p, h, 0) < p->l ? p->l : sy_svg_hx(p, h, 0);
	fprintf(f, "<polyline points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f "
		   "%.1f,%.1f\" fill=\"none\" stroke=\"#d50000\" "
		   "stroke-width=\"2\" opacity=\"0.6\"><title>predicted: "
		   "uniform over (0, P = %" PRIu64 "]</title></polyline>\n",
		x0, p->b, x0, y, x, y, x, p->b, s->pause_period);
}

static void sy_svg_legend(struct sy_svg_text *t, const struct sy_wl *c,
			  const struct sy_session_summary *s)
{
	char label[64];
	double y = PLOT_T;

	sy_svg_label(t, &(struct sy_svg_label){ PLOT_R + 20, y, 12,
						SY_SVG_START, 1, 0 },
		     "status");
	for (int st = 0; st < SY_ST_NR; st++) {
		if (!c->len_by[st].n)
			continue;
		y += 18;
		fprintf(t->f, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" "
			      "height=\"12\" fill=\"%s\"/>\n",
			PLOT_R + 20, y - 10, sy_svg_colour[st]);
		snprintf(label, sizeof(label), "%s (%" PRIu64 ")",
			 sy_status_name(st), c->len_by[st].n);
		sy_svg_label(t, &(struct sy_svg_label){ PLOT_R + 38, y, 11,
							SY_SVG_START, 0, 0 },
			     label);
	}
	if (!sy_svg_has_design(c, s))
		return;
	y += 24;
	fprintf(t->f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		      "stroke=\"#d50000\" stroke-width=\"2\" "
		      "opacity=\"0.6\"/>\n",
		PLOT_R + 20, y - 4, PLOT_R + 32, y - 4);
	if (c->dc.want)
		snprintf(label, sizeof(label), "design: %" PRIu64, c->dc.want);
	else
		snprintf(label, sizeof(label), "uniform (0, P]");
	sy_svg_label(t, &(struct sy_svg_label){ PLOT_R + 38, y, 11,
						SY_SVG_START, 0, 0 },
		     label);
}

/* The picture's title: the base name (a long path would not fit) and
 * what the text counts. */
static void sy_svg_title(struct sy_svg_text *t, const struct sy_wl *c,
			 uint64_t windows)
{
	const char *base = strrchr(c->input, '/');
	char s[4200];

	snprintf(s, sizeof(s), "%s: %" PRIu64 " of %" PRIu64 " %s carry trace",
		 base && base[1] ? base + 1 : c->input, c->insns.n, windows,
		 windows == 1 ? "window" : "windows");
	sy_svg_label(t, &(struct sy_svg_label){ SY_SVG_W / 2.0, 24, 15,
						SY_SVG_MIDDLE, 0, 0 },
		     s);
}

static void sy_svg_histogram(struct sy_svg_text *t, struct sy_wl *c,
			     const struct sy_session_summary *sum,
			     const struct sy_hist *h)
{
	struct sy_svg_plot p = { PLOT_L, PLOT_R, PLOT_T, PLOT_B };
	uint64_t ymax;
	char s[160];

	snprintf(s, sizeof(s), "window length in instructions (bins of %"
			       PRIu64 ")", h->width);
	sy_svg_axes(t, &p, NULL, s, "windows");
	if (!h->nr) {
		sy_svg_label(t, &(struct sy_svg_label){ SY_SVG_W / 2.0,
							HIST_H / 2.0, 14,
							SY_SVG_MIDDLE, 0, 0 },
			     "no window carries trace");
		return;
	}
	/* the legend first: the percentile labels keep clear of it */
	sy_svg_legend(t, c, sum);
	ymax = sy_svg_yaxis(t, &p, h->top);
	sy_svg_bars(t, &p, h, ymax, NULL);
	sy_svg_design(t->f, c, sum, &p, h, ymax);
	sy_svg_percentiles(t, c, &p, h);
}

int sy_wl_svg(struct sy_wl *c, const struct sy_session_summary *sum,
	      struct sy_diag *d)
{
	struct sy_atomic_file af;
	struct sy_svg_text t;
	struct sy_hist h;
	uint64_t windows = sy_cli_filtering(&c->cs) ? c->selected :
						       sum->windows;
	int err = sy_hist_make(&h, &c->insns, c->len_by);
	double y, hgt;

	if (err)
		return sy_diag_set_nooff(d, err, "%s: %s", c->svg,
					 sy_errstr(err));
	if (sy_atomic_open(&af, c->svg, d)) {
		sy_hist_fini(&h);
		return -1;
	}
	hgt = HIST_H + sy_svg_panels_height(c);
	fprintf(af.f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%.0f\" viewBox=\"0 0 %d %.0f\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		SY_SVG_W, hgt, SY_SVG_W, hgt);
	sy_svg_text_init(&t, af.f, SY_SVG_W, hgt);
	sy_svg_title(&t, c, windows);
	sy_svg_histogram(&t, c, sum, &h);
	y = HIST_H;
	y += sy_svg_branches(&t, c, y);
	y += sy_svg_timeline(&t, c, y);
	y += sy_svg_whatif(&t, c, y);
	fputs("</svg>\n", af.f);
	sy_svg_text_fini(&t);
	sy_hist_fini(&h);
	return sy_atomic_commit(&af, 0, d) ? -1 : 0;
}
