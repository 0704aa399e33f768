/*
 * scheme.h - the interface every locking scheme implements.
 *
 * A scheme is one era of the inode_lock debate: one file in sim/schemes/
 * that implements every icache operation with that era's locking.  The
 * operations and their names follow fs/inode.c and fs/fs-writeback.c; the
 * data structures and the lock-free helpers they use are in icache.h.
 * Because every scheme fills in the same table, `diff` between two scheme
 * files shows the locking change between two eras and nothing else.
 *
 * Rules for callers (the workloads): an inode pointer may be used only while
 * holding a reference (from iget_locked, ilookup, igrab, ihold or new_inode),
 * and every reference is given back with iput.
 */
#ifndef SIM_SCHEME_H
#define SIM_SCHEME_H

#include <errno.h>
#include <stdint.h>

#include "sim/core/icache.h"
#include "sim/core/lockdep.h"

/*
 * How an era kept inodes_stat (nr_inodes, nr_unused), where the choice
 * changes what a student can see: the shrinker's count, the final report,
 * the invariant checker's comparison.
 */
enum inode_counters {
	/* 2.6.38 on (86c8749ede0, 3e880fb5e4b): nr_inodes per CPU; nr_unused
	 * one counter, changed with the LRU under its lock: the LRU's length. */
	COUNTERS_LRU = 0,
	/* 2.6.37 (cffbc8aa334, the first patch of the V4 series): both are
	 * percpu_counters; nr_unused counts the LRU, each CPU its own share,
	 * summed (percpu_counter_sum_positive) when read. */
	COUNTERS_PERCPU,
	/* 2.6.36: plain ints under inode_lock; nr_unused counts every unused
	 * inode, dirty ones off the LRU too.  The scheme changes it where
	 * 2.6.36 did (nr_unused_add); the LRU helpers leave it alone. */
	COUNTERS_2636,
};

/* gfp_mask bits shrink_icache_memory looks at. */
#define __GFP_FS 0x80u
#define GFP_KERNEL 0xd0u
#define GFP_NOFS 0x50u /* an allocation from inside a filesystem */

/* writeback_control.sync_mode */
enum wb_sync_mode { WB_SYNC_NONE, WB_SYNC_ALL };

struct scheme {
	const char *name;
	const char *era;
	const char *summary; /* one line */
	/*
	 * The documented lock order, declared once, as data: the validator
	 * checks it, `icache-sim schemes` and the run_begin event print it
	 * (scheme_order_text) and every trace carries it as order_rule
	 * events, from which the viewer judges each edge it sees.
	 */
	const struct lock_rule *order;
	int norder;
	/*
	 * 2.6.36: one i_list per inode, on exactly one of inode_in_use, the
	 * LRU (inode_unused) or a writeback list, and a strict LRU without
	 * I_REFERENCED.  The invariant checker holds such a scheme to it.
	 */
	bool single_i_list;
	/*
	 * Built with a race the checkers are meant to catch (inode-scale-v4's
	 * iput_final): tests expect its reports instead of failing on them.
	 */
	bool known_racy;
	/* How nr_inodes and nr_unused are kept (see enum inode_counters). */
	enum inode_counters counters;
	/*
	 * The i_state bits of its era beyond 2.6.39's (I_LRU_ISOLATING,
	 * I_DIRTY_TIME, ...); 0 for the 2010 eras.  A scenario may ask for
	 * one (mark-dirty INO time) only where the era has it.
	 */
	unsigned newer_state;

	/* Which lock protects i_state, and each list, for the core's checks. */
	struct sim_lock *(*state_lock)(struct inode *inode);
	struct sim_lock *(*list_lock)(enum inode_list_id list, struct inode *inode);

	/*
	 * Allocation and lookup.  new_inode numbers the inode ino, or with
	 * get_next_ino() when ino is 0 (2.6.37 on, the filesystem numbers
	 * it; 2.6.36's new_inode did, from last_ino).  insert_inode_locked
	 * hashes a new inode with I_NEW unless a live one has its number:
	 * it waits for that one and returns -EBUSY if it is still hashed.
	 */
	struct inode *(*new_inode)(struct super_block *sb, uint64_t ino);
	void (*insert_inode_hash)(struct inode *inode);
	int (*insert_inode_locked)(struct inode *inode);
	/*
	 * insert_inode_locked4: the same through inode_insert5, iget5's
	 * insert (I_CREATING set before the inode is hashed).  NULL for an
	 * era without it; the simulator's test callback compares numbers.
	 */
	int (*insert_inode_locked4)(struct inode *inode);
	struct inode *(*iget_locked)(struct super_block *sb, uint64_t ino);
	void (*unlock_new_inode)(struct inode *inode);
	struct inode *(*ilookup)(struct super_block *sb, uint64_t ino);
	struct inode *(*igrab)(struct inode *inode);
	void (*ihold)(struct inode *inode);

