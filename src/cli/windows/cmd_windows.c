/* strobe-synth windows: every window with its numbers and status, then the
 * distribution of window lengths and what the resume/pause periods imply
 * (the listing and summary: windows_list.c; the SVG: windows_svg.c;
 * --symbols and --disasm: windows_disasm.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sy_bytes.h"
#include "windows.h"

enum {
	OPT_JSON = SY_OPT_CMD_BASE,
	OPT_SVG,
	OPT_SYMBOLS,
	OPT_DISASM,
	OPT_NO_LIST,
	OPT_ITEMS,
	OPT_WHATIF,
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
		"      --svg FILE         plots as SVG: window lengths, taken branches\n"
		"                         per window, lengths over time, the what-if\n"
		"                         curve ('-': standard output, instead of the\n"
		"                         listing)\n"
		"      --symbols          function at each window's start and end\n"
		"      --disasm N         last N traced instructions before each\n"
		"                         pause, next to the pause sample's IP\n"
		"      --summary          summary only, no per-window lines\n"
		"  -q, --quiet            no notes on stderr (damage is still\n"
		"                         reported)\n"
		"      --what-if[=N,...]  each ok window cut to its newest N taken\n"
		"                         branches (8,16,...,256): how much of the\n"
		"                         profile shorter windows keep (implies\n"
		"                         --depth all)\n"
		"      --items            under each window, the decoder items it\n"
		"                         was decided from (branch, start, stop,\n"
		"                         error...), codes in words\n"
		"%s"
		"  -h, --help             this help\n"
		"\n"
		"Exit status: 0 success, 1 output or internal error, 2 bad\n"
		"usage, 3 unreadable input, 4 damaged input, 5 no trace or no\n"
		"window selected. See strobe-synth-windows(1).\n",
		sy_session_help);
}

static int sy_windows_cb(void *ctx, const struct sy_window *w)
{
	struct sy_wl *c = ctx;

	if (!sy_cli_selected(&c->cs, w))
		return 0;
	c->selected++;
	c->by_status[w->status]++;
	if (sy_wl_add(c, w) || sy_dcheck_add(&c->dc, w) ||
	    (c->whatif && sy_whatif_add(c->whatif, w)))
		return -SY_E_NOMEM;
	sy_tl_add(&c->tl, w);
	sy_wl_window(c, w);
	return 0;
}

static int sy_windows_disasm_opt(struct sy_wl *c, const char *arg)
{
	char *end;

	errno = 0;
	c->disasm = (uint32_t)strtoul(arg, &end, 10);
	if (errno || *end || !c->disasm || c->disasm > 4096) {
		sy_msg_error("--disasm: 1 to 4096 instructions");
		return -1;
	}
	return 0;
}

/* Options that cannot go together: the one output stream would hold two
 * things. */
static int sy_windows_conflicts(const struct sy_wl *c)
{
	const char *svg_out[] = { c->svg };
	const char *names[] = { "--svg" };

	if (c->json && c->cs.o.items) {
		sy_msg_error("windows: --items prints decoder text, which "
			     "cannot go inside --json output");
		return -1;
	}
	if (c->svg && !strcmp(c->svg, "-") && (c->json || c->cs.o.items)) {
		sy_msg_error("windows: --svg - writes the picture to standard "
			     "output: it cannot go with --%s",
			     c->json ? "json" : "items");
		return -1;
	}
	if (c->svg && !strcmp(c->svg, "-") && (c->symbols || c->disasm)) {
		sy_msg_error("windows: --svg - replaces the listing, so "
			     "--symbols and --disasm would show nothing");
		return -1;
	}
	return sy_cli_check_outputs("windows", c->cs.o.input, svg_out, names,
				    1);
}

/* Returns -1 to go on, else the exit status. */
static int sy_windows_options(struct sy_wl *c, int argc, char **argv)
{
	static const struct option extra[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "symbols", no_argument, NULL, OPT_SYMBOLS },
		{ "disasm", required_argument, NULL, OPT_DISASM },
		{ "summary", no_argument, NULL, OPT_NO_LIST },
		{ "items", no_argument, NULL, OPT_ITEMS },
		{ "what-if", optional_argument, NULL, OPT_WHATIF },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[64];
	int opt, status = SY_EXIT_OK;

	sy_cli_longopts(opts, SY_ARRAY_SIZE(opts), extra);
	optind = 1;
	opterr = 0;
	while ((opt = sy_cli_next_opt(&c->cs, "windows", argc, argv,
				      ":" SY_SESSION_SHORTOPTS "hq", opts,
				      &status)) >= 0) {
		switch (opt) {
		case OPT_JSON:
			c->json = 1;
			break;
		case OPT_SVG:
			c->svg = optarg;
			break;
		case OPT_SYMBOLS:
			c->symbols = 1;
			break;
		case OPT_DISASM:
			if (sy_windows_disasm_opt(c, optarg))
				return SY_EXIT_USAGE;
			break;
		case OPT_NO_LIST:
			c->list = 0;
			break;
		case OPT_ITEMS:
			c->cs.o.items = 1;
			break;
		case OPT_WHATIF:
			c->whatif_arg = optarg ? optarg : "";
			break;
		case 'q':
			c->cs.quiet = 1;
			break;
		case 'h':
			sy_windows_usage(stdout);
			return SY_EXIT_OK;
		}
	}
	if (opt == SY_CLI_STOP)
		return status;
	if (sy_cli_session_finish(&c->cs, "windows", argc, argv, optind) ||
	    sy_windows_conflicts(c))
		return SY_EXIT_USAGE;
	c->input = c->cs.o.input;
	if (c->svg && !strcmp(c->svg, "-"))
		c->out = NULL;	/* standard output holds the picture */
	if (c->disasm && c->cs.o.depth && c->cs.o.depth < 8)
		c->cs.o.depth = 8;
	/* the cuts need each window's whole branch stack */
	if (c->whatif_arg)
		c->cs.o.depth = 0;
	if (!strcmp(c->input, "-") && sy_cli_spool_stdin())
		return SY_EXIT_BADFILE;
	return -1;
}

