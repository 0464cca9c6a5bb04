/* strobe-synth: git-style subcommand dispatch. */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct sy_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} sy_cmds[] = {
	{ "convert", sy_cmd_convert,
	  "turn trace windows into llvm-profgen input" },
	{ "dump", sy_cmd_dump, "print the header and records of a perf.data file" },
	{ "merge", sy_cmd_merge, "sum aggregated outputs of many recordings" },
	{ "windows", sy_cmd_windows,
	  "list trace windows, their statuses and length statistics" },
};

static void sy_usage(FILE *f)
{
	fprintf(f,
		"usage: strobe-synth [--version] [--help] <command> [<args>]\n"
		"\n"
		"Turns hardware-trace windows (ETM/ETE, Intel PT) recorded with AUX\n"
		"pause/resume into llvm-profgen hybrid samples.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof(sy_cmds) / sizeof(sy_cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", sy_cmds[i].name, sy_cmds[i].summary);
	fprintf(f, "\n'strobe-synth <command> --help' describes a command; "
		   "see strobe-synth(1).\n");
}

static int sy_dispatch(int argc, char **argv)
{
	if (argc < 2) {
		sy_usage(stderr);
		return SY_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		sy_usage(stdout);
		return SY_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("strobe-synth %s\n", SY_VERSION);
		return SY_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(sy_cmds) / sizeof(sy_cmds[0]); i++)
		if (!strcmp(argv[1], sy_cmds[i].name))
			return sy_cmds[i].run(argc - 1, argv + 1);
	sy_msg_error("'%s' is not a command; see 'strobe-synth --help'",
		     argv[1]);
	return SY_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int ret;

	/* Windows are allocated on the decoding threads and freed on the
	 * walk's: with glibc's default 128 KiB trim threshold a worker's
	 * arena was trimmed (madvise) and faulted back in thousands of times
	 * a second, 5-10% of -j2's time on dense ETE trace.  What is held
	 * stays bounded (sy_synth.h), so keeping freed memory costs nothing
	 * past the peak. */
#ifdef M_TRIM_THRESHOLD
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
	/* Setting the trim threshold also fixes glibc's mmap threshold at
	 * 128 KiB (no longer raised to what was freed): every larger block
	 * (a job's stretches, hundreds of KiB on dense PT) was mmapped,
	 * faulted in page by page and unmapped, job after job: half of
	 * convert's page faults on PT and 5-13% of -j1's time (issue 25).
	 * Blocks up to 4 MiB now come from the arenas and are reused. */
#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
	/* before any thread exists: the decoding threads inherit the mask */
	if (sy_cli_signals_start()) {
		sy_msg_error("cannot set up signal handling");
		return SY_EXIT_FAILURE;
	}
	ret = sy_dispatch(argc, argv);
	sy_cli_signals_stop();
	return ret;
}
