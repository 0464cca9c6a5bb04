/* strobe-synth windows --svg: the histogram of window lengths as a
 * picture for a person tuning R and P.  Linear bins chosen from the data
 * (the text histogram's), bars stacked by status, p5/p50/p95 marked, what
 * the strobing design predicts drawn over it, both axes labelled and
 * scaled, and the title counting what the text counts. */
#include <inttypes.h>
#include <string.h>

#include "sy_atomic_file.h"
#include "windows.h"

enum {
	SVG_W = 900,
	SVG_H = 480,
	PLOT_L = 80,		/* plot area */
	PLOT_R = SVG_W - 190,	/* the legend is right of it */
	PLOT_T = 96,
	PLOT_B = SVG_H - 70,
};

/* One colour per status, in enum order. */
static const char *const sy_colour[SY_ST_NR] = {
	"#2e7d32", "#9e9e9e", "#cfcfcf", "#ef6c00", "#c62828", "#6a1b9a",
	"#1565c0", "#00838f", "#6d4c41", "#f9a825", "#fdd835", "#afb42b",
};

/* File names go into the picture's title: & < > must not break it. */
static void sy_xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* control bytes are not allowed in XML 1.0 */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}

static void sy_svg_text(FILE *f, double x, double y, int size,
			const char *anchor, const char *extra, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-family=\"sans-serif\" "
		   "font-size=\"%d\" text-anchor=\"%s\"%s>%s</text>\n",
		x, y, size, anchor, extra, s);
}

/* The y axis: a round step, gridlines and their counts. */
static uint64_t sy_svg_yaxis(FILE *f, uint64_t top)
{
	uint64_t step = sy_nice((double)top / 6.0), ymax;
	char n[32];

	ymax = (top + step - 1) / step * step;
	if (!ymax)
		ymax = 1;
	for (uint64_t v = 0; v <= ymax; v += step) {
		double y = PLOT_B - (double)v * (PLOT_B - PLOT_T) / (double)ymax;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			   "stroke=\"#e0e0e0\"/>\n",
			PLOT_L, y, PLOT_R, y);
		snprintf(n, sizeof(n), "%" PRIu64, v);
		sy_svg_text(f, PLOT_L - 6, y + 4, 11, "end", "", n);
	}
	return ymax;
}

static double sy_svg_x(const struct sy_hist *h, double v)
{
	return PLOT_L + (v - (double)h->lo) * (PLOT_R - PLOT_L) /
				(double)(h->nr * h->width);
}

/* Bars stacked by status, each with a tooltip, and the x tick labels. */
static void sy_svg_bars(FILE *f, const struct sy_hist *h, uint64_t ymax)
{
	double bw = (double)(PLOT_R - PLOT_L) / (double)h->nr;
	size_t every = h->nr > 10 ? (h->nr + 9) / 10 : 1;
	char n[32];

	for (size_t b = 0; b < h->nr; b++) {
		uint64_t lo = h->lo + b * h->width, below = 0;
		double x = PLOT_L + bw * (double)b;

		for (int st = 0; st < SY_ST_NR; st++) {
			uint64_t k = h->count[b][st];
			double y0, y1;

			if (!k)
				continue;
			y0 = PLOT_B - (double)below * (PLOT_B - PLOT_T) /
					      (double)ymax;
			y1 = PLOT_B - (double)(below + k) * (PLOT_B - PLOT_T) /
					      (double)ymax;
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				   "height=\"%.1f\" fill=\"%s\"><title>%" PRIu64
				   " %s</title></rect>\n",
				x + 1, y1, bw - 2, y0 - y1, sy_colour[st], k,
				sy_status_name(st));
			below += k;
		}
		/* the whole bar's count, for a reader and for the tests */
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			   "height=\"%d\" fill=\"none\" pointer-events=\"all\">"
			   "<title>%" PRIu64 " .. %" PRIu64 ": %" PRIu64
			   " windows</title></rect>\n",
			x, PLOT_T, bw, PLOT_B - PLOT_T, lo, lo + h->width - 1,
			h->total[b]);
		if (b % every == 0) {
			snprintf(n, sizeof(n), "%" PRIu64, lo);
			sy_svg_text(f, x, PLOT_B + 16, 10, "middle", "", n);
		}
	}
	snprintf(n, sizeof(n), "%" PRIu64, h->lo + h->nr * h->width);
	sy_svg_text(f, PLOT_R, PLOT_B + 16, 10, "middle", "", n);
}

