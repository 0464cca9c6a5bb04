/* Options shared by the commands that run a session (convert, windows):
 * window validation, binaries, processes, threads.  One table, so both
 * commands spell and document them the same way. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

const struct option sy_session_longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "threads", required_argument, NULL, 'j' },
	{ "depth", required_argument, NULL, SY_OPT_DEPTH },
	{ "skid", required_argument, NULL, SY_OPT_SKID },
	{ "window", required_argument, NULL, SY_OPT_WINDOW },
	{ "window-unit", required_argument, NULL, SY_OPT_WINDOW_UNIT },
	{ "min-branches", required_argument, NULL, SY_OPT_MIN_BRANCHES },
	{ "binary", required_argument, NULL, SY_OPT_BINARY },
	{ "symfs", required_argument, NULL, SY_OPT_SYMFS },
	{ "buildid-dir", required_argument, NULL, SY_OPT_BUILDID_DIR },
	{ "allow-mismatch", no_argument, NULL, SY_OPT_ALLOW_MISMATCH },
	{ "pid", required_argument, NULL, SY_OPT_PID },
	{ "tid", required_argument, NULL, SY_OPT_TID },
	{ "comm", required_argument, NULL, SY_OPT_COMM },
	{ "cpu", required_argument, NULL, 'C' },
	{ "time", required_argument, NULL, SY_OPT_TIME },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, SY_OPT_VERSION },
	{ "decoder", required_argument, NULL, SY_OPT_DECODER },
	{ "vmlinux", required_argument, NULL, SY_OPT_VMLINUX },
	{ "kcore", required_argument, NULL, SY_OPT_KCORE },
	{ NULL, 0, NULL, 0 },
};

const char sy_session_help[] =
	"  -i, --input FILE       input perf.data ('-' reads a pipe)\n"
	"  -j, --threads N        decoding threads (default: online CPUs)\n"
	"      --depth N|all      branch stack entries per sample (default 64)\n"
	"      --skid N           instructions of tolerance when pinning a\n"
	"                         window's ends to its samples (default 0)\n"
	"      --window MIN:MAX   window length bounds (either may be empty)\n"
	"      --window-unit U    insns (default), branches or ns\n"
	"      --min-branches N   windows with fewer branches are few-branches\n"
	"      --decoder D        fast (default: the trace's packets walked\n"
	"                         over a block cache, the full decode where it\n"
	"                         cannot follow) or full (OpenCSD's full\n"
	"                         decode, libipt's block decoder for Intel PT,\n"
	"                         everywhere; the same output)\n"
	"      --binary PATH      use this binary for its build-id / basename\n"
	"                         (repeatable)\n"
	"      --symfs DIR        look binaries up under DIR\n"
	"      --buildid-dir DIR  perf build-id cache (default ~/.debug)\n"
	"      --allow-mismatch   use binaries whose build-id differs\n"
	"  -k, --vmlinux FILE     the kernel image (relocated for KASLR)\n"
	"      --kcore DIR        a perf record --kcore directory: kernel and\n"
	"                         modules at their runtime addresses\n"
	"      --pid PID[,PID]    only these processes\n"
	"      --tid TID[,TID]    only these threads\n"
	"      --comm NAME[,NAME] only processes with one of these names\n"
	"  -C, --cpu CPU[,CPU]    only windows on these CPUs (0-3,6 ranges)\n"
	"      --time START,STOP  only windows whose sample time lies in\n"
	"                         [START, STOP], in seconds as perf script\n"
	"                         shows them (either may be left empty)\n"
	"  -v, --verbose          say which binaries were used for which\n"
	"                         recorded paths, and why windows were dropped\n"
	"      --version          print the version\n";

/* The long name of a shared option, from the table. */
static const char *sy_opt_name(int opt)
{
	for (size_t i = 0; sy_session_longopts[i].name; i++)
		if (sy_session_longopts[i].val == opt)
			return sy_session_longopts[i].name;
	return "?";
}

/* What a good value looks like, for the options whose syntax is not
 * obvious from their name. */
static const char *sy_opt_hint(int opt)
{
	switch (opt) {
	case SY_OPT_TIME:
		return " (START,STOP in seconds as perf script prints them, "
		       "e.g. 1234.5,1234.75; either may be empty)";
	case 'C':
	case SY_OPT_PID:
	case SY_OPT_TID:
		return " (numbers and ranges: 1,4-7)";
	case SY_OPT_WINDOW:
		return " (MIN:MAX, either may be empty)";
	case SY_OPT_WINDOW_UNIT:
		return " (insns, branches or ns)";
	case SY_OPT_DECODER:
		return " (fast or full)";
	case SY_OPT_DEPTH:
		return " (1 to 16777216, or all)";
	default:
		return "";
	}
}

