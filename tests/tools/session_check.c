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
 * whole-trace mode is run.  Exit 0 when every file agrees, 1 otherwise.
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

static int on_window(void *ctx, const struct sy_window *w)
{
	struct digest *d = ctx;
	uint64_t h = d->h;

	h = mix(h, w->index);
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
	d->h = h;
	d->windows++;
	return 0;
}

static int run(const char *path, const char *symfs, const char *vmlinux,
	       unsigned threads, uint64_t unit, struct digest *d)
{
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
	err = sy_session_run(s, on_window, d);
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
		struct digest u, a, b;
		int eu = run(argv[i], symfs, vmlinux, 1, UNCUT, &u);
		int ea = run(argv[i], symfs, vmlinux, 1, unit, &a);
		int eb = run(argv[i], symfs, vmlinux, threads, unit, &b);

		if (verbose)
			printf("%s: %" PRIu64 " windows, exit %d / %d / %d\n",
			       argv[i], u.windows, eu, ea, eb);
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
