/* Reading perf.data files: header, attributes, features and a pull iterator
 * over records.
 *
 * The reader is zero-copy over a mapped file and streams from a pipe (`-i -`).
 * It validates every size before touching the bytes it covers: a damaged file
 * yields a negative error and a struct sy_diag naming the byte offset, never
 * an out-of-bounds read.  Compressed records (COMPRESSED / COMPRESSED2) are
 * inflated through one continuous zstd stream and their records returned in
 * place, as perf does.
 *
 * Typical use:
 *
 *	struct sy_perf_reader *r;
 *	struct sy_record rec;
 *	int err = sy_perf_open(&r, path, &diag);
 *	while ((err = sy_perf_next(r, &rec)) == 0)
 *		...;
 *	if (err != -SY_E_EOS)
 *		report(sy_perf_diag(r));
 *	sy_perf_close(r);
 */
#ifndef SY_PERF_READER_H
#define SY_PERF_READER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sy_error.h"
#include "sy_perf_abi.h"

/* One perf_event_attr, normalised: fields past the recorded attr.size are 0,
 * fields past SY_ATTR_SIZE_KNOWN are ignored. */
struct sy_perf_attr {
	uint32_t type;
	uint32_t size;		/* as recorded (0 means VER0, 64 bytes) */
	uint64_t config;
	uint64_t sample_period; /* sample_freq when the freq flag is set */
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;		/* bit field at offset 40, SY_ATTR_FLAG_* bits */
	uint32_t wakeup_events;
	uint32_t bp_type;
	uint64_t config1;
	uint64_t config2;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint32_t aux_sample_size;
	uint32_t aux_action;	/* SY_AUX_ACTION_* */
	uint64_t sig_data;
	uint64_t config3;
	uint64_t first_period;	/* RFC, not merged: SY_ATTR_OFF_FIRST_PERIOD */

	const char *name;	/* from EVENT_DESC, or NULL */
	const uint64_t *ids;	/* event ids of this attr's instances */
	uint32_t nr_ids;
	uint32_t index;		/* position in the attr table */
};

static inline int sy_attr_flag(const struct sy_perf_attr *a, int bit)
{
	return (int)((a->flags >> bit) & 1);
}

/* Decodes a raw perf_event_attr of @len bytes (the recorded attr.size or
 * less).  Returns 0 or -SY_E_BAD_ATTR when @len is below VER0. */
int sy_perf_attr_decode(struct sy_perf_attr *a, const uint8_t *p, size_t len);

/* Where a field of one header feature was found. */
struct sy_perf_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t size;		/* bytes of id[] that are significant */
	uint8_t id[20];
	const char *filename;
};

struct sy_perf_pmu {
	uint32_t type;
	const char *name;
};

/* The header features this tool uses.  Strings are NUL-terminated copies
 * owned by the reader; absent features leave NULL / 0. */
struct sy_perf_features {
	uint64_t present[SY_FEAT_BITS / 64]; /* bits of features parsed */
	const char *hostname;
	const char *osrelease;
	const char *version;
	const char *arch;
	const char *cpudesc;
	const char *cpuid;
	uint32_t nr_cpus_avail;
	uint32_t nr_cpus_online;
	uint64_t total_mem;
	const char *const *cmdline;
	uint32_t nr_cmdline;
	const struct sy_perf_build_id *build_ids;
	uint32_t nr_build_ids;
	const struct sy_perf_pmu *pmus;
	uint32_t nr_pmus;
	uint32_t nr_auxtrace_index; /* AUXTRACE index entries (not kept) */
	int auxtrace_index_no_count; /* simpleperf layout, without the u64 nr */
	struct {
		uint32_t version, type, level, ratio, mmap_len;
	} compressed;
	struct {
		uint32_t version, clockid;
		uint64_t wall_clock_ns, clockid_time_ns;
	} clock_data;
	uint64_t first_sample_time, last_sample_time;
	uint64_t clockid_res_ns;
};

static inline int sy_perf_has_feature(const struct sy_perf_features *f,
				      int bit)
{
	return (int)((f->present[bit / 64] >> (bit % 64)) & 1);
}

/* File-level facts. */
struct sy_perf_info {
	int pipe;		/* pipe layout: attrs and features are records */
	int streaming;		/* read from a non-seekable stream */
	uint64_t file_size;	/* bytes available (0 when streaming) */
	uint64_t header_size;
	uint64_t attr_size;	/* stride of the attr section */
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t feat_offset;
	uint64_t feature_bits[SY_FEAT_BITS / 64]; /* as recorded */
};

/* A record returned by sy_perf_next().  All pointers are valid until the next
 * call to sy_perf_next() (mapped files: until sy_perf_close()). */
