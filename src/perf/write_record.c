/* perf.data writer: typed records (MMAP, COMM, AUX, AUXTRACE...). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "write_impl.h"
#include "sy_bytes.h"

static int sy_pwi_mmap_common(struct sy_pw *w, uint32_t type,
			  const struct sy_pw_mmap *m,
			  const struct sy_perf_attr *attr,
			  const struct sy_sample *sid)
{
	struct sy_pwi_rec r;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (!m)
		return -SY_E_INVALID;
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_u32(&r, m->pid);
	sy_pwi_rec_u32(&r, m->tid);
	sy_pwi_rec_u64(&r, m->addr);
	sy_pwi_rec_u64(&r, m->len);
	sy_pwi_rec_u64(&r, m->pgoff);
	if (type == SY_REC_MMAP2) {
		if (m->misc & SY_MISC_MMAP_BUILD_ID) {
			uint8_t id[20] = { 0 };
			size_t n = m->build_id_size;

			if (n > sizeof(id))
				return -SY_E_INVALID;
			memcpy(id, m->build_id, n);
			sy_pwi_rec_put(&r, &m->build_id_size, 1);
			sy_pwi_rec_put(&r, NULL, 3);
			sy_pwi_rec_put(&r, id, sizeof(id));
		} else {
			sy_pwi_rec_u32(&r, m->maj);
			sy_pwi_rec_u32(&r, m->min);
			sy_pwi_rec_u64(&r, m->ino);
			sy_pwi_rec_u64(&r, m->ino_generation);
		}
		sy_pwi_rec_u32(&r, m->prot);
		sy_pwi_rec_u32(&r, m->flags);
	}
	sy_pwi_rec_str8(&r, m->filename);
	return sy_pwi_rec_end(w, &r, type, m->misc, attr, sid);
}

int sy_pw_mmap(struct sy_pw *w, const struct sy_pw_mmap *m,
	       const struct sy_perf_attr *attr, const struct sy_sample *sid)
{
	return sy_pwi_mmap_common(w, SY_REC_MMAP, m, attr, sid);
}

int sy_pw_mmap2(struct sy_pw *w, const struct sy_pw_mmap *m,
		const struct sy_perf_attr *attr, const struct sy_sample *sid)
{
	return sy_pwi_mmap_common(w, SY_REC_MMAP2, m, attr, sid);
}

int sy_pw_comm(struct sy_pw *w, uint16_t misc, uint32_t pid, uint32_t tid,
	       const char *comm, const struct sy_perf_attr *attr,
	       const struct sy_sample *sid)
{
	struct sy_pwi_rec r;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_u32(&r, pid);
	sy_pwi_rec_u32(&r, tid);
	sy_pwi_rec_str8(&r, comm);
	return sy_pwi_rec_end(w, &r, SY_REC_COMM, misc, attr, sid);
}

int sy_pw_task(struct sy_pw *w, uint32_t type, uint32_t pid, uint32_t ppid,
	       uint32_t tid, uint32_t ptid, uint64_t time,
	       const struct sy_perf_attr *attr, const struct sy_sample *sid)
{
	struct sy_pwi_rec r;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (type != SY_REC_FORK && type != SY_REC_EXIT)
		return -SY_E_INVALID;
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_u32(&r, pid);
	sy_pwi_rec_u32(&r, ppid);
	sy_pwi_rec_u32(&r, tid);
	sy_pwi_rec_u32(&r, ptid);
	sy_pwi_rec_u64(&r, time);
	return sy_pwi_rec_end(w, &r, type, 0, attr, sid);
}

/* Kernel records whose body is a few u64s. */
static int sy_pwi_u64_rec(struct sy_pw *w, uint32_t type, uint16_t misc,
		      const uint64_t *v, size_t n,
		      const struct sy_perf_attr *attr,
		      const struct sy_sample *sid)
{
	struct sy_pwi_rec r;
	size_t i;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	sy_pwi_rec_begin(w, &r);
	for (i = 0; i < n; i++)
		sy_pwi_rec_u64(&r, v[i]);
	return sy_pwi_rec_end(w, &r, type, misc, attr, sid);
}

int sy_pw_lost(struct sy_pw *w, uint64_t id, uint64_t lost,
	       const struct sy_perf_attr *attr, const struct sy_sample *sid)
{
	uint64_t v[2] = { id, lost };

	return sy_pwi_u64_rec(w, SY_REC_LOST, 0, v, 2, attr, sid);
}

