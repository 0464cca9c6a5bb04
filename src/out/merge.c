/* Merging aggregated outputs (sy_merge.h).  Every distinct sample, record
 * and MMAP2 line is one key in a hash table whose bytes live in an arena;
 * inputs are read a line at a time.
 *
 * A perfscript or lbr sample means its addresses as llvm-profgen reads
 * them: against the MMAP2 lines in force where it stands in its file
 * (mmap_state.h).  So a sample's key is its text and its section: the set
 * of lines in force that cover its addresses.  Samples of one binary
 * loaded at two addresses (ASLR, a fleet of PIEs) fall in two sections
 * and are written after their own lines, so llvm-profgen reads each at
 * its address; samples of one layout add up whatever the recording. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mmap_state.h"
#include "sy_bytes.h"
#include "sy_hash.h"
#include "sy_merge.h"
#include "sy_vec.h"

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
	/* samples: perfscript and lbr keys are a section's index (4 bytes)
	 * and the text; sections: sorted uint32 indices of mmaps[] */
	struct sy_merge_tab samples, mmaps, bids, sections;
	char *arena;
	size_t used, acap;
	struct sy_merge_stats st;
	/* the input being read */
	const char *name;
	uint64_t line;
	char *block;		/* perfscript: frame lines so far */
	size_t block_len, block_cap;
	uint64_t pending;	/* count line before the sample, 0: none */
	struct sy_mmstate in;	/* the lines in force in the input */
	uint32_t *ids;		/* a sample's section being made */
	size_t nr_ids, cap_ids;
	char *key;		/* a sample's key being made */
	size_t key_cap;
	/* writing: the rank of each section's and line's canonical order */
	uint32_t *sec_rank, *mm_rank;
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
	sy_merge_tab_free(&m->sections);
	sy_mmstate_fini(&m->in);
	free(m->ids);
	free(m->key);
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
	const struct sy_merge_tab *t[4] = { &m->samples, &m->mmaps, &m->bids,
					    &m->sections };
	struct sy_merge *w = (struct sy_merge *)(uintptr_t)m;

	/* what the sum holds: the arena and the tables (not the line being
	 * read, which getline frees per input) */
	w->st.held = m->acap + m->block_cap + m->cap_ids * sizeof(*m->ids) +
		     m->key_cap;
	for (int i = 0; i < 4; i++)
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
	if (n)			/* an empty key (a section of no lines) */
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
		    (!n || !memcmp(m->arena + e->off, p, n)))
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

/* The fields of an MMAP2 line. */
struct sy_merge_map {
	uint64_t start, len, pgoff;
	const char *path;
};

static int sy_merge_map_parse(const char *l, struct sy_merge_map *p)
{
	const char *close = strstr(l, "]: "), *at = strstr(l, " @ ");
	const char *br = strstr(l, ": [0x"), *sp;
	char *e;

	if (!close || !at || !br || at > close || br > at ||
	    !(sp = strchr(close + 3, ' ')))
		return -1;
	p->start = strtoull(br + 3, &e, 16);
	if (*e != '(')
		return -1;
	p->len = strtoull(e + 1, &e, 16);
	if (*e != ')' || !p->len || p->start + p->len < p->start)
		return -1;
	p->pgoff = strtoull(at + 3, NULL, 16);
	p->path = sp + 1;
	return 0;
}

static int sy_merge_id_add(struct sy_merge *m, uint32_t id)
{
	for (size_t i = 0; i < m->nr_ids; i++)
		if (m->ids[i] == id)
			return 0;
	if (sy_grow((void **)&m->ids, &m->cap_ids, m->nr_ids, sizeof(*m->ids)))
		return -SY_E_NOMEM;
	/* kept sorted: the section's key is the set */
	size_t i = m->nr_ids++;
	for (; i > 0 && m->ids[i - 1] > id; i--)
		m->ids[i] = m->ids[i - 1];
	m->ids[i] = id;
	return 0;
}

/* A hex digit's value, 16 for a separator of fields (blank, '/', end),
 * 17 for anything else. */
static inline unsigned char sy_merge_hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned char)(c - '0');
	if (c == '/' || c == ' ' || c == '\t' || c == '\n')
		return 16;
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return (unsigned char)(c - 'a' + 10);
	return 17;
}

/* The lines in force that cover the addresses of sample @text: every
 * field of hex digits in it (frames, branch entries; flag fields are not
 * hex or are 0, which nothing covers). */