struct sy_record {
	uint64_t offset;	/* file offset of the record; for a record that
				 * came out of a compressed record, the offset of
				 * that compressed record */
	uint32_t type;
	uint16_t misc;
	uint16_t size;		/* header.size */
	uint32_t flags;		/* SY_RECORD_* */
	const uint8_t *data;	/* the record, header included, @size bytes */
	const struct sy_perf_attr *attr; /* event that wrote it, when known */

	/* PERF_RECORD_AUXTRACE only: the trace payload that follows it. */
	const uint8_t *aux;
	uint64_t aux_size;
	uint64_t aux_file_offset; /* file (or stream) offset of the payload */
};

#define SY_RECORD_DECOMPRESSED 0x1u /* came out of a zstd stream */
#define SY_RECORD_UNKNOWN_ID 0x2u   /* carries an id no attr declares */
#define SY_RECORD_COPIED 0x4u	    /* a copy that lives only while it is
				     * handed out (src/synth/reorder.h) */

/* Counters kept while reading. */
struct sy_perf_stats {
	uint64_t nr_type[SY_REC_TYPE_LIMIT]; /* records per type, as perf -D counts */
	uint64_t nr_records;	/* all records returned */
	uint64_t nr_unknown_type; /* records of types perf does not name */
	uint64_t nr_unknown_id; /* records whose id maps to no attr */
	uint64_t nr_decompressed; /* records that came out of zstd */
	uint64_t bytes_decompressed;
	uint64_t aux_bytes;	/* AUXTRACE payload bytes */
};

struct sy_perf_reader;

/* Opens @path ("-" reads standard input as a stream).  Returns 0 or a
 * negative error with *diag filled (diag may be NULL):
 * -SY_E_IO (open/read/mmap failed), -SY_E_NOT_PERF (bad magic),
 * -SY_E_SWAPPED (other-endian file), -SY_E_BAD_HEADER, -SY_E_BAD_ATTR,
 * -SY_E_NOMEM.  Damaged feature sections are not fatal: they are reported
 * through the warning callback and the feature is left absent. */
int sy_perf_open(struct sy_perf_reader **out, const char *path,
		 struct sy_diag *diag);

/* Same over @fd, which the reader does not close.  Seekable regular files are
 * mapped; anything else is streamed. */
int sy_perf_open_fd(struct sy_perf_reader **out, int fd, const char *name,
		    struct sy_diag *diag);

/* Same over memory the caller keeps alive until sy_perf_close(). */
int sy_perf_open_mem(struct sy_perf_reader **out, const void *buf, size_t len,
		     const char *name, struct sy_diag *diag);

/* Frees everything; accepts NULL. */
void sy_perf_close(struct sy_perf_reader *r);

/* Warnings that do not stop reading.  d->err < 0 reports damage (a bad
 * feature section, a repeated id); d->err == 0 is a notice (a record type
 * newer than this reader, an unfinished recording).  Without a callback
 * they are only counted. */
typedef void (*sy_perf_warn_fn)(void *ctx, const struct sy_diag *d);
void sy_perf_set_warn(struct sy_perf_reader *r, sy_perf_warn_fn fn, void *ctx);

/* Returns the next record in file order.  Returns 0, -SY_E_EOS at the end, or
 * an error that ends iteration (the same error is returned again):
 * -SY_E_TRUNCATED, -SY_E_BAD_RECORD, -SY_E_ZSTD, -SY_E_IO, -SY_E_NOMEM,
 * -SY_E_BAD_ATTR (bad HEADER_ATTR in a pipe). Details: sy_perf_diag(). */
int sy_perf_next(struct sy_perf_reader *r, struct sy_record *rec);

const struct sy_diag *sy_perf_diag(const struct sy_perf_reader *r);
const char *sy_perf_name(const struct sy_perf_reader *r);
const struct sy_perf_info *sy_perf_info(const struct sy_perf_reader *r);
const struct sy_perf_features *sy_perf_features(const struct sy_perf_reader *r);
const struct sy_perf_stats *sy_perf_stats(const struct sy_perf_reader *r);
uint64_t sy_perf_nr_warnings(const struct sy_perf_reader *r);
/* Warnings that reported damage (diag.err < 0), as opposed to notices. */
uint64_t sy_perf_nr_damage(const struct sy_perf_reader *r);

/* Attributes known so far (pipe mode adds them as HEADER_ATTR records
 * arrive). */
uint32_t sy_perf_nr_attrs(const struct sy_perf_reader *r);
const struct sy_perf_attr *sy_perf_attr(const struct sy_perf_reader *r,
					uint32_t idx);
/* perf's rule: id 0 (synthesized records) and files with one attr map to the
 * first attr; otherwise NULL when no attr declares @id. */
const struct sy_perf_attr *sy_perf_attr_by_id(const struct sy_perf_reader *r,
					      uint64_t id);

/* Bytes of a mapped file, for decoding AUX payloads after the walk:
 * returns a pointer to [offset, offset + len) or NULL when out of bounds or
 * when the input is streamed. */
