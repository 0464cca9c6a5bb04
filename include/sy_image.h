/* Program images: the traced binaries and the address spaces they live in.
 *
 * Decoders read the traced program's code through sy_read_mem_fn
 * (sy_decode.h).  This layer answers those reads from three pieces:
 *
 *   struct sy_image         one ELF file, mapped once read-only; its
 *                           executable PT_LOAD segments, machine, type and
 *                           GNU build-id.  Immutable after open, so any
 *                           number of threads may read it at once.
 *   struct sy_image_cache   finds the file for a recorded path and build-id
 *                           (--binary, --symfs, the perf build-id cache, the
 *                           recorded path), verifies build-ids, opens every
 *                           file once, and counts what could not be found.
 *   struct sy_proc_table    the processes of a recording, fed with MMAP,
 *                           MMAP2, COMM, FORK and EXIT records in file
 *                           order.  It hands out immutable, refcounted
 *                           snapshots (struct sy_proc_snap) that a window
 *                           decoded later, on another thread, reads from
 *                           while the table moves on.
 *   struct sy_mem_reader    one per decoding thread: sy_mem_read() is the
 *                           sy_read_mem_fn over a snapshot.
 *
 * Typical use:
 *
 *	sy_image_cache_new(&cache, &opts, &diag);
 *	sy_proc_table_new(&procs, cache);
 *	sy_proc_table_set_build_ids(procs, sy_perf_features(r));
 *	while (sy_perf_next(r, &rec) == 0) {
 *		sy_event_parse(&rec, &ev, &diag);
 *		sy_proc_table_feed(procs, &rec, &ev);
 *		if (rec.type == SY_REC_AUX)	// a window ends here
 *			win->snap = sy_proc_table_snapshot(procs);
 *	}
 *	// on a decoding thread:
 *	// params.read_mem = sy_mem_read, params.mem_ctx = rd
 *	sy_mem_reader_begin(rd, win->snap);
 *	...decode...
 *	sy_mem_reader_end(rd);			// charges missing binaries
 *	// at the end:
 *	n = sy_image_cache_missing(cache, list, max);	// one line per binary
 *
 * Lifetimes: the cache owns every image and every recorded path string; it
 * must outlive the tables, snapshots and readers made with it.  Snapshots
 * outlive the table that made them (they hold references, not pointers into
 * the table).
 *
 * Threads: an image, a snapshot and everything reached from a snapshot
 * (address spaces, maps) are immutable and safe to share.  The cache locks
 * internally: any thread may call it.  A table is used by one thread at a
 * time (the one walking the records).  A reader belongs to one thread.
 *
 * Errors are 0 / -SY_E_*; details go to a struct sy_diag whose message
 * starts with the file name.
 */
#ifndef SY_IMAGE_H
#define SY_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "sy_error.h"
#include "sy_perf.h"
#include "sy_perf_event.h"

/* Largest build-id kept (SHA-1; perf records at most 20 bytes). */
#define SY_BUILD_ID_MAX 20

/* Recorded PROT_* bits (Linux values, whatever the host). */
#define SY_PROT_READ 0x1u
#define SY_PROT_WRITE 0x2u
#define SY_PROT_EXEC 0x4u

/* --- ELF images ---------------------------------------------------------- */

/* One executable PT_LOAD segment, as in the program header. */
struct sy_image_seg {
	uint64_t vaddr;		/* p_vaddr */
	uint64_t memsz;		/* p_memsz */
	uint64_t filesz;	/* p_filesz: bytes backed by the file */
	uint64_t offset;	/* p_offset */
	uint32_t flags;		/* p_flags (PF_X | PF_R ...) */
};

struct sy_image;

/* Opens and maps @path (libelf over one read-only mmap) and copies out the
 * executable PT_LOAD segments and the GNU build-id.  A file without
 * executable segments (a relocatable .ko, a debug-only file) opens with
 * none: every code read then returns 0.  Returns 0 or:
 * -SY_E_IO (cannot open, not a regular file), -SY_E_BAD_ELF (not ELF,
 * damaged headers, a segment past the end of the file), -SY_E_NOMEM.
 * @diag (may be NULL) says "PATH: why". */
