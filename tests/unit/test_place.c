/* Placing callchain samples of other events in a window's trace
 * (src/synth/place.c).  Each case builds a window's stretches from decoder
 * items by hand; the expected placement follows from the rules at the top
 * of place.c: an asynchronous stop at the sample's IP, in its thread, after
 * the previous sample's, admitted by the timestamps, and only one such
 * stop.  The generated fixtures check the same against ground truth
 * (test_convert_fixtures); these cases cover what they do not reach. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "synth/place.h"

struct fx {
	struct sy_synth_config cfg;
	struct sy_placer p;
	struct sy_win w;
	struct sy_stretcher st;
	uint64_t unplaced;	/* samples the placer gave up */
	uint64_t counted;	/* samples after a pause found in the window */
};

static void fx_init(struct fx *f, uint32_t depth)
{
	memset(f, 0, sizeof(*f));
	f->cfg.depth = depth;	/* cfg.tc invalid: trace time = perf time */
	sy_placer_init(&f->p);
	sy_stretcher_init(&f->st, depth);
}

static void fx_fini(struct fx *f)
{
	sy_win_free_inner(&f->w);
	sy_stretch_free_all(f->w.st, f->w.nr_st);
	sy_placer_fini(&f->p);
	sy_stretcher_fini(&f->st);
}

static void it(struct fx *f, int kind, uint64_t from, uint64_t to,
	       uint32_t code, uint64_t time)
{
	struct sy_dec_item i;

	memset(&i, 0, sizeof(i));
	i.kind = (uint8_t)kind;
	i.from = from;
	i.to = to;
	i.code = code;
	i.time = time;
	/* as the decoders emit them: a timestamp at a stretch's start comes
	 * before any instruction (ninsn 0; one after instructions is not
	 * the stretch's start, see test_convert_fixtures' pt-missed-psb) */
	i.ninsn = kind == SY_DEC_TIME ? 0 : 1;
	i.br = SY_BR_COND;
	cr_assert_eq(sy_stretcher_push(&f->st, &i), 0);
}

/* A run from @start with branches @a -> @a + 0x100, @a + 0x10 -> ...,
 * stopped by @reason at @stop. */
static void run(struct fx *f, uint64_t start, uint64_t a, int nbr,
		uint32_t reason, uint64_t stop)
{
	it(f, SY_DEC_START, 0, start, 0, 0);
	for (int k = 0; k < nbr; k++)
		it(f, SY_DEC_BRANCH, a + (uint64_t)k * 0x10,
		   a + 0x100 + (uint64_t)k * 0x10, 0, 0);
	it(f, SY_DEC_STOP, 0, stop, reason, 0);
}

static void close_window(struct fx *f, uint64_t pause_time)
{
	cr_assert_eq(sy_stretcher_finish(&f->st), 0);
	f->w.st = sy_stretcher_take(&f->st, &f->w.nr_st);
	f->w.pub.pause_time = pause_time;
	f->w.pub.has_pause = 1;
}

static void sample(struct fx *f, uint64_t time, uint64_t ip, uint32_t tid)
{
	const uint64_t frames[] = { ip, 0x4444 };
	struct sy_chain chain;

	cr_assert_eq(sy_chain_pack(&chain, NULL, frames, 2), 0);
	int r = sy_placer_add(&f->p, time, ip, 100, tid, tid, &chain, 0);

	cr_assert_geq(r, 0);
	f->unplaced += (uint64_t)r;
}

Test(place, sample_gets_the_branches_up_to_its_interrupt)
{
	struct fx f;

	fx_init(&f, 0);
	/* an interrupt at 0x2000 splits the window's control flow, which
	 * goes on there: the sample takes the first part only */
	run(&f, 0x1000, 0x1000, 3, SY_STOP_EXCEPTION, 0x2000);
	run(&f, 0x2000, 0x3000, 2, SY_STOP_EXCEPTION, 0x5000);
	close_window(&f, 1000);
	sample(&f, 500, 0x2000, 7);
	cr_assert_eq(sy_placer_window(&f.p, &f.cfg, &f.w, &f.counted), 0);
	cr_assert_eq(f.w.pub.nr_inner, 1);
	cr_assert_eq(f.w.pub.unplaced, 0);
	const struct sy_inner_sample *in = &f.w.pub.inner[0];
	cr_assert_eq(in->nr_stack, 3);
	cr_assert_eq(in->stack[0].from, 0x1020); /* newest first */
	cr_assert_eq(in->stack[2].from, 0x1000);
	cr_assert_eq(in->nr_callchain, 2);
	cr_assert_eq(in->callchain[1], 0x4444);
	fx_fini(&f);
}

