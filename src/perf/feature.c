/* Header feature payloads (tools/perf/util/header.c formats).
 *
 * Feature sections come from other machines: every count is checked against
 * the bytes that are left before anything is allocated, and a bad section
 * only loses that feature (the caller turns the error into a warning). */
#include <inttypes.h>

#include "feature_impl.h"
#include "sy_bytes.h"

struct sy_fcur {
	const uint8_t *p;
	uint64_t left;
	uint64_t off; /* file offset of p */
};

#define SY_FBAD(what)                                                      \
	sy_diag_set(diag, c->off, -SY_E_BAD_FEATURE, "%s feature: %s", name, \
		    what)

static int sy_fc_take(struct sy_fcur *c, uint64_t n, const uint8_t **out)
{
	if (n > c->left)
		return -1;
	*out = c->p;
	c->p += n;
	c->left -= n;
	c->off += n;
	return 0;
}

static int sy_fc_u32(struct sy_fcur *c, uint32_t *v)
{
	const uint8_t *p;

	if (sy_fc_take(c, 4, &p))
		return -1;
	*v = sy_le32(p);
	return 0;
}

static int sy_fc_u64(struct sy_fcur *c, uint64_t *v)
{
	const uint8_t *p;

	if (sy_fc_take(c, 8, &p))
		return -1;
	*v = sy_le64(p);
	return 0;
}

/* perf_header_string: u32 len, then len bytes holding a NUL-terminated
 * string padded with zeros. */
static int sy_fc_str(struct sy_fcur *c, struct sy_arena *a, const char **out)
{
	uint32_t len;
	const uint8_t *p;

	if (sy_fc_u32(c, &len) || sy_fc_take(c, len, &p))
		return -1;
	*out = sy_arena_strndup(a, (const char *)p, len);
	return *out ? 0 : -2;
}

static int sy_feat_strlist(struct sy_fcur *c, struct sy_arena *a,
			   const char *const **out, uint32_t *nr)
{
	uint32_t n;
	const char **v;

	if (sy_fc_u32(c, &n))
		return -1;
	/* each string needs at least its 4-byte length */
	if (n > c->left / 4)
		return -1;
	v = sy_arena_alloc(a, (size_t)n * sizeof(*v) + 1);
	if (!v)
		return -2;
	for (uint32_t i = 0; i < n; i++) {
		int err = sy_fc_str(c, a, &v[i]);
		if (err)
			return err;
	}
	*out = v;
	*nr = n;
	return 0;
}

static int sy_feat_build_ids(struct sy_feat_state *st, struct sy_fcur *c,
			     const char *name, struct sy_diag *diag)
{
	/* Two passes: count, then fill, so the array is allocated once. */
	struct sy_fcur scan = *c;
	uint32_t n = 0;
	struct sy_perf_build_id *v;

	while (scan.left) {
		const uint8_t *p;
		uint16_t size;

		if (scan.left < 8)
			return sy_diag_set(diag, scan.off, -SY_E_BAD_FEATURE,
					   "%s feature: truncated entry", name);
		size = sy_le16(scan.p + 6);
		if (size < 8 + 4 + 24 || size > scan.left)
			return sy_diag_set(diag, scan.off, -SY_E_BAD_FEATURE,
					   "%s feature: entry size %u is "
					   "invalid", name, size);
		sy_fc_take(&scan, size, &p);
		n++;
	}
	v = sy_arena_alloc(st->arena, (size_t)n * sizeof(*v) + 1);
	if (!v)
		return -SY_E_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *p = c->p;
		uint16_t size = sy_le16(c->p + 6);

		sy_fc_take(c, size, &p);
		v[i].misc = sy_le16(p + 4);
		v[i].pid = (int32_t)sy_le32(p + 8);
		memcpy(v[i].id, p + 12, 20);
		/* MISC_BUILD_ID_SIZE: byte 20 of build_id[24] holds the size;
		 * otherwise perf treats the id as 20 bytes. */
		if (v[i].misc & SY_MISC_BUILD_ID_SIZE) {
			v[i].size = p[12 + 20];
			if (v[i].size > 20)
				v[i].size = 20;
		} else {
			v[i].size = 20;
		}
		v[i].filename = sy_arena_strndup(st->arena,
						 (const char *)p + 36,
						 (size_t)size - 36);
		if (!v[i].filename)
			return -SY_E_NOMEM;
	}
	st->f->build_ids = v;
	st->f->nr_build_ids = n;
	return 0;
}

