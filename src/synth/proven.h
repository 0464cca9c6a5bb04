/* Branch sequences whose code checks passed, for the plausibility checks
 * (plausible.h): a loop's path is checked once, and each time it comes
 * again costs one compare of its branches.
 *
 * What the checks that read only the code decide about a branch depends
 * on the branch, the one before it and the one before that in its stretch
 * (its straight run starts at the previous target; a jump table's bound is
 * read from the two before its `br`; none before: no run, no bound), and
 * on the mappings of the space they read code in.  So a sequence of
 * branches that all passed, kept with the (up to SY_PROVEN_CTX) branches
 * of the stretch before it, proves the same of any sequence equal to it,
 * branch for branch (source, target, kind), with as many branches before
 * it and those equal too, under the same mappings: every input of every
 * check is equal, and so is every verdict.  The owner empties the table
 * when a window's spaces hold other mappings (sy_aspace_same).
 *
 * What the checks carry from branch to branch (the open calls, the suspect
 * count) is not the sequence's to prove: it lists the branches that need
 * it (calls, returns, indirect branches), with what their landing check
 * found, and the owner runs those again.
 *
 * Two ways per place, placed by the sequence's ends and context; a new
 * sequence replaces the older of the two.  Only exact compares decide a
 * hit: no hash ever stands for a branch (nor the tags, which only say
 * which entries may match). */
#ifndef SY_SYNTH_PROVEN_H
#define SY_SYNTH_PROVEN_H

#include <stddef.h>
#include <stdint.h>

#include "sy_branch.h"

#define SY_PROVEN_LEN 128u	/* most branches of a sequence (< 256) */
#define SY_PROVEN_CTX 2u	/* the branches before it the checks read */
#define SY_PROVEN_REC (SY_PROVEN_LEN + SY_PROVEN_CTX)
#define SY_PROVEN_SEQS_LOG2 7
#define SY_PROVEN_SEQS (1u << SY_PROVEN_SEQS_LOG2)	/* entries */
#define SY_PROVEN_ONCE_LOG2 10
#define SY_PROVEN_ONCE (1u << SY_PROVEN_ONCE_LOG2)

struct sy_proven_seq {
	/* first: a find reads them with w[0], from one cache line */
	uint8_t n, nctx;		/* 0 n: empty */
	uint8_t nflow;
	/* the records as a closed stretch's ring holds them, newest first:
	 * the sequence, then its context; a record's three words are its
	 * source, target and kind (zero-extended: the ring's padding bytes
	 * are never compared) */
	uint64_t w[3 * SY_PROVEN_REC] __attribute__((aligned(16)));
	/* the branches that need the owner, oldest first */
	uint8_t flow[SY_PROVEN_LEN];
	uint8_t land[SY_PROVEN_LEN];	/* the owner's, for branch i */
};

/* x86-64: the compare takes four records at a time where the CPU has
 * AVX2 (proven.c). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SY_PROVEN_WIDE 1
#else
#define SY_PROVEN_WIDE 0
#endif

struct sy_proven {
	struct sy_proven_seq *v;	/* SY_PROVEN_SEQS */
	/* the bytes of four ring records that are fields, as words */
	uint64_t fields[12] __attribute__((aligned(32)));
	/* sequences seen once or twice since the last clear, by their
	 * places and the clear's epoch, with the count (sy_proven_again) */
	uint64_t *once;			/* SY_PROVEN_ONCE */
	uint64_t epoch;
	/* the entries put since the last clear, a bit each */
	uint64_t filled[SY_PROVEN_SEQS / 64];
	/* each entry's tag (sy_proven_tag of its length, context and
	 * newest source; 0: empty): a find reads the entries whose tag is
	 * the sequence's only, so that one that finds none reads no entry
	 * (3 KB apart, each was a cache miss where little is kept) */
	uint32_t tag[SY_PROVEN_SEQS];
	/* each place's newer way (0 or 1): a put writes the other */
	uint8_t newer[SY_PROVEN_SEQS / 2];
	uint64_t hits, misses;
	int wide;		/* the four-record compare runs (the
				 * tests clear it to run the other) */
};

/* Returns 0 or -SY_E_NOMEM. */
int sy_proven_init(struct sy_proven *p);
void sy_proven_fini(struct sy_proven *p);
/* Forgets every sequence (and every sighting of one). */
void sy_proven_clear(struct sy_proven *p);

/* The kept sequence equal to the @n branches @br[0 .. @n) (1..
 * SY_PROVEN_LEN, newest first) with the @nctx (0..SY_PROVEN_CTX) before
 * them at @br[@n ...], or NULL. */
const struct sy_proven_seq *sy_proven_find(struct sy_proven *p,
					   const struct sy_br *br, unsigned n,
					   unsigned nctx);

/* Whether the sequence (as for sy_proven_find) that just passed its
 * checks is worth keeping: 1 when a sequence with the same places (its
 * newest and oldest branches, the one before it, length and context) was
 * seen twice before, else 0 and it is noted.  Code that does not loop
 * passes each sequence once, and keeping it cost a copy of it; a loop's
 * comes again and again and is kept the third time (all since the last
 * clear: the sequences of other mappings say nothing of these ones'
 * loops; the second time kept many that came only twice, where each
 * process maps other objects).  Only decides what is kept: the places may be equal for
 * different sequences (then one more is kept), and what sy_proven_find
 * answers stays an exact compare. */
int sy_proven_again(struct sy_proven *p, const struct sy_br *br, unsigned n,
		    unsigned nctx);

/* Keeps that sequence as proven, with the @nflow branches that need the
 * owner (@flow: their indices in @br, oldest first) and the owner's @land
 * (@n values, for br[i]). */
void sy_proven_put(struct sy_proven *p, const struct sy_br *br, unsigned n,
		   unsigned nctx, const uint8_t *flow, unsigned nflow,
		   const uint8_t *land);

#endif
