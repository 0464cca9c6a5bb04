/* perf.data reader: file header, attrs, features and the record walk.
 *
 * Two sources share one code path: a mapped file (zero-copy, every record a
 * pointer into the mapping) and a stream (a sliding window over read(2) that
 * only moves forward, for pipes).  Everything the file claims about sizes is
 * checked against what is really there before it is used; a broken record
 * stream stops the walk with the byte offset of the damage, and the error is
 * sticky because nothing after a bad size can be trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "perf_internal.h"
#include "sy_bytes.h"
#include "sy_perf.h"

/* Largest contiguous piece a stream may ask for (an AUXTRACE chunk with its
 * header).  Real chunks are at most the AUX buffer size. */
#define SY_STREAM_MAX (1ULL << 31)
/* Largest output one compressed record may inflate to.  perf compresses
 * whole mmap buffers of COMPRESSED.mmap_len bytes, so a real record never
 * comes close; this only stops decompression bombs. */
#define SY_ZSTD_MAX_OUT (64u << 20)

struct sy_idmap {
	uint64_t *keys; /* 0 = empty slot; id 0 is never inserted */
	uint32_t *vals;
	size_t cap, n;
};

struct sy_perf_reader {
	char *name;
	struct sy_diag diag;
	int err;
	struct sy_perf_info info;
	struct sy_perf_features feat;
	struct sy_feat_state fst;
	struct sy_perf_stats stats;
	struct sy_arena arena;
	sy_perf_warn_fn warn_fn;
	void *warn_ctx;
	uint64_t nr_warnings;
	uint64_t nr_damage;
	/* warnings raised while opening, before a callback could be set:
	 * replayed by sy_perf_set_warn */
	struct sy_diag early[8];
	unsigned nr_early;
	int warned_unknown_type;
	int warned_comp2_size;

	/* mapped source */
	const uint8_t *map;
	uint64_t map_len;
	void *unmap_base;

	/* streamed source */
	int fd;
	int own_fd;
	uint8_t *sbuf;
	size_t scap, slen;
	uint64_t sbase;
	int seof;

	uint64_t pos; /* next raw record */
	uint64_t end; /* end of the record stream */
	uint64_t declared_end; /* data end per the header, when past EOF */
	int features_pending; /* streamed file mode: features follow data */

	struct sy_perf_attr **attrs;
	uint32_t nr_attrs, cap_attrs;
	struct sy_idmap idmap;
	int id_pos, is_pos;

	ZSTD_DStream *zds;
	uint8_t *zbuf;
	size_t zcap, zlen, zpos, zsplit;
	uint64_t zoff_prev, zoff_cur;
};

static void sy_perf_warn_diag(struct sy_perf_reader *r, const struct sy_diag *d)
{
	r->nr_warnings++;
	if (d->err < 0)
		r->nr_damage++;
	if (r->warn_fn)
		r->warn_fn(r->warn_ctx, d);
	else if (r->nr_early < SY_ARRAY_SIZE(r->early))
		r->early[r->nr_early++] = *d;
}

/* @err < 0 marks damage to the file; 0 is only a notice (newer record
 * types, unfinished recording). */
static void sy_perf_warn(struct sy_perf_reader *r, int err, uint64_t off,
			 const char *fmt, ...) SY_PRINTF(4, 5);

static void sy_perf_warn(struct sy_perf_reader *r, int err, uint64_t off,
			 const char *fmt, ...)
{
	struct sy_diag d;
	va_list ap;

	memset(&d, 0, sizeof(d));
	d.offset = off;
	d.has_offset = 1;
	d.err = err;
	va_start(ap, fmt);
	vsnprintf(d.msg, sizeof(d.msg), fmt, ap);
	va_end(ap);
	sy_perf_warn_diag(r, &d);
}


/* --- sources -------------------------------------------------------------- */

/* Points *p at [off, off+len).  Returns 0, or -SY_E_TRUNCATED with *avail set
 * to the bytes that do exist, or -SY_E_IO / -SY_E_NOMEM / -SY_E_LIMIT. */
