/* Independent proof that the generated fixtures (tests/fixtures/generated/)
 * say what their sidecar truth says, and that the truth follows from the
 * program runs and the pause/resume model.
 *
 *   regen_*        every committed scenario regenerates byte for byte, and
 *                  twice in a row identically (determinism);
 *   model_*        the sidecar agrees with the recorded program run: each
 *                  window is a slice of the run, starts at its resume
 *                  sample's IP and ends at its pause sample's IP, the
 *                  branch stacks are the slice's taken branches, the
 *                  callchains match the shadow stack; for one-CPU
 *                  scenarios the samples are recomputed here from R, P, S
 *                  and the cycle model (an implementation written again,
 *                  from the documentation in fx_gen.h); a sampling-event
 *                  sample is inside the window that ran at its time, with
 *                  that window's branches up to its interrupt;
 *   perf_*         Debian perf 6.1 (OpenCSD / its own PT decoder) decodes
 *                  every fixture to exactly the truth's taken branches,
 *                  window by window;
 *   lister_*       the ETM bytes of every window, cut out of the perf.data
 *                  AUXTRACE payloads at the sidecar's AUX offsets and
 *                  written as an OpenCSD snapshot, decode with
 *                  trc_pkt_lister -decode to the truth's instruction ranges;
 *   libipt_*       the PT AUX stream of every CPU decodes with libipt's
 *                  block decoder to exactly the truth's instructions;
 *                  lister and libipt show an interrupt at every
 *                  sampling-event sample inside a window, after its
 *                  branches;
 *   perf_lists_the_samples  perf script lists exactly the sidecar's
 *                  sampling-event samples (time, CPU, thread, IP,
 *                  callchain);
 *   *_negative     the same comparisons catch a sidecar that is off by one
 *                  branch, a flipped atom and a flipped TNT bit, a
 *                  sampling-event sample whose IP moved;
 *   per_thread_layout  per-thread recordings (per_thread=1) have the
 *                  records, ids, queues and CPUs perf --per-thread
 *                  writes, and counters that count the thread's cycles;
 *                  the decoders above read their one queue (per thread,
 *                  perf's CPU label of every branch is compared too);
 *   kernel-mode fixtures (el = 1) go through all of the above with their
 *                  image: perf -k IMAGE, the image in the lister's snapshot
 *                  at the recording's KASLR offset, every context the
 *                  lister decodes at EL1; kernel_negative: a kernel map or
 *                  image a page off is caught (test_fx_kernel.c checks
 *                  their records); a module fixture's module is given to
 *                  perf as loaded, and perf_reads_modules_unrelocated
 *                  shows what perf 6.1 makes of the module file;
 *   scaled_*       sy-fixturegen --scale: N repetitions of a scenario in one
 *                  streamed perf.data, proven against the fixture, perf,
 *                  strobe-synth, trc_pkt_lister and libipt (see the section
 *                  at the end).
 *
 * How perf's output maps to windows: perf 6.1 ignores aux_action; it sees
 * trace that starts and stops.  `perf script --itrace=b` prints one
 * "tr strt" branch (0 => ip) where tracing (re)starts, "tr end"/"syscall"
 * branches (ip => 0) where it stops, and a branch line for every taken
 * branch in between.  A window therefore starts at a "tr strt" line whose
 * target is its first instruction; lines with a zero address are markers;
 * every other line must be the next taken branch of the truth whose target
 * was traced (a taken branch that is the last instruction before an
 * interrupt, syscall or overflow shows as a marker, its target never ran in
 * the trace).
 *
 * perf 6.1 limits, worked around and documented here (see the report in
 * tests/fixtures/scenarios/README.md):
 *  - it rejects cs_etm AUXTRACE_INFO header version 2 (added in 6.3); the
 *    test patches a copy to version 1, which means the same thing here
 *    because the generator keeps TRCTRACEIDR equal to the trace ID that
 *    AUX_OUTPUT_HW_ID announces;
 *  - it cannot read 136-byte attrs; the test checks that it refuses them;
 *  - in timestamp order (per-CPU, timestamps on) it drops the tail of some
 *    frame-formatted (ETR) AUX fragments: the same bytes decode completely
 *    timeless (--itrace=Z) and with trc_pkt_lister, so ETR fixtures are
 *    compared with --itrace=bZ;
 *  - it warns "Reserved bits are set unexpectedly" (aux_action sits in its
 *    __reserved_3) and then ignores EVENT_DESC: every cycles event is
 *    "cycles:u", the sampling event's samples are known by their period;
 *  - timeless, it loses the end of an AUX record when the WAIT it asks for
 *    at a timestamp comes on the call that took the record's last bytes:
 *    perf61_cuts finds those windows by driving OpenCSD the same way.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <intel-pt.h>
#include <inttypes.h>
#include <libelf.h>
#include <opencsd/c_api/opencsd_c_api.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fx_buf.h"
#include "fx_classify.h"
#include "fx_gen.h"
#include "fx_pt.h"
#include "fx_scenario.h"
#include "fx_sidecar.h"
#include "fx_snapshot.h"
#include "fx_truth.h"
#include "sy_auxtrace.h"
#include "sy_bytes.h"
#include "sy_perf_reader.h"
#include "sy_perf_event.h"
#include "sy_synth.h"
#include "sy_test.h"

#define SCN_DIR "tests/fixtures/scenarios"
#define GEN_DIR "tests/fixtures/generated"
#define MAX_FX 128
#define T_PERF "timeout 300 perf --no-pager"

TestSuite(fixturegen, .timeout = 900);

/* ------------------------------------------------------------------------
 * Fixtures on disk.
 * ---------------------------------------------------------------------- */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Names of the committed scenarios, sorted. */
static size_t fx_names(char names[MAX_FX][64])
{
	DIR *d = opendir(SCN_DIR);
	struct dirent *e;
	size_t n = 0;

	cr_assert_not_null(d, "cannot open %s (run from the project root)",
			   SCN_DIR);
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (l < 5 || strcmp(e->d_name + l - 4, ".scn") || l - 4 >= 64)
			continue;
		cr_assert_lt(n, MAX_FX);
		memcpy(names[n], e->d_name, l - 4);
		names[n][l - 4] = 0;
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), name_cmp);
	cr_assert_gt(n, 0, "no scenarios");
	return n;
}

struct fx {
	char name[64];
	char data_path[256];
	struct fx_scenario scn;
	struct fx_sidecar sc;
	uint8_t *data;
	size_t len;
	struct fx_truth truth;	/* the program run, relocated: insns */
	struct fx_insn *in;
	size_t nin;
	uint64_t load_base;
	uint64_t *perf_insns;	/* per window: instructions perf 6.1 sees
				 * (UINT64_MAX: all), see perf61_cuts */
	const uint8_t *win_skip;	/* per window: 1 = the oracle's image
					 * holds other code there (objects
					 * over time, below); NULL: none */
	size_t cls_idx;		/* classify_rt among the objects mapped at
				 * this truth index (objects over time);
				 * SIZE_MAX: the first listed */
};

static void fx_load_run(struct fx *f);
static int fx_timed(const struct fx *f);
static uint64_t objs_at_end(const struct fx *f);
static size_t win_skip_fill(const struct fx *f, uint64_t sel, uint8_t *skip);

static void fx_open(struct fx *f, const char *name)
{
	char path[700];
	struct sy_diag d;
	int err;

	memset(f, 0, sizeof(*f));
	memset(&d, 0, sizeof(d));
	f->cls_idx = SIZE_MAX;
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(path, sizeof(path), SCN_DIR "/%s.scn", name);
	err = fx_scenario_load(&f->scn, path, &d);
	cr_assert_eq(err, 0, "%s", d.msg);
	snprintf(path, sizeof(path), GEN_DIR "/%s.truth", name);
	err = fx_sidecar_load(&f->sc, path, &d);
	cr_assert_eq(err, 0, "%s: %s", path, d.msg);
	snprintf(f->data_path, sizeof(f->data_path), GEN_DIR "/%s.data", name);
	f->data = sy_test_read_file(f->data_path, &f->len);
	cr_assert_not_null(f->data, "%s", f->data_path);
	fx_load_run(f);
}

/* The program run the sidecar names, relocated to its load base. */
static void fx_load_run(struct fx *f)
{
	char path[700], prog[256];
	struct sy_diag d;
	const char *base;
	int err;

	memset(&d, 0, sizeof(d));
	base = strrchr(f->sc.binary, '/');
	snprintf(prog, sizeof(prog), "%s", base ? base + 1 : f->sc.binary);
	snprintf(path, sizeof(path), "tests/fixtures/truth/%s.truth", prog);
	err = fx_truth_load(&f->truth, path, f->sc.binary, &d);
	cr_assert_eq(err, 0, "%s: %s", path, d.msg);
	f->nin = f->truth.n;
	f->in = malloc(f->nin * sizeof(*f->in));
	cr_assert_not_null(f->in);
	f->load_base = f->sc.load_base;
	for (size_t i = 0; i < f->nin; i++) {
		f->in[i] = f->truth.insns[i];
		f->in[i].pc += f->sc.load_base - f->sc.qemu_bias;
		if (f->in[i].next)
			f->in[i].next += f->sc.load_base - f->sc.qemu_bias;
	}
}

static void fx_close(struct fx *f)
{
	free(f->perf_insns);
	fx_sidecar_fini(&f->sc);
	fx_truth_fini(&f->truth);
	free(f->in);
	free(f->data);
}

/* The instruction at run-time address @pc of the fixture (the program or
 * a library of it), direct target at its run-time address: the truth
 * classifies at the addresses qemu ran it at, which the fixture moved by
 * load_base - qemu_bias (a PIE alone). */
static int classify_rt(const struct fx *f, uint64_t pc, struct fx_class *c)
{
	uint64_t d = f->sc.load_base - f->sc.qemu_bias;
	int err = fx_truth_classify_idx(&f->truth, pc - d, f->cls_idx, c);

	if (!err && c->has_target)
		c->target += d;
	return err;
}

/* A whole text file, NUL-terminated; NULL if unreadable. */
static char *read_text(const char *path)
{
	size_t len;
	uint8_t *b = sy_test_read_file(path, &len);
	char *t;

	if (!b)
		return NULL;
	t = malloc(len + 1);
	cr_assert_not_null(t);
	memcpy(t, b, len);
	t[len] = 0;
	free(b);
	return t;
}

static int fx_is_pt(const struct fx *f)
{
	return !strcmp(f->sc.trace, "pt");
}

/* A kernel-mode trace (el = 1): its code is the kernel image's
 * (sidecar line `kernel`), its samples the kernel's. */
static int fx_is_kernel(const struct fx *f)
{
	return f->sc.kernel[0] != 0;
}

/* The perf event modifier of the fixture's events. */
static const char *fx_mod(const struct fx *f)
{
	return fx_is_kernel(f) ? "k" : "u";
}

/* The test's temporary directory (tmp_setup). */
static char g_tmp[4096];

/* The module of a kernel-mode fixture as it is in memory, at its recorded
 * path under @dir (perf 6.1 reads a module file unrelocated:
 * branchy-aarch64-loaded.ko is the same module with the program's linked
 * code, which the generator checks against the kernel's relocation). */
static void module_symfs(const struct fx *f, const char *root,
			 const char *dir, const char *file)
{
	char cmd[9000];

	snprintf(cmd, sizeof(cmd), "d='%s%s'; mkdir -p \"${d%%/*}\" && "
		 "ln -sf '%s/tests/fixtures/programs/bin/%s' \"$d\"", dir,
		 f->sc.maps[0].path, root, file);
	cr_assert_eq(sy_test_run(cmd, NULL, NULL), 0, "%s", cmd);
}

/* Where perf reads the fixture's code: the programs under --symfs
 * @root (the repository root), a kernel-mode fixture's image with -k
 * (alone: perf would look for the image under the symfs too), a module
 * fixture's module as loaded under a --symfs of its own, without the
 * kernel image (perf 6.1 takes arm64 modules, which lie below the
 * kernel, for user space once it loaded one: cs_etm__cpu_mode against
 * machine__kernel_start; the trace runs in the module only). */
static const char *perf_image_opts(const struct fx *f, const char *root,
				   char *buf, size_t len)
{
	if (fx_is_kernel(f) && f->sc.nmaps) {
		char dir[4200];

		snprintf(dir, sizeof(dir), "%s/msymfs", g_tmp);
		module_symfs(f, root, dir, "branchy-aarch64-loaded.ko");
		snprintf(buf, len, "--symfs='%s'", dir);
	} else if (fx_is_kernel(f)) {
		snprintf(buf, len, "-k '%s/%s'", root, f->sc.kernel);
	} else {
		snprintf(buf, len, "--symfs='%s'", root);
	}
	return buf;
}

/* AUX queues: one per CPU, or one for the thread in a per-thread
 * recording (per_thread=1), whose AUXTRACE records say cpu -1. */
static uint32_t fx_nq(const struct fx *f)
{
	return f->sc.per_thread ? 1 : f->sc.ncpus;
}

/* The AUXTRACE cpu of queue @q. */
static uint32_t fx_qkey(const struct fx *f, uint32_t q)
{
	return f->sc.per_thread ? UINT32_MAX : q;
}

static int win_in_q(const struct fx *f, const struct fx_sc_window *w,
		    uint32_t q)
{
	return f->sc.per_thread ? q == 0 : w->cpu == q;
}

/* ------------------------------------------------------------------------
 * Expectations from the truth.
 * ---------------------------------------------------------------------- */

enum { IT_DATA = 0, IT_ANCHOR, IT_MARK, IT_ERROR };

struct item {
	int kind;
	uint64_t a, b, c;
};

struct items {
	struct item *v;
	size_t n, cap;
};

static void it_push(struct items *l, int kind, uint64_t a, uint64_t b,
		    uint64_t c)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		cr_assert_not_null(l->v);
	}
	l->v[l->n].kind = kind;
	l->v[l->n].a = a;
	l->v[l->n].b = b;
	l->v[l->n].c = c;
	l->n++;
}

static void it_free(struct items *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* A taken branch in user space (the exit syscall, whose successor is
 * nothing, is not one). */
static int taken(const struct fx_insn *in)
{
	return fx_insn_taken(in) && in->kind != SY_BR_SYSCALL;
}

/* A system call after which user space went on elsewhere than at the next
 * instruction (a signal delivered on its return, an rt_sigreturn): branch
 * stacks end there (fx_sidecar.h, br lines), as no user-only trace follows
 * the jump.  The exit syscall (successor 0) is none. */
static int cut_at(const struct fx_insn *in)
{
	return in->kind == SY_BR_SYSCALL && in->next &&
	       in->next != in->pc + in->size;
}

/* Does the trace report instruction @k's outcome so that the decoder knows
 * where execution went: PT trace-consuming instructions, ETM waypoints. */
static int consumes_trace(const struct fx_insn *in, int pt)
{
	switch (in->kind) {
	case SY_BR_NONE:
		return 0;
	case SY_BR_JUMP:
	case SY_BR_CALL:
		return !pt;
	default:
		return 1;
	}
}

/* The traced parts of window @w: [lo, hi) ranges of truth indices, in
 * order, with per part whether it ends at an overflow.  An overflow cuts
 * its segment at the last instruction whose outcome went out before it
 * (the decoders never report straight-line code after it). */
struct part {
	uint64_t lo, hi;
	int cut;	/* ends where an overflow lost the next insns */
	uint32_t cpu;	/* its segment's */
};

static size_t win_parts(const struct fx *f, const struct fx_sc_window *w,
			struct part *p, size_t max)
{
	size_t n = 0;

	for (size_t k = 0; k < w->nsegs; k++) {
		const struct fx_sc_seg *s = &w->segs[k];

		if (w->has_lost && w->lost_start > s->start &&
		    w->lost_start <= s->end) {
			uint64_t cut = w->lost_start;	/* after ovf insn */

			while (cut > s->start &&
			       !consumes_trace(&f->in[cut - 1], fx_is_pt(f)))
				cut--;
			cr_assert_lt(n + 2, max);
			if (cut > s->start)
				p[n++] = (struct part){ s->start, cut, 1,
							s->cpu };
			if (w->lost_end < s->end)
				p[n++] = (struct part){ w->lost_end, s->end,
							0, s->cpu };
			continue;
		}
		cr_assert_lt(n, max);
		p[n++] = (struct part){ s->start, s->end, 0, s->cpu };
	}
	return n;
}

#define MAX_PARTS 256

/* perf: every taken branch; the last one before an interrupt or an
 * overflow only for PT (perf's intel_pt knows its target from the TIP, the
 * FUP or the instruction; cs-etm prints it as "tr end" => 0 because the
 * next element is the exception or the discontinuity).  Per thread, each
 * branch carries the CPU of its segment (perf's label, perf_parse). */
static void exp_perf(const struct fx *f, const struct fx_sc_window *w,
		     struct items *out)
{
	struct part p[MAX_PARTS];
	size_t np = win_parts(f, w, p, MAX_PARTS);
	uint64_t left = f->perf_insns ? f->perf_insns[w->idx] : UINT64_MAX;

	/* perf 6.1 may see only the first instructions (perf61_cuts): the
	 * window then ends where its decoder stopped, after an exception */
	for (size_t k = 0; k < np; k++) {
		if (p[k].hi - p[k].lo > left)
			p[k].hi = p[k].lo + left;
		left -= p[k].hi - p[k].lo;
	}
	for (size_t k = 0; k < np; k++)
		for (uint64_t i = p[k].lo; i < p[k].hi; i++)
			if (taken(&f->in[i]) &&
			    (i + 1 < p[k].hi || fx_is_pt(f)))
				it_push(out, IT_DATA, f->in[i].pc, f->in[i].next,
					f->sc.per_thread ? p[k].cpu : 0);
}

/* libipt: every traced instruction. */
static void exp_insns(const struct fx *f, const struct fx_sc_window *w,
		      struct items *out)
{
	struct part p[MAX_PARTS];
	size_t np = win_parts(f, w, p, MAX_PARTS);

	for (size_t k = 0; k < np; k++)
		for (uint64_t i = p[k].lo; i < p[k].hi; i++)
			it_push(out, IT_DATA, f->in[i].pc, 0, 0);
}

/* OpenCSD: instruction ranges {start, end exclusive, count | E << 40},
 * cut after every waypoint and at the end of each traced part; E is the
 * last instruction's atom (a non-branch shows as E). */
static void exp_ranges(const struct fx *f, const struct fx_sc_window *w,
		       struct items *out)
{
	struct part p[MAX_PARTS];
	size_t np = win_parts(f, w, p, MAX_PARTS);

	for (size_t k = 0; k < np; k++) {
		uint64_t st = p[k].lo;

		for (uint64_t i = p[k].lo; i < p[k].hi; i++) {
			const struct fx_insn *in = &f->in[i];

			if ((in->kind != SY_BR_NONE) || i + 1 == p[k].hi) {
				/* OpenCSD says N only for a waypoint not
				 * taken, E for anything else (an SVC ends
				 * a range through its exception) */
				uint64_t e = in->kind == SY_BR_NONE ||
					     in->kind == SY_BR_SYSCALL ||
					     taken(in);

				it_push(out, IT_DATA, f->in[st].pc,
					in->pc + in->size,
					(i + 1 - st) | e << 40);
				st = i + 1;
			}
		}
	}
}

/* The segment of @w that the interrupt of sampling-event sample @x ends:
 * one of @x's thread whose next instruction is @x's IP and whose taken
 * branches, with those of the segments before it back to the last cut
 * or to where its thread came in (a segment that does not end where the
 * next starts), newest first, are @x's br lines.  Returns its index, or
 * -1. */
static long sample_segment(const struct fx *f, const struct fx_sc_window *w,
			   const struct fx_sc_sample *x)
{
	for (size_t s = 0; s < w->nsegs; s++) {
		const struct fx_sc_seg *sg = &w->segs[s];
		size_t j = 0;
		int same = 1;

		if (sg->tid != x->tid || f->in[sg->end - 1].next != x->ip)
			continue;
		int cut = 0;

		for (size_t q = s + 1; q-- > 0 && same && !cut;) {
			if (q < s && w->segs[q].end != w->segs[q + 1].start)
				break;
			for (uint64_t i = w->segs[q].end;
			     i-- > w->segs[q].start && same && !cut;) {
				if ((cut = cut_at(&f->in[i])) != 0 ||
				    !taken(&f->in[i]))
					continue;
				same = j < x->nbr &&
				       x->br[j].from == f->in[i].pc &&
				       x->br[j].to == f->in[i].next;
				j++;
			}
		}
		if (same && j == x->nbr)
			return (long)s;
	}
	return -1;
}

/* Windows the decoders cannot be expected to reproduce exactly. */
static int win_damaged(const struct fx_sc_window *w)
{
	return !!(w->status & (FX_ST_DECODE_ERROR | FX_ST_TRUNCATED));
}

/* ------------------------------------------------------------------------
 * Matching a decoded stream against the windows of one CPU.
 * ---------------------------------------------------------------------- */

struct report {
	unsigned fails;
	unsigned windows_ok, windows_skipped;
	char first[600];
};

static void rep_fail(struct report *r, const char *fmt, ...)
	SY_PRINTF(2, 3);
static void rep_fail(struct report *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->fails++) {
		va_start(ap, fmt);
		vsnprintf(r->first, sizeof(r->first), fmt, ap);
		va_end(ap);
	}
}

static int it_eq(const struct item *a, const struct item *b)
{
	return a->a == b->a && a->b == b->b && a->c == b->c;
}

typedef void (*exp_fn)(const struct fx *f, const struct fx_sc_window *w,
		       struct items *out);

/* @got: one CPU's decoded stream: DATA items, ANCHOR(ip) where trace
 * (re)starts, MARK elsewhere, ERROR on decode errors.  Windows of @cpu are
 * matched in order: each starts at an anchor on its first instruction
 * (only markers may come before it, or anything after a damaged window);
 * an intact window's DATA must be exactly the expected items. */
static void match_cpu_at(const struct fx *f, uint32_t cpu,
			 const struct items *got, size_t *posp, exp_fn exp,
			 const char *what, int last, struct report *r)
{
	size_t pos = *posp;
	int prev_damaged = 0;

	for (size_t k = 0; k < f->sc.nwindows; k++) {
		const struct fx_sc_window *w = &f->sc.windows[k];
		struct items e = { 0 };
		int found = 0, bad = 0;

		if (!win_in_q(f, w, cpu))
			continue;
		/* anon: perf 6.1 decodes timeless, with the maps as they
		 * are at the end of the file: it reads no code in the
		 * //anon range, not even in the windows before its MMAP2
		 * (perf_decodes_every_fixture) */
		if (!w->nsegs || win_damaged(w) || f->scn.have_anon ||
		    (f->perf_insns && !f->perf_insns[w->idx]) ||
		    (f->win_skip && f->win_skip[w->idx])) {
			/* nothing decodable, or nothing predictable */
			prev_damaged |= win_damaged(w) ||
					(f->win_skip && f->win_skip[w->idx]);
			r->windows_skipped++;
			continue;
		}
		while (pos < got->n) {
			const struct item *it = &got->v[pos++];

			if (it->kind == IT_ANCHOR && it->a == w->start_ip) {
				found = 1;
				break;
			}
			if (it->kind == IT_DATA && !prev_damaged && !bad) {
				rep_fail(r, "%s %s cpu %u: data %#" PRIx64
					    "/%#" PRIx64 " before window %zu",
					 f->name, what, cpu, it->a, it->b, k);
				bad = 1;
			}
		}
		if (!found) {
			rep_fail(r, "%s %s: window %zu (start %#" PRIx64
				    ") not found", f->name, what, k,
				 w->start_ip);
			*posp = pos;
			return;
		}
		exp(f, w, &e);
		for (size_t j = 0; j < e.n && !bad; j++) {
			while (pos < got->n && got->v[pos].kind != IT_DATA) {
				if (got->v[pos].kind == IT_ERROR) {
					rep_fail(r, "%s %s: decode error in "
						    "window %zu after %zu of "
						    "%zu", f->name, what, k, j,
						 e.n);
					bad = 1;
					break;
				}
				pos++;
			}
			if (bad)
				break;
			if (pos == got->n) {
				rep_fail(r, "%s %s: window %zu ends after %zu "
					    "of %zu items", f->name, what, k, j,
					 e.n);
				bad = 1;
				break;
			}
			if (!it_eq(&got->v[pos], &e.v[j])) {
				rep_fail(r, "%s %s: window %zu item %zu of "
					    "%zu: got %#" PRIx64 "/%#" PRIx64
					    "/%" PRIu64 ", truth %#" PRIx64
					    "/%#" PRIx64 "/%" PRIu64,
					 f->name, what, k, j, e.n,
					 got->v[pos].a, got->v[pos].b,
					 got->v[pos].c, e.v[j].a, e.v[j].b,
					 e.v[j].c);
				bad = 1;
				break;
			}
			pos++;
		}
		it_free(&e);
		if (!bad)
			r->windows_ok++;
		prev_damaged = bad;
	}
	if (!prev_damaged && last)
		for (; pos < got->n; pos++)
			if (got->v[pos].kind == IT_DATA) {
				rep_fail(r, "%s %s cpu %u: data %#" PRIx64
					    " after the last window", f->name,
					 what, cpu, got->v[pos].a);
				break;
			}
	*posp = pos;
}

static void match_cpu(const struct fx *f, uint32_t cpu,
		      const struct items *got, exp_fn exp, const char *what,
		      struct report *r)
{
	size_t pos = 0;

