/* Stream units: decoding the trace of a TRBE or PT queue (one long stream,
 * no AUX record per window) as the walk goes, in bounded pieces, or a long
 * recording would be held in memory whole.
 *
 * PT: each unit is cut at PSBs (where libipt can start decoding) into
 * pieces of about unit_bytes; pieces decode independently, on any thread.
 * A stretch cut by a piece boundary ends with STOP(END) where the PSB's
 * FUP says execution went on, and the next piece's stretch starts there:
 * matching joins the two (sy_stretch_joins), as it joins an excursion.
 *
 * ETM: a trace unit resynchronises (A-Sync) in the middle of a stretch too,
 * and a stream cut there loses the branch whose target address follows the
 * sync.  So an ETM unit is one piece, decoded by one decoder and one
 * stretcher that live with the queue (the stream), in slices: each slice
 * pulls items up to the bytes of the AUX records the walk has read (one
 * record behind, so that the address space is known for the code it
 * reaches) and hands over the stretches that closed.  Slices of a queue run
 * one after the other (jobs.h: the stream's jobs are numbered); queues
 * (CPUs) run in parallel.
 *
 * A piece (or slice) goes out once the walk has read the AUX record that
 * holds its last byte: the address space is then known for its code.  What
 * goes out, and when, depends only on the walk's position in the file,
 * never on how fast the decoders are: the order of jobs, and so of the
 * windows made from them, is the same whatever the thread count.
 *
 * The units do not submit anything: sy_units_next says what may be decoded
 * now, the caller makes and submits the job and reports it done.
 */
#ifndef SY_UNITS_H
#define SY_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "auxmap.h"
#include "config.h"
#include "jobs.h"

/* Part of a stream unit decoded as one job (PT) or in slices (ETM). */
struct sy_piece {
	uint64_t lo, hi;	/* AUX offsets */
	uint64_t dec_hi;	/* decoded up to here: PT adds the PSB+ at hi */
	size_t first_rec;	/* the AUX record holding lo */
	size_t last_rec;	/* decodable once the walk read this record */
	uint64_t t_lo;		/* its data came after this perf time */
	/* ETM pieces cut at seams (sy_decode.h): the A-Sync the decode runs
	 * through into the next piece (AUX offset; has_seam), and whether
	 * the piece itself starts at such a cut (its head is the previous
	 * piece's) */
	int has_seam;
	uint64_t seam_sync;
	int after_seam;
	int sliced;		/* ETM: too long for one job, decoded in slices */
	/* a sliced piece's chunks, made with its first slice, freed when its
	 * last slice is done */
	struct sy_dec_chunk *chunks;
	size_t nr_chunks;
	int lost;
};

/* ETM: the queue's decoder and the progress of slices over its pieces. */
struct sy_stream {
	struct sy_decstate ds;
	int started;		/* the current piece's first slice went out */
	uint64_t sent;		/* bytes of the current piece handed out */
	uint64_t t_lo;		/* the next slice's data came after this */
	unsigned outstanding;	/* slices handed out, not done */
};

/* Slices of one stream handed out and not done before the next waits: they
 * run one after the other anyway, and each holds its stretches. */
#define SY_STREAM_AHEAD 2

struct sy_units {
	struct sy_piece *pieces;
	size_t nr_pieces, cap_pieces, next_piece;
	struct sy_stream stream;
	/* the stretch a piece's seam left running, for the next piece's
	 * first (SY_SF_SEAM, SY_SF_CONT) */
	int has_carry;
	struct sy_stretch carry;
	size_t walked;		/* AUX records the walk has read */
	uint64_t pending;	/* pieces submitted or started, not done */
};

/* What may be decoded now: a whole piece or a slice of one. */
struct sy_unit_task {
	int slice;
	/* the piece's seam (job offset; SY_DEC_NO_SEAM: none) and whether
	 * the task drops the piece's head (jobs.h) */
	uint64_t seam_sync;
	int drop_head;
	uint64_t lo, hi;	/* AUX range of the chunks (a slice: the piece) */
	uint64_t aux_lo;	/* AUX offset of the chunks' first byte */
	uint64_t ext_from;	/* PT: see struct sy_job */
	uint64_t t_lo;		/* its data came after this perf time */
	/* ETM slices: its data was written by this perf time (the AUX
	 * record holding its last byte's) */
	uint64_t t_hi;
	/* slices */
	int first, final;
	uint64_t limit;		/* stop after the item at this offset */
	struct sy_stream *stream;
	struct sy_piece *piece;	/* whose chunks it decodes */
};

void sy_units_init(struct sy_units *u, const struct sy_synth_config *cfg);
void sy_units_fini(struct sy_units *u);
/* The stream's stretches keep @depth branches (before any is made). */
void sy_units_set_depth(struct sy_units *u, uint32_t depth);

/* Cuts the map's stream units into pieces of about cfg->unit_bytes (PT at
 * PSBs; ETM at seams, when the trace unit allows them), using the bytes of
 * @r and the queue's decoder parameters @dp.  Returns 0 or -SY_E_NOMEM. */
int sy_units_plan(struct sy_units *u, const struct sy_auxmap *m,
		  const struct sy_synth_config *cfg,
		  const struct sy_dec_params *dp,
		  const struct sy_perf_reader *r);

/* A finished job's stretches *@v (@n of them, owned; after sy_units_done
 * for its task): the stretch the previous piece's seam left running goes
 * on in the first (or goes first), and one running at this piece's seam
 * waits for the next piece's first.  Returns 0 or -SY_E_NOMEM. */
int sy_units_join(struct sy_units *u, struct sy_stretch **v, size_t *n,
		  uint32_t depth);

/* The walk read the AUX record at file offset @rec_off. */
void sy_units_walked(struct sy_units *u, const struct sy_auxmap *m,
		     uint64_t rec_off);
/* The walk ended: every record counts as read. */
void sy_units_walk_end(struct sy_units *u, const struct sy_auxmap *m);

/* The next piece or slice the walk's progress allows, in *@t: returns 1,
 * 0 when nothing may go yet, SY_UNITS_WAIT when a slice may go but
 * SY_STREAM_AHEAD of the stream's are not done yet (the caller collects
 * finished jobs and asks again: what goes out still depends only on the
 * walk), or -SY_E_NOMEM.  A slice's chunks are its piece's (made with @r
 * on its first slice). */
#define SY_UNITS_WAIT 2
int sy_units_next(struct sy_units *u, const struct sy_auxmap *m,
		  const struct sy_synth_config *cfg,
		  const struct sy_perf_reader *r, struct sy_unit_task *t);
/* The job of task @t finished (jobs finish in the order they went). */
void sy_units_done(struct sy_units *u, const struct sy_unit_task *t);

#endif
