#include "window.h"

#include <stdlib.h>

void sy_win_free_inner(struct sy_win *w)
{
	for (uint32_t i = 0; w->inner_mem && i < w->pub.nr_inner; i++) {
		sy_blocks_free(w->inner_mem[i].chain,
			       w->inner_mem[i].chain_blk);
		sy_stack_mem_free(&w->inner_mem[i].stack);
	}
	sy_blocks_free(w->inner_mem, w->inner_mem_blk);
	sy_blocks_free(w->inner, w->inner_blk);
	w->inner_mem = NULL;
	w->inner = NULL;
	w->inner_mem_blk = w->inner_blk = NULL;
	sy_win_forget_samples(w);
}

void sy_win_forget_samples(struct sy_win *w)
{
	for (size_t k = 0; k < w->nr_qs; k++)
		sy_chain_free(&w->qs[k].chain);
	free(w->qs);
	w->qs = NULL;
	w->nr_qs = 0;
}

void sy_finished_free(struct sy_finished *f)
{
	if (!f)
		return;
	f->sink->job_free(f->job);
	sy_proc_snap_put(f->snap);
	sy_maptl_fini(&f->maps);
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
	sy_chain_free(&w->packed);
	sy_blocks_free(w->chain, w->chain_blk);
	sy_stretch_free_all(w->st, w->nr_st);
	sy_stack_mem_free(&w->stack);
	sy_win_free_inner(w);
	sy_proc_snap_put(w->snap);
	sy_text_free(&w->items);
	if (w->batch && !--w->batch->refs) {
		if (w->batch->job)
			w->batch->sink->job_free(w->batch->job);
		free(w->batch->w);
		free(w->batch);
	}
	free(w);
}

static void sy_outq_link(struct sy_outq *o, struct sy_outent *e)
{
	e->next = NULL;
	o->nr++;
	if (o->tail)
		o->tail->next = e;
	else
		o->head = e;
	o->tail = e;
}

void sy_outq_append(struct sy_outq *o, struct sy_win *w)
{
	w->pub.index = o->next_index++;
	w->ent.win = w;
	w->ent.fin = NULL;
	sy_outq_link(o, &w->ent);
}

void sy_outq_append_finished(struct sy_outq *o, struct sy_finished *f)
{
	o->next_index += f->sum.windows;
	f->ent.win = NULL;
	f->ent.fin = f;
	sy_outq_link(o, &f->ent);
}

struct sy_outent *sy_outq_pop_ready(struct sy_outq *o)
{
	struct sy_outent *e = o->head;

	if (!e || (e->win && !e->win->ready))
		return NULL;
	o->head = e->next;
	if (!o->head)
		o->tail = NULL;
	o->nr--;
	return e;
}

void sy_outq_free(struct sy_outq *o)
{
	while (o->head) {
		struct sy_outent *e = o->head;

		o->head = e->next;
		if (e->win)
			sy_win_free(e->win);
		else
			sy_finished_free(e->fin);
	}
	o->tail = NULL;
	o->nr = 0;
}