	match_cpu_at(f, cpu, got, &pos, exp, what, 1, r);
}

/* ------------------------------------------------------------------------
 * perf 6.1
 * ---------------------------------------------------------------------- */

static void tmp_setup(void)
{
	snprintf(g_tmp, sizeof(g_tmp), "%s", sy_test_mkdtemp());
}

static void tmp_teardown(void)
{
	if (getenv("SY_FX_KEEP"))
		fprintf(stderr, "kept %s\n", g_tmp);
	else
		sy_test_rmtree(g_tmp);
}

/* A copy perf 6.1 can read: cs_etm AUXTRACE_INFO version 2 -> 1. */
static void perf61_copy(const struct fx *f, const uint8_t *data, size_t len,
			const char *out)
{
	uint8_t *b = malloc(len);
	struct sy_perf_reader *r;
	struct sy_record rec;
	struct sy_diag d;
	int err;

	cr_assert_not_null(b);
	memcpy(b, data, len);
	err = sy_perf_open_mem(&r, data, len, f->name, &d);
	cr_assert_eq(err, 0, "%s", d.msg);
	while ((err = sy_perf_next(r, &rec)) == 0)
		if (rec.type == SY_REC_AUXTRACE_INFO &&
		    sy_le32(rec.data + 8) == SY_AUXTRACE_CS_ETM &&
		    sy_le64(rec.data + 16) == 2) {
			cr_assert(!(rec.flags & SY_RECORD_DECOMPRESSED));
			sy_put64(b + rec.offset + 16, 1);
		}
	cr_assert_eq(err, -SY_E_EOS);
	sy_perf_close(r);
	cr_assert_eq(sy_test_write_file(out, b, len), 0);
	free(b);
}

/* Parses `perf script --itrace=b -F cpu,event,ip,addr` (or perf's default
 * fields) into one item stream per CPU; @merged (per thread: one queue):
 * all into cpu[0], each branch with the CPU perf labels it with in c. */
static void perf_parse(const char *out, struct items *cpu, uint32_t ncpu,
		       int merged)
{
	const char *line = out;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		const char *br = strstr(line, "branches");
		const char *arrow = strstr(line, "=>");
		unsigned c;

		const char *cpu_at = strchr(line, '[');

		if (br && arrow && (!nl || arrow < nl) && cpu_at &&
		    cpu_at < br && sscanf(cpu_at, "[%u]", &c) == 1) {
			const char *q = br;
			uint64_t from, to;

			/* "branches:u:  FROM [sym (dso)] =>  TO ..." */
			while (*q && *q != ' ')
				q++;
			cr_assert_eq(sscanf(q, " %" SCNx64, &from), 1, "%.200s",
				     line);
			cr_assert_eq(sscanf(arrow + 2, " %" SCNx64, &to), 1);
			cr_assert_lt(c, ncpu, "perf cpu %u", c);
			if (!from)
				it_push(&cpu[merged ? 0 : c], IT_ANCHOR, to, 0,
					0);
			else if (!to)
				it_push(&cpu[merged ? 0 : c], IT_MARK, from, 0,
					0);
			else
				it_push(&cpu[merged ? 0 : c], IT_DATA, from, to,
					merged ? c : 0);
		}
		line = nl ? nl + 1 : NULL;
	}
}

/* perf 6.1 learns that TRBE data is raw only from AUX records it peeks at
 * through the AUXTRACE index before decoding; inside compressed records
 * (or without an index, in a pipe) it cannot, falls back to "best effort
 * decoding in piped mode" and decodes the raw bytes as frames. */
static int perf_cannot_decode(const struct fx *f)
{
	return !strcmp(f->sc.sink, "trbe") && (f->sc.compress || f->sc.pipe);
}

static int perf_readable(const struct fx *f)
{
	return f->sc.attr_size <= 128;
}

static void perf61_cuts(struct fx *f, const uint8_t *data, size_t len);

/* Runs perf on @data (the fixture or a mutated copy) and matches. */
static void perf_check(struct fx *f, const uint8_t *data, size_t len,
		       struct report *r)
{
	char file[4200], cmd[40000], root[4096], kopt[4400];
	struct items cpu[FX_SCN_MAX_CPUS];
	uint8_t *skip = NULL;
	char *out = NULL;
	int st;

	/* perf 6.1 configures the raw (TRBE) decoder of every queue with the
	 * first CPU's trace ID and so labels all of them CPU 0 */
	int trbe_smp = !strcmp(f->sc.sink, "trbe") && f->sc.ncpus > 1;

	memset(cpu, 0, sizeof(cpu));
	cr_assert_not_null(getcwd(root, sizeof(root)));
	snprintf(file, sizeof(file), "%s/%s.data", g_tmp, f->name);
	perf61_copy(f, data, len, file);
	/* Pipe-mode files go through a real pipe (perf 6.1 reads a piped
	 * capture only that way), with perf's default fields: without the
	 * AUXTRACE feature (never in a pipe) perf script refuses "-F addr"
	 * for the cycles events. */
	snprintf(cmd, sizeof(cmd),
		 "%s%s%s" T_PERF " --buildid-dir '%s/bid' script -i '%s' "
		 "%s --itrace=%s %s 2>'%s/perf.err'",
		 f->sc.pipe ? "cat '" : "", f->sc.pipe ? file : "",
		 f->sc.pipe ? "' | " : "", g_tmp, f->sc.pipe ? "-" : file,
		 perf_image_opts(f, root, kopt, sizeof(kopt)),
		 !strcmp(f->sc.sink, "etr") || trbe_smp ? "bZ" : "b",
		 f->sc.pipe ? "" : "-F cpu,event,ip,addr", g_tmp);
	st = sy_test_run(cmd, &out, NULL);
	/* where perf 6.1 decodes raw TRBE bytes as frames (its "best
	 * effort"), what it makes of them, its exit status included,
	 * depends on the bytes: the caller checks that it says so and
	 * decodes nothing */
	cr_assert(st == 0 || perf_cannot_decode(f), "%s: perf script exit %d",
		  f->name, st);
	perf_parse(out ? out : "", cpu, FX_SCN_MAX_CPUS, f->sc.per_thread);
	free(out);
	free(f->perf_insns);
	f->perf_insns = NULL;
	/* timeless (Z), perf 6.1 decodes AUX record by AUX record; per
	 * thread it cannot match them with the queue (see
	 * perf_decodes_every_fixture) and decodes whole AUXTRACE buffers */
	if ((!strcmp(f->sc.sink, "etr") || trbe_smp) && !f->sc.per_thread)
		perf61_cuts(f, data, len);
	/* objects over time: timeless, perf reads the code of the file's
	 * end maps for every window (PT: in time order, each window's) */
	if (fx_timed(f) && !fx_is_pt(f)) {
		skip = calloc(f->sc.nwindows + 1, 1);
		cr_assert_not_null(skip);
		cr_assert_gt(win_skip_fill(f, objs_at_end(f), skip), 0,
			     "%s: no window perf can decode", f->name);
		f->win_skip = skip;
	}
	if (trbe_smp) {
		/* every line says CPU 0; timeless, the queues come one
		 * after the other */
		size_t pos = 0;

		for (uint32_t c = 1; c < FX_SCN_MAX_CPUS; c++)
			cr_assert_eq(cpu[c].n, 0);
		for (uint32_t c = 0; c < f->sc.ncpus; c++)
			match_cpu_at(f, c, &cpu[0], &pos, exp_perf, "perf",
				     c + 1 == f->sc.ncpus, r);
	} else {
		/* per thread: the queue's windows in order, whatever CPU
		 * ran them (every branch's CPU label is compared) */
		for (uint32_t c = 0; c < fx_nq(f); c++)
			match_cpu(f, c, &cpu[c], exp_perf, "perf", r);
	}
	for (uint32_t c = 0; c < FX_SCN_MAX_CPUS; c++)
		it_free(&cpu[c]);
	f->win_skip = NULL;
	free(skip);
	free(f->perf_insns);
	f->perf_insns = NULL;
}

/* ------------------------------------------------------------------------
 * The AUX bytes in a perf.data, as perf would queue them.
 * ---------------------------------------------------------------------- */

struct aux_chunk {
	uint32_t cpu;
	uint64_t off, len;
	const uint8_t *p;
};

struct aux {
	struct aux_chunk v[512];
	size_t n;
	struct sy_perf_reader *r;
};

static void aux_open(struct aux *a, const uint8_t *data, size_t len,
		     const char *name)
{
	struct sy_record rec;
	struct sy_event ev;
	struct sy_diag d;
	int err;

	memset(a, 0, sizeof(*a));
	err = sy_perf_open_mem(&a->r, data, len, name, &d);
	cr_assert_eq(err, 0, "%s", d.msg);
	while ((err = sy_perf_next(a->r, &rec)) == 0) {
		if (rec.type != SY_REC_AUXTRACE)
			continue;
		cr_assert_eq(sy_event_parse(&rec, &ev, &d), 0);
		cr_assert_lt(a->n, 512);
		a->v[a->n].cpu = ev.u.auxtrace.cpu;
		a->v[a->n].off = ev.u.auxtrace.offset;
		a->v[a->n].len = rec.aux_size;
		a->v[a->n].p = rec.aux;
		a->n++;
	}
	cr_assert_eq(err, -SY_E_EOS, "%s", sy_perf_diag(a->r)->msg);
}

static void aux_close(struct aux *a)
{
	sy_perf_close(a->r);
}

