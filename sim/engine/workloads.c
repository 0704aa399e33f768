/*
 * workloads.c - what the simulated CPUs do.
 *
 * Each workload is one function that performs one operation on one CPU.
 * Every operation gives back every reference it took before it returns, so
 * when a run stops the cache is quiescent: no references, no I_NEW, nothing
 * half done, and the invariant checker can hold it to its strictest rules.
 *
 * Inode numbers: create-unlink numbers its inodes with get_next_ino(),
 * which stays below 2^32; lookups use fixed numbers from 2^32 up, so the two
 * never collide.
 */
/* The lines this file's call sites mark (sim/core/lock.h). */
#define SRC_FILE_ID SRC_workloads

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/core/trace.h"
#include "sim/engine/run.h"

#define LOOKUP_BASE (1ull << 32)
#define PRIVATE_BASE (1ull << 40)

static const struct scheme *S(struct run_ctx *ctx)
{
	return run_cfg(ctx)->scheme;
}

static uint64_t hot_ino(struct run_ctx *ctx, struct sim_cpu *c, struct super_block *sb,
			unsigned range)
{
	(void)ctx;
	return LOOKUP_BASE + ((uint64_t)sb->s_id << 24) + sim_rand(c) % range;
}

/* iget_locked, and if the inode is new, "read it from disk". */
static struct inode *get_inode(struct run_ctx *ctx, struct super_block *sb, uint64_t ino)
{
	struct inode *inode = S(ctx)->iget_locked(sb, ino);
	if (inode_state(inode) & I_NEW)
		S(ctx)->unlock_new_inode(inode);
	return inode;
}

/* ---- create-unlink: the benchmark of the v4 series' cover letter ------- */

static void op_create_unlink(struct run_ctx *ctx, struct sim_cpu *c)
{
	struct super_block *sb = run_shared_sb(ctx, c);

	trace_op_begin(c, OP_create, 0);
	struct inode *inode = S(ctx)->new_inode(sb, 0);
	S(ctx)->insert_inode_hash(inode);
	S(ctx)->mark_inode_dirty(inode, I_DIRTY_SYNC | I_DIRTY_DATASYNC);
	trace_op_end(c, OP_create, inode->i_ino, 0);

	trace_op_begin(c, OP_unlink, inode->i_ino);
	uint64_t ino = inode->i_ino;
	inode_drop_nlink(inode, SITE_unlink);
	S(ctx)->iput(inode); /* the last reference: evicted */
	trace_op_end(c, OP_unlink, ino, 0);
}

/* ---- lookup: a hot set of cached inodes --------------------------------- */

static void do_lookup(struct run_ctx *ctx, struct sim_cpu *c, unsigned range)
{
	struct super_block *sb = run_shared_sb(ctx, c);
	uint64_t ino = hot_ino(ctx, c, sb, range);
	unsigned pick = (unsigned)(sim_rand(c) % 16);

	if (pick == 0) {
		/* ilookup: find it only if cached. */
		trace_op_begin(c, OP_ilookup, ino);
		struct inode *inode = S(ctx)->ilookup(sb, ino);
		trace_op_end(c, OP_ilookup, ino, inode != NULL);
		if (inode)
			S(ctx)->iput(inode);
		return;
	}
	trace_op_begin(c, OP_iget, ino);
	struct inode *inode = get_inode(ctx, sb, ino);
	trace_op_end(c, OP_iget, ino, 0);
	if (pick == 1) {
		/* A second user: igrab (may fail) and ihold. */
		trace_op_begin(c, OP_igrab, ino);
		struct inode *again = S(ctx)->igrab(inode);
		trace_op_end(c, OP_igrab, ino, again != NULL);
		if (again)
			S(ctx)->iput(again);
		S(ctx)->ihold(inode);
		S(ctx)->iput(inode);
	}
	if (pick == 2) {
		/* Read the file: its page cache pins it in prune_icache. */
		trace_op_begin(c, OP_read_pages, ino);
		inode_add_pages(inode, 1 + (long)(sim_rand(c) % 4), SITE_workload);
		trace_op_end(c, OP_read_pages, ino, inode_nrpages(inode));
	}
	trace_op_begin(c, OP_iput, ino);
	S(ctx)->iput(inode);
	trace_op_end(c, OP_iput, ino, 0);
}

