/* strobe-synth windows: every window with its numbers and status, then the
 * distribution of window lengths and what the resume/pause periods imply.
 * This is what R and P are tuned with. */
#include <capstone/capstone.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sy_atomic_file.h"
#include "sy_image.h"
#include "sy_synth.h"

enum {
	OPT_JSON = SY_OPT_CMD_BASE,
	OPT_SVG,
	OPT_SYMBOLS,
	OPT_DISASM,
	OPT_NO_LIST,
	OPT_ITEMS,
};

/* Length distributions are kept for windows that carry trace. */
struct sy_dist {
	uint64_t *v;
	size_t nr, cap;
};

struct sy_wl {
	struct sy_cli_session cs;
	const char *input;
	int json;
	const char *svg;
	int symbols;
	uint32_t disasm;
	int list;
	FILE *out;
	struct sy_dist insns, branches, ns, bytes;
	uint64_t listed;
	csh cs_h;
	int cs_ok;
	int err;
};

static void sy_windows_usage(FILE *f)
{
	fprintf(f,
		"usage: strobe-synth windows [options] [FILE]\n"
		"\n"
		"Lists every trace window of a perf.data file with its CPU,\n"
		"thread, times, bytes, instructions, branches and status, then\n"
		"the distribution of window lengths and what the resume and\n"
		"pause periods (R, P) imply.\n"
		"\n"
		"      --json             machine-readable output\n"
		"      --svg FILE         histogram of window lengths as SVG\n"
		"      --symbols          function at each window's start and end\n"
		"      --disasm N         last N traced instructions before each\n"
		"                         pause, next to the pause sample's IP\n"
		"      --summary          summary only, no per-window lines\n"
		"      --items            every decoder item (branch, start, stop,\n"
		"                         error...) as it is decoded; one thread\n"
		"%s"
		"  -h, --help             this help\n",
		sy_session_help);
}

static int sy_dist_add(struct sy_dist *d, uint64_t v)
{
	if (d->nr == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 256;
		uint64_t *n = realloc(d->v, ncap * sizeof(*n));
		if (!n)
			return -SY_E_NOMEM;
		d->v = n;
		d->cap = ncap;
	}
	d->v[d->nr++] = v;
	return 0;
}

static int sy_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static uint64_t sy_pct(const struct sy_dist *d, unsigned p)
{
	size_t k;

	if (!d->nr)
		return 0;
	k = (size_t)ceil((double)p / 100.0 * (double)d->nr);
	return d->v[k ? k - 1 : 0];
}

/* "func+0x10 (binary)" for a runtime address, or "?". */
static void sy_symbolize(const struct sy_window *w, uint64_t addr, char *buf,
			 size_t len)
{
	const struct sy_map *m = w->snap ?
					 sy_proc_snap_find(w->snap, w->pid, addr) :
					 NULL;
	const char *name = NULL;
	uint64_t vaddr, off = 0;

	if (!m || !m->img) {
		snprintf(buf, len, "?");
		return;
	}
	if ((m->flags & SY_MAP_KERNEL))
		vaddr = addr;
	else if (sy_image_off_to_vaddr(m->img, addr - m->start + m->pgoff,
				       &vaddr)) {
		snprintf(buf, len, "?");
		return;
	}
	if (sy_image_symbol(m->img, vaddr, &name, &off) || !name)
		snprintf(buf, len, "%#" PRIx64 " (%.200s)", vaddr, m->path);
	else if (off)
		snprintf(buf, len, "%s+%#" PRIx64, name, off);
	else
		snprintf(buf, len, "%s", name);
}

