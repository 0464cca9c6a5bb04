/* strobe-synth windows: the listing (one line or JSON object per window)
 * and the summary: statuses, length percentiles, the histogram and what
 * the resume/pause periods imply.  This is what R and P are tuned with. */
#include <inttypes.h>
#include <stdlib.h>

#include "windows.h"

void sy_wl_header(struct sy_wl *c)
{
	if (!c->out)
		return;
	if (c->json) {
		fputs("{\n  \"input\": ", c->out);
		sy_json_str(c->out, c->input);
		fputs(",\n  \"windows_list\": [", c->out);
	} else if (c->list) {
		fprintf(c->out, "%6s %4s %7s %20s %20s %8s %10s %8s %-15s %s\n",
			"window", "cpu", "tid", "resume-time", "pause-time",
			"bytes", "insns", "branches", "status", "reason");
	}
}

static void sy_wl_json_window(struct sy_wl *c, const struct sy_window *w,
			      const char *why)
{
	char sus[256];

	fprintf(c->out,
		"%s\n    {\"index\": %" PRIu64 ", \"cpu\": %d, \"pid\": %u, "
		"\"tid\": %u, \"start_time\": %" PRIu64
		", \"end_time\": %" PRIu64 ", \"bytes\": %" PRIu64
		", \"instructions\": %" PRIu64 ", \"branches\": %" PRIu64
		", \"resume_ip\": %" PRIu64 ", \"pause_ip\": %" PRIu64
		", \"trace_start_ip\": %" PRIu64 ", \"trace_end_ip\": %" PRIu64
		", \"stack\": %u, \"inner_placed\": %u"
		", \"inner_unplaced\": %u, \"status\": \"%s\""
		", \"reason\": ",
		c->listed ? "," : "", w->index, (int)w->cpu, w->pid, w->tid,
		w->resume_time, w->pause_time, w->bytes, w->insns,
		w->branches, w->resume_ip, w->pause_ip, w->start_addr,
		w->end_addr, w->nr_stack, w->nr_inner, w->unplaced,
		sy_status_name(w->status));
	sy_json_str(c->out, why);
	/* its suspect branches: how many, the first in words */
	fprintf(c->out, ", \"suspect\": %u, \"suspect_reason\": ", w->suspect);
	sy_json_str(c->out, sy_cli_suspect(w, 0, sus, sizeof(sus)));
	/* a cycle-accurate ETM trace's own count of the window's cycles */
	if (w->has_cycles)
		fprintf(c->out, ", \"cycles\": %" PRIu64, w->cycles);
	else
		fputs(", \"cycles\": null", c->out);
	fputc('}', c->out);
}

/* A perf time as perf script --ns prints it (seconds, nine decimals), so
 * that a listed time pasted into --time selects its window; "-" when no
 * sample gave it. */
static const char *sy_wl_time(char *buf, size_t len, uint64_t ns, int known)
{
	if (!known)
		return "-";
	snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u,
		 ns % 1000000000u);
	return buf;
}

void sy_wl_window(struct sy_wl *c, const struct sy_window *w)
{
	char why[512], t0[32], t1[32];

	if (!c->list || !c->out)
		return;
	sy_cli_reason(w, c->kind, why, sizeof(why));
	if (c->json) {
		sy_wl_json_window(c, w, why);
		c->listed++;
		return;
	}
	/* an ok window says what in it was suspect */
	if (!why[0] && w->suspect) {
		char sus[256];

		snprintf(why, sizeof(why), "suspect: %s",
			 sy_cli_suspect(w, 1, sus, sizeof(sus)));
	}
	fprintf(c->out,
		"%6" PRIu64 " %4d %7u %20s %20s %8" PRIu64
		" %10" PRIu64 " %8" PRIu64 " %-15s %s\n",
		w->index, (int)w->cpu, w->tid,
		sy_wl_time(t0, sizeof(t0), w->resume_time, w->has_resume),
		sy_wl_time(t1, sizeof(t1), w->pause_time, w->has_pause),
		w->bytes, w->insns, w->branches, sy_status_name(w->status),
		why);
	if (w->items)
		fputs(w->items, c->out);
	if (c->symbols && (w->nr_stack || w->has_pause))
		sy_wl_symbols(c, w);
	if (c->disasm && w->has_pause)
		sy_wl_disasm(c, w);
	c->listed++;
}

