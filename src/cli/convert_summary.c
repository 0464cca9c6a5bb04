/* strobe-synth convert's closing words: the summary (text on stderr, or
 * JSON for --stats-json), why nothing was converted when nothing was, and
 * with --verbose which files served the recorded binaries. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "sy_atomic_file.h"

/* The missing binaries of the run (caller frees); *n their number. */
static struct sy_image_missing *sy_missing(struct sy_session *s, size_t *n)
{
	return sy_cli_missing(s, n);
}

/* --stats-json: the same counts for programs. */
/* Intel PT's decode units are counted as pt_units, ETM's as etm_units. */
static int sy_summary_pt(const struct sy_session_summary *sum)
{
	return sum->trace && !strcmp(sum->trace, "intel_pt");
}

static void sy_summary_json(struct sy_convert *c, struct sy_session *s,
			    FILE *f)
{
	const struct sy_session_summary *sum = sy_session_summary(s);
	size_t nmiss;
	struct sy_image_missing *miss = sy_missing(s, &nmiss);

	fputs("{\n  \"input\": ", f);
	sy_json_str(f, c->opt.input);
	fprintf(f, ",\n  \"exit_status\": %d,\n  \"exit_reason\": ",
		c->exit_status);
	sy_json_str(f, c->exit_reason);
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
		"  \"suspect_windows\": %" PRIu64 ",\n"
		"  \"suspect_dropped\": %" PRIu64 ",\n"
		"  \"callchains_unmapped\": %" PRIu64 ",\n"
		"  \"design\": \"%s\",\n"
		"  \"design_window\": %" PRIu64 ",\n"
		"  \"%s_units\": {\"fast\": %" PRIu64 ", \"full\": %" PRIu64
		", \"fallbacks\": %" PRIu64 "},\n"
		"  \"decoded_again\": %" PRIu64 ",\n"
		"  \"windows_in_jobs\": %" PRIu64 ",\n"
		"  \"processes\": {\"peak\": %" PRIu64
		", \"forgotten\": %" PRIu64 "},\n"
		"  \"threads\": %u,\n  \"seconds\": %.3f,\n"
		"  \"missing_binaries\": [",
		c->n.samples, c->unique,
		c->n.samples ? (double)c->n.stack_entries /
				     (double)c->n.samples :
			     0.0,
		sum->pause_samples, sum->resume_samples,
		sum->inner_samples, sum->placed, sum->unplaced,
		c->n.filtered, sum->decode_errors, sum->overflows,
		sum->bytes, sum->insns, sum->branches, sum->damage,
		sy_summary_bogus_rate(sum), sum->suspect, c->n.suspect_dropped,
		sum->chain_unmapped,
		sy_design_name(sum->design), sum->design_window,
		sy_summary_pt(sum) ? "pt" : "etm", sum->fast_units,
		sum->full_units, sum->fallbacks, sum->decoded_again,
		sum->windows_in_jobs, sum->procs_peak, sum->procs_forgotten,
		sum->threads,
		sum->seconds);
	for (size_t i = 0; i < nmiss; i++) {
		fprintf(f, "%s\n    {\"path\": ", i ? "," : "");
		sy_json_str(f, miss[i].path);
		fprintf(f, ", \"windows\": %" PRIu64 ", \"reason\": ",
			miss[i].windows);
		sy_json_str(f, sy_errstr(miss[i].err));
		fputc('}', f);
	}
	fprintf(f, "%s]", nmiss ? "\n  " : "");
	sy_dcheck_json(&c->dc, f);
	fputs("\n}\n", f);
	free(miss);
}

