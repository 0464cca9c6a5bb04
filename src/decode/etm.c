/* ETMv4 / ETE window decoder on the OpenCSD 1.3.3 C API.
 *
 * One decode tree per decoder object, built once in init: raw data (TRBE,
 * or a sink in CORESIGHT_FORMAT_RAW mode) is one source
 * (OCSD_TRC_SRC_SINGLE); formatted data (ETR / ETF / ETB: 16-byte frames
 * interleaving several trace IDs) goes through the frame deformatter with
 * OCSD_DFRMTR_FRAME_MEM_ALIGN (perf copies whole frames) and
 * OCSD_DFRMTR_RESET_ON_4X_FSYNC (perf's sinks may put a 4 x FSYNC barrier
 * at the start of a buffer).  Every window starts with OCSD_OP_RESET: the
 * tree forgets sync, addresses and speculation, and OpenCSD empties its
 * memory-access cache, so nothing carries over.
 *
 * OpenCSD pushes elements into a callback; the project's interface pulls.
 * As in perf's cs-etm-decoder, the callback converts elements into items
 * (etm_conv.c) in a ring and answers OCSD_RESP_WAIT once the ring holds
 * `soft` items; next() pops items, and when the ring is empty sends
 * OCSD_OP_FLUSH after a WAIT (OpenCSD keeps the unsent elements and the
 * unprocessed bytes), else the next bytes with OCSD_OP_DATA, and at the
 * end OCSD_OP_EOT.  The callback never refuses an element: if OpenCSD
 * keeps calling after a WAIT (several trace IDs at EOT), the ring grows.
 *
 * Decoder configuration: ETMv4 sources get OCSD_BUILTIN_DCD_ETMV4I, ETE
 * sources OCSD_BUILTIN_DCD_ETE, with the ID registers of AUXTRACE_INFO,
 * profile Cortex-A and always ARCH_AA64.  perf chooses ARCH_V8 when
 * TRCIDR1.TRCARCHMIN < 4 (ETMv4.0-4.3, e.g. Juno's 0x4100F400), but
 * OpenCSD's ARCH_V8 treats the PAuth returns and branches (RETAA, BRAA,
 * BLRAA, ...) as ordinary instructions and silently decodes a wrong path;
 * ARCH_AA64 decodes every v8.0 encoding the same way and adds those, which
 * are UNDEFINED on cores that lack them.  So TRCARCHMIN is ignored.  The
 * CoreSight ID is sources[].trace_id when set (perf takes it from
 * PERF_RECORD_AUX_OUTPUT_HW_ID), else TRCTRACEIDR & 0x7f.  With a
 * params.trace_id only that source's decoder is created: the deformatter
 * drops the other IDs' bytes before any decoding (perf would decode them
 * all and throw the results away).
 *
 * Code is read through ocsd_dt_add_callback_trcid_mem_acc over all of the
 * address space but its last page (ETM_MEM_TOP): the trace ID tells which
 * source (hence which context ID) asks.  OpenCSD sends a PE_CONTEXT
 * element before it reads the code that follows it, so the callback sees
 * the new context in time.  A cache of 4 KiB pages (etm_mem.c) sits in
 * front of read_mem.
 *
 * Bad trace never stops the window.  Bad packets and unreadable code come
 * from OpenCSD as elements (etm_conv.c).  A fatal datapath response
 * becomes ERROR(OCSD_ERR_DATA_DECODE_FATAL), then the tree is reset and
 * fed on after the failing byte (raw) or frame; packets OpenCSD 1.3.3
 * would crash on are kept from it the same way (etm_guard.c).  A reset
 * tree has forgotten which trace ID the frames carry (they name it only
 * when it changes), so a made-up frame names it again (restart_trees).
 *
 * One decoder per thread.  The only global state is a lock around tree
 * construction and destruction, because OpenCSD's own is unlocked
 * (etm_ocsd_lock).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "etm_impl.h"

/* TRCCONFIGR bits perf synthesises from attr.config (perf-data.md 4.1). */
#define TRCCONFIGR_VMID (1u << 7)
#define TRCCONFIGR_VMIDOPT (1u << 15)

/* Bytes per OCSD_OP_DATA call.  OpenCSD takes 32-bit sizes, but the
 * guard (etm_guard.c) scans each span before the main tree sees it and
 * rescans from a cut, so a span bounds the work a corrupt packet costs. */
