/* One pull interface for window decoders: ETM/ETE (OpenCSD) and Intel PT
 * (libipt).
 *
 * A decoder turns the trace bytes of one window into items: taken branches,
 * the points where trace starts and stops, overflows, errors, timestamps.
 * It knows nothing of perf.data: the caller hands it the window's bytes and
 * a callback that reads code.  One decoder per thread; reset it for every
 * window (windows are independent decode units, nothing carries over).
 *
 *	struct sy_decoder *d;
 *	struct sy_dec_item it;
 *	sy_decoder_alloc(&d, &params);
 *	sy_decoder_reset(d, chunks, nr_chunks);
 *	while ((err = sy_decoder_next(d, &it)) == 0)
 *		...;              // err == -SY_E_EOS at the end of the window
 *	sy_decoder_free(d);
 *
 * Errors inside the trace (bad packets, unreadable code) are items, not
 * return values: the decoder resynchronises and goes on, so one bad byte
 * costs the branches around it, not the window.  sy_decoder_next() returns a
 * negative value other than -SY_E_EOS only for failures of the decoder
 * itself (out of memory, library refusing its configuration).
 */
#ifndef SY_DECODE_H
#define SY_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "sy_branch.h"
#include "sy_error.h"

enum sy_trace_kind {
	SY_TRACE_ETM = 1, /* ETMv4 / ETE through OpenCSD */
	SY_TRACE_PT = 2,  /* Intel PT through libipt */
};

enum sy_dec_kind {
	/* A taken branch.  @from is the address of the branch instruction,
	 * @to its target, @br the branch kind.  Branches are reported only as
	 * far as the trace proves them: nothing after the last traced
	 * waypoint, nothing across a discontinuity. */
	SY_DEC_BRANCH = 1,
	/* Trace (re)starts at @to after a gap: the start of the window, a
	 * resynchronisation, or the return from an untraced excursion
	 * (exception level or address filter). */
	SY_DEC_START,
	/* Trace stops.  @to is where execution continues untraced: the
	 * preferred return address of an exception (ETM), the FUP address of
	 * an asynchronous disable (PT), 0 when unknown.  @from is the last
	 * traced instruction when known.  @code is an enum sy_stop_reason,
	 * @exc the architecture's exception number when there is one. */
	SY_DEC_STOP,
	/* The trace unit's buffer overflowed: trace was lost here. */
	SY_DEC_OVERFLOW,
	/* The library could not decode: @code is its error code (OpenCSD
	 * ocsd_err_t, or libipt pt_error_code), or SY_DEC_ERR_DISAGREE, @offset
	 * the trace byte where it happened.  Decoding resumes at the next
	 * START. */
	SY_DEC_ERROR,
	/* A timestamp packet: @time in the trace's own clock (ETM: generic
	 * timer counts; PT: TSC). */
	SY_DEC_TIME,
	/* The traced context changed: @code is the new context ID (ETM
	 * CONTEXTIDR, i.e. the pid on Linux; PT: what params.ctx_at said,
	 * before the START of the stretch it runs). */
	SY_DEC_CONTEXT,
	/* Taken branches in a row, each what a SY_DEC_BRANCH item would say,
	 * all at @offset: @run holds them (valid while the item is), @code
	 * says how many, @ninsn counts the instructions before the first.
	 * Only sy_decoder_peek() hands these out (ETM: the branches of an
	 * atom run, etm_runs.h); sy_decoder_next() gives their branches one
	 * by one.  An item per branch was a third of the ETM fast path's
	 * time on dense trace. */
	SY_DEC_BRANCHES,
	/* Processor cycles counted since the previous count, in @code: a
	 * cycle-accurate ETM trace unit's (TRCCONFIGR.CCI) Cycle Count
	 * packets, and the count its Timestamp packets carry (after the
	 * TIME item); Intel PT's CYC packets (params.u.pt.cyc), each before
	 * the first item whose packet comes after it, @offset the CYC's,
	 * @code saturated at UINT32_MAX and the whole count in @time (a CYC
	 * carries up to 64 bits).  A window's sum is its length in cycles. */
	SY_DEC_CYCLES,
};

