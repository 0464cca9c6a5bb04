/* A window's status: the first of the statuses, in their declared order,
 * that the evidence supports.  The samples pin both ends of a user-space
 * window (the trace starts at the resume sample's IP and stops at the pause
 * sample's IP); everything else comes from the AUX records and the decoder.
 * A window that passes all of that is still `implausible` when one of its
 * branches is one no program makes (plausible.h): trace carries no
 * checksum.  Validation also sums the window's counts and cuts its branch
 * stack. */
#ifndef SY_VALIDATE_H
#define SY_VALIDATE_H

#include <capstone/capstone.h>

#include "config.h"
#include "plausible.h"
#include "window.h"

struct sy_validator {
	const struct sy_synth_config *cfg;
	/* x86 instruction lengths for --skid (A64 needs none) */
	csh cs;
	int cs_ok;
	/* reads the code of the windows' snapshots; each worker thread has
	 * a validator of its own, so its caches need no lock */
	struct sy_plausible pl;
	/* the stacks it cuts: freed on the walk's thread */
	struct sy_blocks mem;
};

/* Returns 0 or -SY_E_NOMEM (without a disassembler, --skid pins x86 ends
 * exactly and the plausibility checks that read code are skipped). */
int sy_validator_init(struct sy_validator *v,
		      const struct sy_synth_config *cfg);
void sy_validator_fini(struct sy_validator *v);
/* The same, allocated, for a worker thread's state (sy_jobs_extra): @cfg
 * is the const struct sy_synth_config the validator reads.  NULL on
 * failure; the free is NULL-safe. */
void *sy_validator_new(void *cfg);
void sy_validator_free(void *v);

/* Sets @w's status, reason, counts and stack from its stretches. */
void sy_validate(struct sy_validator *v, struct sy_win *w);

#endif
