/* What the windows need before the main walk: the roles of the events, the
 * trace configuration, and where every queue's AUX bytes are.
 *
 * A CoreSight AUX record can come long before the AUXTRACE payload holding
 * its bytes (perf drains the AUX ring when it gets round to it), so one
 * cheap walk over the records first lets every window be decoded the
 * moment its pause sample is seen. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "decparams.h"
#include "session.h"
#include "sy_perf_event.h"
#include "sy_vec.h"

/* sy_synth_config.unit_bytes: pieces small enough that what is in flight
 * stays small on dense trace, large enough that a piece's start (a sync,
 * a seam) costs nothing */
#define SY_UNIT_BYTES_DEFAULT (128u << 10)

/* What the prepass walk collects before the queues can be set up. */
struct sy_prewalk {
	struct sy_rawaux {
		uint32_t cpu, tid;
		struct sy_auxrec r;
	} *aux;
	size_t nr_aux, cap_aux;
	struct sy_hwids hw;
	/* THROTTLE / UNTHROTTLE records, whose event's role is known only
	 * after the walk */
	struct sy_rawthr {
		uint32_t attr, cpu;
		uint64_t time;
		int lift;	/* UNTHROTTLE */
	} *thr;
	size_t nr_thr, cap_thr;
	uint64_t cpuid[3];	/* PT: family, model, stepping */
	int saw_buf;
	int info_err;
};

/* Roles come from aux_action only, never from event names. */
static int sy_roles(struct sy_session *s, uint32_t pmu_type)
{
	const struct sy_perf_reader *r = s->in.r;
	uint32_t n = sy_perf_nr_attrs(r);
	int has_resume = 0;
	uint64_t pause_cfg = 0, resume_cfg = 0;
	uint32_t pause_type = 0, resume_type = 0;
	const struct sy_perf_attr *pause = NULL, *resume = NULL;

	free(s->roles.attr_role);
	s->roles.attr_role = calloc(n ? n : 1, 1);
	if (!s->roles.attr_role)
		return -SY_E_NOMEM;
	s->roles.nr_roles = n;
	for (uint32_t i = 0; i < n; i++) {
		const struct sy_perf_attr *a = sy_perf_attr(r, i);

		if ((a->aux_action & SY_AUX_ACTION_START_PAUSED) ||
		    (pmu_type && a->type == pmu_type))
			s->roles.attr_role[i] |= SY_ROLE_TRACE;
		if (a->aux_action & SY_AUX_ACTION_START_PAUSED)
			s->cfg.start_paused = 1;
		if (a->aux_action &
		    (SY_AUX_ACTION_PAUSE | SY_AUX_ACTION_PAUSE_ARMED)) {
			s->roles.attr_role[i] |= SY_ROLE_PAUSE;
			pause = a;
			s->sum.pause_period = a->sample_period;
			s->sum.periods_freq |= sy_attr_flag(a, SY_ATTR_FLAG_FREQ);
			pause_type = a->type;
			pause_cfg = a->config;
			s->roles.any_pause_attr = 1;
		}
		if (a->aux_action & SY_AUX_ACTION_RESUME) {
			s->roles.attr_role[i] |= SY_ROLE_RESUME;
			resume = a;
			s->sum.resume_period = a->sample_period;
			s->sum.periods_freq |= sy_attr_flag(a, SY_ATTR_FLAG_FREQ);
			resume_type = a->type;
			resume_cfg = a->config;
			has_resume = 1;
		}
		if (a->sample_type & SY_SAMPLE_CALLCHAIN)
			s->roles.attr_role[i] |= SY_ROLE_CALLCHAIN;
	}
	if (has_resume && s->roles.any_pause_attr)
		s->sum.same_event = pause_type == resume_type &&
				    pause_cfg == resume_cfg;
	s->sum.design = sy_design_of(pause, resume, &s->sum.design_window);
	/* PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS: a window of the
	 * RFC's designs holds design_window instructions (up to skid) */
	s->sum.pause_counts_insns = pause && pause->type == 0 &&
				    pause->config == 1;
	return 0;
}

