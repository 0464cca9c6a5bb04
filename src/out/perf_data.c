/* convert --format perf-data (sy_perf_data_out.h) over the streaming
 * perf.data writer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_data.h"
#include "sy_atomic_file.h"
#include "sy_bytes.h"
#include "sy_hash.h"
#include "sy_perf_writer.h"

#define SY_PDO_ID 1		/* the one event's id */
#define SY_PDO_PREDICTED 2	/* perf_branch_entry.predicted */

/* Sideband already written: COMM of (pid, tid) and mappings of (pid,
 * start, path); paths are interned by the image cache, so the pointer is
 * the identity. */
struct sy_pdo_key {
	uint64_t a, b;
	const char *path;
	char comm[16];		/* a thread's: the name last written */
};

struct sy_pdo {
	struct sy_pw *pw;
	struct sy_atomic_file af;	/* file mode */
	const char *name;		/* for messages */
	int pipe;
	struct sy_perf_attr attr;
	uint64_t id;

	struct sy_pdo_key *keys;	/* first-seen order */
	size_t nr_keys, cap_keys;
	struct sy_hindex ix;		/* key -> keys[] */

	struct sy_perf_build_id *bids;	/* file mode: BUILD_ID feature */
	size_t nr_bids, cap_bids;
	size_t nr_owned;		/* bids[0..nr_owned) own their name:
					 * the recording's, copied (the
					 * session reopens its reader) */

	uint8_t *br;			/* a sample's branch stack */
	size_t cap_br;
	uint64_t nr_samples;
	int kernel_done;		/* the kernel's maps written */
};

static uint64_t sy_pdo_hash(const struct sy_pdo_key *k)
{
	return sy_hash_u64(k->a * SY_HASH_GOLDEN ^ k->b ^
			   (uint64_t)(uintptr_t)k->path * SY_HASH_FMIX);
}

static uint64_t sy_pdo_key_hash(const void *ctx, size_t i)
{
	return sy_pdo_hash(&((const struct sy_pdo *)ctx)->keys[i]);
}

/* 1: @k was new (now recorded), 0: seen before, <0: no memory; *@at:
 * its entry in keys[] (when not NULL). */
static int sy_pdo_first(struct sy_pdo *o, const struct sy_pdo_key *k,
			size_t *at)
{
	size_t j;
	uint32_t e;

	if (sy_hindex_reserve(&o->ix, o->nr_keys + 1, 256, sy_pdo_key_hash, o))
		return -SY_E_NOMEM;
	for (j = sy_hindex_first(&o->ix, sy_pdo_hash(k));
	     (e = sy_hindex_at(&o->ix, j)); j = sy_hindex_next(&o->ix, j)) {
		const struct sy_pdo_key *x = &o->keys[e - 1];

		if (x->a == k->a && x->b == k->b && x->path == k->path) {
			if (at)
				*at = e - 1;
			return 0;
		}
	}
	if (o->nr_keys == o->cap_keys) {
		size_t ncap = o->cap_keys ? o->cap_keys * 2 : 256;
		struct sy_pdo_key *nk = realloc(o->keys, ncap * sizeof(*nk));

		if (!nk)
			return -SY_E_NOMEM;
		o->keys = nk;
		o->cap_keys = ncap;
	}
	o->keys[o->nr_keys] = *k;
	if (at)
		*at = o->nr_keys;
	sy_hindex_set(&o->ix, j, o->nr_keys++);
	return 1;
}

static void sy_pdo_attr(struct sy_pdo *o)
{
	struct sy_perf_attr *a = &o->attr;

	memset(a, 0, sizeof(*a));
	a->type = 0;			/* PERF_TYPE_HARDWARE */
	a->config = 1;			/* PERF_COUNT_HW_INSTRUCTIONS */
	a->sample_period = 1;
	/* what perf inject --itrace=...l writes: no callchain, so that
	 * `perf script -F pid,ip,brstack` prints one line per sample, the
	 * form perf2bolt parses (a callchain made it print several) */
	a->sample_type = SY_SAMPLE_IDENTIFIER | SY_SAMPLE_IP | SY_SAMPLE_TID |
			 SY_SAMPLE_TIME | SY_SAMPLE_CPU | SY_SAMPLE_PERIOD |
			 SY_SAMPLE_BRANCH_STACK;
	/* PERF_SAMPLE_BRANCH_ANY; no HW_INDEX (perf inject sets it, and
	 * writes hw_idx -1): the quipper in create_llvm_prof 0.19 (Debian
	 * 12) does not know that word and rejects every sample */
	a->branch_sample_type = 1ULL << 3;
	a->flags = 1ULL << SY_ATTR_FLAG_SAMPLE_ID_ALL |
		   1ULL << SY_ATTR_FLAG_MMAP | 1ULL << SY_ATTR_FLAG_COMM |
		   1ULL << SY_ATTR_FLAG_MMAP2 | 1ULL << SY_ATTR_FLAG_COMM_EXEC;
	o->id = SY_PDO_ID;
	a->ids = &o->id;
	a->nr_ids = 1;
	a->name = "instructions";
}

