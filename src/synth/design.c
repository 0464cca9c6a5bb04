/* Which of the strobing designs made a recording, from its attrs alone
 * (the kernel RFC "perf: SW strobing for AUX trace windows"):
 *  - mainline pause/resume: two unrelated periods, a window any length;
 *  - userspace stagger (perf record --aux-action-stagger=W): no ABI change,
 *    pause and resume count the same event with the same period and perf
 *    keeps them W apart; W shows only in the recording;
 *  - attr.first_period on the pause event: a window of first_period -
 *    sample_period events;
 *  - pause-armed: the pause event's period, armed by each resume, is the
 *    window.
 * The RFC's ABI is not merged: SY_ATTR_OFF_FIRST_PERIOD and
 * SY_AUX_ACTION_PAUSE_ARMED say where its fields are taken from. */
#include <inttypes.h>
#include <stdio.h>

#include "sy_synth.h"

const char *sy_design_name(enum sy_design d)
{
	static const char *const names[] = {
		[SY_DESIGN_NONE] = "whole trace",
		[SY_DESIGN_MAINLINE] = "mainline pause/resume",
		[SY_DESIGN_STAGGER] = "userspace stagger",
		[SY_DESIGN_FIRST_PERIOD] = "first_period",
		[SY_DESIGN_PAUSE_ARMED] = "pause-armed",
	};

	return (unsigned)d < sizeof(names) / sizeof(names[0]) ? names[d] : "?";
}

enum sy_design sy_design_of(const struct sy_perf_attr *pause,
			    const struct sy_perf_attr *resume,
			    uint64_t *window)
{
	int freq;

	*window = 0;
	if (!pause)
		return SY_DESIGN_NONE;
	freq = sy_attr_flag(pause, SY_ATTR_FLAG_FREQ);
	if (pause->aux_action & SY_AUX_ACTION_PAUSE_ARMED) {
		*window = freq ? 0 : pause->sample_period;
		return SY_DESIGN_PAUSE_ARMED;
	}
	if (pause->first_period) {
		/* a first period not past the period gives no window */
		if (!freq && pause->first_period > pause->sample_period)
			*window = pause->first_period - pause->sample_period;
		return SY_DESIGN_FIRST_PERIOD;
	}
	if (resume && !freq && !sy_attr_flag(resume, SY_ATTR_FLAG_FREQ) &&
	    resume->type == pause->type && resume->config == pause->config &&
	    resume->sample_period == pause->sample_period)
		return SY_DESIGN_STAGGER;
	return SY_DESIGN_MAINLINE;
}

int sy_summary_design_line(const struct sy_session_summary *s, char *buf,
			   size_t len)
{
	const char *name = sy_design_name(s->design);

	switch (s->design) {
	case SY_DESIGN_NONE:
		return 0;
	case SY_DESIGN_MAINLINE:
		snprintf(buf, len, "design: %s (unrelated periods: a window is "
				   "any length)", name);
		break;
	case SY_DESIGN_STAGGER:
		snprintf(buf, len, "design: %s (pause and resume count one "
				   "event with equal periods, offset by W)",
			 name);
		break;
	case SY_DESIGN_FIRST_PERIOD:
	case SY_DESIGN_PAUSE_ARMED:
		if (s->design_window)
			snprintf(buf, len, "design: %s (kernel RFC, not merged): "
					   "windows of %" PRIu64 " pause events",
				 name, s->design_window);
		else
			snprintf(buf, len, "design: %s (kernel RFC, not merged): "
					   "no window length (frequencies, or "
					   "first_period not past the period)",
				 name);
		break;
	}
	return 1;
}

/* Whether a stretch of @cpu's (sorted by start, disjoint) overlaps
 * (@from, @to): the last one that starts before @to, if it ends after
 * @from. */
static int sy_throttled_on(const struct sy_throttle *v, size_t n,
			   uint32_t cpu, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = n;

	/* the first stretch of a later CPU, or of @cpu starting at or
	 * after @to */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].cpu < cpu || (v[mid].cpu == cpu && v[mid].start < to))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && v[lo - 1].cpu == cpu && v[lo - 1].end > from;
}

int sy_summary_throttled(const struct sy_session_summary *s, uint32_t cpu,
			 uint64_t from, uint64_t to)
{
	const struct sy_throttle *v = s->throttles;
	size_t n = s->nr_throttles;

	/* a window that ends at the throttling overflow itself (its pause
	 * was taken) or starts at the unthrottle does not overlap */
	if (!n || from >= to)
		return 0;
	if (cpu == UINT32_MAX) {
		for (size_t i = 0; i < n; i++)
			if (from < v[i].end && to > v[i].start)
				return 1;
		return 0;
	}
	return sy_throttled_on(v, n, cpu, from, to) ||
	       sy_throttled_on(v, n, UINT32_MAX, from, to);
}
