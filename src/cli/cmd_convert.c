/* strobe-synth convert: windows -> llvm-profgen input. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert.h"
#include "sy_formats.h"
#include "sy_atomic_file.h"
#include "sy_bytes.h"
#include "sy_synth.h"

enum {
	OPT_FORMAT = SY_OPT_CMD_BASE,
	OPT_KEEP,
	OPT_DROP_SUSPECT,
	OPT_BINARY_FILTER,
	OPT_STATS_JSON,
};

/* The output formats --format names.  A new one is a row here (and its
 * writer in convert_formats.c); its help line is printed from the table. */
static const struct sy_convert_format {
	const char *name;
	enum sy_conv_format fmt;
	const char *help;
} sy_convert_formats[] = {
	{ "perfscript", SY_CONV_PERFSCRIPT,
	  "hybrid samples for CSSPGO (default)" },
	{ "lbr", SY_CONV_LBR,
	  "branch-only samples (AutoFDO, llvm-profgen)" },
	{ "bolt", SY_CONV_BOLT,
	  "perf2bolt -pa records for one binary (-o DIR:\n"
	  "                         one file per binary)" },
	{ "perf-data", SY_CONV_PERF_DATA,
	  "a perf.data with the branch stacks (perf,\n"
	  "                         create_llvm_prof, perf2bolt); without pause\n"
	  "                         samples, all but perfscript convert the\n"
	  "                         whole trace" },
};

static void sy_convert_usage(FILE *f)
{
	fprintf(f,
		"usage: strobe-synth convert [options] [FILE]\n"
		"\n"
		"Turns the trace windows of a perf.data file (FILE, default\n"
		"perf.data) into llvm-profgen input: each window's branch stack\n"
		"attached to the callchain sample that paused it, and the\n"
		"window's branches up to each callchain sample of another event\n"
		"that interrupted it, where the trace places that sample.\n"
		"\n"
		"  -o, --output FILE      output (default '-': standard output);\n"
		"                         a regular file is written to a temporary\n"
		"                         file and renamed, anything else (a\n"
		"                         device, a FIFO) is written through\n"
		"      --format F         one of:\n");
	for (size_t i = 0; i < SY_ARRAY_SIZE(sy_convert_formats); i++)
		fprintf(f, "                           %-11s%s\n",
			sy_convert_formats[i].name, sy_convert_formats[i].help);
	fprintf(f,
		"      --keep S[,S...]    statuses whose windows still emit samples\n"
		"                         (default: ok)\n"
		"      --drop-suspect     windows with a suspect branch (unusual\n"
		"                         code or damage) emit nothing either:\n"
		"                         fewer fabricated samples from damaged\n"
		"                         trace, but unusual correct code loses\n"
		"                         its samples too\n"
		"      --binary-filter S  only samples whose leaf lies in a binary\n"
		"                         whose path contains S (bolt: the branches\n"
		"                         of that binary, from every sample)\n"
		"      --stats-json FILE  write the summary as JSON ('-': standard\n"
		"                         output)\n"
		"  -q, --quiet            no summary on stderr\n"
		"%s"
		"  -h, --help             this help\n"
		"\n"
		"Exit status: 0 success, 1 output or internal error, 2 bad\n"
		"usage, 3 unreadable input, 4 damaged input (windows before the\n"
		"damage converted), 5 nothing to convert (no sample written),\n"
		"130/143/129 interrupted (no output left behind).\n"
		"See strobe-synth-convert(1).\n",
		sy_session_help);
}

/* --verbose: which file served a recorded binary. */
static void sy_convert_note_bin(struct sy_convert *c, const struct sy_map *m)
{
	struct sy_convert_bin *n;

	for (size_t i = 0; i < c->nr_bins; i++)
		if (c->bins[i].recorded == m->path) {
			c->bins[i].samples++;
			return;
		}
	n = realloc(c->bins, (c->nr_bins + 1) * sizeof(*n));
	if (!n)
		return;	/* only a note: the run goes on */
	c->bins = n;
	c->bins[c->nr_bins++] = (struct sy_convert_bin){
		.recorded = m->path,
		.used = sy_image_path(m->img),
		.samples = 1,
	};
}