/* The recording's host description, so that perf report --header and
 * tools keyed on the architecture see the machine that was traced. */
static int sy_pdo_features(struct sy_pdo *o, const struct sy_perf_reader *in)
{
	const struct sy_perf_features *f = in ? sy_perf_features(in) : NULL;
	static const struct {
		int bit;
		size_t off;
	} strs[] = {
		{ SY_FEAT_HOSTNAME, offsetof(struct sy_perf_features, hostname) },
		{ SY_FEAT_OSRELEASE,
		  offsetof(struct sy_perf_features, osrelease) },
		{ SY_FEAT_VERSION, offsetof(struct sy_perf_features, version) },
		{ SY_FEAT_ARCH, offsetof(struct sy_perf_features, arch) },
		{ SY_FEAT_CPUDESC, offsetof(struct sy_perf_features, cpudesc) },
		{ SY_FEAT_CPUID, offsetof(struct sy_perf_features, cpuid) },
	};
	int err = sy_pw_feat_event_desc(o->pw);

	/* perf report looks for branch stacks only where this flag is */
	if (!err)
		err = sy_pw_feat_raw(o->pw, SY_FEAT_BRANCH_STACK, NULL, 0);
	if (!f)
		return err;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]) && !err; i++) {
		const char *s;

		memcpy(&s, (const char *)f + strs[i].off, sizeof(s));
		if (s && *s)
			err = sy_pw_feat_string(o->pw, strs[i].bit, s);
	}
	if (!err && f->nr_cpus_avail)
		err = sy_pw_feat_nrcpus(o->pw, f->nr_cpus_avail,
					f->nr_cpus_online);
	if (!err && f->total_mem)
		err = sy_pw_feat_total_mem(o->pw, f->total_mem);
	if (!err && f->nr_cmdline)
		err = sy_pw_feat_cmdline(o->pw, f->cmdline, f->nr_cmdline);
	for (uint32_t i = 0; i < f->nr_build_ids && !err && !o->pipe; i++) {
		if (o->nr_bids == o->cap_bids) {
			size_t ncap = o->cap_bids ? o->cap_bids * 2 : 16;
			struct sy_perf_build_id *n =
				realloc(o->bids, ncap * sizeof(*n));

			if (!n)
				return -SY_E_NOMEM;
			o->bids = n;
			o->cap_bids = ncap;
		}
		o->bids[o->nr_bids] = f->build_ids[i];
		o->bids[o->nr_bids].filename = strdup(f->build_ids[i].filename ?
						      f->build_ids[i].filename :
						      "");
		if (!o->bids[o->nr_bids].filename)
			return -SY_E_NOMEM;
		o->nr_owned = ++o->nr_bids;
	}
	return err;
}

void sy_pdo_abort(struct sy_pdo *o)
{
	if (!o)
		return;
	sy_pw_free(o->pw);
	sy_atomic_abort(&o->af);
	free(o->keys);
	sy_hindex_fini(&o->ix);
	for (size_t i = 0; i < o->nr_owned; i++)
		free((void *)(uintptr_t)o->bids[i].filename);
	free(o->bids);
	free(o->br);
	free(o);
}

