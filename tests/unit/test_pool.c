/* The worker pool (src/base/pool.c): submission order, urgent work first,
 * and a caller that waits runs queued work itself, on a context of its
 * own, rather than leave a core idle. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "sy_pool.h"

struct ctx {
	int id;
};

static int next_id;

static void *ctx_new(void *arg)
{
	struct ctx *c = malloc(sizeof(*c));

	(void)arg;
	if (c)
		c->id = next_id++;
	return c;
}

static void ctx_free(void *c)
{
	free(c);
}

/* A work that records the order it ran in and on which context. */
struct rec_work {
	struct sy_work w;
	int *log, *n;
	int tag;
	int ctx_id;
};

static void rec_run(void *thread_ctx, struct sy_work *w)
{
	struct rec_work *r = (struct rec_work *)(void *)w;

	r->ctx_id = ((struct ctx *)thread_ctx)->id;
	r->log[(*r->n)++] = r->tag;
}

Test(pool, inline_runs_in_order_urgent_first_when_waited)
{
	struct sy_pool p;
	int log[4], n = 0;
	struct rec_work a = { .log = log, .n = &n, .tag = 1 };
	struct rec_work b = { .log = log, .n = &n, .tag = 2 };
	struct rec_work u = { .log = log, .n = &n, .tag = 3 };

	a.w.run = b.w.run = u.w.run = rec_run;
	next_id = 0;
	cr_assert_eq(sy_pool_init(&p, 0, ctx_new, ctx_free, NULL), 0);
	sy_pool_submit(&p, &a.w);
	sy_pool_submit(&p, &b.w);
	sy_pool_submit_urgent(&p, &u.w);
	/* nothing runs in the submitter's frame */
	cr_assert_eq(n, 0);
	sy_pool_wait(&p, &a.w);
	cr_assert_eq(n, 2);
	cr_assert_eq(log[0], 3);
	cr_assert_eq(log[1], 1);
	cr_assert_eq(sy_pool_poll(&p, &b.w), 1);
	cr_assert_eq(log[2], 2);
	cr_assert_eq(a.ctx_id, 0);
	sy_pool_fini(&p);
}

/* The gate: a work on the thread that waits (with a time limit) until the
 * other work ran. */
struct gate {
	struct sy_work w;
	pthread_mutex_t *lock;
	pthread_cond_t *cond;
	int *opened;
	int entered;
	int timed_out;
};

static void gate_run(void *thread_ctx, struct sy_work *w)
{
	struct gate *g = (struct gate *)(void *)w;
	struct timespec until;

	(void)thread_ctx;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 3;
	pthread_mutex_lock(g->lock);
	g->entered = 1;
	pthread_cond_broadcast(g->cond);
	while (!*g->opened && !g->timed_out)
		if (pthread_cond_timedwait(g->cond, g->lock, &until) ==
		    ETIMEDOUT)
			g->timed_out = 1;
	pthread_mutex_unlock(g->lock);
}

struct opener {
	struct sy_work w;
	pthread_mutex_t *lock;
	pthread_cond_t *cond;
	int *opened;
	int ctx_id;
};

static void opener_run(void *thread_ctx, struct sy_work *w)
{
	struct opener *o = (struct opener *)(void *)w;

	o->ctx_id = ((struct ctx *)thread_ctx)->id;
	pthread_mutex_lock(o->lock);
	*o->opened = 1;
	pthread_cond_broadcast(o->cond);
	pthread_mutex_unlock(o->lock);
}

Test(pool, a_waiting_caller_runs_queued_work_on_its_own_context)
{
	struct sy_pool p;
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	int opened = 0;
	struct gate g = { .lock = &lock, .cond = &cond, .opened = &opened };
	struct opener o = { .lock = &lock, .cond = &cond, .opened = &opened,
			    .ctx_id = -1 };

	g.w.run = gate_run;
	o.w.run = opener_run;
	next_id = 0;
	/* one thread (context 0); the caller's context is 1 */
	cr_assert_eq(sy_pool_init(&p, 1, ctx_new, ctx_free, NULL), 0);
	sy_pool_submit(&p, &g.w);
	/* the thread is inside the gate before the opener is queued */
	pthread_mutex_lock(&lock);
	while (!g.entered)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	sy_pool_submit(&p, &o.w);
	/* the thread waits for the opener: only the caller can run it */
	sy_pool_wait(&p, &o.w);
	sy_pool_wait(&p, &g.w);
	cr_assert_eq(o.ctx_id, 1, "the opener ran on context %d", o.ctx_id);
	cr_assert_eq(g.timed_out, 0);
	sy_pool_fini(&p);
}

/* Many works on two threads and the caller: each runs exactly once. */
static void count_run(void *thread_ctx, struct sy_work *w)
{
	(void)thread_ctx;
	(void)w;
}

Test(pool, every_work_runs_once_with_threads_and_a_helping_caller)
{
	enum { N = 2000 };
	struct sy_pool p;
	struct sy_work *w = calloc(N, sizeof(*w));

	cr_assert_not_null(w);
	cr_assert_eq(sy_pool_init(&p, 2, ctx_new, ctx_free, NULL), 0);
	for (int i = 0; i < N; i++) {
		w[i].run = count_run;
		if (i % 7)
			sy_pool_submit(&p, &w[i]);
		else
			sy_pool_submit_urgent(&p, &w[i]);
	}
	for (int i = N; i-- > 0;)
		sy_pool_wait(&p, &w[i]);
	for (int i = 0; i < N; i++)
		cr_assert_eq(w[i].done, 1);
	sy_pool_fini(&p);
	free(w);
}