int sy_pw_lost_samples(struct sy_pw *w, uint16_t misc, uint64_t lost,
		       const struct sy_perf_attr *attr,
		       const struct sy_sample *sid)
{
	return sy_pwi_u64_rec(w, SY_REC_LOST_SAMPLES, misc, &lost, 1, attr, sid);
}

int sy_pw_throttle(struct sy_pw *w, int unthrottle, uint64_t time,
		   uint64_t id, uint64_t stream_id,
		   const struct sy_perf_attr *attr,
		   const struct sy_sample *sid)
{
	uint64_t v[3] = { time, id, stream_id };

	return sy_pwi_u64_rec(w, unthrottle ? SY_REC_UNTHROTTLE : SY_REC_THROTTLE,
			  0, v, 3, attr, sid);
}

int sy_pw_switch(struct sy_pw *w, uint16_t misc,
		 const struct sy_perf_attr *attr, const struct sy_sample *sid)
{
	return sy_pwi_u64_rec(w, SY_REC_SWITCH, misc, NULL, 0, attr, sid);
}

int sy_pw_switch_cpu_wide(struct sy_pw *w, uint16_t misc,
			  uint32_t next_prev_pid, uint32_t next_prev_tid,
			  const struct sy_perf_attr *attr,
			  const struct sy_sample *sid)
{
	uint64_t v = (uint64_t)next_prev_pid | (uint64_t)next_prev_tid << 32;

	return sy_pwi_u64_rec(w, SY_REC_SWITCH_CPU_WIDE, misc, &v, 1, attr, sid);
}

int sy_pw_itrace_start(struct sy_pw *w, uint32_t pid, uint32_t tid,
		       const struct sy_perf_attr *attr,
		       const struct sy_sample *sid)
{
	uint64_t v = (uint64_t)pid | (uint64_t)tid << 32;

	return sy_pwi_u64_rec(w, SY_REC_ITRACE_START, 0, &v, 1, attr, sid);
}

int sy_pw_aux(struct sy_pw *w, uint64_t aux_offset, uint64_t aux_size,
	      uint64_t flags, const struct sy_perf_attr *attr,
	      const struct sy_sample *sid)
{
	uint64_t v[3] = { aux_offset, aux_size, flags };

	return sy_pwi_u64_rec(w, SY_REC_AUX, 0, v, 3, attr, sid);
}

int sy_pw_aux_output_hw_id(struct sy_pw *w, uint64_t hw_id,
			   const struct sy_perf_attr *attr,
			   const struct sy_sample *sid)
{
	return sy_pwi_u64_rec(w, SY_REC_AUX_OUTPUT_HW_ID, 0, &hw_id, 1, attr,
			  sid);
}

int sy_pw_auxtrace(struct sy_pw *w, const struct sy_pw_auxtrace *a,
		   const void *data, uint64_t len)
{
	uint8_t h[SY_AUXTRACE_RECORD_SIZE];
	uint64_t padded = SY_ALIGN8(len);
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (!a || (len && !data) || len > SIZE_MAX - 8)
		return -SY_E_INVALID;
	err = sy_pwi_start(w);
	if (err)
		return err;
	/* the payload is never compressed; everything written before it must
	 * come out of zstd first to keep file order */
	if (w->zc) {
		err = sy_pwi_comp_push(w);
		if (err)
			return sy_pwi_fail(w, err);
	}
	if (!w->cfg.pipe) {
		if (w->nr_index == w->cap_index) {
			size_t cap = w->cap_index ? w->cap_index * 2 : 64;
			uint64_t *n = realloc(w->index, cap * sizeof(*n));

			if (!n)
				return sy_pwi_fail(w, -SY_E_NOMEM);
			w->index = n;
			w->cap_index = cap;
		}
		w->index[w->nr_index++] = sy_pwi_data_pos(w);
	}
	memset(h, 0, sizeof(h));
	sy_put32(h, SY_REC_AUXTRACE);
	sy_put16(h + 6, SY_AUXTRACE_RECORD_SIZE);
	sy_put64(h + 8, padded);
	sy_put64(h + 16, a->offset);
	sy_put64(h + 24, a->reference);
	sy_put32(h + 32, a->idx);
	sy_put32(h + 36, a->tid);
	sy_put32(h + 40, a->cpu);
	err = sy_pwi_emit_plain(w, h, sizeof(h));
	if (!err)
		err = sy_pwi_emit_plain(w, data, (size_t)len);
	if (!err)
		err = sy_pwi_emit_plain(w, NULL, (size_t)(padded - len));
	if (err)
		return sy_pwi_fail(w, err);
	w->stats.nr_type[SY_REC_AUXTRACE]++;
	return 0;
}

