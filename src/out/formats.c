/* convert's output formats (sy_formats.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sy_formats.h"
#include "sy_atomic_file.h"
#include "bolt.h"
#include "perf_data.h"
#include "sy_profgen.h"

static const struct {
	const char *name;
	enum sy_conv_format fmt;
} sy_conv_formats[] = {
	{ "perfscript", SY_CONV_PERFSCRIPT },
	{ "lbr", SY_CONV_LBR },
	{ "bolt", SY_CONV_BOLT },
	{ "perf-data", SY_CONV_PERF_DATA },
};

const char sy_conv_format_names[] = "perfscript, lbr, bolt or perf-data";

int sy_conv_format_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(sy_conv_formats) / sizeof(sy_conv_formats[0]);
	     i++)
		if (!strcmp(name, sy_conv_formats[i].name))
			return (int)sy_conv_formats[i].fmt;
	return -1;
}

int sy_conv_format_hybrid(enum sy_conv_format fmt)
{
	return fmt == SY_CONV_PERFSCRIPT;
}

struct sy_conv_out {
	enum sy_conv_format fmt;
	const char *path;
	const char *binary_filter;
	/* perfscript, lbr */
	struct sy_profgen *pg;
	struct sy_agg *agg;
	/* bolt */
	struct sy_bolt *bolt;
	int bolt_dir;		/* @path is a directory: a file per binary */
	size_t bolt_seen;	/* binaries looked at for the selection */
	size_t bolt_nsel;	/* of those, selected by --binary-filter */
	/* perf-data */
	struct sy_pdo *pdo;
	/* perfscript, lbr: the mappings whose MMAP2 lines were written, in
	 * the process and snapshot of the last sample */
	uint64_t seen_snap;	/* sy_proc_snap_serial */
	uint32_t seen_pid;
	const struct sy_map *seen[4];
	unsigned seen_next;
};

int sy_conv_out_open(struct sy_conv_out **out, enum sy_conv_format fmt,
		     const char *path, struct sy_session *s,
		     const char *binary_filter, struct sy_diag *diag)
{
	struct sy_conv_out *o = calloc(1, sizeof(*o));
	struct stat st;
	int err = 0;

	if (!o)
		return -SY_E_NOMEM;
	o->fmt = fmt;
	o->path = path;
	o->binary_filter = binary_filter;
	switch (fmt) {
	case SY_CONV_PERFSCRIPT:
	case SY_CONV_LBR:
		err = sy_profgen_open(&o->pg, path,
				      fmt == SY_CONV_LBR ? SY_PROFGEN_LBR :
							   SY_PROFGEN_HYBRID,
				      diag);
		if (!err)
			err = sy_agg_new(&o->agg, o->pg, 0);
		break;
	case SY_CONV_BOLT:
		/* files are made at the end, when the binaries are known */
		o->bolt_dir = strcmp(path, "-") && !stat(path, &st) &&
			      S_ISDIR(st.st_mode);
		err = sy_bolt_new(&o->bolt);
		break;
	case SY_CONV_PERF_DATA:
		err = sy_pdo_open(&o->pdo, path,
				  s ? sy_session_reader(s) : NULL, diag);
		break;
	}
	if (err) {
		sy_conv_out_abort(o);
		return err;
	}
	*out = o;
	return 0;
}

void sy_conv_out_abort(struct sy_conv_out *o)
{
	if (!o)
		return;
	sy_agg_free(o->agg);
	sy_profgen_abort(o->pg);
	sy_bolt_free(o->bolt);
	sy_pdo_abort(o->pdo);
	free(o);
}

/* The mapping holding @addr among those written last; NULL if none. */
static const struct sy_map *sy_conv_seen(const struct sy_conv_out *o,
					 uint64_t addr)
{
	for (unsigned c = 0; c < 4; c++) {
		const struct sy_map *m = o->seen[(o->seen_next - 1 - c) % 4];

		if (m && addr >= m->start && addr < m->end)
			return m;
	}
	return NULL;
}

/* Samples come by the thousand from the same process and snapshot, their
 * addresses from a few mappings: the last ones written are kept. */
static void sy_conv_seen_reset(struct sy_conv_out *o,
			       const struct sy_window *w)
{
	uint64_t serial = sy_proc_snap_serial(w->snap);

	if (o->seen_snap == serial && o->seen_pid == w->pid)
		return;
	o->seen_snap = serial;
	o->seen_pid = w->pid;
	memset(o->seen, 0, sizeof(o->seen));
}

