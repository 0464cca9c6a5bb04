/* Decode jobs on the worker pool, and the one decode loop. */
#include "jobs.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sy_vec.h"

/* Decode jobs in flight per worker thread before the caller should wait. */
#define SY_INFLIGHT_PER_THREAD 8

void sy_decstate_init(struct sy_decstate *ds, uint32_t depth)
{
	memset(ds, 0, sizeof(*ds));
	sy_stretcher_init(&ds->st, depth);
	pthread_mutex_init(&ds->lock, NULL);
	pthread_cond_init(&ds->turn, NULL);
}

void sy_decstate_fini(struct sy_decstate *ds)
{
	sy_decoder_free(ds->d);
	sy_mem_reader_free(ds->mem.mr);
	sy_stretcher_fini(&ds->st);
	pthread_mutex_destroy(&ds->lock);
	pthread_cond_destroy(&ds->turn);
	memset(ds, 0, sizeof(*ds));
}

void sy_decstate_take(struct sy_decstate *ds, struct sy_job *j)
{
	j->stream = ds;
	j->seq = ds->submitted++;
}

/* Waits until every earlier job of the stream has run. */
static void sy_decstate_enter(struct sy_decstate *ds, uint64_t seq)
{
	pthread_mutex_lock(&ds->lock);
	while (ds->finished != seq)
		pthread_cond_wait(&ds->turn, &ds->lock);
	pthread_mutex_unlock(&ds->lock);
}

static void sy_decstate_leave(struct sy_decstate *ds)
{
	pthread_mutex_lock(&ds->lock);
	ds->finished++;
	pthread_cond_broadcast(&ds->turn);
	pthread_mutex_unlock(&ds->lock);
}

/* --- worker threads' own state -------------------------------------------- */

struct sy_wdec {
	const struct sy_dec_params *dp;
	struct sy_decoder *d;
};

struct sy_wctx {
	struct sy_jobs *js;
	struct sy_jobmem mem;
	struct sy_wdec *dec;
	size_t nr_dec, cap_dec;
	struct sy_stretcher st;
	void *extra;		/* the caller's (sy_jobs_extra) */
	uint8_t *gbuf;		/* a PT job's chunks, read (sy_job_gather) */
	size_t gcap;
};

static void sy_wctx_free(void *arg);

static void *sy_wctx_new(void *arg)
{
	struct sy_jobs *js = arg;
	struct sy_wctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->js = js;
	sy_stretcher_init(&c->st, js->depth);
	if (sy_mem_reader_new(&c->mem.mr, js->images) ||
	    (js->extra.ctx_new &&
	     !(c->extra = js->extra.ctx_new(js->extra.arg)))) {
		sy_wctx_free(c);
		return NULL;
	}
	return c;
}

static void sy_wctx_free(void *arg)
{
	struct sy_wctx *c = arg;

	if (!c)
		return;
	if (c->extra)
		c->js->extra.ctx_free(c->extra);
	for (size_t i = 0; i < c->nr_dec; i++)
		sy_decoder_free(c->dec[i].d);
	free(c->dec);
	sy_mem_reader_free(c->mem.mr);
	sy_stretcher_fini(&c->st);
	free(c->gbuf);
	free(c);
}

static size_t sy_job_read_mem(void *ctx, uint32_t ctxid, uint64_t addr,
			      uint8_t *buf, size_t len)
{
	struct sy_jobmem *m = ctx;

	if (m->has_fallback && !sy_proc_snap_aspace(m->snap, ctxid))
		ctxid = m->fallback;
	return sy_mem_read(m->mr, ctxid, addr, buf, len);
}

/* The thread the job's switch timeline says runs from trace time @time
 * on (sy_ctx_at_fn). */
static int sy_job_ctx_at(void *ctx, uint64_t time, uint32_t *ctxid)
{
	const struct sy_jobmem *m = ctx;
	const struct sy_switch *e;

	if (!m->threads || !m->threads->nr)
		return 0;
	e = sy_switches_at(m->threads, sy_timeconv_to_perf(m->tc, time));
	if (!e)
		return 0;
	*ctxid = e->tid;
	return 1;
}