/* p5, p50, p95 as dashed lines, labelled at staggered heights. */
static void sy_svg_percentiles(FILE *f, struct sy_wl *c,
			       const struct sy_hist *h)
{
	static const unsigned pct[] = { 5, 50, 95 };
	char label[48];
	int right;

	for (size_t i = 0; i < 3; i++) {
		uint64_t v = sy_dist_pct(&c->insns, pct[i]);
		double x = sy_svg_x(h, (double)v + 0.5);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			   "stroke=\"black\" stroke-dasharray=\"5,3\"/>\n",
			x, PLOT_T - 10 - 13 * (int)(2 - i), x, PLOT_B);
		snprintf(label, sizeof(label), "p%u %" PRIu64, pct[i], v);
		/* right of its line, unless it would run past the plot into
		 * the legend: then left of it (7 px a bold character) */
		right = x + 3 + 7.0 * (double)strlen(label) <= PLOT_R;
		sy_svg_text(f, right ? x + 3 : x - 3,
			    PLOT_T - 12 - 13.0 * (double)(2 - i), 11,
			    right ? "start" : "end", " font-weight=\"bold\"",
			    label);
	}
}

/* What the design predicts, drawn over the observed bars where it is in
 * instructions (the pause event counts them): the RFC's designs, a spike
 * at the designed length; mainline pause/resume of one event (R > P),
 * lengths uniform over (0, P], so each bin expects its share of the
 * windows.  A pause event counting cycles has no scale in instructions:
 * nothing is drawn. */
static void sy_svg_design(FILE *f, const struct sy_wl *c,
			  const struct sy_session_summary *s,
			  const struct sy_hist *h, uint64_t ymax)
{
	double x, y;

	if (!s->pause_counts_insns || s->periods_freq)
		return;
	if (c->dc.want) {
		x = sy_svg_x(h, (double)c->dc.want + 0.5);
		if (x < PLOT_L || x > PLOT_R)
			return;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			   "stroke=\"#d50000\" stroke-width=\"2\" "
			   "opacity=\"0.6\"><title>designed length %" PRIu64
			   " instructions</title></line>\n",
			x, PLOT_T, x, PLOT_B, c->dc.want);
		return;
	}
	if (s->design != SY_DESIGN_MAINLINE || !s->same_event ||
	    s->resume_period <= s->pause_period || !s->pause_period)
		return;
	/* expected windows per bin: n * width / P inside (0, P] */
	y = (double)c->insns.n * (double)h->width / (double)s->pause_period;
	y = PLOT_B - y * (PLOT_B - PLOT_T) / (double)ymax;
	if (y < PLOT_T)
		y = PLOT_T;
	x = sy_svg_x(h, (double)s->pause_period + 1);
	if (x > PLOT_R)
		x = PLOT_R;
	fprintf(f, "<polyline points=\"%.1f,%d %.1f,%.1f %.1f,%.1f %.1f,%d\" "
		   "fill=\"none\" stroke=\"#d50000\" stroke-width=\"2\" "
		   "opacity=\"0.6\"><title>predicted: uniform over (0, P = %"
		   PRIu64 "]</title></polyline>\n",
		sy_svg_x(h, 0) < PLOT_L ? (double)PLOT_L : sy_svg_x(h, 0), PLOT_B,
		sy_svg_x(h, 0) < PLOT_L ? (double)PLOT_L : sy_svg_x(h, 0), y, x,
		y, x, PLOT_B, s->pause_period);
}

