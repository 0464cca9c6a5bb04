/* PERF_RECORD_SAMPLE bodies and sample_id trailers.
 *
 * Field order follows the kernel's perf_output_sample(), which differs from
 * the uapi comment (AUX comes after the page sizes).  Every variable-length
 * part is bounds-checked against the record before it is referenced. */
#include <inttypes.h>
#include <stdio.h>

#include "sy_bytes.h"
#include "sy_perf_reader.h"

struct sy_cursor {
	const uint8_t *p;
	const uint8_t *end;
};

static int sy_cur_take(struct sy_cursor *c, uint64_t n, const uint8_t **out)
{
	if (n > (uint64_t)(c->end - c->p))
		return -1;
	*out = c->p;
	c->p += n;
	return 0;
}

static int sy_cur_u64(struct sy_cursor *c, uint64_t *v)
{
	const uint8_t *p;

	if (sy_cur_take(c, 8, &p))
		return -1;
	*v = sy_le64(p);
	return 0;
}

static int sy_cur_u32x2(struct sy_cursor *c, uint32_t *a, uint32_t *b)
{
	const uint8_t *p;

	if (sy_cur_take(c, 8, &p))
		return -1;
	*a = sy_le32(p);
	*b = sy_le32(p + 4);
	return 0;
}

static unsigned sy_popcount64(uint64_t v)
{
	return (unsigned)__builtin_popcountll(v);
}

/* Bytes of a READ value for @read_format. */
static int sy_read_size(struct sy_cursor *c, uint64_t fmt, uint64_t *size)
{
	uint64_t per = 1 + !!(fmt & SY_READ_ID) + !!(fmt & SY_READ_LOST);
	uint64_t hdr = !!(fmt & SY_READ_TOTAL_TIME_ENABLED) +
		       !!(fmt & SY_READ_TOTAL_TIME_RUNNING);

	if (fmt & SY_READ_GROUP) {
		uint64_t nr;
		const uint8_t *p = c->p;

		if ((uint64_t)(c->end - p) < 8)
			return -1;
		nr = sy_le64(p);
		/* nr + header words + nr * per, without overflowing */
		if (nr > (uint64_t)(c->end - p) / 8)
			return -1;
		*size = (1 + hdr + nr * per) * 8;
	} else {
		*size = (hdr + per) * 8;
	}
	return 0;
}

#define SY_NEED(expr, what)                                                  \
	do {                                                                 \
		if (expr)                                                    \
			return sy_diag_set(diag, offset, -SY_E_BAD_SAMPLE,   \
					   "sample: %s runs past the end of " \
					   "the %zu-byte record", what, size); \
	} while (0)

/* Kept whole: the fields are read in the ABI's order (sample_type bit
 * order), which only one straight pass keeps visible. */
