/* The MMAP2 lines in force in a perf script, as llvm-profgen reads them.
 *
 * llvm-profgen (19) reads a perf script top to bottom and turns every
 * address into a binary offset when it reads the sample: each MMAP2 line
 * of a binary's text moves that binary's load address (it keeps one per
 * binary, not per process), and a sample's address means the newest line
 * that covers it.  So a line is in force while it is the newest of its
 * path and offset and no newer line overlaps it; a line that is not in
 * force must be written again before samples that need it.  Merge reads
 * its inputs and writes its output with this one state, so what it reads
 * back from its own output is what it wrote; convert's writer (profgen.c)
 * writes a line unless it is in force, and its aggregation writes the
 * samples it holds before a line that changes how they would be read.
 *
 * Entries are few (one per path and offset in use), so lookups scan. */
#ifndef SY_OUT_MMAP_STATE_H
#define SY_OUT_MMAP_STATE_H

#include <stddef.h>
#include <stdint.h>

struct sy_mmstate_ent {
	uint64_t start, end, pgoff;
	uint64_t seq;		/* when written: newer is larger */
	uint64_t id;		/* the caller's name for the line */
	char *path;
};

struct sy_mmstate {
	struct sy_mmstate_ent *ents;
	size_t nr, cap;
	uint64_t seq;
};

void sy_mmstate_init(struct sy_mmstate *s);
void sy_mmstate_fini(struct sy_mmstate *s);

/* Whether the line (@start, @len, @pgoff, @path) is in force. */
int sy_mmstate_in_force(const struct sy_mmstate *s, uint64_t start,
			uint64_t len, uint64_t pgoff, const char *path);

/* Whether writing the line would change how lines written before are
 * read: it is not in force, and its binary has another line in force or
 * it overlaps a line of another binary. */
int sy_mmstate_conflicts(const struct sy_mmstate *s, uint64_t start,
			 uint64_t len, uint64_t pgoff, const char *path);

/* The line was written (read): it replaces its path and offset's line.
 * Returns 0 or -SY_E_NOMEM. */
int sy_mmstate_note(struct sy_mmstate *s, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *path, uint64_t id);

/* The newest line in force covering @addr; NULL when none does. */
const struct sy_mmstate_ent *sy_mmstate_find(const struct sy_mmstate *s,
					     uint64_t addr);

#endif