/* Bytes [off, off + len) of @cpu's AUX area; 0 if all are in the file. */
static int aux_get(const struct aux *a, uint32_t cpu, uint64_t off,
		   uint64_t len, struct fx_buf *out)
{
	uint64_t at = off;

	while (at < off + len) {
		size_t i;

		for (i = 0; i < a->n; i++)
			if (a->v[i].cpu == cpu && a->v[i].off <= at &&
			    at < a->v[i].off + a->v[i].len)
				break;
		if (i == a->n)
			return -1;
		{
			uint64_t n = a->v[i].off + a->v[i].len - at;

			if (n > off + len - at)
				n = off + len - at;
			fx_buf_put(out, a->v[i].p + (at - a->v[i].off),
				   (size_t)n);
			at += n;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Program image for the decoders: the executable PT_LOADs, relocated.
 * ---------------------------------------------------------------------- */

#define IMG_MAX 8

struct img {
	struct {
		uint64_t addr;
		uint8_t *data;
		size_t len;
	} s[IMG_MAX];
	size_t n;
};

/* Adds the executable PT_LOADs of the ELF at @path: at their vaddr plus
 * the load base for ET_DYN (@base_dyn), or, with @map_start, moved so
 * that the first one lands where its MMAP2 says (a shared library). */
static void img_add(struct img *m, const char *path, uint64_t base_dyn,
		    int by_map, uint64_t map_start)
{
	Elf *e;
	GElf_Ehdr eh;
	size_t nph;
	int fd = open(path, O_RDONLY), first = 1;
	uint64_t bias = 0;
	uint8_t *file;
	size_t flen;

	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(e);
	cr_assert_not_null(gelf_getehdr(e, &eh));
	cr_assert_eq(elf_getphdrnum(e, &nph), 0);
	file = sy_test_read_file(path, &flen);
	cr_assert_not_null(file);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		cr_assert_not_null(gelf_getphdr(e, (int)i, &ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (first)
			bias = by_map ? map_start - (ph.p_vaddr & ~0xfffull) :
			       eh.e_type == ET_DYN ? base_dyn :
						     0;
		first = 0;
		cr_assert_lt(m->n, IMG_MAX);
		cr_assert_leq(ph.p_offset + ph.p_filesz, flen);
		m->s[m->n].addr = ph.p_vaddr + bias;
		m->s[m->n].len = ph.p_filesz;
		m->s[m->n].data = malloc(ph.p_filesz);
		memcpy(m->s[m->n].data, file + ph.p_offset, ph.p_filesz);
		m->n++;
	}
	free(file);
	elf_end(e);
	close(fd);
}

/* The program and the objects of the repository mapped with it (libfx;
 * ld.so, a file of the traced system, never runs in a window); for a
 * kernel-mode fixture the kernel image where the recording's map puts it
 * (its _text, the first byte of its code segment, at the map's start),
 * or the module's code. */
static int map_tobj(const struct fx *f, size_t k);

static void img_open_sel(struct img *m, const struct fx *f, uint64_t sel)
{
	memset(m, 0, sizeof(*m));
	/* the run in a module (a map line): the program's linked code where
	 * the module's is, which is the module relocated (fx_gen_module.c) */
	if (fx_is_kernel(f) && !f->sc.nmaps) {
		img_add(m, f->sc.kernel, 0, 1, f->sc.kernel_start);
		return;
	}
	img_add(m, f->sc.binary, f->load_base, 0, 0);
	for (size_t k = 0; k < f->sc.nmaps; k++) {
		char path[300];

		int o = map_tobj(f, k);

		snprintf(path, sizeof(path), ".%s", f->sc.maps[k].path);
		if (o >= 0 && !(sel >> o & 1))
			continue;
		if (strncmp(f->sc.maps[k].path, "/tests/", 7) == 0)
			img_add(m, path, 0, 1, f->sc.maps[k].start);
	}
}

static void img_open(struct img *m, const struct fx *f)
{
	img_open_sel(m, f, UINT64_MAX);
}

static void img_close(struct img *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->s[i].data);
}

/* ------------------------------------------------------------------------
 * Objects over time (truths of version 4: dlfx, fx_truth.h).  The
 * sidecar's map lines are every object the file maps, two of them at one
 * address one after the other (dlfxa, then dlfxb): an oracle given both
 * at once reads one of them for every window.  So each oracle gets the
 * objects of a time: trc_pkt_lister, which decodes window by window, the
 * objects each window runs; libipt, which decodes a CPU's whole stream,
 * the objects of the window its trace offset is in (img_tl); perf 6.1's
 * ETM decoding, timeless, has the maps of the file's end (the objects no
 * later one replaced) and is compared on the windows that ran none of
 * the replaced ones (perf's PT decoding follows the maps in time and is
 * compared on all).  The instructions the oracles give are classified in
 * the window's time (cls_idx).  A truth without times gives every oracle
 * every object, as before.
 * ---------------------------------------------------------------------- */

/* The truth's object (index into hdr.objs) of sidecar map @k, by file
 * name (fx_truth names a local object by it); -1 if none. */
static int map_tobj(const struct fx *f, size_t k)
{
	const char *base = strrchr(f->sc.maps[k].path, '/');

	base = base ? base + 1 : f->sc.maps[k].path;
	for (uint32_t o = 0; o < f->truth.hdr.nobjs && o < 64; o++)
		if (!strcmp(f->truth.hdr.objs[o].name, base) &&
		    f->truth.hdr.objs[o].map_start == f->sc.maps[k].start)
			return (int)o;
	return -1;
}

static int fx_timed(const struct fx *f)
{
	return fx_truth_timed(&f->truth.hdr);
}

/* The truth's objects mapped over the whole run. */
static uint64_t objs_untimed(const struct fx *f)
{
	uint64_t m = 0;

	for (uint32_t o = 0; o < f->truth.hdr.nobjs && o < 64; o++)
		if (!f->truth.hdr.objs[o].from && !f->truth.hdr.objs[o].until)
			m |= 1ull << o;
	return m;
}

/* The truth's objects whose code window @w runs. */
static uint64_t win_objs(const struct fx *f, const struct fx_sc_window *w)
{
	uint64_t m = 0;

	for (size_t s = 0; s < w->nsegs; s++)
		for (uint64_t i = w->segs[s].start; i < w->segs[s].end; i++) {
			int k = fx_truth_object_at_idx(&f->truth,
						       f->truth.insns[i].pc,
						       (size_t)i, NULL, NULL);

			if (k > 0 && k <= 64)
				m |= 1ull << (k - 1);
		}
	return m;
}

/* A truth index at which the objects window @w runs are mapped: its
 * first instruction in a timed object (a window runs code of one time),
 * else its start. */
static size_t win_idx(const struct fx *f, const struct fx_sc_window *w)
{
	const struct fx_truth_hdr *h = &f->truth.hdr;

	for (size_t s = 0; s < w->nsegs; s++)
		for (uint64_t i = w->segs[s].start; i < w->segs[s].end; i++) {
			int k = fx_truth_object_at_idx(&f->truth,
						       f->truth.insns[i].pc,
						       (size_t)i, NULL, NULL);

			if (k > 0 && (h->objs[k - 1].from ||
				      h->objs[k - 1].until))
				return (size_t)i;
		}
	return (size_t)w->start;
}

/* The objects perf 6.1 has at the file's end: each MMAP2 replaces what
 * was at its address, and perf writes no record for an munmap. */
static uint64_t objs_at_end(const struct fx *f)
{
	const struct fx_truth_hdr *h = &f->truth.hdr;
	uint64_t m = 0;

	for (uint32_t o = 0; o < h->nobjs && o < 64; o++) {
		int replaced = 0;

		for (uint32_t j = 0; j < h->nobjs; j++)
			replaced |= j != o && h->objs[j].from > h->objs[o].from &&
				    h->objs[j].map_start < h->objs[o].map_start +
							       h->objs[o].map_len &&
				    h->objs[o].map_start < h->objs[j].map_start +
							       h->objs[j].map_len;
		if (!replaced)
			m |= 1ull << o;
	}
	return m;
}

/* Fills @skip (one per window) for an oracle given the objects @sel: 1
 * where the window runs code of another object.  Returns the number of
 * windows compared. */
static size_t win_skip_fill(const struct fx *f, uint64_t sel, uint8_t *skip)
{
	size_t n = 0;

	for (size_t k = 0; k < f->sc.nwindows; k++) {
		skip[k] = (win_objs(f, &f->sc.windows[k]) & ~sel) != 0;
		n += !skip[k];
	}
	return n;
}

/* ------------------------------------------------------------------------
 * What perf 6.1 loses when it decodes CoreSight trace timeless.
 *
 * perf decodes each AUX record's bytes (a "fragment") on its own, after an
 * OCSD_OP_RESET.  Its element callback answers OCSD_RESP_WAIT at the first
 * Timestamp after every discontinuity (Trace On, NO_SYNC, end of trace:
 * cs_etm_decoder__do_hard_timestamp) and when its packet queue is full
 * (1023 packets); after a WAIT it drains the queue and sends
 * OCSD_OP_FLUSH, but only while bytes of the fragment remain: its loop is
 * `do { decode; process queue } while (buf_len)`.  When the WAIT comes on
 * the OCSD_OP_DATA call that took the fragment's last bytes (the frame
 * deformatter takes whole frames, so with ETR frames a Timestamp in the
 * last frame or two does it), nothing flushes the elements OpenCSD still
 * holds, and the next fragment's reset drops them: perf never sees the
 * rest of that window (e.g. etm4-etr-samples window 0, whose third
 * segment starts 3 bytes before the end of its last frame).  trc_pkt_lister
 * decodes the same bytes completely.
 *
 * perf61_cuts drives OpenCSD through the C API exactly that way over each
 * fragment of the file and counts the instructions of the ranges perf gets;
 * the windows of a fragment that loses elements are then compared with
 * perf only up to there (exp_perf).  A window perf sees nothing of is
 * skipped.
 * ---------------------------------------------------------------------- */

#define PERF61_QUEUE 1024	/* CS_ETM_PACKET_MAX_BUFFER */

struct perf61_sim {
	const struct img *m;
	int ts_wait;		/* the next Timestamp makes perf WAIT */
	unsigned queued;	/* packets perf holds, drained at each return */
	uint64_t insns;		/* instructions of the ranges delivered */
};

static uint32_t perf61_mem(const void *ctx, const ocsd_vaddr_t addr,
			   const ocsd_mem_space_acc_t space,
			   const uint32_t n, uint8_t *buf)
{
	const struct img *m = ctx;

	(void)space;
	for (size_t i = 0; i < m->n; i++)
		if (addr >= m->s[i].addr && addr < m->s[i].addr + m->s[i].len) {
			uint64_t k = m->s[i].addr + m->s[i].len - addr;

			if (k > n)
				k = n;
			memcpy(buf, m->s[i].data + (addr - m->s[i].addr), k);
			return (uint32_t)k;
		}
	return 0;
}

static ocsd_datapath_resp_t perf61_queue(struct perf61_sim *p)
{
	return ++p->queued >= PERF61_QUEUE - 1 ? OCSD_RESP_WAIT :
						  OCSD_RESP_CONT;
}

static ocsd_datapath_resp_t perf61_elem(const void *ctx,
					const ocsd_trc_index_t idx,
					const uint8_t id,
					const ocsd_generic_trace_elem *el)
{
	struct perf61_sim *p = (struct perf61_sim *)(uintptr_t)ctx;

	(void)idx;
	(void)id;
	switch (el->elem_type) {
	case OCSD_GEN_TRC_ELEM_EO_TRACE:
	case OCSD_GEN_TRC_ELEM_NO_SYNC:
	case OCSD_GEN_TRC_ELEM_TRACE_ON:
		p->ts_wait = 1;
		return perf61_queue(p);
	case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
		p->insns += el->num_instr_range;
		return perf61_queue(p);
	case OCSD_GEN_TRC_ELEM_EXCEPTION:
	case OCSD_GEN_TRC_ELEM_EXCEPTION_RET:
		return perf61_queue(p);
	case OCSD_GEN_TRC_ELEM_TIMESTAMP:
		if (p->ts_wait) {
			p->ts_wait = 0;
			return OCSD_RESP_WAIT;
		}
		return OCSD_RESP_CONT;
	default:
		return OCSD_RESP_CONT;
	}
}

/* Instructions perf 6.1 sees of fragment @b of @cpu (UINT64_MAX: all). */
static uint64_t perf61_fragment(const struct fx *f, const struct img *m,
				uint32_t cpu, const uint8_t *b, size_t len)
{
	int etr = !strcmp(f->sc.sink, "etr");
	struct perf61_sim p;
	struct fx_etm_config cfg;
	struct fx_etm_regs r;
	dcd_tree_handle_t dt;
	ocsd_datapath_resp_t prev = OCSD_RESP_CONT;
	size_t used = 0;
	uint8_t csid;

	memset(&p, 0, sizeof(p));
	p.m = m;
	p.ts_wait = 1;
	fx_etm_config_init(&cfg);
	cfg.arch = !strcmp(f->sc.trace, "ete") ? FX_ETM_ETE : FX_ETM_V4;
	cfg.trace_id = (uint8_t)(0x10 + 2 * cpu);
	cfg.timestamps = f->scn.timestamps;
	cfg.context_id = f->scn.context_id;
	fx_etm_regs(&cfg, &r);
	dt = ocsd_create_dcd_tree(etr ? OCSD_TRC_SRC_FRAME_FORMATTED :
					OCSD_TRC_SRC_SINGLE,
				  etr ? OCSD_DFRMTR_FRAME_MEM_ALIGN |
						OCSD_DFRMTR_RESET_ON_4X_FSYNC :
					0);
	cr_assert_not_null(dt);
	if (cfg.arch == FX_ETM_ETE) {
		ocsd_ete_cfg c;

		memset(&c, 0, sizeof(c));
		c.reg_configr = r.trcconfigr;
		c.reg_traceidr = r.trctraceidr;
		c.reg_idr0 = r.trcidr0;
		c.reg_idr1 = r.trcidr1;
		c.reg_idr2 = r.trcidr2;
		c.reg_idr8 = r.trcidr8;
		c.reg_devarch = r.trcdevarch;
		c.arch_ver = ARCH_AA64;
		c.core_prof = profile_CortexA;
		cr_assert_eq(ocsd_dt_create_decoder(dt, OCSD_BUILTIN_DCD_ETE,
						    OCSD_CREATE_FLG_FULL_DECODER,
						    &c, &csid),
			     OCSD_OK);
	} else {
		ocsd_etmv4_cfg c;

		memset(&c, 0, sizeof(c));
		c.reg_configr = r.trcconfigr;
		c.reg_traceidr = r.trctraceidr;
		c.reg_idr0 = r.trcidr0;
		c.reg_idr1 = r.trcidr1;
		c.reg_idr2 = r.trcidr2;
		c.reg_idr8 = r.trcidr8;
		c.arch_ver = ARCH_AA64;
		c.core_prof = profile_CortexA;
		cr_assert_eq(ocsd_dt_create_decoder(dt, OCSD_BUILTIN_DCD_ETMV4I,
						    OCSD_CREATE_FLG_FULL_DECODER,
						    &c, &csid),
			     OCSD_OK);
	}
	cr_assert_eq(ocsd_dt_add_callback_mem_acc(dt, 0, UINT64_MAX - 0x1000,
						  OCSD_MEM_SPACE_ANY,
						  perf61_mem, m),
		     OCSD_OK);
	cr_assert_eq(ocsd_dt_set_gen_elem_outfn(dt, perf61_elem, &p),
		     OCSD_OK);
	ocsd_dt_process_data(dt, OCSD_OP_RESET, 0, 0, NULL, NULL);
	/* cs_etm__decode_data_block + cs_etm_decoder__process_data_block */
	while (used < len && !OCSD_DATA_RESP_IS_FATAL(prev)) {
		size_t done = 0;

		while (done < len - used) {
			ocsd_datapath_resp_t cur;
			uint32_t n = 0;

			if (OCSD_DATA_RESP_IS_WAIT(prev))
				cur = ocsd_dt_process_data(dt, OCSD_OP_FLUSH, 0,
							   0, NULL, NULL);
			else
				cur = ocsd_dt_process_data(
					dt, OCSD_OP_DATA, used + done,
					(uint32_t)(len - used - done),
					b + used + done, &n);
			done += n;
			prev = cur;
			if (!OCSD_DATA_RESP_IS_CONT(cur))
				break;
		}
		used += done;
		p.queued = 0;	/* cs_etm__process_traceid_queue */
	}
	ocsd_destroy_dcd_tree(dt);
	return OCSD_DATA_RESP_IS_WAIT(prev) ? p.insns : UINT64_MAX;
}

/* Instructions of window @w that a decoder can see (overflow-lost ones
 * are not in the trace). */
static uint64_t win_traced(const struct fx *f, const struct fx_sc_window *w)
{
	struct part p[MAX_PARTS];
	size_t np = win_parts(f, w, p, MAX_PARTS);
	uint64_t n = 0;

	for (size_t k = 0; k < np; k++)
		n += p[k].hi - p[k].lo;
	return n;
}

/* Sets f->perf_insns from the AUX records of @data (see above). */
static void perf61_cuts(struct fx *f, const uint8_t *data, size_t len)
{
	struct sy_perf_reader *r;
	struct sy_record rec;
	struct sy_event ev;
	struct sy_diag d;
	struct aux a;
	struct img m;
	int err;

	f->perf_insns = malloc((f->sc.nwindows + 1) * sizeof(uint64_t));
	cr_assert_not_null(f->perf_insns);
	for (size_t k = 0; k < f->sc.nwindows; k++)
		f->perf_insns[k] = UINT64_MAX;
	aux_open(&a, data, len, f->name);
	img_open_sel(&m, f, fx_timed(f) ? objs_at_end(f) : UINT64_MAX);
	cr_assert_eq(sy_perf_open_mem(&r, data, len, f->name, &d), 0, "%s",
		     d.msg);
	while ((err = sy_perf_next(r, &rec)) == 0) {
		uint64_t off, size, seen;
		struct fx_buf b;

		if (rec.type != SY_REC_AUX)
			continue;
		cr_assert_eq(sy_event_parse(&rec, &ev, &d), 0);
		off = ev.u.aux.aux_offset;
		size = ev.u.aux.aux_size;
		fx_buf_init(&b);
		if (!size || aux_get(&a, ev.sid.cpu, off, size, &b) < 0) {
			fx_buf_fini(&b);	/* lost: those windows are
						 * truncated, not compared */
			continue;
		}
		seen = perf61_fragment(f, &m, ev.sid.cpu, b.data, b.len);
		fx_buf_fini(&b);
		if (seen == UINT64_MAX)
			continue;
		/* the fragment's windows, in order, get what perf saw */
		for (size_t k = 0; k < f->sc.nwindows; k++) {
			const struct fx_sc_window *w = &f->sc.windows[k];
			uint64_t t;

			if (w->cpu != ev.sid.cpu || w->aux_off < off ||
			    w->aux_off >= off + size)
				continue;
			t = win_traced(f, w);
			f->perf_insns[k] = seen < t ? seen : UINT64_MAX;
			seen -= seen < t ? seen : t;
			if (!win_damaged(w))	/* those are not compared */
				cr_log_info("%s: perf 6.1 sees %" PRIu64
					    " of the %" PRIu64 " instructions "
					    "of window %zu", f->name,
					    f->perf_insns[k] == UINT64_MAX ?
						    t :
						    f->perf_insns[k],
					    t, k);
		}
	}
	cr_assert_eq(err, -SY_E_EOS, "%s", sy_perf_diag(r)->msg);
	sy_perf_close(r);
	img_close(&m);
	aux_close(&a);
}

/* ------------------------------------------------------------------------
 * trc_pkt_lister on one window.
 * ---------------------------------------------------------------------- */

/* Ranges into @l; the preferred return addresses of IRQ exceptions (the
 * interrupts that end segments) into @irq, each with the number of ranges
 * decoded before it (b). */
static void lister_ranges(const char *out, struct items *l, struct items *irq,
			  int *errors)
{
	const char *line = out;

	while (line && *line) {
		const char *x = strstr(line, "OCSD_GEN_TRC_ELEM_EXCEPTION(");
		const char *nl0 = strchr(line, '\n');

		if (x && (!nl0 || x < nl0)) {
			uint64_t ret;
			unsigned num;

			const char *en = strstr(x, "excep num (0x");

			/* "...addr:0x400850 [addr also prev br tgt]; excep
			 * num (0x0e)" for the E1 form */
			cr_assert_eq(sscanf(x, "OCSD_GEN_TRC_ELEM_EXCEPTION("
					    "pref ret addr:0x%" SCNx64, &ret),
				     1, "%.120s", x);
			cr_assert(en && sscanf(en, "excep num (0x%x)", &num) ==
					       1, "%.120s", x);
			if (num == 0x0e)
				it_push(irq, IT_DATA, ret, l->n, 0);
		}
		const char *nl = strchr(line, '\n');
		const char *r = strstr(line, "OCSD_GEN_TRC_ELEM_INSTR_RANGE(");

		if (r && (!nl || r < nl)) {
			uint64_t st, en;
			unsigned n;

			const char *isa = strstr(r, "(ISA=");
			const char *en_flag = isa ? strchr(isa, ')') : NULL;

			cr_assert_eq(sscanf(r, "OCSD_GEN_TRC_ELEM_INSTR_RANGE("
					    "exec range=0x%" SCNx64 ":[0x%" SCNx64
					    "] num_i(%u)", &st, &en, &n), 3);
			cr_assert(en_flag && (en_flag[2] == 'E' ||
					      en_flag[2] == 'N'));
			it_push(l, IT_DATA, st, en,
				n | (uint64_t)(en_flag[2] == 'E') << 40);
		}
		r = strstr(line, "OCSD_ERR");
		if (r && (!nl || r < nl))
			(*errors)++;
		line = nl ? nl + 1 : NULL;
	}
}

/* Every context trc_pkt_lister decodes is at the level the fixture
 * traces: EL1 (cs_etm//k) for a kernel-mode fixture, EL0 otherwise. */
static void lister_levels(const struct fx *f, const char *out,
			  const struct fx_sc_window *w, struct report *r)
{
	const char *want = fx_is_kernel(f) ? ") EL1N;" : ") EL0N;";
	const char *p = out;

	while ((p = strstr(p, "OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=A64")) !=
	       NULL) {
		const char *nl = strchr(p, '\n');
		const char *el = strstr(p, want);

		if (!el || (nl && el > nl)) {
			rep_fail(r, "%s lister: window %u: %.70s (want %s)",
				 f->name, w->idx, p, want);
			return;
		}
		p += 10;
	}
}

/* Every segment that ends with an interrupt ends with an IRQ exception
 * whose preferred return address is the next instruction of its thread:
 * for the last segment the pause sample's IP.  Returns 1 if so. */
static int irq_check(const struct fx *f, const struct fx_sc_window *w,
		     const struct items *irq, size_t k, struct report *r)
{
	size_t j = 0;

	for (size_t s = 0; s < w->nsegs; s++) {
		uint64_t want = f->in[w->segs[s].end - 1].next;

		if (w->segs[s].end_kind != FX_SEG_IRQ)
			continue;
		if (j >= irq->n || irq->v[j].a != want) {
			rep_fail(r, "%s lister: window %zu segment %zu: IRQ "
				    "return %#" PRIx64 ", truth %#" PRIx64,
				 f->name, k, s, j < irq->n ? irq->v[j].a : 0,
				 want);
			return 0;
		}
		j++;
	}
	if (j != irq->n) {
		rep_fail(r, "%s lister: window %zu has %zu IRQs, truth %zu",
			 f->name, k, irq->n, j);
		return 0;
	}
	if (w->pause != FX_SC_NONE && w->nsegs &&
	    w->segs[w->nsegs - 1].end_kind == FX_SEG_IRQ &&
	    irq->v[irq->n - 1].a != f->sc.pauses[w->pause].ip) {
		rep_fail(r, "%s lister: window %zu ends at %#" PRIx64
			    ", pause sample ip %#" PRIx64, f->name, k,
			 irq->v[irq->n - 1].a, f->sc.pauses[w->pause].ip);
		return 0;
	}
	return 1;
}

/* A taken branch at static-or-relocated @pc in the decoders' view: a
 * branch instruction other than a syscall (the truth's taken() for the
 * instruction, whose successor the caller knows to differ from the fall
 * through). */
static int branch_at(const struct fx *f, uint64_t pc, struct fx_class *c)
{
	int err = classify_rt(f, pc, c);

	cr_assert_eq(err, 0, "%s: classify %#" PRIx64, f->name, pc);
	return c->kind != SY_BR_NONE && c->kind != SY_BR_SYSCALL;
}

/* The sampling-event samples of window @k, in time order, through @fn. */
static const struct fx_sc_sample *win_sample(const struct fx *f, size_t k,
					     size_t *at)
{
	while (*at < f->sc.nsamples)
		if (f->sc.samples[(*at)++].window == k)
			return &f->sc.samples[*at - 1];
	return NULL;
}

/* Does the interrupt of sampling-event sample @x show as an exception?
 * Not when the instruction before it was a syscall: the kernel had been
 * entered already and the trace shows that instead (fx_sidecar.h). */
static int sample_irq_shows(const struct fx *f, const struct fx_sc_window *w,
			    const struct fx_sc_sample *x)
{
	long s = sample_segment(f, w, x);

	return s < 0 || w->segs[s].end_kind == FX_SEG_IRQ;
}

/* Whether the traced instruction at position @pos of window @w (0: its
 * first) is where its thread came in after running elsewhere, or another
 * thread's: a segment that does not go on from the one before.  A stack
 * starts there again (fx_gen_sidecar.c, sample_stack). */
static int seg_gap_at(const struct fx_sc_window *w, uint64_t pos)
{
	uint64_t n = 0;

	for (size_t s = 0; s < w->nsegs && n <= pos; s++) {
		if (n == pos)
			return s > 0 && w->segs[s - 1].end != w->segs[s].start;
		n += w->segs[s].end - w->segs[s].start;
	}
	return 0;
}

/* Every sampling-event sample inside window @k shows in its decode by
 * trc_pkt_lister (@got ranges, @irq exceptions): an IRQ exception whose
 * return address is the sample's IP, after exactly the sample's nbr taken
 * branches of the window (E ranges ending with a branch).  Returns 1 if
 * so. */
static int lister_samples_check(const struct fx *f, size_t k,
				const struct items *got,
				const struct items *irq, struct report *r)
{
	const struct fx_sc_window *w = &f->sc.windows[k];
	const struct fx_sc_sample *x;
	size_t at = 0, j = 0;

	while ((x = win_sample(f, k, &at)) != NULL) {
		if (!sample_irq_shows(f, w, x))
			continue;
		for (; j < irq->n; j++) {
			uint64_t nbr = 0, pos = 0;

			if (irq->v[j].a != x->ip)
				continue;
			for (size_t q = 0; q < irq->v[j].b; q++) {
				struct fx_class c;
				uint64_t last = got->v[q].b - 4;	/* A64 */

				if (seg_gap_at(w, pos))
					nbr = 0;
				pos += (got->v[q].b - got->v[q].a) / 4;
				nbr += (got->v[q].c >> 40) &&
				       branch_at(f, last, &c);
				/* an SVC after which the trace goes on
				 * elsewhere: the stack starts again */
				if (q + 1 < got->n && c.kind == SY_BR_SYSCALL &&
				    got->v[q + 1].a != got->v[q].b)
					nbr = 0;
			}
			if (nbr == x->nbr)
				break;
		}
		if (j == irq->n) {
			rep_fail(r, "%s lister: window %zu: no IRQ at %#" PRIx64
				    " after %zu branches (sample %u)", f->name,
				 k, x->ip, x->nbr, x->idx);
			return 0;
		}
		j++;
	}
	return 1;
}

/* Decodes window @k's bytes (from @a) and compares the ranges. */
static void lister_window(const struct fx *f, const struct aux *a,
			  const struct img *m, size_t k, struct report *r)
{
	const struct fx_sc_window *w = &f->sc.windows[k];
	int etr = !strcmp(f->sc.sink, "etr");
	struct fx_snap_source src[FX_SCN_MAX_CPUS];
	uint32_t nsrc = 0, cpus = 0;
	struct fx_snap_mem mem[IMG_MAX];
	struct fx_etm_config cfg;
	struct fx_snap sn;
	struct fx_buf b;
	struct items got = { 0 }, e = { 0 }, irq = { 0 };
	char dir[4300], cmd[8800];
	char *out = NULL;
	int st, errors = 0;

	fx_buf_init(&b);
	if (aux_get(a, fx_qkey(f, w->cpu), w->aux_off, w->aux_len, &b) < 0) {
		/* its chunk is not in the file: must be marked so */
		if (!(w->status & FX_ST_TRUNCATED))
			rep_fail(r, "%s lister: window %zu bytes missing",
				 f->name, k);
		fx_buf_fini(&b);
		r->windows_skipped++;
		return;
	}
	/* the ETM of every CPU the window ran on (per thread, its pieces
	 * carry their CPUs' trace IDs) */
	cpus = 1u << w->cpu;
	for (size_t q = 0; q < w->nsegs; q++)
		cpus |= 1u << w->segs[q].cpu;
	memset(src, 0, sizeof(src));
	for (uint32_t c = 0; c < FX_SCN_MAX_CPUS; c++) {
		if (!(cpus >> c & 1))
			continue;
		fx_etm_config_init(&cfg);
		cfg.arch = !strcmp(f->sc.trace, "ete") ? FX_ETM_ETE :
							 FX_ETM_V4;
		cfg.trace_id = (uint8_t)(0x10 + 2 * c);
		cfg.timestamps = f->scn.timestamps;
		cfg.context_id = f->scn.context_id;
		src[nsrc].arch = cfg.arch;
		fx_etm_regs(&cfg, &src[nsrc].regs);
		nsrc++;
	}
	for (size_t i = 0; i < m->n; i++) {
		mem[i].addr = m->s[i].addr;
		mem[i].data = m->s[i].data;
		mem[i].len = m->s[i].len;
	}
	memset(&sn, 0, sizeof(sn));
	sn.src = src;
	sn.nsrc = nsrc;
	sn.mem = mem;
	sn.nmem = m->n;
	sn.trace = b.data;
	sn.trace_len = b.len;
	sn.formatted = etr;
	snprintf(dir, sizeof(dir), "%s/snap", g_tmp);
	cr_assert_eq(fx_snapshot_write(dir, &sn), 0);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && timeout 120 trc_pkt_lister -ss_dir . -decode "
		 "-logstdout", dir);
	st = sy_test_run(cmd, &out, NULL);
	cr_assert_eq(st, 0, "trc_pkt_lister exit %d", st);
	lister_ranges(out, &got, &irq, &errors);
	lister_levels(f, out, w, r);
	free(out);
	fx_buf_fini(&b);

	exp_ranges(f, w, &e);
	if ((w->status & FX_ST_DECODE_ERROR) && f->scn.have_anon &&
	    fx_scn_wknob_find(&f->scn.corrupt, k) < 0) {
		/* code with no file (anon): the trace is sound and the
		 * lister reads the program's file, whose bytes the //anon
		 * mapping holds: it must decode the truth */
		int same = got.n == e.n && !errors;

		for (size_t j = 0; same && j < e.n; j++)
			same = it_eq(&got.v[j], &e.v[j]);
		if (!same)
			rep_fail(r, "%s lister: window %zu in code with no "
				    "file is not the truth", f->name, k);
		r->windows_skipped++;
	} else if (w->status & FX_ST_DECODE_ERROR) {
		/* the corruption must show: not the truth */
		int same = got.n == e.n && !errors;

		for (size_t j = 0; same && j < e.n; j++)
			same = it_eq(&got.v[j], &e.v[j]);
		if (same)
			rep_fail(r, "%s lister: corrupted window %zu decodes "
				    "like the truth", f->name, k);
		r->windows_skipped++;
	} else if (w->status & FX_ST_TRUNCATED) {
		/* a prefix of the truth */
		for (size_t j = 0; j + 1 < got.n; j++)
			if (j >= e.n || !it_eq(&got.v[j], &e.v[j])) {
				rep_fail(r, "%s lister: truncated window %zu "
					    "range %zu is not the truth's",
					 f->name, k, j);
				break;
			}
		r->windows_skipped++;
	} else if (errors || got.n != e.n) {
		rep_fail(r, "%s lister: window %zu: %zu ranges (%d errors), "
			    "truth %zu", f->name, k, got.n, errors, e.n);
	} else {
		size_t j;

		for (j = 0; j < e.n; j++)
			if (!it_eq(&got.v[j], &e.v[j])) {
				rep_fail(r, "%s lister: window %zu range %zu: "
					    "%#" PRIx64 "-%#" PRIx64 " (%" PRIu64
					    "), truth %#" PRIx64 "-%#" PRIx64
					    " (%" PRIu64 ")", f->name, k, j,
					 got.v[j].a, got.v[j].b, got.v[j].c,
					 e.v[j].a, e.v[j].b, e.v[j].c);
				break;
			}
		if (j == e.n && irq_check(f, w, &irq, k, r) &&
		    lister_samples_check(f, k, &got, &irq, r))
			r->windows_ok++;
	}
	it_free(&got);
	it_free(&e);
	it_free(&irq);
}

static void lister_check(const struct fx *f, const uint8_t *data,
			 size_t len, struct report *r)
{
	struct aux a;
	struct img m;

	aux_open(&a, data, len, f->name);
	if (!fx_timed(f)) {
		img_open(&m, f);
		for (size_t k = 0; k < f->sc.nwindows; k++)
			lister_window(f, &a, &m, k, r);
		img_close(&m);
	}
	/* objects over time: each window with the objects it runs */
	for (size_t k = 0; fx_timed(f) && k < f->sc.nwindows; k++) {
		struct fx g = *f;

		g.cls_idx = win_idx(f, &f->sc.windows[k]);
		img_open_sel(&m, f, objs_untimed(f) |
					    win_objs(f, &f->sc.windows[k]));
		lister_window(&g, &a, &m, k, r);
		img_close(&m);
	}
	aux_close(&a);
}

/* ------------------------------------------------------------------------
 * libipt's block decoder on each CPU's PT stream.
 * ---------------------------------------------------------------------- */

static int img_read(uint8_t *buffer, size_t size,
		    const struct pt_asid *asid, uint64_t ip, void *ctx)
{
	const struct img *m = ctx;

	(void)asid;
	for (size_t i = 0; i < m->n; i++)
		if (ip >= m->s[i].addr && ip < m->s[i].addr + m->s[i].len) {
			size_t n = m->s[i].addr + m->s[i].len - ip;

			if (n > size)
				n = size;
			memcpy(buffer, m->s[i].data + (ip - m->s[i].addr), n);
			return (int)n;
		}
	return -pte_nomap;
}

/* Expands a block into instructions: inside a block execution only falls
 * through or follows direct jumps and calls, so the classifier's sizes and
 * targets give every address. */
static void blk_expand(const struct fx *f, const struct pt_block *b,
		       struct items *out)
{
	uint64_t ip = b->ip;

	for (unsigned i = 0; i < b->ninsn; i++) {
		struct fx_class c;
		int err;

		it_push(out, IT_DATA, ip, 0, 0);
		if (i + 1 == b->ninsn)
			break;
		err = classify_rt(f, ip, &c);
		cr_assert_eq(err, 0, "classify %#" PRIx64, ip);
		/* direct jumps and calls need no trace: blocks go on at
		 * their target */
		if ((c.kind == SY_BR_JUMP || c.kind == SY_BR_CALL) &&
		    c.has_target)
			ip = c.target;
		else
			ip += c.size;
	}
	cr_assert_eq(ip, b->end_ip, "block %#" PRIx64 "..%#" PRIx64
		     " (%u insns) expands to %#" PRIx64, b->ip, b->end_ip,
		     b->ninsn, ip);
}

/* libipt's memory with objects over time: the objects of the window the
 * decoder is in, found by its trace offset where the trace is enabled (a
 * window runs code of one time: objects over time, above), as a decoder
 * that follows the maps' timeline reads them.  One image per set of
 * objects, made when first needed. */
#define IMG_TL_MAX 8

struct img_tl {
	const struct fx *f;
	struct pt_block_decoder *d;
	uint32_t q;		/* the queue (win_in_q) */
	uint64_t run_off;	/* AUX offset of the decoded buffer's start */
	struct img img[IMG_TL_MAX];
	uint64_t sel[IMG_TL_MAX];
	size_t n, cur;
	size_t idx;		/* cls_idx of the current window */
};

static void img_tl_close(struct img_tl *t)
{
	for (size_t i = 0; i < t->n; i++)
		img_close(&t->img[i]);
}

/* Moves @t to the window of the last packet the decoder read (if that
 * is in one). */
static void img_tl_follow(struct img_tl *t)
{
	const struct fx *f = t->f;
	uint64_t off, sel;
	size_t i;

	/* the offset of the next packet: the last one read ends before */
	if (pt_blk_get_offset(t->d, &off) < 0 || !off)
		return;
	off += t->run_off - 1;
	for (size_t k = 0; k < f->sc.nwindows; k++) {
		const struct fx_sc_window *w = &f->sc.windows[k];

		if (!win_in_q(f, w, t->q) || off < w->aux_off ||
		    off >= w->aux_off + w->aux_len)
			continue;
		sel = objs_untimed(f) | win_objs(f, w);
		for (i = 0; i < t->n && t->sel[i] != sel; i++)
			;
		if (i == t->n) {
			cr_assert_lt(t->n, IMG_TL_MAX);
			img_open_sel(&t->img[i], f, sel);
			t->sel[t->n++] = sel;
		}
		t->cur = i;
		t->idx = win_idx(f, w);
		return;
	}
}

static int img_tl_read(uint8_t *buffer, size_t size,
		       const struct pt_asid *asid, uint64_t ip, void *ctx)
{
	struct img_tl *t = ctx;

	return img_read(buffer, size, asid, ip, &t->img[t->cur]);
}

/* Decodes @buf (AUX offset @run_off of queue @q) into @out, reading @m,
 * or with objects over time the image of each window's time. */
static void pt_decode(const struct fx *f, const uint8_t *buf, size_t len,
		      struct img *m, uint32_t q, uint64_t run_off,
		      struct items *out)
{
	struct pt_config cfg;
	struct pt_block_decoder *d;
	struct pt_image *image;
	struct fx_pt_hw hw;
	struct img_tl *tl = NULL;
	struct fx g = *f;
	int st;

	pt_config_init(&cfg);
	fx_pt_hw_init(&hw);
	cr_assert_eq(fx_pt_hw_pt_config(&hw, &cfg), 0);
	cfg.begin = (uint8_t *)(uintptr_t)buf;
	cfg.end = (uint8_t *)(uintptr_t)buf + len;
	d = pt_blk_alloc_decoder(&cfg);
	cr_assert_not_null(d);
	image = pt_blk_get_image(d);
	if (fx_timed(f)) {
		tl = calloc(1, sizeof(*tl));
		cr_assert_not_null(tl);
		tl->f = f;
		tl->d = d;
		tl->q = q;
		tl->run_off = run_off;
		img_open_sel(&tl->img[0], f, objs_untimed(f));
		tl->sel[0] = objs_untimed(f);
		tl->n = 1;
		tl->idx = SIZE_MAX;
		cr_assert_eq(pt_image_set_callback(image, img_tl_read, tl), 0);
	} else {
		cr_assert_eq(pt_image_set_callback(image, img_read, m), 0);
	}
	for (;;) {
		st = pt_blk_sync_forward(d);
		if (st == -pte_eos)
			break;
		if (st < 0) {
			it_push(out, IT_ERROR, (uint64_t)-st, 0, 0);
			break;
		}
		for (;;) {
			struct pt_block b;

			while (st & pts_event_pending) {
				struct pt_event ev;

				st = pt_blk_event(d, &ev, sizeof(ev));
				if (st < 0)
					break;
				/* a window (or its part after an interrupt)
				 * begins: its image until the next one (the
				 * decoder reads packets ahead, into the next
				 * window before this one's last blocks) */
				if (ev.type == ptev_enabled && tl)
					img_tl_follow(tl);
				if (ev.type == ptev_enabled)
					it_push(out, IT_ANCHOR,
						ev.variant.enabled.ip, 0, 0);
				else if (ev.type == ptev_async_disabled)
					it_push(out, IT_MARK,
						ev.variant.async_disabled.at, 1,
						0);
				else if (ev.type == ptev_disabled ||
					 ev.type == ptev_overflow)
					it_push(out, IT_MARK, 0, 0, 0);
			}
			if (st < 0)
				break;
			if (tl)
				g.cls_idx = tl->idx;
			st = pt_blk_next(d, &b, sizeof(b));
			if (b.ninsn)
				blk_expand(&g, &b, out);
			if (st < 0)
				break;
		}
		if (st == -pte_eos)
			break;
		it_push(out, IT_ERROR, (uint64_t)-st, 0, 0);
	}
	pt_blk_free_decoder(d);
	if (tl)
		img_tl_close(tl);
	free(tl);
}

/* Every sampling-event sample inside an intact window of @cpu shows in
 * libipt's decode @got: a FUP + TIP.PGD at the sample's IP after exactly
 * the sample's nbr taken branches since the window's first instruction
 * (counted from the decoded instructions: a branch whose successor is not
 * its fall-through).  Windows are found as match_cpu finds them: an
 * anchor at the first instruction, then as many instructions as the
 * window traced. */
static void libipt_samples_check(const struct fx *f, uint32_t cpu,
				 const struct items *got, struct report *r)
{
	struct fx g = *f;	/* classify_rt in each window's time */
	size_t q = 0;

	for (size_t k = 0; k < f->sc.nwindows; k++) {
		const struct fx_sc_window *w = &f->sc.windows[k];
		const struct fx_sc_sample *x;
		uint64_t left = win_traced(f, w), nbr = 0, prev = 0, pos = 0;
		size_t at = 0;
		int have_prev = 0;

		if (!win_in_q(f, w, cpu) || win_damaged(w) || !w->nsegs ||
		    w->has_lost)
			continue;
		if (fx_timed(f))
			g.cls_idx = win_idx(f, w);
		while (q < got->n && !(got->v[q].kind == IT_ANCHOR &&
				       got->v[q].a == w->start_ip))
			q++;
		if (q == got->n) {
			rep_fail(r, "%s libipt: window %zu not found", f->name,
				 k);
			return;
		}
		do
			x = win_sample(f, k, &at);
		while (x && !sample_irq_shows(f, w, x));
		/* its instructions, and the marks up to the next one */
		for (; q < got->n; q++) {
			const struct item *it = &got->v[q];
			struct fx_class c;

			if (!left && (it->kind == IT_DATA ||
				      it->kind == IT_ANCHOR))
				break;
			if (it->kind == IT_DATA) {
				left--;
				if (have_prev && branch_at(&g, prev, &c) &&
				    it->a != prev + c.size)
					nbr++;
				/* where the thread came in after running
				 * elsewhere: the stack starts again */
				if (seg_gap_at(w, pos++))
					nbr = 0;
				/* a syscall after which user space went on
				 * elsewhere: the stack starts again */
				if (have_prev && c.kind == SY_BR_SYSCALL &&
				    it->a != prev + c.size)
					nbr = 0;
				prev = it->a;
				have_prev = 1;
			}
			/* a FUP's IP is the next instruction: the branch
			 * before it counts if that is not its fall-through */
			if (x && it->kind == IT_MARK && it->b == 1 &&
			    it->a == x->ip &&
			    nbr + (have_prev && branch_at(&g, prev, &c) &&
				   it->a != prev + c.size) == x->nbr) {
				do
					x = win_sample(f, k, &at);
				while (x && !sample_irq_shows(f, w, x));
			}
		}
		if (x) {
			rep_fail(r, "%s libipt: window %zu: no FUP+PGD at %#"
				    PRIx64 " after %zu branches (sample %u)",
				 f->name, k, x->ip, x->nbr, x->idx);
			return;
		}
	}
}

static void libipt_check(const struct fx *f, const uint8_t *data,
			 size_t len, struct report *r)
{
	struct aux a;
	struct img m;

	aux_open(&a, data, len, f->name);
	img_open(&m, f);
	for (uint32_t c = 0; c < fx_nq(f); c++) {
		struct items got = { 0 };
		uint64_t at = 0, key = fx_qkey(f, c);

		/* contiguous runs of the AUX area, as perf queues them */
		for (size_t i = 0; i < a.n; i++) {
			struct fx_buf b;
			uint64_t end, run_off;

			if (a.v[i].cpu != key || a.v[i].off < at)
				continue;
			fx_buf_init(&b);
			end = a.v[i].off;
			run_off = end;
			if (end != at && got.n)	/* a gap: lost chunk */
				it_push(&got, IT_ERROR, 0, 0, 0);
			/* gather this run */
			for (size_t j = i; j < a.n; j++) {
				if (a.v[j].cpu != key)
					continue;
				if (a.v[j].off != end)
					break;
				fx_buf_put(&b, a.v[j].p, a.v[j].len);
				/* AUXTRACE sizes are padded: the next chunk
				 * starts at the unpadded end, which the
				 * next record's offset tells */
				end = a.v[j].off + a.v[j].len;
				for (size_t q = j + 1; q < a.n; q++)
					if (a.v[q].cpu == key) {
						if (a.v[q].off < end &&
						    a.v[q].off > a.v[j].off) {
							b.len -= end -
								 a.v[q].off;
							end = a.v[q].off;
						}
						break;
					}
			}
			pt_decode(f, b.data, b.len, &m, c, run_off, &got);
			at = end;
			fx_buf_fini(&b);
		}
		match_cpu(f, c, &got, exp_insns, "libipt", r);
		/* FUP + TIP.PGD at every interrupt of intact windows, at the
		 * next instruction (the pause sample's IP last): in order */
		{
			size_t q = 0;

			for (size_t k = 0; k < f->sc.nwindows; k++) {
				const struct fx_sc_window *w =
					&f->sc.windows[k];

				if (!win_in_q(f, w, c) || win_damaged(w))
					continue;
				for (size_t s2 = 0; s2 < w->nsegs; s2++) {
					uint64_t want =
						f->in[w->segs[s2].end - 1].next;

					if (w->segs[s2].end_kind != FX_SEG_IRQ)
						continue;
					while (q < got.n &&
					       !(got.v[q].kind == IT_MARK &&
						 got.v[q].b == 1 &&
						 got.v[q].a == want))
						q++;
					if (q == got.n) {
						rep_fail(r, "%s libipt: window "
							    "%zu: no FUP+PGD at "
							    "%#" PRIx64, f->name,
							 k, want);
						break;
					}
					q++;
				}
				if (w->pause != FX_SC_NONE && w->nsegs &&
				    w->segs[w->nsegs - 1].end_kind ==
					    FX_SEG_IRQ &&
				    w->end_ip != f->sc.pauses[w->pause].ip)
					rep_fail(r, "%s: window %zu end", f->name,
						 k);
			}
		}
		libipt_samples_check(f, c, &got, r);
		it_free(&got);
	}
	img_close(&m);
	aux_close(&a);
}


/* ------------------------------------------------------------------------
 * Tests.
 * ---------------------------------------------------------------------- */

static void gen_mem(const char *name, struct fx_buf *data,
		    struct fx_buf *truth)
{
	char path[512];
	struct fx_scenario s;
	struct fx_gen *g;
	struct sy_diag d;
	const uint8_t *p;
	size_t n;
	int err;

	memset(&d, 0, sizeof(d));
	snprintf(path, sizeof(path), SCN_DIR "/%s.scn", name);
	cr_assert_eq(fx_scenario_load(&s, path, &d), 0, "%s", d.msg);
	err = fx_gen_run(&g, &s, ".", &d);
	cr_assert_eq(err, 0, "%s: %s", name, d.msg);
	cr_assert_eq(fx_gen_perf_data(g, &p, &n), 0);
	fx_buf_put(data, p, n);
	cr_assert_eq(fx_sidecar_write(fx_gen_sidecar(g), truth), 0);
	fx_gen_free(g);
}

Test(fixturegen, regen_reproduces_committed_files)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names);

	for (size_t i = 0; i < n; i++) {
		struct fx_buf d1, t1, d2, t2;
		char path[512];
		uint8_t *c;
		size_t clen;

		fx_buf_init(&d1);
		fx_buf_init(&t1);
		fx_buf_init(&d2);
		fx_buf_init(&t2);
		gen_mem(names[i], &d1, &t1);
		gen_mem(names[i], &d2, &t2);
		cr_expect(d1.len == d2.len && !memcmp(d1.data, d2.data, d1.len),
			  "%s: two runs give different perf.data", names[i]);
		cr_expect(t1.len == t2.len && !memcmp(t1.data, t2.data, t1.len),
			  "%s: two runs give different truth", names[i]);
		snprintf(path, sizeof(path), GEN_DIR "/%s.data", names[i]);
		c = sy_test_read_file(path, &clen);
		cr_expect(c && clen == d1.len && !memcmp(c, d1.data, clen),
			  "%s differs from a fresh run (run `make fixtures`)",
			  path);
		free(c);
		snprintf(path, sizeof(path), GEN_DIR "/%s.truth", names[i]);
		c = sy_test_read_file(path, &clen);
		cr_expect(c && clen == t1.len && !memcmp(c, t1.data, clen),
			  "%s differs from a fresh run (run `make fixtures`)",
			  path);
		free(c);
		fx_buf_fini(&d1);
		fx_buf_fini(&t1);
		fx_buf_fini(&d2);
		fx_buf_fini(&t2);
	}
}

