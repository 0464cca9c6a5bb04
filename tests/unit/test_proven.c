/* The proven-sequence table (src/synth/proven.c): a find answers only for
 * a sequence equal, field by field, to one put, with as many context
 * branches and those equal too; the ring's padding bytes never decide. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "synth/proven.h"

/* A ring-like array: n + nctx records, newest first, padding filled with
 * @pad. */
static void fill(struct sy_br *br, unsigned m, uint64_t seed, int pad)
{
	memset(br, pad, m * sizeof(*br));
	for (unsigned i = 0; i < m; i++) {
		br[i].from = 0x400000 + seed * 0x1000 + 8 * i;
		br[i].to = 0x400800 + seed * 0x1000 + 4 * i;
		br[i].kind = (uint8_t)(1 + (seed + i) % 6);
	}
}

/* The test's own compare: the fields of @m records. */
static int same(const struct sy_br *a, const struct sy_br *b, unsigned m)
{
	for (unsigned i = 0; i < m; i++)
		if (a[i].from != b[i].from || a[i].to != b[i].to ||
		    a[i].kind != b[i].kind)
			return 0;
	return 1;
}

Test(proven, empty_table_has_nothing)
{
	struct sy_proven p;
	struct sy_br br[SY_PROVEN_REC];

	cr_assert_eq(sy_proven_init(&p), 0);
	/* all-zero branches: what a fresh (calloc'd) entry holds */
	memset(br, 0, sizeof(br));
	for (unsigned n = 1; n <= SY_PROVEN_LEN; n++)
		for (unsigned c = 0; c <= SY_PROVEN_CTX; c++)
			cr_assert_null(sy_proven_find(&p, br, n, c));
	sy_proven_fini(&p);
}

/* Every length and context, odd and even record counts: what was put is
 * found with its flow branches and landing verdicts; one field changed anywhere
 * in the sequence or its context is not. */
Test(proven, a_find_is_an_exact_match_of_every_field)
{
	struct sy_proven p;
	struct sy_br br[SY_PROVEN_REC], q[SY_PROVEN_REC];
	uint8_t land[SY_PROVEN_LEN], flow[SY_PROVEN_LEN];
	unsigned nflow;

	cr_assert_eq(sy_proven_init(&p), 0);
	for (unsigned n = 1; n <= SY_PROVEN_LEN; n++) {
		for (unsigned c = 0; c <= SY_PROVEN_CTX; c++) {
			const struct sy_proven_seq *s;
			unsigned m = n + c;

			sy_proven_clear(&p);
			fill(br, m, n * 3 + c, 0);
			for (unsigned i = 0; i < n; i++)
				land[i] = (uint8_t)(i * 7 + n);
			nflow = 0;
			for (unsigned i = n; i-- > 0;)
				if (i % 3 == 1)
					flow[nflow++] = (uint8_t)i;
			sy_proven_put(&p, br, n, c, flow, nflow, land);
			s = sy_proven_find(&p, br, n, c);
			cr_assert_not_null(s, "n %u ctx %u", n, c);
			cr_assert_eq(s->nflow, nflow);
			cr_assert_eq(memcmp(s->flow, flow, nflow), 0);
			cr_assert_eq(memcmp(s->land, land, n), 0);
			for (unsigned i = 0; i < m; i++) {
				for (int f = 0; f < 3; f++) {
					memcpy(q, br, m * sizeof(*q));
					if (f == 0)
						q[i].from ^= 1ull << (i % 64);
					else if (f == 1)
						q[i].to ^= 1ull << ((i + 40) % 64);
					else
						q[i].kind ^= 0x80;
					cr_assert_null(sy_proven_find(&p, q, n, c),
						       "n %u ctx %u: record %u "
						       "field %d changed", n,
						       c, i, f);
				}
			}
			/* the same records as another length or context */
			if (c)
				cr_assert_null(sy_proven_find(&p, br, n, c - 1));
			if (c < SY_PROVEN_CTX && m < SY_PROVEN_REC)
				cr_assert_null(sy_proven_find(&p, br, n, c + 1));
			if (n > 1)
				cr_assert_null(sy_proven_find(&p, br, n - 1,
							      c + 1 <= SY_PROVEN_CTX ?
								      c + 1 : c));
		}
	}
	sy_proven_fini(&p);
}

