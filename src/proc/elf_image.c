/* ELF program images.
 *
 * libelf maps the file once, read-only (ELF_C_READ_MMAP), and we keep the
 * raw bytes (elf_rawfile) for code reads: after open, reading code is a
 * search over a handful of copied segment descriptors and a memcpy, with no
 * libelf call, so images can be shared by every decoding thread.  libelf is
 * touched again only by the lazy symbol table, under its own lock.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_impl.h"
#include "sy_bsearch.h"
#include "sy_image.h"

#define SY_PAGE_MASK 0xfffull

struct sy_sym {
	uint64_t addr, size;
	const char *name;
	int func;		/* STT_FUNC, preferred over STT_NOTYPE */
};

/* Loaded on first use: pointed to (not embedded) so that the const image
 * handed to readers can still fill it. */
struct sy_symtab {
	pthread_mutex_t lock;
	int loaded;
	int err;
	struct sy_sym *syms;
	size_t nr;
};

struct sy_image {
	char *path;
	Elf *elf;
	const uint8_t *raw;	/* the whole file (a module: @copy) */
	uint8_t *copy;		/* a module's bytes, relocated */
	size_t raw_size;
	uint16_t machine, type;
	unsigned bits;
	size_t build_id_len;
	uint8_t build_id[SY_BUILD_ID_MAX];
	struct sy_image_seg *segs; /* executable PT_LOADs, by vaddr */
	size_t nr_segs;
	struct sy_image_seg *ro;   /* PT_LOADs without PF_W */
	size_t nr_ro;
	int has_text;		/* first executable PT_LOAD in header order */
	uint64_t text_vaddr, text_offset;
	struct sy_symtab *sym;
};

static pthread_once_t sy_elf_once = PTHREAD_ONCE_INIT;
static int sy_elf_ok;

