/* The matcher (src/synth/match.h) driven directly: resume and pause
 * samples, queue events and stretches made by hand, in the order the walk
 * feeds them, and the windows it resolves.  Times are perf times (no time
 * conversion: the config's is not valid, so trace clock = perf clock).
 * Each expected value follows from the rules in match.h, quoted beside the
 * case. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "synth/match.h"

#define A 0x400100u	/* where the resumed trace starts */
#define P1 0x400200u	/* the first pause sample's IP */
#define P2 0x400300u	/* the second's */

static struct sy_synth_config cfg;	/* zero: times are perf times */

static struct sy_win *pause_at(uint64_t time, uint64_t ip, uint64_t seq)
{
	struct sy_win *w = calloc(1, sizeof(*w));

	cr_assert_not_null(w);
	w->pub.has_pause = 1;
	w->pub.pause_time = time;
	w->pub.pause_ip = ip;
	w->pub.tid = 7;
	w->seq = seq;
	return w;
}

/* A stretch that ran from @start (trace clock @t0) to a STOP at @end
 * (clock @t1). */
static struct sy_stretch stretch(uint64_t start, uint64_t end, uint64_t t0,
				 uint64_t t1)
{
	struct sy_stretch s;

	memset(&s, 0, sizeof(s));
	s.start_addr = start;
	s.end_addr = end;
	s.flags = SY_SF_STOPPED;
	s.has_time = 1;
	s.t0 = t0;
	s.t1 = t1;
	s.insns = 100;
	return s;
}

static void feed(struct sy_matcher *m, struct sy_stretch *v, size_t n)
{
	cr_assert_eq(sy_matcher_stretches(m, &cfg, v, n, 0, 0, 0), 0);
}

static struct sy_win *next(struct sy_matcher *m, unsigned done)
{
	struct sy_win *w = NULL;
	int r = sy_matcher_next(m, done, &w);

	cr_assert_geq(r, 0);
	return r ? w : NULL;
}

#define ALL (SY_MATCH_NO_SAMPLES | SY_MATCH_NO_TRACE)

/* "a pause sample P owns the stretches that end after the previous pause
 * sample of its queue and no later than P"; "its window starts at the
 * resume sample ... whose IP the first stretch starts at". */
Test(match, a_window_owns_its_stretch_and_resume)
{
	size_t held = 0;
	struct sy_matcher m;
	struct sy_stretch s = stretch(A, P1, 110, 190);
	struct sy_win *w = pause_at(200, P1, 2), *got;

	sy_matcher_init(&m, &held);
	cr_assert_eq(sy_matcher_resume(&m, 100, A, 7, 1), 0);
	cr_assert_eq(sy_matcher_pause(&m, w), 0);
	feed(&m, &s, 1);
	cr_assert_eq(held, 1);
	got = next(&m, ALL);
	cr_assert_eq(got, w);
	cr_assert_eq(w->nr_st, 1);
	cr_assert_eq(w->st[0].start_addr, A);
	cr_assert(w->pub.has_resume);
	cr_assert_eq(w->pub.resume_time, 100);
	cr_assert_eq(w->pub.resume_ip, A);
	cr_assert_not(w->match.ran_through);
	cr_assert_eq(held, 0, "the window took the stretch");
	cr_assert_null(next(&m, ALL), "one pause sample, one window");
	sy_matcher_fini(&m);
	sy_win_free(w);
}

/* "A pause sample that owns no stretch was taken while trace was paused
 * (status paused)": the second pause sample comes with no trace after the
 * first one's. */
Test(match, a_pause_without_trace_owns_nothing)
{
	size_t held = 0;
	struct sy_matcher m;
	struct sy_stretch s = stretch(A, P1, 110, 190);
	struct sy_win *w1 = pause_at(200, P1, 2), *w2 = pause_at(400, P2, 3);

	sy_matcher_init(&m, &held);
	cr_assert_eq(sy_matcher_resume(&m, 100, A, 7, 1), 0);
	cr_assert_eq(sy_matcher_pause(&m, w1), 0);
	cr_assert_eq(sy_matcher_pause(&m, w2), 0);
	feed(&m, &s, 1);
	cr_assert_eq(next(&m, ALL), w1);
	cr_assert_eq(w1->nr_st, 1);
	cr_assert_eq(next(&m, ALL), w2);
	cr_assert_eq(w2->nr_st, 0);
	cr_assert_not(w2->pub.has_resume, "no resume came between the two");
	cr_assert_not(w2->match.ran_through);
	/* its span starts at the previous pause sample */
	cr_assert(w2->match.has_span_lo);
	cr_assert_eq(w2->match.span_lo, 200);
	sy_matcher_fini(&m);
	sy_win_free(w1);
	sy_win_free(w2);
}

/* "unless a stretch runs across its time: then its pause was missed and
 * the trace kept running (end-mismatch)": one stretch from 110 to 350
 * stops at the second pause sample's IP; the first pause sample (200)
 * owns nothing and ran through, the second owns the stretch. */
