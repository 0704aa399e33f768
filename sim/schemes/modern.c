/*
 * modern.c - the inode cache of today's kernel, fifteen years after 2.6.39.
 *
 * Read from torvalds/linux as the project's source store holds it, not from
 * memory: fs/inode.c at commit 003a6607304d (a mainline tree after v6.18:
 * it has the inode_state_read() accessors), mm/list_lru.c at 0057db47f878
 * (the per-node list_lru_node lock of v6.8..v6.12), fs/super.c at
 * 0084fefe2960 (super_cache_scan and trylock_super), and the i_state bits'
 * meanings from include/linux/fs.h at 0000ff2523df.  The store holds no
 * single tagged release: docs/sources.md says which file came from where.
 *
 * The merged order of 2.6.39 survived; what changed is how much each lock
 * covers.  No lock is global any more except inode_hash_lock, and lookups
 * avoid that one.
 *
 * What each lock protects (the release's own rules, in our words):
 *   inode->i_lock            i_state, i_hash (with inode_hash_lock), the
 *                            0 -> 1 reference grab (__iget), and i_io_list
 *                            (with wb->list_lock, since b35250c0816c,
 *                            "writeback: Protect inode->i_io_list with
 *                            inode->i_lock")
 *   list_lru node locks      one per NUMA node of each sb's s_inode_lru:
 *                            that node's list, its count, i_lru
 *   sb->s_inode_list_lock    sb->s_inodes, i_sb_list (one lock per sb)
 *   wb->list_lock            the bdi_writeback's b_dirty / b_io / b_more_io
 *                            and i_io_list (one lock per wb)
 *   inode_hash_lock          the hash table, i_hash
 *   iunique_lock             the iunique counter
 *   sb->s_umount             (a sleeping rw-lock) umount holds it for write;
 *                            the shrinker only trylocks it for read
 *
 * Lock order (outer first), as fs/inode.c states it:
 *   iunique_lock
 *     inode_hash_lock
 *       sb->s_inode_list_lock
 *         inode->i_lock
 *           list_lru node lock
 *   wb->list_lock
 *     inode->i_lock
 *
 * iprune_sem is gone.  The shrinker is per superblock (super_cache_scan)
 * and runs only with sb->s_umount held for read, taken by trylock; umount
 * holds it for write from before evict_inodes until the sb is dead, so a
 * scan either finished (its dispose list freed) before umount began, or
 * never starts.
 *
 * The LRU walker holds a node lock and needs i_lock, against the order: it
 * trylocks, and on failure skips the inode (LRU_SKIP) instead of rotating
 * it as 2.6.39 did.
 *
 * The handoff is 2.6.39's: whoever sets I_FREEING (or I_WILL_FREE) under
 * i_lock owns the inode.  New: I_LRU_ISOLATING pins an inode whose pages
 * the shrinker strips with every lock dropped; evict waits for it to clear.
 * The flusher no longer takes a reference: I_SYNC pins the inode, and evict
 * waits for I_SYNC too.
 *
 * Newer i_state bits on these paths, each under i_lock:
 *   I_CREATING   insert_inode_locked hashes a new inode with I_NEW and
 *                I_CREATING; a lookup that meets it fails (-ESTALE)
 *                instead of waiting, and a second insert gets -EBUSY at
 *                once; unlock_new_inode clears both.  insert_inode_locked4
 *                sets it before inode_insert5 hashes the inode (iget5's
 *                test callback is a number compare here).
 *   I_DONTCACHE  d_mark_dontcache: the last iput evicts the inode, through
 *                I_WILL_FREE and a write, instead of caching it.
 *   I_DIRTY_TIME lazytime: only the timestamps are dirty.  Such an inode
 *                stays off the LRU; iput dirties it for real (I_DIRTY_SYNC,
 *                which clears the bit) before it drops the last reference.
 *
 * RCU: lookups (iget_locked, ilookup) walk the hash chain under
 * rcu_read_lock() alone and take only the found inode's i_lock; an inode
 * that is I_FREEING or I_WILL_FREE is waited for outside the read
 * section, then the walk starts again.  inode_hash_lock is taken only to
 * insert (a miss looks again under it before hashing its new inode) and
 * to unhash.  Evicted inodes are freed after a grace period (call_rcu),
 * so a reader may still stand on one: it checks under i_lock.
 *
 * Simplified (tests/fidelity/ holds the paths step by step):
 *   - clear_inode's I_FREEING|I_CLEAR store takes i_lock (the release does
 *     it unlocked); the core's state checker wants every change locked.
 *     So does insert_inode_locked4's I_CREATING store.
 *   - d_mark_dontcache marks no dentries (there is no dcache here).
 *   - the page cache is a count of clean pages (no buffers, no dirty
 *     pages left after writeback), see i_nrpages in icache.h.
 *   - mapping_shrinkable() is always true, as on a CONFIG_HIGHMEM kernel:
 *     an inode with pages stays on the LRU and the shrinker strips them
 *     (a 64-bit kernel drops it from the LRU until its last page goes).
 *   - every sb shares the core's one backing device, so wb->list_lock is
 *     one lock here (the kernel has one per device, and per cgroup wb).
 *   - no memcg or cgroup writeback.
 *   - the workloads set none of I_CREATING, I_DONTCACHE, I_DIRTY_TIME (they
 *     create with insert_inode_hash); scenarios do: insert-locked,
 *     dontcache, mark-dirty INO time (lessons/scenarios/modern-*.scn).
 *   - wb->b_dirty_time is not modelled: an inode with only I_DIRTY_TIME is
 *     on no writeback list, and a write leaves the bit for iput to turn
 *     into I_DIRTY_SYNC (the kernel writes expired or WB_SYNC_ALL ones).
 *   - wait_on_new_inode tests I_NEW under i_lock; the core's wait_on_inode
 *     tests it with no lock, as 2.6.39's wait_on_inode did.
 */
