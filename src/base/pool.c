#include "sy_pool.h"

#include <stdlib.h>
#include <string.h>

#include "sy_error.h"

struct sy_thread_arg {
	struct sy_pool *p;
	void *ctx;
};

/* The next work to start, taken off its list; NULL when none. */
static struct sy_work *sy_pool_take(struct sy_pool *p)
{
	struct sy_work **head = p->uhead ? &p->uhead : &p->head;
	struct sy_work **tail = p->uhead ? &p->utail : &p->tail;
	struct sy_work *w = *head;

	if (!w)
		return NULL;
	*head = w->next;
	if (!*head)
		*tail = NULL;
	return w;
}

static void sy_pool_append(struct sy_work **head, struct sy_work **tail,
			   struct sy_work *w)
{
	w->next = NULL;
	w->done = 0;
	if (*tail)
		(*tail)->next = w;
	else
		*head = w;
	*tail = w;
}

/* Runs @w, taken off the queue, with the lock held on entry and exit. */
static void sy_pool_run(struct sy_pool *p, void *ctx, struct sy_work *w)
{
	pthread_mutex_unlock(&p->lock);
	w->run(ctx, w);
	pthread_mutex_lock(&p->lock);
	w->done = 1;
	pthread_cond_broadcast(&p->done);
}

static void *sy_worker(void *arg)
{
	struct sy_thread_arg *ta = arg;
	struct sy_pool *p = ta->p;
	void *ctx = ta->ctx;

	free(ta);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct sy_work *w;

		while (!p->head && !p->uhead && !p->stop)
			pthread_cond_wait(&p->more, &p->lock);
		if (!(w = sy_pool_take(p)))
			break;
		sy_pool_run(p, ctx, w);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int sy_pool_init(struct sy_pool *p, unsigned nr, void *(*ctx_new)(void *arg),
		 void (*ctx_free)(void *), void *arg)
{
	/* threads' contexts, and the caller's: it runs work while it waits */
	unsigned nctx = nr + 1;

	memset(p, 0, sizeof(*p));
	p->ctx_free = ctx_free;
	p->ctx = calloc(nctx, sizeof(*p->ctx));
	if (!p->ctx)
		return -SY_E_NOMEM;
	p->nctx = nctx;
	for (unsigned i = 0; i < nctx; i++) {
		p->ctx[i] = ctx_new(arg);
		if (!p->ctx[i]) {
			for (unsigned k = 0; k < i; k++)
				ctx_free(p->ctx[k]);
			free(p->ctx);
			p->ctx = NULL;
			return -SY_E_NOMEM;
		}
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->more, NULL);
	pthread_cond_init(&p->done, NULL);
	if (!nr)
		return 0;
	p->threads = calloc(nr, sizeof(*p->threads));
	if (!p->threads)
		goto fail;
	for (unsigned i = 0; i < nr; i++) {
		struct sy_thread_arg *ta = malloc(sizeof(*ta));

		if (!ta)
			goto fail;
		ta->p = p;
		ta->ctx = p->ctx[i];
		if (pthread_create(&p->threads[i], NULL, sy_worker, ta)) {
			free(ta);
			goto fail;
		}
		p->nr++;
	}
	return 0;

fail:
	sy_pool_fini(p);
	return -SY_E_NOMEM;
}

/* Zero threads: runs the queued work in order, up to and including @upto
 * (all of it when NULL). */
static void sy_pool_run_inline(struct sy_pool *p, struct sy_work *upto)
{
	struct sy_work *w;

	while ((!upto || !upto->done) && (w = sy_pool_take(p))) {
		w->run(p->ctx[0], w);
		w->done = 1;
	}
}

void sy_pool_fini(struct sy_pool *p)
{
	if (!p->ctx)
		return;
	if (!p->nr)
		sy_pool_run_inline(p, NULL);
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nr; i++)
		pthread_join(p->threads[i], NULL);
	for (unsigned i = 0; i < p->nctx; i++)
		p->ctx_free(p->ctx[i]);
	free(p->threads);
	free(p->ctx);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->more);
	pthread_cond_destroy(&p->done);
	memset(p, 0, sizeof(*p));
}

static void sy_pool_queue(struct sy_pool *p, struct sy_work *w, int urgent)
{
	if (p->nr)
		pthread_mutex_lock(&p->lock);
	if (urgent)
		sy_pool_append(&p->uhead, &p->utail, w);
	else
		sy_pool_append(&p->head, &p->tail, w);
	if (p->nr) {
		pthread_cond_signal(&p->more);
		pthread_mutex_unlock(&p->lock);
	}
}

void sy_pool_submit(struct sy_pool *p, struct sy_work *w)
{
	sy_pool_queue(p, w, 0);
}

void sy_pool_submit_urgent(struct sy_pool *p, struct sy_work *w)
{
	sy_pool_queue(p, w, 1);
}

void sy_pool_wait(struct sy_pool *p, struct sy_work *w)
{
	if (!p->nr) {
		sy_pool_run_inline(p, w);
		return;
	}
	pthread_mutex_lock(&p->lock);
	while (!w->done) {
		/* rather than sleep, the caller runs queued work (urgent
		 * first) on its own context: the threads and the caller then
		 * share the cores with no one idle while work is queued */
		struct sy_work *x = sy_pool_take(p);

		if (!x) {
			pthread_cond_wait(&p->done, &p->lock);
			continue;
		}
		sy_pool_run(p, p->ctx[p->nr], x);
	}
	pthread_mutex_unlock(&p->lock);
}

int sy_pool_poll(struct sy_pool *p, struct sy_work *w)
{
	int done;

	if (!p->nr) {
		sy_pool_run_inline(p, w);
		return w->done;
	}
	pthread_mutex_lock(&p->lock);
	done = w->done;
	pthread_mutex_unlock(&p->lock);
	return done;
}
