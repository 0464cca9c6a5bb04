/* convert --format perf-data: the samples convert emits, as a perf.data
 * file every perf.data reader understands.
 *
 * The layout is what `perf inject --itrace=...l` writes for synthesized
 * branch stacks (../shared/fixtures/real/autofdo-etm-inject-output): one
 * synthesized event, "instructions" (PERF_TYPE_HARDWARE, config 1) with
 * sample_type IDENTIFIER | IP | TID | TIME | CPU | PERIOD | CALLCHAIN |
 * BRANCH_STACK and branch_sample_type ANY; each sample carries its
 * callchain (PERF_CONTEXT_USER or _KERNEL, then the frames, leaf first)
 * and the synthesized branches, newest first, flags "predicted" only (a
 * trace knows no mispredictions).  Unlike perf inject, no hw_idx word: the
 * create_llvm_prof of Debian 12 (autofdo 0.19) cannot read it.  Before the first
 * sample of a thread its COMM, before the first sample touching a mapping
 * its MMAP2 (MMAP for the kernel); the binaries' build-ids in the BUILD_ID
 * feature (pipe mode: HEADER_BUILD_ID records); the recording's host
 * features copied.  The AUX trace is dropped.
 *
 * A file path is written atomically (temporary file, renamed by
 * sy_pdo_commit); "-" streams perf's pipe layout to standard output.
 * Records leave as they are written: memory does not grow with the
 * samples.
 */
#ifndef SY_OUT_PERF_DATA_H
#define SY_OUT_PERF_DATA_H

#include <stdint.h>

#include "sy_error.h"
#include "sy_image.h"
#include "sy_proc.h"
#include "sy_perf_reader.h"
#include "sy_branch.h"

/* One emitted sample. */
struct sy_pdo_sample {
	uint64_t time, ip, period;
	uint32_t pid, tid, cpu;
	const char *comm;		/* NULL: unknown */
	const uint64_t *frames;		/* leaf first; NULL: @ip alone */
	uint32_t nr_frames;
	const struct sy_br *stack;	/* newest first */
	uint32_t nr_stack;
};

struct sy_pdo;

/* @in: the recording, for its features and build-ids (may be NULL).
 * Returns 0, -SY_E_OUTPUT (cannot create the file; @diag says why) or
 * -SY_E_NOMEM. */
int sy_pdo_open(struct sy_pdo **out, const char *path,
		const struct sy_perf_reader *in, struct sy_diag *diag);

/* Writes @s, after the COMM and mappings it needs from @snap (may be
 * NULL).  Returns 0, -SY_E_OUTPUT (write failed: sy_pdo_commit names the
 * cause) or -SY_E_NOMEM. */
int sy_pdo_sample(struct sy_pdo *o, const struct sy_proc_snap *snap,
		  const struct sy_pdo_sample *s);

uint64_t sy_pdo_nr_samples(const struct sy_pdo *o);

/* Finishes the file and renames it into place (or flushes the pipe);
 * frees @o.  Returns 0 or -SY_E_OUTPUT with @diag naming file and
 * cause (the temporary file removed). */
int sy_pdo_commit(struct sy_pdo *o, struct sy_diag *diag);
/* Drops the output; accepts NULL. */
void sy_pdo_abort(struct sy_pdo *o);

#endif
