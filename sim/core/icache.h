/*
 * icache.h - the inode cache's data structures, modelled on Linux's.
 *
 * The structures are the same in every locking scheme; what changes from
 * one scheme to the next is only which lock is taken to touch them.  So the
 * locks of every era live here side by side (the 2.6.36 inode_lock, the
 * 2.6.39 list locks, per-bucket hash locks, per-sb and per-bdi list locks)
 * and each scheme file in sim/schemes/ says which of them it uses for what.
 *
 * The helpers declared here change one list or one flag and nothing else.
 * They take no lock: the caller must hold the lock its scheme names for
 * that list or flag (scheme->list_lock / scheme->state_lock), and each
 * helper checks that it does, and that the inode is still alive, before it
 * touches anything.  A failed check becomes a violation report; the helper
 * then refuses the change rather than corrupt the cache, so a run that found
 * a bug can still finish and tell the story.
 */
#ifndef SIM_ICACHE_H
#define SIM_ICACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/core/list.h"
#include "sim/core/list_lru.h"
#include "sim/core/lock.h"
#include "sim/core/rcu.h"

#define INODE_MAGIC 0x1c0de11du
#define INODE_FREED 0xdeadf1eeu

#define MS_ACTIVE 1u

struct super_block;

struct inode {
	uint32_t i_magic; /* INODE_MAGIC while alive */
	uint64_t i_ino;
	struct super_block *i_sb;
	atomic_uint i_state; /* I_* flags; see scheme->state_lock */
	atomic_int i_count;  /* references */
	atomic_uint i_nlink; /* links; 0 means unlinked */
	struct sim_lock i_lock;
	/* Hash chain.  Changed under the chain's lock with the _rcu helpers:
	 * a scheme may walk chains under rcu_read_lock() alone. */
	struct hlist_node i_hash;
	/*
	 * Is it hashed?  Set and cleared with i_hash, but read by code that
	 * holds only i_lock (generic_drop_inode in iput_final): a neighbour's
	 * insert rewrites our i_hash.pprev under the chain lock alone, so the
	 * pointer itself is not ours to read.  The kernel reads it with
	 * hlist_unhashed_lockless(); we keep the answer apart.
	 */
	atomic_bool i_hashed;
	/* sb->s_inodes, changed under the sb list lock with list_add_rcu /
	 * list_del_rcu: a scheme may walk it under rcu_read_lock() alone.
	 * "On the list" is inode_on_sb_list(), not list_empty(). */
	struct list_head i_sb_list;
	struct list_head i_wb_list; /* b_dirty, b_io or b_more_io */
	struct list_head i_lru;     /* the LRU, a dispose list, or (2.6.36)
					   inode_in_use / inode_unused */
	/* Which list each link is on; written with the link itself. */
	enum inode_list_id i_wb_on;  /* LIST_b_* or -1 */
	enum inode_list_id i_lru_on; /* LIST_lru, LIST_in_use, LIST_dispose or -1 */
	uint64_t dirtied_when;       /* protected like i_wb_list */
	uint64_t i_generation;       /* bumped at each reuse of the memory */
	/* wake_up_inode() calls on this memory, ever (never reset, so a
	 * sleeper's token stays meaningful across a reuse): a sleeper waits
	 * for its own inode's wake, not for any wake of its wait slot. */
	atomic_uint_fast64_t i_wakes;
	int i_nid; /* NUMA node of its memory (list_lru) */
	/*
	 * Taken off its list_lru lazily while I_LRU_ISOLATING pinned it, and
	 * not put back since: the kernel's window too (inode_lru_isolate drops
	 * any inode with a state bit; inode_unpin_lru_isolating does not
	 * re-add), which the invariant checker accepts.  Under the node lock.
	 */
	bool i_lru_dropped_pinned;
	/*
	 * i_data.nrpages: how many pages of the file are cached.  Simplified:
	 * the page cache is this count of clean pages, changed atomically
	 * (the kernel's mapping->tree_lock is not modelled), and buffers are
	 * not modelled at all.
	 */
	atomic_long i_nrpages;
	bool i_published;        /* its birth is in the trace */
	uint32_t i_check;        /* scratch for the invariant checker */
	struct list_head i_pool; /* allocator's quarantine (its part's lock) */
	/* destroy_inode_rcu(): the callback, when and by which CPU it was
	 * queued (its memory goes back to that CPU's part of the pool). */
	struct sim_rcu_head i_rcu;
	uint64_t i_rcu_queued_ns;
	int i_rcu_cpu;
};

struct super_block {
	uint32_t s_id;
	atomic_uint s_flags; /* MS_ACTIVE; umount clears it */
	struct list_head s_inodes;
	atomic_long s_nr_inodes;           /* length of s_inodes, for umount */
	struct sim_lock s_inode_list_lock; /* per-sb list lock (v4 era) */
	struct sim_lock s_umount;          /* rw-lock: umount holds it for write */
	struct bdi_writeback *s_bdi;
	/* Today: the sb's unused inodes, one list and lock per NUMA node. */
	struct list_lru s_inode_lru;
};

