/* Stream units (src/synth/units.h) driven directly, on Intel PT bytes made
 * by hand: a PSB+ (PSB, PSBEND) every 1,000 bytes of an AUX area of 4,000,
 * padding between, in one AUXTRACE payload of a perf.data built in memory,
 * and four AUX records of 1,000 bytes.  With pieces of about 1,000 bytes
 * the rules of units.h say where each piece is cut and when it may go:
 *   - "PT: each unit is cut at PSBs ... into pieces of about unit_bytes";
 *     a piece "decodes through the PSB+ that starts the next one";
 *   - "A piece (or slice) goes out once the walk has read the AUX record
 *     that holds its last byte";
 *   - a gap (a record whose bytes are not in the file) ends a unit. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "synth/units.h"
#include "sy_perf_reader.h"
#include "sy_perf_writer.h"

#define AREA 4000
#define STEP 1000
#define PSB_LEN 16
#define PSBEND_LEN 2

struct fixture {
	uint8_t area[AREA];
	uint8_t *file;
	size_t len;
	struct sy_perf_reader *r;
	struct sy_auxmap m;
	struct sy_synth_config cfg;
	struct sy_dec_params dp;
	struct sy_units u;
};

/* A PSB+ at every multiple of STEP, padding (0x00) elsewhere. */
static void make_area(uint8_t *a)
{
	static const uint8_t psb[PSB_LEN] = {
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	};

	memset(a, 0, AREA);
	for (size_t at = 0; at < AREA; at += STEP) {
		memcpy(a + at, psb, PSB_LEN);
		a[at + PSB_LEN] = 0x02;		/* PSBEND */
		a[at + PSB_LEN + 1] = 0x23;
	}
}

/* The perf.data holding the area as one payload; the map of it, with
 * records [0, 1000) ... [3000, 4000), the record at @missing (or none)
 * claiming bytes the file does not hold. */
static void setup(struct fixture *f, uint64_t unit_bytes, int missing)
{
	struct sy_pw *w;
	struct sy_pw_auxtrace at = { .offset = 0, .cpu = 0 };
	const uint8_t *out, *p;
	uint64_t file_off;

	memset(f, 0, sizeof(*f));
	make_area(f->area);
	cr_assert_eq(sy_pw_alloc(&w, NULL), 0);
	cr_assert_eq(sy_pw_auxtrace(w, &at, f->area, AREA), 0);
	cr_assert_eq(sy_pw_output(w, &out, &f->len), 0);
	f->file = malloc(f->len);
	cr_assert_not_null(f->file);
	memcpy(f->file, out, f->len);
	sy_pw_free(w);
	cr_assert_eq(sy_perf_open_mem(&f->r, f->file, f->len, "t.data", NULL),
		     0);
	p = NULL;
	for (size_t k = 0; !p && k + AREA <= f->len; k++)
		if (!memcmp(f->file + k, f->area, AREA))
			p = f->file + k;
	cr_assert_not_null(p, "the payload is in the file");
	file_off = (uint64_t)(p - f->file);

	sy_auxmap_init(&f->m);
	if (missing == 4) {
		/* the last 1,000 bytes never reached the file */
		cr_assert_eq(sy_auxmap_add_buf(&f->m, 0, 3 * STEP, file_off),
			     0);
	} else {
		cr_assert_eq(sy_auxmap_add_buf(&f->m, 0, AREA, file_off), 0);
	}
	sy_auxmap_sort(&f->m);
	for (int i = 0; i < AREA / STEP; i++) {
		struct sy_auxrec rec = { .aux_off = (uint64_t)i * STEP,
					 .size = STEP,
					 .time = 100 * (uint64_t)(i + 1),
					 .rec_off = 1000 + 100 * (uint64_t)i };

		cr_assert_eq(sy_auxmap_add_rec(&f->m, &rec), 0);
	}
	cr_assert_eq(sy_auxmap_plan_units(&f->m, 0), 0);
	f->cfg.kind = SY_TRACE_PT;
	f->cfg.unit_bytes = unit_bytes;
	f->dp.kind = SY_TRACE_PT;
	sy_units_init(&f->u, &f->cfg);
	cr_assert_eq(sy_units_plan(&f->u, &f->m, &f->cfg, &f->dp, f->r), 0);
}

static void teardown(struct fixture *f)
{
	sy_units_fini(&f->u);
	sy_auxmap_fini(&f->m);
	sy_perf_close(f->r);
	free(f->file);
}

