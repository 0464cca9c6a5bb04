/* Record bodies (include/uapi/linux/perf_event.h, tools/lib/perf/include/
 * perf/event.h).  Each view first checks that the record holds its fixed
 * part; variable parts (file names, comm) are bounded by the record end
 * minus the sample_id trailer and read with strnlen. */
#include <inttypes.h>
#include <stdio.h>

#include "sy_bytes.h"
#include "sy_perf_event.h"

/* Fixed body sizes, header excluded. */
static size_t sy_body_min(uint32_t type, uint16_t misc)
{
	switch (type) {
	case SY_REC_MMAP:
		return 32;
	case SY_REC_MMAP2:
		return 64;
	case SY_REC_COMM:
		return 8;
	case SY_REC_EXIT:
	case SY_REC_FORK:
		return 24;
	case SY_REC_LOST:
		return 16;
	case SY_REC_THROTTLE:
	case SY_REC_UNTHROTTLE:
		return 24;
	case SY_REC_READ:
		return 8;
	case SY_REC_AUX:
		return 24;
	case SY_REC_ITRACE_START:
		return 8;
	case SY_REC_LOST_SAMPLES:
		return 8;
	case SY_REC_SWITCH:
		return 0;
	case SY_REC_SWITCH_CPU_WIDE:
		return 8;
	case SY_REC_KSYMBOL:
		return 16;
	case SY_REC_TEXT_POKE:
		return 12;
	case SY_REC_AUX_OUTPUT_HW_ID:
		return 8;
	case SY_REC_AUXTRACE:
		return 40;
	case SY_REC_AUXTRACE_INFO:
		return 8;
	case SY_REC_AUXTRACE_ERROR:
		return 40;
	case SY_REC_TIME_CONV:
		return 24;
	case SY_REC_ID_INDEX:
	case SY_REC_THREAD_MAP:
		return 8;
	case SY_REC_CPU_MAP:
		return 2;
	case SY_REC_EVENT_UPDATE:
		return 16;
	case SY_REC_COMPRESSED2:
		return 8;
	default:
		(void)misc;
		return 0;
	}
}

static const char *sy_str_in(const uint8_t *p, size_t max)
{
	/* a string without its NUL would run into the trailer: perf pads
	 * with zeros, so a missing NUL means a damaged record */
	return memchr(p, 0, max) ? (const char *)p : NULL;
}

/* Why a body could not be read: the message sy_event_parse gives. */
enum { SY_EV_OK, SY_EV_SHORT, SY_EV_STRING, SY_EV_COUNT };

static int sy_ev_mmap_parse(const struct sy_record *rec, struct sy_event *ev,
			    const uint8_t *b, size_t var)
{
	struct sy_ev_mmap *m = &ev->u.mmap;
	const uint8_t *q;

	m->pid = sy_le32(b);
	m->tid = sy_le32(b + 4);
	m->addr = sy_le64(b + 8);
	m->len = sy_le64(b + 16);
	m->pgoff = sy_le64(b + 24);
	q = b + 32;
	if (rec->type == SY_REC_MMAP2) {
		m->is_mmap2 = 1;
		if (rec->misc & SY_MISC_MMAP_BUILD_ID) {
			m->has_build_id = 1;
			m->build_id_size = q[0];
			if (m->build_id_size > 20)
				m->build_id_size = 20;
			memcpy(m->build_id, q + 4, 20);
		} else {
			m->maj = sy_le32(q);
			m->min = sy_le32(q + 4);
			m->ino = sy_le64(q + 8);
			m->ino_generation = sy_le64(q + 16);
		}
		m->prot = sy_le32(q + 24);
		m->flags = sy_le32(q + 28);
		q += 32;
	}
	m->filename = sy_str_in(q, var);
	if (!m->filename)
		return SY_EV_STRING;
	return SY_EV_OK;
}