const uint8_t *sy_perf_bytes(const struct sy_perf_reader *r, uint64_t offset,
			     uint64_t len);
/* Whether those bytes are a read-only mapping of the file, whose pages a
 * caller done with them may drop (sy_pages.h); not for a memory buffer. */
int sy_perf_bytes_droppable(const struct sy_perf_reader *r);
/* Such a mapping: sy_perf_next drops the pages of the records it passed
 * (and of the AUX payloads among them) a batch at a time, some way behind;
 * the pages before the offset this returns are dropped.  0 otherwise. */
uint64_t sy_perf_bytes_passed(const struct sy_perf_reader *r);

/* Copies @len bytes of the mapped file from @p (a pointer sy_perf_bytes
 * or a record's aux gave) into @buf with pread, from the page cache,
 * not faulted in through the mapping: a job's AUX chunks, a few hundred
 * bytes each and pages apart, cost a fault and a TLB miss each through
 * it.  Thread-safe; a reader of a memory buffer copies from it.  Returns
 * 0, -SY_E_INVALID when [p, p + len) is not in the mapping, or -SY_E_IO
 * (the file shrank, or a read failed). */
int sy_perf_read_at(const struct sy_perf_reader *r, const uint8_t *p,
		    size_t len, void *buf);

/* A mapped file's records read from here on (@on 1) with pread into a
 * buffer of the reader's, not through the mapping; 0: through the mapping
 * again.  For a walk that keeps no pointer into a record past the next
 * sy_perf_next (the session's two walks): one copy from the page cache,
 * where the mapping faulted each page in, a TLB miss at every page the
 * prefetcher does not cross, and dropped it again.  An AUXTRACE record's
 * payload is not read: rec->aux points into the mapping, untouched, and
 * so does sy_perf_bytes.  Returns 0, or -SY_E_INVALID for a reader
 * without a mapped file of its own. */
int sy_perf_skim(struct sy_perf_reader *r, int on);

/* perf's name of a record type ("MMAP2", "ATTR", ...) or NULL. */
const char *sy_record_type_name(uint32_t type);
/* Name of a feature bit ("BUILD_ID") or NULL. */
const char *sy_feature_name(int bit);

/* --- Samples ------------------------------------------------------------ */

/* One PERF_RECORD_SAMPLE or sample_id trailer, parsed for a given
 * sample_type.  Variable-length parts point into the record. */
struct sy_sample {
	uint64_t type;		/* sample_type it was parsed with */
	uint64_t id;		/* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu, cpu_res;
	uint64_t period;
	const uint8_t *read;	/* READ: raw read_format values */
	uint64_t read_size;
	uint64_t callchain_nr;	/* CALLCHAIN: entries (markers included) */
	const uint8_t *callchain; /* u64 entries, unaligned */
	uint32_t raw_size;
	const uint8_t *raw;
	uint64_t branch_nr;
	int branch_has_hw_idx;
	uint64_t branch_hw_idx;
	const uint8_t *branches; /* {u64 from, to, flags} x branch_nr, newest first */
	const uint8_t *branch_counters; /* u64 x branch_nr, or NULL */
	uint64_t regs_user_abi;
	const uint8_t *regs_user;
	uint32_t regs_user_nr;
	uint64_t stack_user_size;
	const uint8_t *stack_user;
	uint64_t stack_user_dyn_size;
	uint64_t weight;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t regs_intr_abi;
	const uint8_t *regs_intr;
	uint32_t regs_intr_nr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
	const uint8_t *aux;
};

static inline uint64_t sy_sample_callchain(const struct sy_sample *s,
					   uint64_t i)
{
	uint64_t v;

	memcpy(&v, s->callchain + i * 8, 8);
	return v;
}

/* Parses the body of a PERF_RECORD_SAMPLE (@rec, @size bytes, header
 * included) for @attr.  Returns 0 or -SY_E_BAD_SAMPLE with *diag filled at
 * @offset. */
int sy_sample_parse(const struct sy_perf_attr *attr, const uint8_t *rec,
		    size_t size, struct sy_sample *s, struct sy_diag *diag,
		    uint64_t offset);

/* Parses the sample_id trailer at the end of a non-sample kernel record whose
 * fixed body is @body_min bytes (header excluded).  Returns 1 when a trailer
 * was parsed, 0 when the attr has no sample_id_all, or -SY_E_BAD_RECORD. */
int sy_sample_id_parse(const struct sy_perf_attr *attr, const uint8_t *rec,
		       size_t size, size_t body_min, struct sy_sample *s);

/* Bytes of the sample_id trailer for @attr (0 without sample_id_all). */
size_t sy_sample_id_size(const struct sy_perf_attr *attr);

/* "IP|TID|TIME" for a sample_type, into @buf. */
const char *sy_sample_type_str(uint64_t type, char *buf, size_t len);

#endif
