/*
 * merged.c - the inode cache as merged for Linux 2.6.39.
 *
 * This is the order the October 2010 thread agreed on: Dave Chinner's
 * series, reworked the way Al Viro asked.  inode_lock is gone.  Each list
 * has a lock of its own, i_lock guards the state of one inode, and the LRU
 * lock nests *inside* i_lock so that iput_final can put an inode on the LRU
 * without ever dropping i_lock first.
 *
 * What each lock protects:
 *   inode->i_lock        i_state, i_hash (with inode_hash_lock), and the
 *                        0 -> 1 reference grab (__iget)
 *   inode_lru_lock       inode_lru, i_lru, nr_unused
 *   inode_sb_list_lock   sb->s_inodes, i_sb_list
 *   inode_wb_list_lock   bdi b_dirty / b_io / b_more_io, i_wb_list
 *   inode_hash_lock      the hash table, i_hash
 *   iunique_lock         the iunique counter
 *
 * Lock order (outer first):
 *   iprune_sem (a sleeping rw-lock: prune_icache for read, umount for write)
 *   iunique_lock
 *     inode_hash_lock
 *       inode_sb_list_lock
 *         inode->i_lock
 *           inode_lru_lock
 *   inode_wb_list_lock
 *     inode->i_lock
 *
 * The walker of the LRU (prune_icache) holds inode_lru_lock and needs
 * i_lock: that is against the order, so it only trylocks, and on failure
 * moves the inode to the young end of the LRU for another spin.
 *
 * RCU: since 2.6.38 an inode's memory is freed after a grace period
 * (destroy_inode's call_rcu, commit fa0d7e3de6d6 "fs: icache RCU free
 * inodes"), for the dcache's RCU path walk.  The icache itself has no RCU
 * reader in 2.6.39: the hash is still walked under inode_hash_lock.
 *
 * The handoff: whoever sets I_FREEING (or I_WILL_FREE) under i_lock owns
 * the inode.  Every list walker skips such inodes and lookups wait for them
 * to go, so once it is set every lock may be dropped.  I_WILL_FREE becomes
 * I_FREEING within one i_lock hold, so nobody can see the inode in between.
 *
 * Simplified (tests/fidelity/ holds the paths step by step):
 *   - find_inode_fast compares i_ino before taking i_lock; 2.6.39 took
 *     i_lock of every inode on the chain first.
 *   - end_writeback takes i_lock for its I_FREEING|I_CLEAR store (2.6.39
 *     did it unlocked); the core's state checker wants every change locked.
 *   - the page cache is a count of clean pages (no buffers, no dirty
 *     pages left after writeback), see i_nrpages in icache.h.
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
	(void)inode;
	switch (list) {
	case LIST_hash:
		return &icache.hash_lock;
	case LIST_sb:
		return &icache.sb_list_lock;
	case LIST_lru:
		return &icache.lru_lock;
	case LIST_b_dirty:
	case LIST_b_io:
	case LIST_b_more_io:
		return &icache.wb_list_lock;
	default:
		return NULL; /* private dispose lists need no lock */
	}
}

/* ---- allocation and the hash ------------------------------------------- */

static uint64_t get_next_ino(void)
{
	return get_next_ino_percpu();
}

/* new_inode: a fresh inode on its sb list, not hashed. */
static struct inode *new_inode(struct super_block *sb, uint64_t ino)
{
	SITE(new_inode);
	/* The filesystem numbers it: from its disk, or get_next_ino(). */
	struct inode *inode = alloc_inode(sb, ino ? ino : get_next_ino());

	inode_publish(inode);
	spin_lock(&inode->i_lock);
	inode_state_assign(inode, 0, __site);
	spin_unlock(&inode->i_lock);

