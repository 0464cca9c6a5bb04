/* perf.data writer: header features (file feature section, pipe
 * HEADER_FEATURE records). */
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

/* --- Features ----------------------------------------------------------- */

static int sy_pwi_feat_begin(struct sy_pw *w, int feat, struct sy_pwi_buf **b)
{
	if (!w || feat < 0 || feat >= SY_FEAT_BITS)
		return -SY_E_INVALID;
	if (w->err)
		return w->err;
	/* pipe mode writes features before the first record */
	if (w->finished || (w->cfg.pipe && w->started))
		return -SY_E_INVALID;
	w->feat[feat].len = 0;
	w->feat_state[feat] = PW_FEAT_PAYLOAD;
	*b = &w->feat[feat];
	return 0;
}

static int sy_pwi_feat_end(struct sy_pw *w, int feat, int err)
{
	if (err) {
		w->feat_state[feat] = PW_FEAT_UNSET;
		w->feat[feat].len = 0;
		return sy_pwi_fail(w, err);
	}
	return 0;
}

int sy_pw_feat_raw(struct sy_pw *w, int feat, const void *payload, size_t len)
{
	struct sy_pwi_buf *b;
	int err = sy_pwi_feat_begin(w, feat, &b);

	if (err)
		return err;
	if (len && !payload)
		return sy_pwi_feat_end(w, feat, -SY_E_INVALID);
	return sy_pwi_feat_end(w, feat, sy_pwi_buf_put(b, payload, len));
}

int sy_pw_feat_clear(struct sy_pw *w, int feat)
{
	struct sy_pwi_buf *b;
	int err = sy_pwi_feat_begin(w, feat, &b);

	if (!err)
		w->feat_state[feat] = PW_FEAT_CLEARED;
	return err;
}

int sy_pw_feat_string(struct sy_pw *w, int feat, const char *s)
{
	struct sy_pwi_buf *b;
	int err;

	switch (feat) {
	case SY_FEAT_HOSTNAME:
	case SY_FEAT_OSRELEASE:
	case SY_FEAT_VERSION:
	case SY_FEAT_ARCH:
	case SY_FEAT_CPUDESC:
	case SY_FEAT_CPUID:
		break;
	default:
		return -SY_E_INVALID;
	}
	if (!s)
		return -SY_E_INVALID;
	err = sy_pwi_feat_begin(w, feat, &b);
	if (err)
		return err;
	return sy_pwi_feat_end(w, feat, sy_pwi_buf_string(b, s));
}

int sy_pw_feat_nrcpus(struct sy_pw *w, uint32_t avail, uint32_t online)
{
	struct sy_pwi_buf *b;
	int err = sy_pwi_feat_begin(w, SY_FEAT_NRCPUS, &b);

	if (err)
		return err;
	err = sy_pwi_buf_u32(b, avail);
	if (!err)
		err = sy_pwi_buf_u32(b, online);
	return sy_pwi_feat_end(w, SY_FEAT_NRCPUS, err);
}

int sy_pw_feat_total_mem(struct sy_pw *w, uint64_t kib)
{
	struct sy_pwi_buf *b;
	int err = sy_pwi_feat_begin(w, SY_FEAT_TOTAL_MEM, &b);

	if (err)
		return err;
	return sy_pwi_feat_end(w, SY_FEAT_TOTAL_MEM, sy_pwi_buf_u64(b, kib));
}

int sy_pw_feat_cmdline(struct sy_pw *w, const char *const *argv,
		       uint32_t argc)
{
	struct sy_pwi_buf *b;
	uint32_t i;
	int err;

	if (argc && !argv)
		return -SY_E_INVALID;
	err = sy_pwi_feat_begin(w, SY_FEAT_CMDLINE, &b);
	if (err)
		return err;
	err = sy_pwi_buf_u32(b, argc);
	for (i = 0; i < argc && !err; i++)
		err = sy_pwi_buf_string(b, argv[i]);
	return sy_pwi_feat_end(w, SY_FEAT_CMDLINE, err);
}

/* One BUILD_ID entry (feature, type 0) or HEADER_BUILD_ID record (67):
 * perf_record_header_build_id, filename NUL-padded to NAME_ALIGN. */
int sy_pwi_build_id_encode(struct sy_pwi_buf *b, uint32_t type,
			      const struct sy_perf_build_id *id)
{
	const char *fn = id->filename ? id->filename : "";
	size_t n = strlen(fn) + 1;
	size_t len = (n + PW_NAME_ALIGN - 1) / PW_NAME_ALIGN * PW_NAME_ALIGN;
	uint8_t fixed[PW_BUILD_ID_FIXED];
	size_t idlen = sizeof(id->id);

	if (PW_BUILD_ID_FIXED + len > SY_PERF_RECORD_MAX)
		return -SY_E_LIMIT;
	memset(fixed, 0, sizeof(fixed));
	sy_put32(fixed, type);
	sy_put16(fixed + 4, id->misc);
	sy_put16(fixed + 6, (uint16_t)(PW_BUILD_ID_FIXED + len));
	sy_put32(fixed + 8, (uint32_t)id->pid);
	if (id->misc & SY_MISC_BUILD_ID_SIZE) {
		/* perf copies only the significant bytes */
		if (id->size < idlen)
			idlen = id->size;
		fixed[12 + 20] = id->size;
	}
	memcpy(fixed + 12, id->id, idlen);
	if (sy_pwi_buf_put(b, fixed, sizeof(fixed)) || sy_pwi_buf_put(b, fn, n) ||
	    sy_pwi_buf_put(b, NULL, len - n))
		return -SY_E_NOMEM;
	return 0;
}

