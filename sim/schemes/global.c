/*
 * global.c - the inode cache of Linux 2.6.36: one global inode_lock.
 *
 * This is where the 2010 debate started.  A single spinlock guards every
 * piece of the icache, so every operation on every CPU queues for it; the
 * lock statistics of this scheme are the bottleneck the later eras remove.
 *
 * What inode_lock protects (everything):
 *   the hash table and i_hash; sb->s_inodes and i_sb_list;
 *   the single i_list, which is on exactly one of inode_in_use,
 *   inode_unused (our LRU) or a bdi's b_dirty / b_io / b_more_io;
 *   i_state; the 0 -> 1 reference grab (__iget) and the final 1 -> 0 put
 *   (iput arrives holding it, by atomic_dec_and_lock); nr_unused;
 *   last_ino (new_inode's counter) and the iunique counter.
 * inode->i_lock exists but covers no icache state in this era.
 *
 * Lock order: among the simulated locks only iprune_sem, the sleeping
 * rw-lock that keeps prune_icache and umount apart, nests with it:
 *   iprune_sem
 *     inode_lock
 *
 * No I_REFERENCED yet (it came with the lazy LRU of 2.6.37): the LRU is
 * strict.  __iget of an unused inode moves it back to inode_in_use, iput
 * of the last reference moves it to the LRU, and prune_icache finds only
 * unused clean inodes there.  The handoff rule is the same as later: who
 * sets I_FREEING (or I_WILL_FREE) under inode_lock owns the inode.
 *
 * The inode keeps separate i_lru and i_wb_list links (the core has them),
 * but this scheme uses them as one i_list: moving an inode to a writeback
 * list takes it off inode_in_use / the LRU first, and back.
 *
 * Simplified (tests/fidelity/ holds the paths step by step):
 *   - unlock_new_inode and end_writeback take inode_lock for their i_state
 *     stores (2.6.36 did them unlocked); the core's checker wants them.
 *   - nr_unused is 2.6.36's: changed under inode_lock where 2.6.36 changed
 *     it, counting every unused inode, dirty ones too (COUNTERS_2636), so
 *     the shrinker's count includes inodes it cannot free.  nr_inodes is
 *     the core's per-CPU counter, not 2.6.36's int under inode_lock: at
 *     any still point the two sums agree, and the cost of the shared
 *     int's cache line is not something the simulator measures.
 *   - get_next_ino (a 2.6.37 function) is last_ino under inode_lock here.
 *   - the page cache is a count of clean pages (no buffers, no dirty
 *     pages left after writeback), see i_nrpages in icache.h.
 */
#include "sim/core/scheme.h"
#include "sim/core/violation.h"

static void evict(struct inode *inode);
static void iput(struct inode *inode);

/* ---- which lock guards what (the core checks these) ------------------- */

static struct sim_lock *state_lock(struct inode *inode)
{
	(void)inode;
	return &icache.inode_lock;
}

static struct sim_lock *list_lock(enum inode_list_id list, struct inode *inode)
{
	(void)inode;
	switch (list) {
	case LIST_hash:
	case LIST_sb:
	case LIST_lru:
	case LIST_in_use:
	case LIST_b_dirty:
	case LIST_b_io:
	case LIST_b_more_io:
		return &icache.inode_lock;
	default:
		return NULL; /* private dispose lists need no lock */
	}
}

/*
 * The one i_list of 2.6.36: take the inode off whichever of inode_in_use,
 * the LRU or a writeback list it is on.  inode_lock held.
 */
static void i_list_del(struct inode *inode, enum site site)
{
	inode_in_use_del(inode, site);
	inode_lru_del(inode, site);
	inode_wb_del(inode, site);
}

/*
 * __iget: a reference, taken under inode_lock.  The 0 -> 1 grab moves an
 * unused clean inode from the LRU back to inode_in_use: the strict LRU.
 */
static void __iget(struct inode *inode, enum site site)
{
	bool first = atomic_load(&inode->i_count) == 0;

	inode_ref_get(inode, site);
	if (!first)
		return;
	if (!(inode_state(inode) & (I_DIRTY | I_SYNC)))
		inode_in_use_add(inode, site);
	/* Every unused inode was counted, dirty or not. */
	nr_unused_add(-1);
}

