/* Tests for the program-image layer (sy_image.h): ELF images, finding
 * binaries, address spaces, process snapshots and the decoders' reader.
 *
 * Oracles that do not come from the code under test:
 *   - binutils: `readelf -hlnSW` for segments, machine, type, build-id and
 *     section placement; `objcopy --dump-section` for the build-id note and
 *     `objcopy -O binary --only-section=.text` for code bytes; `nm` for
 *     function symbols;
 *   - the files' own bytes at the offsets readelf gives;
 *   - a page-by-page model of "the last mapping wins" for overlapping
 *     mappings;
 *   - the real simpleperf captures' own records (the MMAP2 of the traced
 *     program, its BUILD_ID feature) and the load bases perf 6.1 reported
 *     (SOURCE.txt).
 * Negative controls: mismatching build-ids, removed candidates, unmapped
 * and non-executable addresses must all read nothing.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sy_error.h"
#include "sy_aspace.h"
#include "sy_image.h"
#include "sy_image_cache.h"
#include "sy_mem_reader.h"
#include "sy_proc.h"
#include "sy_perf_reader.h"
#include "sy_perf_event.h"
#include "sy_test.h"

#define PROG_DIR "tests/fixtures/programs/bin/"
#define ETM_REL "fixtures/real/simpleperf-etm/"
#define ETM_LOOP "/data/local/tmp/etm_test_loop"

/* --- Oracles ------------------------------------------------------------- */

struct rseg {
	uint64_t off, vaddr, filesz, memsz;
	int exec;
};

static char *run_ok(const char *fmt, ...) SY_PRINTF(1, 2);

static char *run_ok(const char *fmt, ...)
{
	char cmd[2048];
	char *out = NULL;
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = sy_test_run(cmd, &out, NULL);
	cr_assert_eq(st, 0, "`%s` failed (%d)", cmd, st);
	cr_assert_not_null(out);
	return out;
}

/* LOAD lines of `readelf -lW`. */
static size_t readelf_loads(const char *path, struct rseg *v, size_t max)
{
	char *out = run_ok("readelf -lW '%s'", path);
	size_t n = 0;

	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char *p = line + strspn(line, " ");
		struct rseg s = { 0 };
		uint64_t paddr;
		int used = 0;
		char *align;

		if (strncmp(p, "LOAD ", 5) != 0)
			continue;
		cr_assert_eq(sscanf(p + 4,
				    " %" SCNx64 " %" SCNx64 " %" SCNx64
				    " %" SCNx64 " %" SCNx64 "%n",
				    &s.off, &s.vaddr, &paddr, &s.filesz,
				    &s.memsz, &used),
			     5, "cannot parse: %s", line);
		/* flags sit between MemSiz and the alignment: "R E", "  E" */
		align = strstr(p + 4 + used, "0x");
		cr_assert_not_null(align);
		*align = 0;
		s.exec = strchr(p + 4 + used, 'E') != NULL;
		cr_assert_lt(n, max);
		v[n++] = s;
	}
	free(out);
	return n;
}

static size_t readelf_exec_loads(const char *path, struct rseg *v, size_t max)
{
	struct rseg all[32];
	size_t n = readelf_loads(path, all, 32), k = 0;

	for (size_t i = 0; i < n; i++)
		if (all[i].exec) {
			cr_assert_lt(k, max);
			v[k++] = all[i];
		}
	return k;
}

static size_t hex_to_bytes(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (hex[0] && hex[1] && n < max &&
	       strchr("0123456789abcdef", hex[0]) &&
	       strchr("0123456789abcdef", hex[1])) {
		unsigned v;

		sscanf(hex, "%2x", &v);
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return n;
}

/* "Build ID: ..." of `readelf -nW`; 0 when none. */
static size_t readelf_build_id(const char *path, uint8_t *id)
{
	char *out = run_ok("readelf -nW '%s'", path);
	char *p = strstr(out, "Build ID: ");
	size_t n = p ? hex_to_bytes(p + 10, id, 64) : 0;

	free(out);
	return n;
}

/* The build-id note's descriptor, cut out by objcopy. */
static size_t objcopy_build_id(const char *path, uint8_t *id)
{
	const char *dir = sy_test_mkdtemp();
	char cmd[2048], note[1024];
	uint8_t *b;
	size_t len, n;
	uint32_t namesz, descsz;

	snprintf(note, sizeof(note), "%s/note", dir);
	snprintf(cmd, sizeof(cmd),
		 "objcopy -I elf64-little --dump-section "
		 ".note.gnu.build-id='%s' '%s' '%s/junk'",
		 note, path, dir);
	cr_assert_eq(sy_test_run(cmd, NULL, NULL), 0, "%s", cmd);
	b = sy_test_read_file(note, &len);
	cr_assert_not_null(b);
	cr_assert_geq(len, 16u);
	memcpy(&namesz, b, 4);
	memcpy(&descsz, b + 4, 4);
	cr_assert_eq(namesz, 4u);
	cr_assert_str_eq((const char *)b + 12, "GNU");
	n = descsz;
	cr_assert_leq(16 + n, len);
	memcpy(id, b + 16, n);
	free(b);
	sy_test_rmtree(dir);
	return n;
}

/* .text placement from `readelf -SW` and its bytes from objcopy. */
static uint8_t *objcopy_text(const char *path, uint64_t *addr, size_t *len)
{
	char *out = run_ok("readelf -SW '%s'", path);
	char *p = strstr(out, " .text ");
	const char *dir;
	char cmd[2048], bin[1024];
	uint64_t off, size;
	uint8_t *b;

	cr_assert_not_null(p, "%s has no .text", path);
	cr_assert_eq(sscanf(p, " .text %*s %" SCNx64 " %" SCNx64 " %" SCNx64,
			    addr, &off, &size),
		     3);
	free(out);
	dir = sy_test_mkdtemp();
	snprintf(bin, sizeof(bin), "%s/text", dir);
	snprintf(cmd, sizeof(cmd),
		 "objcopy -I elf64-little -O binary --only-section=.text "
		 "'%s' '%s'", path, bin);
	cr_assert_eq(sy_test_run(cmd, NULL, NULL), 0, "%s", cmd);
	b = sy_test_read_file(bin, len);
	cr_assert_not_null(b);
	cr_assert_eq(*len, size);
	sy_test_rmtree(dir);
	return b;
}

/* Recorded paths are absolute: a fixture's absolute path, in @out. */
static const char *absp(char *out, const char *rel)
{
	cr_assert_not_null(realpath(rel, out), "realpath %s", rel);
	return out;
}

static uint8_t *file_bytes(const char *path, size_t *len)
{
	uint8_t *b = sy_test_read_file(path, len);

	cr_assert_not_null(b, "cannot read %s", path);
	return b;
}

static void copy_file(const char *src, const char *dst)
{
	size_t len;
	uint8_t *b = file_bytes(src, &len);
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", dst);
	cr_assert_eq(sy_test_run(cmd, NULL, NULL), 0);
	cr_assert_eq(sy_test_write_file(dst, b, len), 0, "write %s", dst);
	free(b);
}

/* --- Fixture programs ---------------------------------------------------- */

/* No pointers: criterion copies parameters into its workers. */
struct prog {
	char path[128];
	int shared;		/* under ../shared */
	uint16_t machine;
	uint16_t type;
};

static struct prog progs[] = {
	{ PROG_DIR "branchy-x86_64", 0, 62, 2 },
	{ PROG_DIR "branchy-aarch64", 0, 183, 2 },
	{ PROG_DIR "branchy-aarch64-pac", 0, 183, 2 },
	{ PROG_DIR "branchy-aarch64-pie", 0, 183, 3 },
	{ ETM_REL "symfs" ETM_LOOP, 1, 183, 3 },
};

static const char *prog_path(const struct prog *p)
{
	if (!p->shared)
		return p->path;
	sy_test_require_path(sy_test_shared_path(p->path));
	return sy_test_shared_path(p->path);
}

static struct sy_image *open_ok(const char *path)
{
	struct sy_image *img = NULL;
	struct sy_diag d = { 0 };
	int err = sy_image_open(&img, path, &d);

	cr_assert_eq(err, 0, "%s: %s", path, d.msg);
	return img;
}

ParameterizedTestParameters(elf, segments)
{
	return cr_make_param_array(struct prog, progs,
				   sizeof(progs) / sizeof(progs[0]));
}

/* Executable segments, machine, type and the llvm-profgen text base equal
 * what readelf reports. */
ParameterizedTest(struct prog *p, elf, segments)
{
	const char *path = prog_path(p);
	struct rseg want[16];
	size_t n = readelf_exec_loads(path, want, 16);
	struct sy_image *img = open_ok(path);
	const struct sy_image_seg *s = sy_image_segs(img);
	uint64_t tv, to;
	char *hdr = run_ok("readelf -hW '%s'", path);

	cr_assert_gt(n, 0u);
	cr_assert_eq(sy_image_nr_segs(img), n);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(s[i].vaddr, want[i].vaddr, "seg %zu vaddr", i);
		cr_expect_eq(s[i].offset, want[i].off, "seg %zu offset", i);
		cr_expect_eq(s[i].filesz, want[i].filesz, "seg %zu filesz", i);
		cr_expect_eq(s[i].memsz, want[i].memsz, "seg %zu memsz", i);
	}
	cr_expect_eq(sy_image_machine(img), p->machine);
	cr_expect_eq(sy_image_type(img), p->type);
	cr_expect_eq(sy_image_bits(img), 64u);
	/* second opinion from readelf's header, for the table above */
	cr_expect_not_null(strstr(hdr, p->machine == 62 ?
					       "Advanced Micro Devices X86-64" :
					       "AArch64"));
	cr_expect_not_null(strstr(hdr, p->type == 2 ? "EXEC (" : "DYN ("));
	cr_assert_eq(sy_image_text_base(img, &tv, &to), 0);
	cr_expect_eq(tv, want[0].vaddr & ~0xfffull);
	cr_expect_eq(to, want[0].off & ~0xfffull);
	cr_expect_str_eq(sy_image_path(img), path);
	free(hdr);
	sy_image_close(img);
}

ParameterizedTestParameters(elf, build_id)
{
	return cr_make_param_array(struct prog, progs,
				   sizeof(progs) / sizeof(progs[0]));
}

