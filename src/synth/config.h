/* What a session was asked to do and what the recording is.  Filled while
 * the session opens (options, then the prepass), read by every stage
 * through a const pointer, changed by none: no stage reads the options or
 * the summary to find out how to behave. */
#ifndef SY_SYNTH_CONFIG_H
#define SY_SYNTH_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "sy_decode.h"
#include "sy_synth.h"
#include "timeconv.h"

struct sy_synth_config {
	enum sy_trace_kind kind;
	enum sy_sink sink;
	int per_thread;		/* queues are threads, not CPUs */
	int whole_trace;	/* no pause samples: every stretch a window */
	int start_paused;	/* the trace event has aux_start_paused */
	uint32_t depth;		/* branch stack entries; 0 = all */
	uint32_t skid;
	enum sy_unit win_unit;
	uint64_t win_min, win_max;
	uint64_t min_branches;
	uint64_t unit_bytes;	/* bytes of stream trace per decode job */
	enum sy_etm_decoder etm_decoder;
	int items;		/* keep each window's decoder items as text */
	struct sy_timeconv tc;	/* trace clock to perf time */
	/* the session's binaries: not read for how to behave, only charged
	 * with the ones each window needed and missed (missing.h; it locks) */
	struct sy_image_cache *images;
};

/* The queue a record belongs to: its thread per thread, else its CPU. */
static inline uint32_t sy_queue_key(const struct sy_synth_config *c,
				    uint32_t cpu, uint32_t tid)
{
	return c->per_thread ? tid : cpu;
}

#endif
