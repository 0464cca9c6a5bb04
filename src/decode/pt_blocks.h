/* The Intel PT fast path's basic-block cache (pt_walk.c): from an
 * address, the straight run of instructions libipt's block decoder walks
 * without trace, up to the instruction that ends its block.
 *
 * Private to the fast path.  libipt 2.0.5 exports no instruction decoder,
 * so instructions are measured with capstone and classified the way
 * libipt's length decoder classes them (pt_ild.c: the near and far
 * branches, MOV CR3, PTWRITE), on top of pt_x86.c's branch decoding.  An
 * instruction whose class or size the two could disagree on (far
 * indirect transfers, the VMX and return forms of the 0F 01 group, MOV to
 * a control register, VMPTRLD, PTWRITE, the few encodings capstone
 * measures otherwise than libipt (pt_blocks.c), capstone failing, fewer
 * bytes readable than the instruction needs, 16-bit or unknown modes) is
 * "doubtful": the walk hands the window to the block decoder when it gets
 * there.  test_pt_blocks holds every other one- and two-byte opcode, with
 * every ModRM byte and the prefixes libipt reads, to libipt's own size
 * and class.
 *
 * A run is keyed by its first address, the context ID its code is read
 * in and the execution mode.  It ends after the first instruction that is
 * not libipt's ptic_other, after SY_PTB_MAX_INSNS instructions (libipt's
 * block holds at most 65535), or before an instruction that cannot be
 * decoded for sure.  The cache is emptied with the code cache.
 *
 * Single instructions are memoized too (same key): the walk steps one
 * instruction at a time to where an event binds (an interrupt's IP, a
 * PSB+'s FUP), and measuring each with capstone again was a quarter of
 * convert on an interpreter's trace, whose events land in the same few
 * hundred instructions. */
#ifndef SY_PT_BLOCKS_H
#define SY_PT_BLOCKS_H

#include <stdint.h>

#include "code_cache.h"

/* libipt's enum pt_insn_class values, without its header here. */
struct sy_ptb_insn {
	uint64_t ip;
	uint64_t target;	/* direct near branch: its destination */
	uint8_t size;
	uint8_t iclass;		/* enum pt_insn_class */
	uint8_t direct;		/* near relative call or jump */
	uint8_t zero_disp;	/* ... to the next instruction */
};

enum sy_ptb_end {
	SY_PTB_BRANCH = 1,	/* @last is not ptic_other */
	SY_PTB_CAP,		/* SY_PTB_MAX_INSNS straight ones; @next */
	SY_PTB_DOUBT,		/* the instruction at @next is doubtful */
};

struct sy_ptb_run {
	uint64_t ip;		/* SY_PTB_EMPTY: empty */
	uint64_t next;		/* SY_PTB_CAP / SY_PTB_DOUBT: see above */
	uint32_t ctxid;
	uint32_t ninsn;		/* instructions in the run, @last included */
	uint8_t mode;		/* enum pt_exec_mode */
	uint8_t end;		/* enum sy_ptb_end */
	struct sy_ptb_insn last;
};

/* One memoized sy_ptb_decode: valid while @gen is the cache's. */
struct sy_ptb_memo {
	uint64_t ip;
	uint32_t ctxid;
	uint32_t gen;
	uint8_t mode;
	uint8_t rc;		/* sy_ptb_decode's 0 or 1 */
	struct sy_ptb_insn in;
};

#define SY_PTB_EMPTY UINT64_MAX
#define SY_PTB_RUNS 8192u	/* a power of two */
#define SY_PTB_MEMOS 4096u	/* a power of two */
#define SY_PTB_USED 256u
#define SY_PTB_MAX_INSNS 65535u

struct sy_ptb {
	struct sy_code_cache *code;
	struct sy_ptb_run *v;
	struct sy_ptb_memo *memo;
	uint32_t gen;		/* memo entries of another are empty */
	uint64_t misses;
	uint32_t nused;		/* see etm_blocks.h */
	uint16_t used[SY_PTB_USED];
	size_t cs64, cs32;	/* capstone handles (csh) */
	void *csi64, *csi32;	/* their cs_insn scratch */
	int cs_ok;
};

int sy_ptb_init(struct sy_ptb *b, struct sy_code_cache *code);
void sy_ptb_fini(struct sy_ptb *b);
void sy_ptb_clear(struct sy_ptb *b);

/* One instruction at @ip in mode @mode, read in @ctxid.  Returns 0; 1 when
 * it is doubtful (see the top); -1 when no byte can be read there. */
int sy_ptb_decode(struct sy_ptb *b, uint32_t ctxid, int mode, uint64_t ip,
		  struct sy_ptb_insn *out);

/* The run from @ip; NULL when not even its first instruction can be read
 * (libipt.s -pte_nomap). */
const struct sy_ptb_run *sy_ptb_run(struct sy_ptb *b, uint32_t ctxid, int mode,
				    uint64_t ip);

#endif