ParameterizedTest(struct prog *p, elf, build_id)
{
	const char *path = prog_path(p);
	uint8_t re[64], oc[64];
	size_t nre = readelf_build_id(path, re);
	size_t noc = objcopy_build_id(path, oc);
	struct sy_image *img = open_ok(path);
	const uint8_t *id;
	size_t n = sy_image_build_id(img, &id);

	cr_assert_gt(nre, 0u);
	cr_assert_eq(nre, noc);
	cr_assert_eq(memcmp(re, oc, nre), 0);
	cr_assert_eq(n, nre);
	cr_assert_eq(memcmp(id, re, n), 0);
	/* the simpleperf capture's id is the 16-byte kind */
	if (p->shared)
		cr_assert_eq(n, 16u);
	sy_image_close(img);
}

ParameterizedTestParameters(elf, code_bytes)
{
	return cr_make_param_array(struct prog, progs,
				   sizeof(progs) / sizeof(progs[0]));
}

/* Code read by vaddr is the file's bytes at readelf's offsets; nothing is
 * served outside executable segments; offsets map back to vaddrs. */
ParameterizedTest(struct prog *p, elf, code_bytes)
{
	const char *path = prog_path(p);
	struct rseg all[32], x[16];
	size_t nall = readelf_loads(path, all, 32);
	size_t nx = readelf_exec_loads(path, x, 16);
	size_t flen;
	uint8_t *file = file_bytes(path, &flen);
	struct sy_image *img = open_ok(path);

	for (size_t i = 0; i < nx; i++) {
		size_t len = (size_t)x[i].filesz, avail;
		uint8_t *buf = malloc(len + 64);
		const uint8_t *ptr;
		uint64_t va;

		cr_assert_not_null(buf);
		cr_assert_leq(x[i].off + len, flen);
		memset(buf, 0xcd, len + 64);
		/* asking for more stops at the end of the segment */
		cr_assert_eq(sy_image_read(img, x[i].vaddr, buf, len + 64),
			     len);
		cr_assert_eq(memcmp(buf, file + x[i].off, len), 0,
			     "segment %zu bytes differ", i);
		cr_assert_eq(buf[len], 0xcd, "wrote past what it returned");
		cr_assert_eq(sy_image_read(img, x[i].vaddr + len - 3, buf, 16),
			     3u);
		ptr = sy_image_code(img, x[i].vaddr + 5, &avail);
		cr_assert_not_null(ptr);
		cr_assert_eq(avail, len - 5);
		cr_assert_eq(memcmp(ptr, file + x[i].off + 5, 8), 0);
		cr_assert_eq(sy_image_off_to_vaddr(img, x[i].off, &va), 0);
		cr_assert_eq(va, x[i].vaddr);
		cr_assert_eq(sy_image_off_to_vaddr(img, x[i].off + len - 1,
						   &va), 0);
		cr_assert_eq(va, x[i].vaddr + len - 1);
		cr_assert_eq(sy_image_off_to_vaddr(img, x[i].off + len, &va),
			     -SY_E_INVALID);
		free(buf);
	}
	/* a vaddr in a non-executable segment, not also in an executable
	 * one, reads nothing */
	for (size_t i = 0; i < nall; i++) {
		uint8_t b[4];
		int covered = 0;

		if (all[i].exec || !all[i].filesz)
			continue;
		for (size_t k = 0; k < nx; k++)
			covered |= all[i].vaddr >= x[k].vaddr &&
				   all[i].vaddr < x[k].vaddr + x[k].filesz;
		if (!covered)
			cr_assert_eq(sy_image_read(img, all[i].vaddr, b, 4), 0u,
				     "served a non-executable segment");
	}
	cr_assert_eq(sy_image_read(img, 0xdead0000000ull, file, 4), 0u);
	free(file);
	sy_image_close(img);
}

ParameterizedTestParameters(elf, text_section)
{
	return cr_make_param_array(struct prog, progs,
				   sizeof(progs) / sizeof(progs[0]));
}

/* .text as objcopy extracts it, read at readelf's section address. */
ParameterizedTest(struct prog *p, elf, text_section)
{
	const char *path = prog_path(p);
	uint64_t addr;
	size_t len;
	uint8_t *want = objcopy_text(path, &addr, &len);
	uint8_t *got = malloc(len);
	struct sy_image *img = open_ok(path);

	cr_assert_not_null(got);
	cr_assert_eq(sy_image_read(img, addr, got, len), len);
	cr_assert_eq(memcmp(got, want, len), 0);
	free(want);
	free(got);
	sy_image_close(img);
}

/* Every function nm lists resolves to a name nm gives for its address
 * (aliases share addresses). */
Test(elf, symbols_match_nm)
{
	static const char *const files[] = { PROG_DIR "branchy-aarch64-pie",
					     PROG_DIR "branchy-x86_64" };

	for (size_t f = 0; f < 2; f++) {
		char *out = run_ok("nm -n --defined-only '%s'", files[f]);
		struct sy_image *img = open_ok(files[f]);
		struct { uint64_t addr; char name[128]; } *syms;
		size_t n = 0, checked = 0;

		syms = calloc(4096, sizeof(*syms));
		cr_assert_not_null(syms);
		for (char *line = strtok(out, "\n"); line && n < 4096;
		     line = strtok(NULL, "\n")) {
			char type;

			if (sscanf(line, "%" SCNx64 " %c %127s", &syms[n].addr,
				   &type, syms[n].name) == 3 &&
			    (type == 't' || type == 'T') &&
			    syms[n].name[0] != '$')
				n++;
		}
		for (size_t i = 0; i < n; i++) {
			const char *got;
			uint64_t off;
			int listed = 0;

			cr_assert_eq(sy_image_symbol(img, syms[i].addr, &got,
						     &off), 0,
				     "%s: no symbol at %#" PRIx64, files[f],
				     syms[i].addr);
			cr_assert_eq(off, 0u);
			for (size_t k = 0; k < n; k++)
				listed |= syms[k].addr == syms[i].addr &&
					  !strcmp(syms[k].name, got);
			cr_assert(listed, "%s: %s at %#" PRIx64, files[f], got,
				  syms[i].addr);
			/* two bytes in, still the same function */
			if (i + 1 < n && syms[i + 1].addr > syms[i].addr + 2) {
				cr_assert_eq(sy_image_symbol(img,
							     syms[i].addr + 2,
							     &got, &off), 0);
				cr_assert_eq(off, 2u);
			}
			checked++;
		}
		cr_assert_gt(checked, 10u);
		cr_assert_eq(sy_image_symbol(img, 0x10, &(const char *){ 0 },
					     NULL), -SY_E_INVALID);
		free(syms);
		free(out);
		sy_image_close(img);
	}
}

/* The function before an address in the padding after it: nm's sizes
 * (-S) say where each function ends; a byte of the gap to the next one
 * is in no function (sy_image_symbol), and its function below is the
 * one that ended (sy_image_symbol_below), with nm's start and size. */
Test(elf, symbol_below_reaches_past_the_end)
{
	char *out = run_ok("nm -n -S --defined-only '%s'",
			   PROG_DIR "branchy-x86_64");
	struct sy_image *img = open_ok(PROG_DIR "branchy-x86_64");
	struct { uint64_t addr, size; } f[512];
	size_t n = 0, gaps = 0;
	uint64_t start, size;

	for (char *line = strtok(out, "\n"); line && n < 512;
	     line = strtok(NULL, "\n")) {
		char type;

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c", &f[n].addr,
			   &f[n].size, &type) == 3 &&
		    (type == 't' || type == 'T'))
			n++;
	}
	cr_assert_gt(n, 10u);
	for (size_t i = 0; i + 1 < n; i++) {
		uint64_t end = f[i].addr + f[i].size;

		/* inside: its own */
		cr_assert_eq(sy_image_symbol_below(img, end - 1, &start,
						   &size), 0);
		cr_assert_eq(start, f[i].addr);
		cr_assert_eq(size, f[i].size);
		if (end >= f[i + 1].addr)
			continue;
		/* each byte of the gap: no function covers it, the one
		 * below ends before it */
		for (uint64_t a = end; a < f[i + 1].addr; a++) {
			cr_assert_eq(sy_image_symbol(img, a,
						     &(const char *){ 0 },
						     NULL),
				     -SY_E_INVALID, "%#" PRIx64, a);
			cr_assert_eq(sy_image_symbol_below(img, a, &start,
							   &size), 0);
			cr_assert_eq(start, f[i].addr, "%#" PRIx64, a);
			cr_assert_eq(size, f[i].size);
		}
		gaps++;
	}
	cr_assert_gt(gaps, 10u, "%zu gaps", gaps);
	cr_assert_eq(sy_image_symbol_below(img, f[0].addr - 1, &start,
					   &size), -SY_E_INVALID);
	sy_image_close(img);
	free(out);
}

Test(elf, open_errors)
{
	const char *dir = sy_test_mkdtemp();
	char p[1024];
	struct sy_image *img = (struct sy_image *)&p;
	struct sy_diag d = { 0 };
	size_t len;
	uint8_t *b;

	snprintf(p, sizeof(p), "%s/none", dir);
	cr_assert_eq(sy_image_open(&img, p, &d), -SY_E_IO);
	cr_assert_null(img);
	cr_assert_eq(strncmp(d.msg, p, strlen(p)), 0, "%s", d.msg);
	cr_assert_eq(sy_image_open(&img, dir, &d), -SY_E_IO);
	snprintf(p, sizeof(p), "%s/text", dir);
	cr_assert_eq(sy_test_write_file(p, "hello, world\n", 13), 0);
	cr_assert_eq(sy_image_open(&img, p, &d), -SY_E_BAD_ELF);
	cr_assert_eq(strncmp(d.msg, p, strlen(p)), 0, "%s", d.msg);
	/* the header survives, the program headers do not */
	b = file_bytes(PROG_DIR "branchy-x86_64", &len);
	snprintf(p, sizeof(p), "%s/trunc", dir);
	cr_assert_eq(sy_test_write_file(p, b, 64), 0);
	cr_assert_eq(sy_image_open(&img, p, &d), -SY_E_BAD_ELF);
	/* an executable segment claiming bytes past the end of the file:
	 * cut the file inside the text segment (offset 0x1000, readelf) */
	snprintf(p, sizeof(p), "%s/short", dir);
	cr_assert_eq(sy_test_write_file(p, b, 0x1100), 0);
	cr_assert_eq(sy_image_open(&img, p, &d), -SY_E_BAD_ELF);
	cr_assert_not_null(strstr(d.msg, "past the end"), "%s", d.msg);
	free(b);
	sy_image_close(NULL);
	cr_assert_eq(sy_image_open(NULL, p, NULL), -SY_E_INVALID);
	sy_test_rmtree(dir);
}

