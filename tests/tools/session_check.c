/* session_check [-j N] [-u BYTES] [--symfs DIR] [--vmlinux FILE] FILE...:
 * runs the session
 * on each FILE with one thread and stream units too long to cut (the
 * stream decoded in order), then with stream jobs of BYTES bytes (default
 * 64: many tiny jobs, pieces cut at every seam) on one thread and on N
 * threads (default 4), and fails unless all three runs hand out the same
 * windows in the same order.
 *
 * Written for `make tsan` (criterion's runner does not start under
 * ThreadSanitizer) and as a determinism property: whatever the thread
 * count and the job size, every window, its status, thread, counts,
 * stacks and placed samples are the same.  Without pause samples the
 * whole-trace mode is run, and the threaded run once more with a window
 * sink (sy_window_sink: windows finished on their decoding threads), which
 * must give the same windows, while the callback's are numbered as if the
 * sink's had gone through it.  Exit 0 when every file agrees, 1
 * otherwise.
 *
 * Give it the code (--symfs, --vmlinux): where code cannot be read the
 * decode of the whole stream is in an error state a decoder started at a
 * seam is not in, and the windows made of no decodable code may differ
 * (their byte counts, empty or paused). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sy_synth.h"

/* stream units this long are never cut: a whole recording's trace */
#define UNCUT (1ULL << 40)