int sy_pw_feat_build_id(struct sy_pw *w, const struct sy_perf_build_id *ids,
			uint32_t n)
{
	struct sy_pwi_buf *b;
	uint32_t i;
	int err;

	if (n && !ids)
		return -SY_E_INVALID;
	err = sy_pwi_feat_begin(w, SY_FEAT_BUILD_ID, &b);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++)
		err = sy_pwi_build_id_encode(b, 0, &ids[i]);
	return sy_pwi_feat_end(w, SY_FEAT_BUILD_ID, err);
}

int sy_pw_feat_event_desc(struct sy_pw *w)
{
	struct sy_pwi_buf *b;
	int err = sy_pwi_feat_begin(w, SY_FEAT_EVENT_DESC, &b);

	if (!err)
		w->feat_state[SY_FEAT_EVENT_DESC] = PW_FEAT_AUTO;
	return err;
}

/* EVENT_DESC (header.c write_event_desc): u32 nr, u32 attr size, then per
 * event the attr, u32 nr_ids, the name string and the ids. */
static int sy_pwi_event_desc_build(struct sy_pw *w, struct sy_pwi_buf *b)
{
	uint32_t size = w->nr_attrs ? w->attrs[0].attr.size : w->cfg.attr_size;
	uint32_t i, j;
	int err;

	b->len = 0;
	err = sy_pwi_buf_u32(b, w->nr_attrs);
	if (!err)
		err = sy_pwi_buf_u32(b, size);
	for (i = 0; i < w->nr_attrs && !err; i++) {
		const struct sy_perf_attr *a = &w->attrs[i].attr;

		err = sy_pwi_buf_reserve(b, size);
		if (err)
			break;
		err = sy_pw_attr_encode(a, size, b->p + b->len);
		if (err)
			break;
		b->len += size;
		err = sy_pwi_buf_u32(b, a->nr_ids);
		if (!err)
			err = sy_pwi_buf_string(b, a->name);
		for (j = 0; j < a->nr_ids && !err; j++)
			err = sy_pwi_buf_u64(b, a->ids[j]);
	}
	return err;
}

int sy_pw_feat_pmu_mappings(struct sy_pw *w, const struct sy_perf_pmu *pmus,
			    uint32_t n)
{
	struct sy_pwi_buf *b;
	uint32_t i;
	int err;

	if (n && !pmus)
		return -SY_E_INVALID;
	err = sy_pwi_feat_begin(w, SY_FEAT_PMU_MAPPINGS, &b);
	if (err)
		return err;
	err = sy_pwi_buf_u32(b, n);
	for (i = 0; i < n && !err; i++) {
		err = sy_pwi_buf_u32(b, pmus[i].type);
		if (!err)
			err = sy_pwi_buf_string(b, pmus[i].name);
	}
	return sy_pwi_feat_end(w, SY_FEAT_PMU_MAPPINGS, err);
}

int sy_pw_feat_group_desc(struct sy_pw *w, const struct sy_pw_group *groups,
			  uint32_t n)
{
	struct sy_pwi_buf *b;
	uint32_t i;
	int err;

	if (n && !groups)
		return -SY_E_INVALID;
	err = sy_pwi_feat_begin(w, SY_FEAT_GROUP_DESC, &b);
	if (err)
		return err;
	err = sy_pwi_buf_u32(b, n);
	for (i = 0; i < n && !err; i++) {
		err = sy_pwi_buf_string(b, groups[i].name);
		if (!err)
			err = sy_pwi_buf_u32(b, groups[i].leader_idx);
		if (!err)
			err = sy_pwi_buf_u32(b, groups[i].nr_members);
	}
	return sy_pwi_feat_end(w, SY_FEAT_GROUP_DESC, err);
}

int sy_pw_feat_sample_time(struct sy_pw *w, uint64_t first, uint64_t last)
{
	struct sy_pwi_buf *b;
	int err = sy_pwi_feat_begin(w, SY_FEAT_SAMPLE_TIME, &b);

	if (err)
		return err;
	err = sy_pwi_buf_u64(b, first);
	if (!err)
		err = sy_pwi_buf_u64(b, last);
	return sy_pwi_feat_end(w, SY_FEAT_SAMPLE_TIME, err);
}

