#include "window.h"

#include <stdlib.h>

void sy_win_free_inner(struct sy_win *w)
{
	for (uint32_t i = 0; w->inner_mem && i < w->pub.nr_inner; i++) {
		free(w->inner_mem[i].chain);
		free(w->inner_mem[i].stack);
	}
	free(w->inner_mem);
	free(w->inner);
	w->inner_mem = NULL;
	w->inner = NULL;
}

void sy_finished_free(struct sy_finished *f)
{
	if (!f)
		return;
	f->sink->job_free(f->job);
	free(f);
}

void sy_summary_add_window(struct sy_session_summary *s,
			   const struct sy_window *p)
{
	s->windows++;
	s->by_status[p->status]++;
	s->suspect += p->suspect != 0;
	s->bytes += p->bytes;
	s->insns += p->insns;
	s->branches += p->branches;
	s->unplaced += p->unplaced;
	s->placed += p->nr_inner;
}

void sy_summary_add_windows(struct sy_session_summary *s,
			    const struct sy_session_summary *from)
{
	s->windows += from->windows;
	for (size_t i = 0; i < SY_ST_NR; i++)
		s->by_status[i] += from->by_status[i];
	s->suspect += from->suspect;
	s->bytes += from->bytes;
	s->insns += from->insns;
	s->branches += from->branches;
	s->unplaced += from->unplaced;
	s->placed += from->placed;
}

void sy_win_free(struct sy_win *w)
{
	if (!w)
		return;
	sy_finished_free(w->fin);
	free(w->chain);
	sy_stretch_free_all(w->st, w->nr_st);
	sy_stack_mem_free(&w->stack);
	sy_win_free_inner(w);
	sy_proc_snap_put(w->snap);
	sy_text_free(&w->items);
	if (w->batch && !--w->batch->refs) {
		free(w->batch->w);
		free(w->batch);
	}
	free(w);
}

void sy_outq_append(struct sy_outq *o, struct sy_win *w)
{
	w->pub.index = o->next_index;
	o->next_index += w->fin ? w->fin->sum.windows : 1;
	w->next = NULL;
	o->nr++;
	if (o->tail)
		o->tail->next = w;
	else
		o->head = w;
	o->tail = w;
}

struct sy_win *sy_outq_pop_ready(struct sy_outq *o)
{
	struct sy_win *w = o->head;

	if (!w || !w->ready)
		return NULL;
	o->head = w->next;
	if (!o->head)
		o->tail = NULL;
	o->nr--;
	return w;
}

void sy_outq_free(struct sy_outq *o)
{
	while (o->head) {
		struct sy_win *w = o->head;

		o->head = w->next;
		sy_win_free(w);
	}
	o->tail = NULL;
	o->nr = 0;
}