/* The MMAP2 line of the mapping holding @addr, unless written last. */
static int sy_conv_mmap_addr(struct sy_conv_out *o, const struct sy_window *w,
			     const struct sy_aspace *as,
			     const struct sy_aspace *kernel, uint64_t addr)
{
	const struct sy_map *m;
	const uint8_t *bid;
	size_t blen;

	if (sy_conv_seen(o, addr))
		return 0;
	m = sy_aspace_find(as, addr);
	if (!m)
		m = sy_aspace_find(kernel, addr);
	if (!m)
		return 0;
	o->seen[o->seen_next++ % 4] = m;
	/* a served kernel too: llvm-profgen --kernel finds vmlinux by its
	 * "[kernel.kallsyms]_text" map */
	if (!m->img)
		return 0;
	bid = m->build_id;
	blen = m->build_id_size;
	/* the binary's own id when the recording has none */
	if (!blen)
		blen = sy_image_build_id(m->img, &bid);
	/* written unless in force: samples held are written first when
	 * it changes how they would be read (a PIE at two addresses) */
	return sy_agg_mmap_bid(o->agg, w->pid, w->tid, m->start,
				   m->end - m->start, m->pgoff, m->path, bid,
				   blen);
}

/* Whether a sample's addresses, all within [@lo, @hi], lie in one mapping
 * written already: mostly they do (one range for the lot). */
static int sy_conv_mmaps_covered(struct sy_conv_out *o,
				 const struct sy_window *w, uint64_t lo,
				 uint64_t hi)
{
	const struct sy_map *m0;

	sy_conv_seen_reset(o, w);
	m0 = sy_conv_seen(o, lo);
	return m0 && hi < m0->end;
}

/* MMAP2 lines for the binaries a sample touches, before the sample. */
static int sy_conv_mmaps(struct sy_conv_out *o, const struct sy_window *w,
			 const uint64_t *frames, uint32_t nr_frames,
			 const struct sy_br *st, uint32_t nr)
{
	const struct sy_aspace *as, *kernel;
	uint64_t lo = UINT64_MAX, hi = 0;
	int err = 0;

	if (!w->snap)
		return 0;
	/* a loop the compiler vectorises */
	for (uint32_t i = 0; i < nr_frames; i++) {
		lo = frames[i] < lo ? frames[i] : lo;
		hi = frames[i] > hi ? frames[i] : hi;
	}
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t a = st[i].from < st[i].to ? st[i].from : st[i].to;
		uint64_t b = st[i].from < st[i].to ? st[i].to : st[i].from;

		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	if (sy_conv_mmaps_covered(o, w, lo, hi))
		return 0;
	as = sy_proc_snap_aspace(w->snap, w->pid);
	kernel = sy_proc_snap_kernel(w->snap);
	for (uint32_t i = 0; i < nr_frames && !err; i++)
		err = sy_conv_mmap_addr(o, w, as, kernel, frames[i]);
	for (uint32_t i = 0; i < nr && !err; i++)
		if (!(err = sy_conv_mmap_addr(o, w, as, kernel, st[i].from)))
			err = sy_conv_mmap_addr(o, w, as, kernel, st[i].to);
	return err;
}

/* The same for a logged sample, whose key holds its addresses in the
 * order sy_conv_mmaps reads them: frames, then from and to of each
 * branch. */
static int sy_conv_mmaps_logged(struct sy_conv_out *o,
				const struct sy_window *w,
				const struct sy_agg_logged *k)
{
	const struct sy_aspace *as, *kernel;
	size_t n = k->nr_frames + 2 * (size_t)k->nr_stack;
	int err = 0;

	if (!w->snap || sy_conv_mmaps_covered(o, w, k->lo, k->hi))
		return 0;
	as = sy_proc_snap_aspace(w->snap, w->pid);
	kernel = sy_proc_snap_kernel(w->snap);
	for (size_t i = 0; i < n && !err; i++)
		err = sy_conv_mmap_addr(o, w, as, kernel, k->words[i]);
	return err;
}

static int sy_conv_bolt_selected(const struct sy_conv_out *o, size_t i);

/* One file is one binary's profile: when a second selected binary gets
 * branches the run stops there (sy_conv_bolt_commit says why), not after
 * the whole recording.  Only binaries that really have branches count, so
 * loaded libraries the trace never entered stop nothing. */
