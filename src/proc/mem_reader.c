/* The decoders' code reader: sy_read_mem_fn over a process snapshot.
 *
 * Every read goes through the snapshot (the context's address space, then
 * the kernel's: trie, then binary search over the mappings) and copies
 * across mappings and segments.  It caches no code: the decoders keep the
 * one code-byte cache (src/decode/code_cache.c) in front of it, so a read
 * here is one of their page misses, a 4 KiB page at a time.  It also
 * notes, once per window, every binary the window needed and did not have,
 * so the missing ones can be reported with what they cost.
 */
#include <stdlib.h>
#include <string.h>

#include "image_impl.h"
#include "sy_mem_reader.h"

struct sy_mem_reader {
	struct sy_image_cache *cache;
	struct sy_proc_snap *snap;
	int have_id;		/* @id and @as are valid */
	uint32_t id;
	const struct sy_aspace *as;
	const char **missing;	/* interned paths, this window */
	size_t nr_missing, cap_missing;
	struct sy_mem_stats st;
};

int sy_mem_reader_new(struct sy_mem_reader **out,
		      struct sy_image_cache *cache)
{
	if (!out)
		return -SY_E_INVALID;
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -SY_E_NOMEM;
	(*out)->cache = cache;
	return 0;
}

void sy_mem_reader_free(struct sy_mem_reader *rd)
{
	if (!rd)
		return;
	sy_mem_reader_end(rd);
	free(rd->missing);
	free(rd);
}

static void sy_forget(struct sy_mem_reader *rd)
{
	rd->have_id = 0;
	rd->as = NULL;
}

void sy_mem_reader_begin(struct sy_mem_reader *rd, struct sy_proc_snap *snap)
{
	sy_mem_reader_end(rd);
	rd->snap = sy_proc_snap_get(snap);
}

void sy_mem_reader_switch(struct sy_mem_reader *rd, struct sy_proc_snap *snap)
{
	sy_proc_snap_get(snap);
	sy_proc_snap_put(rd->snap);
	rd->snap = snap;
	sy_forget(rd);
}

void sy_mem_reader_end(struct sy_mem_reader *rd)
{
	for (size_t i = 0; i < rd->nr_missing; i++)
		if (rd->cache)
			sy_image_cache_charge(rd->cache, rd->missing[i]);
	rd->nr_missing = 0;
	sy_proc_snap_put(rd->snap);
	rd->snap = NULL;
	sy_forget(rd);
}

static void sy_note_missing(struct sy_mem_reader *rd, const char *path)
{
	/* pointer equality: paths are interned */
	for (size_t i = 0; i < rd->nr_missing; i++)
		if (rd->missing[i] == path)
			return;
	if (rd->nr_missing == rd->cap_missing) {
		size_t cap = rd->cap_missing ? rd->cap_missing * 2 : 8;
		const char **v = realloc(rd->missing, cap * sizeof(*v));

		if (!v)
			return;	/* the charge is lost, the read is not */
		rd->missing = v;
		rd->cap_missing = cap;
	}
	rd->missing[rd->nr_missing++] = path;
}

size_t sy_mem_read(void *ctx, uint32_t ctxid, uint64_t addr, uint8_t *buf,
		   size_t len)
{
	struct sy_mem_reader *rd = ctx;
	const struct sy_aspace *kernel;
	size_t done = 0;

	rd->st.reads++;
	if (!rd->snap)
		return 0;
	if (!rd->have_id || rd->id != ctxid) {
		sy_forget(rd);
		rd->id = ctxid;
		rd->as = sy_proc_snap_aspace(rd->snap, ctxid);
		rd->have_id = 1;
	}
	kernel = sy_proc_snap_kernel(rd->snap);
	if (!rd->as)
		rd->st.unknown_ctx++;
	while (done < len) {
		const struct sy_map *m = sy_aspace_find(rd->as, addr);
		const uint8_t *base;
		uint64_t lo, hi;
		size_t n;

		if (!m)
			m = sy_aspace_find(kernel, addr);
		if (!m) {
			if (!done)
				rd->st.unmapped++;
			break;
		}
		base = sy_map_piece(m, addr, &lo, &hi);
		if (!base) {
			/* a read that ran into it needed it too */
			if ((m->flags & SY_MAP_CODE) && !m->img) {
				rd->st.missing++;
				sy_note_missing(rd, m->path);
			} else if (!done) {
				rd->st.not_code++;
			}
			break;
		}
		n = hi - addr < len - done ? (size_t)(hi - addr) : len - done;
		memcpy(buf + done, base + (addr - lo), n);
		done += n;
		addr += n;
	}
	rd->st.bytes += done;
	return done;
}

const struct sy_mem_stats *sy_mem_reader_stats(const struct sy_mem_reader *rd)
{
	return &rd->st;
}
