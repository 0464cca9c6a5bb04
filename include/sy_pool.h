/* A fixed pool of worker threads running jobs in submission order of
 * start (not of completion), urgent work before the rest.  Each thread owns
 * a context made by the caller's factory (decoders, code readers), and so
 * does the caller: no job touches another thread's state.
 *
 * Submitting never runs anything in the caller's stack frame: with threads
 * the work is queued for them; with zero threads it is queued and run, in
 * submission order, by the first sy_pool_wait() or sy_pool_poll() that
 * asks for it.  With threads, sy_pool_wait() runs queued work on the
 * caller's context while what it waits for is not done, so N - 1 threads
 * and the caller keep N cores busy.  Work never calls back into its
 * submitter, so a caller that submits from inside its own bookkeeping is
 * never re-entered, and a single-threaded run does exactly the work a
 * multi-threaded one does, in the same order.  Results are made
 * deterministic by the caller consuming them in submission order. */
#ifndef SY_POOL_H
#define SY_POOL_H

#include <pthread.h>
#include <stddef.h>

struct sy_work {
	struct sy_work *next;
	void (*run)(void *thread_ctx, struct sy_work *w);
	int done;		/* set (under the pool lock) when run returned */
};

struct sy_pool {
	unsigned nr;		/* threads running */
	unsigned nctx;		/* contexts made */
	pthread_t *threads;
	void **ctx;		/* per-thread contexts (ctx[0] is used inline) */
	void (*ctx_free)(void *);
	pthread_mutex_t lock;
	pthread_cond_t more;	/* work queued or stopping */
	pthread_cond_t done;	/* some work finished */
	struct sy_work *head, *tail;
	/* work taken before the rest (sy_pool_submit_urgent) */
	struct sy_work *uhead, *utail;
	int stop;
};

/* @nr threads (0: run inline with one context).  @ctx_new makes each
 * thread's context (NULL on failure).  Returns 0 or -SY_E_NOMEM. */
int sy_pool_init(struct sy_pool *p, unsigned nr, void *(*ctx_new)(void *arg),
		 void (*ctx_free)(void *), void *arg);
/* Runs or waits for queued work, joins the threads, frees the contexts. */
void sy_pool_fini(struct sy_pool *p);
void sy_pool_submit(struct sy_pool *p, struct sy_work *w);
/* The same, but @w starts before any work submitted the ordinary way
 * (urgent work in its own submission order): for short work that frees
 * what waits for it, which must not wait for long work queued earlier. */
void sy_pool_submit_urgent(struct sy_pool *p, struct sy_work *w);
/* Blocks until @w is done; meanwhile the caller runs queued work on a
 * context of its own. */
void sy_pool_wait(struct sy_pool *p, struct sy_work *w);
/* Nonzero when @w is done.  Never blocks on other threads; without
 * threads, runs the queued work up to @w first. */
int sy_pool_poll(struct sy_pool *p, struct sy_work *w);

#endif
