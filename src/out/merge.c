/* Merging aggregated outputs (sy_merge.h).  Every distinct sample, record
 * and MMAP2 line is one key in a hash table whose bytes live in an arena;
 * inputs are read a line at a time. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sy_bytes.h"
#include "sy_hash.h"
#include "sy_merge.h"

struct sy_merge_ent {
	uint64_t hash;
	size_t off;		/* key bytes in the arena */
	size_t len;
	uint64_t count;
	uint64_t mispred;	/* bolt B records */
	size_t val;		/* build-id table: the build-id's bytes */
	size_t first;		/* build-id table: the file it came from */
	uint64_t start;		/* build-id table: first load address */
};

/* Keys with counts: samples, MMAP2 lines, path -> build-id. */
struct sy_merge_tab {
	struct sy_merge_ent *ents;
	size_t nr, cap;
	struct sy_hindex ix;	/* key bytes -> ents[] */
};

struct sy_merge {
	enum sy_merge_format fmt;
	struct sy_merge_tab samples, mmaps, bids;
	char *arena;
	size_t used, acap;
	struct sy_merge_stats st;
	/* the input being read */
	const char *name;
	uint64_t line;
	char *block;		/* perfscript: frame lines so far */
	size_t block_len, block_cap;
	uint64_t pending;	/* count line before the sample, 0: none */
};

const char *sy_merge_format_name(enum sy_merge_format f)
{
	static const char *const names[] = { "empty", "perfscript", "lbr",
					     "bolt" };

	return (unsigned)f < 4 ? names[f] : "?";
}

int sy_merge_new(struct sy_merge **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -SY_E_NOMEM;
}

static void sy_merge_tab_free(struct sy_merge_tab *t)
{
	free(t->ents);
	sy_hindex_fini(&t->ix);
}

void sy_merge_free(struct sy_merge *m)
{
	if (!m)
		return;
	sy_merge_tab_free(&m->samples);
	sy_merge_tab_free(&m->mmaps);
	sy_merge_tab_free(&m->bids);
	free(m->arena);
	free(m->block);
	free(m);
}

enum sy_merge_format sy_merge_format(const struct sy_merge *m)
{
	return m->fmt;
}

const struct sy_merge_stats *sy_merge_stats(const struct sy_merge *m)
{
	const struct sy_merge_tab *t[3] = { &m->samples, &m->mmaps, &m->bids };
	struct sy_merge *w = (struct sy_merge *)(uintptr_t)m;

	/* what the sum holds: the arena and the tables (not the line being
	 * read, which getline frees per input) */
	w->st.held = m->acap + m->block_cap;
	for (int i = 0; i < 3; i++)
		w->st.held += t[i]->cap * sizeof(*t[i]->ents) +
			      t[i]->ix.cap * sizeof(*t[i]->ix.slot);
	return &m->st;
}

/* FNV-1a, then a finaliser so the low bits the table uses mix. */
static uint64_t sy_merge_hash(const void *p, size_t n)
{
	return sy_hash_u64(sy_hash_bytes(SY_HASH_FNV_OFFSET ^ n, p, n));
}

static size_t sy_merge_store(struct sy_merge *m, const void *p, size_t n)
{
	size_t off;

	if (m->acap - m->used < n + 1) {
		size_t ncap = m->acap ? m->acap : 1 << 16;
		char *a;

		while (ncap - m->used < n + 1)
			ncap *= 2;
		a = realloc(m->arena, ncap);
		if (!a)
			return SIZE_MAX;
		m->arena = a;
		m->acap = ncap;
	}
	off = m->used;
	memcpy(m->arena + off, p, n);
	m->arena[off + n] = 0;
	m->used += n + 1;
	return off;
}

static uint64_t sy_merge_ent_hash(const void *ctx, size_t i)
{
	return ((const struct sy_merge_tab *)ctx)->ents[i].hash;
}

