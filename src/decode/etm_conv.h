/* Trace elements -> struct sy_dec_item, per trace source (see etm_conv.c).
 *
 * Private to the ETM backend.  Both ways of decoding ETM feed it the same
 * elements: the full decoder translates OpenCSD's generic elements
 * (sy_etm_elem_from_ocsd), the fast path builds them from packets itself
 * (etm_walk.c).  So the items depend on the elements only, and the two
 * paths give equal items whenever they give equal elements. */
#ifndef SY_ETM_CONV_H
#define SY_ETM_CONV_H

#include <opencsd/c_api/opencsd_c_api.h>

#include "code_cache.h"
#include "etm_ring.h"

#define ETM_NR_IDS 128		/* CoreSight trace IDs are 7 bits */
#define ETM_DEFER_MAX 16

/* The fields of an OpenCSD generic trace element that become items. */
struct etm_elem {
	uint8_t type;		/* ocsd_gen_trc_elem_t */
	uint8_t i_type;		/* INSTR_RANGE: ocsd_instr_type of the last */
	uint8_t i_subtype;	/* ... ocsd_instr_subtype */
	uint8_t exec;		/* ... executed (E atom) */
	uint8_t cond;		/* ... conditional */
	uint8_t size;		/* ... its size in bytes */
	uint8_t isa;		/* ocsd_isa */
	uint8_t ret_valid;	/* EXCEPTION: en is the preferred return */
	uint8_t ctxt_valid;	/* PE_CONTEXT: context_id is valid */
	uint8_t vmid_valid;	/* PE_CONTEXT: vmid is valid */
	uint8_t reason;		/* TRACE_ON reason, NO_SYNC/EO_TRACE info */
	uint32_t ninsn;		/* INSTR_RANGE, I_RANGE_NOPATH */
	uint32_t exc;		/* EXCEPTION number */
	uint32_t context_id, vmid;
	uint64_t st, en;	/* range [st, en), NACC address in st */
	uint64_t timestamp;
	uint32_t cc;		/* CYCLE_COUNT, TIMESTAMP: cycles counted */
	uint8_t has_cc;		/* ... when it says */
};

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
	uint8_t seam_done;	/* the window reached its seam: nothing more */
	uint8_t lost;		/* trace and code disagreed (SY_DEC_ERR_DISAGREE):
				 * ranges are dropped until the trace says where
				 * execution is */
	uint8_t lost_anchor;	/* ... which the next range's start does */
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

/* Where the items go and what the conversion reads. */
struct etm_conv {
	struct etm_ring ring;
	struct sy_code_cache *code;
	const uint32_t *ctxid;	/* the decoder's context until the trace's */
	uint64_t report_from;	/* items before this offset are dropped */
	/* The window runs through a synchronisation at this offset into the
	 * next piece (sy_decoder_set_seam, etm_conv.c at_seam); what
	 * happened there goes to @seam. */
	uint64_t seam_at;
	struct sy_dec_seam seam;
	struct etm_src *src;	/* the decoded sources */
	size_t nsrc;
	uint8_t slot[ETM_NR_IDS];	/* trace ID -> index in src + 1 */
};

static inline struct etm_src *etm_conv_src(struct etm_conv *cv, uint8_t id)
{
	unsigned k = id < ETM_NR_IDS ? cv->slot[id] : 0;

	return k ? &cv->src[k - 1] : NULL;
}

/* The context ID code of source @s (NULL: the decoder's) is read in. */
static inline uint32_t etm_conv_ctxid(const struct etm_conv *cv,
				      const struct etm_src *s)
{
	return s && s->have_ctx ? s->ctxid : *cv->ctxid;
}

/* Empties the ring and resets every source's flow for a new window, which
 * ends at a seam at window offset @seam_at (or ETM_NO_SEAM). */
void sy_etm_conv_reset(struct etm_conv *cv, uint64_t report_from,
		    uint64_t seam_at);