static void op_lookup(struct run_ctx *ctx, struct sim_cpu *c)
{
	do_lookup(ctx, c, run_cfg(ctx)->hot);
}

/* ---- writeback: dirty cached inodes for the flusher --------------------- */

static void op_writeback(struct run_ctx *ctx, struct sim_cpu *c)
{
	struct super_block *sb = run_shared_sb(ctx, c);
	uint64_t ino = hot_ino(ctx, c, sb, run_cfg(ctx)->hot);

	trace_op_begin(c, OP_mark_dirty, ino);
	struct inode *inode = get_inode(ctx, sb, ino);
	S(ctx)->mark_inode_dirty(inode, (sim_rand(c) & 1) ? I_DIRTY_PAGES : I_DIRTY_SYNC);
	trace_op_end(c, OP_mark_dirty, ino, 0);
	if ((sim_rand(c) & 7) == 0 && S(ctx)->write_inode_now) {
		/* fsync: a WB_SYNC_ALL write, which waits for the flusher if
		 * it is writing this inode right now. */
		trace_op_begin(c, OP_write_inode, ino);
		S(ctx)->write_inode_now(inode);
		trace_op_end(c, OP_write_inode, ino, 0);
	}
	S(ctx)->iput(inode);
}

/* ---- pressure: the shrinker against lookups and iput -------------------- */

/*
 * The VM's shrink_slab, much simplified: past the cache limit, ask the
 * icache shrinker to scan the excess scaled by vfs_cache_pressure / 100
 * (the kernel scales by pages scanned over LRU pages, not modelled).  One
 * call in four comes from an allocation inside a filesystem (GFP_NOFS),
 * which the shrinker refuses.  The op's result is the shrinker's answer:
 * -1, or what it counts as left to reclaim.
 */
static void shrink(struct run_ctx *ctx, struct sim_cpu *c)
{
	long limit = (long)run_cfg(ctx)->cache_limit;
	long unused = get_nr_unused();

	if (unused <= limit)
		return;
	unsigned gfp = (sim_rand(c) & 3) == 0 ? GFP_NOFS : GFP_KERNEL;
	long nr = (unused - limit + 16) * icache.vfs_cache_pressure / 100;
	trace_op_begin(c, OP_shrink, 0);
	long left = shrink_icache_memory(nr, gfp);
	trace_op_end(c, OP_shrink, 0, left);
}

static void op_pressure(struct run_ctx *ctx, struct sim_cpu *c)
{
	/* Look up over four times more inodes than the cache may keep. */
	do_lookup(ctx, c, run_cfg(ctx)->cache_limit * 4);
	if ((sim_rand(c) & 7) == 0)
		shrink(ctx, c);
}

/* ---- umount: mount, use, unmount a private superblock ------------------- */

#define UMOUNT_INODES 32

static void op_umount(struct run_ctx *ctx, struct sim_cpu *c)
{
	struct super_block *sb = run_private_sb(ctx, c);
	struct inode *held[UMOUNT_INODES];
	uint64_t base = PRIVATE_BASE + ((uint64_t)c->id << 24);

	trace_op_begin(c, OP_mount, sb->s_id);
	atomic_fetch_or(&sb->s_flags, MS_ACTIVE);
	for (int i = 0; i < UMOUNT_INODES; i++) {
		held[i] = get_inode(ctx, sb, base + (uint64_t)i);
		if (i % 3 == 0)
			S(ctx)->mark_inode_dirty(held[i], I_DIRTY_PAGES);
	}
	/* Half go back to the cache (onto the LRU, or the wb lists). */
	for (int i = 0; i < UMOUNT_INODES; i += 2)
		S(ctx)->iput(held[i]);
	trace_op_end(c, OP_mount, sb->s_id, 0);

	trace_op_begin(c, OP_umount, sb->s_id);
	atomic_fetch_and(&sb->s_flags, ~MS_ACTIVE);
	/* The rest are put while the sb is dying: I_WILL_FREE, then I_FREEING. */
	for (int i = 1; i < UMOUNT_INODES; i += 2)
		S(ctx)->iput(held[i]);
	/*
	 * The flusher may still hold one for a moment: the kernel keeps it
	 * off a sb being unmounted (s_umount, sync_filesystem), which we do
	 * not model, so the workload evicts until the sb is empty rather
	 * than report it busy.
	 */
	long freed = 0;
	while (atomic_load(&sb->s_nr_inodes) > 0) {
		freed += S(ctx)->evict_inodes(sb);
		if (atomic_load(&sb->s_nr_inodes) > 0)
			sched_yield();
	}
	trace_op_end(c, OP_umount, sb->s_id, freed);
}

