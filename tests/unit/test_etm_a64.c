/* The fast path's A64 classifier (src/decode/etm_a64.c) against OpenCSD
 * 1.3.3's own instruction decode, word for word.
 *
 * The oracle is OpenCSD's full decoder through its C API, not our code: for
 * every byte offset of every executable segment of the fixture programs
 * (tests/fixtures/programs/bin/ *-aarch64*) and of the real captures'
 * binaries (../shared/fixtures/real/simpleperf-etm: etm_test_loop twice,
 * rq_stats.ko), the 4-byte word there is put alone at its own address
 * A = BASE + 16 i (nothing mapped around it), and a trace says "address A,
 * then two E atoms".  OpenCSD walks from A: a waypoint gives a one-
 * instruction INSTR_RANGE with its type, subtype and condition flag and,
 * for a taken direct branch, the second atom starts at the branch target
 * (its element's start address); anything else gives a range of type
 * OTHER and ADDR_NACC at A + 4.  Every word is checked with WFI/WFE traced
 * as branches (TRCIDR2.WFXMODE, ETMv4.4) and without.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <opencsd/c_api/opencsd_c_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/etm_a64.h"
#include "fx_etm.h"
#include "sy_bytes.h"
#include "sy_test.h"

#define BASE 0x10000000ull
#define STRIDE 16u

struct words {
	uint32_t *w;
	size_t n, cap;
};

static void words_add(struct words *ws, uint32_t w)
{
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? 2 * ws->cap : 4096;
		ws->w = realloc(ws->w, ws->cap * sizeof(*ws->w));
		cr_assert_not_null(ws->w);
	}
	ws->w[ws->n++] = w;
}

static void add_bytes(struct words *ws, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 4 <= len; i++)
		words_add(ws, (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 |
				      (uint32_t)p[i + 2] << 16 |
				      (uint32_t)p[i + 3] << 24);
}

/* Every word at every byte offset of @path's executable PT_LOADs, or of its
 * executable sections when it has none (a kernel module). */
static size_t load_exec_words(const char *path, struct words *ws)
{
	size_t before = ws->n, nph = 0, nsh = 0, len;
	uint8_t *file = sy_test_read_file(path, &len);
	Elf *elf;
	int fd = open(path, O_RDONLY);

	cr_assert_not_null(file, "%s", path);
	cr_assert_geq(fd, 0);
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf, "%s", path);
	cr_assert_eq(elf_getphdrnum(elf, &nph), 0);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		cr_assert_not_null(gelf_getphdr(elf, (int)i, &ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		cr_assert_leq(ph.p_offset + ph.p_filesz, len);
		add_bytes(ws, file + ph.p_offset, ph.p_filesz);
	}
	if (ws->n == before) {
		Elf_Scn *scn = NULL;

		cr_assert_eq(elf_getshdrnum(elf, &nsh), 0);
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			cr_assert_not_null(gelf_getshdr(scn, &sh));
			if (sh.sh_type != SHT_PROGBITS ||
			    !(sh.sh_flags & SHF_EXECINSTR))
				continue;
			cr_assert_leq(sh.sh_offset + sh.sh_size, len);
			add_bytes(ws, file + sh.sh_offset, sh.sh_size);
		}
	}
	elf_end(elf);
	close(fd);
	free(file);
	return ws->n - before;
}

/* ---- the oracle: OpenCSD's decode of "address A, E, E" per word ---- */

struct oel {
	uint32_t idx;
	uint8_t type, i_type, i_subtype, cond, exec;
	uint64_t st, en;
};

struct oracle {
	const struct words *ws;
	struct oel *v;
	size_t n, cap;
};

static uint32_t o_mem(const void *ctx, const ocsd_vaddr_t addr,
		      const ocsd_mem_space_acc_t space, const uint32_t req,
		      uint8_t *buf)
{
	const struct oracle *o = ctx;
	uint64_t i = (addr - BASE) / STRIDE, k = (addr - BASE) % STRIDE;
	uint32_t n = 0;

	(void)space;
	if (addr < BASE || i >= o->ws->n || k >= 4)
		return 0;
	while (n < req && k + n < 4) {
		buf[n] = (uint8_t)(o->ws->w[i] >> (8 * (k + n)));
		n++;
	}
	return n;
}

static ocsd_datapath_resp_t o_elem(const void *ctx, const ocsd_trc_index_t idx,
				   const uint8_t id,
				   const ocsd_generic_trace_elem *el)
{
	struct oracle *o = (struct oracle *)(uintptr_t)ctx;
	struct oel *e;

	(void)id;
	if (el->elem_type != OCSD_GEN_TRC_ELEM_INSTR_RANGE &&
	    el->elem_type != OCSD_GEN_TRC_ELEM_ADDR_NACC)
		return OCSD_RESP_CONT;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 4096;
		o->v = realloc(o->v, o->cap * sizeof(*o->v));
		cr_assert_not_null(o->v);
	}
	e = &o->v[o->n++];
	e->idx = idx;
	e->type = (uint8_t)el->elem_type;
	e->i_type = (uint8_t)el->last_i_type;
	e->i_subtype = (uint8_t)el->last_i_subtype;
	e->cond = (uint8_t)el->last_instr_cond;
	e->exec = (uint8_t)el->last_instr_exec;
	e->st = el->st_addr;
	e->en = el->en_addr;
	return OCSD_RESP_CONT;
}

