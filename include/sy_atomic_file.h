/* Output files that appear whole or not at all.
 *
 * A regular file (or a path that does not exist yet) is written to a
 * temporary file beside it, so that the rename stays on one file system,
 * and renamed over it only when everything was written: a failed run
 * leaves the destination as it was and no temporary file behind.  A
 * symbolic link to a regular file is followed: the file it names is
 * replaced and the link stays (as `sed -i --follow-symlinks` does).
 *
 * Anything else is written through, never replaced: "-" is standard
 * output, an existing path that is not a regular file (/dev/null, a FIFO,
 * a terminal) is opened and written in place, and so is a link that leads
 * through /proc (/dev/stdout -> /proc/self/fd/1), appending: it names a
 * descriptor that someone opened, not a file to replace.
 *
 *	struct sy_atomic_file af;
 *	if (sy_atomic_open(&af, path, &diag) == 0) {
 *		fprintf(af.f, ...);
 *		err = sy_atomic_commit(&af, 0, &diag);
 *	}
 *
 * Several outputs of one run are committed together by deferring the
 * renames (sy_atomic_defer_begin ... sy_atomic_defer_commit): every
 * commit in between only finishes its temporary file, and a failure
 * anywhere removes them all.  Every temporary file not yet renamed is
 * known to sy_atomic_remove_all, which a signal handler thread calls.
 */
#ifndef SY_ATOMIC_FILE_H
#define SY_ATOMIC_FILE_H

#include <stdio.h>

#include "sy_error.h"

struct sy_atomic_tmp;

struct sy_atomic_file {
	FILE *f;
	char *path;		/* the destination as named */
	char *tmp;		/* temporary file beside it; NULL when the
				 * output is written through */
	struct sy_atomic_tmp *reg; /* its entry in the list of temporaries */
};

/* Opens @path for writing as described above ("-": standard output).
 * The temporary file is created exclusively (never through a link left
 * there) with mode 0666 less the umask, as for any new file.  Returns 0,
 * -SY_E_NOMEM or -SY_E_OUTPUT with @diag naming the path and the cause
 * (a directory, a link to nothing, a directory that cannot be written). */
int sy_atomic_open(struct sy_atomic_file *af, const char *path,
		   struct sy_diag *diag);

/* Whether @af writes through (standard output or a non-regular file). */
int sy_atomic_is_through(const struct sy_atomic_file *af);

/* Flushes, closes and renames into place (or, between defer_begin and
 * defer_commit, leaves the finished temporary file for defer_commit).
 * @write_errno: the cause of an earlier failed write when the caller
 * knows it (stdio keeps only a flag), else 0.  Returns 0 or -SY_E_OUTPUT
 * (@diag set, the temporary file removed).  Releases @af either way;
 * standard output is flushed, never closed. */
int sy_atomic_commit(struct sy_atomic_file *af, int write_errno,
		     struct sy_diag *diag);

/* Gives up: closes and removes the temporary file.  Accepts an @af that
 * was never opened or was already committed (zeroed). */
void sy_atomic_abort(struct sy_atomic_file *af);

/* Commits from now on keep their finished temporary files until
 * sy_atomic_defer_commit renames them all (in commit order) or
 * sy_atomic_defer_abort removes them all.  Not nested. */
void sy_atomic_defer_begin(void);
/* Renames every deferred file into place.  Returns 0 or -SY_E_OUTPUT with
 * @diag set; on failure the files not yet renamed are removed. */
int sy_atomic_defer_commit(struct sy_diag *diag);
void sy_atomic_defer_abort(void);

/* Removes every temporary file not yet renamed, and keeps any from being
 * renamed or created afterwards: for a thread that handles SIGINT,
 * SIGTERM or SIGHUP just before the process dies. */
void sy_atomic_remove_all(void);

#endif