/* The closing lines on stderr. */
static void sy_summary_text(struct sy_convert *c, struct sy_session *s,
			    FILE *f)
{
	const struct sy_session_summary *sum = sy_session_summary(s);
	size_t nmiss;
	struct sy_image_missing *miss = sy_missing(s, &nmiss);
	char line[160];
	char pfx[4200];	/* a path, then a colon */

	fprintf(f, "strobe-synth: %s: %s (%s), %" PRIu64 " %s:", c->opt.input,
		sum->trace ? sum->trace : "?", sy_sink_name(sum->sink),
		sum->windows, sy_plural(sum->windows, "window", "windows"));
	for (int i = 0; i < SY_ST_NR; i++)
		if (sum->by_status[i])
			fprintf(f, " %" PRIu64 " %s", sum->by_status[i],
				sy_status_name(i));
	fputc('\n', f);
	fprintf(f,
		"strobe-synth: %s: %" PRIu64 " %s written (%" PRIu64
		" unique), %.1f branches per sample, %" PRIu64
		" unplaced, %" PRIu64 " decode %s\n",
		c->opt.input, c->n.samples, sy_plural(c->n.samples, "sample", "samples"),
		c->unique,
		c->n.samples ? (double)c->n.stack_entries / (double)c->n.samples : 0.0,
		sum->unplaced, sum->decode_errors,
		sy_plural(sum->decode_errors, "error", "errors"));
	if (sy_summary_bogus_line(sum, sy_session_forced_binaries(s),
				  c->opt.drop_suspect, c->n.suspect_dropped,
				  line, sizeof(line)))
		fprintf(f, "strobe-synth: %s: %s\n", c->opt.input, line);
	if (sy_summary_design_line(sum, line, sizeof(line)))
		fprintf(f, "strobe-synth: %s: %s\n", c->opt.input, line);
	snprintf(pfx, sizeof(pfx), "strobe-synth: %s: ", c->opt.input);
	sy_dcheck_text(&c->dc, sum, pfx, f);
	if (sum->inner_samples)
		fprintf(f,
			"strobe-synth: %s: %" PRIu64 " callchain samples of "
			"other events while trace ran: %" PRIu64 " placed in "
			"windows, %" PRIu64 " unplaced\n",
			c->opt.input, sum->inner_samples, sum->placed,
			sum->unplaced);
	size_t unused = 0;
	for (size_t i = 0; i < nmiss; i++) {
		if (!miss[i].windows) {
			unused++;
			continue;
		}
		if (sy_image_path_fileless(miss[i].path))
			fprintf(f,
				"strobe-synth: %s: code with no file %s: "
				"needed by %" PRIu64 " %s (written at run "
				"time: it cannot be read)\n",
				c->opt.input, miss[i].path, miss[i].windows,
				sy_plural(miss[i].windows, "window",
					  "windows"));
		else
			fprintf(f,
				"strobe-synth: %s: missing binary %s (%s): "
				"needed by %" PRIu64 " %s\n",
				c->opt.input, miss[i].path,
				sy_errstr(miss[i].err), miss[i].windows,
				sy_plural(miss[i].windows, "window",
					  "windows"));
	}
	if (unused)
		fprintf(f,
			"strobe-synth: %s: %zu more recorded %s not found; no "
			"window needed %s\n",
			c->opt.input, unused,
			unused == 1 ? "binary was" : "binaries were",
			unused == 1 ? "it" : "them");
	free(miss);
}

void sy_convert_summary(struct sy_convert *c, struct sy_session *s, FILE *f,
			int json)
{
	if (json)
		sy_summary_json(c, s, f);
	else
		sy_summary_text(c, s, f);
}

/* The statuses of the selected windows: " 3 decode-error, 1 truncated". */
static void sy_status_list(const struct sy_convert *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < SY_ST_NR && n < len; i++)
		if (c->n.by_status[i]) {
			int k = snprintf(buf + n, len - n, "%s%" PRIu64 " %s",
					 n ? ", " : "", c->n.by_status[i],
					 sy_status_name(i));
			if (k < 0)
				break;
			n += (size_t)k;
		}
}

/* The exit reason, kept for --stats-json and said by the caller. */
static void sy_why(struct sy_convert *c, const char *fmt, ...) SY_PRINTF(2, 3);
static void sy_why(struct sy_convert *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->exit_reason, sizeof(c->exit_reason), fmt, ap);
	va_end(ap);
}

int sy_convert_json_early(struct sy_convert *c)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };

	if (!c->opt.stats_json)
		return 0;
	if (sy_atomic_open(&af, c->opt.stats_json, &d))
		goto fail;
	fputs("{\n  \"input\": ", af.f);
	sy_json_str(af.f, c->opt.input);
	fprintf(af.f, ",\n  \"exit_status\": %d,\n  \"exit_reason\": ",
		c->exit_status);
	sy_json_str(af.f, c->exit_reason);
	fputs("\n}\n", af.f);
	if (sy_atomic_commit(&af, 0, &d))
		goto fail;
	return 0;
fail:
	sy_msg_error("%s", d.msg[0] ? d.msg : sy_errstr(d.err));
	return -1;
}