/* Encodes the trace; *@atom_at gets each word's atom packet offset. */
static void encode(const struct words *ws, struct fx_etm_enc *e,
		   uint32_t *atom_at)
{
	struct fx_etm_config cfg;

	fx_etm_config_init(&cfg);
	cr_assert_eq(fx_etm_init(e, &cfg), 0);
	cr_assert_eq(fx_etm_async(e), 0);
	cr_assert_eq(fx_etm_trace_info(e), 0);
	for (size_t i = 0; i < ws->n; i++) {
		uint64_t a = BASE + STRIDE * i;

		if (i == 0)
			cr_assert_eq(fx_etm_addr_ctxt(e, a, 0), 0);
		else
			cr_assert_eq(fx_etm_addr_long64(e, a), 0);
		atom_at[i] = (uint32_t)e->out.len;
		cr_assert_eq(fx_etm_atom_packet(e, 2, 0x3, 2), 0);
	}
}

static void run_oracle(struct oracle *o, const struct fx_etm_enc *e,
		       int wfi_wfe)
{
	struct fx_etm_regs regs;
	ocsd_etmv4_cfg c;
	unsigned char csid = 0;
	dcd_tree_handle_t dt;
	uint32_t done = 0;

	cr_assert_eq(fx_etm_regs(&e->cfg, &regs), 0);
	memset(&c, 0, sizeof(c));
	c.reg_idr0 = regs.trcidr0;
	c.reg_idr1 = regs.trcidr1;	/* ETMv4.4: WFXMODE counts */
	c.reg_idr2 = regs.trcidr2 | (wfi_wfe ? 0x80000000u : 0);
	c.reg_idr8 = regs.trcidr8;
	c.reg_configr = regs.trcconfigr;
	c.reg_traceidr = regs.trctraceidr;
	c.arch_ver = ARCH_AA64;
	c.core_prof = profile_CortexA;
	dt = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	cr_assert_neq(dt, C_API_INVALID_TREE_HANDLE);
	cr_assert_eq(ocsd_dt_create_decoder(dt, OCSD_BUILTIN_DCD_ETMV4I,
					    OCSD_CREATE_FLG_FULL_DECODER, &c,
					    &csid),
		     OCSD_OK);
	cr_assert_eq(ocsd_dt_add_callback_mem_acc(dt, BASE, UINT64_MAX - 0x1000,
						  OCSD_MEM_SPACE_ANY, o_mem, o),
		     OCSD_OK);
	cr_assert_eq(ocsd_dt_set_gen_elem_outfn(dt, o_elem, o), OCSD_OK);
	while (done < e->out.len) {
		uint32_t used = 0;
		ocsd_datapath_resp_t r = ocsd_dt_process_data(
			dt, OCSD_OP_DATA, done, (uint32_t)(e->out.len - done),
			e->out.data + done, &used);

		cr_assert(OCSD_DATA_RESP_IS_CONT(r), "response %d", (int)r);
		cr_assert_gt(used, 0);
		done += used;
	}
	ocsd_dt_process_data(dt, OCSD_OP_EOT, 0, 0, NULL, NULL);
	ocsd_destroy_dcd_tree(dt);
}

