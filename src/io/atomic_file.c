/* Output written whole or not at all; see sy_atomic_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sy_atomic_file.h"

static void sy_atomic_release(struct sy_atomic_file *af)
{
	free(af->path);
	free(af->tmp);
	memset(af, 0, sizeof(*af));
}

int sy_atomic_open(struct sy_atomic_file *af, const char *path,
		   struct sy_diag *diag)
{
	size_t n = strlen(path) + 48;
	int fd = -1, e = 0;

	memset(af, 0, sizeof(*af));
	af->path = strdup(path);
	af->tmp = malloc(n);
	if (!af->path || !af->tmp) {
		sy_atomic_release(af);
		return -SY_E_NOMEM;
	}
	/* O_EXCL rather than mkstemp: the same safety, and the file gets
	 * the permissions the umask gives a new file, not 0600 */
	for (unsigned i = 0; i < 100 && fd < 0; i++) {
		snprintf(af->tmp, n, "%s.tmp-%ld-%u", path, (long)getpid(), i);
		fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  0666);
		e = errno;
		if (fd < 0 && e != EEXIST)
			break;
	}
	if (fd >= 0 && !(af->f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		unlink(af->tmp);
		fd = -1;
	}
	if (fd < 0) {
		sy_atomic_release(af);
		return sy_diag_set_nooff(diag, -SY_E_OUTPUT,
					 "%s: cannot create output: %s", path,
					 strerror(e));
	}
	return 0;
}

int sy_atomic_commit(struct sy_atomic_file *af, int write_errno,
		     struct sy_diag *diag)
{
	int err = 0;

	errno = 0;
	if (fflush(af->f) || ferror(af->f) || write_errno)
		err = sy_diag_set_nooff(diag, -SY_E_OUTPUT, "%s: write: %s",
					af->path,
					strerror(write_errno ? write_errno :
						 errno ? errno : EIO));
	if (fclose(af->f) && !err)
		err = sy_diag_set_nooff(diag, -SY_E_OUTPUT, "%s: write: %s",
					af->path, strerror(errno));
	af->f = NULL;
	if (!err && rename(af->tmp, af->path))
		err = sy_diag_set_nooff(diag, -SY_E_OUTPUT,
					"%s: cannot rename into place: %s",
					af->path, strerror(errno));
	if (err)
		unlink(af->tmp);
	sy_atomic_release(af);
	return err;
}

void sy_atomic_abort(struct sy_atomic_file *af)
{
	if (!af)
		return;
	if (af->f) {
		fclose(af->f);
		unlink(af->tmp);
	}
	sy_atomic_release(af);
}