/* The snapshot code at trace time @time is read in (sy_code_at_fn): the
 * one before the first replacement after it, else the job's own. */
static int sy_job_code_at(void *ctx, uint64_t time)
{
	struct sy_jobmem *m = ctx;
	struct sy_proc_snap *want = NULL;

	if (!m->maps || !m->own)
		return 0;
	/* the data's start: as it was when the job's first bytes could be
	 * written (a PT piece's PSB+ says its time before any code is read,
	 * and asks again) */
	if (time != SY_DEC_TIME_NONE) {
		/* trace times that cannot be put on perf's clock say
		 * nothing about the records' */
		if (!m->tc->valid)
			return 0;
		want = sy_maptl_at(m->maps, sy_timeconv_to_perf(m->tc, time));
	} else if (m->t_start) {
		want = sy_maptl_at(m->maps, m->t_start);
	}
	if (!want)
		want = m->own;
	if (want == m->snap)
		return 0;
	m->snap = want;
	sy_mem_reader_switch(m->mr, want);
	return 1;
}

/* The parameters a worker's decoder gets: @dp reading through @m.  Code
 * changes by time on PT only (sy_code_at_fn says why not on ETM). */
static void sy_job_params(struct sy_dec_params *p,
			  const struct sy_dec_params *dp, struct sy_jobmem *m)
{
	*p = *dp;
	p->read_mem = sy_job_read_mem;
	p->ctx_at = sy_job_ctx_at;
	p->code_at = dp->kind == SY_TRACE_PT ? sy_job_code_at : NULL;
	p->mem_ctx = m;
}

/* One decoder per parameter set (a queue's), per thread, and one for
 * all sets that decode alike (sy_decoder_params_same: every queue of a PT
 * recording, per CPU or per thread; a decoder per queue per thread was
 * 0.7 MB times CPUs times threads). */
static struct sy_decoder *sy_wctx_decoder(struct sy_wctx *c,
					  const struct sy_dec_params *dp,
					  int *err)
{
	struct sy_dec_params p;

	for (size_t i = 0; i < c->nr_dec; i++)
		if (sy_decoder_params_same(c->dec[i].dp, dp))
			return c->dec[i].d;
	if (sy_grow((void **)&c->dec, &c->cap_dec, c->nr_dec,
		    sizeof(*c->dec))) {
		*err = -SY_E_NOMEM;
		return NULL;
	}
	sy_job_params(&p, dp, &c->mem);
	*err = sy_decoder_alloc(&c->dec[c->nr_dec].d, &p);
	if (*err)
		return NULL;
	c->dec[c->nr_dec].dp = dp;
	atomic_fetch_add_explicit(&c->js->decoders, 1, memory_order_relaxed);
	return c->dec[c->nr_dec++].d;
}

/* A stream's decoder is made on the worker that first decodes it. */
static int sy_decstate_ready(struct sy_decstate *ds,
			     struct sy_image_cache *images,
			     const struct sy_dec_params *dp)
{
	struct sy_dec_params p;
	int err;

	if (!ds->mem.mr && (err = sy_mem_reader_new(&ds->mem.mr, images)))
		return err;
	if (ds->d)
		return 0;
	sy_job_params(&p, dp, &ds->mem);
	return sy_decoder_alloc(&ds->d, &p);
}

static const char *sy_stop_name(uint32_t code)
{
	switch (code) {
	case SY_STOP_EXCEPTION: return "exception";
	case SY_STOP_SYSCALL: return "syscall";
	case SY_STOP_DISABLE: return "disable";
	case SY_STOP_END: return "end of data";
	default: return "?";
	}
}

size_t sy_item_format(char *buf, size_t len, const struct sy_dec_item *it,
		      enum sy_trace_kind kind)
{
	char what[160] = "";
	int n;