int sy_sample_parse(const struct sy_perf_attr *attr, const uint8_t *rec,
		    size_t size, struct sy_sample *s, struct sy_diag *diag,
		    uint64_t offset)
{
	struct sy_cursor c = { rec + SY_PERF_EVENT_HEADER_SIZE, rec + size };
	uint64_t t = attr->sample_type;
	const uint8_t *p;
	uint64_t n;

	memset(s, 0, sizeof(*s));
	s->type = t;
	if (size < SY_PERF_EVENT_HEADER_SIZE)
		return sy_diag_set(diag, offset, -SY_E_BAD_SAMPLE,
				   "sample: record smaller than its header");
	if (t & ~SY_SAMPLE_KNOWN_MASK)
		return sy_diag_set(diag, offset, -SY_E_BAD_SAMPLE,
				   "sample: unknown sample_type bits %#" PRIx64,
				   (uint64_t)(t & ~SY_SAMPLE_KNOWN_MASK));

	if (t & SY_SAMPLE_IDENTIFIER)
		SY_NEED(sy_cur_u64(&c, &s->id), "IDENTIFIER");
	if (t & SY_SAMPLE_IP)
		SY_NEED(sy_cur_u64(&c, &s->ip), "IP");
	if (t & SY_SAMPLE_TID)
		SY_NEED(sy_cur_u32x2(&c, &s->pid, &s->tid), "TID");
	if (t & SY_SAMPLE_TIME)
		SY_NEED(sy_cur_u64(&c, &s->time), "TIME");
	if (t & SY_SAMPLE_ADDR)
		SY_NEED(sy_cur_u64(&c, &s->addr), "ADDR");
	if (t & SY_SAMPLE_ID)
		SY_NEED(sy_cur_u64(&c, &s->id), "ID");
	if (t & SY_SAMPLE_STREAM_ID)
		SY_NEED(sy_cur_u64(&c, &s->stream_id), "STREAM_ID");
	if (t & SY_SAMPLE_CPU)
		SY_NEED(sy_cur_u32x2(&c, &s->cpu, &s->cpu_res), "CPU");
	if (t & SY_SAMPLE_PERIOD)
		SY_NEED(sy_cur_u64(&c, &s->period), "PERIOD");
	if (t & SY_SAMPLE_READ) {
		SY_NEED(sy_read_size(&c, attr->read_format, &n), "READ");
		SY_NEED(sy_cur_take(&c, n, &s->read), "READ");
		s->read_size = n;
	}
	if (t & SY_SAMPLE_CALLCHAIN) {
		SY_NEED(sy_cur_u64(&c, &s->callchain_nr), "CALLCHAIN nr");
		SY_NEED(s->callchain_nr > (uint64_t)(c.end - c.p) / 8,
			"CALLCHAIN");
		SY_NEED(sy_cur_take(&c, s->callchain_nr * 8, &s->callchain),
			"CALLCHAIN");
	}
	if (t & SY_SAMPLE_RAW) {
		SY_NEED(sy_cur_take(&c, 4, &p), "RAW size");
		s->raw_size = sy_le32(p);
		SY_NEED(sy_cur_take(&c, s->raw_size, &s->raw), "RAW");
		/* u32 size + data are padded to 8 together */
		n = SY_ALIGN8(4 + (uint64_t)s->raw_size) - 4 - s->raw_size;
		SY_NEED(sy_cur_take(&c, n, &p), "RAW padding");
	}
	if (t & SY_SAMPLE_BRANCH_STACK) {
		SY_NEED(sy_cur_u64(&c, &s->branch_nr), "BRANCH_STACK nr");
		if (attr->branch_sample_type & SY_BRANCH_HW_INDEX) {
			s->branch_has_hw_idx = 1;
			SY_NEED(sy_cur_u64(&c, &s->branch_hw_idx),
				"BRANCH_STACK hw_idx");
		}
		SY_NEED(s->branch_nr > (uint64_t)(c.end - c.p) / 24,
			"BRANCH_STACK");
		SY_NEED(sy_cur_take(&c, s->branch_nr * 24, &s->branches),
			"BRANCH_STACK");
		if (attr->branch_sample_type & SY_BRANCH_COUNTERS)
			SY_NEED(sy_cur_take(&c, s->branch_nr * 8,
					    &s->branch_counters),
				"BRANCH_STACK counters");
	}
	if (t & SY_SAMPLE_REGS_USER) {
		SY_NEED(sy_cur_u64(&c, &s->regs_user_abi), "REGS_USER abi");
		if (s->regs_user_abi) {
			s->regs_user_nr = sy_popcount64(attr->sample_regs_user);
			SY_NEED(sy_cur_take(&c, (uint64_t)s->regs_user_nr * 8,
					    &s->regs_user),
				"REGS_USER");
		}
	}
	if (t & SY_SAMPLE_STACK_USER) {
		SY_NEED(sy_cur_u64(&c, &s->stack_user_size), "STACK_USER size");
		if (s->stack_user_size) {
			SY_NEED(sy_cur_take(&c, s->stack_user_size,
					    &s->stack_user),
				"STACK_USER");
			SY_NEED(sy_cur_u64(&c, &s->stack_user_dyn_size),
				"STACK_USER dyn_size");
		}
	}
	if (t & (SY_SAMPLE_WEIGHT | SY_SAMPLE_WEIGHT_STRUCT))
		SY_NEED(sy_cur_u64(&c, &s->weight), "WEIGHT");
	if (t & SY_SAMPLE_DATA_SRC)
		SY_NEED(sy_cur_u64(&c, &s->data_src), "DATA_SRC");
	if (t & SY_SAMPLE_TRANSACTION)
		SY_NEED(sy_cur_u64(&c, &s->transaction), "TRANSACTION");
	if (t & SY_SAMPLE_REGS_INTR) {
		SY_NEED(sy_cur_u64(&c, &s->regs_intr_abi), "REGS_INTR abi");
		if (s->regs_intr_abi) {
			s->regs_intr_nr = sy_popcount64(attr->sample_regs_intr);
			SY_NEED(sy_cur_take(&c, (uint64_t)s->regs_intr_nr * 8,
					    &s->regs_intr),
				"REGS_INTR");
		}
	}
	if (t & SY_SAMPLE_PHYS_ADDR)
		SY_NEED(sy_cur_u64(&c, &s->phys_addr), "PHYS_ADDR");
	if (t & SY_SAMPLE_CGROUP)
		SY_NEED(sy_cur_u64(&c, &s->cgroup), "CGROUP");
	if (t & SY_SAMPLE_DATA_PAGE_SIZE)
		SY_NEED(sy_cur_u64(&c, &s->data_page_size), "DATA_PAGE_SIZE");
	if (t & SY_SAMPLE_CODE_PAGE_SIZE)
		SY_NEED(sy_cur_u64(&c, &s->code_page_size), "CODE_PAGE_SIZE");
	if (t & SY_SAMPLE_AUX) {
		SY_NEED(sy_cur_u64(&c, &s->aux_size), "AUX size");
		SY_NEED(sy_cur_take(&c, s->aux_size, &s->aux), "AUX");
	}
	return 0;
}

