/* The perf.data reader: round trips through the writer (which is checked
 * against perf 6.1 in test_perf_writer.c), and every kind of damage the
 * reader must turn into an error with a byte offset instead of a crash. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sy_bytes.h"
#include "sy_perf_reader.h"
#include "sy_perf_event.h"
#include "sy_perf_writer.h"
#include "sy_test.h"

#define NR_SAMPLES 40

struct built {
	uint8_t *data;
	size_t len;
	/* what the test wrote, in order */
	uint32_t types[256];
	size_t nr;
};

static uint64_t ids0[] = { 10, 11 };
static uint64_t ids1[] = { 20, 21 };

static void attrs(struct sy_perf_attr *a0, struct sy_perf_attr *a1)
{
	memset(a0, 0, sizeof(*a0));
	memset(a1, 0, sizeof(*a1));
	a0->type = 8;
	a0->sample_type = SY_SAMPLE_IDENTIFIER | SY_SAMPLE_IP | SY_SAMPLE_TID |
			  SY_SAMPLE_TIME | SY_SAMPLE_CPU;
	a0->flags = 1ULL << SY_ATTR_FLAG_SAMPLE_ID_ALL;
	a0->aux_action = SY_AUX_ACTION_START_PAUSED;
	a0->ids = ids0;
	a0->nr_ids = 2;
	a0->name = "cs_etm//u";
	a1->type = 0;
	a1->sample_period = 1000;
	a1->sample_type = SY_SAMPLE_IDENTIFIER | SY_SAMPLE_IP | SY_SAMPLE_TID |
			  SY_SAMPLE_TIME | SY_SAMPLE_CPU | SY_SAMPLE_PERIOD |
			  SY_SAMPLE_CALLCHAIN;
	a1->flags = 1ULL << SY_ATTR_FLAG_SAMPLE_ID_ALL;
	a1->aux_action = SY_AUX_ACTION_PAUSE;
	a1->ids = ids1;
	a1->nr_ids = 2;
	a1->name = "cycles";
}

static void sid(struct sy_sample *s, uint64_t id, uint64_t t)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->pid = 42;
	s->tid = 43;
	s->time = t;
	s->cpu = 1;
}

#define NOTE(b, t) ((b)->types[(b)->nr++] = (t))

/* A writer with the two attrs and a hostname. */
static struct sy_pw *writer(const struct sy_pw_config *cfg,
			    struct sy_perf_attr *a0, struct sy_perf_attr *a1)
{
	struct sy_pw *w;

	attrs(a0, a1);
	cr_assert_eq(sy_pw_alloc(&w, cfg), 0);
	cr_assert_geq(sy_pw_add_attr(w, a0), 0);
	cr_assert_geq(sy_pw_add_attr(w, a1), 0);
	cr_assert_eq(sy_pw_feat_string(w, SY_FEAT_HOSTNAME, "host"), 0);
	return w;
}

/* Sample @i of a pause event: @depth frames of @chain (the user context
 * and i-numbered return addresses). */
static void pause_sample(struct sy_sample *s, int i, uint64_t *chain,
			 int depth)
{
	sid(s, 20 + (uint64_t)(i & 1), 1000 + (uint64_t)i);
	s->ip = 0x400100 + (uint64_t)i * 4;
	s->period = 1000;
	chain[0] = SY_CONTEXT_USER;
	for (int k = 1; k < depth; k++)
		chain[k] = 0x400000 + (uint64_t)(i * depth + k);
	s->callchain = (const uint8_t *)chain;
}

/* The file @w wrote, in @b. */
static void written(struct built *b, struct sy_pw *w)
{
	const uint8_t *out;

	cr_assert_eq(sy_pw_output(w, &out, &b->len), 0);
	b->data = malloc(b->len);
	memcpy(b->data, out, b->len);
	sy_pw_free(w);
}

