/* The processes of a recording, and snapshots of them.
 *
 * Two persistent tries map ids to what a decoder needs: pid -> address
 * space, and thread id -> pid (ETM's CONTEXTIDR holds the thread id).  A
 * snapshot is a reference to both roots, so taking one costs nothing; the
 * table copies a node only when a snapshot still shares it (reference count
 * above one), which makes a change cost one path of 7 small nodes at most,
 * never a copy of the whole table.  Node counts only grow on the table's
 * thread (new snapshots, copies); other threads only drop references, so a
 * count of one seen by the table means nobody else can reach the node.
 *
 * Processes stay after their EXIT: a per-CPU AUX buffer is often written
 * out after the processes it traced are gone, and its window must still
 * read their code.  They go when the session says no trace still to be
 * given a snapshot can need them (sy_proc_table_forget; gone.h says when
 * a process counts as gone).  A FORK or exec that reuses the id replaces
 * the space.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gone.h"
#include "image_impl.h"
#include "sy_bsearch.h"
#include "sy_proc.h"

#define SY_TBITS 5
#define SY_TFAN (1u << SY_TBITS)
#define SY_TLEVELS 7		/* 35 bits cover a u32 id */

enum sy_leaf { SY_LEAF_SPACE, SY_LEAF_PID };

union sy_slot {
	struct sy_tnode *node;
	struct sy_aspace *as;	/* SY_LEAF_SPACE */
	uint64_t pid1;		/* SY_LEAF_PID: pid + 1, 0 when empty */
};

struct sy_tnode {
	atomic_uint ref;
	union sy_slot s[SY_TFAN];
};

struct sy_proc_snap {
	struct sy_tnode *procs;
	struct sy_tnode *threads;
	struct sy_aspace *kernel;
	uint64_t serial;	/* sy_proc_snap_serial */
	/* a cache line away from what lookups read: the walk's thread takes
	 * and drops a reference per window while the workers look threads
	 * up in it (sharing the line cost -j2 2% of its CPU) */
	char apart[64];
	atomic_uint ref;
};

/* One entry of the BUILD_ID feature. */
struct sy_bid_ent {
	char *name;
	int32_t pid;
	uint8_t size;
	uint8_t id[SY_BUILD_ID_MAX];
};

struct sy_proc_table {
	struct sy_image_cache *cache;
	struct sy_tnode *procs;	/* pid -> space */
	struct sy_tnode *threads; /* tid -> pid + 1 */
	struct sy_aspace *kernel; /* pid -1 */
	struct sy_proc_snap *snap; /* handed out, nothing changed since */
	uint64_t snaps;		/* snapshots made */
	struct sy_bid_ent *bids; /* sorted by name */
	size_t nr_bids;
	struct sy_gone gone;	/* what exited, until forgotten */
	size_t nr_procs, peak_procs;	/* spaces held, and the most */
};

/* --- Persistent tries ---------------------------------------------------- */

static unsigned sy_tidx(uint32_t key, int level)
{
	return (unsigned)(((uint64_t)key >> ((SY_TLEVELS - 1 - level) *
					      SY_TBITS)) & (SY_TFAN - 1));
}

static void sy_tnode_put(struct sy_tnode *n, int level, enum sy_leaf kind)
{
	if (!n || atomic_fetch_sub_explicit(&n->ref, 1,
					    memory_order_acq_rel) != 1)
		return;
	for (unsigned i = 0; i < SY_TFAN; i++) {
		if (level < SY_TLEVELS - 1)
			sy_tnode_put(n->s[i].node, level + 1, kind);
		else if (kind == SY_LEAF_SPACE)
			sy_aspace_put(n->s[i].as);
	}
	free(n);
}

static struct sy_tnode *sy_tnode_get(struct sy_tnode *n)
{
	if (n)
		atomic_fetch_add_explicit(&n->ref, 1, memory_order_relaxed);
	return n;
}