size_t sy_sample_id_size(const struct sy_perf_attr *attr)
{
	uint64_t t = attr->sample_type;
	size_t n = 0;

	if (!sy_attr_flag(attr, SY_ATTR_FLAG_SAMPLE_ID_ALL))
		return 0;
	n += !!(t & SY_SAMPLE_TID);
	n += !!(t & SY_SAMPLE_TIME);
	n += !!(t & SY_SAMPLE_ID);
	n += !!(t & SY_SAMPLE_STREAM_ID);
	n += !!(t & SY_SAMPLE_CPU);
	n += !!(t & SY_SAMPLE_IDENTIFIER);
	return n * 8;
}

int sy_sample_id_parse(const struct sy_perf_attr *attr, const uint8_t *rec,
		       size_t size, size_t body_min, struct sy_sample *s)
{
	size_t n = sy_sample_id_size(attr);
	uint64_t t = attr->sample_type;
	struct sy_cursor c;

	memset(s, 0, sizeof(*s));
	s->type = t;
	if (!n)
		return 0;
	if (size < SY_PERF_EVENT_HEADER_SIZE + body_min + n)
		return -SY_E_BAD_RECORD;
	c.p = rec + size - n;
	c.end = rec + size;
	/* sizes were checked above, so the takes below cannot fail */
	if (t & SY_SAMPLE_TID)
		sy_cur_u32x2(&c, &s->pid, &s->tid);
	if (t & SY_SAMPLE_TIME)
		sy_cur_u64(&c, &s->time);
	if (t & SY_SAMPLE_ID)
		sy_cur_u64(&c, &s->id);
	if (t & SY_SAMPLE_STREAM_ID)
		sy_cur_u64(&c, &s->stream_id);
	if (t & SY_SAMPLE_CPU)
		sy_cur_u32x2(&c, &s->cpu, &s->cpu_res);
	if (t & SY_SAMPLE_IDENTIFIER)
		sy_cur_u64(&c, &s->id);
	return 1;
}

const char *sy_sample_type_str(uint64_t type, char *buf, size_t len)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
#define SY_SAMPLE_NAME(name, bit) { 1ULL << (bit), #name },
		SY_SAMPLE_TYPES(SY_SAMPLE_NAME)
#undef SY_SAMPLE_NAME
	};
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (size_t i = 0; i < SY_ARRAY_SIZE(names); i++) {
		if (!(type & names[i].bit))
			continue;
		type &= ~names[i].bit;
		int w = snprintf(buf + used, len - used, "%s%s",
				 used ? "|" : "", names[i].name);
		if (w < 0 || (size_t)w >= len - used)
			return buf;
		used += (size_t)w;
	}
	if (type && used < len)
		snprintf(buf + used, len - used, "%s%#" PRIx64, used ? "|" : "",
			 type);
	return buf;
}