/* A small recording in the shape of a pause/resume capture. */
static void build(struct built *b, const struct sy_pw_config *cfg)
{
	struct sy_perf_attr a0, a1;
	struct sy_pw *w;
	struct sy_sample s;
	uint8_t payload[200];
	uint64_t chain[6];

	memset(b, 0, sizeof(*b));
	w = writer(cfg, &a0, &a1);
	cr_assert_eq(sy_pw_feat_string(w, SY_FEAT_ARCH, "aarch64"), 0);
	cr_assert_eq(sy_pw_feat_nrcpus(w, 4, 2), 0);
	cr_assert_eq(sy_pw_feat_event_desc(w), 0);

	sid(&s, 10, 100);
	cr_assert_eq(sy_pw_comm(w, SY_MISC_COMM_EXEC, 42, 43, "prog", &a0, &s), 0);
	NOTE(b, SY_REC_COMM);
	struct sy_pw_mmap m = { 0 };
	m.misc = SY_MISC_USER;
	m.pid = 42;
	m.tid = 43;
	m.addr = 0x400000;
	m.len = 0x1000;
	m.prot = 5;
	m.filename = "/bin/prog";
	cr_assert_eq(sy_pw_mmap2(w, &m, &a0, &s), 0);
	NOTE(b, SY_REC_MMAP2);
	for (int i = 0; i < NR_SAMPLES; i++) {
		pause_sample(&s, i, chain, 6);
		s.callchain_nr = 1 + (uint64_t)(i % 5);
		cr_assert_eq(sy_pw_sample(w, &a1, SY_MISC_USER, &s), 0);
		NOTE(b, SY_REC_SAMPLE);
		if (i % 10 == 9) {
			sid(&s, 11, 1000 + (uint64_t)i);
			cr_assert_eq(sy_pw_aux(w, (uint64_t)i * 10, 200,
					       SY_AUX_FLAG_CORESIGHT_RAW, &a0, &s),
				     0);
			NOTE(b, SY_REC_AUX);
			for (size_t k = 0; k < sizeof(payload); k++)
				payload[k] = (uint8_t)(k * 7 + (size_t)i);
			struct sy_pw_auxtrace at = { 0 };
			at.offset = (uint64_t)i * 10;
			at.cpu = 1;
			at.idx = 1;
			cr_assert_eq(sy_pw_auxtrace(w, &at, payload,
						    sizeof(payload)),
				     0);
			NOTE(b, SY_REC_AUXTRACE);
			cr_assert_eq(sy_pw_finished_round(w), 0);
			NOTE(b, SY_REC_FINISHED_ROUND);
		}
	}
	written(b, w);
}

struct walk {
	int err;		/* final sy_perf_next() result */
	struct sy_diag diag;	/* the reader's diag after the walk */
	size_t nr;
	uint32_t types[512];
	uint64_t offsets[512];
	uint64_t damage;
	struct sy_perf_stats stats;
};

static void walk_reader(struct sy_perf_reader *r, struct walk *wk)
{
	struct sy_record rec;

	while ((wk->err = sy_perf_next(r, &rec)) == 0) {
		if (wk->nr < 512) {
			wk->types[wk->nr] = rec.type;
			wk->offsets[wk->nr] = rec.offset;
		}
		wk->nr++;
	}
	wk->diag = *sy_perf_diag(r);
	wk->damage = sy_perf_nr_damage(r);
	wk->stats = *sy_perf_stats(r);
}

/* Opens @data mapped; returns the open error or 0 after walking. */
static int walk_mem(const uint8_t *data, size_t len, struct walk *wk,
		    struct sy_diag *open_diag)
{
	struct sy_perf_reader *r;
	int err;

	memset(wk, 0, sizeof(*wk));
	err = sy_perf_open_mem(&r, data, len, "t.data", open_diag);
	if (err)
		return err;
	walk_reader(r, wk);
	sy_perf_close(r);
	return 0;
}

/* The same through a pipe (the streaming source). */
static int walk_pipe(const uint8_t *data, size_t len, struct walk *wk,
		     struct sy_diag *open_diag)
{
	struct sy_perf_reader *r;
	int fds[2], err;
	pid_t pid;

	memset(wk, 0, sizeof(*wk));
	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		size_t off = 0;
		while (off < len) {
			ssize_t n = write(fds[1], data + off, len - off);
			if (n <= 0)
				_exit(1);
			off += (size_t)n;
		}
		_exit(0);
	}
	close(fds[1]);
	err = sy_perf_open_fd(&r, fds[0], "-", open_diag);
	if (!err) {
		walk_reader(r, wk);
		sy_perf_close(r);
	}
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return err;
}

static size_t find_type(const struct walk *wk, uint32_t type, size_t nth)
{
	for (size_t i = 0; i < wk->nr && i < 512; i++)
		if (wk->types[i] == type && nth-- == 0)
			return i;
	cr_assert_fail("record type %u not found", type);
	return 0;
}

