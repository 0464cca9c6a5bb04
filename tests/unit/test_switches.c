/* The switch timeline (src/synth/switches.c): which thread runs on a CPU
 * when, from context switch records.  Lookups are checked against a
 * linear scan of every entry ever added (the oracle: no trimming, no
 * binary search), over random timelines; trimming must never change a
 * lookup a later job can make, and must keep the timeline short. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "synth/switches.h"

/* Knuth's MMIX LCG, high bits: any fixed sequence does. */
static uint64_t rng_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* The oracle: the last of @n entries (in the order added) whose time is
 * at or before @t, the latest added among equal times; NULL if none. */
static const struct sy_switch *scan_at(const struct sy_switch *v, size_t n,
				       uint64_t t)
{
	const struct sy_switch *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (v[i].time <= t && (!best || v[i].time >= best->time))
			best = &v[i];
	return best;
}

static int same(const struct sy_switch *a, const struct sy_switch *b)
{
	if (!a || !b)
		return a == b;
	return a->time == b->time && a->pid == b->pid && a->tid == b->tid;
}

Test(switches, lookups)
{
	struct sy_switches sw;
	const struct sy_switch *e;
	uint32_t pid;

	sy_switches_init(&sw);
	cr_assert_null(sy_switches_at(&sw, 0));
	cr_assert_eq(sy_switches_add(&sw, 100, 10, 11), 0);
	cr_assert_eq(sy_switches_add(&sw, 200, 0, 0), 0);	/* idle */
	/* a switch-out and the switch-in after it at one time: the later
	 * record wins */
	cr_assert_eq(sy_switches_add(&sw, 300, 20, 21), 0);
	cr_assert_eq(sy_switches_add(&sw, 300, 20, 22), 0);
	cr_assert_null(sy_switches_at(&sw, 99));
	e = sy_switches_at(&sw, 100);
	cr_assert(e && e->tid == 11 && e->pid == 10);
	cr_assert_eq(sy_switches_at(&sw, 199)->tid, 11);
	cr_assert_eq(sy_switches_at(&sw, 200)->tid, 0);
	cr_assert_eq(sy_switches_at(&sw, 300)->tid, 22);
	cr_assert_eq(sy_switches_at(&sw, UINT64_MAX)->tid, 22);
	cr_assert_eq(sy_switches_pid(&sw, 21, &pid), 1);
	cr_assert_eq(pid, 20);
	cr_assert_eq(sy_switches_pid(&sw, 99, &pid), 0);
	sy_switches_fini(&sw);
	sy_switches_fini(&sw);	/* twice: NULL-safe */
}

/* A switch-out names the thread that ran before it only when nothing was
 * known: then that thread ran from the start of the recording. */
Test(switches, first_switch_out_names_the_thread_before)
{
	struct sy_switches sw;

	sy_switches_init(&sw);
	cr_assert_eq(sy_switches_before(&sw, 5, 6), 0);
	cr_assert_eq(sy_switches_add(&sw, 100, 7, 8), 0);
	cr_assert_eq(sy_switches_at(&sw, 0)->tid, 6);
	cr_assert_eq(sy_switches_at(&sw, 99)->tid, 6);
	cr_assert_eq(sy_switches_at(&sw, 100)->tid, 8);
	/* later switch-outs add nothing about the past */
	cr_assert_eq(sy_switches_before(&sw, 7, 8), 0);
	cr_assert_eq(sw.nr, 2);
	/* nor after a trim emptied what was known */
	sy_switches_trim(&sw, 1000);
	cr_assert_eq(sy_switches_before(&sw, 9, 9), 0);
	cr_assert_eq(sy_switches_at(&sw, 0)->tid, 6);
	sy_switches_fini(&sw);
}

/* Random timelines, records partly out of time order (a damaged file):
 * every lookup equals the oracle's. */
