/*
 * inode-scale-v4.c - the inode cache of Dave Chinner's inode scalability
 * series of October 2010, before Al Viro's review.  Which posting each part
 * comes from (docs/sources.md): the lock layout, "no trylocks", per-cpu
 * counters and the dispose list are from the "Inode Lock Scalability V4"
 * cover letter (16 Oct 2010, 19 patches); the iput_final that drops i_lock
 * before the LRU add is the hunk of "[PATCH 16/21] fs: Protect
 * inode->i_state with the inode->i_lock" (21 Oct 2010) that Al Viro quoted,
 * as it stands once the series removes inode_lock (still held in 16/21).
 * The name keeps "v4" for the command line.  Assumed, not sourced: the sb
 * list lock nests inside the hash bucket lock (Al Viro proposes it for the
 * merged order; V4's own nesting is not in the sources).
 *
 * inode_lock is gone and every list has a lock of its own, finer than what
 * was finally merged: a lock per hash chain, a lock per superblock for its
 * inode list, a lock per bdi for its writeback lists, one global LRU lock.
 * i_lock guards the state of one inode and is the innermost lock of all:
 * whoever walks a list already holds the list's lock and may simply take
 * i_lock, so there is not a single trylock in this file.
 *
 * What each lock protects:
 *   inode->i_lock        i_state and the 0 -> 1 reference grab (__iget)
 *   inode_lru_lock       inode_lru, i_lru (nr_unused is a percpu_counter,
 *                        "inode counters are made per-cpu": each CPU
 *                        changes its own share, reads sum them; the
 *                        fold into the total under the counter's own
 *                        lock every 32 changes is not modelled)
 *   sb->s_inode_list_lock  that sb's s_inodes, i_sb_list
 *   wb->list_lock        that bdi's b_dirty / b_io / b_more_io, i_wb_list
 *   hash bucket lock     one hash chain, the i_hash of the inodes on it
 *   iunique_lock         the iunique counter
 *
 * Lock order (outer first):
 *   iunique_lock
 *     hash bucket lock
 *       sb->s_inode_list_lock
 *         inode_lru_lock
 *           inode->i_lock
 *   wb->list_lock
 *     inode->i_lock
 *
 * The price of "i_lock innermost": the LRU lock is outside i_lock, so
 * iput_final must drop i_lock before it puts a still cached inode on the
 * LRU.  For that moment the inode has no reference, no I_FREEING and no
 * lock: another CPU can look it up, unlink it and free it, and we then put
 * a freed inode on the LRU.  Al Viro pointed this out (22 Oct 2010) and the
 * series was reworked into the merged order.  This file keeps the bug: it
 * is what the lesson is about.  The simulator's handoff checker sees the
 * freed inode arrive at the LRU and reports it.
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
		return &inode_hash_bucket(inode->i_sb, inode->i_ino)->lock;
	case LIST_sb:
		return &inode->i_sb->s_inode_list_lock;
	case LIST_lru:
		return &icache.lru_lock;
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

	spin_lock(&sb->s_inode_list_lock);
	inode_sb_list_add(inode, __site);
	spin_unlock(&sb->s_inode_list_lock);
	return inode;
}

static void insert_inode_hash(struct inode *inode)
{
	SITE(insert_inode_hash);
	struct hash_bucket *b = inode_hash_bucket(inode->i_sb, inode->i_ino);

	spin_lock(&b->lock);
	spin_lock(&inode->i_lock);
	inode_hash_add(inode, __site);
	spin_unlock(&inode->i_lock);
	spin_unlock(&b->lock);
}

/*
 * insert_inode_locked: hash a new inode with I_NEW, unless a live inode
 * of that number is hashed: then wait for it to be set up, and if it is
 * still hashed, give up with -EBUSY; if it went away, try again.
 * 2.6.39's loop with the chain's own lock (V4's code is not at hand).
 */