Test(place, later_sample_gets_the_joined_run)
{
	struct fx f;

	fx_init(&f, 4);
	run(&f, 0x1000, 0x1000, 3, SY_STOP_EXCEPTION, 0x2000);
	run(&f, 0x2000, 0x3000, 2, SY_STOP_EXCEPTION, 0x2500);
	run(&f, 0x2500, 0x6000, 1, SY_STOP_EXCEPTION, 0x5000);
	close_window(&f, 1000);
	sample(&f, 600, 0x2500, 7);
	cr_assert_eq(sy_placer_window(&f.p, &f.cfg, &f.w, &f.counted), 0);
	cr_assert_eq(f.w.pub.nr_inner, 1);
	/* depth 4: the run 0x1000 -> 0x2000 -> 0x2500 joins, newest 4 */
	cr_assert_eq(f.w.pub.inner[0].nr_stack, 4);
	cr_assert_eq(f.w.pub.inner[0].stack[0].from, 0x3010);
	cr_assert_eq(f.w.pub.inner[0].stack[3].from, 0x1010);
	fx_fini(&f);
}

Test(place, two_interrupts_at_one_address_leave_it_unplaced)
{
	struct fx f;

	fx_init(&f, 0);
	/* a loop interrupted twice at 0x2000 and no timestamp to tell
	 * the two apart: guessing could give the wrong stack */
	run(&f, 0x1000, 0x1000, 3, SY_STOP_EXCEPTION, 0x2000);
	run(&f, 0x2000, 0x3000, 2, SY_STOP_EXCEPTION, 0x2000);
	run(&f, 0x2000, 0x3000, 2, SY_STOP_EXCEPTION, 0x5000);
	close_window(&f, 1000);
	sample(&f, 500, 0x2000, 7);
	cr_assert_eq(sy_placer_window(&f.p, &f.cfg, &f.w, &f.counted), 0);
	cr_assert_eq(f.w.pub.nr_inner, 0);
	cr_assert_eq(f.w.pub.unplaced, 1);
	fx_fini(&f);
}

Test(place, timestamps_tell_two_interrupts_apart)
{
	struct fx f;

	fx_init(&f, 0);
	it(&f, SY_DEC_START, 0, 0x1000, 0, 0);
	it(&f, SY_DEC_TIME, 0, 0, 0, 100);
	it(&f, SY_DEC_BRANCH, 0x1000, 0x1100, 0, 0);
	it(&f, SY_DEC_STOP, 0, 0x2000, SY_STOP_EXCEPTION, 0);
	it(&f, SY_DEC_START, 0, 0x2000, 0, 0);
	it(&f, SY_DEC_TIME, 0, 0, 0, 300);
	it(&f, SY_DEC_BRANCH, 0x2000, 0x2100, 0, 0);
	it(&f, SY_DEC_BRANCH, 0x2100, 0x2200, 0, 0);
	it(&f, SY_DEC_STOP, 0, 0x2000, SY_STOP_EXCEPTION, 0);
	it(&f, SY_DEC_START, 0, 0x2000, 0, 0);
	it(&f, SY_DEC_TIME, 0, 0, 0, 500);
	it(&f, SY_DEC_STOP, 0, 0x5000, SY_STOP_EXCEPTION, 0);
	close_window(&f, 1000);
	/* before the restart stamped 300: the first stop; after it, the
	 * second */
	sample(&f, 200, 0x2000, 7);
	sample(&f, 400, 0x2000, 7);
	cr_assert_eq(sy_placer_window(&f.p, &f.cfg, &f.w, &f.counted), 0);
	cr_assert_eq(f.w.pub.nr_inner, 2);
	cr_assert_eq(f.w.pub.inner[0].nr_stack, 1);
	cr_assert_eq(f.w.pub.inner[1].nr_stack, 3);
	cr_assert_eq(f.w.pub.inner[1].stack[0].from, 0x2100);
	fx_fini(&f);
}

