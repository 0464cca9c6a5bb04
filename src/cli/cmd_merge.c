/* strobe-synth merge: sums convert's aggregated outputs (sy_merge.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sy_atomic_file.h"
#include "sy_merge.h"

static void sy_merge_usage(FILE *f)
{
	fprintf(f,
		"usage: strobe-synth merge [options] -o OUT IN...\n"
		"\n"
		"Sums the aggregated outputs of convert (perfscript, lbr or\n"
		"bolt; all of one format): equal samples (records) add their\n"
		"counts exactly, and the result comes out in one canonical\n"
		"order, so merging merges gives what one merge of all inputs\n"
		"gives, in any order.  A binary recorded with different\n"
		"build-ids in two inputs is refused.  IN \"-\" reads standard\n"
		"input.\n"
		"\n"
		"  -o, --output FILE      output (default '-': standard output);\n"
		"                         written to a temporary file and renamed\n"
		"  -q, --quiet            no summary on stderr\n"
		"  -v, --verbose          each input's samples as it is added\n"
		"  -V, --version          print the version\n"
		"  -h, --help             this help\n"
		"\n"
		"Exit status: 0 success, 1 output or internal error, 2 bad\n"
		"usage or inputs that cannot be merged (formats, build-ids),\n"
		"3 unreadable input, 4 damaged input. See strobe-synth-merge(1).\n");
}

static int sy_merge_exit(int err)
{
	switch (-err) {
	case SY_E_INVALID:
	case SY_E_BUILD_ID:
		return SY_EXIT_USAGE;
	case SY_E_IO:
		return SY_EXIT_BADFILE;
	case SY_E_NOMEM:
	case SY_E_OUTPUT:
		return SY_EXIT_FAILURE;
	default:
		return SY_EXIT_DAMAGED;
	}
}

/* Reads every input into @m; the exit status. */
static int sy_merge_inputs(struct sy_merge *m, char **in, int n,
			   int verbose)
{
	struct sy_diag d = { 0 };

	for (int i = 0; i < n; i++) {
		int stdin_ = !strcmp(in[i], "-");
		FILE *f = stdin_ ? stdin : fopen(in[i], "r");
		int err;

		if (!f) {
			sy_msg_error("%s: cannot open: %s", in[i],
				     strerror(errno));
			return SY_EXIT_BADFILE;
		}
		err = sy_merge_add(m, f, stdin_ ? "standard input" : in[i], &d);
		if (!stdin_)
			fclose(f);
		if (err) {
			sy_msg_error("%s", d.msg[0] ? d.msg : sy_errstr(err));
			return sy_merge_exit(err);
		}
		if (verbose) {
			const struct sy_merge_stats *st = sy_merge_stats(m);

			fprintf(stderr, "strobe-synth: merge: %s: added; %" PRIu64
				" samples, %" PRIu64 " distinct so far\n",
				stdin_ ? "standard input" : in[i], st->samples,
				st->distinct);
		}
	}
	return SY_EXIT_OK;
}

static int sy_merge_output(struct sy_merge *m, const char *out)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };
	int err;

	if (!strcmp(out, "-")) {
		errno = 0;
		err = sy_merge_write(m, stdout);
		if (!err && fflush(stdout))
			err = -SY_E_OUTPUT;
		if (err) {
			sy_msg_error("standard output: write: %s",
				     err == -SY_E_NOMEM ? sy_errstr(err) :
				     strerror(errno ? errno : EIO));
			return SY_EXIT_FAILURE;
		}
		return SY_EXIT_OK;
	}
	err = sy_atomic_open(&af, out, &d);
	if (!err) {
		err = sy_merge_write(m, af.f);
		if (err == -SY_E_NOMEM)
			sy_atomic_abort(&af);
		else
			err = sy_atomic_commit(&af, 0, &d);
	}
	if (err) {
		sy_msg_error("%s", d.msg[0] ? d.msg : sy_errstr(err));
		return SY_EXIT_FAILURE;
	}
	return SY_EXIT_OK;
}

int sy_cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = "-";
	struct sy_merge *m = NULL;
	int opt, quiet = 0, verbose = 0, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:qvVh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'V':
			sy_cli_version("merge");
			return SY_EXIT_OK;
		case 'h':
			sy_merge_usage(stdout);
			return SY_EXIT_OK;
		default:
			sy_merge_usage(stderr);
			return SY_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		sy_msg_error("merge: no input; see 'strobe-synth merge --help'");
		return SY_EXIT_USAGE;
	}
	if (sy_merge_new(&m)) {
		sy_msg_error("merge: %s", sy_errstr(-SY_E_NOMEM));
		return SY_EXIT_FAILURE;
	}
	ret = sy_merge_inputs(m, argv + optind, argc - optind, verbose);
	if (!ret)
		ret = sy_merge_output(m, out);
	if (!ret && !quiet) {
		const struct sy_merge_stats *st = sy_merge_stats(m);

		fprintf(stderr,
			"strobe-synth: merge: %" PRIu64 " inputs (%s), %" PRIu64
			" samples, %" PRIu64 " distinct, %" PRIu64
			" mappings\n",
			st->inputs, sy_merge_format_name(sy_merge_format(m)),
			st->samples, st->distinct, st->mmaps);
		if (st->moved)
			fprintf(stderr,
				"strobe-synth: merge: %" PRIu64 " binaries are "
				"mapped at several addresses (ASLR): their "
				"samples stay apart, each after its own MMAP2 "
				"line\n",
				st->moved);
	}
	sy_merge_free(m);
	return ret;
}
