/* Merging convert's aggregated outputs (strobe-synth merge).
 *
 * perfscript and lbr files (sy_profgen.h) are sums of samples: a sample
 * is its frame lines and branch line (lbr: its one line), its count the
 * line before it or 1.  bolt files (sy_bolt.h) are sums of B and F
 * records.  Merging adds the counts of equal samples (records) exactly
 * and writes the result in one canonical order: MMAP2 lines sorted and
 * without repeats, then the samples sorted by their text (bolt: F, then
 * B, by address).  The output is a function of the multiset of samples
 * alone, so merging is associative and commutative: merge(merge(a, b), c)
 * is byte for byte merge(a, b, c), in any order.
 *
 * MMAP2 lines lose their process ids (0/0).  Addresses are summed as they
 * are: llvm-profgen (19) takes one load address per binary and file, so
 * inputs should load each binary at one address (non-PIE, or ASLR off);
 * paths mapped at several addresses are counted in the stats.
 *
 * Memory holds one copy of each distinct sample and MMAP2 line: it grows
 * with the distinct samples, not with the inputs or their counts.
 *
 * Refused: inputs of different formats (-SY_E_INVALID) and a path whose
 * MMAP2 lines carry different build-ids (-SY_E_BUILD_ID): two builds of
 * one binary would be summed as one.  A line that fits no format is
 * -SY_E_BAD_RECORD with "FILE: line N: what".  A count that would not fit
 * 64 bits is -SY_E_LIMIT.
 */
#ifndef SY_MERGE_H
#define SY_MERGE_H

#include <stdint.h>
#include <stdio.h>

#include "sy_error.h"

enum sy_merge_format {
	SY_MERGE_EMPTY,		/* nothing seen yet (empty inputs) */
	SY_MERGE_PERFSCRIPT,
	SY_MERGE_LBR,
	SY_MERGE_BOLT,
};

const char *sy_merge_format_name(enum sy_merge_format f);

struct sy_merge;

int sy_merge_new(struct sy_merge **out);
void sy_merge_free(struct sy_merge *m);

/* Reads all of @f (named @name in messages) into the sum.  On an error
 * the sum is left as it was before the failing line. */
int sy_merge_add(struct sy_merge *m, FILE *f, const char *name,
		 struct sy_diag *diag);

enum sy_merge_format sy_merge_format(const struct sy_merge *m);

struct sy_merge_stats {
	uint64_t inputs;
	uint64_t samples;	/* input samples (records), counts included */
	uint64_t distinct;	/* distinct samples (records) in the sum */
	uint64_t mmaps;		/* distinct MMAP2 lines */
	uint64_t moved;		/* paths mapped at several addresses */
	uint64_t held;		/* bytes of keys and tables held now */
};
const struct sy_merge_stats *sy_merge_stats(const struct sy_merge *m);

/* Writes the sum in the canonical order.  Returns 0, -SY_E_NOMEM or
 * -SY_E_OUTPUT (ferror). */
int sy_merge_write(struct sy_merge *m, FILE *f);

#endif
