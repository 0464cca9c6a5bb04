/* perf.data writer: file and pipe layout, features, records, compression.
 *
 * Everything is built in memory.  Records go to @data (the data section, or
 * the pipe stream after its header) as they are written; the file around it
 * (header, ids, attrs, feature table) is assembled by sy_pw_finish(), which
 * is why the AUXTRACE index stores offsets relative to the data section.
 *
 * Compression follows perf's util/zstd.c: one ZSTD_CCtx for the whole file,
 * each batch pushed with ZSTD_e_flush (so everything fed so far can be
 * decoded from what was emitted) and never ended, the output cut into
 * records of at most comp_max_payload bytes.  Batches end at byte counts,
 * not at record boundaries, exactly like perf's pushes of ring-buffer
 * chunks, so records straddle compressed records.
 */
#include "sy_perf_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "sy_bytes.h"

/* perf's PERF_SAMPLE_MAX_SIZE and the record header sizes it subtracts. */
#define PW_SAMPLE_MAX_SIZE 65536u
#define PW_COMP_MAX_81 (PW_SAMPLE_MAX_SIZE - 8 - 1)
/* 16-byte header plus up to 7 bytes of padding must stay below 65536. */
#define PW_COMP_MAX_83 (PW_SAMPLE_MAX_SIZE - 16 - 8 - 1)
#define PW_DEFAULT_MMAP_LEN (129u * 4096u)
#define PW_NAME_ALIGN 64	/* perf's NAME_ALIGN for strings and build-ids */
#define PW_BUILD_ID_FIXED 36	/* header, pid, build_id[24] */
#define PW_SCRATCH (SY_PERF_RECORD_MAX + 1)

/* --- Growable buffer ----------------------------------------------------- */

struct pw_buf {
	uint8_t *p;
	size_t len;
	size_t cap;
};

