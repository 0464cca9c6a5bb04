/* Atomic output files (src/io/atomic_file.c): the destination appears
 * whole on commit, stays as it was on abort or failure, and no temporary
 * file is ever left beside it. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