/* Checks every word of @ws; returns how many were waypoints. */
static size_t check_words(const struct words *ws, int wfi_wfe)
{
	struct fx_etm_enc e;
	struct oracle o = { ws, NULL, 0, 0 };
	uint32_t *atom_at = malloc(ws->n * sizeof(*atom_at));
	size_t k = 0, wps = 0;

	cr_assert_not_null(atom_at);
	encode(ws, &e, atom_at);
	run_oracle(&o, &e, wfi_wfe);
	for (size_t i = 0; i < ws->n; i++) {
		uint64_t a = BASE + STRIDE * i;
		struct etm_a64_insn in;
		const struct oel *r;
		int wp = sy_etm_a64_decode(ws->w[i], a, wfi_wfe, &in);

		while (k < o.n && o.v[k].idx < atom_at[i])
			k++;
		cr_assert_lt(k, o.n, "word %zu: no element", i);
		r = &o.v[k];
		cr_assert(r->idx == atom_at[i] &&
				  r->type == OCSD_GEN_TRC_ELEM_INSTR_RANGE &&
				  r->st == a && r->en == a + 4,
			  "word %zu (%08x): OpenCSD gave no one-instruction "
			  "range", i, ws->w[i]);
		cr_assert_eq(in.type, r->i_type,
			     "%08x: type %u, OpenCSD %u", ws->w[i], in.type,
			     r->i_type);
		cr_assert_eq(in.subtype, r->i_subtype, "%08x: subtype %u, "
			     "OpenCSD %u", ws->w[i], in.subtype, r->i_subtype);
		cr_assert_eq(in.cond, r->cond, "%08x: cond", ws->w[i]);
		cr_assert_eq(in.link, in.subtype == OCSD_S_INSTR_BR_LINK);
		cr_assert_eq(wp, in.type != OCSD_INSTR_OTHER);
		wps += wp;
		if (in.type == OCSD_INSTR_BR) {
			/* the second atom starts at the target */
			cr_assert(k + 1 < o.n && o.v[k + 1].idx == atom_at[i],
				  "%08x: no element at the target", ws->w[i]);
			cr_assert_eq(in.target, o.v[k + 1].st,
				     "%08x at %#" PRIx64 ": target %#" PRIx64
				     ", OpenCSD %#" PRIx64, ws->w[i], a,
				     in.target, o.v[k + 1].st);
		} else if (in.type == OCSD_INSTR_OTHER) {
			cr_assert(k + 1 < o.n && o.v[k + 1].idx == atom_at[i] &&
					  o.v[k + 1].type ==
						  OCSD_GEN_TRC_ELEM_ADDR_NACC &&
					  o.v[k + 1].st == a + 4,
				  "%08x: OpenCSD walked on", ws->w[i]);
		}
		k++;
	}
	fx_etm_fini(&e);
	free(o.v);
	free(atom_at);
	return wps;
}

static const char *const fixture_bins[] = {
	"tests/fixtures/programs/bin/branchy-aarch64",
	"tests/fixtures/programs/bin/branchy-aarch64-pac",
	"tests/fixtures/programs/bin/branchy-aarch64-pie",
};

static const char *const real_bins[] = {
	"fixtures/real/simpleperf-etm/orig/etm_test_loop",
	"fixtures/real/simpleperf-etm/symfs/data/local/tmp/etm_test_loop",
	"fixtures/real/simpleperf-etm/orig/rq_stats.ko",
};

Test(etm_a64, fixture_programs_agree_with_opencsd)
{
	struct words ws = { 0 };
	size_t wps[2];

	for (size_t i = 0; i < SY_ARRAY_SIZE(fixture_bins); i++)
		cr_assert_gt(load_exec_words(fixture_bins[i], &ws), 2000u,
			     "%s", fixture_bins[i]);
	wps[0] = check_words(&ws, 0);
	wps[1] = check_words(&ws, 1);
	cr_assert_gt(wps[0], 300u, "%zu waypoints in %zu words", wps[0], ws.n);
	cr_assert_geq(wps[1], wps[0]);
	free(ws.w);
}

Test(etm_a64, real_binaries_agree_with_opencsd)
{
	struct words ws = { 0 };

	for (size_t i = 0; i < SY_ARRAY_SIZE(real_bins); i++) {
		const char *p = sy_test_shared_path(real_bins[i]);

		sy_test_require_path(p);
		cr_assert_gt(load_exec_words(p, &ws), 200u, "%s", p);
	}
	cr_assert_gt(check_words(&ws, 0), 50u);
	check_words(&ws, 1);
	free(ws.w);
}

/* Every waypoint class the classifier knows, one encoding each, so that a
 * class the binaries above lack is still compared (the same oracle). */
Test(etm_a64, every_class_agrees_with_opencsd)
{
	static const uint32_t w[] = {
		0x14000010, 0x97fffff0, 0x54000041, 0x54000050, /* B BL B.cc BC */
		0x34000082, 0xb5000082, 0x36080083, 0xb7f80083, /* CB*, TB* */
		0xd61f0200, 0xd63f0200, 0xd65f03c0, 0xd69f03e0, /* BR BLR RET ERET */
		0xd71f0a11, 0xd73f0a11, 0xd61f0a1f, 0xd63f0a1f, /* BRAA BLRAA ..Z */
		0xd69f0bff, 0xd69f0fff, 0xd65f0bff, 0xd65f0fff, /* ERETAx RETAx */
		0xd5033fdf, 0xd5033f9f, 0xd5033fbf, 0xd50330ff, /* ISB DSB DMB SB */
		0xd503207f, 0xd503205f, 0xd5031003, 0xd5031023, /* WFI WFE WFET WFIT */
		0xd5233060, 0xd503201f, 0x00000000, 0xffffffff, /* TSTART NOP 0 ~0 */
	};
	struct words ws = { 0 };

	for (size_t i = 0; i < SY_ARRAY_SIZE(w); i++)
		words_add(&ws, w[i]);
	/* 20 branches, ISB and TSTART; WFI, WFE, WFET, WFIT when traced */
	cr_assert_eq(check_words(&ws, 0), 22u);
	cr_assert_eq(check_words(&ws, 1), 26u);
	free(ws.w);
}