int sy_pw_feat_clockid(struct sy_pw *w, uint64_t res_ns)
{
	struct sy_pwi_buf *b;
	int err = sy_pwi_feat_begin(w, SY_FEAT_CLOCKID, &b);

	if (err)
		return err;
	return sy_pwi_feat_end(w, SY_FEAT_CLOCKID, sy_pwi_buf_u64(b, res_ns));
}

int sy_pw_feat_clock_data(struct sy_pw *w, uint32_t clockid,
			  uint64_t wall_clock_ns, uint64_t clockid_time_ns)
{
	struct sy_pwi_buf *b;
	int err = sy_pwi_feat_begin(w, SY_FEAT_CLOCK_DATA, &b);

	if (err)
		return err;
	err = sy_pwi_buf_u32(b, 1);
	if (!err)
		err = sy_pwi_buf_u32(b, clockid);
	if (!err)
		err = sy_pwi_buf_u64(b, wall_clock_ns);
	if (!err)
		err = sy_pwi_buf_u64(b, clockid_time_ns);
	return sy_pwi_feat_end(w, SY_FEAT_CLOCK_DATA, err);
}

static int sy_pwi_compressed_encode(struct sy_pwi_buf *b, uint32_t version,
				uint32_t type, uint32_t level, uint32_t ratio,
				uint32_t mmap_len)
{
	uint32_t v[5] = { version, type, level, ratio, mmap_len };
	int err = 0;
	size_t i;

	b->len = 0;
	for (i = 0; i < SY_ARRAY_SIZE(v) && !err; i++)
		err = sy_pwi_buf_u32(b, v[i]);
	return err;
}

int sy_pw_feat_compressed(struct sy_pw *w, uint32_t version, uint32_t type,
			  uint32_t level, uint32_t ratio, uint32_t mmap_len)
{
	struct sy_pwi_buf *b;
	int err = sy_pwi_feat_begin(w, SY_FEAT_COMPRESSED, &b);

	if (err)
		return err;
	return sy_pwi_feat_end(w, SY_FEAT_COMPRESSED,
			   sy_pwi_compressed_encode(b, version, type, level, ratio,
						mmap_len));
}

/* Fills the automatic payloads: EVENT_DESC, COMPRESSED, and in file mode
 * the AUXTRACE index.  @final: the end of the file (ratio known). */
int sy_pwi_feat_auto(struct sy_pw *w, int final)
{
	struct sy_pwi_buf *b;
	int err = 0;
	size_t i;

	if (w->feat_state[SY_FEAT_EVENT_DESC] == PW_FEAT_AUTO) {
		err = sy_pwi_event_desc_build(w, &w->feat[SY_FEAT_EVENT_DESC]);
		if (err)
			return err;
	}
	if (w->cfg.compress &&
	    (w->feat_state[SY_FEAT_COMPRESSED] == PW_FEAT_UNSET ||
	     w->feat_state[SY_FEAT_COMPRESSED] == PW_FEAT_AUTO)) {
		uint32_t ratio = 0;

		/* builtin-record.c: comp_ratio = transferred / compressed
		 * + 0.5, known only at the end */
		if (final && w->stats.bytes_out)
			ratio = (uint32_t)((w->stats.bytes_in +
					    w->stats.bytes_out / 2) /
					   w->stats.bytes_out);
		b = &w->feat[SY_FEAT_COMPRESSED];
		err = sy_pwi_compressed_encode(b, 0, SY_COMP_ZSTD,
					   (uint32_t)w->cfg.zstd_level, ratio,
					   w->cfg.comp_mmap_len);
		if (err)
			return err;
		/* marked automatic so a later call refreshes the ratio */
		w->feat_state[SY_FEAT_COMPRESSED] = PW_FEAT_AUTO;
	}
	if (w->cfg.pipe || !final)
		return 0;
	if (w->feat_state[SY_FEAT_AUXTRACE] != PW_FEAT_UNSET)
		return 0;
	if (w->cfg.auxtrace_index == SY_PW_INDEX_NONE ||
	    (w->cfg.auxtrace_index == SY_PW_INDEX_AUTO && !w->nr_index))
		return 0;
	b = &w->feat[SY_FEAT_AUXTRACE];
	b->len = 0;
	if (w->cfg.auxtrace_index != SY_PW_INDEX_SIMPLEPERF)
		err = sy_pwi_buf_u64(b, w->nr_index);
	/* offsets become absolute in sy_pw_finish once the data offset is
	 * known; store them relative for now */
	for (i = 0; i < w->nr_index && !err; i++) {
		err = sy_pwi_buf_u64(b, w->index[i]);
		if (!err)
			err = sy_pwi_buf_u64(b, SY_AUXTRACE_RECORD_SIZE);
	}
	w->stats.nr_auxtrace_index = w->nr_index;
	w->feat_state[SY_FEAT_AUXTRACE] = PW_FEAT_AUTO;
	return err;
}

int sy_pwi_feat_is_set(const struct sy_pw *w, int feat)
{
	return w->feat_state[feat] == PW_FEAT_PAYLOAD ||
	       w->feat_state[feat] == PW_FEAT_AUTO;
}