/* The same bins as the SVG's, so that the two agree. */
static void sy_histogram(struct sy_wl *c, FILE *f)
{
	static const char bar[] =
		"##################################################";
	struct sy_hist h;

	if (sy_hist_make(&h, &c->insns, c->len_by) || !h.nr)
		return;
	fprintf(f, "window length histogram (the %" PRIu64 " %s with trace; "
		   "instructions, bins of %" PRIu64 "%s):\n", c->insns.n,
		sy_plural(c->insns.n, "window", "windows"), h.width,
		sy_dist_exact(&c->insns) ? "" :
		", lengths counted at their 1/512 bin's start");
	for (size_t b = 0; b < h.nr; b++) {
		uint64_t lo = h.lo + b * h.width;
		int n = (int)((h.total[b] * 50 + h.top - 1) / h.top);

		fprintf(f, "  %12" PRIu64 " .. %-12" PRIu64 " %8" PRIu64
			   " %.*s\n",
			lo, lo + h.width - 1, h.total[b], n, bar);
	}
	sy_hist_fini(&h);
}

/* What R and P imply, for the text and --json alike. */
enum {
	SY_WARN_R_LE_P = 1,	/* resumes on running trace: P decides */
	SY_WARN_R_MULT_P = 2,	/* resumes coincide with pauses */
	SY_WARN_R_MOD_P_SMALL = 4, /* windows nearly all very short */
};

struct sy_advice {
	int known;		/* R and P both known periods */
	int share;		/* same event, R > P: the share figures hold */
	uint64_t r_mod_p;
	unsigned warn;		/* SY_WARN_* */
};

static struct sy_advice sy_advise(const struct sy_session_summary *s)
{
	uint64_t R = s->resume_period, P = s->pause_period;
	struct sy_advice a = { 0 };

	if (!R || !P || s->periods_freq)
		return a;
	a.known = 1;
	/* the RFC's first_period and pause-armed time the pause themselves:
	 * the mainline figures do not hold (a stagger looks like mainline
	 * with equal periods, and is read as such too) */
	if (s->design == SY_DESIGN_FIRST_PERIOD ||
	    s->design == SY_DESIGN_PAUSE_ARMED)
		return a;
	a.share = s->same_event && R > P;
	a.r_mod_p = R % P;
	if (R <= P)
		a.warn = SY_WARN_R_LE_P;
	else if (R % P == 0)
		a.warn = SY_WARN_R_MULT_P;
	else if (s->same_event && P > 1 && R % P < P / 100)
		a.warn = SY_WARN_R_MOD_P_SMALL;
	return a;
}

/* Taken branches a window should hold at least (llvm-profgen's stacks are
 * this deep on AArch64 LBR-like input). */
enum { SY_TARGET_BRANCHES = 64 };

struct sy_tune {
	const char *what;	/* "P" or "W": the period a window scales with */
	uint64_t now, b5;	/* its value, and the windows' p5 of branches */
	uint64_t want;		/* the value for SY_TARGET_BRANCHES; 0: none */
	double seconds, win_rate, mb_rate; /* per CPU; seconds 0: unknown */
	unsigned cpus;
};

/* The numbers a tuner acts on, from the recording: the period at which
 * 95% of windows would hold SY_TARGET_BRANCHES taken branches (window
 * lengths scale with the period: uniform over (0, P] for mainline, W for
 * the RFC's designs; branch density as observed), and the windows and
 * trace per second per CPU the current R gives. */
static struct sy_tune sy_tune_numbers(struct sy_wl *c,
				      const struct sy_session_summary *s)
{
	struct sy_tune t = { 0 };
	struct sy_advice a = sy_advise(s);

	if (a.share) {
		t.what = "P";
		t.now = s->pause_period;
	} else if ((s->design == SY_DESIGN_FIRST_PERIOD ||
		    s->design == SY_DESIGN_PAUSE_ARMED) && s->design_window) {
		t.what = "W";
		t.now = s->design_window;
	}
	t.b5 = sy_dist_pct(&c->branches, 5);
	if (t.what && t.b5)
		t.want = (t.now * SY_TARGET_BRANCHES + t.b5 - 1) / t.b5;
	t.cpus = sy_wl_nr_cpus(c);
	if (c->t_last > c->t_first && t.cpus) {
		t.seconds = (double)(c->t_last - c->t_first) / 1e9;
		t.win_rate = (double)c->insns.n / t.seconds / t.cpus;
		t.mb_rate = (double)c->trace_bytes / 1e6 / t.seconds / t.cpus;
	}
	return t;
}

