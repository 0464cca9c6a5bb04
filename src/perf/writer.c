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

#include "write_impl.h"
#include "sy_bytes.h"

/* Largest input whose worst-case zstd output fits @max bytes. */

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
	piece = sy_pwi_comp_piece(c.comp_max_payload);
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
	w->stream_fd = -1;
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
		sy_pwi_buf_fini(&w->feat[i]);
	sy_pwi_buf_fini(&w->data);
	sy_pwi_buf_fini(&w->out);
	sy_pwi_buf_fini(&w->batch);
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

static uint32_t sy_pwi_attr_size(const struct sy_pw *w, const struct sy_perf_attr *a)
{
	return a->size ? a->size : w->cfg.attr_size;
}

int sy_pw_add_attr(struct sy_pw *w, const struct sy_perf_attr *attr)
{
	struct sy_pwi_attr *e;
	uint32_t size;

	if (!w || !attr || (attr->nr_ids && !attr->ids))
		return -SY_E_INVALID;
	if (w->err)
		return w->err;
	if (w->finished || ((w->cfg.pipe || w->stream_fd >= 0) && w->started))
		return -SY_E_INVALID;
	size = sy_pwi_attr_size(w, attr);
	if (size < SY_ATTR_SIZE_VER0 || size % 8 ||
	    size > SY_PERF_RECORD_MAX / 2)
		return -SY_E_INVALID;
	/* the file header has one stride for the whole attr section */
	if (!w->cfg.pipe && w->nr_attrs &&
	    size != sy_pwi_attr_size(w, &w->attrs[0].attr))
		return -SY_E_INVALID;
	if (w->cfg.pipe && attr->nr_ids > (SY_PERF_RECORD_MAX - 8 - size) / 8)
		return -SY_E_LIMIT; /* would not fit a HEADER_ATTR record */
	if (w->nr_attrs == w->cap_attrs) {
		uint32_t cap = w->cap_attrs ? w->cap_attrs * 2 : 8;
		struct sy_pwi_attr *n = realloc(w->attrs, cap * sizeof(*n));

		if (!n)
			return sy_pwi_fail(w, -SY_E_NOMEM);
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
			return sy_pwi_fail(w, -SY_E_NOMEM);
		memcpy(e->ids, attr->ids, attr->nr_ids * sizeof(uint64_t));
	}
	if (attr->name) {
		e->name = strdup(attr->name);
		if (!e->name) {
			free(e->ids);
			return sy_pwi_fail(w, -SY_E_NOMEM);
		}
	}
	e->attr.ids = e->ids;
	e->attr.name = e->name;
	return (int)w->nr_attrs++;
}

/* --- Record output ------------------------------------------------------ */

/* Streaming: the buffered data bytes go out in chunks of this size. */
#define PW_STREAM_CHUNK ((size_t)1 << 20)

static int sy_pwi_write_all(int fd, const uint8_t *p, size_t len)
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

/* Streaming: sends the buffered data bytes to the output. */
static int sy_pwi_stream_flush(struct sy_pw *w)
{
	int err;

	if (w->stream_fd < 0 || !w->data.len)
		return 0;
	err = sy_pwi_write_all(w->stream_fd, w->data.p, w->data.len);
	if (err) {
		w->stream_errno = errno;
		return err;
	}
	w->data_flushed += w->data.len;
	w->data.len = 0;
	return 0;
}

int sy_pwi_emit_plain(struct sy_pw *w, const void *rec, size_t len)
{
	int err = sy_pwi_buf_put(&w->data, rec, len);

	if (!err && w->stream_fd >= 0 && w->data.len >= PW_STREAM_CHUNK)
		err = sy_pwi_stream_flush(w);
	return err;
}

uint64_t sy_pwi_data_pos(const struct sy_pw *w)
{
	return w->data_flushed + w->data.len;
}

static int sy_pwi_header_attr(struct sy_pw *w, const struct sy_perf_attr *a)
{
	size_t size = 8 + a->size + 8 * (size_t)a->nr_ids;
	struct sy_pwi_buf b = { 0 };
	uint32_t i;
	int err;

	/* not in the scratch buffer: the preamble is written while the first
	 * record is being built there */
	err = sy_pwi_buf_reserve(&b, size);
	if (err)
		return err;
	sy_put32(b.p, SY_REC_HEADER_ATTR);
	sy_put16(b.p + 4, 0);
	sy_put16(b.p + 6, (uint16_t)size);
	err = sy_pw_attr_encode(a, a->size, b.p + 8);
	for (i = 0; i < a->nr_ids; i++)
		sy_put64(b.p + 8 + a->size + 8 * (size_t)i, a->ids[i]);
	if (!err)
		err = sy_pwi_emit_plain(w, b.p, size);
	if (!err)
		w->stats.nr_type[SY_REC_HEADER_ATTR]++;
	sy_pwi_buf_fini(&b);
	return err;
}