Test(perf_reader, round_trip_file)
{
	struct built b;
	struct walk wk;
	struct sy_perf_reader *r;
	struct sy_record rec;
	int nsamples = 0;

	build(&b, NULL);
	cr_assert_eq(walk_mem(b.data, b.len, &wk, NULL), 0);
	cr_assert_eq(wk.err, -SY_E_EOS, "walk ended with %d: %s", wk.err,
		     wk.diag.msg);
	cr_assert_eq(wk.damage, 0);
	cr_assert_eq(wk.nr, b.nr);
	for (size_t i = 0; i < b.nr; i++)
		cr_assert_eq(wk.types[i], b.types[i], "record %zu", i);

	cr_assert_eq(sy_perf_open_mem(&r, b.data, b.len, "t", NULL), 0);
	cr_assert_eq(sy_perf_nr_attrs(r), 2);
	cr_assert_str_eq(sy_perf_attr(r, 0)->name, "cs_etm//u");
	cr_assert_eq(sy_perf_attr(r, 0)->aux_action, SY_AUX_ACTION_START_PAUSED);
	cr_assert_eq(sy_perf_attr(r, 1)->aux_action, SY_AUX_ACTION_PAUSE);
	cr_assert_eq(sy_perf_attr_by_id(r, 21), sy_perf_attr(r, 1));
	cr_assert_str_eq(sy_perf_features(r)->hostname, "host");
	cr_assert_str_eq(sy_perf_features(r)->arch, "aarch64");
	cr_assert_eq(sy_perf_features(r)->nr_cpus_online, 2);
	cr_assert_eq(sy_perf_features(r)->nr_auxtrace_index, 4);
	while (sy_perf_next(r, &rec) == 0) {
		if (rec.type == SY_REC_SAMPLE) {
			struct sy_sample s;

			cr_assert_eq(rec.attr, sy_perf_attr(r, 1));
			cr_assert_eq(sy_sample_parse(rec.attr, rec.data,
						     rec.size, &s, NULL, 0),
				     0);
			cr_assert_eq(s.ip, 0x400100 + (uint64_t)nsamples * 4);
			cr_assert_eq(s.time, 1000 + (uint64_t)nsamples);
			cr_assert_eq(s.callchain_nr, (uint64_t)(1 + nsamples % 5));
			cr_assert_eq(sy_sample_callchain(&s, 0),
				     SY_CONTEXT_USER);
			nsamples++;
		} else if (rec.type == SY_REC_AUXTRACE) {
			cr_assert_eq(rec.aux_size, 200);
			cr_assert_eq(rec.aux[1], 7 + rec.aux[0]);
			/* payload reachable by file offset after the walk */
			cr_assert_eq(sy_perf_bytes(r, rec.aux_file_offset, 200),
				     rec.aux);
		} else if (rec.type == SY_REC_MMAP2) {
			struct sy_event ev;

			cr_assert_eq(sy_event_parse(&rec, &ev, NULL), 0);
			cr_assert_str_eq(ev.u.mmap.filename, "/bin/prog");
			cr_assert_eq(ev.u.mmap.addr, 0x400000);
			cr_assert(ev.has_sid);
			cr_assert_eq(ev.sid.time, 100);
		}
	}
	cr_assert_eq(nsamples, NR_SAMPLES);
	sy_perf_close(r);
	free(b.data);
}

/* mapped, streamed: same records; pipe layout and compression too */
Test(perf_reader, sources_and_layouts_agree)
{
	static const struct sy_pw_config cfgs[] = {
		{ 0 },
		{ .pipe = 1 },
		{ .compress = SY_REC_COMPRESSED },
		{ .compress = SY_REC_COMPRESSED2, .comp_batch = 300 },
		{ .pipe = 1, .compress = SY_REC_COMPRESSED, .comp_batch = 100 },
		{ .attr_size = SY_ATTR_SIZE_VER8 },
	};

	for (size_t c = 0; c < SY_ARRAY_SIZE(cfgs); c++) {
		struct built b;
		struct walk m, p;
		size_t k = 0;

		build(&b, &cfgs[c]);
		cr_assert_eq(walk_mem(b.data, b.len, &m, NULL), 0);
		cr_assert_eq(walk_pipe(b.data, b.len, &p, NULL), 0);
		cr_assert_eq(m.err, -SY_E_EOS, "cfg %zu: %s", c, m.diag.msg);
		cr_assert_eq(p.err, -SY_E_EOS, "cfg %zu: %s", c, p.diag.msg);
		cr_assert_eq(m.damage + p.damage, 0, "cfg %zu", c);
		cr_assert_eq(m.nr, p.nr);
		for (size_t i = 0; i < m.nr; i++) {
			cr_assert_eq(m.types[i], p.types[i]);
			cr_assert_eq(m.offsets[i], p.offsets[i]);
		}
		/* the records written, in order, once header and compressed
		 * records are set aside */
		for (size_t i = 0; i < m.nr; i++) {
			uint32_t t = m.types[i];
			if (t == SY_REC_HEADER_ATTR || t == SY_REC_HEADER_FEATURE ||
			    t == SY_REC_COMPRESSED || t == SY_REC_COMPRESSED2)
				continue;
			cr_assert_lt(k, b.nr, "cfg %zu: extra record", c);
			cr_assert_eq(t, b.types[k], "cfg %zu record %zu", c, k);
			k++;
		}
		cr_assert_eq(k, b.nr, "cfg %zu", c);
		if (cfgs[c].compress)
			cr_assert_gt(m.stats.nr_decompressed, 0);
		if (cfgs[c].compress && cfgs[c].comp_batch)
			cr_assert_gt(m.stats.nr_type[cfgs[c].compress], 2,
				     "small batches give several records");
		free(b.data);
	}
}

/* Truncation at every byte: an error naming an offset inside the data, or
 * a damage warning; never a silent success and never an overrun (the copy
 * is exactly @n bytes, so ASan sees any overread). */