int sy_pdo_open(struct sy_pdo **out, const char *path,
		const struct sy_perf_reader *in, struct sy_diag *diag)
{
	struct sy_pw_config cfg = { 0 };
	struct sy_pdo *o = calloc(1, sizeof(*o));
	int fd, err;

	if (!o)
		return -SY_E_NOMEM;
	o->pipe = !strcmp(path, "-");
	o->name = o->pipe ? "standard output" : path;
	cfg.pipe = o->pipe;
	err = sy_pw_alloc(&o->pw, &cfg);
	if (!err && !o->pipe)
		err = sy_atomic_open(&o->af, path, diag);
	if (err)
		goto fail;
	fd = o->pipe ? STDOUT_FILENO : fileno(o->af.f);
	sy_pdo_attr(o);
	err = sy_pw_stream(o->pw, fd);
	if (!err && sy_pw_add_attr(o->pw, &o->attr) < 0)
		err = -SY_E_NOMEM;
	if (!err)
		err = sy_pdo_features(o, in);
	if (err)
		goto fail;
	*out = o;
	return 0;
fail:
	sy_pdo_abort(o);
	return err == -SY_E_OUTPUT ? err : -SY_E_NOMEM;
}

/* A writer error: -SY_E_OUTPUT for the caller, the cause kept. */
static int sy_pdo_err(int err)
{
	return err == -SY_E_NOMEM ? err : -SY_E_OUTPUT;
}

static int sy_pdo_comm(struct sy_pdo *o, const struct sy_pdo_sample *s,
		       const struct sy_sample *sid)
{
	struct sy_pdo_key k = { s->pid, (uint64_t)s->tid << 32 | 1, NULL, "" };
	const char *name = s->comm ? s->comm : ":unknown";
	size_t at;
	int r = sy_pdo_first(o, &k, &at);

	/* again when the process was renamed since (comms.h): perf report
	 * names each sample by the name its thread had then */
	if (r < 0 || (!r && !strncmp(o->keys[at].comm, name,
				     sizeof(k.comm) - 1)))
		return r;
	strncpy(o->keys[at].comm, name, sizeof(k.comm) - 1);
	return sy_pw_comm(o->pw, r ? SY_MISC_COMM_EXEC : 0, s->pid, s->tid,
			  name, &o->attr, sid);
}

static int sy_pdo_build_id(struct sy_pdo *o, const struct sy_map *m)
{
	struct sy_perf_build_id b;
	int kernel = !!(m->flags & SY_MAP_KERNEL);

	memset(&b, 0, sizeof(b));
	b.pid = -1;
	b.misc = (uint16_t)((kernel ? SY_MISC_KERNEL : SY_MISC_USER) |
			    SY_MISC_BUILD_ID_SIZE);
	b.size = m->build_id_size;
	memcpy(b.id, m->build_id, m->build_id_size);
	b.filename = m->path;
	if (o->pipe)
		return sy_pw_header_build_id(o->pw, &b);
	if (o->nr_bids == o->cap_bids) {
		size_t ncap = o->cap_bids ? o->cap_bids * 2 : 16;
		struct sy_perf_build_id *n = realloc(o->bids, ncap * sizeof(*n));

		if (!n)
			return -SY_E_NOMEM;
		o->bids = n;
		o->cap_bids = ncap;
	}
	o->bids[o->nr_bids++] = b;
	return 0;
}

/* MMAP2 (MMAP for the kernel, as perf synthesizes it) for the mapping at
 * @addr, once. */
static int sy_pdo_map(struct sy_pdo *o, const struct sy_proc_snap *snap,
		      const struct sy_pdo_sample *s, uint64_t addr,
		      const struct sy_sample *sid)
{
	const struct sy_map *m = snap ? sy_proc_snap_find(snap, s->pid, addr) :
					NULL;
	int kernel, r;
	struct sy_pw_mmap mm;

	if (!m || !m->path)
		return 0;
	/* the kernel's space: the kernel, its modules (pid -1 in perf) */
	kernel = (m->flags & (SY_MAP_KERNEL | SY_MAP_MODULE)) ||
		 (snap && sy_aspace_find(sy_proc_snap_kernel(snap), addr) == m);
	struct sy_pdo_key k = { kernel ? UINT32_MAX : s->pid, m->start,
				m->path, "" };
	r = sy_pdo_first(o, &k, NULL);
	if (r <= 0)
		return r;
	if (m->build_id_size && (r = sy_pdo_build_id(o, m)))
		return r;
	memset(&mm, 0, sizeof(mm));
	mm.misc = kernel ? SY_MISC_KERNEL : SY_MISC_USER;
	mm.pid = kernel ? UINT32_MAX : s->pid;
	mm.tid = kernel ? UINT32_MAX : s->tid;
	mm.addr = m->start;
	mm.len = m->end - m->start;
	mm.pgoff = m->pgoff;
	mm.prot = m->prot ? m->prot : SY_PROT_READ | SY_PROT_EXEC;
	mm.flags = 2; /* MAP_PRIVATE */
	mm.filename = m->path;
	return kernel ? sy_pw_mmap(o->pw, &mm, &o->attr, sid) :
			sy_pw_mmap2(o->pw, &mm, &o->attr, sid);
}

