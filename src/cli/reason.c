/* Why a window is not ok, in words a user can act on.  The session's
 * reason carries the library's error number; for decode errors the CLI
 * says what the number means and, when the decoder found no code, which
 * binary of the window's process was not found and what to try. */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"

/* The mapping with code but no binary that the window needed: the one at
 * the address the decoder could not read, else (unknown) the one at its
 * resume (or first traced) address, else the first such mapping of its
 * process. */
static const struct sy_map *sy_missing_map(const struct sy_window *w)
{
	const struct sy_aspace *as;
	const struct sy_map *m;
	uint64_t at = w->first_error_addr ? w->first_error_addr :
		      w->start_addr	   ? w->start_addr :
					     w->resume_ip;

	if (!w->snap)
		return NULL;
	m = sy_proc_snap_find(w->snap, w->pid, at);
	if (m && !m->img && m->path)
		return m;
	as = sy_proc_snap_aspace(w->snap, w->pid);
	for (size_t i = 0; as && i < sy_aspace_nr_maps(as); i++) {
		m = sy_aspace_map(as, i);
		if (!m->img && m->path && (m->prot & SY_PROT_EXEC) &&
		    !(m->flags & SY_MAP_KERNEL) && !sy_image_path_special(m->path))
			return m;
	}
	return NULL;
}

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
	m = sy_missing_map(w);
	if (m)
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