Test(perf_reader, truncation_at_every_byte)
{
	static const struct sy_pw_config cfgs[] = {
		{ 0 },
		{ .pipe = 1 },
		{ .compress = SY_REC_COMPRESSED, .comp_batch = 200 },
	};

	for (size_t c = 0; c < SY_ARRAY_SIZE(cfgs); c++) {
		struct built b;

		build(&b, &cfgs[c]);
		for (size_t n = 0; n < b.len; n++) {
			uint8_t *cut = malloc(n ? n : 1);
			struct walk wk;
			struct sy_diag od = { 0 };
			int err;

			memcpy(cut, b.data, n);
			err = walk_mem(cut, n, &wk, &od);
			if (err) {
				cr_assert(od.msg[0], "cfg %zu n %zu", c, n);
			} else if (wk.err != -SY_E_EOS) {
				cr_assert(wk.diag.has_offset);
				cr_assert_leq(wk.diag.offset, n);
				cr_assert(wk.diag.msg[0]);
			} else if (!cfgs[c].pipe) {
				cr_assert_gt(wk.damage, 0,
					     "cfg %zu: cut at %zu of %zu went "
					     "unnoticed", c, n, b.len);
			} else {
				/* a pipe has no length field: a cut exactly
				 * between records is a shorter valid stream */
				cr_assert_leq(wk.nr, b.nr + 40);
			}
			if (n % 13 == 0) {
				struct walk wp;
				int perr = walk_pipe(cut, n, &wp, &od);
				cr_assert_eq(!!perr, !!err, "n %zu", n);
				if (!perr)
					cr_assert_eq(wp.nr, wk.nr, "n %zu", n);
			}
			free(cut);
		}
		free(b.data);
	}
}

/* Patches a record of the built file and walks it. */
static void patched(uint32_t type, size_t nth, size_t field, uint64_t value,
		    int width, struct walk *out, uint64_t *rec_off)
{
	struct built b;
	struct walk wk;
	size_t i;

	build(&b, NULL);
	walk_mem(b.data, b.len, &wk, NULL);
	i = find_type(&wk, type, nth);
	*rec_off = wk.offsets[i];
	if (width == 2)
		sy_put16(b.data + *rec_off + field, (uint16_t)value);
	else if (width == 4)
		sy_put32(b.data + *rec_off + field, (uint32_t)value);
	else
		sy_put64(b.data + *rec_off + field, value);
	cr_assert_eq(walk_mem(b.data, b.len, out, NULL), 0);
	free(b.data);
}

Test(perf_reader, zero_size_record)
{
	struct walk wk;
	uint64_t off;

	patched(SY_REC_SAMPLE, 3, 6, 0, 2, &wk, &off);
	cr_assert_eq(wk.err, -SY_E_BAD_RECORD);
	cr_assert_eq(wk.diag.offset, off);
	cr_assert(strstr(wk.diag.msg, "smaller than its 8-byte header"),
		  "%s", wk.diag.msg);
	/* the error is sticky */
}

Test(perf_reader, misaligned_kernel_record)
{
	struct walk wk;
	uint64_t off;

	patched(SY_REC_MMAP2, 0, 6, 0x6c, 2, &wk, &off);
	cr_assert_eq(wk.err, -SY_E_BAD_RECORD);
	cr_assert_eq(wk.diag.offset, off);
	cr_assert(strstr(wk.diag.msg, "multiple of 8"), "%s", wk.diag.msg);
}

Test(perf_reader, size_past_end)
{
	struct built b;
	struct walk wk;
	size_t i;
	uint64_t off;
	const struct sy_perf_info *in;
	struct sy_perf_reader *r;

	build(&b, NULL);
	walk_mem(b.data, b.len, &wk, NULL);
	/* the last record of the data section claims 64 KB */
	i = wk.nr - 1;
	off = wk.offsets[i];
	sy_put16(b.data + off + 6, 0xfff8);
	cr_assert_eq(walk_mem(b.data, b.len, &wk, NULL), 0);
	cr_assert_eq(wk.err, -SY_E_TRUNCATED);
	cr_assert_eq(wk.diag.offset, off);
	cr_assert_eq(sy_perf_open_mem(&r, b.data, b.len, "t", NULL), 0);
	in = sy_perf_info(r);
	cr_assert_lt(off, in->data_offset + in->data_size);
	sy_perf_close(r);
	free(b.data);
}

Test(perf_reader, auxtrace_payload_past_eof)
{
	struct walk wk;
	uint64_t off;

	patched(SY_REC_AUXTRACE, 2, 8, 1ULL << 40, 8, &wk, &off);
	cr_assert_eq(wk.err, -SY_E_TRUNCATED);
	cr_assert_eq(wk.diag.offset, off);
	cr_assert(strstr(wk.diag.msg, "AUXTRACE payload"), "%s", wk.diag.msg);
}

