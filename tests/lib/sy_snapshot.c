/* OpenCSD snapshot directories for the ETM tests (see sy_snapshot.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sy_snapshot.h"

#ifdef SY_SNAP_STANDALONE
/* Compiled into a program outside the test suite (bench/bench_etm_real.c
 * includes this file after defining sy_test_read_file()): a bad snapshot
 * ends it. */
#define SNAP_CHECK(c, ...)                                                    \
	do {                                                                  \
		if (!(c)) {                                                   \
			fprintf(stderr, "snapshot: " __VA_ARGS__);            \
			fputc('\n', stderr);                                  \
			exit(1);                                              \
		}                                                             \
	} while (0)
#else
#include <criterion/criterion.h>

#include "sy_test.h"
#define SNAP_CHECK(c, ...) cr_assert(c, __VA_ARGS__)
#endif

/* ---- a small .ini reader: [section], key=value; a key's "(0x004)"
 * register offset suffix is dropped; names compare case-insensitively */

struct ini_kv {
	char sec[64], key[64], val[512];
};

struct ini {
	struct ini_kv *kv;
	size_t n, cap;
};

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
			 e[-1] == '\n'))
		*--e = 0;
	return s;
}

static void ini_load(const char *path, struct ini *ini)
{
	char line[1024], sec[64] = "";
	FILE *f = fopen(path, "r");

	SNAP_CHECK(f, "cannot open %s", path);
	memset(ini, 0, sizeof(*ini));
	while (fgets(line, sizeof(line), f)) {
		char *l = trim(line), *eq, *paren;
		struct ini_kv *kv;

		if (!*l || *l == ';' || *l == '#')
			continue;
		if (*l == '[') {
			char *end = strchr(l, ']');

			SNAP_CHECK(end, "%s: bad section", path);
			*end = 0;
			snprintf(sec, sizeof(sec), "%s", trim(l + 1));
			continue;
		}
		eq = strchr(l, '=');
		if (!eq)
			continue;
		*eq = 0;
		if ((paren = strchr(l, '(')) != NULL)
			*paren = 0;
		if (ini->n == ini->cap) {
			ini->cap = ini->cap ? 2 * ini->cap : 32;
			ini->kv = realloc(ini->kv, ini->cap * sizeof(*ini->kv));
			SNAP_CHECK(ini->kv, "%s: no memory", path);
		}
		kv = &ini->kv[ini->n++];
		snprintf(kv->sec, sizeof(kv->sec), "%s", sec);
		snprintf(kv->key, sizeof(kv->key), "%s", trim(l));
		snprintf(kv->val, sizeof(kv->val), "%s", trim(eq + 1));
	}
	fclose(f);
}

static const char *ini_get(const struct ini *ini, const char *sec,
			   const char *key)
{
	for (size_t i = 0; i < ini->n; i++)
		if (!strcasecmp(ini->kv[i].sec, sec) &&
		    !strcasecmp(ini->kv[i].key, key))
			return ini->kv[i].val;
	return NULL;
}

static uint64_t ini_num(const struct ini *ini, const char *sec,
			const char *key, uint64_t dflt)
{
	const char *v = ini_get(ini, sec, key);

	return v ? strtoull(v, NULL, 0) : dflt;
}

/* ---- snapshot: sources, memory dumps, the trace buffer ---- */



size_t sy_snap_read(void *ctx, uint32_t ctxid, uint64_t addr,
			uint8_t *buf, size_t len)
{
	struct sy_snap *s = ctx;

	(void)ctxid;
	s->reads++;
	for (size_t i = 0; i < s->nmem; i++) {
		if (addr >= s->mem[i].addr &&
		    addr - s->mem[i].addr < s->mem[i].len) {
			size_t off = (size_t)(addr - s->mem[i].addr);
			size_t n = s->mem[i].len - off < len ?
				   s->mem[i].len - off : len;

			memcpy(buf, s->mem[i].data + off, n);
			return n;
		}
	}
	return 0;
}

