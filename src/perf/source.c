/* The reader's input: a mapped file, or a stream read forward into a
 * sliding window (pipes), behind one "give me these bytes" call. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "reader_impl.h"
#include "sy_bytes.h"
#include "sy_pages.h"

/* Points *p at [off, off+len).  Returns 0, or -SY_E_TRUNCATED with *avail set
 * to the bytes that do exist, or -SY_E_IO / -SY_E_NOMEM / -SY_E_LIMIT. */
int sy_perf_src_get(struct sy_perf_reader *r, uint64_t off, uint64_t len,
		      const uint8_t **p, uint64_t *avail)
{
	if (r->map) {
		uint64_t lim = r->map_len;

		*avail = off >= lim ? 0 : (lim - off < len ? lim - off : len);
		*p = r->map + (off < lim ? off : lim);
		return *avail == len ? 0 : -SY_E_TRUNCATED;
	}

	if (off >= r->sbase && len <= r->slen && off - r->sbase <= r->slen - len) {
		*p = r->sbuf + (off - r->sbase);
		*avail = len;
		return 0;
	}
	if (off < r->sbase)
		return sy_diag_set(&r->diag, off, -SY_E_INTERNAL,
				   "stream moved backwards");
	if (len > SY_STREAM_MAX)
		return sy_diag_set(&r->diag, off, -SY_E_LIMIT,
				   "%" PRIu64 "-byte item exceeds the %llu-byte "
				   "stream limit", len, SY_STREAM_MAX);
	uint64_t drop = off - r->sbase;
	if (drop >= r->slen) {
		uint64_t skip = drop - r->slen;
		uint8_t tmp[4096];

		r->slen = 0;
		r->sbase += drop - skip;
		while (skip && !r->seof) {
			ssize_t n = read(r->fd, tmp,
					 skip < sizeof(tmp) ? skip : sizeof(tmp));
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return sy_diag_set(&r->diag, r->sbase, -SY_E_IO,
						   "read: %s", strerror(errno));
			if (n == 0)
				r->seof = 1;
			skip -= (uint64_t)n;
			r->sbase += (uint64_t)n;
		}
		if (skip) {
			*avail = 0;
			return -SY_E_TRUNCATED;
		}
	} else if (drop) {
		memmove(r->sbuf, r->sbuf + drop, r->slen - drop);
		r->slen -= drop;
		r->sbase = off;
	}
	while (r->slen < len && !r->seof) {
		if (r->slen == r->scap) {
			/* grow with the data that really arrives, so a forged
			 * size cannot make us allocate what is not there */
			size_t ncap = r->scap ? r->scap * 2 : 65536;
			if (ncap > len && len > r->scap)
				ncap = len;
			uint8_t *nb = realloc(r->sbuf, ncap);
			if (!nb)
				return -SY_E_NOMEM;
			r->sbuf = nb;
			r->scap = ncap;
		}
		ssize_t n = read(r->fd, r->sbuf + r->slen, r->scap - r->slen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sy_diag_set(&r->diag, r->sbase + r->slen,
					   -SY_E_IO, "read: %s",
					   strerror(errno));
		if (n == 0)
			r->seof = 1;
		r->slen += (size_t)n;
	}
	*p = r->sbuf;
	*avail = r->slen < len ? r->slen : len;
	return *avail == len ? 0 : -SY_E_TRUNCATED;
}

/* Like sy_perf_src_get, but the record stream ends at r->end (the data section
 * of a file-mode file), whatever follows it. */
int sy_perf_rec_get(struct sy_perf_reader *r, uint64_t off, uint64_t len,
		      const uint8_t **p, uint64_t *avail)
{
	uint64_t room = off < r->end ? r->end - off : 0;
	int err;

	if (len <= room)
		return sy_perf_src_get(r, off, len, p, avail);
	err = sy_perf_src_get(r, off, room, p, avail);
	return err ? err : -SY_E_TRUNCATED;
}

/* Every page the record walk touches would stay resident to the end, counted
 * in the process's RSS: for a recording whose samples outweigh its trace
 * (deep callchains: 37 times the trace), the whole file.  The walk reads
 * forward, so the pages it passed are dropped, SY_PAGES_BATCH at a time
 * (each drop flushes TLBs).  SY_READ_KEEP behind the walk stay: the pause
 * samples and AUX payloads the session uses soon after reading them.  A
 * pointer into a dropped page stays valid (sy_record): the page of a
 * private, never-written file mapping is read again when touched. */
#define SY_READ_KEEP ((uint64_t)2 << 20)

void sy_perf_src_passed(struct sy_perf_reader *r, uint64_t pos)
{
	long ps;
	uint64_t hi, page;

	if (!r->unmap_base || pos < SY_READ_KEEP)
		return;
	hi = pos - SY_READ_KEEP;
	if (hi < r->dropped || hi - r->dropped < SY_PAGES_BATCH)
		return;
	ps = sysconf(_SC_PAGESIZE);
	page = ps > 0 ? (uint64_t)ps : 4096;
	sy_pages_drop(r->map + r->dropped, hi - r->dropped);
	/* the page @hi is in is dropped with the next batch */
	r->dropped = hi & ~(page - 1);
}
