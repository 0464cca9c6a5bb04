/* Decode jobs (src/synth/jobs.h) driven directly: jobs of PT bytes that
 * are not a valid stream (no PSB: every job decodes into what libipt says
 * of them, quickly and without code), submitted in a known order on one
 * and on three threads.  What jobs.h promises, checked:
 *   - "handed back in that same order, whatever thread ran them";
 *   - what a job decodes does not depend on the thread that ran it (the
 *     stretches and statistics of every job equal at 1 and 3 threads);
 *   - the finish callback runs once per job, on the thread that decoded
 *     it, before the job is handed back;
 *   - other work runs and is seen done;
 *   - in-flight accounting: full while more jobs wait than the workers
 *     need, not once they are collected. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "synth/jobs.h"

#define NJOBS 16

struct run {
	struct sy_job *job[NJOBS];
	uint8_t *bytes[NJOBS];
	struct sy_dec_chunk chunk[NJOBS];
	/* per job, what it decoded */
	size_t nr_st[NJOBS];
	uint64_t errors[NJOBS], consumed[NJOBS];
	uint64_t off1_sum[NJOBS];
	_Atomic int finished[NJOBS];
	uint64_t decoders;	/* the threads made, for the jobs */
};

static struct sy_dec_params dp = { .kind = SY_TRACE_PT };

static _Atomic int finish_calls;
static struct run *cur;		/* the run extra_finish counts for */

static void *extra_new(void *arg)
{
	(void)arg;
	return malloc(1);
}

static void extra_free(void *ctx)
{
	free(ctx);
}

/* Runs on the decoding thread once the job's stretches are there. */
static void extra_finish(void *ctx, struct sy_job *j)
{
	struct run *r = cur;

	cr_assert_not_null(ctx, "finish without its thread's state");
	for (size_t i = 0; i < NJOBS; i++)
		if (r->job[i] == j)
			atomic_fetch_add(&r->finished[i], 1);
	atomic_fetch_add(&finish_calls, 1);
}

static const struct sy_jobs_extra extra = { extra_new, extra_free, NULL,
					    extra_finish, NULL };

/* Job @i: 5 + 37 i bytes of a fixed pseudo-random sequence. */
static void make_job(struct run *r, size_t i, const struct sy_dec_params *p)
{
	struct sy_job *j = calloc(1, sizeof(*j));
	size_t n = 5 + 37 * i;
	uint32_t x = 2463534242u + (uint32_t)i;

	cr_assert_not_null(j);
	r->bytes[i] = malloc(n);
	cr_assert_not_null(r->bytes[i]);
	for (size_t k = 0; k < n; k++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		r->bytes[i][k] = (uint8_t)x;
	}
	r->chunk[i].data = r->bytes[i];
	r->chunk[i].len = n;
	j->dp = p;
	j->chunks = &r->chunk[i];
	j->nr_chunks = 1;
	j->own_chunks = 0;
	j->fresh = 1;
	j->bytes = n;
	r->job[i] = j;
}

/* Runs the NJOBS jobs on @threads threads, job i with parameters
 * @dps[i] (NULL: all with dp). */
static void run_jobs_with(struct run *r, unsigned threads,
			  const struct sy_dec_params *dps)
{
	struct sy_jobs js;
	struct sy_job *j;
	size_t popped = 0;

	memset(r, 0, sizeof(*r));
	cur = r;
	atomic_store(&finish_calls, 0);
	cr_assert_eq(sy_jobs_init(&js, threads, NULL, 16, 0, 4096, &extra), 0);
	for (size_t i = 0; i < NJOBS; i++) {
		make_job(r, i, dps ? &dps[i] : &dp);
		sy_jobs_submit(&js, r->job[i]);
	}
	while ((j = sy_jobs_pop(&js, 1))) {
		cr_assert_lt(popped, NJOBS, "more jobs came back than went");
		cr_assert_eq(j, r->job[popped], "job %zu came back as job %zu's",
			     popped, popped);
		cr_assert_eq(atomic_load(&r->finished[popped]), 1,
			     "finish ran %d times before job %zu came back",
			     atomic_load(&r->finished[popped]), popped);
		r->nr_st[popped] = j->nr_st;
		r->consumed[popped] = j->stats.bytes;
		r->errors[popped] = j->stats.errors;
		for (size_t k = 0; k < j->nr_st; k++)
			r->off1_sum[popped] += j->st[k].off1;
		cr_assert_leq(j->stats.bytes, r->chunk[popped].len,
			      "job %zu consumed more than it was given", popped);
		popped++;
	}
	cr_assert_eq(popped, NJOBS);
	cr_assert(sy_jobs_idle(&js));
	sy_jobs_fini(&js);
	r->decoders = atomic_load(&js.decoders);
	for (size_t i = 0; i < NJOBS; i++) {
		sy_job_release(r->job[i]);
		free(r->job[i]);
		free(r->bytes[i]);
	}
}

static void run_jobs(struct run *r, unsigned threads)
{
	run_jobs_with(r, threads, NULL);
}

Test(jobs, handed_back_in_submission_order_on_one_thread)
{
	static struct run r;

	run_jobs(&r, 1);
	cr_assert_eq(atomic_load(&finish_calls), NJOBS);
}

