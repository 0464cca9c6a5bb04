/* Callchains held packed while their samples wait (src/synth/chain.c):
 * every frame comes back as it went in, each takes the bytes of the
 * zigzag varint of its difference from the frame before (computed here
 * from the definition, not by the packer), and the room reserved for the
 * worst case is given back to the block or the heap (leaks and overruns:
 * ASan, make asan runs this file). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "synth/chain.h"

/* Bytes of the zigzag varint of @ip - @prev, from the definition: the
 * difference as a signed 64-bit number n, z = 2n for n >= 0 and -2n - 1
 * below, 7 bits of z a byte. */
static size_t want_bytes(uint64_t prev, uint64_t ip)
{
	int64_t n = (int64_t)(ip - prev);
	uint64_t z = n >= 0 ? (uint64_t)n * 2 : (uint64_t)(-(n + 1)) * 2 + 1;
	size_t b = 1;

	while (z >>= 7)
		b++;
	return b;
}

static void roundtrip(const uint64_t *ip, uint32_t nr, struct sy_blocks *mem)
{
	struct sy_chain c;
	struct sy_block *blk;
	uint64_t *out;
	size_t len = 0;

	for (uint32_t i = 0; i < nr; i++)
		len += want_bytes(i ? ip[i - 1] : 0, ip[i]);
	cr_assert_eq(sy_chain_pack(&c, mem, ip, nr), 0);
	cr_assert_eq(c.nr, nr);
	cr_assert_eq(c.len, len, "%u frames: %u bytes packed, %zu wanted",
		     nr, c.len, len);
	cr_assert_eq(sy_chain_unpack(&c, mem, &out, &blk), 0);
	cr_assert_eq(c.nr, nr);	/* the packed bytes stay */
	sy_chain_free(&c);
	cr_assert_null(c.p);
	cr_assert_eq(c.nr, 0);
	if (!nr) {
		cr_assert_null(out);
		return;
	}
	cr_assert_eq(memcmp(out, ip, nr * sizeof(*ip)), 0);
	if (mem && nr * sizeof(*ip) <= SY_BLOCKS_MAX)
		cr_assert_not_null(blk);
	sy_blocks_free(out, blk);
}

Test(chain, every_frame_comes_back)
{
	static const uint64_t edge[] = {
		0, 1, UINT64_MAX, 0, 0x8000000000000000ull, 0x7fffffffffffffffull,
		0xffffffff81000000ull, 0x400850, 0xae0000400850ull, 0x400850,
		0xffffffffffffff80ull, 0x7f, 0x80, 0x3fff, 0x4000,
	};
	struct sy_blocks mem = { 0 };
	uint64_t r[1000];
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (uint32_t i = 0; i < 1000; i++) {
		/* xorshift: frames anywhere, near and far from the one before */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r[i] = (i % 3) ? (i ? r[i - 1] : 0) + (x & 0xfff) - 0x800 : x;
	}
	for (int pass = 0; pass < 2; pass++) {
		struct sy_blocks *m = pass ? &mem : NULL;

		roundtrip(edge, sizeof(edge) / sizeof(edge[0]), m);
		roundtrip(r, 1000, m);		/* too large for a block */
		roundtrip(r, 100, m);
		roundtrip(r, 1, m);
		roundtrip(r, 0, m);
	}
	sy_blocks_drop(&mem);
}

/* A recursion's frames repeat: one byte each after the first; a frame
 * 0x10 above the one before, one byte; 0x10 below, one byte too. */
Test(chain, near_frames_take_a_byte)
{
	uint64_t deep[127];
	struct sy_chain c;

	deep[0] = 0x401234;
	deep[1] = 0x401244;
	deep[2] = 0x401234;
	for (int i = 3; i < 127; i++)
		deep[i] = 0x401180;
	cr_assert_eq(sy_chain_pack(&c, NULL, deep, 127), 0);
	/* 0x401234 is 23 bits, zigzag 24: 4 bytes; 0x10 and -0x10: 1;
	 * -0xb4 (zigzag 0x167): 2; then 123 repeats of 1 */
	cr_assert_eq(c.len, 4 + 1 + 1 + 2 + 123);
	sy_chain_free(&c);
	sy_chain_free(&c);	/* empty: nothing */
	sy_chain_free(NULL);
}

/* The room reserved for the worst case goes back to the block: the next
 * allocation starts at the packed chain's end (rounded to 8). */
Test(chain, the_room_not_used_goes_back)
{
	struct sy_blocks mem = { 0 };
	const uint64_t ip[] = { 0x1000, 0x1000, 0x1000 };
	struct sy_chain c;
	struct sy_block *blk;

	cr_assert_eq(sy_chain_pack(&c, &mem, ip, 3), 0);
	cr_assert_eq(c.len, 4);	/* 0x1000: zigzag 0x2000, 2 bytes; 1, 1 */
	cr_assert_not_null(c.blk);
	uint8_t *next = sy_blocks_alloc(&mem, 8, &blk);

	cr_assert_eq(blk, c.blk);
	cr_assert_eq(next, c.p + 8);
	sy_blocks_free(next, blk);
	/* a chain reserved but given no frame keeps a byte */
	struct sy_chain e;

	cr_assert_eq(sy_chain_reserve(&e, &mem, 50), 0);
	sy_chain_fit(&e, &mem, 50);
	next = sy_blocks_alloc(&mem, 8, &blk);
	cr_assert_eq(next, e.p + 8);
	sy_blocks_free(next, blk);
	sy_chain_free(&e);
	sy_chain_free(&c);
	sy_blocks_drop(&mem);
}

/* Chains freed together: runs in one block, a malloc'd one between them:
 * each chain emptied, and each block's count down by its chains (one
 * allocation of each is kept to see it: ASan checks the rest). */
Test(chain, chains_are_freed_together)
{
	struct sy_blocks a = { 0 }, b = { 0 };
	const uint64_t ip[] = { 0x400850, 0x400874, 0x40015c };
	struct {
		int tag;
		struct sy_chain c;
	} v[7];
	struct sy_block *ka, *kb;
	void *pa, *pb;

	for (int i = 0; i < 7; i++) {
		struct sy_blocks *m = i == 3 ? NULL : i % 2 ? &b : &a;

		v[i].tag = i;
		cr_assert_eq(sy_chain_pack(&v[i].c, m, ip, 3), 0);
	}
	/* 0, 2, 4, 6 in a's block, 1 and 5 in b's, 3 malloc'd */
	pa = sy_blocks_alloc(&a, 8, &ka);
	pb = sy_blocks_alloc(&b, 8, &kb);
	cr_assert(pa && pb && ka == v[0].c.blk && kb == v[1].c.blk);
	sy_blocks_drop(&a);
	sy_blocks_drop(&b);
	cr_assert_eq(sy_block_out(ka), 5);
	cr_assert_eq(sy_block_out(kb), 3);
	sy_chains_free(&v[0].c, 7, sizeof(v[0]));
	for (int i = 0; i < 7; i++) {
		cr_assert_null(v[i].c.p);
		cr_assert_null(v[i].c.blk);
		cr_assert_eq(v[i].c.nr, 0);
		cr_assert_eq(v[i].tag, i);	/* only the chains written */
	}
	cr_assert_eq(sy_block_out(ka), 1);
	cr_assert_eq(sy_block_out(kb), 1);
	sy_block_put(ka);
	sy_block_put(kb);
	sy_chains_free(NULL, 0, sizeof(v[0]));
}