Test(perf_reader, absurd_counts)
{
	struct built b;
	struct sy_diag d = { 0 };
	struct sy_perf_reader *r;
	uint8_t *copy;

	build(&b, NULL);
	copy = malloc(b.len);

	/* attr section bigger than the file */
	memcpy(copy, b.data, b.len);
	sy_put64(copy + 32, sy_le64(copy + 16) << 40);
	cr_assert_eq(sy_perf_open_mem(&r, copy, b.len, "t", &d), -SY_E_BAD_HEADER);
	cr_assert_eq(d.offset, 24);

	/* attr claiming more bytes than its entry */
	memcpy(copy, b.data, b.len);
	uint64_t aoff = sy_le64(copy + 24);
	sy_put32(copy + aoff + 4, 4000);
	memset(&d, 0, sizeof(d));
	cr_assert_eq(sy_perf_open_mem(&r, copy, b.len, "t", &d), -SY_E_BAD_ATTR);
	cr_assert_eq(d.offset, aoff + 4);

	/* id array of 2^60 entries */
	memcpy(copy, b.data, b.len);
	uint64_t asz = sy_le64(copy + 16);
	sy_put64(copy + aoff + asz - 8, 1ULL << 63);
	memset(&d, 0, sizeof(d));
	cr_assert_eq(sy_perf_open_mem(&r, copy, b.len, "t", &d), -SY_E_BAD_ATTR);

	/* callchain with 2^60 entries: the sample, not the stream, is bad */
	struct walk wk;
	memcpy(copy, b.data, b.len);
	walk_mem(copy, b.len, &wk, NULL);
	uint64_t soff = wk.offsets[find_type(&wk, SY_REC_SAMPLE, 0)];
	/* IDENTIFIER IP TID TIME CPU PERIOD, then nr */
	sy_put64(copy + soff + 8 + 6 * 8, 1ULL << 60);
	cr_assert_eq(sy_perf_open_mem(&r, copy, b.len, "t", NULL), 0);
	struct sy_record rec;
	while (sy_perf_next(r, &rec) == 0 && rec.offset != soff)
		;
	struct sy_sample s;
	memset(&d, 0, sizeof(d));
	cr_assert_eq(sy_sample_parse(rec.attr, rec.data, rec.size, &s, &d,
				     rec.offset),
		     -SY_E_BAD_SAMPLE);
	cr_assert_eq(d.offset, soff);
	cr_assert(strstr(d.msg, "CALLCHAIN"), "%s", d.msg);
	/* the walk goes on past the bad sample */
	cr_assert_eq(sy_perf_next(r, &rec), 0);
	sy_perf_close(r);
	free(copy);
	free(b.data);
}

Test(perf_reader, unknown_id)
{
	struct walk wk;
	uint64_t off;

	/* IDENTIFIER is the first u64 of the body */
	patched(SY_REC_SAMPLE, 5, 8, 999, 8, &wk, &off);
	cr_assert_eq(wk.err, -SY_E_EOS);
	cr_assert_eq(wk.stats.nr_unknown_id, 1);
}

Test(perf_reader, bad_magic_and_swapped)
{
	struct built b;
	struct sy_diag d = { 0 };
	struct sy_perf_reader *r;

	build(&b, NULL);
	sy_put64(b.data, 0x50455246494c4532ULL);
	cr_assert_eq(sy_perf_open_mem(&r, b.data, b.len, "t", &d), -SY_E_SWAPPED);
	cr_assert(strstr(d.msg, "other-endian"));
	memcpy(b.data, "NOTPERF!", 8);
	cr_assert_eq(sy_perf_open_mem(&r, b.data, b.len, "t", &d), -SY_E_NOT_PERF);
	cr_assert_eq(sy_perf_open_mem(&r, b.data, 0, "t", &d), -SY_E_NOT_PERF);
	cr_assert(strstr(d.msg, "empty"));
	free(b.data);
}

Test(perf_reader, garbage_zstd)
{
	struct sy_pw_config cfg = { .compress = SY_REC_COMPRESSED };
	struct built b;
	struct walk wk;
	uint64_t off;

	build(&b, &cfg);
	walk_mem(b.data, b.len, &wk, NULL);
	off = wk.offsets[find_type(&wk, SY_REC_COMPRESSED, 0)];
	/* smash the zstd frame header */
	memset(b.data + off + 8, 0xa5, 16);
	cr_assert_eq(walk_mem(b.data, b.len, &wk, NULL), 0);
	cr_assert_eq(wk.err, -SY_E_ZSTD, "%d %s", wk.err, wk.diag.msg);
	cr_assert_eq(wk.diag.offset, off);
	cr_assert(strstr(wk.diag.msg, "zstd"), "%s", wk.diag.msg);
	free(b.data);
}

Test(perf_reader, nested_compression)
{
	struct sy_pw_config cfg = { .compress = SY_REC_COMPRESSED };
	struct sy_perf_attr a0, a1;
	struct sy_pw *w;
	const uint8_t *out;
	size_t len;
	struct walk wk;
	uint8_t junk[24] = { 1, 2, 3 };

	attrs(&a0, &a1);
	cr_assert_eq(sy_pw_alloc(&w, &cfg), 0);
	sy_pw_add_attr(w, &a0);
	sy_pw_add_attr(w, &a1);
	/* a COMPRESSED record inside the compressed stream */
	cr_assert_eq(sy_pw_record(w, SY_REC_COMPRESSED, 0, junk, sizeof(junk)),
		     0);
	cr_assert_eq(sy_pw_output(w, &out, &len), 0);
	cr_assert_eq(walk_mem(out, len, &wk, NULL), 0);
	cr_assert_eq(wk.err, -SY_E_BAD_RECORD);
	cr_assert(strstr(wk.diag.msg, "never compresses"), "%s", wk.diag.msg);
	sy_pw_free(w);
}