static int sy_feat_event_desc(struct sy_feat_state *st, struct sy_fcur *c,
			      const char *name, struct sy_diag *diag)
{
	uint32_t nr, attr_size;
	struct sy_event_desc *d;

	if (sy_fc_u32(c, &nr) || sy_fc_u32(c, &attr_size))
		return SY_FBAD("truncated header");
	if (attr_size < SY_ATTR_SIZE_VER0 || nr > c->left / attr_size)
		return SY_FBAD("implausible event count or attr size");
	d = sy_arena_alloc(st->arena, (size_t)nr * sizeof(*d) + 1);
	if (!d)
		return -SY_E_NOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		const uint8_t *p;
		uint32_t nr_ids;
		int err;

		if (sy_fc_take(c, attr_size, &p) || sy_fc_u32(c, &nr_ids))
			return SY_FBAD("truncated event");
		err = sy_fc_str(c, st->arena, &d[i].name);
		if (err == -2)
			return -SY_E_NOMEM;
		if (err || nr_ids > c->left / 8)
			return SY_FBAD("truncated event name or ids");
		if (nr_ids) {
			d[i].first_id = sy_le64(c->p);
			d[i].has_id = 1;
		}
		sy_fc_take(c, (uint64_t)nr_ids * 8, &p);
	}
	st->descs = d;
	st->nr_descs = nr;
	return 0;
}

static int sy_feat_pmus(struct sy_feat_state *st, struct sy_fcur *c,
			const char *name, struct sy_diag *diag)
{
	uint32_t nr;
	struct sy_perf_pmu *v;

	if (sy_fc_u32(c, &nr) || nr > c->left / 8)
		return SY_FBAD("implausible PMU count");
	v = sy_arena_alloc(st->arena, (size_t)nr * sizeof(*v) + 1);
	if (!v)
		return -SY_E_NOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		int err;

		if (sy_fc_u32(c, &v[i].type))
			return SY_FBAD("truncated entry");
		err = sy_fc_str(c, st->arena, &v[i].name);
		if (err == -2)
			return -SY_E_NOMEM;
		if (err)
			return SY_FBAD("truncated name");
	}
	st->f->pmus = v;
	st->f->nr_pmus = nr;
	return 0;
}

static int sy_feat_auxtrace(struct sy_feat_state *st, struct sy_fcur *c,
			    const char *name, struct sy_diag *diag)
{
	uint64_t nr;
	const uint8_t *p;

	/* perf writes u64 nr first (size % 16 == 8); simpleperf writes the
	 * pairs alone (size % 16 == 0), so the two never collide. */
	if (c->left % 16 == 8) {
		sy_fc_u64(c, &nr);
		if (nr != c->left / 16)
			return SY_FBAD("entry count disagrees with its size");
	} else if (c->left % 16 == 0) {
		nr = c->left / 16;
		st->f->auxtrace_index_no_count = 1;
	} else {
		return SY_FBAD("size is not a whole number of entries");
	}
	/* only the count is kept: the walk finds every AUXTRACE record in
	 * order, and the entries (16 bytes each, one per payload) made the
	 * heap grow with the recording */
	sy_fc_take(c, c->left, &p);
	st->f->nr_auxtrace_index = (uint32_t)nr;
	return 0;
}

