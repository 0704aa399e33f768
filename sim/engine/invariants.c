/*
 * invariants.c - the invariant checker.
 *
 * Run on a still cache (every CPU parked between operations, or the run
 * over), it walks every structure and checks that they agree:
 *   - everything reachable from a list is a live inode (no freed inode is
 *     reachable), and each link says which list it is on;
 *   - every hashed or listed inode is on its superblock's s_inodes;
 *   - nr_unused equals the LRU's length (2.6.36: the number of unused
 *     inodes, on the LRU or not), nr_inodes the number of inodes;
 *   - no inode is half way through something (I_NEW, I_FREEING, I_SYNC);
 *   - a dirty hashed inode is on a writeback list, and (schemes with a
 *     lazy LRU) an unused clean inode is on the LRU, or reclaim could never
 *     find it again (but for today's I_LRU_ISOLATING window, which the
 *     kernel has too: lost_in_lru_window);
 *   - at the end of a run no references are left: refcounts balance.
 * Each failure is reported as an "invariant" violation.
 */
#include <stdio.h>

#include "sim/core/scheme.h"
#include "sim/core/violation.h"
#include "sim/engine/run.h"

static uint32_t pass; /* stamp for i_check, one per walk */
static int failures;
static bool corrupt;    /* some list does not come back to its head */
static long walk_limit; /* no list can be longer than this */
static long unused;     /* inodes on sb lists with no reference, not dying */
static long lru_window; /* unused inodes off the LRU by I_LRU_ISOLATING */

#define FAIL(ino, ...)                                                                      \
	do {                                                                                \
		failures++;                                                                 \
		report_violation(VIOL_invariant, -1, -1, -1, -1, -1, -1, ino, __VA_ARGS__); \
	} while (0)

/*
 * A racy scheme (inode-scale-v4) can leave a list whose links no longer
 * lead back to its head.  No list can hold more inodes than were ever
 * made, so a walk that goes further is going round a broken ring: say so
 * once and stop, rather than walk forever.
 */
static bool walked_too_far(long *steps, const char *where)
{
	if (++*steps <= walk_limit)
		return false;
	failures++;
	corrupt = true;
	report_violation(VIOL_invariant, -1, -1, -1, -1, -1, -1, 0,
			 "invariant: %s is corrupt: its links do not lead back to "
			 "its head",
			 where);
	return true;
}

bool icache_lists_corrupt(void)
{
	return corrupt;
}

static bool live(const struct inode *inode, const char *where)
{
	if (inode->i_magic == INODE_MAGIC)
		return true;
	failures++;
	corrupt = true; /* its links cannot be trusted past here */
	report_violation(VIOL_freed_on_list, -1, -1, -1, -1, -1, -1, inode->i_ino,
			 "invariant: freed inode %llu is still on %s",
			 (unsigned long long)inode->i_ino, where);
	return false;
}

/*
 * Schemes with a single i_list (2.6.36): the link is on inode_in_use, the
 * LRU or a writeback list, never on two; I_REFERENCED does not exist yet;
 * and at rest, with no references left, nothing is still "in use".
 */
static void check_single_i_list(const struct inode *inode, bool quiescent)
{
	bool on_lru_link = inode->i_lru_on == LIST_lru || inode->i_lru_on == LIST_in_use;

	if (on_lru_link && inode_on_wb(inode))
		FAIL(inode->i_ino,
		     "invariant: inode %llu is on %s and on a "
		     "writeback list at once, but it has only one i_list",
		     (unsigned long long)inode->i_ino,
		     inode->i_lru_on == LIST_lru ? "the LRU" : "inode_in_use");
	if (inode_state(inode) & I_REFERENCED)
		FAIL(inode->i_ino,
		     "invariant: inode %llu has I_REFERENCED, "
		     "which this era's strict LRU does not have",
		     (unsigned long long)inode->i_ino);
	if (quiescent && inode->i_lru_on == LIST_in_use)
		FAIL(inode->i_ino,
		     "invariant: unused inode %llu is still on "
		     "inode_in_use after the run",
		     (unsigned long long)inode->i_ino);
}

/*
 * An unused clean inode off the LRU is a leak from reclaim, with one
 * exception that today's kernel has too (fs/inode.c at 003a6607304d): a
 * second shrinker finds an inode the first pinned with I_LRU_ISOLATING to
 * strip its pages, and drops it from the list as it drops any inode with a
 * state bit; the first one's unpin does not put it back.  Its next iput
 * does.  Counted, and shown after the invariants line.
 */
static bool lost_in_lru_window(const struct inode *inode)
{
	if (!inode->i_lru_dropped_pinned)
		return false;
	lru_window++;
	return true;
}

long invariants_lru_window(void)
{
	return lru_window;
}

