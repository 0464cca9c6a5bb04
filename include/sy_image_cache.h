/* Finding binaries (struct sy_image_cache): the file for a recorded path
 * and build-id (--binary, --symfs, the perf build-id cache, the recorded
 * path), build-ids verified, every file opened once, and what could not
 * be found counted by the windows that needed it.  Locks internally. */
#ifndef SY_IMAGE_CACHE_H
#define SY_IMAGE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "sy_error.h"
#include "sy_image.h"

struct sy_image_opts {
	/* --binary PATH: used for a recorded mapping with the same build-id,
	 * else with the same basename (then verified) */
	const char *const *binaries;
	size_t nr_binaries;
	const char *symfs;	/* --symfs DIR, or NULL */
	/* perf build-id cache (DIR/.build-id/xx/rest/elf).  NULL:
	 * $PERF_BUILDID_DIR, else $HOME/.debug.  "": not used. */
	const char *buildid_dir;
	int allow_mismatch;	/* use a binary whose build-id differs */
	/* The kernel (perf's -k / --vmlinux): serves "[kernel.kallsyms]"
	 * mappings, build-id verified; relocated by the recorded MMAP (KASLR,
	 * see struct sy_map).  NULL: none. */
	const char *vmlinux;
	/* A `perf record --kcore` directory (DIR/kcore or DIR/kcore_dir/
	 * kcore): the running kernel's memory at its runtime addresses,
	 * serving the kernel and any module no .ko is found for.  NULL:
	 * none. */
	const char *kcore;
};

/* Where an image was found. */
enum sy_image_src {
	SY_IMAGE_SRC_NONE = 0,
	SY_IMAGE_SRC_BINARY,	/* --binary */
	SY_IMAGE_SRC_SYMFS,	/* --symfs DIR + recorded path */
	SY_IMAGE_SRC_BUILDID,	/* build-id cache */
	SY_IMAGE_SRC_RECORDED,	/* the recorded path itself */
	SY_IMAGE_SRC_VMLINUX,	/* --vmlinux */
	SY_IMAGE_SRC_KCORE,	/* --kcore: runtime addresses */
	SY_IMAGE_SRC_MODULES,	/* /lib/modules/<release> (under --symfs,
				 * then on this machine) */
};

struct sy_image_cache;

/* Creates a cache and opens every --binary file now (a bad one is the
 * user's mistake: it fails here).  Returns 0, -SY_E_INVALID (NULL @o or
 * @out), -SY_E_NOMEM, or the sy_image_open error of an override with
 * @diag filled. */
int sy_image_cache_new(struct sy_image_cache **out,
		       const struct sy_image_opts *o, struct sy_diag *diag);

/* Closes every image; accepts NULL. */
void sy_image_cache_free(struct sy_image_cache *c);

/* Build-id mismatches and unusable files are reported here, once per
 * (recorded path, build-id) and candidate file: d->err is -SY_E_BUILD_ID
 * or the open error.  Called with the cache locked: do not call back into
 * the cache.  Without a callback they are only counted. */
typedef void (*sy_image_warn_fn)(void *ctx, const struct sy_diag *d);
void sy_image_cache_set_warn(struct sy_image_cache *c, sy_image_warn_fn fn,
			     void *ctx);

struct sy_image_lookup {
	const struct sy_image *img;	/* NULL when not found */
	const char *path;		/* the recorded path, interned: valid
					 * as long as the cache */
	enum sy_image_src src;
};

/* The image for a mapping of recorded @path with recorded build-id @bid
 * (@bid_len 0: unknown, nothing to verify).  Candidates in order:
 * --binary (build-id, then basename), --symfs DIR + @path, the build-id
 * cache (also under the unpadded id for simpleperf's zero padding), @path
 * itself when absolute.  A candidate is taken when both ids are known and
 * equal (sy_build_id_equal), or when either is unknown; a mismatching one
 * is reported and skipped.  When none is taken and allow_mismatch is set,
 * the first mismatching one is used.  Special paths ("[vdso]",
 * "[kernel.kallsyms]...", "//anon", "[heap]", any "[...]", "/memfd:...")
 * are never looked for on disk; only a --binary with their build-id
 * serves them.  Results are memoised per (path, build-id): the disk is
 * probed once.  Every failing call counts one lookup for @path.
 * Returns 0, -SY_E_NO_IMAGE (nothing found), -SY_E_BUILD_ID (only
 * mismatching files found), -SY_E_BAD_ELF (only unusable files found),
 * -SY_E_INVALID (NULL argument, @bid_len > SY_BUILD_ID_MAX) or
 * -SY_E_NOMEM.  *res is filled in every case but NOMEM / INVALID. */
int sy_image_cache_find(struct sy_image_cache *c, const char *path,
			const uint8_t *bid, size_t bid_len,
			struct sy_image_lookup *res);

/* The recorded kernel release (OSRELEASE feature), for finding modules
 * under /lib/modules/<release>.  Copied; NULL clears it. */
int sy_image_cache_set_release(struct sy_image_cache *c, const char *release);

/* Nonzero for paths that name no file ([vdso], kernel, anonymous). */
int sy_image_path_special(const char *path);
/* Nonzero for user code no file holds, written at run time (//anon,
 * /memfd:, SysV shared memory...): no option can give it, unlike the
 * kernel and [vdso], which are special too. */
int sy_image_path_fileless(const char *path);
/* Nonzero for the kernel image ("[kernel.kallsyms]...", guest too). */
int sy_image_path_kernel(const char *path);

/* A window needed code from @path and could not get it.  Thread-safe.
 * Returns 0 or -SY_E_NOMEM. */
int sy_image_cache_charge(struct sy_image_cache *c, const char *path);

/* A recorded binary that was not available. */
struct sy_image_missing {
	const char *path;	/* as recorded */
	int err;		/* -SY_E_NO_IMAGE, -SY_E_BUILD_ID or
				 * -SY_E_BAD_ELF (the last failure) */
	int special;		/* no file was looked for */
	uint64_t lookups;	/* failed sy_image_cache_find calls */
	uint64_t windows;	/* sy_image_cache_charge calls */
};

/* Copies up to @max entries, sorted by path, one per recorded path, into
 * @out (may be NULL with @max 0) and returns how many there are. */
size_t sy_image_cache_missing(struct sy_image_cache *c,
			      struct sy_image_missing *out, size_t max);

/* Warnings delivered (or counted) so far. */
uint64_t sy_image_cache_nr_warnings(struct sy_image_cache *c);
/* Recorded binaries served by a file of another build (--allow-mismatch). */
uint64_t sy_image_cache_nr_forced(struct sy_image_cache *c);

#endif