static int insert_inode_locked(struct inode *inode)
{
	SITE(insert_inode_locked);
	struct super_block *sb = inode->i_sb;
	struct hash_bucket *b = inode_hash_bucket(sb, inode->i_ino);
	struct inode *old;

	for (;;) {
		spin_lock(&b->lock);
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
			spin_unlock(&b->lock);
			return 0;
		}
		inode_ref_get(old, __site);
		spin_unlock(&old->i_lock);
		spin_unlock(&b->lock);
		wait_on_inode(old);
		bool busy = inode_hashed(old);
		iput(old);
		if (busy)
			return -EBUSY;
	}
}

/*
 * __wait_on_freeing_inode: called with the chain's lock and i_lock held on
 * an inode that is being freed.  Drop both, sleep until it is gone, retake
 * the chain's lock.  The inode may no longer exist when we wake: the caller
 * starts its search again.
 */
static void wait_on_freeing_inode(struct inode *inode)
{
	SITE(wait_on_freeing_inode);
	struct hash_bucket *b = inode_hash_bucket(inode->i_sb, inode->i_ino);
	uint64_t token = wait_inode_prepare(inode);

	spin_unlock(&inode->i_lock);
	spin_unlock(&b->lock);
	wait_inode_token(inode, token, __site);
	spin_lock(&b->lock);
}

/*
 * find_inode_fast: look (sb, ino) up on its chain and take a reference.
 * Called with the chain's lock held; may drop and retake it to wait.
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
	inode_ref_get(inode, __site);
	spin_unlock(&inode->i_lock);
	return inode;
}

/*
 * get_new_inode_fast: the miss path of iget_locked.  Allocate without
 * locks, then look again under the chain's lock: another CPU may have won.
 */
static struct inode *get_new_inode_fast(struct super_block *sb, uint64_t ino)
{
	SITE(get_new_inode_fast);
	struct hash_bucket *b = inode_hash_bucket(sb, ino);
	struct inode *inode = alloc_inode(sb, ino);
	struct inode *old;

	spin_lock(&b->lock);
	old = find_inode_fast(sb, ino);
	if (!old) {
		inode_publish(inode);
		spin_lock(&inode->i_lock);
		inode_state_assign(inode, I_NEW, __site);
		inode_hash_add(inode, __site);
		spin_unlock(&inode->i_lock);
		spin_lock(&sb->s_inode_list_lock);
		inode_sb_list_add(inode, __site);
		spin_unlock(&sb->s_inode_list_lock);
		spin_unlock(&b->lock);
		/* Returned with I_NEW set: the caller reads it in, then calls
		 * unlock_new_inode. */
		return inode;
	}
	spin_unlock(&b->lock);
	/* Lost the race: ours was never visible, theirs may still be new. */
	destroy_inode(inode, __site);
	wait_on_inode(old);
	return old;
}

static struct inode *iget_locked(struct super_block *sb, uint64_t ino)
{
	SITE(iget_locked);
	struct hash_bucket *b = inode_hash_bucket(sb, ino);
	struct inode *inode;

	spin_lock(&b->lock);
	inode = find_inode_fast(sb, ino);
	spin_unlock(&b->lock);
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
	wake_up_inode(inode);
	spin_unlock(&inode->i_lock);
}

static struct inode *ilookup(struct super_block *sb, uint64_t ino)
{
	SITE(ilookup);
	struct hash_bucket *b = inode_hash_bucket(sb, ino);
	struct inode *inode;

	spin_lock(&b->lock);
	inode = find_inode_fast(sb, ino);
	spin_unlock(&b->lock);
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
 * clears I_SYNC; drops both locks to sleep, retakes them the list lock first.
 */
static void inode_wait_for_writeback(struct inode *inode, struct bdi_writeback *wb)
{
	SITE(writeback_single_inode);

	while (inode_state(inode) & I_SYNC) {
		uint64_t token = wait_inode_prepare(inode);
		spin_unlock(&inode->i_lock);
		spin_unlock(&wb->list_lock);
		wait_inode_token(inode, token, __site);
		spin_lock(&wb->list_lock);
		spin_lock(&inode->i_lock);
	}
}

/*
 * writeback_single_inode: called, and returns, with wb->list_lock and
 * i_lock held; drops both while "writing".  I_SYNC keeps the inode ours
 * meanwhile: mark_inode_dirty leaves a syncing inode where it is.
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
		inode_wait_for_writeback(inode, wb);
	}
	inode_state_assign(inode, (inode_state(inode) | I_SYNC) & ~I_DIRTY_PAGES, __site);
	spin_unlock(&inode->i_lock);
	spin_unlock(&wb->list_lock);

	/* do_writepages (and filemap_fdatawait for WB_SYNC_ALL) here. */