struct digest {
	uint64_t h, windows;
	uint64_t bad_index;	/* callback windows numbered wrong */
	uint64_t by_sink;	/* windows the sink took */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t mix_stack(uint64_t h, const struct sy_br *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		h = mix(mix(mix(h, b[i].from), b[i].to), b[i].kind);
	return h;
}

/* A window, all but its index (a sink's windows have none). */
static uint64_t window_hash(const struct sy_window *w)
{
	uint64_t h = 0;

	h = mix(h, (uint64_t)w->status);
	h = mix(h, w->cpu);
	h = mix(h, ((uint64_t)w->pid << 32) | w->tid);
	h = mix(h, w->pause_time);
	h = mix(h, w->resume_time);
	h = mix(h, w->insns);
	h = mix(h, w->branches);
	h = mix(h, w->bytes);
	h = mix(h, w->decode_errors);
	h = mix(h, w->unplaced);
	h = mix_stack(h, w->stack, w->nr_stack);
	for (uint32_t i = 0; i < w->nr_inner; i++)
		h = mix_stack(mix(h, w->inner[i].time), w->inner[i].stack,
			      w->inner[i].nr_stack);
	for (const char *c = w->reason; *c; c++)
		h = mix(h, (uint8_t)*c);
	return h;
}

static int on_window(void *ctx, const struct sy_window *w)
{
	struct digest *d = ctx;

	d->bad_index += w->index != d->windows;
	d->h = mix(d->h, window_hash(w));
	d->windows++;
	return 0;
}

/* The sink's context for one job: its windows' hashes, in order. */
struct job {
	uint64_t *h;
	size_t n, cap;
	int err;
};

static void *job_new(void *ctx)
{
	(void)ctx;
	return calloc(1, sizeof(struct job));
}

static int job_window(void *job, const struct sy_window *w)
{
	struct job *j = job;

	if (j->n == j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 256;
		uint64_t *n = realloc(j->h, cap * sizeof(*n));

		if (!n)
			return -1;
		j->h = n;
		j->cap = cap;
	}
	j->err |= w->index != SY_WINDOW_NO_INDEX;
	j->h[j->n++] = window_hash(w);
	return 0;
}

static int job_merge(void *ctx, void *job)
{
	struct digest *d = ctx;
	struct job *j = job;

	d->bad_index += (uint64_t)j->err;
	for (size_t i = 0; i < j->n; i++)
		d->h = mix(d->h, j->h[i]);
	d->windows += j->n;
	d->by_sink += j->n;
	return 0;
}

static void job_free(void *job)
{
	struct job *j = job;

	if (j)
		free(j->h);
	free(j);
}

static int run(const char *path, const char *symfs, const char *vmlinux,
	       unsigned threads, uint64_t unit, int sink, struct digest *d)
{
	struct sy_window_sink k = { d, job_new, job_window, job_merge,
				    job_free, NULL };
	struct sy_session_opts o;
	struct sy_session *s;
	struct sy_diag diag = { 0 };
	int err;

	memset(d, 0, sizeof(*d));
	sy_session_opts_init(&o);
	o.input = path;
	o.threads = threads;
	o.unit_bytes = unit;
	o.images.symfs = symfs;
	o.images.vmlinux = vmlinux;
	if ((err = sy_session_open(&s, &o, &diag)))
		return err;
	if (!sy_session_has_pause(s)) {
		sy_session_close(s);
		o.whole_trace = 1;
		o.depth = 0;
		if ((err = sy_session_open(&s, &o, &diag)))
			return err;
	}
	err = sy_session_run_sink(s, on_window, d, sink ? &k : NULL);
	sy_session_close(s);
	return err;
}

int main(int argc, char **argv)
{
	unsigned threads = 4;
	uint64_t unit = 64;
	const char *symfs = NULL, *vmlinux = NULL;
	int bad = 0, verbose = 0, i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-j") && i + 1 < argc)
			threads = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-u") && i + 1 < argc)
			unit = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "--symfs") && i + 1 < argc)
			symfs = argv[++i];
		else if (!strcmp(argv[i], "--vmlinux") && i + 1 < argc)
			vmlinux = argv[++i];
		else {
			fprintf(stderr, "usage: session_check [-v] [-j N] [-u BYTES] "
					"[--symfs DIR] [--vmlinux FILE] FILE...\n");
			return 2;
		}
	}
	for (; i < argc; i++) {
		struct digest u, a, b, k, kd;
		int eu = run(argv[i], symfs, vmlinux, 1, UNCUT, 0, &u);
		int ea = run(argv[i], symfs, vmlinux, 1, unit, 0, &a);
		int eb = run(argv[i], symfs, vmlinux, threads, unit, 0, &b);
		int ek = run(argv[i], symfs, vmlinux, threads, unit, 1, &k);
		/* and with jobs of the default size, most windows inside one */
		int ekd = run(argv[i], symfs, vmlinux, threads, 0, 1, &kd);

		if (verbose)
			printf("%s: %" PRIu64 " windows (%" PRIu64 " / %" PRIu64
			       " in jobs), exit %d / %d / %d / %d / %d\n",
			       argv[i], u.windows, k.by_sink, kd.by_sink, eu, ea,
			       eb, ek, ekd);
		if (u.bad_index || a.bad_index || b.bad_index || k.bad_index ||
		    kd.bad_index) {
			printf("DIFF %s: windows numbered out of order\n",
			       argv[i]);
			bad = 1;
		}
		if (eb != ek || b.h != k.h || b.windows != k.windows) {
			printf("DIFF %s: %u threads: %" PRIu64 " windows (%d), "
			       "with a sink: %" PRIu64 " windows (%d), %" PRIu64
			       " of them in jobs\n",
			       argv[i], threads, b.windows, eb, k.windows, ek,
			       k.by_sink);
			bad = 1;
		}
		if (eu != ekd || u.h != kd.h || u.windows != kd.windows) {
			printf("DIFF %s: uncut: %" PRIu64 " windows (%d), "
			       "default jobs on %u threads with a sink: %" PRIu64
			       " windows (%d), %" PRIu64 " of them in jobs\n",
			       argv[i], u.windows, eu, threads, kd.windows, ekd,
			       kd.by_sink);
			bad = 1;
		}
		if (eu != ea || u.h != a.h || u.windows != a.windows) {
			printf("DIFF %s: uncut: %" PRIu64 " windows (%d), "
			       "cut every %" PRIu64 " bytes: %" PRIu64
			       " windows (%d)\n",
			       argv[i], u.windows, eu, unit, a.windows, ea);
			bad = 1;
		}
		if (ea != eb || a.h != b.h || a.windows != b.windows) {
			printf("DIFF %s: 1 thread: %" PRIu64 " windows (%d), "
			       "%u threads: %" PRIu64 " windows (%d)\n",
			       argv[i], a.windows, ea, threads, b.windows, eb);
			bad = 1;
		}
	}
	return bad;
}
