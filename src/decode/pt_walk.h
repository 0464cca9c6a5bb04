/* The Intel PT fast path: libipt's block decoder, as pt.c drives it,
 * walked over our own block cache (pt_blocks.h) on libipt's query
 * decoder.
 *
 * Private to src/decode.  pt.c calls the sy_ptw_* functions where it
 * would call pt_blk_*: they make the query decoder calls libipt's block
 * decoder (2.0.5, uncached, end_on_call, end_on_jump, tick events) makes,
 * in the same order, and hand out the same blocks and events: the same
 * instruction counts, the same last instructions, the same IPs, and, since
 * every trace offset is the query decoder's, the same offsets.  What the
 * block decoder does instruction by instruction through the image
 * callback - walk straight-line code up to the instruction that needs
 * trace - comes from the block cache in one lookup.
 *
 * What the walk does not model sets @doubt and fails the call: a doubtful
 * instruction (pt_blocks.h), every libipt error but the end of the trace
 * (-pte_eos), TSX aborts (erratum BDM64 guesses there), PTWRITE, power and
 * MWAIT events, VMCS, synchronous paging events while tracing (they bind to
 * MOV CR3 or a far branch), 16-bit and unknown modes.  TSX transactions
 * and the PSB+'s status updates (exec mode, paging, TSX) are followed.  pt.c then decodes the window
 * again with the block decoder (pt_ops.c). */
#ifndef SY_PT_WALK_H
#define SY_PT_WALK_H

#include <intel-pt.h>

#include "pt_blocks.h"

#define SY_PTW_RETSTACK 64	/* libipt's pt_retstack_size */

struct sy_ptw {
	struct pt_query_decoder *q;
	struct sy_ptb blocks;
	const uint32_t *ctxid;	/* the context code is read in */
	int skd022;		/* the erratum applies to this CPU */
	int doubt;		/* hand the window to the block decoder */

	/* libipt's block decoder state (struct pt_block_decoder) */
	uint64_t ip;
	int mode;		/* enum pt_exec_mode */
	int status;
	int enabled;
	int process_event;
	int speculative;	/* inside a TSX transaction */
	struct pt_event ev;
	uint64_t rs[SY_PTW_RETSTACK + 1];	/* return compression */
	uint8_t rs_top, rs_bottom;
};

int sy_ptw_init(struct sy_ptw *w, struct sy_code_cache *code,
		const uint32_t *ctxid);
void sy_ptw_fini(struct sy_ptw *w);

/* A new window over @cfg's buffer (cfg->flags are ignored, as the block
 * decoder ignores them for its query decoder).  Returns 0 or
 * -SY_E_NOMEM. */
int sy_ptw_reset(struct sy_ptw *w, const struct pt_config *cfg);

/* pt_blk_sync_forward, pt_blk_next, pt_blk_event, pt_blk_get_offset,
 * pt_blk_get_sync_offset, pt_blk_time. */
int sy_ptw_sync_forward(struct sy_ptw *w);
int sy_ptw_next(struct sy_ptw *w, struct pt_block *b);
int sy_ptw_event(struct sy_ptw *w, struct pt_event *ev);
int sy_ptw_get_offset(const struct sy_ptw *w, uint64_t *off);
int sy_ptw_get_sync_offset(const struct sy_ptw *w, uint64_t *off);
int sy_ptw_time(struct sy_ptw *w, uint64_t *tsc);

#endif