#define ETM_FEED_MAX (16u << 10)

/* The memory callback covers the address space except its last page.
 * OpenCSD 1.3.3's memory-access cache tests `addr + size <= page end`
 * without overflow: an address packet of 0xffff...fffc (corrupt trace)
 * hits a cached page and memcpy()s from far outside it (found by
 * tests/fuzz/fuzz_etm_decode.c, reproduced with the C API alone).  Outside
 * every accessor the address is simply not accessible (ADDR_NACC); no code
 * lives in the top page. */
#define ETM_MEM_TOP (UINT64_MAX - 0x1000)

/* ---- item ring ---- */

static size_t ring_count(const struct etm *e)
{
	return e->head - e->tail;
}

static int ring_grow(struct etm *e)
{
	size_t ncap = e->cap ? 2 * e->cap : 64;
	struct sy_dec_item *n = malloc(ncap * sizeof(*n));

	if (!n)
		return -SY_E_NOMEM;
	/* Linearise: items tail..head move to 0..count. */
	for (size_t i = 0; i < ring_count(e); i++)
		n[i] = e->ring[(e->tail + i) & (e->cap - 1)];
	e->head = ring_count(e);
	e->tail = 0;
	free(e->ring);
	e->ring = n;
	e->cap = ncap;
	return 0;
}

void etm_ring_push(struct etm *e, const struct sy_dec_item *it)
{
	if (e->fatal)
		return;
	if (ring_count(e) == e->cap) {
		if (ring_grow(e) < 0) {
			e->fatal = -SY_E_NOMEM;
			return;
		}
		e->dbg.ring_grows++;
	}
	e->ring[e->head++ & (e->cap - 1)] = *it;
}

static int ring_pop(struct etm *e, struct sy_dec_item *it)
{
	if (e->head == e->tail)
		return 0;
	*it = e->ring[e->tail++ & (e->cap - 1)];
	return 1;
}

/* ---- OpenCSD callbacks ---- */

static struct etm_src *src_of(struct etm *e, uint8_t id)
{
	unsigned k = id < ETM_NR_IDS ? e->slot[id] : 0;

	return k ? &e->src[k - 1] : NULL;
}

size_t etm_read_code(struct etm *e, const struct etm_src *s, uint64_t addr,
		     uint8_t *buf, size_t len)
{
	uint32_t ctxid = s && s->have_ctx ? s->ctxid : e->d->ctxid;
	size_t got;

	if (e->use_cache)
		return sy_etm_mcache_read(&e->mc, ctxid, addr, buf, len);
	e->mc.calls++;
	got = e->d->params.read_mem(e->d->params.mem_ctx, ctxid, addr, buf,
				    len);
	return got > len ? len : got;
}

static uint32_t mem_cb(const void *ctx, const ocsd_vaddr_t addr,
		       const ocsd_mem_space_acc_t space, const uint8_t id,
		       const uint32_t req, uint8_t *buf)
{
	struct etm *e = (struct etm *)(uintptr_t)ctx;

	(void)space;
	e->dbg.mem_reqs++;
	return (uint32_t)etm_read_code(e, src_of(e, id), addr, buf, req);
}

/* OpenCSD indexes are 32-bit: rebuild the 64-bit window offset from the
 * position being fed (elements lie within 2 GiB of it; we feed at most
 * ETM_FEED_MAX per call). */
static uint64_t offset_of(const struct etm *e, ocsd_trc_index_t idx)
{
	int32_t delta = (int32_t)(uint32_t)((uint32_t)idx - (uint32_t)e->pos);

	if (delta < 0 && (uint64_t)-(int64_t)delta > e->pos)
		return 0;
	return e->pos + (uint64_t)(int64_t)delta;
}

static ocsd_datapath_resp_t elem_cb(const void *ctx,
				    const ocsd_trc_index_t idx,
				    const uint8_t id,
				    const ocsd_generic_trace_elem *el)
{
	struct etm *e = (struct etm *)(uintptr_t)ctx;
	struct etm_src *s = src_of(e, id);

	if (s)
		etm_conv_elem(e, s, offset_of(e, idx), el);
	if (e->fatal)
		return OCSD_RESP_FATAL_SYS_ERR;
	if (ring_count(e) >= e->soft) {
		e->dbg.waits++;
		return OCSD_RESP_WAIT;
	}
	return OCSD_RESP_CONT;
}