/* Mark every inode of every sb; check what needs only the inode. */
static long walk_sb_lists(bool quiescent)
{
	long n = 0;
	for (int s = 0; s < icache.nsbs; s++) {
		struct super_block *sb = &icache.sbs[s];
		struct list_head *pos;
		long len = 0, steps = 0;
		list_for_each(pos, &sb->s_inodes) {
			struct inode *inode = list_entry(pos, struct inode, i_sb_list);
			if (walked_too_far(&steps, "an sb's s_inodes"))
				break;
			len++;
			if (!live(inode, "an sb list"))
				continue;
			inode->i_check = pass;
			if (atomic_load(&inode->i_count) == 0 &&
			    !(inode_state(inode) & (I_FREEING | I_WILL_FREE)))
				unused++;
			if (inode->i_sb != sb)
				FAIL(inode->i_ino,
				     "invariant: inode %llu is on the "
				     "s_inodes of sb %d but belongs to sb %u",
				     (unsigned long long)inode->i_ino, s, inode->i_sb->s_id);
			if (icache.scheme->single_i_list)
				check_single_i_list(inode, quiescent);
			if (inode_hashed(inode) != !hlist_unhashed(&inode->i_hash))
				FAIL(inode->i_ino,
				     "invariant: inode %llu says it is "
				     "%shashed but its hash link says otherwise",
				     (unsigned long long)inode->i_ino,
				     inode_hashed(inode) ? "" : "not ");
			if (!quiescent)
				continue;
			unsigned st = inode_state(inode);
			int count = atomic_load(&inode->i_count);
			if (count != 0)
				FAIL(inode->i_ino,
				     "invariant: inode %llu still has "
				     "%d references after the run (refcounts do "
				     "not balance)",
				     (unsigned long long)inode->i_ino, count);
			if (st &
			    (I_NEW | I_FREEING | I_WILL_FREE | I_CLEAR | I_SYNC | I_LRU_ISOLATING))
				FAIL(inode->i_ino,
				     "invariant: inode %llu is left in "
				     "state 0x%x after the run",
				     (unsigned long long)inode->i_ino, st);
			if ((st & I_DIRTY) && inode_hashed(inode) && !inode_on_wb(inode))
				FAIL(inode->i_ino,
				     "invariant: inode %llu is dirty "
				     "but on no writeback list",
				     (unsigned long long)inode->i_ino);
			if (!inode_hashed(inode))
				FAIL(inode->i_ino,
				     "invariant: unhashed inode %llu "
				     "with no users was never evicted",
				     (unsigned long long)inode->i_ino);
			if (count == 0 && !(st & I_DIRTY) && inode_hashed(inode) && sb_active(sb) &&
			    !inode_on_lru(inode) && !lost_in_lru_window(inode))
				FAIL(inode->i_ino,
				     "invariant: unused clean inode "
				     "%llu is not on the LRU: reclaim can never "
				     "find it",
				     (unsigned long long)inode->i_ino);
		}
		if (len != atomic_load(&sb->s_nr_inodes))
			FAIL(0,
			     "invariant: sb %d counts %ld inodes but its list "
			     "has %ld",
			     s, (long)atomic_load(&sb->s_nr_inodes), len);
		n += len;
	}
	return n;
}

static bool being_freed(const struct inode *inode)
{
	return inode_state(inode) & (I_FREEING | I_WILL_FREE);
}

/* At most one live inode per (sb, ino) in the hash: look for a twin of
 * inode further down its chain (chains are short; bounded like a walk). */
static void check_no_twin(struct hlist_node *from, const struct inode *inode)
{
	long steps = 0;
	if (being_freed(inode))
		return;
	for (struct hlist_node *n = from->next; n && steps++ < walk_limit; n = n->next) {
		const struct inode *o = container_of(n, struct inode, i_hash);
		if (o->i_magic != INODE_MAGIC)
			return;
		if (o->i_ino == inode->i_ino && o->i_sb == inode->i_sb && !being_freed(o)) {
			failures++;
			report_violation(VIOL_duplicate_inode, -1, -1, -1, -1, -1, -1, inode->i_ino,
					 "invariant: two live inodes for (sb %u, ino %llu) "
					 "are hashed",
					 inode->i_sb->s_id, (unsigned long long)inode->i_ino);
			return;
		}
	}
}

static void walk_hash(void)
{
	size_t nb = (size_t)1 << icache.hash_bits;
	for (size_t i = 0; i < nb; i++) {
		struct hlist_node *n;
		long steps = 0;
		hlist_for_each(n, &icache.hash[i].head) {
			struct inode *inode = container_of(n, struct inode, i_hash);
			if (walked_too_far(&steps, "a hash chain"))
				break;
			if (!live(inode, "a hash chain"))
				break; /* its links cannot be trusted */
			if (inode_hash_bucket(inode->i_sb, inode->i_ino) != &icache.hash[i])
				FAIL(inode->i_ino,
				     "invariant: inode %llu is on the "
				     "wrong hash chain",
				     (unsigned long long)inode->i_ino);
			if (inode->i_check != pass)
				FAIL(inode->i_ino,
				     "invariant: hashed inode %llu is "
				     "on no sb list",
				     (unsigned long long)inode->i_ino);
			check_no_twin(n, inode);
		}
	}
}