/* HEADER_FEATURE {header; u64 feat_id; payload}: perf writes the payload
 * as it is, so the record size need not be a multiple of 8. */
static int sy_pwi_header_feature(struct sy_pw *w, uint64_t feat, const void *p,
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
	err = sy_pwi_emit_plain(w, hdr, sizeof(hdr));
	if (!err)
		err = sy_pwi_emit_plain(w, p, len);
	if (!err)
		w->stats.nr_type[SY_REC_HEADER_FEATURE]++;
	return err;
}

/* Pipe mode: attrs, then features, then the end mark, before any record
 * (perf_event__synthesize_for_pipe). */
static int sy_pwi_pipe_preamble(struct sy_pw *w)
{
	uint32_t i;
	int feat, err;

	for (i = 0; i < w->nr_attrs; i++) {
		err = sy_pwi_header_attr(w, &w->attrs[i].attr);
		if (err)
			return err;
	}
	err = sy_pwi_feat_auto(w, 0);
	if (err)
		return err;
	for (feat = 0; feat < SY_FEAT_BITS; feat++) {
		if (!sy_pwi_feat_is_set(w, feat) || !w->feat[feat].len)
			continue;
		err = sy_pwi_header_feature(w, (uint64_t)feat, w->feat[feat].p,
					w->feat[feat].len);
		if (err)
			return err;
	}
	return sy_pwi_header_feature(w, w->cfg.pipe_last_feature, NULL, 0);
}

static uint64_t sy_pwi_data_off(const struct sy_pw *w);

/* Streaming, at the first byte: the pipe header, or in file mode a hole
 * for the head, written at the end once the sizes are known. */
static int sy_pwi_stream_begin(struct sy_pw *w)
{
	if (w->cfg.pipe) {
		uint8_t h[SY_PERF_PIPE_HEADER_SIZE];

		sy_put64(h, SY_PERF_MAGIC2);
		sy_put64(h + 8, SY_PERF_PIPE_HEADER_SIZE);
		if (sy_pwi_write_all(w->stream_fd, h, sizeof(h))) {
			w->stream_errno = errno;
			return -SY_E_IO;
		}
		return 0;
	}
	if (lseek(w->stream_fd, (off_t)sy_pwi_data_off(w), SEEK_SET) < 0) {
		w->stream_errno = errno;
		return -SY_E_IO;
	}
	return 0;
}

/* Called before anything lands in the data stream. */
int sy_pwi_start(struct sy_pw *w)
{
	int err;

	if (w->err)
		return w->err;
	if (w->finished)
		return -SY_E_INVALID;
	if (w->started)
		return 0;
	w->started = 1;
	if (w->stream_fd >= 0) {
		err = sy_pwi_stream_begin(w);
		if (err)
			return sy_pwi_fail(w, err);
	}
	if (!w->cfg.pipe)
		return 0;
	err = sy_pwi_pipe_preamble(w);
	return err ? sy_pwi_fail(w, err) : 0;
}

/* Emits one complete record (@rec, header included). */
int sy_pwi_emit(struct sy_pw *w, const uint8_t *rec, size_t len)
{
	uint32_t type = len >= 4 ? sy_le32(rec) : 0;
	int err = sy_pwi_start(w);

	if (err)
		return err;
	if (w->zc && w->comp_on)
		err = sy_pwi_comp_feed(w, rec, len);
	else
		err = sy_pwi_emit_plain(w, rec, len);
	if (err)
		return sy_pwi_fail(w, err);
	if (type < SY_REC_TYPE_LIMIT)
		w->stats.nr_type[type]++;
	return 0;
}

void sy_pwi_rec_begin(struct sy_pw *w, struct sy_pwi_rec *r)
{
	r->p = w->scratch;
	r->len = 8;
	r->over = 0;
}

/* Appends the sample_id trailer, fills in the header and emits. */
int sy_pwi_rec_end(struct sy_pw *w, struct sy_pwi_rec *r, uint32_t type,
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
	return sy_pwi_emit(w, r->p, r->len);
}

int sy_pw_record(struct sy_pw *w, uint32_t type, uint16_t misc,
		 const void *body, size_t len)
{
	struct sy_pwi_rec r;
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (type == SY_REC_AUXTRACE || (len && !body))
		return -SY_E_INVALID;
	sy_pwi_rec_begin(w, &r);
	sy_pwi_rec_put(&r, body, len);
	return sy_pwi_rec_end(w, &r, type, misc, NULL, NULL);
}

int sy_pw_raw(struct sy_pw *w, const void *bytes, size_t len)
{
	int err = sy_pwi_check(w);

	if (err)
		return err;
	if (len && !bytes)
		return -SY_E_INVALID;
	return sy_pwi_emit(w, bytes, len);
}

