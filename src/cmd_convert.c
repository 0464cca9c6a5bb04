/* strobe-synth convert: windows -> llvm-profgen input. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sy_atomic_file.h"
#include "sy_profgen.h"
#include "sy_synth.h"

enum {
	OPT_FORMAT = SY_OPT_CMD_BASE,
	OPT_KEEP,
	OPT_BINARY_FILTER,
	OPT_STATS_JSON,
};

struct sy_convert {
	struct sy_cli_session cs;
	const char *input;
	const char *output;
	enum sy_profgen_format fmt;
	uint32_t keep;		/* bit per status */
	const char *binary_filter;
	const char *stats_json;
	int quiet;
	int whole_trace;
	uint32_t lbr_depth;
	struct sy_profgen *w;
	struct sy_agg *agg;
	uint64_t samples, filtered, not_kept, no_stack;
	uint64_t stack_entries;
	int err;
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
		"                         written to a temporary file and renamed\n"
		"      --format F         perfscript (default): hybrid samples for\n"
		"                         CSSPGO; lbr: branch-only samples (AutoFDO);\n"
		"                         without pause samples, lbr converts the\n"
		"                         whole trace\n"
		"      --keep S[,S...]    statuses whose windows still emit samples\n"
		"                         (default: ok)\n"
		"      --binary-filter S  only samples whose leaf lies in a binary\n"
		"                         whose path contains S\n"
		"      --stats-json FILE  write the summary as JSON\n"
		"  -q, --quiet            no summary on stderr\n"
		"%s"
		"  -h, --help             this help\n"
		"\n"
		"Exit status: 0 success, 1 output or internal error, 2 bad\n"
		"usage, 3 unreadable input, 4 damaged input (windows before the\n"
		"damage converted), 5 nothing to convert. See strobe-synth-convert(1).\n",
		sy_session_help);
}