/* The entry for key @p (@n bytes), made when absent (*made = 1). */
static struct sy_merge_ent *sy_merge_get(struct sy_merge *m,
					 struct sy_merge_tab *t, const void *p,
					 size_t n, int *made)
{
	uint64_t h = sy_merge_hash(p, n);
	size_t j;
	uint32_t x;

	*made = 0;
	if (sy_hindex_reserve(&t->ix, t->nr + 1, 1024, sy_merge_ent_hash, t))
		return NULL;
	for (j = sy_hindex_first(&t->ix, h); (x = sy_hindex_at(&t->ix, j));
	     j = sy_hindex_next(&t->ix, j)) {
		struct sy_merge_ent *e = &t->ents[x - 1];

		if (e->hash == h && e->len == n &&
		    !memcmp(m->arena + e->off, p, n))
			return e;
	}
	if (t->nr >= UINT32_MAX - 1)
		return NULL;
	if (t->nr == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 1024;
		struct sy_merge_ent *e = realloc(t->ents, ncap * sizeof(*e));

		if (!e)
			return NULL;
		t->ents = e;
		t->cap = ncap;
	}
	size_t off = sy_merge_store(m, p, n);
	if (off == SIZE_MAX)
		return NULL;
	t->ents[t->nr] = (struct sy_merge_ent){ h, off, n, 0, 0, 0, 0, 0 };
	sy_hindex_set(&t->ix, j, t->nr++);
	*made = 1;
	return &t->ents[t->nr - 1];
}

static int sy_merge_bad(struct sy_merge *m, struct sy_diag *d, const char *what)
{
	return sy_diag_set_nooff(d, -SY_E_BAD_RECORD, "%s: line %" PRIu64 ": %s",
				 m->name, m->line, what);
}

/* Every file holds one format, and every file the first one's. */
static int sy_merge_is(struct sy_merge *m, enum sy_merge_format f,
		       struct sy_diag *d)
{
	if (m->fmt == f)
		return 0;
	if (m->fmt == SY_MERGE_EMPTY) {
		m->fmt = f;
		return 0;
	}
	return sy_diag_set_nooff(d, -SY_E_INVALID,
				 "%s: line %" PRIu64 ": %s sample, but the "
				 "inputs before it are %s: formats cannot be "
				 "merged",
				 m->name, m->line, sy_merge_format_name(f),
				 sy_merge_format_name(m->fmt));
}

static int sy_merge_count(struct sy_merge *m, struct sy_merge_ent *e,
			  uint64_t n, struct sy_diag *d)
{
	if (e->count > UINT64_MAX - n)
		return sy_diag_set_nooff(d, -SY_E_LIMIT,
					 "%s: line %" PRIu64 ": count above "
					 "2^64",
					 m->name, m->line);
	e->count += n;
	m->st.samples += n;
	return 0;
}

static int sy_merge_sample(struct sy_merge *m, const char *key, size_t n,
			   struct sy_diag *d)
{
	int made;
	struct sy_merge_ent *e = sy_merge_get(m, &m->samples, key, n, &made);

	if (!e)
		return -SY_E_NOMEM;
	m->st.distinct += made;
	return sy_merge_count(m, e, m->pending ? m->pending : 1, d);
}

/* PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xLEN) @ PGOFF <BUILD-ID>]: PERM PATH
 * (or "00:00 0 0" in place of the build-id).  The process ids become 0/0:
 * llvm-profgen uses them only for --pid, and a fleet's sum would keep a
 * line per process otherwise. */
static int sy_merge_mmap(struct sy_merge *m, char *l, size_t n,
			 struct sy_diag *d)
{
	const char *close = strstr(l, "]: "), *at = strstr(l, " @ ");
	const char *br = strstr(l, ": [0x");
	const char *path, *bid = "", *bend;
	char bidbuf[64];
	uint64_t start;
	int made;
	struct sy_merge_ent *e;

