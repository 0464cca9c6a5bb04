/* perf.data reader: opening a file or a stream, the file header, attrs
 * and features, and the accessors.
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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader_impl.h"
#include "sy_bytes.h"

/* --- file header ---------------------------------------------------------- */

int sy_perf_parse_features(struct sy_perf_reader *r)
{
	const struct sy_perf_info *in = &r->info;
	uint64_t nbits = 0, tab = in->feat_offset, i = 0;
	const uint8_t *p;
	uint64_t avail;

	for (int b = 0; b < SY_FEAT_BITS; b++)
		nbits += (in->feature_bits[b / 64] >> (b % 64)) & 1;
	if (!nbits)
		return 0;
	if (sy_perf_src_get(r, tab, nbits * 16, &p, &avail)) {
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
		    sy_perf_src_get(r, off, size, &p, &avail)) {
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
		sy_perf_apply_event_names(r);
	return err;
}

/* Kept whole: the header's fields are checked in the order they sit in
 * the file (perf-data.md), each check with its own message. */
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
	err = sy_perf_src_get(r, 0, in->header_size, &h, &avail);
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
		err = sy_perf_src_get(r, 0, in->data_offset, &p, &avail);
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

		err = sy_perf_src_get(r, eoff, in->attr_size, &p, &avail);
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
			err = sy_perf_src_get(r, ids_off, ids_size, &p, &avail);
			if (err)
				return err == -SY_E_TRUNCATED ?
					       sy_diag_set(&r->diag, ids_off,
							   -SY_E_BAD_ATTR,
							   "attr %" PRIu64
							   " ids truncated", i) :
					       err;
		}
		err = sy_perf_add_attr(r, entry,
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
			return sy_perf_parse_features(r);
		r->features_pending = 1;
	}
	return 0;
}

static int sy_perf_init(struct sy_perf_reader *r)
{
	const uint8_t *h;
	uint64_t avail, magic;
	int err;

	err = sy_perf_src_get(r, 0, 16, &h, &avail);
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
			/* kept for sy_perf_skim */
			r->fd = fd;
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
	if (err)
		close(fd);
	else
		(*out)->own_fd = 1;
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
	sy_hindex_fini(&r->idmap.ix);
	sy_arena_fini(&r->arena);
	free(r->name);
	free(r);
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

int sy_perf_read_at(const struct sy_perf_reader *r, const uint8_t *p,
		    size_t len, void *buf)
{
	uint64_t off;
	size_t got = 0;

	if (!r || !r->map || (!p && len) || p < r->map ||
	    (uint64_t)(p - r->map) > r->map_len ||
	    len > r->map_len - (uint64_t)(p - r->map))
		return -SY_E_INVALID;
	if (!len)
		return 0;
	if (!r->unmap_base || r->fd < 0) {
		memcpy(buf, p, len);
		return 0;
	}
	off = (uint64_t)(p - r->map);
	while (got < len) {
		ssize_t k = pread(r->fd, (uint8_t *)buf + got, len - got,
				  (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -SY_E_IO;
		got += (size_t)k;
	}
	return 0;
}

int sy_perf_skim(struct sy_perf_reader *r, int on)
{
	if (!r || !r->unmap_base || r->fd < 0)
		return -SY_E_INVALID;
	r->skim = !!on;
	/* the mapping's pointers and the buffer's never mix */
	r->slen = 0;
	return 0;
}

int sy_perf_bytes_droppable(const struct sy_perf_reader *r)
{
	return r && r->unmap_base;
}

uint64_t sy_perf_bytes_passed(const struct sy_perf_reader *r)
{
	return r && r->unmap_base ? r->dropped : 0;
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