static void snap_device(struct sy_snap *s, const char *dir, const char *file)
{
	char path[1024];
	struct ini d;
	const char *cls, *type;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	ini_load(path, &d);
	cls = ini_get(&d, "device", "class");
	type = ini_get(&d, "device", "type");
	SNAP_CHECK(cls && type, "%s: no class/type", path);
	if (!strcasecmp(cls, "core")) {
		for (int k = 0; k < 64; k++) {
			char sec[16];
			const char *f;
			uint64_t addr, len;
			size_t flen;
			int dup = 0;

			snprintf(sec, sizeof(sec), "dump%d", k);
			if (!(f = ini_get(&d, sec, "file")))
				continue;
			addr = ini_num(&d, sec, "address", 0);
			len = ini_num(&d, sec, "length", UINT64_MAX);
			for (size_t i = 0; i < s->nmem; i++)
				dup |= s->mem[i].addr == addr;
			if (dup)
				continue;
			SNAP_CHECK(s->nmem < SNAP_MAXMEM, "%s: too many dumps", path);
			snprintf(path, sizeof(path), "%s/%s", dir, f);
			s->mem[s->nmem].data = sy_test_read_file(path, &flen);
			SNAP_CHECK(s->mem[s->nmem].data, "%s", path);
			s->mem[s->nmem].addr = addr;
			s->mem[s->nmem].len = len < flen ? (size_t)len : flen;
			s->nmem++;
		}
	} else if (!strcasecmp(cls, "trace_source")) {
		struct sy_etm_source *e = &s->src[s->nsrc];

		SNAP_CHECK(s->nsrc < SNAP_MAXSRC, "%s: too many sources", path);
		SNAP_CHECK(!strcasecmp(type, "ETM4") || !strcasecmp(type, "ETE"),
			   "%s: source type %s", path, type);
		memset(e, 0, sizeof(*e));
		e->ete = !strcasecmp(type, "ETE");
		e->trcconfigr = (uint32_t)ini_num(&d, "regs", "TRCCONFIGR", 0);
		e->trctraceidr = (uint32_t)ini_num(&d, "regs", "TRCTRACEIDR", 0);
		e->trcidr0 = (uint32_t)ini_num(&d, "regs", "TRCIDR0", 0);
		e->trcidr1 = (uint32_t)ini_num(&d, "regs", "TRCIDR1", 0);
		e->trcidr2 = (uint32_t)ini_num(&d, "regs", "TRCIDR2", 0);
		e->trcidr8 = (uint32_t)ini_num(&d, "regs", "TRCIDR8", 0);
		e->trcauthstatus = (uint32_t)ini_num(&d, "regs", "TRCAUTHSTATUS",
						     0);
		e->trcdevarch = (uint32_t)ini_num(&d, "regs", "TRCDEVARCH", 0);
		type = ini_get(&d, "device", "name");
		SNAP_CHECK(type, "%s: no name", path);
		snprintf(s->name[s->nsrc], sizeof(s->name[0]), "%.63s", type);
		s->nsrc++;
	}
	free(d.kv);
}

void sy_snap_load(const char *dir, struct sy_snap *s)
{
	char path[1024];
	struct ini top, tr;
	const char *bufs, *bfile, *fmt, *bname;
	char bsec[64];
	size_t keep = 0;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/snapshot.ini", dir);
	ini_load(path, &top);
	for (size_t i = 0; i < top.n; i++)
		if (!strcasecmp(top.kv[i].sec, "device_list"))
			snap_device(s, dir, top.kv[i].val);
	snprintf(path, sizeof(path), "%s/%s", dir,
		 ini_get(&top, "trace", "metadata"));
	ini_load(path, &tr);
	bufs = ini_get(&tr, "trace_buffers", "buffers");
	SNAP_CHECK(bufs, "%s: no trace_buffers", path);
	snprintf(bsec, sizeof(bsec), "%.*s", (int)strcspn(bufs, ", "), bufs);
	bname = ini_get(&tr, bsec, "name");
	bfile = ini_get(&tr, bsec, "file");
	fmt = ini_get(&tr, bsec, "format");
	SNAP_CHECK(bname && bfile && fmt, "%s: no buffer", path);
	s->formatted = !strcasecmp(fmt, "coresight");
	snprintf(path, sizeof(path), "%s/%s", dir, bfile);
	s->trace = sy_test_read_file(path, &s->trace_len);
	SNAP_CHECK(s->trace, "%s", path);
	/* Only the sources that write into this buffer. */
	for (size_t k = 0; k < s->nsrc; k++) {
		const char *b = ini_get(&tr, "source_buffers", s->name[k]);

		if (b && !strcasecmp(b, bname)) {
			s->src[keep] = s->src[k];
			memmove(s->name[keep], s->name[k], sizeof(s->name[0]));
			keep++;
		}
	}
	s->nsrc = keep;
	SNAP_CHECK(s->nsrc > 0, "%s: no source", dir);
	free(top.kv);
	free(tr.kv);
}

void sy_snap_free(struct sy_snap *s)
{
	for (size_t i = 0; i < s->nmem; i++)
		free(s->mem[i].data);
	free(s->trace);
}
