/* OpenCSD snapshot directories (../shared/fixtures/real/opencsd-snapshots)
 * for the ETM decoder tests: the trace sources' registers, the memory
 * dumps and the trace buffer.  Test code: failures are criterion
 * assertions. */
#ifndef SY_SNAPSHOT_H
#define SY_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "sy_decode.h"

#define SNAP_MAXSRC 16
#define SNAP_MAXMEM 16

struct sy_snap {
	struct sy_etm_source src[SNAP_MAXSRC];
	char name[SNAP_MAXSRC][64];
	size_t nsrc;
	struct {
		uint64_t addr;
		uint8_t *data;
		size_t len;
	} mem[SNAP_MAXMEM];
	size_t nmem;
	uint8_t *trace;
	size_t trace_len;
	int formatted;
	size_t reads;
};

/* Loads snapshot directory @dir (snapshot.ini, its devices, trace.ini). */
void sy_snap_load(const char *dir, struct sy_snap *s);
void sy_snap_free(struct sy_snap *s);
/* sy_read_mem_fn over the memory dumps; @ctx is the struct sy_snap. */
size_t sy_snap_read(void *ctx, uint32_t ctxid, uint64_t addr, uint8_t *buf,
		    size_t len);

#endif