/* Disassembles the straight-line piece [a, b) (b inclusive when @incl). */
static size_t sy_piece(struct sy_wl *c, const struct sy_window *w, uint64_t a,
		       uint64_t b, int incl, uint64_t *addr_out,
		       char (*text)[96], size_t max)
{
	const struct sy_aspace *as = w->snap ?
					     sy_proc_snap_aspace(w->snap, w->pid) :
					     NULL;
	size_t n = 0;
	cs_insn *insn = cs_malloc(c->cs_h);

	if (!insn)
		return 0;
	while (n < max && (a < b || (incl && a == b))) {
		uint8_t code[16];
		const uint8_t *p = code;
		size_t len = sy_aspace_read(as, a, code, sizeof(code));
		uint64_t at = a;

		if (!len || !cs_disasm_iter(c->cs_h, &p, &len, &at, insn)) {
			addr_out[n] = a;
			snprintf(text[n++], 96, "(no code)");
			break;
		}
		addr_out[n] = a;
		snprintf(text[n++], 96, "%.31s %.60s", insn->mnemonic,
			 insn->op_str);
		if (a == b)
			break;
		a = at;
	}
	cs_free(insn, 1);
	return n;
}

/* The last N traced instructions: the pieces between the newest branches,
 * rebuilt from the binary. */
static void sy_disasm(struct sy_wl *c, const struct sy_window *w)
{
	size_t max = c->disasm + 64;
	uint64_t *addr = calloc(max, sizeof(*addr));
	char (*text)[96] = calloc(max, sizeof(*text));
	size_t n = 0;

	if (!addr || !text || !c->cs_ok || !w->nr_stack)
		goto out;
	/* oldest piece first, so build from the back of the stack */
	for (uint32_t i = w->nr_stack < 8 ? w->nr_stack : 8; i-- > 1;) {
		n += sy_piece(c, w, w->stack[i].to, w->stack[i - 1].from, 1,
			      addr + n, text + n, max - n);
		if (n >= max)
			break;
	}
	if (n < max)
		n += sy_piece(c, w, w->stack[0].to, w->end_addr, 0, addr + n,
			      text + n, max - n);
	size_t from = n > c->disasm ? n - c->disasm : 0;
	for (size_t i = from; i < n; i++)
		fprintf(c->out, "    %16" PRIx64 "  %s\n", addr[i], text[i]);
	fprintf(c->out, "    %16" PRIx64 "  <- trace stops here; pause sample "
			"IP %#" PRIx64 "%s\n",
		w->end_addr, w->pause_ip,
		w->end_addr == w->pause_ip ? " (same)" : " (DIFFERENT)");
out:
	free(addr);
	free(text);
}

static int sy_windows_cb(void *ctx, const struct sy_window *w)
{
	struct sy_wl *c = ctx;

	if (!sy_cli_selected(&c->cs, w))
		return 0;
	if (w->insns || w->bytes) {
		if (sy_dist_add(&c->insns, w->insns) ||
		    sy_dist_add(&c->branches, w->branches) ||
		    sy_dist_add(&c->bytes, w->bytes))
			return -SY_E_NOMEM;
		if (w->has_resume && w->has_pause &&
		    sy_dist_add(&c->ns, w->pause_time - w->resume_time))
			return -SY_E_NOMEM;
	}
	if (!c->list)
		return 0;
	if (c->json) {
		fprintf(c->out,
			"%s\n    {\"index\": %" PRIu64 ", \"cpu\": %d, \"pid\": %u, "
			"\"tid\": %u, \"start_time\": %" PRIu64
			", \"end_time\": %" PRIu64 ", \"bytes\": %" PRIu64
			", \"instructions\": %" PRIu64 ", \"branches\": %" PRIu64
			", \"resume_ip\": %" PRIu64 ", \"pause_ip\": %" PRIu64
			", \"trace_start_ip\": %" PRIu64
			", \"trace_end_ip\": %" PRIu64
			", \"stack\": %u, \"inner_placed\": %u"
			", \"inner_unplaced\": %u, \"status\": \"%s\""
			", \"reason\": ",
			c->listed ? "," : "", w->index, (int)w->cpu, w->pid,
			w->tid, w->resume_time, w->pause_time, w->bytes,
			w->insns, w->branches, w->resume_ip, w->pause_ip,
			w->start_addr, w->end_addr, w->nr_stack, w->nr_inner,
			w->unplaced, sy_status_name(w->status));
		sy_json_str(c->out, w->reason);
		fputc('}', c->out);
		c->listed++;
		return 0;
	}
	fprintf(c->out,
		"%6" PRIu64 " %4d %7u %16" PRIu64 " %16" PRIu64 " %8" PRIu64
		" %10" PRIu64 " %8" PRIu64 " %-15s %s\n",
		w->index, (int)w->cpu, w->tid, w->resume_time, w->pause_time,
		w->bytes, w->insns, w->branches, sy_status_name(w->status),
		w->reason);
	if (c->symbols && (w->nr_stack || w->has_pause)) {
		char a[256], b[256];

		sy_symbolize(w, w->start_addr ? w->start_addr : w->resume_ip, a,
			     sizeof(a));
		sy_symbolize(w, w->has_pause ? w->pause_ip : w->end_addr, b,
			     sizeof(b));
		fprintf(c->out, "    start %s -> end %s\n", a, b);
	}
	if (c->disasm && w->has_pause && w->nr_stack)
		sy_disasm(c, w);
	c->listed++;
	return 0;
}

