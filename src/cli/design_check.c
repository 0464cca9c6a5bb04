/* Windows checked against their strobing design (issue 24; the kernel RFC
 * "perf: SW strobing for AUX trace windows").
 *
 * With the RFC's first_period or pause-armed design and a pause event
 * that counts instructions, a window holds the designed number of
 * instructions, up to the pause interrupt's skid: each window that does
 * not (a missed or disarmed pause, throttling) is counted and the first
 * are named.  Skid is measured, not assumed: the distance of the matching
 * windows from the design.  Counted in cycles (and for the userspace
 * stagger, whose W only the recording shows), the design is a duration
 * whose scale in nanoseconds the recording does not give: the windows'
 * durations are compared with their median, which for the stagger is the
 * inferred W.  Unless the trace counts the cycles itself: a cycle-accurate
 * ETM trace's Cycle Count packets, or Intel PT's CYC packets, give each
 * window's cycles (sy_window.cycles), and an RFC design counting cycles is
 * then checked in them as one counting instructions is in instructions,
 * exactly up to skid.  (The stagger's W is still inferred from the
 * durations.)
 *
 * Two causes are told apart because a tuner acts on them differently:
 *  - throttling: the kernel stopped the pause event (PERF_RECORD_THROTTLE
 *    until UNTHROTTLE), its overflows were not taken and the trace ran on.
 *    A departing window that overlaps such a stretch on its CPU is
 *    counted as throttled; the median that stands for W is taken without
 *    those windows;
 *  - the stagger not inherited: perf offsets the pause counter W after
 *    the resume counter, but a child's inherited counters start without
 *    the offset, so its pause overflows with a resume, in one interrupt.
 *    A window whose pause sample is followed in the same thread by a
 *    resume at (within 1/64 of the window's duration of) the same time
 *    is one of those: a full period long, not W.  Such windows are kept
 *    out of the median and named with their process.  The test compares
 *    two samples of one thread, so it needs the next window of the
 *    thread: each thread's last window waits for it (a small table).
 *    A thread's counters keep their phase, so once one of its pauses came
 *    with a resume, its later windows are taken as such too (its last
 *    one has no next window to show it); at the end of the run the
 *    others are ordinary.  A child whose resume
 *    is handled first gives empty windows instead, which their status
 *    already counts.
 *
 * Only ok windows are checked: a window that ends otherwise is already
 * counted by its status.  windows and convert both check with this file,
 * so their summaries agree.  Nothing here drops a window: a departure is a
 * fact about how the recording was made, reported to the person tuning
 * it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* What is skid rather than a departure: a pause interrupt is taken a few
 * instructions late, never a tenth of a window late. */
static uint64_t sy_dcheck_tol(uint64_t want)
{
	uint64_t t = want / 10;

	return t < 16 ? 16 : t;
}

void sy_dcheck_init(struct sy_dcheck *d, const struct sy_session_summary *s)
{
	int rfc = s->design == SY_DESIGN_FIRST_PERIOD ||
		  s->design == SY_DESIGN_PAUSE_ARMED;

	memset(d, 0, sizeof(*d));
	d->sum = s;
	sy_dist_init(&d->skid);
	sy_dist_init(&d->ns);
	sy_dist_init(&d->ns_thr);
	if (rfc && s->design_window && s->pause_counts_insns &&
	    !s->periods_freq) {
		d->want = s->design_window;
		d->tol = sy_dcheck_tol(d->want);
	} else {
		d->stagger = s->design == SY_DESIGN_STAGGER;
		d->by_time = d->stagger || (rfc && !s->pause_counts_insns);
		if (rfc && s->design_window && !s->pause_counts_insns &&
		    !s->periods_freq)
			d->cyc_want = s->design_window;
	}
}

/* The first ok window with the trace's own cycle counts turns a design
 * counting cycles from time to cycles (every window of a cycle-accurate
 * trace has them; the ones before it were not ok, so nothing was checked
 * by time). */
static void sy_dcheck_cycles(struct sy_dcheck *d, const struct sy_window *w)
{
	if (!d->cyc_want || d->by_cycles || w->status != SY_ST_OK ||
	    !w->has_cycles)
		return;
	d->by_cycles = 1;
	d->by_time = 0;
	d->want = d->cyc_want;
	d->tol = sy_dcheck_tol(d->want);
}

void sy_dcheck_fini(struct sy_dcheck *d)
{
	sy_dist_fini(&d->skid);
	sy_dist_fini(&d->ns);
	sy_dist_fini(&d->ns_thr);
}

static void sy_dcheck_name(struct sy_dcheck *d, uint64_t index, uint64_t len,
			   enum sy_dcheck_why why)
{
	if (d->nfirst >= SY_DCHECK_LIST)
		return;
	d->first[d->nfirst] = index;
	d->first_len[d->nfirst] = len;
	d->first_why[d->nfirst++] = (uint8_t)why;
}