/* ---- allocation and the hash ------------------------------------------- */

/* last_ino is one counter under inode_lock (per-CPU batches came later). */
static uint64_t get_next_ino(void)
{
	SITE(get_next_ino);
	uint64_t ino;

	spin_lock(&icache.inode_lock);
	ino = last_ino_next();
	spin_unlock(&icache.inode_lock);
	return ino;
}

/* new_inode: a fresh inode on inode_in_use and its sb list, not hashed. */
static struct inode *new_inode(struct super_block *sb, uint64_t ino)
{
	SITE(new_inode);
	struct inode *inode = alloc_inode(sb, 0);

	/* One hold: __inode_add_to_lists, i_ino = ++last_ino, i_state = 0. */
	spin_lock(&icache.inode_lock);
	/* 2.6.36 numbered every new inode from last_ino; a filesystem with
	 * numbers of its own overwrote it afterwards. */
	inode_set_ino(inode, last_ino_next());
	if (ino)
		inode_set_ino(inode, ino);
	inode_publish(inode);
	inode_in_use_add(inode, __site);
	inode_sb_list_add(inode, __site);
	inode_state_assign(inode, 0, __site);
	spin_unlock(&icache.inode_lock);
	return inode;
}

static void insert_inode_hash(struct inode *inode)
{
	SITE(insert_inode_hash);
	spin_lock(&icache.inode_lock);
	inode_hash_add(inode, __site);
	spin_unlock(&icache.inode_lock);
}

/*
 * insert_inode_locked: hash a new inode with I_NEW, unless a live inode
 * of that number is hashed: then wait for it to be set up, and if it is
 * still hashed, give up with -EBUSY; if it went away, try again.  2.6.36
 * set I_NEW before the loop, unlocked; we set it in the inserting hold.
 */
static int insert_inode_locked(struct inode *inode)
{
	SITE(insert_inode_locked);
	struct super_block *sb = inode->i_sb;
	struct hash_bucket *b = inode_hash_bucket(sb, inode->i_ino);
	struct inode *old;

	for (;;) {
		spin_lock(&icache.inode_lock);
		for (old = hash_chain_next(b, sb, inode->i_ino, NULL); old;
		     old = hash_chain_next(b, sb, inode->i_ino, old))
			if (!(inode_state(old) & (I_FREEING | I_WILL_FREE)))
				break;
		if (!old) {
			inode_state_set(inode, I_NEW, __site);
			inode_hash_add(inode, __site);
			spin_unlock(&icache.inode_lock);
			return 0;
		}
		__iget(old, __site);
		spin_unlock(&icache.inode_lock);
		wait_on_inode(old);
		bool busy = inode_hashed(old);
		iput(old);
		if (busy)
			return -EBUSY;
	}
}

/*
 * __wait_on_freeing_inode: called with inode_lock held on an inode that is
 * being freed.  Drop it, sleep until the inode is gone, retake it.  The
 * inode may no longer exist when we wake: the caller starts again.
 */
static void wait_on_freeing_inode(struct inode *inode)
{
	SITE(wait_on_freeing_inode);
	uint64_t token = wait_inode_prepare(inode);

	spin_unlock(&icache.inode_lock);
	wait_inode_token(inode, token, __site);
	spin_lock(&icache.inode_lock);
}

/*
 * find_inode_fast: look (sb, ino) up on its chain.  Called with inode_lock
 * held; may drop and retake it to wait.  It takes no reference: in 2.6.36
 * the callers __iget what it returns (f7899bd5472 moved that in, 2.6.37).
 */
static struct inode *find_inode_fast(struct super_block *sb, uint64_t ino)
{
	struct hash_bucket *b = inode_hash_bucket(sb, ino);
	struct inode *inode;

repeat:
	inode = hash_chain_find(b, sb, ino);
	if (!inode)
		return NULL;
	if (inode_state(inode) & (I_FREEING | I_WILL_FREE)) {
		wait_on_freeing_inode(inode);
		goto repeat;
	}
	return inode;
}

/* ifind_fast: the hit path of iget_locked and ilookup. */
static struct inode *ifind_fast(struct super_block *sb, uint64_t ino)
{
	SITE(ifind_fast);
	struct inode *inode;