Test(fixturegen, fixtures_are_small)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names), total = 0;

	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 2; k++) {
			char path[512];
			uint8_t *c;
			size_t len;

			snprintf(path, sizeof(path), GEN_DIR "/%s.%s", names[i],
				 k ? "truth" : "data");
			c = sy_test_read_file(path, &len);
			cr_assert_not_null(c, "%s missing", path);
			free(c);
			cr_expect_lt(len, 100 * 1024, "%s: %zu bytes", path, len);
			total += len;
		}
	cr_expect_lt(total, 5 * 1024 * 1024, "fixtures: %zu bytes", total);
}

Test(fixturegen, sidecar_round_trip)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names);

	for (size_t i = 0; i < n; i++) {
		char path[512];
		struct fx_sidecar sc;
		struct sy_diag d;
		struct fx_buf b;
		uint8_t *c;
		size_t clen;

		snprintf(path, sizeof(path), GEN_DIR "/%s.truth", names[i]);
		c = sy_test_read_file(path, &clen);
		cr_assert_not_null(c, "%s", path);
		cr_assert_eq(fx_sidecar_parse(&sc, (char *)c, clen, &d), 0,
			     "%s: %s", path, d.msg);
		fx_buf_init(&b);
		cr_assert_eq(fx_sidecar_write(&sc, &b), 0);
		cr_expect(b.len == clen && !memcmp(b.data, c, clen),
			  "%s: parse + write is not the identity", path);
		fx_buf_fini(&b);
		fx_sidecar_fini(&sc);
		free(c);
	}
}

/* Each edit (first occurrence of [0] replaced by [1]) of the sidecar
 * @name makes the parser fail with a line number. */
static void sidecar_rejects(const char *name, const char *const (*edits)[2],
			    size_t n)
{
	char path[512];
	uint8_t *c;
	size_t clen;

	snprintf(path, sizeof(path), GEN_DIR "/%s.truth", name);
	c = sy_test_read_file(path, &clen);
	cr_assert_not_null(c, "%s", path);
	for (size_t i = 0; i < n; i++) {
		const char *at = strstr((char *)c, edits[i][0]);
		size_t pre, ol = strlen(edits[i][0]), nl = strlen(edits[i][1]);
		char *m = malloc(clen + 64);
		struct fx_sidecar sc;
		struct sy_diag d;
		int err;

		cr_assert_not_null(at, "%s", edits[i][0]);
		pre = (size_t)(at - (char *)c);
		memcpy(m, c, pre);
		memcpy(m + pre, edits[i][1], nl);
		memcpy(m + pre + nl, at + ol, clen - pre - ol);
		memset(&d, 0, sizeof(d));
		err = fx_sidecar_parse(&sc, m, clen - ol + nl, &d);
		cr_expect_eq(err, -SY_E_INVALID, "%s: edit %zu (%s) accepted",
			     name, i, edits[i][1]);
		cr_expect(strstr(d.msg, "line ") != NULL, "%s", d.msg);
		free(m);
	}
	free(c);
}

/* The parser rejects damage with a line number. */
Test(fixturegen, sidecar_parser_rejects_damage)
{
	static const char *const edits[][2] = {
		{ "fxtruth 1", "fxtruth 2" },
		{ "status=ok", "status=fine" },
		{ "segs=1", "segs=2" },
		{ "window 1 ", "window 7 " },
		{ "br 0x", "br 0xzz" },
		{ "\nend\n", "\n" },
		{ "cpu=0 tid", "cpu=9 tid" },
		{ "R ", "Rx " },
	};
	/* sampling-event samples: only with S, after the pauses, numbered,
	 * no status, branches only inside a window */
	static const char *const sample_edits[][2] = {
		{ "\nS 90\n", "\nS 0\n" },
		{ "\nS 90\n", "\n" },
		{ "sample 1 ", "sample 2 " },
		{ "window=none nbr=0 ncc=5",
		  "window=none nbr=0 ncc=5 status=ok" },
		{ "window=none nbr=0 ncc=5", "window=none nbr=1 ncc=5" },
		{ "window=0 nbr=3 ncc=12", "window=0 nbr=3 ncc=11" },
		{ "\nsample 0 ", "\npause 0 " },
	};

	sidecar_rejects("etm4-etr-basic", edits,
			sizeof(edits) / sizeof(edits[0]));
	sidecar_rejects("etm4-etr-samples", sample_edits,
			sizeof(sample_edits) / sizeof(sample_edits[0]));
}

/* Does the trace of window @w run at @time (perf ns) on its CPU?  From
 * its first instruction on (a sample at the boundary where the resume
 * starts it comes before it) up to the pause that ends it (a sample there
 * comes after it), or up to the end of the recording that stops it. */
static int win_running_at(const struct fx_sc_window *w, uint64_t time)
{
	return w->nsegs && w->start_time < time &&
	       (time < w->end_time ||
		(w->pause == FX_SC_NONE && time == w->end_time));
}

/* A sampling-event sample agrees with the windows: inside the one whose
 * trace ran on its CPU at its time, where a segment ends at its IP with
 * its branch stack as the prefix; none (no branches, status 0) when no
 * trace ran. */
static void sample_in_window(const struct fx *f, const struct fx_sc_sample *x)
{
	const struct fx_sc_window *w;

	cr_expect_eq(x->pause, 2);
	cr_assert_gt(x->ncallchain, 0, "%s s%u", f->name, x->idx);
	cr_expect_eq(x->callchain[0], x->ip, "%s s%u leaf", f->name, x->idx);
	if (x->window == FX_SC_NONE) {
		cr_expect_eq(x->nbr, 0, "%s s%u", f->name, x->idx);
		cr_expect_eq(x->status, 0, "%s s%u", f->name, x->idx);
		for (size_t k = 0; k < f->sc.nwindows; k++)
			cr_expect(f->sc.windows[k].cpu != x->cpu ||
					  !win_running_at(&f->sc.windows[k],
							  x->time),
				  "%s s%u: window %zu ran at its time", f->name,
				  x->idx, k);
		return;
	}
	w = &f->sc.windows[x->window];
	cr_expect_eq(w->cpu, x->cpu, "%s s%u", f->name, x->idx);
	cr_expect(win_running_at(w, x->time), "%s s%u: window %u did not run "
		  "at %" PRIu64, f->name, x->idx, x->window, x->time);
	cr_expect_eq(x->status, w->status, "%s s%u", f->name, x->idx);
	cr_expect_geq(sample_segment(f, w, x), 0, "%s s%u: no segment of window "
		      "%u ends at %#" PRIx64 " with its %zu branches", f->name,
		      x->idx, x->window, x->ip, x->nbr);
}

/* Whether window @w's trace starts where its thread came in on its CPU: at
 * the first instruction of a slice of a one-thread scenario (FIRST 0, so
 * that truth indices count the thread's instructions). */
static int came_in_at(const struct fx *f, const struct fx_sc_window *w)
{
	uint64_t at = 0;

	for (size_t j = 0; j < f->scn.nslices; j++)
		if (f->scn.slices[j].tid != w->tid)
			return 0;
	for (size_t j = 0; j + 1 < f->scn.nslices; j++) {
		at += f->scn.slices[j].ninsns;
		if (at == w->start && f->scn.slices[j + 1].cpu == w->cpu)
			return 1;
	}
	return 0;
}

/* The sidecar is consistent with the program run. */
Test(fixturegen, model_windows_match_the_run)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names);

	for (size_t i = 0; i < n; i++) {
		struct fx f;

		fx_open(&f, names[i]);
		for (size_t k = 0; k < f.sc.nwindows; k++) {
			const struct fx_sc_window *w = &f.sc.windows[k];
			uint64_t insns = 0, br = 0;

			for (size_t s = 0; s < w->nsegs; s++) {
				const struct fx_sc_seg *sg = &w->segs[s];

				cr_assert_lt(sg->start, sg->end);
				cr_assert_leq(sg->end, f.nin);
				insns += sg->end - sg->start;
				for (uint64_t x = sg->start; x < sg->end; x++)
					br += (uint64_t)taken(&f.in[x]);
				cr_expect_eq(sg->end_kind == FX_SEG_SYSCALL,
					     f.in[sg->end - 1].kind ==
						     SY_BR_SYSCALL,
					     "%s w%zu seg %zu end kind", f.name,
					     k, s);
			}
			cr_expect_eq(insns, w->insns, "%s w%zu", f.name, k);
			cr_expect_eq(br, w->branches, "%s w%zu", f.name, k);
			if (w->nsegs) {
				cr_expect_eq(w->start_ip, f.in[w->start].pc);
				cr_expect_eq(w->end_ip, f.in[w->end - 1].next);
			}
			/* the trace starts at the resume sample's IP, but
			 * for a resume on the last instruction before a
			 * context switch (convert(1)): then it starts in
			 * the next thread, after the switch; and after a
			 * resume on the last instruction before its own
			 * thread left the CPU, where it came in again */
			if (w->resume != FX_SC_NONE &&
			    f.sc.resumes[w->resume].tid == w->tid &&
			    !came_in_at(&f, w))
				cr_expect_eq(f.sc.resumes[w->resume].ip,
					     w->start_ip, "%s w%zu resume ip",
					     f.name, k);
			/* and the window starts when its resume acts */
			if (w->resume != FX_SC_NONE)
				cr_expect_eq(w->start_time,
					     f.sc.resumes[w->resume].time,
					     "%s w%zu: start time", f.name, k);
			if (w->pause != FX_SC_NONE) {
				const struct fx_sc_sample *p =
					&f.sc.pauses[w->pause];

				cr_expect_eq(p->ip, w->end_ip,
					     "%s w%zu: pause ip %#" PRIx64
					     " end %#" PRIx64, f.name, k, p->ip,
					     w->end_ip);
				cr_expect_eq(p->time, w->end_time);
				cr_expect_eq(p->window, k);
				/* the trace's last word then is the SVC /
				 * SYSCALL, whose return address is not the
				 * pause sample's IP: nothing proves the end */
				if (w->nsegs && cut_at(&f.in[w->end - 1]))
					cr_expect(w->status & FX_ST_END_MISMATCH,
						  "%s w%zu ends at a cut, status "
						  "%#x", f.name, k, w->status);
			}
		}
		/* branch stacks: the window's taken branches, newest first,
		 * back to a cut or to where the thread came in after running
		 * elsewhere (the segment before does not end where the next
		 * starts: another CPU ran the instructions between, or
		 * another thread ran here) */
		for (size_t k = 0; k < f.sc.npauses; k++) {
			const struct fx_sc_sample *p = &f.sc.pauses[k];
			const struct fx_sc_window *w;
			size_t j = 0;
			int cut = 0;

			cr_expect_eq(p->callchain[0], p->ip, "%s p%zu leaf",
				     f.name, k);
			if (p->window == FX_SC_NONE) {
				cr_expect_eq(p->nbr, 0);
				cr_expect(p->status & (FX_ST_PAUSED |
						       FX_ST_END_MISMATCH));
				continue;
			}
			w = &f.sc.windows[p->window];
			for (size_t s = w->nsegs; s-- > 0 && !cut;) {
				if (s + 1 < w->nsegs &&
				    w->segs[s].end != w->segs[s + 1].start)
					break;
				for (uint64_t x = w->segs[s].end;
				     x-- > w->segs[s].start && !cut;) {
					if ((cut = cut_at(&f.in[x])) != 0 ||
					    !taken(&f.in[x]))
						continue;
					cr_assert_lt(j, p->nbr);
					cr_expect(p->br[j].from == f.in[x].pc &&
						  p->br[j].to == f.in[x].next,
						  "%s p%zu br %zu", f.name, k, j);
					j++;
				}
			}
			cr_expect_eq(j, p->nbr, "%s p%zu: %zu of %zu branches",
				     f.name, k, j, p->nbr);
			cr_expect_eq(p->status, w->status);
		}
		for (size_t k = 0; k < f.sc.nsamples; k++)
			sample_in_window(&f, &f.sc.samples[k]);
		fx_close(&f);
	}
}

/* Every knob leaves its mark: each trace family's fixtures together hold
 * every validation status the generator can predict. */
Test(fixturegen, statuses_cover_every_knob)
{
	static const char *const fam[] = { "etm4", "ete", "pt" };
	char names[MAX_FX][64];
	size_t n = fx_names(names);

	for (size_t k = 0; k < 3; k++) {
		uint32_t seen = 0, want = FX_ST_OK | FX_ST_PAUSED |
					  FX_ST_EMPTY | FX_ST_TRUNCATED |
					  FX_ST_DECODE_ERROR | FX_ST_OVERFLOW |
					  FX_ST_START_MISMATCH |
					  FX_ST_END_MISMATCH |
					  FX_ST_THREAD_MISMATCH;
		char miss[256];

		if (k == 0)
			want |= FX_ST_TOO_SHORT | FX_ST_TOO_LONG |
				FX_ST_FEW_BRANCHES;
		for (size_t i = 0; i < n; i++) {
			struct fx_sidecar sc;
			struct sy_diag d;
			char path[512];

			if (strncmp(names[i], fam[k], strlen(fam[k])) ||
			    names[i][strlen(fam[k])] != '-')
				continue;
			snprintf(path, sizeof(path), GEN_DIR "/%s.truth",
				 names[i]);
			cr_assert_eq(fx_sidecar_load(&sc, path, &d), 0, "%s",
				     d.msg);
			for (size_t j = 0; j < sc.nwindows; j++)
				seen |= sc.windows[j].status;
			for (size_t j = 0; j < sc.npauses; j++)
				seen |= sc.pauses[j].status;
			fx_sidecar_fini(&sc);
		}
		cr_expect_eq(seen & want, want, "%s fixtures lack: %s", fam[k],
			     fx_status_str(want & ~seen, miss, sizeof(miss)));
	}
}

/* The sidecar's samples of one kind: 0 resume, 1 pause, 2 sampling event
 * (fx_sc_sample.pause). */
static const struct fx_sc_sample *sc_samples(const struct fx_sidecar *sc,
					     int kind, size_t *n)
{
	*n = kind == 2 ? sc->nsamples : kind ? sc->npauses : sc->nresumes;
	return kind == 2 ? sc->samples : kind ? sc->pauses : sc->resumes;
}

/* The perf.data says what the sidecar says: samples (time, cpu, tid, ip,
 * period, callchain, event id), attrs (aux_action, sample_type, the
 * sampling event's attr before the dummy), AUX flags and the ETR barrier,
 * AUX_OUTPUT_HW_ID. */
