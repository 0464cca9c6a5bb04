/* Helpers shared by the criterion unit tests.
 *
 * Tests run from the project root.  Oracles (perf, llvm-profgen-19,
 * trc_pkt_lister) and ../shared are optional on a developer machine: the
 * test skips with a message.  Under CI=true nothing may skip, so the same
 * helpers fail the test instead.
 */
#ifndef SY_TEST_H
#define SY_TEST_H

#include <stddef.h>
#include <stdint.h>

/* Directory holding the shared reference material: $STROBE_SHARED_DIR or
 * "../shared". */
const char *sy_test_shared_dir(void);

/* "<shared>/<rel>" in a static buffer (one per call site is enough). */
const char *sy_test_shared_path(const char *rel);

/* Skips (or, under CI, fails) the current test unless @path exists. */
void sy_test_require_path(const char *path);

/* Skips (or, under CI, fails) unless @tool is on PATH. */
void sy_test_require_tool(const char *tool);

/* Nonzero when CI=true. */
int sy_test_in_ci(void);

/* Creates a fresh directory under $TMPDIR and returns its path (static
 * storage, removed by sy_test_rmtree). */
const char *sy_test_mkdtemp(void);
void sy_test_rmtree(const char *dir);

/* Runs @cmd with /bin/sh, capturing stdout into a malloc'd NUL-terminated
 * buffer (*out, may be NULL) and returning the exit status (-1 if it could
 * not run or was killed). */
int sy_test_run(const char *cmd, char **out, size_t *out_len);

/* Reads a whole file into a malloc'd buffer; NULL on failure. */
uint8_t *sy_test_read_file(const char *path, size_t *len);
/* Writes a whole file; returns 0 on success. */
int sy_test_write_file(const char *path, const void *data, size_t len);

/* The first line where the NUL-terminated texts @a and @b differ, for a
 * failure message: "line N: NA "..." NB "..."" into @out (newlines shown
 * as '|'). */
void sy_test_first_diff(const char *a, const char *na, const char *b,
			const char *nb, char *out, size_t n);

/* Path of the built strobe-synth binary ($SY_BUILD/strobe-synth). */
const char *sy_test_prog(void);

#endif
