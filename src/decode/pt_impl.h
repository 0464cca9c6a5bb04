/* Private to src/decode (and to the PT tests and benchmark): knobs and
 * counters of the Intel PT backend that sy_decode.h does not expose. */
#ifndef SY_PT_IMPL_H
#define SY_PT_IMPL_H

#include <stddef.h>
#include <stdint.h>

struct sy_decoder;

/* Whether SY_PT_DECODER_AUTO is the fast path (pt_walk.h). */
#define SY_PT_FAST_DEFAULT 1

struct sy_pt_mem_stats {
	uint64_t read_mem;	/* calls of the caller's read_mem */
};

/* Turns the per-decoder code cache in front of read_mem on (default) or
 * off; takes effect at the next reset.  No-op for other decoder kinds. */
void sy_pt_set_code_cache(struct sy_decoder *d, int on);

/* Code-read counters since the last reset; NULL for other kinds. */
const struct sy_pt_mem_stats *sy_pt_mem_stats(const struct sy_decoder *d);

/* The PSB+ header at byte @sync of @data (pt_sync.c): where it ends, past
 * its PSBEND (*end), and its TSC when it has one (*has_tsc).  Returns 0,
 * -SY_E_EOS when @data does not hold the whole header (or @sync is no
 * PSB), -SY_E_NOMEM. */
int sy_pt_psb_header(const uint8_t *data, size_t len, uint64_t sync,
		     uint64_t *end, int *has_tsc, uint64_t *tsc);

#endif
