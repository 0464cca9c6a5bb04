/* Finding the traced binaries: one lookup per (recorded path, build-id),
 * one open per file, one list of what is missing.
 *
 * Three tables under one lock.  Recorded paths are interned in a hash table
 * (every struct sy_map points at those strings, and missing binaries are
 * counted there).  Each path keeps the answers it got per build-id, so a
 * library mapped a thousand times is looked for once.  Files are keyed by
 * device and inode, so the same file reached as an override, through symfs
 * and by its own path is opened once.  Lookups happen while the record walk
 * feeds the process table, not while decoding: the lock is never on the
 * decoders' path except for sy_image_cache_charge once per window.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image_impl.h"
#include "sy_hash.h"
#include "sy_image_cache.h"

struct sy_img_file {
	struct sy_img_file *next;
	dev_t dev;
	ino_t ino;
	struct sy_image *img;	/* NULL: it could not be opened */
	int err;
};

/* The answer for one build-id of one path. */
struct sy_img_req {
	struct sy_img_req *next;
	uint8_t bid[SY_BUILD_ID_MAX];
	uint8_t bid_len;
	int err;
	const struct sy_image *img;
	enum sy_image_src src;
};

struct sy_path_ent {
	char *path;
	uint64_t hash;
	struct sy_img_req *reqs;
	int missing;		/* a lookup failed or a window was charged */
	int err;
	uint64_t lookups, windows;
};

struct sy_image_cache {
	pthread_mutex_t lock;
	char *symfs;
	char *buildid_dir;	/* NULL: not used */
	int allow_mismatch;
	struct sy_image **ovr;	/* --binary images (also in @files) */
	size_t nr_ovr;
	const struct sy_image *vmlinux; /* --vmlinux (also in @files) */
	const struct sy_image *kcore;	/* --kcore (also in @files) */
	char *release;		/* recorded kernel release */
	struct sy_img_file *files;
	struct sy_path_ent **ents; /* first-seen order */
	size_t cap, nr;
	struct sy_hindex ix;	/* path -> ents[] */
	sy_image_warn_fn warn_fn;
	void *warn_ctx;
	uint64_t nr_warnings;
	uint64_t nr_forced;	/* --allow-mismatch used another build */
};

/* One resolution in progress. */
struct sy_resolve {
	struct sy_image_cache *c;
	const char *path;
	const uint8_t *bid;
	size_t bid_len;
	const struct sy_image *mismatch; /* first mismatching candidate */
	enum sy_image_src mismatch_src;
	int saw_bad;		/* a candidate file was not usable */
};

static void sy_cache_warn(struct sy_image_cache *c, int err, const char *fmt,
			  ...) SY_PRINTF(3, 4);

static void sy_cache_warn(struct sy_image_cache *c, int err, const char *fmt,
			  ...)
{
	struct sy_diag d;
	va_list ap;

	c->nr_warnings++;
	if (!c->warn_fn)
		return;
	memset(&d, 0, sizeof(d));
	d.err = err;
	va_start(ap, fmt);
	vsnprintf(d.msg, sizeof(d.msg), fmt, ap);
	va_end(ap);
	c->warn_fn(c->warn_ctx, &d);
}

static const char *sy_hex(char *buf, const uint8_t *id, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 15];
	}
	buf[2 * n] = 0;
	return buf;
}