/* ---- tree construction ---- */

static uint8_t source_id(const struct sy_etm_source *s)
{
	return s->trace_id ? s->trace_id : (uint8_t)(s->trctraceidr & 0x7f);
}

static int add_decoder(struct etm *e, const struct sy_etm_source *s)
{
	unsigned char csid = 0;
	ocsd_err_t err;

	if (s->ete) {
		ocsd_ete_cfg c;

		memset(&c, 0, sizeof(c));
		c.reg_idr0 = s->trcidr0;
		c.reg_idr1 = s->trcidr1;
		c.reg_idr2 = s->trcidr2;
		c.reg_idr8 = s->trcidr8;
		c.reg_devarch = s->trcdevarch;
		c.reg_configr = s->trcconfigr;
		c.reg_traceidr = source_id(s);
		c.arch_ver = ARCH_AA64;
		c.core_prof = profile_CortexA;
		err = ocsd_dt_create_decoder(e->dt, OCSD_BUILTIN_DCD_ETE,
					     OCSD_CREATE_FLG_FULL_DECODER, &c,
					     &csid);
	} else {
		ocsd_etmv4_cfg c;

		memset(&c, 0, sizeof(c));
		c.reg_idr0 = s->trcidr0;
		c.reg_idr1 = s->trcidr1;
		c.reg_idr2 = s->trcidr2;
		c.reg_idr8 = s->trcidr8;
		c.reg_configr = s->trcconfigr;
		c.reg_traceidr = source_id(s);
		c.arch_ver = ARCH_AA64;
		c.core_prof = profile_CortexA;
		err = ocsd_dt_create_decoder(e->dt, OCSD_BUILTIN_DCD_ETMV4I,
					     OCSD_CREATE_FLG_FULL_DECODER, &c,
					     &csid);
	}
	if (err != OCSD_OK || csid >= ETM_NR_IDS || e->slot[csid])
		return -SY_E_DECODE;
	e->src[e->nsrc].id = csid;
	/* contextid2: a kernel at EL2 keeps the pid in CONTEXTIDR_EL2, which
	 * the trace unit reports as the VMID. */
	e->src[e->nsrc].pid_vmid =
		(s->trcconfigr & (TRCCONFIGR_VMID | TRCCONFIGR_VMIDOPT)) ==
		(TRCCONFIGR_VMID | TRCCONFIGR_VMIDOPT);
	e->nsrc++;
	e->slot[csid] = (uint8_t)e->nsrc;
	return 0;
}

/* Which sources get a decoder; -SY_E_INVALID for impossible params. */
static int pick_sources(const struct sy_etm_params *p, size_t *first,
			size_t *count)
{
	size_t match = SIZE_MAX;

	if (!p->sources || p->nr_sources == 0 || p->nr_sources > ETM_NR_IDS)
		return -SY_E_INVALID;
	for (size_t i = 0; i < p->nr_sources; i++) {
		uint8_t id = source_id(&p->sources[i]);

		if (p->formatted && (id == 0 || id > 0x6f))
			return -SY_E_INVALID;
		for (size_t j = 0; p->formatted && j < i; j++)
			if (source_id(&p->sources[j]) == id)
				return -SY_E_INVALID;
		if (p->trace_id && id == p->trace_id && match == SIZE_MAX)
			match = i;
	}
	if (p->trace_id) {
		if (match == SIZE_MAX)
			return -SY_E_INVALID;
		*first = match;
		*count = 1;
	} else if (!p->formatted) {
		/* One raw stream is one trace unit. */
		if (p->nr_sources != 1)
			return -SY_E_INVALID;
		*first = 0;
		*count = 1;
	} else {
		*first = 0;
		*count = p->nr_sources;
	}
	return 0;
}

/* OpenCSD 1.3.3 keeps process-wide state its C API does not lock: the
 * list of decode trees, and the default error logger, which every
 * component of a new tree registers with and every logged error writes
 * to.  The converter's workers allocate decoders concurrently, which
 * corrupted the logger's list (tests/e2e/t_convert_real_etm.sh at -j 4;
 * ASan: use-after-free in ocsdDefaultErrorLogger::RegisterErrorSource).
 * So trees are built and destroyed under this lock, the backend's only
 * global state, and the logger is told to log nothing: errors reach us as
 * elements and datapath responses anyway, and a silent logger is not
 * written to while trees decode in parallel. */
