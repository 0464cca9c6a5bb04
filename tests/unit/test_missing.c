/* The binaries a window needed and did not have (src/synth/missing.c): the
 * one a window's reason names (sy_window_missing) and the charges that
 * count windows in the missing list, on hand-built address spaces whose
 * code mappings name files that do not exist. */
#include <criterion/criterion.h>
#include <opencsd/ocsd_if_types.h>
#include <intel-pt.h>
#include <string.h>

#include "synth/missing.h"

#define PID 7
#define LIB_A "/nonexistent/liba.so"
#define LIB_B "/nonexistent/libb.so"

struct world {
	struct sy_image_cache *cache;
	struct sy_proc_table *procs;
	struct sy_proc_snap *snap;
	struct sy_synth_config cfg;
};

static void map(struct sy_proc_table *t, uint64_t addr, uint32_t prot,
		const char *file)
{
	struct sy_ev_mmap m;

	memset(&m, 0, sizeof(m));
	m.pid = m.tid = PID;
	m.addr = addr;
	m.len = 0x1000;
	m.is_mmap2 = 1;
	m.prot = prot;
	m.filename = file;
	cr_assert_eq(sy_proc_table_mmap(t, &m, SY_MISC_USER), 0);
}

/* liba at 0x10000, libb at 0x20000 (code), a data file at 0x30000 */
static void world_init(struct world *w, enum sy_trace_kind kind)
{
	struct sy_image_opts o = { 0 };
	struct sy_diag d = { 0 };

	memset(w, 0, sizeof(*w));
	o.buildid_dir = "";
	cr_assert_eq(sy_image_cache_new(&w->cache, &o, &d), 0, "%s", d.msg);
	cr_assert_eq(sy_proc_table_new(&w->procs, w->cache), 0);
	map(w->procs, 0x10000, SY_PROT_READ | SY_PROT_EXEC, LIB_A);
	map(w->procs, 0x20000, SY_PROT_READ | SY_PROT_EXEC, LIB_B);
	map(w->procs, 0x30000, SY_PROT_READ, "/nonexistent/data");
	w->snap = sy_proc_table_snapshot(w->procs);
	cr_assert_not_null(w->snap);
	w->cfg.kind = kind;
	w->cfg.images = w->cache;
}

static void world_fini(struct world *w)
{
	sy_proc_snap_put(w->snap);
	sy_proc_table_free(w->procs);
	sy_image_cache_free(w->cache);
}

/* A window of one decode error at @addr, with @code. */
static void one_error(struct sy_window *p, const struct world *w, int code,
		      uint64_t addr)
{
	memset(p, 0, sizeof(*p));
	p->pid = p->tid = PID;
	p->status = SY_ST_DECODE_ERROR;
	p->decode_errors = 1;
	p->first_error = code;
	p->first_error_addr = addr;
	p->snap = w->snap;
}

/* windows needed by @path in the cache's list, -1 when not listed */
static long windows_of(struct sy_image_cache *c, const char *path)
{
	struct sy_image_missing m[8];
	size_t n = sy_image_cache_missing(c, m, 8);

	for (size_t i = 0; i < n && i < 8; i++)
		if (strcmp(m[i].path, path) == 0)
			return (long)m[i].windows;
	return -1;
}

Test(missing, named_at_the_error_address)
{
	struct world w;
	struct sy_window p;
	const struct sy_map *m;

	world_init(&w, SY_TRACE_ETM);
	one_error(&p, &w, OCSD_ERR_MEM_NACC, 0x20010);
	m = sy_window_missing(&p, SY_TRACE_ETM);
	cr_assert_not_null(m);
	cr_assert_str_eq(m->path, LIB_B);
	/* no address: the window's first traced address tells */
	one_error(&p, &w, OCSD_ERR_MEM_NACC, 0);
	p.start_addr = 0x10004;
	m = sy_window_missing(&p, SY_TRACE_ETM);
	cr_assert_not_null(m);
	cr_assert_str_eq(m->path, LIB_A);
	world_fini(&w);
}

/* Nothing is guessed: an address in no mapping, in data, an error that is
 * not about missing code, or a window without errors names no binary,
 * though its process has binaries that were not found. */
