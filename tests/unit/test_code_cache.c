/* The decoders' code cache (src/decode/code_cache.c) against read_mem
 * itself: what it returns is what read_mem has there, and it is a cache. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "decode/code_cache.h"
#include "sy_bytes.h"
#include "sy_test.h"

/* splitmix64: any fixed sequence does */
struct rng {
	uint64_t s;
};

static size_t rnd(struct rng *r, size_t n)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (size_t)((z ^ (z >> 31)) % n);
}

/* The code cache against read_mem itself: mappings that start and
 * end mid-page, adjacent mappings read_mem reports one at a time, two
 * context IDs with different bytes at one address, unmapped pages.  Every
 * byte it returns is right, it returns at least what read_mem would, and
 * nothing where read_mem has nothing. */
struct fake_map {
	uint32_t ctx;
	uint64_t lo, hi;
	uint8_t seed;
};

static const struct fake_map fake_maps[] = {
	{ 1, 0x10800, 0x13000, 1 },	/* starts mid-page */
	{ 1, 0x13000, 0x13400, 2 },	/* adjacent, ends mid-page */
	{ 1, 0x13800, 0x14000, 3 },	/* same page, after a hole */
	{ 2, 0x10000, 0x14000, 4 },	/* other process, same addresses */
	{ 1, 0xffffffffffffe000ull, 0xfffffffffffff000ull, 5 },
};

static uint8_t fake_byte(const struct fake_map *m, uint64_t a)
{
	return (uint8_t)(a * 7 + m->seed * 31 + (a >> 8));
}

static size_t fake_read(void *ctx, uint32_t ctxid, uint64_t addr,
			uint8_t *buf, size_t len)
{
	size_t *calls = ctx;

	(*calls)++;
	for (size_t k = 0; k < SY_ARRAY_SIZE(fake_maps); k++) {
		const struct fake_map *m = &fake_maps[k];
		size_t n;

		if (m->ctx != ctxid || addr < m->lo || addr >= m->hi)
			continue;
		n = m->hi - addr < len ? (size_t)(m->hi - addr) : len;
		for (size_t i = 0; i < n; i++)
			buf[i] = fake_byte(m, addr + i);
		return n;
	}
	return 0;
}

Test(code_cache, semantics)
{
	struct sy_code_cache *c = malloc(sizeof(*c));
	struct rng r = { 3 };
	size_t calls = 0, direct_calls = 0, nonzero = 0;
	uint8_t got[600], want[600];

	cr_assert_not_null(c);
	sy_code_cache_init(c, fake_read, &calls);
	for (int i = 0; i < 20000; i++) {
		uint32_t ctx = 1 + (uint32_t)rnd(&r, 3);
		uint64_t addr = rnd(&r, 8) == 0 ?
				0xffffffffffffd000ull + rnd(&r, 0x3000) :
				0xf000 + rnd(&r, 0x6000);
		size_t len = rnd(&r, 4) ? 4 : 1 + rnd(&r, sizeof(got));
		size_t n, dn;

		if (rnd(&r, 500) == 0)
			sy_code_cache_clear(c);
		n = sy_code_cache_read(c, ctx, addr, got, len);
		dn = fake_read(&direct_calls, ctx, addr, want, len);
		cr_assert_leq(n, len);
		cr_assert_geq(n, dn, "0x%" PRIx64 "+%zu ctx %u: %zu < %zu", addr,
			      len, ctx, n, dn);
		cr_assert_eq(n == 0, dn == 0);
		cr_assert_eq(memcmp(got, want, dn), 0, "0x%" PRIx64, addr);
		/* beyond read_mem's answer: the next mapping's true bytes */
		for (size_t k = dn; k < n; k++) {
			uint8_t b;

			cr_assert_eq(fake_read(&direct_calls, ctx, addr + k, &b,
					       1), 1);
			cr_assert_eq(got[k], b);
		}
		nonzero += n != 0;
	}
	cr_assert_gt(nonzero, 5000);
	/* And it is a cache: instruction fetches in mapped code. */
	sy_code_cache_clear(c);
	calls = 0;
	for (int i = 0; i < 20000; i++) {
		uint32_t ctx = 1 + (uint32_t)rnd(&r, 2);
		uint64_t addr = (ctx == 1 ? 0x10800 : 0x10000) +
				4 * rnd(&r, (0x13000 - 0x10800) / 4);

		cr_assert_eq(sy_code_cache_read(c, ctx, addr, got, 4), 4);
	}
	cr_assert_lt(calls, 100, "%zu read_mem calls", calls);
	free(c);
}