static pthread_mutex_t etm_ocsd_lock = PTHREAD_MUTEX_INITIALIZER;

static void destroy_trees(struct etm *e)
{
	pthread_mutex_lock(&etm_ocsd_lock);
	if (e->dt != C_API_INVALID_TREE_HANDLE)
		ocsd_destroy_dcd_tree(e->dt);
	e->dt = C_API_INVALID_TREE_HANDLE;
	etm_guard_fini(e);
	pthread_mutex_unlock(&etm_ocsd_lock);
}

static void etm_fini(struct sy_decoder *d)
{
	struct etm *e = d->impl;

	if (!e)
		return;
	destroy_trees(e);
	free(e->ring);
	free(e->src);
	free(e);
	d->impl = NULL;
}

/* The main tree and the guard's, for the @n sources in @chosen. */
static int build_trees(struct etm *e, const struct sy_etm_source *const *chosen,
		       size_t n)
{
	int err = 0;

	pthread_mutex_lock(&etm_ocsd_lock);
	ocsd_def_errlog_init(OCSD_ERR_SEV_NONE, 0);
	e->dt = ocsd_create_dcd_tree(e->formatted ?
				     OCSD_TRC_SRC_FRAME_FORMATTED :
				     OCSD_TRC_SRC_SINGLE,
				     e->formatted ?
				     OCSD_DFRMTR_FRAME_MEM_ALIGN |
				     OCSD_DFRMTR_RESET_ON_4X_FSYNC : 0);
	if (e->dt == C_API_INVALID_TREE_HANDLE) {
		err = -SY_E_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if ((err = add_decoder(e, chosen[i])) < 0)
			goto out;
	if ((err = etm_guard_init(e, chosen, n)) < 0)
		goto out;
	if (ocsd_dt_add_callback_trcid_mem_acc(e->dt, 0, ETM_MEM_TOP,
					       OCSD_MEM_SPACE_ANY, mem_cb,
					       e) != OCSD_OK ||
	    ocsd_dt_set_gen_elem_outfn(e->dt, elem_cb, e) != OCSD_OK)
		err = -SY_E_DECODE;
out:
	pthread_mutex_unlock(&etm_ocsd_lock);
	return err;
}

static int etm_init(struct sy_decoder *d)
{
	const struct sy_etm_params *p = &d->params.u.etm;
	const struct sy_etm_source *chosen[ETM_NR_IDS];
	size_t first = 0, count = 0;
	struct etm *e;
	int err;

	if ((err = pick_sources(p, &first, &count)) < 0)
		return err;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -SY_E_NOMEM;
	e->dt = e->gdt = C_API_INVALID_TREE_HANDLE;
	d->impl = e;
	e->d = d;
	e->formatted = p->formatted;
	e->soft = e->soft_next = SY_ETM_RING_DEFAULT;
	e->use_cache = e->use_cache_next = 1;
	e->done = 1;
	sy_etm_mcache_init(&e->mc, d->params.read_mem, d->params.mem_ctx);
	e->src = calloc(count, sizeof(*e->src));
	if (!e->src) {
		err = -SY_E_NOMEM;
		goto fail;
	}
	for (size_t i = 0; i < count; i++)
		chosen[i] = &p->sources[first + i];
	if ((err = build_trees(e, chosen, count)) < 0 ||
	    (err = ring_grow(e)) < 0)
		goto fail;
	return 0;
fail:
	etm_fini(d);
	return err;
}

/* ---- the pull loop ---- */

static int etm_reset(struct sy_decoder *d, const struct sy_dec_chunk *chunks,
		     size_t nr_chunks, uint64_t report_from)
{
	struct etm *e = d->impl;

	/* Room for a full ring plus what one element can add (a BRANCH, the
	 * held-back items, a STOP): growing later is only for OpenCSD
	 * ignoring a WAIT. */
	e->head = e->tail = 0;
	e->done = 1;
	e->soft = e->soft_next;
	while (e->cap < e->soft + ETM_DEFER_MAX + 8)
		if (ring_grow(e) < 0)
			return -SY_E_NOMEM;
	ocsd_dt_process_data(e->dt, OCSD_OP_RESET, 0, 0, NULL, NULL);
	e->chunks = chunks;
	e->nchunks = nr_chunks;
	e->ci = 0;
	e->coff = 0;
	e->pos = 0;
	e->report_from = report_from;
	e->stage_len = e->stage_used = 0;
	e->need_flush = 0;
	e->stalls = 0;
	e->eot_sent = 0;
	e->done = 0;
	e->fatal = 0;
	e->head = e->tail = 0;
	e->use_cache = e->use_cache_next;
	memset(&e->dbg, 0, sizeof(e->dbg));
	sy_etm_mcache_clear(&e->mc);
	for (size_t i = 0; i < e->nsrc; i++)
		etm_src_reset(&e->src[i]);
	etm_guard_reset(e, 0);
	return 0;
}

static void chunk_advance(struct etm *e, size_t n)
{
	e->coff += n;
	while (e->ci < e->nchunks && e->coff == e->chunks[e->ci].len) {
		e->ci++;
		e->coff = 0;
	}
}

/* Moves past the data that made the tree fail: at least one byte so the
 * loop goes on, for frames to the next frame boundary (frames are aligned
 * to the start of the window).  The decoders resynchronise at the next
 * A-Sync. */
static void skip_after_fatal(struct etm *e)
{
	uint64_t to = e->pos + 1;

	if (e->stage_len) {
		/* The staged frame's bytes are already off the chunks. */
		e->pos += e->stage_len - e->stage_used;
		e->stage_len = e->stage_used = 0;
		return;
	}
	if (e->formatted)
		to = (to + OCSD_DFRMTR_FRAME_SIZE - 1) &
		     ~(uint64_t)(OCSD_DFRMTR_FRAME_SIZE - 1);
	while (e->pos < to && e->ci < e->nchunks) {
		size_t left = e->chunks[e->ci].len - e->coff;
		size_t n = to - e->pos < left ? (size_t)(to - e->pos) : left;

		chunk_advance(e, n);
		e->pos += n;
	}
}

/* The trace ID current at window offset @pos (a frame boundary), -1 when
 * no frame named one yet.  Frames name their source only when it
 * changes, and a tree reset forgets it. */
static int frame_id_at(const struct etm *e, uint64_t pos)
{
	uint8_t f[OCSD_DFRMTR_FRAME_SIZE];
	unsigned have = 0;
	uint64_t at = 0;
	int id = -1;

	for (size_t c = 0; c < e->nchunks && at < pos; c++) {
		const uint8_t *d = e->chunks[c].data;

		for (size_t i = 0; i < e->chunks[c].len && at < pos; i++, at++) {
			f[have++] = d[i];
			if (have < OCSD_DFRMTR_FRAME_SIZE)
				continue;
			/* even bytes with bit 0 set are ID changes */
			for (unsigned k = 0; k < OCSD_DFRMTR_FRAME_SIZE - 1; k += 2)
				if (f[k] & 1)
					id = f[k] >> 1;
			have = 0;
		}
	}
	return id;
}

/* Both trees restart at e->pos, after skipping the bytes there when
 * @skip.  With frames, a made-up frame then names the trace ID current at
 * that point: bytes 0-13 for the null ID 0 (dropped by the deformatter),
 * byte 14 the ID.  It takes the index of the frame before e->pos (the one
 * skipped), so the real frames stay contiguous. */
static void restart_trees(struct etm *e, int skip)
{
	uint8_t f[OCSD_DFRMTR_FRAME_SIZE];
	uint32_t used;
	int id;

	ocsd_dt_process_data(e->dt, OCSD_OP_RESET, 0, 0, NULL, NULL);
	e->need_flush = 0;
	if (skip)
		skip_after_fatal(e);
	etm_guard_reset(e, e->pos);
	if (!e->formatted || e->pos < OCSD_DFRMTR_FRAME_SIZE ||
	    e->pos % OCSD_DFRMTR_FRAME_SIZE ||
	    (id = frame_id_at(e, e->pos)) < 0)
		return;
	memset(f, 0, sizeof(f));
	for (unsigned k = 0; k < OCSD_DFRMTR_FRAME_SIZE - 2; k += 2)
		f[k] = 0x01;
	f[OCSD_DFRMTR_FRAME_SIZE - 2] = (uint8_t)(id << 1 | 1);
	ocsd_dt_process_data(e->dt, OCSD_OP_DATA,
			     (ocsd_trc_index_t)(e->pos - OCSD_DFRMTR_FRAME_SIZE),
			     sizeof(f), f, &used);
	etm_guard_scan(e, f, sizeof(f), e->pos - OCSD_DFRMTR_FRAME_SIZE);
}

/* Acts on a datapath response; @progress says whether the call consumed
 * bytes or produced items. */
static void handle_resp(struct etm *e, ocsd_datapath_resp_t r, int in_data,
			int progress)
{
	if (OCSD_DATA_RESP_IS_FATAL(r)) {
		/* The tree stays unusable until reset.  Report, reset, and
		 * go on after the bad bytes. */
		e->dbg.fatal++;
		etm_conv_fatal(e, e->pos, OCSD_ERR_DATA_DECODE_FATAL);
		restart_trees(e, in_data);
		return;
	}
	if (OCSD_DATA_RESP_IS_WAIT(r)) {
		/* A WAIT we did not cause, or repeated ones that yield
		 * nothing, must not spin forever. */
		e->stalls = progress ? 0 : e->stalls + 1;
		e->need_flush = e->stalls < 4;
		return;
	}
	e->need_flush = 0;
	e->stalls = 0;
}

/* Gathers the next frame of formatted data into e->stage when it does not
 * lie whole in one chunk.  A partial frame at the very end of the window
 * cannot be decoded and is skipped. */
static void stage_frame(struct etm *e)
{
	unsigned want = OCSD_DFRMTR_FRAME_SIZE -
			(unsigned)(e->pos % OCSD_DFRMTR_FRAME_SIZE);

	e->stage_len = e->stage_used = 0;
	while (e->stage_len < want && e->ci < e->nchunks) {
		size_t left = e->chunks[e->ci].len - e->coff;
		size_t n = want - e->stage_len < left ? want - e->stage_len
						      : left;

		memcpy(e->stage + e->stage_len, e->chunks[e->ci].data + e->coff,
		       n);
		e->stage_len += (unsigned)n;
		chunk_advance(e, n);
	}
	if (e->stage_len < want) {
		e->pos += e->stage_len;
		e->stage_len = 0;
	}
}

/* Hands OpenCSD the next bytes: the staged frame, or as much of the
 * current chunk as it takes (whole frames for formatted data). */
static void feed(struct etm *e)
{
	size_t before = e->head;
	const uint8_t *p;
	uint32_t n, used = 0;
	ocsd_datapath_resp_t r;
	int staged = e->stage_len != 0;

	if (staged) {
		p = e->stage + e->stage_used;
		n = e->stage_len - e->stage_used;
	} else {
		size_t left = e->chunks[e->ci].len - e->coff;

		p = e->chunks[e->ci].data + e->coff;
		n = left > ETM_FEED_MAX ? ETM_FEED_MAX : (uint32_t)left;
		if (e->formatted) {
			if (e->pos % OCSD_DFRMTR_FRAME_SIZE ||
			    n < OCSD_DFRMTR_FRAME_SIZE) {
				stage_frame(e);
				return;
			}
			n &= ~(uint32_t)(OCSD_DFRMTR_FRAME_SIZE - 1);
		}
	}
	/* The guard reads the bytes first (etm_guard.c). */
	if (e->guard_pos < e->pos + n) {
		uint64_t seen = e->guard_pos - e->pos;

		etm_guard_scan(e, p + seen, (uint32_t)(n - seen), e->guard_pos);
	}
	if (e->ncut) {
		uint64_t cut = e->cut[0];

		if (e->formatted)
			cut &= ~(uint64_t)(OCSD_DFRMTR_FRAME_SIZE - 1);
		if (cut <= e->pos) {
			/* Everything before the packet is decoded and its
			 * elements delivered: drop the packet (or its frame)
			 * and resynchronise both trees after it. */
			e->dbg.cuts++;
			etm_conv_cut(e, e->cut_id[0], e->cut[0],
				     OCSD_ERR_BAD_PACKET_SEQ);
			restart_trees(e, 1);
			return;
		}
		if (cut - e->pos < n)
			n = (uint32_t)(cut - e->pos);
	}
	e->dbg.data_calls++;
	r = ocsd_dt_process_data(e->dt, OCSD_OP_DATA, (ocsd_trc_index_t)e->pos,
				 n, p, &used);
	if (used > n)
		used = n;
	if (staged) {
		e->stage_used += used;
		if (e->stage_used == e->stage_len)
			e->stage_len = e->stage_used = 0;
	} else {
		chunk_advance(e, used);
	}
	e->pos += used;
	e->d->stats.bytes += used;
	handle_resp(e, r, 1, used || e->head != before);
	/* Nothing consumed and no wait: never spin on the same bytes. */
	if (!used && !e->need_flush && !OCSD_DATA_RESP_IS_FATAL(r))
		restart_trees(e, 1);
}

/* One call into OpenCSD, or the end of the window. */
static void pump(struct etm *e)
{
	size_t before = e->head;
	ocsd_datapath_resp_t r;

	if (e->need_flush) {
		e->dbg.flushes++;
		r = ocsd_dt_process_data(e->dt, OCSD_OP_FLUSH, 0, 0, NULL,
					 NULL);
		handle_resp(e, r, 0, e->head != before);
		return;
	}
	chunk_advance(e, 0);
	if (e->stage_len || e->ci < e->nchunks) {
		feed(e);
		return;
	}
	if (!e->eot_sent) {
		e->eot_sent = 1;
		r = ocsd_dt_process_data(e->dt, OCSD_OP_EOT, 0, 0, NULL, NULL);
		handle_resp(e, r, 0, 1);
		return;
	}
	/* Sources whose EO_TRACE never came (a failed tree) end here. */
	for (size_t i = 0; i < e->nsrc; i++)
		etm_conv_end(e, &e->src[i], e->pos);
	e->done = 1;
}

static int etm_next(struct sy_decoder *d, struct sy_dec_item *it)
{
	struct etm *e = d->impl;

	for (;;) {
		if (e->fatal)
			return e->fatal;
		if (ring_pop(e, it))
			return 0;
		if (e->done)
			return -SY_E_EOS;
		pump(e);
	}
}

const struct sy_decoder_ops sy_etm_decoder_ops = {
	.init = etm_init,
	.fini = etm_fini,
	.reset = etm_reset,
	.next = etm_next,
};

/* ---- knobs (etm.h) ---- */

static struct etm *etm_of(const struct sy_decoder *d)
{
	return d && d->ops == &sy_etm_decoder_ops ? d->impl : NULL;
}

int sy_etm_set_ring(struct sy_decoder *d, size_t items)
{
	struct etm *e = etm_of(d);

	if (!e || items == 0)
		return -SY_E_INVALID;
	e->soft_next = items;
	return 0;
}

int sy_etm_set_mem_cache(struct sy_decoder *d, int on)
{
	struct etm *e = etm_of(d);

	if (!e)
		return -SY_E_INVALID;
	e->use_cache_next = !!on;
	return 0;
}

const struct sy_etm_debug *sy_etm_debug(const struct sy_decoder *d)
{
	struct etm *e = etm_of(d);

	if (!e)
		return NULL;
	e->dbg.mem_calls = e->mc.calls;
	return &e->dbg;
}

/* ---- sync points ---- */

/* A-Sync: at least 11 zero bytes, then 0x80 (ETMv4 and ETE).  The packet
 * is the last 11 zeros and the 0x80: a longer run of zeros before it is
 * padding or the tail of something else. */
int sy_etm_find_sync(const uint8_t *data, size_t len, uint64_t offset,
		     uint64_t *sync)
{
	size_t i;

	if (len < 12)
		return -SY_E_EOS;
	/* The 0x80 of an A-Sync starting at or before @offset. */
	i = offset > len - 12 ? len - 1 : (size_t)offset + 11;
	for (;;) {
		if (data[i] == 0x80 && i >= 11) {
			size_t z = 0;

			while (z < 11 && data[i - 1 - z] == 0)
				z++;
			if (z == 11) {
				*sync = i - 11;
				return 0;
			}
		}
		if (i == 11)
			return -SY_E_EOS;
		i--;
	}
}