static const char *sy_basename(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int sy_image_path_kernel(const char *path)
{
	return strncmp(path, "[kernel.kallsyms]", 17) == 0 ||
	       strncmp(path, "[guest.kernel.kallsyms]", 23) == 0;
}

int sy_image_path_fileless(const char *path)
{
	return path[0] == '/' && sy_image_path_special(path);
}

int sy_image_path_special(const char *path)
{
	static const char *const prefixes[] = {
		"//",		/* //anon */
		"/anon_hugepage", "/dev/zero", "/memfd:", "/SYSV",
	};
	size_t n;

	if (!path[0] || path[0] == '[')	/* [vdso], [heap], [kernel...] */
		return 1;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	/* JIT symbol maps: /tmp/perf-PID.map */
	if (strncmp(path, "/tmp/perf-", 10) == 0) {
		n = strspn(path + 10, "0123456789");
		if (n && strcmp(path + 10 + n, ".map") == 0)
			return 1;
	}
	return 0;
}

/* --- Interned paths ------------------------------------------------------ */

static uint64_t sy_path_hash(const void *ctx, size_t i)
{
	return ((const struct sy_image_cache *)ctx)->ents[i]->hash;
}

static struct sy_path_ent *sy_path_get(struct sy_image_cache *c,
				       const char *path)
{
	uint64_t h = sy_hash_str(path);
	struct sy_path_ent *e;
	size_t j;
	uint32_t x;

	if (sy_hindex_reserve(&c->ix, c->nr + 1, 64, sy_path_hash, c))
		return NULL;
	for (j = sy_hindex_first(&c->ix, h); (x = sy_hindex_at(&c->ix, j));
	     j = sy_hindex_next(&c->ix, j)) {
		e = c->ents[x - 1];
		if (e->hash == h && strcmp(e->path, path) == 0)
			return e;
	}
	if (c->nr == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct sy_path_ent **n = realloc(c->ents, ncap * sizeof(*n));

		if (!n)
			return NULL;
		c->ents = n;
		c->cap = ncap;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->path = strdup(path);
	if (!e->path) {
		free(e);
		return NULL;
	}
	e->hash = h;
	c->ents[c->nr] = e;
	sy_hindex_set(&c->ix, j, c->nr++);
	return e;
}

const char *sy_image_cache_intern(struct sy_image_cache *c, const char *path)
{
	struct sy_path_ent *e;

	pthread_mutex_lock(&c->lock);
	e = sy_path_get(c, path);
	pthread_mutex_unlock(&c->lock);
	return e ? e->path : NULL;
}

/* --- Files --------------------------------------------------------------- */

/* The file at @fpath, opened once per device and inode, in *out: NULL when
 * there is no regular file there; (*out)->img NULL when it could not be
 * opened (the reason in @diag, may be NULL, and through the warning
 * callback).  Returns 0 or -SY_E_NOMEM. */
static int sy_file_get(struct sy_image_cache *c, const char *fpath,
		       struct sy_img_file **out, struct sy_diag *diag)
{
	struct sy_img_file *f;
	struct sy_diag d = { 0 };
	struct stat st;

	*out = NULL;
	if (stat(fpath, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	for (f = c->files; f; f = f->next)
		if (f->dev == st.st_dev && f->ino == st.st_ino) {
			*out = f;
			return 0;
		}
	f = calloc(1, sizeof(*f));
	if (!f)
		return -SY_E_NOMEM;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->err = sy_image_open(&f->img, fpath, &d);
	if (f->err == -SY_E_NOMEM) {
		free(f);
		return -SY_E_NOMEM;
	}
	if (f->err) {
		sy_cache_warn(c, f->err, "%s", d.msg);
		if (diag)
			*diag = d;
	}
	f->next = c->files;
	c->files = f;
	*out = f;
	return 0;
}

/* --- Resolution ---------------------------------------------------------- */

/* Takes @img for the request when the build-ids allow it.  Returns 1 when
 * taken, 0 to try the next candidate. */
static int sy_try_image(struct sy_resolve *r, const struct sy_image *img,
			enum sy_image_src src, struct sy_img_req *q)
{
	const uint8_t *id;
	size_t n = sy_image_build_id(img, &id);
	char want[2 * SY_BUILD_ID_MAX + 1], have[2 * SY_BUILD_ID_MAX + 1];

	if (!r->bid_len || !n || sy_build_id_equal(r->bid, r->bid_len, id, n)) {
		q->img = img;
		q->src = src;
		q->err = 0;
		return 1;
	}
	sy_cache_warn(r->c, -SY_E_BUILD_ID,
		      "%s: build-id mismatch: recorded %s, %s has %s", r->path,
		      sy_hex(want, r->bid, r->bid_len), sy_image_path(img),
		      sy_hex(have, id, n));
	if (!r->mismatch) {
		r->mismatch = img;
		r->mismatch_src = src;
	}
	return 0;
}

static int sy_try_path(struct sy_resolve *r, const char *fpath,
		       enum sy_image_src src, struct sy_img_req *q)
{
	struct sy_img_file *f;
	int err = sy_file_get(r->c, fpath, &f, NULL);

	if (err)
		return err;
	if (!f)
		return 0;
	if (!f->img) {
		r->saw_bad = 1;
		return 0;
	}
	return sy_try_image(r, f->img, src, q);
}

static int sy_try_overrides(struct sy_resolve *r, struct sy_img_req *q,
			    int by_name)
{
	struct sy_image_cache *c = r->c;

	for (size_t i = 0; r->bid_len && i < c->nr_ovr; i++) {
		const uint8_t *id;
		size_t n = sy_image_build_id(c->ovr[i], &id);

		if (sy_build_id_equal(r->bid, r->bid_len, id, n))
			return sy_try_image(r, c->ovr[i], SY_IMAGE_SRC_BINARY,
					    q);
	}
	if (!by_name)
		return 0;
	for (size_t i = 0; i < c->nr_ovr; i++)
		if (strcmp(sy_basename(sy_image_path(c->ovr[i])),
			   sy_basename(r->path)) == 0 &&
		    sy_try_image(r, c->ovr[i], SY_IMAGE_SRC_BINARY, q))
			return 1;
	return 0;
}

static int sy_try_buildid_cache(struct sy_resolve *r, struct sy_img_req *q)
{
	const char *dir = r->c->buildid_dir;
	char hex[2 * SY_BUILD_ID_MAX + 1];
	char p[4096];
	size_t lens[2], nl = 0;
	int err, n;

	if (!dir || !r->bid_len)
		return 0;
	lens[nl++] = r->bid_len;
	/* simpleperf: a 16-byte id zero-padded to 20; perf caches it under
	 * its real length */
	if (r->bid_len == 20 && !r->bid[16] && !r->bid[17] && !r->bid[18] &&
	    !r->bid[19])
		lens[nl++] = 16;
	for (size_t k = 0; k < nl; k++) {
		sy_hex(hex, r->bid, lens[k]);
		n = snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s/elf", dir, hex,
			     hex + 2);
		if (n > 0 && (size_t)n < sizeof(p)) {
			err = sy_try_path(r, p, SY_IMAGE_SRC_BUILDID, q);
			if (err)
				return err;
		}
		/* older layout: the link is the file itself */
		n = snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s", dir, hex,
			     hex + 2);
		if (n > 0 && (size_t)n < sizeof(p)) {
			err = sy_try_path(r, p, SY_IMAGE_SRC_BUILDID, q);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Finds a file named @base under @dir, depth first, into @out (@cap
 * bytes).  1: found, 0: not. */
static int sy_find_under(const char *dir, const char *base, char *out,
			 size_t cap, int depth)
{
	DIR *d = depth < 8 ? opendir(dir) : NULL;
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d)) != NULL) {
		struct stat st;
		int n;

		if (e->d_name[0] == '.')
			continue;
		n = snprintf(out, cap, "%s/%s", dir, e->d_name);
		if (n < 0 || (size_t)n >= cap || stat(out, &st))
			continue;
		if (S_ISREG(st.st_mode) && !strcmp(e->d_name, base)) {
			found = 1;
		} else if (S_ISDIR(st.st_mode)) {
			char sub[4096];

			snprintf(sub, sizeof(sub), "%s", out);
			found = sy_find_under(sub, base, out, cap, depth + 1);
		}
	}
	closedir(d);
	return found;
}

/* A kernel module not found where it was recorded: where the machine
 * keeps the modules of the recorded release, under --symfs, then here
 * (perf looks there too), then the running kernel's memory (--kcore). */
static int sy_resolve_module(struct sy_resolve *r, struct sy_img_req *q)
{
	struct sy_image_cache *c = r->c;
	const char *roots[2] = { c->symfs, "" };
	size_t n = strlen(r->path);
	char dir[4096], p[4096];
	int err;

	if (n < 3 || strcmp(r->path + n - 3, ".ko"))
		return 0;
	for (int i = 0; i < 2 && c->release; i++) {
		if (!roots[i])
			continue;
		snprintf(dir, sizeof(dir), "%s/lib/modules/%s", roots[i],
			 c->release);
		if (!sy_find_under(dir, sy_basename(r->path), p, sizeof(p), 0))
			continue;
		err = sy_try_path(r, p, SY_IMAGE_SRC_MODULES, q);
		if (err)
			return err;
	}
	if (c->kcore && !r->mismatch) {
		q->img = c->kcore;
		q->src = SY_IMAGE_SRC_KCORE;
		q->err = 0;
		return 1;
	}
	return 0;
}

/* The kernel: a --binary with its build-id, --vmlinux (build-id
 * verified), the running kernel's memory (--kcore). */
static int sy_resolve_kernel(struct sy_resolve *r, struct sy_img_req *q)
{
	int err = sy_try_overrides(r, q, 0);

	if (!err && r->c->vmlinux)
		err = sy_try_image(r, r->c->vmlinux, SY_IMAGE_SRC_VMLINUX, q);
	if (!err && r->c->kcore) {
		q->img = r->c->kcore;
		q->src = SY_IMAGE_SRC_KCORE;
		q->err = 0;
		err = 1;
	}
	return err;
}

/* Fills @q: the first candidate whose build-id fits. */
static int sy_resolve(struct sy_image_cache *c, const char *path,
		      struct sy_img_req *q)
{
	struct sy_resolve r = { c, path, q->bid, q->bid_len, NULL,
				SY_IMAGE_SRC_NONE, 0 };
	char hex[2 * SY_BUILD_ID_MAX + 1];
	char p[4096];
	int special = sy_image_path_special(path);
	int kernel = sy_image_path_kernel(path);
	int err, n;

	err = kernel ? sy_resolve_kernel(&r, q) :
		       sy_try_overrides(&r, q, !special);
	if (err)
		return err < 0 ? err : 0;
	if (!special && c->symfs) {
		n = snprintf(p, sizeof(p), "%s%s%s", c->symfs,
			     path[0] == '/' ? "" : "/", path);
		if (n > 0 && (size_t)n < sizeof(p)) {
			err = sy_try_path(&r, p, SY_IMAGE_SRC_SYMFS, q);
			if (err)
				return err < 0 ? err : 0;
		}
	}
	if (!special) {
		err = sy_try_buildid_cache(&r, q);
		if (err)
			return err < 0 ? err : 0;
	}
	if (!special && path[0] == '/') {
		err = sy_try_path(&r, path, SY_IMAGE_SRC_RECORDED, q);
		if (err)
			return err < 0 ? err : 0;
	}
	if (!special) {
		err = sy_resolve_module(&r, q);
		if (err)
			return err < 0 ? err : 0;
	}
	if (r.mismatch && c->allow_mismatch) {
		/* a note, not an error: the user asked for it */
		sy_cache_warn(c, 0,
			      "%s: using %s despite its build-id "
			      "(recorded %s): --allow-mismatch", path,
			      sy_image_path(r.mismatch),
			      sy_hex(hex, q->bid, q->bid_len));
		c->nr_forced++;
		q->img = r.mismatch;
		q->src = r.mismatch_src;
		q->err = 0;
		return 0;
	}
	q->img = NULL;
	q->src = SY_IMAGE_SRC_NONE;
	q->err = r.mismatch ? -SY_E_BUILD_ID :
		 r.saw_bad  ? -SY_E_BAD_ELF :
		 kernel	    ? -SY_E_NO_KERNEL :
			      -SY_E_NO_IMAGE;
	return 0;
}

int sy_image_cache_find(struct sy_image_cache *c, const char *path,
			const uint8_t *bid, size_t bid_len,
			struct sy_image_lookup *res)
{
	struct sy_path_ent *e;
	struct sy_img_req *q;
	int err, zero = 1;

	if (!c || !path || !res || bid_len > SY_BUILD_ID_MAX ||
	    (bid_len && !bid))
		return -SY_E_INVALID;
	/* an all-zero id is perf's "not known" */
	for (size_t i = 0; i < bid_len; i++)
		zero &= !bid[i];
	if (zero)
		bid_len = 0;
	pthread_mutex_lock(&c->lock);
	e = sy_path_get(c, path);
	if (!e) {
		err = -SY_E_NOMEM;
		goto out;
	}
	for (q = e->reqs; q; q = q->next)
		if (q->bid_len == bid_len &&
		    (!bid_len || memcmp(q->bid, bid, bid_len) == 0))
			break;
	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q) {
			err = -SY_E_NOMEM;
			goto out;
		}
		if (bid_len)
			memcpy(q->bid, bid, bid_len);
		q->bid_len = (uint8_t)bid_len;
		err = sy_resolve(c, e->path, q);
		if (err) {
			free(q);
			goto out;
		}
		q->next = e->reqs;
		e->reqs = q;
	}
	res->img = q->img;
	res->path = e->path;
	res->src = q->src;
	err = q->err;
	if (err) {
		e->missing = 1;
		e->err = err;
		e->lookups++;
	}
out:
	pthread_mutex_unlock(&c->lock);
	return err;
}