Test(fixturegen, file_matches_sidecar)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names);

	for (size_t i = 0; i < n; i++) {
		struct sy_perf_reader *r;
		struct sy_record rec;
		struct sy_event ev;
		struct sy_diag d;
		struct fx f;
		size_t nr = 0, np = 0, ns = 0, naux = 0, nhwid = 0;
		int etr, trbe, err;

		fx_open(&f, names[i]);
		etr = !strcmp(f.sc.sink, "etr");
		trbe = !strcmp(f.sc.sink, "trbe");
		cr_assert_eq(sy_perf_open_mem(&r, f.data, f.len, f.name, &d),
			     0, "%s", d.msg);
		while ((err = sy_perf_next(r, &rec)) == 0) {
			struct sy_sample smp;
			const struct fx_sc_sample *x, *v;
			size_t nv;
			int kind;	/* fx_sc_sample.pause */

			cr_assert_eq(sy_event_parse(&rec, &ev, &d), 0);
			if (rec.type == SY_REC_AUX) {
				uint64_t fl = ev.u.aux.flags;

				naux++;
				cr_expect_eq(!!(fl & SY_AUX_FLAG_CORESIGHT_RAW),
					     trbe, "%s AUX flags %#" PRIx64,
					     f.name, fl);
				if (etr && f.scn.barrier && ev.u.aux.aux_size) {
					struct aux a;
					struct fx_buf b;
					static const uint8_t fsync[4] = {
						0xff, 0xff, 0xff, 0x7f };

					/* the chunk starts with the barrier */
					aux_open(&a, f.data, f.len, f.name);
					fx_buf_init(&b);
					if (!aux_get(&a,
						     f.sc.per_thread ?
							     UINT32_MAX :
							     ev.sid.cpu,
						     ev.u.aux.aux_offset, 16, &b))
						for (int q = 0; q < 4; q++)
							cr_expect(!memcmp(
								b.data + 4 * q,
								fsync, 4));
					fx_buf_fini(&b);
					aux_close(&a);
				}
				continue;
			}
			if (rec.type == SY_REC_AUX_OUTPUT_HW_ID) {
				nhwid++;
				cr_expect_eq(ev.u.hw_id.hw_id & 0xff,
					     0x10 + 2 * ev.sid.cpu);
				continue;
			}
			if (rec.type != SY_REC_SAMPLE)
				continue;
			cr_assert_not_null(rec.attr);
			/* the sampling event is the one without aux-action */
			kind = rec.attr->aux_action & (SY_AUX_ACTION_PAUSE |
						       SY_AUX_ACTION_PAUSE_ARMED) ? 1 :
			       rec.attr->aux_action & SY_AUX_ACTION_RESUME ? 0 :
									     2;
			cr_assert(kind < 2 || f.sc.S, "%s: a sample of an attr "
				  "without aux-action and no S", f.name);
			cr_assert_eq(sy_sample_parse(rec.attr, rec.data,
						     rec.size, &smp, &d, 0),
				     0);
			/* file order is time order per CPU; samples of one
			 * kind are numbered by time (cpu breaks ties) */
			x = NULL;
			v = sc_samples(&f.sc, kind, &nv);
			for (size_t j = 0; j < nv; j++)
				if (v[j].time == smp.time &&
				    v[j].cpu == smp.cpu) {
					x = &v[j];
					break;
				}
			cr_assert_not_null(x, "%s: sample at %" PRIu64
				     " cpu %u not in the sidecar", f.name,
				     smp.time, smp.cpu);
			cr_expect_eq(smp.ip, x->ip, "%s", f.name);
			cr_expect_eq(smp.tid, x->tid, "%s", f.name);
			cr_expect_eq(smp.pid, x->pid, "%s", f.name);
			cr_expect_eq(smp.period, kind == 2 ? f.sc.S :
						 kind	   ? f.sc.P :
							     f.sc.R);
			/* ids 10 + attr * ncpus + cpu (per thread: one id
			 * per attr, 10 + attr), the sampling event's attr
			 * fourth */
			cr_expect_eq(smp.id,
				     10 + (kind == 2 ? 3 : kind ? 2 : 1) *
						  (uint64_t)fx_nq(&f) +
					     (f.sc.per_thread ? 0 : smp.cpu),
				     "%s: sample id %" PRIu64, f.name, smp.id);
			if (kind) {
				if (kind == 2)
					ns++;
				else
					np++;
				cr_assert_eq(smp.callchain_nr, x->ncallchain + 1,
					     "%s p%u", f.name, x->idx);
				cr_expect_eq(sy_sample_callchain(&smp, 0),
					     fx_is_kernel(&f) ?
						     SY_CONTEXT_KERNEL :
						     SY_CONTEXT_USER);
				for (size_t q = 0; q < x->ncallchain; q++)
					cr_expect_eq(sy_sample_callchain(
							     &smp, q + 1),
						     x->callchain[q]);
			} else {
				nr++;
				cr_expect(!(rec.attr->sample_type &
					    SY_SAMPLE_CALLCHAIN));
			}
		}
		cr_assert_eq(err, -SY_E_EOS, "%s", sy_perf_diag(r)->msg);
		cr_expect_eq(nr, f.sc.nresumes, "%s", f.name);
		cr_expect_eq(np, f.sc.npauses, "%s", f.name);
		cr_expect_eq(ns, f.sc.nsamples, "%s", f.name);
		cr_expect_gt(naux, 0, "%s", f.name);
		cr_expect_eq(nhwid, fx_is_pt(&f) ? 0 : f.sc.ncpus, "%s",
			     f.name);
		/* the attrs: leader start-paused, then resume, pause */
		cr_expect_eq(sy_perf_attr(r, 0)->aux_action,
			     SY_AUX_ACTION_START_PAUSED);
		cr_expect_eq(sy_perf_attr(r, 1)->aux_action,
			     SY_AUX_ACTION_RESUME);
		cr_expect_eq(sy_perf_attr(r, 2)->aux_action,
			     f.scn.design == FX_SCN_PAUSE_ARMED ?
				     SY_AUX_ACTION_PAUSE_ARMED :
				     SY_AUX_ACTION_PAUSE);
		cr_expect_eq(sy_perf_attr(r, 2)->first_period,
			     f.scn.design == FX_SCN_FIRST_PERIOD ? f.scn.offset :
								   0);
		/* the sampling event: the pause event without aux-action,
		 * last in the group, so before the dummy perf appends */
		cr_expect_eq(sy_perf_nr_attrs(r), f.sc.S ? 5u : 4u, "%s",
			     f.name);
		if (f.sc.S) {
			const struct sy_perf_attr *pa = sy_perf_attr(r, 2),
						  *sa = sy_perf_attr(r, 3);

			cr_expect(sa->aux_action == 0 &&
					  sa->sample_period == f.sc.S &&
					  sa->type == pa->type &&
					  sa->config == pa->config &&
					  sa->sample_type == pa->sample_type &&
					  sa->flags == pa->flags &&
					  sa->sample_max_stack ==
						  pa->sample_max_stack,
				  "%s: sampling event attr", f.name);
		}
		cr_expect_eq(sy_perf_attr(r, f.sc.S ? 4 : 3)->config, 9,
			     "%s: the dummy is last", f.name);
		for (uint32_t a = 0; a < sy_perf_nr_attrs(r); a++) {
			const struct sy_perf_attr *at = sy_perf_attr(r, a);

			cr_expect(at->sample_type & SY_SAMPLE_IDENTIFIER);
			cr_expect(sy_attr_flag(at, SY_ATTR_FLAG_SAMPLE_ID_ALL));
			cr_expect_eq(at->size, f.sc.attr_size);
			cr_expect_eq(at->nr_ids, fx_nq(&f), "%s", f.name);
			for (uint32_t c = 0; c < at->nr_ids; c++)
				cr_expect_eq(at->ids[c],
					     10 + (uint64_t)a * fx_nq(&f) + c,
					     "%s: attr %u id %u", f.name, a, c);
		}
		sy_perf_close(r);
		fx_close(&f);
	}
}

/* The CPU of the scenario slice that ran instruction @i of the (one)
 * thread's run (0 = its first), and the slice's index. */
static uint32_t slice_of(const struct fx *f, uint64_t i, uint64_t *slice)
{
	uint64_t at = 0;

	for (size_t j = 0; j < f->scn.nslices; j++) {
		at += f->scn.slices[j].ninsns;
		if (i < at) {
			*slice = j;
			return f->scn.slices[j].cpu;
		}
	}
	*slice = f->scn.nslices;
	return UINT32_MAX;
}

/* Per-thread recordings (per_thread=1), as perf record --per-thread
 * --sample-cpu --switch-events writes them: every event opened for the
 * thread with cpu -1 (ID_INDEX cpu -1, tid, idx 0; one id per attr), one
 * AUX queue (AUXTRACE cpu -1, tid, idx 0) that follows the thread across
 * CPUs, PERF_RECORD_SWITCH (not CPU-wide) for the thread's own switches,
 * ITRACE_START once, AUX_OUTPUT_HW_ID the first time the event starts on
 * each CPU, an AUX record at every switch out that leaves trace behind
 * (the event is stopped with the task), samples and sample_ids with the
 * CPU the thread ran on; the counters count the thread's cycles: the
 * k-th resume / pause sample is at instruction (k + 1) * R / cpi (P) of
 * the thread's run, whichever CPU runs it, and at its cycle plus one
 * switch_cycles per slice before. */
Test(fixturegen, per_thread_layout)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names), nfx = 0, spanning = 0;

	for (size_t i = 0; i < n; i++) {
		struct sy_perf_reader *r;
		struct sy_record rec;
		struct sy_event ev;
		struct sy_diag d;
		struct fx f;
		uint32_t tid, hwid_cpus = 0, ins = 0, outs = 0, nitrace = 0;
		uint32_t ran = 0, npieces = 0;
		int err, pt, want_aux = 0;
		uint64_t aux_time = 0, nres = 0, npau = 0;

		fx_open(&f, names[i]);
		if (!f.sc.per_thread) {
			fx_close(&f);
			continue;
		}
		nfx++;
		pt = fx_is_pt(&f);
		cr_assert_eq(f.sc.nthreads, 1, "%s", f.name);
		cr_assert(f.scn.nslices > 1 && !f.scn.miss_resume.n &&
				  !f.scn.miss_pause.n && !f.scn.drop_pause.n &&
				  !f.scn.drop_resume.n,
			  "%s: the checks below assume slices and no knobs",
			  f.name);
		tid = f.sc.threads[0].tid;
		for (size_t j = 0; j < f.scn.nslices; j++)
			ran |= 1u << f.scn.slices[j].cpu;
		for (size_t k = 0; k < f.sc.nwindows; k++) {
			const struct fx_sc_window *w = &f.sc.windows[k];

			for (size_t q = 1; q < w->nsegs; q++)
				if (w->segs[q].cpu != w->segs[q - 1].cpu) {
					spanning++;
					npieces++;
				}
		}
		cr_assert_eq(sy_perf_open_mem(&r, f.data, f.len, f.name, &d),
			     0, "%s", d.msg);
		while ((err = sy_perf_next(r, &rec)) == 0) {
			uint64_t sl;

			cr_assert_eq(sy_event_parse(&rec, &ev, &d), 0);
			if (want_aux) {
				/* the switch out stopped running trace */
				cr_expect(rec.type == SY_REC_AUX &&
						  ev.sid.time == aux_time &&
						  ev.sid.cpu == f.scn.slices[outs - 1].cpu,
					  "%s: no AUX record at switch out %u",
					  f.name, outs - 1);
				want_aux = 0;
				npieces--;
			}
			switch (rec.type) {
			case SY_REC_ID_INDEX:
				cr_expect_eq(ev.u.id_index.nr,
					     sy_perf_nr_attrs(r));
				for (uint64_t q = 0; q < ev.u.id_index.nr; q++) {
					const uint8_t *e =
						ev.u.id_index.entries + 32 * q;

					cr_expect_eq(sy_le64(e + 8), 0);
					cr_expect_eq(sy_le64(e + 16), UINT64_MAX,
						     "%s: ID_INDEX cpu", f.name);
					cr_expect_eq(sy_le64(e + 24), tid);
				}
				break;
			case SY_REC_AUXTRACE_INFO:
				if (pt) {
					const uint8_t *pv =
						ev.u.auxtrace_info.priv;

					cr_expect_eq(sy_le64(pv + 8 *
						FX_PT_PRIV_PER_CPU_MMAPS), 0);
					cr_expect_eq(sy_le64(pv + 8 *
						FX_PT_PRIV_HAVE_SCHED_SWITCH), 0);
				}
				break;
			case SY_REC_AUXTRACE:
				cr_expect_eq(ev.u.auxtrace.idx, 0);
				cr_expect_eq(ev.u.auxtrace.cpu, UINT32_MAX);
				cr_expect_eq(ev.u.auxtrace.tid, tid);
				break;
			case SY_REC_SWITCH_CPU_WIDE:
				cr_expect(0, "%s: SWITCH_CPU_WIDE", f.name);
				break;
			case SY_REC_SWITCH:
				cr_expect_eq(ev.sid.tid, tid);
				if (ev.u.sw.out) {
					cr_assert_lt(outs, f.scn.nslices);
					cr_expect_eq(ev.sid.cpu,
						     f.scn.slices[outs].cpu);
					cr_expect_eq(outs + 1, ins);
					outs++;
					for (size_t k = 0; k < f.sc.nwindows;
					     k++)
						if (win_running_at(
							    &f.sc.windows[k],
							    ev.sid.time) &&
						    f.sc.windows[k].end_time >
							    ev.sid.time)
							want_aux = 1;
					aux_time = ev.sid.time;
				} else {
					cr_assert_lt(ins, f.scn.nslices);
					cr_expect_eq(ev.sid.cpu,
						     f.scn.slices[ins].cpu);
					cr_expect_eq(ins, outs);
					ins++;
				}
				break;
			case SY_REC_ITRACE_START:
				nitrace++;
				cr_expect_eq(ev.sid.cpu, f.scn.slices[0].cpu);
				break;
			case SY_REC_AUX_OUTPUT_HW_ID:
				cr_expect(!(hwid_cpus >> ev.sid.cpu & 1),
					  "%s: HW_ID twice on cpu %u", f.name,
					  ev.sid.cpu);
				hwid_cpus |= 1u << ev.sid.cpu;
				/* when the event first starts on that CPU */
				cr_expect_eq(ev.sid.cpu, f.scn.slices[ins].cpu);
				break;
			case SY_REC_AUX:
				cr_expect_eq(ev.sid.tid, tid);
				cr_expect_eq(ev.sid.cpu,
					     f.scn.slices[ins ? ins - 1 : 0].cpu);
				break;
			case SY_REC_SAMPLE: {
				struct sy_sample smp;
				uint64_t per, k, idx, cyc;
				const struct fx_sc_sample *x;

				cr_assert_eq(sy_sample_parse(rec.attr, rec.data,
							     rec.size, &smp,
							     &d, 0),
					     0);
				cr_expect_eq(smp.cpu,
					     f.scn.slices[ins - 1].cpu);
				if (rec.attr->aux_action & SY_AUX_ACTION_PAUSE) {
					per = f.sc.P;
					k = npau;
					x = &f.sc.pauses[npau++];
				} else if (rec.attr->aux_action &
					   SY_AUX_ACTION_RESUME) {
					per = f.sc.R;
					k = nres;
					x = &f.sc.resumes[nres++];
				} else {
					break;
				}
				/* counted cycles of the thread */
				idx = (k + 1) * per / f.sc.cpi - 1;
				cr_expect_eq(smp.ip,
					     f.in[f.sc.threads[0].first + idx]
						     .next,
					     "%s: sample %" PRIu64 " of period "
					     "%" PRIu64, f.name, k, per);
				cr_expect_eq(smp.cpu, slice_of(&f, idx, &sl));
				cyc = (idx + 1) * f.sc.cpi +
				      sl * f.sc.switch_cycles;
				cr_expect_eq(smp.time, f.sc.t0 + cyc);
				cr_expect_eq(x->ip, smp.ip);
				cr_expect_eq(x->cpu, smp.cpu);
				break;
			}
			default:
				break;
			}
		}
		cr_assert_eq(err, -SY_E_EOS, "%s", sy_perf_diag(r)->msg);
		cr_expect_eq(nitrace, 1, "%s", f.name);
		cr_expect_eq(hwid_cpus, pt ? 0 : ran, "%s", f.name);
		cr_expect_eq(ins, f.scn.nslices, "%s", f.name);
		cr_expect_eq(nres, f.sc.nresumes, "%s", f.name);
		cr_expect_eq(npau, f.sc.npauses, "%s", f.name);
		cr_expect_eq(npieces, 0, "%s: a window spans a migration "
			     "without an AUX record at the switch", f.name);
		for (uint32_t a = 0; a < sy_perf_nr_attrs(r); a++)
			cr_expect(sy_perf_attr(r, a)->sample_type &
				  SY_SAMPLE_CPU);
		sy_perf_close(r);
		fx_close(&f);
	}
	cr_expect_geq(nfx, 2);
	cr_expect_gt(spanning, 0, "no per-thread window spans a migration");
}

/* Sampling-event sample @s of a one-CPU, one-thread run, interrupting
 * after truth index @x at perf time @time: its time and IP, its callchain
 * from a fresh shadow stack, and, inside window W, W's taken branches from
 * its first instruction to @x, newest first. */
static void sample_recomputed(const struct fx *f, const struct fx_sc_sample *s,
			      uint64_t x, uint64_t time)
{
	uint64_t chain[128];
	int nc;

	cr_expect_eq(s->time, time, "%s sample %u: time %" PRIu64 ", model %"
		     PRIu64, f->name, s->idx, s->time, time);
	cr_expect_eq(s->ip, f->in[x].next, "%s sample %u", f->name, s->idx);
	nc = fx_truth_callchain(f->in, f->nin, x + 1, chain, 127);
	cr_assert_gt(nc, 0);
	cr_expect_eq((size_t)nc, s->ncallchain, "%s sample %u: %d frames",
		     f->name, s->idx, nc);
	for (size_t j = 0; j < (size_t)nc && j < s->ncallchain; j++)
		cr_expect_eq(chain[j], s->callchain[j], "%s sample %u frame %zu",
			     f->name, s->idx, j);
	if (s->window != FX_SC_NONE) {
		const struct fx_sc_window *w = &f->sc.windows[s->window];
		size_t j = 0;

		cr_expect(w->start <= x && x < w->end, "%s sample %u: index %"
			  PRIu64 " not in window %u", f->name, s->idx, x,
			  s->window);
		for (uint64_t i = x + 1; i-- > w->start && j <= s->nbr;) {
			if (cut_at(&f->in[i]))
				break;
			if (!taken(&f->in[i]))
				continue;
			cr_expect(j < s->nbr && s->br[j].from == f->in[i].pc &&
					  s->br[j].to == f->in[i].next,
				  "%s sample %u br %zu", f->name, s->idx, j);
			j++;
		}
		cr_expect_eq(j, s->nbr, "%s sample %u: %zu branches, sidecar "
			     "%zu", f->name, s->idx, j, s->nbr);
	}
}

/* The samples follow from R, P, S and the cycle model (one CPU). */
Test(fixturegen, model_samples_recomputed)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names);
	unsigned checked = 0, with_s = 0;

	for (size_t i = 0; i < n; i++) {
		struct fx f;
		size_t nr = 0, np = 0, ns = 0, ord_p = 0, ord_r = 0;
		uint64_t u = 0, ui = 0, cyc = 0, first, last;
		uint64_t armed_at = 0, thr_until = 0;
		int armed = 0, thr = 0;

		fx_open(&f, names[i]);
		if (f.scn.nslices || f.sc.ncpus != 1) {
			fx_close(&f);
			continue;
		}
		first = f.scn.start;
		last = f.scn.insns ? first + f.scn.insns : f.nin;
		if (last > f.nin)
			last = f.nin;
		for (uint64_t x = first; x < last; x++) {
			const struct fx_insn *in = &f.in[x];
			uint64_t before = u, ibefore = ui;

			u += f.scn.cpi;
			ui++;
			cyc += f.scn.cpi;
			if (in->kind == SY_BR_SYSCALL)
				cyc += f.scn.syscall_cycles;
			if (!in->next)
				break;
			/* resume, pause (coincide swaps them), then the
			 * sampling event */
			for (int o = 0; o < 3; o++) {
				int pause = f.scn.pause_first ? !o : o;
				uint64_t per = o == 2 ? f.scn.S :
					       pause  ? f.scn.P :
							f.scn.R;
				const struct fx_sc_sample *s;
				/* count = instructions: resume and pause */
				int insns = f.scn.count_insns && o != 2;
				uint64_t b = insns ? ibefore : before;
				uint64_t v = insns ? ui : u, off = f.scn.offset;
				int hit;

				if (!per)
					continue;
				if (o == 2 || !pause ||
				    f.scn.design == FX_SCN_MAINLINE) {
					hit = v / per != b / per;
				} else if (f.scn.design == FX_SCN_PAUSE_ARMED) {
					/* a period after the arming resume */
					hit = armed && v >= armed_at + per &&
					      b < armed_at + per;
					armed &= !hit;
				} else {
					/* stagger, first_period: at the
					 * offset, then every period */
					hit = v >= off &&
					      (b < off ||
					       (v - off) / per != (b - off) / per);
				}
				if (!hit)
					continue;
				if (o != 2 && !pause) {
					armed = 1;
					armed_at = v;
				}
				if (o == 2) {
					cr_assert_lt(ns, f.sc.nsamples,
						     "%s: more samples", f.name);
					s = &f.sc.samples[ns++];
					sample_recomputed(&f, s, x,
							  f.scn.t0 + cyc);
					continue;
				}
				if (pause) {
					/* throttle = K N: pause K is taken
					 * and throttles the event; the tick
					 * N instructions on lifts it, and
					 * until then no pause overflow is
					 * taken: no pause, no sample */
					uint64_t pos = x - first + 1;

					if (thr && pos >= thr_until)
						thr = 0;
					if (thr) {
						ord_p++;
						continue;
					}
					if (f.scn.have_throttle &&
					    ord_p == f.scn.throttle_pause) {
						thr = 1;
						thr_until = pos +
							    f.scn.throttle_insns;
					}
					/* a dropped pause leaves no sample */
					if (fx_scn_list_has(&f.scn.drop_pause,
							    ord_p++))
						continue;
					cr_assert_lt(np, f.sc.npauses,
						     "%s: more pauses", f.name);
					s = &f.sc.pauses[np++];
				} else {
					/* a dropped resume sample is not
					 * written either */
					if (fx_scn_list_has(&f.scn.drop_resume,
							    ord_r++))
						continue;
					cr_assert_lt(nr, f.sc.nresumes,
						     "%s: more resumes", f.name);
					s = &f.sc.resumes[nr++];
				}
				cr_expect_eq(s->time, f.scn.t0 + cyc,
					     "%s %s %zu: time %" PRIu64
					     ", model %" PRIu64, f.name,
					     pause ? "pause" : "resume",
					     pause ? np - 1 : nr - 1, s->time,
					     f.scn.t0 + cyc);
				cr_expect_eq(s->ip, in->next);
			}
		}
		cr_expect_eq(nr, f.sc.nresumes, "%s", f.name);
		cr_expect_eq(np, f.sc.npauses, "%s", f.name);
		cr_expect_eq(ns, f.sc.nsamples, "%s", f.name);
		checked++;
		with_s += f.scn.S != 0;
		fx_close(&f);
	}
	cr_expect_gt(checked, 5);
	cr_expect_geq(with_s, 2, "one-CPU fixtures with a sampling event");
}

/* Callchains: the ideal frame chain of the shadow stack (fx_truth.h). */
Test(fixturegen, model_callchains)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names);

	for (size_t i = 0; i < n; i++) {
		struct fx f;

		fx_open(&f, names[i]);
		for (size_t k = 0; k < f.sc.npauses; k++) {
			const struct fx_sc_sample *p = &f.sc.pauses[k];
			uint64_t chain[128];
			uint64_t idx = UINT64_MAX;
			int nc;

			/* the instruction at the sample ip: found through the
			 * window, or for a thread's next instruction through
			 * the windows around; recompute only where known */
			if (p->window == FX_SC_NONE)
				continue;
			idx = f.sc.windows[p->window].end;
			nc = fx_truth_callchain(f.in, f.nin, idx, chain, 127);
			cr_assert_gt(nc, 0);
			cr_expect_eq((size_t)nc, p->ncallchain,
				     "%s p%zu: %d frames, sidecar %zu", f.name,
				     k, nc, p->ncallchain);
			for (int j = 0; j < nc && (size_t)j < p->ncallchain;
			     j++)
				cr_expect_eq(chain[j], p->callchain[j],
					     "%s p%zu frame %d", f.name, k, j);
		}
		fx_close(&f);
	}
}

static void report_expect(const struct report *r, const char *what)
{
	cr_expect_eq(r->fails, 0, "%s: %u failures, first: %s", what,
		     r->fails, r->first);
}

Test(fixturegen, perf_decodes_every_fixture, .init = tmp_setup,
     .fini = tmp_teardown)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names);
	unsigned ok = 0, skipped = 0;

	sy_test_require_tool("perf");
	for (size_t i = 0; i < n; i++) {
		struct report r;
		struct fx f;

		memset(&r, 0, sizeof(r));
		fx_open(&f, names[i]);
		if (!perf_readable(&f)) {
			fx_close(&f);
			continue;
		}
		perf_check(&f, f.data, f.len, &r);
		if (perf_cannot_decode(&f)) {
			char path[4200], *err;

			/* it says so, and decodes nothing */
			snprintf(path, sizeof(path), "%s/perf.err", g_tmp);
			err = read_text(path);
			cr_expect(err && strstr(err, "requires random file "
						     "access"), "%s: %s", f.name,
				  err ? err : "");
			free(err);
			cr_expect_eq(r.windows_ok, 0, "%s", f.name);
			cr_log_info("%s: perf 6.1 cannot decode TRBE data "
				    "whose AUX records it cannot peek at",
				    f.name);
			fx_close(&f);
			continue;
		}
		if (f.sc.per_thread && !fx_is_pt(&f)) {
			char path[4200], *err;

			/* perf 6.1 compares an AUX record's sample CPU with
			 * the AUXTRACE record's, which is -1 per thread: it
			 * finds no buffer for any AUX record, falls back to
			 * decoding the whole AUXTRACE buffers as frames, and
			 * says so */
			snprintf(path, sizeof(path), "%s/perf.err", g_tmp);
			err = read_text(path);
			cr_expect(err && strstr(err, "Couldn't find auxtrace "
						     "buffer for aux_offset: 0 ")
					 && strstr(err, "requires random file "
							"access"),
				  "%s: %s", f.name, err ? err : "");
			free(err);
		}
		report_expect(&r, f.name);
		if (f.scn.have_anon) {
			cr_expect_eq(r.windows_ok, 0, "%s", f.name);
			cr_log_info("%s: perf 6.1 decodes with the maps of the "
				    "file's end: no window of code later "
				    "mapped //anon is checked", f.name);
			fx_close(&f);
			continue;
		}
		cr_expect_gt(r.windows_ok, 0, "%s: no window checked", f.name);
		if (f.sc.per_thread)
			cr_expect_eq(r.windows_ok + r.windows_skipped,
				     f.sc.nwindows, "%s", f.name);
		ok += r.windows_ok;
		skipped += r.windows_skipped;
		fx_close(&f);
	}
	cr_log_info("perf: %u windows exact, %u damaged/empty skipped", ok,
		    skipped);
}

/* ------------------------------------------------------------------------
 * perf 6.1 on the samples of the sampling event.
 *
 * `perf script --no-itrace` lists the samples of every event without
 * decoding the trace.  perf 6.1 ignores EVENT_DESC here (it warns about the
 * reserved bits aux_action sits in), so the three cycles events are all
 * "cycles:u": the sampling event's samples are told apart by their period
 * (S differs from R and P in every fixture that has one).  perf prints a
 * sample's callchain instead of its IP, one entry per line, relative to
 * the mapping (ip - map start + pgoff: the MMAP2 of the text); with -G
 * (--hide-call-graph) it prints the IP itself.
 * ---------------------------------------------------------------------- */

struct psample {
	uint64_t time, period, ip;
	uint32_t cpu, pid, tid;
	uint64_t cc[128];
	size_t ncc;
};