struct bid_case {
	uint8_t a[20], b[20];
	uint8_t alen, blen;
	int equal;
};

Test(elf, build_id_equal)
{
	static const struct bid_case cases[] = {
		/* simpleperf: 16 bytes padded to 20 */
		{ { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 },
		  { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 },
		  16, 20, 1 },
		{ { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 },
		  { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0,
		    0, 0, 1 },
		  16, 20, 0 },
		{ { 1, 2, 3 }, { 1, 2, 4 }, 3, 3, 0 },
		{ { 9, 9 }, { 9, 9 }, 2, 2, 1 },
		{ { 0 }, { 0 }, 0, 0, 0 },
		{ { 5 }, { 5 }, 1, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bid_case *c = &cases[i];

		cr_expect_eq(sy_build_id_equal(c->a, c->alen, c->b, c->blen),
			     c->equal, "case %zu", i);
		cr_expect_eq(sy_build_id_equal(c->b, c->blen, c->a, c->alen),
			     c->equal, "case %zu swapped", i);
	}
}

/* --- Finding binaries ---------------------------------------------------- */

struct warns {
	int n, n_bid;
	char last[256];
};

static void warn_cb(void *ctx, const struct sy_diag *d)
{
	struct warns *w = ctx;

	w->n++;
	w->n_bid += d->err == -SY_E_BUILD_ID;
	snprintf(w->last, sizeof(w->last), "%s", d->msg);
}

static struct sy_image_cache *cache_ok(const struct sy_image_opts *o,
				       struct warns *w)
{
	struct sy_image_cache *c = NULL;
	struct sy_diag d = { 0 };

	cr_assert_eq(sy_image_cache_new(&c, o, &d), 0, "%s", d.msg);
	if (w)
		sy_image_cache_set_warn(c, warn_cb, w);
	return c;
}

static void hexstr(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

/* DIR/.build-id/xx/rest/elf for @id */
static void buildid_path(char *out, size_t max, const char *dir,
			 const uint8_t *id, size_t n)
{
	char hex[41];

	hexstr(hex, id, n);
	snprintf(out, max, "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
}

/* One recorded binary reachable four ways. */
struct layout {
	char dir[512];
	char rec[1024];		/* recorded path (exists) */
	char symfs[1024], symfs_file[2048];
	char bid_dir[1024], bid_file[2048];
	char ovr[1024], ovr_other[1024];
	uint8_t id[64];
	size_t id_len;
};

static void make_layout(struct layout *l, const char *src)
{
	snprintf(l->dir, sizeof(l->dir), "%s", sy_test_mkdtemp());
	snprintf(l->rec, sizeof(l->rec), "%s/rec/prog", l->dir);
	snprintf(l->symfs, sizeof(l->symfs), "%s/symfs", l->dir);
	snprintf(l->symfs_file, sizeof(l->symfs_file), "%s%s", l->symfs,
		 l->rec);
	snprintf(l->bid_dir, sizeof(l->bid_dir), "%s/debug", l->dir);
	snprintf(l->ovr, sizeof(l->ovr), "%s/ovr/prog", l->dir);
	snprintf(l->ovr_other, sizeof(l->ovr_other), "%s/ovr2/other-name",
		 l->dir);
	l->id_len = readelf_build_id(src, l->id);
	cr_assert_eq(l->id_len, 20u);
	buildid_path(l->bid_file, sizeof(l->bid_file), l->bid_dir, l->id,
		     l->id_len);
	copy_file(src, l->rec);
	copy_file(src, l->symfs_file);
	copy_file(src, l->bid_file);
	copy_file(src, l->ovr);
	copy_file(src, l->ovr_other);
}

/* Looks @l->rec up with its build-id and returns the image's path. */
static const char *find_src(struct sy_image_cache *c, const struct layout *l,
			    enum sy_image_src want_src, int want_err)
{
	struct sy_image_lookup r;
	int err = sy_image_cache_find(c, l->rec, l->id, l->id_len, &r);

	cr_assert_eq(err, want_err, "err %s", sy_errname(err));
	cr_assert_eq(r.src, want_src);
	cr_assert_str_eq(r.path, l->rec);
	return r.img ? sy_image_path(r.img) : NULL;
}

Test(cache, lookup_order)
{
	struct layout l;
	const char *bins[1];
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c;
	const uint8_t *id;

	make_layout(&l, PROG_DIR "branchy-x86_64");
	o.binaries = bins;
	o.nr_binaries = 1;
	o.symfs = l.symfs;
	o.buildid_dir = l.bid_dir;

	/* --binary by basename beats everything */
	bins[0] = l.ovr;
	c = cache_ok(&o, NULL);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_BINARY, 0), l.ovr);
	sy_image_cache_free(c);

	/* --binary by build-id, whatever its name */
	bins[0] = l.ovr_other;
	c = cache_ok(&o, NULL);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_BINARY, 0), l.ovr_other);
	sy_image_cache_free(c);

	/* then symfs + the recorded path */
	o.nr_binaries = 0;
	c = cache_ok(&o, NULL);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_SYMFS, 0), l.symfs_file);
	sy_image_cache_free(c);

	/* then the build-id cache */
	o.symfs = NULL;
	c = cache_ok(&o, NULL);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_BUILDID, 0), l.bid_file);
	sy_image_cache_free(c);

	/* then the recorded path */
	o.buildid_dir = "";
	c = cache_ok(&o, NULL);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_RECORDED, 0), l.rec);
	sy_image_cache_free(c);

	/* each step again with the winner removed, all options given */
	o.symfs = l.symfs;
	o.buildid_dir = l.bid_dir;
	cr_assert_eq(unlink(l.symfs_file), 0);
	c = cache_ok(&o, NULL);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_BUILDID, 0), l.bid_file);
	sy_image_cache_free(c);
	cr_assert_eq(unlink(l.bid_file), 0);
	c = cache_ok(&o, NULL);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_RECORDED, 0), l.rec);
	cr_assert_eq(sy_image_cache_missing(c, NULL, 0), 0u);
	sy_image_cache_free(c);
	cr_assert_eq(unlink(l.rec), 0);
	c = cache_ok(&o, NULL);
	cr_assert_null(find_src(c, &l, SY_IMAGE_SRC_NONE, -SY_E_NO_IMAGE));
	cr_assert_eq(sy_image_cache_missing(c, NULL, 0), 1u);
	sy_image_cache_free(c);

	/* without a recorded build-id nothing is verified: symfs wins even
	 * with another program there */
	copy_file(PROG_DIR "branchy-aarch64", l.symfs_file);
	c = cache_ok(&o, NULL);
	{
		struct sy_image_lookup r;

		cr_assert_eq(sy_image_cache_find(c, l.rec, NULL, 0, &r), 0);
		cr_assert_eq(r.src, SY_IMAGE_SRC_SYMFS);
		cr_assert_eq(sy_image_machine(r.img), 183);
		cr_assert_eq(sy_image_build_id(r.img, &id), 20u);
	}
	sy_image_cache_free(c);
	sy_test_rmtree(l.dir);
}

Test(cache, build_id_mismatch)
{
	struct layout l;
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c;
	struct sy_image_missing miss[4];
	struct warns w = { 0 };
	char hex[41];
	const char *bins[1];

	make_layout(&l, PROG_DIR "branchy-x86_64");
	/* only a different program at the symfs path */
	copy_file(PROG_DIR "branchy-aarch64", l.symfs_file);
	cr_assert_eq(unlink(l.bid_file), 0);
	cr_assert_eq(unlink(l.rec), 0);
	o.symfs = l.symfs;
	o.buildid_dir = l.bid_dir;
	c = cache_ok(&o, &w);
	cr_assert_null(find_src(c, &l, SY_IMAGE_SRC_NONE, -SY_E_BUILD_ID));
	cr_assert_eq(w.n_bid, 1);
	hexstr(hex, l.id, l.id_len);
	cr_assert_not_null(strstr(w.last, hex), "%s", w.last);
	/* branchy-aarch64's id, as readelf prints it */
	cr_assert_not_null(strstr(w.last,
				  "18b2c827a4428cd929c39c1d4ffa60f38bbc8d51"),
			   "%s", w.last);
	cr_assert_eq(strncmp(w.last, l.rec, strlen(l.rec)), 0);
	/* memoised: asking again neither probes nor warns again */
	cr_assert_null(find_src(c, &l, SY_IMAGE_SRC_NONE, -SY_E_BUILD_ID));
	cr_assert_eq(w.n, 1);
	cr_assert_eq(sy_image_cache_missing(c, miss, 4), 1u);
	cr_assert_eq(miss[0].err, -SY_E_BUILD_ID);
	cr_assert_eq(miss[0].lookups, 2u);
	sy_image_cache_free(c);

	/* allowed: the mismatching file is used, with a warning */
	o.allow_mismatch = 1;
	memset(&w, 0, sizeof(w));
	c = cache_ok(&o, &w);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_SYMFS, 0), l.symfs_file);
	cr_assert_geq(w.n_bid, 1);
	cr_assert_eq(sy_image_cache_missing(c, NULL, 0), 0u);
	sy_image_cache_free(c);

	/* a matching candidate further down wins over an allowed mismatch */
	copy_file(PROG_DIR "branchy-x86_64", l.bid_file);
	memset(&w, 0, sizeof(w));
	c = cache_ok(&o, &w);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_BUILDID, 0), l.bid_file);
	cr_assert_eq(w.n_bid, 1);
	sy_image_cache_free(c);

	/* a --binary matched by name is verified too */
	o.allow_mismatch = 0;
	o.symfs = NULL;
	copy_file(PROG_DIR "branchy-aarch64-pac", l.ovr);
	bins[0] = l.ovr;
	o.binaries = bins;
	o.nr_binaries = 1;
	memset(&w, 0, sizeof(w));
	c = cache_ok(&o, &w);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_BUILDID, 0), l.bid_file);
	cr_assert_eq(w.n_bid, 1);
	cr_assert_not_null(strstr(w.last, l.ovr), "%s", w.last);
	sy_image_cache_free(c);
	sy_test_rmtree(l.dir);
}