int sy_image_cache_charge(struct sy_image_cache *c, const char *path)
{
	struct sy_path_ent *e;

	if (!c || !path)
		return -SY_E_INVALID;
	pthread_mutex_lock(&c->lock);
	e = sy_path_get(c, path);
	if (e) {
		e->missing = 1;
		if (!e->err)
			e->err = -SY_E_NO_IMAGE;
		e->windows++;
	}
	pthread_mutex_unlock(&c->lock);
	return e ? 0 : -SY_E_NOMEM;
}

static int sy_missing_cmp(const void *a, const void *b)
{
	const struct sy_path_ent *const *x = a, *const *y = b;

	return strcmp((*x)->path, (*y)->path);
}

size_t sy_image_cache_missing(struct sy_image_cache *c,
			      struct sy_image_missing *out, size_t max)
{
	struct sy_path_ent **v;
	size_t n = 0;

	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->nr; i++)
		n += c->ents[i]->missing;
	if (!out || !max || !n)
		goto out;
	v = malloc(n * sizeof(*v));
	if (!v) {
		/* unsorted is better than nothing */
		size_t k = 0;

		for (size_t i = 0; i < c->nr && k < max; i++) {
			const struct sy_path_ent *e = c->ents[i];

			if (!e->missing)
				continue;
			out[k].path = e->path;
			out[k].err = e->err;
			out[k].special = sy_image_path_special(e->path);
			out[k].lookups = e->lookups;
			out[k].windows = e->windows;
			k++;
		}
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < c->nr; i++)
		if (c->ents[i]->missing)
			v[n++] = c->ents[i];
	if (n > 1)
		qsort(v, n, sizeof(*v), sy_missing_cmp);
	for (size_t i = 0; i < n && i < max; i++) {
		out[i].path = v[i]->path;
		out[i].err = v[i]->err;
		out[i].special = sy_image_path_special(v[i]->path);
		out[i].lookups = v[i]->lookups;
		out[i].windows = v[i]->windows;
	}
	free(v);