Test(perf_reader, compressed2_bad_data_size_falls_back)
{
	struct sy_pw_config cfg = { .compress = SY_REC_COMPRESSED2 };
	struct built b;
	struct walk wk;
	size_t i;
	uint64_t off;

	build(&b, &cfg);
	walk_mem(b.data, b.len, &wk, NULL);
	i = find_type(&wk, SY_REC_COMPRESSED2, 0);
	off = wk.offsets[i];
	uint16_t size = sy_le16(b.data + off + 6);
	/* the 6.16 writer bug: a data_size the record cannot hold.  The
	 * reader falls back to the record size, warns, and either decodes or
	 * stops with an error at or after this record: never a crash */
	sy_put64(b.data + off + 8, (uint64_t)size);
	cr_assert_eq(walk_mem(b.data, b.len, &wk, NULL), 0);
	cr_assert_geq(wk.damage, 1);
	if (wk.err != -SY_E_EOS) {
		cr_assert(wk.diag.has_offset);
		cr_assert_geq(wk.diag.offset, off);
	}
	free(b.data);
}

Test(perf_reader, attr_sizes_and_simpleperf_index)
{
	struct sy_pw_config cfgs[] = {
		{ .attr_size = SY_ATTR_SIZE_VER0 },
		{ .attr_size = SY_ATTR_SIZE_VER5 },
		{ .attr_size = 160 }, /* larger than any attr we know */
		{ .auxtrace_index = SY_PW_INDEX_SIMPLEPERF },
	};

	for (size_t c = 0; c < SY_ARRAY_SIZE(cfgs); c++) {
		struct built b;
		struct sy_perf_reader *r;
		struct walk wk;

		build(&b, &cfgs[c]);
		cr_assert_eq(walk_mem(b.data, b.len, &wk, NULL), 0);
		cr_assert_eq(wk.err, -SY_E_EOS, "cfg %zu: %s", c, wk.diag.msg);
		cr_assert_eq(wk.damage, 0, "cfg %zu", c);
		cr_assert_eq(wk.nr, b.nr);
		cr_assert_eq(sy_perf_open_mem(&r, b.data, b.len, "t", NULL), 0);
		const struct sy_perf_attr *a = sy_perf_attr(r, 0);
		if (cfgs[c].attr_size && cfgs[c].attr_size < 120)
			cr_assert_eq(a->aux_action, 0, "beyond attr.size");
		else
			cr_assert_eq(a->aux_action, SY_AUX_ACTION_START_PAUSED);
		if (cfgs[c].auxtrace_index == SY_PW_INDEX_SIMPLEPERF) {
			cr_assert(sy_perf_features(r)->auxtrace_index_no_count);
			cr_assert_eq(sy_perf_features(r)->nr_auxtrace_index, 4);
		}
		sy_perf_close(r);
		free(b.data);
	}
}

Test(perf_reader, unfinished_recording_reads_to_eof)
{
	struct built b;
	struct walk wk;

	build(&b, NULL);
	sy_put64(b.data + 48, 0); /* data.size = 0 */
	cr_assert_eq(walk_mem(b.data, b.len, &wk, NULL), 0);
	/* the feature section now looks like records: the walk must stop on
	 * it with an error, not run wild */
	cr_assert_geq(wk.nr, b.nr);
	cr_assert(wk.err == -SY_E_EOS || wk.diag.has_offset);
	free(b.data);
}

Test(perf_reader, real_captures_walk_cleanly)
{
	static const char *const files[] = {
		"fixtures/real/simpleperf-etm/orig/perf_etm.data",
		"fixtures/real/simpleperf-etm/orig/perf_with_unformatted_trace.data",
		"fixtures/real/simpleperf-etm/orig/perf_with_missing_aux_data.data",
		"fixtures/real/quipper-intel-pt/perf.data.intel_pt-4.14",
		"fixtures/real/quipper-intel-pt/perf.data.piped.intel_pt-4.14",
	};

	for (size_t i = 0; i < SY_ARRAY_SIZE(files); i++) {
		const char *p = sy_test_shared_path(files[i]);
		struct sy_perf_reader *r;
		struct sy_record rec;
		struct sy_diag d = { 0 };
		int err, samples = 0;

		sy_test_require_path(p);
		cr_assert_eq(sy_perf_open(&r, p, &d), 0, "%s: %s", p, d.msg);
		while ((err = sy_perf_next(r, &rec)) == 0) {
			struct sy_event ev;

			if (rec.type == SY_REC_SAMPLE) {
				struct sy_sample s;
				cr_assert_not_null(rec.attr);
				cr_assert_eq(sy_sample_parse(rec.attr, rec.data,
							     rec.size, &s, &d,
							     rec.offset),
					     0, "%s", d.msg);
				samples++;
			} else {
				cr_assert_eq(sy_event_parse(&rec, &ev, &d), 0,
					     "%s: %s", p, d.msg);
			}
		}
		cr_assert_eq(err, -SY_E_EOS, "%s: %s", p, sy_perf_diag(r)->msg);
		cr_assert_eq(sy_perf_nr_damage(r), 0, "%s", p);
		cr_assert_eq(sy_perf_stats(r)->nr_unknown_id, 0);
		if (strstr(p, "intel_pt"))
			cr_assert_gt(samples, 0);
		sy_perf_close(r);
	}
}