static int sy_src_get(struct sy_perf_reader *r, uint64_t off, uint64_t len,
		      const uint8_t **p, uint64_t *avail)
{
	if (r->map) {
		uint64_t lim = r->map_len;

		*avail = off >= lim ? 0 : (lim - off < len ? lim - off : len);
		*p = r->map + (off < lim ? off : lim);
		return *avail == len ? 0 : -SY_E_TRUNCATED;
	}

	if (off >= r->sbase && len <= r->slen && off - r->sbase <= r->slen - len) {
		*p = r->sbuf + (off - r->sbase);
		*avail = len;
		return 0;
	}
	if (off < r->sbase)
		return sy_diag_set(&r->diag, off, -SY_E_INTERNAL,
				   "stream moved backwards");
	if (len > SY_STREAM_MAX)
		return sy_diag_set(&r->diag, off, -SY_E_LIMIT,
				   "%" PRIu64 "-byte item exceeds the %llu-byte "
				   "stream limit", len, SY_STREAM_MAX);
	uint64_t drop = off - r->sbase;
	if (drop >= r->slen) {
		uint64_t skip = drop - r->slen;
		uint8_t tmp[4096];

		r->slen = 0;
		r->sbase += drop - skip;
		while (skip && !r->seof) {
			ssize_t n = read(r->fd, tmp,
					 skip < sizeof(tmp) ? skip : sizeof(tmp));
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return sy_diag_set(&r->diag, r->sbase, -SY_E_IO,
						   "read: %s", strerror(errno));
			if (n == 0)
				r->seof = 1;
			skip -= (uint64_t)n;
			r->sbase += (uint64_t)n;
		}
		if (skip) {
			*avail = 0;
			return -SY_E_TRUNCATED;
		}
	} else if (drop) {
		memmove(r->sbuf, r->sbuf + drop, r->slen - drop);
		r->slen -= drop;
		r->sbase = off;
	}
	while (r->slen < len && !r->seof) {
		if (r->slen == r->scap) {
			/* grow with the data that really arrives, so a forged
			 * size cannot make us allocate what is not there */
			size_t ncap = r->scap ? r->scap * 2 : 65536;
			if (ncap > len && len > r->scap)
				ncap = len;
			uint8_t *nb = realloc(r->sbuf, ncap);
			if (!nb)
				return -SY_E_NOMEM;
			r->sbuf = nb;
			r->scap = ncap;
		}
		ssize_t n = read(r->fd, r->sbuf + r->slen, r->scap - r->slen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sy_diag_set(&r->diag, r->sbase + r->slen,
					   -SY_E_IO, "read: %s",
					   strerror(errno));
		if (n == 0)
			r->seof = 1;
		r->slen += (size_t)n;
	}
	*p = r->sbuf;
	*avail = r->slen < len ? r->slen : len;
	return *avail == len ? 0 : -SY_E_TRUNCATED;
}

/* Like sy_src_get, but the record stream ends at r->end (the data section
 * of a file-mode file), whatever follows it. */
static int sy_rec_get(struct sy_perf_reader *r, uint64_t off, uint64_t len,
		      const uint8_t **p, uint64_t *avail)
{
	uint64_t room = off < r->end ? r->end - off : 0;
	int err;

	if (len <= room)
		return sy_src_get(r, off, len, p, avail);
	err = sy_src_get(r, off, room, p, avail);
	return err ? err : -SY_E_TRUNCATED;
}

/* --- attrs and ids -------------------------------------------------------- */

static int sy_id_pos(uint64_t t)
{
	if (t & SY_SAMPLE_IDENTIFIER)
		return 0;
	if (!(t & SY_SAMPLE_ID))
		return -1;
	return !!(t & SY_SAMPLE_IP) + !!(t & SY_SAMPLE_TID) +
	       !!(t & SY_SAMPLE_TIME) + !!(t & SY_SAMPLE_ADDR);
}

static int sy_is_pos(uint64_t t)
{
	if (t & SY_SAMPLE_IDENTIFIER)
		return 1;
	if (!(t & SY_SAMPLE_ID))
		return -1;
	return 1 + !!(t & SY_SAMPLE_CPU) + !!(t & SY_SAMPLE_STREAM_ID);
}

static uint64_t sy_id_hash(uint64_t id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return id;
}

static int sy_idmap_put(struct sy_idmap *m, uint64_t id, uint32_t val)
{
	if (!id)
		return 0;
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		uint64_t *nk = calloc(ncap, sizeof(*nk));
		uint32_t *nv = calloc(ncap, sizeof(*nv));

		if (!nk || !nv) {
			free(nk);
			free(nv);
			return -SY_E_NOMEM;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = sy_id_hash(m->keys[i]) & (ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = m->keys[i];
			nv[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = ncap;
	}
	size_t j = sy_id_hash(id) & (m->cap - 1);
	while (m->keys[j]) {
		if (m->keys[j] == id)
			return 1; /* duplicate: the first attr keeps it */
		j = (j + 1) & (m->cap - 1);
	}
	m->keys[j] = id;
	m->vals[j] = val;
	m->n++;
	return 0;
}

static int sy_idmap_get(const struct sy_idmap *m, uint64_t id, uint32_t *val)
{
	if (!m->cap || !id)
		return 0;
	size_t j = sy_id_hash(id) & (m->cap - 1);
	while (m->keys[j]) {
		if (m->keys[j] == id) {
			*val = m->vals[j];
			return 1;
		}
		j = (j + 1) & (m->cap - 1);
	}
	return 0;
}

/* Adds an attr decoded from @p (@len bytes of attr) with @nr_ids ids read
 * from @ids.  @off is for messages. */
static int sy_add_attr(struct sy_perf_reader *r, const uint8_t *p, size_t len,
		       const uint8_t *ids, uint64_t nr_ids, uint64_t off)
{
	struct sy_perf_attr *a;
	uint64_t *idv = NULL;

	if (r->nr_attrs == r->cap_attrs) {
		uint32_t ncap = r->cap_attrs ? r->cap_attrs * 2 : 8;
		struct sy_perf_attr **na =
			realloc(r->attrs, ncap * sizeof(*na));
		if (!na)
			return -SY_E_NOMEM;
		r->attrs = na;
		r->cap_attrs = ncap;
	}
	a = sy_arena_alloc(&r->arena, sizeof(*a));
	if (!a)
		return -SY_E_NOMEM;
	if (sy_perf_attr_decode(a, p, len))
		return sy_diag_set(&r->diag, off, -SY_E_BAD_ATTR,
				   "attr %u is only %zu bytes", r->nr_attrs,
				   len);
	if (nr_ids) {
		idv = sy_arena_alloc(&r->arena, nr_ids * 8);
		if (!idv)
			return -SY_E_NOMEM;
		for (uint64_t i = 0; i < nr_ids; i++) {
			idv[i] = sy_le64(ids + i * 8);
			int dup = sy_idmap_put(&r->idmap, idv[i], r->nr_attrs);
			if (dup < 0)
				return dup;
			if (dup)
				sy_perf_warn(r, -SY_E_BAD_ATTR, off,
					     "attr %u repeats event id %" PRIu64
					     " of an earlier attr",
					     r->nr_attrs, idv[i]);
		}
	}
	a->ids = idv;
	a->nr_ids = (uint32_t)nr_ids;
	a->index = r->nr_attrs;
	/* reported here, once: a sample of this attr cannot be parsed */
	if (a->sample_type & ~SY_SAMPLE_KNOWN_MASK)
		sy_perf_warn(r, -SY_E_BAD_ATTR, off,
			     "attr %u: unknown sample_type bits %#" PRIx64
			     "; its samples are skipped", r->nr_attrs,
			     (uint64_t)(a->sample_type & ~SY_SAMPLE_KNOWN_MASK));

	int ip = sy_id_pos(a->sample_type), sp = sy_is_pos(a->sample_type);
	if (r->nr_attrs == 0) {
		r->id_pos = ip;
		r->is_pos = sp;
	} else if (ip != r->id_pos || sp != r->is_pos) {
		/* perf refuses such files too (evlist__valid_sample_type):
		 * without a common id position no record can be attributed */
		return sy_diag_set(&r->diag, off, -SY_E_BAD_ATTR,
				   "attr %u keeps its sample id at another "
				   "position than attr 0", r->nr_attrs);
	}
	r->attrs[r->nr_attrs++] = a;
	return 0;
}

static void sy_apply_event_names(struct sy_perf_reader *r)
{
	for (uint32_t i = 0; i < r->fst.nr_descs; i++) {
		const struct sy_event_desc *d = &r->fst.descs[i];
		uint32_t idx;

		if (d->has_id && sy_idmap_get(&r->idmap, d->first_id, &idx))
			r->attrs[idx]->name = d->name;
		else if (!d->has_id && i < r->nr_attrs && !r->attrs[i]->name)
			r->attrs[i]->name = d->name;
	}
}

/* --- file header ---------------------------------------------------------- */

static int sy_parse_features(struct sy_perf_reader *r)
{
	const struct sy_perf_info *in = &r->info;
	uint64_t nbits = 0, tab = in->feat_offset, i = 0;
	const uint8_t *p;
	uint64_t avail;

	for (int b = 0; b < SY_FEAT_BITS; b++)
		nbits += (in->feature_bits[b / 64] >> (b % 64)) & 1;
	if (!nbits)
		return 0;
	if (sy_src_get(r, tab, nbits * 16, &p, &avail)) {
		if (r->diag.err == -SY_E_IO || r->diag.err == -SY_E_NOMEM)
			return r->diag.err;
		sy_perf_warn(r, -SY_E_BAD_FEATURE, tab,
			     "feature table (%" PRIu64 " entries) runs past the "
			     "end of the file; header features ignored", nbits);
		return 0;
	}
	/* copy the table: in a stream the section reads below move the
	 * window past it */
	uint64_t *sec = malloc(nbits * 2 * sizeof(*sec));
	if (!sec)
		return -SY_E_NOMEM;
	for (uint64_t k = 0; k < nbits * 2; k++)
		sec[k] = sy_le64(p + k * 8);

	int err = 0;
	for (int b = 0; b < SY_FEAT_BITS && !err; b++) {
		if (!((in->feature_bits[b / 64] >> (b % 64)) & 1))
			continue;
		uint64_t off = sec[i * 2], size = sec[i * 2 + 1];
		i++;
		if (!sy_feature_name(b))
			continue;
		if (r->map == NULL && off < r->sbase) {
			sy_perf_warn(r, 0, tab,
				     "%s feature lies before the previous one; "
				     "cannot read it from a stream",
				     sy_feature_name(b));
			continue;
		}
		if (size > SY_STREAM_MAX ||
		    sy_src_get(r, off, size, &p, &avail)) {
			sy_perf_warn(r, -SY_E_BAD_FEATURE, tab + (i - 1) * 16,
				     "%s feature section [%" PRIu64 ", +%" PRIu64
				     ") lies past the end of the file; ignored",
				     sy_feature_name(b), off, size);
			continue;
		}
		struct sy_diag d = { 0 };
		int ret = sy_feat_parse(&r->fst, b, p, size, off, &d);
		if (ret == -SY_E_NOMEM)
			err = ret;
		else if (ret < 0)
			sy_perf_warn_diag(r, &d);
	}
	free(sec);
	if (!err)
		sy_apply_event_names(r);
	return err;
}

static int sy_parse_file_header(struct sy_perf_reader *r, const uint8_t *h)
{
	struct sy_perf_info *in = &r->info;
	uint64_t fsize = r->map ? r->map_len : UINT64_MAX;
	const uint8_t *p;
	uint64_t avail;
	int err;

	in->header_size = sy_le64(h + 8);
	if (in->header_size != SY_PERF_FILE_HEADER_SIZE &&
	    in->header_size != SY_PERF_FILE_HEADER_SIZE_OLD)
		return sy_diag_set(&r->diag, 8, -SY_E_BAD_HEADER,
				   "header size %" PRIu64 " is neither %d nor %d",
				   in->header_size, SY_PERF_FILE_HEADER_SIZE,
				   SY_PERF_FILE_HEADER_SIZE_OLD);
	err = sy_src_get(r, 0, in->header_size, &h, &avail);
	if (err == -SY_E_TRUNCATED)
		return sy_diag_set(&r->diag, avail, -SY_E_BAD_HEADER,
				   "file ends inside the %" PRIu64
				   "-byte header", in->header_size);
	if (err)
		return err;
	in->attr_size = sy_le64(h + 16);
	in->attrs_offset = sy_le64(h + 24);
	in->attrs_size = sy_le64(h + 32);
	in->data_offset = sy_le64(h + 40);
	in->data_size = sy_le64(h + 48);
	if (in->header_size >= SY_PERF_FILE_HEADER_SIZE)
		for (int k = 0; k < 4; k++)
			in->feature_bits[k] = sy_le64(h + 72 + k * 8);

	if (in->attr_size < SY_ATTR_SIZE_VER0 + 16 || in->attr_size % 8)
		return sy_diag_set(&r->diag, 16, -SY_E_BAD_HEADER,
				   "attr entry size %" PRIu64 " is invalid",
				   in->attr_size);
	if (in->attrs_size % in->attr_size)
		return sy_diag_set(&r->diag, 32, -SY_E_BAD_HEADER,
				   "attr section size %" PRIu64
				   " is not a multiple of the entry size %" PRIu64,
				   in->attrs_size, in->attr_size);
	if (in->attrs_offset < in->header_size ||
	    in->attrs_offset > fsize || in->attrs_size > fsize - in->attrs_offset)
		return sy_diag_set(&r->diag, 24, -SY_E_BAD_HEADER,
				   "attr section [%" PRIu64 ", +%" PRIu64
				   ") lies outside the %" PRIu64 "-byte file",
				   in->attrs_offset, in->attrs_size, fsize);
	if (in->data_offset < in->header_size || in->data_offset > fsize)
		return sy_diag_set(&r->diag, 40, -SY_E_BAD_HEADER,
				   "data section offset %" PRIu64
				   " lies outside the %" PRIu64 "-byte file",
				   in->data_offset, fsize);
	if (!r->map) {
		/* a stream cannot seek back: load everything before the data
		 * once, attrs and ids are read from it */
		if (in->attrs_offset + in->attrs_size > in->data_offset)
			return sy_diag_set(&r->diag, 24, -SY_E_UNSUPPORTED,
					   "attr section follows the data "
					   "section; such a file cannot be "
					   "read from a stream");
		err = sy_src_get(r, 0, in->data_offset, &p, &avail);
		if (err == -SY_E_TRUNCATED)
			return sy_diag_set(&r->diag, avail, -SY_E_BAD_HEADER,
					   "stream ends before the data section");
		if (err)
			return err;
	}

	/* attrs, with their id arrays; in a stream both precede the data */
	uint64_t nattrs = in->attrs_size / in->attr_size;
	for (uint64_t i = 0; i < nattrs; i++) {
		uint64_t eoff = in->attrs_offset + i * in->attr_size;
		uint8_t entry[SY_ATTR_SIZE_KNOWN];
		uint64_t ids_off, ids_size, asz;

		err = sy_src_get(r, eoff, in->attr_size, &p, &avail);
		if (err)
			return err == -SY_E_TRUNCATED ?
				       sy_diag_set(&r->diag, eoff,
						   -SY_E_BAD_HEADER,
						   "attr section truncated") :
				       err;
		asz = sy_le32(p + SY_ATTR_OFF_SIZE);
		if (!asz)
			asz = SY_ATTR_SIZE_VER0;
		if (asz < SY_ATTR_SIZE_VER0 || asz > in->attr_size - 16)
			return sy_diag_set(&r->diag, eoff + 4, -SY_E_BAD_ATTR,
					   "attr %" PRIu64 " declares size %" PRIu64
					   " but entries are %" PRIu64 " bytes",
					   i, asz, in->attr_size - 16);
		ids_off = sy_le64(p + in->attr_size - 16);
		ids_size = sy_le64(p + in->attr_size - 8);
		memset(entry, 0, sizeof(entry));
		memcpy(entry, p, asz < sizeof(entry) ? asz : sizeof(entry));
		if (ids_size % 8 || ids_off > fsize ||
		    ids_size > fsize - ids_off ||
		    (!r->map && ids_size &&
		     ids_off + ids_size > in->data_offset))
			return sy_diag_set(&r->diag, eoff + in->attr_size - 16,
					   -SY_E_BAD_ATTR,
					   "attr %" PRIu64 " ids [%" PRIu64
					   ", +%" PRIu64 ") are invalid",
					   i, ids_off, ids_size);
		if (ids_size) {
			err = sy_src_get(r, ids_off, ids_size, &p, &avail);
			if (err)
				return err == -SY_E_TRUNCATED ?
					       sy_diag_set(&r->diag, ids_off,
							   -SY_E_BAD_ATTR,
							   "attr %" PRIu64
							   " ids truncated", i) :
					       err;
		}
		err = sy_add_attr(r, entry,
				  asz < sizeof(entry) ? asz : sizeof(entry), p,
				  ids_size / 8, eoff);
		if (err)
			return err;
	}

	r->pos = in->data_offset;
	if (in->data_size == 0) {
		sy_perf_warn(r, 0, 48,
			     "data section size is 0 (perf record did not "
			     "finish?); reading records to the end of the file");
		r->end = fsize;
	} else if (in->data_size > fsize - in->data_offset) {
		/* a truncated file: read what is there, then fail at its end
		 * (unless a record fails first: one error per problem) */
		r->declared_end = in->data_offset + in->data_size;
		r->end = fsize;
	} else {
		r->end = in->data_offset + in->data_size;
		in->feat_offset = r->end;
		if (r->map)
			return sy_parse_features(r);
		r->features_pending = 1;
	}
	return 0;
}

static int sy_perf_init(struct sy_perf_reader *r)
{
	const uint8_t *h;
	uint64_t avail, magic;
	int err;

	err = sy_src_get(r, 0, 16, &h, &avail);
	if (err && err != -SY_E_TRUNCATED)
		return err;
	if (avail < 8)
		return sy_diag_set(&r->diag, 0, -SY_E_NOT_PERF,
				   avail ? "file is only %" PRIu64 " bytes" :
					   "file is empty", avail);
	magic = sy_le64(h);
	if (magic == SY_PERF_MAGIC2_SWAPPED)
		return sy_diag_set(&r->diag, 0, -SY_E_SWAPPED,
				   "other-endian (byte-swapped) perf.data is "
				   "not supported; convert it on a machine of "
				   "its endianness");
	if (magic == SY_PERF_MAGIC1)
		return sy_diag_set(&r->diag, 0, -SY_E_NOT_PERF,
				   "version 1 perf.data (PERFFILE) is not "
				   "supported");
	if (magic != SY_PERF_MAGIC2)
		return sy_diag_set(&r->diag, 0, -SY_E_NOT_PERF,
				   "not a perf.data file (bad magic)");
	if (avail < 16)
		return sy_diag_set(&r->diag, avail, -SY_E_BAD_HEADER,
				   "file ends inside the header");
	if (sy_le64(h + 8) == SY_PERF_PIPE_HEADER_SIZE) {
		r->info.pipe = 1;
		r->info.header_size = SY_PERF_PIPE_HEADER_SIZE;
		r->pos = SY_PERF_PIPE_HEADER_SIZE;
		r->end = r->map ? r->map_len : UINT64_MAX;
		return 0;
	}
	return sy_parse_file_header(r, h);
}

static int sy_perf_alloc(struct sy_perf_reader **out, const char *name)
{
	struct sy_perf_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return -SY_E_NOMEM;
	r->name = strdup(name ? name : "perf.data");
	if (!r->name) {
		free(r);
		return -SY_E_NOMEM;
	}
	r->fd = -1;
	r->id_pos = r->is_pos = -1;
	sy_arena_init(&r->arena);
	r->fst.f = &r->feat;
	r->fst.arena = &r->arena;
	*out = r;
	return 0;
}

static int sy_perf_finish_open(struct sy_perf_reader **out,
			       struct sy_perf_reader *r, struct sy_diag *diag)
{
	int err = sy_perf_init(r);

	if (err) {
		if (diag) {
			*diag = r->diag;
			if (!diag->err)
				diag->err = err;
		}
		sy_perf_close(r);
		*out = NULL;
		return err;
	}
	r->info.file_size = r->map ? r->map_len : 0;
	r->info.streaming = !r->map;
	*out = r;
	return 0;
}

int sy_perf_open_mem(struct sy_perf_reader **out, const void *buf, size_t len,
		     const char *name, struct sy_diag *diag)
{
	struct sy_perf_reader *r;
	int err;

	if (!out || (!buf && len))
		return -SY_E_INVALID;
	err = sy_perf_alloc(&r, name);
	if (err)
		return err;
	/* a zero-length mapping still needs a non-NULL base */
	r->map = len ? buf : (const uint8_t *)"";
	r->map_len = len;
	return sy_perf_finish_open(out, r, diag);
}

int sy_perf_open_fd(struct sy_perf_reader **out, int fd, const char *name,
		    struct sy_diag *diag)
{
	struct sy_perf_reader *r;
	struct stat st;
	int err;

	if (!out || fd < 0)
		return -SY_E_INVALID;
	err = sy_perf_alloc(&r, name);
	if (err)
		return err;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    lseek(fd, 0, SEEK_CUR) == 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			       fd, 0);
		if (m != MAP_FAILED) {
			r->unmap_base = m;
			r->map = m;
			r->map_len = (uint64_t)st.st_size;
			madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
			return sy_perf_finish_open(out, r, diag);
		}
	}
	r->fd = fd;
	return sy_perf_finish_open(out, r, diag);
}

int sy_perf_open(struct sy_perf_reader **out, const char *path,
		 struct sy_diag *diag)
{
	int fd, err;

	if (!out || !path)
		return -SY_E_INVALID;
	if (!strcmp(path, "-"))
		return sy_perf_open_fd(out, STDIN_FILENO, "-", diag);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		return sy_diag_set_nooff(diag, -SY_E_IO, "cannot open: %s",
					 strerror(e));
	}
	err = sy_perf_open_fd(out, fd, path, diag);
	if (err || (*out)->map) {
		/* mapped: the mapping outlives the descriptor */
		close(fd);
	} else {
		(*out)->own_fd = 1;
	}
	return err;
}

