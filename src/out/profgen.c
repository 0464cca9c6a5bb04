/* llvm-profgen text writer with atomic commit. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mmap_state.h"
#include "sy_atomic_file.h"
#include "sy_profgen.h"

struct sy_profgen {
	FILE *f;
	struct sy_atomic_file af; /* when we opened f */
	enum sy_profgen_format fmt;
	/* The lines written and in force (mmap_state.h): a line is written
	 * again only when llvm-profgen would read a sample against another.
	 * llvm-profgen reads only where a binary's text is, not which process
	 * mapped it (the process id serves only --pid), so the same mapping
	 * in many processes (a recording of many runs) is one line: 30000
	 * repeated lines cost llvm-profgen 19 eight seconds.  Two processes
	 * of one PIE at different addresses take turns: each turn writes its
	 * line again (and the aggregation its samples before it). */
	struct sy_mmstate mm;
	int write_errno;	/* why the first failed write failed */
};

/* stdio keeps the error flag but not its cause: keep the first errno. */
static int sy_profgen_check(struct sy_profgen *w)
{
	if (!ferror(w->f))
		return 0;
	if (!w->write_errno)
		w->write_errno = errno ? errno : EIO;
	return -SY_E_OUTPUT;
}

int sy_profgen_open_file(struct sy_profgen **out, FILE *f,
			 enum sy_profgen_format fmt)
{
	struct sy_profgen *w = calloc(1, sizeof(*w));

	if (!w)
		return -SY_E_NOMEM;
	w->f = f;
	w->fmt = fmt;
	*out = w;
	return 0;
}

int sy_profgen_open(struct sy_profgen **out, const char *path,
		    enum sy_profgen_format fmt, struct sy_diag *diag)
{
	struct sy_profgen *w;
	int err;

	if (!strcmp(path, "-"))
		return sy_profgen_open_file(out, stdout, fmt);
	err = sy_profgen_open_file(&w, NULL, fmt);
	if (err)
		return err;
	err = sy_atomic_open(&w->af, path, diag);
	if (err) {
		sy_profgen_abort(w);
		return err;
	}
	w->f = w->af.f;
	/* big buffer: profiles are written in long lines */
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	*out = w;
	return 0;
}

int sy_profgen_mmap(struct sy_profgen *w, uint32_t pid, uint32_t tid,
		    uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path)
{
	return sy_profgen_mmap_bid(w, pid, tid, start, len, pgoff, path, NULL,
				   0);
}

/* perf's form of a build-id: lowercase hex, as `perf script
 * --show-mmap-events` prints an MMAP2 record that carries one. */
static void sy_profgen_hex(char *out, const uint8_t *id, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 15];
	}
	out[2 * n] = 0;
}

int sy_profgen_mmap_bid(struct sy_profgen *w, uint32_t pid, uint32_t tid,
			uint64_t start, uint64_t len, uint64_t pgoff,
			const char *path, const uint8_t *bid, size_t bid_len)
{
	char ids[2 * SY_PROFGEN_BUILD_ID_MAX + 16] = "00:00 0 0";
	int err;

	if (sy_mmstate_in_force(&w->mm, start, len, pgoff, path))
		return 0;
	err = sy_mmstate_note(&w->mm, start, len, pgoff, path, 0);
	if (err)
		return err;
	if (bid_len > SY_PROFGEN_BUILD_ID_MAX)
		bid_len = SY_PROFGEN_BUILD_ID_MAX;
	if (bid && bid_len) {
		ids[0] = '<';
		sy_profgen_hex(ids + 1, bid, bid_len);
		strcat(ids, ">");
	}
	/* llvm-profgen's regex wants lowercase hex and a bare 0 offset; what
	 * follows the offset is free text, where perf prints the build-id
	 * (merge checks it) */
	if (pgoff)
		fprintf(w->f,
			"PERF_RECORD_MMAP2 %u/%u: [%#" PRIx64 "(%#" PRIx64
			") @ %#" PRIx64 " %s]: r-xp %s\n",
			pid, tid, start, len, pgoff, ids, path);
	else
		fprintf(w->f,
			"PERF_RECORD_MMAP2 %u/%u: [%#" PRIx64 "(%#" PRIx64
			") @ 0 %s]: r-xp %s\n",
			pid, tid, start, len, ids, path);
	return sy_profgen_check(w);
}

