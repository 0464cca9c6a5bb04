/* Where a queue's AUX bytes are.
 *
 * The kernel writes PERF_RECORD_AUX when it has put bytes [off, off + size)
 * of a queue's AUX area in the ring (with flags: truncated, partial,
 * collision, raw CoreSight) and perf copies them into the file as AUXTRACE
 * payloads, often much later.  The map holds both, indexed by AUX offset,
 * so that any range of the area can be turned into the decoder's chunks
 * the moment a window needs it, and says which ranges never made it into
 * the file.
 *
 * It also plans the stream units (see README.md): maximal runs of AUX
 * records whose bytes follow each other and are all in the file.
 */
#ifndef SY_AUXMAP_H
#define SY_AUXMAP_H

#include <stddef.h>
#include <stdint.h>

#include "sy_decode.h"
#include "sy_perf_reader.h"

/* One AUXTRACE payload: where bytes of the AUX area are in the file. */
struct sy_auxbuf {
	uint64_t aux_off, size;
	uint64_t file_off;
};

/* One PERF_RECORD_AUX. */
struct sy_auxrec {
	uint64_t aux_off, size, flags;
	uint64_t time;
	uint64_t rec_off;	/* file offset of the record */
};

/* A stream unit: AUX records [first, last] decoded as one stream. */
struct sy_aux_unit {
	size_t first, last;
};

struct sy_auxmap {
	struct sy_auxbuf *bufs;	/* sorted by AUX offset (sy_auxmap_sort) */
	size_t nr_bufs, cap_bufs;
	struct sy_auxrec *recs;	/* in file order */
	size_t nr_recs, cap_recs;
	struct sy_aux_unit *units;
	size_t nr_units;
	int raw;		/* AUX flag 0x100 seen (ETM without frames) */
};

void sy_auxmap_init(struct sy_auxmap *m);
void sy_auxmap_fini(struct sy_auxmap *m);

/* Both return 0 or -SY_E_NOMEM. */
int sy_auxmap_add_buf(struct sy_auxmap *m, uint64_t aux_off, uint64_t size,
		      uint64_t file_off);
int sy_auxmap_add_rec(struct sy_auxmap *m, const struct sy_auxrec *r);

/* Sorts the payloads once they are all known. */
void sy_auxmap_sort(struct sy_auxmap *m);

/* The first payload that may hold byte @a. */
size_t sy_auxmap_first_buf(const struct sy_auxmap *m, uint64_t a);

/* The end of payload @i's real bytes (the next payload may start inside
 * its padding). */
uint64_t sy_auxmap_buf_end(const struct sy_auxmap *m, size_t i);

/* Nonzero when payloads hold every byte of [a, b). */
int sy_auxmap_covered(const struct sy_auxmap *m, uint64_t a, uint64_t b);

/* The chunks of range [a, b), pointing into @r's mapping; sets *lost when
 * bytes are missing.  Returns the number of chunks (0 when none), or
 * -SY_E_NOMEM. */
int sy_auxmap_chunks(const struct sy_auxmap *m, const struct sy_perf_reader *r,
		     uint64_t a, uint64_t b, struct sy_dec_chunk **out,
		     int *lost);

/* Plans the stream units.  @each_alone: every record is a unit of its own
 * (ETR without pause samples: each buffer fragment alone, as perf decodes
 * them).  Returns 0 or -SY_E_NOMEM. */
int sy_auxmap_plan_units(struct sy_auxmap *m, int each_alone);

/* The record holding byte @off of unit records [first, last]. */
size_t sy_auxmap_rec_at(const struct sy_auxmap *m, size_t first, size_t last,
			uint64_t off);

#endif