void sy_perf_close(struct sy_perf_reader *r)
{
	if (!r)
		return;
	if (r->unmap_base)
		munmap(r->unmap_base, r->map_len);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	ZSTD_freeDStream(r->zds);
	free(r->zbuf);
	free(r->sbuf);
	free(r->attrs);
	free(r->idmap.keys);
	free(r->idmap.vals);
	sy_arena_fini(&r->arena);
	free(r->name);
	free(r);
}

/* --- records -------------------------------------------------------------- */

static const struct sy_perf_attr *sy_record_attr(struct sy_perf_reader *r,
						 const uint8_t *d,
						 uint32_t type, uint16_t size,
						 uint32_t *flags)
{
	uint64_t n = (size - SY_PERF_EVENT_HEADER_SIZE) / 8, id;
	uint32_t idx;

	if (type >= 64 || !r->nr_attrs)
		return NULL;
	if (r->nr_attrs == 1)
		return r->attrs[0];
	if (type == SY_REC_SAMPLE) {
		if (r->id_pos < 0 || (uint64_t)r->id_pos >= n)
			goto unknown;
		id = sy_le64(d + 8 + (uint64_t)r->id_pos * 8);
	} else {
		if (!sy_attr_flag(r->attrs[0], SY_ATTR_FLAG_SAMPLE_ID_ALL))
			return r->attrs[0];
		if (r->is_pos < 0 || (uint64_t)r->is_pos > n)
			goto unknown;
		id = sy_le64(d + 8 + (n - (uint64_t)r->is_pos) * 8);
	}
	if (!id)
		return r->attrs[0]; /* synthesized by perf */
	if (sy_idmap_get(&r->idmap, id, &idx))
		return r->attrs[idx];
unknown:
	*flags |= SY_RECORD_UNKNOWN_ID;
	r->stats.nr_unknown_id++;
	return NULL;
}

