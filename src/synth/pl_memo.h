/* The plausibility checks' memo (plausible.c): decoded instructions and
 * verdicts about the code at a place (an image and an offset in it), kept
 * from window to window.  Every input of a verdict is in its key, so a
 * verdict never depends on which windows came before.  Open addressing, a
 * power of two entries: SY_PL_MEMO_MIN at first, doubled when three
 * quarters full up to SY_PL_MEMO_CAP, then emptied when three quarters
 * full, so memory stays bounded; no pointer into it is kept across an
 * insertion.  It starts small because a run mostly keeps a few hundred
 * verdicts: spread over the whole table, each lookup was a cache and TLB
 * miss (a fifth of the checks' time on generated recordings, issue 27). */
#ifndef SY_SYNTH_PL_MEMO_H
#define SY_SYNTH_PL_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "insn.h"

#define SY_PL_MEMO_MIN 512u
#define SY_PL_MEMO_CAP 32768u

/* What a verdict is about (type: plausible.c's enum sy_pl_memo_type). */
struct sy_pl_key {
	uint8_t type;
	const void *img, *img2;
	uint64_t a, b;
};

struct sy_pl_memo_ent {
	const void *img, *img2;
	uint64_t a, b;
	uint8_t type;		/* 0: empty */
	uint8_t verdict;
	struct sy_insn insn;
};

struct sy_pl_memo {
	struct sy_pl_memo_ent *v;	/* NULL: out of memory */
	size_t cap;			/* entries of v */
	size_t used;
	uint64_t hits, misses;
};

void sy_pl_memo_init(struct sy_pl_memo *m);
void sy_pl_memo_fini(struct sy_pl_memo *m);

/* The entry kept for @k, or NULL.  Valid until the next put. */
const struct sy_pl_memo_ent *sy_pl_memo_get(struct sy_pl_memo *m,
					    const struct sy_pl_key *k);

/* Keeps @verdict (and @in) for @k; returns @verdict. */
uint8_t sy_pl_memo_put(struct sy_pl_memo *m, const struct sy_pl_key *k,
		       int verdict, const struct sy_insn *in);

#endif