/* --verbose: the binary of the sample's leaf. */
static void sy_convert_note_leaf(struct sy_convert *c,
				 const struct sy_window *w, uint64_t ip)
{
	const struct sy_map *m =
		w->snap ? sy_proc_snap_find(w->snap, w->pid, ip) : NULL;

	if (m && m->img && !(m->flags & SY_MAP_KERNEL))
		sy_convert_note_bin(c, m);
}

/* Whether @addr lies in a binary --binary-filter names. */
static int sy_convert_in_filter(const struct sy_convert *c,
				const struct sy_window *w, uint64_t addr)
{
	const struct sy_map *m =
		w->snap ? sy_proc_snap_find(w->snap, w->pid, addr) : NULL;

	return m && m->path && strstr(m->path, c->opt.binary_filter);
}

/* Whether --binary-filter selects the sample whose leaf is @addr and
 * whose branches are @stack.  A profile for llvm-profgen is the samples
 * of the binary, by their leaf; BOLT's is the branches of the binary
 * whatever the sample's leaf, as perf2bolt aggregates them (the writer
 * keeps the selected binary's branches alone, sy_conv_bolt_selected):
 * a sample with none of them adds nothing. */
static int sy_convert_binary_ok(const struct sy_convert *c,
				const struct sy_window *w, uint64_t addr,
				const struct sy_br *stack, uint32_t n)
{
	if (!c->opt.binary_filter)
		return 1;
	if (c->opt.fmt != SY_CONV_BOLT)
		return sy_convert_in_filter(c, w, addr);
	for (uint32_t i = 0; i < n; i++)
		if (sy_convert_in_filter(c, w, stack[i].from) ||
		    sy_convert_in_filter(c, w, stack[i].to))
			return 1;
	return 0;
}

/* One sample: its callchain and its stack, in the chosen format. */
static int sy_convert_sample(struct sy_convert *c, const struct sy_window *w,
			     const struct sy_conv_sample *cs)
{
	int err;

	if (!sy_convert_binary_ok(c, w, cs->ip, cs->stack, cs->nr_stack)) {
		c->n.filtered++;
		c->n.binary_filtered++;
		return 0;
	}
	if (!cs->nr_stack) {
		c->n.no_stack++;
		return 0;
	}
	if (c->cs.verbose)
		sy_convert_note_leaf(c, w, cs->ip);
	/* a pause window's job logs its samples (sy_convert_job_new) */
	err = c->log ? sy_conv_log_sample(c->log, cs) :
		       sy_conv_out_sample(c->out, w, cs);
	if (err)
		return err;
	c->n.samples++;
	c->n.stack_entries += cs->nr_stack;
	return 0;
}

/* Whole-trace windows: branch-only samples of depth entries, back to
 * back, so each taken branch is counted exactly once. */
static int sy_convert_whole(struct sy_convert *c, const struct sy_window *w)
{
	if (!sy_convert_binary_ok(c, w, w->nr_stack ? w->stack[0].to : 0,
				  w->stack, w->nr_stack)) {
		c->n.filtered++;
		c->n.binary_filtered++;
		return 0;
	}
	if (c->cs.verbose && w->nr_stack)
		sy_convert_note_leaf(c, w, w->stack[0].to);
	if (c->log)
		return sy_conv_log_whole(c->log, w, c->opt.lbr_depth, &c->n.samples,
					 &c->n.stack_entries);
	return sy_conv_out_whole(c->out, w, c->opt.lbr_depth, &c->n.samples,
				 &c->n.stack_entries);
}

/* --verbose: why the first windows were not converted. */
static void sy_convert_dropped(struct sy_convert *c, const struct sy_window *w,
			       struct sy_session *s)
{
	char why[512];