out:
	pthread_mutex_unlock(&c->lock);
	return n;
}

uint64_t sy_image_cache_nr_forced(struct sy_image_cache *c)
{
	uint64_t n;

	pthread_mutex_lock(&c->lock);
	n = c->nr_forced;
	pthread_mutex_unlock(&c->lock);
	return n;
}

uint64_t sy_image_cache_nr_warnings(struct sy_image_cache *c)
{
	uint64_t n;

	pthread_mutex_lock(&c->lock);
	n = c->nr_warnings;
	pthread_mutex_unlock(&c->lock);
	return n;
}

void sy_image_cache_set_warn(struct sy_image_cache *c, sy_image_warn_fn fn,
			     void *ctx)
{
	pthread_mutex_lock(&c->lock);
	c->warn_fn = fn;
	c->warn_ctx = ctx;
	pthread_mutex_unlock(&c->lock);
}

/* --- Life cycle ---------------------------------------------------------- */

static char *sy_default_buildid_dir(void)
{
	const char *d = getenv("PERF_BUILDID_DIR");
	const char *home;
	char *p;
	size_t n;

	if (d && *d)
		return strdup(d);
	home = getenv("HOME");
	if (!home || !*home)
		return NULL;
	n = strlen(home) + sizeof("/.debug");
	p = malloc(n);
	if (p)
		snprintf(p, n, "%s/.debug", home);
	return p;
}