static void sy_svg_legend(FILE *f, const struct sy_wl *c,
			  const struct sy_session_summary *s)
{
	uint64_t n[SY_ST_NR] = { 0 };
	char label[64];
	int y = PLOT_T;
	int design = s->pause_counts_insns && !s->periods_freq &&
		     (c->dc.want || (s->design == SY_DESIGN_MAINLINE &&
				     s->same_event &&
				     s->resume_period > s->pause_period));

	for (int st = 0; st < SY_ST_NR; st++)
		n[st] = c->len_by[st].n;
	sy_svg_text(f, PLOT_R + 20, y, 12, "start", " font-weight=\"bold\"",
		    "status");
	for (int st = 0; st < SY_ST_NR; st++) {
		if (!n[st])
			continue;
		y += 18;
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
			   "fill=\"%s\"/>\n",
			PLOT_R + 20, y - 10, sy_colour[st]);
		snprintf(label, sizeof(label), "%s (%" PRIu64 ")",
			 sy_status_name(st), n[st]);
		sy_svg_text(f, PLOT_R + 38, y, 11, "start", "", label);
	}
	if (!design)
		return;
	y += 24;
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		   "stroke=\"#d50000\" stroke-width=\"2\" opacity=\"0.6\"/>\n",
		PLOT_R + 20, y - 4, PLOT_R + 32, y - 4);
	if (c->dc.want)
		snprintf(label, sizeof(label), "design: %" PRIu64, c->dc.want);
	else
		snprintf(label, sizeof(label), "uniform (0, P]");
	sy_svg_text(f, PLOT_R + 38, y, 11, "start", "", label);
}

static void sy_svg_frame(FILE *f, const struct sy_wl *c, uint64_t windows,
			 const struct sy_hist *h)
{
	const char *base = strrchr(c->input, '/');
	char t[160];

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"24\" font-family=\"sans-serif\" "
		"font-size=\"15\" text-anchor=\"middle\">",
		SVG_W, SVG_H, SVG_W, SVG_H, SVG_W / 2);
	/* the base name: a long path would not fit */
	sy_xml_escape(f, base && base[1] ? base + 1 : c->input);
	fprintf(f, ": %" PRIu64 " of %" PRIu64 " %s carry trace</text>\n",
		c->insns.n,
		windows, windows == 1 ? "window" : "windows");
	snprintf(t, sizeof(t), "window length in instructions (bins of %" PRIu64
			       ")", h->width);
	sy_svg_text(f, (PLOT_L + PLOT_R) / 2.0, SVG_H - 28, 12, "middle", "", t);
	snprintf(t, sizeof(t), " transform=\"rotate(-90 22 %d)\"",
		 (PLOT_T + PLOT_B) / 2);
	sy_svg_text(f, 22, (PLOT_T + PLOT_B) / 2.0, 12, "middle", t, "windows");
}

int sy_wl_svg(struct sy_wl *c, const struct sy_session_summary *sum,
	      struct sy_diag *d)
{
	struct sy_atomic_file af;
	struct sy_hist h;
	uint64_t windows = sy_cli_filtering(&c->cs) ? c->selected :
						       sum->windows;
	int err = sy_hist_make(&h, c);

	if (err)
		return sy_diag_set_nooff(d, err, "%s: %s", c->svg,
					 sy_errstr(err));
	if (sy_atomic_open(&af, c->svg, d)) {
		sy_hist_fini(&h);
		return -1;
	}
	sy_svg_frame(af.f, c, windows, &h);
	if (h.nr) {
		uint64_t ymax = sy_svg_yaxis(af.f, h.top);

		sy_svg_bars(af.f, &h, ymax);
		sy_svg_design(af.f, c, sum, &h, ymax);
		sy_svg_percentiles(af.f, c, &h);
		sy_svg_legend(af.f, c, sum);
	} else {
		sy_svg_text(af.f, SVG_W / 2.0, SVG_H / 2.0, 14, "middle", "",
			    "no window carries trace");
	}
	fprintf(af.f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		      "stroke=\"black\"/>\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
		      "y2=\"%d\" stroke=\"black\"/>\n</svg>\n",
		PLOT_L, PLOT_B, PLOT_R, PLOT_B, PLOT_L, PLOT_T, PLOT_L, PLOT_B);
	sy_hist_fini(&h);
	return sy_atomic_commit(&af, 0, d) ? -1 : 0;
}