	if (!close || !at || !br || at > close || br > at ||
	    !strchr(close + 3, ' '))
		return sy_merge_bad(m, d, "MMAP2 line without \"@ PGOFF ...]: "
					  "PERM PATH\"");
	start = strtoull(br + 3, NULL, 16);
	/* "PERF_RECORD_MMAP2 0/0" + the rest from ": [" on */
	memmove(l + 21, br, n - (size_t)(br - l) + 1);
	memcpy(l + 18, "0/0", 3);
	n = strlen(l);
	close = strstr(l, "]: ");
	at = strstr(l, " @ ");
	path = strchr(close + 3, ' ') + 1;
	bend = strchr(at + 3, ' ');
	if (bend && bend < close && bend[1] == '<' && close[-1] == '>' &&
	    close - bend - 3 < (long)sizeof(bidbuf)) {
		memcpy(bidbuf, bend + 2, (size_t)(close - bend - 3));
		bidbuf[close - bend - 3] = 0;
		bid = bidbuf;
	}
	e = sy_merge_get(m, &m->mmaps, l, n, &made);
	if (!e)
		return -SY_E_NOMEM;
	m->st.mmaps += made;
	e = sy_merge_get(m, &m->bids, path, strlen(path), &made);
	if (!e)
		return -SY_E_NOMEM;
	if (made) {
		size_t v = sy_merge_store(m, bid, strlen(bid));
		size_t w = sy_merge_store(m, m->name, strlen(m->name));

		if (v == SIZE_MAX || w == SIZE_MAX)
			return -SY_E_NOMEM;
		e->val = v;
		e->first = w;
		e->start = start;
		return 0;
	}
	if (e->start != start && !e->count) {
		e->count = 1;	/* counted once per path */
		m->st.moved++;
	}
	/* an unknown id (old output) does not contradict a known one */
	if (*bid && m->arena[e->val] && strcmp(bid, m->arena + e->val))
		return sy_diag_set_nooff(d, -SY_E_BUILD_ID,
					 "%s: line %" PRIu64 ": %s has "
					 "build-id %s, but %s has it as %s: "
					 "different binaries cannot be merged",
					 m->name, m->line, path, bid,
					 m->arena + e->first,
					 m->arena + e->val);
	return 0;
}

static int sy_merge_hex(const char *s, const char **end, uint64_t *v)
{
	char *e;

	if (!isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 16);
	*end = e;
	return errno ? -1 : 0;
}

/* "B FROM TO COUNT MISPRED" / "F START END COUNT" (also "f"). */
static int sy_merge_bolt(struct sy_merge *m, const char *l, struct sy_diag *d)
{
	uint64_t a, b, c, mp = 0;
	uint8_t key[17];
	const char *p = l + 2;
	char *e2;
	int made, err;
	struct sy_merge_ent *e;

	if (sy_merge_hex(p, &p, &a) || *p++ != ' ' || sy_merge_hex(p, &p, &b) ||
	    *p++ != ' ' || !isdigit((unsigned char)*p))
		return sy_merge_bad(m, d, "not a BOLT B/F record");
	c = strtoull(p, &e2, 10);
	p = e2;
	if (l[0] == 'B') {
		if (*p++ != ' ' || !isdigit((unsigned char)*p))
			return sy_merge_bad(m, d, "B record without MISPRED");
		mp = strtoull(p, &e2, 10);
		p = e2;
	}
	if (*p)
		return sy_merge_bad(m, d, "junk after a BOLT record");
	err = sy_merge_is(m, SY_MERGE_BOLT, d);
	if (err)
		return err;
	/* big-endian, so that sorting the bytes sorts F before B, then by
	 * address */
	key[0] = l[0] == 'F' ? 0 : l[0] == 'B' ? 1 : 2;
	for (int i = 0; i < 8; i++) {
		key[1 + i] = (uint8_t)(a >> (56 - 8 * i));
		key[9 + i] = (uint8_t)(b >> (56 - 8 * i));
	}
	e = sy_merge_get(m, &m->samples, key, sizeof(key), &made);
	if (!e)
		return -SY_E_NOMEM;
	m->st.distinct += made;
	if (e->mispred > UINT64_MAX - mp)
		return sy_merge_bad(m, d, "mispredictions above 2^64");
	e->mispred += mp;
	return sy_merge_count(m, e, c, d);
}