/* --- Typed records ------------------------------------------------------ */

int sy_pw_sample(struct sy_pw *w, const struct sy_perf_attr *attr,
		 uint16_t misc, const struct sy_sample *s)
{
	struct sy_pwi_rec r;
	int n, err = sy_pwi_check(w);

	if (err)
		return err;
	sy_pwi_rec_begin(w, &r);
	n = sy_pw_sample_encode(attr, s, r.p + 8, PW_SCRATCH - 8);
	if (n < 0)
		return n;
	r.len += (size_t)n;
	return sy_pwi_rec_end(w, &r, SY_REC_SAMPLE, misc, NULL, NULL);
}

/* --- Finishing and output ----------------------------------------------- */

static int sy_pwi_finish_pipe(struct sy_pw *w)
{
	/* streaming: the header went out with the first bytes */
	if (w->stream_fd < 0) {
		uint8_t h[SY_PERF_PIPE_HEADER_SIZE];
		int err;

		sy_put64(h, SY_PERF_MAGIC2);
		sy_put64(h + 8, SY_PERF_PIPE_HEADER_SIZE);
		err = sy_pwi_buf_put(&w->out, h, sizeof(h));
		if (!err)
			err = sy_pwi_buf_put(&w->out, w->data.p, w->data.len);
		return err;
	}
	return sy_pwi_stream_flush(w);
}

/* Where the data section starts in file mode: after the header, the id
 * arrays and the attr section. */
static uint64_t sy_pwi_data_off(const struct sy_pw *w)
{
	uint32_t asize = w->nr_attrs ? w->attrs[0].attr.size : w->cfg.attr_size;
	uint64_t nr_ids = 0;

	for (uint32_t i = 0; i < w->nr_attrs; i++)
		nr_ids += w->attrs[i].attr.nr_ids;
	return SY_PERF_FILE_HEADER_SIZE + 8 * nr_ids +
	       (uint64_t)w->nr_attrs * (asize + 16);
}

/* perf_session__do_write_header, first part: header, id arrays, attrs,
 * for a data section of @data_len bytes. */
static int sy_pwi_file_head(struct sy_pw *w, struct sy_pwi_buf *o,
			    uint64_t data_len)
{
	uint32_t asize = w->nr_attrs ? w->attrs[0].attr.size : w->cfg.attr_size;
	uint64_t bits[SY_FEAT_BITS / 64] = { 0 };
	uint64_t ids_off = SY_PERF_FILE_HEADER_SIZE, data_off, off;
	uint8_t h[SY_PERF_FILE_HEADER_SIZE];
	uint32_t i, j;
	int feat, err;
	size_t k;

	data_off = sy_pwi_data_off(w);
	for (feat = 0; feat < SY_FEAT_BITS; feat++)
		if (sy_pwi_feat_is_set(w, feat))
			bits[feat / 64] |= 1ULL << (feat % 64);

	memset(h, 0, sizeof(h));
	sy_put64(h, SY_PERF_MAGIC2);
	sy_put64(h + 8, SY_PERF_FILE_HEADER_SIZE);
	sy_put64(h + 16, asize + 16);
	sy_put64(h + 24, data_off - (uint64_t)w->nr_attrs * (asize + 16));
	sy_put64(h + 32, (uint64_t)w->nr_attrs * (asize + 16));
	sy_put64(h + 40, data_off);
	sy_put64(h + 48, data_len);
	/* event_types (56, 16 bytes) stays zero, as perf writes it */
	for (k = 0; k < SY_ARRAY_SIZE(bits); k++)
		sy_put64(h + 72 + 8 * k, bits[k]);
	err = sy_pwi_buf_put(o, h, sizeof(h));

	for (i = 0; i < w->nr_attrs && !err; i++)
		for (j = 0; j < w->attrs[i].attr.nr_ids && !err; j++)
			err = sy_pwi_buf_u64(o, w->attrs[i].ids[j]);
	off = ids_off;
	for (i = 0; i < w->nr_attrs && !err; i++) {
		const struct sy_perf_attr *a = &w->attrs[i].attr;

		err = sy_pwi_buf_reserve(o, asize);
		if (err)
			break;
		err = sy_pw_attr_encode(a, asize, o->p + o->len);
		if (err)
			break;
		o->len += asize;
		err = sy_pwi_buf_u64(o, a->nr_ids ? off : 0);
		if (!err)
			err = sy_pwi_buf_u64(o, 8 * (uint64_t)a->nr_ids);
		off += 8 * (uint64_t)a->nr_ids;
	}
	return err;
}

/* Second part: the feature table at the end of the data section and the
 * payloads packed after it. */