static void sy_histogram(struct sy_wl *c, FILE *f)
{
	uint64_t buckets[65] = { 0 }, top = 0;
	int lo = 64, hi = 0;

	for (size_t i = 0; i < c->insns.nr; i++) {
		uint64_t v = c->insns.v[i];
		int b = v ? 64 - __builtin_clzll(v) : 0;

		buckets[b]++;
		if (b < lo)
			lo = b;
		if (b > hi)
			hi = b;
	}
	for (int b = lo; b <= hi; b++)
		if (buckets[b] > top)
			top = buckets[b];
	fprintf(f, "window length histogram (instructions, log2 buckets):\n");
	for (int b = lo; b <= hi && top; b++) {
		uint64_t lo_v = b ? 1ULL << (b - 1) : 0;
		int bar = (int)((buckets[b] * 50 + top - 1) / top);

		fprintf(f, "  %12" PRIu64 " .. %-12" PRIu64 " %8" PRIu64 " %.*s\n",
			lo_v, b ? (uint64_t)((1ULL << b) - 1) : (uint64_t)0, buckets[b], bar,
			"##################################################");
	}
}

/* File names go into the picture's title: & < > must not break it. */
static void sy_xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* control bytes are not allowed in XML 1.0 */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}

static int sy_svg(struct sy_wl *c, struct sy_diag *d)
{
	uint64_t buckets[65] = { 0 }, top = 0;
	int lo = 64, hi = 0;
	struct sy_atomic_file af;
	FILE *f;

	for (size_t i = 0; i < c->insns.nr; i++) {
		uint64_t v = c->insns.v[i];
		int b = v ? 64 - __builtin_clzll(v) : 0;

		buckets[b]++;
		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	if (lo > hi)
		lo = hi = 0;
	for (int b = lo; b <= hi; b++)
		top = buckets[b] > top ? buckets[b] : top;
	if (sy_atomic_open(&af, c->svg, d))
		return -1;
	f = af.f;
	/* wide enough for the title whatever the number of buckets */
	int nb = hi - lo + 1, bw = 40, w = 80 + nb * bw, h = 320;
	if (w < 640)
		w = 640;
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"20\" font-family=\"sans-serif\" "
		"font-size=\"14\" text-anchor=\"middle\">",
		w, h, w, h, w / 2);
	/* the base name: a long path would not fit */
	const char *base = strrchr(c->input, '/');
	sy_xml_escape(f, base && base[1] ? base + 1 : c->input);
	fprintf(f,
		": %zu windows, length in instructions (log2 buckets)"
		"</text>\n"
		"<text x=\"16\" y=\"150\" font-family=\"sans-serif\" "
		"font-size=\"11\" transform=\"rotate(-90 16 150)\" "
		"text-anchor=\"middle\">windows</text>\n"
		"<text x=\"%d\" y=\"314\" font-family=\"sans-serif\" "
		"font-size=\"11\" text-anchor=\"middle\">instructions "
		"(the bar at N holds N .. 2N-1)</text>\n",
		c->insns.nr, w / 2);
	for (int b = lo; b <= hi; b++) {
		int x = 60 + (b - lo) * bw;
		int bh = top ? (int)(buckets[b] * 220 / top) : 0;

		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			"fill=\"#3b6ea5\"><title>%" PRIu64 " windows</title>"
			"</rect>\n"
			"<text x=\"%d\" y=\"%d\" font-family=\"sans-serif\" "
			"font-size=\"10\" text-anchor=\"middle\">%" PRIu64
			"</text>\n"
			"<text x=\"%d\" y=\"280\" font-family=\"sans-serif\" "
			"font-size=\"10\" text-anchor=\"middle\">%" PRIu64
			"</text>\n",
			x, 260 - bh, bw - 6, bh, buckets[b], x + (bw - 6) / 2,
			255 - bh, buckets[b], x + (bw - 6) / 2,
			b ? (uint64_t)1 << (b - 1) : 0);
	}
	fprintf(f, "<line x1=\"55\" y1=\"260\" x2=\"%d\" y2=\"260\" "
		   "stroke=\"black\"/>\n</svg>\n",
		w - 10);
	return sy_atomic_commit(&af, 0, d) ? -1 : 0;
}