/* --binary, --symfs and --buildid-dir must name something that exists:
 * a typo would otherwise only show as windows without code. */
static int sy_check_path(int opt, const char *arg, int want_dir)
{
	struct stat st;

	if (stat(arg, &st)) {
		sy_msg_error("--%s %s: %s", sy_opt_name(opt), arg,
			     strerror(errno));
		return -1;
	}
	if (want_dir && !S_ISDIR(st.st_mode)) {
		sy_msg_error("--%s %s: not a directory", sy_opt_name(opt), arg);
		return -1;
	}
	if (!want_dir && S_ISDIR(st.st_mode)) {
		sy_msg_error("--%s %s: a directory, not a binary "
			     "(--symfs takes a directory)",
			     sy_opt_name(opt), arg);
		return -1;
	}
	return 0;
}

/* A perf record --kcore directory holds kcore_dir/kcore (or kcore): one
 * that does not is a mistake on the command line, said before reading. */
static int sy_check_kcore(const char *dir)
{
	static const char *const names[] = { "kcore_dir/kcore", "kcore" };
	char p[4096];
	struct stat st;

	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		if (!stat(p, &st) && S_ISREG(st.st_mode))
			return 0;
	}
	sy_msg_error("--kcore %s: no kcore or kcore_dir/kcore in it (a "
		     "directory made by perf record --kcore)", dir);
	return -1;
}

static int sy_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

void sy_cli_session_init(struct sy_cli_session *c)
{
	memset(c, 0, sizeof(*c));
	sy_session_opts_init(&c->o);
	c->o.images.buildid_dir = NULL;
}

void sy_cli_session_fini(struct sy_cli_session *c)
{
	free(c->binaries);
	sy_idlist_fini(&c->filter.pids);
	sy_idlist_fini(&c->filter.tids);
	sy_idlist_fini(&c->filter.cpus);
	sy_cli_filter_fini(&c->filter);
}

/* Kept whole: one case per option the commands share, as getopt_long
 * hands them out; each case is a line or two. */