/* A 16-byte build-id recorded zero-padded to 20 bytes (simpleperf) matches
 * the file and is found in the build-id cache under its real length. */
Test(cache, simpleperf_padding)
{
	const char *dir;
	char src[1024], cmd[2048], rec[1024], symfs[1024], sf[2048];
	char bdir[1024], bfile[2048];
	uint8_t id[64], pad[20];
	size_t n;
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c;
	struct sy_image_lookup r;

	sy_test_require_tool("cc");
	dir = sy_test_mkdtemp();
	snprintf(src, sizeof(src), "%s/md5prog", dir);
	snprintf(cmd, sizeof(cmd),
		 "printf 'int main(void){return 0;}\\n' | "
		 "cc -x c - -o '%s' -Wl,--build-id=md5", src);
	cr_assert_eq(sy_test_run(cmd, NULL, NULL), 0, "%s", cmd);
	n = readelf_build_id(src, id);
	cr_assert_eq(n, 16u);
	memcpy(pad, id, 16);
	memset(pad + 16, 0, 4);

	snprintf(rec, sizeof(rec), "/system/bin/md5prog");
	snprintf(symfs, sizeof(symfs), "%s/symfs", dir);
	snprintf(sf, sizeof(sf), "%s%s", symfs, rec);
	copy_file(src, sf);
	o.symfs = symfs;
	o.buildid_dir = "";
	c = cache_ok(&o, NULL);
	cr_assert_eq(sy_image_cache_find(c, rec, pad, 20, &r), 0);
	cr_assert_str_eq(sy_image_path(r.img), sf);
	/* one wrong padding byte is a mismatch */
	pad[19] = 1;
	cr_assert_eq(sy_image_cache_find(c, rec, pad, 20, &r), -SY_E_BUILD_ID);
	pad[19] = 0;
	sy_image_cache_free(c);

	/* build-id cache: perf files it under the 16-byte id */
	snprintf(bdir, sizeof(bdir), "%s/debug", dir);
	buildid_path(bfile, sizeof(bfile), bdir, id, 16);
	copy_file(src, bfile);
	o.symfs = NULL;
	o.buildid_dir = bdir;
	c = cache_ok(&o, NULL);
	cr_assert_eq(sy_image_cache_find(c, rec, pad, 20, &r), 0);
	cr_assert_eq(r.src, SY_IMAGE_SRC_BUILDID);
	cr_assert_str_eq(sy_image_path(r.img), bfile);
	sy_image_cache_free(c);
	sy_test_rmtree(dir);
}

/* [vdso], the kernel and anonymous memory name no file: even a valid ELF
 * at symfs + that name is not looked at.  Only a --binary with the
 * recorded build-id serves them. */
Test(cache, special_paths)
{
	static const char *const special[] = { "[vdso]", "[heap]", "[stack]",
					       "[kernel.kallsyms]_text",
					       "//anon", "/memfd:jit (deleted)",
					       "/tmp/perf-1234.map" };
	static const char *const normal[] = { "/usr/lib/libc.so.6",
					      "/tmp/perf-data/prog",
					      "/anon/x" };
	const char *dir = sy_test_mkdtemp();
	char symfs[1024], p[2048];
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c;
	struct sy_image_lookup r;
	struct sy_image_missing miss[16];
	uint8_t id[64];
	size_t n;
	const char *bins[1];

	snprintf(symfs, sizeof(symfs), "%s/symfs", dir);
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		cr_assert(sy_image_path_special(special[i]), "%s", special[i]);
		snprintf(p, sizeof(p), "%s/%s", symfs, special[i]);
		copy_file(PROG_DIR "branchy-x86_64", p);
	}
	for (size_t i = 0; i < sizeof(normal) / sizeof(normal[0]); i++)
		cr_assert(!sy_image_path_special(normal[i]), "%s", normal[i]);
	cr_assert(sy_image_path_kernel("[kernel.kallsyms]_text"));
	cr_assert(!sy_image_path_kernel("[vdso]"));

	o.symfs = symfs;
	o.buildid_dir = "";
	c = cache_ok(&o, NULL);
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		/* the kernel's says what to pass */
		cr_assert_eq(sy_image_cache_find(c, special[i], NULL, 0, &r),
			     sy_image_path_kernel(special[i]) ?
				     -SY_E_NO_KERNEL :
				     -SY_E_NO_IMAGE,
			     "%s", special[i]);
		cr_assert_null(r.img);
	}
	cr_assert_eq(sy_image_cache_missing(c, miss, 16), 7u);
	for (size_t i = 0; i < 7; i++)
		cr_assert(miss[i].special);
	sy_image_cache_free(c);

	/* --binary with the vdso's recorded build-id */
	n = readelf_build_id(PROG_DIR "branchy-aarch64", id);
	bins[0] = PROG_DIR "branchy-aarch64";
	o.binaries = bins;
	o.nr_binaries = 1;
	c = cache_ok(&o, NULL);
	cr_assert_eq(sy_image_cache_find(c, "[vdso]", id, n, &r), 0);
	cr_assert_eq(r.src, SY_IMAGE_SRC_BINARY);
	/* but never by name */
	cr_assert_eq(sy_image_cache_find(c, "[branchy-aarch64]", NULL, 0, &r),
		     -SY_E_NO_IMAGE);
	sy_image_cache_free(c);
	sy_test_rmtree(dir);
}

/* Missing binaries: one entry per path, sorted, with the lookups and the
 * windows they cost; the disk is probed once per (path, build-id). */
Test(cache, missing_counted_once)
{
	const char *dir = sy_test_mkdtemp();
	char a[1024], b[1024];
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c;
	struct sy_image_lookup r;
	struct sy_image_missing miss[4];

	snprintf(a, sizeof(a), "%s/b/liba.so", dir);
	snprintf(b, sizeof(b), "%s/a/libb.so", dir);
	o.buildid_dir = "";
	c = cache_ok(&o, NULL);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(sy_image_cache_find(c, a, NULL, 0, &r),
			     -SY_E_NO_IMAGE);
	/* appears after the lookups: the answer is remembered, the disk
	 * not probed again */
	copy_file(PROG_DIR "branchy-x86_64", a);
	cr_assert_eq(sy_image_cache_find(c, a, NULL, 0, &r), -SY_E_NO_IMAGE);
	copy_file(PROG_DIR "branchy-x86_64", b);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(sy_image_cache_find(c, b, NULL, 0, &r), 0);
	cr_assert_eq(unlink(b), 0);
	cr_assert_eq(sy_image_cache_find(c, b, NULL, 0, &r), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(sy_image_cache_charge(c, r.path), 0);
	cr_assert_eq(sy_image_cache_charge(c, a), 0);
	cr_assert_eq(sy_image_cache_missing(c, miss, 4), 2u);
	/* sorted by path: ".../a/libb.so" before ".../b/liba.so" */
	cr_assert_str_eq(miss[0].path, b);
	cr_assert_eq(miss[0].lookups, 0u);
	cr_assert_eq(miss[0].windows, 3u);
	cr_assert_str_eq(miss[1].path, a);
	cr_assert_eq(miss[1].err, -SY_E_NO_IMAGE);
	cr_assert_eq(miss[1].lookups, 6u);
	cr_assert_eq(miss[1].windows, 1u);
	cr_assert(!miss[1].special);
	cr_assert_eq(sy_image_cache_missing(c, miss, 1), 2u);
	sy_image_cache_free(c);
	sy_test_rmtree(dir);
}

/* One file reached three ways is opened once. */
Test(cache, files_opened_once)
{
	struct layout l;
	const char *bins[1];
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c;
	struct sy_image_lookup r1, r2, r3;
	char link[2048];

	make_layout(&l, PROG_DIR "branchy-x86_64");
	snprintf(link, sizeof(link), "%s/rec/alias", l.dir);
	cr_assert_eq(symlink(l.rec, link), 0);
	bins[0] = l.rec;
	o.binaries = bins;
	o.nr_binaries = 1;
	o.buildid_dir = "";
	c = cache_ok(&o, NULL);
	cr_assert_eq(sy_image_cache_find(c, "/elsewhere/prog", l.id, l.id_len,
					 &r1), 0);
	cr_assert_eq(sy_image_cache_find(c, link, NULL, 0, &r2), 0);
	cr_assert_eq(r2.src, SY_IMAGE_SRC_RECORDED);
	cr_assert_eq(sy_image_cache_find(c, l.rec, NULL, 0, &r3), 0);
	cr_assert_eq(r1.img, r2.img);
	cr_assert_eq(r1.img, r3.img);
	sy_image_cache_free(c);
	sy_test_rmtree(l.dir);
}

Test(cache, buildid_dir_default)
{
	struct layout l;
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c;
	char home[1024], hd[1100], hf[2048];

	make_layout(&l, PROG_DIR "branchy-x86_64");
	cr_assert_eq(unlink(l.rec), 0);
	/* $PERF_BUILDID_DIR */
	cr_assert_eq(setenv("PERF_BUILDID_DIR", l.bid_dir, 1), 0);
	c = cache_ok(&o, NULL);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_BUILDID, 0), l.bid_file);
	sy_image_cache_free(c);
	/* else $HOME/.debug */
	cr_assert_eq(unsetenv("PERF_BUILDID_DIR"), 0);
	snprintf(home, sizeof(home), "%s/home", l.dir);
	cr_assert_eq(setenv("HOME", home, 1), 0);
	c = cache_ok(&o, NULL);
	cr_assert_null(find_src(c, &l, SY_IMAGE_SRC_NONE, -SY_E_NO_IMAGE));
	sy_image_cache_free(c);
	snprintf(hd, sizeof(hd), "%s/.debug", home);
	buildid_path(hf, sizeof(hf), hd, l.id, l.id_len);
	copy_file(PROG_DIR "branchy-x86_64", hf);
	c = cache_ok(&o, NULL);
	cr_assert_str_eq(find_src(c, &l, SY_IMAGE_SRC_BUILDID, 0), hf);
	sy_image_cache_free(c);
	sy_test_rmtree(l.dir);
}