static int sy_conv_bolt_check(struct sy_conv_out *o)
{
	size_t nb = sy_bolt_nr_binaries(o->bolt);

	if (o->bolt_dir)
		return 0;
	for (; o->bolt_seen < nb; o->bolt_seen++)
		o->bolt_nsel += sy_conv_bolt_selected(o, o->bolt_seen);
	return o->bolt_nsel > 1 ? -SY_E_OUTPUT : 0;
}

int sy_conv_out_sample(struct sy_conv_out *o, const struct sy_window *w,
		       const struct sy_conv_sample *cs)
{
	const uint64_t *frames = cs->frames ? cs->frames : &cs->ip;
	uint32_t nr_frames = cs->frames ? cs->nr_frames : 1;
	struct sy_pdo_sample ps;
	int err;

	switch (o->fmt) {
	case SY_CONV_PERFSCRIPT:
	case SY_CONV_LBR:
		if (o->fmt == SY_CONV_LBR)
			nr_frames = 1;
		err = sy_conv_mmaps(o, w, frames, nr_frames, cs->stack,
				    cs->nr_stack);
		if (!err)
			err = sy_agg_add(o->agg, frames, nr_frames, cs->stack,
					 cs->nr_stack);
		return err;
	case SY_CONV_BOLT:
		err = sy_bolt_add_stack(o->bolt, w->snap, w->pid, cs->stack,
					cs->nr_stack, 1);
		return err ? err : sy_conv_bolt_check(o);
	case SY_CONV_PERF_DATA:
		ps = (struct sy_pdo_sample){
			.time = cs->time, .ip = cs->ip, .period = cs->period,
			.pid = cs->pid, .tid = cs->tid, .cpu = cs->cpu,
			.comm = w->comm, .frames = frames,
			.nr_frames = nr_frames, .stack = cs->stack,
			.nr_stack = cs->nr_stack,
		};
		return sy_pdo_sample(o->pdo, w->snap, &ps);
	}
	return -SY_E_INVALID;
}

int sy_conv_out_whole(struct sy_conv_out *o, const struct sy_window *w,
		      uint32_t depth, uint64_t *samples, uint64_t *entries)
{
	int err = 0;

	if (o->fmt == SY_CONV_BOLT) {
		*samples += w->nr_stack ? 1 : 0;
		*entries += w->nr_stack;
		err = sy_bolt_add_stack(o->bolt, w->snap, w->pid, w->stack,
					w->nr_stack, 1);
		return err ? err : sy_conv_bolt_check(o);
	}
	/* branch-only samples of depth entries, back to back, so each taken
	 * branch is counted exactly once */
	for (uint32_t i = 0; i < w->nr_stack && !err; i += depth) {
		uint32_t n = w->nr_stack - i < depth ? w->nr_stack - i : depth;
		struct sy_conv_sample cs = {
			.time = w->trace_end, .ip = w->stack[i].to,
			.pid = w->pid, .tid = w->tid, .cpu = w->cpu,
			.stack = w->stack + i, .nr_stack = n,
		};

		err = sy_conv_out_sample(o, w, &cs);
		*samples += 1;
		*entries += n;
	}
	return err;
}

/* --- windows finished on another thread ------------------------------------ */

/* A window whose samples are in the log: where they start and what the
 * writer's mappings need of it (the snapshot is the job's, kept by the
 * session until the log is merged). */
struct sy_conv_logwin {
	size_t first;
	uint32_t pid, tid;
	const struct sy_proc_snap *snap;
};

struct sy_conv_log {
	struct sy_agg_log *agg;
	struct sy_conv_logwin *win;
	size_t nr, cap;
	int leaf_only;		/* lbr: a sample's frame is its leaf */
	size_t merged;		/* windows sy_conv_out_merge_window took */
};

int sy_conv_out_logs(const struct sy_conv_out *o)
{
	return o->fmt == SY_CONV_LBR || o->fmt == SY_CONV_PERFSCRIPT;
}

int sy_conv_log_new(struct sy_conv_log **out, enum sy_conv_format fmt)
{
	struct sy_conv_log *l = calloc(1, sizeof(*l));

	if (!l || sy_agg_log_new(&l->agg)) {
		free(l);
		return -SY_E_NOMEM;
	}
	l->leaf_only = fmt == SY_CONV_LBR;
	*out = l;
	return 0;
}