enum sy_stop_reason {
	SY_STOP_EXCEPTION = 1, /* asynchronous exception (interrupt, fault) */
	SY_STOP_SYSCALL,       /* SVC / syscall: the program asked for it */
	SY_STOP_DISABLE,       /* trace disabled without an address (PT PGD) */
	SY_STOP_END,	       /* the window's bytes ended while tracing */
};

/* One branch of a SY_DEC_BRANCHES item. */
struct sy_dec_br {
	uint64_t from, to;
	uint32_t ninsn;	/* instructions since the branch before it (the
			 * first's: since its item's @ninsn) */
	uint8_t br;	/* enum sy_branch_kind */
};

struct sy_dec_run {
	const struct sy_dec_br *v;
	uint32_t n;
	uint64_t ninsn;	/* the sum of v[].ninsn */
};

struct sy_dec_item {
	uint8_t kind;	 /* enum sy_dec_kind */
	uint8_t br;	 /* enum sy_branch_kind, for SY_DEC_BRANCH */
	uint16_t exc;	 /* exception number, for SY_DEC_STOP */
	uint32_t code;	 /* stop reason, library error code, context ID, or
			  * the branches of SY_DEC_BRANCHES */
	uint64_t from;
	uint64_t to;
	union {
		uint64_t time;	/* SY_DEC_TIME; PT's SY_DEC_CYCLES: the count */
		const struct sy_dec_run *run; /* SY_DEC_BRANCHES */
	};
	uint64_t ninsn;	 /* instructions executed since the previous item */
	uint64_t offset; /* byte offset of the item's packet in the window */
};

/* Branch @i of SY_DEC_BRANCHES item @run as the SY_DEC_BRANCH item it
 * stands for. */
static inline void sy_dec_run_branch(const struct sy_dec_item *run,
				     uint32_t i, struct sy_dec_item *out)
{
	const struct sy_dec_br *b = &run->run->v[i];

	*out = (struct sy_dec_item){
		.kind = SY_DEC_BRANCH,
		.br = b->br,
		.from = b->from,
		.to = b->to,
		.ninsn = b->ninsn + (i ? 0 : run->ninsn),
		.offset = run->offset,
	};
}

/* Code comes from the caller: reads up to @len bytes at @addr in the
 * address space of @ctxid (the last SY_DEC_CONTEXT value, or the value set
 * with sy_decoder_set_context) into @buf.  Returns the bytes read, 0 when
 * nothing is mapped there.  Called from the decoding thread only. */
typedef size_t (*sy_read_mem_fn)(void *ctx, uint32_t ctxid, uint64_t addr,
				 uint8_t *buf, size_t len);

/* The context that runs from trace time @time on (the trace's own clock:
 * PT TSC), when the trace does not name it: a per-CPU Intel PT trace
 * belongs to whichever thread the CPU runs, which only the recording's
 * context switches tell.  Returns 1 with *@ctxid set, 0 when the caller
 * does not know (the context stays what it was).  Called from the decoding
 * thread, with params.mem_ctx, where a stretch starts: before any of its
 * code is read; the decoder then reports a SY_DEC_CONTEXT item before the
 * stretch's SY_DEC_START. */
typedef int (*sy_ctx_at_fn)(void *ctx, uint64_t time, uint32_t *ctxid);

/* The code in force at trace time @time (the trace's own clock), for a
 * caller whose process maps change while one decoder runs through the
 * trace of several windows: code read from here on may differ from code
 * read before.  Called from the decoding thread, with params.mem_ctx,
 * before the code after that time is read: where a stretch starts (the
 * TSC before its TIP.PGE, or its PSB+'s), and with SY_DEC_TIME_NONE where
 * decoding starts from the beginning of its data (a reset).  Returns 1
 * when read_mem may now return other bytes than before (the decoder then
 * forgets every byte it holds), 0 otherwise.
 *
 * PT only.  OpenCSD reports an ETM timestamp after it has read the code
 * of the next atom, so a stretch's first code would be read in the maps
 * of the timestamp before; and a stream cut at A-Syncs into pieces
 * decoded apart must give the items of the whole stream's decode, which
 * a piece's start, knowing no time yet, cannot match (session_check
 * found it).  ETM decoders ignore it. */
typedef int (*sy_code_at_fn)(void *ctx, uint64_t time);
#define SY_DEC_TIME_NONE UINT64_MAX