static int sy_merge_section(struct sy_merge *m, const char *text, size_t n,
			    uint32_t *sec)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + n;
	const struct sy_mmstate_ent *last = NULL;
	struct sy_merge_ent *e;
	int made, err;

	m->nr_ids = 0;
	while (p < end) {
		uint64_t a = 0;
		unsigned v = 17, digits = 0;

		if (end - p > 1 && p[0] == '0' && p[1] == 'x')
			p += 2;
		while (p < end && (v = sy_merge_hexval(*p)) < 16) {
			a = a << 4 | v;
			digits++;
			p++;
		}
		if (p == end)
			v = 16;
		if (digits && digits <= 16 && v == 16 && a) {
			/* consecutive addresses share their mapping */
			if (!last || a < last->start || a >= last->end)
				last = sy_mmstate_find(&m->in, a);
			if (last && (err = sy_merge_id_add(m, (uint32_t)last->id)))
				return err;
		}
		while (p < end && sy_merge_hexval(*p) != 16)
			p++;
		while (p < end && sy_merge_hexval(*p) == 16)
			p++;
	}
	e = sy_merge_get(m, &m->sections, m->ids, m->nr_ids * sizeof(*m->ids),
			 &made);
	if (!e)
		return -SY_E_NOMEM;
	*sec = (uint32_t)(e - m->sections.ents);
	return 0;
}

static int sy_merge_sample(struct sy_merge *m, const char *text, size_t n,
			   struct sy_diag *d)
{
	uint32_t sec;
	int made, err = sy_merge_section(m, text, n, &sec);
	struct sy_merge_ent *e;

	if (err)
		return err;
	if (m->key_cap < n + sizeof(sec)) {
		size_t ncap = m->key_cap ? m->key_cap : 4096;
		char *k;

		while (ncap < n + sizeof(sec))
			ncap *= 2;
		k = realloc(m->key, ncap);
		if (!k)
			return -SY_E_NOMEM;
		m->key = k;
		m->key_cap = ncap;
	}
	memcpy(m->key, &sec, sizeof(sec));
	memcpy(m->key + sizeof(sec), text, n);
	e = sy_merge_get(m, &m->samples, m->key, n + sizeof(sec), &made);
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
	const char *close, *at, *br = strstr(l, ": [0x");
	const char *path, *bid = "", *bend;
	char bidbuf[64];
	struct sy_merge_map mp;
	uint64_t start;
	int made, err;
	struct sy_merge_ent *e;

	if (sy_merge_map_parse(l, &mp))
		return sy_merge_bad(m, d, "MMAP2 line without \"[0xSTART(0xLEN) "
					  "@ PGOFF ...]: PERM PATH\"");
	start = mp.start;
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
	err = sy_mmstate_note(&m->in, mp.start, mp.len, mp.pgoff, path,
			      (uint64_t)(e - m->mmaps.ents));
	if (err)
		return err;
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
	/* each file starts with no line in force, as llvm-profgen reads it */
	sy_mmstate_fini(&m->in);
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

static int sy_merge_bytes_cmp(const char *p, size_t pn, const char *q,
			      size_t qn)
{
	int c = memcmp(p, q, pn < qn ? pn : qn);

	if (c)
		return c;
	return pn < qn ? -1 : pn > qn;
}

static int sy_merge_cmp(const void *x, const void *y)
{
	const struct sy_merge_ent *p = *(const struct sy_merge_ent *const *)x;
	const struct sy_merge_ent *q = *(const struct sy_merge_ent *const *)y;

	return sy_merge_bytes_cmp(sy_merge_sorting->arena + p->off, p->len,
				  sy_merge_sorting->arena + q->off, q->len);
}

/* The @i-th id of a section's key (arena bytes are not aligned). */
static uint32_t sy_merge_sec_id(const struct sy_merge *m,
				const struct sy_merge_ent *e, size_t i)
{
	uint32_t v;

	memcpy(&v, m->arena + e->off + 4 * i, sizeof(v));
	return v;
}

/* Sections by their lines' ranks (mm_rank), each set in rank order. */
static int sy_merge_sec_cmp(const void *x, const void *y)
{
	const struct sy_merge_ent *p = *(const struct sy_merge_ent *const *)x;
	const struct sy_merge_ent *q = *(const struct sy_merge_ent *const *)y;
	const struct sy_merge *m = sy_merge_sorting;
	size_t na = p->len / 4, nb = q->len / 4;

	/* both sets are in rank order (sy_merge_rank) */
	for (size_t i = 0; i < na && i < nb; i++) {
		uint32_t a = sy_merge_sec_id(m, p, i), b = sy_merge_sec_id(m, q, i);

		if (a != b)
			return a < b ? -1 : 1;
	}
	return na < nb ? -1 : na > nb;
}

/* Samples by their section's rank, then by their text. */
static int sy_merge_sample_cmp(const void *x, const void *y)
{
	const struct sy_merge_ent *p = *(const struct sy_merge_ent *const *)x;
	const struct sy_merge_ent *q = *(const struct sy_merge_ent *const *)y;
	const struct sy_merge *m = sy_merge_sorting;
	uint32_t sp, sq;

	memcpy(&sp, m->arena + p->off, sizeof(sp));
	memcpy(&sq, m->arena + q->off, sizeof(sq));
	if (m->sec_rank[sp] != m->sec_rank[sq])
		return m->sec_rank[sp] < m->sec_rank[sq] ? -1 : 1;
	return sy_merge_bytes_cmp(m->arena + p->off + 4, p->len - 4,
				  m->arena + q->off + 4, q->len - 4);
}

/* Entries of @t sorted by @cmp. */
static const struct sy_merge_ent **
sy_merge_sorted(const struct sy_merge *m, const struct sy_merge_tab *t,
		int (*cmp)(const void *, const void *))
{
	const struct sy_merge_ent **v = malloc((t->nr ? t->nr : 1) *
					       sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < t->nr; i++)
		v[i] = &t->ents[i];
	/* qsort has no context argument in C11: one sort at a time */
	sy_merge_sorting = m;
	qsort(v, t->nr, sizeof(*v), cmp);
	return v;
}

/* The canonical order, which depends on the texts alone: lines by text
 * (mm_rank), each section's set rewritten as its lines' ranks in order,
 * sections by those (sec_rank).  A section's ids become ranks in place:
 * the tables are not looked up again. */
static int sy_merge_rank(struct sy_merge *m)
{
	const struct sy_merge_ent **v;

	m->mm_rank = malloc((m->mmaps.nr ? m->mmaps.nr : 1) * sizeof(uint32_t));
	m->sec_rank = malloc((m->sections.nr ? m->sections.nr : 1) *
			     sizeof(uint32_t));
	v = sy_merge_sorted(m, &m->mmaps, sy_merge_cmp);
	if (!m->mm_rank || !m->sec_rank || !v) {
		free(v);
		return -SY_E_NOMEM;
	}
	for (size_t i = 0; i < m->mmaps.nr; i++)
		m->mm_rank[v[i] - m->mmaps.ents] = (uint32_t)i;
	free(v);
	for (size_t i = 0; i < m->sections.nr; i++) {
		struct sy_merge_ent *e = &m->sections.ents[i];
		size_t n = e->len / 4;
		int err;

		m->nr_ids = 0;
		for (size_t j = 0; j < n; j++)
			if ((err = sy_merge_id_add(m, m->mm_rank[
						sy_merge_sec_id(m, e, j)])))
				return err;
		if (n)
			memcpy(m->arena + e->off, m->ids, n * sizeof(*m->ids));
	}
	v = sy_merge_sorted(m, &m->sections, sy_merge_sec_cmp);
	if (!v)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < m->sections.nr; i++)
		m->sec_rank[v[i] - m->sections.ents] = (uint32_t)i;
	free(v);
	return 0;
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

/* The lines of section @sec that are not in force, written before its
 * samples. */
static int sy_merge_put_section(struct sy_merge *m, uint32_t sec,
				const struct sy_merge_ent **lines,
				struct sy_mmstate *out, FILE *f)
{
	const struct sy_merge_ent *e = &m->sections.ents[sec];

