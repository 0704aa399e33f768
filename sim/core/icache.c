/*
 * icache.c - the inode cache's structures and their lock-free helpers.
 *
 * Nothing here takes an icache lock.  Every helper that changes a list or a
 * flag first asks the scheme which lock protects it and checks that the
 * calling CPU holds it, then checks that the inode is still alive (its
 * memory not yet given back).  Those two checks are the handoff checker:
 * they turn "the LRU now holds a freed inode" from silent corruption into a
 * report naming the CPU, the site and the inode.
 *
 * Freed inodes are not returned to malloc at once: they wait in a
 * quarantine, marked INODE_FREED, so a late touch is recognised and
 * reported instead of corrupting a new inode that reused the memory.
 */
/* The lines this file's call sites mark (sim/core/lock.h). */
#define SRC_FILE_ID SRC_core

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "sim/core/clock.h"
#include "sim/core/icache.h"
#include "sim/core/scheme.h"
#include "sim/core/trace.h"
#include "sim/core/violation.h"

struct icache icache;

/* ---- the allocator (models the slab; its locks are not icache locks) -- */

/*
 * Like a slab, the pool has a part per CPU and a shared part.  A CPU
 * frees into its own quarantine and allocates from it, so an inode's
 * memory stays with the CPU that used it (the slab's per-CPU caches), and
 * two CPUs share no allocator line: one global mutex made every real
 * 2-CPU operation bounce the allocator's lock and lists between the cores,
 * a cost the kernel does not have.  An RCU free goes back to the CPU that
 * queued it (the kernel runs a callback on the CPU that queued it).
 *
 * The quarantine: an inode freed on a CPU is handed out again only after
 * QUARANTINE later frees on that CPU, so a late touch finds it dead
 * (INODE_FREED) instead of reused.  A CPU holding more than 2 x QUARANTINE
 * moves its oldest QUARANTINE to the shared FIFO (they have served their
 * time), where a CPU short of memory takes them before it callocs more.
 * Simplified: no batching of the shared part, no object colouring.
 */
#define QUARANTINE 1024
#define POOL_SLOTS (MAX_SIM_CPUS + 3) /* CPUs, flusher, main, no CPU */

struct pool_cpu {
	union {
		struct {
			/* Taken by its CPU, and by liburcu's callback thread
			 * for the RCU frees that CPU queued: nearly always
			 * uncontended. */
			pthread_mutex_t lock;
			struct list_head free; /* FIFO, oldest first */
			size_t nfree;
		};
		char line[128]; /* no two CPUs' parts on one cache line */
	};
};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static struct pool_cpu pool_cpus[POOL_SLOTS];
/* The shared part, and the list of every inode ever made (for the end). */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head pool_free = LIST_HEAD_INIT(pool_free); /* FIFO */
static uint64_t pool_allocated; /* distinct inode structures ever made */
static struct inode **pool_blocks;
static size_t pool_nblocks, pool_capblocks;
/* Life ids (the i_lock's `life` in the trace): one per alloc_inode in a run. */
static atomic_uint_fast64_t next_life;

static void pool_cpus_init(void)
{
	for (int i = 0; i < POOL_SLOTS; i++) {
		pthread_mutex_init(&pool_cpus[i].lock, NULL);
		INIT_LIST_HEAD(&pool_cpus[i].free);
		pool_cpus[i].nfree = 0;
	}
}

static struct pool_cpu *pool_slot(int cpu)
{
	pthread_once(&pool_once, pool_cpus_init);
	return &pool_cpus[cpu >= 0 && cpu < POOL_SLOTS - 1 ? cpu : POOL_SLOTS - 1];
}

/* The oldest inode of a FIFO that holds more than keep, or NULL. */
static struct inode *pool_take(struct list_head *fifo, size_t *n, size_t keep)
{
	if (*n <= keep)
		return NULL;
	struct inode *inode = list_first_entry(fifo, struct inode, i_pool);
	list_del_init(&inode->i_pool);
	(*n)--;
	return inode;
}

static struct inode *pool_new(void)
{
	struct inode *inode = xcalloc_aligned(1, sizeof(*inode), 64); /* xalloc.h */
	INIT_LIST_HEAD(&inode->i_pool);
	sim_lock_init(&inode->i_lock, LC_i_lock, 0);
	pthread_mutex_lock(&pool_lock);
	if (pool_nblocks == pool_capblocks) {
		pool_capblocks = pool_capblocks ? pool_capblocks * 2 : 1024;
		pool_blocks = xrealloc(pool_blocks, pool_capblocks * sizeof(*pool_blocks));
	}
	pool_blocks[pool_nblocks++] = inode;
	pool_allocated++;
	pthread_mutex_unlock(&pool_lock);
	return inode;
}

static size_t pool_shared_n; /* under pool_lock */

static struct inode *pool_get(void)
{
	struct pool_cpu *pc = pool_slot(this_cpu ? this_cpu->id : -1);
	struct inode *inode;

	pthread_mutex_lock(&pc->lock);
	inode = pool_take(&pc->free, &pc->nfree, QUARANTINE);
	pthread_mutex_unlock(&pc->lock);
	if (inode)
		return inode;
	pthread_mutex_lock(&pool_lock);
	inode = pool_take(&pool_free, &pool_shared_n, 0);
	pthread_mutex_unlock(&pool_lock);
	return inode ? inode : pool_new();
}

/* Back to the quarantine of CPU cpu; its oldest to the shared part if it
 * holds too many (a CPU that frees more than it allocates). */
static void pool_put(struct inode *inode, int cpu)
{
	struct pool_cpu *pc = pool_slot(cpu);
	struct list_head spill = LIST_HEAD_INIT(spill);
	size_t nspill = 0;

	pthread_mutex_lock(&pc->lock);
	list_add_tail(&inode->i_pool, &pc->free);
	if (++pc->nfree > 2 * QUARANTINE) {
		while (pc->nfree > QUARANTINE) {
			struct inode *old = pool_take(&pc->free, &pc->nfree, 0);
			list_add_tail(&old->i_pool, &spill);
			nspill++;
		}
	}
	pthread_mutex_unlock(&pc->lock);
	if (!nspill)
		return;
	pthread_mutex_lock(&pool_lock);
	list_splice_init(&spill, pool_free.prev); /* after the last: FIFO */
	pool_shared_n += nspill;
	pthread_mutex_unlock(&pool_lock);
}

uint64_t inodes_allocated(void)
{
	pthread_mutex_lock(&pool_lock);
	uint64_t n = pool_allocated;
	pthread_mutex_unlock(&pool_lock);
	return n;
}