/* One trace unit of an ETM recording (register values from AUXTRACE_INFO). */
struct sy_etm_source {
	uint8_t trace_id;
	uint8_t ete;	/* 1 = ETE, 0 = ETMv4 */
	uint32_t cpu;
	uint32_t trcconfigr;
	uint32_t trctraceidr;
	uint32_t trcidr0, trcidr1, trcidr2, trcidr8;
	uint32_t trcauthstatus;
	uint32_t trcdevarch;
};

/* How ETM windows are decoded.  Both ways give the same items. */
enum sy_etm_decoder {
	/* The fast path: OpenCSD parses the packets, a block cache replaces
	 * its instruction-by-instruction walk.  A window holding what the
	 * fast path does not model (speculation resolution, Q packets, A32 /
	 * T32 code, ETE source-address packets, sequences OpenCSD reports as
	 * errors inside a commit) is decoded again by the
	 * full decoder, from its start (counted in sy_dec_stats). */
	SY_ETM_DECODER_AUTO = 0,
	/* OpenCSD's full decoder for every window (--decoder full). */
	SY_ETM_DECODER_FULL,
};

struct sy_etm_params {
	int formatted;	/* CoreSight 16-byte frames (ETR/ETF sinks) */
	const struct sy_etm_source *sources;
	size_t nr_sources;
	/* report items of this trace ID only (a shared ETR buffer holds the
	 * trace of several CPUs); 0 reports every source */
	uint8_t trace_id;
	enum sy_etm_decoder decoder;
};

/* How PT windows are decoded.  Both ways give the same items. */
enum sy_pt_decoder {
	/* The build's default: the fast path (src/decode/pt_walk.h:
	 * libipt's query decoder walked over a block cache, libipt's block
	 * decoder for a window holding what it does not model, from the
	 * window's start; counted in sy_dec_stats) */
	SY_PT_DECODER_AUTO = 0,
	SY_PT_DECODER_FULL,	/* libipt's block decoder (--decoder full) */
	SY_PT_DECODER_FAST,	/* the fast path (--decoder fast) */
};

struct sy_pt_params {
	/* CPU identification for libipt's errata and packet decoding */
	uint16_t family;
	uint8_t model, stepping;
	uint8_t mtc_freq;	/* IA32_RTIT_CTL.MTCFreq */
	uint8_t nom_freq;	/* max non-turbo ratio */
	uint32_t cpuid_0x15_eax, cpuid_0x15_ebx; /* TSC/CTC ratio */
	enum sy_pt_decoder decoder;
	uint8_t cyc;		/* CYC packets on (attr.config's cyc bit):
				 * their counts as SY_DEC_CYCLES items */
};

struct sy_dec_params {
	enum sy_trace_kind kind;
	sy_read_mem_fn read_mem;
	void *mem_ctx;
	sy_ctx_at_fn ctx_at;	/* NULL: contexts only from the trace (PT:
				 * none, sy_decoder_set_context's stays) */
	sy_code_at_fn code_at;	/* NULL: the code never changes */
	union {
		struct sy_etm_params etm;
		struct sy_pt_params pt;
	} u;
};

/* A window's trace may span several AUXTRACE buffers. */
struct sy_dec_chunk {
	const uint8_t *data;
	size_t len;
};

struct sy_dec_stats {
	uint64_t insns;		/* instructions decoded */
	uint64_t branches;	/* taken branches reported */
	uint64_t bytes;		/* trace bytes consumed */
	uint64_t errors;	/* SY_DEC_ERROR items */
	uint64_t overflows;
	/* Decode units (a reset's window) finished by the fast path and by
	 * the full decoder (OpenCSD's or libipt's block decoder: --decoder
	 * full, or a fallback); set when the unit's last item is out. */
	uint64_t fast_units;
	uint64_t full_units;
	uint64_t fallbacks;	/* units the fast path handed over */
};

struct sy_decoder;

/* Returns 0, -SY_E_INVALID (bad params), -SY_E_NOMEM, or -SY_E_DECODE when
 * the library refuses the configuration. */
int sy_decoder_alloc(struct sy_decoder **out, const struct sy_dec_params *p);
void sy_decoder_free(struct sy_decoder *d);

