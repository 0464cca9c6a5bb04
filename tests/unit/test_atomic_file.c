/* Atomic output files (src/out/atomic_file.c): the destination appears
 * whole on commit, stays as it was on abort or failure, and no temporary
 * file is ever left beside it. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sy_atomic_file.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/sy-atomic-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* Entries of the directory other than . and .. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s missing", path);
	n = fread(buf, 1, cap - 1, f);
	buf[n] = 0;
	fclose(f);
}

TestSuite(atomic_file, .init = setup, .fini = teardown);

Test(atomic_file, commit_replaces_the_destination_whole)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };
	char path[128], buf[64];
	struct stat st;
	mode_t mask = umask(022);

	snprintf(path, sizeof(path), "%s/out", dir);
	FILE *old = fopen(path, "w");
	fputs("old\n", old);
	fclose(old);
	cr_assert_eq(sy_atomic_open(&af, path, &d), 0, "%s", d.msg);
	fputs("new\n", af.f);
	/* until the commit, readers still see the old file */
	slurp(path, buf, sizeof(buf));
	cr_assert_str_eq(buf, "old\n");
	cr_assert_eq(entries(), 2);
	cr_assert_eq(sy_atomic_commit(&af, 0, &d), 0, "%s", d.msg);
	slurp(path, buf, sizeof(buf));
	cr_assert_str_eq(buf, "new\n");
	cr_assert_eq(entries(), 1);
	/* a new file's permissions, not mkstemp's 0600 */
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644);
	umask(mask);
}

Test(atomic_file, abort_leaves_nothing)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };
	char path[128];

	snprintf(path, sizeof(path), "%s/out", dir);
	cr_assert_eq(sy_atomic_open(&af, path, &d), 0);
	fputs("half", af.f);
	sy_atomic_abort(&af);
	cr_assert_eq(entries(), 0);
	sy_atomic_abort(&af); /* released: a second abort is harmless */
}

Test(atomic_file, a_known_write_error_fails_the_commit)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };
	char path[128];

	snprintf(path, sizeof(path), "%s/out", dir);
	cr_assert_eq(sy_atomic_open(&af, path, &d), 0);
	fputs("x", af.f);
	cr_assert_eq(sy_atomic_commit(&af, ENOSPC, &d),
		     -SY_E_OUTPUT);
	cr_assert(strstr(d.msg, path) && strstr(d.msg, "No space"), "%s",
		  d.msg);
	cr_assert_eq(entries(), 0);
}

Test(atomic_file, an_impossible_destination_is_named)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };
	char path[128];

	snprintf(path, sizeof(path), "%s/no/such/dir/out", dir);
	cr_assert_eq(sy_atomic_open(&af, path, &d), -SY_E_OUTPUT);
	cr_assert(strstr(d.msg, path) != NULL, "%s", d.msg);
	cr_assert_null(af.f);
	sy_atomic_abort(&af);
}

/* Another writer's leftover (or a planted link) at the first temporary
 * name is never opened: the next name is used. */
Test(atomic_file, an_existing_temporary_name_is_skipped)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };
	char path[128], planted[192], buf[64];

	snprintf(path, sizeof(path), "%s/out", dir);
	snprintf(planted, sizeof(planted), "%s.tmp-%ld-0", path,
		 (long)getpid());
	FILE *f = fopen(planted, "w");
	fputs("planted\n", f);
	fclose(f);
	cr_assert_eq(sy_atomic_open(&af, path, &d), 0, "%s", d.msg);
	cr_assert_str_neq(af.tmp, planted);
	fputs("mine\n", af.f);
	cr_assert_eq(sy_atomic_commit(&af, 0, &d), 0);
	slurp(planted, buf, sizeof(buf));
	cr_assert_str_eq(buf, "planted\n");
	slurp(path, buf, sizeof(buf));
	cr_assert_str_eq(buf, "mine\n");
}

/* A path that exists and is not a regular file is written through and
 * never replaced: here a FIFO with a reader, and a character device the
 * test makes in its own directory when mknod is permitted. */
Test(atomic_file, a_fifo_is_written_through)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };
	char path[128], buf[64];
	struct stat st;
	FILE *r;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	/* the reader end first, so that the writer's open does not wait */
	int rfd = open(path, O_RDONLY | O_NONBLOCK);
	cr_assert_geq(rfd, 0);
	cr_assert_eq(sy_atomic_open(&af, path, &d), 0, "%s", d.msg);
	cr_assert(sy_atomic_is_through(&af));
	cr_assert_null(af.tmp);
	fputs("through\n", af.f);
	cr_assert_eq(sy_atomic_commit(&af, 0, &d), 0, "%s", d.msg);
	r = fdopen(rfd, "r");
	cr_assert_not_null(fgets(buf, sizeof(buf), r));
	cr_assert_str_eq(buf, "through\n");
	fclose(r);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
	cr_assert_eq(entries(), 1);
}

