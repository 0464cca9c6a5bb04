/* Output files that appear whole or not at all: written to a temporary
 * file beside the destination (so that the rename stays on one file
 * system) and renamed over it only when everything was written.  A failed
 * run leaves the destination as it was and no temporary file behind.
 *
 *	struct sy_atomic_file af;
 *	if (sy_atomic_open(&af, path, &diag) == 0) {
 *		fprintf(af.f, ...);
 *		err = sy_atomic_commit(&af, 0, &diag);
 *	}
 */
#ifndef SY_ATOMIC_FILE_H
#define SY_ATOMIC_FILE_H

#include <stdio.h>

#include "sy_error.h"

struct sy_atomic_file {
	FILE *f;
	char *path;		/* destination */
	char *tmp;		/* temporary file beside it */
};

/* Creates the temporary file (exclusively: never through a link left
 * there, mode 0666 less the umask as for any new file).  Returns 0,
 * -SY_E_NOMEM or -SY_E_OUTPUT with @diag naming the path and the cause. */
int sy_atomic_open(struct sy_atomic_file *af, const char *path,
		   struct sy_diag *diag);

/* Flushes, closes and renames into place.  @write_errno: the cause of an
 * earlier failed write when the caller knows it (stdio keeps only a flag),
 * else 0.  Returns 0 or -SY_E_OUTPUT (@diag set, the temporary file
 * removed).  Releases @af either way. */
int sy_atomic_commit(struct sy_atomic_file *af, int write_errno,
		     struct sy_diag *diag);

/* Gives up: closes and removes the temporary file.  Accepts an @af that
 * was never opened or was already committed (zeroed). */
void sy_atomic_abort(struct sy_atomic_file *af);

#endif