/* What R and P imply, next to what was observed. */
static void sy_periods(struct sy_wl *c, const struct sy_session_summary *s,
		       FILE *f)
{
	uint64_t R = s->resume_period, P = s->pause_period;
	uint64_t ok = s->by_status[SY_ST_OK];

	if (!R || !P) {
		fprintf(f, "periods: resume %" PRIu64 ", pause %" PRIu64
			   " (not both known)\n", R, P);
		return;
	}
	fprintf(f, "periods: resume R = %" PRIu64 ", pause P = %" PRIu64 "%s%s\n",
		R, P, s->periods_freq ? " (frequencies, not periods)" : "",
		s->same_event ? "" : " (different events)");
	if (s->periods_freq)
		return;
	if (s->same_event && R > P) {
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
			50.0 * (double)P / (double)R, P / 2, sy_pct(&c->insns, 50));
		uint64_t r = R % P;
		fprintf(f, "  R mod P = %" PRIu64 " (%.3f P; about 0.618 P "
			   "spreads window lengths best)\n",
			r, (double)r / (double)P);
	}
	if (R <= P)
		fprintf(f, "  warning: R <= P: the trace is resumed before "
			   "every pause; resumes on running trace are ignored, "
			   "so windows are long and their count follows P, "
			   "not R\n");
	else if (R % P == 0)
		fprintf(f, "  warning: R is a multiple of P: every resume "
			   "coincides with a pause, giving zero-length or "
			   "missing windows (the kernel drops a pause/resume "
			   "that coincides with another)\n");
	else if (s->same_event && P > 1 && R % P < P / 100)
		fprintf(f, "  warning: R mod P is under 1%% of P: windows "
			   "are nearly all very short\n");
}

