/* The one hash of the project: its mixing functions (every hash constant
 * lives here; tests/import-cycles checks it) and one open-addressing index
 * that every hash table uses.
 *
 * The index holds no entries and compares no keys: the caller keeps its
 * entries in an array of its own and the index maps a hash to their
 * positions (entry i is stored as i + 1; 0 is an empty slot).  Lookups are
 * written by the caller as a loop over the probe sequence, so the key
 * comparison is inlined where the table is hot (aggregation compares a
 * 130-word key per sample):
 *
 *	if (sy_hindex_reserve(&ix, nr + 1, hash_of, entries))
 *		return -SY_E_NOMEM;
 *	for (j = sy_hindex_first(&ix, h); (e = sy_hindex_at(&ix, j));
 *	     j = sy_hindex_next(&ix, j))
 *		if (same(&entries[e - 1], key))
 *			return e - 1;
 *	sy_hindex_set(&ix, j, nr);	// the key is new: entry nr goes at j
 *
 * Which slot an entry lands in never decides an output: tables that are
 * written out keep their entries' own (first-seen) order. */
#ifndef SY_HASH_H
#define SY_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* 2^64 / golden ratio: spreads consecutive keys (Fibonacci hashing). */
#define SY_HASH_GOLDEN 0x9e3779b97f4a7c15ULL
/* A second odd constant (xxHash's PRIME64_2), for a second lane. */
#define SY_HASH_K2 0xc2b2ae3d27d4eb4fULL
/* MurmurHash3's fmix64 multiplier. */
#define SY_HASH_FMIX 0xff51afd7ed558ccdULL
/* FNV-1a, 64 bits. */
#define SY_HASH_FNV_OFFSET 0xcbf29ce484222325ULL
#define SY_HASH_FNV_PRIME 0x100000001b3ULL

/* splitmix64's finaliser: every input bit reaches every output bit, in
 * particular the low bits a power-of-two table uses. */
static inline uint64_t sy_hash_u64(uint64_t h)
{
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/* Folds @v into the running hash @h (boost's hash_combine, widened). */
static inline uint64_t sy_hash_combine(uint64_t h, uint64_t v)
{
	h ^= v + SY_HASH_GOLDEN + (h << 6) + (h >> 2);
	return h * SY_HASH_FMIX;
}

/* FNV-1a of @n bytes, continuing from @h (SY_HASH_FNV_OFFSET to start). */
static inline uint64_t sy_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * SY_HASH_FNV_PRIME;
	return h;
}

/* FNV-1a of a NUL-terminated string. */
static inline uint64_t sy_hash_str(const char *s)
{
	uint64_t h = SY_HASH_FNV_OFFSET;

	while (*s)
		h = (h ^ (uint8_t)*s++) * SY_HASH_FNV_PRIME;
	return h;
}

static inline uint64_t sy_hash_rotl(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

/* A hash of @n bytes (from @h), read eight at a time in two lanes of
 * xxHash64's round: FNV-1a's multiply a byte, one after the other, made
 * the order check of samples with deep callchains (1.6 KB each) a quarter
 * of convert's time, all of it on the walk's thread. */
static inline uint64_t sy_hash_words(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t x = h ^ n, y = h + SY_HASH_GOLDEN, u, v;
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		memcpy(&u, b + i, 8);
		memcpy(&v, b + i + 8, 8);
		x = sy_hash_rotl(x + u * SY_HASH_K2, 31) * SY_HASH_GOLDEN;
		y = sy_hash_rotl(y + v * SY_HASH_K2, 31) * SY_HASH_GOLDEN;
	}
	for (; i < n; i++)
		x = (x ^ b[i]) * SY_HASH_FNV_PRIME;
	return sy_hash_u64(x ^ sy_hash_rotl(y, 32));
}

/* --- The index ----------------------------------------------------------- */

struct sy_hindex {
	uint32_t *slot;	/* entry index + 1, 0 = empty */
	size_t cap;	/* a power of two, or 0 before the first reserve */
};

/* The hash of the caller's entry @i, to place it again when the index
 * grows. */
typedef uint64_t (*sy_hindex_hash_fn)(const void *ctx, size_t i);

/* Makes room for @nr entries (the index stays at most half full), placing
 * entries 0..@nr-2 again when it grows: call it with the count the table
 * will have after the insertion that follows.  @min_cap: the first
 * capacity (a power of two).  Returns 0 or -SY_E_NOMEM (the index is then
 * unchanged). */
int sy_hindex_reserve(struct sy_hindex *ix, size_t nr, size_t min_cap,
		      sy_hindex_hash_fn hash_of, const void *ctx);

/* Empties the index, keeping its capacity. */
void sy_hindex_clear(struct sy_hindex *ix);

/* Frees the slots; the index is empty again.  Accepts NULL. */
void sy_hindex_fini(struct sy_hindex *ix);

static inline size_t sy_hindex_first(const struct sy_hindex *ix, uint64_t h)
{
	return (size_t)h & (ix->cap - 1);
}

static inline size_t sy_hindex_next(const struct sy_hindex *ix, size_t j)
{
	return (j + 1) & (ix->cap - 1);
}

/* The entry at slot @j plus one, 0 when the slot is empty. */
static inline uint32_t sy_hindex_at(const struct sy_hindex *ix, size_t j)
{
	return ix->slot[j];
}

/* Puts entry @i at the empty slot @j the probe loop ended on. */
static inline void sy_hindex_set(struct sy_hindex *ix, size_t j, size_t i)
{
	ix->slot[j] = (uint32_t)i + 1;
}

#endif