Test(cache, bad_override)
{
	const char *dir = sy_test_mkdtemp();
	char p[1024];
	const char *bins[1] = { p };
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c = (struct sy_image_cache *)&o;
	struct sy_diag d = { 0 };

	o.binaries = bins;
	o.nr_binaries = 1;
	snprintf(p, sizeof(p), "%s/nothing", dir);
	cr_assert_eq(sy_image_cache_new(&c, &o, &d), -SY_E_IO);
	cr_assert_null(c);
	cr_assert_eq(strncmp(d.msg, p, strlen(p)), 0, "%s", d.msg);
	snprintf(p, sizeof(p), "%s/text", dir);
	cr_assert_eq(sy_test_write_file(p, "not elf", 7), 0);
	cr_assert_eq(sy_image_cache_new(&c, &o, &d), -SY_E_BAD_ELF);
	cr_assert_eq(strncmp(d.msg, p, strlen(p)), 0, "%s", d.msg);
	cr_assert_eq(sy_image_cache_new(&c, NULL, &d), -SY_E_INVALID);
	sy_image_cache_free(NULL);
	sy_test_rmtree(dir);
}

/* --- Address spaces ------------------------------------------------------ */

static struct sy_ev_mmap mk_map(uint32_t pid, uint64_t addr, uint64_t len,
				uint64_t pgoff, uint32_t prot, const char *file)
{
	struct sy_ev_mmap m;

	memset(&m, 0, sizeof(m));
	m.pid = m.tid = pid;
	m.addr = addr;
	m.len = len;
	m.pgoff = pgoff;
	m.is_mmap2 = 1;
	m.prot = prot;
	m.filename = file;
	return m;
}

static void map_ok(struct sy_proc_table *t, uint32_t pid, uint64_t addr,
		   uint64_t len, uint64_t pgoff, uint32_t prot,
		   const char *file)
{
	struct sy_ev_mmap m = mk_map(pid, addr, len, pgoff, prot, file);

	cr_assert_eq(sy_proc_table_mmap(t, &m, SY_MISC_USER), 0);
}

static void fork_ok(struct sy_proc_table *t, uint32_t pid, uint32_t ppid,
		    uint32_t tid)
{
	struct sy_ev_task k = { pid, ppid, tid, ppid, 0 };

	cr_assert_eq(sy_proc_table_fork(t, &k), 0);
}

static void exec_ok(struct sy_proc_table *t, uint32_t pid)
{
	struct sy_ev_comm cm = { pid, pid, "new", 1 };

	cr_assert_eq(sy_proc_table_comm(t, &cm), 0);
}

struct world {
	struct sy_image_cache *cache;
	struct sy_proc_table *t;
	struct sy_mem_reader *rd;
};

static void world_init(struct world *w, const struct sy_image_opts *o)
{
	struct sy_image_opts def = { 0 };

	def.buildid_dir = "";
	w->cache = cache_ok(o ? o : &def, NULL);
	cr_assert_eq(sy_proc_table_new(&w->t, w->cache), 0);
	cr_assert_eq(sy_mem_reader_new(&w->rd, w->cache), 0);
}

static void world_fini(struct world *w)
{
	sy_mem_reader_free(w->rd);
	sy_proc_table_free(w->t);
	sy_image_cache_free(w->cache);
}

/* Reads through a fresh snapshot of the table. */
static size_t snap_read(struct world *w, uint32_t pid, uint64_t addr,
			uint8_t *buf, size_t len)
{
	struct sy_proc_snap *s = sy_proc_table_snapshot(w->t);
	size_t n;

	cr_assert_not_null(s);
	sy_mem_reader_begin(w->rd, s);
	sy_proc_snap_put(s);
	n = sy_mem_read(w->rd, pid, addr, buf, len);
	sy_mem_reader_end(w->rd);
	return n;
}

/* The PIE loaded at a non-zero base like the dynamic loader maps it reads
 * the ELF's bytes at base-relative addresses. */
Test(aspace, pie_at_base)
{
	char pie_abs[PATH_MAX];
	const char *pie = absp(pie_abs, PROG_DIR "branchy-aarch64-pie");
	const uint64_t base = 0x5555aaa00000ull;
	struct rseg x[4];
	size_t nx = readelf_exec_loads(pie, x, 4), tlen, flen;
	uint64_t taddr;
	uint8_t *text = objcopy_text(pie, &taddr, &tlen);
	uint8_t *file = file_bytes(pie, &flen);
	uint8_t *buf = malloc(tlen), b[16];
	struct world w;
	struct sy_image *img = open_ok(pie);
	struct sy_proc_snap *s;

	cr_assert_eq(nx, 1u);
	cr_assert_eq(x[0].off, 0u);
	world_init(&w, NULL);
	/* r-x text page(s), then the rw- data page */
	map_ok(w.t, 100, base, 0x1000, 0, 5, pie);
	map_ok(w.t, 100, base + 0x1000, 0x1000, 0, 3, pie);
	s = sy_proc_table_snapshot(w.t);
	sy_mem_reader_begin(w.rd, s);
	cr_assert_eq(sy_mem_read(w.rd, 100, base + taddr, buf, tlen), tlen);
	cr_assert_eq(memcmp(buf, text, tlen), 0);
	/* every exec byte equals the file and the image at the same vaddr */
	for (uint64_t v = 0; v + 16 <= x[0].filesz; v += 4) {
		uint8_t e[16];

		cr_assert_eq(sy_mem_read(w.rd, 100, base + v, b, 16), 16u);
		cr_assert_eq(memcmp(b, file + x[0].off + v, 16), 0, "%#lx",
			     (unsigned long)v);
		cr_assert_eq(sy_image_read(img, x[0].vaddr + v, e, 16), 16u);
		cr_assert_eq(memcmp(b, e, 16), 0);
	}
	/* the segment ends at filesz, inside the mapping */
	cr_assert_eq(sy_mem_read(w.rd, 100, base + x[0].filesz - 8, b, 16),
		     8u);
	/* data page, below the base, another pid: nothing */
	cr_assert_eq(sy_mem_read(w.rd, 100, base + 0x1f10, b, 4), 0u);
	cr_assert_eq(sy_mem_read(w.rd, 100, base - 4, b, 4), 0u);
	cr_assert_eq(sy_mem_read(w.rd, 101, base + taddr, b, 4), 0u);
	cr_assert_geq(sy_mem_reader_stats(w.rd)->not_code, 1u);
	cr_assert_geq(sy_mem_reader_stats(w.rd)->unmapped, 1u);
	cr_assert_geq(sy_mem_reader_stats(w.rd)->unknown_ctx, 1u);
	/* the snapshot API agrees */
	{
		const struct sy_map *m = sy_proc_snap_find(s, 100, base + 8);

		cr_assert_not_null(m);
		cr_assert_eq(m->start, base);
		cr_assert_eq(m->flags & SY_MAP_CODE, SY_MAP_CODE);
		cr_assert_str_eq(sy_image_path(m->img), pie);
		cr_assert_eq(sy_aspace_read(sy_proc_snap_aspace(s, 100),
					    base + taddr, b, 16), 16u);
		cr_assert_eq(memcmp(b, text, 16), 0);
	}
	sy_mem_reader_end(w.rd);
	sy_proc_snap_put(s);
	sy_image_close(img);
	world_fini(&w);
	free(buf);
	free(text);
	free(file);
}

/* Reads that cross from one mapping into the next: the same file split in
 * two, two different files, and a missing file after a present one. */
Test(aspace, reads_across_mappings)
{
	char x86_abs[PATH_MAX];
	const char *x86 = absp(x86_abs, PROG_DIR "branchy-x86_64");
	char a64_abs[PATH_MAX];
	const char *a64 = absp(a64_abs, PROG_DIR "branchy-aarch64");
	struct rseg sx[4], sa[4];
	size_t fxl, fal;
	uint8_t *fx = file_bytes(x86, &fxl), *fa = file_bytes(a64, &fal);
	uint8_t b[64];
	struct world w;
	const uint64_t X = 0x70000000ull;

	cr_assert_eq(readelf_exec_loads(x86, sx, 4), 1u);
	cr_assert_eq(readelf_exec_loads(a64, sa, 4), 1u);
	cr_assert_geq(sx[0].filesz, 0x500u);
	world_init(&w, NULL);
	/* x86 text split at 0x400 bytes into two mappings */
	map_ok(w.t, 7, sx[0].vaddr, 0x400, sx[0].off, 5, x86);
	map_ok(w.t, 7, sx[0].vaddr + 0x400, 0x1000 - 0x400, sx[0].off + 0x400,
	       5, x86);
	cr_assert_eq(snap_read(&w, 7, sx[0].vaddr + 0x3e0, b, 64), 64u);
	cr_assert_eq(memcmp(b, fx + sx[0].off + 0x3e0, 64), 0);
	/* two files back to back */
	map_ok(w.t, 7, X, 0x100, sx[0].off, 5, x86);
	map_ok(w.t, 7, X + 0x100, 0x100, sa[0].off, 5, a64);
	cr_assert_eq(snap_read(&w, 7, X + 0xf0, b, 32), 32u);
	cr_assert_eq(memcmp(b, fx + sx[0].off + 0xf0, 16), 0);
	cr_assert_eq(memcmp(b + 16, fa + sa[0].off, 16), 0);
	/* the second one missing: the read stops where it begins, and the
	 * window is charged for it */
	map_ok(w.t, 7, X + 0x100, 0x100, 0, 5, "/nonexistent/libgone.so");
	cr_assert_eq(snap_read(&w, 7, X + 0xf0, b, 32), 16u);
	cr_assert_eq(memcmp(b, fx + sx[0].off + 0xf0, 16), 0);
	{
		struct sy_image_missing m[2];

		cr_assert_eq(sy_image_cache_missing(w.cache, m, 2), 1u);
		cr_assert_str_eq(m[0].path, "/nonexistent/libgone.so");
		cr_assert_eq(m[0].windows, 1u);
		cr_assert_eq(m[0].lookups, 1u);
	}
	world_fini(&w);
	free(fx);
	free(fa);
}

