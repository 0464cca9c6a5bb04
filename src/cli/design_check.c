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
 * inferred W.
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
	sy_dist_init(&d->skid);
	sy_dist_init(&d->ns);
	if (rfc && s->design_window && s->pause_counts_insns &&
	    !s->periods_freq) {
		d->want = s->design_window;
		d->tol = sy_dcheck_tol(d->want);
	} else {
		d->by_time = s->design == SY_DESIGN_STAGGER ||
			     (rfc && !s->pause_counts_insns);
	}
}

void sy_dcheck_fini(struct sy_dcheck *d)
{
	sy_dist_fini(&d->skid);
	sy_dist_fini(&d->ns);
}

int sy_dcheck_add(struct sy_dcheck *d, const struct sy_window *w)
{
	uint64_t off;

	if (w->status != SY_ST_OK)
		return 0;
	if (d->by_time) {
		if (!w->has_resume || !w->has_pause ||
		    w->pause_time < w->resume_time)
			return 0;
		d->checked++;
		return sy_dist_add(&d->ns, w->pause_time - w->resume_time) ?
			       -SY_E_NOMEM : 0;
	}
	if (!d->want)
		return 0;
	d->checked++;
	off = w->insns > d->want ? w->insns - d->want : d->want - w->insns;
	if (off <= d->tol)
		return sy_dist_add(&d->skid, off) ? -SY_E_NOMEM : 0;
	if (d->depart < 4) {
		d->first[d->depart] = w->index;
		d->first_len[d->depart] = w->insns;
	}
	d->depart++;
	return 0;
}

/* By time: ok windows whose duration is off their median by more than a
 * quarter. */
struct sy_dtime {
	uint64_t median, p5, p95, depart;
};

static struct sy_dtime sy_dcheck_time(struct sy_dcheck *d)
{
	struct sy_dtime t = { 0 };
	uint64_t v, k;

	if (!d->ns.n)
		return t;
	t.median = sy_dist_pct(&d->ns, 50);
	t.p5 = sy_dist_pct(&d->ns, 5);
	t.p95 = sy_dist_pct(&d->ns, 95);
	for (size_t pos = 0; sy_dist_next(&d->ns, &pos, &v, &k);)
		if (4 * v < 3 * t.median || 4 * v > 5 * t.median)
			t.depart += k;
	return t;
}

void sy_dcheck_text(struct sy_dcheck *d, const struct sy_session_summary *s,
		    FILE *f)
{
	if (d->want) {
		fprintf(f, "design check: %" PRIu64 " of %" PRIu64 " ok windows "
			   "hold the designed %" PRIu64 " instructions (skid "
			   "p50 %" PRIu64 ", max %" PRIu64 ")",
			d->checked - d->depart, d->checked, d->want,
			sy_dist_pct(&d->skid, 50), d->skid.n ? d->skid.max : 0);
		if (d->depart) {
			fprintf(f, "; %" PRIu64 " %s (a missed or disarmed "
				   "pause, or throttling):",
				d->depart, d->depart == 1 ? "departs" : "depart");
			for (uint64_t i = 0; i < d->depart && i < 4; i++)
				fprintf(f, " window %" PRIu64 " (%" PRIu64 ")",
					d->first[i], d->first_len[i]);
			if (d->depart > 4)
				fputs(" ...", f);
		}
		fputc('\n', f);
		return;
	}
	if (d->by_time && d->checked) {
		struct sy_dtime t = sy_dcheck_time(d);

		fprintf(f, "design check (by time: the pause event counts "
			   "cycles): ok windows last %s%" PRIu64 " ns (p5 %" PRIu64
			   ", p95 %" PRIu64 "); %" PRIu64 " of %" PRIu64
			   " off it by more than a quarter\n",
			s->design == SY_DESIGN_STAGGER ? "W ~ " : "", t.median,
			t.p5, t.p95, t.depart, d->checked);
	}
}

void sy_dcheck_json(struct sy_dcheck *d, FILE *f)
{
	if (d->want) {
		fprintf(f, ",\n  \"design_check\": {\"unit\": \"instructions\", "
			   "\"want\": %" PRIu64 ", \"tolerance\": %" PRIu64
			   ", \"checked\": %" PRIu64 ", \"depart\": %" PRIu64
			   ", \"skid_p50\": %" PRIu64 ", \"skid_max\": %" PRIu64
			   ", \"first_departing\": [",
			d->want, d->tol, d->checked, d->depart,
			sy_dist_pct(&d->skid, 50), d->skid.n ? d->skid.max : 0);
		for (uint64_t i = 0; i < d->depart && i < 4; i++)
			fprintf(f, "%s{\"window\": %" PRIu64
				   ", \"instructions\": %" PRIu64 "}",
				i ? ", " : "", d->first[i], d->first_len[i]);
		fputs("]}", f);
		return;
	}
	if (d->by_time) {
		struct sy_dtime t = sy_dcheck_time(d);

		fprintf(f, ",\n  \"design_check\": {\"unit\": \"ns\", "
			   "\"median\": %" PRIu64 ", \"p5\": %" PRIu64
			   ", \"p95\": %" PRIu64 ", \"checked\": %" PRIu64
			   ", \"depart\": %" PRIu64 "}",
			t.median, t.p5, t.p95, d->checked, t.depart);
		return;
	}
	fputs(",\n  \"design_check\": null", f);
}