/* Whether a decoder made with @a decodes every window of @b as one made
 * with @b would: the same parameters, or PT ones with the same settings
 * and callbacks (a PT decoder starts each reset afresh: its query
 * decoder, block and code caches; an ETM decoder keeps what it learnt of
 * its sources across resets, so it serves its own parameters only).
 * Threads that decode many queues' windows keep one decoder per such
 * set, not one per queue (a PT decoder's caches are about 0.7 MB). */
int sy_decoder_params_same(const struct sy_dec_params *a,
			   const struct sy_dec_params *b);

/* Starts a new window over @chunks (borrowed until the next reset or free;
 * offsets count across the chunks as if they were one buffer).  Trace
 * before byte @report_from is decoded but not reported: a PT window that
 * starts without a PSB is decoded from the last PSB before it (see
 * sy_decode_find_sync).  Because libipt reads ahead, the PT backend decides
 * by packets, not item offsets: it reports from the first trace enable
 * (TIP.PGE) at or after @report_from, or the first error there.  Resets
 * statistics. */
int sy_decoder_reset(struct sy_decoder *d, const struct sy_dec_chunk *chunks,
		     size_t nr_chunks, uint64_t report_from);

/* Offset of the last synchronisation point (PT: PSB; ETM: A-Sync) at or
 * before byte @offset of @data, in *sync.  Returns 0, or -SY_E_EOS when there
 * is none. */
int sy_decode_find_sync(enum sy_trace_kind kind, const uint8_t *data,
			size_t len, uint64_t offset, uint64_t *sync);

/* Offset just past the synchronisation header that starts at byte @sync
 * of @data (PT: the PSB+ up to its PSBEND), in *end.  Decoding trace that
 * stops at @sync with this header added proves execution up to the
 * header's IP (the PSB+ FUP), which the trace after @sync starts from: how
 * two pieces cut at @sync are joined without a gap.  Returns 0, -SY_E_EOS
 * when @data does not hold the whole header, -SY_E_INVALID, -SY_E_NOMEM. */
int sy_decode_sync_end(enum sy_trace_kind kind, const uint8_t *data,
		       size_t len, uint64_t sync, uint64_t *end);

/* ---- Cutting one long ETM stream into pieces decoded apart ----
 *
 * An ETM trace unit resynchronises at A-Sync packets (and every window
 * that starts after a resume starts after one), so a long stream can be
 * cut there and its pieces decoded on different threads, as PT pieces are
 * cut at PSBs.  What a decode that starts at an A-Sync lacks, compared with
 * the decode of the whole stream: nothing before the A-Sync and its Trace
 * Info (a fresh decoder skips everything until both), the address of the
 * next instruction until the address packet after them (the target of
 * the branch the whole decode was waiting on), the flow it was in, and the
 * timestamps still on its element stack.  From the first atom after that
 * address packet on, the two are in the same state and give the same
 * items, but for that atom's first item: the piece starts a flow there
 * (START, or ERROR where the address cannot be read) where the whole
 * decode goes on.  Formatted (ETR) data carries several trace IDs whose
 * A-Syncs lie anywhere: a cut is a frame boundary and each ID has its own
 * seam, so a seam is for one source (params.u.etm.trace_id).
 *
 * So, for a cut at byte @cut (a frame boundary for formatted data):
 *   1. sy_decode_etm_seam() finds the A-Sync a fresh decoder of the bytes
 *      from @cut on synchronises on (*sync) and the end of the atom that
 *      follows its address packet (*seam, a frame end for formatted
 *      data);
 *   2. the piece before is decoded over [its start, *seam) with
 *      sy_decoder_set_seam(d, *sync - its start): its items end with that
 *      atom's first conversion (sy_decoder_seam() says it got there);
 *   3. the piece after is decoded over [@cut, its end) as usual;
 *   4. joined, the item stream of the whole decode is the piece before's
 *      items, then the piece after's items after its first START or ERROR
 *      item and after the items right behind it that come from earlier
 *      bytes (timestamps it held back for the START; offsets in the piece
 *      after count from @cut).
 * tests/unit/test_etm_seam.c checks this on random cuts of the fixtures'
 * and the real captures' streams.
 *
 * sy_decode_etm_seam returns 0; -SY_E_EOS when no A-Sync, or no atom
 * after it, lies in @data; -SY_E_DECODE when the A-Sync the piece would
 * synchronise on is not followed by Trace Info, a context and an address
 * packet and then an atom (*sync is set: cut again after it);
 * -SY_E_UNSUPPORTED for a trace unit with speculation (TRCIDR8.MAXSPEC);
 * -SY_E_INVALID for PT, formatted data without a trace ID or a @cut
 * that is not a frame boundary. */