int sy_pw_auxtrace_info(struct sy_pw *w, uint32_t type, const uint64_t *priv,
			uint32_t nr)
{
	struct sy_pwi_rec r;
	uint32_t i;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (nr && !priv)
		return -SY_E_INVALID;
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_u32(&r, type);
	sy_pwi_rec_u32(&r, 0);
	for (i = 0; i < nr && !r.over; i++)
		sy_pwi_rec_u64(&r, priv[i]);
	return sy_pwi_rec_end(w, &r, SY_REC_AUXTRACE_INFO, 0, NULL, NULL);
}

int sy_pw_auxtrace_error(struct sy_pw *w, const struct sy_pw_auxtrace_error *e)
{
	char msg[64];
	struct sy_pwi_rec r;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (!e)
		return -SY_E_INVALID;
	memset(msg, 0, sizeof(msg));
	if (e->msg)
		strncpy(msg, e->msg, sizeof(msg) - 1);
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_u32(&r, e->type);
	sy_pwi_rec_u32(&r, e->code);
	sy_pwi_rec_u32(&r, e->cpu);
	sy_pwi_rec_u32(&r, e->pid);
	sy_pwi_rec_u32(&r, e->tid);
	sy_pwi_rec_u32(&r, e->fmt);
	sy_pwi_rec_u64(&r, e->ip);
	sy_pwi_rec_u64(&r, e->time);
	if (e->fmt >= 2) {
		sy_pwi_rec_put(&r, msg, sizeof(msg));
		sy_pwi_rec_u32(&r, e->machine_pid);
		sy_pwi_rec_u32(&r, e->vcpu);
	} else {
		/* auxtrace_synth_error(): the record ends after the message */
		sy_pwi_rec_str8(&r, msg);
	}
	return sy_pwi_rec_end(w, &r, SY_REC_AUXTRACE_ERROR, 0, NULL, NULL);
}

int sy_pw_time_conv(struct sy_pw *w, const struct sy_pw_time_conv *t,
		    int long_form)
{
	struct sy_pwi_rec r;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (!t)
		return -SY_E_INVALID;
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_u64(&r, t->time_shift);
	sy_pwi_rec_u64(&r, t->time_mult);
	sy_pwi_rec_u64(&r, t->time_zero);
	if (long_form) {
		sy_pwi_rec_u64(&r, t->time_cycles);
		sy_pwi_rec_u64(&r, t->time_mask);
		sy_pwi_rec_put(&r, &t->cap_user_time_zero, 1);
		sy_pwi_rec_put(&r, &t->cap_user_time_short, 1);
		sy_pwi_rec_put(&r, NULL, 6);
	}
	return sy_pwi_rec_end(w, &r, SY_REC_TIME_CONV, 0, NULL, NULL);
}

int sy_pw_id_index(struct sy_pw *w, const struct sy_pw_id_index *e,
		   uint32_t n, int with_vm)
{
	/* perf_event__synthesize_id_index: as many entries as fit a record */
	size_t per = with_vm ? 48 : 32;
	uint32_t max = (uint32_t)((SY_PERF_RECORD_MAX - 16) / per);
	uint32_t i, done = 0, k;
	struct sy_pwi_rec r;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (n && !e)
		return -SY_E_INVALID;
	do {
		k = n - done < max ? n - done : max;
		sy_pwi_rec_begin(w, &r);
		sy_pwi_rec_u64(&r, k);
		for (i = done; i < done + k; i++) {
			sy_pwi_rec_u64(&r, e[i].id);
			sy_pwi_rec_u64(&r, e[i].idx);
			sy_pwi_rec_u64(&r, e[i].cpu);
			sy_pwi_rec_u64(&r, e[i].tid);
		}
		for (i = done; with_vm && i < done + k; i++) {
			sy_pwi_rec_u64(&r, e[i].machine_pid);
			sy_pwi_rec_u64(&r, e[i].vcpu);
		}
		err = sy_pwi_rec_end(w, &r, SY_REC_ID_INDEX, 0, NULL, NULL);
		done += k;
	} while (!err && done < n);
	return err;
}

int sy_pw_thread_map(struct sy_pw *w, const struct sy_pw_thread *t,
		     uint32_t n)
{
	struct sy_pwi_rec r;
	uint32_t i;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (n && !t)
		return -SY_E_INVALID;
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_u64(&r, n);
	for (i = 0; i < n && !r.over; i++) {
		char comm[16];

		memset(comm, 0, sizeof(comm));
		if (t[i].comm)
			strncpy(comm, t[i].comm, sizeof(comm) - 1);
		sy_pwi_rec_u64(&r, t[i].pid);
		sy_pwi_rec_put(&r, comm, sizeof(comm));
	}
	return sy_pwi_rec_end(w, &r, SY_REC_THREAD_MAP, 0, NULL, NULL);
}

