/* Output written whole or not at all; see sy_atomic_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sy_atomic_file.h"

/* One temporary file not yet renamed.  The list is process-wide because a
 * signal can end the process at any moment: whoever handles it must find
 * every temporary file, whichever writer opened it. */
struct sy_atomic_tmp {
	char *tmp;
	char *dest;		/* the rename target (a link's target) */
	char *path;		/* the destination as named, for messages */
	int pending;		/* finished, waiting for defer_commit */
	struct sy_atomic_tmp *next;
};

static pthread_mutex_t sy_tmp_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sy_atomic_tmp *sy_tmps;
static int sy_deferring;
static int sy_dying;		/* remove_all ran: create and rename nothing */

static void sy_tmp_free(struct sy_atomic_tmp *t)
{
	if (!t)
		return;
	free(t->tmp);
	free(t->dest);
	free(t->path);
	free(t);
}

/* Unlinks @t from the list (lock held). */
static void sy_tmp_unlist(struct sy_atomic_tmp *t)
{
	for (struct sy_atomic_tmp **p = &sy_tmps; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			return;
		}
}

/* Removes the file and forgets it. */
static void sy_tmp_drop(struct sy_atomic_tmp *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&sy_tmp_lock);
	unlink(t->tmp);
	sy_tmp_unlist(t);
	pthread_mutex_unlock(&sy_tmp_lock);
	sy_tmp_free(t);
}

static void sy_atomic_release(struct sy_atomic_file *af)
{
	free(af->path);
	memset(af, 0, sizeof(*af));
}

/* Where the rename goes: @path itself, or the regular file a symbolic link
 * names.  NULL with errno set when @path cannot be replaced. */
static char *sy_atomic_dest(const char *path, const struct stat *lst)
{
	if (!S_ISLNK(lst->st_mode))
		return strdup(path);
	return realpath(path, NULL);
}

/* Creates the temporary file beside @t->dest and lists it.  O_EXCL rather
 * than mkstemp: the same safety, and the file gets the permissions the
 * umask gives a new file, not 0600.  Returns the descriptor or -errno. */
static int sy_tmp_create(struct sy_atomic_tmp *t)
{
	size_t n = strlen(t->dest) + 48;
	int fd = -1, e = EEXIST;

	t->tmp = malloc(n);
	if (!t->tmp)
		return -ENOMEM;
	pthread_mutex_lock(&sy_tmp_lock);
	for (unsigned i = 0; i < 100 && fd < 0 && e == EEXIST; i++) {
		snprintf(t->tmp, n, "%s.tmp-%ld-%u", t->dest, (long)getpid(),
			 i);
		fd = sy_dying ? -1 :
				open(t->tmp,
				     O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				     0666);
		e = sy_dying ? EINTR : errno;
	}
	if (fd >= 0) {
		t->next = sy_tmps;
		sy_tmps = t;
	}
	pthread_mutex_unlock(&sy_tmp_lock);
	return fd >= 0 ? fd : -e;
}

/* An existing non-regular file (device, FIFO, terminal): written in place,
 * never replaced.  Returns 0 or -errno. */
static int sy_atomic_open_through(struct sy_atomic_file *af, const char *path)
{
	/* O_APPEND: through /proc/self/fd a regular file opened with >>
	 * keeps what it had; devices and FIFOs ignore it */
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	af->f = fdopen(fd, "w");
	if (!af->f) {
		int e = errno;

		close(fd);
		return -e;
	}
	return 0;
}

static int sy_atomic_open_tmp(struct sy_atomic_file *af, const char *path,
			      const struct stat *lst)
{
	struct sy_atomic_tmp *t = calloc(1, sizeof(*t));
	int fd;

	if (!t)
		return -ENOMEM;
	t->path = strdup(path);
	t->dest = sy_atomic_dest(path, lst);
	if (!t->path || !t->dest) {
		int e = t->path && !t->dest && errno ? errno : ENOMEM;

		sy_tmp_free(t);
		return -e;
	}
	fd = sy_tmp_create(t);
	if (fd < 0) {
		sy_tmp_free(t);
		return fd;
	}
	af->reg = t;
	af->tmp = t->tmp;
	af->f = fdopen(fd, "w");
	if (!af->f) {
		int e = errno;

		close(fd);
		sy_tmp_drop(t);
		af->reg = NULL;
		af->tmp = NULL;
		return -e;
	}
	return 0;
}

/* Whether @path is a link that leads through /proc (/dev/stdout is a link
 * to /proc/self/fd/1): an open descriptor of this process or another,
 * which is written where it points (appending, as the shell opened it),
 * never replaced by a rename. */
static int sy_atomic_via_proc(const char *path)
{
	char cur[4096], next[4096];
	ssize_t n;

	snprintf(cur, sizeof(cur), "%s", path);
	for (int hops = 0; hops < 40; hops++) {
		n = readlink(cur, next, sizeof(next) - 1);
		if (n <= 0)
			return 0;
		next[n] = 0;
		if (!strncmp(next, "/proc/", 6))
			return 1;
		if (next[0] == '/') {
			memcpy(cur, next, (size_t)n + 1);
		} else {
			/* relative to the link's directory */
			char *slash = strrchr(cur, '/');
			size_t dir = slash ? (size_t)(slash - cur) + 1 : 0;

			if (dir + (size_t)n + 1 > sizeof(cur))
				return 0;
			memcpy(cur + dir, next, (size_t)n + 1);
		}
	}
	return 0;
}