/* ---- iput-race: the window of [PATCH 16/21]'s iput_final, provoked ----- */

/*
 * Every CPU looks up one of a handful of hot inodes and drops it again; one
 * time in four it unlinks it first, so the last iput frees it.  A plain put
 * takes the "keep it cached" path of iput_final, which in inode-scale-v4
 * drops i_lock before taking the LRU lock.  When that LRU lock is contended
 * the putting CPU sleeps in the window, and another CPU has time to find
 * the same inode, unlink it and free it: the handoff checker then sees the
 * freed inode put on the LRU.  Correct schemes must shrug this off.
 */
#define IPUT_RACE_HOT 4

static void op_iput_race(struct run_ctx *ctx, struct sim_cpu *c)
{
	struct super_block *sb = &icache.sbs[0];
	uint64_t ino = hot_ino(ctx, c, sb, IPUT_RACE_HOT);

	trace_op_begin(c, OP_iget, ino);
	struct inode *inode = get_inode(ctx, sb, ino);
	trace_op_end(c, OP_iget, ino, 0);
	if ((sim_rand(c) & 3) == 0) {
		trace_op_begin(c, OP_unlink, ino);
		inode_drop_nlink(inode, SITE_unlink);
		S(ctx)->iput(inode);
		trace_op_end(c, OP_unlink, ino, 0);
		return;
	}
	trace_op_begin(c, OP_iput, ino);
	S(ctx)->iput(inode);
	trace_op_end(c, OP_iput, ino, 0);
}

/* ---- mixed: a bit of everything ------------------------------------------ */

static void op_mixed(struct run_ctx *ctx, struct sim_cpu *c)
{
	unsigned r = (unsigned)(sim_rand(c) % 100);

	if (r < 40)
		do_lookup(ctx, c, run_cfg(ctx)->hot);
	else if (r < 55)
		op_create_unlink(ctx, c);
	else if (r < 70)
		op_writeback(ctx, c);
	else if (r < 88)
		op_pressure(ctx, c);
	else if (r < 89)
		op_umount(ctx, c);
	else if (r < 92) {
		struct super_block *sb = run_shared_sb(ctx, c);
		trace_op_begin(c, OP_iunique, 0);
		uint64_t ino = S(ctx)->iunique(sb, LOOKUP_BASE);
		trace_op_end(c, OP_iunique, ino, 0);
	} else {
		shrink(ctx, c);
		do_lookup(ctx, c, run_cfg(ctx)->cache_limit * 2);
	}
}

/* The workloads, in the order `icache-sim workloads` lists them: name,
 * summary, whether it needs the flusher, its operation, its teardown. */
static const struct workload workloads[] = {
	{ "create-unlink", "create, dirty and unlink fresh inodes (the v4 series' benchmark)", true,
	  op_create_unlink, NULL },
	{ "lookup", "iget/iput over a hot set of cached inodes, some ilookup and igrab", false,
	  op_lookup, NULL },
	{ "writeback", "dirty cached inodes while the flusher writes them back", true, op_writeback,
	  NULL },
	{ "pressure", "lookups over a set larger than the cache; the shrinker prunes the LRU",
	  false, op_pressure, NULL },
	{ "umount", "mount a private sb, use it, unmount it (I_WILL_FREE, evict_inodes)", true,
	  op_umount, NULL },
	{ "mixed", "all of the above at once, with the flusher and the shrinker", true, op_mixed,
	  NULL },
	{ "iput-race",
	  "lookup, unlink and iput on a few hot inodes (provokes the v4 iput_final race)", false,
	  op_iput_race, NULL },
};