static void sy_tune_text(struct sy_wl *c, const struct sy_session_summary *s,
			 FILE *f)
{
	struct sy_tune t = sy_tune_numbers(c, s);

	if (t.want)
		fprintf(f, "  advice: %s ~ %" PRIu64 " gives at least %d taken "
			   "branches in 95%% of windows (p5 now %" PRIu64
			   " at %s = %" PRIu64 "; assumes window lengths scale "
			   "with %s and the branch density stays)\n",
			t.what, t.want, SY_TARGET_BRANCHES, t.b5, t.what, t.now,
			t.what);
	else if (t.what)
		fprintf(f, "  advice: no period for %d branches: the p5 of "
			   "branches per window is 0\n", SY_TARGET_BRANCHES);
	if (t.seconds > 0 && s->resume_period && !s->periods_freq)
		fprintf(f, "  advice: R = %" PRIu64 " opens about %.3g windows "
			   "per second per CPU at about %.3g MB/s of trace "
			   "(observed: %.3g s of windows on %u %s)\n",
			s->resume_period, t.win_rate, t.mb_rate, t.seconds,
			t.cpus, t.cpus == 1 ? "CPU" : "CPUs");
}

static void sy_tune_json(struct sy_wl *c, const struct sy_session_summary *s,
			 FILE *f)
{
	struct sy_tune t = sy_tune_numbers(c, s);

	fprintf(f, ",\n  \"advice\": {\"target_branches\": %d, "
		   "\"scales\": %s%s%s, \"branches_p5\": %" PRIu64,
		SY_TARGET_BRANCHES, t.what ? "\"" : "", t.what ? t.what : "null",
		t.what ? "\"" : "", t.b5);
	if (t.want)
		fprintf(f, ", \"period_for_target\": %" PRIu64, t.want);
	else
		fputs(", \"period_for_target\": null", f);
	if (t.seconds > 0)
		fprintf(f, ", \"seconds\": %.9f, \"cpus\": %u, "
			   "\"windows_per_s_per_cpu\": %.6f, "
			   "\"trace_mb_per_s_per_cpu\": %.9f}",
			t.seconds, t.cpus, t.win_rate, t.mb_rate);
	else
		fputs(", \"seconds\": null}", f);
}

/* What R and P imply, next to what was observed. */
static void sy_periods(struct sy_wl *c, const struct sy_session_summary *s,
		       FILE *f)
{
	uint64_t R = s->resume_period, P = s->pause_period;
	uint64_t ok = s->by_status[SY_ST_OK];
	struct sy_advice a = sy_advise(s);

	if (!R || !P) {
		fprintf(f, "periods: resume %" PRIu64 ", pause %" PRIu64
			   " (not both known)\n", R, P);
		return;
	}
	fprintf(f, "periods: resume R = %" PRIu64 ", pause P = %" PRIu64 "%s%s\n",
		R, P, s->periods_freq ? " (frequencies, not periods)" : "",
		s->same_event ? "" : " (different events)");
	if (!a.known)
		return;
	if (a.share) {
		fprintf(f,
			"  pause samples that can carry a branch stack: P/R = "
			"%.1f%%; observed %" PRIu64 " ok of %" PRIu64
			" pause samples = %.1f%%\n",
			100.0 * (double)P / (double)R, ok, s->pause_samples,
			s->pause_samples ?
				100.0 * (double)ok / (double)s->pause_samples :
				0.0);
		fprintf(f,
			"  trace duty cycle about P/2R = %.1f%%; window lengths "
			"spread over (0, P] events, mean about P/2 = %" PRIu64
			"; observed p50 %" PRIu64 " insns\n",
			50.0 * (double)P / (double)R, P / 2,
			sy_dist_pct(&c->insns, 50));
		fprintf(f, "  R mod P = %" PRIu64 " (%.3f P; about 0.618 P "
			   "spreads window lengths best)\n",
			a.r_mod_p, (double)a.r_mod_p / (double)P);
	}
	if (a.warn & SY_WARN_R_LE_P)
		fprintf(f, "  warning: R <= P: the trace is resumed before "
			   "every pause; resumes on running trace are ignored, "
			   "so windows are long and their count follows P, "
			   "not R\n");
	if (a.warn & SY_WARN_R_MULT_P)
		fprintf(f, "  warning: R is a multiple of P: every resume "
			   "coincides with a pause, giving zero-length or "
			   "missing windows (the kernel drops a pause/resume "
			   "that coincides with another)\n");
	if (a.warn & SY_WARN_R_MOD_P_SMALL)
		fprintf(f, "  warning: R mod P is under 1%% of P: windows "
			   "are nearly all very short\n");
	sy_tune_text(c, s, f);
}