int sy_cli_session_opt(struct sy_cli_session *c, int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case 'i':
		c->o.input = arg;
		return 1;
	case 'j':
		if (sy_parse_u64(arg, &v) || v == 0 || v > 1024)
			goto bad;
		c->o.threads = (unsigned)v;
		return 1;
	case SY_OPT_DEPTH:
		if (!strcmp(arg, "all")) {
			c->o.depth = 0;
			return 1;
		}
		if (sy_parse_u64(arg, &v) || v == 0 || v > 1u << 24)
			goto bad;
		c->o.depth = (uint32_t)v;
		return 1;
	case SY_OPT_SKID:
		if (sy_parse_u64(arg, &v) || v > 1u << 20)
			goto bad;
		c->o.skid = (uint32_t)v;
		return 1;
	case SY_OPT_WINDOW: {
		const char *colon = strchr(arg, ':');
		char lo[64];

		if (!colon || (size_t)(colon - arg) >= sizeof(lo))
			goto bad;
		memcpy(lo, arg, (size_t)(colon - arg));
		lo[colon - arg] = 0;
		c->o.win_min = c->o.win_max = 0;
		if ((*lo && sy_parse_u64(lo, &c->o.win_min)) ||
		    (colon[1] && sy_parse_u64(colon + 1, &c->o.win_max)))
			goto bad;
		if (c->o.win_max && c->o.win_min > c->o.win_max)
			goto bad;
		return 1;
	}
	case SY_OPT_WINDOW_UNIT:
		if (!strcmp(arg, "insns"))
			c->o.win_unit = SY_UNIT_INSNS;
		else if (!strcmp(arg, "branches"))
			c->o.win_unit = SY_UNIT_BRANCHES;
		else if (!strcmp(arg, "ns"))
			c->o.win_unit = SY_UNIT_NS;
		else
			goto bad;
		return 1;
	case SY_OPT_MIN_BRANCHES:
		if (sy_parse_u64(arg, &c->o.min_branches))
			goto bad;
		return 1;
	case SY_OPT_BINARY: {
		if (sy_check_path(opt, arg, 0))
			return -1;
		const char **n = realloc(c->binaries,
					 (c->nr_binaries + 1) * sizeof(*n));
		if (!n)
			return -1;
		c->binaries = n;
		c->binaries[c->nr_binaries++] = arg;
		c->o.images.binaries = c->binaries;
		c->o.images.nr_binaries = c->nr_binaries;
		return 1;
	}
	case SY_OPT_SYMFS:
		if (sy_check_path(opt, arg, 1))
			return -1;
		c->o.images.symfs = arg;
		return 1;
	case SY_OPT_BUILDID_DIR:
		if (sy_check_path(opt, arg, 1))
			return -1;
		c->o.images.buildid_dir = arg;
		return 1;
	case SY_OPT_ALLOW_MISMATCH:
		c->o.images.allow_mismatch = 1;
		return 1;
	case 'k':	/* perf's short form */
	case SY_OPT_VMLINUX:
		if (sy_check_path(SY_OPT_VMLINUX, arg, 0))
			return -1;
		c->o.images.vmlinux = arg;
		return 1;
	case SY_OPT_KCORE:
		if (sy_check_path(opt, arg, 1) || sy_check_kcore(arg))
			return -1;
		c->o.images.kcore = arg;
		return 1;
	case SY_OPT_PID:
		if (sy_idlist_parse(&c->filter.pids, arg))
			goto bad;
		return 1;
	case SY_OPT_TID:
		if (sy_idlist_parse(&c->filter.tids, arg))
			goto bad;
		return 1;
	case 'C':
		if (sy_idlist_parse(&c->filter.cpus, arg))
			goto bad;
		return 1;
	case SY_OPT_COMM:
		if (sy_cli_filter_comms(&c->filter, arg))
			goto bad;
		return 1;
	case SY_OPT_TIME:
		if (sy_time_parse(&c->filter, arg))
			goto bad;
		return 1;
	case 'v':
		c->verbose = 1;
		return 1;
	case SY_OPT_DECODER:
		if (!strcmp(arg, "fast"))
			c->o.etm_decoder = SY_ETM_DECODER_AUTO;
		else if (!strcmp(arg, "full"))
			c->o.etm_decoder = SY_ETM_DECODER_FULL;
		else
			goto bad;
		return 1;
	case SY_OPT_VERSION:
		return SY_CLI_DONE;
	default:
		return 0;
	}
bad:
	sy_msg_error("invalid value '%s' for --%s%s", arg, sy_opt_name(opt),
		     sy_opt_hint(opt));
	return -1;
}

static int sy_idlist_has(const struct sy_idlist *l, uint32_t v)
{
	if (!l->nr)
		return 1;
	for (size_t i = 0; i < l->nr; i++)
		if (l->lo[i] <= v && v <= l->hi[i])
			return 1;
	return 0;
}

/* The time a window is known by: its pause sample's, else the end of its
 * trace (whole-trace windows), else its resume sample's. */
static uint64_t sy_window_time(const struct sy_window *w)
{
	if (w->has_pause)
		return w->pause_time;
	if (w->has_trace_time)
		return w->trace_end;
	return w->resume_time;
}

int sy_cli_selected(const struct sy_cli_session *c, const struct sy_window *w)
{
	const struct sy_cli_filter *f = &c->filter;

	if (!sy_idlist_has(&f->pids, w->pid) ||
	    !sy_idlist_has(&f->tids, w->tid) ||
	    !sy_idlist_has(&f->cpus, w->cpu))
		return 0;
	if (f->nr_comms) {
		size_t i;

		for (i = 0; i < f->nr_comms; i++)
			if (w->comm && !strcmp(w->comm, f->comms[i]))
				break;
		if (i == f->nr_comms)
			return 0;
	}
	if (f->has_time) {
		uint64_t t = sy_window_time(w);

		if (t < f->time_start || (f->time_stop && t > f->time_stop))
			return 0;
	}
	return 1;
}

int sy_cli_filtering(const struct sy_cli_session *c)
{
	const struct sy_cli_filter *f = &c->filter;

	return f->pids.nr || f->tids.nr || f->cpus.nr || f->nr_comms ||
	       f->has_time;
}