	spin_lock(&icache.inode_lock);
	inode = find_inode_fast(sb, ino);
	if (inode)
		__iget(inode, __site);
	spin_unlock(&icache.inode_lock);
	if (inode)
		wait_on_inode(inode);
	return inode;
}

/*
 * get_new_inode_fast: the miss path of iget_locked.  Allocate without
 * locks, then look again under inode_lock: another CPU may have won.
 */
static struct inode *get_new_inode_fast(struct super_block *sb, uint64_t ino)
{
	SITE(get_new_inode_fast);
	struct inode *inode = alloc_inode(sb, ino);
	struct inode *old;

	spin_lock(&icache.inode_lock);
	old = find_inode_fast(sb, ino);
	if (!old) {
		inode_publish(inode);
		/* __inode_add_to_lists: in use, on the sb, hashed. */
		inode_in_use_add(inode, __site);
		inode_sb_list_add(inode, __site);
		inode_hash_add(inode, __site);
		inode_state_assign(inode, I_NEW, __site);
		spin_unlock(&icache.inode_lock);
		/* Returned with I_NEW set: the caller reads it in, then calls
		 * unlock_new_inode. */
		return inode;
	}
	__iget(old, __site);
	spin_unlock(&icache.inode_lock);
	/* Lost the race: ours was never visible, theirs may still be new. */
	destroy_inode(inode, __site);
	wait_on_inode(old);
	return old;
}

static struct inode *iget_locked(struct super_block *sb, uint64_t ino)
{
	struct inode *inode = ifind_fast(sb, ino);

	if (inode)
		return inode;
	return get_new_inode_fast(sb, ino);
}

/*
 * 2.6.36 cleared I_NEW without the lock, after a memory barrier, arguing
 * that nobody else may touch a new inode.  Our state checker holds every
 * i_state change to the scheme's lock, so we take inode_lock for it.
 */
static void unlock_new_inode(struct inode *inode)
{
	SITE(unlock_new_inode);
	spin_lock(&icache.inode_lock);
	inode_state_clear(inode, I_NEW, __site);
	wake_up_inode(inode);
	spin_unlock(&icache.inode_lock);
}

static struct inode *ilookup(struct super_block *sb, uint64_t ino)
{
	return ifind_fast(sb, ino);
}

/* igrab: a new reference, unless the inode is already on its way out. */
static struct inode *igrab(struct inode *inode)
{
	SITE(igrab);
	spin_lock(&icache.inode_lock);
	if (inode_state(inode) & (I_FREEING | I_WILL_FREE)) {
		spin_unlock(&icache.inode_lock);
		return NULL;
	}
	__iget(inode, __site);
	spin_unlock(&icache.inode_lock);
	return inode;
}

/* ihold: the caller already has a reference, so no lock is needed. */
static void ihold(struct inode *inode)
{
	SITE(ihold);
	inode_ref_get(inode, __site);
}

/* ---- writeback ------------------------------------------------------------ */

/* inode_wait_for_writeback: sleep until the writer clears I_SYNC. */
static void inode_wait_for_writeback(struct inode *inode)
{
	SITE(writeback_single_inode);

	while (inode_state(inode) & I_SYNC) {
		uint64_t token = wait_inode_prepare(inode);
		spin_unlock(&icache.inode_lock);
		wait_inode_token(inode, token, __site);
		spin_lock(&icache.inode_lock);
	}
}

/*
 * writeback_single_inode: called, and returns, with inode_lock held; drops
 * it while "writing".  I_SYNC keeps the inode ours meanwhile:
 * mark_inode_dirty leaves a syncing inode where it is.  Every page is
 * written (none stays tagged dirty), so the "slice used up" requeue after
 * the write is not taken.
 */
static void writeback_single_inode(struct inode *inode, struct bdi_writeback *wb,
				   enum wb_sync_mode sync_mode)
{
	SITE(writeback_single_inode);

	if (inode_state(inode) & I_SYNC) {
		if (sync_mode != WB_SYNC_ALL) {
			/* requeue_io: someone else is writing it. */
			inode_wb_move(inode, wb, LIST_b_more_io, __site);
			return;
		}
		/* A data-integrity sync must wait for that write. */
		inode_wait_for_writeback(inode);
	}
	inode_state_assign(inode, (inode_state(inode) | I_SYNC) & ~I_DIRTY_PAGES, __site);
	spin_unlock(&icache.inode_lock);