	/* The metadata bits are cleared just before write_inode. */
	spin_lock(&inode->i_lock);
	inode_state_clear(inode, I_DIRTY_SYNC | I_DIRTY_DATASYNC, __site);
	spin_unlock(&inode->i_lock);

	/* write_inode here, if it was dirty. */

	spin_lock(&wb->list_lock);
	spin_lock(&inode->i_lock);
	inode_state_clear(inode, I_SYNC, __site);
	if (!(inode_state(inode) & I_FREEING)) {
		if (inode_state(inode) & I_DIRTY) {
			/* Redirtied while we wrote it. */
			wb_redirty_tail(inode, wb, __site);
		} else {
			inode_wb_del(inode, __site);
			/* V4: "only attempt to add the inode to the LRU if the
			 * inode is unreferenced" (write_inode_now from
			 * iput_final).  The LRU lock is outside i_lock, so
			 * i_lock is dropped first: the "similar inode
			 * life-time wart" Dave names in sync_inode. */
			if (!atomic_load(&inode->i_count)) {
				spin_unlock(&inode->i_lock);
				spin_lock(&icache.lru_lock);
				inode_lru_add(inode, __site);
				spin_unlock(&icache.lru_lock);
				spin_lock(&inode->i_lock);
			}
		}
	}
	wake_up_inode(inode);
}

/* One pass of the flusher over the bdi's dirty inodes. */
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
			spin_unlock(&inode->i_lock);
			inode_wb_move(inode, wb, LIST_b_more_io, __site);
			continue;
		}
		inode_ref_get(inode, __site);
		writeback_single_inode(inode, wb, WB_SYNC_NONE);
		spin_unlock(&inode->i_lock);
		spin_unlock(&wb->list_lock);
		written++;
		/* Our iput puts the now clean inode on the LRU. */
		iput(inode);
		spin_lock(&wb->list_lock);
	}
	spin_unlock(&wb->list_lock);
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
	struct bdi_writeback *wb = inode->i_sb->s_bdi;

	spin_lock(&wb->list_lock);
	spin_lock(&inode->i_lock);
	writeback_single_inode(inode, wb, WB_SYNC_ALL);
	spin_unlock(&inode->i_lock);
	spin_unlock(&wb->list_lock);
}

static void mark_inode_dirty(struct inode *inode, unsigned flags)
{
	SITE(mark_inode_dirty);
	struct bdi_writeback *wb = inode->i_sb->s_bdi;
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
		spin_lock(&wb->list_lock);
		inode_wb_dirty(inode, wb, __site);
		spin_unlock(&wb->list_lock);
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
	struct super_block *sb = inode->i_sb;
	struct hash_bucket *b = inode_hash_bucket(sb, inode->i_ino);

	spin_lock(&sb->s_bdi->list_lock);
	inode_wb_del(inode, __site);
	spin_unlock(&sb->s_bdi->list_lock);

	spin_lock(&sb->s_inode_list_lock);
	inode_sb_list_del(inode, __site);
	spin_unlock(&sb->s_inode_list_lock);

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

	/* remove_inode_hash */
	spin_lock(&b->lock);
	spin_lock(&inode->i_lock);
	inode_hash_del(inode, __site);
	spin_unlock(&inode->i_lock);
	spin_unlock(&b->lock);

	/* Lookups sleeping in __wait_on_freeing_inode may look again. */
	spin_lock(&inode->i_lock);
	wake_up_inode(inode);
	spin_unlock(&inode->i_lock);

	destroy_inode(inode, __site);
}

static void dispose_list(struct list_head *head)
{
	SITE(dispose_list);
	struct inode *inode;

	while ((inode = inode_dispose_pop(head, __site)) != NULL)
		evict(inode);
}

