/* The binaries a window needed and did not have (missing.h). */
#include "missing.h"

/* The mapping at @addr in @id's address space (then the kernel's) when it
 * is code no binary was found for. */
static const struct sy_map *sy_missing_at(const struct sy_proc_snap *snap,
					  uint32_t id, uint64_t addr)
{
	const struct sy_map *m = sy_proc_snap_find(snap, id, addr);

	return m && !m->img && m->path && (m->flags & SY_MAP_CODE) ? m : NULL;
}

/* The decoder says where code was missing; without that address (an
 * older error), the window's first traced (or resume) address tells,
 * when it lies in such a mapping.  Nothing is guessed beyond that: a
 * binary named here is counted as needed (missing.h). */
static const struct sy_map *sy_first_missing(const struct sy_proc_snap *snap,
					     const struct sy_window *w,
					     enum sy_trace_kind kind)
{
	uint64_t at = w->first_error_addr ? w->first_error_addr :
		      w->start_addr	   ? w->start_addr :
					     w->resume_ip;

	if (!snap || !w->decode_errors ||
	    !sy_dec_err_no_code(kind, w->first_error) || !at)
		return NULL;
	return sy_missing_at(snap, w->pid, at);
}

const struct sy_map *sy_window_missing(const struct sy_window *w,
				       enum sy_trace_kind kind)
{
	return sy_first_missing(w->snap, w, kind);
}

void sy_win_charge_missing(const struct sy_synth_config *cfg,
			   const struct sy_win *w)
{
	/* a window's stretches are few: a short list, not a set */
	const char *seen[16];
	size_t n = 0;
	const struct sy_map *m;

	if (!cfg->images || !w->pub.decode_errors)
		return;
	/* pub.snap is set when the window is handed out: w->snap now */
	if ((m = sy_first_missing(w->snap, &w->pub, cfg->kind)))
		seen[n++] = m->path;
	for (size_t i = 0; i < w->nr_st && n < 16; i++) {
		const struct sy_stretch *st = &w->st[i];
		size_t k = 0;

		if (!st->errors || !st->first_error_addr ||
		    !sy_dec_err_no_code(cfg->kind, st->first_error) ||
		    !(m = sy_missing_at(w->snap, w->pub.pid,
					st->first_error_addr)))
			continue;
		while (k < n && seen[k] != m->path) /* paths are interned */
			k++;
		if (k == n)
			seen[n++] = m->path;
	}
	for (size_t i = 0; i < n; i++)
		sy_image_cache_charge(cfg->images, seen[i]);
}
