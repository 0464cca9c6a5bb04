/* Writing perf.data files: the inverse of sy_perf_reader.h.
 *
 * A builder that lays out a perf.data file the way `perf record` does, in
 * memory for the test suite and the fixture generator, or streamed to a
 * file descriptor for convert --format perf-data (sy_pw_stream):
 *
 *   file mode  header (104 bytes), id arrays, attr section, data section,
 *              feature table and payloads (AUXTRACE index computed from the
 *              AUXTRACE records written);
 *   pipe mode  16-byte pipe header, HEADER_ATTR records, HEADER_FEATURE
 *              records ending with the HEADER_LAST_FEATURE mark, then the
 *              records; no index.
 *
 * Optionally every record but AUXTRACE goes through ONE zstd stream (flushed,
 * never ended, as perf's util/zstd.c does) and comes out as COMPRESSED (81) or
 * COMPRESSED2 (83) records; AUXTRACE records and their payloads stay plain and
 * interleaved.  A small batch size makes records straddle two compressed
 * records.
 *
 * Typical use:
 *
 *	struct sy_pw_config cfg = { 0 };	// all defaults
 *	struct sy_pw *w;
 *	int err = sy_pw_alloc(&w, &cfg);
 *	sy_pw_add_attr(w, &attr);		// attr.ids / attr.nr_ids / name
 *	sy_pw_feat_string(w, SY_FEAT_HOSTNAME, "host");
 *	sy_pw_comm(w, 0, pid, tid, "prog", &attr, &sid);
 *	sy_pw_sample(w, &attr, SY_MISC_USER, &sample);
 *	err = sy_pw_write_file(w, "perf.data");	// finishes, then renames
 *	sy_pw_free(w);
 *
 * Every function returns 0 (or a documented non-negative value) or a negative
 * -SY_E_* code.  Errors are sticky: after a failure that may have left a
 * record half written, every later call returns the same error.  Common
 * errors: -SY_E_INVALID (NULL argument, bad value, call out of order: e.g. an
 * attr added in pipe mode after the first record, anything after finish),
 * -SY_E_LIMIT (a record above 65535 bytes), -SY_E_NOMEM, -SY_E_ZSTD.
 */
#ifndef SY_PERF_WRITER_H
#define SY_PERF_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "sy_error.h"
#include "sy_perf_reader.h"
#include "sy_perf_abi.h"

/* --- Configuration ----------------------------------------------------- */

/* HEADER_AUXTRACE index policy (file mode only; pipe mode never has one). */
enum sy_pw_index {
	SY_PW_INDEX_AUTO = 0,	/* perf layout, present when AUXTRACE records
				 * were written (what perf record does) */
	SY_PW_INDEX_NONE,	/* never written */
	SY_PW_INDEX_PERF,	/* always: u64 nr + {offset, size}[nr] */
	SY_PW_INDEX_SIMPLEPERF, /* always, simpleperf's: no leading nr */
};

/* Zero-initialise; every 0 field selects the default in brackets. */
struct sy_pw_config {
	int pipe;		/* pipe layout [0: file] */
	uint32_t attr_size;	/* attr.size for attrs that leave it 0
				 * [SY_ATTR_SIZE_VER7 = 128, what perf 6.1
				 * writes and reads; perf >= 6.3 writes 136] */
	uint32_t compress;	/* 0, SY_REC_COMPRESSED or SY_REC_COMPRESSED2 */
	int zstd_level;		/* [1, perf record -z] */
	size_t comp_batch;	/* record bytes fed to zstd per ZSTD_e_flush
				 * [the largest input whose compressed size
				 * always fits one record, about 65 KB];
				 * records straddle batch ends, so a small
				 * value splits records over compressed
				 * records */
	size_t comp_max_payload; /* compressed bytes per compressed record,
				  * >= 128 [perf's: 65527 for 81, 65511 for
				  * 83] */
	int comp_chain;		/* push each batch whole and cut its output
				 * into as many records as it takes, like perf
				 * with a large ring-buffer chunk.  A record
				 * then may hold only part of a zstd block and
				 * decode to nothing, which perf 6.1 rejects
				 * ("Couldn't decompress data"): reader
				 * fixtures only.  [0: batches larger than one
				 * record's worth are flushed in pieces] */
	uint32_t comp_mmap_len;	/* HEADER_COMPRESSED mmap_len, the size of
				 * perf's decompression buffer [528384 =
				 * 129 pages]; with comp_chain a batch must
				 * fit it */
	enum sy_pw_index auxtrace_index;
	uint32_t pipe_last_feature; /* feat_id of the pipe end-of-features mark
				     * [SY_FEAT_LAST = 32] */
};

