/* The map timeline (src/synth/maptl.c): which records replace code, the
 * snapshot kept before each, which snapshot a trace time reads, and the
 * bound.  On hand-built address spaces whose mappings name files that do
 * not exist (code mappings are code without their bytes). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "synth/maptl.h"

#define PID 7

struct world {
	struct sy_image_cache *cache;
	struct sy_proc_table *procs;
	struct sy_maptl tl;
};

static struct sy_event mmap_ev(uint32_t pid, uint64_t addr, uint64_t len,
			       uint32_t prot, const char *file)
{
	struct sy_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.u.mmap.pid = ev.u.mmap.tid = pid;
	ev.u.mmap.addr = addr;
	ev.u.mmap.len = len;
	ev.u.mmap.is_mmap2 = 1;
	ev.u.mmap.prot = prot;
	ev.u.mmap.filename = file;
	return ev;
}

/* The record at @time as the walk applies it: noted, then fed. */
static void apply(struct world *w, const struct sy_event *ev, uint32_t type,
		  uint64_t time)
{
	cr_assert_eq(sy_maptl_note(&w->tl, w->procs, type, ev, time), 0);
	if (type == SY_REC_COMM)
		cr_assert_eq(sy_proc_table_comm(w->procs, &ev->u.comm), 0);
	else
		cr_assert_eq(sy_proc_table_mmap(w->procs, &ev->u.mmap,
						SY_MISC_USER),
			     0);
}

static void map(struct world *w, uint64_t addr, uint64_t len, uint32_t prot,
		const char *file, uint64_t time)
{
	struct sy_event ev = mmap_ev(PID, addr, len, prot, file);

	apply(w, &ev, SY_REC_MMAP2, time);
}

static void world_init(struct world *w)
{
	struct sy_image_opts o = { 0 };
	struct sy_diag d = { 0 };

	memset(w, 0, sizeof(*w));
	o.buildid_dir = "";
	cr_assert_eq(sy_image_cache_new(&w->cache, &o, &d), 0, "%s", d.msg);
	cr_assert_eq(sy_proc_table_new(&w->procs, w->cache), 0);
	sy_maptl_init(&w->tl);
}

static void world_fini(struct world *w)
{
	sy_maptl_fini(&w->tl);
	sy_proc_table_free(w->procs);
	sy_image_cache_free(w->cache);
}

/* The path of the code mapping at @addr in @snap. */
static const char *path_at(const struct sy_proc_snap *snap, uint64_t addr)
{
	const struct sy_map *m = sy_proc_snap_find(snap, PID, addr);

	return m ? m->path : "(none)";
}

#define RX (SY_PROT_READ | SY_PROT_EXEC)

/* New mappings in unmapped ranges, and data over data, replace no code:
 * nothing is kept. */
Test(maptl, additions_are_not_replacements)
{
	struct world w;

	world_init(&w);
	map(&w, 0x10000, 0x2000, RX, "/nonexistent/prog", 100);
	map(&w, 0x20000, 0x1000, SY_PROT_READ, "/nonexistent/data", 110);
	map(&w, 0x20000, 0x1000, SY_PROT_READ | SY_PROT_WRITE, "//anon", 120);
	map(&w, 0x40000, 0x1000, RX, "/nonexistent/liba.so", 130);
	cr_assert_eq(w.tl.nr, 0);
	cr_assert_null(sy_maptl_at(&w.tl, 0));
	world_fini(&w);
}

/* dlclose frees an address, dlopen of another object takes it: code
 * before the second mapping's time is read in the first. */
Test(maptl, a_reused_address_reads_by_time)
{
	struct world w;
	struct sy_proc_snap *s;

	world_init(&w);
	map(&w, 0x10000, 0x2000, RX, "/nonexistent/prog", 100);
	map(&w, 0x40000, 0x1000, RX, "/nonexistent/liba.so", 200);
	/* dlclose unmaps liba (no record); libb's text lands over it, and
	 * only partly: a replacement all the same */
	map(&w, 0x40800, 0x1000, RX, "/nonexistent/libb.so", 300);
	cr_assert_eq(w.tl.nr, 1);
	cr_assert_eq(w.tl.v[0].time, 300);
	for (uint64_t t = 200; t < 300; t += 50) {
		s = sy_maptl_at(&w.tl, t);
		cr_assert_not_null(s);
		cr_assert_str_eq(path_at(s, 0x40900), "/nonexistent/liba.so");
	}
	/* at and after the record's time: the job's own snapshot */
	cr_assert_null(sy_maptl_at(&w.tl, 300));
	cr_assert_null(sy_maptl_at(&w.tl, 400));
	s = sy_proc_table_snapshot(w.procs);
	cr_assert_str_eq(path_at(s, 0x40900), "/nonexistent/libb.so");
	sy_proc_snap_put(s);
	world_fini(&w);
}