/* MMAP2 lines for the binaries a sample touches, before the sample. */
static int sy_convert_mmaps(struct sy_convert *c, const struct sy_window *w,
			    const uint64_t *frames, uint32_t nr_frames,
			    const struct sy_br *st, uint32_t nr)
{
	uint64_t addrs[2];

	if (c->fmt != SY_PROFGEN_HYBRID || !w->snap)
		return 0;
	for (uint32_t i = 0; i < nr_frames + nr; i++) {
		size_t na = 0;

		if (i < nr_frames) {
			addrs[na++] = frames[i];
		} else {
			addrs[na++] = st[i - nr_frames].from;
			addrs[na++] = st[i - nr_frames].to;
		}
		for (size_t k = 0; k < na; k++) {
			const struct sy_map *m =
				sy_proc_snap_find(w->snap, w->pid, addrs[k]);

			if (!m || !m->img || (m->flags & SY_MAP_KERNEL))
				continue;
			/* the writer writes each mapping once */
			int err = sy_profgen_mmap(c->w, w->pid, w->tid, m->start,
						  m->end - m->start, m->pgoff,
						  m->path);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Whether --binary-filter selects the sample whose leaf is @addr. */
static int sy_convert_binary_ok(const struct sy_convert *c,
				const struct sy_window *w, uint64_t addr)
{
	const struct sy_map *m;

	if (!c->binary_filter)
		return 1;
	m = w->snap ? sy_proc_snap_find(w->snap, w->pid, addr) : NULL;
	return m && m->path && strstr(m->path, c->binary_filter);
}

/* One hybrid (or branch-only) sample: its callchain and its stack. */
static int sy_convert_sample(struct sy_convert *c, const struct sy_window *w,
			     const uint64_t *leaf, const uint64_t *chain,
			     uint32_t nr_chain, const struct sy_br *stack,
			     uint32_t nr_stack)
{
	const uint64_t *frames = nr_chain ? chain : leaf;
	uint32_t nr_frames = nr_chain ? nr_chain : 1;
	int err;

	if (!sy_convert_binary_ok(c, w, *leaf)) {
		c->filtered++;
		return 0;
	}
	if (!nr_stack) {
		c->no_stack++;
		return 0;
	}
	if (c->fmt == SY_PROFGEN_LBR) {
		frames = leaf;
		nr_frames = 1;
	}
	err = sy_convert_mmaps(c, w, frames, nr_frames, stack, nr_stack);
	if (err)
		return err;
	err = sy_agg_add(c->agg, frames, c->fmt == SY_PROFGEN_HYBRID ?
					      nr_frames : 1,
			 stack, nr_stack);
	if (err)
		return err;
	c->samples++;
	c->stack_entries += nr_stack;
	return 0;
}

static int sy_convert_window(void *ctx, const struct sy_window *w)
{
	struct sy_convert *c = ctx;
	int err;

	if (!sy_cli_selected(&c->cs, w)) {
		c->filtered++;
		return 0;
	}
	if (!(c->keep & (1u << w->status))) {
		c->not_kept++;
		return 0;
	}
	if (c->whole_trace) {
		if (!sy_convert_binary_ok(c, w, w->nr_stack ? w->stack[0].to :
							      0)) {
			c->filtered++;
			return 0;
		}
		/* branch-only samples of depth entries, back to back, so each
		 * taken branch is counted exactly once */
		for (uint32_t i = 0; i < w->nr_stack; i += c->lbr_depth) {
			uint32_t n = w->nr_stack - i < c->lbr_depth ?
					     w->nr_stack - i :
					     c->lbr_depth;

			err = sy_agg_add(c->agg, NULL, 0, w->stack + i, n);
			if (err)
				return err;
			c->samples++;
			c->stack_entries += n;
		}
		return 0;
	}
	/* the samples that interrupted the window, then the pause sample:
	 * time order */
	for (uint32_t i = 0; i < w->nr_inner; i++) {
		const struct sy_inner_sample *in = &w->inner[i];

		err = sy_convert_sample(c, w, &in->ip, in->callchain,
					in->nr_callchain, in->stack,
					in->nr_stack);
		if (err)
			return err;
	}
	if (!w->has_pause) {
		c->no_stack++;
		return 0;
	}
	return sy_convert_sample(c, w, &w->pause_ip, w->callchain,
				 w->nr_callchain, w->stack, w->nr_stack);
}

static void sy_convert_summary(struct sy_convert *c, struct sy_session *s,
			       FILE *f, int json)
{
	const struct sy_session_summary *sum = sy_session_summary(s);
	size_t nmiss = sy_session_missing(s, NULL, 0);
	struct sy_image_missing *miss = NULL;
	const struct sy_agg_stats *as = sy_agg_stats(c->agg);
	char line[160];

	if (nmiss) {
		miss = calloc(nmiss, sizeof(*miss));
		if (miss)
			nmiss = sy_session_missing(s, miss, nmiss);
		else
			nmiss = 0;
	}
	if (json) {
		fputs("{\n  \"input\": ", f);
		sy_json_str(f, c->input);
		fprintf(f, ",\n  \"trace\": \"%s\",\n"
			   "  \"sink\": \"%s\",\n  \"windows\": %" PRIu64 ",\n"
			   "  \"by_status\": {",
			sum->trace ? sum->trace : "",
			sy_sink_name(sum->sink), sum->windows);
		for (int i = 0; i < SY_ST_NR; i++)
			fprintf(f, "%s\n    \"%s\": %" PRIu64, i ? "," : "",
				sy_status_name(i), sum->by_status[i]);
		fprintf(f,
			"\n  },\n  \"samples\": %" PRIu64 ",\n"
			"  \"unique_samples\": %" PRIu64 ",\n"
			"  \"branches_per_sample\": %.2f,\n"
			"  \"pause_samples\": %" PRIu64 ",\n"
			"  \"resume_samples\": %" PRIu64 ",\n"
			"  \"inner_samples\": %" PRIu64 ",\n"
			"  \"placed\": %" PRIu64 ",\n"
			"  \"unplaced\": %" PRIu64 ",\n"
			"  \"filtered\": %" PRIu64 ",\n"
			"  \"decode_errors\": %" PRIu64 ",\n"
			"  \"overflows\": %" PRIu64 ",\n"
			"  \"trace_bytes\": %" PRIu64 ",\n"
			"  \"instructions\": %" PRIu64 ",\n"
			"  \"branches\": %" PRIu64 ",\n"
			"  \"damaged_records\": %" PRIu64 ",\n"
			"  \"bogus_sample_rate\": %.6f,\n"
			"  \"threads\": %u,\n  \"seconds\": %.3f,\n"
			"  \"missing_binaries\": [",
			c->samples, as->unique,
			c->samples ? (double)c->stack_entries /
					     (double)c->samples :
				     0.0,
			sum->pause_samples, sum->resume_samples,
			sum->inner_samples, sum->placed, sum->unplaced,
			c->filtered, sum->decode_errors, sum->overflows,
			sum->bytes, sum->insns, sum->branches, sum->damage,
			sy_summary_bogus_rate(sum), sum->threads,
			sum->seconds);
		for (size_t i = 0; i < nmiss; i++) {
			fprintf(f, "%s\n    {\"path\": ", i ? "," : "");
			sy_json_str(f, miss[i].path);
			fprintf(f, ", \"windows\": %" PRIu64 ", \"reason\": ",
				miss[i].windows);
			sy_json_str(f, sy_errstr(miss[i].err));
			fputc('}', f);
		}
		fprintf(f, "%s]\n}\n", nmiss ? "\n  " : "");
		free(miss);
		return;
	}
	fprintf(f, "strobe-synth: %s: %s (%s), %" PRIu64 " windows:", c->input,
		sum->trace ? sum->trace : "?", sy_sink_name(sum->sink),
		sum->windows);
	for (int i = 0; i < SY_ST_NR; i++)
		if (sum->by_status[i])
			fprintf(f, " %" PRIu64 " %s", sum->by_status[i],
				sy_status_name(i));
	fputc('\n', f);
	fprintf(f,
		"strobe-synth: %s: %" PRIu64 " samples written (%" PRIu64
		" unique), %.1f branches per sample, %" PRIu64
		" unplaced, %" PRIu64 " decode errors\n",
		c->input, c->samples, as->unique,
		c->samples ? (double)c->stack_entries / (double)c->samples : 0.0,
		sum->unplaced, sum->decode_errors);
	if (sy_summary_bogus_line(sum, line, sizeof(line)))
		fprintf(f, "strobe-synth: %s: %s\n", c->input, line);
	if (sum->inner_samples)
		fprintf(f,
			"strobe-synth: %s: %" PRIu64 " callchain samples of "
			"other events while trace ran: %" PRIu64 " placed in "
			"windows, %" PRIu64 " unplaced\n",
			c->input, sum->inner_samples, sum->placed,
			sum->unplaced);
	size_t unused = 0;
	for (size_t i = 0; i < nmiss; i++) {
		if (!miss[i].windows) {
			unused++;
			continue;
		}
		fprintf(f,
			"strobe-synth: %s: missing binary %s (%s): needed by "
			"%" PRIu64 " windows\n",
			c->input, miss[i].path, sy_errstr(miss[i].err),
			miss[i].windows);
	}
	if (unused)
		fprintf(f,
			"strobe-synth: %s: %zu more recorded binaries were not "
			"found; no window needed them\n",
			c->input, unused);
	free(miss);
}

static int sy_write_json(struct sy_convert *c, struct sy_session *s)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };

	if (!sy_atomic_open(&af, c->stats_json, &d)) {
		sy_convert_summary(c, s, af.f, 1);
		if (!sy_atomic_commit(&af, 0, &d))
			return 0;
	}
	sy_msg_error("%s", d.msg[0] ? d.msg : sy_errstr(d.err));
	return -1;
}

static int sy_parse_keep(struct sy_convert *c, const char *arg)
{
	char buf[512];
	char *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	c->keep = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int st = sy_status_parse(tok);

		if (st < 0) {
			sy_msg_error("--keep: unknown status '%s'", tok);
			return -1;
		}
		c->keep |= 1u << st;
	}
	return 0;
}