static void pool_release_all(void)
{
	for (int i = 0; i < POOL_SLOTS; i++) {
		struct pool_cpu *pc = pool_slot(i);
		pthread_mutex_lock(&pc->lock);
		INIT_LIST_HEAD(&pc->free);
		pc->nfree = 0;
		pthread_mutex_unlock(&pc->lock);
	}
	pthread_mutex_lock(&pool_lock);
	for (size_t i = 0; i < pool_nblocks; i++) {
		sim_lock_destroy(&pool_blocks[i]->i_lock);
		free(pool_blocks[i]);
	}
	free(pool_blocks);
	pool_blocks = NULL;
	pool_nblocks = pool_capblocks = 0;
	pool_allocated = 0;
	pool_shared_n = 0;
	INIT_LIST_HEAD(&pool_free);
	pthread_mutex_unlock(&pool_lock);
}

/* ---- set-up ----------------------------------------------------------- */

void icache_init(const struct scheme *s, const struct icache_config *cfg, struct sim_cpu **cpus,
		 int ncpus)
{
	memset(&icache, 0, sizeof(icache));
	atomic_store(&next_life, 0);
	icache.scheme = s;
	icache.cpus = cpus;
	icache.ncpus = ncpus;
	icache.nr_nodes = cfg->nodes > 0 ? cfg->nodes : 1;
	if (icache.nr_nodes > MAX_NUMA_NODES)
		icache.nr_nodes = MAX_NUMA_NODES;
	icache.nr_workers = cfg->workers > 0 && cfg->workers <= ncpus ? cfg->workers : ncpus;
	sim_lock_init(&icache.inode_lock, LC_inode_lock, 0);
	sim_lock_init(&icache.hash_lock, LC_inode_hash_lock, 0);
	sim_lock_init(&icache.sb_list_lock, LC_inode_sb_list_lock, 0);
	sim_lock_init(&icache.wb_list_lock, LC_inode_wb_list_lock, 0);
	sim_lock_init(&icache.lru_lock, LC_inode_lru_lock, 0);
	sim_lock_init(&icache.iunique_lock, LC_iunique_lock, 0);
	sim_rwsem_init(&icache.iprune_sem, LC_iprune_sem);

	icache.hash_bits = cfg->hash_bits;
	size_t nb = (size_t)1 << cfg->hash_bits;
	icache.hash = xcalloc_aligned(nb, sizeof(*icache.hash), 64);
	for (size_t i = 0; i < nb; i++)
		sim_lock_init(&icache.hash[i].lock, LC_hash_bucket, i);

	INIT_LIST_HEAD(&icache.inode_lru);
	INIT_LIST_HEAD(&icache.inode_in_use);
	INIT_LIST_HEAD(&icache.wb.b_dirty);
	INIT_LIST_HEAD(&icache.wb.b_io);
	INIT_LIST_HEAD(&icache.wb.b_more_io);
	sim_lock_init(&icache.wb.list_lock, LC_inode_wb_list_lock, 1);

	icache.nsbs = cfg->nsbs;
	icache.sbs = xcalloc_aligned((size_t)cfg->nsbs, sizeof(*icache.sbs), 64);
	for (int i = 0; i < cfg->nsbs; i++) {
		struct super_block *sb = &icache.sbs[i];
		sb->s_id = (uint32_t)i;
		atomic_init(&sb->s_flags, MS_ACTIVE);
		atomic_init(&sb->s_nr_inodes, 0);
		INIT_LIST_HEAD(&sb->s_inodes);
		sim_lock_init(&sb->s_inode_list_lock, LC_inode_sb_list_lock, (uint64_t)i + 1);
		sim_rwsem_init(&sb->s_umount, LC_s_umount);
		sb->s_bdi = &icache.wb;
		list_lru_init(&sb->s_inode_lru, icache.nr_nodes, LIST_LRU_INST(i, 0));
	}
	atomic_init(&icache.shared_last_ino, 0);
	icache.last_ino = 0;
	icache.iunique_counter = 0;
	icache.vfs_cache_pressure = 100;
}

void icache_destroy(void)
{
	/* Freeing callbacks still queued would land in freed memory. */
	sim_rcu_barrier();
	size_t nb = (size_t)1 << icache.hash_bits;
	for (size_t i = 0; i < nb; i++)
		sim_lock_destroy(&icache.hash[i].lock);
	free(icache.hash);
	for (int i = 0; i < icache.nsbs; i++) {
		sim_lock_destroy(&icache.sbs[i].s_inode_list_lock);
		sim_lock_destroy(&icache.sbs[i].s_umount);
		list_lru_destroy(&icache.sbs[i].s_inode_lru);
	}
	free(icache.sbs);
	sim_lock_destroy(&icache.inode_lock);
	sim_lock_destroy(&icache.hash_lock);
	sim_lock_destroy(&icache.sb_list_lock);
	sim_lock_destroy(&icache.wb_list_lock);
	sim_lock_destroy(&icache.lru_lock);
	sim_lock_destroy(&icache.iunique_lock);
	sim_lock_destroy(&icache.iprune_sem);
	sim_lock_destroy(&icache.wb.list_lock);
	pool_release_all();
	memset(&icache, 0, sizeof(icache));
}

/* ---- checks ----------------------------------------------------------- */

static int cpu_id(void)
{
	return this_cpu ? this_cpu->id : -1;
}

static const char *cpu_name(void)
{
	return this_cpu ? this_cpu->name : "?";
}

bool inode_alive(struct inode *inode, enum site site, const char *what)
{
	if (inode->i_magic == INODE_MAGIC)
		return true;
	report_violation(VIOL_use_after_free, -1, -1, site, -1, cpu_id(), -1, inode->i_ino,
			 "use after free: %s %s inode %llu in %s after it was freed", cpu_name(),
			 what, (unsigned long long)inode->i_ino, site_name(site));
	return false;
}

/* A freed inode being put on a list is its own, sharper, report. */
static bool alive_for_list(struct inode *inode, enum inode_list_id list, enum site site)
{
	static const char *const names[] = {
#define X(n) #n,
		ICACHE_LISTS(X)
#undef X
	};
	if (inode->i_magic == INODE_MAGIC)
		return true;
	report_violation(VIOL_freed_on_list, -1, -1, site, -1, cpu_id(), -1, inode->i_ino,
			 "freed inode on a list: %s puts inode %llu on the %s list "
			 "in %s, but that inode has already been freed",
			 cpu_name(), (unsigned long long)inode->i_ino, names[list],
			 site_name(site));
	return false;
}