/*
 * What every walk of a list threaded through a link of the inode checks
 * of each member: the walk is not going round a broken list, the inode is
 * alive, its link names this list (on: what the link says; want: this
 * list) and the sb walk met it.  false: stop, the links cannot be trusted.
 */
static bool member_ok(const struct inode *inode, long *steps, const char *where, int on, int want)
{
	if (walked_too_far(steps, where) || !live(inode, where))
		return false;
	if (on != want)
		FAIL(inode->i_ino, "invariant: inode %llu is on %s but its link says list %d",
		     (unsigned long long)inode->i_ino, where, on);
	if (inode->i_check != pass)
		FAIL(inode->i_ino, "invariant: inode %llu is on %s but on no sb list",
		     (unsigned long long)inode->i_ino, where);
	return true;
}

/* One LRU list: the global one (2.6.36..2.6.39) or a node of an sb's
 * list_lru (today).  Returns its length. */
static long walk_lru_list(struct list_head *head, const char *where)
{
	long len = 0, steps = 0;
	struct list_head *pos;
	list_for_each(pos, head) {
		struct inode *inode = list_entry(pos, struct inode, i_lru);
		if (walked_too_far(&steps, where))
			return len;
		len++;
		if (!live(inode, where))
			break;
		if (inode->i_lru_on != LIST_lru)
			FAIL(inode->i_ino,
			     "invariant: inode %llu is on %s "
			     "but its link says list %d",
			     (unsigned long long)inode->i_ino, where, inode->i_lru_on);
		if (inode_state(inode) & I_FREEING)
			FAIL(inode->i_ino,
			     "invariant: inode %llu is on %s "
			     "with I_FREEING set",
			     (unsigned long long)inode->i_ino, where);
		if (inode->i_check != pass)
			FAIL(inode->i_ino,
			     "invariant: inode %llu is on %s "
			     "but on no sb list",
			     (unsigned long long)inode->i_ino, where);
	}
	return len;
}

static long walk_lru(void)
{
	long len = walk_lru_list(&icache.inode_lru, "the LRU");

	for (int i = 0; i < icache.nsbs; i++) {
		struct list_lru *lru = &icache.sbs[i].s_inode_lru;
		for (int nid = 0; nid < lru->nr_nodes; nid++) {
			long n = walk_lru_list(&lru->node[nid].list, "an sb's list_lru");
			if (n != list_lru_count_node(lru, nid))
				FAIL(0,
				     "invariant: node %d of sb %d's list_lru counts %ld "
				     "but holds %ld inodes",
				     nid, i, list_lru_count_node(lru, nid), n);
			len += n;
		}
	}
	if (icache.scheme->counters == COUNTERS_2636) {
		if (unused != get_nr_unused())
			FAIL(0, "invariant: nr_unused is %ld but %ld inodes are unused",
			     get_nr_unused(), unused);
	} else if (len != get_nr_unused()) {
		FAIL(0, "invariant: nr_unused is %ld but the LRU holds %ld inodes", get_nr_unused(),
		     len);
	}
	return len;
}

/* 2.6.36's inode_in_use shares the i_lru link with the LRU. */
static void walk_in_use(void)
{
	struct list_head *pos;
	long steps = 0;
	list_for_each(pos, &icache.inode_in_use) {
		struct inode *inode = list_entry(pos, struct inode, i_lru);
		if (!member_ok(inode, &steps, "inode_in_use", inode->i_lru_on, LIST_in_use))
			break;
	}
}

static void walk_wb(struct list_head *head, enum inode_list_id id, const char *name)
{
	struct list_head *pos;
	long steps = 0;
	list_for_each(pos, head) {
		struct inode *inode = list_entry(pos, struct inode, i_wb_list);
		if (!member_ok(inode, &steps, name, inode->i_wb_on, id))
			break;
	}
}

int check_invariants(bool quiescent)
{
	failures = 0;
	corrupt = false;
	walk_limit = (long)inodes_allocated() + 1;
	unused = 0;
	lru_window = 0;
	pass++;
	long n = walk_sb_lists(quiescent);
	walk_hash();
	walk_lru();
	walk_in_use();
	walk_wb(&icache.wb.b_dirty, LIST_b_dirty, "b_dirty");
	walk_wb(&icache.wb.b_io, LIST_b_io, "b_io");
	walk_wb(&icache.wb.b_more_io, LIST_b_more_io, "b_more_io");
	long nr = get_nr_inodes();
	if (nr != n)
		FAIL(0,
		     "invariant: nr_inodes is %ld but the sb lists hold %ld "
		     "inodes",
		     nr, n);
	return failures;
}