	/* do_writepages (and filemap_fdatawait for WB_SYNC_ALL) here. */

	/* The metadata bits are cleared just before write_inode. */
	spin_lock(&icache.inode_lock);
	inode_state_clear(inode, I_DIRTY_SYNC | I_DIRTY_DATASYNC, __site);
	spin_unlock(&icache.inode_lock);

	/* write_inode here, if it was dirty. */

	spin_lock(&icache.inode_lock);
	inode_state_clear(inode, I_SYNC, __site);
	if (!(inode_state(inode) & I_FREEING)) {
		if (inode_state(inode) & I_DIRTY) {
			/* Redirtied while we wrote it. */
			wb_redirty_tail(inode, wb, __site);
		} else {
			/* Clean: its i_list goes back to in-use or unused
			 * (nr_unused already counts an unused one). */
			inode_wb_del(inode, __site);
			if (atomic_load(&inode->i_count))
				inode_in_use_add(inode, __site);
			else
				inode_lru_add(inode, __site);
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

	spin_lock(&icache.inode_lock);
	wb_queue_io(wb, __site);
	while (written < nr && (inode = wb_io_oldest(wb)) != NULL) {
		if (inode_state(inode) & (I_NEW | I_WILL_FREE)) {
			/* requeue_io: not ours to write now.  Not counted: a
			 * pass that wrote nothing lets the flusher sleep. */
			inode_wb_move(inode, wb, LIST_b_more_io, __site);
			continue;
		}
		/* BUG_ON(inode->i_state & I_FREEING): whoever sets it takes
		 * the inode off its i_list first, in the same hold. */
		if (inode_state(inode) & I_FREEING) {
			report_violation(
				VIOL_invariant, LC_inode_lock, -1, __site, -1,
				this_cpu ? this_cpu->id : -1, -1, inode->i_ino,
				"BUG_ON(inode->i_state & I_FREEING) in writeback_sb_inodes: "
				"inode %llu is I_FREEING on b_io",
				(unsigned long long)inode->i_ino);
			inode_wb_del(inode, __site);
			continue;
		}
		__iget(inode, __site);
		writeback_single_inode(inode, wb, WB_SYNC_NONE);
		spin_unlock(&icache.inode_lock);
		written++;
		/* "Cannot iput under inode_lock": the final put takes it. */
		iput(inode);
		spin_lock(&icache.inode_lock);
	}
	spin_unlock(&icache.inode_lock);
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
	spin_lock(&icache.inode_lock);
	writeback_single_inode(inode, inode->i_sb->s_bdi, WB_SYNC_ALL);
	spin_unlock(&icache.inode_lock);
}

static void mark_inode_dirty(struct inode *inode, unsigned flags)
{
	SITE(mark_inode_dirty);
	bool was_dirty;

	/* Lockless fast path: already dirty in these ways. */
	if ((inode_state(inode) & flags) == flags)
		return;
	spin_lock(&icache.inode_lock);
	if ((inode_state(inode) & flags) == flags)
		goto out;
	was_dirty = inode_state(inode) & I_DIRTY;
	inode_state_set(inode, flags, __site);
	/* Writeback in progress will requeue it; unhashed or dying inodes
	 * are never queued. */
	if (inode_state(inode) & (I_SYNC | I_FREEING) || !inode_hashed(inode))
		goto out;
	if (!was_dirty) {
		/* One lock for all: the i_list moves from inode_in_use to
		 * b_dirty in the same hold. */
		i_list_del(inode, __site);
		inode_wb_dirty(inode, inode->i_sb->s_bdi, __site);
	}
out:
	spin_unlock(&icache.inode_lock);
}

/* ---- the end of an inode ---------------------------------------------------- */

/*
 * evict: the filesystem's part of the teardown of an inode marked
 * I_FREEING, which its owner has already taken off i_list (and, from
 * iput_final, off the sb list).  end_writeback waits out any writer and
 * marks it I_CLEAR; 2.6.36 stored that without inode_lock ("nobody else
 * touches it"), we take it for the core's state checker.
 */
static void evict(struct inode *inode)
{
	SITE(evict);

	/* The page cache goes first (truncate_inode_pages). */
	truncate_inode_pages(inode, __site);
	spin_lock(&icache.inode_lock);
	while (inode_state(inode) & I_SYNC) {
		uint64_t token = wait_inode_prepare(inode);
		spin_unlock(&icache.inode_lock);
		wait_inode_token(inode, token, __site);
		spin_lock(&icache.inode_lock);
	}
	inode_state_assign(inode, I_FREEING | I_CLEAR, __site);
	spin_unlock(&icache.inode_lock);
}

/*
 * After evict: unhash (and, for a dispose list, take off the sb list) in
 * a second inode_lock hold; then lookups sleeping in
 * __wait_on_freeing_inode may look again, and the memory goes.
 */
static void unhash_and_destroy(struct inode *inode, bool sb_list, enum site site)
{
	sim_spin_lock(&icache.inode_lock, site);
	inode_hash_del(inode, site);
	if (sb_list)
		inode_sb_list_del(inode, site);
	sim_spin_unlock(&icache.inode_lock, site);
	wake_up_inode(inode);
	destroy_inode(inode, site);
}

static void dispose_list(struct list_head *head)
{
	SITE(dispose_list);
	struct inode *inode;

	while ((inode = inode_dispose_pop(head, __site)) != NULL) {
		evict(inode);
		unhash_and_destroy(inode, true, __site);
	}
	/* inodes_stat.nr_inodes -= nr_disposed: one more hold, even for an
	 * empty list (the count itself is the core's per-CPU one). */
	spin_lock(&icache.inode_lock);
	spin_unlock(&icache.inode_lock);
}

/*
 * iput_final: the last reference is gone; called with inode_lock held.
 * 2.6.36 moved a clean inode to inode_unused before looking at MS_ACTIVE,
 * so even a dying sb's inode passes through the LRU; it unhashed that one
 * as soon as it was written, before I_FREEING.
 */
static void iput_final(struct inode *inode)
{
	SITE(iput_final);

	if (!generic_drop_inode(inode)) {
		if (!(inode_state(inode) & (I_DIRTY | I_SYNC)))
			inode_lru_add(inode, __site);
		nr_unused_add(1);
		if (sb_active(inode->i_sb)) {
			spin_unlock(&icache.inode_lock);
			return;
		}
		/* The sb is going away: write it out first.  I_WILL_FREE
		 * keeps everyone off while inode_lock is dropped. */
		inode_state_set(inode, I_WILL_FREE, __site);
		spin_unlock(&icache.inode_lock);
		write_inode_now(inode);
		spin_lock(&icache.inode_lock);
		inode_state_clear(inode, I_WILL_FREE, __site);
		nr_unused_add(-1);
		inode_hash_del(inode, __site);
	}
	/* The handoff: off every list but the hash, I_FREEING, one hold. */
	i_list_del(inode, __site);
	inode_sb_list_del(inode, __site);
	inode_state_set(inode, I_FREEING, __site);
	spin_unlock(&icache.inode_lock);
	evict(inode);
	unhash_and_destroy(inode, false, __site);
}

static void iput(struct inode *inode)
{
	SITE(iput);
	if (inode_ref_put_and_lock(inode, &icache.inode_lock, __site))
		iput_final(inode);
}

/* ---- reclaim ------------------------------------------------------------------ */

/*
 * prune_icache's page-stripping path: an unused inode pinned only by its
 * page cache.  With inode_lock held: pin it (__iget, which moves it to
 * inode_in_use), drop the lock, invalidate its pages, iput (which puts it
 * at the young end of inode_unused), retake the lock.  Go on (true) only
 * if it is there, at the head, and can_unuse still holds: "The right
 * inode is found 99.9% of the time in testing on a 4-way."
 */
static bool strip_pages(struct inode *inode)
{
	SITE(prune_icache);

	__iget(inode, __site);
	spin_unlock(&icache.inode_lock);
	invalidate_mapping_pages(inode, __site);
	iput(inode);
	spin_lock(&icache.inode_lock);
	if (inode != inode_lru_youngest())
		return false; /* wrong inode or list_empty */
	return can_unuse(inode);
}

/*
 * prune_icache: the shrinker.  Walks the LRU from its old end holding
 * inode_lock.  With a strict LRU every inode there should be unused and
 * clean; one that is not is moved to the young end, as 2.6.36 did.
 */
static long prune_icache(long nr)
{
	SITE(prune_icache);
	struct list_head freeable;
	struct inode *inode;
	long scanned, freed = 0;

	INIT_LIST_HEAD(&freeable);
	/* invalidate_inodes waits for us (down_write) until our dispose
	 * list is freed. */
	down_read(&icache.iprune_sem);
	spin_lock(&icache.inode_lock);
	for (scanned = 0; scanned < nr; scanned++) {
		inode = inode_lru_oldest();
		if (!inode)
			break;
		if (atomic_load(&inode->i_count) || inode_state(inode)) {
			inode_lru_rotate(inode, __site);
			continue;
		}
		if (inode_nrpages(inode) && !strip_pages(inode))
			continue;
		/* list_move to the dispose list, then I_FREEING, one hold. */
		inode_dispose_add(inode, &freeable, __site);
		inode_state_set(inode, I_FREEING, __site);
		freed++;
	}
	nr_unused_add(-freed);
	spin_unlock(&icache.inode_lock);
	dispose_list(&freeable);
	up_read(&icache.iprune_sem);
	return freed;
}

/*
 * invalidate_inodes (2.6.36): free every unused inode of a sb and say
 * whether any was busy.  iprune_sem, held for write throughout, keeps
 * prune_icache out: an inode the shrinker has put on its dispose list is
 * torn down before we walk, and none can be taken while we do.
 * 2.6.36 skipped only I_NEW here: with iprune_sem held, no I_FREEING
 * inode is on s_inodes (iput_final unlinks it first, prune is kept out).
 * We also skip I_FREEING and I_WILL_FREE, so that the no-iprune-sem
 * variant leaves prune's inodes to prune (a busy inode after umount)
 * instead of disposing of them twice.
 */
static int invalidate_sb(struct super_block *sb, long *freed)
{
	SITE(invalidate_inodes);
	struct list_head dispose;
	struct list_head *pos;
	int busy = 0;

	*freed = 0;
	INIT_LIST_HEAD(&dispose);
	down_write(&icache.iprune_sem);
	spin_lock(&icache.inode_lock);
	list_for_each(pos, &sb->s_inodes) {
		struct inode *inode = list_entry(pos, struct inode, i_sb_list);

		if (inode_state(inode) & (I_NEW | I_FREEING | I_WILL_FREE))
			continue;
		if (atomic_load(&inode->i_count)) {
			busy = 1;
			continue;
		}
		/* Its i_list, wherever it was, now threads the dispose list;
		 * then I_FREEING, in the same hold. */
		i_list_del(inode, __site);
		inode_dispose_add(inode, &dispose, __site);
		inode_state_set(inode, I_FREEING, __site);
		(*freed)++;
	}
	/* "only unused inodes may be cached with i_count zero" */
	nr_unused_add(-*freed);
	spin_unlock(&icache.inode_lock);
	dispose_list(&dispose);
	up_write(&icache.iprune_sem);
	return busy;
}

/* umount's first call ("bad name - it should be evict_inodes()"). */
static long evict_inodes(struct super_block *sb)
{
	long freed;

	invalidate_sb(sb, &freed);
	return freed;
}

/* 2.6.36 had no kill_dirty: every unused inode went, dirty or not. */
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
	uint64_t res;
	bool used;

	spin_lock(&icache.inode_lock);
	do {
		if (icache.iunique_counter <= max_reserved)
			icache.iunique_counter = max_reserved + 1;
		res = icache.iunique_counter++;
		used = hash_chain_has(inode_hash_bucket(sb, res), sb, res);
	} while (used);
	spin_unlock(&icache.inode_lock);
	return res;
}

/* ---- the table ------------------------------------------------------------------- */

/* One spinlock; only the sleeping iprune_sem nests outside it. */
static const struct lock_rule lock_order[] = {
	{ LC_s_umount, LC_iprune_sem },
	{ LC_iprune_sem, LC_inode_lock },
};

const struct scheme scheme_global = {
	.name = "global",
	.era = "2.6.36 (one global inode_lock)",
	.summary = "inode_lock covers hash, sb lists, the i_list, i_state, counters",
	.order = lock_order,
	.norder = sizeof(lock_order) / sizeof(lock_order[0]),
	.single_i_list = true,
	.counters = COUNTERS_2636,
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