/* Random overlapping mappings against a page-by-page model of "the last
 * mapping placed wins, keeping its file offsets"; old snapshots keep
 * matching the model as it was. */
Test(aspace, overlay_model)
{
	enum { PAGES = 256, OPS = 600, EVERY = 60 };
	struct model {
		int owner;	/* index of the op, -1 unmapped */
		uint64_t off;
	};
	static struct model cur[PAGES], saved[OPS / EVERY][PAGES];
	static const char *const names[] = { "f0", "f1", "f2", "f3" };
	struct sy_proc_snap *snaps[OPS / EVERY];
	int owner_name[OPS];
	const uint64_t B = 0x10000000ull, P = 0x1000;
	struct world w;
	unsigned seed = 12345;
	size_t nsnap = 0;

	world_init(&w, NULL);
	for (int i = 0; i < PAGES; i++)
		cur[i].owner = -1;
	for (int op = 0; op < OPS; op++) {
		int s, l;
		uint64_t pgoff;

		seed = seed * 1103515245u + 12345u;
		s = (int)((seed >> 8) % (PAGES - 4));
		seed = seed * 1103515245u + 12345u;
		l = 1 + (int)((seed >> 8) % 24);
		if (s + l > PAGES)
			l = PAGES - s;
		seed = seed * 1103515245u + 12345u;
		pgoff = ((seed >> 8) % 64) * P;
		owner_name[op] = op % 4;
		/* data mappings: no lookups, only placement */
		map_ok(w.t, 9, B + (uint64_t)s * P, (uint64_t)l * P, pgoff, 1,
		       names[op % 4]);
		for (int k = 0; k < l; k++) {
			cur[s + k].owner = op;
			cur[s + k].off = pgoff + (uint64_t)k * P;
		}
		if ((op + 1) % EVERY == 0) {
			snaps[nsnap] = sy_proc_table_snapshot(w.t);
			memcpy(saved[nsnap], cur, sizeof(cur));
			nsnap++;
		}
	}
	for (size_t si = 0; si < nsnap; si++) {
		const struct sy_aspace *as = sy_proc_snap_aspace(snaps[si], 9);

		for (size_t i = 0; i + 1 < sy_aspace_nr_maps(as); i++)
			cr_assert_leq(sy_aspace_map(as, i)->end,
				      sy_aspace_map(as, i + 1)->start);
		for (int pg = 0; pg < PAGES; pg++) {
			const struct model *e = &saved[si][pg];
			uint64_t a = B + (uint64_t)pg * P + 0x123;
			const struct sy_map *m = sy_aspace_find(as, a);

			if (e->owner < 0) {
				cr_assert_null(m, "snap %zu page %d", si, pg);
				continue;
			}
			cr_assert_not_null(m, "snap %zu page %d", si, pg);
			cr_assert_str_eq(m->path, names[owner_name[e->owner]]);
			cr_assert_eq(m->pgoff + (a - m->start), e->off + 0x123,
				     "snap %zu page %d", si, pg);
			cr_assert_eq(m->flags & SY_MAP_CODE, 0u);
		}
		sy_proc_snap_put(snaps[si]);
	}
	cr_assert_null(sy_aspace_find(sy_proc_table_aspace(w.t, 9), B - 1));
	world_fini(&w);
}

/* 16 bytes at @at + 16 in @pid's space through @s equal @want. */
static int reads_code(struct sy_mem_reader *rd, struct sy_proc_snap *s,
		      uint32_t pid, uint64_t at, const uint8_t *want)
{
	uint8_t b[16];
	size_t n;

	sy_mem_reader_begin(rd, s);
	n = sy_mem_read(rd, pid, at + 16, b, 16);
	sy_mem_reader_end(rd);
	return n == 16 && !memcmp(b, want, 16);
}

/* Snapshots: a later mmap, an exec, a fork, a thread and an exit, each
 * seen by the snapshots taken after it and by no snapshot taken before. */
Test(aspace, snapshots)
{
	char x86_abs[PATH_MAX];
	const char *x86 = absp(x86_abs, PROG_DIR "branchy-x86_64");
	struct rseg sx[2];
	size_t fl;
	uint8_t *f = file_bytes(x86, &fl);
	struct world w;
	struct sy_proc_snap *s0, *s1, *s2, *s3, *again;
	const uint64_t A = 0x400000000ull, B = 0x500000000ull;
	struct sy_mem_reader *rd2;

	cr_assert_eq(readelf_exec_loads(x86, sx, 2), 1u);
	world_init(&w, NULL);
	cr_assert_eq(sy_mem_reader_new(&rd2, NULL), 0);
#define MAPX(pid, at) map_ok(w.t, pid, at, 0x1000, sx[0].off, 5, x86)
#define READS(snap, pid, at) \
	reads_code(rd2, snap, pid, at, f + sx[0].off + 16)
	MAPX(10, A);
	s0 = sy_proc_table_snapshot(w.t);
	again = sy_proc_table_snapshot(w.t);
	cr_assert_eq(s0, again, "no change, same snapshot");
	sy_proc_snap_put(again);
	MAPX(10, B);
	s1 = sy_proc_table_snapshot(w.t);
	cr_assert_neq(s0, s1);
	cr_assert(READS(s0, 10, A));
	cr_assert(!READS(s0, 10, B), "an old snapshot saw a later mmap");
	cr_assert(READS(s1, 10, B));

	/* fork copies, then parent and child go their own ways */
	fork_ok(w.t, 11, 10, 11);
	s2 = sy_proc_table_snapshot(w.t);
	cr_assert(READS(s2, 11, A));
	cr_assert(READS(s2, 11, B));
	cr_assert(!READS(s1, 11, A), "child visible before its fork");
	MAPX(10, A + 0x10000);
	MAPX(11, B + 0x10000);
	sy_proc_snap_put(s2);
	s2 = sy_proc_table_snapshot(w.t);
	cr_assert(READS(s2, 10, A + 0x10000));
	cr_assert(!READS(s2, 11, A + 0x10000));
	cr_assert(READS(s2, 11, B + 0x10000));
	cr_assert(!READS(s2, 10, B + 0x10000));

	/* a thread reads its process's space, including later mmaps */
	fork_ok(w.t, 10, 10, 12);
	MAPX(10, A + 0x20000);
	s3 = sy_proc_table_snapshot(w.t);
	cr_assert(READS(s3, 12, A));
	cr_assert(READS(s3, 12, A + 0x20000));
	cr_assert(!READS(s2, 12, A), "thread visible before its creation");

	/* exec empties the space, for later snapshots only */
	exec_ok(w.t, 10);
	sy_proc_snap_put(s2);
	s2 = sy_proc_table_snapshot(w.t);
	cr_assert(!READS(s2, 10, A));
	cr_assert(!READS(s2, 12, A));
	cr_assert(READS(s3, 10, A));
	cr_assert(READS(s2, 11, A), "exec reached into the child");
	cr_assert_eq(sy_aspace_nr_maps(sy_proc_table_aspace(w.t, 10)), 0u);

	/* exit: the space stays readable for trace flushed after it; a new
	 * process reusing the id gets its own parent's space */
	{
		struct sy_ev_task k = { 11, 10, 11, 10, 0 };

		cr_assert_eq(sy_proc_table_exit(w.t, &k), 0);
	}
	sy_proc_snap_put(s2);
	s2 = sy_proc_table_snapshot(w.t);
	cr_assert(READS(s2, 11, A));
	MAPX(20, B + 0x40000);
	fork_ok(w.t, 11, 20, 11);
	sy_proc_snap_put(s2);
	s2 = sy_proc_table_snapshot(w.t);
	cr_assert(!READS(s2, 11, A));
	cr_assert(READS(s2, 11, B + 0x40000));
	/* a thread id that was a process before resolves to the thread */
	fork_ok(w.t, 20, 20, 11);
	sy_proc_snap_put(s2);
	s2 = sy_proc_table_snapshot(w.t);
	MAPX(20, B + 0x50000);
	cr_assert(READS(s2, 11, B + 0x40000));
	sy_proc_snap_put(s2);
	s2 = sy_proc_table_snapshot(w.t);
	cr_assert(READS(s2, 11, B + 0x50000));
#undef MAPX
#undef READS
	/* snapshots outlive the table; drop them afterwards */
	sy_proc_table_free(w.t);
	w.t = NULL;
	sy_proc_snap_put(s0);
	sy_proc_snap_put(s1);
	sy_proc_snap_put(s2);
	sy_proc_snap_put(s3);
	sy_mem_reader_free(rd2);
	world_fini(&w);
	free(f);
}

static void exit_at(struct sy_proc_table *t, uint32_t pid, uint32_t tid,
		    uint64_t time)
{
	struct sy_ev_task k = { pid, pid, tid, pid, time };

	cr_assert_eq(sy_proc_table_exit(t, &k), 0);
}

/* Whether @id finds a space in a snapshot taken now. */
static int known_now(struct sy_proc_table *t, uint32_t id)
{
	struct sy_proc_snap *s = sy_proc_table_snapshot(t);
	int r = sy_proc_snap_aspace(s, id) != NULL;

	cr_assert_eq(r, sy_proc_table_aspace(t, id) != NULL,
		     "the table and its snapshot disagree on %u", id);
	sy_proc_snap_put(s);
	return r;
}

/* Forgetting what exited: a process goes at sy_proc_table_forget of a
 * time at or after its leader's EXIT, for snapshots taken after it only;
 * not while a thread of it the table knows is alive (a leader that called
 * pthread_exit); not when a later record shows the id alive again (reused
 * by a FORK, an mmap, an exec); never without the EXIT's time. */
