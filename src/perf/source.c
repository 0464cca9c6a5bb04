/* The reader's input: a mapped file, or a stream read forward into a
 * sliding window (pipes), behind one "give me these bytes" call. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "reader_impl.h"
#include "sy_bytes.h"
#include "sy_pages.h"

/* sy_perf_skim: what one pread fetches at least.  Records are at most
 * 64 KB; a read of many is one copy from the page cache.  Under
 * AddressSanitizer every read goes to a new buffer and frees the old one,
 * a page at a time, so that a pointer a caller kept into a record past
 * its turn is a use after free the sanitizer names, not a silently
 * changed record. */
#if defined(__SANITIZE_ADDRESS__)
#define SY_SKIM_CHECK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SY_SKIM_CHECK 1
#endif
#endif
#ifdef SY_SKIM_CHECK
#define SY_SKIM_CHUNK ((size_t)4 << 10)
#else
#define SY_SKIM_CHECK 0
#define SY_SKIM_CHUNK ((size_t)256 << 10)
#endif

/* sy_perf_src_get of a skimmed file: [off, off+len) of the mapped file's
 * bytes, copied into sbuf (sbase, slen) from the descriptor. */
static int sy_perf_src_pread(struct sy_perf_reader *r, uint64_t off,
			     uint64_t len, const uint8_t **p, uint64_t *avail)
{
	uint64_t lim = r->map_len;
	uint64_t want = off >= lim ? 0 : (lim - off < len ? lim - off : len);
	size_t n, got = 0;

	if (!want) {
		/* as the mapping answers past its end */
		*p = r->map + (off < lim ? off : lim);
		*avail = 0;
		return len ? -SY_E_TRUNCATED : 0;
	}
	if (off < r->sbase || off - r->sbase > r->slen ||
	    r->slen - (off - r->sbase) < want) {
		n = want > SY_SKIM_CHUNK ? (size_t)want : SY_SKIM_CHUNK;
		if (n > lim - off)
			n = (size_t)(lim - off);
		if (SY_SKIM_CHECK || n > r->scap) {
			uint8_t *nb = SY_SKIM_CHECK ? malloc(n) :
						      realloc(r->sbuf, n);

			if (!nb)
				return -SY_E_NOMEM;
			if (SY_SKIM_CHECK)
				free(r->sbuf);
			r->sbuf = nb;
			r->scap = n;
		}
		while (got < n) {
			ssize_t k = pread(r->fd, r->sbuf + got, n - got,
					  (off_t)(off + got));

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return sy_diag_set(&r->diag, off + got, -SY_E_IO,
						   "read: %s", strerror(errno));
			if (!k)
				break;	/* the file shrank: as truncated */
			got += (size_t)k;
		}
		r->sbase = off;
		r->slen = got;
	}
	*p = r->sbuf + (off - r->sbase);
	*avail = r->slen - (off - r->sbase) < want ? r->slen - (off - r->sbase) :
						     want;
	return *avail == len ? 0 : -SY_E_TRUNCATED;
}

/* Points *p at [off, off+len).  Returns 0, or -SY_E_TRUNCATED with *avail set
 * to the bytes that do exist, or -SY_E_IO / -SY_E_NOMEM / -SY_E_LIMIT. */
int sy_perf_src_get(struct sy_perf_reader *r, uint64_t off, uint64_t len,
		      const uint8_t **p, uint64_t *avail)
{
	if (r->skim)
		return sy_perf_src_pread(r, off, len, p, avail);
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
 * (each drop flushes TLBs); a skimmed walk (sy_perf_skim) touches only
 * what is read in place (AUX payloads, a possible duplicate's bytes), and
 * drops it the same way.  SY_READ_KEEP behind the walk stay: the pause
 * samples and AUX payloads the session uses soon after reading them.  A
 * pointer into a dropped page stays valid (sy_record): the page of a
 * private, never-written file mapping is read again when touched. */
#define SY_READ_KEEP ((uint64_t)2 << 20)

void sy_perf_src_passed(struct sy_perf_reader *r, uint64_t pos)
{
	long ps;
	uint64_t hi, page;

	/* (skimmed, only what was read in place is there: a duplicate's
	 * compare, sy_order_sample) */
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