#include "sim/core/scheme.h"

static void evict(struct inode *inode);
static void iput(struct inode *inode);

/* ---- which lock guards what (the core checks these) ------------------- */

static struct sim_lock *state_lock(struct inode *inode)
{
	return &inode->i_lock;
}

static struct sim_lock *list_lock(enum inode_list_id list, struct inode *inode)
{
	switch (list) {
	case LIST_hash:
		return &icache.hash_lock;
	case LIST_sb:
		return &inode->i_sb->s_inode_list_lock;
	case LIST_lru:
		return &list_lru_node_of(&inode->i_sb->s_inode_lru, inode)->lock;
	case LIST_b_dirty:
	case LIST_b_io:
	case LIST_b_more_io:
		return &inode->i_sb->s_bdi->list_lock;
	default:
		return NULL; /* private dispose lists need no lock */
	}
}

/* ---- allocation and the hash ------------------------------------------- */

static uint64_t get_next_ino(void)
{
	return get_next_ino_percpu();
}

/* inode_sb_list_add: the sb's own lock, not a global one. */
static void sb_inode_list_add(struct inode *inode)
{
	SITE(inode_sb_list_add);
	struct super_block *sb = inode->i_sb;

	spin_lock(&sb->s_inode_list_lock);
	inode_sb_list_add(inode, __site);
	spin_unlock(&sb->s_inode_list_lock);
}

/*
 * new_inode: a fresh inode on its sb list, not hashed.  2.6.39 stored
 * i_state = 0 under i_lock here; today inode_init_always stores it with no
 * lock (alloc_inode did), as nobody else can see the inode yet.
 */
static struct inode *new_inode(struct super_block *sb, uint64_t ino)
{
	/* The filesystem numbers it: from its disk, or get_next_ino(). */
	struct inode *inode = alloc_inode(sb, ino ? ino : get_next_ino());

	inode_publish(inode);
	sb_inode_list_add(inode);
	return inode;
}

static void insert_inode_hash(struct inode *inode)
{
	SITE(insert_inode_hash);
	spin_lock(&icache.hash_lock);
	spin_lock(&inode->i_lock);
	inode_hash_add(inode, __site);
	spin_unlock(&inode->i_lock);
	spin_unlock(&icache.hash_lock);
}

/*
 * insert_inode_locked: hash a new inode with I_NEW and I_CREATING, unless
 * a live inode of that number is hashed.  One still being created
 * (I_CREATING) means -EBUSY at once; else wait for it to be set up, and
 * if it is still hashed, give up with -EBUSY; if it went away, try again.
 */
static int insert_inode_locked(struct inode *inode)
{
	SITE(insert_inode_locked);
	struct super_block *sb = inode->i_sb;
	struct hash_bucket *b = inode_hash_bucket(sb, inode->i_ino);
	struct inode *old;

	for (;;) {
		spin_lock(&icache.hash_lock);
		for (old = hash_chain_next(b, sb, inode->i_ino, NULL); old;
		     old = hash_chain_next(b, sb, inode->i_ino, old)) {
			spin_lock(&old->i_lock);
			if (!(inode_state(old) & (I_FREEING | I_WILL_FREE)))
				break;
			spin_unlock(&old->i_lock);
		}
		if (!old) {
			spin_lock(&inode->i_lock);
			inode_state_set(inode, I_NEW | I_CREATING, __site);
			inode_hash_add(inode, __site);
			spin_unlock(&inode->i_lock);
			spin_unlock(&icache.hash_lock);
			return 0;
		}
		if (inode_state(old) & I_CREATING) {
			spin_unlock(&old->i_lock);
			spin_unlock(&icache.hash_lock);
			return -EBUSY;
		}
		inode_ref_get(old, __site);
		spin_unlock(&old->i_lock);
		spin_unlock(&icache.hash_lock);
		wait_on_inode(old);
		bool busy = inode_hashed(old);
		iput(old);
		if (busy)
			return -EBUSY;
	}
}

/*
 * __wait_on_freeing_inode: called inside rcu_read_lock(), with i_lock held
 * on an inode that is being freed (and inode_hash_lock if hash_locked).
 * If evict already unhashed it there is nothing to wait for.  Else drop
 * everything, sleep until evict wakes us (after it unhashes the inode),
 * and take the hash lock and the read section again.  The inode may no
 * longer exist when we wake: the caller starts its walk again.
 */
static void wait_on_freeing_inode(struct inode *inode, bool hash_locked)
{
	SITE(wait_on_freeing_inode);
	uint64_t token;

	if (!inode_hashed(inode)) {
		spin_unlock(&inode->i_lock);
		return;
	}
	token = wait_inode_prepare(inode);
	spin_unlock(&inode->i_lock);
	rcu_read_unlock();
	if (hash_locked)
		spin_unlock(&icache.hash_lock);
	wait_inode_token(inode, token, __site);
	if (hash_locked)
		spin_lock(&icache.hash_lock);
	rcu_read_lock();
}