/*
 * One backing device's writeback lists, with their per-bdi lock (v4 era;
 * today's bdi_writeback, whose list_lock also guards i_io_list, our
 * i_wb_list).
 */
struct bdi_writeback {
	struct list_head b_dirty, b_io, b_more_io;
	struct sim_lock list_lock;
};

struct hash_bucket {
	struct hlist_head head;
	struct sim_lock lock; /* per-bucket lock (hlist_bl style) */
};

/*
 * Laid out as the kernel lays out what it shares: what every operation
 * reads and nobody writes after set-up first (the kernel's __read_mostly
 * inode_hashtable and i_hash_shift), then each lock and each group of
 * data written together on lines of their own (2.6.39 made inode_hash_lock,
 * inode_sb_list_lock and inode_wb_list_lock __cacheline_aligned_in_smp).
 * A read-mostly field on a line another CPU keeps writing would cost every
 * reader a cache-line transfer: a cost of the layout, not of the locking.
 */
struct icache {
	/* Read-mostly: written by icache_init only. */
	struct hash_bucket *hash;
	unsigned hash_bits;
	struct super_block *sbs;
	int nsbs;
	struct sim_cpu **cpus; /* every simulated CPU, for counters */
	int ncpus;
	int nr_nodes;   /* simulated NUMA nodes (--nodes), for list_lru */
	int nr_workers; /* CPUs dealt out to nodes in blocks; then the rest */
	const struct scheme *scheme;
	/*
	 * sysctl vm.vfs_cache_pressure (default 100): how hard the VM leans
	 * on the icache; shrink_icache_memory scales its count by it.
	 */
	long vfs_cache_pressure;

	/* 2.6.36: one lock for everything below. */
	_Alignas(64) struct sim_lock inode_lock;
	/* 2.6.39: a lock per structure. */
	_Alignas(64) struct sim_lock hash_lock;
	_Alignas(64) struct sim_lock sb_list_lock;
	_Alignas(64) struct sim_lock wb_list_lock;
	_Alignas(64) struct sim_lock lru_lock;
	_Alignas(64) struct sim_lock iunique_lock;
	/*
	 * Every era: a sleeping rw-lock.  prune_icache holds it for read from
	 * its scan until its dispose list is freed; umount takes it for write
	 * so that no inode of the dying sb is still on such a list when it
	 * returns (2.6.36 over all of invalidate_inodes; 2.6.39 evict_inodes
	 * cycles through it after its own dispose, commit bab1d9444d9).
	 */
	_Alignas(64) struct sim_lock iprune_sem;

	_Alignas(64) struct list_head inode_lru; /* unused inodes; head = young end */
	/* Changed only with inode_lru's lock held; read without it by the
	 * shrinker, as the kernel does, hence atomic (relaxed). */
	atomic_long nr_unused;
	struct list_head inode_in_use; /* 2.6.36 only */

	_Alignas(64) struct bdi_writeback wb; /* one backing device */

	_Alignas(64) atomic_uint_fast64_t shared_last_ino; /* get_next_ino's batches */
	uint64_t last_ino;                                 /* 2.6.36 counter (inode_lock) */
	uint64_t iunique_counter;                          /* protected by the scheme's lock */
};

/* The inode cache.  The kernel keeps these as globals; so do we. */
extern struct icache icache;

struct icache_config {
	int nsbs;
	unsigned hash_bits;
	int nodes;   /* NUMA nodes; 0 means 1 */
	int workers; /* CPUs running the workload, numbered first (0: all) */
};

void icache_init(const struct scheme *s, const struct icache_config *cfg, struct sim_cpu **cpus,
		 int ncpus);
void icache_destroy(void);

/* ---- allocation ---------------------------------------------------- */

/*
 * A fresh inode numbered ino: count 1, nlink 1, state 0, on no list, not
 * yet visible to anyone.  No locks.  inode_publish() records its birth in
 * the trace once it is about to become visible (hashed or on s_inodes);
 * an inode that loses an iget race is destroyed unpublished and leaves no
 * trace at all.
 */
struct inode *alloc_inode(struct super_block *sb, uint64_t ino);
void inode_publish(struct inode *inode);
/* Number an inode allocated with ino 0, before it is published (2.6.36's
 * new_inode numbered it under inode_lock). */