	spin_lock(&icache.sb_list_lock);
	inode_sb_list_add(inode, __site);
	spin_unlock(&icache.sb_list_lock);
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
 * insert_inode_locked: hash a new inode with I_NEW, unless a live inode
 * of that number is hashed: then wait for it to be set up, and if it is
 * still hashed, give up with -EBUSY; if it went away, try again.
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
			inode_state_set(inode, I_NEW, __site);
			inode_hash_add(inode, __site);
			spin_unlock(&inode->i_lock);
			spin_unlock(&icache.hash_lock);
			return 0;
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
 * __wait_on_freeing_inode: called with inode_hash_lock and i_lock held on an
 * inode that is being freed.  Drop both, sleep until it is gone, retake the
 * hash lock.  The inode may no longer exist when we wake: the caller starts
 * its search again.
 */
static void wait_on_freeing_inode(struct inode *inode)
{
	SITE(wait_on_freeing_inode);
	uint64_t token = wait_inode_prepare(inode);

	spin_unlock(&inode->i_lock);
	spin_unlock(&icache.hash_lock);
	wait_inode_token(inode, token, __site);
	spin_lock(&icache.hash_lock);
}

/*
 * find_inode_fast: look (sb, ino) up on its chain and take a reference.
 * Called with inode_hash_lock held; may drop and retake it to wait.
 */
static struct inode *find_inode_fast(struct super_block *sb, uint64_t ino)
{
	SITE(find_inode_fast);
	struct hash_bucket *b = inode_hash_bucket(sb, ino);
	struct inode *inode;

repeat:
	inode = hash_chain_find(b, sb, ino);
	if (!inode)
		return NULL;
	spin_lock(&inode->i_lock);
	if (inode_state(inode) & (I_FREEING | I_WILL_FREE)) {
		wait_on_freeing_inode(inode);
		goto repeat;
	}
#ifdef ICACHE_BREAK_unlocked_ref
	/* Test-only break (tests/test_checker.c): grab after dropping i_lock. */
	spin_unlock(&inode->i_lock);
	inode_ref_get(inode, __site);
	return inode;
#endif
	inode_ref_get(inode, __site);
	spin_unlock(&inode->i_lock);
	return inode;
}

/*
 * get_new_inode_fast: the miss path of iget_locked.  Allocate without
 * locks, then look again under the hash lock: another CPU may have won.
 */
static struct inode *get_new_inode_fast(struct super_block *sb, uint64_t ino)
{
	SITE(get_new_inode_fast);
	struct inode *inode = alloc_inode(sb, ino);
	struct inode *old;

	spin_lock(&icache.hash_lock);
	old = find_inode_fast(sb, ino);
#ifdef ICACHE_BREAK_duplicate_inode
	/* Test-only break: trust the first, unlocked miss; never look again. */
	if (old) {
		spin_unlock(&icache.hash_lock);
		iput(old);
		spin_lock(&icache.hash_lock);
		old = NULL;
	}
#endif
	if (!old) {
		inode_publish(inode);
		spin_lock(&inode->i_lock);
		inode_state_assign(inode, I_NEW, __site);
		inode_hash_add(inode, __site);
		spin_unlock(&inode->i_lock);
		spin_lock(&icache.sb_list_lock);
		inode_sb_list_add(inode, __site);
		spin_unlock(&icache.sb_list_lock);
		spin_unlock(&icache.hash_lock);
		/* Returned with I_NEW set: the caller reads it in, then calls
		 * unlock_new_inode. */
		return inode;
	}
	spin_unlock(&icache.hash_lock);
	/* Lost the race: ours was never visible, theirs may still be new. */
	destroy_inode_rcu(inode, __site);
	wait_on_inode(old);
	return old;
}

static struct inode *iget_locked(struct super_block *sb, uint64_t ino)
{
	SITE(iget_locked);
	struct inode *inode;

	spin_lock(&icache.hash_lock);
	inode = find_inode_fast(sb, ino);
	spin_unlock(&icache.hash_lock);
	if (inode) {
		wait_on_inode(inode);
		return inode;
	}
	return get_new_inode_fast(sb, ino);
}

static void unlock_new_inode(struct inode *inode)
{
	SITE(unlock_new_inode);
	spin_lock(&inode->i_lock);
	inode_state_clear(inode, I_NEW, __site);
#ifndef ICACHE_BREAK_missed_wakeup /* test-only break: sleepers never woken */
	wake_up_inode(inode);
#endif
	spin_unlock(&inode->i_lock);
}

static struct inode *ilookup(struct super_block *sb, uint64_t ino)
{
	SITE(ilookup);
	struct inode *inode;

