/* nftw and mkdtemp */
#define _XOPEN_SOURCE 700

#include "sy_test.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *sy_test_shared_dir(void)
{
	const char *d = getenv("STROBE_SHARED_DIR");

	return (d && *d) ? d : "../shared";
}

const char *sy_test_shared_path(const char *rel)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", sy_test_shared_dir(), rel);
	return buf;
}

int sy_test_in_ci(void)
{
	const char *ci = getenv("CI");

	return ci && strcmp(ci, "true") == 0;
}

void sy_test_require_path(const char *path)
{
	if (access(path, R_OK) == 0)
		return;
	if (sy_test_in_ci())
		cr_assert_fail("%s not found (CI=true: nothing may skip)", path);
	cr_skip_test("%s not found; skipping", path);
}

void sy_test_require_tool(const char *tool)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1", tool);
	if (system(cmd) == 0)
		return;
	if (sy_test_in_ci())
		cr_assert_fail("oracle '%s' not on PATH (CI=true: nothing may skip)",
			 tool);
	cr_skip_test("oracle '%s' not on PATH; skipping", tool);
}

const char *sy_test_mkdtemp(void)
{
	static char dir[4096];
	const char *t = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/sy-test-XXXXXX", (t && *t) ? t : "/tmp");
	if (!mkdtemp(dir))
		cr_assert_fail("mkdtemp: %s", strerror(errno));
	return dir;
}

static int sy_test_rm_cb(const char *p, const struct stat *st, int flag,
			 struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void sy_test_rmtree(const char *dir)
{
	if (dir && *dir)
		nftw(dir, sy_test_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

int sy_test_run(const char *cmd, char **out, size_t *out_len)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int st;

	if (!p)
		return -1;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 131072;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				pclose(p);
				return -1;
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, p);
		if (n == 0)
			break;
		len += n;
	}
	if (buf)
		buf[len] = 0;
	st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	if (out_len)
		*out_len = len;
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

uint8_t *sy_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	*len = n;
	return buf;
}

int sy_test_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	if (len && fwrite(data, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

const char *sy_test_prog(void)
{
	static char buf[4096];
	const char *b = getenv("SY_BUILD");

	snprintf(buf, sizeof(buf), "%s/strobe-synth", (b && *b) ? b : "build");
	return buf;
}

void sy_test_first_diff(const char *a, const char *na, const char *b,
			const char *nb, char *out, size_t n)
{
	size_t line = 1, i = 0, start = 0;

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	snprintf(out, n, "line %zu: %s \"%.150s\" %s \"%.150s\"", line, na,
		 a + start, nb, b + start);
	for (char *c = out; *c; c++)
		if (*c == '\n')
			*c = '|';
}