struct sy_pw;

/* Allocates a writer; @cfg may be NULL (all defaults) and is copied.
 * Returns 0, -SY_E_INVALID (bad config), -SY_E_NOMEM or -SY_E_ZSTD. */
int sy_pw_alloc(struct sy_pw **out, const struct sy_pw_config *cfg);

/* Frees the writer; accepts NULL. */
void sy_pw_free(struct sy_pw *w);

/* --- Events (attr section / HEADER_ATTR) ------------------------------- */

/* Adds an event.  Copied: every perf_event_attr field, @attr->ids /
 * @attr->nr_ids (the instance ids) and @attr->name (for EVENT_DESC; NULL
 * writes an empty name).  @attr->size is the attr.size written; 0 takes the
 * config's attr_size.  In file mode all attrs share one size (the section
 * stride); pipe mode allows different sizes.  Pipe mode: only before the
 * first record.  Returns the attr's index (>= 0), -SY_E_INVALID (size below
 * 64, not a multiple of 8, or different from the first attr's in file mode),
 * -SY_E_LIMIT (pipe mode: more ids than a HEADER_ATTR record holds),
 * -SY_E_NOMEM. */
int sy_pw_add_attr(struct sy_pw *w, const struct sy_perf_attr *attr);

/* Encodes @a as a @size-byte perf_event_attr into @dst (attr.size = @size;
 * fields beyond @size are dropped, bytes beyond the known fields are zero).
 * The inverse of sy_perf_attr_decode().  Returns 0 or -SY_E_INVALID. */
int sy_pw_attr_encode(const struct sy_perf_attr *a, uint32_t size,
		      uint8_t *dst);

/* --- Header features --------------------------------------------------- */

/* Each call sets the feature bit and replaces an earlier payload.  In pipe
 * mode features become HEADER_FEATURE records written before the first
 * record, so set them first; features whose payload is empty are skipped
 * there, as perf does. */

/* HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC or CPUID: a perf string
 * (u32 len rounded up to 64, NUL-padded).  -SY_E_INVALID for another bit. */
int sy_pw_feat_string(struct sy_pw *w, int feat, const char *s);

int sy_pw_feat_nrcpus(struct sy_pw *w, uint32_t avail, uint32_t online);
int sy_pw_feat_total_mem(struct sy_pw *w, uint64_t kib);
/* perf writes the perf binary path first, then its argv. */
int sy_pw_feat_cmdline(struct sy_pw *w, const char *const *argv,
		       uint32_t argc);

/* BUILD_ID: one entry per element, header.type 0, header.misc = @misc
 * verbatim; with SY_MISC_BUILD_ID_SIZE in misc byte 20 holds @size and only
 * @size id bytes are copied (perf 6.1 sets the flag on every entry), without
 * it the 20 id bytes are written and byte 20 stays 0 (the older variant).  The filename is NUL-padded to 64 bytes, as
 * perf's write_buildid() does. */
int sy_pw_feat_build_id(struct sy_pw *w, const struct sy_perf_build_id *ids,
			uint32_t n);

/* EVENT_DESC from the attrs (attr bytes at their size, name, ids), built
 * when the file is finished (pipe mode: at the first record). */
int sy_pw_feat_event_desc(struct sy_pw *w);

int sy_pw_feat_pmu_mappings(struct sy_pw *w, const struct sy_perf_pmu *pmus,
			    uint32_t n);

struct sy_pw_group {
	const char *name;	/* NULL writes "" */
	uint32_t leader_idx;	/* attr index of the leader */
	uint32_t nr_members;
};
int sy_pw_feat_group_desc(struct sy_pw *w, const struct sy_pw_group *groups,
			  uint32_t n);

int sy_pw_feat_sample_time(struct sy_pw *w, uint64_t first, uint64_t last);
int sy_pw_feat_clockid(struct sy_pw *w, uint64_t res_ns);
/* CLOCK_DATA version 1. */
int sy_pw_feat_clock_data(struct sy_pw *w, uint32_t clockid,
			  uint64_t wall_clock_ns, uint64_t clockid_time_ns);