/*
 * inode_lru_list_add: put an unused inode on the LRU.  Takes
 * inode_lru_lock, which nests outside i_lock, so it is called WITHOUT
 * i_lock and without holding anything that keeps the inode alive.  It
 * does not take i_lock either: by the time it runs, the inode may have
 * been freed by another CPU, and then it is the core's freed-inode check
 * in inode_lru_add() that notices.
 */
static void inode_lru_list_add(struct inode *inode)
{
	SITE(inode_lru_list_add);
	spin_lock(&icache.lru_lock);
	inode_lru_add(inode, __site);
	spin_unlock(&icache.lru_lock);
}

/* iput_final: the last reference is gone; called with i_lock held. */
static void iput_final(struct inode *inode)
{
	SITE(iput_final);
	struct super_block *sb = inode->i_sb;

	if (!generic_drop_inode(inode)) {
		if (sb_active(sb)) {
			/* Keep it cached.  The LRU lock nests outside i_lock,
			 * so i_lock has to go first...
			 *
			 * THE RACE ([PATCH 16/21]): from this unlock until the LRU
			 * add, the inode has count 0, no I_FREEING and no lock.
			 * Another CPU can find it in the hash, unlink it, drop
			 * the last reference and free it, and then we put a
			 * freed inode on the LRU.  Left in on purpose. */
			inode_state_set(inode, I_REFERENCED, __site);
			if (!(inode_state(inode) & (I_DIRTY | I_SYNC)) && !inode_on_lru(inode)) {
				spin_unlock(&inode->i_lock);
				inode_lru_list_add(inode);
				return;
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
	/* I_FREEING makes the inode ours: the LRU lock, which may not be
	 * taken under i_lock, can be taken once i_lock is dropped. */
	spin_unlock(&inode->i_lock);
	spin_lock(&icache.lru_lock);
	inode_lru_del(inode, __site);
	spin_unlock(&icache.lru_lock);
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
 * page cache.  Called with inode_lru_lock and i_lock held: pin it
 * (__iget), drop both, invalidate its pages, iput, retake the LRU lock.
 * Go on (true, both locks held) only if the inode is now at the young
 * end of the LRU and can_unuse still holds; i_lock nests inside the LRU
 * lock here, so no trylock.  The young-end test is 2.6.36's; with the
 * lazy LRU the inode stayed at the old end, so it passes only when it is
 * the only inode on the LRU (the series kept the 2.6.36 code here).
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
	spin_lock(&inode->i_lock);
	if (!can_unuse(inode)) {
		spin_unlock(&inode->i_lock);
		return false;
	}
	return true;
}

/*
 * prune_icache: the shrinker.  Walks the LRU from its old end holding
 * inode_lru_lock; i_lock nests inside it, so it just takes i_lock.  Busy
 * or dirty inodes are dropped from the LRU lazily here; I_REFERENCED ones
 * get a second chance.
 */
static long prune_icache(long nr)
{
	SITE(prune_icache);
	struct list_head freeable;
	struct inode *inode;
	long scanned, freed = 0;

	INIT_LIST_HEAD(&freeable);
	/* umount waits for us (down_write) until our dispose list is freed. */
	down_read(&icache.iprune_sem);
	spin_lock(&icache.lru_lock);
	for (scanned = 0; scanned < nr; scanned++) {
		inode = inode_lru_oldest();
		if (!inode)
			break;
		spin_lock(&inode->i_lock);
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
		/* Off the LRU in the same hold that sets I_FREEING. */
		inode_state_set(inode, I_FREEING, __site);
		inode_dispose_add(inode, &freeable, __site);
		spin_unlock(&inode->i_lock);
		freed++;
	}
	spin_unlock(&icache.lru_lock);
	dispose_list(&freeable);
	up_read(&icache.iprune_sem);
	return freed;
}

/*
 * invalidate_inodes, 2.6.36's shape: free every unused inode of a sb and
 * say whether any was busy; iprune_sem keeps prune_icache out.
 */
/*
 * V4 kept the invalidate_list/dispose_list pairing "but changed the
 * dispose list to use the i_sb_list pointer in the inode instead of the
 * i_lru to avoid needing to take the inode_lru_lock for every inode on
 * the superblock list" (the V4 cover letter): the walk moves each inode
 * it claims from s_inodes to its dispose list, and the LRU lock is taken
 * per inode only when the list is freed, with no list lock held.
 */
static void dispose_sb_list(struct list_head *head)
{
	SITE(dispose_list);
	struct inode *inode;

	while ((inode = inode_sb_dispose_pop(head, __site)) != NULL) {
		spin_lock(&icache.lru_lock);
		inode_lru_del(inode, __site);
		spin_unlock(&icache.lru_lock);
		evict(inode);
	}
}

static int invalidate_sb(struct super_block *sb, long *freed)
{
	SITE(invalidate_inodes);
	struct list_head dispose;
	struct list_head *pos, *next;
	int busy = 0;

	*freed = 0;
	INIT_LIST_HEAD(&dispose);
	/* Held for write throughout: prune_icache stays out (2.6.36). */
	down_write(&icache.iprune_sem);
	spin_lock(&sb->s_inode_list_lock);
	list_for_each_safe(pos, next, &sb->s_inodes) {
		struct inode *inode = list_entry(pos, struct inode, i_sb_list);

		spin_lock(&inode->i_lock);
		if (inode_state(inode) & (I_NEW | I_FREEING | I_WILL_FREE)) {
			spin_unlock(&inode->i_lock);
			continue;
		}
		if (atomic_load(&inode->i_count)) {
			spin_unlock(&inode->i_lock);
			busy = 1;
			continue;
		}
		inode_state_set(inode, I_FREEING, __site);
		spin_unlock(&inode->i_lock);
		inode_sb_dispose_add(inode, &dispose, __site);
		(*freed)++;
	}
	spin_unlock(&sb->s_inode_list_lock);
	dispose_sb_list(&dispose);
	up_write(&icache.iprune_sem);
	return busy;
}

/* umount's first call (2.6.36 named it invalidate_inodes). */
static long evict_inodes(struct super_block *sb)
{
	long freed;

	invalidate_sb(sb, &freed);
	return freed;
}

/* No kill_dirty yet (93b270f76e7, 2.6.38): every unused inode goes. */
static int invalidate_inodes(struct super_block *sb, bool kill_dirty)
{
	long freed;

	(void)kill_dirty;
	return invalidate_sb(sb, &freed);
}

/* ---- inode numbers --------------------------------------------------------------- */

static uint64_t iunique(struct super_block *sb, uint64_t max_reserved)
{
	SITE(iunique);
	struct hash_bucket *b;
	uint64_t res;
	bool used;

	spin_lock(&icache.iunique_lock);
	do {
		if (icache.iunique_counter <= max_reserved)
			icache.iunique_counter = max_reserved + 1;
		res = icache.iunique_counter++;
		b = inode_hash_bucket(sb, res);
		spin_lock(&b->lock);
		used = hash_chain_has(b, sb, res);
		spin_unlock(&b->lock);
	} while (used);
	spin_unlock(&icache.iunique_lock);
	return res;
}

/* ---- the table ------------------------------------------------------------------- */

static const struct lock_rule lock_order[] = {
	{ LC_s_umount, LC_iprune_sem },
	{ LC_iprune_sem, LC_hash_bucket },
	{ LC_iprune_sem, LC_inode_wb_list_lock },
	{ LC_iunique_lock, LC_hash_bucket },
	{ LC_hash_bucket, LC_inode_sb_list_lock },
	{ LC_hash_bucket, LC_i_lock },
	{ LC_inode_sb_list_lock, LC_inode_lru_lock },
	{ LC_inode_sb_list_lock, LC_i_lock },
	{ LC_inode_wb_list_lock, LC_i_lock },
	{ LC_inode_lru_lock, LC_i_lock },
};

const struct scheme scheme_inode_scale_v4 = {
	.name = "inode-scale-v4",
	.era = "Dave Chinner, Oct 2010: V4's locks, iput_final of [PATCH 16/21]",
	.summary = "[hash bucket, sb, wb, lru] > i_lock; no trylocks; iput_final "
		   "drops i_lock before the LRU add (the race)",
	.order = lock_order,
	.norder = sizeof(lock_order) / sizeof(lock_order[0]),
	.known_racy = true,
	.counters = COUNTERS_PERCPU,
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