	if (!c->cs.verbose || c->dropped_shown++ >= 20)
		return;
	if (w->status == SY_ST_OK && w->suspect) {
		/* --drop-suspect's */
		sy_cli_suspect(w, 1, why, sizeof(why));
		fprintf(stderr, "strobe-synth: %s: window %" PRIu64 " (cpu %u, "
				"tid %u) not converted: suspect "
				"(--drop-suspect): %s\n",
			c->opt.input, w->index, w->cpu, w->tid, why);
		return;
	}
	sy_cli_reason(w, sy_cli_trace_kind(sy_session_summary(s)), why,
		      sizeof(why));
	fprintf(stderr, "strobe-synth: %s: window %" PRIu64 " (cpu %u, tid %u) "
			"not converted: %s: %s\n",
		c->opt.input, w->index, w->cpu, w->tid, sy_status_name(w->status),
		why);
}

struct sy_convert_run {
	struct sy_convert *c;
	struct sy_session *s;
	/* what a decode job's share starts from (sy_convert_job_new): the
	 * run's settings, no counts; never written during the run, as the
	 * run's own counts are */
	const struct sy_convert *job0;
};

/* Whether @c is a job's share of the run taking pause windows on the
 * worker that validated them: those are checked against their design on
 * the run's thread, in window order (sy_convert_job_window_merge). */
static int sy_convert_pause_job(const struct sy_convert *c)
{
	return c->log && !c->opt.whole_trace;
}

static int sy_convert_window(void *ctx, const struct sy_window *w)
{
	struct sy_convert_run *run = ctx;
	struct sy_convert *c = run->c;
	int err;

	/* the window's samples follow in the log, whatever is kept */
	if (sy_convert_pause_job(c) && (err = sy_conv_log_window(c->log, w)))
		return err;
	if (!sy_cli_selected(&c->cs, w)) {
		c->n.filtered++;
		return 0;
	}
	c->n.selected++;
	c->n.by_status[w->status]++;
	if (!sy_convert_pause_job(c) && sy_dcheck_add(&c->dc, w))
		return -SY_E_NOMEM;
	if (!(c->opt.keep & (1u << w->status))) {
		c->n.not_kept++;
		sy_convert_dropped(c, w, run->s);
		return 0;
	}
	if (c->opt.drop_suspect && w->suspect) {
		c->n.suspect_dropped++;
		sy_convert_dropped(c, w, run->s);
		return 0;
	}
	if (c->opt.whole_trace)
		return sy_convert_whole(c, w);
	/* the samples that interrupted the window, then the pause sample:
	 * time order */
	for (uint32_t i = 0; i < w->nr_inner; i++) {
		const struct sy_inner_sample *in = &w->inner[i];
		struct sy_conv_sample cs = {
			.time = in->time, .ip = in->ip, .period = in->period,
			.pid = in->pid, .tid = in->tid, .cpu = w->cpu,
			.frames = in->nr_callchain ? in->callchain : NULL,
			.nr_frames = in->nr_callchain,
			.stack = in->stack, .nr_stack = in->nr_stack,
		};

		if ((err = sy_convert_sample(c, w, &cs)))
			return err;
	}
	if (!w->has_pause) {
		c->n.no_stack++;
		return 0;
	}
	struct sy_conv_sample cs = {
		.time = w->pause_time, .ip = w->pause_ip,
		.period = w->pause_period, .pid = w->pid, .tid = w->tid,
		.cpu = w->cpu,
		.frames = w->nr_callchain ? w->callchain : NULL,
		.nr_frames = w->nr_callchain,
		.stack = w->stack, .nr_stack = w->nr_stack,
	};
	return sy_convert_sample(c, w, &cs);
}

/* "-o NAME/" names a directory: only bolt writes into one (a file per
 * binary), and it must exist; a profile is one file, not a name ending in
 * a slash. */