/* A recording larger than a skimmed read (sy_perf_skim fetches 256 KB at
 * a time): deep callchains, and AUXTRACE payloads smaller and larger than
 * a read, so that records straddle every kind of refill. */
static void build_big(struct built *b, const struct sy_pw_config *cfg)
{
	static uint64_t chain[128];
	static uint8_t payload[300 << 10];
	struct sy_perf_attr a0, a1;
	struct sy_pw *w;
	struct sy_sample s;

	memset(b, 0, sizeof(*b));
	w = writer(cfg, &a0, &a1);
	for (size_t k = 0; k < sizeof(payload); k++)
		payload[k] = (uint8_t)(k * 13 + k / 251);
	for (int i = 0; i < 3000; i++) {
		pause_sample(&s, i, chain, 128);
		/* 16..1000 bytes of callchain */
		s.callchain_nr = 2 + (uint64_t)(i * 37 % 125);
		cr_assert_eq(sy_pw_sample(w, &a1, SY_MISC_USER, &s), 0);
		if (i % 500 == 250) {
			struct sy_pw_auxtrace at = { 0 };
			/* 1 byte to 300 KB */
			size_t n = i == 250 ? 1 : (size_t)i * 97 % sizeof(payload);

			at.offset = (uint64_t)i * 1000;
			at.cpu = 1;
			at.idx = 1;
			cr_assert_eq(sy_pw_auxtrace(w, &at, payload + i % 7, n),
				     0);
		}
	}
	written(b, w);
}

/* Walks the file @path, skimmed or through the mapping, into a digest of
 * every record (its place, size and bytes, its payload's place) and the
 * walk's end. */
struct skim_walk {
	int err;
	struct sy_diag diag;
	size_t nr;
	uint64_t sum;		/* FNV-1a of what each record gave */
};

static void skim_mix(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 0x100000001b3ull;
}

static void skim_walk(const char *path, int skim, struct skim_walk *sw)
{
	struct sy_perf_reader *r;
	struct sy_record rec;
	struct sy_diag d = { 0 };

	memset(sw, 0, sizeof(*sw));
	sw->sum = 0xcbf29ce484222325ull;
	cr_assert_eq(sy_perf_open(&r, path, &d), 0, "%s: %s", path, d.msg);
	if (skim)
		cr_assert_eq(sy_perf_skim(r, 1), 0);
	while ((sw->err = sy_perf_next(r, &rec)) == 0) {
		uint64_t f[5] = { rec.type, rec.offset, rec.size,
				  rec.aux_size, rec.aux_file_offset };

		skim_mix(&sw->sum, f, sizeof(f));
		skim_mix(&sw->sum, rec.data, rec.size);
		if (rec.aux_size) {
			/* the payload is the mapping's, read or not */
			cr_assert_eq(rec.aux, sy_perf_bytes(r, rec.aux_file_offset,
							    rec.aux_size));
			skim_mix(&sw->sum, rec.aux, rec.aux_size);
		}
		sw->nr++;
	}
	sw->diag = *sy_perf_diag(r);
	sy_perf_close(r);
}

/* A skimmed walk gives every record as the mapped one does, the same
 * damage at the same offset, whatever the layout and wherever the file
 * ends. */
Test(perf_reader, skimmed_file_reads_as_mapped)
{
	static const struct sy_pw_config cfgs[] = {
		{ 0 },
		{ .pipe = 1 },
		{ .compress = SY_REC_COMPRESSED2, .comp_batch = 5000 },
	};
	const char *dir = sy_test_mkdtemp();
	char path[4096];

	snprintf(path, sizeof(path), "%s/t.data", dir);
	for (size_t c = 0; c < SY_ARRAY_SIZE(cfgs); c++) {
		struct built b;
		/* the whole file, then cut around the first refills and at
		 * a spread of other places */
		size_t cuts[64], nc = 0;

		build_big(&b, &cfgs[c]);
		cr_assert_gt(b.len, (size_t)4 * (256 << 10), "%zu bytes: bigger than many reads", b.len);
		cuts[nc++] = b.len;
		for (size_t k = 1; k <= 3; k++)
			for (int d = -9; d <= 9; d += 3)
				cuts[nc++] = k * (256 << 10) + (size_t)d;
		while (nc < SY_ARRAY_SIZE(cuts))
			cuts[nc] = b.len / 41 * nc + nc * 7, nc++;
		for (size_t i = 0; i < nc; i++) {
			struct skim_walk m, s;
			size_t n = cuts[i] < b.len ? cuts[i] : b.len;

			cr_assert_eq(sy_test_write_file(path, b.data, n), 0);
			skim_walk(path, 0, &m);
			skim_walk(path, 1, &s);
			cr_assert_eq(s.nr, m.nr, "cfg %zu cut %zu", c, n);
			cr_assert_eq(s.sum, m.sum, "cfg %zu cut %zu", c, n);
			cr_assert_eq(s.err, m.err, "cfg %zu cut %zu", c, n);
			cr_assert_eq(s.diag.offset, m.diag.offset);
			cr_assert_str_eq(s.diag.msg, m.diag.msg);
			if (n == b.len)
				cr_assert_eq(m.err, -SY_E_EOS, "%s", m.diag.msg);
			else
				cr_assert_neq(m.err, -SY_E_EOS,
					      "cfg %zu cut %zu", c, n);
		}
		free(b.data);
	}
	sy_test_rmtree(dir);
}