/* One "0xHEX" address of a branch entry; *@p moves past it. */
static int sy_merge_entry_addr(const char **p)
{
	const char *s = *p;

	if (s[0] != '0' || s[1] != 'x' || !isxdigit((unsigned char)s[2]))
		return -1;
	s += 2;
	while (isxdigit((unsigned char)*s))
		s++;
	*p = s;
	return 0;
}

/* " 0xFROM/0xTO/..." entries: at least one, each with two whole addresses
 * and then only its flag fields ("/P/-/-/0"). */
static int sy_merge_brline(const char *p)
{
	int n = 0;

	while (*p == ' ')
		p++;
	while (*p) {
		if (sy_merge_entry_addr(&p) || *p++ != '/' ||
		    sy_merge_entry_addr(&p) || (*p && *p != '/' && *p != ' '))
			return -1;
		p += strcspn(p, " ");
		n++;
		while (*p == ' ')
			p++;
	}
	return n ? 0 : -1;
}

static int sy_merge_block_add(struct sy_merge *m, const char *l, size_t n)
{
	if (m->block_cap - m->block_len < n + 2) {
		size_t ncap = m->block_cap ? m->block_cap * 2 : 4096;
		char *b;

		while (ncap - m->block_len < n + 2)
			ncap *= 2;
		b = realloc(m->block, ncap);
		if (!b)
			return -SY_E_NOMEM;
		m->block = b;
		m->block_cap = ncap;
	}
	memcpy(m->block + m->block_len, l, n);
	m->block_len += n;
	m->block[m->block_len++] = '\n';
	return 0;
}

static int sy_merge_line(struct sy_merge *m, char *l, size_t n,
			 struct sy_diag *d)
{
	const char *p;
	uint64_t v;
	int err;

	if (!n)
		return 0;
	if (!strncmp(l, "PERF_RECORD_MMAP2 ", 18))
		return sy_merge_mmap(m, l, n, d);
	if (strspn(l, "0123456789") == n) {
		if (m->pending || m->block_len)
			return sy_merge_bad(m, d, "a count line where a "
						  "sample goes on");
		m->pending = strtoull(l, NULL, 10);
		if (!m->pending || n > 19)
			return sy_merge_bad(m, d, "count out of range");
		return 0;
	}
	if ((l[0] == 'B' || l[0] == 'F' || l[0] == 'f') && l[1] == ' ') {
		if (m->pending)
			return sy_merge_bad(m, d, "a count line before a BOLT "
						  "record");
		return sy_merge_bolt(m, l, d);
	}
	if (l[0] == '\t') {
		p = l + strspn(l, "\t ");
		if (sy_merge_hex(p, &p, &v) || *p)
			return sy_merge_bad(m, d, "frame line without a hex "
						  "address");
		return sy_merge_block_add(m, l, n);
	}
	if (l[0] == ' ' && l[1] == '0' && l[2] == 'x') {
		if (!m->block_len || sy_merge_brline(l))
			return sy_merge_bad(m, d, "branch line without frames "
						  "or entries");
		err = sy_merge_is(m, SY_MERGE_PERFSCRIPT, d);
		if (!err)
			err = sy_merge_block_add(m, l, n);
		if (!err)
			err = sy_merge_sample(m, m->block, m->block_len - 1, d);
		m->block_len = 0;
		m->pending = 0;
		return err;
	}
	p = l + strspn(l, " ");
	if (m->block_len || sy_merge_hex(p, &p, &v) || *p != ' ' ||
	    sy_merge_brline(p))
		return sy_merge_bad(m, d, "neither an MMAP2 line, a count, a "
					  "sample nor a BOLT record");
	err = sy_merge_is(m, SY_MERGE_LBR, d);
	if (!err)
		err = sy_merge_sample(m, l, n, d);
	m->pending = 0;
	return err;
}

