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

#include "session.h"
#include "sy_bytes.h"
#include "sy_perf_event.h"

struct sy_rawaux {
	uint32_t cpu, tid;
	struct sy_auxrec r;
};

struct sy_queue *sy_queue_get(struct sy_session *s, uint32_t key, int create)
{
	size_t lo = 0, hi = s->nr_queues;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->queues[mid]->key == key)
			return s->queues[mid];
		if (s->queues[mid]->key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!create)
		return NULL;
	struct sy_queue *q = calloc(1, sizeof(*q));
	struct sy_queue **nq = realloc(s->queues,
				       (s->nr_queues + 1) * sizeof(*nq));
	if (!q || !nq) {
		free(q);
		if (nq)
			s->queues = nq;
		return NULL;
	}
	s->queues = nq;
	memmove(&s->queues[lo + 1], &s->queues[lo],
		(s->nr_queues - lo) * sizeof(*nq));
	s->queues[lo] = q;
	s->nr_queues++;
	q->key = key;
	q->cpu = key;
	return q;
}

void sy_queue_free(struct sy_queue *q)
{
	if (!q)
		return;
	free(q->bufs);
	free(q->recs);
	free(q->units);
	sy_units_free(q);
	free(q->sources);
	sy_match_free(q);
	free(q);
}

void sy_compact(void *v, size_t *pos, size_t *nr, size_t elem)
{
	if (*pos == *nr) {
		*pos = *nr = 0;
	} else if (*pos >= 256 && *pos * 2 >= *nr) {
		memmove(v, (char *)v + *pos * elem, (*nr - *pos) * elem);
		*nr -= *pos;
		*pos = 0;
	}
}