int sy_profgen_mmap_conflicts(const struct sy_profgen *w, uint64_t start,
			      uint64_t len, uint64_t pgoff, const char *path)
{
	return sy_mmstate_conflicts(&w->mm, start, len, pgoff, path);
}

/* A number in hex, lowercase, as printf's "%#" PRIx64 (alt: "0x" before
 * all but 0) or "%16" PRIx64 (pad: right-aligned in 16 columns) print it;
 * returns the end.  fprintf per branch was 2.6% of convert's time on a
 * profile of many distinct samples (two numbers per branch). */
static char *sy_pg_hex(char *p, uint64_t v, int alt, int pad)
{
	static const char hex[] = "0123456789abcdef";
	char d[16];
	int n = 0;

	do
		d[n++] = hex[v & 15];
	while ((v >>= 4) != 0);
	if (alt && !(n == 1 && d[0] == '0')) {
		*p++ = '0';
		*p++ = 'x';
	}
	for (int k = n; k < pad; k++)
		*p++ = ' ';
	while (n > 0)
		*p++ = d[--n];
	return p;
}

/* Room in a line buffer for one branch (" 0x<16>/0x<16>/P/-/-/0") or
 * one frame ("\t<16>\n"). */
#define SY_PG_ITEM 64

static char *sy_pg_room(FILE *f, char *buf, size_t size, char *p)
{
	if ((size_t)(p - buf) + SY_PG_ITEM <= size)
		return p;
	fwrite(buf, 1, (size_t)(p - buf), f);
	return buf;
}

int sy_profgen_sample(struct sy_profgen *w, uint64_t count,
		      const uint64_t *frames, uint32_t nr_frames,
		      const struct sy_br *stack, uint32_t nr_stack)
{
	char buf[4096], *p = buf;
	FILE *f = w->f;

	/* a repeat count before any sample, LBR-only included
	 * (llvm-profgen.md 3.1): the whole line is the count */
	if (count > 1)
		fprintf(f, "%" PRIu64 "\n", count);
	if (w->fmt == SY_PROFGEN_HYBRID) {
		for (uint32_t i = 0; i < nr_frames; i++) {
			p = sy_pg_room(f, buf, sizeof(buf), p);
			*p++ = '\t';
			p = sy_pg_hex(p, frames[i], 0, 16);
			*p++ = '\n';
		}
	} else {
		p = sy_pg_hex(p, nr_frames ? frames[0] :
				 (nr_stack ? stack[0].to : 0), 0, 16);
	}
	for (uint32_t i = 0; i < nr_stack; i++) {
		p = sy_pg_room(f, buf, sizeof(buf), p);
		*p++ = ' ';
		p = sy_pg_hex(p, stack[i].from, 1, 0);
		*p++ = '/';
		p = sy_pg_hex(p, stack[i].to, 1, 0);
		memcpy(p, "/P/-/-/0", 8);
		p += 8;
	}
	*p++ = '\n';
	fwrite(buf, 1, (size_t)(p - buf), f);
	return sy_profgen_check(w);
}

static void sy_profgen_free(struct sy_profgen *w)
{
	sy_mmstate_fini(&w->mm);
	free(w);
}

int sy_profgen_commit(struct sy_profgen *w, struct sy_diag *diag)
{
	int err = 0;

	if (w->af.f) {
		err = sy_atomic_commit(&w->af, w->write_errno, diag);
	} else {
		errno = 0;
		if (fflush(w->f) || sy_profgen_check(w))
			err = sy_diag_set_nooff(diag, -SY_E_OUTPUT,
						"standard output: write: %s",
						strerror(w->write_errno ?
							 w->write_errno :
						 errno ? errno : EIO));
	}
	sy_profgen_free(w);
	return err;
}

void sy_profgen_abort(struct sy_profgen *w)
{
	if (!w)
		return;
	sy_atomic_abort(&w->af);
	sy_profgen_free(w);
}