void sy_convert_why_nothing(struct sy_convert *c, struct sy_session *s)
{
	const struct sy_session_summary *sum = sy_session_summary(s);
	char st[256];
	size_t nmiss, needed = 0;
	struct sy_image_missing *miss = sy_missing(s, &nmiss);
	char who[512];

	/* the list's first (most windows), as the summary printed it: the
	 * count once put the second binary needed in the place of the first */
	if (nmiss && miss[0].windows)
		needed = 1;
	if (needed)
		snprintf(who, sizeof(who), "%s (needed by %" PRIu64 " %s, the "
			 "first of the missing binaries listed)", miss[0].path,
			 miss[0].windows,
			 sy_plural(miss[0].windows, "window", "windows"));
	sy_status_list(c, st, sizeof(st));
	if (!sum->windows)
		sy_why(c, "no sample written: the recording holds no "
			  "trace window");
	else if (!c->n.selected)
		sy_why(c, "no sample written: --pid, --tid, --comm, "
			     "--cpu and --time selected none of the %" PRIu64
			     " %s", sum->windows,
			     sy_plural(sum->windows, "window", "windows"));
	else if (c->n.binary_filtered && c->n.no_stack + c->n.not_kept <
						c->n.selected)
		sy_why(c, "no sample written: --binary-filter '%s' "
			     "matched no sample's binary",
			     c->opt.binary_filter);
	else if (needed && miss[needed - 1].err == -SY_E_BUILD_ID)
		sy_why(c, "no sample written: no window gave one (%s); "
			  "the decoder found no code: %s was found only in "
			  "another build (the build-ids are above): give the "
			  "recorded build (--symfs DIR, --binary PATH, the "
			  "build-id cache) or --allow-mismatch to use it "
			  "anyway", st, who);
	else if (needed && miss[needed - 1].err == -SY_E_NO_KERNEL)
		sy_why(c, "no sample written: no window gave one (%s); "
			  "the decoder found no code: %s was not found: pass "
			  "the kernel image with --vmlinux FILE (or -k) or a "
			  "perf record --kcore directory with --kcore DIR", st,
			  who);
	else if (needed && miss[needed - 1].special &&
		 miss[needed - 1].path[0] == '/')
		sy_why(c, "no sample written: no window gave one (%s); "
			  "the decoder found no code: %s is code with no "
			  "file, written at run time: it cannot be read", st,
			  who);
	else if (needed)
		sy_why(c, "no sample written: no window gave one (%s); "
			     "the decoder found no code: %s was not found (%s): "
			     "use --symfs DIR, --binary PATH or the build-id "
			     "cache (--buildid-dir)", st, who,
			     sy_errstr(miss[needed - 1].err));
	else if (sy_session_forced_binaries(s))
		sy_why(c, "no sample written: no window is ok (%s); %" PRIu64
			  " %s read in another build (--allow-mismatch): its "
			  "code is not the traced code, which decodes as "
			  "errors and impossible branches, not as damaged "
			  "trace", st, sy_session_forced_binaries(s),
			  sy_session_forced_binaries(s) == 1 ? "binary was" :
							       "binaries were");
	else if (c->n.suspect_dropped &&
		 c->n.not_kept + c->n.suspect_dropped == c->n.selected)
		sy_why(c, "no sample written: --drop-suspect dropped every "
			  "window that would have been converted (%" PRIu64
			  " with a suspect branch: unusual code or damage); "
			  "without it they are converted", c->n.suspect_dropped);
	else if (c->n.not_kept == c->n.selected)
		sy_why(c, "no sample written: no window is ok (%s); "
			     "'strobe-synth windows' says why, --keep STATUS "
			     "converts them anyway", st);
	else
		sy_why(c, "no sample written: the converted windows "
			     "carry no branch (%s)", st);
	free(miss);
	sy_msg_error("%s: %s", c->opt.input, c->exit_reason);
}

void sy_convert_verbose(struct sy_convert *c, const struct sy_session *s)
{
	const struct sy_session_summary *sum = sy_session_summary(s);

	if (sum->fast_units || sum->full_units)
		fprintf(stderr, "strobe-synth: %s: %s decode units: %" PRIu64
				" by the fast path, %" PRIu64 " by %s "
				"(%" PRIu64 " handed over by the fast "
				"path)\n",
			c->opt.input, sy_summary_pt(sum) ? "PT" : "ETM",
			sum->fast_units, sum->full_units,
			sy_summary_pt(sum) ? "libipt's block decoder" :
					     "OpenCSD's full decode",
			sum->fallbacks);
	if (sum->decoded_again)
		fprintf(stderr, "strobe-synth: %s: %" PRIu64 " decode(s) "
				"again in the code before a mapping replaced "
				"it\n",
			c->opt.input, sum->decoded_again);
	for (size_t i = 0; i < c->nr_bins; i++)
		fprintf(stderr, "strobe-synth: %s: binary %s: read from %s "
				"(%" PRIu64 " %s)\n",
			c->opt.input, c->bins[i].recorded, c->bins[i].used,
			c->bins[i].samples,
			sy_plural(c->bins[i].samples, "sample", "samples"));
}