/* The records the kernel writes, but for MMAP/MMAP2. */
static int sy_ev_kernel_parse(const struct sy_record *rec, struct sy_event *ev,
			      const uint8_t *b, size_t var)
{
	switch (rec->type) {
	case SY_REC_COMM:
		ev->u.comm.pid = sy_le32(b);
		ev->u.comm.tid = sy_le32(b + 4);
		ev->u.comm.exec = !!(rec->misc & SY_MISC_COMM_EXEC);
		ev->u.comm.comm = sy_str_in(b + 8, var);
		if (!ev->u.comm.comm)
			return SY_EV_STRING;
		break;
	case SY_REC_EXIT:
	case SY_REC_FORK:
		ev->u.task.pid = sy_le32(b);
		ev->u.task.ppid = sy_le32(b + 4);
		ev->u.task.tid = sy_le32(b + 8);
		ev->u.task.ptid = sy_le32(b + 12);
		ev->u.task.time = sy_le64(b + 16);
		break;
	case SY_REC_LOST:
		ev->u.lost.id = sy_le64(b);
		ev->u.lost.lost = sy_le64(b + 8);
		break;
	case SY_REC_THROTTLE:
	case SY_REC_UNTHROTTLE:
		ev->u.throttle.time = sy_le64(b);
		ev->u.throttle.id = sy_le64(b + 8);
		ev->u.throttle.stream_id = sy_le64(b + 16);
		break;
	case SY_REC_READ:
		ev->u.read.pid = sy_le32(b);
		ev->u.read.tid = sy_le32(b + 4);
		break;
	case SY_REC_AUX:
		ev->u.aux.aux_offset = sy_le64(b);
		ev->u.aux.aux_size = sy_le64(b + 8);
		ev->u.aux.flags = sy_le64(b + 16);
		break;
	case SY_REC_ITRACE_START:
		ev->u.itrace_start.pid = sy_le32(b);
		ev->u.itrace_start.tid = sy_le32(b + 4);
		break;
	case SY_REC_LOST_SAMPLES:
		ev->u.lost_samples.lost = sy_le64(b);
		break;
	case SY_REC_SWITCH:
	case SY_REC_SWITCH_CPU_WIDE:
		ev->u.sw.out = !!(rec->misc & SY_MISC_SWITCH_OUT);
		ev->u.sw.preempt = !!(rec->misc & SY_MISC_SWITCH_OUT_PREEMPT);
		if (rec->type == SY_REC_SWITCH_CPU_WIDE) {
			ev->u.sw.cpu_wide = 1;
			ev->u.sw.next_prev_pid = sy_le32(b);
			ev->u.sw.next_prev_tid = sy_le32(b + 4);
		}
		break;
	case SY_REC_KSYMBOL:
		ev->u.ksymbol.addr = sy_le64(b);
		ev->u.ksymbol.len = sy_le32(b + 8);
		ev->u.ksymbol.ksym_type = sy_le16(b + 12);
		ev->u.ksymbol.flags = sy_le16(b + 14);
		ev->u.ksymbol.name = sy_str_in(b + 16, var);
		if (!ev->u.ksymbol.name)
			return SY_EV_STRING;
		break;
	case SY_REC_TEXT_POKE:
		ev->u.text_poke.addr = sy_le64(b);
		ev->u.text_poke.old_len = sy_le16(b + 8);
		ev->u.text_poke.new_len = sy_le16(b + 10);
		break;
	case SY_REC_AUX_OUTPUT_HW_ID:
		ev->u.hw_id.hw_id = sy_le64(b);
		break;
	default:
		break;
	}
	return SY_EV_OK;
}

/* CPU_MAP: a list of u16 cpus, a mask, or a range. */
static int sy_ev_cpu_map_parse(struct sy_event *ev, const uint8_t *b,
			       size_t blen)
{
	struct sy_ev_cpu_map *c = &ev->u.cpu_map;

	c->type = sy_le16(b);
	c->data = b + 2;
	if (c->type == 0 || c->type == 1) {
		if (blen < 4)
			return SY_EV_SHORT;
		c->nr = sy_le16(b + 2);
		c->data = b + 4;
		size_t need = c->type == 0 ?
				      (size_t)c->nr * 2 :
				      (blen >= 6 ? (size_t)c->nr *
						   sy_le16(b + 4) :
						   SIZE_MAX);
		if (c->type == 1)
			c->data = b + 6;
		if (need > blen - (size_t)(c->data - b))
			return SY_EV_COUNT;
	} else if (c->type == 2) {
		if (blen < 8)
			return SY_EV_SHORT;
		c->any_cpu = b[2];
		c->start = sy_le16(b + 4);
		c->end = sy_le16(b + 6);
	}
	return SY_EV_OK;
}

