/* Why a window is not ok, in words a user can act on.  The session's
 * reason carries the library's error number; for decode errors the CLI
 * says what the number means and, when the decoder found no code, which
 * binary of the window's process was not found and what to try. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sy_image_cache.h"

const char *sy_cli_reason(const struct sy_window *w, enum sy_trace_kind kind,
			  char *buf, size_t len)
{
	char what[128];
	const struct sy_map *m;
	int n;

	if (w->status != SY_ST_DECODE_ERROR || !w->decode_errors) {
		snprintf(buf, len, "%s", w->reason);
		return buf;
	}
	sy_dec_errstr(kind, w->first_error, what, sizeof(what));
	if (w->first_error_addr)
		n = snprintf(buf, len, "%" PRIu64 " decode %s, first: %s "
				       "(%#" PRIx64 ") at trace byte %" PRIu64,
			     w->decode_errors,
			     sy_plural(w->decode_errors, "error", "errors"),
			     what, w->first_error_addr, w->first_error_offset);
	else
		n = snprintf(buf, len, "%" PRIu64 " decode %s, first: %s at "
				       "trace byte %" PRIu64,
			     w->decode_errors,
			     sy_plural(w->decode_errors, "error", "errors"),
			     what, w->first_error_offset);
	if (n < 0 || (size_t)n >= len || !sy_dec_err_no_code(kind, w->first_error))
		return buf;
	/* the rule that counts the window in the missing list */
	m = sy_window_missing(w, kind);
	if (m && sy_image_path_fileless(m->path))
		snprintf(buf + n, len - (size_t)n,
			 " (code with no file at %s: written at run time, it "
			 "cannot be read)", m->path);
	else if (m)
		snprintf(buf + n, len - (size_t)n,
			 " (binary %s %s: use --symfs DIR, --binary PATH or "
			 "the build-id cache)",
			 m->path, m->err == -SY_E_BUILD_ID ?
					  "has another build-id" :
					  "not found");
	return buf;
}

enum sy_trace_kind sy_cli_trace_kind(const struct sy_session_summary *sum)
{
	return sum->sink == SY_SINK_PT ? SY_TRACE_PT : SY_TRACE_ETM;
}

/* Most windows first; then by path, for a stable order. */
static int sy_missing_cmp(const void *a, const void *b)
{
	const struct sy_image_missing *x = a, *y = b;

	if (x->windows != y->windows)
		return x->windows > y->windows ? -1 : 1;
	return strcmp(x->path, y->path);
}

struct sy_image_missing *sy_cli_missing(struct sy_session *s, size_t *n)
{
	struct sy_image_missing *miss = NULL;

	*n = sy_session_missing(s, NULL, 0);
	if (*n && (miss = calloc(*n, sizeof(*miss))))
		*n = sy_session_missing(s, miss, *n);
	else
		*n = 0;
	if (*n > 1)
		qsort(miss, *n, sizeof(*miss), sy_missing_cmp);
	return miss;
}

const char *sy_cli_suspect(const struct sy_window *w, int more, char *buf,
			   size_t len)
{
	const char *what = sy_suspect_name(w->suspect_kind);
	int n;

	if (!w->suspect || !len) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	if (w->suspect_kind == SY_SUS_CALLCHAIN)
		n = snprintf(buf, len, "%s (frame %#" PRIx64 ", the "
				       "open call returns to %#" PRIx64 ")",
			     what, w->suspect_from, w->suspect_to);
	else
		n = snprintf(buf, len, "%s: %#" PRIx64 " -> %#" PRIx64,
			     what, w->suspect_from, w->suspect_to);
	if (more && w->suspect > 1 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", and %u more",
			 w->suspect - 1);
	return buf;
}