/* Returns -1 to go on, else the exit status. */
static int sy_windows_open(struct sy_wl *c, struct sy_session **s)
{
	/* a plain trace recording: its stretches are the windows */
	int r = sy_cli_session_open(&c->cs, c->cs.o.depth, s);

	if (r >= 0)
		return r;
	c->cs.o.whole_trace = !sy_session_has_pause(*s);
	c->kind = sy_cli_trace_kind(sy_session_summary(*s));
	if (c->whatif_arg) {
		int err = sy_whatif_new(&c->whatif, c->whatif_arg,
					c->kind != SY_TRACE_ETM);

		if (err == -SY_E_INVALID) {
			sy_msg_error("--what-if: N,N,... ascending taken "
				     "branch counts, at most 8, each 1 to "
				     "1048576");
			return SY_EXIT_USAGE;
		}
		if (err) {
			sy_msg_error("windows: %s", sy_errstr(err));
			return SY_EXIT_FAILURE;
		}
	}
	if (c->svg && sy_tl_init(&c->tl)) {
		sy_msg_error("windows: %s", sy_errstr(-SY_E_NOMEM));
		return SY_EXIT_FAILURE;
	}
	if (c->disasm)
		c->cs_ok = cs_open(c->kind == SY_TRACE_ETM ? CS_ARCH_ARM64 :
							     CS_ARCH_X86,
				   c->kind == SY_TRACE_ETM ? CS_MODE_ARM :
							     CS_MODE_64,
				   &c->cs_h) == CS_ERR_OK;
	return -1;
}

int sy_cmd_windows(int argc, char **argv)
{
	struct sy_wl c;
	struct sy_session *s = NULL;
	struct sy_diag d = { 0 };
	int err, ret = SY_EXIT_OK, r;

	memset(&c, 0, sizeof(c));
	sy_wl_init(&c);
	sy_cli_session_init(&c.cs);
	c.out = stdout;
	c.list = 1;
	if ((r = sy_windows_options(&c, argc, argv)) >= 0 ||
	    (r = sy_windows_open(&c, &s)) >= 0) {
		ret = r;
		goto out;
	}
	sy_dcheck_init(&c.dc, sy_session_summary(s));
	sy_wl_header(&c);
	err = sy_session_run(s, sy_windows_cb, &c);
	if (err == -SY_E_NOMEM) {
		sy_msg_error("windows: %s", sy_errstr(err));
		ret = SY_EXIT_FAILURE;
		goto out;
	}
	if (err) {
		sy_msg_diag(c.input, sy_session_diag(s));
		ret = SY_EXIT_DAMAGED;
	} else if (sy_session_summary(s)->damage || c.cs.damage) {
		ret = SY_EXIT_DAMAGED;
	}
	sy_wl_summary(&c, s);
	if (c.svg && sy_wl_svg(&c, sy_session_summary(s), &d)) {
		sy_msg_error("%s", d.msg[0] ? d.msg : sy_errstr(d.err));
		ret = SY_EXIT_FAILURE;
	}
	if (fflush(stdout) || ferror(stdout)) {
		sy_msg_error("windows: cannot write to standard output");
		ret = SY_EXIT_FAILURE;
	}
	if (!ret && !c.selected && sy_cli_filtering(&c.cs)) {
		sy_msg_error("%s: --pid, --tid, --comm, --cpu and --time "
			     "selected none of the %llu windows", c.input,
			     (unsigned long long)sy_session_summary(s)->windows);
		ret = SY_EXIT_NODATA;
	}
out:
	if (c.cs_ok)
		cs_close(&c.cs_h);
	sy_session_close(s);
	sy_whatif_free(c.whatif);
	sy_wl_fini(&c);
	sy_cli_session_fini(&c.cs);
	return ret;
}
