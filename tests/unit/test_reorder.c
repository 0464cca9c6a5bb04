/* The time ordering between the reader and the walk (src/synth/reorder.c),
 * on hand-built records.  Every expected order is worked out from perf's
 * rules stated in reorder.h (ordered-events.c): a round releases what is
 * not newer than the largest time of the round before, equal times keep
 * file order, records without a time go on at once, the cap releases the
 * older half of the span. */
#include <criterion/criterion.h>
#include <string.h>

#include "synth/reorder.h"
#include "sy_perf_abi.h"
#include "sy_synth.h"

#define ST (SY_SAMPLE_IDENTIFIER | SY_SAMPLE_IP | SY_SAMPLE_TID | \
	    SY_SAMPLE_TIME | SY_SAMPLE_CPU)

static struct sy_perf_attr attr_all = {
	.sample_type = ST,
	.flags = 1ull << SY_ATTR_FLAG_SAMPLE_ID_ALL,
};

/* What the walk got: each record's tag and time, in order. */
struct seen {
	uint64_t tag[256], time[256];
	size_t n;
	int all_copied;
	int fail_at;	/* return an error at this record (0: never) */
};

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void put_hdr(uint8_t *p, uint32_t type, uint16_t size)
{
	uint16_t misc = 0;

	memcpy(p, &type, 4);
	memcpy(p + 4, &misc, 2);
	memcpy(p + 6, &size, 2);
}

/* The source buffer is reused for every record, as the reader may: what
 * is queued must be a copy. */
static uint8_t src[128];

/* A sample of @tag (its ip) at @time: IDENTIFIER, IP, TID, TIME, CPU. */
static struct sy_record sample(uint64_t tag, uint64_t time)
{
	struct sy_record r = { 0 };

	memset(src, 0xee, sizeof(src));
	put_hdr(src, SY_REC_SAMPLE, 48);
	put64(src + 8, 1);	/* id */
	put64(src + 16, tag);	/* ip */
	put64(src + 24, 0);	/* pid, tid */
	put64(src + 32, time);
	put64(src + 40, 0);	/* cpu */
	r.type = SY_REC_SAMPLE;
	r.size = 48;
	r.data = src;
	r.attr = &attr_all;
	r.offset = tag * 64;
	return r;
}

/* A side-band record (@type, a body of one u64: @tag) with a sample_id
 * trailer (TID, TIME, CPU, IDENTIFIER) at @time. */
static struct sy_record side(uint32_t type, uint64_t tag, uint64_t time)
{
	struct sy_record r = { 0 };

	memset(src, 0xee, sizeof(src));
	put_hdr(src, type, 48);
	put64(src + 8, tag);
	put64(src + 16, 0);	/* tid */
	put64(src + 24, time);
	put64(src + 32, 0);	/* cpu */
	put64(src + 40, 1);	/* identifier */
	r.type = type;
	r.size = 48;
	r.data = src;
	r.attr = &attr_all;
	r.offset = tag * 64;
	return r;
}

static struct sy_record round_end(void)
{
	struct sy_record r = { 0 };

	put_hdr(src, SY_REC_FINISHED_ROUND, 8);
	r.type = SY_REC_FINISHED_ROUND;
	r.size = 8;
	r.data = src;
	return r;
}

static uint64_t tag_of(const struct sy_record *r)
{
	if (r->type == SY_REC_SAMPLE)
		return get64(r->data + 16);
	if (r->size >= 16)
		return get64(r->data + 8);
	return 0;
}

static int take(void *ctx, const struct sy_record *r)
{
	struct seen *s = ctx;
	uint64_t t = 0;

	cr_assert_lt(s->n, 256);
	sy_reorder_time(r, &t);
	/* a queued record comes out as a copy, flagged */
	if (r->type != SY_REC_FINISHED_ROUND &&
	    (r->data == src || !(r->flags & SY_RECORD_COPIED)))
		s->all_copied = 0;
	s->tag[s->n] = r->type == SY_REC_FINISHED_ROUND ? 999 : tag_of(r);
	s->time[s->n++] = t;
	if (s->fail_at && s->n == (size_t)s->fail_at)
		return -SY_E_NOMEM;
	return 0;
}

static void push(struct sy_reorder *o, struct sy_record r, struct seen *s)
{
	cr_assert_eq(sy_reorder_push(o, &r, take, s, NULL), 0);
}