static struct sy_tnode *sy_tnode_copy(const struct sy_tnode *n, int level,
				      enum sy_leaf kind)
{
	struct sy_tnode *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	atomic_init(&c->ref, 1);
	for (unsigned i = 0; i < SY_TFAN; i++) {
		c->s[i] = n->s[i];
		if (level < SY_TLEVELS - 1)
			sy_tnode_get(c->s[i].node);
		else if (kind == SY_LEAF_SPACE)
			sy_aspace_get(c->s[i].as);
	}
	return c;
}

/* Stores @val at @key, copying every node on the way that someone else
 * still holds.  A space value's reference passes to the trie on success;
 * on failure (-SY_E_NOMEM) the caller keeps it. */
static int sy_trie_set(struct sy_tnode **rootp, uint32_t key,
		       union sy_slot val, enum sy_leaf kind, size_t *nr)
{
	struct sy_tnode **pp = rootp;

	for (int level = 0; level < SY_TLEVELS; level++) {
		struct sy_tnode *n = *pp;
		union sy_slot *slot;

		if (!n) {
			n = calloc(1, sizeof(*n));
			if (!n)
				return -SY_E_NOMEM;
			atomic_init(&n->ref, 1);
			*pp = n;
		} else if (atomic_load_explicit(&n->ref,
						memory_order_acquire) > 1) {
			struct sy_tnode *c = sy_tnode_copy(n, level, kind);

			if (!c)
				return -SY_E_NOMEM;
			sy_tnode_put(n, level, kind);
			*pp = n = c;
		}
		slot = &n->s[sy_tidx(key, level)];
		if (level == SY_TLEVELS - 1) {
			if (kind == SY_LEAF_SPACE)
				sy_aspace_put(slot->as);
			/* (@nr: how many slots are filled) */
			if (nr && !slot->pid1 && val.pid1)
				(*nr)++;
			else if (nr && slot->pid1 && !val.pid1)
				(*nr)--;
			*slot = val;
			return 0;
		}
		pp = &slot->node;
	}
	return -SY_E_INTERNAL;
}

static union sy_slot sy_pid_slot(uint32_t pid)
{
	return (union sy_slot){ .pid1 = (uint64_t)pid + 1 };
}

static const union sy_slot *sy_trie_get(const struct sy_tnode *n,
					uint32_t key)
{
	for (int level = 0; n; level++) {
		const union sy_slot *slot = &n->s[sy_tidx(key, level)];

		if (level == SY_TLEVELS - 1)
			return slot;
		n = slot->node;
	}
	return NULL;
}

/* Frees the nodes on @key's path that hold nothing, from the leaf up (the
 * path is the table's alone: sy_trie_set copied what others held). */
static void sy_trie_prune(struct sy_tnode **pp, uint32_t key, int level,
			  enum sy_leaf kind)
{
	struct sy_tnode *n = *pp;

	if (!n)
		return;
	if (level < SY_TLEVELS - 1)
		sy_trie_prune(&n->s[sy_tidx(key, level)].node, key, level + 1,
			      kind);
	/* (every member of a slot is a word: empty is all zero) */
	for (unsigned i = 0; i < SY_TFAN; i++)
		if (n->s[i].pid1)
			return;
	sy_tnode_put(n, level, kind);
	*pp = NULL;
}

/* Empties @key's slot, and the nodes that held only it. */
static int sy_trie_clear(struct sy_tnode **rootp, uint32_t key,
			 enum sy_leaf kind, size_t *nr)
{
	const union sy_slot *s = sy_trie_get(*rootp, key);
	int err;

	if (!s || !s->pid1)
		return 0;
	if ((err = sy_trie_set(rootp, key, (union sy_slot){ .pid1 = 0 }, kind,
			       nr)))
		return err;
	sy_trie_prune(rootp, key, 0, kind);
	return 0;
}

