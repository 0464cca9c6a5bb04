/* CLI glue shared by the subcommands. Only main() and the cmd_* entry points
 * turn errors into exit codes (documented in strobe-synth(1)). */
#ifndef SY_CLI_H
#define SY_CLI_H

#include "sy_error.h"

enum sy_exit {
	SY_EXIT_OK = 0,	      /* success */
	SY_EXIT_FAILURE = 1,  /* internal error, out of memory, cannot write output */
	SY_EXIT_USAGE = 2,    /* bad command line */
	SY_EXIT_BADFILE = 3,  /* input unreadable or not a perf.data file: nothing done */
	SY_EXIT_DAMAGED = 4,  /* input damaged: everything before the damage was processed */
};

int sy_cmd_dump(int argc, char **argv);

/* "strobe-synth: " + message + newline, on stderr. */
void sy_msg_error(const char *fmt, ...) SY_PRINTF(1, 2);
void sy_msg_warn(const char *fmt, ...) SY_PRINTF(1, 2);
/* "strobe-synth: FILE: offset N: msg" (or without the offset). */
void sy_msg_diag(const char *file, const struct sy_diag *d);
/* Maps a reader error to the exit code. */
int sy_exit_for(int err);

#endif