/* --vmlinux and --kcore, opened now: a bad one is the user's mistake. */
static int sy_open_kernel(struct sy_image_cache *c,
			  const struct sy_image_opts *o, struct sy_diag *diag)
{
	static const char *const kcore_names[] = { "kcore_dir/kcore", "kcore" };
	struct sy_img_file *f = NULL;
	char p[4096];
	int err;

	if (o->vmlinux) {
		err = sy_file_get(c, o->vmlinux, &f, diag);
		if (err)
			return err;
		if (!f || !f->img)
			return f ? f->err :
				   sy_diag_set_nooff(diag, -SY_E_IO,
						     "%s: not a regular file",
						     o->vmlinux);
		c->vmlinux = f->img;
	}
	if (!o->kcore)
		return 0;
	for (size_t i = 0; i < 2 && !(f && f->img && c->kcore); i++) {
		snprintf(p, sizeof(p), "%s/%s", o->kcore, kcore_names[i]);
		f = NULL;
		err = sy_file_get(c, p, &f, diag);
		if (err)
			return err;
		if (f && !f->img)
			return f->err;
		if (f)
			c->kcore = f->img;
	}
	if (!c->kcore)
		return sy_diag_set_nooff(diag, -SY_E_IO,
					 "%s: no kcore or kcore_dir/kcore in "
					 "it (perf record --kcore)",
					 o->kcore);
	return 0;
}

