/* Private to the perf.data reader (src/io/perf_reader.c, perf_source.c,
 * perf_ids.c, perf_records.c, perf_reader_warn.c): the reader's state and
 * the functions its files share.
 *
 *	perf_reader.c       open and close, file header, features, accessors
 *	perf_source.c       bytes of the input: a mapped file or a stream
 *	perf_ids.c          attrs and the sample-id -> attr map
 *	perf_records.c      the record walk, with zstd-compressed records
 *	perf_reader_warn.c  warnings, replayed when the callback comes late
 */
#ifndef SY_PERF_READER_IMPL_H
#define SY_PERF_READER_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "feature_impl.h"
#include "sy_hash.h"
#include "sy_perf_reader.h"

/* Largest contiguous piece a stream may ask for (an AUXTRACE chunk with its
 * header).  Real chunks are at most the AUX buffer size. */
#define SY_STREAM_MAX (1ULL << 31)
/* Largest output one compressed record may inflate to.  perf compresses
 * whole mmap buffers of COMPRESSED.mmap_len bytes, so a real record never
 * comes close; this only stops decompression bombs. */
#define SY_ZSTD_MAX_OUT (64u << 20)

/* Sample id -> attr index; id 0 is never inserted. */
struct sy_idmap {
	uint64_t *keys;	/* first-seen order */
	uint32_t *vals;
	size_t cap, n;
	struct sy_hindex ix;
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
	/* mapped file: the pages before this offset are dropped
	 * (sy_perf_src_passed) */
	uint64_t dropped;

	/* records read with pread from fd into sbuf (sy_perf_skim) */
	int skim;

	/* streamed source (and a mapped file's descriptor) */
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

/* perf_reader_warn.c.  @err < 0 marks damage to the file; 0 is only a
 * notice (newer record types, unfinished recording). */
void sy_perf_warn_diag(struct sy_perf_reader *r, const struct sy_diag *d);
void sy_perf_warn(struct sy_perf_reader *r, int err, uint64_t off,
		  const char *fmt, ...) SY_PRINTF(4, 5);

/* perf_source.c.  Points *p at [off, off+len).  Returns 0, or
 * -SY_E_TRUNCATED with *avail set to the bytes that do exist, or -SY_E_IO /
 * -SY_E_NOMEM / -SY_E_LIMIT.  sy_perf_rec_get: the same, but the record
 * stream ends at r->end (the data section of a file-mode file). */
int sy_perf_src_get(struct sy_perf_reader *r, uint64_t off, uint64_t len,
		    const uint8_t **p, uint64_t *avail);
int sy_perf_rec_get(struct sy_perf_reader *r, uint64_t off, uint64_t len,
		    const uint8_t **p, uint64_t *avail);
/* The record walk is at @pos of a mapped file: drops the pages it passed
 * more than SY_READ_KEEP bytes ago (a batch at a time). */
void sy_perf_src_passed(struct sy_perf_reader *r, uint64_t pos);

/* perf_ids.c */
int sy_idmap_get(const struct sy_idmap *m, uint64_t id, uint32_t *val);
/* Adds an attr decoded from @p (@len bytes of attr) with @nr_ids ids read
 * from @ids.  @off is for messages. */
int sy_perf_add_attr(struct sy_perf_reader *r, const uint8_t *p, size_t len,
		     const uint8_t *ids, uint64_t nr_ids, uint64_t off);
/* Names the attrs from the EVENT_DESC feature. */
void sy_perf_apply_event_names(struct sy_perf_reader *r);

/* perf_reader.c: the feature sections of a file-mode file. */
int sy_perf_parse_features(struct sy_perf_reader *r);

#endif