static void pw_buf_fini(struct pw_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static int pw_buf_reserve(struct pw_buf *b, size_t extra)
{
	size_t cap;
	uint8_t *p;

	if (extra <= b->cap - b->len)
		return 0;
	if (extra > SIZE_MAX / 2 - b->len)
		return -SY_E_NOMEM;
	cap = b->cap ? b->cap : 4096;
	while (cap - b->len < extra)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -SY_E_NOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

/* Appends @n bytes of @src, or zeros when @src is NULL. */
static int pw_buf_put(struct pw_buf *b, const void *src, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = pw_buf_reserve(b, n);
	if (err)
		return err;
	if (src)
		memcpy(b->p + b->len, src, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
	return 0;
}

static int pw_buf_u32(struct pw_buf *b, uint32_t v)
{
	uint8_t x[4];

	sy_put32(x, v);
	return pw_buf_put(b, x, 4);
}

static int pw_buf_u64(struct pw_buf *b, uint64_t v)
{
	uint8_t x[8];

	sy_put64(x, v);
	return pw_buf_put(b, x, 8);
}

/* perf_header string: u32 len (strlen + 1 rounded up to 64), then the
 * string NUL-padded to len (header.c do_write_string). */
static int pw_buf_string(struct pw_buf *b, const char *s)
{
	size_t n = strlen(s ? s : "") + 1;
	size_t len = (n + PW_NAME_ALIGN - 1) / PW_NAME_ALIGN * PW_NAME_ALIGN;
	int err;

	if (len > UINT32_MAX)
		return -SY_E_INVALID;
	err = pw_buf_u32(b, (uint32_t)len);
	if (!err)
		err = pw_buf_put(b, s ? s : "", n - 1);
	if (!err)
		err = pw_buf_put(b, NULL, len - (n - 1));
	return err;
}

/* --- Record under construction (in the scratch buffer) ----------------- */

struct pw_rec {
	uint8_t *p;
	size_t len;
	int over;		/* ran past the scratch buffer */
};

static void pw_rec_put(struct pw_rec *r, const void *src, size_t n)
{
	if (r->over || n > PW_SCRATCH - r->len) {
		r->over = 1;
		return;
	}
	if (src)
		memcpy(r->p + r->len, src, n);
	else
		memset(r->p + r->len, 0, n);
	r->len += n;
}

static void pw_rec_u16(struct pw_rec *r, uint16_t v)
{
	uint8_t x[2];

	sy_put16(x, v);
	pw_rec_put(r, x, 2);
}

static void pw_rec_u32(struct pw_rec *r, uint32_t v)
{
	uint8_t x[4];

	sy_put32(x, v);
	pw_rec_put(r, x, 4);
}

static void pw_rec_u64(struct pw_rec *r, uint64_t v)
{
	uint8_t x[8];

	sy_put64(x, v);
	pw_rec_put(r, x, 8);
}

static void pw_rec_align8(struct pw_rec *r)
{
	pw_rec_put(r, NULL, (size_t)(SY_ALIGN8(r->len) - r->len));
}

/* A C string with its NUL, zero-padded to 8 (kernel MMAP / COMM names). */
static void pw_rec_str8(struct pw_rec *r, const char *s)
{
	if (!s)
		s = "";
	pw_rec_put(r, s, strlen(s) + 1);
	pw_rec_align8(r);
}

/* --- Writer ------------------------------------------------------------- */

struct pw_attr {
	struct sy_perf_attr attr; /* ids / name point into the fields below */
	uint64_t *ids;
	char *name;
};

enum pw_feat_state {
	PW_FEAT_UNSET = 0,
	PW_FEAT_PAYLOAD,	/* verbatim payload in feat[] */
	PW_FEAT_AUTO,		/* generated: EVENT_DESC, COMPRESSED, AUXTRACE */
	PW_FEAT_CLEARED,	/* cleared by the caller: no automatic payload */
};

struct sy_pw {
	struct sy_pw_config cfg;
	int err;		/* sticky */
	int finished;
	int started;		/* first record written (pipe preamble out) */

	struct pw_attr *attrs;
	uint32_t nr_attrs, cap_attrs;

	uint8_t feat_state[SY_FEAT_BITS];
	struct pw_buf feat[SY_FEAT_BITS];

	struct pw_buf data;	/* data section / pipe stream */
	struct pw_buf out;	/* the finished file */

	uint64_t *index;	/* AUXTRACE offsets relative to @data */
	size_t nr_index, cap_index;

	ZSTD_CCtx *zc;
	int comp_on;
	size_t comp_piece;	/* input per flush whose output fits a record */
	struct pw_buf batch;	/* record bytes not yet fed to zstd */
	uint8_t *zout;		/* one compressed record's payload */

	uint8_t *scratch;	/* record being built */
	struct sy_pw_stats stats;
};

static int pw_fail(struct sy_pw *w, int err)
{
	if (err < 0 && !w->err)
		w->err = err;
	return err;
}

/* Largest input whose worst-case zstd output fits @max bytes. */
static size_t pw_comp_piece(size_t max)
{
	size_t lo = 1, hi = max;

	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;

		if (ZSTD_compressBound(mid) <= max)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int sy_pw_alloc(struct sy_pw **out, const struct sy_pw_config *cfg)
{
	struct sy_pw *w;
	struct sy_pw_config c;
	size_t zmax, piece;
	int err = -SY_E_NOMEM;

	if (!out)
		return -SY_E_INVALID;
	*out = NULL;
	memset(&c, 0, sizeof(c));
	if (cfg)
		c = *cfg;
	if (!c.attr_size)
		c.attr_size = SY_ATTR_SIZE_VER7;
	if (!c.zstd_level)
		c.zstd_level = 1;
	if (!c.comp_mmap_len)
		c.comp_mmap_len = PW_DEFAULT_MMAP_LEN;
	if (!c.pipe_last_feature)
		c.pipe_last_feature = SY_FEAT_LAST;
	zmax = c.compress == SY_REC_COMPRESSED2 ? PW_COMP_MAX_83 :
						  PW_COMP_MAX_81;
	if (!c.comp_max_payload)
		c.comp_max_payload = zmax;
	if (c.attr_size < SY_ATTR_SIZE_VER0 || c.attr_size % 8 ||
	    c.attr_size > SY_PERF_RECORD_MAX / 2)
		return -SY_E_INVALID;
	if (c.compress && c.compress != SY_REC_COMPRESSED &&
	    c.compress != SY_REC_COMPRESSED2)
		return -SY_E_INVALID;
	if (c.comp_max_payload > zmax || c.comp_max_payload < 128)
		return -SY_E_INVALID;
	piece = pw_comp_piece(c.comp_max_payload);
	if (!c.comp_batch)
		c.comp_batch = piece;
	/* perf decompresses each compressed record into an mmap_len buffer;
	 * in chain mode one record can carry a whole batch */
	if (c.compress && c.comp_chain && c.comp_batch > c.comp_mmap_len)
		return -SY_E_INVALID;
	if ((unsigned)c.auxtrace_index > SY_PW_INDEX_SIMPLEPERF)
		return -SY_E_INVALID;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -SY_E_NOMEM;
	w->cfg = c;
	w->scratch = malloc(PW_SCRATCH);
	if (!w->scratch)
		goto fail;
	if (c.compress) {
		w->zout = malloc(c.comp_max_payload);
		w->zc = ZSTD_createCCtx();
		if (!w->zout || !w->zc)
			goto fail;
		err = -SY_E_ZSTD;
		if (ZSTD_isError(ZSTD_CCtx_setParameter(
			    w->zc, ZSTD_c_compressionLevel, c.zstd_level)))
			goto fail;
		w->comp_on = 1;
		w->comp_piece = c.comp_chain ? c.comp_batch : piece;
	}
	*out = w;
	return 0;

fail:
	sy_pw_free(w);
	return err;
}

void sy_pw_free(struct sy_pw *w)
{
	uint32_t i;

	if (!w)
		return;
	for (i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].ids);
		free(w->attrs[i].name);
	}
	free(w->attrs);
	for (i = 0; i < SY_FEAT_BITS; i++)
		pw_buf_fini(&w->feat[i]);
	pw_buf_fini(&w->data);
	pw_buf_fini(&w->out);
	pw_buf_fini(&w->batch);
	free(w->index);
	ZSTD_freeCCtx(w->zc);
	free(w->zout);
	free(w->scratch);
	free(w);
}

const struct sy_pw_stats *sy_pw_stats(const struct sy_pw *w)
{
	return w ? &w->stats : NULL;
}

/* --- Attrs -------------------------------------------------------------- */

static uint32_t pw_attr_size(const struct sy_pw *w, const struct sy_perf_attr *a)
{
	return a->size ? a->size : w->cfg.attr_size;
}

int sy_pw_add_attr(struct sy_pw *w, const struct sy_perf_attr *attr)
{
	struct pw_attr *e;
	uint32_t size;

	if (!w || !attr || (attr->nr_ids && !attr->ids))
		return -SY_E_INVALID;
	if (w->err)
		return w->err;
	if (w->finished || (w->cfg.pipe && w->started))
		return -SY_E_INVALID;
	size = pw_attr_size(w, attr);
	if (size < SY_ATTR_SIZE_VER0 || size % 8 ||
	    size > SY_PERF_RECORD_MAX / 2)
		return -SY_E_INVALID;
	/* the file header has one stride for the whole attr section */
	if (!w->cfg.pipe && w->nr_attrs &&
	    size != pw_attr_size(w, &w->attrs[0].attr))
		return -SY_E_INVALID;
	if (w->cfg.pipe && attr->nr_ids > (SY_PERF_RECORD_MAX - 8 - size) / 8)
		return -SY_E_LIMIT; /* would not fit a HEADER_ATTR record */
	if (w->nr_attrs == w->cap_attrs) {
		uint32_t cap = w->cap_attrs ? w->cap_attrs * 2 : 8;
		struct pw_attr *n = realloc(w->attrs, cap * sizeof(*n));

		if (!n)
			return pw_fail(w, -SY_E_NOMEM);
		w->attrs = n;
		w->cap_attrs = cap;
	}
	e = &w->attrs[w->nr_attrs];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->attr.size = size;
	e->attr.index = w->nr_attrs;
	if (attr->nr_ids) {
		e->ids = malloc(attr->nr_ids * sizeof(uint64_t));
		if (!e->ids)
			return pw_fail(w, -SY_E_NOMEM);
		memcpy(e->ids, attr->ids, attr->nr_ids * sizeof(uint64_t));
	}
	if (attr->name) {
		e->name = strdup(attr->name);
		if (!e->name) {
			free(e->ids);
			return pw_fail(w, -SY_E_NOMEM);
		}
	}
	e->attr.ids = e->ids;
	e->attr.name = e->name;
	return (int)w->nr_attrs++;
}

/* --- Features ----------------------------------------------------------- */

static int pw_feat_begin(struct sy_pw *w, int feat, struct pw_buf **b)
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

static int pw_feat_end(struct sy_pw *w, int feat, int err)
{
	if (err) {
		w->feat_state[feat] = PW_FEAT_UNSET;
		w->feat[feat].len = 0;
		return pw_fail(w, err);
	}
	return 0;
}

int sy_pw_feat_raw(struct sy_pw *w, int feat, const void *payload, size_t len)
{
	struct pw_buf *b;
	int err = pw_feat_begin(w, feat, &b);

	if (err)
		return err;
	if (len && !payload)
		return pw_feat_end(w, feat, -SY_E_INVALID);
	return pw_feat_end(w, feat, pw_buf_put(b, payload, len));
}

int sy_pw_feat_clear(struct sy_pw *w, int feat)
{
	struct pw_buf *b;
	int err = pw_feat_begin(w, feat, &b);

	if (!err)
		w->feat_state[feat] = PW_FEAT_CLEARED;
	return err;
}

int sy_pw_feat_string(struct sy_pw *w, int feat, const char *s)
{
	struct pw_buf *b;
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
	err = pw_feat_begin(w, feat, &b);
	if (err)
		return err;
	return pw_feat_end(w, feat, pw_buf_string(b, s));
}

int sy_pw_feat_nrcpus(struct sy_pw *w, uint32_t avail, uint32_t online)
{
	struct pw_buf *b;
	int err = pw_feat_begin(w, SY_FEAT_NRCPUS, &b);

	if (err)
		return err;
	err = pw_buf_u32(b, avail);
	if (!err)
		err = pw_buf_u32(b, online);
	return pw_feat_end(w, SY_FEAT_NRCPUS, err);
}

int sy_pw_feat_total_mem(struct sy_pw *w, uint64_t kib)
{
	struct pw_buf *b;
	int err = pw_feat_begin(w, SY_FEAT_TOTAL_MEM, &b);

	if (err)
		return err;
	return pw_feat_end(w, SY_FEAT_TOTAL_MEM, pw_buf_u64(b, kib));
}

int sy_pw_feat_cmdline(struct sy_pw *w, const char *const *argv,
		       uint32_t argc)
{
	struct pw_buf *b;
	uint32_t i;
	int err;

	if (argc && !argv)
		return -SY_E_INVALID;
	err = pw_feat_begin(w, SY_FEAT_CMDLINE, &b);
	if (err)
		return err;
	err = pw_buf_u32(b, argc);
	for (i = 0; i < argc && !err; i++)
		err = pw_buf_string(b, argv[i]);
	return pw_feat_end(w, SY_FEAT_CMDLINE, err);
}

/* One BUILD_ID entry (feature, type 0) or HEADER_BUILD_ID record (67):
 * perf_record_header_build_id, filename NUL-padded to NAME_ALIGN. */
static int pw_build_id_encode(struct pw_buf *b, uint32_t type,
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
	if (pw_buf_put(b, fixed, sizeof(fixed)) || pw_buf_put(b, fn, n) ||
	    pw_buf_put(b, NULL, len - n))
		return -SY_E_NOMEM;
	return 0;
}

int sy_pw_feat_build_id(struct sy_pw *w, const struct sy_perf_build_id *ids,
			uint32_t n)
{
	struct pw_buf *b;
	uint32_t i;
	int err;

	if (n && !ids)
		return -SY_E_INVALID;
	err = pw_feat_begin(w, SY_FEAT_BUILD_ID, &b);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++)
		err = pw_build_id_encode(b, 0, &ids[i]);
	return pw_feat_end(w, SY_FEAT_BUILD_ID, err);
}

int sy_pw_feat_event_desc(struct sy_pw *w)
{
	struct pw_buf *b;
	int err = pw_feat_begin(w, SY_FEAT_EVENT_DESC, &b);

	if (!err)
		w->feat_state[SY_FEAT_EVENT_DESC] = PW_FEAT_AUTO;
	return err;
}

/* EVENT_DESC (header.c write_event_desc): u32 nr, u32 attr size, then per
 * event the attr, u32 nr_ids, the name string and the ids. */
static int pw_event_desc_build(struct sy_pw *w, struct pw_buf *b)
{
	uint32_t size = w->nr_attrs ? w->attrs[0].attr.size : w->cfg.attr_size;
	uint32_t i, j;
	int err;

	b->len = 0;
	err = pw_buf_u32(b, w->nr_attrs);
	if (!err)
		err = pw_buf_u32(b, size);
	for (i = 0; i < w->nr_attrs && !err; i++) {
		const struct sy_perf_attr *a = &w->attrs[i].attr;

		err = pw_buf_reserve(b, size);
		if (err)
			break;
		err = sy_pw_attr_encode(a, size, b->p + b->len);
		if (err)
			break;
		b->len += size;
		err = pw_buf_u32(b, a->nr_ids);
		if (!err)
			err = pw_buf_string(b, a->name);
		for (j = 0; j < a->nr_ids && !err; j++)
			err = pw_buf_u64(b, a->ids[j]);
	}
	return err;
}

int sy_pw_feat_pmu_mappings(struct sy_pw *w, const struct sy_perf_pmu *pmus,
			    uint32_t n)
{
	struct pw_buf *b;
	uint32_t i;
	int err;

	if (n && !pmus)
		return -SY_E_INVALID;
	err = pw_feat_begin(w, SY_FEAT_PMU_MAPPINGS, &b);
	if (err)
		return err;
	err = pw_buf_u32(b, n);
	for (i = 0; i < n && !err; i++) {
		err = pw_buf_u32(b, pmus[i].type);
		if (!err)
			err = pw_buf_string(b, pmus[i].name);
	}
	return pw_feat_end(w, SY_FEAT_PMU_MAPPINGS, err);
}

int sy_pw_feat_group_desc(struct sy_pw *w, const struct sy_pw_group *groups,
			  uint32_t n)
{
	struct pw_buf *b;
	uint32_t i;
	int err;

	if (n && !groups)
		return -SY_E_INVALID;
	err = pw_feat_begin(w, SY_FEAT_GROUP_DESC, &b);
	if (err)
		return err;
	err = pw_buf_u32(b, n);
	for (i = 0; i < n && !err; i++) {
		err = pw_buf_string(b, groups[i].name);
		if (!err)
			err = pw_buf_u32(b, groups[i].leader_idx);
		if (!err)
			err = pw_buf_u32(b, groups[i].nr_members);
	}
	return pw_feat_end(w, SY_FEAT_GROUP_DESC, err);
}

int sy_pw_feat_sample_time(struct sy_pw *w, uint64_t first, uint64_t last)
{
	struct pw_buf *b;
	int err = pw_feat_begin(w, SY_FEAT_SAMPLE_TIME, &b);

	if (err)
		return err;
	err = pw_buf_u64(b, first);
	if (!err)
		err = pw_buf_u64(b, last);
	return pw_feat_end(w, SY_FEAT_SAMPLE_TIME, err);
}

int sy_pw_feat_clockid(struct sy_pw *w, uint64_t res_ns)
{
	struct pw_buf *b;
	int err = pw_feat_begin(w, SY_FEAT_CLOCKID, &b);

	if (err)
		return err;
	return pw_feat_end(w, SY_FEAT_CLOCKID, pw_buf_u64(b, res_ns));
}

int sy_pw_feat_clock_data(struct sy_pw *w, uint32_t clockid,
			  uint64_t wall_clock_ns, uint64_t clockid_time_ns)
{
	struct pw_buf *b;
	int err = pw_feat_begin(w, SY_FEAT_CLOCK_DATA, &b);

	if (err)
		return err;
	err = pw_buf_u32(b, 1);
	if (!err)
		err = pw_buf_u32(b, clockid);
	if (!err)
		err = pw_buf_u64(b, wall_clock_ns);
	if (!err)
		err = pw_buf_u64(b, clockid_time_ns);
	return pw_feat_end(w, SY_FEAT_CLOCK_DATA, err);
}

static int pw_compressed_encode(struct pw_buf *b, uint32_t version,
				uint32_t type, uint32_t level, uint32_t ratio,
				uint32_t mmap_len)
{
	uint32_t v[5] = { version, type, level, ratio, mmap_len };
	int err = 0;
	size_t i;

	b->len = 0;
	for (i = 0; i < SY_ARRAY_SIZE(v) && !err; i++)
		err = pw_buf_u32(b, v[i]);
	return err;
}

int sy_pw_feat_compressed(struct sy_pw *w, uint32_t version, uint32_t type,
			  uint32_t level, uint32_t ratio, uint32_t mmap_len)
{
	struct pw_buf *b;
	int err = pw_feat_begin(w, SY_FEAT_COMPRESSED, &b);

	if (err)
		return err;
	return pw_feat_end(w, SY_FEAT_COMPRESSED,
			   pw_compressed_encode(b, version, type, level, ratio,
						mmap_len));
}

/* Fills the automatic payloads: EVENT_DESC, COMPRESSED, and in file mode
 * the AUXTRACE index.  @final: the end of the file (ratio known). */
static int pw_feat_auto(struct sy_pw *w, int final)
{
	struct pw_buf *b;
	int err = 0;
	size_t i;

	if (w->feat_state[SY_FEAT_EVENT_DESC] == PW_FEAT_AUTO) {
		err = pw_event_desc_build(w, &w->feat[SY_FEAT_EVENT_DESC]);
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
		err = pw_compressed_encode(b, 0, SY_COMP_ZSTD,
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
		err = pw_buf_u64(b, w->nr_index);
	/* offsets become absolute in sy_pw_finish once the data offset is
	 * known; store them relative for now */
	for (i = 0; i < w->nr_index && !err; i++) {
		err = pw_buf_u64(b, w->index[i]);
		if (!err)
			err = pw_buf_u64(b, SY_AUXTRACE_RECORD_SIZE);
	}
	w->stats.nr_auxtrace_index = w->nr_index;
	w->feat_state[SY_FEAT_AUXTRACE] = PW_FEAT_AUTO;
	return err;
}

static int pw_feat_is_set(const struct sy_pw *w, int feat)
{
	return w->feat_state[feat] == PW_FEAT_PAYLOAD ||
	       w->feat_state[feat] == PW_FEAT_AUTO;
}

/* --- Record output ------------------------------------------------------ */

static int pw_emit_plain(struct sy_pw *w, const void *rec, size_t len)
{
	return pw_buf_put(&w->data, rec, len);
}

/* One COMPRESSED / COMPRESSED2 record around @n bytes of zstd output. */
static int pw_emit_compressed(struct sy_pw *w, const uint8_t *z, size_t n)
{
	uint8_t hdr[16];
	size_t hlen, size;
	int err;

	if (w->cfg.compress == SY_REC_COMPRESSED2) {
		/* perf >= 6.16 (with the multi-record fix): every record has
		 * its own data_size and is padded to 8 */
		hlen = 16;
		size = (size_t)SY_ALIGN8(hlen + n);
		sy_put64(hdr + 8, n);
	} else {
		hlen = 8;
		size = hlen + n;
	}
	sy_put32(hdr, w->cfg.compress);
	sy_put16(hdr + 4, 0);
	sy_put16(hdr + 6, (uint16_t)size);
	err = pw_buf_put(&w->data, hdr, hlen);
	if (!err)
		err = pw_buf_put(&w->data, z, n);
	if (!err)
		err = pw_buf_put(&w->data, NULL, size - hlen - n);
	if (err)
		return err;
	w->stats.nr_compressed++;
	w->stats.bytes_out += size;
	if (w->cfg.compress < SY_REC_TYPE_LIMIT)
		w->stats.nr_type[w->cfg.compress]++;
	return 0;
}

/* Pushes @len bytes through zstd with ZSTD_e_flush, cutting the output
 * into records of at most comp_max_payload bytes. */
static int pw_comp_flush(struct sy_pw *w, const uint8_t *p, size_t len)
{
	ZSTD_inBuffer in = { p, len, 0 };
	size_t left;
	int err;

	do {
		ZSTD_outBuffer zo = { w->zout, w->cfg.comp_max_payload, 0 };

		left = ZSTD_compressStream2(w->zc, &zo, &in, ZSTD_e_flush);
		if (ZSTD_isError(left))
			return -SY_E_ZSTD;
		if (zo.pos) {
			err = pw_emit_compressed(w, w->zout, zo.pos);
			if (err)
				return err;
		}
	} while (in.pos < in.size || left);
	return 0;
}

/* Pushes the batch.  A compressed record holding only part of a zstd block
 * decodes to nothing, which perf (6.1 at least) rejects ("Couldn't
 * decompress data"), so unless comp_chain asks for perf's own cutting the
 * batch goes in pieces whose compressed size cannot exceed one record. */
static int pw_comp_push(struct sy_pw *w)
{
	size_t off, n;
	int err;

	for (off = 0; off < w->batch.len; off += n) {
		n = w->batch.len - off;
		if (n > w->comp_piece)
			n = w->comp_piece;
		err = pw_comp_flush(w, w->batch.p + off, n);
		if (err)
			return err;
	}
	w->stats.bytes_in += w->batch.len;
	w->batch.len = 0;
	return 0;
}

static int pw_comp_feed(struct sy_pw *w, const uint8_t *rec, size_t len)
{
	int err;

	while (len) {
		size_t n = w->cfg.comp_batch - w->batch.len;

		if (n > len)
			n = len;
		err = pw_buf_put(&w->batch, rec, n);
		if (err)
			return err;
		rec += n;
		len -= n;
		if (w->batch.len == w->cfg.comp_batch) {
			err = pw_comp_push(w);
			if (err)
				return err;
		}
	}
	return 0;
}

static int pw_header_attr(struct sy_pw *w, const struct sy_perf_attr *a)
{
	size_t size = 8 + a->size + 8 * (size_t)a->nr_ids;
	struct pw_buf b = { 0 };
	uint32_t i;
	int err;

	/* not in the scratch buffer: the preamble is written while the first
	 * record is being built there */
	err = pw_buf_reserve(&b, size);
	if (err)
		return err;
	sy_put32(b.p, SY_REC_HEADER_ATTR);
	sy_put16(b.p + 4, 0);
	sy_put16(b.p + 6, (uint16_t)size);
	err = sy_pw_attr_encode(a, a->size, b.p + 8);
	for (i = 0; i < a->nr_ids; i++)
		sy_put64(b.p + 8 + a->size + 8 * (size_t)i, a->ids[i]);
	if (!err)
		err = pw_emit_plain(w, b.p, size);
	if (!err)
		w->stats.nr_type[SY_REC_HEADER_ATTR]++;
	pw_buf_fini(&b);
	return err;
}

/* HEADER_FEATURE {header; u64 feat_id; payload}: perf writes the payload
 * as it is, so the record size need not be a multiple of 8. */
static int pw_header_feature(struct sy_pw *w, uint64_t feat, const void *p,
			     size_t len)
{
	uint8_t hdr[16];
	int err;

	if (len > SY_PERF_RECORD_MAX - sizeof(hdr))
		return -SY_E_LIMIT;
	sy_put32(hdr, SY_REC_HEADER_FEATURE);
	sy_put16(hdr + 4, 0);
	sy_put16(hdr + 6, (uint16_t)(sizeof(hdr) + len));
	sy_put64(hdr + 8, feat);
	err = pw_emit_plain(w, hdr, sizeof(hdr));
	if (!err)
		err = pw_emit_plain(w, p, len);
	if (!err)
		w->stats.nr_type[SY_REC_HEADER_FEATURE]++;
	return err;
}

/* Pipe mode: attrs, then features, then the end mark, before any record
 * (perf_event__synthesize_for_pipe). */
static int pw_pipe_preamble(struct sy_pw *w)
{
	uint32_t i;
	int feat, err;

	for (i = 0; i < w->nr_attrs; i++) {
		err = pw_header_attr(w, &w->attrs[i].attr);
		if (err)
			return err;
	}
	err = pw_feat_auto(w, 0);
	if (err)
		return err;
	for (feat = 0; feat < SY_FEAT_BITS; feat++) {
		if (!pw_feat_is_set(w, feat) || !w->feat[feat].len)
			continue;
		err = pw_header_feature(w, (uint64_t)feat, w->feat[feat].p,
					w->feat[feat].len);
		if (err)
			return err;
	}
	return pw_header_feature(w, w->cfg.pipe_last_feature, NULL, 0);
}

/* Called before anything lands in the data stream. */
static int pw_start(struct sy_pw *w)
{
	int err;

	if (w->err)
		return w->err;
	if (w->finished)
		return -SY_E_INVALID;
	if (w->started)
		return 0;
	w->started = 1;
	if (!w->cfg.pipe)
		return 0;
	err = pw_pipe_preamble(w);
	return err ? pw_fail(w, err) : 0;
}

/* Emits one complete record (@rec, header included). */
static int pw_emit(struct sy_pw *w, const uint8_t *rec, size_t len)
{
	uint32_t type = len >= 4 ? sy_le32(rec) : 0;
	int err = pw_start(w);

	if (err)
		return err;
	if (w->zc && w->comp_on)
		err = pw_comp_feed(w, rec, len);
	else
		err = pw_emit_plain(w, rec, len);
	if (err)
		return pw_fail(w, err);
	if (type < SY_REC_TYPE_LIMIT)
		w->stats.nr_type[type]++;
	return 0;
}

static void pw_rec_begin(struct sy_pw *w, struct pw_rec *r)
{
	r->p = w->scratch;
	r->len = 8;
	r->over = 0;
}

/* Appends the sample_id trailer, fills in the header and emits. */
static int pw_rec_end(struct sy_pw *w, struct pw_rec *r, uint32_t type,
		      uint16_t misc, const struct sy_perf_attr *attr,
		      const struct sy_sample *sid)
{
	int n;

	if (attr && !r->over) {
		n = sy_pw_sample_id_encode(attr, sid, r->p + r->len,
					   PW_SCRATCH - r->len);
		if (n < 0)
			return n;
		r->len += (size_t)n;
	}
	if (r->over || r->len > SY_PERF_RECORD_MAX)
		return -SY_E_LIMIT;
	sy_put32(r->p, type);
	sy_put16(r->p + 4, misc);
	sy_put16(r->p + 6, (uint16_t)r->len);
	return pw_emit(w, r->p, r->len);
}

static int pw_check(struct sy_pw *w)
{
	if (!w)
		return -SY_E_INVALID;
	if (w->err)
		return w->err;
	return w->finished ? -SY_E_INVALID : 0;
}

int sy_pw_record(struct sy_pw *w, uint32_t type, uint16_t misc,
		 const void *body, size_t len)
{
	struct pw_rec r;
	int err = pw_check(w);

	if (err)
		return err;
	if (type == SY_REC_AUXTRACE || (len && !body))
		return -SY_E_INVALID;
	pw_rec_begin(w, &r);
	pw_rec_put(&r, body, len);
	return pw_rec_end(w, &r, type, misc, NULL, NULL);
}

int sy_pw_raw(struct sy_pw *w, const void *bytes, size_t len)
{
	int err = pw_check(w);

	if (err)
		return err;
	if (len && !bytes)
		return -SY_E_INVALID;
	return pw_emit(w, bytes, len);
}

int sy_pw_set_compress(struct sy_pw *w, int on)
{
	int err = pw_check(w);

	if (err)
		return err;
	if (!w->zc)
		return on ? -SY_E_INVALID : 0;
	if (!on && w->comp_on) {
		err = pw_comp_push(w);
		if (err)
			return pw_fail(w, err);
	}
	w->comp_on = !!on;
	return 0;
}

int sy_pw_comp_flush(struct sy_pw *w)
{
	int err = pw_check(w);

	if (err || !w->zc)
		return err;
	err = pw_start(w);
	if (!err)
		err = pw_comp_push(w);
	return err ? pw_fail(w, err) : 0;
}

/* --- Typed records ------------------------------------------------------ */

int sy_pw_sample(struct sy_pw *w, const struct sy_perf_attr *attr,
		 uint16_t misc, const struct sy_sample *s)
{
	struct pw_rec r;
	int n, err = pw_check(w);

	if (err)
		return err;
	pw_rec_begin(w, &r);
	n = sy_pw_sample_encode(attr, s, r.p + 8, PW_SCRATCH - 8);
	if (n < 0)
		return n;
	r.len += (size_t)n;
	return pw_rec_end(w, &r, SY_REC_SAMPLE, misc, NULL, NULL);
}

static int pw_mmap_common(struct sy_pw *w, uint32_t type,
			  const struct sy_pw_mmap *m,
			  const struct sy_perf_attr *attr,
			  const struct sy_sample *sid)
{
	struct pw_rec r;
	int err = pw_check(w);

	if (err)
		return err;
	if (!m)
		return -SY_E_INVALID;
	pw_rec_begin(w, &r);
	pw_rec_u32(&r, m->pid);
	pw_rec_u32(&r, m->tid);
	pw_rec_u64(&r, m->addr);
	pw_rec_u64(&r, m->len);
	pw_rec_u64(&r, m->pgoff);
	if (type == SY_REC_MMAP2) {
		if (m->misc & SY_MISC_MMAP_BUILD_ID) {
			uint8_t id[20] = { 0 };
			size_t n = m->build_id_size;

			if (n > sizeof(id))
				return -SY_E_INVALID;
			memcpy(id, m->build_id, n);
			pw_rec_put(&r, &m->build_id_size, 1);
			pw_rec_put(&r, NULL, 3);
			pw_rec_put(&r, id, sizeof(id));
		} else {
			pw_rec_u32(&r, m->maj);
			pw_rec_u32(&r, m->min);
			pw_rec_u64(&r, m->ino);
			pw_rec_u64(&r, m->ino_generation);
		}
		pw_rec_u32(&r, m->prot);
		pw_rec_u32(&r, m->flags);
	}
	pw_rec_str8(&r, m->filename);
	return pw_rec_end(w, &r, type, m->misc, attr, sid);
}

int sy_pw_mmap(struct sy_pw *w, const struct sy_pw_mmap *m,
	       const struct sy_perf_attr *attr, const struct sy_sample *sid)
{
	return pw_mmap_common(w, SY_REC_MMAP, m, attr, sid);
}

int sy_pw_mmap2(struct sy_pw *w, const struct sy_pw_mmap *m,
		const struct sy_perf_attr *attr, const struct sy_sample *sid)
{
	return pw_mmap_common(w, SY_REC_MMAP2, m, attr, sid);
}

int sy_pw_comm(struct sy_pw *w, uint16_t misc, uint32_t pid, uint32_t tid,
	       const char *comm, const struct sy_perf_attr *attr,
	       const struct sy_sample *sid)
{
	struct pw_rec r;
	int err = pw_check(w);

	if (err)
		return err;
	pw_rec_begin(w, &r);
	pw_rec_u32(&r, pid);
	pw_rec_u32(&r, tid);
	pw_rec_str8(&r, comm);
	return pw_rec_end(w, &r, SY_REC_COMM, misc, attr, sid);
}

int sy_pw_task(struct sy_pw *w, uint32_t type, uint32_t pid, uint32_t ppid,
	       uint32_t tid, uint32_t ptid, uint64_t time,
	       const struct sy_perf_attr *attr, const struct sy_sample *sid)
{
	struct pw_rec r;
	int err = pw_check(w);

	if (err)
		return err;
	if (type != SY_REC_FORK && type != SY_REC_EXIT)
		return -SY_E_INVALID;
	pw_rec_begin(w, &r);
	pw_rec_u32(&r, pid);
	pw_rec_u32(&r, ppid);
	pw_rec_u32(&r, tid);
	pw_rec_u32(&r, ptid);
	pw_rec_u64(&r, time);
	return pw_rec_end(w, &r, type, 0, attr, sid);
}

/* Kernel records whose body is a few u64s. */
static int pw_u64_rec(struct sy_pw *w, uint32_t type, uint16_t misc,
		      const uint64_t *v, size_t n,
		      const struct sy_perf_attr *attr,
		      const struct sy_sample *sid)
{
	struct pw_rec r;
	size_t i;
	int err = pw_check(w);

	if (err)
		return err;
	pw_rec_begin(w, &r);
	for (i = 0; i < n; i++)
		pw_rec_u64(&r, v[i]);
	return pw_rec_end(w, &r, type, misc, attr, sid);
}

int sy_pw_lost(struct sy_pw *w, uint64_t id, uint64_t lost,
	       const struct sy_perf_attr *attr, const struct sy_sample *sid)
{
	uint64_t v[2] = { id, lost };

	return pw_u64_rec(w, SY_REC_LOST, 0, v, 2, attr, sid);
}

int sy_pw_lost_samples(struct sy_pw *w, uint16_t misc, uint64_t lost,
		       const struct sy_perf_attr *attr,
		       const struct sy_sample *sid)
{
	return pw_u64_rec(w, SY_REC_LOST_SAMPLES, misc, &lost, 1, attr, sid);
}

int sy_pw_throttle(struct sy_pw *w, int unthrottle, uint64_t time,
		   uint64_t id, uint64_t stream_id,
		   const struct sy_perf_attr *attr,
		   const struct sy_sample *sid)
{
	uint64_t v[3] = { time, id, stream_id };

	return pw_u64_rec(w, unthrottle ? SY_REC_UNTHROTTLE : SY_REC_THROTTLE,
			  0, v, 3, attr, sid);
}

int sy_pw_switch(struct sy_pw *w, uint16_t misc,
		 const struct sy_perf_attr *attr, const struct sy_sample *sid)
{
	return pw_u64_rec(w, SY_REC_SWITCH, misc, NULL, 0, attr, sid);
}

int sy_pw_switch_cpu_wide(struct sy_pw *w, uint16_t misc,
			  uint32_t next_prev_pid, uint32_t next_prev_tid,
			  const struct sy_perf_attr *attr,
			  const struct sy_sample *sid)
{
	uint64_t v = (uint64_t)next_prev_pid | (uint64_t)next_prev_tid << 32;

	return pw_u64_rec(w, SY_REC_SWITCH_CPU_WIDE, misc, &v, 1, attr, sid);
}

int sy_pw_itrace_start(struct sy_pw *w, uint32_t pid, uint32_t tid,
		       const struct sy_perf_attr *attr,
		       const struct sy_sample *sid)
{
	uint64_t v = (uint64_t)pid | (uint64_t)tid << 32;

	return pw_u64_rec(w, SY_REC_ITRACE_START, 0, &v, 1, attr, sid);
}

int sy_pw_aux(struct sy_pw *w, uint64_t aux_offset, uint64_t aux_size,
	      uint64_t flags, const struct sy_perf_attr *attr,
	      const struct sy_sample *sid)
{
	uint64_t v[3] = { aux_offset, aux_size, flags };

	return pw_u64_rec(w, SY_REC_AUX, 0, v, 3, attr, sid);
}

int sy_pw_aux_output_hw_id(struct sy_pw *w, uint64_t hw_id,
			   const struct sy_perf_attr *attr,
			   const struct sy_sample *sid)
{
	return pw_u64_rec(w, SY_REC_AUX_OUTPUT_HW_ID, 0, &hw_id, 1, attr,
			  sid);
}

int sy_pw_auxtrace(struct sy_pw *w, const struct sy_pw_auxtrace *a,
		   const void *data, uint64_t len)
{
	uint8_t h[SY_AUXTRACE_RECORD_SIZE];
	uint64_t padded = SY_ALIGN8(len);
	int err = pw_check(w);

	if (err)
		return err;
	if (!a || (len && !data) || len > SIZE_MAX - 8)
		return -SY_E_INVALID;
	err = pw_start(w);
	if (err)
		return err;
	/* the payload is never compressed; everything written before it must
	 * come out of zstd first to keep file order */
	if (w->zc) {
		err = pw_comp_push(w);
		if (err)
			return pw_fail(w, err);
	}
	if (!w->cfg.pipe) {
		if (w->nr_index == w->cap_index) {
			size_t cap = w->cap_index ? w->cap_index * 2 : 64;
			uint64_t *n = realloc(w->index, cap * sizeof(*n));

			if (!n)
				return pw_fail(w, -SY_E_NOMEM);
			w->index = n;
			w->cap_index = cap;
		}
		w->index[w->nr_index++] = w->data.len;
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
	err = pw_emit_plain(w, h, sizeof(h));
	if (!err)
		err = pw_emit_plain(w, data, (size_t)len);
	if (!err)
		err = pw_emit_plain(w, NULL, (size_t)(padded - len));
	if (err)
		return pw_fail(w, err);
	w->stats.nr_type[SY_REC_AUXTRACE]++;
	return 0;
}

int sy_pw_auxtrace_info(struct sy_pw *w, uint32_t type, const uint64_t *priv,
			uint32_t nr)
{
	struct pw_rec r;
	uint32_t i;
	int err = pw_check(w);

	if (err)
		return err;
	if (nr && !priv)
		return -SY_E_INVALID;
	pw_rec_begin(w, &r);
	pw_rec_u32(&r, type);
	pw_rec_u32(&r, 0);
	for (i = 0; i < nr && !r.over; i++)
		pw_rec_u64(&r, priv[i]);
	return pw_rec_end(w, &r, SY_REC_AUXTRACE_INFO, 0, NULL, NULL);
}

int sy_pw_auxtrace_error(struct sy_pw *w, const struct sy_pw_auxtrace_error *e)
{
	char msg[64];
	struct pw_rec r;
	int err = pw_check(w);

	if (err)
		return err;
	if (!e)
		return -SY_E_INVALID;
	memset(msg, 0, sizeof(msg));
	if (e->msg)
		strncpy(msg, e->msg, sizeof(msg) - 1);
	pw_rec_begin(w, &r);
	pw_rec_u32(&r, e->type);
	pw_rec_u32(&r, e->code);
	pw_rec_u32(&r, e->cpu);
	pw_rec_u32(&r, e->pid);
	pw_rec_u32(&r, e->tid);
	pw_rec_u32(&r, e->fmt);
	pw_rec_u64(&r, e->ip);
	pw_rec_u64(&r, e->time);
	if (e->fmt >= 2) {
		pw_rec_put(&r, msg, sizeof(msg));
		pw_rec_u32(&r, e->machine_pid);
		pw_rec_u32(&r, e->vcpu);
	} else {
		/* auxtrace_synth_error(): the record ends after the message */
		pw_rec_str8(&r, msg);
	}
	return pw_rec_end(w, &r, SY_REC_AUXTRACE_ERROR, 0, NULL, NULL);
}

int sy_pw_time_conv(struct sy_pw *w, const struct sy_pw_time_conv *t,
		    int long_form)
{
	struct pw_rec r;
	int err = pw_check(w);

	if (err)
		return err;
	if (!t)
		return -SY_E_INVALID;
	pw_rec_begin(w, &r);
	pw_rec_u64(&r, t->time_shift);
	pw_rec_u64(&r, t->time_mult);
	pw_rec_u64(&r, t->time_zero);
	if (long_form) {
		pw_rec_u64(&r, t->time_cycles);
		pw_rec_u64(&r, t->time_mask);
		pw_rec_put(&r, &t->cap_user_time_zero, 1);
		pw_rec_put(&r, &t->cap_user_time_short, 1);
		pw_rec_put(&r, NULL, 6);
	}
	return pw_rec_end(w, &r, SY_REC_TIME_CONV, 0, NULL, NULL);
}

int sy_pw_id_index(struct sy_pw *w, const struct sy_pw_id_index *e,
		   uint32_t n, int with_vm)
{
	/* perf_event__synthesize_id_index: as many entries as fit a record */
	size_t per = with_vm ? 48 : 32;
	uint32_t max = (uint32_t)((SY_PERF_RECORD_MAX - 16) / per);
	uint32_t i, done = 0, k;
	struct pw_rec r;
	int err = pw_check(w);

	if (err)
		return err;
	if (n && !e)
		return -SY_E_INVALID;
	do {
		k = n - done < max ? n - done : max;
		pw_rec_begin(w, &r);
		pw_rec_u64(&r, k);
		for (i = done; i < done + k; i++) {
			pw_rec_u64(&r, e[i].id);
			pw_rec_u64(&r, e[i].idx);
			pw_rec_u64(&r, e[i].cpu);
			pw_rec_u64(&r, e[i].tid);
		}
		for (i = done; with_vm && i < done + k; i++) {
			pw_rec_u64(&r, e[i].machine_pid);
			pw_rec_u64(&r, e[i].vcpu);
		}
		err = pw_rec_end(w, &r, SY_REC_ID_INDEX, 0, NULL, NULL);
		done += k;
	} while (!err && done < n);
	return err;
}

int sy_pw_thread_map(struct sy_pw *w, const struct sy_pw_thread *t,
		     uint32_t n)
{
	struct pw_rec r;
	uint32_t i;
	int err = pw_check(w);

	if (err)
		return err;
	if (n && !t)
		return -SY_E_INVALID;
	pw_rec_begin(w, &r);
	pw_rec_u64(&r, n);
	for (i = 0; i < n && !r.over; i++) {
		char comm[16];

		memset(comm, 0, sizeof(comm));
		if (t[i].comm)
			strncpy(comm, t[i].comm, sizeof(comm) - 1);
		pw_rec_u64(&r, t[i].pid);
		pw_rec_put(&r, comm, sizeof(comm));
	}
	return pw_rec_end(w, &r, SY_REC_THREAD_MAP, 0, NULL, NULL);
}

int sy_pw_cpu_map_cpus(struct sy_pw *w, const uint16_t *cpus, uint16_t n)
{
	struct pw_rec r;
	uint16_t i;
	int err = pw_check(w);

	if (err)
		return err;
	if (n && !cpus)
		return -SY_E_INVALID;
	pw_rec_begin(w, &r);
	pw_rec_u16(&r, 0);	/* PERF_CPU_MAP__CPUS */
	pw_rec_u16(&r, n);
	for (i = 0; i < n && !r.over; i++)
		pw_rec_u16(&r, cpus[i]);
	pw_rec_align8(&r);
	return pw_rec_end(w, &r, SY_REC_CPU_MAP, 0, NULL, NULL);
}

int sy_pw_cpu_map_mask(struct sy_pw *w, const uint64_t *mask, uint16_t nr,
		       uint16_t long_size)
{
	struct pw_rec r;
	uint16_t i;
	int err = pw_check(w);

	if (err)
		return err;
	if ((nr && !mask) || (long_size != 4 && long_size != 8))
		return -SY_E_INVALID;
	pw_rec_begin(w, &r);
	pw_rec_u16(&r, 1);	/* PERF_CPU_MAP__MASK, packed layout */
	pw_rec_u16(&r, nr);
	pw_rec_u16(&r, long_size);
	if (long_size == 8)
		pw_rec_u32(&r, 0); /* perf_record_mask_cpu_map64 __pad */
	for (i = 0; i < nr && !r.over; i++) {
		if (long_size == 8)
			pw_rec_u64(&r, mask[i]);
		else
			pw_rec_u32(&r, (uint32_t)mask[i]);
	}
	pw_rec_align8(&r);
	return pw_rec_end(w, &r, SY_REC_CPU_MAP, 0, NULL, NULL);
}

int sy_pw_cpu_map_range(struct sy_pw *w, int any_cpu, uint16_t start,
			uint16_t end)
{
	struct pw_rec r;
	uint8_t b[2] = { (uint8_t)!!any_cpu, 0 };
	int err = pw_check(w);

	if (err)
		return err;
	pw_rec_begin(w, &r);
	pw_rec_u16(&r, 2);	/* PERF_CPU_MAP__RANGE_CPUS */
	pw_rec_put(&r, b, 2);
	pw_rec_u16(&r, start);
	pw_rec_u16(&r, end);
	pw_rec_align8(&r);
	return pw_rec_end(w, &r, SY_REC_CPU_MAP, 0, NULL, NULL);
}

int sy_pw_event_update(struct sy_pw *w, uint64_t type, uint64_t id,
		       const void *payload, size_t len)
{
	struct pw_rec r;
	int err = pw_check(w);

	if (err)
		return err;
	if (len && !payload)
		return -SY_E_INVALID;
	pw_rec_begin(w, &r);
	pw_rec_u64(&r, type);
	pw_rec_u64(&r, id);
	pw_rec_put(&r, payload, len);
	pw_rec_align8(&r);
	return pw_rec_end(w, &r, SY_REC_EVENT_UPDATE, 0, NULL, NULL);
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
	struct pw_buf tmp = { 0 };
	int err = pw_check(w);

	if (err)
		return err;
	if (!b)
		return -SY_E_INVALID;
	err = pw_build_id_encode(&tmp, SY_REC_HEADER_BUILD_ID, b);
	if (!err)
		err = pw_emit(w, tmp.p, tmp.len);
	pw_buf_fini(&tmp);
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

/* --- Finishing and output ----------------------------------------------- */

static int pw_finish_pipe(struct sy_pw *w)
{
	uint8_t h[SY_PERF_PIPE_HEADER_SIZE];
	int err;

	sy_put64(h, SY_PERF_MAGIC2);
	sy_put64(h + 8, SY_PERF_PIPE_HEADER_SIZE);
	err = pw_buf_put(&w->out, h, sizeof(h));
	if (!err)
		err = pw_buf_put(&w->out, w->data.p, w->data.len);
	return err;
}

/* perf_session__do_write_header: header, id arrays, attrs, data, feature
 * table at data end, payloads packed after it. */
static int pw_finish_file(struct sy_pw *w)
{
	uint32_t asize = w->nr_attrs ? w->attrs[0].attr.size : w->cfg.attr_size;
	uint64_t bits[SY_FEAT_BITS / 64] = { 0 };
	uint64_t ids_off = SY_PERF_FILE_HEADER_SIZE, attrs_off, data_off;
	uint64_t feat_off, pay_off, nr_ids = 0, off;
	struct pw_buf *o = &w->out;
	uint8_t h[SY_PERF_FILE_HEADER_SIZE];
	uint32_t i, j;
	int feat, nfeat = 0, err;
	size_t k, base;

	for (i = 0; i < w->nr_attrs; i++)
		nr_ids += w->attrs[i].attr.nr_ids;
	attrs_off = ids_off + 8 * nr_ids;
	data_off = attrs_off + (uint64_t)w->nr_attrs * (asize + 16);
	feat_off = data_off + w->data.len;
	for (feat = 0; feat < SY_FEAT_BITS; feat++) {
		if (!pw_feat_is_set(w, feat))
			continue;
		bits[feat / 64] |= 1ULL << (feat % 64);
		nfeat++;
	}

	memset(h, 0, sizeof(h));
	sy_put64(h, SY_PERF_MAGIC2);
	sy_put64(h + 8, SY_PERF_FILE_HEADER_SIZE);
	sy_put64(h + 16, asize + 16);
	sy_put64(h + 24, attrs_off);
	sy_put64(h + 32, (uint64_t)w->nr_attrs * (asize + 16));
	sy_put64(h + 40, data_off);
	sy_put64(h + 48, w->data.len);
	/* event_types (56, 16 bytes) stays zero, as perf writes it */
	for (k = 0; k < SY_ARRAY_SIZE(bits); k++)
		sy_put64(h + 72 + 8 * k, bits[k]);
	err = pw_buf_put(o, h, sizeof(h));

	for (i = 0; i < w->nr_attrs && !err; i++)
		for (j = 0; j < w->attrs[i].attr.nr_ids && !err; j++)
			err = pw_buf_u64(o, w->attrs[i].ids[j]);
	off = ids_off;
	for (i = 0; i < w->nr_attrs && !err; i++) {
		const struct sy_perf_attr *a = &w->attrs[i].attr;

		err = pw_buf_reserve(o, asize);
		if (err)
			break;
		err = sy_pw_attr_encode(a, asize, o->p + o->len);
		if (err)
			break;
		o->len += asize;
		err = pw_buf_u64(o, a->nr_ids ? off : 0);
		if (!err)
			err = pw_buf_u64(o, 8 * (uint64_t)a->nr_ids);
		off += 8 * (uint64_t)a->nr_ids;
	}
	if (!err)
		err = pw_buf_put(o, w->data.p, w->data.len);

	/* the AUXTRACE index was built relative to the data section */
	if (!err && w->feat_state[SY_FEAT_AUXTRACE] == PW_FEAT_AUTO) {
		struct pw_buf *b = &w->feat[SY_FEAT_AUXTRACE];

		base = w->cfg.auxtrace_index == SY_PW_INDEX_SIMPLEPERF ? 0 : 8;
		for (k = 0; k < w->nr_index; k++)
			sy_put64(b->p + base + 16 * k,
				 sy_le64(b->p + base + 16 * k) + data_off);
	}

	pay_off = feat_off + 16 * (uint64_t)nfeat;
	for (feat = 0; feat < SY_FEAT_BITS && !err; feat++) {
		if (!pw_feat_is_set(w, feat))
			continue;
		err = pw_buf_u64(o, pay_off);
		if (!err)
			err = pw_buf_u64(o, w->feat[feat].len);
		pay_off += w->feat[feat].len;
	}
	for (feat = 0; feat < SY_FEAT_BITS && !err; feat++)
		if (pw_feat_is_set(w, feat))
			err = pw_buf_put(o, w->feat[feat].p, w->feat[feat].len);
	return err;
}

int sy_pw_finish(struct sy_pw *w)
{
	int err;

	if (!w)
		return -SY_E_INVALID;
	if (w->err)
		return w->err;
	if (w->finished)
		return 0;
	/* pipe mode: a file with no record still carries its preamble */
	err = pw_start(w);
	if (err)
		return err;
	if (w->zc) {
		err = pw_comp_push(w);
		if (err)
			return pw_fail(w, err);
	}
	if (!w->cfg.pipe) {
		err = pw_feat_auto(w, 1);
		if (err)
			return pw_fail(w, err);
	}
	w->out.len = 0;
	err = w->cfg.pipe ? pw_finish_pipe(w) : pw_finish_file(w);
	if (err)
		return pw_fail(w, err);
	w->finished = 1;
	return 0;
}

int sy_pw_output(struct sy_pw *w, const uint8_t **data, size_t *len)
{
	int err;

	if (!data || !len)
		return -SY_E_INVALID;
	err = sy_pw_finish(w);
	if (err)
		return err;
	*data = w->out.p;
	*len = w->out.len;
	return 0;
}

static int pw_write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -SY_E_IO;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int sy_pw_write_fd(struct sy_pw *w, int fd)
{
	const uint8_t *p;
	size_t len;
	int err;

	if (fd < 0)
		return -SY_E_INVALID;
	err = sy_pw_output(w, &p, &len);
	if (err)
		return err;
	return pw_write_all(fd, p, len);
}

int sy_pw_write_file(struct sy_pw *w, const char *path)
{
	const uint8_t *p;
	size_t len, n;
	char *tmp;
	int fd, err, saved;

	if (!path || !*path)
		return -SY_E_INVALID;
	err = sy_pw_output(w, &p, &len);
	if (err)
		return err;
	n = strlen(path) + sizeof(".XXXXXX");
	tmp = malloc(n);
	if (!tmp)
		return -SY_E_NOMEM;
	snprintf(tmp, n, "%s.XXXXXX", path);
	/* same directory as @path so that rename() cannot cross devices;
	 * mkstemp's 0600 is also what perf record gives perf.data */
	fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -SY_E_IO;
	}
	err = pw_write_all(fd, p, len);
	if (!err && fsync(fd))
		err = -SY_E_IO;
	saved = errno;
	if (close(fd) && !err) {
		saved = errno;
		err = -SY_E_IO;
	}
	if (!err && rename(tmp, path)) {
		saved = errno;
		err = -SY_E_IO;
	}
	if (err)
		unlink(tmp);
	free(tmp);
	errno = saved;
	return err;
}