/* COMPRESSED is set automatically when compression is on (version 0, type
 * ZSTD, the level, ratio = uncompressed / compressed bytes rounded, as perf
 * computes it at the end; 0 in pipe mode where it is written first, and the
 * config's mmap_len).  This call overrides every field. */
int sy_pw_feat_compressed(struct sy_pw *w, uint32_t version, uint32_t type,
			  uint32_t level, uint32_t ratio, uint32_t mmap_len);

/* Any feature bit (0..255) with a verbatim payload, e.g. STAT (empty) or a
 * bit perf does not know.  Overrides the automatic AUXTRACE, COMPRESSED and
 * EVENT_DESC payloads too. */
int sy_pw_feat_raw(struct sy_pw *w, int feat, const void *payload,
		   size_t len);

/* Clears a feature bit set by any call above or automatically. */
int sy_pw_feat_clear(struct sy_pw *w, int feat);

/* --- Records ------------------------------------------------------------ */

/* A record with @len body bytes after the 8-byte header; @len should keep
 * the record 8-byte aligned, as perf does (not enforced: bad fixtures).
 * -SY_E_INVALID for AUXTRACE (use sy_pw_auxtrace), -SY_E_LIMIT above 65535
 * bytes. */
int sy_pw_record(struct sy_pw *w, uint32_t type, uint16_t misc,
		 const void *body, size_t len);

/* Verbatim bytes, header included, no check: damaged fixtures. */
int sy_pw_raw(struct sy_pw *w, const void *bytes, size_t len);

/* Compression on or off for the records that follow (perf compresses only
 * ring-buffer data; the synthesized prologue stays plain).  Only meaningful
 * when the config enables compression; switching off flushes the batch. */
int sy_pw_set_compress(struct sy_pw *w, int on);

/* Ends the current compression batch (ZSTD_e_flush) so that the next record
 * starts a new compressed record. */
int sy_pw_comp_flush(struct sy_pw *w);

/* Kernel records below end with a sample_id trailer when @attr is non-NULL
 * and has sample_id_all: fields of @attr->sample_type from @sid (NULL:
 * zeros).  @attr is only a layout; it need not be one added to the writer. */

/* PERF_RECORD_SAMPLE for @attr: every field of @attr->sample_type from @s in
 * kernel order (s->type is ignored).  RAW, STACK_USER and AUX data are padded
 * to 8 bytes and their sizes written padded, as the kernel does; BRANCH_STACK
 * carries hw_idx / counters when @attr->branch_sample_type asks for them
 * (NULL counters write zeros).  -SY_E_INVALID when @s is inconsistent with
 * @attr (read_size vs read_format, register count vs the mask, unknown
 * sample_type bits, NULL data with a nonzero count). */
int sy_pw_sample(struct sy_pw *w, const struct sy_perf_attr *attr,
		 uint16_t misc, const struct sy_sample *s);

/* Serialises a SAMPLE body (header excluded) into @dst (@cap bytes; @dst may
 * be NULL to measure).  Returns the body size, -SY_E_LIMIT when it exceeds
 * @cap (or a record), -SY_E_INVALID as sy_pw_sample(). */
int sy_pw_sample_encode(const struct sy_perf_attr *attr,
			const struct sy_sample *s, uint8_t *dst, size_t cap);

/* Serialises the sample_id trailer for @attr (0 bytes without
 * sample_id_all); same conventions. */
int sy_pw_sample_id_encode(const struct sy_perf_attr *attr,
			   const struct sy_sample *sid, uint8_t *dst,
			   size_t cap);

struct sy_pw_mmap {
	uint16_t misc;		/* cpumode, SY_MISC_MMAP_DATA,
				 * SY_MISC_MMAP_BUILD_ID (MMAP2 only) */
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	/* MMAP2 without SY_MISC_MMAP_BUILD_ID */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	/* MMAP2 with SY_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;
	uint8_t build_id[20];
	/* MMAP2 */
	uint32_t prot, flags;
	const char *filename;	/* NUL-padded to 8 */
};
int sy_pw_mmap(struct sy_pw *w, const struct sy_pw_mmap *m,
	       const struct sy_perf_attr *attr, const struct sy_sample *sid);
int sy_pw_mmap2(struct sy_pw *w, const struct sy_pw_mmap *m,
		const struct sy_perf_attr *attr, const struct sy_sample *sid);

