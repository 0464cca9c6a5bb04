/* Options shared by the commands that run a session (convert, windows):
 * window validation, binaries, processes, threads.  One table, so both
 * commands spell and document them the same way. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	{ "comm", required_argument, NULL, SY_OPT_COMM },
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
	"      --binary PATH      use this binary for its build-id / basename\n"
	"                         (repeatable)\n"
	"      --symfs DIR        look binaries up under DIR\n"
	"      --buildid-dir DIR  perf build-id cache (default ~/.debug)\n"
	"      --allow-mismatch   use binaries whose build-id differs\n"
	"      --vmlinux FILE     the kernel image (relocated for KASLR)\n"
	"      --kcore DIR        a perf record --kcore directory: kernel and\n"
	"                         modules at their runtime addresses\n"
	"      --pid PID[,PID]    only these processes\n"
	"      --comm NAME        only processes named NAME\n";

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
	free(c->pids);
}

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
		c->o.images.symfs = arg;
		return 1;
	case SY_OPT_BUILDID_DIR:
		c->o.images.buildid_dir = arg;
		return 1;
	case SY_OPT_ALLOW_MISMATCH:
		c->o.images.allow_mismatch = 1;
		return 1;
	case SY_OPT_VMLINUX:
		c->o.images.vmlinux = arg;
		return 1;
	case SY_OPT_KCORE:
		c->o.images.kcore = arg;
		return 1;
	case SY_OPT_PID: {
		const char *p = arg;

		while (*p) {
			char *end;
			unsigned long pid;
			uint32_t *n;

			errno = 0;
			pid = strtoul(p, &end, 10);
			if (errno || end == p || pid > UINT32_MAX ||
			    (*end && *end != ','))
				goto bad;
			n = realloc(c->pids, (c->nr_pids + 1) * sizeof(*n));
			if (!n)
				return -1;
			c->pids = n;
			c->pids[c->nr_pids++] = (uint32_t)pid;
			p = *end ? end + 1 : end;
		}
		return 1;
	}
	case SY_OPT_COMM:
		c->comm = arg;
		return 1;
	default:
		return 0;
	}
bad:
	sy_msg_error("invalid value '%s' for --%s", arg,
		     opt == 'j' ? "threads" : opt == 'i' ? "input" :
		     opt == SY_OPT_DEPTH ? "depth" : opt == SY_OPT_SKID ? "skid" :
		     opt == SY_OPT_WINDOW ? "window" :
		     opt == SY_OPT_WINDOW_UNIT ? "window-unit" :
		     opt == SY_OPT_MIN_BRANCHES ? "min-branches" : "pid");
	return -1;
}

int sy_cli_selected(const struct sy_cli_session *c, const struct sy_window *w)
{
	if (c->nr_pids) {
		size_t i;

		for (i = 0; i < c->nr_pids; i++)
			if (c->pids[i] == w->pid)
				break;
		if (i == c->nr_pids)
			return 0;
	}
	if (c->comm && (!w->comm || strcmp(w->comm, c->comm)))
		return 0;
	return 1;
}

void sy_cli_warn(void *ctx, const struct sy_diag *d)
{
	const struct sy_cli_session *c = ctx;
	const char *file = c->o.input ? c->o.input : "perf.data";

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
	c->o.progress = isatty(STDERR_FILENO);
	return 0;
}