static int sy_pdo_sideband(struct sy_pdo *o, const struct sy_proc_snap *snap,
			   const struct sy_pdo_sample *s,
			   const struct sy_sample *sid)
{
	uint32_t nf = s->frames ? s->nr_frames : 1;
	const struct sy_aspace *k = snap ? sy_proc_snap_kernel(snap) : NULL;
	int err = 0;

	/* the kernel's and modules' maps first, as perf record synthesizes
	 * them: without them perf report warns that kernel addresses were
	 * restricted */
	for (size_t i = 0; k && !o->kernel_done && i < sy_aspace_nr_maps(k) &&
			   !err; i++)
		err = sy_pdo_map(o, snap, s, sy_aspace_map(k, i)->start, sid);
	o->kernel_done |= k != NULL;
	if (!err)
		err = sy_pdo_comm(o, s, sid);

	for (uint32_t i = 0; i < nf && !err; i++)
		err = sy_pdo_map(o, snap, s, s->frames ? s->frames[i] : s->ip,
				 sid);
	for (uint32_t i = 0; i < s->nr_stack && !err; i++) {
		err = sy_pdo_map(o, snap, s, s->stack[i].from, sid);
		if (!err)
			err = sy_pdo_map(o, snap, s, s->stack[i].to, sid);
	}
	return err;
}

static int sy_pdo_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	void *n;

	if (need <= *cap)
		return 0;
	n = realloc(*p, need * elem);
	if (!n)
		return -SY_E_NOMEM;
	*p = n;
	*cap = need;
	return 0;
}

int sy_pdo_sample(struct sy_pdo *o, const struct sy_proc_snap *snap,
		  const struct sy_pdo_sample *s)
{
	int kernel = (int64_t)s->ip < 0;
	struct sy_sample smp, sid;
	int err;

	memset(&sid, 0, sizeof(sid));
	sid.id = o->id;
	sid.pid = s->pid;
	sid.tid = s->tid;
	sid.time = s->time;
	sid.cpu = s->cpu;
	err = sy_pdo_sideband(o, snap, s, &sid);
	if (err)
		return sy_pdo_err(err);
	if (sy_pdo_grow((void **)&o->br, &o->cap_br,
			(size_t)s->nr_stack * 24 + 1, 1))
		return -SY_E_NOMEM;
	for (uint32_t i = 0; i < s->nr_stack; i++) {
		sy_put64(o->br + 24 * (size_t)i, s->stack[i].from);
		sy_put64(o->br + 24 * (size_t)i + 8, s->stack[i].to);
		sy_put64(o->br + 24 * (size_t)i + 16, SY_PDO_PREDICTED);
	}
	smp = sid;
	smp.ip = s->ip;
	smp.period = s->period ? s->period : 1;
	smp.branch_nr = s->nr_stack;
	smp.branches = o->br;
	err = sy_pw_sample(o->pw, &o->attr,
			   kernel ? SY_MISC_KERNEL : SY_MISC_USER, &smp);
	if (err)
		return sy_pdo_err(err);
	o->nr_samples++;
	return 0;
}

uint64_t sy_pdo_nr_samples(const struct sy_pdo *o)
{
	return o->nr_samples;
}

int sy_pdo_commit(struct sy_pdo *o, struct sy_diag *diag)
{
	int err = 0, werr;

	if (!o->pipe && o->nr_bids)
		err = sy_pw_feat_build_id(o->pw, o->bids,
					  (uint32_t)o->nr_bids);
	if (!err)
		err = sy_pw_finish(o->pw);
	werr = sy_pw_stream_errno(o->pw);
	if (err) {
		err = sy_diag_set_nooff(diag, -SY_E_OUTPUT, "%s: write: %s",
					o->name,
					werr ? strerror(werr) :
					       sy_errstr(err));
		sy_pdo_abort(o);
		return err;
	}
	if (!o->pipe)
		err = sy_atomic_commit(&o->af, 0, diag);
	sy_pdo_abort(o);
	return err;
}