/* The periods' advice as JSON: what the text's periods lines say. */
static void sy_periods_json(const struct sy_session_summary *s, FILE *f)
{
	uint64_t R = s->resume_period, P = s->pause_period;
	struct sy_advice a = sy_advise(s);
	const char *w;

	fprintf(f, ",\n  \"periods_freq\": %s,\n  \"same_event\": %s",
		s->periods_freq ? "true" : "false",
		s->same_event ? "true" : "false");
	if (!a.share) {
		fputs(",\n  \"branch_stack_share\": null,\n  \"duty_cycle\": "
		      "null,\n  \"r_mod_p\": null", f);
	} else {
		fprintf(f, ",\n  \"branch_stack_share\": %.6f,\n  "
			   "\"duty_cycle\": %.6f,\n  \"r_mod_p\": %" PRIu64,
			(double)P / (double)R, (double)P / (2.0 * (double)R),
			a.r_mod_p);
	}
	/* the text says at most one */
	w = a.warn & SY_WARN_R_LE_P	   ? "\"r_le_p\"" :
	    a.warn & SY_WARN_R_MULT_P	   ? "\"r_multiple_of_p\"" :
	    a.warn & SY_WARN_R_MOD_P_SMALL ? "\"r_mod_p_small\"" : "";
	fprintf(f, ",\n  \"warnings\": [%s]", w);
}

/* The text histogram's bins as JSON: bounds, count and counts by status. */
static void sy_histogram_json(struct sy_wl *c, FILE *f)
{
	struct sy_hist h;

	if (sy_hist_make(&h, &c->insns, c->len_by) || !h.nr) {
		fputs(",\n  \"histogram\": null", f);
		return;
	}
	fprintf(f, ",\n  \"histogram\": {\"unit\": \"instructions\", "
		   "\"width\": %" PRIu64 ", \"bins\": [", h.width);
	for (size_t b = 0; b < h.nr; b++) {
		uint64_t lo = h.lo + b * h.width;
		int first = 1;

		fprintf(f, "%s\n    {\"lo\": %" PRIu64 ", \"hi\": %" PRIu64
			   ", \"count\": %" PRIu64 ", \"by_status\": {",
			b ? "," : "", lo, lo + h.width - 1, h.total[b]);
		for (int st = 0; st < SY_ST_NR; st++) {
			if (!h.count[b][st])
				continue;
			fprintf(f, "%s\"%s\": %" PRIu64, first ? "" : ", ",
				sy_status_name(st), h.count[b][st]);
			first = 0;
		}
		fputs("}}", f);
	}
	fputs("\n  ]}", f);
	sy_hist_fini(&h);
}

static const char *const sy_dist_names[] = { "instructions", "branches",
					      "time (ns)", "bytes" };
static const char *const sy_dist_keys[] = { "instructions", "branches", "ns",
					     "bytes" };

/* Window counts: the session's, or those of the selected windows when a
 * selection option was given (--pid filters the summary too). */
static const uint64_t *sy_wl_counts(const struct sy_wl *c,
				    const struct sy_session_summary *sum,
				    uint64_t *windows)
{
	if (!sy_cli_filtering(&c->cs)) {
		*windows = sum->windows;
		return sum->by_status;
	}
	*windows = c->selected;
	return c->by_status;
}