void inode_set_ino(struct inode *inode, uint64_t ino);
/* Return an inode's memory; it must be on no list.  No locks. */
void destroy_inode(struct inode *inode, enum site site);
/*
 * The same, but the memory goes back to the allocator only after an RCU
 * grace period (2.6.38's destroy_inode: call_rcu(&inode->i_rcu,
 * i_callback)).  The inode is dead at once (freed in the trace, counted
 * out of nr_inodes, every later touch by a lock holder reported); only a
 * reader inside rcu_read_lock() may still look at it, and must check it
 * under i_lock.  Traced as inode_free, inode_rcu_free (queued), and
 * inode_rcu_freed (given back).
 */
void destroy_inode_rcu(struct inode *inode, enum site site);
/* How many of those still wait for their grace period. */
long inodes_rcu_pending(void);
/* Is this inode's memory still a live inode? Reports if not. */
bool inode_alive(struct inode *inode, enum site site, const char *what);
uint64_t inodes_allocated(void);

/* ---- state and references (caller holds scheme->state_lock) -------- */

unsigned inode_state(const struct inode *inode);
void inode_state_set(struct inode *inode, unsigned flags, enum site site);
void inode_state_clear(struct inode *inode, unsigned flags, enum site site);
void inode_state_assign(struct inode *inode, unsigned state, enum site site);

/* i_count changes; no lock checks (the schemes differ on what they need). */
void inode_ref_get(struct inode *inode, enum site site);
int inode_ref_put(struct inode *inode, enum site site); /* returns new */
/*
 * Drop a reference.  If it was the last, return true with l held: the
 * kernel's atomic_dec_and_lock(), on which iput() is built, so the final
 * put arrives holding the lock that guards the 1 -> 0 transition.
 */
bool inode_ref_put_and_lock(struct inode *inode, struct sim_lock *l, enum site site);
/*
 * Its first half, atomic_add_unless(&i_count, -1, 1), for an iput that
 * looks at the inode between the two (today's, for I_DIRTY_TIME): true
 * when there is nothing more to do (a reference that was not the last is
 * gone, or the inode is dead, which is reported); false when the caller
 * holds the last one.
 */
bool inode_ref_put_unless_last(struct inode *inode, enum site site);

void inode_drop_nlink(struct inode *inode, enum site site);

/* ---- the lists (caller holds scheme->list_lock for that list) ------ */

struct hash_bucket *inode_hash_bucket(struct super_block *sb, uint64_t ino);
void inode_hash_add(struct inode *inode, enum site site);
void inode_hash_del(struct inode *inode, enum site site);
bool inode_hashed(const struct inode *inode);
/* Find (sb, ino) on its chain; the chain's lock must be held. */
struct inode *hash_chain_find(struct hash_bucket *b, struct super_block *sb, uint64_t ino);
/* The next (sb, ino) on its chain after `after` (NULL: from the head). */
struct inode *hash_chain_next(struct hash_bucket *b, struct super_block *sb, uint64_t ino,
			      struct inode *after);
/*
 * The RCU walk of a chain: the next inode numbered ino on b after `after`
 * (NULL: from the head), without the chain's lock.  The caller is inside
 * rcu_read_lock() and must take the candidate's i_lock and check
 * inode_hashed() and I_FREEING / I_WILL_FREE before using it: it may have
 * been unhashed, even freed, since the walk saw it.  Its memory stays
 * valid until the caller's rcu_read_unlock().
 */
struct inode *hash_chain_next_rcu(struct hash_bucket *b, struct super_block *sb, uint64_t ino,
				  struct inode *after);
/* Is ino used on its chain? For iunique. */
bool hash_chain_has(struct hash_bucket *b, struct super_block *sb, uint64_t ino);

bool inode_on_sb_list(const struct inode *inode);
/*
 * The RCU walk of sb->s_inodes: the inode after `after` (NULL: the first),
 * or NULL at the end, without the sb list lock.  As for the hash: inside
 * rcu_read_lock(), and the inode is checked under its i_lock before use.
 */
struct inode *sb_list_next_rcu(struct super_block *sb, struct inode *after);
void inode_sb_list_add(struct inode *inode, enum site site);
void inode_sb_list_del(struct inode *inode, enum site site);

/* nr_unused += delta for an LRU add or removal, the way the scheme's era
 * counts it (enum inode_counters); list_lru.c uses it too. */
void lru_count(long delta);

/* LRU: add at the young end, counted in nr_unused. */
void inode_lru_add(struct inode *inode, enum site site);
void inode_lru_del(struct inode *inode, enum site site);
void inode_lru_rotate(struct inode *inode, enum site site);
bool inode_on_lru(const struct inode *inode);
/* The oldest inode on the LRU (the tail), or NULL. */
struct inode *inode_lru_oldest(void);
/* The youngest (inode_lru.next), or NULL: where an iput put it (2.6.36). */
struct inode *inode_lru_youngest(void);

/* 2.6.36's inode_in_use list, threaded through i_lru. */
void inode_in_use_add(struct inode *inode, enum site site);
void inode_in_use_del(struct inode *inode, enum site site);