/* A window's span in perf time: resume to pause, else its trace's. */
static int sy_dcheck_span(const struct sy_window *w, uint64_t *from,
			  uint64_t *to)
{
	if (w->has_resume && w->has_pause && w->pause_time >= w->resume_time) {
		*from = w->resume_time;
		*to = w->pause_time;
		return 1;
	}
	if (w->has_trace_time) {
		*from = w->trace_start;
		*to = w->trace_end;
		return 1;
	}
	return 0;
}

static int sy_dcheck_throttled(const struct sy_dcheck *d,
			       const struct sy_window *w)
{
	uint64_t from, to;

	return d->sum->nr_throttles && sy_dcheck_span(w, &from, &to) &&
	       sy_summary_throttled(d->sum, w->cpu, from, to);
}

static void sy_dcheck_noinh(struct sy_dcheck *d, uint32_t pid)
{
	for (size_t i = 0; i < d->nnoinh; i++)
		if (d->noinh[i].pid == pid) {
			d->noinh[i].n++;
			return;
		}
	if (d->nnoinh == SY_DCHECK_PIDS) {
		d->noinh_more++;
		return;
	}
	d->noinh[d->nnoinh].pid = pid;
	d->noinh[d->nnoinh++].n = 1;
}

/* A window of a design by time, decided: @coincide when its pause came
 * with the next resume of its thread (no stagger). */
static void sy_dcheck_time_one(struct sy_dcheck *d,
			       const struct sy_dcheck_pend *p, int coincide,
			       int throttled)
{
	uint64_t dur = p->pause_time - p->resume_time;

	if (!p->ok)
		return;
	d->checked++;
	if (coincide) {
		d->depart++;
		d->no_stagger++;
		sy_dcheck_noinh(d, p->pid);
		sy_dcheck_name(d, p->index, dur, SY_DC_NO_STAGGER);
		return;
	}
	if (throttled && d->nthr < SY_DCHECK_LIST) {
		d->thr_index[d->nthr] = p->index;
		d->thr_ns[d->nthr++] = dur;
	}
	if (sy_dist_add(throttled ? &d->ns_thr : &d->ns, dur))
		d->nomem = 1;
}

static void sy_dcheck_settle(struct sy_dcheck *d,
			     const struct sy_dcheck_pend *p, int coincide)
{
	uint64_t from = p->resume_time, to = p->pause_time;
	int thr = d->sum->nr_throttles &&
		  sy_summary_throttled(d->sum, p->cpu, from, to);

	sy_dcheck_time_one(d, p, coincide, thr);
}

/* The stagger: the thread's waiting window is decided by this one's
 * resume, and this one waits in its place. */
static void sy_dcheck_stagger(struct sy_dcheck *d, const struct sy_window *w,
			      const struct sy_dcheck_pend *cur)
{
	size_t i;

	for (i = 0; i < d->npend; i++)
		if (d->pend[i].tid == w->tid && d->pend[i].pid == w->pid)
			break;
	/* a window without a resume sample tells nothing of the phase */
	if (!w->has_resume)
		return;
	if (i < d->npend) {
		const struct sy_dcheck_pend *p = &d->pend[i];
		uint64_t dur = p->pause_time - p->resume_time;
		int co = w->resume_time >= p->pause_time && dur &&
			 (w->resume_time - p->pause_time) * 64 <= dur;

		sy_dcheck_settle(d, p, co);
		if (cur) {
			/* the counters of a thread keep their phase: once its
			 * pause came with a resume, none of its windows has
			 * the stagger (its last one has no next to show it) */
			int known = co || p->no_offset;

			d->pend[i] = *cur;
			d->pend[i].no_offset = known;
		} else {
			d->npend--;
			memmove(d->pend + i, d->pend + i + 1,
				(d->npend - i) * sizeof(*d->pend));
		}
		return;
	}
	if (!cur)
		return;
	if (d->npend == SY_DCHECK_PEND) {
		/* the longest-waiting thread is decided now */
		sy_dcheck_settle(d, &d->pend[0], d->pend[0].no_offset);
		memmove(d->pend, d->pend + 1, (d->npend - 1) * sizeof(*d->pend));
		d->npend--;
	}
	d->pend[d->npend++] = *cur;
}

static int sy_dcheck_by_time(struct sy_dcheck *d, const struct sy_window *w)
{
	struct sy_dcheck_pend p;
	int has = w->has_resume && w->has_pause &&
		  w->pause_time >= w->resume_time;

	memset(&p, 0, sizeof(p));
	p.pid = w->pid;
	p.tid = w->tid;
	p.cpu = w->cpu;
	p.index = w->index;
	p.resume_time = w->resume_time;
	p.pause_time = w->pause_time;
	p.ok = w->status == SY_ST_OK;
	if (d->stagger) {
		/* every window, ok or not, may decide its thread's last */
		sy_dcheck_stagger(d, w, has ? &p : NULL);
		return 0;
	}
	if (has)
		sy_dcheck_settle(d, &p, 0);
	return 0;
}

