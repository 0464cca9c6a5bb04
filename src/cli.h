/* CLI glue shared by the subcommands. Only main() and the cmd_* entry points
 * turn errors into exit codes (documented in strobe-synth(1)). */
#ifndef SY_CLI_H
#define SY_CLI_H

#include <getopt.h>
#include <stddef.h>

#include "sy_error.h"
#include "sy_synth.h"

enum sy_exit {
	SY_EXIT_OK = 0,	      /* success */
	SY_EXIT_FAILURE = 1,  /* internal error, out of memory, cannot write output */
	SY_EXIT_USAGE = 2,    /* bad command line */
	SY_EXIT_BADFILE = 3,  /* input unreadable or not a perf.data file: nothing done */
	SY_EXIT_DAMAGED = 4,  /* input damaged: everything before the damage was processed */
	SY_EXIT_NODATA = 5,   /* nothing to convert: no usable trace or samples */
};

int sy_cmd_dump(int argc, char **argv);
int sy_cmd_convert(int argc, char **argv);
int sy_cmd_windows(int argc, char **argv);
int sy_cmd_merge(int argc, char **argv);

/* Long options shared by convert and windows (cli_session.c). */
enum {
	SY_OPT_DEPTH = 256,
	SY_OPT_SKID,
	SY_OPT_WINDOW,
	SY_OPT_WINDOW_UNIT,
	SY_OPT_MIN_BRANCHES,
	SY_OPT_BINARY,
	SY_OPT_SYMFS,
	SY_OPT_BUILDID_DIR,
	SY_OPT_ALLOW_MISMATCH,
	SY_OPT_PID,
	SY_OPT_COMM,
	SY_OPT_VMLINUX,
	SY_OPT_KCORE,
	SY_OPT_CMD_BASE = 512, /* command-specific options start here */
};
extern const struct option sy_session_longopts[];
extern const char sy_session_help[];

struct sy_cli_session {
	struct sy_session_opts o;
	const char **binaries;
	size_t nr_binaries;
	uint32_t *pids;		/* --pid: only these processes (none: all) */
	size_t nr_pids;
	const char *comm;	/* --comm: only processes with this comm */
};

void sy_cli_session_init(struct sy_cli_session *c);
void sy_cli_session_fini(struct sy_cli_session *c);
/* 1: @opt was a session option (applied); 0: not one; -1: bad value
 * (reported). */
int sy_cli_session_opt(struct sy_cli_session *c, int opt, const char *arg);
/* After option parsing: the input from the positional arguments from
 * @first on (default perf.data), the warning printer, the progress line
 * when stderr is a terminal.  -1: bad command line (reported). */
int sy_cli_session_finish(struct sy_cli_session *c, const char *cmd,
			  int argc, char **argv, int first);
/* Whether --pid / --comm select the window's process. */
int sy_cli_selected(const struct sy_cli_session *c, const struct sy_window *w);
/* Warning printer for sessions: @ctx is the struct sy_cli_session. */
void sy_cli_warn(void *ctx, const struct sy_diag *d);
/* Concatenates the session options and @extra (terminated) into @out
 * (room for @cap entries). */
void sy_cli_longopts(struct option *out, size_t cap,
		     const struct option *extra);

/* "strobe-synth: " + message + newline, on stderr. */
void sy_msg_error(const char *fmt, ...) SY_PRINTF(1, 2);
void sy_msg_warn(const char *fmt, ...) SY_PRINTF(1, 2);
/* "strobe-synth: FILE: offset N: msg" (or without the offset). */
void sy_msg_diag(const char *file, const struct sy_diag *d);
/* @s as a JSON string, quoted and escaped (paths come from the input). */
void sy_json_str(FILE *f, const char *s);
/* Maps a reader error to the exit code. */
int sy_exit_for(int err);

#endif