static void sy_wl_json_summary(struct sy_wl *c,
			       const struct sy_session_summary *sum, FILE *f)
{
	struct sy_dist *d[] = { &c->insns, &c->branches, &c->ns,
				      &c->bytes };
	uint64_t windows;
	const uint64_t *by = sy_wl_counts(c, sum, &windows);

	fprintf(f, "\n  ],\n  \"trace\": \"%s\",\n  \"sink\": \"%s\",\n"
		   "  \"windows\": %" PRIu64 ",\n  \"by_status\": {",
		sum->trace ? sum->trace : "", sy_sink_name(sum->sink), windows);
	for (int i = 0; i < SY_ST_NR; i++)
		fprintf(f, "%s\n    \"%s\": %" PRIu64, i ? "," : "",
			sy_status_name(i), by[i]);
	fprintf(f, "\n  },\n  \"percentiles\": {");
	/* null, not zeros, for a length nothing measured (times without
	 * resume and pause samples) */
	for (size_t i = 0; i < 4; i++)
		if (!d[i]->n)
			fprintf(f, "%s\n    \"%s\": null", i ? "," : "",
				sy_dist_keys[i]);
		else
			fprintf(f, "%s\n    \"%s\": {\"p5\": %" PRIu64
				   ", \"p50\": %" PRIu64 ", \"p95\": %" PRIu64
				   ", \"max\": %" PRIu64 "}",
				i ? "," : "", sy_dist_keys[i], sy_dist_pct(d[i], 5),
				sy_dist_pct(d[i], 50), sy_dist_pct(d[i], 95),
				sy_dist_pct(d[i], 100));
	/* bounded memory: past SY_DIST_EXACT_MAX windows, lengths from
	 * SY_DIST_EXACT_BELOW on are binned; the error is stated */
	fprintf(f, "\n  },\n  \"percentiles_exact\": %s,"
		   "\n  \"percentile_max_error\": %.6f",
		sy_wl_exact(c) ? "true" : "false",
		sy_wl_exact(c) ? 0.0 : 1.0 / SY_DIST_SUB_BINS);
	fprintf(f, ",\n  \"resume_period\": %" PRIu64
		   ",\n  \"pause_period\": %" PRIu64
		   ",\n  \"pause_samples\": %" PRIu64
		   ",\n  \"resume_samples\": %" PRIu64
		   ",\n  \"resume_while_running\": %" PRIu64
		   ",\n  \"inner_samples\": %" PRIu64
		   ",\n  \"placed\": %" PRIu64
		   ",\n  \"unplaced\": %" PRIu64
		   ",\n  \"bogus_sample_rate\": %.6f"
		   ",\n  \"design\": \"%s\",\n  \"design_window\": %" PRIu64,
		sum->resume_period, sum->pause_period, sum->pause_samples,
		sum->resume_samples, sum->resume_while_running,
		sum->inner_samples, sum->placed, sum->unplaced,
		sy_summary_bogus_rate(sum), sy_design_name(sum->design),
		sum->design_window);
	sy_dcheck_json(&c->dc, f);
	fprintf(f, ",\n  \"trace_bytes\": %" PRIu64
		   ",\n  \"trace_bytes_not_ok\": %" PRIu64,
		c->trace_bytes, c->bytes_not_ok);
	sy_periods_json(sum, f);
	sy_histogram_json(c, f);
	sy_tune_json(c, sum, f);
	if (c->whatif)
		sy_whatif_json(c->whatif, f);
	fputs("\n}\n", f);
}

/* The binaries windows needed and did not get, as convert names them. */
static void sy_wl_missing(struct sy_wl *c, struct sy_session *s, FILE *f)
{
	size_t n;
	struct sy_image_missing *miss = sy_cli_missing(s, &n);

	for (size_t i = 0; miss && i < n; i++) {
		if (!miss[i].windows)
			continue;
		/* as convert says it: no option gives code with no file */
		if (sy_image_path_fileless(miss[i].path))
			fprintf(f, "code with no file %s: needed by %" PRIu64
				   " %s (written at run time: it cannot be "
				   "read)\n",
				miss[i].path, miss[i].windows,
				sy_plural(miss[i].windows, "window", "windows"));
		else
			fprintf(f, "missing binary %s (%s): needed by %" PRIu64
				   " %s; use --symfs DIR, --binary PATH or the "
				   "build-id cache\n",
				miss[i].path, sy_errstr(miss[i].err),
				miss[i].windows,
				sy_plural(miss[i].windows, "window", "windows"));
	}
	free(miss);
	(void)c;
}