/* The ring keeps no padding: equal fields with other padding bytes are
 * the same sequence. */
Test(proven, padding_bytes_never_decide)
{
	struct sy_proven p;
	struct sy_br br[SY_PROVEN_REC], q[SY_PROVEN_REC];
	uint8_t land[SY_PROVEN_LEN] = { 0 };

	cr_assert_eq(sy_proven_init(&p), 0);
	fill(br, SY_PROVEN_REC, 5, 0x00);
	fill(q, SY_PROVEN_REC, 5, 0xa5);
	sy_proven_put(&p, br, SY_PROVEN_LEN, SY_PROVEN_CTX, NULL, 0, land);
	cr_assert_not_null(sy_proven_find(&p, q, SY_PROVEN_LEN,
					  SY_PROVEN_CTX));
	fill(q, 7, 9, 0xff);
	sy_proven_put(&p, q, 6, 1, NULL, 0, land);
	fill(br, 7, 9, 0x11);
	cr_assert_not_null(sy_proven_find(&p, br, 6, 1));
	sy_proven_fini(&p);
}

Test(proven, clear_forgets)
{
	struct sy_proven p;
	struct sy_br br[SY_PROVEN_REC];
	uint8_t land[SY_PROVEN_LEN] = { 0 };

	cr_assert_eq(sy_proven_init(&p), 0);
	fill(br, SY_PROVEN_REC, 1, 0);
	sy_proven_put(&p, br, SY_PROVEN_LEN, SY_PROVEN_CTX, NULL, 0, land);
	cr_assert_not_null(sy_proven_find(&p, br, SY_PROVEN_LEN,
					  SY_PROVEN_CTX));
	sy_proven_clear(&p);
	cr_assert_null(sy_proven_find(&p, br, SY_PROVEN_LEN, SY_PROVEN_CTX));
	sy_proven_fini(&p);
}

/* Many sequences, some sharing their ends (a loop entered at different
 * places), more than the table holds: whatever was replaced, a find
 * returns nothing or the very sequence asked for, never another; and the
 * last put is always found. */
Test(proven, a_full_table_never_answers_for_another_sequence)
{
	enum { NSEQ = 3000 };
	struct sy_proven p;
	struct sy_br *all = calloc(NSEQ, SY_PROVEN_REC * sizeof(*all));
	unsigned *len = calloc(NSEQ, sizeof(*len));
	uint8_t land[SY_PROVEN_LEN] = { 0 };
	unsigned found = 0;

	cr_assert(all && len);
	cr_assert_eq(sy_proven_init(&p), 0);
	srand(27);
	for (unsigned k = 0; k < NSEQ; k++) {
		struct sy_br *br = &all[k * SY_PROVEN_REC];
		unsigned n = 1 + (unsigned)rand() % SY_PROVEN_LEN;

		len[k] = n;
		fill(br, n + SY_PROVEN_CTX, (unsigned)rand() % 8, rand() & 0xff);
		/* same ends and context, one branch inside changed */
		if (n > 2)
			br[1 + (unsigned)rand() % (n - 2)].to += 4 * (k + 1);
		sy_proven_put(&p, br, n, SY_PROVEN_CTX, NULL, 0, land);
		cr_assert_not_null(sy_proven_find(&p, br, n, SY_PROVEN_CTX));
	}
	for (unsigned k = 0; k < NSEQ; k++) {
		const struct sy_br *br = &all[k * SY_PROVEN_REC];
		const struct sy_proven_seq *s =
			sy_proven_find(&p, br, len[k], SY_PROVEN_CTX);
		struct sy_br got[SY_PROVEN_REC];

		if (!s)
			continue;
		found++;
		/* the entry's words are the records' bytes */
		memcpy(got, s->w, (len[k] + SY_PROVEN_CTX) * sizeof(*got));
		cr_assert(same(got, br, len[k] + SY_PROVEN_CTX),
			  "sequence %u answered by another", k);
		cr_assert_eq(s->n, len[k]);
	}
	cr_assert_gt(found, 0);
	free(all);
	free(len);
	sy_proven_fini(&p);
}

