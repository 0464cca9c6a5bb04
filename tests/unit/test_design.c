/* The strobing designs (src/synth/design.c) and the attr fields they are
 * read from (src/io/perf_attr.c): attr.first_period and the pause-armed
 * aux_action bit of the kernel RFC "perf: SW strobing for AUX trace
 * windows" (not merged), in attrs of any size from VER0 up.  The bytes are
 * laid out here by hand at the offsets the header names. */
#include <criterion/criterion.h>
#include <string.h>

#include "sy_bytes.h"
#include "sy_perf_reader.h"
#include "sy_perf_writer.h"
#include "sy_synth.h"

static void raw_attr(uint8_t *b, uint32_t size, uint64_t period,
		     uint32_t action, uint64_t first)
{
	memset(b, 0, 256);
	sy_put32(b + 4, size);
	sy_put64(b + 16, period);
	sy_put32(b + 116, action);
	if (size >= 160)
		sy_put64(b + 152, first);
}

Test(design, first_period_read_from_any_size_past_ver8)
{
	uint8_t b[256];
	struct sy_perf_attr a;
	uint32_t sizes[] = { 160, 168, 200, 256 };

	cr_assert_eq(SY_ATTR_OFF_FIRST_PERIOD, 152);
	for (size_t i = 0; i < 4; i++) {
		raw_attr(b, sizes[i], 1000, SY_AUX_ACTION_PAUSE, 1300);
		/* fields after it, unknown here, are not ours to read */
		memset(b + 160, 0xff, sizes[i] - 160);
		cr_assert_eq(sy_perf_attr_decode(&a, b, sizes[i]), 0);
		cr_assert_eq(a.first_period, 1300, "size %u", sizes[i]);
		cr_assert_eq(a.sample_period, 1000);
		cr_assert_eq(a.aux_action, SY_AUX_ACTION_PAUSE);
	}
	/* a 136-byte attr holds none: bytes past its size are not read */
	raw_attr(b, 160, 1000, SY_AUX_ACTION_PAUSE, 1300);
	cr_assert_eq(sy_perf_attr_decode(&a, b, 136), 0);
	cr_assert_eq(a.first_period, 0);
}

Test(design, pause_armed_bit_is_bit_3)
{
	uint8_t b[256];
	struct sy_perf_attr a;

	cr_assert_eq(SY_AUX_ACTION_PAUSE_ARMED, 8u);
	raw_attr(b, 128, 5000, 8, 0);
	cr_assert_eq(sy_perf_attr_decode(&a, b, 128), 0);
	cr_assert_eq(a.aux_action & SY_AUX_ACTION_PAUSE_ARMED,
		     SY_AUX_ACTION_PAUSE_ARMED);
}

Test(design, attr_encode_keeps_first_period)
{
	struct sy_perf_attr a = { 0 }, back;
	uint8_t b[256];

	a.sample_period = 1000;
	a.first_period = 1500;
	a.aux_action = SY_AUX_ACTION_PAUSE;
	cr_assert_eq(sy_pw_attr_encode(&a, 160, b), 0);
	cr_assert_eq(sy_le64(b + 152), 1500);
	cr_assert_eq(sy_perf_attr_decode(&back, b, 160), 0);
	cr_assert_eq(back.first_period, 1500);
	/* a smaller attr cannot hold it */
	cr_assert_eq(sy_pw_attr_encode(&a, 136, b), 0);
	cr_assert_eq(sy_perf_attr_decode(&back, b, 136), 0);
	cr_assert_eq(back.first_period, 0);
}

static struct sy_perf_attr ev(uint64_t config, uint64_t period,
			      uint32_t action, uint64_t first)
{
	struct sy_perf_attr a = { 0 };

	a.config = config;
	a.sample_period = period;
	a.aux_action = action;
	a.first_period = first;
	return a;
}