/* COMM; SY_MISC_COMM_EXEC in @misc for exec. */
int sy_pw_comm(struct sy_pw *w, uint16_t misc, uint32_t pid, uint32_t tid,
	       const char *comm, const struct sy_perf_attr *attr,
	       const struct sy_sample *sid);

/* FORK (SY_REC_FORK) or EXIT (SY_REC_EXIT). */
int sy_pw_task(struct sy_pw *w, uint32_t type, uint32_t pid, uint32_t ppid,
	       uint32_t tid, uint32_t ptid, uint64_t time,
	       const struct sy_perf_attr *attr, const struct sy_sample *sid);

int sy_pw_lost(struct sy_pw *w, uint64_t id, uint64_t lost,
	       const struct sy_perf_attr *attr, const struct sy_sample *sid);
int sy_pw_lost_samples(struct sy_pw *w, uint16_t misc, uint64_t lost,
		       const struct sy_perf_attr *attr,
		       const struct sy_sample *sid);
/* THROTTLE, or UNTHROTTLE when @unthrottle. */
int sy_pw_throttle(struct sy_pw *w, int unthrottle, uint64_t time,
		   uint64_t id, uint64_t stream_id,
		   const struct sy_perf_attr *attr,
		   const struct sy_sample *sid);
/* SWITCH; SY_MISC_SWITCH_OUT[_PREEMPT] in @misc. */
int sy_pw_switch(struct sy_pw *w, uint16_t misc,
		 const struct sy_perf_attr *attr, const struct sy_sample *sid);
int sy_pw_switch_cpu_wide(struct sy_pw *w, uint16_t misc,
			  uint32_t next_prev_pid, uint32_t next_prev_tid,
			  const struct sy_perf_attr *attr,
			  const struct sy_sample *sid);
int sy_pw_itrace_start(struct sy_pw *w, uint32_t pid, uint32_t tid,
		       const struct sy_perf_attr *attr,
		       const struct sy_sample *sid);
/* PERF_RECORD_AUX; flags SY_AUX_FLAG_*. */
int sy_pw_aux(struct sy_pw *w, uint64_t aux_offset, uint64_t aux_size,
	      uint64_t flags, const struct sy_perf_attr *attr,
	      const struct sy_sample *sid);
int sy_pw_aux_output_hw_id(struct sy_pw *w, uint64_t hw_id,
			   const struct sy_perf_attr *attr,
			   const struct sy_sample *sid);

/* PERF_RECORD_AUXTRACE: the 48-byte record, then @len payload bytes
 * zero-padded to 8; auxtrace.size is the padded size (perf's
 * __auxtrace_mmap__read).  Never compressed: a pending compression batch is
 * flushed first.  In file mode the record's offset goes into the index. */
struct sy_pw_auxtrace {
	uint64_t offset;	/* in the AUX area's byte space */
	uint64_t reference;
	uint32_t idx;		/* mmap index */
	uint32_t tid;
	uint32_t cpu;		/* 0xffffffff in per-thread mode */
};
int sy_pw_auxtrace(struct sy_pw *w, const struct sy_pw_auxtrace *a,
		   const void *data, uint64_t len);

/* AUXTRACE_INFO {u32 type; u32 reserved; u64 priv[nr]}. */
int sy_pw_auxtrace_info(struct sy_pw *w, uint32_t type, const uint64_t *priv,
			uint32_t nr);

struct sy_pw_auxtrace_error {
	uint32_t type;		/* 1 = ITRACE */
	uint32_t code, cpu, pid, tid;
	uint32_t fmt;		/* 0: ends after msg; 1: time valid, ends after
				 * msg; 2: adds machine_pid, vcpu */
	uint64_t ip, time;
	const char *msg;	/* up to 63 characters kept */
	uint32_t machine_pid, vcpu;
};
int sy_pw_auxtrace_error(struct sy_pw *w,
			 const struct sy_pw_auxtrace_error *e);

struct sy_pw_time_conv {
	uint64_t time_shift, time_mult, time_zero;
	uint64_t time_cycles, time_mask;	/* long form only */
	uint8_t cap_user_time_zero, cap_user_time_short; /* long form only */
};
/* TIME_CONV: 32 bytes, or 56 with @long_form. */
int sy_pw_time_conv(struct sy_pw *w, const struct sy_pw_time_conv *t,
		    int long_form);

