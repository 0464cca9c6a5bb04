/* Kernel-mode fixtures (scenario el = 1, fx_gen.h "Kernel-mode traces"):
 * the recording is a kernel profile as perf record writes one, and the
 * kernel image really is the recorded program's code, moved.
 *
 *   kernel_recording_layout   every kernel-mode fixture: the AUX, resume,
 *                             pause and sampling events count and trace
 *                             the kernel only (":k"), the dummy stays
 *                             dummy:u; before FINISHED_INIT one MMAP of
 *                             pid -1, MISC_KERNEL, "[kernel.kallsyms]_text"
 *                             with start = pgoff = the runtime _text and
 *                             len = _etext - _text (readelf's symbols plus
 *                             the sidecar's KASLR offset), and the kernel
 *                             threads' COMMs (not exec); no MMAP2, FORK or
 *                             exec COMM; every sample MISC_KERNEL with its
 *                             IP in the map and a callchain of kernel
 *                             frames only; BUILD_ID names the image
 *                             "[kernel.kallsyms]" with readelf's id;
 *                             a module fixture's module map (pid -1,
 *                             its path, pgoff 0) and build-id too;
 *   image_is_the_program_moved  the image's .text is the program's byte
 *                             for byte (libelf), and the sidecar's
 *                             load_base is the distance between them plus
 *                             the KASLR offset: the recorded run, moved,
 *                             is the run of the image's code; a module's
 *                             branch relocations (llvm-readelf-19),
 *                             resolved as the kernel does, are the linked
 *                             program's words, and the loaded copy the
 *                             tests give perf is the program's .text;
 *   kernel_scenarios_refused  what the model does not cover is refused
 *                             with a message (parser and generator).
 *
 * perf 6.1 (-k), trc_pkt_lister (contexts at EL1) and strobe-synth
 * (--vmlinux) decode these fixtures to their truth in test_fixturegen.c
 * and test_convert_fixtures.c, with the kernel_negative control there. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fx_gen.h"
#include "fx_scenario.h"
#include "fx_sidecar.h"
#include "sy_perf_reader.h"
#include "sy_perf_event.h"
#include "sy_test.h"

#define GEN "tests/fixtures/generated"

TestSuite(fx_kernel, .timeout = 120);

/* The sidecars of the kernel-mode fixtures (a `kernel` line), into @sc
 * (at most @max), their names into @names. */
static size_t kernel_fixtures(struct fx_sidecar *sc, char names[][64],
			      size_t max)
{
	glob_t gl;
	size_t n = 0;

	cr_assert_eq(glob(GEN "/*.truth", 0, NULL, &gl), 0, GEN " missing");
	for (size_t i = 0; i < gl.gl_pathc && n < max; i++) {
		const char *base = strrchr(gl.gl_pathv[i], '/') + 1;
		struct sy_diag dg = { 0 };

		cr_assert_eq(fx_sidecar_load(&sc[n], gl.gl_pathv[i], &dg), 0,
			     "%s: %s", gl.gl_pathv[i], dg.msg);
		if (!sc[n].kernel[0]) {
			fx_sidecar_fini(&sc[n]);
			continue;
		}
		snprintf(names[n], 64, "%.*s", (int)(strlen(base) - 6), base);
		n++;
	}
	globfree(&gl);
	cr_assert_geq(n, 2, "kernel-mode fixtures");
	return n;
}

/* readelf's value of symbol @name in @elf. */
static uint64_t readelf_sym(const char *elf, const char *name)
{
	char cmd[1024], *out = NULL;
	uint64_t v = 0;

	snprintf(cmd, sizeof(cmd),
		 "readelf -sW '%s' | awk '$8 == \"%s\" { print $2 }'", elf,
		 name);
	cr_assert_eq(sy_test_run(cmd, &out, NULL), 0, "%s", cmd);
	cr_assert(out && sscanf(out, "%" SCNx64, &v) == 1, "%s: no %s", elf,
		  name);
	free(out);
	return v;
}

/* readelf's build-id of @elf, lowercase hex. */
static void readelf_build_id(const char *elf, char *out, size_t len)
{
	char cmd[1024], *txt = NULL;

	snprintf(cmd, sizeof(cmd),
		 "readelf -n '%s' | awk '/Build ID:/ { print $3 }'", elf);
	cr_assert_eq(sy_test_run(cmd, &txt, NULL), 0, "%s", cmd);
	cr_assert(txt && sscanf(txt, "%127s", out) == 1);
	cr_assert_lt(strlen(out), len);
	free(txt);
}