struct psamples {
	struct psample *v;
	size_t n, cap;
};

static int psample_cmp(const void *a, const void *b)
{
	const struct psample *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	/* samples of several events at one boundary */
	return x->period < y->period ? -1 : x->period > y->period;
}

/* Where perf maps the text of @f's binary: the first executable PT_LOAD,
 * page-aligned, as the generator's MMAP2 says (fx_gen.c elf_text). */
static void text_map(const struct fx *f, uint64_t *start, uint64_t *pgoff)
{
	Elf *e;
	GElf_Ehdr eh;
	size_t nph;
	int fd = open(f->sc.binary, O_RDONLY), found = 0;

	cr_assert_geq(fd, 0, "%s", f->sc.binary);
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(e);
	cr_assert_not_null(gelf_getehdr(e, &eh));
	cr_assert_eq(elf_getphdrnum(e, &nph), 0);
	for (size_t i = 0; i < nph && !found; i++) {
		GElf_Phdr ph;

		cr_assert_not_null(gelf_getphdr(e, (int)i, &ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		*start = (ph.p_vaddr & ~0xfffull) +
			 (eh.e_type == ET_DYN ? f->load_base : 0);
		*pgoff = ph.p_offset & ~0xfffull;
		found = 1;
	}
	elf_end(e);
	close(fd);
	cr_assert(found, "%s: no executable PT_LOAD", f->sc.binary);
}

/* Back from what perf prints for a callchain entry, @rel relative to the
 * mapping of @dso, to the address: the program's text maps at @start from
 * @pgoff, another object of a dynamically linked program where its map
 * line says. */
static uint64_t map_abs(const struct fx *f, const char *dso, uint64_t rel,
			uint64_t start, uint64_t pgoff)
{
	/* the kernel's and its modules' entries are their addresses */
	if (fx_is_kernel(f))
		return rel;
	for (size_t k = 0; k < f->sc.nmaps; k++)
		if (!strcmp(dso, f->sc.maps[k].path))
			return rel - f->sc.maps[k].pgoff + f->sc.maps[k].start;
	cr_assert_str_eq(dso + (dso[0] == '/'), f->sc.binary,
			 "%s: a callchain entry in %s", f->name, dso);
	return rel - pgoff + start;
}

/* The samples perf prints for @file, with callchains (@ips 0) or with
 * their IPs (@ips 1), sorted by time and CPU. */
static void perf_samples(const struct fx *f, const char *file, int ips,
			 struct psamples *out)
{
	char cmd[16000], root[4096], kopt[4400], *txt = NULL;
	const char *line;
	uint64_t start = 0, pgoff = 0;
	struct psample *cur = NULL;
	int st;

	memset(out, 0, sizeof(*out));
	text_map(f, &start, &pgoff);
	cr_assert_not_null(getcwd(root, sizeof(root)));
	snprintf(cmd, sizeof(cmd),
		 T_PERF " --buildid-dir '%s/bid' script --no-itrace %s -i '%s' "
		 "%s -F event,cpu,pid,tid,time,period,ip%s --ns "
		 "2>/dev/null", g_tmp, ips ? "-G" : "", file,
		 perf_image_opts(f, root, kopt, sizeof(kopt)),
		 ips ? "" : ",dso");
	st = sy_test_run(cmd, &txt, NULL);
	cr_assert_eq(st, 0, "%s: %s", f->name, cmd);
	for (line = txt; line && *line;) {
		const char *nl = strchr(line, '\n');
		uint64_t sec, nsec, a;
		struct psample p;
		char ev[64], buf[512];
		int used = 0;

		/* one line at a time: sscanf's blanks would eat newlines */
		snprintf(buf, sizeof(buf), "%.*s",
			 (int)(nl ? (size_t)(nl - line) : strlen(line)), line);
		line = buf;
		memset(&p, 0, sizeof(p));
		if (line[0] == '\t' && cur) {
			/* a callchain entry, relative to its mapping */
			char dso[300];

			cr_assert_eq(sscanf(line, " %" SCNx64 " (%299[^)])", &a,
					    dso), 2, "%.100s", line);
			cr_assert_lt(cur->ncc, 128);
			cur->cc[cur->ncc++] = map_abs(f, dso, a, start, pgoff);
		} else if (sscanf(line, " %u/%u [%u] %" SCNu64 ".%" SCNu64
				  ": %" SCNu64 " %63s%n", &p.pid, &p.tid,
				  &p.cpu, &sec, &nsec, &p.period, ev,
				  &used) == 7) {
			p.time = sec * 1000000000ull + nsec;
			if (ips)
				cr_assert_eq(sscanf(line + used, " %" SCNx64,
						    &p.ip), 1, "%.100s", line);
			if (out->n == out->cap) {
				out->cap = out->cap ? 2 * out->cap : 64;
				out->v = realloc(out->v,
						 out->cap * sizeof(*out->v));
				cr_assert_not_null(out->v);
			}
			out->v[out->n] = p;
			cur = &out->v[out->n++];
		} else {
			cur = NULL;	/* blank line: the chain ended */
		}
		line = nl ? nl + 1 : NULL;
	}
	free(txt);
	qsort(out->v, out->n, sizeof(*out->v), psample_cmp);
}

/* perf lists exactly the sidecar's sampling-event samples: time, CPU,
 * pid / tid, IP and callchain (samples of period S; the sidecar's are in
 * time order, CPU breaking ties). */
static void perf_samples_check(const struct fx *f, const char *file,
			       struct report *r)
{
	struct psamples cc, ip;
	size_t j = 0;

	cr_assert(f->sc.S && f->sc.S != f->sc.R && f->sc.S != f->sc.P,
		  "%s: S must tell the events apart", f->name);
	perf_samples(f, file, 0, &cc);
	perf_samples(f, file, 1, &ip);
	cr_assert_eq(cc.n, ip.n, "%s: the two listings differ (%zu, %zu)",
		     f->name, cc.n, ip.n);
	for (size_t i = 0; i < cc.n; i++) {
		const struct psample *p = &cc.v[i];
		const struct fx_sc_sample *x;

		cr_assert(ip.v[i].time == p->time && ip.v[i].cpu == p->cpu &&
			  ip.v[i].period == p->period);
		if (p->period != f->sc.S)
			continue;
		if (j == f->sc.nsamples) {
			rep_fail(r, "%s perf: sample at %" PRIu64 " cpu %u not "
				    "in the sidecar", f->name, p->time, p->cpu);
			break;
		}
		x = &f->sc.samples[j++];
		if (p->time != x->time || p->cpu != x->cpu ||
		    p->pid != x->pid || p->tid != x->tid ||
		    ip.v[i].ip != x->ip) {
			rep_fail(r, "%s perf: sample %u: time %" PRIu64
				    " cpu %u tid %u ip %#" PRIx64 ", sidecar %"
				    PRIu64 " %u %u %#" PRIx64, f->name, x->idx,
				 p->time, p->cpu, p->tid, ip.v[i].ip, x->time,
				 x->cpu, x->tid, x->ip);
			continue;
		}
		if (p->ncc != x->ncallchain ||
		    memcmp(p->cc, x->callchain, p->ncc * 8)) {
			rep_fail(r, "%s perf: sample %u: callchain of %zu "
				    "entries, sidecar %zu", f->name, x->idx,
				 p->ncc, x->ncallchain);
			continue;
		}
		r->windows_ok++;	/* here: samples that agree */
	}
	if (j != f->sc.nsamples)
		rep_fail(r, "%s perf: %zu samples of period %" PRIu64
			    ", sidecar %zu", f->name, j, f->sc.S,
			 f->sc.nsamples);
	free(cc.v);
	free(ip.v);
}

/* The header perf reads: a group of four with the sampling event, its
 * name on the command line. */
static void perf_header_check(const struct fx *f, const char *file)
{
	char cmd[4400], want[128], group[64], *out = NULL;
	int st;

	snprintf(cmd, sizeof(cmd), T_PERF " report --header-only -i '%s' "
		 "2>/dev/null", file);
	st = sy_test_run(cmd, &out, NULL);
	cr_assert_eq(st, 0, "%s", cmd);
	snprintf(want, sizeof(want), ",cycles/period=%" PRIu64
		 ",call-graph=fp/%s}", f->sc.S, fx_mod(f));
	snprintf(group, sizeof(group), ",cycles:%s,cycles:%s,cycles:%s}\n",
		 fx_mod(f), fx_mod(f), fx_mod(f));
	cr_expect(out && strstr(out, want), "%s: cmdline lacks %s", f->name,
		  want);
	cr_expect(out && strstr(out, "# group: {") &&
			  strstr(strstr(out, "# group: {"), group),
		  "%s: not a group of four: %s", f->name, out ? out : "");
	free(out);
}

Test(fixturegen, perf_lists_the_samples, .init = tmp_setup,
     .fini = tmp_teardown)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names);
	unsigned fixtures = 0, ok = 0;

	sy_test_require_tool("perf");
	for (size_t i = 0; i < n; i++) {
		char file[4200];
		struct report r;
		struct fx f;

		fx_open(&f, names[i]);
		if (!f.sc.S || !perf_readable(&f)) {
			fx_close(&f);
			continue;
		}
		snprintf(file, sizeof(file), "%s/%s.data", g_tmp, f.name);
		perf61_copy(&f, f.data, f.len, file);
		memset(&r, 0, sizeof(r));
		perf_samples_check(&f, file, &r);
		report_expect(&r, f.name);
		cr_expect_eq(r.windows_ok, f.sc.nsamples, "%s", f.name);
		perf_header_check(&f, file);
		ok += r.windows_ok;
		fixtures++;
		fx_close(&f);
	}
	cr_expect_geq(fixtures, 3, "fixtures with a sampling event");
	cr_log_info("perf: %u sampling-event samples exact in %u fixtures", ok,
		    fixtures);
}

/* perf 6.1 refuses 136-byte attrs: such fixtures are checked by the
 * reader only. */
Test(fixturegen, perf_refuses_attr_136, .init = tmp_setup,
     .fini = tmp_teardown)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names);
	int seen = 0;

	sy_test_require_tool("perf");
	for (size_t i = 0; i < n; i++) {
		struct fx f;
		char cmd[1024], *out = NULL;

		fx_open(&f, names[i]);
		if (perf_readable(&f)) {
			fx_close(&f);
			continue;
		}
		seen = 1;
		snprintf(cmd, sizeof(cmd),
			 T_PERF " report -v -D -i '%s' 2>&1", f.data_path);
		sy_test_run(cmd, &out, NULL);
		cr_expect(out && strstr(out, "unsupported ABI") &&
			  strstr(out, "incompatible file format"),
			  "%s: perf 6.1 did not refuse it: %.400s", f.name,
			  out ? out : "");
		free(out);
		fx_close(&f);
	}
	cr_expect(seen, "no 136-byte attr fixture");
}

Test(fixturegen, lister_decodes_every_etm_window, .init = tmp_setup,
     .fini = tmp_teardown)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names);
	unsigned ok = 0;

	sy_test_require_tool("trc_pkt_lister");
	for (size_t i = 0; i < n; i++) {
		struct report r;
		struct fx f;

		memset(&r, 0, sizeof(r));
		fx_open(&f, names[i]);
		if (!fx_is_pt(&f)) {
			lister_check(&f, f.data, f.len, &r);
			report_expect(&r, f.name);
			ok += r.windows_ok;
		}
		fx_close(&f);
	}
	cr_expect_gt(ok, 50);
	cr_log_info("trc_pkt_lister: %u windows exact", ok);
}

Test(fixturegen, libipt_decodes_every_pt_fixture)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names);
	unsigned ok = 0;

	for (size_t i = 0; i < n; i++) {
		struct report r;
		struct fx f;

		memset(&r, 0, sizeof(r));
		fx_open(&f, names[i]);
		if (fx_is_pt(&f)) {
			libipt_check(&f, f.data, f.len, &r);
			report_expect(&r, f.name);
			ok += r.windows_ok;
		}
		fx_close(&f);
	}
	cr_expect_gt(ok, 20);
	cr_log_info("libipt: %u windows exact", ok);
}

/* ---- tests of the tests ---- */

typedef void (*decode_check_fn)(const struct fx *f, const uint8_t *data,
				size_t len, struct report *r);

/* @fn (trc_pkt_lister's or libipt's comparison) must fail on @f. */
static void expect_caught(const struct fx *f, decode_check_fn fn,
			  const char *what)
{
	struct report r;

	memset(&r, 0, sizeof(r));
	fn(f, f->data, f->len, &r);
	cr_expect_gt(r.fails, 0, "%s: %s not caught", f->name, what);
}

/* Drops one branch from the middle of a window's expectation by editing
 * the sidecar's view: the window then ends one taken branch early, which
 * every comparison must notice. */
static void sidecar_off_by_one(struct fx *f, size_t *win)
{
	for (size_t k = 0; k < f->sc.nwindows; k++) {
		struct fx_sc_window *w = &f->sc.windows[k];

		if (w->status == FX_ST_OK && w->nsegs == 1 && w->branches > 4) {
			uint64_t x = w->segs[0].end;

			/* move the end back to the last taken branch */
			while (!taken(&f->in[--x]))
				;
			w->segs[0].end = x;
			*win = k;
			return;
		}
	}
	cr_assert_fail("%s: no window to mutate", f->name);
}

/* Offset (in the window's bytes) of an atom packet of format 3 near the
 * middle of ETM window @w, found with trc_pkt_lister's packet listing (raw
 * TRBE data: its Idx is the byte offset). */
static size_t etm_atom_at(const struct fx *f, const struct aux *a,
			  const struct img *m, const struct fx_sc_window *w)
{
	struct fx_snap_source src;
	struct fx_snap_mem mem[IMG_MAX];
	struct fx_etm_config cfg;
	struct fx_snap sn;
	struct fx_buf b;
	char dir[4300], cmd[8800], *out = NULL;
	const char *line;
	size_t best = SIZE_MAX;

	fx_buf_init(&b);
	cr_assert_eq(aux_get(a, w->cpu, w->aux_off, w->aux_len, &b), 0);
	fx_etm_config_init(&cfg);
	cfg.arch = !strcmp(f->sc.trace, "ete") ? FX_ETM_ETE : FX_ETM_V4;
	cfg.trace_id = (uint8_t)(0x10 + 2 * w->cpu);
	cfg.timestamps = f->scn.timestamps;
	cfg.context_id = f->scn.context_id;
	memset(&src, 0, sizeof(src));
	src.arch = cfg.arch;
	fx_etm_regs(&cfg, &src.regs);
	for (size_t i = 0; i < m->n; i++) {
		mem[i].addr = m->s[i].addr;
		mem[i].data = m->s[i].data;
		mem[i].len = m->s[i].len;
	}
	memset(&sn, 0, sizeof(sn));
	sn.src = &src;
	sn.nsrc = 1;
	sn.mem = mem;
	sn.nmem = m->n;
	sn.trace = b.data;
	sn.trace_len = b.len;
	snprintf(dir, sizeof(dir), "%s/flip", g_tmp);
	cr_assert_eq(fx_snapshot_write(dir, &sn), 0);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && trc_pkt_lister -ss_dir . -pkt_only -logstdout",
		 dir);
	cr_assert_eq(sy_test_run(cmd, &out, NULL), 0);
	for (line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		unsigned idx;

		if (sscanf(line, "Idx:%u;", &idx) == 1 &&
		    strstr(line, "I_ATOM_F3") &&
		    (!nl || strstr(line, "I_ATOM_F3") < nl) &&
		    idx >= b.len / 2 && idx < best)
			best = idx;
		line = nl ? nl + 1 : NULL;
	}
	free(out);
	cr_assert_neq(best, SIZE_MAX, "no F3 atom in the second half");
	fx_buf_fini(&b);
	return best;
}

/* Offset of a TNT-8 packet with at least two bits near the middle of PT
 * window @w, found with libipt's packet decoder over the CPU's stream. */
static size_t pt_tnt_at(const struct aux *a, const struct fx_sc_window *w)
{
	struct fx_buf b;
	struct pt_config cfg;
	struct pt_packet_decoder *d;
	size_t best = SIZE_MAX;
	uint64_t base = UINT64_MAX, end = 0;

	/* the CPU's stream from its first chunk to the window's end */
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].cpu == w->cpu && a->v[i].off < base)
			base = a->v[i].off;
	end = w->aux_off + w->aux_len;
	fx_buf_init(&b);
	cr_assert_eq(aux_get(a, w->cpu, base, end - base, &b), 0);
	pt_config_init(&cfg);
	cfg.begin = b.data;
	cfg.end = b.data + b.len;
	d = pt_pkt_alloc_decoder(&cfg);
	cr_assert_not_null(d);
	cr_assert_geq(pt_pkt_sync_forward(d), 0);
	for (;;) {
		struct pt_packet pk;
		uint64_t off;

		cr_assert_geq(pt_pkt_get_offset(d, &off), 0);
		if (pt_pkt_next(d, &pk, sizeof(pk)) < 0)
			break;
		if (pk.type == ppt_tnt_8 && pk.payload.tnt.bit_size >= 2 &&
		    base + off >= w->aux_off + w->aux_len / 2 &&
		    base + off < end) {
			best = (size_t)(base + off - w->aux_off);
			break;
		}
	}
	pt_pkt_free_decoder(d);
	fx_buf_fini(&b);
	cr_assert_neq(best, SIZE_MAX, "no TNT-8 in the second half");
	return best;
}

/* Flips the E/N bit of one atom (ETM, raw TRBE data) or one TNT bit (PT)
 * in the second half of an intact window, in a copy of the perf.data. */
static uint8_t *flip_trace_bit(const struct fx *f, size_t *len, size_t *win)
{
	uint8_t *b = malloc(f->len);
	struct aux a;
	struct img m;
	int pt = fx_is_pt(f);

	cr_assert_not_null(b);
	cr_assert(pt || !strcmp(f->sc.sink, "trbe"));
	memcpy(b, f->data, f->len);
	*len = f->len;
	aux_open(&a, f->data, f->len, f->name);
	img_open(&m, f);
	for (size_t k = 0; k < f->sc.nwindows; k++) {
		const struct fx_sc_window *w = &f->sc.windows[k];
		size_t at;

		if (w->status != FX_ST_OK || w->branches < 20)
			continue;
		at = pt ? pt_tnt_at(&a, w) : etm_atom_at(f, &a, &m, w);
		for (size_t i = 0; i < a.n; i++) {
			const struct aux_chunk *c = &a.v[i];
			uint64_t o = w->aux_off + at;
			uint8_t *p;

			if (c->cpu != w->cpu || o < c->off ||
			    o >= c->off + c->len)
				continue;
			p = b + (c->p - f->data) + (o - c->off);
			if (pt)		/* TNT-8: payload bits 1..stop-1 */
				*p ^= 0x02;
			else		/* F3: f8 | bits, bit 2 = newest */
				*p ^= 0x04;
			*win = k;
			img_close(&m);
			aux_close(&a);
			return b;
		}
	}
	cr_assert_fail("%s: nothing to flip", f->name);
	return NULL;
}

Test(fixturegen, perf_negative, .init = tmp_setup, .fini = tmp_teardown)
{
	static const char *const which[] = { "ete-trbe-basic", "pt-basic",
					     "ete-trbe-kernel-smp" };

	sy_test_require_tool("perf");
	for (size_t i = 0; i < 3; i++) {
		struct report r;
		struct fx f;
		uint8_t *b;
		size_t len, win = 0;

		fx_open(&f, which[i]);
		/* the unmodified fixture passes */
		memset(&r, 0, sizeof(r));
		perf_check(&f, f.data, f.len, &r);
		cr_assert_eq(r.fails, 0, "%s", r.first);
		/* a truth that is off by one branch fails */
		sidecar_off_by_one(&f, &win);
		memset(&r, 0, sizeof(r));
		perf_check(&f, f.data, f.len, &r);
		cr_expect_gt(r.fails, 0, "%s: off-by-one truth of window %zu "
			     "not caught", f.name, win);
		fx_close(&f);
		/* a flipped atom / TNT bit fails */
		fx_open(&f, which[i]);
		b = flip_trace_bit(&f, &len, &win);
		memset(&r, 0, sizeof(r));
		perf_check(&f, b, len, &r);
		cr_expect_gt(r.fails, 0, "%s: flipped bit in window %zu not "
			     "caught", f.name, win);
		free(b);
		fx_close(&f);
	}
}

Test(fixturegen, lister_negative, .init = tmp_setup, .fini = tmp_teardown)
{
	struct report r;
	struct fx f;
	uint8_t *b;
	size_t len, win = 0;

	sy_test_require_tool("trc_pkt_lister");
	fx_open(&f, "ete-trbe-basic");
	b = flip_trace_bit(&f, &len, &win);
	memset(&r, 0, sizeof(r));
	lister_check(&f, b, len, &r);
	cr_expect_gt(r.fails, 0, "flipped atom in window %zu not caught", win);
	free(b);
	sidecar_off_by_one(&f, &win);
	memset(&r, 0, sizeof(r));
	lister_check(&f, f.data, f.len, &r);
	cr_expect_gt(r.fails, 0, "off-by-one truth of window %zu not caught",
		     win);
	fx_close(&f);
}

/* The copy of a kernel-mode fixture whose kernel map says a KASLR offset
 * one page off (start and pgoff, the runtime _text): the code read
 * through it is the image's a page away. */
static uint8_t *kaslr_moved(const struct fx *f, size_t *len)
{
	struct sy_perf_reader *r;
	struct sy_record rec;
	struct sy_diag d;
	uint8_t *b = malloc(f->len);
	int moved = 0;

	cr_assert_not_null(b);
	memcpy(b, f->data, f->len);
	cr_assert_eq(sy_perf_open_mem(&r, f->data, f->len, f->name, &d), 0);
	while (sy_perf_next(r, &rec) == 0)
		if (rec.type == SY_REC_MMAP &&
		    sy_le64(rec.data + 16) == f->sc.kernel_start) {
			/* header, pid, tid, start, len, pgoff */
			sy_put64(b + rec.offset + 16,
				 f->sc.kernel_start + 0x1000);
			sy_put64(b + rec.offset + 32,
				 f->sc.kernel_start + 0x1000);
			moved++;
		}
	sy_perf_close(r);
	cr_assert_eq(moved, 1, "%s: the kernel map", f->name);
	*len = f->len;
	return b;
}

/* Kernel-mode fixtures: perf 6.1 and trc_pkt_lister read the code from
 * the image at the KASLR offset the recording gives; a map that says
 * another offset (or the lister's snapshot with the image a page off)
 * does not decode to the truth, and neither does a flipped atom in the
 * lister (perf_negative flips one for perf). */
Test(fixturegen, kernel_negative, .init = tmp_setup, .fini = tmp_teardown)
{
	struct report r;
	struct fx f;
	uint8_t *b;
	size_t len, win = 0;

	sy_test_require_tool("perf");
	sy_test_require_tool("trc_pkt_lister");
	fx_open(&f, "ete-trbe-kernel-smp");
	cr_assert(fx_is_kernel(&f));
	b = kaslr_moved(&f, &len);
	memset(&r, 0, sizeof(r));
	perf_check(&f, b, len, &r);
	cr_expect_gt(r.fails, 0, "perf: a kernel map a page off not caught");
	free(b);
	b = flip_trace_bit(&f, &len, &win);
	memset(&r, 0, sizeof(r));
	lister_check(&f, b, len, &r);
	cr_expect_gt(r.fails, 0, "lister: flipped atom in window %zu not "
		     "caught", win);
	free(b);
	f.sc.kernel_start += 0x1000;
	expect_caught(&f, lister_check, "the image a page off");
	fx_close(&f);
}

/* Whether perf's items hold a branch @from -> @to. */
static int perf_has(const struct items *l, uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == IT_DATA && l->v[i].a == from &&
		    l->v[i].b == to)
			return 1;
	return 0;
}

/* perf 6.1 reads a module file unrelocated.  Given the module fixture's
 * module as it is, it takes every executed branch whose instruction
 * carries a relocation (llvm-readelf-19: the calls into the other
 * object's functions) to the instruction itself, never where the truth
 * went; given the module as loaded it decodes every window
 * (perf_decodes_every_fixture), but not once it also loaded the kernel
 * image: then it takes the module, below the kernel, for user space and
 * decodes nothing.  convert(1), KERNEL AND MODULES. */