int sy_image_open(struct sy_image **out, const char *path,
		  struct sy_diag *diag);

/* Unmaps and frees; accepts NULL.  Images found through a cache are owned
 * by the cache: never close those. */
void sy_image_close(struct sy_image *img);

/* The path the image was opened from. */
const char *sy_image_path(const struct sy_image *img);
/* e_machine (EM_AARCH64 183, EM_X86_64 62, ...) and e_type (ET_EXEC 2,
 * ET_DYN 3, ...). */
uint16_t sy_image_machine(const struct sy_image *img);
uint16_t sy_image_type(const struct sy_image *img);
/* 64 for ELFCLASS64, 32 for ELFCLASS32. */
unsigned sy_image_bits(const struct sy_image *img);

/* The GNU build-id: its length (0 when the file has none) and *id. */
size_t sy_image_build_id(const struct sy_image *img, const uint8_t **id);

/* Executable segments sorted by vaddr (program header order in any sane
 * file). */
size_t sy_image_nr_segs(const struct sy_image *img);
const struct sy_image_seg *sy_image_segs(const struct sy_image *img);

/* Copies up to @len bytes of code at link-time address @vaddr.  Reads
 * continue across adjacent executable segments and stop at the first byte
 * that is not file-backed code.  Returns the bytes copied. */
size_t sy_image_read(const struct sy_image *img, uint64_t vaddr, uint8_t *buf,
		     size_t len);

/* Zero-copy: the file bytes at @vaddr and, in *avail, how many follow
 * within the same segment; NULL when @vaddr is not file-backed code. */
const uint8_t *sy_image_code(const struct sy_image *img, uint64_t vaddr,
			     size_t *avail);

/* The same by file offset (a mapping's pgoff plus its displacement). */
const uint8_t *sy_image_code_off(const struct sy_image *img, uint64_t off,
				 size_t *avail);

/* Link-time address of file offset @off.  Returns 0, or -SY_E_INVALID when
 * @off is not in the file-backed part of an executable segment. */
int sy_image_off_to_vaddr(const struct sy_image *img, uint64_t off,
			  uint64_t *vaddr);

/* The first executable PT_LOAD (program header order), vaddr and offset
 * rounded down to 4 KiB: llvm-profgen's preferred text address and text
 * offset.  Returns 0, or -SY_E_INVALID when there is no executable
 * segment. */
int sy_image_text_base(const struct sy_image *img, uint64_t *vaddr,
		       uint64_t *offset);

/* Name of the function containing @vaddr and the distance from its start.
 * The symbol table (.symtab, else .dynsym) is loaded on the first call,
 * under a lock: for diagnostics, never call it per instruction.  *name
 * lives as long as the image.  Returns 0, -SY_E_INVALID when no function
 * symbol covers @vaddr, or -SY_E_NOMEM. */
int sy_image_symbol(const struct sy_image *img, uint64_t vaddr,
		    const char **name, uint64_t *offset);

/* The value of symbol @name in .symtab (the kernel's "_text", "_stext").
 * Returns 0 or -SY_E_INVALID when there is none. */
int sy_image_symbol_addr(const struct sy_image *img, const char *name,
			 uint64_t *addr);

/* Equality of two build-ids, tolerating zero padding: simpleperf stores a
 * 16-byte id as 20 bytes ending in four zeros.  The shorter must be a
 * prefix of the longer and the rest of the longer all zeros.  Empty ids
 * never match. */
int sy_build_id_equal(const uint8_t *a, size_t alen, const uint8_t *b,
		      size_t blen);

/* --- Finding binaries ---------------------------------------------------- */

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

/* --- Address spaces ------------------------------------------------------ */

#define SY_MAP_CODE 0x1u   /* executable: code reads are served */
#define SY_MAP_KERNEL 0x2u /* kernel image: vaddr = address - reloc */
#define SY_MAP_MODULE 0x4u /* relocatable .ko: vaddr = address - start */