static struct sy_aspace *sy_space_of(const struct sy_tnode *procs,
				     const struct sy_tnode *threads,
				     uint32_t id)
{
	const union sy_slot *s = sy_trie_get(procs, id);

	if (s && s->as)
		return s->as;
	s = sy_trie_get(threads, id);
	if (!s || !s->pid1)
		return NULL;
	s = sy_trie_get(procs, (uint32_t)(s->pid1 - 1));
	return s ? s->as : NULL;
}

/* --- The table ----------------------------------------------------------- */

int sy_proc_table_new(struct sy_proc_table **out,
		      struct sy_image_cache *cache)
{
	struct sy_proc_table *t;

	if (!out || !cache)
		return -SY_E_INVALID;
	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -SY_E_NOMEM;
	t->cache = cache;
	sy_gone_init(&t->gone);
	*out = t;
	return 0;
}

static void sy_bids_free(struct sy_proc_table *t)
{
	for (size_t i = 0; i < t->nr_bids; i++)
		free(t->bids[i].name);
	free(t->bids);
	t->bids = NULL;
	t->nr_bids = 0;
}

void sy_proc_table_free(struct sy_proc_table *t)
{
	if (!t)
		return;
	sy_proc_snap_put(t->snap);
	sy_tnode_put(t->procs, 0, SY_LEAF_SPACE);
	sy_tnode_put(t->threads, 0, SY_LEAF_PID);
	sy_aspace_put(t->kernel);
	sy_bids_free(t);
	sy_gone_fini(&t->gone);
	free(t);
}

/* Drops the cached snapshot before a change: when nobody else holds it,
 * the nodes it shared become the table's alone and change in place. */
static void sy_changed(struct sy_proc_table *t)
{
	sy_proc_snap_put(t->snap);
	t->snap = NULL;
}

/* Gives process @pid the space @as (reference passed on success): it is
 * alive, whatever drop it had due. */
static int sy_set_space(struct sy_proc_table *t, uint32_t pid,
			struct sy_aspace *as)
{
	int err;

	sy_gone_cancel(&t->gone, pid);
	sy_changed(t);
	err = sy_trie_set(&t->procs, pid, (union sy_slot){ .as = as },
			  SY_LEAF_SPACE, &t->nr_procs);
	if (t->nr_procs > t->peak_procs)
		t->peak_procs = t->nr_procs;
	return err;
}

static int sy_bid_cmp(const void *a, const void *b)
{
	const struct sy_bid_ent *x = a, *y = b;

	return strcmp(x->name, y->name);
}

int sy_proc_table_set_build_ids(struct sy_proc_table *t,
				const struct sy_perf_features *f)
{
	size_t n = 0;

	sy_bids_free(t);
	/* the release names where modules live (/lib/modules/<release>) */
	if (f && f->osrelease && sy_image_cache_set_release(t->cache,
							     f->osrelease))
		return -SY_E_NOMEM;
	if (!f || !f->nr_build_ids)
		return 0;
	t->bids = calloc(f->nr_build_ids, sizeof(*t->bids));
	if (!t->bids)
		return -SY_E_NOMEM;
	for (uint32_t i = 0; i < f->nr_build_ids; i++) {
		const struct sy_perf_build_id *b = &f->build_ids[i];
		struct sy_bid_ent *e = &t->bids[n];

		if (!b->filename || !b->size)
			continue;
		e->name = strdup(b->filename);
		if (!e->name) {
			t->nr_bids = n;
			sy_bids_free(t);
			return -SY_E_NOMEM;
		}
		e->pid = b->pid;
		e->size = b->size < SY_BUILD_ID_MAX ? b->size :
						      SY_BUILD_ID_MAX;
		memcpy(e->id, b->id, e->size);
		n++;
	}
	t->nr_bids = n;
	/* stable enough: equal names keep no particular order, the lookup
	 * scans all of them */
	if (n > 1)
		qsort(t->bids, n, sizeof(*t->bids), sy_bid_cmp);
	return 0;
}

/* The BUILD_ID feature's id for @name: an entry of @pid, else of pid -1,
 * else any. */
struct sy_bid_key {
	const struct sy_proc_table *t;
	const char *name;
};