/* Output diagnostics name the output file themselves. */
static void sy_convert_out_error(const struct sy_diag *d)
{
	sy_msg_error("%s", d->msg[0] ? d->msg : sy_errstr(d->err));
}

int sy_cmd_convert(int argc, char **argv)
{
	static const struct option extra[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "binary-filter", required_argument, NULL, OPT_BINARY_FILTER },
		{ "stats-json", required_argument, NULL, OPT_STATS_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[64];
	struct sy_convert c;
	struct sy_session *s = NULL;
	struct sy_diag d = { 0 };
	int opt, err, ret = SY_EXIT_OK;

	memset(&c, 0, sizeof(c));
	sy_cli_session_init(&c.cs);
	c.output = "-";
	c.keep = 1u << SY_ST_OK;
	sy_cli_longopts(opts, sizeof(opts) / sizeof(opts[0]), extra);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "i:j:o:qh", opts, NULL)) != -1) {
		int r = sy_cli_session_opt(&c.cs, opt, optarg);

		if (r < 0) {
			ret = SY_EXIT_USAGE;
			goto out;
		}
		if (r)
			continue;
		switch (opt) {
		case 'o':
			c.output = optarg;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "perfscript"))
				c.fmt = SY_PROFGEN_HYBRID;
			else if (!strcmp(optarg, "lbr"))
				c.fmt = SY_PROFGEN_LBR;
			else {
				sy_msg_error("--format: perfscript or lbr");
				ret = SY_EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_KEEP:
			if (sy_parse_keep(&c, optarg)) {
				ret = SY_EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_BINARY_FILTER:
			c.binary_filter = optarg;
			break;
		case OPT_STATS_JSON:
			c.stats_json = optarg;
			break;
		case 'q':
			c.quiet = 1;
			break;
		case 'h':
			sy_convert_usage(stdout);
			goto out;
		default:
			sy_convert_usage(stderr);
			ret = SY_EXIT_USAGE;
			goto out;
		}
	}
	if (sy_cli_session_finish(&c.cs, "convert", argc, argv, optind)) {
		ret = SY_EXIT_USAGE;
		goto out;
	}
	c.input = c.cs.o.input;

	err = sy_session_open(&s, &c.cs.o, &d);
	if (err) {
		sy_msg_diag(c.input, &d);
		ret = err == -SY_E_UNSUPPORTED ? SY_EXIT_NODATA :
						 sy_exit_for(err);
		goto out;
	}
	if (!sy_session_has_pause(s)) {
		if (c.fmt == SY_PROFGEN_HYBRID) {
			sy_msg_error("%s: no event pauses the trace (no "
				     "aux-action=pause), so no window has a "
				     "callchain sample and hybrid samples "
				     "cannot be made; --format lbr converts "
				     "the whole trace into branch-only samples",
				     c.input);
			ret = SY_EXIT_NODATA;
			goto out;
		}
		/* plain trace recording: whole-trace windows, every branch */
		sy_session_close(s);
		s = NULL;
		c.whole_trace = 1;
		c.lbr_depth = c.cs.o.depth ? c.cs.o.depth : 64;
		c.cs.o.whole_trace = 1;
		c.cs.o.depth = 0;
		/* every stretch's branches, but not an implausible one's
		 * unless --keep implausible asked for it */
		c.keep = (~0u & ~(1u << SY_ST_PAUSED) &
			  ~(1u << SY_ST_IMPLAUSIBLE)) |
			 (c.keep & (1u << SY_ST_IMPLAUSIBLE));
		err = sy_session_open(&s, &c.cs.o, &d);
		if (err) {
			sy_msg_diag(c.input, &d);
			ret = sy_exit_for(err);
			goto out;
		}
		if (!c.quiet)
			fprintf(stderr,
				"strobe-synth: %s: no pause samples: converting "
				"the whole trace into branch-only samples of "
				"%u branches\n",
				c.input, c.lbr_depth);
	}
	memset(&d, 0, sizeof(d));
	err = sy_profgen_open(&c.w, c.output, c.fmt, &d);
	if (!err && (err = sy_agg_new(&c.agg, c.w, 0)))
		d.err = err;
	if (err) {
		sy_convert_out_error(&d);
		ret = SY_EXIT_FAILURE;
		goto out;
	}
	err = sy_session_run(s, sy_convert_window, &c);
	if (err == -SY_E_OUTPUT)
		goto write_failed;
	if (err == -SY_E_NOMEM) {
		sy_msg_error("convert: %s", sy_errstr(err));
		ret = SY_EXIT_FAILURE;
		goto out;
	}
	if (err) {
		/* damage ended the walk: the windows before it are kept */
		sy_msg_diag(c.input, sy_session_diag(s));
		ret = SY_EXIT_DAMAGED;
	}
	err = sy_agg_flush(c.agg);
	if (err == -SY_E_NOMEM) {
		sy_msg_error("convert: %s", sy_errstr(err));
		ret = SY_EXIT_FAILURE;
		goto out;
	}
	if (err) {
write_failed:
		/* the commit names the output and the cause, and removes
		 * the temporary file */
		if (!sy_profgen_commit(c.w, &d))
			sy_diag_set_nooff(&d, err, "%s: write failed",
					  c.output);
		c.w = NULL;
		sy_convert_out_error(&d);
		ret = SY_EXIT_FAILURE;
		goto out;
	}
	err = sy_profgen_commit(c.w, &d);
	c.w = NULL;
	if (err) {
		sy_convert_out_error(&d);
		ret = SY_EXIT_FAILURE;
		goto out;
	}
	if (!ret && sy_session_summary(s)->damage)
		ret = SY_EXIT_DAMAGED;
	if (!c.quiet)
		sy_convert_summary(&c, s, stderr, 0);
	if (c.stats_json && sy_write_json(&c, s))
		ret = SY_EXIT_FAILURE;
out:
	sy_profgen_abort(c.w);
	sy_agg_free(c.agg);
	sy_session_close(s);
	sy_cli_session_fini(&c.cs);
	return ret;
}