/* find_inode_fast's ERR_PTR(-ESTALE): the inode found is still being
 * created (I_CREATING); the lookup fails rather than wait for it. */
#define INODE_STALE ((struct inode *)(intptr_t)-ESTALE)

/*
 * find_inode_fast: look (sb, ino) up on its chain and take a reference.
 * The chain is walked under rcu_read_lock(); with hash_locked the caller
 * also holds inode_hash_lock (the insert path), which a wait drops and
 * takes again.
 */
static struct inode *find_inode_fast(struct super_block *sb, uint64_t ino, bool hash_locked)
{
	SITE(find_inode_fast);
	struct hash_bucket *b = inode_hash_bucket(sb, ino);
	struct inode *inode;

	rcu_read_lock();
repeat:
	inode = hash_chain_next_rcu(b, sb, ino, NULL);
	if (!inode) {
		rcu_read_unlock();
		return NULL;
	}
	spin_lock(&inode->i_lock);
	if (inode_state(inode) & (I_FREEING | I_WILL_FREE)) {
		wait_on_freeing_inode(inode, hash_locked);
		goto repeat;
	}
	if (inode_state(inode) & I_CREATING) {
		spin_unlock(&inode->i_lock);
		rcu_read_unlock();
		return INODE_STALE;
	}
	inode_ref_get(inode, __site);
	spin_unlock(&inode->i_lock);
	rcu_read_unlock();
	return inode;
}

/*
 * get_new_inode_fast: the miss path of iget_locked.  Allocate without
 * locks, then look again under the hash lock: another CPU may have won.
 * The sb list is joined after the hash lock is dropped: I_NEW keeps
 * everyone who finds it in the hash waiting meanwhile.
 */
static struct inode *get_new_inode_fast(struct super_block *sb, uint64_t ino)
{
	SITE(get_new_inode_fast);
	struct inode *inode = alloc_inode(sb, ino);
	struct inode *old;

	spin_lock(&icache.hash_lock);
	/* We walked without the lock: look again, under it. */
	old = find_inode_fast(sb, ino, true);
	if (!old) {
		inode_publish(inode);
		spin_lock(&inode->i_lock);
		inode_state_assign(inode, I_NEW, __site);
		inode_hash_add(inode, __site);
		spin_unlock(&inode->i_lock);
		spin_unlock(&icache.hash_lock);
		sb_inode_list_add(inode);
		/* Returned with I_NEW set: the caller reads it in, then calls
		 * unlock_new_inode. */
		return inode;
	}
	spin_unlock(&icache.hash_lock);
	/* Lost the race: ours was never visible, theirs may still be new. */
	destroy_inode_rcu(inode, __site);
	if (old == INODE_STALE)
		return NULL;
	wait_on_inode(old);
	return old;
}

/*
 * A found inode may have been evicted while we slept on its I_NEW (the
 * filesystem failed to read it in): then it is unhashed, and iget_locked
 * and ilookup drop it and look again.
 */
static bool unhashed_after_wait(struct inode *inode)
{
	wait_on_inode(inode);
	if (inode_hashed(inode))
		return false;
	iput(inode);
	return true;
}

/* NULL if the inode is still being created (I_CREATING). */
static struct inode *iget_locked(struct super_block *sb, uint64_t ino)
{
	struct inode *inode;

	do {
		/* No lock but the found inode's i_lock: RCU. */
		inode = find_inode_fast(sb, ino, false);
		if (!inode)
			return get_new_inode_fast(sb, ino);
		if (inode == INODE_STALE)
			return NULL;
	} while (unhashed_after_wait(inode));
	return inode;
}

/*
 * inode_insert5: iget5_locked's insert, the test callback here a number
 * compare.  Look under inode_hash_lock; an inode found still being created
 * means NULL; a live one is waited for (I_NEW) and returned, or looked for
 * again if it went away meanwhile.  Else hash ours with I_NEW.
 */
static struct inode *inode_insert5(struct inode *inode)
{
	SITE(inode_insert5);
	struct inode *old;

	for (;;) {
		spin_lock(&icache.hash_lock);
		old = find_inode_fast(inode->i_sb, inode->i_ino, true);
		if (!old)
			break;
		spin_unlock(&icache.hash_lock);
		if (old == INODE_STALE)
			return NULL;
		if (!unhashed_after_wait(old))
			return old;
	}
	spin_lock(&inode->i_lock);
	inode_state_set(inode, I_NEW, __site);
	inode_hash_add(inode, __site);
	spin_unlock(&inode->i_lock);
	spin_unlock(&icache.hash_lock);
	/* new_inode put it on the sb list already (I_NEW: no lock to test). */
	if (!inode_on_sb_list(inode))
		sb_inode_list_add(inode);
	return inode;
}

/*
 * insert_inode_locked4: I_CREATING first, while nobody else can find the
 * inode (the kernel stores it with no lock; here under i_lock, for the
 * state checker), then inode_insert5.  Anything but our own inode back
 * means the number is taken: -EBUSY.
 */
