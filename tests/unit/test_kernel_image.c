/* Kernel and module images: a relocatable .ko laid out as the kernel lays
 * it out, with its own branches relocated (oracle: llvm-objdump's listing
 * of the relocations); --vmlinux moved by the KASLR offset the recorded
 * MMAP gives, perf's way (pgoff = the symbol's runtime address) and
 * simpleperf's (pgoff 0, start); --kcore at runtime addresses, serving
 * modules too; modules found under /lib/modules/<release>; a missing
 * kernel named with what to pass. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sy_aspace.h"
#include "sy_image.h"
#include "sy_image_cache.h"
#include "sy_proc.h"
#include "sy_test.h"

#define PROG "tests/fixtures/programs/bin/branchy-x86_64"
#define KO "fixtures/real/simpleperf-etm/orig/rq_stats.ko"

TestSuite(kernel_image, .timeout = 120);

static void cp(const char *src, const char *dst)
{
	size_t n;
	uint8_t *b = sy_test_read_file(src, &n);

	cr_assert_not_null(b, "%s", src);
	cr_assert_eq(sy_test_write_file(dst, b, n), 0, "%s", dst);
	free(b);
}

static void mkdirs(const char *path)
{
	char p[2048];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

/* The kernel space after one MMAP record of pid -1. */
static struct sy_proc_table *with_map(struct sy_image_cache *c,
				      const char *name, uint64_t start,
				      uint64_t len, uint64_t pgoff)
{
	struct sy_proc_table *t;
	struct sy_ev_mmap m = { 0 };

	cr_assert_eq(sy_proc_table_new(&t, c), 0);
	m.pid = m.tid = UINT32_MAX;
	m.addr = start;
	m.len = len;
	m.pgoff = pgoff;
	m.filename = name;
	cr_assert_eq(sy_proc_table_mmap(t, &m, SY_MISC_KERNEL), 0);
	return t;
}

/* rq_stats.ko: .text (align 4096) after the NOBITS .plt and ftrace
 * trampoline, at 0x1000 of the core area; the CFI jump table's `b` at
 * .text+0x2ec carries R_AARCH64_JUMP26 .text+0x140 (llvm-objdump -dr). */