static void check_attrs(const struct sy_perf_reader *r, const char *name)
{
	uint32_t n = sy_perf_nr_attrs(r);

	for (uint32_t a = 0; a < n; a++) {
		const struct sy_perf_attr *at = sy_perf_attr(r, a);
		int dummy = at->type == 1 && at->config == 9;

		cr_expect_eq(sy_attr_flag(at, SY_ATTR_FLAG_EXCLUDE_USER),
			     !dummy, "%s: attr %u exclude_user", name, a);
		cr_expect_eq(sy_attr_flag(at, SY_ATTR_FLAG_EXCLUDE_KERNEL),
			     dummy, "%s: attr %u exclude_kernel", name, a);
		cr_expect(sy_attr_flag(at, SY_ATTR_FLAG_EXCLUDE_HV));
		cr_expect(strstr(at->name, dummy ? ":u" : "/k"), "%s: %s", name,
			  at->name);
	}
}

/* A sample: kernel mode, in the kernel map, a chain of kernel frames. */
static void check_sample(const struct sy_record *rec,
			 const struct fx_sidecar *sc, const char *name)
{
	struct sy_sample s;
	struct sy_diag d = { 0 };
	/* the code runs in the image, or in the module when there is one */
	uint64_t lo = sc->nmaps ? sc->maps[0].start : sc->kernel_start;
	uint64_t end = sc->nmaps ? lo + sc->maps[0].len :
				   sc->kernel_start + sc->kernel_len;

	cr_assert_eq(sy_sample_parse(rec->attr, rec->data, rec->size, &s, &d,
				     0), 0, "%s", d.msg);
	cr_expect_eq(rec->misc & SY_MISC_CPUMODE_MASK, SY_MISC_KERNEL, "%s",
		     name);
	cr_expect(s.ip >= lo && s.ip < end, "%s: sample ip %#" PRIx64, name,
		  s.ip);
	if (!(s.type & SY_SAMPLE_CALLCHAIN))
		return;
	cr_assert_gt(s.callchain_nr, 1);
	cr_expect_eq(sy_sample_callchain(&s, 0), SY_CONTEXT_KERNEL, "%s",
		     name);
	for (uint64_t i = 1; i < s.callchain_nr; i++) {
		uint64_t ip = sy_sample_callchain(&s, i);

		cr_expect(ip >= lo && ip < end, "%s: frame %" PRIu64 " %#" PRIx64,
			  name, i, ip);
	}
	cr_expect_eq(sy_sample_callchain(&s, 1), s.ip);
}

/* The MMAP and COMMs perf synthesizes before FINISHED_INIT, nothing a
 * user process would leave, and the samples. */
static void check_records(struct sy_perf_reader *r,
			  const struct fx_sidecar *sc, const char *name)
{
	struct sy_record rec;
	struct sy_event ev;
	struct sy_diag d = { 0 };
	int init = 0, err;
	size_t ncomm = 0, nsamples = 0, nmmap = 0;

	while ((err = sy_perf_next(r, &rec)) == 0) {
		if (rec.type == SY_REC_FINISHED_INIT)
			init = 1;
		cr_expect(rec.type != SY_REC_MMAP2 && rec.type != SY_REC_FORK,
			  "%s: a user process's record (type %u)", name,
			  rec.type);
		if (rec.type == SY_REC_SAMPLE) {
			check_sample(&rec, sc, name);
			nsamples++;
			continue;
		}
		if (rec.type != SY_REC_MMAP && rec.type != SY_REC_COMM)
			continue;
		cr_assert_eq(sy_event_parse(&rec, &ev, &d), 0, "%s", d.msg);
		cr_expect(!init, "%s: synthesized after FINISHED_INIT", name);
		if (rec.type == SY_REC_COMM) {
			cr_expect(!ev.u.comm.exec && ev.u.comm.pid ==
							     ev.u.comm.tid);
			for (size_t t = 0; t < sc->nthreads; t++)
				if (sc->threads[t].tid == ev.u.comm.tid &&
				    !strcmp(sc->threads[t].comm,
					    ev.u.comm.comm))
					ncomm++;
			continue;
		}
		cr_expect_eq(rec.misc & SY_MISC_CPUMODE_MASK, SY_MISC_KERNEL);
		cr_expect_eq(ev.u.mmap.pid, UINT32_MAX, "%s: pid -1", name);
		if (nmmap++) {
			/* a module, as its map line says */
			const struct fx_sc_map *m;

			cr_assert_leq(nmmap - 1, sc->nmaps, "%s", name);
			m = &sc->maps[nmmap - 2];
			cr_expect_str_eq(ev.u.mmap.filename, m->path);
			cr_expect_eq(ev.u.mmap.addr, m->start);
			cr_expect_eq(ev.u.mmap.len, m->len);
			cr_expect_eq(ev.u.mmap.pgoff, 0);
			continue;
		}
		cr_expect_str_eq(ev.u.mmap.filename, "[kernel.kallsyms]_text");
		cr_expect_eq(ev.u.mmap.addr, sc->kernel_start);
		cr_expect_eq(ev.u.mmap.pgoff, sc->kernel_start);
		cr_expect_eq(ev.u.mmap.len, sc->kernel_len);
	}
	cr_assert_eq(err, -SY_E_EOS, "%s", name);
	cr_expect_eq(nmmap, 1 + sc->nmaps, "%s: the kernel's and the "
		     "modules' maps", name);
	cr_expect_eq(ncomm, sc->nthreads, "%s: a COMM per kernel thread", name);
	cr_expect_eq(nsamples, sc->nresumes + sc->npauses + sc->nsamples, "%s",
		     name);
}