Test(switches, random_lookups_equal_a_scan)
{
	uint64_t rng = 7;

	for (int round = 0; round < 200; round++) {
		size_t n = 1 + rng_next(&rng) % 60;
		struct sy_switch *all = calloc(n, sizeof(*all));
		struct sy_switches sw;

		cr_assert_not_null(all);
		sy_switches_init(&sw);
		for (size_t i = 0; i < n; i++) {
			all[i].time = rng_next(&rng) % 100;
			all[i].pid = (uint32_t)i;
			all[i].tid = (uint32_t)(1000 + i);
			cr_assert_eq(sy_switches_add(&sw, all[i].time,
						     all[i].pid, all[i].tid),
				     0);
		}
		for (uint64_t t = 0; t <= 101; t++)
			cr_assert(same(sy_switches_at(&sw, t),
				       scan_at(all, n, t)),
				  "round %d time %lu", round,
				  (unsigned long)t);
		sy_switches_fini(&sw);
		free(all);
	}
}

/* Trim and copy at @t never change a lookup at @t or later, nor one in
 * the margin kept before it (from the last entry before the one in effect
 * at @t on); the copy holds exactly what trim keeps, and of the entries at
 * or before @t only those two and the ones at the same time as the one in
 * effect. */
Test(switches, trim_and_copy_keep_every_later_lookup)
{
	uint64_t rng = 11;

	for (int round = 0; round < 300; round++) {
		size_t n = rng_next(&rng) % 40;
		uint64_t t = rng_next(&rng) % 120;
		struct sy_switches sw, cp;
		struct sy_switch *all = calloc(n + 1, sizeof(*all));
		const struct sy_switch *in_effect;
		uint64_t margin = 0;
		size_t before = 0;

		cr_assert_not_null(all);
		sy_switches_init(&sw);
		for (size_t i = 0; i < n; i++) {
			all[i].time = (i ? all[i - 1].time : 0) +
				      rng_next(&rng) % 8;
			all[i].tid = (uint32_t)(1 + i);
			cr_assert_eq(sy_switches_add(&sw, all[i].time, 0,
						     all[i].tid),
				     0);
		}
		in_effect = scan_at(all, n, t);
		for (size_t i = 0; in_effect && i < n; i++)
			if (all[i].time < in_effect->time)
				before = i + 1;
		if (before)
			margin = all[before - 1].time;
		cr_assert_eq(sy_switches_copy(&sw, t, &cp), 0);
		sy_switches_trim(&sw, t);
		cr_assert_eq(cp.nr, sw.nr);
		cr_assert(!cp.nr ||
			  !memcmp(cp.v, sw.v, cp.nr * sizeof(*cp.v)));
		for (size_t i = 0, early = 0; i < sw.nr; i++)
			if (sw.v[i].time <= t && in_effect &&
			    sw.v[i].time != in_effect->time)
				cr_assert_leq(++early, 1, "round %d", round);
		for (uint64_t u = before ? margin : 0; u <= 130; u++) {
			cr_assert(same(sy_switches_at(&sw, u),
				       scan_at(all, n, u)),
				  "round %d trim %lu lookup %lu", round,
				  (unsigned long)t, (unsigned long)u);
			cr_assert(same(sy_switches_at(&cp, u),
				       scan_at(all, n, u)));
		}
		sy_switches_fini(&cp);
		sy_switches_fini(&sw);
		free(all);
	}
}

/* The walk's pattern over a long recording: a switch every 10 time
 * units, a job every 1000 that copies and trims at its start.  The queue's
 * timeline holds what lies after the last job's start and two entries
 * before it, whatever the recording's length; each job's copy is as
 * small. */
Test(switches, memory_does_not_grow_with_the_recording)
{
	struct sy_switches sw;
	size_t most = 0, most_copy = 0;

	sy_switches_init(&sw);
	for (uint64_t t = 0; t < 2000000; t += 10) {
		cr_assert_eq(sy_switches_add(&sw, t, 1, (uint32_t)(t / 10)),
			     0);
		if (t % 1000 == 990) {
			struct sy_switches cp;

			cr_assert_eq(sy_switches_copy(&sw, t - 990, &cp), 0);
			if (cp.nr > most_copy)
				most_copy = cp.nr;
			sy_switches_fini(&cp);
			sy_switches_trim(&sw, t - 990);
		}
		if (sw.nr > most)
			most = sw.nr;
	}
	cr_assert_leq(most, 102 + 100, "timeline held %zu entries", most);
	cr_assert_leq(most_copy, 102, "a job's copy held %zu", most_copy);
	cr_assert_leq(sw.cap, 512, "capacity grew to %zu", sw.cap);
	sy_switches_fini(&sw);
}