static void sy_elf_init(void)
{
	sy_elf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

static int sy_seg_cmp(const void *a, const void *b)
{
	const struct sy_image_seg *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* Copies the executable PT_LOADs, checking that what they claim to take
 * from the file is in the file. */
static int sy_image_load_segs(struct sy_image *img, struct sy_diag *diag)
{
	size_t n, nx = 0;

	/* a kernel module: the kernel lays its sections out */
	if (img->type == ET_REL) {
		int err;

		/* code is read from a copy with the relocations applied */
		img->copy = malloc(img->raw_size ? img->raw_size : 1);
		if (!img->copy)
			return -SY_E_NOMEM;
		memcpy(img->copy, img->raw, img->raw_size);
		img->raw = img->copy;
		err = sy_module_segs(img->elf, img->copy, img->raw_size,
				     &img->segs, &img->nr_segs);

		if (err == -SY_E_BAD_ELF)
			return sy_diag_set_nooff(diag, err,
						 "%s: damaged section headers",
						 img->path);
		return err;
	}
	if (elf_getphdrnum(img->elf, &n) != 0)
		return sy_diag_set_nooff(diag, -SY_E_BAD_ELF,
					 "%s: cannot read program headers: %s",
					 img->path, elf_errmsg(-1));
	if (n) {
		img->segs = calloc(n, sizeof(*img->segs));
		img->ro = calloc(n, sizeof(*img->ro));
		if (!img->segs || !img->ro)
			return -SY_E_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		struct sy_image_seg *s;

		if (!gelf_getphdr(img->elf, (int)i, &ph))
			return sy_diag_set_nooff(diag, -SY_E_BAD_ELF,
						 "%s: program header %zu: %s",
						 img->path, i, elf_errmsg(-1));
		if (ph.p_type != PT_LOAD)
			continue;
		if (!(ph.p_flags & PF_W) && ph.p_offset <= img->raw_size &&
		    ph.p_filesz <= img->raw_size - ph.p_offset &&
		    ph.p_filesz <= ph.p_memsz) {
			s = &img->ro[img->nr_ro++];
			s->vaddr = ph.p_vaddr;
			s->memsz = ph.p_memsz;
			s->filesz = ph.p_filesz;
			s->offset = ph.p_offset;
			s->flags = ph.p_flags;
		}
		if (!(ph.p_flags & PF_X))
			continue;
		if (ph.p_offset > img->raw_size ||
		    ph.p_filesz > img->raw_size - ph.p_offset)
			return sy_diag_set_nooff(diag, -SY_E_BAD_ELF,
						 "%s: segment %zu runs past "
						 "the end of the file",
						 img->path, i);
		if (ph.p_filesz > ph.p_memsz ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			return sy_diag_set_nooff(diag, -SY_E_BAD_ELF,
						 "%s: segment %zu has "
						 "inconsistent sizes",
						 img->path, i);
		if (!img->has_text) {
			img->has_text = 1;
			img->text_vaddr = ph.p_vaddr & ~SY_PAGE_MASK;
			img->text_offset = ph.p_offset & ~SY_PAGE_MASK;
		}
		s = &img->segs[nx++];
		s->vaddr = ph.p_vaddr;
		s->memsz = ph.p_memsz;
		s->filesz = ph.p_filesz;
		s->offset = ph.p_offset;
		s->flags = ph.p_flags;
	}
	img->nr_segs = nx;
	if (nx > 1)
		qsort(img->segs, nx, sizeof(*img->segs), sy_seg_cmp);
	return 0;
}

int sy_image_open(struct sy_image **out, const char *path,
		  struct sy_diag *diag)
{
	struct sy_image *img = NULL;
	GElf_Ehdr eh;
	struct stat st;
	const void *bid;
	ssize_t bid_len;
	int fd = -1;
	int err;

	if (!out || !path)
		return sy_diag_set_nooff(diag, -SY_E_INVALID,
					 "sy_image_open: NULL argument");
	*out = NULL;
	pthread_once(&sy_elf_once, sy_elf_init);
	if (!sy_elf_ok)
		return sy_diag_set_nooff(diag, -SY_E_BAD_ELF,
					 "%s: libelf version mismatch", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sy_diag_set_nooff(diag, -SY_E_IO, "%s: %s", path,
					 strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		err = sy_diag_set_nooff(diag, -SY_E_IO,
					"%s: not a regular file", path);
		goto fail;
	}
	err = -SY_E_NOMEM;
	img = calloc(1, sizeof(*img));
	if (!img)
		goto fail;
	img->path = strdup(path);
	img->sym = calloc(1, sizeof(*img->sym));
	if (!img->path || !img->sym)
		goto fail;
	if (pthread_mutex_init(&img->sym->lock, NULL) != 0) {
		free(img->sym);
		img->sym = NULL;
		goto fail;
	}
	img->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!img->elf || elf_kind(img->elf) != ELF_K_ELF) {
		err = sy_diag_set_nooff(diag, -SY_E_BAD_ELF,
					"%s: not an ELF file%s%s", path,
					img->elf ? "" : ": ",
					img->elf ? "" : elf_errmsg(-1));
		goto fail;
	}
	/* Everything is mapped (or read): libelf needs the fd no more. */
	if (elf_cntl(img->elf, ELF_C_FDREAD) != 0) {
		err = sy_diag_set_nooff(diag, -SY_E_IO, "%s: %s", path,
					elf_errmsg(-1));
		goto fail;
	}
	close(fd);
	fd = -1;
	img->raw = (const uint8_t *)elf_rawfile(img->elf, &img->raw_size);
	if (!img->raw || !gelf_getehdr(img->elf, &eh)) {
		err = sy_diag_set_nooff(diag, -SY_E_BAD_ELF,
					"%s: cannot read the ELF header: %s",
					path, elf_errmsg(-1));
		goto fail;
	}
	img->machine = eh.e_machine;
	img->type = eh.e_type;
	img->bits = gelf_getclass(img->elf) == ELFCLASS64 ? 64 : 32;
	err = sy_image_load_segs(img, diag);
	if (err)
		goto fail;
	bid_len = dwelf_elf_gnu_build_id(img->elf, &bid);
	if (bid_len > 0) {
		img->build_id_len = (size_t)bid_len < SY_BUILD_ID_MAX ?
					    (size_t)bid_len :
					    SY_BUILD_ID_MAX;
		memcpy(img->build_id, bid, img->build_id_len);
	}
	*out = img;
	return 0;

fail:
	if (fd >= 0)
		close(fd);
	sy_image_close(img);
	return err;
}

void sy_image_close(struct sy_image *img)
{
	if (!img)
		return;
	if (img->sym) {
		pthread_mutex_destroy(&img->sym->lock);
		free(img->sym->syms);
		free(img->sym);
	}
	if (img->elf)
		elf_end(img->elf);
	free(img->segs);
	free(img->ro);
	free(img->copy);
	free(img->path);
	free(img);
}

const char *sy_image_path(const struct sy_image *img)
{
	return img->path;
}

uint16_t sy_image_machine(const struct sy_image *img)
{
	return img->machine;
}

uint16_t sy_image_type(const struct sy_image *img)
{
	return img->type;
}

unsigned sy_image_bits(const struct sy_image *img)
{
	return img->bits;
}

size_t sy_image_build_id(const struct sy_image *img, const uint8_t **id)
{
	if (id)
		*id = img->build_id;
	return img->build_id_len;
}

size_t sy_image_nr_segs(const struct sy_image *img)
{
	return img->nr_segs;
}

const struct sy_image_seg *sy_image_segs(const struct sy_image *img)
{
	return img->segs;
}

/* The file bytes at @vaddr in one of the @n segments @segs. */
static const uint8_t *sy_seg_bytes(const struct sy_image *img,
				   const struct sy_image_seg *segs, size_t n,
				   uint64_t vaddr, size_t *avail)
{
	/* A few segments at most: a linear scan beats anything clever. */
	for (size_t i = 0; i < n; i++) {
		const struct sy_image_seg *s = &segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			uint64_t d = vaddr - s->vaddr;

			*avail = (size_t)(s->filesz - d);
			return img->raw + s->offset + d;
		}
	}
	*avail = 0;
	return NULL;
}

const uint8_t *sy_image_code(const struct sy_image *img, uint64_t vaddr,
			     size_t *avail)
{
	return sy_seg_bytes(img, img->segs, img->nr_segs, vaddr, avail);
}

const uint8_t *sy_image_rodata(const struct sy_image *img, uint64_t vaddr,
			       size_t *avail)
{
	return sy_seg_bytes(img, img->ro, img->nr_ro, vaddr, avail);
}

const uint8_t *sy_image_code_off(const struct sy_image *img, uint64_t off,
				 size_t *avail)
{
	for (size_t i = 0; i < img->nr_segs; i++) {
		const struct sy_image_seg *s = &img->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*avail = (size_t)(s->filesz - (off - s->offset));
			return img->raw + off;
		}
	}
	*avail = 0;
	return NULL;
}

size_t sy_image_read(const struct sy_image *img, uint64_t vaddr, uint8_t *buf,
		     size_t len)
{
	size_t done = 0;

	while (done < len) {
		size_t avail;
		const uint8_t *p = sy_image_code(img, vaddr, &avail);

		if (!p)
			break;
		if (avail > len - done)
			avail = len - done;
		memcpy(buf + done, p, avail);
		done += avail;
		vaddr += avail;
	}
	return done;
}

int sy_image_off_to_vaddr(const struct sy_image *img, uint64_t off,
			  uint64_t *vaddr)
{
	for (size_t i = 0; i < img->nr_segs; i++) {
		const struct sy_image_seg *s = &img->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = s->vaddr + (off - s->offset);
			return 0;
		}
	}
	return -SY_E_INVALID;
}