Test(fixturegen, perf_reads_modules_unrelocated, .init = tmp_setup,
     .fini = tmp_teardown)
{
	char root[4096], dir[4200], file[4200], cmd[24000], *out = NULL;
	struct items got[FX_SCN_MAX_CPUS];
	uint64_t rel[64];
	size_t nrel = 0, seen = 0;
	struct fx f;

	sy_test_require_tool("perf");
	sy_test_require_tool("llvm-readelf-19");
	memset(got, 0, sizeof(got));
	cr_assert_not_null(getcwd(root, sizeof(root)));
	fx_open(&f, "etm4-etr-kernel-module");
	cr_assert(fx_is_kernel(&f) && f.sc.nmaps == 1);
	snprintf(cmd, sizeof(cmd), "llvm-readelf-19 -rW .%s | awk "
		 "'/R_AARCH64_(CALL|JUMP)26/ { print $1 }'",
		 f.sc.maps[0].path);
	cr_assert_eq(sy_test_run(cmd, &out, NULL), 0, "%s", cmd);
	for (char *p = out; p && *p && nrel < 64; p = strchr(p, '\n') + 1) {
		rel[nrel++] = strtoull(p, NULL, 16);
		if (!strchr(p, '\n'))
			break;
	}
	free(out);
	cr_assert_gt(nrel, 0, "no branch relocation in the module");
	snprintf(dir, sizeof(dir), "%s/raw", g_tmp);
	module_symfs(&f, root, dir, "branchy-aarch64.ko");
	snprintf(file, sizeof(file), "%s/%s.data", g_tmp, f.name);
	perf61_copy(&f, f.data, f.len, file);
	snprintf(cmd, sizeof(cmd), T_PERF " --buildid-dir '%s/bid' script "
		 "-i '%s' --symfs='%s' --itrace=bZ -F cpu,event,ip,addr "
		 "2>/dev/null", g_tmp, file, dir);
	cr_assert_eq(sy_test_run(cmd, &out, NULL), 0, "%s", cmd);
	perf_parse(out, got, FX_SCN_MAX_CPUS, 0);
	free(out);
	for (size_t i = 0; i < f.nin; i++) {
		const struct fx_insn *in = &f.in[i];

		for (size_t k = 0; k < nrel; k++) {
			if (in->pc != f.sc.maps[0].start + rel[k] ||
			    !taken(in) || !perf_has(&got[0], in->pc, in->pc))
				continue;
			cr_expect(!perf_has(&got[0], in->pc, in->next),
				  "perf went where the truth did from %#" PRIx64,
				  in->pc);
			seen++;
		}
	}
	cr_expect_gt(seen, 0, "perf never decoded a relocated branch as "
		     "unrelocated");
	for (size_t k = 0; k < nrel; k++)
		for (size_t i = 0; i < got[0].n; i++)
			cr_expect(got[0].v[i].kind != IT_DATA ||
					  got[0].v[i].a !=
						  f.sc.maps[0].start + rel[k] ||
					  got[0].v[i].b == got[0].v[i].a,
				  "perf relocated %#" PRIx64, got[0].v[i].a);
	it_free(&got[0]);
	/* with the loaded module and the kernel image (perf joins the
	 * symfs and -k's path: both relative, from inside the symfs) */
	snprintf(dir, sizeof(dir), "%s/withk", g_tmp);
	module_symfs(&f, root, dir, "branchy-aarch64-loaded.ko");
	snprintf(cmd, sizeof(cmd), "cd '%s' && ln -s '%s/%s' vmlinux && "
		 T_PERF " --buildid-dir '%s/bid' script -i '%s' --symfs=. "
		 "-k vmlinux --itrace=bZ -F cpu,event,ip,addr 2>/dev/null", dir,
		 root, f.sc.kernel, g_tmp, file);
	cr_assert_eq(sy_test_run(cmd, &out, NULL), 0, "%s", cmd);
	memset(got, 0, sizeof(got));
	perf_parse(out, got, FX_SCN_MAX_CPUS, 0);
	free(out);
	cr_expect_eq(got[0].n, 0, "perf 6.1 with a kernel image decoded %zu "
		     "items of the module (it took it for user space before)",
		     got[0].n);
	it_free(&got[0]);
	fx_close(&f);
}

Test(fixturegen, libipt_negative)
{
	struct report r;
	struct fx f;
	uint8_t *b;
	size_t len, win = 0;

	fx_open(&f, "pt-basic");
	b = flip_trace_bit(&f, &len, &win);
	memset(&r, 0, sizeof(r));
	libipt_check(&f, b, len, &r);
	cr_expect_gt(r.fails, 0, "flipped TNT bit in window %zu not caught",
		     win);
	free(b);
	sidecar_off_by_one(&f, &win);
	memset(&r, 0, sizeof(r));
	libipt_check(&f, f.data, f.len, &r);
	cr_expect_gt(r.fails, 0, "off-by-one truth of window %zu not caught",
		     win);
	fx_close(&f);
}

/* Moves the IP of the first sampling-event sample whose interrupt shows
 * in a window's trace by one instruction: every check of those samples
 * against a decoder must notice.  Returns the sample's index. */
static uint32_t sample_ip_moved(struct fx *f)
{
	for (size_t k = 0; k < f->sc.nsamples; k++) {
		struct fx_sc_sample *x = &f->sc.samples[k];

		if (x->window == FX_SC_NONE ||
		    !sample_irq_shows(f, &f->sc.windows[x->window], x))
			continue;
		x->ip += fx_is_pt(f) ? 1 : 4;
		return x->idx;
	}
	cr_assert_fail("%s: no sample inside a window", f->name);
	return 0;
}

/* The checks of the sampling-event samples against trc_pkt_lister,
 * libipt and perf catch a sidecar whose sample IP is off by one
 * instruction. */
Test(fixturegen, samples_negative, .init = tmp_setup, .fini = tmp_teardown)
{
	char file[4200];
	struct report r;
	struct fx f;
	uint32_t idx;

	sy_test_require_tool("trc_pkt_lister");
	sy_test_require_tool("perf");
	fx_open(&f, "etm4-etr-samples");
	memset(&r, 0, sizeof(r));
	lister_check(&f, f.data, f.len, &r);
	cr_assert_eq(r.fails, 0, "%s", r.first);
	idx = sample_ip_moved(&f);
	memset(&r, 0, sizeof(r));
	lister_check(&f, f.data, f.len, &r);
	cr_expect_gt(r.fails, 0, "lister: moved IP of sample %u not caught",
		     idx);
	fx_close(&f);

	fx_open(&f, "pt-samples");
	memset(&r, 0, sizeof(r));
	libipt_check(&f, f.data, f.len, &r);
	cr_assert_eq(r.fails, 0, "%s", r.first);
	idx = sample_ip_moved(&f);
	memset(&r, 0, sizeof(r));
	libipt_check(&f, f.data, f.len, &r);
	cr_expect_gt(r.fails, 0, "libipt: moved IP of sample %u not caught",
		     idx);
	snprintf(file, sizeof(file), "%s/%s.data", g_tmp, f.name);
	perf61_copy(&f, f.data, f.len, file);
	memset(&r, 0, sizeof(r));
	perf_samples_check(&f, file, &r);
	cr_expect_gt(r.fails, 0, "perf: moved IP of sample %u not caught",
		     idx);
	fx_close(&f);

	/* the branch count is checked too: one branch fewer fails */
	fx_open(&f, "ete-trbe-samples");
	for (size_t k = 0; k < f.sc.nsamples; k++)
		if (f.sc.samples[k].nbr > 1) {
			f.sc.samples[k].nbr--;
			idx = f.sc.samples[k].idx;
			break;
		}
	memset(&r, 0, sizeof(r));
	lister_check(&f, f.data, f.len, &r);
	cr_expect_gt(r.fails, 0, "lister: sample %u with a branch fewer not "
		     "caught", idx);
	fx_close(&f);
}

/* Gives the first sampling-event sample of an ok window whose stack was
 * cut at a signal delivery or rt_sigreturn the stack it would have
 * without the cut (the generator before it knew the rule).  Returns the
 * sample's index. */
static uint32_t sample_uncut(struct fx *f)
{
	for (size_t k = 0; k < f->sc.nsamples; k++) {
		struct fx_sc_sample *x = &f->sc.samples[k];
		const struct fx_sc_window *w;
		struct fx_sc_branch *br;
		long s;
		size_t j = 0;

		if (x->window == FX_SC_NONE)
			continue;
		w = &f->sc.windows[x->window];
		if (w->status != FX_ST_OK || (s = sample_segment(f, w, x)) < 0)
			continue;
		br = malloc((w->branches + 1) * sizeof(*br));
		cr_assert_not_null(br);
		for (size_t q = (size_t)s + 1; q-- > 0;)
			for (uint64_t i = w->segs[q].end; i-- > w->segs[q].start;)
				if (taken(&f->in[i])) {
					br[j].from = f->in[i].pc;
					br[j].to = f->in[i].next;
					j++;
				}
		if (j == x->nbr) {
			free(br);
			continue;
		}
		free(x->br);
		x->br = br;
		x->nbr = j;
		return x->idx;
	}
	cr_assert_fail("%s: no sample after a cut", f->name);
	return 0;
}

/* Moves libfx's mapping in the sidecar by a page. */
static void libfx_moved(struct fx *f)
{
	for (size_t k = 0; k < f->sc.nmaps; k++)
		if (strstr(f->sc.maps[k].path, "/libfx-")) {
			f->sc.maps[k].start += 0x1000;
			return;
		}
	cr_assert_fail("%s: no libfx", f->name);
}

/* The proofs of the programs of real shapes catch what their truths could
 * get wrong: a sample stack that runs across a signal delivery (as before
 * the cut rule) fails trc_pkt_lister's and libipt's sample checks; libfx
 * a page off fails the decoders and perf's callchains. */
Test(fixturegen, programs_negative, .init = tmp_setup, .fini = tmp_teardown)
{
	char file[4200];
	struct report r;
	struct fx f;

	sy_test_require_tool("trc_pkt_lister");
	sy_test_require_tool("perf");
	fx_open(&f, "etm4-etr-sigjmp");
	sample_uncut(&f);
	expect_caught(&f, lister_check, "lister: an uncut sample stack");
	fx_close(&f);
	fx_open(&f, "pt-sigjmp");
	sample_uncut(&f);
	expect_caught(&f, libipt_check, "libipt: an uncut sample stack");
	fx_close(&f);

	fx_open(&f, "etm4-etr-dynfx");
	libfx_moved(&f);
	expect_caught(&f, lister_check, "lister: libfx a page off");
	snprintf(file, sizeof(file), "%s/%s.data", g_tmp, f.name);
	perf61_copy(&f, f.data, f.len, file);
	memset(&r, 0, sizeof(r));
	perf_samples_check(&f, file, &r);
	cr_expect_gt(r.fails, 0, "perf: libfx a page off not caught");
	fx_close(&f);
	fx_open(&f, "pt-dynfx");
	libfx_moved(&f);
	expect_caught(&f, libipt_check, "libipt: libfx a page off");
	fx_close(&f);
}

/* Bad scenarios get a clear message. */
Test(fixturegen, scenario_errors)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "trace = etmv4\nR = 1\nP = 1\n", "no 'program'" },
		{ "program = x\nR = 1\nP = 1\n", "no 'trace'" },
		{ "program = x\ntrace = etmv4\nP = 1\n", "R and P" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\nbogus = 3\n",
		  ":5: unknown key 'bogus'" },
		{ "program = x\ntrace = pt\nsink = etr\nR = 1\nP = 1\n",
		  "does not go with" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = -3\n",
		  "not a number" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\nslice = 9 1000 5\n",
		  "out of range" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\ncpi = 2\n",
		  "at least cpi" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\n"
		  "thread = 5 5 0\nslice = 0 6 10\n", "unknown thread 6" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\nattr_size = 100\n",
		  "128, 136 or 160" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\ndesign = odd\n",
		  "design: mainline, stagger" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\ndesign = stagger\n",
		  "they need it" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 2\ndesign = stagger\n"
		  "offset = 1\n", "one period" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\noffset = 5\n",
		  "offset is for" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\ncount = bytes\n",
		  "count: cycles or instructions" },
		{ "program = x\ntrace = etmv4\nR = 2\nP = 2\ncpi = 2\nS = 1\n",
		  "S must be 0 (no sampling event) or at least cpi" },
		{ "program = x\ntrace = etmv4\nR = 2\nP = 2\n"
		  "sample_period = x\n", "not a number" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\nthrottle = 2\n",
		  "throttle = K N" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\nthrottle = 2 0\n",
		  "N must be > 0" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\ninherit = 0\n",
		  "inherit: a pid" },
		{ "program = x\ntrace = etmv4\nR = 1\nP = 1\nper_thread = 1\n"
		  "throttle = 1 5\n", "not with per_thread or el" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fx_scenario s;
		struct sy_diag d;
		int err;

		memset(&d, 0, sizeof(d));
		err = fx_scenario_parse(&s, cases[i].text,
					strlen(cases[i].text), "t.scn", &d);
		cr_expect_eq(err, -SY_E_INVALID, "case %zu accepted", i);
		cr_expect(strstr(d.msg, cases[i].msg) != NULL,
			  "case %zu: '%s' lacks '%s'", i, d.msg, cases[i].msg);
	}
}

/* A scenario that does not fit the program fails cleanly. */
Test(fixturegen, generator_errors)
{
	static const char *const texts[] = {
		"program = branchy-aarch64\ntrace = pt\nR = 10\nP = 10\n",
		"program = branchy-aarch64\ntrace = etmv4\nR = 100\nP = 150\n"
		"insns = 2000\ncorrupt = 99\n",
		"program = no-such-program\ntrace = etmv4\nR = 10\nP = 10\n",
		"program = branchy-aarch64\ntrace = etmv4\nR = 10\nP = 10\n"
		"load_base = 0x10000\n",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct fx_scenario s;
		struct fx_gen *g = NULL;
		struct sy_diag d;
		int err;

		memset(&d, 0, sizeof(d));
		err = fx_scenario_parse(&s, texts[i], strlen(texts[i]),
					"bad.scn", &d);
		cr_assert_eq(err, 0, "%s", d.msg);
		err = fx_gen_run(&g, &s, ".", &d);
		cr_expect_lt(err, 0, "case %zu generated", i);
		cr_expect(g == NULL);
		cr_expect(d.msg[0] != 0, "case %zu: no message", i);
	}
}

/* throttle and inherit that do not fit the run fail with their reason. */
Test(fixturegen, throttle_inherit_errors)
{
#define FX_BR "program = branchy-aarch64\ntrace = etmv4\nR = 100\n"
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ FX_BR "P = 150\ninsns = 2000\nthrottle = 99 10\n",
		  "throttle: no pause overflow 99" },
		{ FX_BR "P = 150\ninsns = 2000\nthrottle = 2 5000\n",
		  "unthrottle is past the end of cpu 0" },
		{ FX_BR "P = 100\ninsns = 2000\ninherit = 7\n",
		  "no thread of pid 7" },
		{ FX_BR "P = 100\ninsns = 2000\ninherit = 1000\n",
		  "pid 1000 is the parent" },
		{ FX_BR "P = 100\nthread = 1000 1000 18300\n"
		  "thread = 2000 2000 19000\nslice = 0 1000 500\n"
		  "slice = 0 2000 500\ninherit = 2000\n",
		  "cpu 0 runs pid 2000 and other threads" },
		{ FX_BR "P = 100\nthread = 1000 1000 18300\n"
		  "thread = 2000 2000 19000\nslice = 1 2000 500\n"
		  "slice = 0 1000 500\ninherit = 2000\n",
		  "parent's first slice must come before" },
	};
#undef FX_BR

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fx_scenario s;
		struct fx_gen *g = NULL;
		struct sy_diag d;
		int err;

		memset(&d, 0, sizeof(d));
		err = fx_scenario_parse(&s, cases[i].text,
					strlen(cases[i].text), "bad.scn", &d);
		cr_assert_eq(err, 0, "%s", d.msg);
		err = fx_gen_run(&g, &s, ".", &d);
		cr_expect_eq(err, -SY_E_INVALID, "case %zu generated", i);
		cr_expect(g == NULL);
		cr_expect(strstr(d.msg, cases[i].msg) != NULL,
			  "case %zu: '%s' lacks '%s'", i, d.msg, cases[i].msg);
	}
}

/* ------------------------------------------------------------------------
 * Scaled recordings (sy-fixturegen --scale N, "Scaling" in fx_gen.h): the
 * scenario's timeline N times in one perf.data, streamed.  Proven against
 * the fixture itself (proven above) and the same oracles:
 *
 *   scaled_repeats_the_fixture   the file streamed to a descriptor is the
 *        one built in memory; strobe-synth dump counts N times the
 *        fixture's records of every type but the once-only ones, and
 *        perf report -D counts what dump counts; the sidecar is N copies of
 *        the fixture's, each repetition later than the one before, moved
 *        by one constant in time and AUX space, with fresh thread ids;
 *   scaled_converts_to_the_truth strobe-synth's statuses, branch stacks,
 *        callchains and trace start times equal the scaled sidecar's;
 *   scaled_perf_decodes_n_times  perf 6.1 decodes N times the fixture's
 *        taken branches, and window by window what the sidecar says;
 *   scaled_lister_decodes_etm, scaled_libipt_decodes_pt  trc_pkt_lister
 *        and libipt decode every window of the rewritten trace to the
 *        truth's instructions;
 *   scaled_negative              a repetition that kept the timestamps of
 *        the one before fails the convert comparison.
 * ---------------------------------------------------------------------- */

#define SCALE_N 3

struct scaled_case {
	const char *name;
	const char *text;	/* NULL: SCN_DIR/NAME.scn */
};

/* The committed SMP scenarios end with a window the recording stops, so
 * they do not scale; these end paused on both CPUs (CPU 1's last slice is
 * shorter) and keep everything else: overlapping windows, switches inside
 * windows, a migrating thread, two processes. */
#define SCALED_SMP(NAME, PROG, TRACE, F0, F1, F2)                           \
	"name = " NAME "\nprogram = " PROG "\ntrace = " TRACE "\n"          \
	"R = 800\nP = 1100\n"                                               \
	"thread = 1000 1000 " F0 " branchy\n"                               \
	"thread = 1001 1000 " F1 " branchy-w\n"                             \
	"thread = 2000 2000 " F2 " other\n"                                 \
	"slice = 0 1000 3000\nslice = 1 1001 2500\nslice = 0 2000 2000\n"   \
	"slice = 1 1000 2200\nslice = 0 1001 2000\n"

static const struct scaled_case scaled_cases[] = {
	{ "etm4-etr-basic", NULL },
	{ "ete-trbe-basic", NULL },
	{ "pt-basic", NULL },
	{ "etm4-etr-pipe-zstd", NULL },
	{ "etm4-etr-lost", NULL },
	{ "ete-trbe-lost", NULL },
	{ "pt-damage", NULL },
	/* the sampling event: every repetition replays its samples */
	{ "etm4-etr-samples", NULL },
	{ "pt-samples", NULL },
	{ "scaled-smp-etr", SCALED_SMP("scaled-smp-etr", "branchy-aarch64",
				       "etmv4", "18300", "20500", "25000") },
	{ "scaled-smp-pt", SCALED_SMP("scaled-smp-pt", "branchy-x86_64", "pt",
				      "18800", "21000", "25000") },
	/* programs of real shapes: signals and longjmp (stacks cut at every
	 * delivery), a dynamically linked program (every repetition maps
	 * the program, ld.so and libfx again) */
	{ "etm4-etr-sigjmp", NULL },
	{ "pt-dynfx", NULL },
	/* zstd in file mode (the committed ones do not scale) */
	{ "scaled-pt-zstd",
	  "name = scaled-pt-zstd\nprogram = branchy-x86_64\ntrace = pt\n"
	  "R = 700\nP = 1000\nstart = 18800\ninsns = 5200\ncompress = 1\n" },
};

#define NSCALED (sizeof(scaled_cases) / sizeof(scaled_cases[0]))

static const struct scaled_case *scaled_case(const char *name)
{
	for (size_t i = 0; i < NSCALED; i++)
		if (!strcmp(scaled_cases[i].name, name))
			return &scaled_cases[i];
	cr_assert_fail("no scaled case %s", name);
	return NULL;
}

/* Case @c generated with scale @n (0: the fixture itself), in memory, and
 * written to g_tmp.  A scaled file is also streamed through a descriptor,
 * which must give the same bytes. */
static void fx_open_case(struct fx *f, const struct scaled_case *c,
			 uint64_t n)
{
	char path[700];
	struct fx_gen_opts o;
	struct fx_gen *g;
	struct fx_buf side;
	struct sy_diag d;
	const uint8_t *p;
	size_t len;
	int err;

	memset(f, 0, sizeof(*f));
	memset(&d, 0, sizeof(d));
	snprintf(f->name, sizeof(f->name), "%s-x%" PRIu64, c->name, n);
	if (c->text) {
		err = fx_scenario_parse(&f->scn, c->text, strlen(c->text),
					"scaled.scn", &d);
	} else {
		snprintf(path, sizeof(path), SCN_DIR "/%s.scn", c->name);
		err = fx_scenario_load(&f->scn, path, &d);
	}
	cr_assert_eq(err, 0, "%s", d.msg);
	fx_gen_opts_init(&o);
	o.scale = n;
	err = fx_gen_run_opts(&g, &f->scn, ".", &o, &d);
	cr_assert_eq(err, 0, "%s: %s", f->name, d.msg);
	cr_assert_eq(fx_gen_perf_data(g, &p, &len), 0);
	f->data = malloc(len + 1);
	cr_assert_not_null(f->data);
	memcpy(f->data, p, len);
	f->len = len;
	fx_buf_init(&side);
	cr_assert_eq(fx_sidecar_write(fx_gen_sidecar(g), &side), 0);
	err = fx_sidecar_parse(&f->sc, (const char *)side.data, side.len, &d);
	cr_assert_eq(err, 0, "%s: sidecar: %s", f->name, d.msg);
	fx_buf_fini(&side);
	fx_gen_free(g);
	cr_assert_lt((size_t)snprintf(f->data_path, sizeof(f->data_path),
				      "%s/%s.data", g_tmp, f->name),
		     sizeof(f->data_path), "temporary path too long");
	if (!n) {
		cr_assert_eq(sy_test_write_file(f->data_path, f->data, f->len),
			     0);
	} else {
		int fd = open(f->data_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		uint8_t *got;
		size_t glen;

		cr_assert_geq(fd, 0, "%s", f->data_path);
		o.out_fd = fd;
		o.no_truth = 1;
		err = fx_gen_run_opts(&g, &f->scn, ".", &o, &d);
		cr_assert_eq(close(fd), 0);
		cr_assert_eq(err, 0, "%s streamed: %s", f->name, d.msg);
		cr_assert_eq(fx_gen_sidecar(g)->nwindows, 0, "--no-truth");
		fx_gen_free(g);
		got = sy_test_read_file(f->data_path, &glen);
		cr_assert(got && glen == f->len &&
				  !memcmp(got, f->data, f->len),
			  "%s: the file streamed to a descriptor (%zu bytes) "
			  "is not the one built in memory (%zu)", f->name,
			  glen, f->len);
		free(got);
	}
	fx_load_run(f);
}

/* ---- record counts ---- */

struct counts {
	char name[40][32];
	uint64_t n[40];
	size_t nr;
};

static uint64_t count_of(const struct counts *c, const char *name)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->name[i], name))
			return c->n[i];
	return 0;
}

/* strobe-synth dump --stats */
static void dump_counts(const char *path, struct counts *c)
{
	char cmd[4400], *out = NULL;
	const char *l;
	int st;

	memset(c, 0, sizeof(*c));
	snprintf(cmd, sizeof(cmd), "'%s' dump --stats '%s' 2>&1",
		 sy_test_prog(), path);
	st = sy_test_run(cmd, &out, NULL);
	cr_assert_eq(st, 0, "%s: %s", cmd, out ? out : "");
	for (l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		char name[64];
		uint64_t v;

		if (sscanf(l, "%63s %" SCNu64, name, &v) == 2 &&
		    strcmp(name, "unknown-type") && strcmp(name, "unknown-id")) {
			cr_assert_lt(c->nr, 40);
			snprintf(c->name[c->nr], sizeof(c->name[0]), "%.31s",
				 name);
			c->n[c->nr++] = v;
		}
		l = nl ? nl + 1 : NULL;
	}
	free(out);
	cr_assert_gt(c->nr, 3, "%s: no counts", path);
}

/* Records a perf.data holds once whatever the number of repetitions: the
 * synthesized prologue and, in a pipe, the header records. */
static int once_only(const char *name)
{
	static const char *const once[] = {
		"TIME_CONV", "ID_INDEX", "AUXTRACE_INFO", "FINISHED_INIT",
		"ATTR", "FEATURE", "BUILD_ID",
	};

	for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++)
		if (!strcmp(name, once[i]))
			return 1;
	return 0;
}

/* Every repetition is a run of the program: each of its threads ends its
 * last slice with an EXIT (fx_gen.h), where the fixture has a context
 * switch out (several slices) or nothing, unless the thread really
 * exited. */
static uint64_t rep_count(const struct fx *u, const struct counts *cu,
			  const char *t, uint64_t want)
{
	uint64_t left = u->sc.nthreads - count_of(cu, "EXIT");

	if (!strcmp(t, "EXIT"))
		return u->sc.nthreads;
	if (!strcmp(t, "SWITCH_CPU_WIDE") && u->scn.nslices > 1)
		return want - left;
	return want;
}

static void counts_check(const struct fx *u, const struct fx *x,
			 uint64_t n)
{
	struct counts cu, cx;
	uint64_t once = 0, per = 0;

	dump_counts(u->data_path, &cu);
	dump_counts(x->data_path, &cx);
	if (!count_of(&cu, "EXIT")) {	/* new in the scaled file */
		cr_assert_lt(cu.nr, 40);
		snprintf(cu.name[cu.nr], sizeof(cu.name[0]), "EXIT");
		cu.n[cu.nr++] = 0;
	}
	for (size_t i = 0; i < cx.nr; i++)
		cr_expect(count_of(&cu, cx.name[i]) > 0 ||
				  !strcmp(cx.name[i], "EXIT"),
			  "%s: %s records the fixture does not have", x->name,
			  cx.name[i]);
	for (size_t i = 0; i < cu.nr; i++) {
		const char *t = cu.name[i];
		uint64_t want = rep_count(u, &cu, t, cu.n[i]),
			 got = count_of(&cx, t);

		if (!strcmp(t, "TOTAL"))
			continue;
		if (!strcmp(t, "COMPRESSED")) {
			/* a container: zstd output does not repeat */
			cr_expect_geq(got, want, "%s: %s", x->name, t);
			continue;
		}
		if (once_only(t)) {
			once += want;
			cr_expect_eq(got, want, "%s: %s: %" PRIu64 " records, "
				     "the fixture has %" PRIu64 " (once)",
				     x->name, t, got, want);
		} else {
			per += want;
			cr_expect_eq(got, n * want,
				     "%s: %s: %" PRIu64 " records, %" PRIu64
				     " x %" PRIu64 " expected", x->name, t,
				     got, n, want);
		}
	}
	cr_expect_gt(per, 0, "%s: nothing repeats", x->name);
	cr_expect_eq(count_of(&cx, "TOTAL") - count_of(&cx, "COMPRESSED"),
		     once + n * per, "%s: total", x->name);
}