	/* the code in words: a stop's reason, an error's meaning, the
	 * thread of a context change */
	if (it->kind == SY_DEC_STOP)
		snprintf(what, sizeof(what), " (%s)", sy_stop_name(it->code));
	else if (it->kind == SY_DEC_ERROR) {
		char e[128];

		snprintf(what, sizeof(what), " (%s)",
			 sy_dec_errstr(kind, (int)it->code, e, sizeof(e)));
	} else if (it->kind == SY_DEC_CONTEXT)
		snprintf(what, sizeof(what), " (thread %u)", it->code);
	else if (it->kind == SY_DEC_CYCLES)
		snprintf(what, sizeof(what), " (cycles)");
	n = snprintf(buf, len,
		     "  item %-8s from %#" PRIx64 " to %#" PRIx64 " br %-8s "
		     "code %u%s exc %u ninsn %" PRIu64 " off %" PRIu64
		     " time %" PRIu64 "\n",
		     sy_dec_kind_name(it->kind), it->from, it->to,
		     sy_branch_kind_name(it->br), it->code, what, it->exc,
		     it->ninsn, it->offset, it->time);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

/* --items: the item's line goes with the stretch it belongs to (a START's
 * with the one it opens, so after the push). */
static int sy_item_keep(const struct sy_jobs *js, const struct sy_job *j,
			struct sy_stretcher *st, const struct sy_dec_item *it,
			int after)
{
	struct sy_dec_item at = *it;
	char line[512];
	size_t n;

	if (!js->items || after != (it->kind == SY_DEC_START))
		return 0;
	at.offset += j->aux_lo;	/* where it is in the trace */
	n = sy_item_format(line, sizeof(line), &at, j->dp->kind);
	return sy_stretcher_text(st, line, n);
}

static void sy_stats_sub(struct sy_dec_stats *out,
			 const struct sy_dec_stats *now,
			 const struct sy_dec_stats *prev)
{
	out->insns = now->insns - prev->insns;
	out->branches = now->branches - prev->branches;
	out->bytes = now->bytes - prev->bytes;
	out->errors = now->errors - prev->errors;
	out->overflows = now->overflows - prev->overflows;
	out->fast_units = now->fast_units - prev->fast_units;
	out->full_units = now->full_units - prev->full_units;
	out->fallbacks = now->fallbacks - prev->fallbacks;
}

/* A context change to a thread the recording does not know: the fallback
 * thread's (what the code was read in), else counted. */
static void sy_job_context(struct sy_job *j, const struct sy_jobmem *m,
			   struct sy_dec_item *it, int count)
{
	if (sy_proc_snap_aspace(m->snap, it->code))
		return;
	if (count && !j->ctx_remapped && !j->ctx_unknown)
		j->ctx_example = it->code;
	if (m->has_fallback) {
		j->ctx_remapped += count;
		it->code = m->fallback;
	} else {
		j->ctx_unknown += count;
	}
}

/* A thread from the job's switch timeline: its process too, which the
 * records name (the trace gives a thread id only). */
static void sy_job_process(const struct sy_job *j, struct sy_stretcher *st,
			   uint32_t tid)
{
	uint32_t pid;

	if (sy_switches_pid(&j->threads, tid, &pid))
		sy_stretcher_pid(st, pid);
}

/* The end of the data: a piece that got to its seam with a stretch
 * running leaves it to the next piece (SY_SF_SEAM). */
static int sy_seam_finish(struct sy_job *j, const struct sy_decoder *d,
			  struct sy_stretcher *st)
{
	struct sy_dec_seam sm = { 0 };
	int running = st->open;
	int err = sy_stretcher_finish(st);