Test(missing, nothing_guessed)
{
	struct world w;
	struct sy_window p;

	world_init(&w, SY_TRACE_ETM);
	one_error(&p, &w, OCSD_ERR_MEM_NACC, 0x50000);
	p.start_addr = 0x10004;
	cr_assert_null(sy_window_missing(&p, SY_TRACE_ETM));
	one_error(&p, &w, OCSD_ERR_MEM_NACC, 0x30010);
	cr_assert_null(sy_window_missing(&p, SY_TRACE_ETM));
	one_error(&p, &w, OCSD_ERR_BAD_PACKET_SEQ, 0x10010);
	cr_assert_null(sy_window_missing(&p, SY_TRACE_ETM));
	one_error(&p, &w, OCSD_ERR_MEM_NACC, 0x10010);
	p.decode_errors = 0;
	cr_assert_null(sy_window_missing(&p, SY_TRACE_ETM));
	one_error(&p, &w, OCSD_ERR_MEM_NACC, 0x10010);
	p.snap = NULL;
	cr_assert_null(sy_window_missing(&p, SY_TRACE_ETM));
	world_fini(&w);
}

Test(missing, pt_nomap)
{
	struct world w;
	struct sy_window p;
	const struct sy_map *m;

	world_init(&w, SY_TRACE_PT);
	one_error(&p, &w, pte_nomap, 0x10ff0);
	m = sy_window_missing(&p, SY_TRACE_PT);
	cr_assert_not_null(m);
	cr_assert_str_eq(m->path, LIB_A);
	one_error(&p, &w, pte_bad_opc, 0x10ff0);
	cr_assert_null(sy_window_missing(&p, SY_TRACE_PT));
	world_fini(&w);
}

/* A window is charged once per binary its stretches' errors needed,
 * however many errors met it; the one its reason names included. */
Test(missing, charged_once_per_window)
{
	struct world w;
	struct sy_win win;
	struct sy_stretch st[5];

	world_init(&w, SY_TRACE_ETM);
	cr_assert_eq(windows_of(w.cache, LIB_A), 0);
	cr_assert_eq(windows_of(w.cache, LIB_B), 0);
	memset(&win, 0, sizeof(win));
	memset(st, 0, sizeof(st));
	one_error(&win.pub, &w, OCSD_ERR_MEM_NACC, 0x10010);
	win.pub.snap = NULL;	/* set when handed out: w->snap counts */
	win.pub.decode_errors = 4;
	win.snap = w.snap;
	win.st = st;
	win.nr_st = 5;
	st[0].errors = 1;
	st[0].first_error = OCSD_ERR_MEM_NACC;
	st[0].first_error_addr = 0x10010;
	st[1].errors = 2;
	st[1].first_error = OCSD_ERR_MEM_NACC;
	st[1].first_error_addr = 0x20020;
	st[2].errors = 1;
	st[2].first_error = OCSD_ERR_MEM_NACC;
	st[2].first_error_addr = 0x10800;	/* liba again */
	st[3].errors = 1;
	st[3].first_error = OCSD_ERR_BAD_PACKET_SEQ;
	st[3].first_error_addr = 0x20000;	/* not a missing-code error */
	st[4].insns = 10;			/* no error */
	sy_win_charge_missing(&w.cfg, &win);
	cr_assert_eq(windows_of(w.cache, LIB_A), 1);
	cr_assert_eq(windows_of(w.cache, LIB_B), 1);
	/* a second window that needed libb only */
	win.pub.first_error_addr = 0x20040;
	win.nr_st = 1;
	st[0].first_error_addr = 0x20040;
	sy_win_charge_missing(&w.cfg, &win);
	cr_assert_eq(windows_of(w.cache, LIB_A), 1);
	cr_assert_eq(windows_of(w.cache, LIB_B), 2);
	/* a window without errors, or a config without a cache: nothing */
	win.pub.decode_errors = 0;
	sy_win_charge_missing(&w.cfg, &win);
	win.pub.decode_errors = 1;
	w.cfg.images = NULL;
	sy_win_charge_missing(&w.cfg, &win);
	cr_assert_eq(windows_of(w.cache, LIB_B), 2);
	world_fini(&w);
}