static int sy_pwi_file_tail(struct sy_pw *w, struct sy_pwi_buf *o,
			    uint64_t data_len)
{
	uint64_t data_off = sy_pwi_data_off(w);
	uint64_t feat_off = data_off + data_len, pay_off;
	int feat, nfeat = 0, err = 0;
	size_t k, base;

	for (feat = 0; feat < SY_FEAT_BITS; feat++)
		nfeat += sy_pwi_feat_is_set(w, feat);
	/* the AUXTRACE index was built relative to the data section */
	if (w->feat_state[SY_FEAT_AUXTRACE] == PW_FEAT_AUTO) {
		struct sy_pwi_buf *b = &w->feat[SY_FEAT_AUXTRACE];

		base = w->cfg.auxtrace_index == SY_PW_INDEX_SIMPLEPERF ? 0 : 8;
		for (k = 0; k < w->nr_index; k++)
			sy_put64(b->p + base + 16 * k,
				 sy_le64(b->p + base + 16 * k) + data_off);
	}

	pay_off = feat_off + 16 * (uint64_t)nfeat;
	for (feat = 0; feat < SY_FEAT_BITS && !err; feat++) {
		if (!sy_pwi_feat_is_set(w, feat))
			continue;
		err = sy_pwi_buf_u64(o, pay_off);
		if (!err)
			err = sy_pwi_buf_u64(o, w->feat[feat].len);
		pay_off += w->feat[feat].len;
	}
	for (feat = 0; feat < SY_FEAT_BITS && !err; feat++)
		if (sy_pwi_feat_is_set(w, feat))
			err = sy_pwi_buf_put(o, w->feat[feat].p, w->feat[feat].len);
	return err;
}

/* perf_session__do_write_header: header, id arrays, attrs, data, feature
 * table at data end, payloads packed after it.  Streaming: the data went
 * out after a hole left for the head; the tail follows it and the head is
 * written into the hole last. */
static int sy_pwi_finish_file(struct sy_pw *w)
{
	struct sy_pwi_buf *o = &w->out;
	uint64_t data_len;
	int err;

	if (w->stream_fd < 0) {
		data_len = w->data.len;
		err = sy_pwi_file_head(w, o, data_len);
		if (!err)
			err = sy_pwi_buf_put(o, w->data.p, w->data.len);
		if (!err)
			err = sy_pwi_file_tail(w, o, data_len);
		return err;
	}
	err = sy_pwi_stream_flush(w);
	data_len = w->data_flushed;
	if (!err)
		err = sy_pwi_file_tail(w, &w->data, data_len);
	if (!err)
		err = sy_pwi_stream_flush(w);
	if (!err)
		err = sy_pwi_file_head(w, o, data_len);
	if (!err && pwrite(w->stream_fd, o->p, o->len, 0) != (ssize_t)o->len) {
		w->stream_errno = errno ? errno : EIO;
		err = -SY_E_IO;
	}
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
	err = sy_pwi_start(w);
	if (err)
		return err;
	if (w->zc) {
		err = sy_pwi_comp_push(w);
		if (err)
			return sy_pwi_fail(w, err);
	}
	if (!w->cfg.pipe) {
		err = sy_pwi_feat_auto(w, 1);
		if (err)
			return sy_pwi_fail(w, err);
	}
	w->out.len = 0;
	err = w->cfg.pipe ? sy_pwi_finish_pipe(w) : sy_pwi_finish_file(w);
	if (err)
		return sy_pwi_fail(w, err);
	w->finished = 1;
	return 0;
}

int sy_pw_output(struct sy_pw *w, const uint8_t **data, size_t *len)
{
	int err;

	if (!data || !len || (w && w->stream_fd >= 0))
		return -SY_E_INVALID;
	err = sy_pw_finish(w);
	if (err)
		return err;
	*data = w->out.p;
	*len = w->out.len;
	return 0;
}

int sy_pw_stream(struct sy_pw *w, int fd)
{
	if (!w || fd < 0)
		return -SY_E_INVALID;
	if (w->err)
		return w->err;
	if (w->started || w->finished || w->stream_fd >= 0)
		return -SY_E_INVALID;
	w->stream_fd = fd;
	return 0;
}

int sy_pw_stream_errno(const struct sy_pw *w)
{
	return w ? w->stream_errno : 0;
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
	return sy_pwi_write_all(fd, p, len);
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
	err = sy_pwi_write_all(fd, p, len);
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

/* Flushing starts the output (a pipe preamble, a stream): with the
 * writer, which the compression mechanics must not call back into. */
int sy_pw_comp_flush(struct sy_pw *w)
{
	int err = sy_pwi_check(w);

	if (err || !w->zc)
		return err;
	err = sy_pwi_start(w);
	if (!err)
		err = sy_pwi_comp_push(w);
	return err ? sy_pwi_fail(w, err) : 0;
}