	/* Dropping references; the last one may free the inode. */
	void (*iput)(struct inode *inode);
	/*
	 * d_mark_dontcache (fs/dcache.c): set I_DONTCACHE, so that the last
	 * iput evicts the inode instead of caching it.  NULL for an era
	 * without the bit.
	 */
	void (*d_mark_dontcache)(struct inode *inode);

	/* Writeback: mark dirty, and one pass of the flusher. */
	void (*mark_inode_dirty)(struct inode *inode, unsigned flags);
	long (*writeback_inodes)(struct bdi_writeback *wb, long nr);
	/*
	 * write_inode_now(inode, 1): write one inode with WB_SYNC_ALL, as
	 * fsync and iput_final on a dying sb do.  Unlike the flusher's
	 * WB_SYNC_NONE pass it does not requeue an inode that someone else
	 * is writing (I_SYNC): it waits for that write to end, then writes.
	 */
	void (*write_inode_now)(struct inode *inode);

	/*
	 * Reclaim.  prune_icache is the shrinker; evict_inodes is what
	 * umount calls (2.6.36 called it invalidate_inodes, with the comment
	 * "bad name - it should be evict_inodes()"; commit 63997e98a3b,
	 * "split invalidate_inodes()", gave it that name in 2.6.37).  Both
	 * return the inodes they freed.  invalidate_inodes is the other half
	 * of that split: free what is unused, treat dirty inodes as busy
	 * unless kill_dirty, and return whether any inode was busy.
	 */
	long (*prune_icache)(long nr);
	long (*evict_inodes)(struct super_block *sb);
	int (*invalidate_inodes)(struct super_block *sb, bool kill_dirty);

	/* Inode numbers. */
	uint64_t (*iunique)(struct super_block *sb, uint64_t max_reserved);
	uint64_t (*get_next_ino)(void);
};

/* The schemes, in historical order. */
extern const struct scheme scheme_global;
extern const struct scheme scheme_vfs_scale;
extern const struct scheme scheme_inode_scale_v4;
extern const struct scheme scheme_merged;
extern const struct scheme scheme_modern;

/* NULL-terminated list of the schemes that are built. */
extern const struct scheme *const all_schemes[];

const struct scheme *scheme_find(const char *name);
/* The scheme's source file as built ("sim/schemes/NAME.c") and its POSIX
 * cksum(1) CRC in *cksum; "" and 0 if unknown. */
const char *scheme_source(const struct scheme *s, uint32_t *cksum);

/*
 * generic_shutdown_super, the inode part (fs/super.c): with MS_ACTIVE
 * cleared, evict the sb's inodes, then complain if an unused one is left:
 * "VFS: Busy inodes after unmount" becomes a VIOL_busy_inodes report.
 * Returns the inodes freed.  Simplified: the dcache, sync_filesystem and
 * put_super are not modelled, and every era checks s_inodes as 2.6.37 on
 * did (2.6.36 asked a second invalidate_inodes).
 */
long generic_shutdown_super(struct super_block *sb);

/*
 * shrink_icache_memory (fs/inode.c, the icache shrinker, same in every
 * era): with nr, prune that many unless the allocation may not recurse
 * into filesystems (no __GFP_FS: return -1); then report what is left to
 * reclaim, (nr_unused / 100) * vfs_cache_pressure.
 */
long shrink_icache_memory(long nr, unsigned gfp_mask);

/* The documented order as one line: "a > b; c > d" (a static buffer). */
const char *scheme_order_text(const struct scheme *s);

/* Shared by the schemes: has the superblock been deactivated by umount? */
static inline bool sb_active(const struct super_block *sb)
{
	return atomic_load_explicit(&sb->s_flags, memory_order_acquire) & MS_ACTIVE;
}

/*
 * generic_drop_inode: evict on the last iput if the inode is unlinked or
 * unhashed.  Same rule in every era.
 */
static inline bool generic_drop_inode(const struct inode *inode)
{
	return atomic_load_explicit(&inode->i_nlink, memory_order_relaxed) == 0 ||
	       !inode_hashed(inode);
}

#endif /* SIM_SCHEME_H */