int sy_image_text_base(const struct sy_image *img, uint64_t *vaddr,
		       uint64_t *offset)
{
	if (!img->has_text)
		return -SY_E_INVALID;
	*vaddr = img->text_vaddr;
	*offset = img->text_offset;
	return 0;
}

/* --- Symbols (diagnostics only) ------------------------------------------ */

static int sy_sym_cmp(const void *a, const void *b)
{
	const struct sy_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address, the better name last: the lookup takes it */
	if (x->func != y->func)
		return x->func - y->func;
	return (x->size > 0) - (y->size > 0);
}

static int sy_scn_exec(Elf *elf, size_t ndx)
{
	Elf_Scn *scn = elf_getscn(elf, ndx);
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* Function symbols of one symbol table section. */
static int sy_symtab_load_scn(const struct sy_image *img, Elf_Scn *scn,
			      const GElf_Shdr *sh)
{
	struct sy_symtab *st = img->sym;
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	st->syms = calloc(n ? n : 1, sizeof(*st->syms));
	if (!st->syms)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		int type;
		const char *name;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
			continue;
		if (type != STT_FUNC &&
		    !(type == STT_NOTYPE && sy_scn_exec(img->elf, s.st_shndx)))
			continue;
		name = elf_strptr(img->elf, sh->sh_link, s.st_name);
		/* "$x", "$d": AArch64 mapping symbols, not functions */
		if (!name || !*name || name[0] == '$')
			continue;
		st->syms[st->nr].addr = s.st_value;
		st->syms[st->nr].size = s.st_size;
		st->syms[st->nr].name = name;
		st->syms[st->nr].func = type == STT_FUNC;
		st->nr++;
	}
	if (st->nr > 1)
		qsort(st->syms, st->nr, sizeof(*st->syms), sy_sym_cmp);
	return 0;
}

