/* The decoders' code reader: sy_mem_read() is the sy_read_mem_fn
 * (sy_decode.h) over a process snapshot (sy_proc.h), one reader per
 * decoding thread. */
#ifndef SY_MEM_READER_H
#define SY_MEM_READER_H

#include <stddef.h>
#include <stdint.h>

#include "sy_image_cache.h"
#include "sy_proc.h"

struct sy_mem_stats {
	uint64_t reads;		/* sy_mem_read calls */
	uint64_t bytes;		/* bytes returned */
	uint64_t unknown_ctx;	/* reads for an id no process has */
	uint64_t unmapped;	/* reads that found no mapping */
	uint64_t not_code;	/* reads that hit a non-executable mapping */
	uint64_t missing;	/* reads that hit a code mapping without a
				 * binary */
};

struct sy_mem_reader;

/* One per decoding thread.  @cache receives the charges of
 * sy_mem_reader_end (may be NULL: nothing charged).  Returns 0,
 * -SY_E_INVALID or -SY_E_NOMEM. */
int sy_mem_reader_new(struct sy_mem_reader **out,
		      struct sy_image_cache *cache);
/* Ends the current window (charging it) and frees; accepts NULL. */
void sy_mem_reader_free(struct sy_mem_reader *rd);

/* Starts a window over @snap (the reader takes its own reference; NULL
 * makes every read return 0).  Ends the previous window if one is open. */
void sy_mem_reader_begin(struct sy_mem_reader *rd, struct sy_proc_snap *snap);
/* Reads in @snap from here on, within the same window (the code in force
 * changed: sy_dec_params.code_at); what the window missed stays noted. */
void sy_mem_reader_switch(struct sy_mem_reader *rd, struct sy_proc_snap *snap);
/* Ends the window: every binary the window needed and did not have is
 * charged once (sy_image_cache_charge), and the snapshot is released. */
void sy_mem_reader_end(struct sy_mem_reader *rd);

/* sy_read_mem_fn: @ctx is the struct sy_mem_reader, @ctxid a pid or tid.
 * Copies up to @len bytes of code at runtime @addr (across mappings and
 * segments) and returns how many; 0 when unmapped, not code or missing. */
size_t sy_mem_read(void *ctx, uint32_t ctxid, uint64_t addr, uint8_t *buf,
		   size_t len);

/* Counters since the reader was made. */
const struct sy_mem_stats *sy_mem_reader_stats(const struct sy_mem_reader *rd);

#endif