/* Both compares (x86-64 with AVX2: four records at a time; the other two
 * at a time) answer as the test's own compare of the fields: for every
 * length and context, a sequence read at any record of a ring (8-byte
 * aligned only), its padding other bytes, is found after its put, and
 * one bit changed in any field of any record is not.  Where the CPU has
 * no AVX2 only the other compare runs (it is the product's there). */
Test(proven, both_compares_answer_as_a_field_by_field_compare)
{
	struct sy_proven p;
	struct sy_br *ring = calloc(SY_PROVEN_REC + 3, sizeof(*ring));
	uint8_t land[SY_PROVEN_LEN] = { 0 };
	int wide;

	cr_assert_not_null(ring);
	cr_assert_eq(sy_proven_init(&p), 0);
	wide = p.wide;
	for (int path = 0; path <= wide; path++) {
		p.wide = path;
		for (unsigned n = 1; n <= SY_PROVEN_LEN; n++) {
			for (unsigned c = 0; c <= SY_PROVEN_CTX; c++) {
				unsigned m = n + c, at = (n + c) % 3;
				struct sy_br *br = ring + at, q[SY_PROVEN_REC];

				sy_proven_clear(&p);
				fill(q, m, n + 7 * c, 0x5a);
				sy_proven_put(&p, q, n, c, NULL, 0, land);
				fill(br, m, n + 7 * c, 0xc3);
				cr_assert(same(br, q, m));
				cr_assert_not_null(sy_proven_find(&p, br, n, c),
						   "path %d n %u ctx %u", path,
						   n, c);
				for (unsigned i = 0; i < m; i++) {
					for (int f = 0; f < 3; f++) {
						uint64_t bit = 1ull << ((i * 3 + (unsigned)f) % 64);

						if (f == 0)
							br[i].from ^= bit;
						else if (f == 1)
							br[i].to ^= bit;
						else
							br[i].kind ^= (uint8_t)(1u << (i % 8));
						cr_assert_eq(same(br, q, m), 0);
						cr_assert_null(sy_proven_find(&p, br, n, c),
							       "path %d n %u ctx %u: "
							       "record %u field %d",
							       path, n, c, i, f);
						if (f == 0)
							br[i].from ^= bit;
						else if (f == 1)
							br[i].to ^= bit;
						else
							br[i].kind ^= (uint8_t)(1u << (i % 8));
					}
				}
				cr_assert_not_null(sy_proven_find(&p, br, n, c));
			}
		}
	}
	free(ring);
	sy_proven_fini(&p);
}

/* A sequence is worth keeping the second time it passes since the last
 * clear, not the first; a clear forgets the sightings too. */
Test(proven, a_sequence_is_kept_the_third_time_it_is_seen)
{
	struct sy_proven p;
	struct sy_br a[SY_PROVEN_REC], b[SY_PROVEN_REC];

	cr_assert_eq(sy_proven_init(&p), 0);
	fill(a, 40 + SY_PROVEN_CTX, 3, 0);
	/* another newest branch: other places */
	fill(b, 40 + SY_PROVEN_CTX, 3, 0);
	b[0].from += 0x7654;
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(sy_proven_again(&p, a, 40, SY_PROVEN_CTX), 0);
		cr_assert_eq(sy_proven_again(&p, b, 40, SY_PROVEN_CTX), 0);
	}
	/* (and every time after) */
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(sy_proven_again(&p, a, 40, SY_PROVEN_CTX), 1);
		cr_assert_eq(sy_proven_again(&p, b, 40, SY_PROVEN_CTX), 1);
	}
	sy_proven_clear(&p);
	cr_assert_eq(sy_proven_again(&p, a, 40, SY_PROVEN_CTX), 0);
	cr_assert_eq(sy_proven_again(&p, a, 40, SY_PROVEN_CTX), 0);
	cr_assert_eq(sy_proven_again(&p, a, 40, SY_PROVEN_CTX), 1);
	sy_proven_fini(&p);
}

