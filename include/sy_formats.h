/* convert's output formats behind one interface: perfscript and lbr
 * (llvm-profgen text, sy_profgen.h), bolt (perf2bolt pre-aggregated,
 * sy_bolt.h) and perf-data (sy_perf_data_out.h).  cmd_convert.c decides
 * which samples exist; this file decides how they are written. */
#ifndef SY_FORMATS_H
#define SY_FORMATS_H

#include <stdint.h>

#include "sy_error.h"
#include "sy_synth.h"

enum sy_conv_format {
	SY_CONV_PERFSCRIPT,	/* hybrid samples for CSSPGO */
	SY_CONV_LBR,		/* branch-only samples */
	SY_CONV_BOLT,		/* BOLT pre-aggregated B/F records */
	SY_CONV_PERF_DATA,	/* perf.data with branch stacks */
};

/* The format named @name, or -1. */
int sy_conv_format_parse(const char *name);
/* "perfscript, lbr, bolt or perf-data", for messages. */
extern const char sy_conv_format_names[];
/* Whether the format needs callchains (no pause samples: none). */
int sy_conv_format_hybrid(enum sy_conv_format fmt);

/* One sample to write. */
struct sy_conv_sample {
	uint64_t time, ip, period;
	uint32_t pid, tid, cpu;
	const uint64_t *frames;	/* leaf first; NULL: @ip alone */
	uint32_t nr_frames;
	const struct sy_br *stack; /* newest first */
	uint32_t nr_stack;
};

struct sy_conv_out;

/* Opens @path ("-": standard output; for bolt also a directory: one file
 * per binary in it).  @s: the session (recording features for perf-data).
 * @binary_filter: bolt writes only binaries whose path contains it.
 * Returns 0, -SY_E_OUTPUT (@diag says why) or -SY_E_NOMEM. */
int sy_conv_out_open(struct sy_conv_out **out, enum sy_conv_format fmt,
		     const char *path, struct sy_session *s,
		     const char *binary_filter, struct sy_diag *diag);

/* One sample of window @w (its address space names the binaries). */
int sy_conv_out_sample(struct sy_conv_out *o, const struct sy_window *w,
		       const struct sy_conv_sample *cs);

/* A whole-trace window (a recording without pause samples): branch-only
 * samples of @depth branches back to back, so each taken branch counts
 * once; bolt takes the window's branches whole (every fall-through
 * between them).  Adds the samples and stack entries written to the
 * counters. */
int sy_conv_out_whole(struct sy_conv_out *o, const struct sy_window *w,
		      uint32_t depth, uint64_t *samples, uint64_t *entries);

/* Samples kept where their window was finished (on the thread that
 * decoded or validated it, sy_window_sink), for sy_conv_out_merge or
 * sy_conv_out_merge_window to write later, in window order, as
 * sy_conv_out_whole and sy_conv_out_sample would have written them.  Only
 * some formats can (sy_conv_out_logs: perfscript, lbr). */
struct sy_conv_log;

int sy_conv_out_logs(const struct sy_conv_out *o);
/* A log of samples to be written in format @fmt. */
int sy_conv_log_new(struct sy_conv_log **out, enum sy_conv_format fmt);
void sy_conv_log_free(struct sy_conv_log *l);
/* sy_conv_out_whole into @l: @w's snapshot must outlive @l's merge. */
int sy_conv_log_whole(struct sy_conv_log *l, const struct sy_window *w,
		      uint32_t depth, uint64_t *samples, uint64_t *entries);
/* Window @w begins in @l: the samples logged next are its own
 * (sy_conv_log_sample, as sy_conv_out_sample would write them). */
int sy_conv_log_window(struct sy_conv_log *l, const struct sy_window *w);
int sy_conv_log_sample(struct sy_conv_log *l, const struct sy_conv_sample *cs);
/* Writes @l's samples (they stay in @l). */
int sy_conv_out_merge(struct sy_conv_out *o, struct sy_conv_log *l);
/* Writes the samples of @l's next window not written yet, as window @w's
 * (the same window, handed out); -SY_E_INVALID when none is left.  And
 * whether every window of @l has been written so. */
int sy_conv_out_merge_window(struct sy_conv_out *o, struct sy_conv_log *l,
			     const struct sy_window *w);
int sy_conv_log_all_merged(const struct sy_conv_log *l);

/* Writes what is pending and renames the output(s) into place; frees @o.
 * *@unique: the distinct samples written (perf-data: all samples; bolt:
 * distinct stacks are not kept, 0).  Returns 0, -SY_E_OUTPUT (@diag names
 * the file and the cause; nothing left behind) or -SY_E_NOMEM. */
int sy_conv_out_commit(struct sy_conv_out *o, uint64_t *unique,
		       struct sy_diag *diag);
/* Drops everything written; accepts NULL. */
void sy_conv_out_abort(struct sy_conv_out *o);

#endif