int sy_pw_cpu_map_cpus(struct sy_pw *w, const uint16_t *cpus, uint16_t n)
{
	struct sy_pwi_rec r;
	uint16_t i;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (n && !cpus)
		return -SY_E_INVALID;
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_u16(&r, 0);	/* PERF_CPU_MAP__CPUS */
	sy_pwi_rec_u16(&r, n);
	for (i = 0; i < n && !r.over; i++)
		sy_pwi_rec_u16(&r, cpus[i]);
	sy_pwi_rec_align8(&r);
	return sy_pwi_rec_end(w, &r, SY_REC_CPU_MAP, 0, NULL, NULL);
}

int sy_pw_cpu_map_mask(struct sy_pw *w, const uint64_t *mask, uint16_t nr,
		       uint16_t long_size)
{
	struct sy_pwi_rec r;
	uint16_t i;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if ((nr && !mask) || (long_size != 4 && long_size != 8))
		return -SY_E_INVALID;
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_u16(&r, 1);	/* PERF_CPU_MAP__MASK, packed layout */
	sy_pwi_rec_u16(&r, nr);
	sy_pwi_rec_u16(&r, long_size);
	if (long_size == 8)
		sy_pwi_rec_u32(&r, 0); /* perf_record_mask_cpu_map64 __pad */
	for (i = 0; i < nr && !r.over; i++) {
		if (long_size == 8)
			sy_pwi_rec_u64(&r, mask[i]);
		else
			sy_pwi_rec_u32(&r, (uint32_t)mask[i]);
	}
	sy_pwi_rec_align8(&r);
	return sy_pwi_rec_end(w, &r, SY_REC_CPU_MAP, 0, NULL, NULL);
}

int sy_pw_cpu_map_range(struct sy_pw *w, int any_cpu, uint16_t start,
			uint16_t end)
{
	struct sy_pwi_rec r;
	uint8_t b[2] = { (uint8_t)!!any_cpu, 0 };
	int err = sy_pwi_check(w);

	if (err)
		return err;
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_u16(&r, 2);	/* PERF_CPU_MAP__RANGE_CPUS */
	sy_pwi_rec_put(&r, b, 2);
	sy_pwi_rec_u16(&r, start);
	sy_pwi_rec_u16(&r, end);
	sy_pwi_rec_align8(&r);
	return sy_pwi_rec_end(w, &r, SY_REC_CPU_MAP, 0, NULL, NULL);
}

int sy_pw_event_update(struct sy_pw *w, uint64_t type, uint64_t id,
		       const void *payload, size_t len)
{
	struct sy_pwi_rec r;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (len && !payload)
		return -SY_E_INVALID;
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_u64(&r, type);
	sy_pwi_rec_u64(&r, id);
	sy_pwi_rec_put(&r, payload, len);
	sy_pwi_rec_align8(&r);
	return sy_pwi_rec_end(w, &r, SY_REC_EVENT_UPDATE, 0, NULL, NULL);
}

int sy_pw_event_update_str(struct sy_pw *w, uint64_t type, uint64_t id,
			   const char *s)
{
	if (!s || (type != SY_PW_EVENT_UPDATE_UNIT &&
		   type != SY_PW_EVENT_UPDATE_NAME))
		return -SY_E_INVALID;
	return sy_pw_event_update(w, type, id, s, strlen(s) + 1);
}

int sy_pw_event_update_scale(struct sy_pw *w, uint64_t id, double scale)
{
	uint8_t b[8];

	memcpy(b, &scale, sizeof(b));
	return sy_pw_event_update(w, SY_PW_EVENT_UPDATE_SCALE, id, b,
				  sizeof(b));
}

int sy_pw_header_build_id(struct sy_pw *w, const struct sy_perf_build_id *b)
{
	struct sy_pwi_buf tmp = { 0 };
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (!b)
		return -SY_E_INVALID;
	err = sy_pwi_build_id_encode(&tmp, SY_REC_HEADER_BUILD_ID, b);
	if (!err)
		err = sy_pwi_emit(w, tmp.p, tmp.len);
	sy_pwi_buf_fini(&tmp);
	return err;
}

int sy_pw_finished_round(struct sy_pw *w)
{
	return sy_pw_record(w, SY_REC_FINISHED_ROUND, 0, NULL, 0);
}

int sy_pw_finished_init(struct sy_pw *w)
{
	return sy_pw_record(w, SY_REC_FINISHED_INIT, 0, NULL, 0);
}