/*
 * V4's invalidate_inodes threaded its dispose list through i_sb_list, so
 * that the walk of s_inodes need not take the LRU lock per inode: move an
 * inode from s_inodes (sb list lock held) to such a list, and pop it.
 */
void inode_sb_dispose_add(struct inode *inode, struct list_head *dispose, enum site site);
struct inode *inode_sb_dispose_pop(struct list_head *dispose, enum site site);

/* Private dispose lists are threaded through i_lru; no lock needed. */
void inode_dispose_add(struct inode *inode, struct list_head *dispose, enum site site);
struct inode *inode_dispose_pop(struct list_head *dispose, enum site site);

/* Writeback lists: move to b_dirty, b_io or b_more_io, or off them. */
void inode_wb_move(struct inode *inode, struct bdi_writeback *wb, enum inode_list_id to,
		   enum site site);
void inode_wb_del(struct inode *inode, enum site site);
bool inode_on_wb(const struct inode *inode);
/* queue_io: b_more_io and b_dirty move onto b_io. */
void wb_queue_io(struct bdi_writeback *wb, enum site site);
struct inode *wb_io_oldest(struct bdi_writeback *wb);

/* get_next_ino(): per-CPU batches of 1024 from a shared counter (2.6.37+). */
uint64_t get_next_ino_percpu(void);
/* 2.6.36's ++last_ino, one counter for all; the scheme's lock held. */
uint64_t last_ino_next(void);

/* ---- an inode's page cache (no icache lock; see i_nrpages) ----------- */

/* Pages read into the cache (a read or a write of the file). */
void inode_add_pages(struct inode *inode, long n, enum site site);
static inline long inode_nrpages(const struct inode *inode)
{
	return atomic_load_explicit(&inode->i_nrpages, memory_order_relaxed);
}
/* invalidate_mapping_pages(&inode->i_data, 0, -1): drop the cached pages
 * (all of them: every page here is clean and unmapped); returns how many. */
long invalidate_mapping_pages(struct inode *inode, enum site site);
/* evict's truncate_inode_pages(&inode->i_data, 0): the inode is dying. */
void truncate_inode_pages(struct inode *inode, enum site site);
/*
 * can_unuse: may prune free this inode after stripping its pages?  Not
 * if it is in use, dirty, new or dying, or has pages again.  2.6.36
 * tested `i_state` and 2.6.37 on `i_state & ~I_REFERENCED`, which is the
 * same test for 2.6.36 (no I_REFERENCED then).  Caller holds the scheme's
 * state lock.
 */
bool can_unuse(const struct inode *inode);

/* ---- writeback list order (caller holds the writeback list lock) ---- */

/*
 * __mark_inode_dirty's move of a clean inode: dirtied_when = now, then to
 * the young end (head) of b_dirty.
 */
void inode_wb_dirty(struct inode *inode, struct bdi_writeback *wb, enum site site);
/*
 * redirty_tail: back to the young end of b_dirty.  dirtied_when is reset
 * to now only if it is older than that of the inode now at the head, so
 * b_dirty stays ordered by dirtied_when (move_expired_inodes relies on it);
 * an inode redirtied while written keeps its stamp.
 */
void wb_redirty_tail(struct inode *inode, struct bdi_writeback *wb, enum site site);

/* ---- counters -------------------------------------------------------- */

void nr_inodes_inc(void);
void nr_inodes_dec(void);
long get_nr_inodes(void); /* summed over CPUs */
/* nr_unused as the scheme's era read it (see enum inode_counters). */
long get_nr_unused(void);
/* 2.6.36 (COUNTERS_2636): inodes_stat.nr_unused += delta, inode_lock held. */
void nr_unused_add(long delta);

/* ---- waiting on an inode (bit waitqueues) ---------------------------- */

/*
 * The kernel sleeps on a bit of i_state.  We sleep on a token: take it while
 * still holding the lock under which the bad state was seen, drop locks,
 * then wait_inode_token() returns once the inode's state has changed (or
 * after a short timeout; callers always re-check).
 */
uint64_t wait_inode_prepare(struct inode *inode);
void wait_inode_token(struct inode *inode, uint64_t token, enum site site);
void wake_up_inode(struct inode *inode);
/* How long a sleeper waits before it reports a missed wakeup (free-running
 * mode; run_workload sets it to --watchdog). */
void set_missed_wakeup_ns(uint64_t ns);
/* Sleep until I_NEW is clear (no locks held). */
void wait_on_inode(struct inode *inode);

/* ---- assertions ------------------------------------------------------ */

/* Report (once per site) if the lock the scheme names is not held. */
void assert_lock_held(struct sim_lock *l, enum site site, const char *what,
		      const struct inode *inode);

#endif /* SIM_ICACHE_H */