	if (err || j->seam_sync == SY_DEC_NO_SEAM ||
	    sy_decoder_seam(d, &sm) || !sm.reached)
		return err;
	j->seam_reached = 1;
	if (running && st->nr)
		st->v[st->nr - 1].flags |= SY_SF_SEAM;
	return 0;
}

/* The head of a piece after a seam, being dropped. */
struct sy_head {
	uint64_t first;		/* offset of its first START or ERROR */
	int error;		/* that was an ERROR */
};

/* The join rule of pieces cut at a seam (sy_decode.h): the piece after
 * drops its items up to its first START or ERROR and the ones right behind
 * it from earlier bytes; then its flow goes on with the stretch the piece
 * before left running.  After an ERROR (the code there cannot be read)
 * no flow goes on: the decode of the whole stream meets the same error
 * there, which ends its stretch, and the piece before ends with it.  A
 * context the head names is the thread running there, which the whole
 * decode knows from before (it names it only when it changes): the
 * stretcher takes it, as state, and the piece before counts it.  Returns
 * 1 to drop @it, 0 to keep it, or an error. */
static int sy_drop_head(struct sy_job *j, struct sy_stretcher *st,
			const struct sy_jobmem *m, struct sy_dec_item *it,
			struct sy_head *h)
{
	if (h->first == UINT64_MAX) {
		if (it->kind == SY_DEC_CONTEXT) {
			sy_job_context(j, m, it, 0);
			sy_stretcher_context(st, it->code);
		}
		if (it->kind == SY_DEC_START || it->kind == SY_DEC_ERROR) {
			h->first = it->offset;
			h->error = it->kind == SY_DEC_ERROR;
		}
		return 1;
	}
	if (it->offset < h->first)
		return 1;
	j->drop_head = 0;
	return h->error ? 0 : sy_stretcher_continue(st, h->first);
}

static int sy_decode_item(const struct sy_jobs *js, struct sy_job *j,
			  struct sy_stretcher *st, const struct sy_jobmem *m,
			  struct sy_dec_item *it, struct sy_head *head);

/* --items: the branches of a SY_DEC_BRANCHES item one by one, each with
 * its line; the job's limit, if the run reaches it, after the last (the
 * run is taken whole, as without --items). */
static int sy_decode_run_items(const struct sy_jobs *js, struct sy_job *j,
			       struct sy_stretcher *st,
			       const struct sy_jobmem *m,
			       const struct sy_dec_item *it,
			       struct sy_head *head)
{
	int r = 0;

	for (uint32_t i = 0; i < it->code && r >= 0; i++) {
		struct sy_dec_item b;

		sy_dec_run_branch(it, i, &b);
		r = sy_decode_item(js, j, st, m, &b, head);
	}
	return r;
}

/* One item of the decode loop; 1 when it is the last the job takes (the
 * item at its limit), else 0 or an error. */
static int sy_decode_item(const struct sy_jobs *js, struct sy_job *j,
			  struct sy_stretcher *st, const struct sy_jobmem *m,
			  struct sy_dec_item *it, struct sy_head *head)
{
	int err, r;