Test(match, a_missed_pause_leaves_the_run_to_the_next)
{
	size_t held = 0;
	struct sy_matcher m;
	struct sy_stretch s = stretch(A, P2, 110, 350);
	struct sy_win *w1 = pause_at(200, P1, 2), *w2 = pause_at(400, P2, 3);

	sy_matcher_init(&m, &held);
	cr_assert_eq(sy_matcher_resume(&m, 100, A, 7, 1), 0);
	cr_assert_eq(sy_matcher_pause(&m, w1), 0);
	cr_assert_eq(sy_matcher_pause(&m, w2), 0);
	feed(&m, &s, 1);
	cr_assert_eq(next(&m, ALL), w1);
	cr_assert_eq(w1->nr_st, 0);
	cr_assert(w1->match.ran_through);
	cr_assert_eq(next(&m, ALL), w2);
	cr_assert_eq(w2->nr_st, 1);
	cr_assert_eq(w2->st[0].end_addr, P2);
	/* the resume that started the run is the second window's: "a window
	 * whose pause was missed leaves its resumes to the one that owns the
	 * trace" */
	cr_assert(w2->pub.has_resume);
	cr_assert_eq(w2->pub.resume_time, 100);
	sy_matcher_fini(&m);
	sy_win_free(w1);
	sy_win_free(w2);
}

/* "among the unused ones up to the window's first trace, the newest whose
 * IP the trace starts at, else the newest": resumes at 100 (another IP)
 * and 105 (A); the stretch starts at A, so 105, even if a later resume at
 * another IP came before the trace (108). */
Test(match, the_resume_is_the_one_at_the_trace_start)
{
	size_t held = 0;
	struct sy_matcher m;
	struct sy_stretch s = stretch(A, P1, 110, 190);
	struct sy_win *w = pause_at(200, P1, 4);

	sy_matcher_init(&m, &held);
	cr_assert_eq(sy_matcher_resume(&m, 100, 0x999000, 7, 1), 0);
	cr_assert_eq(sy_matcher_resume(&m, 105, A, 7, 2), 0);
	cr_assert_eq(sy_matcher_resume(&m, 108, 0x888000, 7, 3), 0);
	cr_assert_eq(sy_matcher_pause(&m, w), 0);
	feed(&m, &s, 1);
	cr_assert_eq(next(&m, ALL), w);
	cr_assert_eq(w->pub.resume_time, 105);
	cr_assert_eq(w->pub.resume_ip, A);
	sy_matcher_fini(&m);
	sy_win_free(w);
}

/* Events in the window's own span (resume, pause]: a context switch and
 * AUX flags inside count; one after the pause sample belongs to the next
 * window; lost data anywhere in the span marks it. */
Test(match, events_inside_the_span_only)
{
	size_t held = 0;
	struct sy_matcher m;
	struct sy_stretch s = stretch(A, P1, 110, 190);
	struct sy_win *w = pause_at(200, P1, 2);

	sy_matcher_init(&m, &held);
	cr_assert_eq(sy_matcher_resume(&m, 100, A, 7, 1), 0);
	cr_assert_eq(sy_matcher_event(&m, SY_QEV_SWITCH, 90, 0), 0);
	cr_assert_eq(sy_matcher_event(&m, SY_QEV_SWITCH, 150, 0), 0);
	cr_assert_eq(sy_matcher_event(&m, SY_QEV_AUX, 160, 0x1), 0);
	cr_assert_eq(sy_matcher_event(&m, SY_QEV_LOST, 170, 0), 0);
	cr_assert_eq(sy_matcher_event(&m, SY_QEV_SWITCH, 250, 0), 0);
	cr_assert_eq(sy_matcher_pause(&m, w), 0);
	feed(&m, &s, 1);
	cr_assert_eq(next(&m, ALL), w);
	cr_assert_eq(w->ev.switches, 1, "only the switch at 150");
	cr_assert_eq(w->ev.aux_flags, 0x1);
	cr_assert(w->ev.lost);
	sy_matcher_fini(&m);
	sy_win_free(w);
}

/* "pause samples wait for it": before any stretch is known and while the
 * trace may still come, the window is not resolved; once every job is
 * done and no sample will come, it is (with nothing). */
Test(match, a_pause_waits_for_its_trace)
{
	size_t held = 0;
	struct sy_matcher m;
	struct sy_win *w = pause_at(200, P1, 2);

	sy_matcher_init(&m, &held);
	cr_assert_eq(sy_matcher_pause(&m, w), 0);
	cr_assert_null(next(&m, 0));
	cr_assert_null(next(&m, SY_MATCH_NO_SAMPLES));
	cr_assert_eq(next(&m, ALL), w);
	cr_assert_eq(w->nr_st, 0);
	sy_matcher_fini(&m);
	sy_win_free(w);
}

/* "the stretches after the last one (trace the recording ended with)" are
 * dropped by settle once no pause sample will come and all are resolved;
 * the held count goes back to zero. */
Test(match, settle_drops_trace_after_the_last_pause)
{
	size_t held = 0;
	struct sy_matcher m;
	struct sy_stretch s[2] = { stretch(A, P1, 110, 190),
				   stretch(A, P2, 300, 390) };
	struct sy_win *w = pause_at(200, P1, 2);

	sy_matcher_init(&m, &held);
	cr_assert_eq(sy_matcher_resume(&m, 100, A, 7, 1), 0);
	cr_assert_eq(sy_matcher_pause(&m, w), 0);
	feed(&m, s, 2);
	cr_assert_eq(held, 2);
	cr_assert_eq(next(&m, ALL), w);
	cr_assert_eq(w->nr_st, 1);
	cr_assert_eq(held, 1);
	cr_assert_null(next(&m, ALL));
	cr_assert(sy_matcher_settle(&m, ALL));
	cr_assert_eq(held, 0);
	sy_matcher_fini(&m);
	sy_win_free(w);
}