void sy_conv_log_free(struct sy_conv_log *l)
{
	if (!l)
		return;
	sy_agg_log_free(l->agg);
	free(l->win);
	free(l);
}

int sy_conv_log_window(struct sy_conv_log *l, const struct sy_window *w)
{
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct sy_conv_logwin *n = realloc(l->win, cap * sizeof(*n));

		if (!n)
			return -SY_E_NOMEM;
		l->win = n;
		l->cap = cap;
	}
	l->win[l->nr++] = (struct sy_conv_logwin){
		sy_agg_log_samples(l->agg), w->pid, w->tid, w->snap
	};
	return 0;
}

int sy_conv_log_sample(struct sy_conv_log *l, const struct sy_conv_sample *cs)
{
	/* as sy_conv_out_sample */
	const uint64_t *frames = cs->frames ? cs->frames : &cs->ip;
	uint32_t nr_frames = cs->frames && !l->leaf_only ? cs->nr_frames : 1;

	return sy_agg_log_add(l->agg, frames, nr_frames, cs->stack,
			      cs->nr_stack);
}

int sy_conv_log_whole(struct sy_conv_log *l, const struct sy_window *w,
		      uint32_t depth, uint64_t *samples, uint64_t *entries)
{
	int err;

	if (!w->nr_stack)
		return 0;
	if ((err = sy_conv_log_window(l, w)))
		return err;
	/* as sy_conv_out_whole: lbr samples have the leaf as their frame */
	for (uint32_t i = 0; i < w->nr_stack && !err; i += depth) {
		uint32_t n = w->nr_stack - i < depth ? w->nr_stack - i : depth;

		err = sy_agg_log_add(l->agg, &w->stack[i].to, 1, w->stack + i,
				     n);
		*samples += 1;
		*entries += n;
	}
	return err;
}

/* Writes window @wi's samples of @l as window @w's. */
static int sy_conv_out_merge_one(struct sy_conv_out *o, struct sy_conv_log *l,
				 size_t wi, const struct sy_window *w)
{
	size_t end = wi + 1 < l->nr ? l->win[wi + 1].first :
				       sy_agg_log_samples(l->agg);
	struct sy_agg_logged k;
	int err = 0;

	for (size_t i = l->win[wi].first; i < end && !err; i++) {
		sy_agg_log_sample(l->agg, i, &k);
		err = sy_conv_mmaps_logged(o, w, &k);
		if (!err)
			err = sy_agg_add_logged(o->agg, l->agg, i);
	}
	return err;
}

int sy_conv_out_merge(struct sy_conv_out *o, struct sy_conv_log *l)
{
	int err = 0;

	for (size_t wi = 0; wi < l->nr && !err; wi++) {
		struct sy_window w = {
			.pid = l->win[wi].pid, .tid = l->win[wi].tid,
			.snap = l->win[wi].snap,
		};

		err = sy_conv_out_merge_one(o, l, wi, &w);
	}
	return err;
}

int sy_conv_out_merge_window(struct sy_conv_out *o, struct sy_conv_log *l,
			     const struct sy_window *w)
{
	if (l->merged == l->nr)
		return -SY_E_INVALID;
	return sy_conv_out_merge_one(o, l, l->merged++, w);
}

int sy_conv_log_all_merged(const struct sy_conv_log *l)
{
	return l->merged == l->nr;
}

/* The bolt binaries to write: those --binary-filter selects. */
static int sy_conv_bolt_selected(const struct sy_conv_out *o, size_t i)
{
	const char *p = sy_bolt_binary_path(o->bolt, i);

	return !o->binary_filter || (p && strstr(p, o->binary_filter));
}

/* DIR/BASENAME.bolt, or DIR/BASENAME-BUILDID.bolt when another selected
 * binary has the same basename. */
