/* llvm-profgen input, as `perf script -F ip,brstack --show-mmap-events`
 * prints it (../shared/reference/llvm-profgen.md):
 *
 *   both forms start each mapping a sample touches with
 *	PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xLEN) @ PGOFF <BUILD-ID>]: r-xp PATH
 *   (perf's form for an MMAP2 record with a build-id; "00:00 0 0" without
 *   one) and each sample seen more than once with a line holding its
 *   count; then
 *
 *   hybrid (--format perfscript):
 *	\t%16lx                      (leaf IP, then return addresses)
 *	 0xFROM/0xTO/P/-/-/0 ...     (one line, newest branch first)
 *
 *   branch-only (--format lbr):
 *	%16lx 0xFROM/0xTO/P/-/-/0 ...
 *
 * Output goes to a temporary file beside the destination and is renamed
 * over it only by sy_profgen_commit(), so a failure never leaves a half
 * written profile; "-" streams to standard output instead.
 */
#ifndef SY_PROFGEN_H
#define SY_PROFGEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sy_error.h"
#include "sy_branch.h"

enum sy_profgen_format {
	SY_PROFGEN_HYBRID,
	SY_PROFGEN_LBR,
};

struct sy_profgen;

/* Returns 0, -SY_E_OUTPUT (cannot create the temporary file; *diag says
 * why) or -SY_E_NOMEM. */
int sy_profgen_open(struct sy_profgen **out, const char *path,
		    enum sy_profgen_format fmt, struct sy_diag *diag);
/* Writes to @f (not closed); for tests and pipelines. */
int sy_profgen_open_file(struct sy_profgen **out, FILE *f,
			 enum sy_profgen_format fmt);

#define SY_PROFGEN_BUILD_ID_MAX 20

/* An MMAP2 line for a code mapping, with the binary's build-id (@bid_len
 * bytes; 0: unknown).  Written unless it is in force as llvm-profgen
 * reads the file (src/out/mmap_state.h): once per mapping whatever the
 * process (the first one's ids are written), again only after another
 * line of its binary or over its addresses.  Samples held back (struct
 * sy_agg) must be written before a line that would change how they are
 * read: sy_agg_mmap_bid does both. */
int sy_profgen_mmap_bid(struct sy_profgen *w, uint32_t pid, uint32_t tid,
			uint64_t start, uint64_t len, uint64_t pgoff,
			const char *path, const uint8_t *bid, size_t bid_len);
/* Whether that line would change how samples written so far are read. */
int sy_profgen_mmap_conflicts(const struct sy_profgen *w, uint64_t start,
			      uint64_t len, uint64_t pgoff, const char *path);
/* The same without a build-id. */
int sy_profgen_mmap(struct sy_profgen *w, uint32_t pid, uint32_t tid,
		    uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path);

/* One sample seen @count times (a count line first when above 1).
 * Hybrid: @frames (leaf first) and @stack (newest first).  LBR: the IP
 * (@frames[0], or the newest branch's target without frames) and
 * @stack. */
int sy_profgen_sample(struct sy_profgen *w, uint64_t count,
		      const uint64_t *frames, uint32_t nr_frames,
		      const struct sy_br *stack, uint32_t nr_stack);

/* Flushes and renames into place; -SY_E_OUTPUT on any write error (the
 * temporary file is removed).  Frees @w. */
int sy_profgen_commit(struct sy_profgen *w, struct sy_diag *diag);
/* Drops the output (temporary file removed); accepts NULL. */
void sy_profgen_abort(struct sy_profgen *w);

/* --- Aggregation ----------------------------------------------------------
 * Identical samples are merged into one with a count.  Entries are written
 * in the order they were first seen, so the output depends only on the
 * order of the samples.  When the table reaches its memory budget it is
 * flushed (an identical sample seen later starts a new count: llvm-profgen
 * adds counts up), which keeps memory bounded for any input. */

struct sy_agg;

int sy_agg_new(struct sy_agg **out, struct sy_profgen *w, size_t budget);
/* Adds one sample; may flush.  Returns 0, -SY_E_NOMEM or a write error. */
int sy_agg_add(struct sy_agg *a, const uint64_t *frames, uint32_t nr_frames,
	       const struct sy_br *stack, uint32_t nr_stack);
/* Writes everything pending. */
int sy_agg_flush(struct sy_agg *a);
/* sy_profgen_mmap_bid on the aggregation's writer, after writing the
 * samples held when the line changes how they would be read (two
 * processes of one PIE at different addresses). */
int sy_agg_mmap_bid(struct sy_agg *a, uint32_t pid, uint32_t tid,
		    uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path, const uint8_t *bid, size_t bid_len);
void sy_agg_free(struct sy_agg *a);

struct sy_agg_stats {
	uint64_t samples;	/* added */
	uint64_t unique;	/* written (after merging) */
	uint64_t flushes;	/* budget flushes */
};
const struct sy_agg_stats *sy_agg_stats(const struct sy_agg *a);

/* A sample log: samples made on one thread (a decode job's, on the thread
 * that decoded it), each distinct key kept once, added to an aggregation
 * later on another, in their order (sy_agg_add_logged).  What the
 * aggregation then writes is what sy_agg_add of the same samples would
 * write, flushes included, but it reads each distinct key of a log once
 * (the log remembers the entry it went to), not every sample's branches. */
struct sy_agg_log;

int sy_agg_log_new(struct sy_agg_log **out);
void sy_agg_log_free(struct sy_agg_log *l);
/* Appends a sample.  Returns 0 or -SY_E_NOMEM. */
int sy_agg_log_add(struct sy_agg_log *l, const uint64_t *frames,
		   uint32_t nr_frames, const struct sy_br *stack,
		   uint32_t nr_stack);
/* Samples appended (0 for NULL). */
size_t sy_agg_log_samples(const struct sy_agg_log *l);

/* A logged sample's key: @nr_frames frames, then @nr_stack from/to pairs,
 * laid end to end in @words; @lo and @hi are the smallest and largest of
 * those words (for the writer's mappings). */
struct sy_agg_logged {
	const uint64_t *words;
	uint32_t nr_frames, nr_stack;
	uint64_t lo, hi;
};
void sy_agg_log_sample(const struct sy_agg_log *l, size_t i,
		       struct sy_agg_logged *out);
/* Adds sample @i of @l to @a, as sy_agg_add would; may flush.  Samples of
 * a log must be added in their order, and a log to one aggregation only. */
int sy_agg_add_logged(struct sy_agg *a, struct sy_agg_log *l, size_t i);

#endif