	spin_lock(&icache.hash_lock);
	inode = find_inode_fast(sb, ino);
	spin_unlock(&icache.hash_lock);
	if (inode)
		wait_on_inode(inode);
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

/* ---- writeback ------------------------------------------------------------ */

/*
 * inode_wait_for_writeback: sleep until whoever is writing the inode
 * clears I_SYNC; drops both locks to sleep, retakes them in the order.
 */
static void inode_wait_for_writeback(struct inode *inode)
{
	SITE(writeback_single_inode);

	while (inode_state(inode) & I_SYNC) {
		uint64_t token = wait_inode_prepare(inode);
		spin_unlock(&inode->i_lock);
		spin_unlock(&icache.wb_list_lock);
		wait_inode_token(inode, token, __site);
		spin_lock(&icache.wb_list_lock);
		spin_lock(&inode->i_lock);
	}
}

/*
 * writeback_single_inode: called, and returns, with inode_wb_list_lock and
 * i_lock held; drops both while "writing".  I_SYNC keeps the inode ours
 * meanwhile: mark_inode_dirty leaves a syncing inode where it is.  Every
 * page is written (no page stays tagged dirty), so the "slice used up"
 * requeue after the write is not taken.
 */
static void writeback_single_inode(struct inode *inode, struct bdi_writeback *wb,
				   enum wb_sync_mode sync_mode)
{
	SITE(writeback_single_inode);

	if (inode_state(inode) & I_SYNC) {
		if (sync_mode != WB_SYNC_ALL) {
			/* requeue_io: someone else is writing it; look
			 * again once b_io is done. */
			inode_wb_move(inode, wb, LIST_b_more_io, __site);
			return;
		}
		/* A data-integrity sync must wait for that write. */
		inode_wait_for_writeback(inode);
	}
	inode_state_assign(inode, (inode_state(inode) | I_SYNC) & ~I_DIRTY_PAGES, __site);
	spin_unlock(&inode->i_lock);
	spin_unlock(&icache.wb_list_lock);

	/* do_writepages (and filemap_fdatawait for WB_SYNC_ALL) here. */

	/* The metadata bits are cleared just before write_inode. */
	spin_lock(&inode->i_lock);
	inode_state_clear(inode, I_DIRTY_SYNC | I_DIRTY_DATASYNC, __site);
	spin_unlock(&inode->i_lock);

	/* write_inode here, if it was dirty. */