Test(aspace, forget_exited)
{
	char x86_abs[PATH_MAX];
	const char *x86 = absp(x86_abs, PROG_DIR "branchy-x86_64");
	struct rseg sx[2];
	struct world w;
	struct sy_proc_snap *before;
	const uint64_t A = 0x400000000ull;

	cr_assert_eq(readelf_exec_loads(x86, sx, 2), 1u);
	world_init(&w, NULL);
#define MAPX(pid, at) map_ok(w.t, pid, at, 0x1000, sx[0].off, 5, x86)
	MAPX(10, A);
	exit_at(w.t, 10, 10, 100);
	before = sy_proc_table_snapshot(w.t);
	cr_assert_eq(sy_proc_table_oldest_exit(w.t), 100u);
	cr_assert_eq(sy_proc_table_forget(w.t, 99), 0);
	cr_assert(known_now(w.t, 10), "forgotten before its exit");
	cr_assert_eq(sy_proc_table_forget(w.t, 100), 0);
	cr_assert(!known_now(w.t, 10), "not forgotten at its exit");
	cr_assert_eq(sy_proc_table_forgotten(w.t), 1u);
	cr_assert_eq(sy_proc_table_oldest_exit(w.t), UINT64_MAX);
	cr_assert_neq(sy_proc_snap_aspace(before, 10), NULL,
		      "a snapshot taken before lost it");
	sy_proc_snap_put(before);

	/* the id reused by a new process before the forget: that one stays */
	MAPX(11, A);
	exit_at(w.t, 11, 11, 200);
	fork_ok(w.t, 11, 11 + 1000, 11);
	MAPX(11, A);
	cr_assert_eq(sy_proc_table_forget(w.t, 300), 0);
	cr_assert(known_now(w.t, 11), "a reused id's new process forgotten");

	/* an mmap after the leader's exit: something of it runs */
	MAPX(12, A);
	exit_at(w.t, 12, 12, 400);
	MAPX(12, A + 0x10000);
	cr_assert_eq(sy_proc_table_forget(w.t, 500), 0);
	cr_assert(known_now(w.t, 12), "forgotten after an mmap showed it");

	/* the leader exits first (pthread_exit); its threads run on */
	MAPX(20, A);
	fork_ok(w.t, 20, 20, 21);
	fork_ok(w.t, 20, 20, 22);
	exit_at(w.t, 20, 20, 600);
	cr_assert_eq(sy_proc_table_forget(w.t, 700), 0);
	cr_assert(known_now(w.t, 20), "forgotten with two threads alive");
	cr_assert(known_now(w.t, 21));
	/* one thread's EXIT twice counts once */
	exit_at(w.t, 20, 21, 800);
	exit_at(w.t, 20, 21, 810);
	cr_assert_eq(sy_proc_table_forget(w.t, 900), 0);
	cr_assert(!known_now(w.t, 21), "an exited thread kept");
	cr_assert(known_now(w.t, 20), "forgotten with a thread alive");
	cr_assert(known_now(w.t, 22));
	/* a thread id reused by a new thread before its forget stays */
	exit_at(w.t, 20, 22, 1000);
	fork_ok(w.t, 20, 20, 22);
	cr_assert_eq(sy_proc_table_forget(w.t, 1100), 0);
	cr_assert(known_now(w.t, 22), "a reused thread id forgotten");
	cr_assert(known_now(w.t, 20));
	/* the last thread goes, and the process with it, at its time */
	exit_at(w.t, 20, 22, 1200);
	cr_assert_eq(sy_proc_table_forget(w.t, 1199), 0);
	cr_assert(known_now(w.t, 20));
	cr_assert_eq(sy_proc_table_forget(w.t, 1200), 0);
	cr_assert(!known_now(w.t, 20), "kept after its last thread");
	cr_assert(!known_now(w.t, 22));

	/* an exec by a thread after its leader's exit leads the process
	 * again: it does not go with that thread's exit */
	MAPX(30, A);
	fork_ok(w.t, 30, 30, 31);
	exit_at(w.t, 30, 30, 1300);
	exec_ok(w.t, 30);
	MAPX(30, A);
	exit_at(w.t, 30, 31, 1400);
	cr_assert_eq(sy_proc_table_forget(w.t, 1500), 0);
	cr_assert(known_now(w.t, 30), "forgotten while its exec ran");

	/* an EXIT without a time is never forgotten */
	MAPX(40, A);
	exit_at(w.t, 40, 40, 0);
	cr_assert_eq(sy_proc_table_forget(w.t, UINT64_MAX), 0);
	cr_assert(known_now(w.t, 40));

	/* id -1 in a damaged FORK or EXIT is no error (it was none before
	 * the exits were kept), and is never forgotten */
	fork_ok(w.t, 40, 40, UINT32_MAX);
	fork_ok(w.t, UINT32_MAX, 40, UINT32_MAX);
	exit_at(w.t, UINT32_MAX, UINT32_MAX, 1600);
	exit_at(w.t, 40, UINT32_MAX, 1600);
	cr_assert_eq(sy_proc_table_forget(w.t, UINT64_MAX), 0);
	cr_assert(known_now(w.t, 40));
#undef MAPX
	world_fini(&w);
}

/* The kernel space (pid -1) serves every process; kernel addresses are
 * the image's link-time addresses.  A --binary stands in for vmlinux by
 * the build-id the BUILD_ID feature files under "[kernel.kallsyms]". */
Test(aspace, kernel_space)
{
	char x86_abs[PATH_MAX];
	const char *x86 = absp(x86_abs, PROG_DIR "branchy-x86_64");
	struct rseg sx[2];
	size_t fl;
	uint8_t *f = file_bytes(x86, &fl), b[16];
	const char *bins[1] = { x86 };
	struct sy_image_opts o = { 0 };
	struct sy_perf_build_id bid = { .pid = -1, .size = 20,
					.filename = "[kernel.kallsyms]" };
	struct sy_perf_features feat = { .build_ids = &bid,
					 .nr_build_ids = 1 };
	struct sy_ev_mmap m;
	struct world w;

	cr_assert_eq(readelf_exec_loads(x86, sx, 2), 1u);
	cr_assert_eq(readelf_build_id(x86, bid.id), 20u);
	o.binaries = bins;
	o.nr_binaries = 1;
	o.buildid_dir = "";
	m = mk_map(UINT32_MAX, sx[0].vaddr & ~0xfffull, 0x2000,
		   sx[0].vaddr & ~0xfffull, 0, "[kernel.kallsyms]_text");
	m.is_mmap2 = 0;
	for (int with_id = 0; with_id < 2; with_id++) {
		world_init(&w, &o);
		if (with_id)
			cr_assert_eq(sy_proc_table_set_build_ids(w.t, &feat),
				     0);
		cr_assert_eq(sy_proc_table_mmap(w.t, &m, SY_MISC_KERNEL), 0);
		map_ok(w.t, 5, 0x1000, 0x1000, 0, 5, "/nonexistent/x");
		for (uint32_t pid = 5; pid < 1000; pid += 994) {
			size_t n = snap_read(&w, pid, sx[0].vaddr + 4, b, 16);

			if (!with_id) {
				/* never by name: no image */
				cr_assert_eq(n, 0u);
				continue;
			}
			cr_assert_eq(n, 16u);
			cr_assert_eq(memcmp(b, f + sx[0].off + 4, 16), 0);
		}
		cr_assert_eq(sy_aspace_nr_maps(
				     sy_proc_table_aspace(w.t, UINT32_MAX)),
			     1u);
		cr_assert(sy_aspace_map(sy_proc_table_aspace(w.t, UINT32_MAX),
					0)->flags & SY_MAP_KERNEL);
		world_fini(&w);
	}
	free(f);
}

/* MMAP (not MMAP2) data mappings are not code; MMAP2 prot decides. */
Test(aspace, code_or_data)
{
	char x86_abs[PATH_MAX];
	const char *x86 = absp(x86_abs, PROG_DIR "branchy-x86_64");
	struct rseg sx[2];
	uint8_t b[4];
	struct sy_ev_mmap m;
	struct world w;

	cr_assert_eq(readelf_exec_loads(x86, sx, 2), 1u);
	world_init(&w, NULL);
	m = mk_map(3, 0x10000, 0x1000, sx[0].off, 0, x86);
	m.is_mmap2 = 0;
	cr_assert_eq(sy_proc_table_mmap(w.t, &m, SY_MISC_USER |
					SY_MISC_MMAP_DATA), 0);
	cr_assert_eq(snap_read(&w, 3, 0x10000, b, 4), 0u);
	cr_assert_eq(sy_mem_reader_stats(w.rd)->not_code, 1u);
	cr_assert_eq(sy_proc_table_mmap(w.t, &m, SY_MISC_USER), 0);
	cr_assert_eq(snap_read(&w, 3, 0x10000, b, 4), 4u);
	map_ok(w.t, 3, 0x10000, 0x1000, sx[0].off, 1, x86);	/* r-- */
	cr_assert_eq(snap_read(&w, 3, 0x10000, b, 4), 0u);
	map_ok(w.t, 3, 0x10000, 0x1000, sx[0].off, 4, x86);	/* --x */
	cr_assert_eq(snap_read(&w, 3, 0x10000, b, 4), 4u);
	world_fini(&w);
}

/* --- Threads ------------------------------------------------------------- */

struct thr {
	struct sy_proc_snap *snap;	/* the thread's own reference */
	const uint8_t *expect;	/* the code at @addr */
	uint64_t addr;
	size_t len;
	int bad;
};

static void *thr_main(void *arg)
{
	struct thr *t = arg;
	struct sy_mem_reader *rd;
	unsigned seed = (unsigned)(uintptr_t)arg;

	if (sy_mem_reader_new(&rd, NULL) != 0) {
		t->bad = 1;
		sy_proc_snap_put(t->snap);
		return NULL;
	}
	for (int round = 0; round < 50; round++) {
		sy_mem_reader_begin(rd, t->snap);
		for (int i = 0; i < 400; i++) {
			uint8_t b[8];
			size_t off;

			seed = seed * 1103515245u + 12345u;
			off = (seed >> 8) % (t->len - 8);
			if (sy_mem_read(rd, 42, t->addr + off, b, 8) != 8 ||
			    memcmp(b, t->expect + off, 8) != 0)
				t->bad++;
		}
		sy_mem_reader_end(rd);
	}
	sy_mem_reader_free(rd);
	sy_proc_snap_put(t->snap);
	return NULL;
}

/* Decoding threads read one snapshot while the table keeps changing (new
 * mappings, an exec over the very process they read) and drops its own
 * references. */