/* Only a mapped file of the reader's own can be skimmed. */
Test(perf_reader, skim_needs_a_mapped_file)
{
	struct built b;
	struct sy_perf_reader *r;

	build(&b, NULL);
	cr_assert_eq(sy_perf_open_mem(&r, b.data, b.len, "t", NULL), 0);
	cr_assert_eq(sy_perf_skim(r, 1), -SY_E_INVALID);
	sy_perf_close(r);
	cr_assert_eq(sy_perf_skim(NULL, 1), -SY_E_INVALID);
	free(b.data);
}

/* sy_perf_read_at copies the mapped file's bytes, wherever they lie (each
 * AUXTRACE payload, pieces of it, across page and refill boundaries), and
 * refuses what is not in the mapping; a memory reader copies from its
 * buffer. */
Test(perf_reader, read_at_gives_the_mapped_bytes)
{
	const char *dir = sy_test_mkdtemp();
	char path[4096];
	struct sy_perf_reader *r, *mr;
	struct sy_record rec;
	struct sy_diag d = { 0 };
	struct built b;
	uint8_t *buf;
	size_t nr_aux = 0;
	int err;

	snprintf(path, sizeof(path), "%s/t.data", dir);
	build_big(&b, NULL);
	cr_assert_eq(sy_test_write_file(path, b.data, b.len), 0);
	cr_assert_eq(sy_perf_open(&r, path, &d), 0, "%s", d.msg);
	cr_assert_eq(sy_perf_open_mem(&mr, b.data, b.len, "t", NULL), 0);
	buf = malloc(b.len + 1);
	cr_assert_not_null(buf);
	while ((err = sy_perf_next(r, &rec)) == 0) {
		uint64_t off = rec.aux_file_offset, n = rec.aux_size;
		const uint8_t *m = sy_perf_bytes(mr, off, n);

		if (!n)
			continue;
		nr_aux++;
		cr_assert_not_null(m);
		/* the payload, and a piece starting an odd way in */
		memset(buf, 0xa5, n);
		cr_assert_eq(sy_perf_read_at(r, rec.aux, (size_t)n, buf), 0);
		cr_assert_eq(memcmp(buf, b.data + off, (size_t)n), 0,
			     "payload at %" PRIu64, off);
		if (n > 4099) {
			memset(buf, 0x5a, n);
			cr_assert_eq(sy_perf_read_at(r, rec.aux + 4093, 6,
						     buf), 0);
			cr_assert_eq(memcmp(buf, b.data + off + 4093, 6), 0);
		}
		memset(buf, 0xa5, n);
		cr_assert_eq(sy_perf_read_at(mr, m, (size_t)n, buf), 0);
		cr_assert_eq(memcmp(buf, b.data + off, (size_t)n), 0);
	}
	cr_assert_eq(err, -SY_E_EOS, "%s", sy_perf_diag(r)->msg);
	cr_assert_geq(nr_aux, 5);
	/* the whole file at once, and its last byte */
	cr_assert_eq(sy_perf_read_at(r, sy_perf_bytes(r, 0, b.len), b.len,
				     buf), 0);
	cr_assert_eq(memcmp(buf, b.data, b.len), 0);
	cr_assert_eq(sy_perf_read_at(r, sy_perf_bytes(r, b.len - 1, 1), 1,
				     buf), 0);
	cr_assert_eq(buf[0], b.data[b.len - 1]);
	/* past the end, before the start, another buffer */
	cr_assert_eq(sy_perf_read_at(r, sy_perf_bytes(r, b.len - 1, 1), 2,
				     buf), -SY_E_INVALID);
	cr_assert_eq(sy_perf_read_at(r, sy_perf_bytes(r, 0, 1) - 1, 1, buf),
		     -SY_E_INVALID);
	cr_assert_eq(sy_perf_read_at(r, b.data, 1, buf), -SY_E_INVALID);
	cr_assert_eq(sy_perf_read_at(NULL, b.data, 1, buf), -SY_E_INVALID);
	cr_assert_eq(sy_perf_read_at(r, NULL, 0, buf), -SY_E_INVALID);
	sy_perf_close(r);
	sy_perf_close(mr);
	free(buf);
	free(b.data);
	sy_test_rmtree(dir);
}