Test(atomic_file, a_device_stays_a_device)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/null", dir);
	if (mknod(path, S_IFCHR | 0666, makedev(1, 3)))
		cr_skip_test("mknod not permitted here (%s); the FIFO test "
			     "covers writing through", strerror(errno));
	cr_assert_eq(sy_atomic_open(&af, path, &d), 0, "%s", d.msg);
	fputs("gone\n", af.f);
	cr_assert_eq(sy_atomic_commit(&af, 0, &d), 0, "%s", d.msg);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert(S_ISCHR(st.st_mode), "the device was replaced by a file");
	cr_assert_eq(entries(), 1);
}

Test(atomic_file, dash_is_standard_output)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };

	cr_assert_eq(sy_atomic_open(&af, "-", &d), 0);
	cr_assert_eq(af.f, stdout);
	cr_assert_eq(sy_atomic_commit(&af, 0, &d), 0);
	cr_assert_eq(entries(), 0);
	cr_assert_neq(fileno(stdout), -1, "stdout was closed");
}

/* A link to a regular file: the file is replaced, the link stays. */
Test(atomic_file, a_link_keeps_pointing_at_the_new_file)
{
	struct sy_atomic_file af;
	struct sy_diag d = { 0 };
	char target[128], link[128], buf[64];
	struct stat st;

	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	FILE *f = fopen(target, "w");
	fputs("old\n", f);
	fclose(f);
	cr_assert_eq(symlink("target", link), 0);
	cr_assert_eq(sy_atomic_open(&af, link, &d), 0, "%s", d.msg);
	fputs("new\n", af.f);
	cr_assert_eq(sy_atomic_commit(&af, 0, &d), 0, "%s", d.msg);
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
	slurp(target, buf, sizeof(buf));
	cr_assert_str_eq(buf, "new\n");
	cr_assert_eq(entries(), 2);
}

/* Two outputs written and committed while renames are deferred. */
static void write_deferred(const char *pa, const char *pb)
{
	struct sy_atomic_file a, b;
	struct sy_diag d = { 0 };

	sy_atomic_defer_begin();
	cr_assert_eq(sy_atomic_open(&a, pa, &d), 0);
	fputs("new a\n", a.f);
	cr_assert_eq(sy_atomic_commit(&a, 0, &d), 0);
	cr_assert_eq(sy_atomic_open(&b, pb, &d), 0);
	fputs("new b\n", b.f);
	cr_assert_eq(sy_atomic_commit(&b, 0, &d), 0);
}

/* Deferred commits: nothing appears until defer_commit; an abort removes
 * every finished temporary file and leaves the old files as they were. */
Test(atomic_file, deferred_outputs_appear_together_or_not_at_all)
{
	struct sy_diag d = { 0 };
	char pa[128], pb[128], buf[64];

	snprintf(pa, sizeof(pa), "%s/a", dir);
	snprintf(pb, sizeof(pb), "%s/b", dir);
	FILE *f = fopen(pa, "w");
	fputs("old\n", f);
	fclose(f);
	write_deferred(pa, pb);
	slurp(pa, buf, sizeof(buf));
	cr_assert_str_eq(buf, "old\n", "renamed before defer_commit");
	cr_assert_eq(entries(), 3);	/* a and two temporaries */
	sy_atomic_defer_abort();
	cr_assert_eq(entries(), 1);
	slurp(pa, buf, sizeof(buf));
	cr_assert_str_eq(buf, "old\n");

	write_deferred(pa, pb);
	cr_assert_eq(sy_atomic_defer_commit(&d), 0, "%s", d.msg);
	slurp(pa, buf, sizeof(buf));
	cr_assert_str_eq(buf, "new a\n");
	slurp(pb, buf, sizeof(buf));
	cr_assert_str_eq(buf, "new b\n");
	cr_assert_eq(entries(), 2);
}

/* What the signal thread calls: every temporary file goes, written or
 * finished, and nothing is renamed afterwards. */
Test(atomic_file, remove_all_leaves_no_temporary_file)
{
	struct sy_atomic_file a, b;
	struct sy_diag d = { 0 };
	char pa[128], pb[128];

	snprintf(pa, sizeof(pa), "%s/a", dir);
	snprintf(pb, sizeof(pb), "%s/b", dir);
	sy_atomic_defer_begin();
	cr_assert_eq(sy_atomic_open(&a, pa, &d), 0);
	fputs("finished\n", a.f);
	cr_assert_eq(sy_atomic_commit(&a, 0, &d), 0);
	cr_assert_eq(sy_atomic_open(&b, pb, &d), 0);
	fputs("half", b.f);
	fflush(b.f);
	cr_assert_eq(entries(), 2);
	sy_atomic_remove_all();
	cr_assert_eq(entries(), 0);
	cr_assert_neq(sy_atomic_defer_commit(&d), 0);
	cr_assert_eq(entries(), 0, "renamed after remove_all");
	sy_atomic_abort(&b);
	cr_assert_eq(entries(), 0);
}
