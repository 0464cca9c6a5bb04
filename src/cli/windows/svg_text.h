/* strobe-synth windows --svg: text laid out so that no two labels overlap
 * and none leaves the picture (issue 24: on dense ETE "p95 920" covered
 * the legend's title).  Every label goes through here: its box is
 * estimated with the metrics of DejaVu Sans, the usual sans-serif (a
 * character 0.64 of the font size wide, bold 0.7; the font size above the
 * baseline, a quarter of it below), and a label whose box is taken moves
 * to the next free row or, when it may not move, is left out.
 * tests/e2e/svg_labels.py checks the written picture with the same
 * metrics. */
#ifndef SY_WINDOWS_SVG_TEXT_H
#define SY_WINDOWS_SVG_TEXT_H

#include <stddef.h>
#include <stdio.h>

struct sy_svg_box {
	double x0, y0, x1, y1;
};

struct sy_svg_text {
	FILE *f;
	double w, h;		/* the picture */
	struct sy_svg_box *box;	/* the labels written so far */
	size_t nr, cap;
};

enum sy_svg_anchor { SY_SVG_START, SY_SVG_MIDDLE, SY_SVG_END };

/* One label: at (x, y), its baseline, anchored there. */
struct sy_svg_label {
	double x, y;
	int size;
	enum sy_svg_anchor anchor;
	int bold;
	/* Rows tried when the box is taken: y + step, y + 2 step, ... up to
	 * SY_SVG_ROWS of them; 0: the label may not move (left out). */
	double step;
};

enum { SY_SVG_ROWS = 8 };

void sy_svg_text_init(struct sy_svg_text *t, FILE *f, double w, double h);
void sy_svg_text_fini(struct sy_svg_text *t);

/* Writes @s (escaped for XML) where @l says or in the first free row, the
 * box moved inside the picture horizontally.  Returns the baseline used,
 * or a negative value when no row is free (nothing written). */
double sy_svg_label(struct sy_svg_text *t, const struct sy_svg_label *l,
		    const char *s);

/* A label turned by -90 degrees about (x, y), reading upwards, centred
 * there (an axis title).  It does not move. */
void sy_svg_vlabel(struct sy_svg_text *t, double x, double y, int size,
		   const char *s);

/* The estimated width of @s at @size. */
double sy_svg_text_width(const char *s, double size, int bold);

/* @s escaped for XML: file names reach the picture. */
void sy_svg_escape(FILE *f, const char *s);

#endif