static int sy_bid_before(const void *ctx, size_t i)
{
	const struct sy_bid_key *k = ctx;

	return strcmp(k->t->bids[i].name, k->name) < 0;
}

static const struct sy_bid_ent *sy_bid_find(const struct sy_proc_table *t,
					    const char *name, uint32_t pid)
{
	const struct sy_bid_ent *best = NULL;
	struct sy_bid_key k = { t, name };
	size_t lo = sy_partition_point(t->nr_bids, sy_bid_before, &k);

	for (size_t i = lo; i < t->nr_bids && !strcmp(t->bids[i].name, name);
	     i++) {
		const struct sy_bid_ent *e = &t->bids[i];

		if ((uint32_t)e->pid == pid)
			return e;
		if (!best || (e->pid == -1 && best->pid != -1))
			best = e;
	}
	return best;
}

/* The recorded build-id of a mapping: its own (MMAP2), else the feature's
 * under its filename (the kernel's is filed under "[kernel.kallsyms]",
 * its mapping is "[kernel.kallsyms]_text"). */
static void sy_map_build_id(const struct sy_proc_table *t,
			    const struct sy_ev_mmap *m, const char *name,
			    struct sy_map *nm)
{
	const struct sy_bid_ent *e;

	if (m->has_build_id && m->build_id_size) {
		nm->build_id_size = m->build_id_size < SY_BUILD_ID_MAX ?
					    m->build_id_size :
					    SY_BUILD_ID_MAX;
		memcpy(nm->build_id, m->build_id, nm->build_id_size);
		return;
	}
	e = sy_bid_find(t, name, m->pid);
	if (!e && sy_image_path_kernel(name)) {
		char k[64];
		const char *end = strchr(name, ']');
		size_t n = end ? (size_t)(end - name) + 1 : 0;

		if (n && n < sizeof(k)) {
			memcpy(k, name, n);
			k[n] = 0;
			e = sy_bid_find(t, k, m->pid);
		}
	}
	if (e) {
		nm->build_id_size = e->size;
		memcpy(nm->build_id, e->id, e->size);
	}
}

/* How a code mapping's addresses meet its image: the running kernel's
 * memory (kcore) at its own addresses; a relocatable module from the
 * mapping's start; the kernel image moved by KASLR, which the recorded
 * MMAP tells: "[kernel.kallsyms]_text" is at pgoff (perf) or at the
 * mapping's start when pgoff is 0 (simpleperf's "_stext"). */
static void sy_map_kind(struct sy_map *nm, const struct sy_ev_mmap *m,
			const char *name, enum sy_image_src src)
{
	const char *sym = strchr(name, ']');
	uint64_t link;

	if (!nm->img)
		return;
	if (src == SY_IMAGE_SRC_KCORE) {
		nm->flags = (nm->flags & ~SY_MAP_MODULE) | SY_MAP_KERNEL;
		nm->reloc = 0;
		return;
	}
	if (sy_image_type(nm->img) == 1 /* ET_REL */) {
		nm->flags = (nm->flags & ~SY_MAP_KERNEL) | SY_MAP_MODULE;
		return;
	}
	if (!(nm->flags & SY_MAP_KERNEL))
		return;
	sym = sym && sym[1] ? sym + 1 : "_text";
	if (!sy_image_symbol_addr(nm->img, sym, &link))
		nm->reloc = (m->pgoff ? m->pgoff : m->addr) - link;
}