static int insert_inode_locked4(struct inode *inode)
{
	SITE(insert_inode_locked4);
	struct inode *old;

	spin_lock(&inode->i_lock);
	inode_state_set(inode, I_CREATING, __site);
	spin_unlock(&inode->i_lock);
	old = inode_insert5(inode);
	if (old != inode) {
		if (old)
			iput(old);
		return -EBUSY;
	}
	return 0;
}

static void unlock_new_inode(struct inode *inode)
{
	SITE(unlock_new_inode);
	spin_lock(&inode->i_lock);
	inode_state_clear(inode, I_NEW | I_CREATING, __site);
	wake_up_inode(inode);
	spin_unlock(&inode->i_lock);
}

static struct inode *ilookup(struct super_block *sb, uint64_t ino)
{
	struct inode *inode;

	do {
		inode = find_inode_fast(sb, ino, false);
		if (!inode || inode == INODE_STALE)
			return NULL;
	} while (unhashed_after_wait(inode));
	return inode;
}

/* igrab: a new reference, unless the inode is already on its way out. */
static struct inode *igrab(struct inode *inode)
{
	SITE(igrab);
	spin_lock(&inode->i_lock);
	if (inode_state(inode) & (I_FREEING | I_WILL_FREE)) {
		spin_unlock(&inode->i_lock);
		return NULL;
	}
	inode_ref_get(inode, __site);
	spin_unlock(&inode->i_lock);
	return inode;
}

/* ihold: the caller already has a reference, so no lock is needed. */
static void ihold(struct inode *inode)
{
	SITE(ihold);
	inode_ref_get(inode, __site);
}

/* ---- the LRU: a list_lru per sb, a list and a lock per node ---------------- */

/*
 * __inode_lru_list_add, called with i_lock held: only an unused, clean,
 * live inode of a live sb goes on the LRU.  One already there is marked
 * I_REFERENCED instead (rotate), so the shrinker gives it a second chance.
 */
static void inode_lru_list_add(struct inode *inode, bool rotate)
{
	SITE(inode_lru_list_add);

	if (inode_state(inode) & (I_DIRTY_ALL | I_SYNC | I_FREEING | I_WILL_FREE))
		return;
	if (atomic_load(&inode->i_count) || !sb_active(inode->i_sb))
		return;
	if (!list_lru_add(&inode->i_sb->s_inode_lru, inode, __site) && rotate)
		inode_state_set(inode, I_REFERENCED, __site);
}

/* Called with i_lock held.  Not on the LRU (list_empty(&inode->i_lru)
 * in the kernel; the link's owner here): no node lock is taken at all. */
static void inode_lru_list_del(struct inode *inode)
{
	SITE(inode_lru_list_del);

	if (inode->i_lru_on != LIST_lru)
		return;
	list_lru_del(&inode->i_sb->s_inode_lru, inode, __site);
}

/* I_LRU_ISOLATING: the shrinker works on the inode with no lock held. */
static void inode_pin_lru_isolating(struct inode *inode)
{
	SITE(inode_lru_isolate);
	inode_state_set(inode, I_LRU_ISOLATING, __site);
}

static void inode_unpin_lru_isolating(struct inode *inode)
{
	SITE(inode_lru_isolate);
	spin_lock(&inode->i_lock);
	inode_state_clear(inode, I_LRU_ISOLATING, __site);
	wake_up_inode(inode);
	spin_unlock(&inode->i_lock);
}

/* evict, i_lock held: wait until no shrinker has the inode pinned. */
static void wait_for_lru_isolating(struct inode *inode)
{
	SITE(wait_for_lru_isolating);

	while (inode_state(inode) & I_LRU_ISOLATING) {
		uint64_t token = wait_inode_prepare(inode);
		spin_unlock(&inode->i_lock);
		wait_inode_token(inode, token, __site);
		spin_lock(&inode->i_lock);
	}
}

/*
 * The page-strip half of inode_lru_isolate: invalidate_mapping_pages,
 * with both locks dropped.  The last page leaving the cache puts the
 * inode back on the LRU if it is still unused (inode_add_lru, from the
 * page cache's removal path).
 */
static void strip_pages(struct inode *inode)
{
	SITE(inode_lru_isolate);

	invalidate_mapping_pages(inode, __site);
	spin_lock(&inode->i_lock);
	inode_lru_list_add(inode, false);
	spin_unlock(&inode->i_lock);
}

/* ---- writeback ------------------------------------------------------------ */

/* inode_io_list_del: i_io_list needs wb->list_lock and i_lock both. */
static void inode_io_list_del(struct inode *inode)
{
	SITE(inode_io_list_del);
	struct bdi_writeback *wb = inode->i_sb->s_bdi;

	spin_lock(&wb->list_lock);
	spin_lock(&inode->i_lock);
	inode_wb_del(inode, __site);
	spin_unlock(&inode->i_lock);
	spin_unlock(&wb->list_lock);
}

/*
 * inode_wait_for_writeback, i_lock held: sleep until whoever is writing
 * the inode clears I_SYNC.  Drops i_lock to sleep and takes it again.
 * Both writeback_single_inode (WB_SYNC_ALL) and evict call it with i_lock
 * held, since "vfs: drop one lock trip in evict()" (docs/sources.md), so
 * its steps name it, not its caller.
 */
