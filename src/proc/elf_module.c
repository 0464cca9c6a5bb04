/* Kernel modules: where the kernel puts a relocatable .ko's code.
 *
 * A .ko has no program headers; the kernel lays its sections out itself
 * (kernel/module.c, layout_sections): the allocated, executable sections
 * that are not init code (".init*"), in section header order, each at the
 * next multiple of its sh_addralign, from the start of the module's core
 * area, which is the address the recording's MMAP of the module gives.
 * Those become the image's segments, vaddr = offset in the core area,
 * offset = where the bytes are in the file, so a module is read like any
 * other image once its map translates runtime addresses to vaddrs
 * (SY_MAP_MODULE: vaddr = addr - map start).
 *
 * Branches between the module's own code are relocated as the kernel
 * does (AArch64 CALL26/JUMP26, x86-64 PC32/PLT32 against defined
 * symbols): unrelocated, `b .text+0x140` reads as a branch to itself
 * (what perf 6.1 decodes: convert(1), KERNEL AND MODULES).  Calls into
 * the kernel stay unrelocated: their targets are in no file (on arm64
 * often a veneer in the PLT the kernel builds at load time), and a direct
 * call has no address packet, so a traced one decodes wrongly.
 * Not modelled: the size arm64 gives the .plt (NOBITS, a few entries) at
 * load: sections after it land where their alignment puts them, exact for
 * the usual page-aligned .text. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "image_impl.h"

#define SY_NO_ADDR UINT64_MAX

/* One branch relocation of @code (section at @at[target]) against a
 * symbol defined in the module; others are left alone. */
static void sy_module_reloc(uint16_t machine, uint8_t *insn, uint64_t p,
			    const GElf_Rela *r, const GElf_Sym *sym,
			    const uint64_t *at, size_t nr_at)
{
	uint64_t type = GELF_R_TYPE(r->r_info), s;
	int64_t v;
	uint32_t w;

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= nr_at ||
	    at[sym->st_shndx] == SY_NO_ADDR)
		return;
	s = at[sym->st_shndx] + sym->st_value;
	v = (int64_t)(s + (uint64_t)r->r_addend - p);
	if (machine == EM_AARCH64 && (type == R_AARCH64_CALL26 ||
				      type == R_AARCH64_JUMP26)) {
		memcpy(&w, insn, 4);
		w = (w & 0xfc000000u) | ((uint32_t)(v >> 2) & 0x03ffffffu);
		memcpy(insn, &w, 4);
	} else if (machine == EM_X86_64 && (type == R_X86_64_PC32 ||
					    type == R_X86_64_PLT32)) {
		w = (uint32_t)v;
		memcpy(insn, &w, 4);
	}
}

/* Applies the relocations of every RELA section that targets laid-out
 * code to @copy, the file's bytes. */
static void sy_module_relocate(Elf *elf, uint8_t *copy, size_t size,
			       const uint64_t *at, size_t nr_at)
{
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;

	if (!gelf_getehdr(elf, &eh))
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr rsh, tsh;
		Elf_Data *rd, *sd;
		Elf_Scn *tgt, *sym;

		if (!gelf_getshdr(scn, &rsh) || rsh.sh_type != SHT_RELA ||
		    rsh.sh_info >= nr_at || at[rsh.sh_info] == SY_NO_ADDR ||
		    !(tgt = elf_getscn(elf, rsh.sh_info)) ||
		    !gelf_getshdr(tgt, &tsh) ||
		    !(sym = elf_getscn(elf, rsh.sh_link)) ||
		    !(rd = elf_getdata(scn, NULL)) ||
		    !(sd = elf_getdata(sym, NULL)) || !rsh.sh_entsize)
			continue;
		for (size_t i = 0; i < rsh.sh_size / rsh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym s;

			if (!gelf_getrela(rd, (int)i, &r) ||
			    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s) ||
			    r.r_offset > tsh.sh_size - 4 || tsh.sh_size < 4 ||
			    tsh.sh_offset + r.r_offset + 4 > size)
				continue;
			sy_module_reloc(eh.e_machine,
					copy + tsh.sh_offset + r.r_offset,
					at[rsh.sh_info] + r.r_offset, &r, &s,
					at, nr_at);
		}
	}
}

int sy_module_segs(Elf *elf, uint8_t *copy, size_t raw_size,
		   struct sy_image_seg **out, size_t *nr_out)
{
	struct sy_image_seg *segs = NULL;
	size_t shstrndx, shnum, n = 0, cap = 0;
	Elf_Scn *scn = NULL;
	uint64_t size = 0, *at;

	*out = NULL;
	*nr_out = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0 ||
	    elf_getshdrnum(elf, &shnum) != 0)
		return -SY_E_BAD_ELF;
	at = malloc((shnum ? shnum : 1) * sizeof(*at));
	if (!at)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < shnum; i++)
		at[i] = SY_NO_ADDR;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		uint64_t align;

		if (!gelf_getshdr(scn, &sh))
			goto bad;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
			    (SHF_ALLOC | SHF_EXECINSTR) ||
		    !name || !strncmp(name, ".init", 5))
			continue;
		align = sh.sh_addralign ? sh.sh_addralign : 1;
		if (align & (align - 1))
			goto bad;
		at[elf_ndxscn(scn)] = (size + align - 1) & ~(align - 1);
		size = at[elf_ndxscn(scn)] + sh.sh_size;
		if (size < at[elf_ndxscn(scn)])
			goto bad;
		if (sh.sh_type != SHT_PROGBITS || !sh.sh_size)
			continue;	/* NOBITS .plt: no bytes to read */
		if (sh.sh_offset > raw_size || sh.sh_size > raw_size - sh.sh_offset)
			goto bad;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct sy_image_seg *s = realloc(segs, ncap * sizeof(*s));

			if (!s) {
				free(segs);
				free(at);
				return -SY_E_NOMEM;
			}
			segs = s;
			cap = ncap;
		}
		segs[n++] = (struct sy_image_seg){ .vaddr = at[elf_ndxscn(scn)],
						   .memsz = sh.sh_size,
						   .filesz = sh.sh_size,
						   .offset = sh.sh_offset,
						   .flags = PF_R | PF_X };
	}
	if (copy)
		sy_module_relocate(elf, copy, raw_size, at, shnum);
	free(at);
	*out = segs;
	*nr_out = n;
	return 0;
bad:
	free(segs);
	free(at);
	return -SY_E_BAD_ELF;
}