static int sy_convert_check_dir(const struct sy_convert *c)
{
	const char *o = c->opt.output;
	size_t n = strlen(o);
	struct stat st;

	if (!n || o[n - 1] != '/')
		return 0;
	if (c->opt.fmt != SY_CONV_BOLT) {
		sy_msg_error("convert: -o %s names a directory, but this format "
			     "writes one file (only --format bolt writes into a "
			     "directory)", o);
		return -1;
	}
	if (stat(o, &st) || !S_ISDIR(st.st_mode)) {
		sy_msg_error("convert: -o %s: no such directory (make it first)",
			     o);
		return -1;
	}
	return 0;
}

static int sy_parse_keep(struct sy_convert *c, const char *arg)
{
	char buf[512];
	char *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	c->opt.keep = 0;
	c->opt.keep_given = 1;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int st = sy_status_parse(tok);

		if (st < 0) {
			sy_msg_error("--keep: unknown status '%s'", tok);
			return -1;
		}
		c->opt.keep |= 1u << st;
	}
	return 0;
}

static int sy_parse_format(struct sy_convert *c, const char *arg)
{
	for (size_t i = 0; i < SY_ARRAY_SIZE(sy_convert_formats); i++)
		if (!strcmp(arg, sy_convert_formats[i].name)) {
			c->opt.fmt = sy_convert_formats[i].fmt;
			return 0;
		}
	sy_msg_error("--format: '%s' is not a format (%s)", arg,
		     sy_conv_format_names);
	return -1;
}