int sy_merge_add(struct sy_merge *m, FILE *f, const char *name,
		 struct sy_diag *diag)
{
	char *l = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0, cut = 0;

	m->name = name;
	m->line = 0;
	m->block_len = 0;
	m->pending = 0;
	m->st.inputs++;
	while (!err && (n = getline(&l, &cap, f)) >= 0) {
		m->line++;
		/* every line convert writes ends with a newline: one that
		 * does not is the end of a file cut off */
		cut = !n || l[n - 1] != '\n';
		if (!cut)
			l[--n] = 0;
		if (memchr(l, 0, (size_t)n))
			err = sy_merge_bad(m, diag, "NUL byte: not a text "
						    "profile");
		else
			err = sy_merge_line(m, l, (size_t)n, diag);
	}
	free(l);
	if (!err && ferror(f))
		err = sy_diag_set_nooff(diag, -SY_E_IO, "%s: read: %s", name,
					strerror(errno ? errno : EIO));
	if (!err && cut)
		err = sy_merge_bad(m, diag, "ends in the middle of a line (the "
					    "file was cut off)");
	if (!err && (m->block_len || m->pending)) {
		m->line++;
		err = sy_merge_bad(m, diag, "ends inside a sample");
	}
	return err;
}

static const struct sy_merge *sy_merge_sorting;

static int sy_merge_cmp(const void *x, const void *y)
{
	const struct sy_merge_ent *p = *(const struct sy_merge_ent *const *)x;
	const struct sy_merge_ent *q = *(const struct sy_merge_ent *const *)y;
	size_t n = p->len < q->len ? p->len : q->len;
	int c = memcmp(sy_merge_sorting->arena + p->off,
		       sy_merge_sorting->arena + q->off, n);

	if (c)
		return c;
	return p->len < q->len ? -1 : p->len > q->len;
}

/* Entries of @t sorted by their key bytes. */
static const struct sy_merge_ent **sy_merge_sorted(const struct sy_merge *m,
						   const struct sy_merge_tab *t)
{
	const struct sy_merge_ent **v = malloc((t->nr ? t->nr : 1) *
					       sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < t->nr; i++)
		v[i] = &t->ents[i];
	/* qsort has no context argument in C11: one sort at a time */
	sy_merge_sorting = m;
	qsort(v, t->nr, sizeof(*v), sy_merge_cmp);
	return v;
}

static void sy_merge_put_bolt(const struct sy_merge *m,
			      const struct sy_merge_ent *e, FILE *f)
{
	const uint8_t *k = (const uint8_t *)m->arena + e->off;
	uint64_t a = 0, b = 0;

	for (int i = 0; i < 8; i++) {
		a = a << 8 | k[1 + i];
		b = b << 8 | k[9 + i];
	}
	if (k[0] == 1)
		fprintf(f, "B %" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
			a, b, e->count, e->mispred);
	else
		fprintf(f, "%c %" PRIx64 " %" PRIx64 " %" PRIu64 "\n",
			k[0] ? 'f' : 'F', a, b, e->count);
}

int sy_merge_write(struct sy_merge *m, FILE *f)
{
	const struct sy_merge_ent **v = sy_merge_sorted(m, &m->mmaps);

	if (!v)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < m->mmaps.nr; i++)
		fprintf(f, "%s\n", m->arena + v[i]->off);
	free(v);
	v = sy_merge_sorted(m, &m->samples);
	if (!v)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < m->samples.nr; i++) {
		if (m->fmt == SY_MERGE_BOLT) {
			sy_merge_put_bolt(m, v[i], f);
			continue;
		}
		if (v[i]->count > 1)
			fprintf(f, "%" PRIu64 "\n", v[i]->count);
		fprintf(f, "%s\n", m->arena + v[i]->off);
	}
	free(v);
	return ferror(f) ? -SY_E_OUTPUT : 0;
}