Test(fx_kernel, kernel_recording_layout)
{
	static struct fx_sidecar sc[16];
	static char names[16][64];
	size_t n = kernel_fixtures(sc, names, 16);

	for (size_t i = 0; i < n; i++) {
		char path[1200], bid[128];
		struct sy_perf_reader *r;
		const struct sy_perf_features *ft;
		uint64_t text, etext;
		int found = 0;

		text = readelf_sym(sc[i].kernel, "_text");
		etext = readelf_sym(sc[i].kernel, "_etext");
		cr_expect_eq(sc[i].kernel_start, text + sc[i].kaslr, "%s",
			     names[i]);
		cr_expect_eq(sc[i].kernel_len, etext - text, "%s", names[i]);
		cr_expect_neq(sc[i].kaslr, 0, "%s: KASLR at work", names[i]);
		readelf_build_id(sc[i].kernel, bid, sizeof(bid));
		cr_expect_str_eq(sc[i].kernel_build_id, bid, "%s", names[i]);

		snprintf(path, sizeof(path), GEN "/%s.data", names[i]);
		cr_assert_eq(sy_perf_open(&r, path, NULL), 0, "%s", path);
		check_attrs(r, names[i]);
		ft = sy_perf_features(r);
		for (uint32_t k = 0; k < ft->nr_build_ids; k++) {
			const struct sy_perf_build_id *b = &ft->build_ids[k];
			char hex[41], want[128];

			for (uint8_t j = 0; j < b->size && j < 20; j++)
				snprintf(hex + 2 * j, 3, "%02x", b->id[j]);
			hex[2 * (b->size < 20 ? b->size : 20)] = 0;
			cr_expect_eq(b->misc & SY_MISC_CPUMODE_MASK,
				     SY_MISC_KERNEL);
			if (k) {	/* a module's, readelf's id */
				cr_assert_leq(k, sc[i].nmaps);
				cr_expect_str_eq(b->filename,
						 sc[i].maps[k - 1].path);
				snprintf(path, sizeof(path), ".%s",
					 sc[i].maps[k - 1].path);
				readelf_build_id(path, want, sizeof(want));
				cr_expect_str_eq(hex, want);
				cr_expect_str_eq(sc[i].maps[k - 1].build_id,
						 want);
			} else {
				cr_expect_str_eq(b->filename,
						 "[kernel.kallsyms]");
				cr_expect_str_eq(hex, bid);
			}
			found++;
		}
		cr_expect_eq((size_t)found, 1 + sc[i].nmaps, "%s: BUILD_ID lists "
			     "the image and the modules", names[i]);
		check_records(r, &sc[i], names[i]);
		sy_perf_close(r);
		fx_sidecar_fini(&sc[i]);
	}
}