Test(jobs, handed_back_in_submission_order_on_three_threads)
{
	static struct run r;

	run_jobs(&r, 3);
	cr_assert_eq(atomic_load(&finish_calls), NJOBS);
}

/* Every job decodes the same on any thread: its stretches, where the last
 * one ends, its errors and the bytes it consumed. */
Test(jobs, what_a_job_decodes_does_not_depend_on_the_thread)
{
	static struct run one, three;
	int some_consumed = 0;

	run_jobs(&one, 1);
	run_jobs(&three, 3);
	for (size_t i = 0; i < NJOBS; i++) {
		cr_assert_eq(one.nr_st[i], three.nr_st[i], "job %zu", i);
		cr_assert_eq(one.errors[i], three.errors[i], "job %zu", i);
		cr_assert_eq(one.consumed[i], three.consumed[i], "job %zu", i);
		cr_assert_eq(one.off1_sum[i], three.off1_sum[i], "job %zu", i);
		some_consumed |= one.consumed[i] > 0;
	}
	/* the comparison compared something: libipt reads garbage looking
	 * for a PSB */
	cr_assert(some_consumed);
}

static _Atomic int work_runs;

static void work_run(void *thread_ctx, struct sy_work *w)
{
	(void)w;
	cr_assert_not_null(sy_jobs_extra_ctx(thread_ctx),
			   "other work sees its thread's extra state");
	atomic_fetch_add(&work_runs, 1);
}

/* Other work is run once and seen done, on one thread and on three. */
Test(jobs, other_work_runs_once)
{
	for (unsigned threads = 1; threads <= 3; threads += 2) {
		struct sy_jobs js;
		struct sy_work w[4];

		atomic_store(&work_runs, 0);
		cr_assert_eq(sy_jobs_init(&js, threads, NULL, 16, 0, 4096,
					  &extra), 0);
		for (int i = 0; i < 4; i++) {
			memset(&w[i], 0, sizeof(w[i]));
			w[i].run = work_run;
			sy_jobs_submit_work(&js, &w[i]);
		}
		for (int i = 0; i < 4; i++)
			cr_assert(sy_jobs_work_done(&js, &w[i], 1));
		cr_assert_eq(atomic_load(&work_runs), 4);
		sy_jobs_fini(&js);
	}
}

/* In flight: more jobs than the limit make the queue full; collected, it
 * is not. */
Test(jobs, full_until_collected)
{
	static struct run r;
	struct sy_jobs js;
	struct sy_job *j;
	int was_full = 0;

	memset(&r, 0, sizeof(r));
	cur = &r;
	cr_assert_eq(sy_jobs_init(&js, 1, NULL, 16, 0, 4096, &extra), 0);
	for (size_t i = 0; i < NJOBS; i++) {
		make_job(&r, i, &dp);
		sy_jobs_submit(&js, r.job[i]);
		was_full |= sy_jobs_full(&js);
	}
	cr_assert(was_full, "%d jobs in flight never made it full", NJOBS);
	while ((j = sy_jobs_pop(&js, 1)))
		;
	cr_assert_not(sy_jobs_full(&js));
	cr_assert(sy_jobs_idle(&js));
	sy_jobs_fini(&js);
	for (size_t i = 0; i < NJOBS; i++) {
		sy_job_release(r.job[i]);
		free(r.job[i]);
		free(r.bytes[i]);
	}
}

/* Every queue of a PT recording has its own parameters, alike: a thread
 * decodes them all with one decoder (each was 0.7 MB, per queue per
 * thread: a decoder per CPU per thread), and every job decodes as it did
 * with the one parameter set; PT parameters that differ get a decoder of
 * their own. */
Test(jobs, queues_that_decode_alike_share_a_threads_decoder)
{
	static struct run base, one, three, mixed;
	static struct sy_dec_params own[NJOBS], two[NJOBS];

	for (size_t i = 0; i < NJOBS; i++) {
		own[i] = dp;
		two[i] = dp;
		two[i].u.pt.mtc_freq = (uint8_t)(i & 1);
	}
	run_jobs(&base, 1);
	run_jobs_with(&one, 1, own);
	run_jobs_with(&three, 3, own);
	run_jobs_with(&mixed, 1, two);
	cr_assert_eq(base.decoders, 1);
	cr_assert_eq(one.decoders, 1, "%d queues alike: %llu decoders on one "
		     "thread", NJOBS, (unsigned long long)one.decoders);
	cr_assert_leq(three.decoders, 3, "%llu decoders on three threads",
		      (unsigned long long)three.decoders);
	cr_assert_eq(mixed.decoders, 2, "two settings: %llu decoders",
		     (unsigned long long)mixed.decoders);
	for (size_t i = 0; i < NJOBS; i++) {
		cr_assert_eq(one.nr_st[i], base.nr_st[i], "job %zu", i);
		cr_assert_eq(three.nr_st[i], base.nr_st[i], "job %zu", i);
		cr_assert_eq(one.errors[i], base.errors[i], "job %zu", i);
		cr_assert_eq(three.errors[i], base.errors[i], "job %zu", i);
		cr_assert_eq(one.consumed[i], base.consumed[i], "job %zu", i);
		cr_assert_eq(three.consumed[i], base.consumed[i], "job %zu", i);
		cr_assert_eq(three.off1_sum[i], base.off1_sum[i], "job %zu", i);
	}
}