Test(place, syscall_stops_and_other_threads_do_not_count)
{
	struct fx f;

	fx_init(&f, 0);
	/* the syscall returns to 0x2000 as well, and another thread is
	 * interrupted at 0x3000: neither is where a sample of thread 7
	 * at those addresses interrupted the trace */
	run(&f, 0x1000, 0x1000, 1, SY_STOP_SYSCALL, 0x2000);
	run(&f, 0x2000, 0x1800, 1, SY_STOP_EXCEPTION, 0x2000);
	it(&f, SY_DEC_CONTEXT, 0, 0, 9, 0);
	run(&f, 0x2000, 0x2800, 1, SY_STOP_EXCEPTION, 0x3000);
	close_window(&f, 1000);
	sample(&f, 500, 0x2000, 7);
	sample(&f, 600, 0x3000, 7);
	cr_assert_eq(sy_placer_window(&f.p, &f.cfg, &f.w, &f.counted), 0);
	cr_assert_eq(f.w.pub.nr_inner, 1);
	cr_assert_eq(f.w.pub.unplaced, 1);
	cr_assert_eq(f.w.pub.inner[0].ip, 0x2000);
	/* the syscall is an untraced excursion: the run joins across it */
	cr_assert_eq(f.w.pub.inner[0].nr_stack, 2);
	fx_fini(&f);
}

Test(place, samples_wait_for_the_window_that_owns_the_trace)
{
	struct fx f;
	struct sy_win w2;

	fx_init(&f, 0);
	run(&f, 0x1000, 0x1000, 2, SY_STOP_EXCEPTION, 0x2000);
	run(&f, 0x2000, 0x3000, 2, SY_STOP_EXCEPTION, 0x5000);
	close_window(&f, 2000);
	sample(&f, 500, 0x2000, 7);
	sample(&f, 3000, 0x2000, 7); /* after the pause: not this window's */
	/* a pause sample at 800 whose pause was missed: trace ran through
	 * it, and the sample before it belongs to the window at 2000 */
	memset(&w2, 0, sizeof(w2));
	w2.match.ran_through = 1;
	w2.pub.pause_time = 800;
	cr_assert_eq(sy_placer_window(&f.p, &f.cfg, &w2, &f.counted), 0);
	cr_assert_eq(w2.pub.nr_inner + w2.pub.unplaced, 0);
	cr_assert_eq(sy_placer_window(&f.p, &f.cfg, &f.w, &f.counted), 0);
	cr_assert_eq(f.w.pub.nr_inner, 1);
	cr_assert_eq(f.w.pub.inner[0].time, 500);
	/* the one after the last pause sample is counted, not placed */
	f.unplaced += sy_placer_drop(&f.p);
	cr_assert_eq(f.unplaced, 1);
	fx_fini(&f);
}

Test(place, a_queue_without_pause_samples_holds_a_bounded_number)
{
	struct fx f;

	fx_init(&f, 0);
	for (uint64_t i = 0; i < 70000; i++)
		sample(&f, i, 0x2000, 7);
	/* the oldest are given up and counted */
	cr_assert_eq(f.p.nr_qs - f.p.qs_pos, 65536);
	cr_assert_eq(f.unplaced, 70000 - 65536);
	cr_assert_eq(f.p.qs[f.p.qs_pos].time, 70000 - 65536);
	f.unplaced += sy_placer_drop(&f.p);
	cr_assert_eq(f.unplaced, 70000);
	fx_fini(&f);
}

/* Issue 13, bug 1: a sample stamped with the time of a stretch's own start
 * was taken in the interrupt that started its trace (resume and sample at
 * one boundary), not at its stop, even where the stop is at its IP (a
 * loop).  The one stamped later is the stop's. */
Test(place, sample_at_a_stretch_start_is_not_its_stop)
{
	struct fx f;

	fx_init(&f, 0);
	it(&f, SY_DEC_START, 0, 0x2000, 0, 0);
	it(&f, SY_DEC_TIME, 0, 0, 0, 300);
	it(&f, SY_DEC_BRANCH, 0x2000, 0x2100, 0, 0);
	it(&f, SY_DEC_BRANCH, 0x2100, 0x2000, 0, 0);
	it(&f, SY_DEC_STOP, 0, 0x2000, SY_STOP_EXCEPTION, 0);
	it(&f, SY_DEC_START, 0, 0x2000, 0, 0);
	it(&f, SY_DEC_TIME, 0, 0, 0, 400);
	it(&f, SY_DEC_STOP, 0, 0x5000, SY_STOP_EXCEPTION, 0);
	close_window(&f, 1000);
	sample(&f, 300, 0x2000, 7);	/* with the resume: before the trace */
	sample(&f, 400, 0x2000, 7);	/* the stop of the first stretch */
	cr_assert_eq(sy_placer_window(&f.p, &f.cfg, &f.w, &f.counted), 0);
	cr_assert_eq(f.w.pub.nr_inner, 1);
	cr_assert_eq(f.w.pub.unplaced, 1);
	cr_assert_eq(f.w.pub.inner[0].time, 400);
	cr_assert_eq(f.w.pub.inner[0].nr_stack, 2);
	fx_fini(&f);
}