static void sy_summary(struct sy_wl *c, struct sy_session *s, FILE *f)
{
	const struct sy_session_summary *sum = sy_session_summary(s);
	struct sy_dist *d[] = { &c->insns, &c->branches, &c->ns, &c->bytes };
	static const char *const names[] = { "instructions", "branches",
					     "time (ns)", "bytes" };
	char line[160];

	for (size_t i = 0; i < 4; i++)
		if (d[i]->nr > 1)
			qsort(d[i]->v, d[i]->nr, sizeof(uint64_t),
			      sy_cmp_u64);
	if (c->json) {
		fprintf(f, "\n  ],\n  \"trace\": \"%s\",\n  \"sink\": \"%s\",\n"
			   "  \"windows\": %" PRIu64 ",\n  \"by_status\": {",
			sum->trace ? sum->trace : "", sy_sink_name(sum->sink),
			sum->windows);
		for (int i = 0; i < SY_ST_NR; i++)
			fprintf(f, "%s\n    \"%s\": %" PRIu64, i ? "," : "",
				sy_status_name(i), sum->by_status[i]);
		fprintf(f, "\n  },\n  \"percentiles\": {");
		for (size_t i = 0; i < 4; i++)
			fprintf(f, "%s\n    \"%s\": {\"p5\": %" PRIu64
				   ", \"p50\": %" PRIu64 ", \"p95\": %" PRIu64
				   ", \"max\": %" PRIu64 "}",
				i ? "," : "",
				i == 2 ? "ns" : i == 0 ? "instructions" : names[i],
				sy_pct(d[i], 5), sy_pct(d[i], 50),
				sy_pct(d[i], 95), sy_pct(d[i], 100));
		fprintf(f, "\n  },\n  \"resume_period\": %" PRIu64
			   ",\n  \"pause_period\": %" PRIu64
			   ",\n  \"pause_samples\": %" PRIu64
			   ",\n  \"resume_samples\": %" PRIu64
			   ",\n  \"resume_while_running\": %" PRIu64
			   ",\n  \"inner_samples\": %" PRIu64
			   ",\n  \"placed\": %" PRIu64
			   ",\n  \"unplaced\": %" PRIu64
			   ",\n  \"bogus_sample_rate\": %.6f\n}\n",
			sum->resume_period, sum->pause_period,
			sum->pause_samples, sum->resume_samples,
			sum->resume_while_running, sum->inner_samples,
			sum->placed, sum->unplaced, sy_summary_bogus_rate(sum));
		return;
	}
	fprintf(f, "\n%s: %s (%s), %" PRIu64 " windows:", c->input,
		sum->trace ? sum->trace : "?", sy_sink_name(sum->sink),
		sum->windows);
	for (int i = 0; i < SY_ST_NR; i++)
		if (sum->by_status[i])
			fprintf(f, " %" PRIu64 " %s", sum->by_status[i],
				sy_status_name(i));
	fprintf(f, "\n%" PRIu64 " pause samples, %" PRIu64
		   " resume samples (%" PRIu64 " on running trace)\n",
		sum->pause_samples, sum->resume_samples,
		sum->resume_while_running);
	if (sy_summary_bogus_line(sum, line, sizeof(line)))
		fprintf(f, "%s\n", line);
	if (sum->inner_samples)
		fprintf(f, "%" PRIu64 " callchain samples of other events while "
			   "trace ran: %" PRIu64 " placed in windows, %" PRIu64
			   " unplaced\n",
			sum->inner_samples, sum->placed, sum->unplaced);
	fprintf(f, "length of windows with trace:  %10s %10s %10s %10s\n", "p5",
		"p50", "p95", "max");
	for (size_t i = 0; i < 4; i++)
		fprintf(f, "  %-28s %10" PRIu64 " %10" PRIu64 " %10" PRIu64
			   " %10" PRIu64 "\n",
			names[i], sy_pct(d[i], 5), sy_pct(d[i], 50),
			sy_pct(d[i], 95), sy_pct(d[i], 100));
	sy_histogram(c, f);
	sy_periods(c, sum, f);
}