int sy_image_cache_set_release(struct sy_image_cache *c, const char *release)
{
	char *r = release ? strdup(release) : NULL;

	if (release && !r)
		return -SY_E_NOMEM;
	pthread_mutex_lock(&c->lock);
	free(c->release);
	c->release = r;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int sy_image_cache_new(struct sy_image_cache **out,
		       const struct sy_image_opts *o, struct sy_diag *diag)
{
	struct sy_image_cache *c;
	int err = -SY_E_NOMEM;

	if (!out || !o || (o->nr_binaries && !o->binaries))
		return sy_diag_set_nooff(diag, -SY_E_INVALID,
					 "sy_image_cache_new: NULL argument");
	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -SY_E_NOMEM;
	if (pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c);
		return -SY_E_NOMEM;
	}
	c->allow_mismatch = o->allow_mismatch;
	if (o->symfs && *o->symfs) {
		size_t n = strlen(o->symfs);

		/* "DIR/" + "/path" would still work; keep messages tidy */
		while (n > 1 && o->symfs[n - 1] == '/')
			n--;
		c->symfs = strndup(o->symfs, n);
		if (!c->symfs)
			goto fail;
	}
	if (!o->buildid_dir)
		c->buildid_dir = sy_default_buildid_dir();
	else if (*o->buildid_dir && !(c->buildid_dir = strdup(o->buildid_dir)))
		goto fail;
	if (o->nr_binaries) {
		c->ovr = calloc(o->nr_binaries, sizeof(*c->ovr));
		if (!c->ovr)
			goto fail;
	}
	for (size_t i = 0; i < o->nr_binaries; i++) {
		struct sy_img_file *f;

		if (!o->binaries[i]) {
			err = sy_diag_set_nooff(diag, -SY_E_INVALID,
						"--binary %zu: NULL path", i);
			goto fail;
		}
		err = sy_file_get(c, o->binaries[i], &f, diag);
		if (err)
			goto fail;
		if (!f) {
			err = sy_diag_set_nooff(diag, -SY_E_IO,
						"%s: not a regular file",
						o->binaries[i]);
			goto fail;
		}
		if (!f->img) {
			err = f->err;
			goto fail;
		}
		c->ovr[c->nr_ovr++] = f->img;
	}
	err = sy_open_kernel(c, o, diag);
	if (err)
		goto fail;
	*out = c;
	return 0;

fail:
	sy_image_cache_free(c);
	return err;
}

void sy_image_cache_free(struct sy_image_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++) {
		struct sy_path_ent *e = c->ents[i];

		while (e->reqs) {
			struct sy_img_req *q = e->reqs;

			e->reqs = q->next;
			free(q);
		}
		free(e->path);
		free(e);
	}
	while (c->files) {
		struct sy_img_file *f = c->files;

		c->files = f->next;
		sy_image_close(f->img);
		free(f);
	}
	free(c->ents);
	sy_hindex_fini(&c->ix);
	free(c->ovr);
	free(c->symfs);
	free(c->release);
	free(c->buildid_dir);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