	for (size_t j = 0; j < e->len / 4; j++) {
		const char *l = m->arena + lines[sy_merge_sec_id(m, e, j)]->off;
		struct sy_merge_map mp;
		int err;

		if (sy_merge_map_parse(l, &mp))
			return -SY_E_INVALID;	/* parsed when read */
		if (sy_mmstate_in_force(out, mp.start, mp.len, mp.pgoff,
					mp.path))
			continue;
		err = sy_mmstate_note(out, mp.start, mp.len, mp.pgoff, mp.path,
				      0);
		if (err)
			return err;
		fprintf(f, "%s\n", l);
	}
	return 0;
}

static int sy_merge_write_samples(struct sy_merge *m, FILE *f)
{
	const struct sy_merge_ent **lines = NULL, **v = NULL;
	struct sy_mmstate out;
	uint32_t cur = UINT32_MAX;
	int err = sy_merge_rank(m);

	sy_mmstate_init(&out);
	if (!err && (!(lines = sy_merge_sorted(m, &m->mmaps, sy_merge_cmp)) ||
		     !(v = sy_merge_sorted(m, &m->samples,
					   sy_merge_sample_cmp))))
		err = -SY_E_NOMEM;
	for (size_t i = 0; !err && i < m->samples.nr; i++) {
		uint32_t sec;

		memcpy(&sec, m->arena + v[i]->off, sizeof(sec));
		if (sec != cur) {
			err = sy_merge_put_section(m, sec, lines, &out, f);
			cur = sec;
		}
		if (v[i]->count > 1)
			fprintf(f, "%" PRIu64 "\n", v[i]->count);
		fprintf(f, "%.*s\n", (int)(v[i]->len - 4),
			m->arena + v[i]->off + 4);
	}
	free(lines);
	free(v);
	sy_mmstate_fini(&out);
	free(m->mm_rank);
	free(m->sec_rank);
	m->mm_rank = m->sec_rank = NULL;
	return err;
}

int sy_merge_write(struct sy_merge *m, FILE *f)
{
	const struct sy_merge_ent **v;
	int err = 0;

	if (m->fmt != SY_MERGE_BOLT) {
		err = sy_merge_write_samples(m, f);
		return err ? err : ferror(f) ? -SY_E_OUTPUT : 0;
	}
	v = sy_merge_sorted(m, &m->samples, sy_merge_cmp);
	if (!v)
		return -SY_E_NOMEM;
	for (size_t i = 0; i < m->samples.nr; i++)
		sy_merge_put_bolt(m, v[i], f);
	free(v);
	return ferror(f) ? -SY_E_OUTPUT : 0;
}