int sy_grow(void **v, size_t *cap, size_t nr, size_t elem)
{
	if (nr < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 16;
	void *n = realloc(*v, ncap * elem);

	if (!n)
		return -SY_E_NOMEM;
	*v = n;
	*cap = ncap;
	return 0;
}

/* perf pads every AUXTRACE payload to 8 bytes but starts the next one where
 * the data ended: where two payloads overlap, the later one holds the real
 * bytes and the earlier one padding. */
static uint64_t sy_buf_end(const struct sy_queue *q, size_t i)
{
	uint64_t end = q->bufs[i].aux_off + q->bufs[i].size;

	if (i + 1 < q->nr_bufs && q->bufs[i + 1].aux_off < end &&
	    q->bufs[i + 1].aux_off >= q->bufs[i].aux_off)
		end = q->bufs[i + 1].aux_off;
	return end;
}

/* The first buffer that may hold byte @a: the buffers are sorted by AUX
 * offset, and a file has one per AUXTRACE record (hundreds of thousands in
 * a long recording), so no scan from the start.  Steps back over earlier
 * buffers that still reach @a (overlapping payloads). */
size_t sy_queue_first_buf(const struct sy_queue *q, uint64_t a)
{
	size_t lo = 0, hi = q->nr_bufs;

	while (lo < hi) { /* first buffer starting after a */
		size_t mid = lo + (hi - lo) / 2;

		if (q->bufs[mid].aux_off <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		lo--;
	while (lo && q->bufs[lo - 1].aux_off + q->bufs[lo - 1].size > a)
		lo--;
	return lo;
}

int sy_queue_covered(const struct sy_queue *q, uint64_t a, uint64_t b)
{
	uint64_t at = a;

	for (size_t i = sy_queue_first_buf(q, a); i < q->nr_bufs && at < b;
	     i++) {
		const struct sy_auxbuf *bf = &q->bufs[i];
		uint64_t end = sy_buf_end(q, i);

		if (end <= at)
			continue;
		if (bf->aux_off > at)
			return 0;
		at = end;
	}
	return at >= b;
}

int sy_queue_chunks(struct sy_session *s, struct sy_queue *q, uint64_t a,
		    uint64_t b, struct sy_dec_chunk **out, int *lost)
{
	struct sy_dec_chunk *v = NULL;
	size_t nr = 0, cap = 0;
	uint64_t at = a;

	*out = NULL;
	for (size_t i = sy_queue_first_buf(q, a); i < q->nr_bufs && at < b;
	     i++) {
		const struct sy_auxbuf *bf = &q->bufs[i];
		uint64_t lo = bf->aux_off, hi = sy_buf_end(q, i);

		if (hi <= at || lo >= b)
			continue;
		if (lo > at)
			*lost = 1; /* a hole: a chunk never made it */
		if (lo < at)
			lo = at;
		if (hi > b)
			hi = b;
		const uint8_t *p = sy_perf_bytes(s->r, bf->file_off +
						       (lo - bf->aux_off),
						 hi - lo);
		if (!p) {
			*lost = 1;
			continue;
		}
		if (sy_grow((void **)&v, &cap, nr, sizeof(*v))) {
			free(v);
			return -SY_E_NOMEM;
		}
		v[nr].data = p;
		v[nr].len = (size_t)(hi - lo);
		nr++;
		at = hi;
	}
	if (at < b)
		*lost = 1;
	*out = v;
	return (int)nr;
}

static int sy_cmp_buf(const void *a, const void *b)
{
	const struct sy_auxbuf *x = a, *y = b;

	return x->aux_off < y->aux_off ? -1 : x->aux_off > y->aux_off;
}

static int sy_add_buf(struct sy_session *s, const struct sy_ev_auxtrace *at,
		      uint64_t file_off, int per_thread)
{
	uint32_t key = per_thread ? at->tid : at->cpu;
	struct sy_queue *q = sy_queue_get(s, key, 1);

	if (!q || sy_grow((void **)&q->bufs, &q->cap_bufs, q->nr_bufs,
			  sizeof(*q->bufs)))
		return -SY_E_NOMEM;
	q->bufs[q->nr_bufs].aux_off = at->offset;
	q->bufs[q->nr_bufs].size = at->size;
	q->bufs[q->nr_bufs].file_off = file_off;
	q->nr_bufs++;
	if (per_thread)
		q->cpu = (uint32_t)-1;
	return 0;
}

/* Roles come from aux_action only, never from event names. */
static int sy_roles(struct sy_session *s, uint32_t pmu_type)
{
	const struct sy_perf_reader *r = s->r;
	uint32_t n = sy_perf_nr_attrs(r);
	int has_resume = 0;
	uint64_t pause_cfg = 0, resume_cfg = 0;
	uint32_t pause_type = 0, resume_type = 0;

	free(s->attr_role);
	s->attr_role = calloc(n ? n : 1, 1);
	if (!s->attr_role)
		return -SY_E_NOMEM;
	s->nr_roles = n;
	for (uint32_t i = 0; i < n; i++) {
		const struct sy_perf_attr *a = sy_perf_attr(r, i);

		if ((a->aux_action & SY_AUX_ACTION_START_PAUSED) ||
		    (pmu_type && a->type == pmu_type))
			s->attr_role[i] |= SY_ROLE_TRACE;
		if (a->aux_action & SY_AUX_ACTION_START_PAUSED)
			s->start_paused = 1;
		if (a->aux_action & SY_AUX_ACTION_PAUSE) {
			s->attr_role[i] |= SY_ROLE_PAUSE;
			s->sum.pause_period = a->sample_period;
			s->sum.periods_freq |= sy_attr_flag(a, SY_ATTR_FLAG_FREQ);
			pause_type = a->type;
			pause_cfg = a->config;
			s->any_pause_attr = 1;
		}
		if (a->aux_action & SY_AUX_ACTION_RESUME) {
			s->attr_role[i] |= SY_ROLE_RESUME;
			s->sum.resume_period = a->sample_period;
			s->sum.periods_freq |= sy_attr_flag(a, SY_ATTR_FLAG_FREQ);
			resume_type = a->type;
			resume_cfg = a->config;
			has_resume = 1;
		}
		if (a->sample_type & SY_SAMPLE_CALLCHAIN)
			s->attr_role[i] |= SY_ROLE_CALLCHAIN;
	}
	if (has_resume && s->any_pause_attr)
		s->sum.same_event = pause_type == resume_type &&
				    pause_cfg == resume_cfg;
	return 0;
}

static int sy_cpuid_parse(struct sy_session *s)
{
	const char *c = sy_perf_features(s->r)->cpuid;
	unsigned f = 0, m = 0, st = 0;

	/* "GenuineIntel,6,78,3" */
	if (c && sscanf(c, "%*[^,],%u,%u,%u", &f, &m, &st) >= 2) {
		s->pt_cpu[0] = f;
		s->pt_cpu[1] = m;
		s->pt_cpu[2] = st;
		return 1;
	}
	return 0;
}

static int sy_config_queue(struct sy_session *s, struct sy_queue *q)
{
	struct sy_dec_params *dp = &q->dp;

	memset(dp, 0, sizeof(*dp));
	dp->kind = s->kind;
	dp->read_mem = sy_mem_read;
	if (s->kind == SY_TRACE_PT) {
		const struct sy_pt_info *pt = &s->info.u.pt;
		struct sy_pt_params *pp = &dp->u.pt;
		const struct sy_perf_attr *ta = NULL;

		for (uint32_t i = 0; i < s->nr_roles; i++)
			if (s->attr_role[i] & SY_ROLE_TRACE)
				ta = sy_perf_attr(s->r, i);
		pp->family = (uint16_t)s->pt_cpu[0];
		pp->model = (uint8_t)s->pt_cpu[1];
		pp->stepping = (uint8_t)s->pt_cpu[2];
		if (ta && pt->nr_fields > SY_PT_MTC_FREQ_BITS &&
		    pt->f[SY_PT_MTC_FREQ_BITS]) {
			uint64_t mask = pt->f[SY_PT_MTC_FREQ_BITS];
			pp->mtc_freq = (uint8_t)((ta->config & mask) >>
						 __builtin_ctzll(mask));
		}
		if (pt->nr_fields > SY_PT_MAX_NONTURBO_RATIO)
			pp->nom_freq = (uint8_t)pt->f[SY_PT_MAX_NONTURBO_RATIO];
		if (pt->nr_fields > SY_PT_TSC_CTC_D) {
			pp->cpuid_0x15_eax = (uint32_t)pt->f[SY_PT_TSC_CTC_D];
			pp->cpuid_0x15_ebx = (uint32_t)pt->f[SY_PT_TSC_CTC_N];
		}
		return 0;
	}

	const struct sy_etm_info *e = &s->info.u.etm;
	struct sy_etm_params *ep = &dp->u.etm;

	q->sources = calloc(e->nr_cpu ? e->nr_cpu : 1, sizeof(*q->sources));
	if (!q->sources)
		return -SY_E_NOMEM;
	size_t n = 0;
	uint8_t mine = 0;
	for (uint32_t i = 0; i < e->nr_cpu; i++) {
		const struct sy_etm_cpu *c = &e->cpus[i];
		struct sy_etm_source *src;

		if (c->kind == SY_ETM_KIND_V3)
			continue; /* not decoded: ETMv3/PTM */
		/* raw (TRBE) data holds one trace unit: its own CPU's */
		if (q->raw && q->cpu != (uint32_t)-1 && c->cpu != q->cpu)
			continue;
		src = &q->sources[n++];
		src->cpu = c->cpu;
		src->ete = c->kind == SY_ETM_KIND_ETE;
		src->trace_id = c->cpu < sizeof(s->hwid) && s->hwid[c->cpu] ?
					s->hwid[c->cpu] :
					(uint8_t)(c->trctraceidr & 0x7f);
		src->trcconfigr = (uint32_t)c->trcconfigr;
		src->trctraceidr = src->trace_id;
		src->trcidr0 = (uint32_t)c->trcidr0;
		src->trcidr1 = (uint32_t)c->trcidr1;
		src->trcidr2 = (uint32_t)c->trcidr2;
		src->trcidr8 = (uint32_t)c->trcidr8;
		src->trcauthstatus = (uint32_t)c->trcauthstatus;
		src->trcdevarch = (uint32_t)c->trcdevarch;
		if (c->cpu == q->cpu)
			mine = src->trace_id;
	}
	if (!n)
		return sy_diag_set_nooff(&s->diag, -SY_E_UNSUPPORTED,
					 "no ETMv4/ETE trace unit describes CPU "
					 "%u", q->cpu);
	ep->formatted = !q->raw;
	ep->decoder = s->o.etm_decoder;
	ep->sources = q->sources;
	ep->nr_sources = n;
	ep->trace_id = q->cpu == (uint32_t)-1 ? 0 : mine;
	return 0;
}

/* Stream units: maximal runs of AUX records whose bytes follow each other
 * and are all in the file.  A gap (lost data, a chunk perf never wrote)
 * ends a unit: the trace after it must resynchronise, and splicing the two
 * sides together would make up control flow. */
static int sy_plan_units(struct sy_session *s, struct sy_queue *q)
{
	int open = 0;

	q->units = calloc(q->nr_recs ? q->nr_recs : 1, sizeof(*q->units));
	if (!q->units)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < q->nr_recs; i++) {
		const struct sy_auxrec *r = &q->recs[i];

		if (!sy_queue_covered(q, r->aux_off, r->aux_off + r->size)) {
			open = 0;
			continue;
		}
		if (open && (r->aux_off != q->recs[i - 1].aux_off +
						  q->recs[i - 1].size ||
			     (s->o.whole_trace && s->sum.sink == SY_SINK_ETR)))
			open = 0; /* each ETR fragment alone, as perf does */
		if (!open) {
			q->units[q->nr_units].first = i;
			q->nr_units++;
			open = 1;
		}
		q->units[q->nr_units - 1].last = i;
	}
	return 0;
}

int sy_prepass(struct sy_session *s)
{
	struct sy_rawaux *aux = NULL;
	size_t nr_aux = 0, cap_aux = 0;
	struct sy_record rec;
	int per_thread = 0, err, saw_buf = 0, info_err = 0;
	uint32_t pmu_type = 0;

	/* roles first: HEADER_ATTR records may add attrs in a pipe layout,
	 * so they are computed again after the walk */
	while ((err = sy_perf_next(s->r, &rec)) == 0) {
		struct sy_event ev;
		struct sy_diag d = { 0 };

		if (rec.type == SY_REC_SAMPLE)
			continue;
		if (rec.type == SY_REC_AUXTRACE_INFO && !s->has_info &&
		    !info_err) {
			if (sy_event_parse(&rec, &ev, &d) ||
			    sy_auxtrace_info_parse(&s->info,
						   &ev.u.auxtrace_info,
						   rec.offset, &d)) {
				sy_session_warn(s, d.err ? d.err :
							   -SY_E_BAD_AUXINFO,
						d.offset, "%s", d.msg);
				info_err = 1;
				continue;
			}
			s->has_info = 1;
			continue;
		}
		if (rec.type == SY_REC_AUXTRACE) {
			if (sy_event_parse(&rec, &ev, &d))
				continue;
			if (!saw_buf++)
				per_thread = ev.u.auxtrace.cpu == (uint32_t)-1;
			if (ev.u.auxtrace.size > rec.aux_size)
				ev.u.auxtrace.size = rec.aux_size;
			err = sy_add_buf(s, &ev.u.auxtrace, rec.aux_file_offset,
					 per_thread);
			if (err)
				goto out;
			continue;
		}
		if (rec.type == SY_REC_TIME_CONV) {
			if (sy_event_parse(&rec, &ev, &d))
				continue;
			s->tc.valid = 1;
			s->tc.shift = ev.u.time_conv.time_shift;
			s->tc.mult = ev.u.time_conv.time_mult;
			s->tc.zero = ev.u.time_conv.time_zero;
			if (ev.u.time_conv.has_ext &&
			    ev.u.time_conv.cap_user_time_short) {
				s->tc.cap_short = 1;
				s->tc.cycles = ev.u.time_conv.time_cycles;
				s->tc.mask = ev.u.time_conv.time_mask;
			}
			continue;
		}
		if (rec.type == SY_REC_AUX_OUTPUT_HW_ID ||
		    rec.type == SY_REC_AUX) {
			if (sy_event_parse(&rec, &ev, &d) || !ev.has_sid)
				continue;
			if (rec.type == SY_REC_AUX_OUTPUT_HW_ID) {
				if (ev.sid.cpu < sizeof(s->hwid))
					s->hwid[ev.sid.cpu] =
						(uint8_t)(ev.u.hw_id.hw_id & 0x7f);
				continue;
			}
			if (sy_grow((void **)&aux, &cap_aux, nr_aux,
				    sizeof(*aux))) {
				err = -SY_E_NOMEM;
				goto out;
			}
			aux[nr_aux].cpu = ev.sid.cpu;
			aux[nr_aux].tid = ev.sid.tid;
			aux[nr_aux].r.aux_off = ev.u.aux.aux_offset;
			aux[nr_aux].r.size = ev.u.aux.aux_size;
			aux[nr_aux].r.flags = ev.u.aux.flags;
			aux[nr_aux].r.time = ev.sid.time;
			aux[nr_aux].r.rec_off = rec.offset;
			nr_aux++;
		}
	}
	/* damage ends this walk where it will end the main one: the windows
	 * before it are still worth converting */
	if (err != -SY_E_EOS)
		s->sum.input_error = err;

	if (!s->has_info) {
		err = sy_diag_set_nooff(&s->diag, -SY_E_UNSUPPORTED,
					"no AUXTRACE_INFO record: the file "
					"holds no hardware trace");
		goto out;
	}
	if (s->info.type == SY_AUXTRACE_CS_ETM) {
		s->kind = SY_TRACE_ETM;
		s->sum.trace = "cs_etm";
		pmu_type = s->info.u.etm.pmu_type;
	} else if (s->info.type == SY_AUXTRACE_INTEL_PT) {
		s->kind = SY_TRACE_PT;
		s->sum.trace = "intel_pt";
		pmu_type = (uint32_t)s->info.u.pt.f[SY_PT_PMU_TYPE];
		s->tc.valid = 1;
		s->tc.shift = s->info.u.pt.f[SY_PT_TIME_SHIFT];
		s->tc.mult = s->info.u.pt.f[SY_PT_TIME_MULT];
		s->tc.zero = s->info.u.pt.f[SY_PT_TIME_ZERO];
		s->tc.cap_short = 0;
		if (!sy_cpuid_parse(s))
			sy_session_warn(s, 0, 0,
					"no CPUID feature: decoding Intel PT "
					"without CPU errata");
	} else {
		err = sy_diag_set_nooff(&s->diag, -SY_E_UNSUPPORTED,
					"%s trace is not decoded by this tool "
					"(cs_etm and intel_pt are)",
					sy_auxtrace_type_name(s->info.type));
		goto out;
	}
	err = sy_roles(s, pmu_type);
	if (err)
		goto out;
	s->sum.per_thread = per_thread;

	for (size_t i = 0; i < nr_aux; i++) {
		uint32_t key = per_thread ? aux[i].tid : aux[i].cpu;
		struct sy_queue *q = sy_queue_get(s, key, 1);

		if (!q) {
			err = -SY_E_NOMEM;
			goto out;
		}
		if (per_thread)
			q->cpu = (uint32_t)-1;
		if (aux[i].r.flags & SY_AUX_FLAG_CORESIGHT_RAW)
			q->raw = 1;
		if (!aux[i].r.size)
			continue; /* flags only (truncation seen later) */
		if (aux[i].r.aux_off + aux[i].r.size < aux[i].r.aux_off) {
			sy_session_warn(s, -SY_E_BAD_RECORD, aux[i].r.rec_off,
					"AUX record: offset %#" PRIx64 " + size "
					"%#" PRIx64 " wraps around; ignored",
					aux[i].r.aux_off, aux[i].r.size);
			continue;
		}
		if (sy_grow((void **)&q->recs, &q->cap_recs, q->nr_recs,
			    sizeof(*q->recs))) {
			err = -SY_E_NOMEM;
			goto out;
		}
		q->recs[q->nr_recs++] = aux[i].r;
	}
	if (s->kind == SY_TRACE_PT)
		s->sum.sink = SY_SINK_PT;
	else {
		int raw = 0;
		for (size_t i = 0; i < s->nr_queues; i++)
			raw |= s->queues[i]->raw;
		s->sum.sink = raw ? SY_SINK_TRBE : SY_SINK_ETR;
	}
	for (size_t i = 0; i < s->nr_queues; i++) {
		struct sy_queue *q = s->queues[i];

		if (q->nr_bufs)
			qsort(q->bufs, q->nr_bufs, sizeof(*q->bufs),
			      sy_cmp_buf);
		err = sy_config_queue(s, q);
		if (err)
			goto out;
		err = sy_plan_units(s, q);
		if (err)
			goto out;
	}
	err = 0;
out:
	free(aux);
	return err;
}