int sy_atomic_open(struct sy_atomic_file *af, const char *path,
		   struct sy_diag *diag)
{
	struct stat st, lst;
	int e;

	memset(af, 0, sizeof(*af));
	af->path = strdup(path);
	if (!af->path)
		return -SY_E_NOMEM;
	if (!strcmp(path, "-")) {
		af->f = stdout;
		return 0;
	}
	if (lstat(path, &lst)) {
		memset(&lst, 0, sizeof(lst));
		lst.st_mode = S_IFREG;	/* a new file */
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		e = S_ISDIR(st.st_mode) ? -EISDIR :
					  sy_atomic_open_through(af, path);
	else if (S_ISLNK(lst.st_mode) && sy_atomic_via_proc(path))
		e = sy_atomic_open_through(af, path);
	else if (S_ISLNK(lst.st_mode) && stat(path, &st))
		e = -ENOENT;	/* a link to nothing: no file to replace */
	else
		e = sy_atomic_open_tmp(af, path, &lst);
	if (!e)
		return 0;
	sy_atomic_release(af);
	if (e == -ENOMEM)
		return -SY_E_NOMEM;
	return sy_diag_set_nooff(diag, -SY_E_OUTPUT,
				 "%s: cannot create output: %s", path,
				 strerror(-e));
}

int sy_atomic_is_through(const struct sy_atomic_file *af)
{
	return af->f && !af->reg;
}

/* Renames @t into place (lock held).  Returns 0 or errno. */
static int sy_tmp_rename(struct sy_atomic_tmp *t)
{
	int e = 0;

	if (sy_dying)
		e = EINTR;
	else if (rename(t->tmp, t->dest))
		e = errno;
	else
		sy_tmp_unlist(t);
	return e;
}

/* Flushes and closes; the first failure's cause. */
static int sy_atomic_finish(struct sy_atomic_file *af, int write_errno)
{
	int e = write_errno;

	errno = 0;
	if ((fflush(af->f) || ferror(af->f)) && !e)
		e = errno ? errno : EIO;
	if (af->f != stdout && fclose(af->f) && !e)
		e = errno ? errno : EIO;
	af->f = NULL;
	return e;
}

int sy_atomic_commit(struct sy_atomic_file *af, int write_errno,
		     struct sy_diag *diag)
{
	struct sy_atomic_tmp *t = af->reg;
	int e = sy_atomic_finish(af, write_errno), err = 0;

	if (e) {
		err = sy_diag_set_nooff(diag, -SY_E_OUTPUT, "%s: write: %s",
					af->path, strerror(e));
		sy_tmp_drop(t);
	} else if (t) {
		pthread_mutex_lock(&sy_tmp_lock);
		if (sy_deferring) {
			t->pending = 1;
			t = NULL; /* defer_commit renames and frees it */
		} else {
			e = sy_tmp_rename(t);
		}
		pthread_mutex_unlock(&sy_tmp_lock);
		if (e) {
			err = sy_diag_set_nooff(diag, -SY_E_OUTPUT,
						"%s: cannot rename into place: "
						"%s", af->path, strerror(e));
			sy_tmp_drop(t);
		} else {
			sy_tmp_free(t);
		}
	}
	sy_atomic_release(af);
	return err;
}

void sy_atomic_abort(struct sy_atomic_file *af)
{
	if (!af)
		return;
	if (af->f && af->f != stdout)
		fclose(af->f);
	else if (af->f)
		fflush(stdout);
	sy_tmp_drop(af->reg);
	sy_atomic_release(af);
}

void sy_atomic_defer_begin(void)
{
	pthread_mutex_lock(&sy_tmp_lock);
	sy_deferring = 1;
	pthread_mutex_unlock(&sy_tmp_lock);
}

/* The oldest pending entry (lock held): the list is newest first. */
static struct sy_atomic_tmp *sy_oldest_pending(void)
{
	struct sy_atomic_tmp *found = NULL;

	for (struct sy_atomic_tmp *t = sy_tmps; t; t = t->next)
		if (t->pending)
			found = t;
	return found;
}

int sy_atomic_defer_commit(struct sy_diag *diag)
{
	struct sy_atomic_tmp *t;
	int err = 0;

	pthread_mutex_lock(&sy_tmp_lock);
	sy_deferring = 0;
	while (!err && (t = sy_oldest_pending())) {
		int e = sy_tmp_rename(t);

		if (e) {
			err = sy_diag_set_nooff(diag, -SY_E_OUTPUT,
						"%s: cannot rename into place: "
						"%s", t->path, strerror(e));
			break;
		}
		sy_tmp_free(t);
	}
	pthread_mutex_unlock(&sy_tmp_lock);
	if (err)
		sy_atomic_defer_abort();
	return err;
}

void sy_atomic_defer_abort(void)
{
	struct sy_atomic_tmp *t;

	pthread_mutex_lock(&sy_tmp_lock);
	sy_deferring = 0;
	while ((t = sy_oldest_pending())) {
		unlink(t->tmp);
		sy_tmp_unlist(t);
		sy_tmp_free(t);
	}
	pthread_mutex_unlock(&sy_tmp_lock);
}

void sy_atomic_remove_all(void)
{
	/* only unlink: the process is about to die, and the writers may
	 * still hold their entries */
	pthread_mutex_lock(&sy_tmp_lock);
	sy_dying = 1;
	for (struct sy_atomic_tmp *t = sy_tmps; t; t = t->next)
		unlink(t->tmp);
	pthread_mutex_unlock(&sy_tmp_lock);
}