int sy_proc_table_mmap(struct sy_proc_table *t, const struct sy_ev_mmap *m,
		       uint16_t misc)
{
	const char *name = m->filename ? m->filename : "";
	struct sy_map nm;
	struct sy_image_lookup lk;
	const union sy_slot *cur;
	struct sy_aspace *as;
	int code, err;

	if (!m->len)
		return 0;
	memset(&nm, 0, sizeof(nm));
	nm.start = m->addr;
	nm.end = m->addr + m->len < m->addr ? UINT64_MAX : m->addr + m->len;
	nm.pgoff = m->pgoff;
	if (m->is_mmap2) {
		/* prot 0: a writer that does not fill it in; assume code */
		code = !m->prot || (m->prot & SY_PROT_EXEC);
		nm.prot = m->prot;
	} else {
		code = !(misc & SY_MISC_MMAP_DATA);
		nm.prot = SY_PROT_READ | (code ? SY_PROT_EXEC : 0);
	}
	if (sy_image_path_kernel(name))
		nm.flags |= SY_MAP_KERNEL;
	sy_map_build_id(t, m, name, &nm);
	if (code) {
		nm.flags |= SY_MAP_CODE;
		err = sy_image_cache_find(t->cache, name, nm.build_id,
					  nm.build_id_size, &lk);
		if (err == -SY_E_NOMEM || err == -SY_E_INVALID)
			return err;
		nm.path = lk.path;
		nm.img = lk.img;
		nm.err = err;
		sy_map_kind(&nm, m, name, lk.src);
	} else {
		nm.path = sy_image_cache_intern(t->cache, name);
		if (!nm.path)
			return -SY_E_NOMEM;
	}
	if (m->pid == UINT32_MAX) {
		as = sy_aspace_with_map(t->kernel, &nm);
		if (!as)
			return -SY_E_NOMEM;
		sy_changed(t);
		sy_aspace_put(t->kernel);
		t->kernel = as;
		return 0;
	}
	cur = sy_trie_get(t->procs, m->pid);
	as = sy_aspace_with_map(cur ? cur->as : NULL, &nm);
	if (!as)
		return -SY_E_NOMEM;
	err = sy_set_space(t, m->pid, as);
	if (err)
		sy_aspace_put(as);
	return err;
}


int sy_proc_table_comm(struct sy_proc_table *t, const struct sy_ev_comm *c)
{
	struct sy_gone_ent *e;
	struct sy_aspace *as;
	int err;

	/* exec: the old image is gone, whatever was mapped.  Without exec
	 * (perf synthesizes the COMM of a process that was there before the
	 * recording) a process unknown so far is known with nothing mapped:
	 * a kernel thread never maps anything */
	if (!c->exec && (c->pid != c->tid ||
			 sy_space_of(t->procs, t->threads, c->pid)))
		return 0;
	as = sy_aspace_new();
	if (!as)
		return -SY_E_NOMEM;
	err = sy_set_space(t, c->pid, as);
	if (err) {
		sy_aspace_put(as);
		return err;
	}
	/* the thread that ran exec leads the process now */
	e = sy_gone_get(&t->gone, c->pid, 0);
	if (e) {
		e->leader_gone = 0;
		sy_gone_tidy(&t->gone, e);
	}
	return 0;
}

/* Thread @tid of process @pid is alive (a FORK, or a record naming both):
 * counted once among its process's live threads, and whatever either
 * had due to go is taken back. */
static int sy_thread_born(struct sy_proc_table *t, uint32_t pid,
			  uint32_t tid)
{
	const union sy_slot *s = sy_trie_get(t->threads, tid);
	struct sy_gone_ent *e = sy_gone_get(&t->gone, tid, 0);
	/* an exit whose drop is not done yet took it off the count */
	int exited = e && e->due && e->kind == SY_GONE_THREAD;

	/* (id -1 has no entry: a damaged record's; never forgotten) */
	if (pid == UINT32_MAX || tid == UINT32_MAX)
		return sy_trie_set(&t->threads, tid, sy_pid_slot(pid),
				   SY_LEAF_PID, NULL);

	/* the id lives again as this thread: nothing of what it was before
	 * counts (a process with this id was cleared by the caller) */
	sy_gone_erase(&t->gone, tid);
	sy_gone_cancel(&t->gone, pid);
	if (!s || s->pid1 != (uint64_t)pid + 1 || exited) {
		e = sy_gone_get(&t->gone, pid, 1);
		if (!e)
			return -SY_E_NOMEM;
		e->threads++;
	}
	return sy_trie_set(&t->threads, tid, sy_pid_slot(pid), SY_LEAF_PID,
			   NULL);
}

