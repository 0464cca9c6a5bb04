/* Internals of the perf.data writer (sy_perf_writer.h), shared by its
 * files: perf_writer.c (writer, attrs, record output, file layout),
 * perf_write_buf.c (growable buffers, records under construction),
 * perf_write_feature.c (header features), perf_write_zstd.c (compressed
 * records) and perf_write_record.c (typed records). */
#ifndef SY_PERF_WRITE_IMPL_H
#define SY_PERF_WRITE_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "sy_perf_writer.h"

/* perf's PERF_SAMPLE_MAX_SIZE and the record header sizes it subtracts. */
#define PW_SAMPLE_MAX_SIZE 65536u
#define PW_COMP_MAX_81 (PW_SAMPLE_MAX_SIZE - 8 - 1)
/* 16-byte header plus up to 7 bytes of padding must stay below 65536. */
#define PW_COMP_MAX_83 (PW_SAMPLE_MAX_SIZE - 16 - 8 - 1)
#define PW_DEFAULT_MMAP_LEN (129u * 4096u)
#define PW_NAME_ALIGN 64	/* perf's NAME_ALIGN for strings and build-ids */
#define PW_BUILD_ID_FIXED 36	/* header, pid, build_id[24] */
#define PW_SCRATCH (SY_PERF_RECORD_MAX + 1)

struct sy_pwi_buf {
	uint8_t *p;
	size_t len;
	size_t cap;
};


struct sy_pwi_rec {
	uint8_t *p;
	size_t len;
	int over;		/* ran past the scratch buffer */
};


struct sy_pwi_attr {
	struct sy_perf_attr attr; /* ids / name point into the fields below */
	uint64_t *ids;
	char *name;
};

enum sy_pwi_feat_state {
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

	struct sy_pwi_attr *attrs;
	uint32_t nr_attrs, cap_attrs;

	uint8_t feat_state[SY_FEAT_BITS];
	struct sy_pwi_buf feat[SY_FEAT_BITS];

	struct sy_pwi_buf data;	/* data section / pipe stream */
	struct sy_pwi_buf out;	/* the finished file */

	uint64_t *index;	/* AUXTRACE offsets relative to @data */
	size_t nr_index, cap_index;

	ZSTD_CCtx *zc;
	int comp_on;
	size_t comp_piece;	/* input per flush whose output fits a record */
	struct sy_pwi_buf batch;	/* record bytes not yet fed to zstd */
	uint8_t *zout;		/* one compressed record's payload */

	int stream_fd;		/* sy_pw_stream: data goes here, -1: memory */
	int stream_errno;	/* why a streaming write failed */
	uint64_t data_flushed;	/* data bytes already sent to stream_fd */

	uint8_t *scratch;	/* record being built */
	struct sy_pw_stats stats;
};

void sy_pwi_buf_fini(struct sy_pwi_buf *b);
int sy_pwi_buf_reserve(struct sy_pwi_buf *b, size_t extra);
int sy_pwi_buf_put(struct sy_pwi_buf *b, const void *src, size_t n);
int sy_pwi_buf_u32(struct sy_pwi_buf *b, uint32_t v);
int sy_pwi_buf_u64(struct sy_pwi_buf *b, uint64_t v);
int sy_pwi_buf_string(struct sy_pwi_buf *b, const char *s);
void sy_pwi_rec_put(struct sy_pwi_rec *r, const void *src, size_t n);
void sy_pwi_rec_u16(struct sy_pwi_rec *r, uint16_t v);
void sy_pwi_rec_u32(struct sy_pwi_rec *r, uint32_t v);
void sy_pwi_rec_u64(struct sy_pwi_rec *r, uint64_t v);
void sy_pwi_rec_align8(struct sy_pwi_rec *r);
void sy_pwi_rec_str8(struct sy_pwi_rec *r, const char *s);
int sy_pwi_fail(struct sy_pw *w, int err);
size_t sy_pwi_comp_piece(size_t max);
int sy_pwi_build_id_encode(struct sy_pwi_buf *b, uint32_t type,
			      const struct sy_perf_build_id *id);
int sy_pwi_feat_auto(struct sy_pw *w, int final);
int sy_pwi_feat_is_set(const struct sy_pw *w, int feat);
int sy_pwi_emit_plain(struct sy_pw *w, const void *rec, size_t len);
int sy_pwi_comp_push(struct sy_pw *w);
int sy_pwi_comp_feed(struct sy_pw *w, const uint8_t *rec, size_t len);
int sy_pwi_start(struct sy_pw *w);
int sy_pwi_emit(struct sy_pw *w, const uint8_t *rec, size_t len);
void sy_pwi_rec_begin(struct sy_pw *w, struct sy_pwi_rec *r);
int sy_pwi_rec_end(struct sy_pw *w, struct sy_pwi_rec *r, uint32_t type,
		      uint16_t misc, const struct sy_perf_attr *attr,
		      const struct sy_sample *sid);
int sy_pwi_check(struct sy_pw *w);

/* Position in the data section (bytes written to it so far). */
uint64_t sy_pwi_data_pos(const struct sy_pw *w);

#endif