static void inode_wait_for_writeback(struct inode *inode)
{
	SITE(inode_wait_for_writeback);

	while (inode_state(inode) & I_SYNC) {
		uint64_t token = wait_inode_prepare(inode);
		spin_unlock(&inode->i_lock);
		wait_inode_token(inode, token, __site);
		spin_lock(&inode->i_lock);
	}
}

/*
 * __writeback_single_inode, I_SYNC set and no lock held: the pages are
 * written (do_writepages), then the metadata bits are cleared under
 * i_lock just before write_inode.  Every page is written, so the "slice
 * used up" requeue after the write is not taken.
 */
static void write_single_inode(struct inode *inode)
{
	SITE(writeback_single_inode);

	/* do_writepages (and filemap_fdatawait for WB_SYNC_ALL) here. */
	spin_lock(&inode->i_lock);
	inode_state_clear(inode, I_DIRTY_SYNC | I_DIRTY_DATASYNC, __site);
	spin_unlock(&inode->i_lock);
	/* write_inode here, if it was dirty. */
}

/* requeue_inode, wb->list_lock and i_lock held (i_io_list needs both). */
static void requeue_inode(struct inode *inode, struct bdi_writeback *wb)
{
	SITE(writeback_single_inode);

	if (inode_state(inode) & I_FREEING)
		return; /* evict takes it off */
	if (inode_state(inode) & I_DIRTY)
		wb_redirty_tail(inode, wb, __site); /* redirtied while we wrote */
	else
		inode_wb_del(inode, __site);
}

/*
 * inode_sync_complete, i_lock held: the write is over.  A clean, unused
 * inode goes onto the LRU now (nobody holds a reference whose iput would
 * put it there).
 */
static void inode_sync_complete(struct inode *inode)
{
	SITE(writeback_single_inode);

	inode_state_clear(inode, I_SYNC, __site);
	inode_lru_list_add(inode, false);
	wake_up_inode(inode);
}

/*
 * One pass of the flusher over the wb's dirty inodes (writeback_sb_inodes).
 * No reference is taken: wb->list_lock keeps an inode on b_io alive (evict
 * must take it to unlink the inode), and I_SYNC once the locks are dropped.
 * I_DIRTY_PAGES is cleared as I_SYNC is set (simplified: the kernel clears
 * it after do_writepages and sets it again from the page tags, which the
 * simulator's page cache does not have).
 */
static long writeback_inodes(struct bdi_writeback *wb, long nr)
{
	SITE(writeback_sb_inodes);
	struct inode *inode;
	long written = 0;

	spin_lock(&wb->list_lock);
	wb_queue_io(wb, __site);
	while (written < nr && (inode = wb_io_oldest(wb)) != NULL) {
		spin_lock(&inode->i_lock);
		if (inode_state(inode) & (I_NEW | I_FREEING | I_WILL_FREE)) {
			/* Not ours to write: someone owns it.  Not counted: a
			 * pass that wrote nothing lets the flusher sleep. */
			wb_redirty_tail(inode, wb, __site);
			spin_unlock(&inode->i_lock);
			continue;
		}
		if (inode_state(inode) & I_SYNC) {
			/* requeue_io: someone else is writing it; look
			 * again once b_io is done. */
			inode_wb_move(inode, wb, LIST_b_more_io, __site);
			spin_unlock(&inode->i_lock);
			continue;
		}
		spin_unlock(&wb->list_lock);
		inode_state_assign(inode, (inode_state(inode) | I_SYNC) & ~I_DIRTY_PAGES, __site);
		spin_unlock(&inode->i_lock);
		written++;
		write_single_inode(inode);
		spin_lock(&wb->list_lock);
		spin_lock(&inode->i_lock);
		requeue_inode(inode, wb);
		inode_sync_complete(inode);
		spin_unlock(&inode->i_lock);
	}
	spin_unlock(&wb->list_lock);
	return written;
}

/*
 * write_inode_now(inode, 1) -> writeback_single_inode, WB_SYNC_ALL (fsync,
 * and iput_final on a dying sb): i_lock alone until the write is done.  A
 * flusher's write in progress is waited for; a clean inode is left alone,
 * on whatever list it is; only the requeue takes wb->list_lock.
 */
static void write_inode_now(struct inode *inode)
{
	SITE(writeback_single_inode);
	struct bdi_writeback *wb = inode->i_sb->s_bdi;

	spin_lock(&inode->i_lock);
	inode_wait_for_writeback(inode);
	if (!(inode_state(inode) & I_DIRTY)) {
		spin_unlock(&inode->i_lock);
		return;
	}
	inode_state_assign(inode, (inode_state(inode) | I_SYNC) & ~I_DIRTY_PAGES, __site);
	spin_unlock(&inode->i_lock);
	write_single_inode(inode);
	spin_lock(&wb->list_lock);
	spin_lock(&inode->i_lock);
	requeue_inode(inode, wb);
	spin_unlock(&wb->list_lock);
	inode_sync_complete(inode);
	spin_unlock(&inode->i_lock);
}

/*
 * Nothing to do: already dirty in these ways (and, for a mark of the
 * inode itself, no lazy timestamps left to clear, or iput would retry
 * for ever), or only the timestamps are dirtied (I_DIRTY_TIME) and the
 * inode itself already is.
 */