void sy_cli_warn(void *ctx, const struct sy_diag *d)
{
	struct sy_cli_session *c = ctx;
	const char *file = c->o.input ? c->o.input : "perf.data";

	/* damage anywhere, feature sections included, is exit 4 as in
	 * dump; a binary that cannot be used (missing, unreadable, another
	 * build) is no damage of the input: the summary names it, and it
	 * decides exit 5 when nothing could be converted */
	if (d->err < 0 && d->err != -SY_E_BUILD_ID && d->err != -SY_E_BAD_ELF &&
	    d->err != -SY_E_NO_IMAGE && d->err != -SY_E_NO_KERNEL)
		c->damage++;
	if (!d->err && c->quiet)
		return;
	if (d->has_offset)
		fprintf(stderr, "strobe-synth: %s: offset %" PRIu64 ": %s%s\n",
			file, d->offset, d->err < 0 ? "" : "note: ", d->msg);
	else
		fprintf(stderr, "strobe-synth: %s: %s%s\n", file,
			d->err < 0 ? "" : "note: ", d->msg);
}

void sy_cli_longopts(struct option *out, size_t cap,
		     const struct option *extra)
{
	size_t n = 0;

	for (size_t i = 0; sy_session_longopts[i].name && n + 1 < cap; i++)
		out[n++] = sy_session_longopts[i];
	for (size_t i = 0; extra[i].name && n + 1 < cap; i++)
		out[n++] = extra[i];
	memset(&out[n], 0, sizeof(out[n]));
}

int sy_cli_session_finish(struct sy_cli_session *c, const char *cmd,
			  int argc, char **argv, int first)
{
	if (first < argc) {
		if (c->o.input || first + 1 < argc) {
			sy_msg_error("%s: one input file only", cmd);
			return -1;
		}
		c->o.input = argv[first];
	}
	if (!c->o.input)
		c->o.input = "perf.data";
	c->o.warn = sy_cli_warn;
	c->o.warn_ctx = c;
	if (isatty(STDERR_FILENO)) {
		sy_cli_progress_init(&c->progress, c->o.input);
		c->o.progress = sy_cli_progress_draw;
		c->o.progress_ctx = &c->progress;
	}
	return 0;
}

void sy_cli_version(const char *cmd)
{
	printf("strobe-synth %s %s\n", cmd, SY_VERSION);
}

void sy_cli_bad_option(const char *cmd, int opt, char **argv)
{
	const char *arg = argv[optind - 1];

	if (opt == ':')
		fprintf(stderr, "strobe-synth %s: option '%s' needs a value\n",
			cmd, arg);
	else if (optopt && arg[0] == '-' && arg[1] != '-')
		fprintf(stderr, "strobe-synth %s: invalid option -- '%c'\n",
			cmd, optopt);
	else
		fprintf(stderr, "strobe-synth %s: unrecognized option '%s'\n",
			cmd, arg);
	fprintf(stderr, "Try 'strobe-synth %s --help' for the options.\n",
		cmd);
}

/* Same file: same inode on the same device. */
static int sy_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, b))
		return 1;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int sy_cli_check_outputs(const char *cmd, const char *input,
			 const char *const *outs, const char *const *names,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!outs[i])
			continue;
		if (strcmp(outs[i], "-") && strcmp(input, "-") &&
		    sy_same_file(outs[i], input)) {
			sy_msg_error("%s: %s %s is the input file: refusing to "
				     "overwrite the recording", cmd, names[i],
				     outs[i]);
			return -1;
		}
		for (size_t k = 0; k < i; k++) {
			struct stat st;

			if (!outs[k] || !sy_same_file(outs[i], outs[k]))
				continue;
			/* two outputs may share a device or FIFO, written
			 * through; two renames onto one file lose one */
			if (strcmp(outs[i], "-") && !stat(outs[i], &st) &&
			    !S_ISREG(st.st_mode))
				continue;
			sy_msg_error("%s: %s and %s both write to %s", cmd,
				     names[k], names[i],
				     strcmp(outs[i], "-") ? outs[i] :
							    "standard output");
			return -1;
		}
	}
	return 0;
}

int sy_cli_next_opt(struct sy_cli_session *c, const char *cmd, int argc,
		    char **argv, const char *shortopts,
		    const struct option *opts, int *status)
{
	int opt;

	while ((opt = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		int r = sy_cli_session_opt(c, opt, optarg);

		if (r == SY_CLI_DONE) {
			sy_cli_version(cmd);
			*status = SY_EXIT_OK;
			return SY_CLI_STOP;
		}
		if (r < 0) {
			*status = SY_EXIT_USAGE;
			return SY_CLI_STOP;
		}
		if (r)
			continue;
		if (opt == '?' || opt == ':') {
			sy_cli_bad_option(cmd, opt, argv);
			*status = SY_EXIT_USAGE;
			return SY_CLI_STOP;
		}
		return opt;
	}
	return -1;
}