/* pipe mode: HEADER_ATTR, HEADER_FEATURE and EVENT_UPDATE change the
 * reader's own view of the file */
static int sy_handle_header_record(struct sy_perf_reader *r,
				   const struct sy_record *rec)
{
	const uint8_t *b = rec->data + 8;
	size_t blen = rec->size - 8u;

	if (rec->type == SY_REC_HEADER_ATTR) {
		uint64_t asz;

		if (blen < SY_ATTR_SIZE_VER0)
			return sy_diag_set(&r->diag, rec->offset,
					   -SY_E_BAD_ATTR,
					   "HEADER_ATTR record of %u bytes is "
					   "too small", rec->size);
		asz = sy_le32(b + SY_ATTR_OFF_SIZE);
		if (!asz)
			asz = SY_ATTR_SIZE_VER0;
		if (asz < SY_ATTR_SIZE_VER0 || asz > blen)
			return sy_diag_set(&r->diag, rec->offset + 12,
					   -SY_E_BAD_ATTR,
					   "HEADER_ATTR declares an attr of %" PRIu64
					   " bytes in a %zu-byte body", asz, blen);
		int err = sy_add_attr(r, b, asz, b + asz, (blen - asz) / 8,
				      rec->offset);
		if (!err)
			sy_apply_event_names(r);
		return err;
	}
	if (rec->type == SY_REC_HEADER_FEATURE) {
		struct sy_diag d = { 0 };
		uint64_t feat;
		int ret;

		if (blen < 8)
			return sy_diag_set(&r->diag, rec->offset,
					   -SY_E_BAD_RECORD,
					   "HEADER_FEATURE record too small");
		feat = sy_le64(b);
		if (feat >= SY_FEAT_BITS)
			return 0; /* HEADER_LAST_FEATURE or newer */
		ret = sy_feat_parse(&r->fst, (int)feat, b + 8, blen - 8,
				    rec->offset + 16, &d);
		if (ret == -SY_E_NOMEM)
			return ret;
		if (ret < 0)
			sy_perf_warn_diag(r, &d);
		else if (feat == SY_FEAT_EVENT_DESC)
			sy_apply_event_names(r);
		return 0;
	}
	if (rec->type == SY_REC_EVENT_UPDATE && blen >= 16 &&
	    sy_le64(b) == 2 /* PERF_EVENT_UPDATE__NAME */) {
		uint32_t idx;

		if (sy_idmap_get(&r->idmap, sy_le64(b + 8), &idx)) {
			const char *nm = sy_arena_strndup(
				&r->arena, (const char *)b + 16, blen - 16);
			if (!nm)
				return -SY_E_NOMEM;
			r->attrs[idx]->name = nm;
		}
	}
	return 0;
}