int sy_proc_table_fork(struct sy_proc_table *t, const struct sy_ev_task *k)
{
	const union sy_slot *s;
	struct sy_aspace *as;
	int err;

	if (k->pid == k->ppid) {
		/* a new thread: it runs in its process's space */
		if (k->tid == k->pid)
			return 0;
		sy_changed(t);
		s = sy_trie_get(t->procs, k->tid);
		if (s && s->as) {
			/* the id was a process's before */
			err = sy_trie_set(&t->procs, k->tid,
					  (union sy_slot){ .as = NULL },
					  SY_LEAF_SPACE, &t->nr_procs);
			if (err)
				return err;
		}
		return sy_thread_born(t, k->pid, k->tid);
	}
	/* a new process: a copy of its parent's space, which costs a
	 * reference since spaces never change */
	as = sy_space_of(t->procs, t->threads, k->ppid);
	as = as ? sy_aspace_get(as) : sy_aspace_new();
	if (!as)
		return -SY_E_NOMEM;
	err = sy_set_space(t, k->pid, as);
	if (err) {
		sy_aspace_put(as);
		return err;
	}
	/* nothing of the id's last process or thread counts */
	sy_gone_erase(&t->gone, k->pid);
	s = sy_trie_get(t->threads, k->pid);
	if (s && s->pid1)
		err = sy_trie_set(&t->threads, k->pid,
				  (union sy_slot){ .pid1 = 0 }, SY_LEAF_PID,
				  NULL);
	if (!err && k->tid != k->pid)
		err = sy_thread_born(t, k->pid, k->tid);
	return err;
}

/* A thread's EXIT: its entry is due to go, and with the last live thread
 * of a process whose leader exited, the process.  A leader's EXIT: the
 * process is due to go when no thread of it is alive (a leader that
 * called pthread_exit leaves them running in its space).  Nothing goes
 * before sy_proc_table_forget says so; an EXIT without a time never. */
int sy_proc_table_exit(struct sy_proc_table *t, const struct sy_ev_task *k)
{
	const union sy_slot *s;
	struct sy_gone_ent *e;
	int err;

	if (!k->time || k->pid == UINT32_MAX || k->tid == UINT32_MAX)
		return 0;
	if (k->tid != k->pid) {
		s = sy_trie_get(t->threads, k->tid);
		if (!s || s->pid1 != (uint64_t)k->pid + 1)
			return 0;
		e = sy_gone_get(&t->gone, k->tid, 0);
		if (e && e->due)
			return 0;	/* its EXIT came already */
		e = sy_gone_get(&t->gone, k->tid, 1);
		if (!e)
			return -SY_E_NOMEM;
		if ((err = sy_gone_due(&t->gone, e, SY_GONE_THREAD, k->time)))
			return err;
		e = sy_gone_get(&t->gone, k->pid, 0);
		if (!e)
			return 0;
		if (e->threads)
			e->threads--;
		if (e->threads || !e->leader_gone)
			return 0;
		return sy_gone_due(&t->gone, e, SY_GONE_PROC, k->time);
	}
	s = sy_trie_get(t->procs, k->pid);
	if (!s || !s->as)
		return 0;
	e = sy_gone_get(&t->gone, k->pid, 1);
	if (!e)
		return -SY_E_NOMEM;
	if (e->leader_gone)
		return 0;
	e->leader_gone = 1;
	return e->threads ? 0 :
			    sy_gone_due(&t->gone, e, SY_GONE_PROC, k->time);
}