	if (js->items && it->kind == SY_DEC_BRANCHES)
		return sy_decode_run_items(js, j, st, m, it, head);
	if (j->drop_head && (r = sy_drop_head(j, st, m, it, head)))
		return r < 0 ? r : 0;
	if (j->ext_from && it->kind == SY_DEC_TIME &&
	    it->offset >= j->ext_from && !st->open)
		return 0;
	/* a thread the switch records named is one the recording knows,
	 * whether it mapped code or not */
	if (it->kind == SY_DEC_CONTEXT && !j->threads.nr)
		sy_job_context(j, m, it, 1);
	/* items kept as text only with --items: not even a call on the
	 * per-branch path otherwise (its frame is half a KiB) */
	if ((js->items && (err = sy_item_keep(js, j, st, it, 0))) ||
	    (err = sy_stretcher_push_hot(st, it)) ||
	    (js->items && (err = sy_item_keep(js, j, st, it, 1))))
		return err;
	if (it->kind == SY_DEC_CONTEXT && j->threads.nr)
		sy_job_process(j, st, it->code);
	return j->has_limit && it->offset >= j->limit;
}

/* The decode loop: items of @d into @st until the data ends, or until the
 * item at the job's limit.  Items are taken in place, as many as lie
 * together in the decoder (sy_decoder_peek). */
static int sy_decode_loop(const struct sy_jobs *js, struct sy_job *j,
			  struct sy_decoder *d, struct sy_stretcher *st,
			  const struct sy_jobmem *m, void *extra, int early)
{
	struct sy_dec_item *v;
	struct sy_head head = { UINT64_MAX, 0 };
	size_t n, k, closed = 0;
	int err = 0, r = 0;

	if (j->fresh) {
		sy_stretcher_reset(st);
		sy_decoder_set_context(d, j->ctxid);
		if (j->dp->kind == SY_TRACE_ETM)
			sy_decoder_set_seam(d, j->seam_sync);
		err = sy_decoder_reset(d, j->chunks, j->nr_chunks,
				       j->report_from);
	}
	while (!err && !r && (err = sy_decoder_peek(d, &v, &n)) == 0) {
		for (k = 0; k < n && !r;) {
			r = sy_decode_item(js, j, st, m, &v[k++], &head);
			/* while their branches are in this core's cache */
			if (early && st->nr != closed &&
			    js->extra.finish_closed) {
				closed = st->nr;
				js->extra.finish_closed(extra, j, st->v,
							closed);
			}
		}
		sy_decoder_advance(d, k);
		if (r < 0)
			err = r;
	}
	if (err == -SY_E_EOS)
		err = sy_seam_finish(j, d, st);
	return err;
}

/* --- code replaced while a job's trace ran (ETM) ---------------------------
 *
 * An ETM job reads code in the snapshot of its cut (sy_code_at_fn says why
 * it cannot switch on the way, as PT does).  When the process whose code a
 * stretch ran replaced that code after the stretch and before the cut (a
 * dlclose and a dlopen at the same address, an exec: maptl.h), the job is
 * decoded again in the snapshot before the replacement, and the stretches
 * that ran then are taken from that decode instead, the others kept: a
 * stretch belongs to the snapshot of its last timestamp (one without a
 * timestamp to the stretch before it), whichever decode made it.  One that
 * spans a replacement of its process has no one snapshot and keeps the
 * cut's.  Such jobs are rare; the others cost a look at the timeline. */

/* Whether @j can hold such a stretch: an ETM job of its own (a stream's
 * decoder state cannot be run twice) with a replacement after its start. */
static int sy_job_may_redecode(const struct sy_job *j)
{
	const struct sy_maptl *tl = &j->maps;

	return !j->stream && j->dp->kind == SY_TRACE_ETM && j->tc.valid &&
	       tl->nr && tl->v[tl->nr - 1].time > j->t_start;
}

/* The snapshot timed stretch @s of @j ran in: NULL for the job's own, or
 * when no one is (it spans a replacement of its process). */
static struct sy_proc_snap *sy_job_stretch_snap(const struct sy_job *j,
						const struct sy_stretch *s)
{
	const struct sy_maptl *tl = &j->maps;
	const struct sy_aspace *as;
	uint64_t t0, t1;
	int after = 0;

	t0 = sy_timeconv_to_perf(&j->tc, s->t0);
	t1 = sy_timeconv_to_perf(&j->tc, s->t1);
	as = sy_proc_snap_aspace(j->snap, s->has_ctx ? s->ctxid : j->ctxid);
	for (size_t i = 0; i < tl->nr; i++) {
		const struct sy_maptl_entry *e = &tl->v[i];

		if (e->time <= t0)
			continue;
		/* another process's code (the kernel's is everyone's) */
		if (e->pid != UINT32_MAX &&
		    (!as || sy_proc_snap_aspace(j->snap, e->pid) != as))
			continue;
		if (e->time <= t1)
			return NULL;
		after = 1;
	}
	return after ? sy_maptl_at(tl, t1) : NULL;
}

/* The snapshot of each of @n stretches @v (see above) into @out. */
static void sy_job_classify(const struct sy_job *j,
			    const struct sy_stretch *v, size_t n,
			    struct sy_proc_snap **out)
{
	struct sy_proc_snap *cur = NULL;