	spin_lock(&icache.wb_list_lock);
	spin_lock(&inode->i_lock);
	inode_state_clear(inode, I_SYNC, __site);
	if (!(inode_state(inode) & I_FREEING)) {
		if (inode_state(inode) & I_DIRTY)
			/* Redirtied while we wrote it. */
			wb_redirty_tail(inode, wb, __site);
		else
			/* Clean: "No need to add it back to the LRU". */
			inode_wb_del(inode, __site);
	}
	wake_up_inode(inode);
}

/* One pass of the flusher over the bdi's dirty inodes. */
static long writeback_inodes(struct bdi_writeback *wb, long nr)
{
	SITE(writeback_sb_inodes);
	struct inode *inode;
	long written = 0;

	spin_lock(&icache.wb_list_lock);
	wb_queue_io(wb, __site);
	while (written < nr && (inode = wb_io_oldest(wb)) != NULL) {
		spin_lock(&inode->i_lock);
		if (inode_state(inode) & (I_NEW | I_FREEING | I_WILL_FREE)) {
			/* Not ours to write: someone owns it.  Not counted: a
			 * pass that wrote nothing lets the flusher sleep. */
			spin_unlock(&inode->i_lock);
			inode_wb_move(inode, wb, LIST_b_more_io, __site);
			continue;
		}
		inode_ref_get(inode, __site);
		writeback_single_inode(inode, wb, WB_SYNC_NONE);
		spin_unlock(&inode->i_lock);
		spin_unlock(&icache.wb_list_lock);
		written++;
		/* Our iput puts the now clean inode on the LRU. */
		iput(inode);
		spin_lock(&icache.wb_list_lock);
	}
	spin_unlock(&icache.wb_list_lock);
	return written;
}

/*
 * write_inode_now(inode, 1): write one inode with WB_SYNC_ALL (fsync, and
 * iput_final on a dying sb).  Its closing inode_sync_wait finds I_SYNC
 * clear unless another writer started meanwhile: not modelled.
 */
static void write_inode_now(struct inode *inode)
{
	SITE(writeback_single_inode);
	spin_lock(&icache.wb_list_lock);
	spin_lock(&inode->i_lock);
	writeback_single_inode(inode, inode->i_sb->s_bdi, WB_SYNC_ALL);
	spin_unlock(&inode->i_lock);
	spin_unlock(&icache.wb_list_lock);
}

static void mark_inode_dirty(struct inode *inode, unsigned flags)
{
	SITE(mark_inode_dirty);
	bool was_dirty;

	/* Lockless fast path: already dirty in these ways. */
	if ((inode_state(inode) & flags) == flags)
		return;
	spin_lock(&inode->i_lock);
	if ((inode_state(inode) & flags) == flags)
		goto out;
	was_dirty = inode_state(inode) & I_DIRTY;
	inode_state_set(inode, flags, __site);
	/* Writeback in progress will requeue it; unhashed or dying inodes
	 * are never queued. */
	if (inode_state(inode) & (I_SYNC | I_FREEING) || !inode_hashed(inode))
		goto out;
	if (!was_dirty) {
		/* The wb list lock nests outside i_lock: drop i_lock first.
		 * Our reference keeps the inode alive meanwhile. */
		spin_unlock(&inode->i_lock);
		spin_lock(&icache.wb_list_lock);
		inode_wb_dirty(inode, inode->i_sb->s_bdi, __site);
		spin_unlock(&icache.wb_list_lock);
		return;
	}
out:
	spin_unlock(&inode->i_lock);
}

/* ---- the end of an inode ---------------------------------------------------- */

/* evict: tear down an inode marked I_FREEING, which is on no LRU. */
static void evict(struct inode *inode)
{
	SITE(evict);

	spin_lock(&icache.wb_list_lock);
	inode_wb_del(inode, __site);
	spin_unlock(&icache.wb_list_lock);

	spin_lock(&icache.sb_list_lock);
	inode_sb_list_del(inode, __site);
	spin_unlock(&icache.sb_list_lock);

	/* The page cache goes first (truncate_inode_pages). */
	truncate_inode_pages(inode, __site);
	/* end_writeback: wait out any writer, then mark it clear. */
	spin_lock(&inode->i_lock);
	while (inode_state(inode) & I_SYNC) {
		uint64_t token = wait_inode_prepare(inode);
		spin_unlock(&inode->i_lock);
		wait_inode_token(inode, token, __site);
		spin_lock(&inode->i_lock);
	}
	inode_state_assign(inode, I_FREEING | I_CLEAR, __site);
	spin_unlock(&inode->i_lock);

#ifndef ICACHE_BREAK_freed_hashed /* test-only break: freed, still hashed */
	/* remove_inode_hash */
	spin_lock(&icache.hash_lock);
	spin_lock(&inode->i_lock);
	inode_hash_del(inode, __site);
	spin_unlock(&inode->i_lock);
	spin_unlock(&icache.hash_lock);
#endif

	/* Lookups sleeping in __wait_on_freeing_inode may look again. */
	spin_lock(&inode->i_lock);
	wake_up_inode(inode);
	spin_unlock(&inode->i_lock);

	/* The memory is given back after a grace period (call_rcu). */
	destroy_inode_rcu(inode, __site);
}

static void dispose_list(struct list_head *head)
{
	SITE(dispose_list);
	struct inode *inode;

	while ((inode = inode_dispose_pop(head, __site)) != NULL)
		evict(inode);
}

/* iput_final: the last reference is gone; called with i_lock held. */
static void iput_final(struct inode *inode)
{
	SITE(iput_final);
	struct super_block *sb = inode->i_sb;

	if (!generic_drop_inode(inode)) {
		if (sb_active(sb)) {
			/* Keep it cached.  The LRU lock nests inside i_lock,
			 * so the inode goes on the LRU before anyone else can
			 * see it unreferenced and unlocked. */
			inode_state_set(inode, I_REFERENCED, __site);
			if (!(inode_state(inode) & (I_DIRTY | I_SYNC))) {
				/* inode_lru_list_add: adds only if i_lru is
				 * empty, which it checks under the lock. */
				spin_lock(&icache.lru_lock);
				inode_lru_add(inode, __site);
				spin_unlock(&icache.lru_lock);
			}
			spin_unlock(&inode->i_lock);
			return;
		}
		/* The sb is going away: write it out first.  I_WILL_FREE
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
	spin_lock(&icache.lru_lock);
	inode_lru_del(inode, __site);
	spin_unlock(&icache.lru_lock);
	spin_unlock(&inode->i_lock);
	/* The inode is ours now: no lock needed to tear it down. */
	evict(inode);
}

static void iput(struct inode *inode)
{
	SITE(iput);
	if (inode_ref_put_and_lock(inode, &inode->i_lock, __site))
		iput_final(inode);
}

/* ---- reclaim ------------------------------------------------------------------ */

/*
 * prune_icache's page-stripping path: an unused inode pinned only by its
 * page cache.  Called with inode_lru_lock and i_lock held; pin it
 * (__iget), drop both, invalidate its pages, iput, retake the LRU lock.
 * Go on (true, with both locks held) only if the inode is now at the
 * young end of the LRU, i_lock can be had without inverting the order,
 * and can_unuse still holds; else false with the LRU lock held.  The
 * young-end test is 2.6.36's, where that iput really moved the inode
 * there; with 2.6.39's lazy LRU it stayed at the old end (iput_final
 * only sets I_REFERENCED), so unless it is the only inode on the LRU the
 * test fails and a later scan gives it its second chance.
 */
static bool strip_pages(struct inode *inode)
{
	SITE(prune_icache);

	inode_ref_get(inode, __site);
	spin_unlock(&inode->i_lock);
	spin_unlock(&icache.lru_lock);
	invalidate_mapping_pages(inode, __site);
	iput(inode);
	spin_lock(&icache.lru_lock);
	if (inode != inode_lru_youngest())
		return false; /* wrong inode or list_empty */
	if (!spin_trylock(&inode->i_lock))
		return false; /* avoid lock inversions with trylock */
	if (!can_unuse(inode)) {
		spin_unlock(&inode->i_lock);
		return false;
	}
	return true;
}

/*
 * prune_icache: the shrinker.  Walks the LRU from its old end holding
 * inode_lru_lock, so it may only trylock i_lock (the order is the other way
 * round).  Busy or dirty inodes are dropped from the LRU lazily here;
 * I_REFERENCED ones get a second chance.
 */
static long prune_icache(long nr)
{
	SITE(prune_icache);
	struct list_head freeable;
	struct inode *inode;
	long scanned, freed = 0;

	INIT_LIST_HEAD(&freeable);
	/* umount's evict_inodes waits for us (down_write) until the inodes
	 * we take off the LRU are gone. */
	down_read(&icache.iprune_sem);
	spin_lock(&icache.lru_lock);
	for (scanned = 0; scanned < nr; scanned++) {
		inode = inode_lru_oldest();
		if (!inode)
			break;
		if (!spin_trylock(&inode->i_lock)) {
			/* Busy: send it round the LRU once more. */
			inode_lru_rotate(inode, __site);
			continue;
		}
		if (atomic_load(&inode->i_count) || (inode_state(inode) & ~I_REFERENCED)) {
			inode_lru_del(inode, __site);
			spin_unlock(&inode->i_lock);
			continue;
		}
		if (inode_state(inode) & I_REFERENCED) {
			inode_state_clear(inode, I_REFERENCED, __site);
			inode_lru_rotate(inode, __site);
			spin_unlock(&inode->i_lock);
			continue;
		}
		if (inode_nrpages(inode) && !strip_pages(inode))
			continue;
		/* I_FREEING under i_lock; off the LRU in the same hold of
		 * the LRU lock, so nobody meets it there unowned. */
		inode_state_set(inode, I_FREEING, __site);
		spin_unlock(&inode->i_lock);
		inode_dispose_add(inode, &freeable, __site);
		freed++;
	}
	spin_unlock(&icache.lru_lock);
	dispose_list(&freeable);
	up_read(&icache.iprune_sem);
	return freed;
}

/*
 * evict_inodes: umount (generic_shutdown_super), with MS_ACTIVE clear, so
 * any inode whose count reaches zero from now on is evicted by its iput.
 * Free every unused inode of the sb; then cycle through iprune_sem for
 * write, which waits until every prune_icache that had already taken
 * inodes of this sb off the LRU has torn them down (bab1d9444d9).
 */
static long evict_inodes(struct super_block *sb)
{
	SITE(evict_inodes);
	struct list_head dispose;
	struct list_head *pos;
	long freed = 0;

	INIT_LIST_HEAD(&dispose);
	spin_lock(&icache.sb_list_lock);
	list_for_each(pos, &sb->s_inodes) {
		struct inode *inode = list_entry(pos, struct inode, i_sb_list);

		if (atomic_load(&inode->i_count))
			continue;
		spin_lock(&inode->i_lock);
#ifdef ICACHE_BREAK_nested_ilock
		/* Test-only break: peek at the next inode under both i_locks. */
		if (pos->next != &sb->s_inodes) {
			struct inode *next = list_entry(pos->next, struct inode, i_sb_list);
			spin_lock(&next->i_lock);
			spin_unlock(&next->i_lock);
		}
#endif
		/* 2.6.39 read i_count only before i_lock: by then umount has
		 * kept the flusher off this sb (s_umount, sync_filesystem),
		 * which we do not model, so a reference taken meanwhile is
		 * looked for again under i_lock. */
		if ((inode_state(inode) & (I_NEW | I_FREEING | I_WILL_FREE)) ||
		    atomic_load(&inode->i_count)) {
			spin_unlock(&inode->i_lock);
			continue;
		}
		inode_state_set(inode, I_FREEING, __site);
		spin_lock(&icache.lru_lock);
		inode_lru_del(inode, __site);
		spin_unlock(&icache.lru_lock);
		spin_unlock(&inode->i_lock);
		inode_dispose_add(inode, &dispose, __site);
		freed++;
	}
	spin_unlock(&icache.sb_list_lock);
	dispose_list(&dispose);

	down_write(&icache.iprune_sem);
	up_write(&icache.iprune_sem);
	return freed;
}

/*
 * invalidate_inodes(sb, kill_dirty): the other half of the split
 * (63997e98a3b), for callers that want to know: free what is unused and
 * say whether anything was busy.  Dirty inodes count as busy unless
 * kill_dirty (added by 93b270f76e7, 2.6.38).  Takes no iprune_sem.
 */
static int invalidate_inodes(struct super_block *sb, bool kill_dirty)
{
	SITE(invalidate_inodes);
	struct list_head dispose;
	struct list_head *pos;
	int busy = 0;

	INIT_LIST_HEAD(&dispose);
	spin_lock(&icache.sb_list_lock);
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
		spin_lock(&icache.lru_lock);
		inode_lru_del(inode, __site);
		spin_unlock(&icache.lru_lock);
		spin_unlock(&inode->i_lock);
		inode_dispose_add(inode, &dispose, __site);
	}
	spin_unlock(&icache.sb_list_lock);
	dispose_list(&dispose);
	return busy;
}

/* ---- inode numbers --------------------------------------------------------------- */

static uint64_t iunique(struct super_block *sb, uint64_t max_reserved)
{
	SITE(iunique);
	uint64_t res;
	bool used;

	spin_lock(&icache.iunique_lock);
	do {
		if (icache.iunique_counter <= max_reserved)
			icache.iunique_counter = max_reserved + 1;
		res = icache.iunique_counter++;
		spin_lock(&icache.hash_lock);
		used = hash_chain_has(inode_hash_bucket(sb, res), sb, res);
		spin_unlock(&icache.hash_lock);
	} while (used);
	spin_unlock(&icache.iunique_lock);
	return res;
}

/* ---- the table ------------------------------------------------------------------- */

/* clang-format off */
static const struct lock_rule lock_order[] = {
	{ LC_s_umount, LC_iprune_sem },
	{ LC_iprune_sem, LC_inode_lru_lock },
	{ LC_iprune_sem, LC_inode_hash_lock },
	{ LC_iprune_sem, LC_inode_wb_list_lock },
	{ LC_iunique_lock, LC_inode_hash_lock },
	{ LC_inode_hash_lock, LC_inode_sb_list_lock },
	{ LC_inode_hash_lock, LC_i_lock },
	{ LC_inode_sb_list_lock, LC_i_lock },
	{ LC_inode_wb_list_lock, LC_i_lock },
	{ LC_i_lock, LC_inode_lru_lock },
};
/* clang-format on */

const struct scheme scheme_merged = {
	.name = "merged",
	.era = "2.6.39, as agreed in the thread",
	.summary = "[hash, wb, sb] > i_lock > [lru]; prune_icache trylocks i_lock",
	.order = lock_order,
	.norder = sizeof(lock_order) / sizeof(lock_order[0]),
	.state_lock = state_lock,
	.list_lock = list_lock,
	.new_inode = new_inode,
	.insert_inode_hash = insert_inode_hash,
	.insert_inode_locked = insert_inode_locked,
	.iget_locked = iget_locked,
	.unlock_new_inode = unlock_new_inode,
	.ilookup = ilookup,
	.igrab = igrab,
	.ihold = ihold,
	.iput = iput,
	.mark_inode_dirty = mark_inode_dirty,
	.writeback_inodes = writeback_inodes,
	.write_inode_now = write_inode_now,
	.prune_icache = prune_icache,
	.evict_inodes = evict_inodes,
	.invalidate_inodes = invalidate_inodes,
	.iunique = iunique,
	.get_next_ino = get_next_ino,
};