/* Resets every source's flow only: the window is decoded again from its
 * start (the ring keeps its items and counts). */
void sy_etm_conv_restart(struct etm_conv *cv);

/* Converts element @el of source @s at window offset @off. */
void sy_etm_conv_elem(struct etm_conv *cv, struct etm_src *s, uint64_t off,
		   const struct etm_elem *el);

/* An INSTR_RANGE element of A64 code, 4-byte instructions, given by its
 * fields: what sy_etm_conv_elem() does with it, without building it.  The
 * fast path's direct lane (etm_walk.c) converts atoms with it. */
void sy_etm_conv_range(struct etm_conv *cv, struct etm_src *s, uint64_t off,
		    uint64_t st, uint64_t en, uint32_t ninsn, uint8_t i_type,
		    uint8_t i_subtype, uint8_t cond, uint8_t exec);

/* The item kind (enum sy_branch_kind) of a taken branch ending a range
 * whose last instruction is of class @i_type / @i_subtype / @cond. */
uint8_t sy_etm_conv_branch_kind(uint8_t i_type, uint8_t i_subtype, uint8_t cond);

struct etm_run;

/* The ranges of atom run @run (etm_runs.h) at window offset @off, each
 * starting where the one before goes: what sy_etm_conv_range() does with
 * each, the later ones without its per-range checks, their branches as
 * one SY_DEC_BRANCHES item pointing into @run.  Returns 0, having done
 * nothing, when a check could matter (a seam at or before @off, items
 * dropped before report_from, items held back): then convert them one by
 * one. */
int sy_etm_conv_run(struct etm_conv *cv, struct etm_src *s, uint64_t off,
		 const struct etm_run *run);

/* Where the converter's output stands, besides the sources' flows: what
 * the fast path restores when it takes back what it converted (a batch
 * OpenCSD drops, etm_walk.c give_up; a formatted span given up,
 * etm_fast.c). */
struct etm_conv_pos {
	size_t count;		/* items in the ring, counted from the oldest:
				 * a ring that grows renumbers them */
	uint64_t pushed;
	struct sy_dec_seam seam;
};

void sy_etm_conv_pos_save(const struct etm_conv *cv, struct etm_conv_pos *p);
/* Nothing may have popped the ring since @p was saved. */
void sy_etm_conv_pos_restore(struct etm_conv *cv, const struct etm_conv_pos *p);

/* What converting a batch may change of source @s and of @cv. */
struct sy_etm_conv_mark {
	struct etm_src src;	/* up to (not including) its defer array */
	struct etm_conv_pos pos;
	uint8_t open;
};

/* Saves @s's flow and the ring's end into @m.  Returns 0 (nothing saved)
 * when @s holds items back or the ring drops pushes: then the elements
 * take the usual way. */
int sy_etm_conv_mark(const struct etm_conv *cv, const struct etm_src *s,
		  struct sy_etm_conv_mark *m);
/* Back to mark @m when it is open: the items pushed since are gone. */
void sy_etm_conv_undo(struct etm_conv *cv, struct etm_src *s,
		   struct sy_etm_conv_mark *m);

/* The fields of OpenCSD's element @in that sy_etm_conv_elem() reads. */
void sy_etm_elem_from_ocsd(struct etm_elem *out, const ocsd_generic_trace_elem *in);

/* A fatal library response at @off: ERROR(@code) on the first source, all
 * of which lose their flow (the tree is reset). */
void sy_etm_conv_fatal(struct etm_conv *cv, uint64_t off, uint32_t code);

/* End of the window for @s when no EO_TRACE came for it. */
void sy_etm_conv_end(struct etm_conv *cv, struct etm_src *s, uint64_t off);

/* A packet kept from OpenCSD at @off (etm_guard.c): ERROR(@code) on source
 * @id, every source loses its flow. */
void sy_etm_conv_cut(struct etm_conv *cv, uint8_t id, uint64_t off,
		  uint32_t code);

#endif