int sy_proc_table_forget(struct sy_proc_table *t, uint64_t upto)
{
	struct sy_gone_drop d;

	while (sy_gone_pop(&t->gone, upto, &d)) {
		struct sy_gone_ent *e = sy_gone_get(&t->gone, d.id, 0);
		int err;

		/* taken back since, or replaced by a later drop */
		if (!e || e->due != d.seq)
			continue;
		sy_changed(t);
		if (d.kind == SY_GONE_PROC)
			err = sy_trie_clear(&t->procs, d.id, SY_LEAF_SPACE,
					    &t->nr_procs);
		else
			err = sy_trie_clear(&t->threads, d.id, SY_LEAF_PID,
					    NULL);
		if (err)
			return err;
		sy_gone_erase(&t->gone, d.id);
		t->gone.forgotten++;
	}
	return 0;
}

uint64_t sy_proc_table_oldest_exit(const struct sy_proc_table *t)
{
	return sy_gone_oldest(&t->gone);
}

uint64_t sy_proc_table_forgotten(const struct sy_proc_table *t)
{
	return t->gone.forgotten;
}

size_t sy_proc_table_peak(const struct sy_proc_table *t)
{
	return t->peak_procs;
}

int sy_proc_table_feed(struct sy_proc_table *t, const struct sy_record *rec,
		       const struct sy_event *ev)
{
	switch (rec->type) {
	case SY_REC_MMAP:
	case SY_REC_MMAP2:
		return sy_proc_table_mmap(t, &ev->u.mmap, rec->misc);
	case SY_REC_COMM:
		return sy_proc_table_comm(t, &ev->u.comm);
	case SY_REC_FORK:
		return sy_proc_table_fork(t, &ev->u.task);
	case SY_REC_EXIT:
		return sy_proc_table_exit(t, &ev->u.task);
	default:
		return 0;
	}
}

const struct sy_aspace *sy_proc_table_aspace(const struct sy_proc_table *t,
					     uint32_t pid)
{
	if (pid == UINT32_MAX)
		return t->kernel;
	return sy_space_of(t->procs, t->threads, pid);
}

/* --- Snapshots ----------------------------------------------------------- */

struct sy_proc_snap *sy_proc_table_snapshot(struct sy_proc_table *t)
{
	struct sy_proc_snap *s = t->snap;

	if (!s) {
		s = malloc(sizeof(*s));
		if (!s)
			return NULL;
		atomic_init(&s->ref, 1);
		s->procs = sy_tnode_get(t->procs);
		s->threads = sy_tnode_get(t->threads);
		s->kernel = sy_aspace_get(t->kernel);
		s->serial = ++t->snaps;
		t->snap = s;
	}
	return sy_proc_snap_get(s);
}

struct sy_proc_snap *sy_proc_snap_get(struct sy_proc_snap *s)
{
	if (s)
		atomic_fetch_add_explicit(&s->ref, 1, memory_order_relaxed);
	return s;
}

void sy_proc_snap_put(struct sy_proc_snap *s)
{
	if (!s || atomic_fetch_sub_explicit(&s->ref, 1,
					    memory_order_acq_rel) != 1)
		return;
	sy_tnode_put(s->procs, 0, SY_LEAF_SPACE);
	sy_tnode_put(s->threads, 0, SY_LEAF_PID);
	sy_aspace_put(s->kernel);
	free(s);
}

const struct sy_aspace *sy_proc_snap_aspace(const struct sy_proc_snap *s,
					    uint32_t id)
{
	if (!s)
		return NULL;
	if (id == UINT32_MAX)
		return s->kernel;
	return sy_space_of(s->procs, s->threads, id);
}

uint64_t sy_proc_snap_serial(const struct sy_proc_snap *s)
{
	return s ? s->serial : 0;
}

const struct sy_aspace *sy_proc_snap_kernel(const struct sy_proc_snap *s)
{
	return s ? s->kernel : NULL;
}

const struct sy_map *sy_proc_snap_find(const struct sy_proc_snap *s,
				       uint32_t id, uint64_t addr)
{
	const struct sy_map *m;

	if (!s)
		return NULL;
	m = sy_aspace_find(sy_proc_snap_aspace(s, id), addr);
	return m ? m : sy_aspace_find(s->kernel, addr);
}
