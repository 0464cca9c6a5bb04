#include "queue.h"

#include <stdlib.h>
#include <string.h>

#include "sy_bsearch.h"
#include "sy_perf_event.h"

static struct sy_queue *sy_queue_new(uint32_t key,
				     const struct sy_synth_config *cfg,
				     size_t *held)
{
	struct sy_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->key = key;
	q->cpu = key;
	sy_auxmap_init(&q->aux);
	sy_units_init(&q->units, cfg);
	sy_matcher_init(&q->match, held);
	sy_placer_init(&q->place);
	sy_switches_init(&q->sw);
	return q;
}

static void sy_queue_free(struct sy_queue *q)
{
	if (!q)
		return;
	sy_auxmap_fini(&q->aux);
	sy_units_fini(&q->units);
	sy_matcher_fini(&q->match);
	sy_placer_fini(&q->place);
	sy_switches_fini(&q->sw);
	free(q->sources);
	free(q);
}

int sy_queue_more_jobs(const struct sy_queue *q)
{
	return q->units.next_piece < q->units.nr_pieces;
}

int sy_queue_thread_record(struct sy_queue *q, const struct sy_event *ev)
{
	const struct sy_ev_switch *sw = &ev->u.sw;
	int err;

	/* the jobs made so far have their copies: what no job will read is
	 * not kept */
	if (!ev->has_sid || !sy_queue_more_jobs(q))
		return 0;
	/* the trace starts on the CPU: perf takes its thread from here */
	if (ev->type == SY_REC_ITRACE_START)
		return sy_switches_add(&q->sw, ev->sid.time,
				       ev->u.itrace_start.pid,
				       ev->u.itrace_start.tid);
	if (ev->type != SY_REC_SWITCH_CPU_WIDE)
		return 0;
	if (!sw->out)
		return sy_switches_add(&q->sw, ev->sid.time, ev->sid.pid,
				       ev->sid.tid);
	if ((err = sy_switches_before(&q->sw, ev->sid.pid, ev->sid.tid)))
		return err;
	return sy_switches_add(&q->sw, ev->sid.time, sw->next_prev_pid,
			       sw->next_prev_tid);
}

struct sy_queues_key {
	const struct sy_queues *qs;
	uint32_t key;
};

static int sy_queue_before(const void *ctx, size_t i)
{
	const struct sy_queues_key *k = ctx;

	return k->qs->v[i]->key < k->key;
}

struct sy_queue *sy_queues_get(struct sy_queues *qs, uint32_t key, int create,
			       const struct sy_synth_config *cfg,
			       size_t *held)
{
	struct sy_queues_key k = { qs, key };
	size_t lo = sy_partition_point(qs->nr, sy_queue_before, &k);
	struct sy_queue **nv, *q;

	if (lo < qs->nr && qs->v[lo]->key == key)
		return qs->v[lo];
	if (!create)
		return NULL;
	nv = realloc(qs->v, (qs->nr + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	qs->v = nv;
	q = sy_queue_new(key, cfg, held);
	if (!q)
		return NULL;
	memmove(&qs->v[lo + 1], &qs->v[lo], (qs->nr - lo) * sizeof(*nv));
	qs->v[lo] = q;
	qs->nr++;
	return q;
}

void sy_queues_free(struct sy_queues *qs)
{
	for (size_t i = 0; i < qs->nr; i++)
		sy_queue_free(qs->v[i]);
	free(qs->v);
	qs->v = NULL;
	qs->nr = 0;
}

uint64_t sy_queue_frontier(struct sy_queue *q)
{
	const struct sy_auxmap *m = &q->aux;

	if (!q->rec_times) {
		q->rec_times = 1;
		for (size_t i = 1; i < m->nr_recs; i++)
			if (m->recs[i].time < m->recs[i - 1].time)
				q->rec_times = -1;
	}
	if (q->rec_times < 0)
		return 0;
	while (q->snap_rec < m->nr_recs &&
	       m->recs[q->snap_rec].aux_off + m->recs[q->snap_rec].size <=
		       q->snapped)
		q->snap_rec++;
	if (q->snap_rec == m->nr_recs)
		return UINT64_MAX;
	return q->snap_rec ? m->recs[q->snap_rec - 1].time : 0;
}