	for (size_t i = 0; i < n; i++) {
		if (v[i].has_time)
			cur = sy_job_stretch_snap(j, &v[i]);
		out[i] = cur;
	}
}

/* @st's stretches of @snap (classes @cs) give way to @again's (classes
 * @ca), in the order of their offsets.  Returns 0 or -SY_E_NOMEM (@st as
 * it was). */
static int sy_job_merge(struct sy_stretcher *st,
			struct sy_proc_snap *const *cs,
			struct sy_stretcher *again,
			struct sy_proc_snap *const *ca,
			const struct sy_proc_snap *snap)
{
	size_t cap = st->nr + again->nr + 1, n = 0, a = 0, b = 0;
	struct sy_stretch *v = calloc(cap, sizeof(*v));

	if (!v)
		return -SY_E_NOMEM;
	while (a < st->nr || b < again->nr) {
		if (a < st->nr && cs[a] == snap) {
			sy_stretch_release(&st->v[a++]);
		} else if (b < again->nr && ca[b] != snap) {
			b++;
		} else if (b == again->nr ||
			   (a < st->nr && st->v[a].off0 <= again->v[b].off0)) {
			v[n++] = st->v[a++];
		} else {
			v[n++] = again->v[b];
			sy_stretch_moved(&again->v[b++]);
		}
	}
	free(st->v);
	st->v = v;
	st->nr = n;
	st->cap = cap;
	return 0;
}

/* Decodes @j again in each snapshot one of its stretches ran in (above).
 * A decode that fails, or finds no stretch of it, changes nothing. */
static int sy_job_redecode(struct sy_wctx *c, struct sy_job *j,
			   struct sy_decoder *d, struct sy_stretcher *st,
			   struct sy_jobmem *m, int drop_head)
{
	struct sy_proc_snap *want[SY_MAPTL_MAX];
	struct sy_proc_snap **cs = NULL, **ca = NULL;
	/* what a decode sets in the job: the first decode's stands */
	const int kept_drop = j->drop_head, kept_seam = j->seam_reached;
	const uint64_t kept_remap = j->ctx_remapped, kept_unk = j->ctx_unknown;
	const uint32_t kept_ex = j->ctx_example;
	size_t nw = 0, k;
	int err = 0;

	if (!(cs = calloc(st->nr + 1, sizeof(*cs))))
		return -SY_E_NOMEM;
	sy_job_classify(j, st->v, st->nr, cs);
	for (size_t i = 0; i < st->nr; i++) {
		for (k = 0; cs[i] && k < nw && want[k] != cs[i]; k++)
			;
		if (cs[i] && k == nw && nw < SY_MAPTL_MAX)
			want[nw++] = cs[i];
	}
	for (k = 0; k < nw && !err; k++) {
		struct sy_stretcher again;

		sy_stretcher_init(&again, st->depth);
		m->snap = want[k];
		sy_mem_reader_switch(m->mr, want[k]);
		/* the first decode dropped the head after a seam: again */
		j->drop_head = drop_head;
		if (!sy_decode_loop(c->js, j, d, &again, m, c->extra, 0) &&
		    (ca = calloc(again.nr + 1, sizeof(*ca)))) {
			j->decoded_again++;
			sy_job_classify(j, again.v, again.nr, ca);
			sy_job_classify(j, st->v, st->nr, cs);
			err = sy_job_merge(st, cs, &again, ca, want[k]);
			free(ca);
			ca = NULL;
			/* for the next merge: the list may be longer */
			if (!err) {
				free(cs);
				cs = calloc(st->nr + 1, sizeof(*cs));
				err = cs ? 0 : -SY_E_NOMEM;
			}
		}
		sy_stretcher_fini(&again);
	}
	free(cs);
	if (nw) {
		m->snap = j->snap;
		sy_mem_reader_switch(m->mr, j->snap);
	}
	j->drop_head = kept_drop;
	j->seam_reached = kept_seam;
	j->ctx_remapped = kept_remap;
	j->ctx_unknown = kept_unk;
	j->ctx_example = kept_ex;
	return err;
}

/* A fresh PT job of several chunks: libipt wants one buffer, and the
 * decoder would copy the chunks into its own from the mapping, a page
 * fault and a TLB miss for each (they are a few hundred bytes each, a
 * record's worth of samples apart).  Read from the page cache with
 * pread into the worker's buffer instead: @one is then the job's one
 * chunk.  0 when the job keeps its chunks (a memory reader, one chunk,
 * ETM, whose decoder takes chunks as they are, or a failed read: the
 * mapping still has the bytes). */
static int sy_job_gather(struct sy_wctx *c, const struct sy_job *j,
			 struct sy_dec_chunk *one)
{
	size_t i, len = 0;