/* Data over code unmaps code (a JIT page made writable, munmap then a
 * data mmap): kept.  So is an exec of a process that had mappings. */
Test(maptl, data_over_code_and_exec)
{
	struct world w;
	struct sy_event ev;

	world_init(&w);
	map(&w, 0x10000, 0x2000, RX, "/nonexistent/prog", 100);
	map(&w, 0x11000, 0x1000, SY_PROT_READ | SY_PROT_WRITE, "//anon", 150);
	cr_assert_eq(w.tl.nr, 1);
	memset(&ev, 0, sizeof(ev));
	ev.u.comm.pid = ev.u.comm.tid = PID;
	ev.u.comm.comm = "next";
	ev.u.comm.exec = 1;
	apply(&w, &ev, SY_REC_COMM, 200);
	cr_assert_eq(w.tl.nr, 2);
	/* a COMM without exec only names the process */
	ev.u.comm.exec = 0;
	apply(&w, &ev, SY_REC_COMM, 250);
	cr_assert_eq(w.tl.nr, 2);
	cr_assert_str_eq(path_at(sy_maptl_at(&w.tl, 120), 0x11000),
			 "/nonexistent/prog");
	cr_assert_str_eq(path_at(sy_maptl_at(&w.tl, 170), 0x10000),
			 "/nonexistent/prog");
	cr_assert_str_eq(path_at(sy_maptl_at(&w.tl, 170), 0x11000), "//anon");
	cr_assert_null(sy_maptl_at(&w.tl, 200));
	world_fini(&w);
}

/* The kernel's code (pid -1): a module loaded where another was. */
Test(maptl, kernel_module_over_module)
{
	struct world w;
	struct sy_event ev = mmap_ev(UINT32_MAX, 0xffff000010000000ull,
				     0x4000, RX, "[mod_a]");

	world_init(&w);
	apply(&w, &ev, SY_REC_MMAP2, 10);
	ev.u.mmap.filename = "[mod_b]";
	apply(&w, &ev, SY_REC_MMAP2, 20);
	cr_assert_eq(w.tl.nr, 1);
	cr_assert_eq(w.tl.v[0].time, 20);
	world_fini(&w);
}

/* Only the last SY_MAPTL_MAX are kept; a copy holds references of its
 * own that outlive the original. */
Test(maptl, bounded_and_copied)
{
	struct world w;
	struct sy_maptl copy;
	char name[64];

	world_init(&w);
	map(&w, 0x10000, 0x1000, RX, "/nonexistent/v0", 1);
	for (unsigned i = 1; i <= SY_MAPTL_MAX + 3; i++) {
		snprintf(name, sizeof(name), "/nonexistent/v%u", i);
		map(&w, 0x10000, 0x1000, RX, name, 10 * i);
	}
	cr_assert_eq(w.tl.nr, SY_MAPTL_MAX);
	cr_assert_eq(w.tl.dropped, 3);
	/* the oldest kept is the replacement at 40 (v4 over v3) */
	cr_assert_eq(w.tl.v[0].time, 40);
	cr_assert_str_eq(path_at(sy_maptl_at(&w.tl, 5), 0x10000),
			 "/nonexistent/v3");
	cr_assert_str_eq(path_at(sy_maptl_at(&w.tl, 45), 0x10000),
			 "/nonexistent/v4");
	sy_maptl_copy(&copy, &w.tl);
	sy_maptl_fini(&w.tl);
	cr_assert_str_eq(path_at(sy_maptl_at(&copy, 95), 0x10000),
			 "/nonexistent/v9");
	sy_maptl_fini(&copy);
	sy_proc_table_free(w.procs);
	sy_image_cache_free(w.cache);
}
