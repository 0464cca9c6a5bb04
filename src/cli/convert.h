/* strobe-synth convert's state, shared by its command (cmd_convert.c) and
 * its closing summary (convert_summary.c). */
#ifndef SY_CONVERT_H
#define SY_CONVERT_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "sy_formats.h"
#include "sy_profgen.h"

/* A binary a written sample touched: the recorded path and the file used
 * for it (for --verbose). */
struct sy_convert_bin {
	const char *recorded;	/* interned by the image cache */
	const char *used;
	uint64_t samples;
};

/* What the command line asked for: set while the options are parsed,
 * read-only after (a decode job's copy shares it). */
struct sy_convert_opts {
	const char *input;
	const char *output;
	enum sy_conv_format fmt;
	uint32_t keep;		/* bit per status */
	int keep_given;		/* --keep said which: whole trace too */
	/* --drop-suspect: a kept window with a suspect branch emits nothing
	 * (precision before recall, the user's choice: correct but unusual
	 * code loses its samples too) */
	int drop_suspect;
	const char *binary_filter;
	const char *stats_json;
	int quiet;
	int whole_trace;
	uint32_t lbr_depth;
};

/* What the windows added up to.  A decode job counts its own
 * (sy_window_sink) and sy_convert_counts_add merges them: a new counter
 * is added here and in that one function. */
struct sy_convert_counts {
	uint64_t selected;	/* windows the selection options kept */
	uint64_t by_status[SY_ST_NR]; /* of those */
	uint64_t samples, filtered, not_kept, no_stack;
	uint64_t suspect_dropped; /* kept windows --drop-suspect dropped */
	uint64_t binary_filtered; /* samples --binary-filter dropped */
	uint64_t stack_entries;
};

/* @to += @from, field by field. */
void sy_convert_counts_add(struct sy_convert_counts *to,
			   const struct sy_convert_counts *from);

struct sy_convert {
	struct sy_cli_session cs;
	struct sy_convert_opts opt;
	struct sy_convert_counts n;
	struct sy_conv_out *out;
	uint64_t unique;	/* distinct samples written (after the finish) */
	struct sy_convert_bin *bins; /* --verbose */
	size_t nr_bins;
	uint64_t dropped_shown;	/* --verbose: reasons printed so far */
	/* a decode job's copy (sy_convert_sink): its whole-trace samples go
	 * here, merged into the run's output in window order */
	struct sy_conv_log *log;
	struct sy_dcheck dc;	/* windows against their design */
	/* how the run ends, for --stats-json: written on every exit once
	 * reading began, so that a fleet job learns why it got nothing */
	int exit_status;
	char exit_reason[512];
};

/* --stats-json for a run that ended before a session was open (the input
 * is not a readable perf.data, or holds no trace): the input, the exit
 * status and the reason only.  Returns 0 or -1 (reported). */
int sy_convert_json_early(struct sy_convert *c);

/* The closing summary on stderr, or as JSON into @f. */
void sy_convert_summary(struct sy_convert *c, struct sy_session *s, FILE *f,
			int json);
/* Why a run wrote no sample, and what to try: one line, also kept as the
 * run's exit reason. */
void sy_convert_why_nothing(struct sy_convert *c, struct sy_session *s);
/* --verbose: the binaries used for the written samples. */
void sy_convert_verbose(struct sy_convert *c, const struct sy_session *s);

#endif