	if (j->stream || !j->fresh || j->nr_chunks < 2 || !j->src ||
	    j->dp->kind != SY_TRACE_PT || !sy_perf_bytes_droppable(j->src))
		return 0;
	for (i = 0; i < j->nr_chunks; i++) {
		if (j->chunks[i].len > SIZE_MAX - len)
			return 0;
		len += j->chunks[i].len;
	}
	if (len > c->gcap) {
		uint8_t *p = realloc(c->gbuf, len);

		if (!p)
			return 0;
		c->gbuf = p;
		c->gcap = len;
	}
	len = 0;
	for (i = 0; i < j->nr_chunks; i++) {
		if (sy_perf_read_at(j->src, j->chunks[i].data,
				    j->chunks[i].len, c->gbuf + len))
			return 0;
		len += j->chunks[i].len;
	}
	one->data = c->gbuf;
	one->len = len;
	return 1;
}

static void sy_job_run(void *ctx, struct sy_work *work)
{
	struct sy_job *j = (struct sy_job *)work;
	struct sy_wctx *c = ctx;
	struct sy_decstate *ds = j->stream;
	struct sy_jobmem *m = &c->mem;
	struct sy_stretcher *st = &c->st;
	struct sy_dec_stats zero = { 0 };
	const struct sy_dec_stats *prev = &zero;
	struct sy_dec_chunk one;
	struct sy_decoder *d;
	int again, drop_head;

	if (ds) {
		sy_decstate_enter(ds, j->seq);
		if ((j->err = sy_decstate_ready(ds, c->js->images, j->dp))) {
			sy_decstate_leave(ds);
			return;
		}
		d = ds->d;
		m = &ds->mem;
		st = &ds->st;
		if (j->fresh)
			memset(&ds->prev, 0, sizeof(ds->prev));
		prev = &ds->prev;
	} else {
		d = sy_wctx_decoder(c, j->dp, &j->err);
		if (!d)
			return;
		sy_stretcher_reset(st);
	}
	m->snap = j->snap;
	m->own = j->snap;
	m->maps = &j->maps;
	m->t_start = j->t_start;
	m->has_fallback = j->has_fallback;
	m->fallback = j->fallback_tid;
	m->threads = &j->threads;
	m->tc = &j->tc;
	sy_mem_reader_begin(m->mr, j->snap);
	again = sy_job_may_redecode(j);
	drop_head = j->drop_head;
	/* a stretch taken from another decode is finished with the job */
	if (sy_job_gather(c, j, &one)) {
		struct sy_dec_chunk *chunks = j->chunks;
		size_t nr = j->nr_chunks;

		j->chunks = &one;
		j->nr_chunks = 1;
		j->err = sy_decode_loop(c->js, j, d, st, m, c->extra, !again);
		j->chunks = chunks;
		j->nr_chunks = nr;
	} else {
		j->err = sy_decode_loop(c->js, j, d, st, m, c->extra, !again);
	}
	sy_stats_sub(&j->stats, sy_decoder_stats(d), prev);
	if (!j->err && again)
		j->err = sy_job_redecode(c, j, d, st, m, drop_head);
	sy_mem_reader_end(m->mr);
	m->snap = NULL;
	m->own = NULL;
	m->maps = NULL;
	m->threads = NULL;
	m->tc = NULL;
	j->st = sy_stretcher_take(st, &j->nr_st);
	/* item offsets count from the job's first byte: make them AUX
	 * offsets, so that a window decoded in two pieces has a length and
	 * an error is where it is in the trace, however it was cut */
	for (size_t i = 0; i < j->nr_st; i++) {
		j->st[i].off0 += j->aux_lo;
		j->st[i].off1 += j->aux_lo;
		j->st[i].first_error_off += j->aux_lo;
	}
	if (c->js->extra.finish)
		c->js->extra.finish(c->extra, j);
	if (ds) {
		ds->prev = *sy_decoder_stats(d);
		sy_decstate_leave(ds);
	}
}

struct sy_proc_snap *sy_job_snap_at(const struct sy_job *j,
				    const struct sy_stretch *st)
{
	struct sy_proc_snap *was = NULL;

	if (st->has_time && j->tc.valid && j->maps.nr)
		was = sy_maptl_at(&j->maps,
				  sy_timeconv_to_perf(&j->tc, st->t1));
	return was ? was : j->snap;
}

/* --- the queue of jobs ---------------------------------------------------- */

/* Jobs' worth of trace in flight per worker thread: enough to keep each
 * busy while the walk collects. */
#define SY_BYTES_PER_THREAD 2

int sy_jobs_init(struct sy_jobs *js, unsigned threads,
		 struct sy_image_cache *images, uint32_t depth, int items,
		 uint64_t job_bytes, const struct sy_jobs_extra *extra)
{
	int err;

	memset(js, 0, sizeof(*js));
	if (extra)
		js->extra = *extra;
	js->images = images;
	js->depth = depth;
	js->items = items;
	js->limit = (threads > 1 ? threads : 1) * SY_INFLIGHT_PER_THREAD;
	js->bytes_limit = (threads > 1 ? threads : 1) * SY_BYTES_PER_THREAD *
			  job_bytes;
	/* the walk's thread is one of @threads: it decodes while it waits
	 * (sy_pool_wait), so N threads keep N cores busy, no more (a third
	 * thread on two cores took the malloc arenas' locks in turn with
	 * the decoders, and the resident size grew) */
	err = sy_pool_init(&js->pool, threads > 1 ? threads - 1 : 0,
			   sy_wctx_new, sy_wctx_free, js);
	if (err)
		return err;
	js->up = 1;
	return 0;
}

void sy_jobs_fini(struct sy_jobs *js)
{
	if (js->up)
		sy_pool_fini(&js->pool);
	js->up = 0;
}

void sy_jobs_submit(struct sy_jobs *js, struct sy_job *j)
{
	j->work.run = sy_job_run;
	j->next = NULL;
	if (js->tail)
		js->tail->next = j;
	else
		js->head = j;
	js->tail = j;
	js->inflight++;
	js->bytes_inflight += j->bytes;
	sy_pool_submit(&js->pool, &j->work);
}

struct sy_job *sy_jobs_pop(struct sy_jobs *js, int block)
{
	struct sy_job *j = js->head;

