/* The record walk: one record at a time from the data section (or the
 * stream), COMPRESSED/COMPRESSED2 records inflated in place of theirs,
 * pipe-mode header records (attrs, features) applied as they come. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "reader_impl.h"
#include "sy_bytes.h"

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
		int err = sy_perf_add_attr(r, b, asz, b + asz, (blen - asz) / 8,
				      rec->offset);
		if (!err)
			sy_perf_apply_event_names(r);
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
			sy_perf_apply_event_names(r);
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
	err = sy_perf_rec_get(r, off, 8, &p, &avail);
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
		err = sy_perf_rec_get(r, off, rec->size, &p, &avail);
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
	/* (skimmed: the payload stays in the mapping, unread) */
	err = sy_perf_rec_get(r, off, rec->size + (r->skim ? 0 : paysz), &p,
			      &avail);
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
	rec->aux = !paysz ? NULL :
		   r->skim ? r->map + off + rec->size : p + rec->size;
	rec->aux_size = paysz;
	rec->aux_file_offset = paysz ? off + rec->size : 0;
	r->pos = off + rec->size + paysz;
	sy_perf_src_passed(r, off);
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
				err = sy_perf_parse_features(r);
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
