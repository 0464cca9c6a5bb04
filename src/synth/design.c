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

int sy_summary_throttled(const struct sy_session_summary *s, uint32_t cpu,
			 uint64_t from, uint64_t to)
{
	/* a window that ends at the throttling overflow itself (its pause
	 * was taken) or starts at the unthrottle does not overlap */
	for (size_t i = 0; i < s->nr_throttles; i++) {
		const struct sy_throttle *t = &s->throttles[i];

		if ((t->cpu == UINT32_MAX || cpu == UINT32_MAX ||
		     t->cpu == cpu) &&
		    from < t->end && to > t->start)
			return 1;
	}
	return 0;
}