	if (!j)
		return NULL;
	if (js->up) {
		if (block)
			sy_pool_wait(&js->pool, &j->work);
		else if (!sy_pool_poll(&js->pool, &j->work))
			return NULL;
	}
	js->head = j->next;
	if (!js->head)
		js->tail = NULL;
	js->inflight--;
	js->bytes_inflight -= j->bytes;
	return j;
}

void sy_jobs_submit_work(struct sy_jobs *js, struct sy_work *w)
{
	sy_pool_submit_urgent(&js->pool, w);
}

void *sy_jobs_extra_ctx(void *thread_ctx)
{
	return ((struct sy_wctx *)thread_ctx)->extra;
}

int sy_jobs_work_done(struct sy_jobs *js, struct sy_work *w, int block)
{
	if (!block)
		return sy_pool_poll(&js->pool, w);
	sy_pool_wait(&js->pool, w);
	return 1;
}

int sy_jobs_full(const struct sy_jobs *js)
{
	return js->inflight > js->limit ||
	       (js->bytes_limit && js->bytes_inflight > js->bytes_limit);
}

void sy_job_release(struct sy_job *j)
{
	if (!j)
		return;
	if (j->own_chunks)
		free(j->chunks);
	j->chunks = NULL;
	sy_stretch_free_all(j->st, j->nr_st);
	j->st = NULL;
	j->nr_st = 0;
	sy_proc_snap_put(j->snap);
	j->snap = NULL;
	sy_maptl_fini(&j->maps);
	sy_switches_fini(&j->threads);
}