/* Option parsing.  Returns -1 to go on, else the exit status. */
static int sy_convert_options(struct sy_convert *c, int argc, char **argv)
{
	static const struct option extra[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "drop-suspect", no_argument, NULL, OPT_DROP_SUSPECT },
		{ "binary-filter", required_argument, NULL, OPT_BINARY_FILTER },
		{ "stats-json", required_argument, NULL, OPT_STATS_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[64];
	int opt, status = SY_EXIT_OK;

	sy_cli_longopts(opts, SY_ARRAY_SIZE(opts), extra);
	optind = 1;
	opterr = 0;
	while ((opt = sy_cli_next_opt(&c->cs, "convert", argc, argv,
				      ":" SY_SESSION_SHORTOPTS "o:qh", opts,
				      &status)) >= 0) {
		switch (opt) {
		case 'o':
			c->opt.output = optarg;
			break;
		case OPT_FORMAT:
			if (sy_parse_format(c, optarg))
				return SY_EXIT_USAGE;
			break;
		case OPT_KEEP:
			if (sy_parse_keep(c, optarg))
				return SY_EXIT_USAGE;
			break;
		case OPT_DROP_SUSPECT:
			c->opt.drop_suspect = 1;
			break;
		case OPT_BINARY_FILTER:
			c->opt.binary_filter = optarg;
			break;
		case OPT_STATS_JSON:
			c->opt.stats_json = optarg;
			break;
		case 'q':
			c->opt.quiet = 1;
			break;
		case 'h':
			sy_convert_usage(stdout);
			return SY_EXIT_OK;
		}
	}
	if (opt == SY_CLI_STOP)
		return status;
	if (sy_cli_session_finish(&c->cs, "convert", argc, argv, optind))
		return SY_EXIT_USAGE;
	c->opt.input = c->cs.o.input;
	const char *outs[] = { c->opt.output, c->opt.stats_json };
	const char *names[] = { "-o", "--stats-json" };
	if (sy_cli_check_outputs("convert", c->opt.input, outs, names, 2) ||
	    sy_convert_check_dir(c))
		return SY_EXIT_USAGE;
	if (!strcmp(c->opt.input, "-") && sy_cli_spool_stdin())
		return SY_EXIT_BADFILE;
	return -1;
}

/* Opens the session; a recording without pause samples is converted whole
 * in lbr format.  Returns -1 to go on, else the exit status. */
static int sy_convert_open(struct sy_convert *c, struct sy_session **s)
{
	/* a plain trace recording is the whole trace, every branch */
	int r = sy_cli_session_open(&c->cs, 0, s);

	if (r >= 0)
		return r;
	if (sy_session_has_pause(*s)) {
		c->cs.o.whole_trace = 0;
		return -1;
	}
	if (sy_conv_format_hybrid(c->opt.fmt)) {
		sy_msg_error("%s: no event pauses the trace (no "
			     "aux-action=pause), so no window has a "
			     "callchain sample and hybrid samples "
			     "cannot be made; --format lbr converts "
			     "the whole trace into branch-only samples",
			     c->opt.input);
		return SY_EXIT_NODATA;
	}
	/* plain trace recording: whole-trace windows, every branch */
	c->opt.whole_trace = 1;
	c->opt.lbr_depth = c->cs.o.depth ? c->cs.o.depth : 64;
	c->cs.o.whole_trace = 1;
	c->cs.o.depth = 0;
	/* every stretch's branches, but not an implausible one's unless
	 * --keep implausible asked for it; a --keep that names the statuses
	 * is obeyed as it is */
	if (!c->opt.keep_given)
		c->opt.keep = ~0u & ~(1u << SY_ST_PAUSED) &
			      ~(1u << SY_ST_IMPLAUSIBLE);
	if (!c->opt.quiet)
		fprintf(stderr,
			"strobe-synth: %s: no pause samples: converting "
			"the whole trace into branch-only samples of "
			"%u branches\n",
			c->opt.input, c->opt.lbr_depth);
	return -1;
}

static int sy_write_json(struct sy_convert *c, struct sy_session *s,
			 struct sy_diag *d)
{
	struct sy_atomic_file af;

	if (sy_atomic_open(&af, c->opt.stats_json, d))
		return -1;
	sy_convert_summary(c, s, af.f, 1);
	return sy_atomic_commit(&af, 0, d) ? -1 : 0;
}

/* Output diagnostics name the output file themselves. */
static void sy_convert_out_error(const struct sy_diag *d)
{
	sy_msg_error("%s", d->msg[0] ? d->msg : sy_errstr(d->err));
}

/* --- whole-trace windows finished where they were decoded --------------- */

/* What every job's share starts from: @c's settings, no counts, no
 * output. */
static void sy_convert_job0(struct sy_convert *j, const struct sy_convert *c)
{
	*j = *c;
	j->out = NULL;
	memset(&j->n, 0, sizeof(j->n));
	j->bins = NULL;
	j->nr_bins = 0;
}

void sy_convert_counts_add(struct sy_convert_counts *to,
			   const struct sy_convert_counts *from)
{
	to->selected += from->selected;
	for (size_t i = 0; i < SY_ST_NR; i++)
		to->by_status[i] += from->by_status[i];
	to->samples += from->samples;
	to->filtered += from->filtered;
	to->not_kept += from->not_kept;
	to->suspect_dropped += from->suspect_dropped;
	to->no_stack += from->no_stack;
	to->binary_filtered += from->binary_filtered;
	to->stack_entries += from->stack_entries;
}

/* A decode job's share of the run (sy_window_sink), on its thread: the
 * run's settings with counts of its own, its samples logged, not
 * written. */
static void *sy_convert_job_new(void *ctx)
{
	const struct sy_convert_run *run = ctx;
	struct sy_convert *j = malloc(sizeof(*j));

	if (!j)
		return NULL;
	*j = *run->job0;
	if (sy_conv_log_new(&j->log, j->opt.fmt)) {
		free(j);
		return NULL;
	}
	return j;
}

static void sy_convert_job_free(void *job)
{
	struct sy_convert *j = job;

	if (!j)
		return;
	sy_conv_log_free(j->log);
	free(j);
}

/* On the decoding thread: what sy_convert_window does on the run's. */
static int sy_convert_job_window(void *job, const struct sy_window *w)
{
	struct sy_convert_run run = { job, NULL, NULL };

	return sy_convert_window(&run, w);
}

/* On the run's thread, where the job's windows would have been. */
static int sy_convert_job_merge(void *ctx, void *job)
{
	struct sy_convert *c = ((struct sy_convert_run *)ctx)->c;
	const struct sy_convert *j = job;

	sy_convert_counts_add(&c->n, &j->n);
	return sy_conv_out_merge(c->out, j->log);
}

/* On the run's thread, in window order, a pause window whose samples
 * its worker logged into @job (the windows of a batch, in order): its
 * samples written, its design checked, and after the batch's last window
 * the batch's counts added. */
static int sy_convert_job_window_merge(void *ctx, void *job,
				       const struct sy_window *w)
{
	struct sy_convert *c = ((struct sy_convert_run *)ctx)->c;
	struct sy_convert *j = job;
	int err;

	if (sy_cli_selected(&c->cs, w) && sy_dcheck_add(&c->dc, w))
		return -SY_E_NOMEM;
	if ((err = sy_conv_out_merge_window(c->out, j->log, w)))
		return err;
	if (sy_conv_log_all_merged(j->log))
		sy_convert_counts_add(&c->n, &j->n);
	return 0;
}

/* Whether windows can be converted on the thread that decoded or
 * validated them: into a format that logs (perfscript, lbr), without what
 * needs the run's thread (--verbose's notes and reasons, --comm's
 * names). */
static int sy_convert_sinks(const struct sy_convert *c)
{
	return sy_conv_out_logs(c->out) && !c->cs.verbose &&
	       !c->cs.filter.nr_comms;
}

/* Runs the windows into the aggregation.  Returns -1 to go on (*ret may
 * say damage), else the exit status. */
static int sy_convert_run(struct sy_convert *c, struct sy_session *s, int *ret)
{
	struct sy_convert job0;
	struct sy_convert_run run = { c, s, &job0 };
	struct sy_window_sink sink = {
		&run, sy_convert_job_new, sy_convert_job_window,
		sy_convert_job_merge, sy_convert_job_free,
		sy_convert_job_window_merge,
	};
	struct sy_diag d = { 0 };
	int err;

	sy_convert_job0(&job0, c);
	err = sy_session_run_sink(s, sy_convert_window, &run,
				  sy_convert_sinks(c) ? &sink : NULL);

	if (err == -SY_E_NOMEM) {
		sy_msg_error("convert: %s", sy_errstr(err));
		return SY_EXIT_FAILURE;
	}
	if (err && err != -SY_E_OUTPUT) {
		/* damage ended the walk: the windows before it are kept */
		sy_msg_diag(c->opt.input, sy_session_diag(s));
		*ret = SY_EXIT_DAMAGED;
	}
	if (err == -SY_E_OUTPUT) {
		/* the commit names the output and the cause, and removes
		 * the temporary file */
		if (!sy_conv_out_commit(c->out, &c->unique, &d))
			sy_diag_set_nooff(&d, err, "%s: write failed",
					  c->opt.output);
		c->out = NULL;
		sy_convert_out_error(&d);
		/* bolt's two binaries in one file is a usage error (exit 2) */
		return d.err == -SY_E_INVALID ? SY_EXIT_USAGE : SY_EXIT_FAILURE;
	}
	if (!*ret && (sy_session_summary(s)->damage || c->cs.damage))
		*ret = SY_EXIT_DAMAGED;
	return -1;
}

/* Finishes the output (a temporary file until sy_convert_commit): the
 * summary needs its count of distinct samples.  Returns -1 to go on, else
 * the exit status. */
static int sy_convert_finish(struct sy_convert *c)
{
	struct sy_diag d = { 0 };
	int err = sy_conv_out_commit(c->out, &c->unique, &d);

	c->out = NULL;
	if (!err)
		return -1;
	if (err == -SY_E_NOMEM)
		sy_msg_error("convert: %s", sy_errstr(err));
	else
		sy_convert_out_error(&d);
	return err == -SY_E_INVALID ? SY_EXIT_USAGE : SY_EXIT_FAILURE;
}

/* All outputs of the run or none: the profile and the JSON are finished
 * as temporary files and renamed together. */
static int sy_convert_commit(struct sy_convert *c, struct sy_session *s)
{
	struct sy_diag d = { 0 };
	int err = 0;

	if (c->opt.stats_json)
		err = sy_write_json(c, s, &d);
	if (!err)
		err = sy_atomic_defer_commit(&d);
	if (err) {
		sy_atomic_defer_abort();
		sy_convert_out_error(&d);
		return SY_EXIT_FAILURE;
	}
	return -1;
}

int sy_cmd_convert(int argc, char **argv)
{
	struct sy_convert c;
	struct sy_session *s = NULL;
	struct sy_diag d = { 0 };
	int ret = SY_EXIT_OK, r;

	memset(&c, 0, sizeof(c));
	sy_cli_session_init(&c.cs);
	c.opt.output = "-";
	c.opt.keep = 1u << SY_ST_OK;
	if ((r = sy_convert_options(&c, argc, argv)) >= 0)
		goto out;
	if ((r = sy_convert_open(&c, &s)) >= 0) {
		/* reading began: the JSON says how it ended */
		c.exit_status = r;
		snprintf(c.exit_reason, sizeof(c.exit_reason), "%s",
			 r == SY_EXIT_BADFILE ? "not a readable perf.data file" :
			 r == SY_EXIT_DAMAGED ? "damaged input before any window" :
			 r == SY_EXIT_NODATA ? "nothing to convert" :
					       "the input could not be read");
		sy_convert_json_early(&c);
		goto out;
	}
	sy_dcheck_init(&c.dc, sy_session_summary(s));
	sy_atomic_defer_begin();
	r = sy_conv_out_open(&c.out, c.opt.fmt, c.opt.output, s, c.opt.binary_filter, &d);
	if (r) {
		if (!d.msg[0])
			d.err = r;
		sy_convert_out_error(&d);
		r = SY_EXIT_FAILURE;
		goto out;
	}
	if ((r = sy_convert_run(&c, s, &ret)) >= 0) {
		/* the run stopped: the JSON says why, with the counts */
		c.exit_status = r;
		snprintf(c.exit_reason, sizeof(c.exit_reason), "%s",
			 r == SY_EXIT_USAGE ? "--format bolt into one file, "
					      "and two binaries have branches" :
					      "the output could not be written, or "
					      "memory ran out");
		if (c.opt.stats_json && sy_convert_commit(&c, s) >= 0)
			r = SY_EXIT_FAILURE;
		goto out;
	}
	if (c.n.samples && (r = sy_convert_finish(&c)) >= 0)
		goto out;
	if (!c.opt.quiet)
		sy_convert_summary(&c, s, stderr, 0);
	if (c.cs.verbose)
		sy_convert_verbose(&c, s);
	if (!c.n.samples) {
		/* nothing to convert: no empty profile that llvm-profgen
		 * would reject; the JSON says why, with the counts */
		sy_convert_why_nothing(&c, s);
		r = ret == SY_EXIT_DAMAGED ? ret : SY_EXIT_NODATA;
		c.exit_status = r;
		sy_conv_out_abort(c.out);
		c.out = NULL;
		if (c.opt.stats_json && sy_convert_commit(&c, s) >= 0)
			r = SY_EXIT_FAILURE;
		goto out;
	}
	c.exit_status = ret;
	snprintf(c.exit_reason, sizeof(c.exit_reason), "%s",
		 ret == SY_EXIT_DAMAGED ? "damaged input: the windows before "
					  "the damage were converted" :
					  "converted");
	r = sy_convert_commit(&c, s);
out:
	sy_conv_out_abort(c.out);
	sy_atomic_defer_abort();
	sy_session_close(s);
	free(c.bins);
	sy_dcheck_fini(&c.dc);
	sy_cli_session_fini(&c.cs);
	return r >= 0 ? r : ret;
}