void assert_lock_held(struct sim_lock *l, enum site site, const char *what,
		      const struct inode *inode)
{
	if (!l || !this_cpu || sim_lock_held(l))
		return;
	report_violation(VIOL_invariant, l->cls, -1, site, -1, cpu_id(), -1,
			 inode ? inode->i_ino : 0, "%s changes %s in %s without holding %s",
			 cpu_name(), what, site_name(site), lock_class_name(l->cls));
}

static void assert_list_lock(enum inode_list_id list, struct inode *inode, enum site site,
			     const char *what)
{
	assert_lock_held(icache.scheme->list_lock(list, inode), site, what, inode);
}

/* The event of one change of inode's lists (action: enum list_action). */
static void list_event(struct inode *inode, enum inode_list_id list, enum list_action action,
		       enum site site)
{
	trace_inode_list(this_cpu, inode->i_ino, inode->i_lock.life, list, action, site);
}

/* ---- allocation --------------------------------------------------------- */

struct inode *alloc_inode(struct super_block *sb, uint64_t ino)
{
	struct inode *inode = pool_get();

	/* Its memory's lines: the fields, the links, the page count. */
	SIM_LINE(&inode->i_magic);
	SIM_LINE(&inode->i_hash);
	SIM_LINE(&inode->i_wb_list);
	SIM_LINE(&inode->i_nrpages);
	inode->i_magic = INODE_MAGIC;
	inode->i_ino = ino;
	inode->i_published = false;
	inode->i_sb = sb;
	atomic_store(&inode->i_state, 0);
	atomic_store(&inode->i_count, 1);
	atomic_store(&inode->i_nlink, 1);
	INIT_HLIST_NODE(&inode->i_hash);
	atomic_store(&inode->i_hashed, false);
	INIT_LIST_HEAD(&inode->i_sb_list);
	INIT_LIST_HEAD(&inode->i_wb_list);
	INIT_LIST_HEAD(&inode->i_lru);
	inode->i_wb_on = (enum inode_list_id) - 1;
	inode->i_lru_on = (enum inode_list_id) - 1;
	inode->dirtied_when = 0;
	inode->i_nid = cpu_to_node(this_cpu);
	inode->i_lru_dropped_pinned = false;
	atomic_store(&inode->i_nrpages, 0);
	inode->i_generation++;
	/* A new life of recycled memory: spin_lock_init() in inode_init_always()
	 * forgets the previous owner too, so the first acquisition is no bounce. */
	inode->i_lock.inst = ino;
	inode->i_lock.last_cpu = -1;
	/* Its id in the trace: two lives of one number are two i_locks
	 * (a counter every CPU's allocations share). */
	SIM_LINE(&next_life);
	inode->i_lock.life = atomic_fetch_add_explicit(&next_life, 1, memory_order_relaxed) + 1;
	nr_inodes_inc();
	return inode;
}

void inode_set_ino(struct inode *inode, uint64_t ino)
{
	inode->i_ino = ino;
	inode->i_lock.inst = ino;
}

void inode_publish(struct inode *inode)
{
	if (inode->i_published)
		return;
	inode->i_published = true;
	trace_inode_alloc(this_cpu, inode->i_ino, inode->i_sb->s_id, atomic_load(&inode->i_nlink),
			  inode->i_lock.life);
}

/*
 * The part of freeing that is the same with or without RCU: checks, the
 * trace, the counters, the magic.  Returns whether the memory may be
 * given back: a list still points here, never hand it out again.  Reused,
 * its links would be reinitialised under the list (a corrupt, maybe
 * cyclic, LRU) and later touches would look like a live inode.  Kept
 * dead, every later touch is reported and the lists stay walkable.
 */