/* "GenuineIntel,6,78,3": family, model, stepping. */
static int sy_cpuid_parse(const struct sy_session *s, uint64_t cpuid[3])
{
	const char *c = sy_perf_features(s->in.r)->cpuid;
	unsigned f = 0, m = 0, st = 0;

	if (c && sscanf(c, "%*[^,],%u,%u,%u", &f, &m, &st) >= 2) {
		cpuid[0] = f;
		cpuid[1] = m;
		cpuid[2] = st;
		return 1;
	}
	return 0;
}

static int sy_pre_auxtrace(struct sy_session *s, struct sy_prewalk *pw,
			   const struct sy_record *rec,
			   const struct sy_ev_auxtrace *at)
{
	struct sy_queue *q;
	uint64_t size = at->size;

	if (!pw->saw_buf++)
		s->cfg.per_thread = at->cpu == (uint32_t)-1;
	if (size > rec->aux_size)
		size = rec->aux_size;
	q = sy_session_queue(s, sy_queue_key(&s->cfg, at->cpu, at->tid), 1);
	if (!q)
		return -SY_E_NOMEM;
	if (s->cfg.per_thread)
		q->cpu = (uint32_t)-1;
	return sy_auxmap_add_buf(&q->aux, at->offset, size,
				 rec->aux_file_offset);
}

static void sy_pre_time_conv(struct sy_session *s,
			     const struct sy_ev_time_conv *tc)
{
	struct sy_timeconv *c = &s->cfg.tc;

	c->valid = 1;
	c->shift = tc->time_shift;
	c->mult = tc->time_mult;
	c->zero = tc->time_zero;
	if (tc->has_ext && tc->cap_user_time_short) {
		c->cap_short = 1;
		c->cycles = tc->time_cycles;
		c->mask = tc->time_mask;
	}
}

static int sy_pre_aux(struct sy_prewalk *pw, const struct sy_record *rec,
		      const struct sy_event *ev)
{
	struct sy_rawaux *a;

	if (sy_grow((void **)&pw->aux, &pw->cap_aux, pw->nr_aux,
		    sizeof(*pw->aux)))
		return -SY_E_NOMEM;
	a = &pw->aux[pw->nr_aux++];
	a->cpu = ev->sid.cpu;
	a->tid = ev->sid.tid;
	a->r.aux_off = ev->u.aux.aux_offset;
	a->r.size = ev->u.aux.aux_size;
	a->r.flags = ev->u.aux.flags;
	a->r.time = ev->sid.time;
	a->r.rec_off = rec->offset;
	return 0;
}

static int sy_pre_throttle(struct sy_prewalk *pw, const struct sy_record *rec,
			   const struct sy_event *ev)
{
	struct sy_rawthr *t;

	if (!rec->attr)
		return 0;
	if (sy_grow((void **)&pw->thr, &pw->cap_thr, pw->nr_thr,
		    sizeof(*pw->thr)))
		return -SY_E_NOMEM;
	t = &pw->thr[pw->nr_thr++];
	t->attr = rec->attr->index;
	t->cpu = ev->has_sid && (rec->attr->sample_type & SY_SAMPLE_CPU) ?
			 ev->sid.cpu : UINT32_MAX;
	t->time = ev->u.throttle.time;
	t->lift = rec->type == SY_REC_UNTHROTTLE;
	return 0;
}

