/* Callchain samples of other events: placing them in a window's trace.
 *
 * A sample of an event without aux-action (cycles/period=S,call-graph=fp/)
 * is an interrupt like the pause: when it comes while trace runs, the trace
 * stops at its IP (ETM exception with that preferred return address, PT
 * FUP + TIP.PGD) and starts there again when the kernel returns, and the
 * sample's stack is the window's branches up to that stop.
 *
 * Its perf time says which window it is in, not where: the trace carries
 * timestamps only now and then.  So it goes to a stretch that stops
 * asynchronously (not at a syscall, not at the end of the data) exactly at
 * its IP, in its thread, no earlier than where the previous sample of the
 * window went, and whose surrounding timestamps admit its time.  It is
 * placed only when exactly one stop qualifies: another interrupt at the
 * same address (a timer tick in the same loop) that the timestamps cannot
 * tell apart leaves it unplaced rather than guessed.
 *
 * One placer per queue: samples wait in it for the window that owns the
 * trace they interrupted.
 */
#ifndef SY_PLACE_H
#define SY_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "window.h"

struct sy_placer {
	struct sy_qsample *qs;
	size_t nr_qs, cap_qs, qs_pos;
	/* where the walk cuts the waiting samples' chains from (a malloc
	 * per sample was a tenth of the walk's time on deep callchains):
	 * the queue's own, so that they are freed about in the order they
	 * were cut, and dropped whenever no sample waits, so that a block
	 * pins no more than one queue's waiting samples */
	struct sy_blocks mem;
};

void sy_placer_init(struct sy_placer *p);
void sy_placer_fini(struct sy_placer *p);

/* Queues a sample (taking the frames of @chain, packed: cut from p->mem
 * or malloc'd); @after_pause: the samples said the
 * trace was paused (see struct sy_qsample).  Returns 1 when the oldest
 * waiting sample, a counted one, had to be dropped to bound memory (it is
 * unplaced), 0, or -SY_E_NOMEM. */
int sy_placer_add(struct sy_placer *p, uint64_t time, uint64_t ip,
		  uint64_t period, uint32_t pid, uint32_t tid,
		  struct sy_chain *chain, int after_pause);

/* Gives window @w, whose stretches are known, the samples up to its pause
 * sample (pub.inner, pub.unplaced); those of a window whose pause was
 * missed wait for the window that owns the trace.  *@counted: samples that
 * came after a pause sample and turned out to be inside the window (they
 * count as samples taken while trace ran from now on).  Returns 0 or
 * -SY_E_NOMEM. */
int sy_placer_window(struct sy_placer *p, const struct sy_synth_config *cfg,
		     struct sy_win *w, uint64_t *counted);
/* sy_placer_window in two steps, so that the search and the stacks run on
 * the thread that validates the window, not the walk's: the walk takes
 * the window's samples off its queue (w->qs; 0 or -SY_E_NOMEM), and any
 * thread then places them (pub.inner, pub.unplaced, w->counted), the
 * arrays and stacks cut from @mem (NULL: malloc'd), and frees the chains
 * it did not place (w->qs itself goes with the window, sy_win_free); 0 or
 * -SY_E_NOMEM, also in w->place_err. */
int sy_placer_take(struct sy_placer *p, struct sy_win *w);
int sy_place_window(const struct sy_synth_config *cfg, struct sy_win *w,
		    struct sy_blocks *mem);

/* Drops every waiting sample (no window will come); returns how many of
 * them counted (not those that came while the trace was paused). */
uint64_t sy_placer_drop(struct sy_placer *p);

#endif