static bool inode_kill(struct inode *inode, enum site site)
{
	if (!inode_alive(inode, site, "destroys"))
		return false;
	/* Two CPUs freeing one inode at once (a broken scheme) may both
	 * have found it alive: only the one that marks it dead goes on, the
	 * other is reported, or the pool would hand the inode out twice. */
	uint32_t alive = INODE_MAGIC;
	SIM_LINE(&inode->i_magic);
	if (!__atomic_compare_exchange_n(&inode->i_magic, &alive, INODE_FREED, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return inode_alive(inode, site, "destroys");
	bool hashed = !hlist_unhashed(&inode->i_hash), on_sb = inode_on_sb_list(inode);
	bool listed =
		hashed || on_sb || !list_empty(&inode->i_wb_list) || !list_empty(&inode->i_lru);
	if (listed)
		report_violation(VIOL_freed_on_list, -1, -1, site, -1, cpu_id(), -1, inode->i_ino,
				 "%s frees inode %llu in %s while it is still on a list"
				 " (hash %d, sb %d, wb %d, lru %d)",
				 cpu_name(), (unsigned long long)inode->i_ino, site_name(site),
				 hashed, on_sb, !list_empty(&inode->i_wb_list),
				 !list_empty(&inode->i_lru));
	if (inode->i_published)
		trace_inode_free(this_cpu, inode->i_ino, inode->i_sb->s_id, inode->i_lock.life);
	nr_inodes_dec();
	return !listed;
}

void destroy_inode(struct inode *inode, enum site site)
{
	if (inode_kill(inode, site))
		pool_put(inode, cpu_id());
}

/*
 * i_callback: a grace period has passed since destroy_inode_rcu, so no
 * reader that could have found the inode under RCU is still looking.
 * Runs on liburcu's call_rcu thread.
 */
/* Inodes queued by destroy_inode_rcu whose grace period has not ended. */
static atomic_long rcu_pending;

long inodes_rcu_pending(void)
{
	return atomic_load(&rcu_pending);
}

/* Wall time; in virtual mode the running CPU's virtual time, so that a
 * virtual run's trace is the same every time. */
static uint64_t rcu_clock(void)
{
	return sim_virtual_time && this_cpu ? this_cpu->vclock : now_ns();
}

static void i_callback(struct sim_rcu_head *head)
{
	struct inode *inode = container_of(head, struct inode, i_rcu);
	uint64_t now = rcu_clock();

	atomic_fetch_sub(&rcu_pending, 1);
	trace_inode_rcu_freed(inode->i_ino,
			      now > inode->i_rcu_queued_ns ? now - inode->i_rcu_queued_ns : 0,
			      inode->i_lock.life);
	pool_put(inode, inode->i_rcu_cpu);
}

void destroy_inode_rcu(struct inode *inode, enum site site)
{
	uint64_t ino = inode->i_ino;
	bool published = inode->i_published;

	if (!inode_kill(inode, site))
		return;
	if (published)
		trace_inode_rcu_free(this_cpu, ino, inode->i_sb->s_id, site);
	inode->i_rcu_queued_ns = rcu_clock();
	inode->i_rcu_cpu = cpu_id();
	atomic_fetch_add(&rcu_pending, 1);
	sim_call_rcu(&inode->i_rcu, i_callback);
}

/* ---- state -------------------------------------------------------------- */

unsigned inode_state(const struct inode *inode)
{
	return atomic_load_explicit(&inode->i_state, memory_order_acquire);
}

void inode_state_assign(struct inode *inode, unsigned state, enum site site)
{
	if (!inode_alive(inode, site, "changes the state of"))
		return;
	struct sim_lock *l = icache.scheme->state_lock(inode);
	if (l && this_cpu && !sim_lock_held(l)) {
		bool freeing = (state & I_FREEING) && !(inode_state(inode) & I_FREEING);
		report_violation(freeing ? VIOL_freeing_unlocked : VIOL_invariant, l->cls, -1, site,
				 -1, cpu_id(), -1, inode->i_ino,
				 "%s changes i_state of inode %llu in %s%s without "
				 "holding %s",
				 cpu_name(), (unsigned long long)inode->i_ino, site_name(site),
				 freeing ? " (sets I_FREEING)" : "", lock_class_name(l->cls));
	}
	SIM_LINE(&inode->i_state);
	unsigned old = atomic_exchange_explicit(&inode->i_state, state, memory_order_acq_rel);
	if (old != state)
		trace_inode_state(this_cpu, inode->i_ino, inode->i_lock.life, old, state, site);
}

void inode_state_set(struct inode *inode, unsigned flags, enum site site)
{
	inode_state_assign(inode, inode_state(inode) | flags, site);
}

void inode_state_clear(struct inode *inode, unsigned flags, enum site site)
{
	inode_state_assign(inode, inode_state(inode) & ~flags, site);
}

/* ---- references ---------------------------------------------------------- */

void inode_ref_get(struct inode *inode, enum site site)
{
	if (!inode_alive(inode, site, "takes a reference to"))
		return;
	unsigned state = inode_state(inode);
	if (state & (I_FREEING | I_WILL_FREE))
		report_violation(VIOL_walker_took_freeing, -1, -1, site, -1, cpu_id(), -1,
				 inode->i_ino,
				 "%s takes a reference to inode %llu in %s although "
				 "it is marked %s: it belongs to whoever set that flag",
				 cpu_name(), (unsigned long long)inode->i_ino, site_name(site),
				 state & I_FREEING ? "I_FREEING" : "I_WILL_FREE");
	SIM_LINE_RMW(&inode->i_count);
	int old = atomic_fetch_add_explicit(&inode->i_count, 1, memory_order_acq_rel);
	trace_inode_ref(this_cpu, inode->i_ino, inode->i_lock.life, old, old + 1, site);
	/* 0 -> 1 revives an unused inode that the shrinker or an evicting
	 * CPU may be claiming right now: only the lock that guards i_state
	 * orders the two (__iget under i_lock / inode_lock). */
	struct sim_lock *l = icache.scheme->state_lock(inode);
	if (old == 0 && l && this_cpu && !sim_lock_held(l))
		report_violation(VIOL_unlocked_ref, l->cls, -1, site, -1, cpu_id(), -1,
				 inode->i_ino,
				 "%s takes the first reference to unused inode %llu in %s "
				 "without holding %s",
				 cpu_name(), (unsigned long long)inode->i_ino, site_name(site),
				 lock_class_name(l->cls));
}

int inode_ref_put(struct inode *inode, enum site site)
{
	SIM_LINE_RMW(&inode->i_count);
	int old = atomic_fetch_sub_explicit(&inode->i_count, 1, memory_order_acq_rel);
	trace_inode_ref(this_cpu, inode->i_ino, inode->i_lock.life, old, old - 1, site);
	if (old <= 0)
		report_violation(VIOL_invariant, -1, -1, site, -1, cpu_id(), -1, inode->i_ino,
				 "%s drops a reference to inode %llu in %s that it "
				 "does not have (count was %d)",
				 cpu_name(), (unsigned long long)inode->i_ino, site_name(site),
				 old);
	return old - 1;
}

bool inode_ref_put_unless_last(struct inode *inode, enum site site)
{
	int old = atomic_load_explicit(&inode->i_count, memory_order_relaxed);

	if (!inode_alive(inode, site, "drops a reference to"))
		return true;
	/* Not the last reference: no lock needed. */
	if (old > 1)
		SIM_LINE_RMW(&inode->i_count);
	while (old > 1) {
		if (atomic_compare_exchange_weak_explicit(&inode->i_count, &old, old - 1,
							  memory_order_acq_rel,
							  memory_order_relaxed)) {
			trace_inode_ref(this_cpu, inode->i_ino, inode->i_lock.life, old, old - 1,
					site);
			return true;
		}
	}
	return false;
}

bool inode_ref_put_and_lock(struct inode *inode, struct sim_lock *l, enum site site)
{
	if (inode_ref_put_unless_last(inode, site))
		return false;
	sim_spin_lock(l, site);
	if (inode_ref_put(inode, site) == 0)
		return true;
	sim_spin_unlock(l, site);
	return false;
}

void inode_drop_nlink(struct inode *inode, enum site site)
{
	if (!inode_alive(inode, site, "unlinks"))
		return;
	unsigned old = atomic_load(&inode->i_nlink);
	SIM_LINE(&inode->i_nlink);
	while (old > 0 && !atomic_compare_exchange_weak(&inode->i_nlink, &old, old - 1))
		;
	if (old > 0)
		trace_inode_nlink(this_cpu, inode->i_ino, inode->i_lock.life, old - 1);
}

/* ---- the hash -------------------------------------------------------------- */

struct hash_bucket *inode_hash_bucket(struct super_block *sb, uint64_t ino)
{
	uint64_t h = ino * 0x9e3779b97f4a7c15ull ^ ((uint64_t)sb->s_id << 17);
	h ^= h >> 29;
	return &icache.hash[h & (((uint64_t)1 << icache.hash_bits) - 1)];
}

bool inode_hashed(const struct inode *inode)
{
	return atomic_load_explicit(&inode->i_hashed, memory_order_relaxed);
}

/* A live (not being freed) inode of the same (sb, ino) on b, other than
 * inode: the hash holds at most one. */
static struct inode *hash_live_twin(struct hash_bucket *b, const struct inode *inode)
{
	struct hlist_node *n;
	hlist_for_each(n, &b->head) {
		struct inode *o = container_of(n, struct inode, i_hash);
		if (o != inode && o->i_ino == inode->i_ino && o->i_sb == inode->i_sb &&
		    !(inode_state(o) & (I_FREEING | I_WILL_FREE)))
			return o;
	}
	return NULL;
}

/* i_hashed follows the hash, written under the hash's lock, for
 * inode_hashed() that reads it without (the kernel's hlist_unhashed). */
static void set_hashed(struct inode *inode, bool hashed, enum site site)
{
	SIM_LINE(&inode->i_hashed);
	atomic_store_explicit(&inode->i_hashed, hashed, memory_order_relaxed);
	list_event(inode, LIST_hash, hashed ? LACT_add : LACT_del, site);
}

void inode_hash_add(struct inode *inode, enum site site)
{
	assert_list_lock(LIST_hash, inode, site, "the hash");
	if (!alive_for_list(inode, LIST_hash, site) || inode_hashed(inode))
		return;
	struct hash_bucket *b = inode_hash_bucket(inode->i_sb, inode->i_ino);
	/* insert_inode_hash trusts its caller, as in the kernel: a number the
	 * filesystem picked (get_next_ino) is the filesystem's to keep unique
	 * (scenarios number creates and igets from 1 alike).  The iget paths
	 * must look under the lock before they hash: there a twin is a bug. */
	if (site != SITE_insert_inode_hash && hash_live_twin(b, inode))
		report_violation(VIOL_duplicate_inode, -1, -1, site, -1, cpu_id(), -1, inode->i_ino,
				 "%s hashes a second live inode for (sb %u, ino %llu) in %s: "
				 "lookups will find either one",
				 cpu_name(), inode->i_sb->s_id, (unsigned long long)inode->i_ino,
				 site_name(site));
	hlist_add_head_rcu(&inode->i_hash, &b->head);
	set_hashed(inode, true, site);
}

void inode_hash_del(struct inode *inode, enum site site)
{
	assert_list_lock(LIST_hash, inode, site, "the hash");
	if (!inode_alive(inode, site, "unhashes") || !inode_hashed(inode))
		return;
	hlist_del_init_rcu(&inode->i_hash);
	set_hashed(inode, false, site);
}

struct inode *hash_chain_next(struct hash_bucket *b, struct super_block *sb, uint64_t ino,
			      struct inode *after)
{
	struct hlist_node *n = after ? after->i_hash.next : b->head.first;

	for (; n; n = n->next) {
		struct inode *inode = container_of(n, struct inode, i_hash);
		if (inode->i_ino == ino && inode->i_sb == sb)
			return inode;
	}
	return NULL;
}

struct inode *hash_chain_next_rcu(struct hash_bucket *b, struct super_block *sb, uint64_t ino,
				  struct inode *after)
{
	struct hlist_node *n = after ? rcu_next(after->i_hash.next) : rcu_next(b->head.first);

	if (!sim_rcu_read_lock_held() && this_cpu)
		report_violation(VIOL_invariant, -1, -1, SITE_unknown, -1, cpu_id(), -1, ino,
				 "%s walks a hash chain without the chain's lock and "
				 "outside rcu_read_lock()",
				 cpu_name());
	for (; n; n = rcu_next(n->next)) {
		struct inode *inode = container_of(n, struct inode, i_hash);
		if (inode->i_ino == ino && inode->i_sb == sb)
			return inode;
	}
	return NULL;
}

/* The first: hash_chain_next from the chain's head. */
struct inode *hash_chain_find(struct hash_bucket *b, struct super_block *sb, uint64_t ino)
{
	return hash_chain_next(b, sb, ino, NULL);
}

bool hash_chain_has(struct hash_bucket *b, struct super_block *sb, uint64_t ino)
{
	return hash_chain_find(b, sb, ino) != NULL;
}

/* ---- superblock lists ------------------------------------------------------ */

bool inode_on_sb_list(const struct inode *inode)
{
	return list_on_rcu(&inode->i_sb_list);
}

struct inode *sb_list_next_rcu(struct super_block *sb, struct inode *after)
{
	struct list_head *n = after ? rcu_next(after->i_sb_list.next) : rcu_next(sb->s_inodes.next);

	if (!sim_rcu_read_lock_held() && this_cpu)
		report_violation(VIOL_invariant, -1, -1, SITE_unknown, -1, cpu_id(), -1, 0,
				 "%s walks sb->s_inodes without the list's lock and "
				 "outside rcu_read_lock()",
				 cpu_name());
	return n == &sb->s_inodes ? NULL : list_entry(n, struct inode, i_sb_list);
}

/* s_nr_inodes, the length of s_inodes (for umount), follows the list
 * under its lock: inode joined it (+1) or left it (-1). */
static void count_sb_inodes(struct inode *inode, long n, enum site site)
{
	SIM_LINE(&inode->i_sb->s_nr_inodes);
	atomic_fetch_add(&inode->i_sb->s_nr_inodes, n);
	list_event(inode, LIST_sb, n > 0 ? LACT_add : LACT_del, site);
}

void inode_sb_list_add(struct inode *inode, enum site site)
{
	assert_list_lock(LIST_sb, inode, site, "sb->s_inodes");
	if (!alive_for_list(inode, LIST_sb, site) || inode_on_sb_list(inode))
		return;
	list_add_rcu(&inode->i_sb_list, &inode->i_sb->s_inodes);
	count_sb_inodes(inode, +1, site);
}

void inode_sb_list_del(struct inode *inode, enum site site)
{
	assert_list_lock(LIST_sb, inode, site, "sb->s_inodes");
	if (!inode_alive(inode, site, "removes from s_inodes") || !inode_on_sb_list(inode))
		return;
	list_del_rcu(&inode->i_sb_list);
	count_sb_inodes(inode, -1, site);
}

void inode_sb_dispose_add(struct inode *inode, struct list_head *dispose, enum site site)
{
	assert_list_lock(LIST_sb, inode, site, "sb->s_inodes");
	if (!inode_alive(inode, site, "moves to a dispose list") || !inode_on_sb_list(inode))
		return;
	/* Not for RCU-walked lists: a walker on this inode would follow it
	 * onto the dispose list.  V4, the only user, has no such walker. */
	list_move(&inode->i_sb_list, dispose);
	count_sb_inodes(inode, -1, site);
	list_event(inode, LIST_sb_dispose, LACT_add, site);
}

struct inode *inode_sb_dispose_pop(struct list_head *dispose, enum site site)
{
	struct inode *inode = list_first_entry_or_null(dispose, struct inode, i_sb_list);
	if (inode) {
		list_del_init(&inode->i_sb_list);
		list_event(inode, LIST_sb_dispose, LACT_del, site);
	}
	return inode;
}

/* ---- the LRU (and 2.6.36's in-use list, which shares the link) ------------- */

bool inode_on_lru(const struct inode *inode)
{
	return inode->i_lru_on == LIST_lru;
}

/*
 * nr_unused follows the LRU in 2.6.37 on, per CPU (percpu_counter) or as
 * one counter under the LRU lock; 2.6.36's scheme counts it itself.
 */
void lru_count(long delta)
{
	switch (icache.scheme->counters) {
	case COUNTERS_2636:
		return;
	case COUNTERS_PERCPU:
		if (this_cpu) {
			atomic_fetch_add_explicit(&this_cpu->nr_unused, delta,
						  memory_order_relaxed);
			return;
		}
		break; /* no CPU (set-up): the shared part of the counter */
	case COUNTERS_LRU:
		break;
	}
	SIM_LINE(&icache.nr_unused);
	atomic_fetch_add_explicit(&icache.nr_unused, delta, memory_order_relaxed);
}

void inode_lru_add(struct inode *inode, enum site site)
{
	assert_list_lock(LIST_lru, inode, site, "the LRU");
	if (!alive_for_list(inode, LIST_lru, site))
		return;
	if (inode->i_lru_on == LIST_lru)
		return;
	/*
	 * 2.6.39's inode_lru_list_add does nothing when i_lru is in use: an
	 * inode on a private dispose list belongs to whoever is freeing it,
	 * and taking it back would lose it from that list.
	 */
	if (inode->i_lru_on == LIST_dispose)
		return;
	enum list_action act = LACT_add;
	if (!list_empty(&inode->i_lru)) {
		/* 2.6.36: moving from inode_in_use to inode_unused. */
		if (inode->i_lru_on == LIST_in_use)
			list_event(inode, LIST_in_use, LACT_del, site);
		list_del_init(&inode->i_lru);
	}
	list_add(&inode->i_lru, &icache.inode_lru);
	inode->i_lru_on = LIST_lru;
	lru_count(1);
	list_event(inode, LIST_lru, act, site);
}

void inode_lru_del(struct inode *inode, enum site site)
{
	assert_list_lock(LIST_lru, inode, site, "the LRU");
	if (!inode_alive(inode, site, "removes from the LRU") || inode->i_lru_on != LIST_lru)
		return;
	list_del_init(&inode->i_lru);
	inode->i_lru_on = (enum inode_list_id) - 1;
	lru_count(-1);
	list_event(inode, LIST_lru, LACT_del, site);
}

void inode_lru_rotate(struct inode *inode, enum site site)
{
	assert_list_lock(LIST_lru, inode, site, "the LRU");
	if (!inode_alive(inode, site, "rotates") || inode->i_lru_on != LIST_lru)
		return;
	list_move(&inode->i_lru, &icache.inode_lru);
	list_event(inode, LIST_lru, LACT_rotate, site);
}

struct inode *inode_lru_youngest(void)
{
	if (list_empty(&icache.inode_lru))
		return NULL;
	return list_first_entry(&icache.inode_lru, struct inode, i_lru);
}

struct inode *inode_lru_oldest(void)
{
	if (list_empty(&icache.inode_lru))
		return NULL;
	return list_last_entry(&icache.inode_lru, struct inode, i_lru);
}

void inode_in_use_add(struct inode *inode, enum site site)
{
	assert_list_lock(LIST_in_use, inode, site, "inode_in_use");
	if (!alive_for_list(inode, LIST_in_use, site) || inode->i_lru_on == LIST_in_use)
		return;
	if (inode->i_lru_on == LIST_lru)
		inode_lru_del(inode, site);
	list_add(&inode->i_lru, &icache.inode_in_use);
	inode->i_lru_on = LIST_in_use;
	list_event(inode, LIST_in_use, LACT_add, site);
}

void inode_in_use_del(struct inode *inode, enum site site)
{
	assert_list_lock(LIST_in_use, inode, site, "inode_in_use");
	if (!inode_alive(inode, site, "removes from inode_in_use") ||
	    inode->i_lru_on != LIST_in_use)
		return;
	list_del_init(&inode->i_lru);
	inode->i_lru_on = (enum inode_list_id) - 1;
	list_event(inode, LIST_in_use, LACT_del, site);
}

void inode_dispose_add(struct inode *inode, struct list_head *dispose, enum site site)
{
	if (!alive_for_list(inode, LIST_dispose, site))
		return;
	if (inode->i_lru_on == LIST_lru)
		inode_lru_del(inode, site);
	else if (!list_empty(&inode->i_lru)) {
		if (inode->i_lru_on == LIST_in_use) {
			assert_list_lock(LIST_in_use, inode, site, "inode_in_use");
			list_event(inode, LIST_in_use, LACT_del, site);
		}
		list_del_init(&inode->i_lru);
	}
	list_add(&inode->i_lru, dispose);
	inode->i_lru_on = LIST_dispose;
	list_event(inode, LIST_dispose, LACT_add, site);
}

struct inode *inode_dispose_pop(struct list_head *dispose, enum site site)
{
	struct inode *inode = list_first_entry_or_null(dispose, struct inode, i_lru);
	if (inode) {
		list_del_init(&inode->i_lru);
		inode->i_lru_on = (enum inode_list_id) - 1;
		list_event(inode, LIST_dispose, LACT_del, site);
	}
	return inode;
}

/* ---- writeback lists --------------------------------------------------------- */

static struct list_head *wb_list_head(struct bdi_writeback *wb, enum inode_list_id id)
{
	switch (id) {
	case LIST_b_dirty:
		return &wb->b_dirty;
	case LIST_b_io:
		return &wb->b_io;
	default:
		return &wb->b_more_io;
	}
}

bool inode_on_wb(const struct inode *inode)
{
	return !list_empty(&inode->i_wb_list);
}

void inode_wb_move(struct inode *inode, struct bdi_writeback *wb, enum inode_list_id to,
		   enum site site)
{
	assert_list_lock(to, inode, site, "the writeback lists");
	if (!alive_for_list(inode, to, site))
		return;
	bool was_on = inode_on_wb(inode);
	if (was_on)
		list_event(inode, inode->i_wb_on, LACT_del, site);
	list_move(&inode->i_wb_list, wb_list_head(wb, to));
	SIM_LINE(&inode->i_wb_on);
	inode->i_wb_on = to;
	list_event(inode, to, LACT_add, site);
}

void inode_wb_del(struct inode *inode, enum site site)
{
	if (!inode_on_wb(inode))
		return;
	assert_list_lock(inode->i_wb_on, inode, site, "the writeback lists");
	if (!inode_alive(inode, site, "removes from a writeback list"))
		return;
	list_event(inode, inode->i_wb_on, LACT_del, site);
	list_del_init(&inode->i_wb_list);
	inode->i_wb_on = (enum inode_list_id) - 1;
}

void inode_wb_dirty(struct inode *inode, struct bdi_writeback *wb, enum site site)
{
	SIM_LINE(&inode->dirtied_when);
	inode->dirtied_when = now_ns();
	inode_wb_move(inode, wb, LIST_b_dirty, site);
}

void wb_redirty_tail(struct inode *inode, struct bdi_writeback *wb, enum site site)
{
	if (!list_empty(&wb->b_dirty)) {
		struct inode *tail = list_first_entry(&wb->b_dirty, struct inode, i_wb_list);
		if (inode->dirtied_when < tail->dirtied_when) {
			SIM_LINE(&inode->dirtied_when);
			inode->dirtied_when = now_ns();
		}
	}
	inode_wb_move(inode, wb, LIST_b_dirty, site);
}

/*
 * queue_io: b_more_io is spliced onto b_io first, then the expired part
 * of b_dirty (move_expired_inodes), oldest first, so the flusher (which
 * takes from b_io's tail) writes what was left on b_io, then b_more_io,
 * then b_dirty from its oldest.  Simplified: every b_dirty inode counts
 * as expired (older_than_this NULL: a sync or background pass, not
 * kupdate's 30 s), and with one bdi per run there is no per-sb sort.
 */
void wb_queue_io(struct bdi_writeback *wb, enum site site)
{
	struct inode *inode;
	while (!list_empty(&wb->b_more_io)) {
		inode = list_last_entry(&wb->b_more_io, struct inode, i_wb_list);
		inode_wb_move(inode, wb, LIST_b_io, site);
	}
	while (!list_empty(&wb->b_dirty)) {
		inode = list_last_entry(&wb->b_dirty, struct inode, i_wb_list);
		inode_wb_move(inode, wb, LIST_b_io, site);
	}
}

struct inode *wb_io_oldest(struct bdi_writeback *wb)
{
	if (list_empty(&wb->b_io))
		return NULL;
	return list_last_entry(&wb->b_io, struct inode, i_wb_list);
}

/* ---- inode numbers --------------------------------------------------------------- */

#define LAST_INO_BATCH 1024

uint64_t get_next_ino_percpu(void)
{
	struct sim_cpu *c = this_cpu;
	uint64_t res = c->last_ino;

	if ((res & (LAST_INO_BATCH - 1)) == 0) {
		/* Start of a fresh batch; ++res below skips its first number,
		 * so 0 is never handed out. */
		SIM_LINE_RMW(&icache.shared_last_ino);
		res = atomic_fetch_add(&icache.shared_last_ino, LAST_INO_BATCH);
	}
	c->last_ino = ++res;
	return res;
}

/* 2.6.36's last_ino: one shared counter, under the scheme's lock. */
uint64_t last_ino_next(void)
{
	SIM_LINE(&icache.last_ino);
	return ++icache.last_ino;
}

/* ---- counters ------------------------------------------------------------------ */

/* nr_inodes is per-CPU: each CPU writes only its own share. */
void nr_inodes_inc(void)
{
	if (this_cpu)
		this_cpu->nr_inodes++;
}

void nr_inodes_dec(void)
{
	if (this_cpu)
		this_cpu->nr_inodes--;
}

long get_nr_inodes(void)
{
	long sum = 0;
	for (int i = 0; i < icache.ncpus; i++)
		sum += icache.cpus[i]->nr_inodes;
	return sum < 0 ? 0 : sum;
}

long get_nr_unused(void)
{
	long sum = atomic_load_explicit(&icache.nr_unused, memory_order_relaxed);

	if (icache.scheme && icache.scheme->counters == COUNTERS_PERCPU) {
		/* percpu_counter_sum_positive: every CPU's share. */
		for (int i = 0; i < icache.ncpus; i++)
			sum += atomic_load_explicit(&icache.cpus[i]->nr_unused,
						    memory_order_relaxed);
		return sum < 0 ? 0 : sum;
	}
	return sum;
}

/* Kept atomic (relaxed): 2.6.36's shrinker read the int with no lock. */
void nr_unused_add(long delta)
{
	assert_lock_held(&icache.inode_lock, SITE_unknown, "nr_unused", NULL);
	SIM_LINE(&icache.nr_unused);
	atomic_fetch_add_explicit(&icache.nr_unused, delta, memory_order_relaxed);
}

/* ---- an inode's page cache ------------------------------------------------------ */

void inode_add_pages(struct inode *inode, long n, enum site site)
{
	if (!inode_alive(inode, site, "adds pages to") || n <= 0)
		return;
	SIM_LINE(&inode->i_nrpages);
	long old = atomic_fetch_add(&inode->i_nrpages, n);
	trace_inode_pages(this_cpu, inode->i_ino, old, old + n, site);
}

long invalidate_mapping_pages(struct inode *inode, enum site site)
{
	if (!inode_alive(inode, site, "invalidates the pages of"))
		return 0;
	if (inode_nrpages(inode))
		SIM_LINE(&inode->i_nrpages);
	long old = atomic_exchange(&inode->i_nrpages, 0);
	if (old)
		trace_inode_pages(this_cpu, inode->i_ino, old, 0, site);
	return old;
}

void truncate_inode_pages(struct inode *inode, enum site site)
{
	invalidate_mapping_pages(inode, site);
}

bool can_unuse(const struct inode *inode)
{
	return !(inode_state(inode) & ~I_REFERENCED) && atomic_load(&inode->i_count) == 0 &&
	       inode_nrpages(inode) == 0;
}

/* ---- the shrinker --------------------------------------------------------------- */

long shrink_icache_memory(long nr, unsigned gfp_mask)
{
	if (nr) {
		/* "Nasty deadlock avoidance": the caller may hold fs locks. */
		if (!(gfp_mask & __GFP_FS))
			return -1;
		icache.scheme->prune_icache(nr);
	}
	return (get_nr_unused() / 100) * icache.vfs_cache_pressure;
}

/* ---- waiting on an inode --------------------------------------------------------- */

#define WAIT_TABLE 64

struct wait_slot {
	pthread_mutex_t m;
	pthread_cond_t c;
	uint64_t seq;
};

static struct wait_slot wait_table[WAIT_TABLE];
static pthread_once_t wait_once = PTHREAD_ONCE_INIT;

static void wait_table_init(void)
{
	for (int i = 0; i < WAIT_TABLE; i++) {
		pthread_mutex_init(&wait_table[i].m, NULL);
		pthread_cond_init(&wait_table[i].c, NULL);
	}
}

/*
 * Slots are picked by inode number, not address, so that which inodes
 * share a slot (and wake each other spuriously) is the same in every run:
 * scenario mode replays a schedule exactly.
 */
static struct wait_slot *wait_slot(const struct inode *inode)
{
	pthread_once(&wait_once, wait_table_init);
	uint64_t h = inode->i_ino * 0x9e3779b97f4a7c15ull ^ inode->i_sb->s_id;
	return &wait_table[(h >> 32) % WAIT_TABLE];
}

uint64_t wait_inode_prepare(struct inode *inode)
{
	return atomic_load_explicit(&inode->i_wakes, memory_order_acquire);
}

/*
 * Free-running mode: no legitimate sleep on an inode lasts as long as the
 * watchdog's limit (the waker holds no lock across it), so a sleeper still
 * unwoken then was missed: a state change without its wake_up_inode().
 * Reported, then the sleeper goes on as if woken (the caller looks at the
 * state again).  Written before the CPUs start.
 */
static uint64_t missed_wakeup_ns = 5ull * 1000000000ull;

void set_missed_wakeup_ns(uint64_t ns)
{
	missed_wakeup_ns = ns;
}

static void report_missed_wakeup(struct inode *inode, enum site site)
{
	report_violation(VIOL_missed_wakeup, -1, -1, site, -1, cpu_id(), -1, inode->i_ino,
			 "missed wakeup: %s sleeps on inode %llu in %s and nobody "
			 "woke it in %.1f s (i_state 0x%x, count %d%s)",
			 cpu_name(), (unsigned long long)inode->i_ino, site_name(site),
			 (double)missed_wakeup_ns / 1e9, inode_state(inode),
			 atomic_load(&inode->i_count),
			 inode->i_magic == INODE_MAGIC ? "" : ", freed");
}

void wait_inode_token(struct inode *inode, uint64_t token, enum site site)
{
	struct wait_slot *w = wait_slot(inode);

	/* A sleeper inside rcu_read_lock() holds up every grace period,
	 * and with it the freeing of every inode evicted meanwhile. */
	if (sim_rcu_read_lock_held())
		report_violation(VIOL_rcu_sleep, -1, -1, site, -1, cpu_id(), -1, inode->i_ino,
				 "%s sleeps on inode %llu in %s inside an RCU read-side "
				 "section",
				 cpu_name(), (unsigned long long)inode->i_ino, site_name(site));

	if (wait_inode_prepare(inode) != token)
		return; /* woken already: no sleep */
	trace_inode_wait(this_cpu, inode->i_ino, inode_state(inode), site);
	if (sim_sched) {
		/* Only one CPU runs at a time: if nobody woke the inode since
		 * the token was taken, nobody will before we park. */
		sim_sched->wait(this_cpu, inode->i_ino, site);
		trace_inode_wait_end(this_cpu, inode->i_ino, true, site);
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(missed_wakeup_ns / 1000000000ull);
	ts.tv_nsec += (long)(missed_wakeup_ns % 1000000000ull);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	bool missed = false;
	pthread_mutex_lock(&w->m);
	while (wait_inode_prepare(inode) == token && !missed)
		missed = pthread_cond_timedwait(&w->c, &w->m, &ts) == ETIMEDOUT &&
			 wait_inode_prepare(inode) == token;
	pthread_mutex_unlock(&w->m);
	trace_inode_wait_end(this_cpu, inode->i_ino, !missed, site);
	if (missed)
		report_missed_wakeup(inode, site);
}

void wake_up_inode(struct inode *inode)
{
	struct wait_slot *w = wait_slot(inode);
	/* The slot's mutex and sequence: a table every CPU's wakes share. */
	SIM_LINE(&w->m);
	pthread_mutex_lock(&w->m);
	SIM_LINE(&inode->i_wakes);
	atomic_fetch_add_explicit(&inode->i_wakes, 1, memory_order_acq_rel);
	w->seq++;
	pthread_cond_broadcast(&w->c);
	pthread_mutex_unlock(&w->m);
	if (sim_sched)
		sim_sched->wake(this_cpu, inode->i_ino);
}

void wait_on_inode(struct inode *inode)
{
	SITE(wait_on_inode);
	while (inode_state(inode) & I_NEW) {
		uint64_t token = wait_inode_prepare(inode);
		if (!(inode_state(inode) & I_NEW))
			break;
		wait_inode_token(inode, token, __site);
	}
}

/* ---- umount ----------------------------------------------------------- */

/*
 * Inodes of sb still in the cache that nobody holds a reference to.  One
 * that is referenced would have kept the mount busy: umount fails with
 * EBUSY long before generic_shutdown_super, which we do not model (the
 * explorer's programs may unmount a sb another CPU still uses), so only
 * unreferenced ones count: those are the ones umount should have freed.
 */
static long sb_unused_left(struct super_block *sb, uint64_t *first)
{
	/* The schemes name a list's lock from an inode on it; a probe that
	 * points at sb stands for any inode of sb. */
	struct inode probe = { .i_sb = sb };
	struct sim_lock *l = icache.scheme->list_lock(LIST_sb, &probe);
	struct list_head *pos;
	long n = 0;
	SITE(generic_shutdown_super);

	spin_lock(l);
	list_for_each(pos, &sb->s_inodes) {
		struct inode *inode = list_entry(pos, struct inode, i_sb_list);
		if (atomic_load(&inode->i_count) == 0 && n++ == 0)
			*first = inode->i_ino;
	}
	spin_unlock(l);
	return n;
}

long generic_shutdown_super(struct super_block *sb)
{
	SITE(generic_shutdown_super);
	long freed, left;
	uint64_t first = 0; /* the report names one of them: a trace reader
			     * finds the violation in that inode's life */

	/* deactivate_locked_super holds s_umount for write: one umount of
	 * a sb at a time. */
	down_write(&sb->s_umount);
	atomic_fetch_and(&sb->s_flags, ~MS_ACTIVE);
	freed = icache.scheme->evict_inodes(sb);
	left = sb_unused_left(sb, &first);
	up_write(&sb->s_umount);
	if (left)
		report_violation(VIOL_busy_inodes, -1, -1, SITE_generic_shutdown_super, -1,
				 cpu_id(), -1, first,
				 "VFS: Busy inodes after unmount of sb %u: %s "
				 "returns from umount with %ld unused inode%s of it "
				 "still in the cache (inode %llu first)",
				 sb->s_id, cpu_name(), left, left == 1 ? "" : "s",
				 (unsigned long long)first);
	return freed;
}