/* perf report -D counts what strobe-synth dump counts (the prologue's
 * cs_etm version made readable for perf 6.1 first). */
static void perf_counts_check(const struct fx *x)
{
	char file[4200], cmd[12000], *pc = NULL, *sc = NULL;
	int st;

	snprintf(file, sizeof(file), "%s/%s.v1.data", g_tmp, x->name);
	perf61_copy(x, x->data, x->len, file);
	snprintf(cmd, sizeof(cmd),
		 ". tests/e2e/perf_stats.sh; perf_counts '%s' %s", file,
		 x->sc.pipe ? "pipe" : "");
	st = sy_test_run(cmd, &pc, NULL);
	cr_assert_eq(st, 0, "%s", cmd);
	snprintf(cmd, sizeof(cmd),
		 "SY='%s'; . tests/e2e/perf_stats.sh; sy_counts '%s'",
		 sy_test_prog(), file);
	st = sy_test_run(cmd, &sc, NULL);
	cr_assert_eq(st, 0, "%s", cmd);
	cr_expect(pc && *pc, "%s: perf printed no stats", x->name);
	cr_expect_str_eq(pc ? pc : "", sc ? sc : "",
			 "%s: perf report -D and strobe-synth dump count "
			 "differently", x->name);
	free(pc);
	free(sc);
}

/* ---- the sidecar: N copies of the fixture's ---- */

/* Repetition k of scaled item j: j / n0; j % n0 is its original. */
struct idmap {
	uint32_t from[64], to[64];
	size_t n;
};

/* Records tid @from -> @to for one repetition; the map must stay a
 * function and one-to-one. */
static void idmap_add(struct idmap *m, uint32_t from, uint32_t to,
		      const char *what)
{
	for (size_t i = 0; i < m->n; i++) {
		if (m->from[i] == from) {
			cr_expect_eq(m->to[i], to, "%s: id %u became %u and %u",
				     what, from, m->to[i], to);
			return;
		}
		cr_expect_neq(m->to[i], to, "%s: ids %u and %u both became %u",
			      what, m->from[i], from, to);
	}
	cr_assert_lt(m->n, 64);
	m->from[m->n] = from;
	m->to[m->n++] = to;
}

static int sample_eq(const struct fx_sc_sample *a, const struct fx_sc_sample *b)
{
	if (a->cpu != b->cpu || a->ip != b->ip || a->status != b->status ||
	    a->pause != b->pause ||
	    a->ncallchain != b->ncallchain || a->nbr != b->nbr)
		return 0;
	for (size_t i = 0; i < a->ncallchain; i++)
		if (a->callchain[i] != b->callchain[i])
			return 0;
	for (size_t i = 0; i < a->nbr; i++)
		if (a->br[i].from != b->br[i].from || a->br[i].to != b->br[i].to)
			return 0;
	return 1;
}

static void sidecar_check(const struct fx *u, const struct fx *x, uint64_t n)
{
	const struct fx_sidecar *a = &u->sc, *b = &x->sc;
	size_t nw = a->nwindows, nr = a->nresumes, np = a->npauses,
	       ns = a->nsamples;
	uint64_t shift[SCALE_N + 1], aux_step[FX_SCN_MAX_CPUS] = { 0 };
	uint64_t lo[SCALE_N + 1], hi[SCALE_N + 1];
	struct idmap maps[SCALE_N + 1];

	cr_assert_leq(n, SCALE_N);
	cr_assert_eq(b->nwindows, n * nw, "%s: windows", x->name);
	cr_assert_eq(b->nresumes, n * nr, "%s: resumes", x->name);
	cr_assert_eq(b->npauses, n * np, "%s: pauses", x->name);
	cr_assert_eq(b->nsamples, n * ns, "%s: samples", x->name);
	cr_assert_eq(b->S, a->S, "%s: S", x->name);
	cr_assert_eq(b->nthreads, n * a->nthreads, "%s: threads", x->name);
	cr_assert_gt(np, 0);
	memset(maps, 0, sizeof(maps));
	for (uint64_t k = 0; k < n; k++) {
		lo[k] = UINT64_MAX;
		hi[k] = 0;
		/* one shift per repetition, from the fixture's times */
		shift[k] = b->pauses[k * np].time - a->pauses[0].time;
	}
	for (size_t j = 0; j < b->nwindows; j++) {
		const struct fx_sc_window *w = &b->windows[j], *o =
			&a->windows[j % nw], *r0 = &b->windows[j % nw];
		uint64_t k = j / nw;

		cr_expect(w->cpu == o->cpu && w->start == o->start &&
			  w->end == o->end && w->start_ip == o->start_ip &&
			  w->end_ip == o->end_ip && w->insns == o->insns &&
			  w->branches == o->branches && w->status == o->status &&
			  w->nsegs == o->nsegs && w->has_lost == o->has_lost,
			  "%s: window %zu is not window %zu of the fixture",
			  x->name, j, j % nw);
		for (size_t s = 0; s < w->nsegs && s < o->nsegs; s++) {
			cr_expect(w->segs[s].start == o->segs[s].start &&
				  w->segs[s].end == o->segs[s].end &&
				  w->segs[s].end_kind == o->segs[s].end_kind,
				  "%s: window %zu segment %zu", x->name, j, s);
			idmap_add(&maps[k], o->segs[s].tid, w->segs[s].tid,
				  x->name);
		}
		idmap_add(&maps[k], o->tid, w->tid, x->name);
		cr_expect_eq(w->start_time - o->start_time, shift[k],
			     "%s: window %zu start time", x->name, j);
		cr_expect_eq(w->end_time - o->end_time, shift[k],
			     "%s: window %zu end time", x->name, j);
		/* the trace bytes are the same in every repetition (not
		 * the fixture's: its timestamps are smaller) */
		cr_expect(w->bytes == r0->bytes && w->aux_len == r0->aux_len,
			  "%s: window %zu bytes", x->name, j);
		if (k == 1)
			aux_step[w->cpu] = w->aux_off - r0->aux_off;
		if (k >= 1)
			cr_expect_eq(w->aux_off - r0->aux_off,
				     k * aux_step[w->cpu],
				     "%s: window %zu AUX offset", x->name, j);
		cr_expect_eq(w->resume == FX_SC_NONE ? FX_SC_NONE :
			     w->resume - k * nr, o->resume, "%s: window %zu",
			     x->name, j);
		cr_expect_eq(w->pause == FX_SC_NONE ? FX_SC_NONE :
			     w->pause - k * np, o->pause, "%s: window %zu",
			     x->name, j);
		lo[k] = w->start_time < lo[k] ? w->start_time : lo[k];
		hi[k] = w->end_time > hi[k] ? w->end_time : hi[k];
	}
	for (int kind = 0; kind < 3; kind++) {
		static const char *const what[] = { "resume", "pause",
						    "sample" };
		size_t m, mb;
		const struct fx_sc_sample *v = sc_samples(b, kind, &mb);
		const struct fx_sc_sample *ov = sc_samples(a, kind, &m);

		for (size_t j = 0; j < n * m && j < mb; j++) {
			const struct fx_sc_sample *s = &v[j], *o = &ov[j % m];
			uint64_t k = j / m;

			cr_expect(sample_eq(s, o), "%s: %s %zu is not %s %zu "
				  "of the fixture", x->name, what[kind], j,
				  what[kind], j % m);
			cr_expect_eq(s->time - o->time, shift[k],
				     "%s: sample %zu time", x->name, j);
			cr_expect_eq(s->window == FX_SC_NONE ? FX_SC_NONE :
				     s->window - k * nw, o->window,
				     "%s: sample %zu window", x->name, j);
			idmap_add(&maps[k], o->tid, s->tid, x->name);
			idmap_add(&maps[k], o->pid, s->pid, x->name);
			lo[k] = s->time < lo[k] ? s->time : lo[k];
			hi[k] = s->time > hi[k] ? s->time : hi[k];
		}
	}
	for (size_t j = 0; j < b->nthreads; j++) {
		const struct fx_sc_thread *t = &b->threads[j],
					  *o = &a->threads[j % a->nthreads];

		cr_expect(t->first == o->first && !strcmp(t->comm, o->comm),
			  "%s: thread %zu", x->name, j);
		idmap_add(&maps[j / a->nthreads], o->tid, t->tid, x->name);
		idmap_add(&maps[j / a->nthreads], o->pid, t->pid, x->name);
	}
	for (uint64_t k = 1; k < n; k++) {
		cr_expect_gt(lo[k], hi[k - 1],
			     "%s: repetition %" PRIu64 " starts before the one "
			     "before ended", x->name, k);
		cr_expect_eq(shift[k] - shift[k - 1], shift[1] - shift[0],
			     "%s: repetitions are not evenly spaced", x->name);
		/* fresh processes: no id of the repetition before */
		for (size_t i = 0; i < maps[k].n; i++)
			for (size_t j = 0; j < maps[k - 1].n; j++)
				cr_expect_neq(maps[k].to[i], maps[k - 1].to[j],
					      "%s: repetition %" PRIu64
					      " reuses id %u", x->name, k,
					      maps[k].to[i]);
	}
}

Test(fixturegen, scaled_repeats_the_fixture, .init = tmp_setup,
     .fini = tmp_teardown)
{
	for (size_t i = 0; i < NSCALED; i++) {
		struct fx u, x;

		fx_open_case(&u, &scaled_cases[i], 0);
		fx_open_case(&x, &scaled_cases[i], SCALE_N);
		counts_check(&u, &x, SCALE_N);
		sidecar_check(&u, &x, SCALE_N);
		fx_close(&u);
		fx_close(&x);
	}
}

Test(fixturegen, scaled_perf_counts_records, .init = tmp_setup,
     .fini = tmp_teardown)
{
	sy_test_require_tool("perf");
	for (size_t i = 0; i < NSCALED; i++) {
		struct fx x;

		fx_open_case(&x, &scaled_cases[i], SCALE_N);
		perf_counts_check(&x);
		fx_close(&x);
	}
}

/* ---- strobe-synth convert against the scaled truth ---- */

struct conv_win {
	uint64_t time, ip, trace_start;
	uint32_t cpu;
	int has_trace_time;
	enum sy_status status;
	char reason[160];
	struct sy_br *stack;
	uint32_t nr_stack;
	uint64_t *chain;
	uint32_t nr_chain;
};

struct conv {
	struct conv_win *v;
	size_t n, cap;
};

static int conv_window(void *ctx, const struct sy_window *w)
{
	struct conv *c = ctx;
	struct conv_win *g;

	if (!w->has_pause)
		return 0;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		cr_assert_not_null(c->v);
	}
	g = &c->v[c->n++];
	memset(g, 0, sizeof(*g));
	g->time = w->pause_time;
	g->ip = w->pause_ip;
	g->cpu = w->cpu;
	g->status = w->status;
	g->has_trace_time = w->has_trace_time;
	g->trace_start = w->trace_start;
	snprintf(g->reason, sizeof(g->reason), "%s", w->reason);
	g->nr_stack = w->nr_stack;
	g->stack = malloc((w->nr_stack + 1) * sizeof(*g->stack));
	g->chain = malloc((w->nr_callchain + 1) * sizeof(uint64_t));
	cr_assert(g->stack && g->chain);
	if (w->nr_stack)	/* stack / callchain may be NULL when empty */
		memcpy(g->stack, w->stack, w->nr_stack * sizeof(*g->stack));
	g->nr_chain = w->nr_callchain;
	if (w->nr_callchain)
		memcpy(g->chain, w->callchain,
		       w->nr_callchain * sizeof(uint64_t));
	return 0;
}

static void conv_free(struct conv *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].stack);
		free(c->v[i].chain);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* strobe-synth (the library convert runs) over @path, whole stacks. */
static void conv_run(const char *path, const struct fx_sidecar *sc,
		     unsigned threads, struct conv *c)
{
	struct sy_session_opts o;
	struct sy_session *s;
	struct sy_diag d;
	int err;

	memset(&d, 0, sizeof(d));
	memset(c, 0, sizeof(*c));
	sy_session_opts_init(&o);
	o.input = path;
	o.images.symfs = ".";
	o.images.buildid_dir = "";
	o.depth = 0;
	o.threads = threads;
	o.win_min = sc->min_insns;
	o.win_max = sc->max_insns;
	o.min_branches = sc->min_branches;
	err = sy_session_open(&s, &o, &d);
	cr_assert_eq(err, 0, "%s: %s", path, d.msg);
	err = sy_session_run(s, conv_window, c);
	cr_assert_eq(err, 0, "%s: %s", path, sy_errstr(err));
	sy_session_close(s);
}

static const struct conv_win *conv_find(const struct conv *c,
					const struct fx_sc_sample *p)
{
	const struct conv_win *g = NULL;

	for (size_t j = 0; j < c->n; j++)
		if (c->v[j].time == p->time && c->v[j].cpu == p->cpu)
			g = &c->v[j];
	return g;
}

struct cmp {
	unsigned threads;	/* decoding threads */
	const struct fx *u;	/* the unscaled fixture, or NULL */
	const struct conv *uc;	/* strobe-synth on it */
	int quiet;		/* negative controls: do not log */
	size_t stacks;		/* out: ok windows whose stacks matched */
};

#define CMP_LOG(o, ...)                             \
	do {                                        \
		if (!(o)->quiet)                    \
			cr_log_error(__VA_ARGS__);  \
	} while (0)

/* Compares strobe-synth with the sidecar sample by sample; returns the
 * number of disagreements (logged).  With o->u and o->uc, the time an ok
 * window's trace starts at must have moved by its repetition's shift: the
 * rewritten timestamps decode to the new times. */
static size_t conv_compare(const struct fx *x, const char *path,
			   struct cmp *o)
{
	const struct fx *u = o->u;
	const struct conv *uc = o->uc;
	struct conv c;
	size_t bad = 0;

	conv_run(path, &x->sc, o->threads, &c);
	if (c.n != x->sc.npauses) {
		CMP_LOG(o, "%s: %zu windows end at a pause sample, the "
			   "truth has %zu pause samples", x->name, c.n,
			x->sc.npauses);
		bad++;
	}
	for (size_t i = 0; i < x->sc.npauses; i++) {
		const struct fx_sc_sample *p = &x->sc.pauses[i];
		const struct conv_win *g = conv_find(&c, p), *ug = NULL;
		const struct fx_sc_sample *up = NULL;
		uint32_t ours;
		size_t k;

		if (u && uc) {
			up = &u->sc.pauses[i % u->sc.npauses];
			ug = conv_find(uc, up);
		}
		if (!g) {
			CMP_LOG(o, "%s: pause %zu: no window", x->name, i);
			bad++;
			continue;
		}
		cr_assert_eq(fx_status_parse(sy_status_name(g->status), &ours),
			     0);
		if (!(ours & p->status)) {
			char want[128];

			fx_status_str(p->status, want, sizeof(want));
			CMP_LOG(o, "%s: pause %zu: %s (%s), truth %s",
				     x->name, i, sy_status_name(g->status),
				     g->reason, want);
			bad++;
			continue;
		}
		if (p->status != FX_ST_OK)
			continue;
		if (ug && ug->status == SY_ST_OK && x->scn.timestamps &&
		    (!g->has_trace_time || !ug->has_trace_time ||
		     g->trace_start - ug->trace_start != p->time - up->time)) {
			CMP_LOG(o, "%s: pause %zu: trace starts at %" PRIu64
				     ", in the fixture at %" PRIu64
				     ", samples moved by %" PRIu64, x->name,
				     i, g->trace_start, ug->trace_start,
				     p->time - up->time);
			bad++;
		}
		for (k = 0; k < p->ncallchain && k < g->nr_chain; k++)
			if (g->chain[k] != p->callchain[k])
				break;
		if (g->ip != p->ip || g->nr_chain != p->ncallchain ||
		    k < p->ncallchain) {
			CMP_LOG(o, "%s: pause %zu: ip or callchain differ",
				     x->name, i);
			bad++;
			continue;
		}
		for (k = 0; k < p->nbr && k < g->nr_stack; k++)
			if (g->stack[k].from != p->br[k].from ||
			    g->stack[k].to != p->br[k].to)
				break;
		if (g->nr_stack != p->nbr || k < p->nbr) {
			CMP_LOG(o, "%s: pause %zu: %u branches, truth %zu, "
				     "first difference at %zu", x->name, i,
				     g->nr_stack, p->nbr, k);
			bad++;
			continue;
		}
		o->stacks++;
	}
	conv_free(&c);
	return bad;
}

Test(fixturegen, scaled_converts_to_the_truth, .init = tmp_setup,
     .fini = tmp_teardown)
{
	size_t bad = 0, stacks = 0;

	for (size_t i = 0; i < NSCALED; i++) {
		struct fx u, x;
		struct conv uc;
		struct cmp o;

		fx_open_case(&u, &scaled_cases[i], 0);
		fx_open_case(&x, &scaled_cases[i], SCALE_N);
		conv_run(u.data_path, &u.sc, 1, &uc);
		/* the fixture itself agrees (test_convert_fixtures proves
		 * it for the committed ones; here for the inline ones) */
		memset(&o, 0, sizeof(o));
		o.threads = 1;
		bad += conv_compare(&u, u.data_path, &o);
		memset(&o, 0, sizeof(o));
		o.u = &u;
		o.uc = &uc;
		for (o.threads = 1; o.threads <= 2; o.threads++)
			bad += conv_compare(&x, x.data_path, &o);
		stacks += o.stacks;
		conv_free(&uc);
		fx_close(&u);
		fx_close(&x);
	}
	cr_assert_eq(bad, 0, "%zu disagreements with the truth (listed above)",
		     bad);
	cr_assert_gt(stacks, 100, "too few ok windows compared");
}

/* A repetition whose trace kept the timestamps of the repetition before
 * (its AUXTRACE payloads copied over) puts windows at the wrong samples:
 * the comparison above must notice. */
Test(fixturegen, scaled_negative, .init = tmp_setup, .fini = tmp_teardown)
{
	static const char *const names[] = { "ete-trbe-basic", "pt-basic" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct fx x;
		struct sy_perf_reader *r;
		struct sy_record rec;
		struct sy_diag d;
		uint64_t off[8], len[8];
		size_t n = 0;
		struct cmp o;
		char path[4300];
		uint8_t *b;

		fx_open_case(&x, scaled_case(names[i]), SCALE_N);
		cr_assert_eq(sy_perf_open_mem(&r, x.data, x.len, x.name, &d), 0);
		while (sy_perf_next(r, &rec) == 0)
			if (rec.type == SY_REC_AUXTRACE && n < 8) {
				off[n] = rec.aux_file_offset;
				len[n++] = rec.aux_size;
			}
		sy_perf_close(r);
		cr_assert_eq(n, SCALE_N, "%s: one chunk per repetition",
			     x.name);
		cr_assert_eq(len[0], len[1]);
		memset(&o, 0, sizeof(o));
		o.threads = 1;
		cr_expect_eq(conv_compare(&x, x.data_path, &o), 0,
			     "%s as generated", x.name);
		b = malloc(x.len);
		cr_assert_not_null(b);
		memcpy(b, x.data, x.len);
		memcpy(b + off[1], b + off[0], (size_t)len[0]);
		snprintf(path, sizeof(path), "%s/stale.data", g_tmp);
		cr_assert_eq(sy_test_write_file(path, b, x.len), 0);
		o.quiet = 1;
		cr_expect_gt(conv_compare(&x, path, &o), 0,
			     "%s: stale timestamps went unnoticed", x.name);
		free(b);
		fx_close(&x);
	}
}

/* ---- perf 6.1 and the decoders on the scaled trace ---- */

/* Taken branches perf prints for @f (ETR timeless: see the top). */
static size_t perf_branches(const struct fx *f)
{
	char file[4200], cmd[9000], *out = NULL;
	size_t n = 0;
	int st;

	snprintf(file, sizeof(file), "%s/%s.v1.data", g_tmp, f->name);
	perf61_copy(f, f->data, f->len, file);
	snprintf(cmd, sizeof(cmd),
		 T_PERF " script -i '%s' --symfs=. --itrace=%s -F ip,addr "
		 "2>/dev/null | awk '$2 == \"=>\" && $1 != \"0\" && "
		 "$3 != \"0\"' | wc -l",
		 file, !strcmp(f->sc.sink, "etr") ? "bZ" : "b");
	st = sy_test_run(cmd, &out, NULL);
	cr_assert_eq(st, 0, "%s", cmd);
	cr_assert_eq(sscanf(out ? out : "", "%zu", &n), 1);
	free(out);
	return n;
}

Test(fixturegen, scaled_perf_decodes_n_times, .init = tmp_setup,
     .fini = tmp_teardown)
{
	static const char *const names[] = {
		"etm4-etr-basic", "ete-trbe-basic", "pt-basic",
		"scaled-smp-etr", "scaled-smp-pt",
	};

	sy_test_require_tool("perf");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct fx u, x;
		struct report r;
		size_t bu, bx;

		fx_open_case(&u, scaled_case(names[i]), 0);
		fx_open_case(&x, scaled_case(names[i]), SCALE_N);
		bu = perf_branches(&u);
		bx = perf_branches(&x);
		cr_expect_gt(bu, 100, "%s: perf decoded %zu branches", u.name,
			     bu);
		cr_expect_eq(bx, SCALE_N * bu, "%s: perf decoded %zu taken "
			     "branches, %d x %zu expected", x.name, bx,
			     SCALE_N, bu);
		memset(&r, 0, sizeof(r));
		perf_check(&x, x.data, x.len, &r);
		report_expect(&r, x.name);
		cr_expect_gt(r.windows_ok, 0, "%s: no window checked", x.name);
		fx_close(&u);
		fx_close(&x);
	}
}

static unsigned scaled_decode(int pt)
{
	unsigned ok = 0;

	for (size_t i = 0; i < NSCALED; i++) {
		struct report r;
		struct fx x;

		memset(&r, 0, sizeof(r));
		fx_open_case(&x, &scaled_cases[i], SCALE_N);
		if (fx_is_pt(&x) == pt) {
			if (pt)
				libipt_check(&x, x.data, x.len, &r);
			else
				lister_check(&x, x.data, x.len, &r);
			report_expect(&r, x.name);
			ok += r.windows_ok;
		}
		fx_close(&x);
	}
	return ok;
}

Test(fixturegen, scaled_lister_decodes_etm, .init = tmp_setup,
     .fini = tmp_teardown)
{
	unsigned ok;

	sy_test_require_tool("trc_pkt_lister");
	ok = scaled_decode(0);
	cr_expect_gt(ok, 50);
	cr_log_info("scaled: trc_pkt_lister: %u windows exact", ok);
}

Test(fixturegen, scaled_libipt_decodes_pt, .init = tmp_setup,
     .fini = tmp_teardown)
{
	unsigned ok = scaled_decode(1);

	cr_expect_gt(ok, 20);
	cr_log_info("scaled: libipt: %u windows exact", ok);
}

/* Scenarios whose recording stops a running window (a window without a
 * pause sample in the committed sidecar) cannot be repeated; the others
 * can, with a sidecar (and the default repetition count) that says so. */
Test(fixturegen, scaled_refuses_scenarios_that_end_running)
{
	char names[MAX_FX][64];
	size_t n = fx_names(names), refused = 0, scaled = 0;

	for (size_t i = 0; i < n; i++) {
		struct fx f;
		struct fx_gen_opts o;
		struct fx_gen *g = NULL;
		struct sy_diag d;
		int running = 0, err;

		fx_open(&f, names[i]);
		for (size_t k = 0; k < f.sc.nwindows; k++)
			running |= f.sc.windows[k].pause == FX_SC_NONE;
		memset(&d, 0, sizeof(d));
		fx_gen_opts_init(&o);
		o.scale = 2;
		o.no_truth = 1;
		err = fx_gen_run_opts(&g, &f.scn, ".", &o, &d);
		if (running || f.sc.per_thread || fx_is_kernel(&f)) {
			/* per-thread and kernel-mode recordings do not scale
			 * either */
			cr_expect_eq(err, -SY_E_INVALID, "%s scaled", f.name);
			cr_expect(strstr(d.msg, f.sc.per_thread ||
							fx_is_kernel(&f) ?
						  "cannot scale a per_thread "
						  "or el = 1" :
						  "cannot scale") != NULL,
				  "%s: %s", f.name, d.msg);
			refused++;
		} else {
			cr_expect_eq(err, 0, "%s: %s", f.name, d.msg);
			if (!err)
				cr_expect_eq(fx_gen_stats(g)->reps, 2);
			scaled++;
		}
		fx_gen_free(g);
		fx_close(&f);
	}
	cr_expect_gt(refused, 0);
	cr_expect_gt(scaled, 20);
}