Test(aspace, threads)
{
	char x86_abs[PATH_MAX];
	const char *x86 = absp(x86_abs, PROG_DIR "branchy-x86_64");
	struct rseg sx[2];
	size_t fl;
	uint8_t *f = file_bytes(x86, &fl);
	struct world w;
	struct thr t[4];
	pthread_t th[4];
	struct sy_proc_snap *s;

	cr_assert_eq(readelf_exec_loads(x86, sx, 2), 1u);
	world_init(&w, NULL);
	map_ok(w.t, 42, 0x400000000ull, 0x1000, sx[0].off, 5, x86);
	s = sy_proc_table_snapshot(w.t);
	for (int i = 0; i < 4; i++) {
		t[i] = (struct thr){ sy_proc_snap_get(s), f + sx[0].off,
				     0x400000000ull, (size_t)sx[0].filesz, 0 };
		cr_assert_eq(pthread_create(&th[i], NULL, thr_main, &t[i]), 0);
	}
	sy_proc_snap_put(s);	/* only the threads hold it now */
	for (int i = 0; i < 2000; i++) {
		map_ok(w.t, 42, 0x500000000ull + (uint64_t)i * 0x1000, 0x1000,
		       sx[0].off, 5, x86);
		if (i % 100 == 0)
			exec_ok(w.t, 42);
		fork_ok(w.t, 1000 + (uint32_t)i, 42, 1000 + (uint32_t)i);
		sy_proc_snap_put(sy_proc_table_snapshot(w.t));
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		cr_assert_eq(t[i].bad, 0, "thread %d: %d bad reads", i,
			     t[i].bad);
	}
	world_fini(&w);
	free(f);
}

/* --- The reader's window accounting -------------------------------------- */

Test(reader, missing_charged_per_window)
{
	char x86_abs[PATH_MAX];
	const char *x86 = absp(x86_abs, PROG_DIR "branchy-x86_64");
	struct rseg sx[2];
	uint8_t b[8];
	struct world w;
	struct sy_proc_snap *s;
	struct sy_image_missing m[4];

	cr_assert_eq(readelf_exec_loads(x86, sx, 2), 1u);
	world_init(&w, NULL);
	map_ok(w.t, 1, 0x10000, 0x1000, 0, 5, "/nonexistent/libm.so");
	map_ok(w.t, 1, 0x20000, 0x1000, 0, 5, "/nonexistent/libm.so");
	map_ok(w.t, 1, 0x30000, 0x1000, sx[0].off, 5, x86);
	s = sy_proc_table_snapshot(w.t);
	/* window 1: ten reads of the missing library */
	sy_mem_reader_begin(w.rd, s);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(sy_mem_read(w.rd, 1, 0x10000 + 4 * (uint64_t)i, b,
					 4), 0u);
	cr_assert_eq(sy_mem_read(w.rd, 1, 0x20000, b, 4), 0u);
	sy_mem_reader_end(w.rd);
	/* window 2: three */
	sy_mem_reader_begin(w.rd, s);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(sy_mem_read(w.rd, 1, 0x20000, b, 4), 0u);
	/* begin ends the previous window */
	sy_mem_reader_begin(w.rd, s);
	cr_assert_eq(sy_mem_read(w.rd, 1, 0x30000, b, 4), 4u);
	sy_mem_reader_end(w.rd);
	sy_mem_reader_end(w.rd);
	cr_assert_eq(sy_image_cache_missing(w.cache, m, 4), 1u);
	cr_assert_str_eq(m[0].path, "/nonexistent/libm.so");
	cr_assert_eq(m[0].windows, 2u);
	cr_assert_eq(m[0].lookups, 2u);
	cr_assert_eq(sy_mem_reader_stats(w.rd)->missing, 14u);
	/* no snapshot: nothing, no crash */
	cr_assert_eq(sy_mem_read(w.rd, 1, 0x30000, b, 4), 0u);
	sy_proc_snap_put(s);
	world_fini(&w);
}

/* --- Real captures ------------------------------------------------------- */

struct capture {
	char file[64];
	uint64_t base;		/* perf 6.1's load base (SOURCE.txt) */
	size_t nr_missing;	/* exec-mapped libraries + [vdso] */
};

static struct capture captures[] = {
	{ "perf_etm.data", 0x582b2b0000ull, 8 },
	{ "perf_with_unformatted_trace.data", 0x629b292000ull, 19 },
};

ParameterizedTestParameters(real, simpleperf_etm)
{
	return cr_make_param_array(struct capture, captures,
				   sizeof(captures) / sizeof(captures[0]));
}

/* All records through the table; at the last window (AUX record) the
 * traced program's code reads as the file's bytes, its padded build-id
 * verified; every Android library is reported missing once. */
ParameterizedTest(struct capture *cap, real, simpleperf_etm)
{
	char rel[256], symfs[1024], loop[1100];
	struct sy_image_opts o = { 0 };
	struct sy_perf_reader *r;
	struct sy_diag d = { 0 };
	struct sy_record rec;
	struct sy_event ev;
	struct world w;
	struct sy_proc_snap *snap = NULL;
	const struct sy_perf_features *feat;
	struct sy_image_missing miss[64];
	struct rseg x[2];
	uint32_t pid = 0;
	uint64_t maddr = 0, mpgoff = 0;
	size_t fl, nmiss;
	uint8_t *f, *buf;
	int err;

	snprintf(rel, sizeof(rel), ETM_REL "orig/%s", cap->file);
	sy_test_require_path(sy_test_shared_path(rel));
	snprintf(symfs, sizeof(symfs), "%s",
		 sy_test_shared_path(ETM_REL "symfs"));
	snprintf(loop, sizeof(loop), "%s%s", symfs, ETM_LOOP);
	cr_assert_eq(sy_perf_open(&r, sy_test_shared_path(rel), &d), 0, "%s",
		     d.msg);
	o.symfs = symfs;
	o.buildid_dir = "";
	world_init(&w, &o);
	feat = sy_perf_features(r);
	cr_assert_eq(sy_proc_table_set_build_ids(w.t, feat), 0);
	while ((err = sy_perf_next(r, &rec)) == 0) {
		cr_assert_eq(sy_event_parse(&rec, &ev, &d), 0, "%s", d.msg);
		cr_assert_eq(sy_proc_table_feed(w.t, &rec, &ev), 0);
		if (rec.type == SY_REC_COMM && ev.u.comm.exec &&
		    !strcmp(ev.u.comm.comm, "etm_test_loop"))
			pid = ev.u.comm.pid;
		if (rec.type == SY_REC_MMAP2 &&
		    !strcmp(ev.u.mmap.filename, ETM_LOOP) &&
		    (ev.u.mmap.prot & 4)) {
			maddr = ev.u.mmap.addr;
			mpgoff = ev.u.mmap.pgoff;
		}
		if (rec.type == SY_REC_AUX) {
			sy_proc_snap_put(snap);
			snap = sy_proc_table_snapshot(w.t);
		}
	}
	cr_assert_eq(err, -SY_E_EOS);
	cr_assert_neq(pid, 0u);
	cr_assert_not_null(snap);
	/* the load base perf reported */
	cr_assert_eq(maddr - mpgoff, cap->base);

	cr_assert_eq(readelf_exec_loads(loop, x, 2), 1u);
	f = file_bytes(loop, &fl);
	buf = malloc(x[0].filesz + 16);
	cr_assert_not_null(buf);
	sy_mem_reader_begin(w.rd, snap);
	cr_assert_eq(sy_mem_read(w.rd, pid, cap->base + x[0].off, buf,
				 x[0].filesz + 16),
		     x[0].filesz);
	cr_assert_eq(memcmp(buf, f + x[0].off, x[0].filesz), 0);
	/* steady-state branch sources of the perf 6.1 reference */
	cr_assert_eq(sy_mem_read(w.rd, pid, cap->base + 0x106c, buf, 4), 4u);
	cr_assert_eq(memcmp(buf, f + 0x106c, 4), 0);
	cr_assert_eq(sy_mem_read(w.rd, pid, cap->base + 0x1080, buf, 4), 4u);
	cr_assert_eq(memcmp(buf, f + 0x1080, 4), 0);
	/* the first page is mapped r--: not code */
	cr_assert_eq(sy_mem_read(w.rd, pid, cap->base + 0x10, buf, 4), 0u);
	sy_mem_reader_end(w.rd);
	{
		const struct sy_map *m = sy_proc_snap_find(snap, pid,
							   cap->base + 0x1000);
		const uint8_t *id;

		cr_assert_not_null(m);
		cr_assert_not_null(m->img);
		cr_assert_str_eq(m->path, ETM_LOOP);
		cr_assert_eq(m->build_id_size, 20u);
		cr_assert_eq(m->build_id[16] | m->build_id[17] |
				     m->build_id[18] | m->build_id[19],
			     0);
		cr_assert_eq(sy_image_build_id(m->img, &id), 16u);
		cr_assert_eq(memcmp(id, m->build_id, 16), 0);
		cr_assert_str_eq(sy_image_path(m->img), loop);
	}

	/* missing: every BUILD_ID entry but the program, plus [vdso] */
	nmiss = sy_image_cache_missing(w.cache, miss, 64);
	cr_assert_eq(nmiss, cap->nr_missing);
	cr_assert_eq(nmiss, feat->nr_build_ids);
	for (uint32_t i = 0; i < feat->nr_build_ids; i++) {
		const char *name = feat->build_ids[i].filename;
		size_t hits = 0;

		for (size_t k = 0; k < nmiss; k++)
			hits += !strcmp(miss[k].path, name);
		cr_assert_eq(hits, strcmp(name, ETM_LOOP) ? 1u : 0u, "%s",
			     name);
	}
	for (size_t k = 0; k < nmiss; k++) {
		cr_assert_geq(miss[k].lookups, 1u, "%s", miss[k].path);
		cr_assert_eq(miss[k].err, -SY_E_NO_IMAGE, "%s", miss[k].path);
		if (!strcmp(miss[k].path, "[vdso]"))
			cr_assert(miss[k].special);
	}
	/* after EXIT (the last records) the space is still there */
	sy_proc_snap_put(snap);
	snap = sy_proc_table_snapshot(w.t);
	cr_assert_not_null(sy_proc_snap_find(snap, pid, cap->base + 0x1000));
	sy_proc_snap_put(snap);
	sy_perf_close(r);
	world_fini(&w);
	free(buf);
	free(f);
}