int sy_decode_etm_seam(const struct sy_dec_params *p, const uint8_t *data,
		       size_t len, uint64_t cut, uint64_t *sync,
		       uint64_t *seam);

#define SY_DEC_NO_SEAM UINT64_MAX

/* ETM: windows decoded from the next reset on run through the A-Sync at
 * window offset @sync into the next piece (step 2 above), until set to
 * SY_DEC_NO_SEAM (the default).  Returns 0 or -SY_E_INVALID (PT). */
int sy_decoder_set_seam(struct sy_decoder *d, uint64_t sync);

struct sy_dec_seam {
	int reached;	/* the window got to its seam: the pieces join */
	uint64_t to;	/* the address where the piece after goes on */
};

/* After a window with a seam: whether it got there.  Returns 0 or
 * -SY_E_INVALID. */
int sy_decoder_seam(const struct sy_decoder *d, struct sy_dec_seam *out);

/* Context ID passed to read_mem until the trace reports one (PT never
 * does). */
void sy_decoder_set_context(struct sy_decoder *d, uint32_t ctxid);

/* Next item of the window: 0, -SY_E_EOS at the end, other negative errors
 * only for failures of the decoder itself.  Never SY_DEC_BRANCHES: their
 * branches come one by one. */
int sy_decoder_next(struct sy_decoder *d, struct sy_dec_item *item);

/* The same items in place, several at a time: *@items points at *@n >= 1
 * items, the next ones of the window, valid (and the caller's to change)
 * until the next call on @d; sy_decoder_advance() says how many of them
 * were used, and the rest come first again.  Returns 0, -SY_E_EOS at the
 * end, other negative errors as sy_decoder_next().  On dense trace a call
 * and a copy per item cost a tenth of convert's time.  Branches in a row
 * may come as one SY_DEC_BRANCHES item (counted as its branches). */
int sy_decoder_peek(struct sy_decoder *d, struct sy_dec_item **items,
		    size_t *n);
/* The first @k (<= *n) items of the last sy_decoder_peek() are used. */
void sy_decoder_advance(struct sy_decoder *d, size_t k);

const struct sy_dec_stats *sy_decoder_stats(const struct sy_decoder *d);

/* SY_DEC_ERROR code of our own, beside the libraries' (ETM): the trace
 * says what the code cannot do, so trace or binary is not what ran.  The
 * trace reported an A64 unconditional branch not taken (an N atom): no
 * execution of that code gives one.  @to is the branch's address.  What
 * the decoder walked since the trace last said where execution was is
 * then unknown, so nothing is reported until it says so again. */
#define SY_DEC_ERR_DISAGREE 0x7f000001

/* ETM: the trace's packets come in an order no execution of the code
 * gives (etm_agree.c): an address where the code took no indirect branch,
 * an atom where an indirect branch's target was due, a sync's address away
 * from the path.  Trace or binary is not what ran; the packet is dropped
 * and decoding starts again at the next sync.  @to is 0. */
#define SY_DEC_ERR_PATH 0x7f000003

/* PT: a trace enable (TIP.PGE) between an earlier error and the next PSB,
 * the first place libipt can decode from again.  Its code could be read,
 * but the stretch it starts cannot be decoded without a sync point; @to
 * is its IP.  (Where the code cannot be read either, the error is
 * libipt's -pte_nomap, so that the binary is named.) */
#define SY_DEC_ERR_LOST 0x7f000002

/* "branch", "start", ... */
const char *sy_dec_kind_name(enum sy_dec_kind kind);

/* The meaning of a SY_DEC_ERROR item's library @code, in words, written
 * into @buf (src/decode/errstr.c).  Returns @buf. */
const char *sy_dec_errstr(enum sy_trace_kind kind, int code, char *buf,
			  size_t len);
/* Whether @code means the decoder found no code at the traced address: a
 * binary not found, or not the one that ran. */
int sy_dec_err_no_code(enum sy_trace_kind kind, int code);

#endif