/* The bytes and address of @elf's .text (libelf). */
static uint8_t *text_of(const char *elf, uint64_t *addr, size_t *len)
{
	int fd = open(elf, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstr;
	uint8_t *out = NULL;

	cr_assert_geq(fd, 0, "%s", elf);
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(e);
	cr_assert_eq(elf_getshdrstrndx(e, &shstr), 0);
	while (!out && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *nm;

		cr_assert_not_null(gelf_getshdr(scn, &sh));
		nm = elf_strptr(e, shstr, sh.sh_name);
		if (!nm || strcmp(nm, ".text"))
			continue;
		d = elf_getdata(scn, NULL);
		cr_assert(d && d->d_size == sh.sh_size);
		out = malloc(sh.sh_size);
		cr_assert_not_null(out);
		memcpy(out, d->d_buf, sh.sh_size);
		*addr = sh.sh_addr;
		*len = sh.sh_size;
	}
	elf_end(e);
	close(fd);
	cr_assert_not_null(out, "%s: no .text", elf);
	return out;
}

/* The module's branch relocations (llvm-readelf-19), resolved as the
 * kernel resolves them with .text at the start of the core area, give
 * the program's linked words: every R_AARCH64_CALL26 / JUMP26 of .text
 * against a symbol of .text is a `bl` / `b` whose target is the symbol's
 * value plus the addend.  Returns how many were checked. */
static size_t module_relocs_check(const char *ko, const uint8_t *prog,
				  size_t len, const char *name)
{
	char cmd[1024], *out = NULL, *line;
	size_t n = 0;

	snprintf(cmd, sizeof(cmd), "llvm-readelf-19 -rsW '%s'", ko);
	cr_assert_eq(sy_test_run(cmd, &out, NULL), 0, "%s", cmd);
	for (line = out; line && *line; line = strchr(line, '\n') + 1) {
		uint64_t off, val, add;
		char type[64], sym[128];
		uint32_t w;
		int64_t imm;

		if (sscanf(line, "%" SCNx64 " %*x %63s %" SCNx64 " %127s + %"
			   SCNx64, &off, type, &val, sym, &add) == 5 &&
		    (!strcmp(type, "R_AARCH64_CALL26") ||
		     !strcmp(type, "R_AARCH64_JUMP26"))) {
			cr_assert_lt(off + 4, len + 1, "%s", name);
			memcpy(&w, prog + off, 4);
			imm = (int64_t)((int32_t)(w << 6) >> 6) * 4;
			cr_expect_eq(off + (uint64_t)imm, val + add,
				     "%s: %s at .text+%#" PRIx64 " to %s",
				     name, type, off, sym);
			n++;
		}
		if (!strchr(line, '\n'))
			break;
	}
	free(out);
	return n;
}

/* The image (or the module) holds the program's code at the sidecar's
 * load_base: a kernel image's .text is the program's byte for byte, a
 * module's is where the kernel lays it (its core area's start: .text is
 * its first section) and relocated by the kernel it is the program's
 * linked code, as the loaded copy the tests give perf says too. */
Test(fx_kernel, image_is_the_program_moved)
{
	static struct fx_sidecar sc[16];
	static char names[16][64];
	size_t n = kernel_fixtures(sc, names, 16), modules = 0;

	sy_test_require_tool("llvm-readelf-19");
	for (size_t i = 0; i < n; i++) {
		uint64_t pa, ka;
		size_t pl, kl;
		char ko[300];
		uint8_t *p = text_of(sc[i].binary, &pa, &pl);
		uint8_t *k = text_of(sc[i].kernel, &ka, &kl);

		cr_expect(pl == kl && !memcmp(p, k, pl),
			  "%s: the image's .text is not the program's",
			  names[i]);
		free(k);
		if (!sc[i].nmaps) {
			/* a program PC at vaddr v ran (moved) at v +
			 * load_base: the image's v + (ka - pa), plus KASLR */
			cr_expect_eq(sc[i].load_base, ka - pa + sc[i].kaslr,
				     "%s", names[i]);
			free(p);
			fx_sidecar_fini(&sc[i]);
			continue;
		}
		snprintf(ko, sizeof(ko), ".%s", sc[i].maps[0].path);
		cr_expect_eq(sc[i].load_base, sc[i].maps[0].start - pa, "%s",
			     names[i]);
		cr_expect_gt(module_relocs_check(ko, p, pl, names[i]), 0);
		k = text_of("tests/fixtures/programs/bin/"
			    "branchy-aarch64-loaded.ko", &ka, &kl);
		cr_expect(pl == kl && !memcmp(p, k, pl), "the loaded module");
		free(k);
		free(p);
		modules++;
		fx_sidecar_fini(&sc[i]);
	}
	cr_expect_geq(modules, 1, "a module fixture");
}

/* Parses @text; returns the error and the message in @msg. */
static int parse(const char *text, char *msg, size_t len)
{
	struct fx_scenario s;
	struct sy_diag d = { 0 };
	int err = fx_scenario_parse(&s, text, strlen(text), "k.scn", &d);

	snprintf(msg, len, "%s", d.msg);
	return err;
}

Test(fx_kernel, kernel_scenarios_refused)
{
	static const char base[] =
		"program = branchy-aarch64-pie\ntrace = etmv4\nR = 700\n"
		"P = 1000\n";
	static const struct {
		const char *add, *why;
	} bad[] = {
		{ "el = 1\n", "needs 'vmlinux'" },
		{ "vmlinux = branchy-aarch64-vmlinux\n", "need el = 1" },
		{ "kaslr = 0x200000\n", "need el = 1" },
		{ "el = 1\nvmlinux = v\nsyscall_cycles = 10\n",
		  "syscall_cycles must be 0" },
		{ "el = 1\nvmlinux = v\nper_thread = 1\n", "per_thread" },
		{ "el = 1\nvmlinux = v\nload_base = 0x10000\n", "load_base" },
		{ "el = 1\nvmlinux = v\nthread = 5 6 0\nslice = 0 5 10\n",
		  "tid = pid" },
		{ "module = branchy-aarch64.ko\n", "need el = 1" },
		{ "el = 1\nvmlinux = v\nmodule = m\n", "go together" },
	};
	char text[512], msg[600];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "%s%s", base, bad[i].add);
		cr_expect_eq(parse(text, msg, sizeof(msg)), -SY_E_INVALID,
			     "%s", bad[i].add);
		cr_expect(strstr(msg, bad[i].why), "%s: %s", bad[i].add, msg);
	}
	cr_expect_eq(parse("program = branchy-x86_64\ntrace = pt\nR = 7\n"
			   "P = 9\nel = 1\nvmlinux = v\n", msg, sizeof(msg)),
		     -SY_E_INVALID);
	cr_expect(strstr(msg, "ETM only"), "%s", msg);
	snprintf(text, sizeof(text), "%sel = 1\nvmlinux = v\n"
		 "thread = 61 61 18300 kworker/0:1\nslice = 0 61 10\n", base);
	cr_expect_eq(parse(text, msg, sizeof(msg)), 0, "%s", msg);
}

