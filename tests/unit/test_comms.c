/* Process names by time (comms.h): each window is named as its process
 * was at its time, whenever the walk hands it out. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "synth/comms.h"

static void want(const struct sy_comms *c, uint32_t pid, uint64_t t,
		 const char *name)
{
	const char *got = sy_comms_get(c, pid, t);

	if (!name)
		cr_assert_null(got, "pid %u at %llu: want none, got %s", pid,
			       (unsigned long long)t, got);
	else
		cr_assert(got && !strcmp(got, name),
			  "pid %u at %llu: want %s, got %s", pid,
			  (unsigned long long)t, name, got ? got : "(none)");
}

Test(comms, a_name_holds_from_its_time)
{
	struct sy_comms c;

	sy_comms_init(&c);
	cr_assert_eq(sy_comms_set(&c, 7, 100, "old"), 0);
	cr_assert_eq(sy_comms_set(&c, 7, 200, "new"), 0);
	want(&c, 7, 100, "old");
	want(&c, 7, 199, "old");
	want(&c, 7, 200, "new");
	want(&c, 7, 1000, "new");
	want(&c, 7, SY_COMMS_LATEST, "new");
	/* before its first name: the first (it ran before perf named it) */
	want(&c, 7, 50, "old");
	want(&c, 8, 150, NULL);
	sy_comms_fini(&c);
}

Test(comms, records_out_of_time_order_and_at_one_time)
{
	struct sy_comms c;

	sy_comms_init(&c);
	/* read after a later one (a round's records come unsorted) */
	cr_assert_eq(sy_comms_set(&c, 7, 300, "c"), 0);
	cr_assert_eq(sy_comms_set(&c, 7, 100, "a"), 0);
	want(&c, 7, 150, "a");
	want(&c, 7, 300, "c");
	/* two at one time: the one read last holds */
	cr_assert_eq(sy_comms_set(&c, 7, 200, "b1"), 0);
	cr_assert_eq(sy_comms_set(&c, 7, 200, "b2"), 0);
	want(&c, 7, 200, "b2");
	want(&c, 7, 299, "b2");
	sy_comms_fini(&c);
}

Test(comms, pids_apart)
{
	struct sy_comms c;

	sy_comms_init(&c);
	for (uint32_t p = 40; p > 0; p--)
		cr_assert_eq(sy_comms_set(&c, p * 3, p, p & 1 ? "odd" : "even"),
			     0);
	for (uint32_t p = 1; p <= 40; p++) {
		want(&c, p * 3, 0, p & 1 ? "odd" : "even");
		want(&c, p * 3 + 1, 1000, NULL);
	}
	sy_comms_fini(&c);
}

Test(comms, a_repeated_name_adds_nothing)
{
	struct sy_comms c;

	sy_comms_init(&c);
	cr_assert_eq(sy_comms_set(&c, 7, 100, "same"), 0);
	cr_assert_eq(sy_comms_set(&c, 7, 200, "same"), 0);
	cr_assert_eq(c.nr_names, 1);
	/* a long name is cut to what the kernel keeps, 15 bytes */
	cr_assert_eq(sy_comms_set(&c, 9, 0, "0123456789abcdefXYZ"), 0);
	want(&c, 9, 0, "0123456789abcde");
	sy_comms_fini(&c);
}

Test(comms, a_forked_process_has_its_parents_name_then)
{
	struct sy_comms c;

	sy_comms_init(&c);
	cr_assert_eq(sy_comms_set(&c, 10, 100, "parent"), 0);
	cr_assert_eq(sy_comms_set(&c, 10, 300, "parent2"), 0);
	cr_assert_eq(sy_comms_fork(&c, 20, 10, 200), 0);
	want(&c, 20, 250, "parent");
	want(&c, 20, SY_COMMS_LATEST, "parent");
	/* it execs: its own name from then on */
	cr_assert_eq(sy_comms_set(&c, 20, 400, "child"), 0);
	want(&c, 20, 350, "parent");
	want(&c, 20, 400, "child");
	/* a parent with no name gives none; a thread (pid == ppid) is not
	 * a new process */
	cr_assert_eq(sy_comms_fork(&c, 30, 99, 200), 0);
	want(&c, 30, 250, NULL);
	cr_assert_eq(sy_comms_fork(&c, 10, 10, 500), 0);
	want(&c, 10, 500, "parent2");
	sy_comms_fini(&c);
}

/* pid numbers wrap: a pid used again by a new process keeps the old
 * process's names for its windows still to come, by time */
Test(comms, pids_used_again)
{
	struct sy_comms c;
	char name[16];

	sy_comms_init(&c);
	for (uint32_t round = 0; round < 4; round++)
		for (uint32_t pid = 1; pid <= 5000; pid++) {
			snprintf(name, sizeof(name), "p%u.%u", pid, round);
			cr_assert_eq(sy_comms_set(&c, pid, round * 100000 + pid,
						  name),
				     0);
		}
	cr_assert_eq(c.nr_pids, 5000);
	cr_assert_eq(c.nr_names, 20000);
	for (uint32_t round = 0; round < 4; round++)
		for (uint32_t pid = 1; pid <= 5000; pid += 7) {
			snprintf(name, sizeof(name), "p%u.%u", pid, round);
			want(&c, pid, round * 100000 + pid + 50, name);
		}
	snprintf(name, sizeof(name), "p%u.%u", 4999u, 3u);
	want(&c, 4999, SY_COMMS_LATEST, name);
	want(&c, 5001, SY_COMMS_LATEST, NULL);
	sy_comms_fini(&c);
}
