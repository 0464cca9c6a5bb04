/* Serialising perf_event_attr, PERF_RECORD_SAMPLE bodies and sample_id
 * trailers: the inverse of perf_attr.c / perf_sample.c.
 *
 * Field order is the kernel's perf_output_sample(), which evsel__parse_sample()
 * mirrors (AUX comes after the page sizes, whatever the uapi comment says).
 * Variable-length parts are padded the way the kernel pads them, with the
 * padded length written, because perf skips exactly the recorded length and
 * would misread every later field otherwise.
 */
#include "sy_bytes.h"
#include "sy_perf_writer.h"

/* Bounded output cursor; with p == NULL it only counts. */
struct sy_pw_out {
	uint8_t *p;
	size_t len;
	size_t cap;
};

static void sy_pw_out_put(struct sy_pw_out *o, const void *src, size_t n)
{
	if (o->p && o->len <= o->cap && n <= o->cap - o->len && n) {
		if (src)
			memcpy(o->p + o->len, src, n);
		else
			memset(o->p + o->len, 0, n);
	}
	o->len += n;
}

static void sy_pw_out_u64(struct sy_pw_out *o, uint64_t v)
{
	uint8_t b[8];

	sy_put64(b, v);
	sy_pw_out_put(o, b, 8);
}

static void sy_pw_out_u32x2(struct sy_pw_out *o, uint32_t a, uint32_t b)
{
	uint8_t buf[8];

	sy_put32(buf, a);
	sy_put32(buf + 4, b);
	sy_pw_out_put(o, buf, 8);
}

/* Data then zeros up to the next 8-byte boundary of the cursor. */
static void sy_pw_out_padded(struct sy_pw_out *o, const void *src, size_t n)
{
	sy_pw_out_put(o, src, n);
	sy_pw_out_put(o, NULL, (size_t)(SY_ALIGN8(o->len) - o->len));
}

static int sy_pw_out_end(const struct sy_pw_out *o)
{
	/* a body must also fit a record after the 8-byte header */
	if (o->len > SY_PERF_RECORD_MAX - SY_PERF_EVENT_HEADER_SIZE)
		return -SY_E_LIMIT;
	if (o->p && o->len > o->cap)
		return -SY_E_LIMIT;
	return (int)o->len;
}