static bool dirty_already(struct inode *inode, unsigned flags)
{
	unsigned state = inode_state(inode);

	if ((flags & I_DIRTY_INODE) && (state & I_DIRTY_TIME))
		return false;
	return (state & flags) == flags || ((flags & I_DIRTY_TIME) && (state & I_DIRTY_INODE));
}

static void mark_inode_dirty(struct inode *inode, unsigned flags)
{
	SITE(mark_inode_dirty);
	struct bdi_writeback *wb = inode->i_sb->s_bdi;
	bool was_dirty;

	/* Dirtying the inode itself writes its timestamps too. */
	if (flags & I_DIRTY_INODE)
		flags &= ~I_DIRTY_TIME;
	/* Lockless fast path. */
	if (dirty_already(inode, flags))
		return;
	spin_lock(&inode->i_lock);
	if (dirty_already(inode, flags))
		goto out;
	was_dirty = inode_state(inode) & I_DIRTY;
	if (flags & I_DIRTY_INODE)
		inode_state_assign(inode, (inode_state(inode) & ~I_DIRTY_TIME) | flags, __site);
	else
		inode_state_set(inode, flags, __site);
	/* Writeback in progress will requeue it; unhashed or dying inodes
	 * are never queued; b_dirty_time is not modelled (see above). */
	if (inode_state(inode) & (I_SYNC | I_FREEING) || !inode_hashed(inode) ||
	    !(inode_state(inode) & I_DIRTY))
		goto out;
	if (!was_dirty) {
		/* locked_inode_to_wb_and_lock_list: wb->list_lock nests
		 * outside i_lock, so drop i_lock, take the wb's lock, and
		 * take i_lock again: i_io_list needs both. */
		spin_unlock(&inode->i_lock);
		spin_lock(&wb->list_lock);
		spin_lock(&inode->i_lock);
		inode_wb_dirty(inode, wb, __site);
		spin_unlock(&wb->list_lock);
	}
out:
	spin_unlock(&inode->i_lock);
}

/* ---- the end of an inode ---------------------------------------------------- */

/* evict: tear down an inode marked I_FREEING, which is on no LRU. */
static void evict(struct inode *inode)
{
	SITE(evict);
	struct super_block *sb = inode->i_sb;

	inode_io_list_del(inode);

	spin_lock(&sb->s_inode_list_lock);
	inode_sb_list_del(inode, __site);
	spin_unlock(&sb->s_inode_list_lock);

	/* Wait out a shrinker stripping pages and any writer (I_FREEING
	 * keeps a new write from starting), then clear. */
	spin_lock(&inode->i_lock);
	wait_for_lru_isolating(inode);
	inode_wait_for_writeback(inode);
	inode_state_assign(inode, I_FREEING | I_CLEAR, __site);
	spin_unlock(&inode->i_lock);

	/* remove_inode_hash: an inode that was never hashed (an insert that
	 * lost, -EBUSY) takes no lock. */
	if (inode_hashed(inode)) {
		spin_lock(&icache.hash_lock);
		spin_lock(&inode->i_lock);
		inode_hash_del(inode, __site);
		spin_unlock(&inode->i_lock);
		spin_unlock(&icache.hash_lock);
	}

	/* Lookups sleeping in __wait_on_freeing_inode may look again: they
	 * took their token under i_lock while it was hashed, so no lock is
	 * needed for the wake. */
	wake_up_inode(inode);

	/* The memory is given back after a grace period (call_rcu): an RCU
	 * lookup may still be standing on it. */
	destroy_inode_rcu(inode, __site);
}

static void dispose_list(struct list_head *head)
{
	SITE(dispose_list);
	struct inode *inode;

	while ((inode = inode_dispose_pop(head, __site)) != NULL)
		evict(inode);
}

/*
 * iput_final: the last reference is gone; called with i_lock held.  An
 * inode marked I_DONTCACHE is not kept: like one of a dying sb, it is
 * written (I_WILL_FREE) and evicted.
 */
static void iput_final(struct inode *inode)
{
	SITE(iput_final);
	struct super_block *sb = inode->i_sb;
	bool drop = generic_drop_inode(inode);

	if (!drop && !(inode_state(inode) & I_DONTCACHE) && sb_active(sb)) {
		/* Keep it cached: onto its node's list, the node lock
		 * nested inside i_lock; or, if it is already on the LRU,
		 * mark it referenced. */
		inode_lru_list_add(inode, true);
		spin_unlock(&inode->i_lock);
		return;
	}
	if (!drop) {
		/* Not to be cached: write it out first.  I_WILL_FREE
		 * keeps everyone off while i_lock is dropped. */
		inode_state_set(inode, I_WILL_FREE, __site);
		spin_unlock(&inode->i_lock);
		write_inode_now(inode);
		spin_lock(&inode->i_lock);
		/* The handoff, in one i_lock hold. */
		inode_state_assign(inode, (inode_state(inode) & ~I_WILL_FREE) | I_FREEING, __site);
	} else {
		inode_state_set(inode, I_FREEING, __site);
	}
	inode_lru_list_del(inode);
	spin_unlock(&inode->i_lock);
	/* The inode is ours now: no lock needed to tear it down. */
	evict(inode);
}

/* Lazy timestamps of a linked inode must reach the disk: a last reference
 * going away is the moment (the check repeated under i_lock). */