/* One mapping, as recorded, trimmed by the mappings placed over it later. */
struct sy_map {
	uint64_t start, end;	/* runtime addresses [start, end) */
	uint64_t pgoff;		/* file offset of @start */
	const char *path;	/* as recorded, interned by the cache */
	const struct sy_image *img; /* NULL: not code or not found */
	int err;		/* code without img: the lookup's error */
	uint32_t prot;		/* SY_PROT_*; MMAP records: R|X or R (data) */
	uint32_t flags;		/* SY_MAP_* */
	uint8_t build_id_size;	/* 0: no recorded build-id */
	uint8_t build_id[SY_BUILD_ID_MAX];
	/* SY_MAP_KERNEL: runtime minus link-time address (KASLR): the
	 * recorded address of the symbol the MMAP names ("[kernel.kallsyms]
	 * _text": its pgoff, or its start when pgoff is 0, simpleperf's
	 * way) minus that symbol in the image; 0 for kcore. */
	uint64_t reloc;
};

/* The link-time (image) address of runtime @addr in @m, or -SY_E_INVALID
 * when @m has no image or @addr is not in its code. */
int sy_map_vaddr(const struct sy_map *m, uint64_t addr, uint64_t *vaddr);

/* One process's mappings at one moment; immutable. */
struct sy_aspace;

size_t sy_aspace_nr_maps(const struct sy_aspace *as);
/* Mappings sorted by start, never overlapping. */
const struct sy_map *sy_aspace_map(const struct sy_aspace *as, size_t i);
/* The mapping containing @addr, or NULL.  O(log n). */
const struct sy_map *sy_aspace_find(const struct sy_aspace *as,
				    uint64_t addr);
/* Copies up to @len bytes of code at runtime @addr, across adjacent
 * mappings and segments.  Returns the bytes copied (0: unmapped, not code,
 * binary missing).  Accepts a NULL @as. */
size_t sy_aspace_read(const struct sy_aspace *as, uint64_t addr, uint8_t *buf,
		      size_t len);

/* Zero-copy form for one mapping: the bytes at @addr within @m and how many
 * follow contiguously (within the mapping and one segment), or NULL. */
const uint8_t *sy_map_code(const struct sy_map *m, uint64_t addr,
			   size_t *avail);

/* --- Processes ----------------------------------------------------------- */

/* Every process of a recording at one moment; immutable, refcounted. */
struct sy_proc_snap;

struct sy_proc_table;

/* Returns 0, -SY_E_INVALID (NULL @cache) or -SY_E_NOMEM. */
int sy_proc_table_new(struct sy_proc_table **out,
		      struct sy_image_cache *cache);
/* Accepts NULL.  Snapshots taken from it stay valid. */
void sy_proc_table_free(struct sy_proc_table *t);

/* Build-ids of the BUILD_ID feature, for MMAP records and MMAP2 records
 * without one: matched by filename, preferring an entry of the same pid,
 * then pid -1.  Copies what it needs.  Returns 0 or -SY_E_NOMEM. */
int sy_proc_table_set_build_ids(struct sy_proc_table *t,
				const struct sy_perf_features *f);

/* Applies one record, in file order: MMAP/MMAP2 place a mapping in the
 * space of its pid (pid -1: the kernel space, consulted for every process
 * when its own space has nothing at an address); COMM with the exec flag
 * empties the space; FORK gives a new process its parent's space (a new
 * thread only joins its process, reads with its tid see that space); EXIT
 * ends a process or thread but leaves its last space readable under its
 * id, because per-CPU AUX buffers are often written out after the
 * processes they traced exited; a FORK or exec reusing the id replaces it.
 * Other record types are ignored.  Code mappings (MMAP2 with PROT_EXEC or prot 0,
 * MMAP without MISC_MMAP_DATA) are looked up in the cache now; a missing
 * binary is not an error.  Returns 0 or -SY_E_NOMEM (the table is unchanged
 * then). */