static int sy_thr_cmp(const void *a, const void *b)
{
	const struct sy_throttle *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The stretches in which a pause event was throttled, per CPU: from a
 * THROTTLE to the next UNTHROTTLE of that CPU (or the end), sorted by CPU
 * and start for sy_summary_throttled.  Per thread the event follows the
 * thread: the stretch holds on every CPU.  Open stretches are few (one
 * per CPU at most): a short list of their indices. */
static int sy_pre_throttles(struct sy_session *s, const struct sy_prewalk *pw)
{
	struct sy_throttle *v = NULL;
	size_t *open = NULL, n = 0, cap = 0, nopen = 0, capopen = 0;
	int err = 0;

	for (size_t i = 0; i < pw->nr_thr && !err; i++) {
		const struct sy_rawthr *r = &pw->thr[i];
		uint32_t cpu = s->cfg.per_thread ? UINT32_MAX : r->cpu;
		size_t k = 0;

		if (r->attr >= s->roles.nr_roles ||
		    !(s->roles.attr_role[r->attr] & SY_ROLE_PAUSE))
			continue;
		while (k < nopen && v[open[k]].cpu != cpu)
			k++;
		if (r->lift) {
			if (k < nopen) {
				v[open[k]].end = r->time;
				open[k] = open[--nopen];
			}
			continue;
		}
		if (k < nopen)
			continue;	/* throttled already */
		if (sy_grow((void **)&v, &cap, n, sizeof(*v)) ||
		    sy_grow((void **)&open, &capopen, nopen, sizeof(*open))) {
			err = -SY_E_NOMEM;
			break;
		}
		v[n].cpu = cpu;
		v[n].start = r->time;
		v[n].end = UINT64_MAX;
		open[nopen++] = n++;
	}
	free(open);
	if (err) {
		free(v);
		return err;
	}
	if (n)
		qsort(v, n, sizeof(*v), sy_thr_cmp);
	s->sum.throttles = v;
	s->sum.nr_throttles = n;
	return 0;
}

/* Which thread ran on the sample's CPU (sy_session_model.cpu_proc). */
static int sy_pre_sample(struct sy_session *s, const struct sy_record *rec)
{
	struct sy_sample sm;
	struct sy_cpu_proc *cp;

	if (!rec->attr || !(rec->attr->sample_type & SY_SAMPLE_TID) ||
	    !(rec->attr->sample_type & SY_SAMPLE_CPU) ||
	    sy_sample_parse(rec->attr, rec->data, rec->size, &sm, NULL,
			    rec->offset) ||
	    !sm.pid || sm.pid == UINT32_MAX || sm.cpu >= 4096)
		return 0;
	if (sm.cpu >= s->model.nr_cpu_proc) {
		uint32_t n = sm.cpu + 1;

		cp = realloc(s->model.cpu_proc, n * sizeof(*cp));
		if (!cp)
			return -SY_E_NOMEM;
		memset(cp + s->model.nr_cpu_proc, 0,
		       (n - s->model.nr_cpu_proc) * sizeof(*cp));
		s->model.cpu_proc = cp;
		s->model.nr_cpu_proc = n;
	}
	cp = &s->model.cpu_proc[sm.cpu];
	if (!cp->pid) {
		cp->pid = sm.pid;
		cp->tid = sm.tid;
	} else if (cp->pid != sm.pid || cp->tid != sm.tid) {
		cp->pid = UINT32_MAX;
	}
	return 0;
}

/* One record of the prepass walk. */
static int sy_pre_record(struct sy_session *s, struct sy_prewalk *pw,
			 const struct sy_record *rec)
{
	struct sy_event ev;
	struct sy_diag d = { 0 };

	switch (rec->type) {
	case SY_REC_AUXTRACE_INFO:
		if (s->in.has_info || pw->info_err)
			return 0;
		if (sy_event_parse(rec, &ev, &d) ||
		    sy_auxtrace_info_parse(&s->in.info, &ev.u.auxtrace_info,
					   rec->offset, &d)) {
			sy_warn(&s->warn, d.err ? d.err : -SY_E_BAD_AUXINFO,
				d.offset, "%s", d.msg);
			pw->info_err = 1;
			return 0;
		}
		s->in.has_info = 1;
		return 0;
	case SY_REC_AUXTRACE:
		if (sy_event_parse(rec, &ev, &d))
			return 0;
		return sy_pre_auxtrace(s, pw, rec, &ev.u.auxtrace);
	case SY_REC_TIME_CONV:
		if (!sy_event_parse(rec, &ev, &d))
			sy_pre_time_conv(s, &ev.u.time_conv);
		return 0;
	case SY_REC_AUX_OUTPUT_HW_ID:
		if (sy_event_parse(rec, &ev, &d) || !ev.has_sid)
			return 0;
		if (ev.sid.cpu < sizeof(pw->hw.id))
			pw->hw.id[ev.sid.cpu] = (uint8_t)(ev.u.hw_id.hw_id & 0x7f);
		return 0;
	case SY_REC_AUX:
		if (sy_event_parse(rec, &ev, &d) || !ev.has_sid)
			return 0;
		return sy_pre_aux(pw, rec, &ev);
	case SY_REC_THROTTLE:
	case SY_REC_UNTHROTTLE:
		if (sy_event_parse(rec, &ev, &d))
			return 0;
		return sy_pre_throttle(pw, rec, &ev);
	case SY_REC_FINISHED_ROUND:
		s->in.rounds++;
		return 0;
	default:
		return 0;
	}
}

/* The trace kind from AUXTRACE_INFO; *@pmu_type: the trace PMU's type. */
static int sy_pre_kind(struct sy_session *s, struct sy_prewalk *pw,
		       uint32_t *pmu_type)
{
	if (!s->in.has_info)
		return sy_diag_set_nooff(&s->diag, -SY_E_UNSUPPORTED,
					 "no AUXTRACE_INFO record: the file "
					 "holds no hardware trace");
	if (s->in.info.type == SY_AUXTRACE_CS_ETM) {
		s->cfg.kind = SY_TRACE_ETM;
		s->sum.trace = "cs_etm";
		*pmu_type = s->in.info.u.etm.pmu_type;
		return 0;
	}
	if (s->in.info.type == SY_AUXTRACE_INTEL_PT) {
		struct sy_timeconv *tc = &s->cfg.tc;

		s->cfg.kind = SY_TRACE_PT;
		s->sum.trace = "intel_pt";
		*pmu_type = (uint32_t)s->in.info.u.pt.f[SY_PT_PMU_TYPE];
		tc->valid = 1;
		tc->shift = s->in.info.u.pt.f[SY_PT_TIME_SHIFT];
		tc->mult = s->in.info.u.pt.f[SY_PT_TIME_MULT];
		tc->zero = s->in.info.u.pt.f[SY_PT_TIME_ZERO];
		tc->cap_short = 0;
		if (!sy_cpuid_parse(s, pw->cpuid))
			sy_warn(&s->warn, 0, 0,
				"no CPUID feature: decoding Intel PT without "
				"CPU errata");
		return 0;
	}
	return sy_diag_set_nooff(&s->diag, -SY_E_UNSUPPORTED,
				 "%s trace is not decoded by this tool "
				 "(cs_etm and intel_pt are)",
				 sy_auxtrace_type_name(s->in.info.type));
}

/* The AUX records into their queues' maps, in file order. */
static int sy_pre_queue_recs(struct sy_session *s, struct sy_prewalk *pw)
{
	for (size_t i = 0; i < pw->nr_aux; i++) {
		const struct sy_rawaux *a = &pw->aux[i];
		struct sy_queue *q = sy_session_queue(
			s, sy_queue_key(&s->cfg, a->cpu, a->tid), 1);

		if (!q)
			return -SY_E_NOMEM;
		if (s->cfg.per_thread)
			q->cpu = (uint32_t)-1;
		if (a->r.flags & SY_AUX_FLAG_CORESIGHT_RAW)
			q->aux.raw = 1;
		if (!a->r.size)
			continue; /* flags only (truncation seen later) */
		if (a->r.aux_off + a->r.size < a->r.aux_off) {
			sy_warn(&s->warn, -SY_E_BAD_RECORD, a->r.rec_off,
				"AUX record: offset %#" PRIx64 " + size "
				"%#" PRIx64 " wraps around; ignored",
				a->r.aux_off, a->r.size);
			continue;
		}
		if (sy_auxmap_add_rec(&q->aux, &a->r))
			return -SY_E_NOMEM;
	}
	return 0;
}

/* The trace event's attr (PT: its config has the MTC frequency). */
static const struct sy_perf_attr *sy_trace_attr(const struct sy_session *s)
{
	const struct sy_perf_attr *ta = NULL;

	for (uint32_t i = 0; i < s->roles.nr_roles; i++)
		if (s->roles.attr_role[i] & SY_ROLE_TRACE)
			ta = sy_perf_attr(s->in.r, i);
	return ta;
}

/* Decoder parameters and stream units of every queue. */
static int sy_pre_setup_queues(struct sy_session *s, const struct sy_prewalk *pw)
{
	int err;

	for (size_t i = 0; i < s->queues.nr; i++) {
		struct sy_queue *q = s->queues.v[i];

		sy_auxmap_sort(&q->aux);
		memset(&q->dp, 0, sizeof(q->dp));
		q->dp.kind = s->cfg.kind;
		q->dp.read_mem = sy_mem_read;
		if (s->cfg.kind == SY_TRACE_PT)
		{
			sy_decparams_pt(&q->dp, &s->in.info.u.pt, sy_trace_attr(s),
					pw->cpuid);
			/* --decoder: one choice for both traces */
			q->dp.u.pt.decoder =
				s->cfg.etm_decoder == SY_ETM_DECODER_FULL ?
					SY_PT_DECODER_FULL :
					SY_PT_DECODER_AUTO;
		}
		else if ((err = sy_decparams_etm(&q->dp, &q->sources,
						 &s->in.info.u.etm, &pw->hw,
						 q->cpu, q->aux.raw,
						 s->cfg.etm_decoder, &s->diag)))
			return err;
		/* each ETR fragment alone, as perf does, without pauses */
		err = sy_auxmap_plan_units(&q->aux, s->cfg.whole_trace &&
							    s->cfg.sink ==
								    SY_SINK_ETR);
		if (!err)
			err = sy_units_plan(&q->units, &q->aux, &s->cfg,
					    &q->dp, s->in.r);
		if (err)
			return err;
	}
	return 0;
}

static void sy_pre_sink(struct sy_session *s)
{
	int raw = 0;

	if (s->cfg.kind == SY_TRACE_PT) {
		s->cfg.sink = SY_SINK_PT;
		return;
	}
	for (size_t i = 0; i < s->queues.nr; i++)
		raw |= s->queues.v[i]->aux.raw;
	s->cfg.sink = raw ? SY_SINK_TRBE : SY_SINK_ETR;
}

/* A plain trace recording opened with SY_WHOLE_TRACE_AUTO: the whole
 * trace, from here on as if it had been asked for.  The queues the walk
 * made have no stretch yet: only their depth changes. */
static void sy_pre_whole(struct sy_session *s)
{
	s->o.whole_trace = 1;
	s->o.depth = s->o.whole_depth;
	s->cfg.whole_trace = 1;
	s->cfg.depth = s->o.depth;
	for (size_t i = 0; i < s->queues.nr; i++)
		sy_units_set_depth(&s->queues.v[i]->units, s->cfg.depth);
}

int sy_prepass(struct sy_session *s)
{
	struct sy_prewalk pw;
	struct sy_record rec;
	uint32_t pmu_type = 0;
	int err, perr = 0;

	memset(&pw, 0, sizeof(pw));
	if (!s->cfg.unit_bytes)
		s->cfg.unit_bytes = SY_UNIT_BYTES_DEFAULT;
	/* it keeps nothing of a record but what it copies out: read with
	 * pread, not faulted in (sy_perf_skim); a memory buffer is read in
	 * place */
	(void)sy_perf_skim(s->in.r, 1);
	/* roles after the walk: HEADER_ATTR records may add attrs in a pipe
	 * layout */
	while (!perr && (err = sy_perf_next(s->in.r, &rec)) == 0)
		perr = rec.type == SY_REC_SAMPLE ? sy_pre_sample(s, &rec) :
						   sy_pre_record(s, &pw, &rec);
	(void)sy_perf_skim(s->in.r, 0);
	if (perr) {
		err = perr;
		goto out;
	}
	/* damage ends this walk where it will end the main one: the windows
	 * before it are still worth converting */
	if (err != -SY_E_EOS)
		s->sum.input_error = err;
	if ((err = sy_pre_kind(s, &pw, &pmu_type)) ||
	    (err = sy_roles(s, pmu_type)) || (err = sy_pre_throttles(s, &pw)))
		goto out;
	if (s->o.whole_trace == SY_WHOLE_TRACE_AUTO && !s->roles.any_pause_attr)
		sy_pre_whole(s);
	if ((err = sy_pre_queue_recs(s, &pw)))
		goto out;
	sy_pre_sink(s);
	err = sy_pre_setup_queues(s, &pw);
	/* the progress line counts trace bytes decoded: a recording of a
	 * few huge AUXTRACE records moves through them, not its records */
	for (size_t i = 0; !err && i < s->queues.nr; i++)
		for (size_t k = 0; k < s->queues.v[i]->aux.nr_bufs; k++)
			s->aux_total += s->queues.v[i]->aux.bufs[k].size;
out:
	free(pw.aux);
	free(pw.thr);
	return err;
}