struct sy_pw_id_index {
	uint64_t id, idx, cpu, tid;
	uint64_t machine_pid, vcpu;	/* with @with_vm only */
};
/* ID_INDEX, split over several records as perf does when the entries do not
 * fit one record; @with_vm appends the {machine_pid, vcpu} array. */
int sy_pw_id_index(struct sy_pw *w, const struct sy_pw_id_index *e,
		   uint32_t n, int with_vm);

struct sy_pw_thread {
	uint64_t pid;
	const char *comm;	/* up to 15 characters kept */
};
int sy_pw_thread_map(struct sy_pw *w, const struct sy_pw_thread *t,
		     uint32_t n);

/* CPU_MAP in its three encodings. */
int sy_pw_cpu_map_cpus(struct sy_pw *w, const uint16_t *cpus, uint16_t n);
/* @long_size 4 or 8; @mask holds @nr longs of that size, as u64 values. */
int sy_pw_cpu_map_mask(struct sy_pw *w, const uint64_t *mask, uint16_t nr,
		       uint16_t long_size);
int sy_pw_cpu_map_range(struct sy_pw *w, int any_cpu, uint16_t start,
			uint16_t end);

/* EVENT_UPDATE {u64 type; u64 id; payload padded to 8}. */
#define SY_PW_EVENT_UPDATE_UNIT 0
#define SY_PW_EVENT_UPDATE_SCALE 1
#define SY_PW_EVENT_UPDATE_NAME 2
#define SY_PW_EVENT_UPDATE_CPUS 3
int sy_pw_event_update(struct sy_pw *w, uint64_t type, uint64_t id,
		       const void *payload, size_t len);
/* UNIT or NAME with a NUL-terminated string. */
int sy_pw_event_update_str(struct sy_pw *w, uint64_t type, uint64_t id,
			   const char *s);
int sy_pw_event_update_scale(struct sy_pw *w, uint64_t id, double scale);

/* HEADER_BUILD_ID (67), the pipe-mode form of a BUILD_ID entry. */
int sy_pw_header_build_id(struct sy_pw *w, const struct sy_perf_build_id *b);

int sy_pw_finished_round(struct sy_pw *w);
int sy_pw_finished_init(struct sy_pw *w);

/* --- Output ------------------------------------------------------------- */

/* Streaming (product output): records go to @fd as they are written, in
 * chunks, so memory stays bounded whatever the number of records.  Call
 * before the first record; attrs (and in pipe mode features) cannot be
 * added after it.  File mode needs a seekable @fd: a hole is left for the
 * header, ids and attrs, written with pwrite() by sy_pw_finish() once the
 * sizes are known; pipe mode writes strictly in order.  sy_pw_output(),
 * sy_pw_write_fd() and sy_pw_write_file() are not available then.  A
 * failed write returns -SY_E_IO; sy_pw_stream_errno() says why.  @fd is
 * not closed. */
int sy_pw_stream(struct sy_pw *w, int fd);
int sy_pw_stream_errno(const struct sy_pw *w);

/* Flushes compression, builds the index and features, and lays out the
 * file.  Idempotent; no record or attr may be added afterwards. */
int sy_pw_finish(struct sy_pw *w);

/* The finished bytes (finishing first), valid until sy_pw_free(). */
int sy_pw_output(struct sy_pw *w, const uint8_t **data, size_t *len);

/* Finishes and writes @path atomically (temporary file in the same
 * directory, then rename).  -SY_E_IO with errno preserved on failure. */
int sy_pw_write_file(struct sy_pw *w, const char *path);

/* Finishes and writes everything to @fd (a pipe or file, not closed),
 * retrying short writes.  Ignore SIGPIPE if the reader may go away. */
int sy_pw_write_fd(struct sy_pw *w, int fd);

/* What was written, for callers building expectations.  Counts logical
 * records (those inside compressed records included). */
struct sy_pw_stats {
	uint64_t nr_type[SY_REC_TYPE_LIMIT];
	uint64_t nr_compressed;		/* COMPRESSED / COMPRESSED2 records */
	uint64_t bytes_in;		/* record bytes fed to zstd */
	uint64_t bytes_out;		/* compressed record bytes written */
	uint64_t nr_auxtrace_index;	/* entries in the index */
};
const struct sy_pw_stats *sy_pw_stats(const struct sy_pw *w);

#endif
