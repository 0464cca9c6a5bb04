/* windows --svg: labels that keep clear of each other and of the picture's
 * edges (svg_text.h).  The boxes written so far are a list: a picture has
 * tens of labels, so each new one is checked against all of them. */
#include <stdlib.h>

#include "sy_vec.h"
#include "svg_text.h"

/* Space kept between two boxes, so that touching labels stay readable. */
#define SY_SVG_GAP 1.0

void sy_svg_text_init(struct sy_svg_text *t, FILE *f, double w, double h)
{
	*t = (struct sy_svg_text){ .f = f, .w = w, .h = h };
}

void sy_svg_text_fini(struct sy_svg_text *t)
{
	free(t->box);
	t->box = NULL;
	t->nr = t->cap = 0;
}

void sy_svg_escape(FILE *f, const char *s)
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

/* Characters, not bytes: a UTF-8 file name is as wide as its letters. */
static size_t sy_svg_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

double sy_svg_text_width(const char *s, double size, int bold)
{
	return (double)sy_svg_chars(s) * size * (bold ? 0.7 : 0.64);
}

static int sy_svg_free(const struct sy_svg_text *t, const struct sy_svg_box *b)
{
	if (b->x0 < 0 || b->y0 < 0 || b->x1 > t->w || b->y1 > t->h)
		return 0;
	for (size_t i = 0; i < t->nr; i++) {
		const struct sy_svg_box *o = &t->box[i];

		if (b->x0 < o->x1 + SY_SVG_GAP && o->x0 < b->x1 + SY_SVG_GAP &&
		    b->y0 < o->y1 + SY_SVG_GAP && o->y0 < b->y1 + SY_SVG_GAP)
			return 0;
	}
	return 1;
}

/* Remembers @b.  Out of memory, later labels may overlap this one: a
 * picture slightly worse, not a failure. */
static void sy_svg_keep(struct sy_svg_text *t, const struct sy_svg_box *b)
{
	if (!sy_grow((void **)&t->box, &t->cap, t->nr, sizeof(*t->box)))
		t->box[t->nr++] = *b;
}

static const char *const sy_svg_anchor_name[] = { "start", "middle", "end" };

double sy_svg_label(struct sy_svg_text *t, const struct sy_svg_label *l,
		    const char *s)
{
	double size = l->size, w = sy_svg_text_width(s, size, l->bold), x0;
	struct sy_svg_box b;

	/* wider than the picture (a long file name): a smaller font */
	if (w > t->w - 2) {
		size = size * (t->w - 2) / w;
		w = sy_svg_text_width(s, size, l->bold);
	}
	x0 = l->x - (l->anchor == SY_SVG_START ? 0 :
		     l->anchor == SY_SVG_MIDDLE ? w / 2 : w);
	/* kept inside the picture sideways; the anchor moves with it */
	if (x0 < 1)
		x0 = 1;
	if (x0 + w > t->w - 1)
		x0 = t->w - 1 - w;
	for (int row = 0; row < (l->step ? SY_SVG_ROWS : 1); row++) {
		double y = l->y + row * l->step;

		b = (struct sy_svg_box){ x0, y - size, x0 + w, y + size / 4 };
		if (!sy_svg_free(t, &b))
			continue;
		sy_svg_keep(t, &b);
		fprintf(t->f, "<text x=\"%.1f\" y=\"%.1f\" "
			      "font-family=\"sans-serif\" font-size=\"%.4g\" "
			      "text-anchor=\"%s\"%s>",
			x0 + (l->anchor == SY_SVG_START ? 0 :
			      l->anchor == SY_SVG_MIDDLE ? w / 2 : w),
			y, size, sy_svg_anchor_name[l->anchor],
			l->bold ? " font-weight=\"bold\"" : "");
		sy_svg_escape(t->f, s);
		fputs("</text>\n", t->f);
		return y;
	}
	return -1;
}

void sy_svg_vlabel(struct sy_svg_text *t, double x, double y, int size,
		   const char *s)
{
	double w = sy_svg_text_width(s, size, 0);
	struct sy_svg_box b = { x - size, y - w / 2, x + size / 4.0,
				y + w / 2 };

	sy_svg_keep(t, &b);
	fprintf(t->f, "<text x=\"%.1f\" y=\"%.1f\" font-family=\"sans-serif\" "
		      "font-size=\"%d\" text-anchor=\"middle\" "
		      "transform=\"rotate(-90 %.1f %.1f)\">",
		x, y, size, x, y);
	sy_svg_escape(t->f, s);
	fputs("</text>\n", t->f);
}