/* The generator refuses an image that is not the program's code, or a
 * KASLR offset that is no page multiple. */
Test(fx_kernel, kernel_images_refused)
{
	static const struct {
		const char *scn, *why;
	} bad[] = {
		{ "program = branchy-aarch64-pie\n"
		  "vmlinux = branchy-aarch64-vmlinux\nkaslr = 0x1234\n",
		  "not page aligned" },
		/* no _text: not a kernel image */
		{ "program = branchy-aarch64-pie\nvmlinux = branchy-aarch64\n",
		  "no _text" },
		/* another program's code */
		{ "program = branchy-aarch64-pac\n"
		  "vmlinux = branchy-aarch64-vmlinux\n",
		  "branchy-aarch64-vmlinux" },
		/* a module that is no relocatable object */
		{ "program = branchy-aarch64-pie\n"
		  "vmlinux = branchy-aarch64-vmlinux\n"
		  "module = branchy-aarch64\nmodule_base = 0x10000\n",
		  "no .text" },
		{ "program = branchy-aarch64-pie\n"
		  "vmlinux = branchy-aarch64-vmlinux\n"
		  "module = branchy-aarch64.ko\nmodule_base = 0x10010\n",
		  "not page aligned" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[512];
		struct fx_scenario s;
		struct sy_diag d = { 0 };
		struct fx_gen *g = NULL;

		snprintf(text, sizeof(text), "%sel = 1\ntrace = etmv4\n"
			 "R = 700\nP = 1000\ninsns = 3000\nstart = 18300\n",
			 bad[i].scn);
		cr_assert_eq(fx_scenario_parse(&s, text, strlen(text), "k.scn",
					       &d), 0, "%s", d.msg);
		/* -SY_E_INVALID, or -SY_E_BAD_ELF for a file of another
		 * kind */
		cr_expect_lt(fx_gen_run(&g, &s, ".", &d), 0, "%s", bad[i].scn);
		cr_expect(strstr(d.msg, bad[i].why), "%s: %s", bad[i].scn,
			  d.msg);
		fx_gen_free(g);
	}
}