Test(kernel_image, module_layout_and_relocations)
{
	const char *ko = sy_test_shared_path(KO);
	struct sy_image *img;
	struct sy_diag d = { 0 };
	const struct sy_image_seg *s;
	uint8_t w[4];
	uint32_t insn;
	char *out = NULL, cmd[2048];

	sy_test_require_path(ko);
	cr_assert_eq(sy_image_open(&img, ko, &d), 0, "%s", d.msg);
	cr_assert_eq(sy_image_type(img), 1);
	cr_assert_eq(sy_image_nr_segs(img), 1, "only .text has bytes in core");
	s = sy_image_segs(img);
	cr_assert_eq(s->vaddr, 0x1000);
	cr_assert_eq(s->filesz, 0x2fc);
	cr_assert_eq(s->offset, 0x1000);
	/* the relocation the oracle lists */
	sy_test_require_tool("llvm-objdump-19");
	snprintf(cmd, sizeof(cmd), "llvm-objdump-19 -dr %s | grep -A1 ' 2ec:'",
		 ko);
	cr_assert_eq(sy_test_run(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "R_AARCH64_JUMP26\t.text+0x140"), "%s", out);
	free(out);
	cr_assert_eq(sy_image_read(img, 0x1000 + 0x2ec, w, 4), 4);
	insn = (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 |
	       (uint32_t)w[3] << 24;
	cr_assert_eq(insn >> 26, 0x05, "still a b");
	cr_assert_eq(0x1000 + 0x2ec + 4 * ((int32_t)(insn << 6) >> 6),
		     0x1000 + 0x140);
	/* unrelocated in the file: a branch to itself */
	uint8_t *raw = sy_test_read_file(ko, &(size_t){ 0 });
	cr_assert_eq(memcmp(raw + 0x1000 + 0x2ec, "\x00\x00\x00\x14", 4), 0);
	free(raw);
	sy_image_close(img);
}

/* Read through a module mapping: runtime = base + layout. */
Test(kernel_image, module_mapping_and_lib_modules)
{
	const char *ko = sy_test_shared_path(KO);
	const char *dir = sy_test_mkdtemp();
	char symfs[1024], dst[2048];
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c;
	struct sy_proc_table *t;
	struct sy_proc_snap *snap;
	struct sy_image *img;
	uint8_t a[64], b[64];
	const struct sy_map *m;

	sy_test_require_path(ko);
	snprintf(symfs, sizeof(symfs), "%s/symfs", dir);
	snprintf(dst, sizeof(dst), "%s/lib/modules/4.19-test/extra", symfs);
	mkdirs(dst);
	strcat(dst, "/rq_stats.ko");
	cp(ko, dst);
	o.symfs = symfs;
	o.buildid_dir = "";
	cr_assert_eq(sy_image_cache_new(&c, &o, NULL), 0);
	/* without the release, nothing is found */
	t = with_map(c, "/vendor/lib/modules/rq_stats.ko", 0xffffff99f5896000,
		     0x5000, 0);
	snap = sy_proc_table_snapshot(t);
	m = sy_proc_snap_find(snap, 1, 0xffffff99f5897000);
	cr_assert_not_null(m);
	cr_assert_null(m->img);
	sy_proc_snap_put(snap);
	sy_proc_table_free(t);
	sy_image_cache_free(c);

	cr_assert_eq(sy_image_cache_new(&c, &o, NULL), 0);
	cr_assert_eq(sy_image_cache_set_release(c, "4.19-test"), 0);
	t = with_map(c, "/vendor/lib/modules/rq_stats.ko", 0xffffff99f5896000,
		     0x5000, 0);
	snap = sy_proc_table_snapshot(t);
	m = sy_proc_snap_find(snap, 1, 0xffffff99f5897000);
	cr_assert_not_null(m->img, "found under /lib/modules/<release>");
	cr_assert(m->flags & SY_MAP_MODULE);
	cr_assert_eq(sy_image_open(&img, ko, NULL), 0);
	cr_assert_eq(sy_aspace_read(sy_proc_snap_kernel(snap),
				    0xffffff99f5897000, a, 64), 64);
	cr_assert_eq(sy_image_read(img, 0x1000, b, 64), 64);
	cr_assert_eq(memcmp(a, b, 64), 0);
	uint64_t v;
	cr_assert_eq(sy_map_vaddr(m, 0xffffff99f58972ec, &v), 0);
	cr_assert_eq(v, 0x12ec);
	sy_image_close(img);
	sy_proc_snap_put(snap);
	sy_proc_table_free(t);
	sy_image_cache_free(c);
	sy_test_rmtree(dir);
}

/* A kernel image moved by KASLR: the bytes at runtime address X are the
 * image's at X - offset, for perf's MMAP and simpleperf's. */
Test(kernel_image, vmlinux_relocated_by_the_mmap)
{
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c;
	struct sy_image *img;
	uint64_t start_link, kaslr = 0x1234000;
	uint8_t a[32], b[32];
	static const char *const names[] = { "[kernel.kallsyms]_start",
					     "[kernel.kallsyms]_start" };

	cr_assert_eq(sy_image_open(&img, PROG, NULL), 0);
	cr_assert_eq(sy_image_symbol_addr(img, "_start", &start_link), 0);
	cr_assert_eq(sy_image_read(img, start_link, b, 32), 32);
	o.vmlinux = PROG;
	o.buildid_dir = "";
	for (int form = 0; form < 2; form++) {
		struct sy_proc_table *t;
		struct sy_proc_snap *snap;
		const struct sy_map *m;
		uint64_t v;

		cr_assert_eq(sy_image_cache_new(&c, &o, NULL), 0);
		/* perf: pgoff = _start's runtime address, start below it;
		 * simpleperf: pgoff 0, start = the symbol's runtime address */
		t = form ? with_map(c, names[form], start_link + kaslr,
				    0x100000, 0) :
			   with_map(c, names[form], start_link + kaslr - 0x3000,
				    0x100000, start_link + kaslr);
		snap = sy_proc_table_snapshot(t);
		m = sy_proc_snap_find(snap, 1, start_link + kaslr);
		cr_assert(m && m->img && (m->flags & SY_MAP_KERNEL));
		cr_assert_eq(m->reloc, kaslr, "form %d", form);
		cr_assert_eq(sy_aspace_read(sy_proc_snap_kernel(snap),
					    start_link + kaslr, a, 32), 32);
		cr_assert_eq(memcmp(a, b, 32), 0, "form %d", form);
		cr_assert_eq(sy_map_vaddr(m, start_link + kaslr + 8, &v), 0);
		cr_assert_eq(v, start_link + 8);
		sy_proc_snap_put(snap);
		sy_proc_table_free(t);
		sy_image_cache_free(c);
	}
	sy_image_close(img);
}

/* --kcore: the running kernel's memory at runtime addresses serves the
 * kernel and modules without a .ko; a directory without it is refused. */
Test(kernel_image, kcore_serves_kernel_and_modules)
{
	const char *dir = sy_test_mkdtemp();
	char kc[1024];
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c;
	struct sy_proc_table *t;
	struct sy_proc_snap *snap;
	struct sy_image *img;
	struct sy_diag d = { 0 };
	const struct sy_image_seg *s;
	uint8_t a[16], b[16];

	snprintf(kc, sizeof(kc), "%s/kcore_dir", dir);
	mkdirs(kc);
	strcat(kc, "/kcore");
	cp(PROG, kc);
	cr_assert_eq(sy_image_open(&img, PROG, NULL), 0);
	s = sy_image_segs(img);
	cr_assert_eq(sy_image_read(img, s->vaddr, b, 16), 16);
	o.kcore = dir;
	o.buildid_dir = "";
	cr_assert_eq(sy_image_cache_new(&c, &o, &d), 0, "%s", d.msg);
	for (int i = 0; i < 2; i++) {
		t = with_map(c, i ? "/lib/modules/x/missing.ko" :
				    "[kernel.kallsyms]_text",
			     s->vaddr, s->memsz, 0);
		snap = sy_proc_table_snapshot(t);
		cr_assert_eq(sy_aspace_read(sy_proc_snap_kernel(snap), s->vaddr,
					    a, 16), 16, "%d", i);
		cr_assert_eq(memcmp(a, b, 16), 0);
		cr_assert_eq(sy_proc_snap_find(snap, 1, s->vaddr)->reloc, 0);
		sy_proc_snap_put(snap);
		sy_proc_table_free(t);
	}
	sy_image_cache_free(c);
	o.kcore = "/nonexistent-kcore-dir";
	cr_assert_neq(sy_image_cache_new(&c, &o, &d), 0);
	cr_assert(strstr(d.msg, "perf record --kcore"), "%s", d.msg);
	sy_image_close(img);
	sy_test_rmtree(dir);
}

Test(kernel_image, missing_kernel_says_what_to_pass)
{
	struct sy_image_opts o = { 0 };
	struct sy_image_cache *c;
	struct sy_image_lookup r;

	o.buildid_dir = "";
	cr_assert_eq(sy_image_cache_new(&c, &o, NULL), 0);
	cr_assert_eq(sy_image_cache_find(c, "[kernel.kallsyms]_stext", NULL, 0,
					 &r),
		     -SY_E_NO_KERNEL);
	cr_assert(strstr(sy_errstr(-SY_E_NO_KERNEL), "--vmlinux"));
	cr_assert_eq(sy_image_cache_find(c, "/x/y.ko", NULL, 0, &r),
		     -SY_E_NO_IMAGE);
	sy_image_cache_free(c);
}