/* Issue 13, bug 2: samples that came after a pause sample (the samples
 * said "paused") are placed when the trace shows it still ran (the pause
 * was missed) and counted; those that came while it really was paused are
 * not counted at all, and one of the same interrupt as the window's own
 * pause sample came after that pause stopped the trace. */
Test(place, samples_after_a_missed_pause_are_placed)
{
	struct fx f;

	fx_init(&f, 0);
	it(&f, SY_DEC_START, 0, 0x1000, 0, 0);
	it(&f, SY_DEC_TIME, 0, 0, 0, 100);
	it(&f, SY_DEC_BRANCH, 0x1000, 0x1100, 0, 0);
	it(&f, SY_DEC_STOP, 0, 0x2000, SY_STOP_EXCEPTION, 0);
	it(&f, SY_DEC_START, 0, 0x2000, 0, 0);
	it(&f, SY_DEC_TIME, 0, 0, 0, 600);
	it(&f, SY_DEC_BRANCH, 0x2000, 0x2100, 0, 0);
	it(&f, SY_DEC_STOP, 0, 0x3000, SY_STOP_EXCEPTION, 0);
	close_window(&f, 1000);
	sample(&f, 50, 0x2000, 7);	/* before the trace: paused */
	f.p.qs[f.p.nr_qs - 1].after_pause = 1;
	sample(&f, 500, 0x2000, 7);	/* after a missed pause sample */
	f.p.qs[f.p.nr_qs - 1].after_pause = 1;
	sample(&f, 1000, 0x3000, 7);	/* with the window's own pause */
	f.p.qs[f.p.nr_qs - 1].after_pause = 1;
	cr_assert_eq(sy_placer_window(&f.p, &f.cfg, &f.w, &f.counted), 0);
	cr_assert_eq(f.w.pub.nr_inner, 1);
	cr_assert_eq(f.w.pub.inner[0].time, 500);
	cr_assert_eq(f.w.pub.unplaced, 0);
	cr_assert_eq(f.counted, 1);
	fx_fini(&f);
}

/* As the walk queues them: the chain cut from the placer's own blocks. */
static void sample_cut(struct fx *f, uint64_t time, uint64_t ip, uint32_t tid)
{
	const uint64_t frames[] = { ip, 0x4444 };
	struct sy_chain chain;

	cr_assert_eq(sy_chain_pack(&chain, &f->p.mem, frames, 2), 0);
	cr_assert_not_null(chain.blk);
	int r = sy_placer_add(&f->p, time, ip, 100, tid, tid, &chain, 0);

	cr_assert_geq(r, 0);
}

/* The chains of waiting samples come from the placer's blocks, packed; a
 * placed one is unpacked into an array that goes with its window (the
 * packed one is freed then), an unplaced one is freed, and the placer lets
 * go of its block as soon as no sample waits (a block kept by an idle
 * queue would pin the chains cut from it).  ASan checks that every chain
 * is freed exactly once and the blocks with them. */
Test(place, cut_chains_go_with_the_window_and_the_block_is_let_go)
{
	struct fx f;

	fx_init(&f, 0);
	run(&f, 0x1000, 0x1000, 3, SY_STOP_EXCEPTION, 0x2000);
	run(&f, 0x2000, 0x3000, 2, SY_STOP_EXCEPTION, 0x5000);
	close_window(&f, 1000);
	sample_cut(&f, 500, 0x2000, 7);	/* placed */
	sample_cut(&f, 600, 0x7777, 7);	/* no stop there: unplaced */
	sample_cut(&f, 2000, 0x2000, 7);	/* after the pause: waits */
	cr_assert_eq(sy_placer_window(&f.p, &f.cfg, &f.w, &f.counted), 0);
	cr_assert_eq(f.w.pub.nr_inner, 1);
	cr_assert_eq(f.w.pub.unplaced, 1);
	cr_assert_eq(f.w.pub.inner[0].callchain[0], 0x2000);
	cr_assert_eq(f.w.pub.inner[0].callchain[1], 0x4444);
	cr_assert_eq(f.w.pub.inner[0].nr_callchain, 2);
	/* placed, it is unpacked into an array of the window's own (no
	 * blocks given: malloc'd), and the packed one is freed */
	cr_assert_null(f.w.inner_mem[0].chain_blk);
	cr_assert_eq(f.w.inner_mem[0].chain, f.w.pub.inner[0].callchain);
	cr_assert_null(f.w.qs[0].chain.p);
	/* one sample still waits: its chain's block stays current */
	cr_assert_not_null(f.p.mem.cur);
	cr_assert_eq(sy_placer_drop(&f.p), 1);
	cr_assert_null(f.p.mem.cur);
	/* a window that takes the last waiting sample lets go too */
	sample_cut(&f, 700, 0x2000, 7);
	cr_assert_not_null(f.p.mem.cur);
	struct sy_win w2;

	memset(&w2, 0, sizeof(w2));
	w2.pub.pause_time = 1000;
	w2.pub.has_pause = 1;
	cr_assert_eq(sy_placer_window(&f.p, &f.cfg, &w2, &f.counted), 0);
	cr_assert_eq(w2.pub.unplaced, 1);	/* no trace: nowhere to go */
	cr_assert_null(f.p.mem.cur);
	sy_win_free_inner(&w2);
	fx_fini(&f);
}