int sy_cmd_windows(int argc, char **argv)
{
	static const struct option extra[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "symbols", no_argument, NULL, OPT_SYMBOLS },
		{ "disasm", required_argument, NULL, OPT_DISASM },
		{ "summary", no_argument, NULL, OPT_NO_LIST },
		{ "items", no_argument, NULL, OPT_ITEMS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[64];
	struct sy_wl c;
	struct sy_session *s = NULL;
	struct sy_diag d = { 0 };
	int opt, err, ret = SY_EXIT_OK;

	memset(&c, 0, sizeof(c));
	sy_cli_session_init(&c.cs);
	c.out = stdout;
	c.list = 1;
	sy_cli_longopts(opts, sizeof(opts) / sizeof(opts[0]), extra);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "i:j:h", opts, NULL)) != -1) {
		int r = sy_cli_session_opt(&c.cs, opt, optarg);
		char *end;

		if (r < 0) {
			ret = SY_EXIT_USAGE;
			goto out;
		}
		if (r)
			continue;
		switch (opt) {
		case OPT_JSON:
			c.json = 1;
			break;
		case OPT_SVG:
			c.svg = optarg;
			break;
		case OPT_SYMBOLS:
			c.symbols = 1;
			break;
		case OPT_DISASM:
			errno = 0;
			c.disasm = (uint32_t)strtoul(optarg, &end, 10);
			if (errno || *end || !c.disasm || c.disasm > 4096) {
				sy_msg_error("--disasm: 1 to 4096 instructions");
				ret = SY_EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_NO_LIST:
			c.list = 0;
			break;
		case OPT_ITEMS:
			c.cs.o.items = stdout;
			break;
		case 'h':
			sy_windows_usage(stdout);
			goto out;
		default:
			sy_windows_usage(stderr);
			ret = SY_EXIT_USAGE;
			goto out;
		}
	}
	if (sy_cli_session_finish(&c.cs, "windows", argc, argv, optind)) {
		ret = SY_EXIT_USAGE;
		goto out;
	}
	c.input = c.cs.o.input;
	if (c.disasm && c.cs.o.depth && c.cs.o.depth < 8)
		c.cs.o.depth = 8;

	err = sy_session_open(&s, &c.cs.o, &d);
	if (!err && !sy_session_has_pause(s)) {
		/* a plain trace recording: its stretches are the windows */
		sy_session_close(s);
		c.cs.o.whole_trace = 1;
		err = sy_session_open(&s, &c.cs.o, &d);
	}
	if (err) {
		sy_msg_diag(c.input, &d);
		ret = err == -SY_E_UNSUPPORTED ? SY_EXIT_NODATA :
						 sy_exit_for(err);
		goto out;
	}
	if (c.disasm) {
		int etm = !strcmp(sy_session_summary(s)->trace, "cs_etm");
		c.cs_ok = cs_open(etm ? CS_ARCH_ARM64 : CS_ARCH_X86,
				  etm ? CS_MODE_ARM : CS_MODE_64,
				  &c.cs_h) == CS_ERR_OK;
	}
	if (c.json) {
		fputs("{\n  \"input\": ", c.out);
		sy_json_str(c.out, c.input);
		fputs(",\n  \"windows_list\": [", c.out);
	} else if (c.list) {
		fprintf(c.out, "%6s %4s %7s %16s %16s %8s %10s %8s %-15s %s\n",
			"window", "cpu", "tid", "resume-time", "pause-time",
			"bytes", "insns", "branches", "status", "reason");
	}
	err = sy_session_run(s, sy_windows_cb, &c);
	if (err == -SY_E_NOMEM) {
		sy_msg_error("windows: %s", sy_errstr(err));
		ret = SY_EXIT_FAILURE;
		goto out;
	}
	if (err) {
		sy_msg_diag(c.input, sy_session_diag(s));
		ret = SY_EXIT_DAMAGED;
	} else if (sy_session_summary(s)->damage) {
		ret = SY_EXIT_DAMAGED;
	}
	sy_summary(&c, s, c.out);
	if (c.svg && sy_svg(&c, &d)) {
		sy_msg_error("%s", d.msg[0] ? d.msg : sy_errstr(d.err));
		ret = SY_EXIT_FAILURE;
	}
	if (fflush(c.out) || ferror(c.out)) {
		sy_msg_error("windows: cannot write output");
		ret = SY_EXIT_FAILURE;
	}
out:
	if (c.cs_ok)
		cs_close(&c.cs_h);
	sy_session_close(s);
	free(c.insns.v);
	free(c.branches.v);
	free(c.ns.v);
	free(c.bytes.v);
	sy_cli_session_fini(&c.cs);
	return ret;
}