static int sy_symtab_load(const struct sy_image *img)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dsh;

	/* Relocatable files hold section-relative values: no addresses. */
	if (img->type == ET_REL)
		return 0;
	while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			return sy_symtab_load_scn(img, scn, &sh);
		if (sh.sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = sh;
		}
	}
	return dyn ? sy_symtab_load_scn(img, dyn, &dsh) : 0;
}

int sy_image_symbol_addr(const struct sy_image *img, const char *name,
			 uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = -SY_E_INVALID;

	/* once per kernel mapping: a walk over .symtab, no table kept;
	 * libelf under the symbol lock, as sy_image_symbol uses it */
	pthread_mutex_lock(&img->sym->lock);
	while (err && (scn = elf_nextscn(img->elf, scn)) != NULL) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			n = elf_strptr(img->elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name) && sym.st_shndx != SHN_UNDEF) {
				*addr = sym.st_value;
				err = 0;
				break;
			}
		}
	}
	pthread_mutex_unlock(&img->sym->lock);
	return err;
}

struct sy_sym_key {
	const struct sy_symtab *st;
	uint64_t vaddr;
};

static int sy_sym_at_or_below(const void *ctx, size_t i)
{
	const struct sy_sym_key *k = ctx;

	return k->st->syms[i].addr <= k->vaddr;
}

/* The symbol starting last at or below @vaddr, the table loaded on the
 * first call; with st->lock held.  NULL with *@err: none starts there
 * (-SY_E_INVALID), or the table could not be loaded. */
static const struct sy_sym *sy_sym_below(const struct sy_image *img,
					 uint64_t vaddr, int *err)
{
	struct sy_symtab *st = img->sym;
	struct sy_sym_key k = { st, vaddr };
	size_t lo;

	if (!st->loaded) {
		st->err = sy_symtab_load(img);
		st->loaded = 1;
	}
	*err = st->err ? st->err : -SY_E_INVALID;
	if (st->err)
		return NULL;
	lo = sy_partition_point(st->nr, sy_sym_at_or_below, &k);
	return lo ? &st->syms[lo - 1] : NULL;
}

int sy_image_symbol(const struct sy_image *img, uint64_t vaddr,
		    const char **name, uint64_t *offset)
{
	const struct sy_sym *s;
	int err;

	pthread_mutex_lock(&img->sym->lock);
	s = sy_sym_below(img, vaddr, &err);
	if (s && (!s->size || vaddr - s->addr < s->size)) {
		*name = s->name;
		if (offset)
			*offset = vaddr - s->addr;
		err = 0;
	}
	pthread_mutex_unlock(&img->sym->lock);
	return err;
}

int sy_image_symbol_below(const struct sy_image *img, uint64_t vaddr,
			  uint64_t *start, uint64_t *size)
{
	const struct sy_sym *s;
	int err;

	pthread_mutex_lock(&img->sym->lock);
	s = sy_sym_below(img, vaddr, &err);
	if (s) {
		*start = s->addr;
		*size = s->size;
		err = 0;
	}
	pthread_mutex_unlock(&img->sym->lock);
	return err;
}

int sy_build_id_equal(const uint8_t *a, size_t alen, const uint8_t *b,
		      size_t blen)
{
	if (!alen || !blen)
		return 0;
	if (alen > blen) {
		const uint8_t *t = a;
		size_t tl = alen;

		a = b;
		alen = blen;
		b = t;
		blen = tl;
	}
	if (memcmp(a, b, alen) != 0)
		return 0;
	for (size_t i = alen; i < blen; i++)
		if (b[i])
			return 0;
	return 1;
}