int sy_feat_parse(struct sy_feat_state *st, int bit, const uint8_t *p,
		  uint64_t len, uint64_t off, struct sy_diag *diag)
{
	struct sy_perf_features *f = st->f;
	struct sy_fcur cur = { p, len, off }, *c = &cur;
	const char *name = sy_feature_name(bit);
	const char **str = NULL;
	int err = 0;

	if (!name)
		return 1;
	switch (bit) {
	case SY_FEAT_HOSTNAME:
		str = &f->hostname;
		break;
	case SY_FEAT_OSRELEASE:
		str = &f->osrelease;
		break;
	case SY_FEAT_VERSION:
		str = &f->version;
		break;
	case SY_FEAT_ARCH:
		str = &f->arch;
		break;
	case SY_FEAT_CPUDESC:
		str = &f->cpudesc;
		break;
	case SY_FEAT_CPUID:
		str = &f->cpuid;
		break;
	case SY_FEAT_NRCPUS:
		if (sy_fc_u32(c, &f->nr_cpus_avail) ||
		    sy_fc_u32(c, &f->nr_cpus_online))
			return SY_FBAD("truncated");
		break;
	case SY_FEAT_TOTAL_MEM:
		if (sy_fc_u64(c, &f->total_mem))
			return SY_FBAD("truncated");
		break;
	case SY_FEAT_CMDLINE:
		err = sy_feat_strlist(c, st->arena, &f->cmdline,
				      &f->nr_cmdline);
		if (err == -2)
			return -SY_E_NOMEM;
		if (err)
			return SY_FBAD("truncated or implausible count");
		break;
	case SY_FEAT_BUILD_ID:
		err = sy_feat_build_ids(st, c, name, diag);
		break;
	case SY_FEAT_EVENT_DESC:
		err = sy_feat_event_desc(st, c, name, diag);
		break;
	case SY_FEAT_PMU_MAPPINGS:
		err = sy_feat_pmus(st, c, name, diag);
		break;
	case SY_FEAT_AUXTRACE:
		err = sy_feat_auxtrace(st, c, name, diag);
		break;
	case SY_FEAT_SAMPLE_TIME:
		if (sy_fc_u64(c, &f->first_sample_time) ||
		    sy_fc_u64(c, &f->last_sample_time))
			return SY_FBAD("truncated");
		break;
	case SY_FEAT_CLOCKID:
		if (sy_fc_u64(c, &f->clockid_res_ns))
			return SY_FBAD("truncated");
		break;
	case SY_FEAT_COMPRESSED:
		if (sy_fc_u32(c, &f->compressed.version) ||
		    sy_fc_u32(c, &f->compressed.type) ||
		    sy_fc_u32(c, &f->compressed.level) ||
		    sy_fc_u32(c, &f->compressed.ratio) ||
		    sy_fc_u32(c, &f->compressed.mmap_len))
			return SY_FBAD("truncated");
		break;
	case SY_FEAT_CLOCK_DATA:
		if (sy_fc_u32(c, &f->clock_data.version) ||
		    sy_fc_u32(c, &f->clock_data.clockid) ||
		    sy_fc_u64(c, &f->clock_data.wall_clock_ns) ||
		    sy_fc_u64(c, &f->clock_data.clockid_time_ns))
			return SY_FBAD("truncated");
		break;
	default:
		/* Present but not interpreted: topology, caches, BPF... */
		return 1;
	}
	if (str) {
		err = sy_fc_str(c, st->arena, str);
		if (err == -2)
			return -SY_E_NOMEM;
		if (err)
			return SY_FBAD("truncated string");
	}
	if (err)
		return err;
	f->present[bit / 64] |= 1ULL << (bit % 64);
	return 0;
}

const char *sy_feature_name(int bit)
{
	switch (bit) {
#define SY_FEAT_CASE(name, b) \
	case b:               \
		return #name;
		SY_FEATURES(SY_FEAT_CASE)
#undef SY_FEAT_CASE
	default:
		return NULL;
	}
}