void sy_wl_summary(struct sy_wl *c, struct sy_session *s)
{
	const struct sy_session_summary *sum = sy_session_summary(s);
	struct sy_dist *d[] = { &c->insns, &c->branches, &c->ns,
				      &c->bytes };
	uint64_t windows;
	const uint64_t *by = sy_wl_counts(c, sum, &windows);
	FILE *f = c->out;
	char line[160];

	if (!f)
		return;
	if (c->json) {
		sy_wl_json_summary(c, sum, f);
		return;
	}
	fprintf(f, "\n%s: %s (%s), %" PRIu64 " %s:", c->input,
		sum->trace ? sum->trace : "?", sy_sink_name(sum->sink), windows,
		sy_plural(windows, "window", "windows"));
	for (int i = 0; i < SY_ST_NR; i++)
		if (by[i])
			fprintf(f, " %" PRIu64 " %s", by[i], sy_status_name(i));
	if (sy_cli_filtering(&c->cs))
		fprintf(f, " (selected from %" PRIu64 ")", sum->windows);
	if (c->t_last > c->t_first) {
		char t0[32], t1[32];

		fprintf(f, "\ntime span of the windows: %s to %s (%.3f s)",
			sy_wl_time(t0, sizeof(t0), c->t_first, 1),
			sy_wl_time(t1, sizeof(t1), c->t_last, 1),
			(double)(c->t_last - c->t_first) / 1e9);
	}
	fprintf(f, "\n%" PRIu64 " pause %s, %" PRIu64
		   " resume %s (%" PRIu64 " on running trace)\n",
		sum->pause_samples,
		sy_plural(sum->pause_samples, "sample", "samples"),
		sum->resume_samples,
		sy_plural(sum->resume_samples, "sample", "samples"),
		sum->resume_while_running);
	if (sy_summary_bogus_line(sum, sy_session_forced_binaries(s), 0, 0,
				  line, sizeof(line)))
		fprintf(f, "%s\n", line);
	if (sy_summary_design_line(sum, line, sizeof(line)))
		fprintf(f, "%s\n", line);
	sy_dcheck_text(&c->dc, sum, "", f);
	if (by[SY_ST_PAUSED] || c->bytes_not_ok)
		fprintf(f, "overhead: %" PRIu64 " pause %s fell into paused "
			   "trace (an interrupt, no branch stack); %" PRIu64
			   " of %" PRIu64 " trace bytes (%.1f%%) in windows that "
			   "are not ok\n",
			by[SY_ST_PAUSED],
			sy_plural(by[SY_ST_PAUSED], "sample", "samples"),
			c->bytes_not_ok, c->trace_bytes,
			c->trace_bytes ? 100.0 * (double)c->bytes_not_ok /
						 (double)c->trace_bytes :
					 0.0);
	if (sum->inner_samples)
		fprintf(f, "%" PRIu64 " callchain samples of other events while "
			   "trace ran: %" PRIu64 " placed in windows, %" PRIu64
			   " unplaced\n",
			sum->inner_samples, sum->placed, sum->unplaced);
	sy_wl_missing(c, s, f);
	fprintf(f, "length of windows with trace:  %10s %10s %10s %10s\n", "p5",
		"p50", "p95", "max");
	for (size_t i = 0; i < 4; i++)
		if (!d[i]->n)
			fprintf(f, "  %-28s %10s %10s %10s %10s\n",
				sy_dist_names[i], "-", "-", "-", "-");
		else
			fprintf(f, "  %-28s %10" PRIu64 " %10" PRIu64
				   " %10" PRIu64 " %10" PRIu64 "\n",
				sy_dist_names[i], sy_dist_pct(d[i], 5),
				sy_dist_pct(d[i], 50), sy_dist_pct(d[i], 95),
				sy_dist_pct(d[i], 100));
	if (!sy_wl_exact(c))
		fprintf(f, "  (over %d windows with trace, lengths of %d and "
			   "more are kept in bins of 1/%d: a percentile is at "
			   "most %.2f%% below the exact one; max is exact)\n",
			SY_DIST_EXACT_MAX, SY_DIST_EXACT_BELOW,
			SY_DIST_SUB_BINS, 100.0 / SY_DIST_SUB_BINS);
	sy_histogram(c, f);
	sy_periods(c, sum, f);
	if (c->whatif)
		sy_whatif_text(c->whatif, f);
}