const struct workload *const all_workloads[] = {
	&workloads[0], &workloads[1], &workloads[2], &workloads[3],
	&workloads[4], &workloads[5], &workloads[6], NULL,
};
_Static_assert(sizeof(all_workloads) / sizeof(all_workloads[0]) ==
		       sizeof(workloads) / sizeof(workloads[0]) + 1,
	       "every workload is in all_workloads");

const struct workload *workload_find(const char *name)
{
	for (int i = 0; all_workloads[i]; i++)
		if (strcmp(all_workloads[i]->name, name) == 0)
			return all_workloads[i];
	return NULL;
}

/* ---- --inject-abba: a deliberate deadlock, for testing the validator ---- */

/*
 * Wrapped around any workload, this makes cpu0 and cpu1 start by taking two
 * test locks in opposite orders, each waiting until the other holds its
 * first lock, so the inversion really deadlocks.  The validator must report
 * the circular dependency (both chains) as the second lock is requested,
 * and the watchdog must then report the deadlock and end the run.  With a
 * single CPU the two orders are taken one after the other instead: the
 * cycle is reported and nothing hangs.
 */
static struct sim_lock abba_a, abba_b;
static pthread_once_t abba_once = PTHREAD_ONCE_INIT;
static atomic_int abba_holding[2];
static atomic_bool abba_started[2];
static const struct workload *abba_inner;

static void abba_init(void)
{
	sim_lock_init(&abba_a, LC_test_lock_a, 1);
	sim_lock_init(&abba_b, LC_test_lock_b, 1);
}

static void abba_cross(struct run_ctx *ctx, struct sim_cpu *c)
{
	SITE(test_abba);
	struct sim_lock *first = c->id == 0 ? &abba_a : &abba_b;
	struct sim_lock *second = c->id == 0 ? &abba_b : &abba_a;

	if (run_cfg(ctx)->ncpus < 2) {
		spin_lock(&abba_a);
		spin_lock(&abba_b);
		spin_unlock(&abba_b);
		spin_unlock(&abba_a);
		spin_lock(&abba_b);
		spin_lock(&abba_a); /* closes the cycle, alone */
		spin_unlock(&abba_a);
		spin_unlock(&abba_b);
		return;
	}
	spin_lock(first);
	atomic_store(&abba_holding[c->id], 1);
	/* A bounded wait, so a partner that never comes cannot hang us. */
	for (int i = 0; i < 2000 && !atomic_load(&abba_holding[!c->id]); i++)
		usleep(1000);
	spin_lock(second); /* the other CPU holds it: stuck */
	spin_unlock(second);
	spin_unlock(first);
}

static void op_abba(struct run_ctx *ctx, struct sim_cpu *c)
{
	if (c->id < 2 && !atomic_exchange(&abba_started[c->id], true)) {
		trace_op_begin(c, OP_test, 0);
		abba_cross(ctx, c);
		trace_op_end(c, OP_test, 0, 0);
	}
	abba_inner->op(ctx, c);
}

const struct workload *workload_with_abba(const struct workload *inner)
{
	static char name[64];
	static struct workload wl;

	pthread_once(&abba_once, abba_init);
	abba_inner = inner;
	snprintf(name, sizeof(name), "%s+abba", inner->name);
	wl.name = name;
	wl.summary = "the workload, after cpu0 and cpu1 deadlock on an ABBA pair";
	/* No flusher: with two CPUs stuck, the watchdog must see no one
	 * making progress at all. */
	wl.flusher = false;
	wl.op = op_abba;
	wl.teardown = inner->teardown;
	return &wl;
}