static void expect(const struct seen *s, const uint64_t *tags, size_t n)
{
	cr_assert_eq(s->n, n, "%zu records handed on, expected %zu", s->n, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(s->tag[i], tags[i], "record %zu: tag %llu, expected %llu",
			     i, (unsigned long long)s->tag[i],
			     (unsigned long long)tags[i]);
}

/* Two CPUs written one after the other in each round, as perf record
 * does: CPU 0's records (times 10, 30) before CPU 1's (20, an MMAP2 at
 * 25).  The first FINISHED_ROUND releases nothing (no round before it
 * bounds what is still to come), the second what is not newer than the
 * first round's largest time (30), the end the rest. */
Test(reorder, round_releases_up_to_previous_max)
{
	struct sy_reorder o;
	struct seen s = { .all_copied = 1 };

	sy_reorder_init(&o, 1, 0);
	push(&o, sample(1, 10), &s);
	push(&o, sample(2, 30), &s);
	push(&o, sample(3, 20), &s);
	push(&o, side(SY_REC_MMAP2, 4, 25), &s);
	push(&o, round_end(), &s);
	/* only the FINISHED_ROUND itself went on */
	expect(&s, (uint64_t[]){ 999 }, 1);
	push(&o, sample(5, 40), &s);
	push(&o, sample(6, 28), &s);	/* CPU 1, older than CPU 0's 40 */
	push(&o, round_end(), &s);
	expect(&s, (uint64_t[]){ 999, 1, 3, 4, 6, 2, 999 }, 7);
	cr_assert_eq(sy_reorder_drain(&o, take, &s), 0);
	expect(&s, (uint64_t[]){ 999, 1, 3, 4, 6, 2, 999, 5 }, 8);
	cr_assert(s.all_copied);
	cr_assert_eq(o.late, 0);
	cr_assert_eq(o.forced, 0);
	cr_assert_eq(o.nr, 0);
	sy_reorder_fini(&o);
}

/* Every record handed on after the first is a copy: the source buffer
 * was overwritten by each later push. */
Test(reorder, queued_records_are_copies)
{
	struct sy_reorder o;
	struct seen s = { .all_copied = 1 };

	sy_reorder_init(&o, 1, 0);
	push(&o, sample(1, 10), &s);
	push(&o, side(SY_REC_COMM, 2, 5), &s);
	cr_assert_eq(sy_reorder_drain(&o, take, &s), 0);
	expect(&s, (uint64_t[]){ 2, 1 }, 2);
	cr_assert(s.all_copied);
	cr_assert_eq(s.time[0], 5);
	cr_assert_eq(s.time[1], 10);
	sy_reorder_fini(&o);
}

/* Without rounds the stage is off: file order, nothing copied. */
Test(reorder, off_keeps_file_order)
{
	struct sy_reorder o;
	struct seen s = { .all_copied = 1 };

	sy_reorder_init(&o, 0, 0);
	push(&o, sample(1, 30), &s);
	push(&o, sample(2, 10), &s);
	push(&o, round_end(), &s);
	push(&o, side(SY_REC_FORK, 3, 5), &s);
	cr_assert_eq(sy_reorder_drain(&o, take, &s), 0);
	expect(&s, (uint64_t[]){ 1, 2, 999, 3 }, 4);
	cr_assert_not(s.all_copied);
	cr_assert_eq(o.queued, 0);
	sy_reorder_fini(&o);
}

/* Equal times keep file order, across records of any type. */
Test(reorder, equal_times_keep_file_order)
{
	struct sy_reorder o;
	struct seen s = { .all_copied = 1 };

	sy_reorder_init(&o, 1, 0);
	push(&o, side(SY_REC_AUX, 1, 50), &s);
	push(&o, sample(2, 50), &s);
	push(&o, side(SY_REC_SWITCH_CPU_WIDE, 3, 50), &s);
	push(&o, sample(4, 40), &s);
	push(&o, sample(5, 50), &s);
	cr_assert_eq(sy_reorder_drain(&o, take, &s), 0);
	expect(&s, (uint64_t[]){ 4, 1, 2, 3, 5 }, 5);
	sy_reorder_fini(&o);
}

/* Records without a time go on at once, ahead of the queue: a user
 * record (AUXTRACE), a record of no known attr, time 0 (synthesized), a
 * sample whose attr has no TIME, a side-band record without
 * sample_id_all, one too short for its trailer. */
Test(reorder, records_without_time_go_at_once)
{
	static struct sy_perf_attr no_time = { .sample_type = ST & ~SY_SAMPLE_TIME,
					       .flags = 1ull << SY_ATTR_FLAG_SAMPLE_ID_ALL };
	static struct sy_perf_attr no_sid = { .sample_type = ST };
	struct sy_reorder o;
	struct seen s = { .all_copied = 1 };
	struct sy_record r;

	sy_reorder_init(&o, 1, 0);
	push(&o, sample(1, 100), &s);
	r = side(SY_REC_AUXTRACE, 2, 0);
	r.attr = NULL;
	push(&o, r, &s);
	r = sample(3, 90);
	r.attr = NULL;
	push(&o, r, &s);
	push(&o, sample(4, 0), &s);
	r = sample(5, 80);
	r.attr = &no_time;
	push(&o, r, &s);
	r = side(SY_REC_MMAP2, 6, 70);
	r.attr = &no_sid;
	push(&o, r, &s);
	r = side(SY_REC_COMM, 7, 60);
	r.size = 24;	/* no room for the 32-byte trailer */
	push(&o, r, &s);
	expect(&s, (uint64_t[]){ 2, 3, 4, 5, 6, 7 }, 6);
	cr_assert_eq(sy_reorder_drain(&o, take, &s), 0);
	expect(&s, (uint64_t[]){ 2, 3, 4, 5, 6, 7, 1 }, 7);
	cr_assert_eq(o.queued, 1);
	sy_reorder_fini(&o);
}

/* The time perf sorts by, read where perf reads it. */
Test(reorder, time_of_records)
{
	struct sy_record r = sample(1, 1234);
	uint64_t t;

	cr_assert_eq(sy_reorder_time(&r, &t), 1);
	cr_assert_eq(t, 1234);
	r = side(SY_REC_EXIT, 2, 777);
	cr_assert_eq(sy_reorder_time(&r, &t), 1);
	cr_assert_eq(t, 777);
	r = side(SY_REC_MMAP2, 3, UINT64_MAX);	/* perf: -1 is no time */
	cr_assert_eq(sy_reorder_time(&r, &t), 0);
	r = sample(4, 5);
	r.size = 32;		/* cut before TIME */
	cr_assert_eq(sy_reorder_time(&r, &t), 0);
	r = round_end();
	r.attr = &attr_all;
	cr_assert_eq(sy_reorder_time(&r, &t), 0);
}

/* A record older than one already released (it came after its round
 * ended) is counted late and goes at the next release. */
Test(reorder, late_record_counted)
{
	struct sy_reorder o;
	struct seen s = { .all_copied = 1 };

	sy_reorder_init(&o, 1, 0);
	push(&o, sample(1, 10), &s);
	push(&o, round_end(), &s);
	push(&o, sample(2, 20), &s);
	push(&o, round_end(), &s);	/* releases 1 (<= 10) */
	expect(&s, (uint64_t[]){ 999, 1, 999 }, 3);
	push(&o, sample(3, 5), &s);	/* older than 10, released */
	cr_assert_eq(o.late, 1);
	push(&o, round_end(), &s);	/* up to 20: 3 then 2 */
	expect(&s, (uint64_t[]){ 999, 1, 999, 3, 2, 999 }, 6);
	sy_reorder_fini(&o);
}

/* The cap: with room for about four records, a round of twelve releases
 * the older half of the span each time the queue is full, in order, and
 * never holds more than the cap. */
Test(reorder, cap_releases_older_half)
{
	/* 4 copies of 48 bytes and 5 entries fit, not 5 copies and 6 */
	size_t cap = 4 * 48 + 5 * 64;
	struct sy_reorder o;
	struct seen s = { .all_copied = 1 };
	int forced, nforced = 0;

	sy_reorder_init(&o, 1, cap);
	for (uint64_t i = 1; i <= 12; i++) {
		struct sy_record r = sample(i, 100 * i);

		cr_assert_eq(sy_reorder_push(&o, &r, take, &s, &forced), 0);
		nforced += forced;
		cr_assert_leq(o.len, cap);
		/* handed on in time order so far */
		for (size_t k = 1; k < s.n; k++)
			cr_assert_lt(s.time[k - 1], s.time[k]);
	}
	cr_assert_gt(nforced, 0);
	cr_assert_eq((uint64_t)nforced, o.forced);
	cr_assert_gt(s.n, 0);
	cr_assert_lt(s.n, 12);
	/* the first forced release: the queue held 100..400 and 500 came;
	 * the middle of 100..400 is 250: 100 and 200 went */
	cr_assert_eq(s.time[0], 100);
	cr_assert_eq(s.time[1], 200);
	cr_assert_eq(sy_reorder_drain(&o, take, &s), 0);
	cr_assert_eq(s.n, 12);
	for (size_t k = 0; k < 12; k++)
		cr_assert_eq(s.tag[k], k + 1);
	cr_assert_eq(o.late, 0);
	sy_reorder_fini(&o);
}

/* An error of the walk stops the release and comes back. */
Test(reorder, error_stops_release)
{
	struct sy_reorder o;
	struct seen s = { .all_copied = 1, .fail_at = 2 };
	struct sy_record r;

	sy_reorder_init(&o, 1, 0);
	push(&o, sample(1, 10), &s);
	push(&o, sample(2, 20), &s);
	push(&o, sample(3, 30), &s);
	r = round_end();
	cr_assert_eq(sy_reorder_push(&o, &r, take, &s, NULL), 0);
	cr_assert_eq(sy_reorder_drain(&o, take, &s), -SY_E_NOMEM);
	cr_assert_eq(s.n, 2);	/* the round's marker, then 1 failed */
	cr_assert_eq(o.nr, 0);	/* the rest dropped: the walk stops */
	sy_reorder_fini(&o);
	sy_reorder_fini(NULL);
}

/* ---- through a session, on pt-fork-order ------------------------------
 * pid 1000 on cpu 1 forks pid 2000, which runs on cpu 0; the child's pause
 * samples come before the older FORK in the file (its truth: 16 windows,
 * all ok; tests/fixtures/scenarios/pt-fork-order.scn). */

#define FORK_ORDER "tests/fixtures/generated/pt-fork-order.data"

struct srun {
	size_t n, ok;
	uint64_t last_pause;
	int in_order;
	size_t cap_notes;
};

static int on_window(void *ctx, const struct sy_window *w)
{
	struct srun *r = ctx;

	if (w->pause_time < r->last_pause)
		r->in_order = 0;
	r->last_pause = w->pause_time;
	r->n++;
	r->ok += w->status == SY_ST_OK;
	return 0;
}

static void on_warn(void *ctx, const struct sy_diag *d)
{
	struct srun *r = ctx;

	if (strstr(d->msg, "the time ordering keeps"))
		r->cap_notes++;
}

static void run_fork_order(size_t cap, struct srun *r)
{
	struct sy_session_opts o;
	struct sy_session *s;
	struct sy_diag d = { 0 };

	memset(r, 0, sizeof(*r));
	r->in_order = 1;
	sy_session_opts_init(&o);
	o.input = FORK_ORDER;
	o.images.symfs = ".";
	o.images.buildid_dir = "";
	o.threads = 1;
	o.reorder_cap = cap;
	o.warn = on_warn;
	o.warn_ctx = r;
	cr_assert_eq(sy_session_open(&s, &o, &d), 0, "%s", d.msg);
	cr_assert_eq(sy_session_run(s, on_window, r), 0);
	sy_session_close(s);
}

/* The FORK is in force for the child's windows: every window ok, as the
 * truth says, handed out in time order, and no note. */
Test(reorder, session_fork_before_child_windows)
{
	struct srun r;

	run_fork_order(0, &r);
	cr_assert_eq(r.n, 16);
	cr_assert_eq(r.ok, 16);
	cr_assert(r.in_order);
	cr_assert_eq(r.cap_notes, 0);
}

/* A cap far below the one round's records: released half at a time, every
 * window still handed out, and one note (not one per release). */
Test(reorder, session_cap_noted_once)
{
	struct srun r;

	run_fork_order(1024, &r);
	cr_assert_eq(r.n, 16);
	cr_assert_eq(r.cap_notes, 1);
	cr_log_info("cap 1 KiB: %zu of 16 windows ok", r.ok);
}