static unsigned sy_pw_popcount(uint64_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

int sy_pw_attr_encode(const struct sy_perf_attr *a, uint32_t size,
		      uint8_t *dst)
{
	uint8_t buf[SY_ATTR_SIZE_KNOWN];

	if (!a || !dst || size < SY_ATTR_SIZE_VER0)
		return -SY_E_INVALID;
	memset(buf, 0, sizeof(buf));
	sy_put32(buf + SY_ATTR_OFF_TYPE, a->type);
	sy_put32(buf + SY_ATTR_OFF_SIZE, size);
	sy_put64(buf + SY_ATTR_OFF_CONFIG, a->config);
	sy_put64(buf + SY_ATTR_OFF_PERIOD, a->sample_period);
	sy_put64(buf + SY_ATTR_OFF_SAMPLE_TYPE, a->sample_type);
	sy_put64(buf + SY_ATTR_OFF_READ_FORMAT, a->read_format);
	sy_put64(buf + SY_ATTR_OFF_FLAGS, a->flags);
	sy_put32(buf + SY_ATTR_OFF_WAKEUP, a->wakeup_events);
	sy_put32(buf + SY_ATTR_OFF_BP_TYPE, a->bp_type);
	sy_put64(buf + SY_ATTR_OFF_CONFIG1, a->config1);
	sy_put64(buf + SY_ATTR_OFF_CONFIG2, a->config2);
	sy_put64(buf + SY_ATTR_OFF_BRANCH_SAMPLE_TYPE, a->branch_sample_type);
	sy_put64(buf + SY_ATTR_OFF_REGS_USER, a->sample_regs_user);
	sy_put32(buf + SY_ATTR_OFF_STACK_USER, a->sample_stack_user);
	sy_put32(buf + SY_ATTR_OFF_CLOCKID, (uint32_t)a->clockid);
	sy_put64(buf + SY_ATTR_OFF_REGS_INTR, a->sample_regs_intr);
	sy_put32(buf + SY_ATTR_OFF_AUX_WATERMARK, a->aux_watermark);
	sy_put16(buf + SY_ATTR_OFF_MAX_STACK, a->sample_max_stack);
	sy_put32(buf + SY_ATTR_OFF_AUX_SAMPLE_SIZE, a->aux_sample_size);
	sy_put32(buf + SY_ATTR_OFF_AUX_ACTION, a->aux_action);
	sy_put64(buf + SY_ATTR_OFF_SIG_DATA, a->sig_data);
	sy_put64(buf + SY_ATTR_OFF_CONFIG3, a->config3);
	sy_put64(buf + SY_ATTR_OFF_FIRST_PERIOD, a->first_period);

	if (size <= sizeof(buf)) {
		memcpy(dst, buf, size);
	} else {
		/* a newer ABI (VER9 config4...): fields we do not know are 0 */
		memcpy(dst, buf, sizeof(buf));
		memset(dst + sizeof(buf), 0, size - sizeof(buf));
	}
	return 0;
}

/* Bytes of a read_format value block, or 0 when @s is inconsistent. */
static size_t sy_pw_read_size(uint64_t fmt, const struct sy_sample *s)
{
	size_t per = 1 + !!(fmt & SY_READ_ID) + !!(fmt & SY_READ_LOST);
	size_t head = !!(fmt & SY_READ_TOTAL_TIME_ENABLED) +
		      !!(fmt & SY_READ_TOTAL_TIME_RUNNING);
	uint64_t nr;

	if (!(fmt & SY_READ_GROUP))
		return 8 * (head + per);
	if (!s->read || s->read_size < 8)
		return 0;
	nr = sy_le64(s->read);
	if (nr > SY_PERF_RECORD_MAX / 8)
		return 0;
	return 8 * (1 + head + (size_t)nr * per);
}

/* Kept whole: the fields are written in the ABI's order (sample_type
 * bit order), which only one straight pass keeps visible. */
int sy_pw_sample_encode(const struct sy_perf_attr *attr,
			const struct sy_sample *s, uint8_t *dst, size_t cap)
{
	struct sy_pw_out o = { dst, 0, cap };
	uint64_t t, bst, n;
	uint8_t b4[4];

	if (!attr || !s)
		return -SY_E_INVALID;
	t = attr->sample_type;
	bst = attr->branch_sample_type;
	if (t & ~SY_SAMPLE_KNOWN_MASK)
		return -SY_E_INVALID;

	if (t & SY_SAMPLE_IDENTIFIER)
		sy_pw_out_u64(&o, s->id);
	if (t & SY_SAMPLE_IP)
		sy_pw_out_u64(&o, s->ip);
	if (t & SY_SAMPLE_TID)
		sy_pw_out_u32x2(&o, s->pid, s->tid);
	if (t & SY_SAMPLE_TIME)
		sy_pw_out_u64(&o, s->time);
	if (t & SY_SAMPLE_ADDR)
		sy_pw_out_u64(&o, s->addr);
	if (t & SY_SAMPLE_ID)
		sy_pw_out_u64(&o, s->id);
	if (t & SY_SAMPLE_STREAM_ID)
		sy_pw_out_u64(&o, s->stream_id);
	if (t & SY_SAMPLE_CPU)
		sy_pw_out_u32x2(&o, s->cpu, s->cpu_res);
	if (t & SY_SAMPLE_PERIOD)
		sy_pw_out_u64(&o, s->period);
	if (t & SY_SAMPLE_READ) {
		n = sy_pw_read_size(attr->read_format, s);
		if (!n || n != s->read_size || !s->read)
			return -SY_E_INVALID;
		sy_pw_out_put(&o, s->read, (size_t)n);
	}
	if (t & SY_SAMPLE_CALLCHAIN) {
		n = s->callchain_nr;
		if (n && !s->callchain)
			return -SY_E_INVALID;
		if (n > SY_PERF_RECORD_MAX / 8)
			return -SY_E_LIMIT;
		sy_pw_out_u64(&o, n);
		sy_pw_out_put(&o, s->callchain, (size_t)n * 8);
	}
	if (t & SY_SAMPLE_RAW) {
		/* the kernel pads u32 size + data to 8 and counts the padding
		 * in size */
		n = SY_ALIGN8(4 + (uint64_t)s->raw_size) - 4;
		if (s->raw_size && !s->raw)
			return -SY_E_INVALID;
		if (n > SY_PERF_RECORD_MAX)
			return -SY_E_LIMIT;
		sy_put32(b4, (uint32_t)n);
		sy_pw_out_put(&o, b4, 4);
		sy_pw_out_padded(&o, s->raw, s->raw_size);
	}
	if (t & SY_SAMPLE_BRANCH_STACK) {
		n = s->branch_nr;
		if (n && !s->branches)
			return -SY_E_INVALID;
		if (n > SY_PERF_RECORD_MAX / 24)
			return -SY_E_LIMIT;
		sy_pw_out_u64(&o, n);
		if (bst & SY_BRANCH_HW_INDEX)
			sy_pw_out_u64(&o, s->branch_hw_idx);
		sy_pw_out_put(&o, s->branches, (size_t)n * 24);
		if (bst & SY_BRANCH_COUNTERS)
			sy_pw_out_put(&o, s->branch_counters, (size_t)n * 8);
	}
	if (t & SY_SAMPLE_REGS_USER) {
		sy_pw_out_u64(&o, s->regs_user_abi);
		if (s->regs_user_abi) {
			n = sy_pw_popcount(attr->sample_regs_user);
			if (n != s->regs_user_nr || (n && !s->regs_user))
				return -SY_E_INVALID;
			sy_pw_out_put(&o, s->regs_user, (size_t)n * 8);
		}
	}
	if (t & SY_SAMPLE_STACK_USER) {
		n = s->stack_user_size;
		if (n && !s->stack_user)
			return -SY_E_INVALID;
		if (n > SY_PERF_RECORD_MAX)
			return -SY_E_LIMIT;
		sy_pw_out_u64(&o, SY_ALIGN8(n));
		if (n) {
			sy_pw_out_padded(&o, s->stack_user, (size_t)n);
			sy_pw_out_u64(&o, s->stack_user_dyn_size);
		}
	}
	if (t & (SY_SAMPLE_WEIGHT | SY_SAMPLE_WEIGHT_STRUCT))
		sy_pw_out_u64(&o, s->weight);
	if (t & SY_SAMPLE_DATA_SRC)
		sy_pw_out_u64(&o, s->data_src);
	if (t & SY_SAMPLE_TRANSACTION)
		sy_pw_out_u64(&o, s->transaction);
	if (t & SY_SAMPLE_REGS_INTR) {
		sy_pw_out_u64(&o, s->regs_intr_abi);
		if (s->regs_intr_abi) {
			n = sy_pw_popcount(attr->sample_regs_intr);
			if (n != s->regs_intr_nr || (n && !s->regs_intr))
				return -SY_E_INVALID;
			sy_pw_out_put(&o, s->regs_intr, (size_t)n * 8);
		}
	}
	if (t & SY_SAMPLE_PHYS_ADDR)
		sy_pw_out_u64(&o, s->phys_addr);
	if (t & SY_SAMPLE_CGROUP)
		sy_pw_out_u64(&o, s->cgroup);
	if (t & SY_SAMPLE_DATA_PAGE_SIZE)
		sy_pw_out_u64(&o, s->data_page_size);
	if (t & SY_SAMPLE_CODE_PAGE_SIZE)
		sy_pw_out_u64(&o, s->code_page_size);
	if (t & SY_SAMPLE_AUX) {
		n = s->aux_size;
		if (n && !s->aux)
			return -SY_E_INVALID;
		if (n > SY_PERF_RECORD_MAX)
			return -SY_E_LIMIT;
		sy_pw_out_u64(&o, SY_ALIGN8(n));
		sy_pw_out_padded(&o, s->aux, (size_t)n);
	}
	return sy_pw_out_end(&o);
}

int sy_pw_sample_id_encode(const struct sy_perf_attr *attr,
			   const struct sy_sample *sid, uint8_t *dst,
			   size_t cap)
{
	static const struct sy_sample zero;
	struct sy_pw_out o = { dst, 0, cap };
	uint64_t t;

	if (!attr)
		return -SY_E_INVALID;
	if (!sy_attr_flag(attr, SY_ATTR_FLAG_SAMPLE_ID_ALL))
		return 0;
	if (!sid)
		sid = &zero;
	t = attr->sample_type;
	/* perf_event__id_header_size() order: the IDENTIFIER is last so
	 * that it sits at a fixed distance from the record's end */
	if (t & SY_SAMPLE_TID)
		sy_pw_out_u32x2(&o, sid->pid, sid->tid);
	if (t & SY_SAMPLE_TIME)
		sy_pw_out_u64(&o, sid->time);
	if (t & SY_SAMPLE_ID)
		sy_pw_out_u64(&o, sid->id);
	if (t & SY_SAMPLE_STREAM_ID)
		sy_pw_out_u64(&o, sid->stream_id);
	if (t & SY_SAMPLE_CPU)
		sy_pw_out_u32x2(&o, sid->cpu, sid->cpu_res);
	if (t & SY_SAMPLE_IDENTIFIER)
		sy_pw_out_u64(&o, sid->id);
	return sy_pw_out_end(&o);
}