static bool dirty_time_to_write(struct inode *inode)
{
	return (inode_state(inode) & I_DIRTY_TIME) && atomic_load(&inode->i_nlink);
}

/*
 * iput: drop a reference.  Before the last one goes, an inode with only
 * its timestamps dirty (I_DIRTY_TIME) is dirtied for real, which puts it
 * on b_dirty; then try again.
 */
static void iput(struct inode *inode)
{
	SITE(iput);
retry:
	if (inode_ref_put_unless_last(inode, __site))
		return;
	if (dirty_time_to_write(inode)) {
		mark_inode_dirty(inode, I_DIRTY_SYNC);
		goto retry;
	}
	spin_lock(&inode->i_lock);
	if (dirty_time_to_write(inode)) {
		spin_unlock(&inode->i_lock);
		goto retry;
	}
	if (inode_ref_put(inode, __site) != 0) {
		spin_unlock(&inode->i_lock);
		return;
	}
	iput_final(inode);
}

/*
 * d_mark_dontcache (fs/dcache.c): evict the inode at its last iput.  The
 * dentries' DCACHE_DONTCACHE is not modelled (no dcache here).
 */
static void d_mark_dontcache(struct inode *inode)
{
	SITE(d_mark_dontcache);
	spin_lock(&inode->i_lock);
	inode_state_set(inode, I_DONTCACHE, __site);
	spin_unlock(&inode->i_lock);
}

/* ---- reclaim ------------------------------------------------------------------ */

/*
 * inode_lru_isolate: the shrinker's callback, called with the node lock
 * held.  The node lock is against the order with i_lock, so it trylocks
 * and skips what it cannot lock.  Busy or dirty inodes leave the LRU
 * lazily; I_REFERENCED ones get a second pass; an inode with pages has
 * them stripped first, pinned by I_LRU_ISOLATING with no lock held.  A
 * second shrinker meeting the pinned inode drops it like a busy one, and
 * the unpin puts nothing back: the release has that window too
 * (lessons/scenarios/modern-lru-isolating-window.scn).
 */
static enum lru_status inode_lru_isolate(struct inode *inode, struct list_lru_node *nlru, void *arg)
{
	SITE(inode_lru_isolate);
	struct list_head *freeable = arg;

	if (!spin_trylock(&inode->i_lock))
		return LRU_SKIP;
	if (atomic_load(&inode->i_count) || (inode_state(inode) & ~I_REFERENCED)) {
		list_lru_isolate(nlru, inode, __site);
		spin_unlock(&inode->i_lock);
		return LRU_REMOVED;
	}
	if (inode_state(inode) & I_REFERENCED) {
		inode_state_clear(inode, I_REFERENCED, __site);
		spin_unlock(&inode->i_lock);
		return LRU_ROTATE;
	}
	if (inode_nrpages(inode)) {
		inode_pin_lru_isolating(inode);
		spin_unlock(&inode->i_lock);
		spin_unlock(&nlru->lock);
		strip_pages(inode);
		inode_unpin_lru_isolating(inode);
		spin_lock(&nlru->lock);
		return LRU_RETRY;
	}
	inode_state_set(inode, I_FREEING, __site);
	list_lru_isolate_move(nlru, inode, freeable, __site);
	spin_unlock(&inode->i_lock);
	return LRU_REMOVED;
}

/* prune_icache_sb: one node of one sb's LRU, then free what was taken. */
static long prune_icache_sb(struct super_block *sb, int nid, long *nr_to_walk)
{
	struct list_head freeable;
	long freed;

	INIT_LIST_HEAD(&freeable);
	freed = list_lru_walk_one(&sb->s_inode_lru, nid, inode_lru_isolate, &freeable, nr_to_walk);
	dispose_list(&freeable);
	return freed;
}

/*
 * The shrinker: super_cache_scan for each sb, from the calling CPU's node
 * outwards (direct reclaim frees the node it needs memory on; the others
 * stand for kswapd of those nodes).  A sb is scanned only with s_umount
 * held for read, taken by trylock: an sb being unmounted is left alone.
 */
static long prune_icache(long nr)
{
	SITE(super_cache_scan);
	int home = cpu_to_node(this_cpu);
	long freed = 0;

	for (int k = 0; k < icache.nr_nodes && nr > 0; k++) {
		int nid = (home + k) % icache.nr_nodes;

		for (int i = 0; i < icache.nsbs && nr > 0; i++) {
			struct super_block *sb = &icache.sbs[i];
			long walk = list_lru_count_node(&sb->s_inode_lru, nid);

			if (walk == 0 || !down_read_trylock(&sb->s_umount))
				continue;
			if (walk > nr)
				walk = nr;
			nr -= walk;
			freed += prune_icache_sb(sb, nid, &walk);
			nr += walk; /* what the walk did not use */
			up_read(&sb->s_umount);
		}
	}
	return freed;
}

/*
 * evict_inodes: umount (generic_shutdown_super), with MS_ACTIVE clear, so
 * any inode whose count reaches zero from now on is evicted by its iput.
 * Free every unused inode of the sb.  No iprune_sem: the caller holds
 * s_umount for write, which keeps the shrinker off this sb.
 */
