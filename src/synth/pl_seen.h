/* The branches whose code checks passed (plausible.c), kept from window to
 * window while the windows' spaces hold the same mappings: a branch with
 * the target of the branch before it (its straight run's start) and, for
 * an indirect jump whose run holds a table (sy_jt_range), what its bound
 * is read from (the branch before it and the one before that: sy_jt_hit;
 * without a table its checks read neither, and its entry has neither:
 * code that jumps through a register makes many of them).  Every input of
 * the checks is in the key, so a verdict never depends on which windows
 * the validator saw before (issue 27, bug 4: it did, with the thread
 * count and the command).
 *
 * Direct-mapped, SY_PL_SEEN entries (a power of two): code that does not
 * loop makes hundreds of branches per process, each checked again on each
 * visit when 16 entries held them (a fifth of convert's time on generated
 * recordings of several programs, issue 27); with 512, two of an
 * interpreter's few hundred often shared an entry and pushed each other
 * out (30 % of its code checks).  An entry belongs to one
 * generation of the table (the top byte of its kinds word): emptying the
 * table, when a window's mappings are not the last one's, starts a new
 * generation, and writes it only when the 255 generations wrap. */
#ifndef SY_SYNTH_PL_SEEN_H
#define SY_SYNTH_PL_SEEN_H

#include <stddef.h>
#include <stdint.h>

#include "sy_branch.h"
#include "sy_hash.h"

#define SY_PL_SEEN_LOG2 10
#define SY_PL_SEEN (1u << SY_PL_SEEN_LOG2)

struct sy_pl_seen {
	uint64_t run, from, to;
	/* kind + 1 of the branch, the one before and the one before that
	 * (0: none, and an empty entry), a byte each, and the generation
	 * (1..255) in the top byte: one word, built in a register, so that
	 * the lookup compares words (as three bytes a key on the stack cost
	 * a store-forwarding stall per branch: about half of the checks'
	 * time on real ETE trace) */
	uint32_t kinds;
	/* indirect branches: 0 until its target passed sy_pl_target();
	 * then a return's is 0xff, another's its sy_pl_landing() verdict
	 * + 1 (like the checks above, both read only the code at its ends) */
	uint8_t land;
};

/* An indirect jump's entry whose run holds a table: the source of the
 * branch before and the target of the one before that.  Apart, in an
 * array of its own, so that the entries of the others are half a cache
 * line each (the table's lookups were the checks' first cost on code that
 * does not loop); the kinds of such an entry (the byte of the branch
 * before is not 0) say that this one is its. */
struct sy_pl_seen_jt {
	uint64_t pfrom, p2to;
};

struct sy_pl_seen_tab {
	struct sy_pl_seen *v;		/* SY_PL_SEEN */
	struct sy_pl_seen_jt *jt;	/* SY_PL_SEEN, beside v */
	uint32_t gen;			/* its entries', 1..255 */
};

/* Returns 0 or -SY_E_NOMEM. */
int sy_pl_seen_init(struct sy_pl_seen_tab *t);
void sy_pl_seen_fini(struct sy_pl_seen_tab *t);
/* Empties the table: a new generation, or all of it when they wrap. */
void sy_pl_seen_clear(struct sy_pl_seen_tab *t);

/* The kinds word of @b after @prev and @p2 (NULL: none) in generation
 * @gen. */
static inline uint32_t sy_pl_kinds(const struct sy_br *b,
				   const struct sy_br *prev,
				   const struct sy_br *p2, uint32_t gen)
{
	return (uint32_t)(b->kind + 1) |
	       (prev ? (uint32_t)(prev->kind + 1) << 8 : 0) |
	       (p2 ? (uint32_t)(p2->kind + 1) << 16 : 0) | gen << 24;
}

/* The entry of a branch from @from to @to whose run starts at @run: every
 * bit of the three reaches the index (A64 addresses have two zero low
 * bits; a loop's branches differ in a few middle ones). */
static inline size_t sy_pl_seen_slot(uint64_t run, uint64_t from,
				     uint64_t to)
{
	uint64_t x = (from ^ (to << 21 | to >> 43) ^ run * SY_HASH_K2) *
		     SY_HASH_GOLDEN;

	return (size_t)(x >> (64 - SY_PL_SEEN_LOG2));
}

#endif
