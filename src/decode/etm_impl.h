/* Private to the ETM backend: etm.c drives OpenCSD, etm_conv.c turns its
 * generic elements into items. */
#ifndef SY_ETM_IMPL_H
#define SY_ETM_IMPL_H

#include <opencsd/c_api/opencsd_c_api.h>

#include "decoder_impl.h"
#include "etm.h"

#define ETM_NR_IDS 128		/* CoreSight trace IDs are 7 bits */
#define ETM_DEFER_MAX 16

/* Flow state of one trace source (one trace ID). */
struct etm_src {
	uint8_t id;		/* CoreSight trace ID */
	uint8_t pid_vmid;	/* the pid is traced as VMID (contextid2) */
	uint8_t have_ctx;	/* ctxid comes from the trace */
	uint8_t started;	/* a START went out and nothing stopped it */
	uint8_t pending;	/* the last range ended in a taken branch */
	uint8_t pend_direct;	/* ... whose target is in its encoding */
	uint8_t pend_br;	/* ... of this enum sy_branch_kind */
	uint8_t pend_a64;	/* ... in A64 code */
	uint8_t have_last;	/* last_pc is valid */
	uint8_t have_next;	/* next_pc is valid */
	uint8_t ovf_reported;	/* OVERFLOW given for the current overflow */
	uint8_t nacc_reported;	/* ERROR given for the current NACC gap */
	uint8_t ended;		/* EO_TRACE seen */
	uint32_t ctxid;
	uint64_t pend_from;
	uint64_t last_pc;	/* last executed instruction */
	uint64_t next_pc;	/* where execution goes after it */
	uint64_t ninsn;		/* instructions since this source's last item */
	/* TIME and CONTEXT items held back while a branch waits for its
	 * target or a restart for its address, so that the BRANCH or START
	 * comes first (see etm_conv.c). */
	struct sy_dec_item defer[ETM_DEFER_MAX];
	unsigned ndefer;
};

/* Per-source state of the guard's packet scan (etm_guard.c). */
struct etm_guard_src {
	struct etm *e;
	uint8_t id;
	uint8_t addr_pending;	/* an address packet since the last atom */
	uint8_t after_exc;	/* an exception waits for its address */
};

#define ETM_GUARD_CUTS 64

struct etm {
	struct sy_decoder *d;
	dcd_tree_handle_t dt;
	int formatted;

	/* Guard (etm_guard.c): a packet-processor-only tree that sees every
	 * byte one feed ahead of dt and finds the packets OpenCSD 1.3.3
	 * would crash on; cut[] holds their window offsets, ascending. */
	dcd_tree_handle_t gdt;
	struct etm_guard_src *gsrc;
	uint64_t guard_pos;	/* bytes [0, guard_pos) scanned */
	uint64_t cut[ETM_GUARD_CUTS];
	uint8_t cut_id[ETM_GUARD_CUTS];
	size_t ncut;

	struct etm_src *src;	/* sources with a decoder in the tree */
	size_t nsrc;
	uint8_t slot[ETM_NR_IDS];	/* trace ID -> index in src + 1 */

	/* Item ring: the element callback pushes, next() pops.  cap is a
	 * power of two; head and tail count items ever pushed / popped. */
	struct sy_dec_item *ring;
	size_t cap, head, tail;
	size_t soft;		/* WAIT once this many items are queued */
	size_t soft_next;	/* sy_etm_set_ring, applied at reset */

	/* The window. */
	const struct sy_dec_chunk *chunks;
	size_t nchunks, ci;	/* current chunk */
	size_t coff;		/* bytes of it already consumed */
	uint64_t pos;		/* window offset of the next byte to feed */
	uint64_t report_from;
	/* Frames split between two chunks are re-assembled here: OpenCSD's
	 * deformatter takes whole 16-byte frames only. */
	uint8_t stage[16];
	unsigned stage_len, stage_used;	/* bytes staged / already fed */
	int need_flush;		/* last response was WAIT */
	int stalls;		/* responses in a row that made no progress */
	int eot_sent;
	int done;		/* nothing more will be pushed */
	int fatal;		/* -SY_E_NOMEM inside a callback */

	int use_cache, use_cache_next;
	struct sy_etm_mcache mc;
	struct sy_etm_debug dbg;
};

/* ---- etm_conv.c ---- */

/* Resets @s for a new window. */
void etm_src_reset(struct etm_src *s);

/* Converts one OpenCSD element of source @s at window offset @off. */
void etm_conv_elem(struct etm *e, struct etm_src *s, uint64_t off,
		   const ocsd_generic_trace_elem *el);

/* A fatal library response at @off: ERROR(@code) on every source, all of
 * which lose their flow (the tree is reset). */
void etm_conv_fatal(struct etm *e, uint64_t off, uint32_t code);

/* End of the window for @s when OpenCSD gave no EO_TRACE for it. */
void etm_conv_end(struct etm *e, struct etm_src *s, uint64_t off);

/* A guard cut at @off: ERROR(@code) on source @id, every source loses
 * its flow. */
void etm_conv_cut(struct etm *e, uint8_t id, uint64_t off, uint32_t code);

/* ---- etm_guard.c ---- */

/* Builds / destroys the guard tree for the @n sources in @src (those of
 * e->src).  Both run under etm.c's lock on OpenCSD's global state. */
int etm_guard_init(struct etm *e, const struct sy_etm_source *const *src,
		   size_t n);
void etm_guard_fini(struct etm *e);
/* Forgets the scan: the guard restarts at window offset @pos. */
void etm_guard_reset(struct etm *e, uint64_t pos);
/* Scans the @n bytes at @p, window offset @off (== e->guard_pos). */
void etm_guard_scan(struct etm *e, const uint8_t *p, uint32_t n,
		    uint64_t off);

/* ---- etm.c ---- */

/* Appends @it to the ring (growing it if OpenCSD ignores WAIT).  Sets
 * e->fatal on allocation failure. */
void etm_ring_push(struct etm *e, const struct sy_dec_item *it);

/* Reads code for source @s (or the decoder's context when NULL). */
size_t etm_read_code(struct etm *e, const struct etm_src *s, uint64_t addr,
		     uint8_t *buf, size_t len);

#endif