static long evict_inodes(struct super_block *sb)
{
	SITE(evict_inodes);
	struct list_head dispose;
	struct list_head *pos;
	long freed = 0;

	INIT_LIST_HEAD(&dispose);
	spin_lock(&sb->s_inode_list_lock);
	list_for_each(pos, &sb->s_inodes) {
		struct inode *inode = list_entry(pos, struct inode, i_sb_list);

		if (atomic_load(&inode->i_count))
			continue;
		spin_lock(&inode->i_lock);
		if (atomic_load(&inode->i_count) ||
		    (inode_state(inode) & (I_NEW | I_FREEING | I_WILL_FREE))) {
			spin_unlock(&inode->i_lock);
			continue;
		}
		inode_state_set(inode, I_FREEING, __site);
		inode_lru_list_del(inode);
		spin_unlock(&inode->i_lock);
		inode_dispose_add(inode, &dispose, __site);
		freed++;
	}
	spin_unlock(&sb->s_inode_list_lock);
	dispose_list(&dispose);
	return freed;
}

/*
 * invalidate_inodes(sb, kill_dirty): the other half of 63997e98a3b's split.
 * The release read no longer has it (its callers use evict_inodes); kept
 * for the interface, with today's locks: free what is unused and say
 * whether anything was busy.
 */
static int invalidate_inodes(struct super_block *sb, bool kill_dirty)
{
	SITE(invalidate_inodes);
	struct list_head dispose;
	struct list_head *pos;
	int busy = 0;

	INIT_LIST_HEAD(&dispose);
	spin_lock(&sb->s_inode_list_lock);
	list_for_each(pos, &sb->s_inodes) {
		struct inode *inode = list_entry(pos, struct inode, i_sb_list);

		spin_lock(&inode->i_lock);
		if (inode_state(inode) & (I_NEW | I_FREEING | I_WILL_FREE)) {
			spin_unlock(&inode->i_lock);
			continue;
		}
		if (((inode_state(inode) & I_DIRTY) && !kill_dirty) ||
		    atomic_load(&inode->i_count)) {
			spin_unlock(&inode->i_lock);
			busy = 1;
			continue;
		}
		inode_state_set(inode, I_FREEING, __site);
		inode_lru_list_del(inode);
		spin_unlock(&inode->i_lock);
		inode_dispose_add(inode, &dispose, __site);
	}
	spin_unlock(&sb->s_inode_list_lock);
	dispose_list(&dispose);
	return busy;
}

/* ---- inode numbers --------------------------------------------------------------- */

static uint64_t iunique(struct super_block *sb, uint64_t max_reserved)
{
	SITE(iunique);
	uint64_t res;
	bool used;

	/* test_inode_iunique walks the chain under RCU: no hash lock. */
	rcu_read_lock();
	spin_lock(&icache.iunique_lock);
	do {
		if (icache.iunique_counter <= max_reserved)
			icache.iunique_counter = max_reserved + 1;
		res = icache.iunique_counter++;
		used = hash_chain_next_rcu(inode_hash_bucket(sb, res), sb, res, NULL) != NULL;
	} while (used);
	spin_unlock(&icache.iunique_lock);
	rcu_read_unlock();
	return res;
}

/* ---- the table ------------------------------------------------------------------- */

/* clang-format off */
static const struct lock_rule lock_order[] = {
	{ LC_s_umount, LC_list_lru_lock },
	{ LC_s_umount, LC_inode_hash_lock },
	{ LC_s_umount, LC_inode_wb_list_lock },
	{ LC_s_umount, LC_inode_sb_list_lock },
	{ LC_iunique_lock, LC_inode_hash_lock },
	{ LC_inode_hash_lock, LC_inode_sb_list_lock },
	{ LC_inode_hash_lock, LC_i_lock },
	{ LC_inode_sb_list_lock, LC_i_lock },
	{ LC_inode_wb_list_lock, LC_i_lock },
	{ LC_i_lock, LC_list_lru_lock },
};
/* clang-format on */

const struct scheme scheme_modern = {
	.name = "modern",
	.era = "today (fs/inode.c of a current mainline tree)",
	.summary =
		"[hash, per-wb, per-sb] > i_lock > [per-node list_lru]; shrinker trylocks s_umount",
	.order = lock_order,
	.norder = sizeof(lock_order) / sizeof(lock_order[0]),
	/* nr_unused per CPU (DEFINE_PER_CPU), summed when read. */
	.counters = COUNTERS_PERCPU,
	.newer_state = I_LRU_ISOLATING | I_DIRTY_TIME | I_CREATING | I_DONTCACHE,
	.state_lock = state_lock,
	.list_lock = list_lock,
	.new_inode = new_inode,
	.insert_inode_hash = insert_inode_hash,
	.insert_inode_locked = insert_inode_locked,
	.insert_inode_locked4 = insert_inode_locked4,
	.iget_locked = iget_locked,
	.unlock_new_inode = unlock_new_inode,
	.ilookup = ilookup,
	.igrab = igrab,
	.ihold = ihold,
	.iput = iput,
	.d_mark_dontcache = d_mark_dontcache,
	.mark_inode_dirty = mark_inode_dirty,
	.writeback_inodes = writeback_inodes,
	.write_inode_now = write_inode_now,
	.prune_icache = prune_icache,
	.evict_inodes = evict_inodes,
	.invalidate_inodes = invalidate_inodes,
	.iunique = iunique,
	.get_next_ino = get_next_ino,
};
