/* The order of a queue's samples.  The kernel writes each ring buffer in
 * time order, and perf records one buffer per CPU (per thread in a
 * per-thread recording), so on one queue a sample older than the one
 * before it, or the very record before it again, is damage: a record
 * copied or moved.  Such a sample is reported and ignored: it must not
 * open, close, split or join a window. */
#ifndef SY_SYNTH_ORDER_H
#define SY_SYNTH_ORDER_H

#include <stddef.h>
#include <stdint.h>

struct sy_order {
	int has;
	uint64_t time;		/* of the newest sample taken */
	/* its bytes, when they stay readable (a mapped file: compared
	 * exactly, only when a sample of its time and size comes), else
	 * NULL and their hash */
	const uint8_t *bytes;
	uint64_t hash;
	size_t size;
};

/* sy_record.flags the session sets on a sample the check refused, in
 * file order, before the records are put in time order (reorder.h);
 * the reader's own flags are below these. */
#define SY_RECORD_ORDER_DUP 0x100u
#define SY_RECORD_ORDER_EARLIER 0x200u

enum sy_order_verdict {
	SY_ORDER_OK = 0,
	SY_ORDER_DUPLICATE,	/* the same bytes as the sample before */
	SY_ORDER_EARLIER,	/* older than the sample before */
};

/* Takes the sample @rec (@size bytes, header included) of time @time, or
 * says why not.  @kept: the same bytes where they stay readable until the
 * order is dropped (a mapped file's, when the reader hands out a copy
 * that does not), or NULL: their hash is kept. */
enum sy_order_verdict sy_order_sample(struct sy_order *o, uint64_t time,
				      const uint8_t *rec, size_t size,
				      const uint8_t *kept);

#endif