/* The session's way (windows.c): the walk takes the window's samples off
 * the queue, the validating thread places them with its own blocks.  The
 * placement is the one timestamps_tell_two_interrupts_apart expects; the
 * copied stack and the arrays come from the blocks, the chains of the
 * samples not placed are freed there, and everything goes with the
 * window and the blocks (ASan). */
Test(place, taken_then_placed_with_blocks)
{
	struct sy_blocks mem = { 0 };
	struct fx f;

	fx_init(&f, 0);
	it(&f, SY_DEC_START, 0, 0x1000, 0, 0);
	it(&f, SY_DEC_TIME, 0, 0, 0, 100);
	it(&f, SY_DEC_BRANCH, 0x1000, 0x1100, 0, 0);
	it(&f, SY_DEC_STOP, 0, 0x2000, SY_STOP_EXCEPTION, 0);
	it(&f, SY_DEC_START, 0, 0x2000, 0, 0);
	it(&f, SY_DEC_TIME, 0, 0, 0, 300);
	it(&f, SY_DEC_BRANCH, 0x2000, 0x2100, 0, 0);
	it(&f, SY_DEC_BRANCH, 0x2100, 0x2200, 0, 0);
	it(&f, SY_DEC_STOP, 0, 0x2000, SY_STOP_EXCEPTION, 0);
	it(&f, SY_DEC_START, 0, 0x2000, 0, 0);
	it(&f, SY_DEC_TIME, 0, 0, 0, 500);
	it(&f, SY_DEC_STOP, 0, 0x5000, SY_STOP_EXCEPTION, 0);
	close_window(&f, 1000);
	sample_cut(&f, 200, 0x2000, 7);
	sample_cut(&f, 400, 0x2000, 7);
	sample_cut(&f, 450, 0x7777, 7);	/* unplaced */
	sample_cut(&f, 2000, 0x2000, 7);	/* the next window's */
	cr_assert_eq(sy_placer_take(&f.p, &f.w), 0);
	cr_assert_eq(f.w.nr_qs, 3);
	cr_assert_eq(f.p.nr_qs - f.p.qs_pos, 1);
	cr_assert_eq(f.w.pub.nr_inner, 0);	/* nothing placed yet */
	cr_assert_eq(sy_place_window(&f.cfg, &f.w, &mem), 0);
	cr_assert_eq(f.w.place_err, 0);
	cr_assert_eq(f.w.pub.nr_inner, 2);
	cr_assert_eq(f.w.pub.unplaced, 1);
	cr_assert_eq(f.w.pub.inner[0].nr_stack, 1);
	cr_assert_eq(f.w.pub.inner[1].nr_stack, 3);
	cr_assert_eq(f.w.pub.inner[1].stack[0].from, 0x2100);
	cr_assert_eq(f.w.pub.inner[1].callchain[0], 0x2000);
	cr_assert_eq(f.w.pub.inner[1].callchain[1], 0x4444);
	cr_assert_not_null(f.w.inner_mem[1].chain_blk); /* unpacked there */
	cr_assert_not_null(f.w.inner_blk);
	cr_assert_not_null(f.w.inner_mem_blk);
	cr_assert_not_null(f.w.inner_mem[1].stack.blk);	/* copied */
	cr_assert_null(f.w.qs[2].chain.p);	/* the unplaced one's: freed */
	sy_blocks_drop(&mem);
	fx_fini(&f);
}