int sy_dcheck_add(struct sy_dcheck *d, const struct sy_window *w)
{
	uint64_t off, len;

	sy_dcheck_cycles(d, w);
	if (d->by_time)
		return sy_dcheck_by_time(d, w);
	if (w->status != SY_ST_OK || !d->want ||
	    (d->by_cycles && !w->has_cycles))
		return 0;
	len = d->by_cycles ? w->cycles : w->insns;
	d->checked++;
	off = len > d->want ? len - d->want : d->want - len;
	if (off <= d->tol)
		return sy_dist_add(&d->skid, off) ? -SY_E_NOMEM : 0;
	d->depart++;
	if (sy_dcheck_throttled(d, w)) {
		d->throttled++;
		sy_dcheck_name(d, w->index, len, SY_DC_THROTTLED);
	} else {
		sy_dcheck_name(d, w->index, len, SY_DC_OTHER);
	}
	return 0;
}

static int sy_dcheck_off_one(uint64_t v, uint64_t median)
{
	return 4 * v < 3 * median || 4 * v > 5 * median;
}

/* The end of the run: the threads' waiting windows are decided, and the
 * median known, the throttled windows off it are named. */
static void sy_dcheck_flush(struct sy_dcheck *d)
{
	struct sy_dist *base = d->ns.n ? &d->ns : &d->ns_thr;
	uint64_t median;

	if (d->flushed)
		return;
	d->flushed = 1;
	for (size_t i = 0; i < d->npend; i++)
		sy_dcheck_settle(d, &d->pend[i], d->pend[i].no_offset);
	d->npend = 0;
	if (!base->n)
		return;
	median = sy_dist_pct(base, 50);
	for (size_t i = 0; i < d->nthr; i++)
		if (sy_dcheck_off_one(d->thr_ns[i], median))
			sy_dcheck_name(d, d->thr_index[i], d->thr_ns[i],
				       SY_DC_THROTTLED);
}

/* By time: ok windows whose duration is off the median of the ordinary
 * ones (neither throttled nor without the stagger) by more than a
 * quarter. */
struct sy_dtime {
	uint64_t median, p5, p95, depart, throttled;
};

static uint64_t sy_dcheck_off(struct sy_dist *dist, uint64_t median)
{
	uint64_t v, k, n = 0;

	for (size_t pos = 0; sy_dist_next(dist, &pos, &v, &k);)
		if (sy_dcheck_off_one(v, median))
			n += k;
	return n;
}

static struct sy_dtime sy_dcheck_time(struct sy_dcheck *d)
{
	struct sy_dtime t = { 0 };
	struct sy_dist *base = d->ns.n ? &d->ns : &d->ns_thr;

	sy_dcheck_flush(d);
	t.depart = d->no_stagger;
	if (!base->n)
		return t;
	t.median = sy_dist_pct(base, 50);
	t.p5 = sy_dist_pct(base, 5);
	t.p95 = sy_dist_pct(base, 95);
	t.depart += sy_dcheck_off(&d->ns, t.median);
	t.throttled = sy_dcheck_off(&d->ns_thr, t.median);
	t.depart += t.throttled;
	return t;
}

static const char *const sy_dcheck_whys[] = {
	[SY_DC_OTHER] = "other",
	[SY_DC_THROTTLED] = "throttled",
	[SY_DC_NO_STAGGER] = "no-stagger",
};

static void sy_dcheck_list(const struct sy_dcheck *d, const char *unit,
			   FILE *f)
{
	for (size_t i = 0; i < d->nfirst && i < 4; i++)
		fprintf(f, " window %" PRIu64 " (%" PRIu64 "%s%s%s)",
			d->first[i], d->first_len[i], unit,
			d->first_why[i] ? ", " : "",
			d->first_why[i] ? sy_dcheck_whys[d->first_why[i]] : "");
	if (d->nfirst > 4 || d->depart > d->nfirst)
		fputs(" ...", f);
}

static void sy_dcheck_text_insns(struct sy_dcheck *d, FILE *f)
{
	fprintf(f, "design check: %" PRIu64 " of %" PRIu64 " ok windows "
		   "hold the designed %" PRIu64 " %s (skid "
		   "p50 %" PRIu64 ", max %" PRIu64 ")",
		d->checked - d->depart, d->checked, d->want,
		d->by_cycles ? "cycles, as the trace counts them" :
			       "instructions",
		sy_dist_pct(&d->skid, 50), d->skid.n ? d->skid.max : 0);
	if (d->depart) {
		fprintf(f, "; %" PRIu64 " %s (a missed or disarmed "
			   "pause, or throttling):",
			d->depart, d->depart == 1 ? "departs" : "depart");
		sy_dcheck_list(d, "", f);
		if (d->throttled)
			fprintf(f, "; %" PRIu64 " of them while the pause "
				   "event was throttled (PERF_RECORD_THROTTLE)",
				d->throttled);
	}
	fputc('\n', f);
}