static char *sy_conv_bolt_name(const struct sy_conv_out *o, size_t i)
{
	const char *p = sy_bolt_binary_path(o->bolt, i);
	const char *base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
	size_t n = strlen(o->path) + strlen(base) + 64;
	char *name = malloc(n), idhex[41] = "";
	int clash = 0;

	if (!name)
		return NULL;
	for (size_t j = 0; j < sy_bolt_nr_binaries(o->bolt); j++) {
		const char *q = sy_bolt_binary_path(o->bolt, j);
		const char *qb = strrchr(q, '/') ? strrchr(q, '/') + 1 : q;

		clash |= j != i && sy_conv_bolt_selected(o, j) &&
			 !strcmp(qb, base);
	}
	if (clash) {
		const uint8_t *id;
		size_t len = sy_image_build_id(sy_bolt_binary_image(o->bolt, i),
					       &id);

		for (size_t k = 0; k < len && k < 20; k++)
			snprintf(idhex + 2 * k, 3, "%02x", id[k]);
		if (!len)
			snprintf(idhex, sizeof(idhex), "%zu", i);
	}
	snprintf(name, n, "%s/%s%s%s.bolt", o->path, base, clash ? "-" : "",
		 idhex);
	return name;
}

static int sy_conv_bolt_commit(struct sy_conv_out *o, struct sy_diag *diag)
{
	size_t nb = sy_bolt_nr_binaries(o->bolt), nsel = 0, one = 0, two = 0;
	struct sy_atomic_file *af;
	int err = 0;

	for (size_t i = 0; i < nb; i++)
		if (sy_conv_bolt_selected(o, i)) {
			if (nsel++ == 1)
				two = i;
			else if (nsel == 1)
				one = i;
		}
	/* a usage error (exit 2): the options ask for what cannot be */
	if (!o->bolt_dir && nsel > 1)
		return sy_diag_set_nooff(
			diag, -SY_E_INVALID,
			"%s: %zu binaries have branches (%s, %s%s); a BOLT "
			"profile is for one: pick it with --binary-filter, or "
			"give -o a directory (-o DIR/) for one file per binary",
			o->path, nsel,
			sy_bolt_binary_path(o->bolt, one),
			sy_bolt_binary_path(o->bolt, two), nsel > 2 ? ", ..." : "");
	if (!strcmp(o->path, "-")) {
		if (nsel)
			err = sy_bolt_write(o->bolt, one, stdout);
		if (!err && fflush(stdout))
			err = -SY_E_OUTPUT;
		if (err)
			return sy_diag_set_nooff(diag, err,
						 "standard output: write: %s",
						 strerror(errno ? errno : EIO));
		return 0;
	}
	/* every file written before any is renamed into place */
	af = calloc(nb ? nb : 1, sizeof(*af));
	if (!af)
		return -SY_E_NOMEM;
	if (!o->bolt_dir) {
		/* no selected binary: an empty profile */
		err = sy_atomic_open(&af[0], o->path, diag);
		if (!err && nsel)
			err = sy_bolt_write(o->bolt, one, af[0].f);
	}
	for (size_t i = 0; i < nb && !err && o->bolt_dir; i++) {
		char *name;

		if (!sy_conv_bolt_selected(o, i))
			continue;
		name = sy_conv_bolt_name(o, i);
		err = name ? sy_atomic_open(&af[i], name, diag) : -SY_E_NOMEM;
		free(name);
		if (!err)
			err = sy_bolt_write(o->bolt, i, af[i].f);
	}
	for (size_t i = 0; i < (nb ? nb : 1) && !err; i++)
		if (af[i].f)
			err = sy_atomic_commit(&af[i], 0, diag);
	for (size_t i = 0; i < (nb ? nb : 1); i++)
		sy_atomic_abort(&af[i]);
	free(af);
	return err;
}

int sy_conv_out_commit(struct sy_conv_out *o, uint64_t *unique,
		       struct sy_diag *diag)
{
	int err = 0;

	*unique = 0;
	switch (o->fmt) {
	case SY_CONV_PERFSCRIPT:
	case SY_CONV_LBR:
		err = sy_agg_flush(o->agg);
		*unique = sy_agg_stats(o->agg)->unique;
		if (err == -SY_E_NOMEM)
			break;
		if (err) {
			/* the commit names the output and the cause */
			if (!sy_profgen_commit(o->pg, diag))
				sy_diag_set_nooff(diag, err, "%s: write failed",
						  o->path);
		} else {
			err = sy_profgen_commit(o->pg, diag);
		}
		o->pg = NULL;
		break;
	case SY_CONV_BOLT:
		err = sy_conv_bolt_commit(o, diag);
		break;
	case SY_CONV_PERF_DATA:
		*unique = sy_pdo_nr_samples(o->pdo);
		err = sy_pdo_commit(o->pdo, diag);
		o->pdo = NULL;
		break;
	}
	sy_conv_out_abort(o);
	return err;
}