/* Checks a record header common to raw and inflated records. */
static int sy_check_header(struct sy_perf_reader *r, uint64_t off,
			   uint32_t type, uint16_t size, const char *where)
{
	if (size < SY_PERF_EVENT_HEADER_SIZE)
		return sy_diag_set(&r->diag, off, -SY_E_BAD_RECORD,
				   "%srecord size %u is smaller than its "
				   "8-byte header", where, size);
	/* The kernel pads its records to 8 bytes; perf's own header records
	 * (HEADER_FEATURE...) are not always padded. */
	if (type < 64 && size % 8)
		return sy_diag_set(&r->diag, off, -SY_E_BAD_RECORD,
				   "%s%s record size %u is not a multiple of 8",
				   where,
				   sy_record_type_name(type) ?
					   sy_record_type_name(type) :
					   "kernel",
				   size);
	return 0;
}

static int sy_inflate(struct sy_perf_reader *r, const uint8_t *src,
		      size_t len, uint64_t off)
{
	ZSTD_inBuffer in = { src, len, 0 };
	size_t produced = 0;

	if (!r->zds) {
		r->zds = ZSTD_createDStream();
		if (!r->zds || ZSTD_isError(ZSTD_initDStream(r->zds)))
			return -SY_E_NOMEM;
	}
	/* keep the unfinished record, which the new bytes complete */
	if (r->zpos) {
		memmove(r->zbuf, r->zbuf + r->zpos, r->zlen - r->zpos);
		r->zlen -= r->zpos;
		r->zpos = 0;
	}
	r->zsplit = r->zlen;
	r->zoff_prev = r->zlen ? r->zoff_cur : off;
	r->zoff_cur = off;

	for (;;) {
		if (r->zcap - r->zlen < 65536) {
			size_t ncap = r->zcap ? r->zcap * 2 : 262144;
			uint8_t *nb = realloc(r->zbuf, ncap);
			if (!nb)
				return -SY_E_NOMEM;
			r->zbuf = nb;
			r->zcap = ncap;
		}
		ZSTD_outBuffer out = { r->zbuf + r->zlen, r->zcap - r->zlen, 0 };
		size_t ret = ZSTD_decompressStream(r->zds, &out, &in);
		if (ZSTD_isError(ret))
			return sy_diag_set(&r->diag, off, -SY_E_ZSTD,
					   "compressed record: zstd: %s",
					   ZSTD_getErrorName(ret));
		r->zlen += out.pos;
		produced += out.pos;
		r->stats.bytes_decompressed += out.pos;
		if (produced > SY_ZSTD_MAX_OUT)
			return sy_diag_set(&r->diag, off, -SY_E_LIMIT,
					   "compressed record inflates past "
					   "%u bytes", SY_ZSTD_MAX_OUT);
		/* done when the input is used up and zstd had room to spare,
		 * i.e. holds nothing back */
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

static int sy_next_raw(struct sy_perf_reader *r, struct sy_record *rec)
{
	const uint8_t *p;
	uint64_t avail, off = r->pos, paysz = 0;
	int err;

	if (off >= r->end)
		return -SY_E_EOS;
	err = sy_rec_get(r, off, 8, &p, &avail);
	if (err == -SY_E_TRUNCATED) {
		if (!avail)
			return -SY_E_EOS;
		return sy_diag_set(&r->diag, off, -SY_E_TRUNCATED,
				   "data ends inside a record header (%" PRIu64
				   " of 8 bytes)", avail);
	}
	if (err)
		return err;
	rec->type = sy_le32(p);
	rec->misc = sy_le16(p + 4);
	rec->size = sy_le16(p + 6);
	err = sy_check_header(r, off, rec->type, rec->size, "");
	if (err)
		return err;
	if (rec->type == SY_REC_AUXTRACE) {
		if (rec->size < SY_AUXTRACE_RECORD_SIZE)
			return sy_diag_set(&r->diag, off, -SY_E_BAD_RECORD,
					   "AUXTRACE record size %u is below "
					   "%d", rec->size,
					   SY_AUXTRACE_RECORD_SIZE);
		err = sy_rec_get(r, off, rec->size, &p, &avail);
		if (err == -SY_E_TRUNCATED)
			goto truncated;
		if (err)
			return err;
		paysz = sy_le64(p + 8);
		uint64_t lim = r->map && r->map_len < r->end ? r->map_len :
							       r->end;
		if (paysz > lim - off - rec->size ||
		    (!r->map && paysz > SY_STREAM_MAX - rec->size))
			return sy_diag_set(&r->diag, off, -SY_E_TRUNCATED,
					   "AUXTRACE payload of %" PRIu64
					   " bytes runs past the end of the data",
					   paysz);
	}
	err = sy_rec_get(r, off, rec->size + paysz, &p, &avail);
	if (err == -SY_E_TRUNCATED) {
		if (paysz && avail >= rec->size)
			return sy_diag_set(&r->diag, off, -SY_E_TRUNCATED,
					   "AUXTRACE payload of %" PRIu64
					   " bytes runs past the end of the data",
					   paysz);
		goto truncated;
	}
	if (err)
		return err;
	rec->offset = off;
	rec->data = p;
	rec->flags = 0;
	rec->aux = paysz ? p + rec->size : NULL;
	rec->aux_size = paysz;
	rec->aux_file_offset = paysz ? off + rec->size : 0;
	r->pos = off + rec->size + paysz;
	return 0;

truncated:
	return sy_diag_set(&r->diag, off, -SY_E_TRUNCATED,
			   "%s record of %u bytes runs past the end of the data "
			   "(%" PRIu64 " bytes left)",
			   sy_record_type_name(rec->type) ?
				   sy_record_type_name(rec->type) :
				   "unknown",
			   rec->size, avail);
}

/* A complete inflated record at zpos, if there is one: 1, else 0. */
static int sy_next_inflated(struct sy_perf_reader *r, struct sy_record *rec)
{
	size_t left = r->zlen - r->zpos;
	const uint8_t *p;
	uint64_t off;
	int err;

	if (left < 8)
		return 0;
	p = r->zbuf + r->zpos;
	off = r->zpos < r->zsplit ? r->zoff_prev : r->zoff_cur;
	rec->type = sy_le32(p);
	rec->misc = sy_le16(p + 4);
	rec->size = sy_le16(p + 6);
	err = sy_check_header(r, off, rec->type, rec->size,
			      "inflated data: ");
	if (err)
		return err;
	if (rec->size > left)
		return 0;
	if (rec->type == SY_REC_COMPRESSED || rec->type == SY_REC_COMPRESSED2 ||
	    rec->type == SY_REC_AUXTRACE)
		return sy_diag_set(&r->diag, off, -SY_E_BAD_RECORD,
				   "inflated data holds a %s record, which "
				   "perf never compresses",
				   sy_record_type_name(rec->type));
	rec->offset = off;
	rec->data = p;
	rec->flags = SY_RECORD_DECOMPRESSED;
	rec->aux = NULL;
	rec->aux_size = 0;
	rec->aux_file_offset = 0;
	r->zpos += rec->size;
	r->stats.nr_decompressed++;
	return 1;
}

static int sy_fail(struct sy_perf_reader *r, int err)
{
	if (!r->diag.err) {
		r->diag.err = err;
		if (!r->diag.msg[0])
			snprintf(r->diag.msg, sizeof(r->diag.msg), "%s",
				 sy_errstr(err));
	}
	r->err = err;
	return err;
}

int sy_perf_next(struct sy_perf_reader *r, struct sy_record *rec)
{
	int err;

	if (!r || !rec)
		return -SY_E_INVALID;
	if (r->err)
		return r->err;

	err = sy_next_inflated(r, rec);
	if (err < 0)
		return sy_fail(r, err);
	if (!err) {
		err = sy_next_raw(r, rec);
		if (err == -SY_E_EOS) {
			if (r->zlen > r->zpos)
				return sy_fail(r, sy_diag_set(
					&r->diag, r->zoff_cur, -SY_E_TRUNCATED,
					"compressed data ends inside a record"));
			if (r->declared_end > r->end)
				return sy_fail(r, sy_diag_set(
					&r->diag, r->end, -SY_E_TRUNCATED,
					"file ends at byte %" PRIu64 " inside the "
					"data section, which the header declares "
					"up to byte %" PRIu64 " (truncated file)",
					r->end, r->declared_end));
			if (r->features_pending) {
				r->features_pending = 0;
				err = sy_parse_features(r);
				if (err)
					return sy_fail(r, err);
			}
			r->err = -SY_E_EOS;
			return -SY_E_EOS;
		}
		if (err)
			return sy_fail(r, err);
		if (rec->type == SY_REC_COMPRESSED ||
		    rec->type == SY_REC_COMPRESSED2) {
			size_t hdr = rec->type == SY_REC_COMPRESSED ? 8 : 16;
			uint64_t len;

			if (rec->size < hdr)
				return sy_fail(r, sy_diag_set(
					&r->diag, rec->offset, -SY_E_BAD_RECORD,
					"COMPRESSED2 record of %u bytes has "
					"no data_size", rec->size));
			len = rec->size - hdr;
			if (hdr == 16 && sy_le64(rec->data + 8) <= len)
				len = sy_le64(rec->data + 8);
			else if (hdr == 16 && !r->warned_comp2_size++)
				sy_perf_warn(r, -SY_E_BAD_RECORD, rec->offset,
					     "COMPRESSED2 data_size %" PRIu64
					     " exceeds the record; using the "
					     "record size (perf 6.16 writer "
					     "bug)", sy_le64(rec->data + 8));
			err = sy_inflate(r, rec->data + hdr, len, rec->offset);
			if (err)
				return sy_fail(r, err);
		}
	}

	rec->attr = sy_record_attr(r, rec->data, rec->type, rec->size,
				   &rec->flags);
	if (rec->type >= 64) {
		err = sy_handle_header_record(r, rec);
		if (err)
			return sy_fail(r, err);
	}
	r->stats.nr_records++;
	if (rec->type < SY_REC_TYPE_LIMIT && sy_record_type_name(rec->type)) {
		r->stats.nr_type[rec->type]++;
	} else {
		r->stats.nr_unknown_type++;
		if (!r->warned_unknown_type++)
			sy_perf_warn(r, 0, rec->offset,
				     "record type %u is unknown; skipped "
				     "(further ones only counted)", rec->type);
	}
	if (rec->type == SY_REC_AUXTRACE)
		r->stats.aux_bytes += rec->aux_size;
	return 0;
}

/* --- accessors ------------------------------------------------------------ */

void sy_perf_set_warn(struct sy_perf_reader *r, sy_perf_warn_fn fn, void *ctx)
{
	r->warn_fn = fn;
	r->warn_ctx = ctx;
	for (unsigned i = 0; fn && i < r->nr_early; i++)
		fn(ctx, &r->early[i]);
	r->nr_early = 0;
}

const struct sy_diag *sy_perf_diag(const struct sy_perf_reader *r)
{
	return &r->diag;
}

const char *sy_perf_name(const struct sy_perf_reader *r)
{
	return r->name;
}

const struct sy_perf_info *sy_perf_info(const struct sy_perf_reader *r)
{
	return &r->info;
}

const struct sy_perf_features *sy_perf_features(const struct sy_perf_reader *r)
{
	return &r->feat;
}

const struct sy_perf_stats *sy_perf_stats(const struct sy_perf_reader *r)
{
	return &r->stats;
}

uint64_t sy_perf_nr_warnings(const struct sy_perf_reader *r)
{
	return r->nr_warnings;
}

uint64_t sy_perf_nr_damage(const struct sy_perf_reader *r)
{
	return r->nr_damage;
}

uint32_t sy_perf_nr_attrs(const struct sy_perf_reader *r)
{
	return r->nr_attrs;
}

const struct sy_perf_attr *sy_perf_attr(const struct sy_perf_reader *r,
					uint32_t idx)
{
	return idx < r->nr_attrs ? r->attrs[idx] : NULL;
}

const struct sy_perf_attr *sy_perf_attr_by_id(const struct sy_perf_reader *r,
					      uint64_t id)
{
	uint32_t idx;

	if (!r->nr_attrs)
		return NULL;
	if (r->nr_attrs == 1 || id == 0)
		return r->attrs[0];
	return sy_idmap_get(&r->idmap, id, &idx) ? r->attrs[idx] : NULL;
}

const uint8_t *sy_perf_bytes(const struct sy_perf_reader *r, uint64_t offset,
			     uint64_t len)
{
	if (!r->map || offset > r->map_len || len > r->map_len - offset)
		return NULL;
	return r->map + offset;
}

const char *sy_record_type_name(uint32_t type)
{
	switch (type) {
#define SY_REC_CASE(name, num, str) \
	case num:                   \
		return str;
		SY_RECORD_TYPES(SY_REC_CASE)
#undef SY_REC_CASE
	default:
		return NULL;
	}
}