Test(design, classified_from_the_attrs)
{
	struct sy_perf_attr p = ev(0, 1000, SY_AUX_ACTION_PAUSE, 0);
	struct sy_perf_attr r = ev(0, 7919, SY_AUX_ACTION_RESUME, 0);
	uint64_t w = 99;

	cr_assert_eq(sy_design_of(NULL, NULL, &w), SY_DESIGN_NONE);
	cr_assert_eq(w, 0);
	cr_assert_eq(sy_design_of(&p, &r, &w), SY_DESIGN_MAINLINE);
	cr_assert_eq(sy_design_of(&p, NULL, &w), SY_DESIGN_MAINLINE);
	/* equal periods of one event: the stagger; of two events: not */
	r.sample_period = 1000;
	cr_assert_eq(sy_design_of(&p, &r, &w), SY_DESIGN_STAGGER);
	cr_assert_eq(w, 0);
	r.config = 1;
	cr_assert_eq(sy_design_of(&p, &r, &w), SY_DESIGN_MAINLINE);
	/* frequencies are not periods: nothing is equal */
	r.config = 0;
	r.flags = 1ull << SY_ATTR_FLAG_FREQ;
	cr_assert_eq(sy_design_of(&p, &r, &w), SY_DESIGN_MAINLINE);
	r.flags = 0;
	/* first_period: the window is first_period - period */
	p.first_period = 1300;
	cr_assert_eq(sy_design_of(&p, &r, &w), SY_DESIGN_FIRST_PERIOD);
	cr_assert_eq(w, 300);
	p.first_period = 1000;
	cr_assert_eq(sy_design_of(&p, &r, &w), SY_DESIGN_FIRST_PERIOD);
	cr_assert_eq(w, 0);
	/* pause-armed: the pause event's own period */
	p = ev(5, 5000, SY_AUX_ACTION_PAUSE_ARMED, 0);
	r = ev(0, 10000000, SY_AUX_ACTION_RESUME, 0);
	cr_assert_eq(sy_design_of(&p, &r, &w), SY_DESIGN_PAUSE_ARMED);
	cr_assert_eq(w, 5000);
	cr_assert_str_eq(sy_design_name(SY_DESIGN_PAUSE_ARMED), "pause-armed");
	cr_assert_str_eq(sy_design_name(SY_DESIGN_STAGGER), "userspace stagger");
}

/* A window overlaps a throttled stretch of its CPU's pause event only
 * strictly: one that ends at the throttling overflow (its pause was
 * taken) or starts at the unthrottle does not; an open stretch (never
 * lifted) runs to the end; cpu UINT32_MAX (per thread) matches any.  The
 * stretches are sorted by CPU and start, as the prepass leaves them. */
Test(design, throttled_stretches)
{
	struct sy_throttle t[4] = { { 1, 100, 200 }, { 1, 300, 400 },
				    { 1, 600, 700 }, { 2, 500, UINT64_MAX } };
	struct sy_throttle any[2] = { { 2, 500, UINT64_MAX },
				      { UINT32_MAX, 100, 200 } };
	struct sy_session_summary s;

	memset(&s, 0, sizeof(s));
	cr_expect(!sy_summary_throttled(&s, 1, 0, 1000), "no stretches");
	s.throttles = t;
	s.nr_throttles = 4;
	cr_expect(sy_summary_throttled(&s, 1, 150, 160));
	cr_expect(sy_summary_throttled(&s, 1, 50, 101));
	cr_expect(sy_summary_throttled(&s, 1, 199, 300));
	cr_expect(sy_summary_throttled(&s, 1, 350, 360));
	cr_expect(sy_summary_throttled(&s, 1, 650, 2000));
	cr_expect(sy_summary_throttled(&s, 1, 0, 10000), "spans them all");
	cr_expect(!sy_summary_throttled(&s, 1, 50, 100), "ends at THROTTLE");
	cr_expect(!sy_summary_throttled(&s, 1, 200, 300), "between two");
	cr_expect(!sy_summary_throttled(&s, 1, 700, 800), "starts at UNTHROTTLE");
	cr_expect(!sy_summary_throttled(&s, 0, 150, 160), "another CPU");
	cr_expect(!sy_summary_throttled(&s, 3, 150, 160), "a later CPU");
	cr_expect(!sy_summary_throttled(&s, 2, 100, 500), "before it");
	cr_expect(sy_summary_throttled(&s, 2, 1u << 30, 1ull << 40), "open");
	cr_expect(sy_summary_throttled(&s, UINT32_MAX, 150, 160), "per thread");
	s.throttles = any;
	s.nr_throttles = 2;
	cr_expect(sy_summary_throttled(&s, 0, 150, 160), "stretch on any CPU");
	cr_expect(sy_summary_throttled(&s, 2, 150, 160), "any CPU, and its own");
	cr_expect(!sy_summary_throttled(&s, 0, 250, 260));
}