int sy_proc_table_feed(struct sy_proc_table *t, const struct sy_record *rec,
		       const struct sy_event *ev);

/* The same per record type.  @misc is the record header's misc. */
int sy_proc_table_mmap(struct sy_proc_table *t, const struct sy_ev_mmap *m,
		       uint16_t misc);
int sy_proc_table_comm(struct sy_proc_table *t, const struct sy_ev_comm *c);
int sy_proc_table_fork(struct sy_proc_table *t, const struct sy_ev_task *k);
int sy_proc_table_exit(struct sy_proc_table *t, const struct sy_ev_task *k);

/* The current space of @pid (or of a known thread id), borrowed until the
 * next call that changes the table; NULL when unknown. */
const struct sy_aspace *sy_proc_table_aspace(const struct sy_proc_table *t,
					     uint32_t pid);

/* A new reference to the table as it is now.  Taking it costs O(processes
 * + threads) when the table changed since the last one, nothing otherwise
 * (the same snapshot is returned).  NULL when out of memory. */
struct sy_proc_snap *sy_proc_table_snapshot(struct sy_proc_table *t);

/* Reference counting; thread-safe.  put accepts NULL. */
struct sy_proc_snap *sy_proc_snap_get(struct sy_proc_snap *s);
void sy_proc_snap_put(struct sy_proc_snap *s);

/* Space of a process or thread id, NULL when unknown; the kernel space
 * (may be NULL). */
const struct sy_aspace *sy_proc_snap_aspace(const struct sy_proc_snap *s,
					    uint32_t id);
const struct sy_aspace *sy_proc_snap_kernel(const struct sy_proc_snap *s);
/* A number no other snapshot of the table has (0 for NULL): what a cache
 * keyed by snapshot compares, where an address could be a freed one's. */
uint64_t sy_proc_snap_serial(const struct sy_proc_snap *s);
/* The mapping at @addr for @id: its own space, then the kernel's. */
const struct sy_map *sy_proc_snap_find(const struct sy_proc_snap *s,
				       uint32_t id, uint64_t addr);

/* --- The decoders' code reader ------------------------------------------- */

struct sy_mem_stats {
	uint64_t reads;		/* sy_mem_read calls */
	uint64_t bytes;		/* bytes returned */
	uint64_t unknown_ctx;	/* reads for an id no process has */
	uint64_t unmapped;	/* reads that found no mapping */
	uint64_t not_code;	/* reads that hit a non-executable mapping */
	uint64_t missing;	/* reads that hit a code mapping without a
				 * binary */
};

struct sy_mem_reader;

/* One per decoding thread.  @cache receives the charges of
 * sy_mem_reader_end (may be NULL: nothing charged).  Returns 0,
 * -SY_E_INVALID or -SY_E_NOMEM. */
int sy_mem_reader_new(struct sy_mem_reader **out,
		      struct sy_image_cache *cache);
/* Ends the current window (charging it) and frees; accepts NULL. */
void sy_mem_reader_free(struct sy_mem_reader *rd);

/* Starts a window over @snap (the reader takes its own reference; NULL
 * makes every read return 0).  Ends the previous window if one is open. */
void sy_mem_reader_begin(struct sy_mem_reader *rd, struct sy_proc_snap *snap);
/* Ends the window: every binary the window needed and did not have is
 * charged once (sy_image_cache_charge), and the snapshot is released. */
void sy_mem_reader_end(struct sy_mem_reader *rd);

/* sy_read_mem_fn: @ctx is the struct sy_mem_reader, @ctxid a pid or tid.
 * Copies up to @len bytes of code at runtime @addr (across mappings and
 * segments) and returns how many; 0 when unmapped, not code or missing. */
size_t sy_mem_read(void *ctx, uint32_t ctxid, uint64_t addr, uint8_t *buf,
		   size_t len);

/* Counters since the reader was made. */
const struct sy_mem_stats *sy_mem_reader_stats(const struct sy_mem_reader *rd);

#endif
