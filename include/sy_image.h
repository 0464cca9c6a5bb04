/* One traced ELF file (struct sy_image), mapped once read-only: its
 * executable PT_LOAD segments, machine, type, symbols and GNU build-id.
 * Immutable after open, so any number of threads may read it at once.
 * The process model around it is described in sy_proc.h. */
#ifndef SY_IMAGE_H
#define SY_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "sy_error.h"

/* Largest build-id kept (SHA-1; perf records at most 20 bytes). */
#define SY_BUILD_ID_MAX 20

/* Recorded PROT_* bits (Linux values, whatever the host). */
#define SY_PROT_READ 0x1u
#define SY_PROT_WRITE 0x2u
#define SY_PROT_EXEC 0x4u

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

/* The file bytes at link-time address @vaddr of a segment the program
 * cannot write (a PT_LOAD without PF_W: code or read-only data, as the
 * loader maps it), and in *avail how many follow in it; NULL elsewhere. */
const uint8_t *sy_image_rodata(const struct sy_image *img, uint64_t vaddr,
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

/* The function symbol that starts last at or below @vaddr, whether it
 * covers @vaddr or ends before it: its start and size (0: unknown), for
 * what lies between one function's end and the next.  Returns 0,
 * -SY_E_INVALID when none starts there, or -SY_E_NOMEM. */
int sy_image_symbol_below(const struct sy_image *img, uint64_t vaddr,
			  uint64_t *start, uint64_t *size);

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

#endif