void sy_dcheck_text(struct sy_dcheck *d, const struct sy_session_summary *s,
		    const char *prefix, FILE *f)
{
	struct sy_dtime t;

	if (d->want) {
		fputs(prefix, f);
		sy_dcheck_text_insns(d, f);
		return;
	}
	if (!d->by_time)
		return;
	t = sy_dcheck_time(d);
	if (!d->checked)
		return;
	fprintf(f, "%sdesign check (by time: the pause event counts "
		   "cycles): ok windows last %s%" PRIu64 " ns (p5 %" PRIu64
		   ", p95 %" PRIu64 "); %" PRIu64 " of %" PRIu64
		   " off it by more than a quarter",
		prefix, s->design == SY_DESIGN_STAGGER ? "W ~ " : "",
		t.median, t.p5, t.p95, t.depart, d->checked);
	if (t.throttled)
		fprintf(f, "; %" PRIu64 " of them while the pause event was "
			   "throttled (PERF_RECORD_THROTTLE)", t.throttled);
	if (d->no_stagger)
		fprintf(f, "; %" PRIu64 " without the stagger (the pause came "
			   "with a resume)", d->no_stagger);
	if (d->nfirst) {
		fputc(':', f);
		sy_dcheck_list(d, " ns", f);
	}
	if (d->nomem)
		fputs(" (incomplete: out of memory)", f);
	fputc('\n', f);
	for (size_t i = 0; i < d->nnoinh; i++)
		fprintf(f, "%sdesign check: pid %" PRIu32 " did not inherit "
			   "the stagger: %" PRIu64 " %s a full period, not "
			   "W\n", prefix, d->noinh[i].pid, d->noinh[i].n,
			d->noinh[i].n == 1 ? "window is" : "windows are");
	if (d->noinh_more)
		fprintf(f, "%sdesign check: %" PRIu64 " more processes did "
			   "not inherit the stagger\n", prefix, d->noinh_more);
}

static void sy_dcheck_json_list(const struct sy_dcheck *d, const char *key,
				const char *unit, FILE *f)
{
	fprintf(f, ", \"%s\": [", key);
	for (size_t i = 0; i < d->nfirst; i++)
		fprintf(f, "%s{\"window\": %" PRIu64 ", \"%s\": %" PRIu64
			   ", \"why\": \"%s\"}",
			i ? ", " : "", d->first[i], unit, d->first_len[i],
			sy_dcheck_whys[d->first_why[i]]);
	fputc(']', f);
}

void sy_dcheck_json(struct sy_dcheck *d, FILE *f)
{
	if (d->want) {
		const char *unit = d->by_cycles ? "cycles" : "instructions";

		fprintf(f, ",\n  \"design_check\": {\"unit\": \"%s\", "
			   "\"want\": %" PRIu64 ", \"tolerance\": %" PRIu64
			   ", \"checked\": %" PRIu64 ", \"depart\": %" PRIu64
			   ", \"throttled\": %" PRIu64
			   ", \"skid_p50\": %" PRIu64 ", \"skid_max\": %" PRIu64,
			unit, d->want, d->tol, d->checked, d->depart,
			d->throttled, sy_dist_pct(&d->skid, 50),
			d->skid.n ? d->skid.max : 0);
		sy_dcheck_json_list(d, "first_departing", unit, f);
		fputc('}', f);
		return;
	}
	if (d->by_time) {
		struct sy_dtime t = sy_dcheck_time(d);

		fprintf(f, ",\n  \"design_check\": {\"unit\": \"ns\", "
			   "\"median\": %" PRIu64 ", \"p5\": %" PRIu64
			   ", \"p95\": %" PRIu64 ", \"checked\": %" PRIu64
			   ", \"depart\": %" PRIu64 ", \"throttled\": %" PRIu64
			   ", \"no_stagger\": %" PRIu64,
			t.median, t.p5, t.p95, d->checked, t.depart,
			t.throttled, d->no_stagger);
		sy_dcheck_json_list(d, "first_departing", "ns", f);
		fputs(", \"not_inherited\": [", f);
		for (size_t i = 0; i < d->nnoinh; i++)
			fprintf(f, "%s{\"pid\": %" PRIu32 ", \"windows\": %"
				   PRIu64 "}", i ? ", " : "", d->noinh[i].pid,
				d->noinh[i].n);
		fputs("]}", f);
		return;
	}
	fputs(",\n  \"design_check\": null", f);
}