/* The records perf itself writes (AUXTRACE*, TIME_CONV, maps, ...). */
static int sy_ev_user_parse(const struct sy_record *rec, struct sy_event *ev,
			    const uint8_t *b, size_t blen)
{
	switch (rec->type) {
	case SY_REC_AUXTRACE:
		ev->u.auxtrace.size = sy_le64(b);
		ev->u.auxtrace.offset = sy_le64(b + 8);
		ev->u.auxtrace.reference = sy_le64(b + 16);
		ev->u.auxtrace.idx = sy_le32(b + 24);
		ev->u.auxtrace.tid = sy_le32(b + 28);
		ev->u.auxtrace.cpu = sy_le32(b + 32);
		break;
	case SY_REC_AUXTRACE_INFO:
		ev->u.auxtrace_info.type = sy_le32(b);
		ev->u.auxtrace_info.priv = b + 8;
		ev->u.auxtrace_info.nr_priv = (blen - 8) / 8;
		break;
	case SY_REC_AUXTRACE_ERROR: {
		struct sy_ev_auxtrace_error *e = &ev->u.auxtrace_error;
		size_t mlen = blen - 40 < 64 ? blen - 40 : 64;

		e->type = sy_le32(b);
		e->code = sy_le32(b + 4);
		e->cpu = sy_le32(b + 8);
		e->pid = sy_le32(b + 12);
		e->tid = sy_le32(b + 16);
		e->fmt = sy_le32(b + 20);
		e->ip = sy_le64(b + 24);
		/* fmt 0 has no time: the u64 at 32 is the start of msg */
		if (e->fmt) {
			e->time = sy_le64(b + 32);
			memcpy(e->msg, b + 40, mlen);
		} else {
			mlen = blen - 32 < 64 ? blen - 32 : 64;
			memcpy(e->msg, b + 32, mlen);
		}
		e->msg[64] = 0;
		if (e->fmt >= 2 && blen >= 40 + 64 + 8) {
			e->machine_pid = sy_le32(b + 104);
			e->vcpu = sy_le32(b + 108);
		}
		break;
	}
	case SY_REC_TIME_CONV: {
		struct sy_ev_time_conv *t = &ev->u.time_conv;

		t->time_shift = sy_le64(b);
		t->time_mult = sy_le64(b + 8);
		t->time_zero = sy_le64(b + 16);
		if (blen >= 48) {
			t->has_ext = 1;
			t->time_cycles = sy_le64(b + 24);
			t->time_mask = sy_le64(b + 32);
			t->cap_user_time_zero = b[40];
			t->cap_user_time_short = b[41];
		}
		break;
	}
	case SY_REC_ID_INDEX: {
		uint64_t nr = sy_le64(b);

		if (nr > (blen - 8) / 32)
			return SY_EV_COUNT;
		ev->u.id_index.nr = nr;
		ev->u.id_index.entries = b + 8;
		ev->u.id_index.has_vcpu = nr && (blen - 8) / nr >= 48;
		break;
	}
	case SY_REC_THREAD_MAP: {
		uint64_t nr = sy_le64(b);

		if (nr > (blen - 8) / 24)
			return SY_EV_COUNT;
		ev->u.thread_map.nr = nr;
		ev->u.thread_map.entries = b + 8;
		break;
	}
	case SY_REC_CPU_MAP:
		return sy_ev_cpu_map_parse(ev, b, blen);
	case SY_REC_EVENT_UPDATE:
		ev->u.event_update.type = sy_le64(b);
		ev->u.event_update.id = sy_le64(b + 8);
		ev->u.event_update.data = b + 16;
		ev->u.event_update.len = blen - 16;
		break;
	case SY_REC_COMPRESSED2:
		ev->u.compressed.data_size = sy_le64(b);
		break;
	case SY_REC_COMPRESSED:
		ev->u.compressed.data_size = blen;
		break;
	default:
		break;
	}
	return SY_EV_OK;
}

int sy_event_parse(const struct sy_record *rec, struct sy_event *ev,
		   struct sy_diag *diag)
{
	const uint8_t *b = rec->data + SY_PERF_EVENT_HEADER_SIZE;
	size_t blen = rec->size - (size_t)SY_PERF_EVENT_HEADER_SIZE;
	size_t min = sy_body_min(rec->type, rec->misc);
	size_t trailer = 0;
	int why;

	memset(ev, 0, sizeof(*ev));
	ev->type = rec->type;
	if (blen < min)
		goto short_body;
	if (rec->type < 64 && rec->type != SY_REC_SAMPLE && rec->attr) {
		int ret = sy_sample_id_parse(rec->attr, rec->data, rec->size,
					     min, &ev->sid);
		if (ret < 0)
			goto short_body;
		ev->has_sid = ret;
		trailer = sy_sample_id_size(rec->attr);
	}
	size_t var = blen - min - trailer; /* bytes of the variable part */

	if (rec->type == SY_REC_MMAP || rec->type == SY_REC_MMAP2)
		why = sy_ev_mmap_parse(rec, ev, b, var);
	else if (rec->type < 64)
		why = sy_ev_kernel_parse(rec, ev, b, var);
	else
		why = sy_ev_user_parse(rec, ev, b, blen);
	switch (why) {
	case SY_EV_SHORT:
		goto short_body;
	case SY_EV_STRING:
		goto bad_string;
	case SY_EV_COUNT:
		goto bad_count;
	}
	return 0;

short_body:
	return sy_diag_set(diag, rec->offset, -SY_E_BAD_RECORD,
			   "%s record of %u bytes is too short for its body",
			   sy_record_type_name(rec->type) ?
				   sy_record_type_name(rec->type) :
				   "unknown",
			   rec->size);
bad_string:
	return sy_diag_set(diag, rec->offset, -SY_E_BAD_RECORD,
			   "%s record: string is not terminated inside the "
			   "record", sy_record_type_name(rec->type));
bad_count:
	return sy_diag_set(diag, rec->offset, -SY_E_BAD_RECORD,
			   "%s record: entry count exceeds the record",
			   sy_record_type_name(rec->type));
}