/* Cut at every PSB: [0, 1000) decoding to 1018 (through the next PSB+),
 * [1000, 2000) to 2018, [2000, 3000) to 3018, and the last [3000, 4000) to
 * its end.  The last byte decoded decides the last record: piece 0 needs
 * record 1 (byte 1017 is in [1000, 2000)). */
Test(units, pt_pieces_are_cut_at_psbs)
{
	static struct fixture f;

	setup(&f, STEP, -1);
	cr_assert_eq(f.u.nr_pieces, 4);
	for (size_t i = 0; i < 4; i++) {
		const struct sy_piece *p = &f.u.pieces[i];

		cr_assert_eq(p->lo, i * STEP, "piece %zu", i);
		cr_assert_eq(p->hi, (i + 1) * STEP, "piece %zu", i);
		cr_assert_eq(p->dec_hi,
			     i < 3 ? (i + 1) * STEP + PSB_LEN + PSBEND_LEN :
				     AREA, "piece %zu", i);
		cr_assert_eq(p->first_rec, i, "piece %zu", i);
		cr_assert_eq(p->last_rec, i < 3 ? i + 1 : 3, "piece %zu", i);
		/* its data came after the previous record's time */
		cr_assert_eq(p->t_lo, i ? 100 * i : 0, "piece %zu", i);
	}
	teardown(&f);
}

/* Larger pieces: about 2,500 bytes ask for a cut at or before 2500 (the
 * PSB at 2000) and the next at or before 4500 (past the end): two pieces. */
Test(units, pt_pieces_of_about_unit_bytes)
{
	static struct fixture f;

	setup(&f, 2500, -1);
	cr_assert_eq(f.u.nr_pieces, 2);
	cr_assert_eq(f.u.pieces[0].lo, 0);
	cr_assert_eq(f.u.pieces[0].hi, 2000);
	cr_assert_eq(f.u.pieces[1].lo, 2000);
	cr_assert_eq(f.u.pieces[1].hi, AREA);
	teardown(&f);
}

/* A piece goes out once the walk has read the record holding its last
 * decoded byte, and pieces go in order; the task says what to decode. */
Test(units, a_piece_waits_for_the_walk)
{
	static struct fixture f;
	struct sy_unit_task t;

	setup(&f, STEP, -1);
	cr_assert_eq(sy_units_next(&f.u, &f.m, &f.cfg, f.r, &t), 0,
		     "nothing read yet");
	sy_units_walked(&f.u, &f.m, 1000);		/* record 0 */
	cr_assert_eq(sy_units_next(&f.u, &f.m, &f.cfg, f.r, &t), 0,
		     "piece 0 decodes into record 1's bytes");
	sy_units_walked(&f.u, &f.m, 1100);		/* record 1 */
	cr_assert_eq(sy_units_next(&f.u, &f.m, &f.cfg, f.r, &t), 1);
	cr_assert_eq(t.lo, 0);
	cr_assert_eq(t.hi, STEP + PSB_LEN + PSBEND_LEN);
	cr_assert_eq(t.aux_lo, 0);
	cr_assert_eq(t.ext_from, STEP, "the next piece's PSB+ from here");
	cr_assert(t.final);
	cr_assert_eq(sy_units_next(&f.u, &f.m, &f.cfg, f.r, &t), 0,
		     "piece 1 needs record 2");
	sy_units_done(&f.u, &t);
	sy_units_walk_end(&f.u, &f.m);
	for (size_t i = 1; i < 4; i++) {
		cr_assert_eq(sy_units_next(&f.u, &f.m, &f.cfg, f.r, &t), 1);
		cr_assert_eq(t.lo, i * STEP);
		sy_units_done(&f.u, &t);
	}
	cr_assert_eq(sy_units_next(&f.u, &f.m, &f.cfg, f.r, &t), 0);
	teardown(&f);
}

/* The last record's bytes are not in the file: it is no unit's, and the
 * unit of the first three ends before it (so no piece reaches past 3000
 * but the last, which decodes to the unit's end). */
Test(units, a_gap_ends_the_unit)
{
	static struct fixture f;

	setup(&f, STEP, 4);
	cr_assert_eq(f.m.nr_units, 1);
	cr_assert_eq(f.m.units[0].first, 0);
	cr_assert_eq(f.m.units[0].last, 2);
	cr_assert_eq(f.u.nr_pieces, 3);
	cr_assert_eq(f.u.pieces[2].lo, 2000);
	cr_assert_eq(f.u.pieces[2].hi, 3000);
	cr_assert_eq(f.u.pieces[2].dec_hi, 3000);
	teardown(&f);
}