/* A clear forgets every sequence kept, in either way of every place,
 * however many were put (it writes only the places put since the last
 * clear). */
Test(proven, clear_forgets_every_sequence)
{
	enum { NSEQ = 2000 };
	struct sy_proven p;
	struct sy_br *all = calloc(NSEQ, SY_PROVEN_REC * sizeof(*all));
	uint8_t land[SY_PROVEN_LEN] = { 0 };

	cr_assert_not_null(all);
	cr_assert_eq(sy_proven_init(&p), 0);
	for (int round = 0; round < 3; round++) {
		unsigned kept = 0;

		for (unsigned k = 0; k < NSEQ; k++) {
			struct sy_br *br = &all[k * SY_PROVEN_REC];

			fill(br, 8 + SY_PROVEN_CTX, k + (unsigned)round, 0);
			/* (sequences that differ only by an offset share
			 * their place) */
			br[0].from += 4 * k * k;
			sy_proven_put(&p, br, 8, SY_PROVEN_CTX, NULL, 0, land);
		}
		for (unsigned k = 0; k < NSEQ; k++)
			kept += sy_proven_find(&p, &all[k * SY_PROVEN_REC], 8,
					       SY_PROVEN_CTX) != NULL;
		/* both ways of most places hold one */
		cr_assert_gt(kept, SY_PROVEN_SEQS / 2);
		sy_proven_clear(&p);
		for (unsigned k = 0; k < NSEQ; k++)
			cr_assert_null(sy_proven_find(&p,
						      &all[k * SY_PROVEN_REC],
						      8, SY_PROVEN_CTX),
				       "round %d sequence %u", round, k);
	}
	free(all);
	sy_proven_fini(&p);
}

/* A place keeps two sequences: a third with the same places (a loop
 * entered where two others were) replaces the older one, and each find
 * answers with the sequence it asked for, its flow branches and landing
 * verdicts. */
Test(proven, a_place_keeps_the_two_newest_sequences)
{
	enum { N = 12 };
	struct sy_proven p;
	struct sy_br s[3][N + SY_PROVEN_CTX];
	uint8_t land[3][N], flow[3][1];

	cr_assert_eq(sy_proven_init(&p), 0);
	for (int k = 0; k < 3; k++) {
		fill(s[k], N + SY_PROVEN_CTX, 5, 0);
		/* the same ends and context: one branch inside differs */
		s[k][N / 2].to += 4 * (unsigned)(k + 1);
		memset(land[k], 0x10 + k, N);
		flow[k][0] = (uint8_t)k;
	}
	for (int k = 0; k < 3; k++) {
		sy_proven_put(&p, s[k], N, SY_PROVEN_CTX, flow[k], 1, land[k]);
		for (int j = 0; j <= k; j++) {
			const struct sy_proven_seq *q =
				sy_proven_find(&p, s[j], N, SY_PROVEN_CTX);

			if (j < k - 1) {
				cr_assert_null(q, "sequence %d kept after %d more",
					       j, k - j);
				continue;
			}
			cr_assert_not_null(q, "sequence %d lost after %d", j, k);
			cr_assert(same((const struct sy_br *)q->w, s[j],
				       N + SY_PROVEN_CTX));
			cr_assert_eq(q->nflow, 1);
			cr_assert_eq(q->flow[0], j);
			cr_assert_eq(q->land[N - 1], 0x10 + j);
		}
	}
	sy_proven_fini(&p);
}
