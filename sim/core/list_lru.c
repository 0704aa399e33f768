/*
 * list_lru.c - per-node LRU lists and their walker (mm/list_lru.c).
 *
 * Like every helper of the core, these check the lock they need and that
 * the inode is alive before touching a list, and trace each change as an
 * inode_list event on the `lru` list (the node is the lock's instance).
 */
#define SRC_FILE_ID SRC_list_lru
#include "sim/core/list_lru.h"

#include "sim/core/icache.h"
#include "sim/core/scheme.h"
#include "sim/core/trace.h"

void list_lru_init(struct list_lru *lru, int nr_nodes, uint64_t inst_base)
{
	lru->nr_nodes = nr_nodes;
	for (int n = 0; n < MAX_NUMA_NODES; n++) {
		sim_lock_init(&lru->node[n].lock, LC_list_lru_lock, inst_base + (uint64_t)n);
		INIT_LIST_HEAD(&lru->node[n].list);
		lru->node[n].nr_items = 0;
	}
}

void list_lru_destroy(struct list_lru *lru)
{
	for (int n = 0; n < MAX_NUMA_NODES; n++)
		sim_lock_destroy(&lru->node[n].lock);
}

int cpu_to_node(const struct sim_cpu *c)
{
	int nodes = icache.nr_nodes, workers = icache.nr_workers;

	if (!c || nodes <= 1 || workers <= 0)
		return 0;
	if (c->id >= workers) /* flusher, main: one node each, round robin */
		return (c->id - workers) % nodes;
	int per = (workers + nodes - 1) / nodes;
	return c->id / per < nodes ? c->id / per : nodes - 1;
}

struct list_lru_node *list_lru_node_of(struct list_lru *lru, const struct inode *inode)
{
	int nid = inode->i_nid;

	if (nid < 0 || nid >= lru->nr_nodes)
		nid = 0;
	return &lru->node[nid];
}

/* Off the node list; its lock is held. */
static void lru_unlink(struct list_lru_node *nlru, struct inode *inode, enum site site)
{
	list_del_init(&inode->i_lru);
	inode->i_lru_on = (enum inode_list_id) - 1;
	__atomic_fetch_sub(&nlru->nr_items, 1, __ATOMIC_RELAXED);
	lru_count(-1);
	trace_inode_list(this_cpu, inode->i_ino, inode->i_lock.life, LIST_lru, LACT_del, site);
}

bool list_lru_add(struct list_lru *lru, struct inode *inode, enum site site)
{
	struct list_lru_node *nlru = list_lru_node_of(lru, inode);
	bool added = false;

	sim_spin_lock(&nlru->lock, site);
	if (inode_alive(inode, site, "puts on the LRU") && list_empty(&inode->i_lru)) {
		list_add_tail(&inode->i_lru, &nlru->list);
		inode->i_lru_on = LIST_lru;
		inode->i_lru_dropped_pinned = false;
		__atomic_fetch_add(&nlru->nr_items, 1, __ATOMIC_RELAXED);
		lru_count(1);
		trace_inode_list(this_cpu, inode->i_ino, inode->i_lock.life, LIST_lru, LACT_add,
				 site);
		added = true;
	}
	sim_spin_unlock(&nlru->lock, site);
	return added;
}

bool list_lru_del(struct list_lru *lru, struct inode *inode, enum site site)
{
	struct list_lru_node *nlru = list_lru_node_of(lru, inode);
	bool removed = false;

	sim_spin_lock(&nlru->lock, site);
	/* Only off this LRU: a dispose list also uses i_lru. */
	if (inode_alive(inode, site, "takes off the LRU") && inode->i_lru_on == LIST_lru) {
		lru_unlink(nlru, inode, site);
		removed = true;
	}
	sim_spin_unlock(&nlru->lock, site);
	return removed;
}

void list_lru_isolate(struct list_lru_node *nlru, struct inode *inode, enum site site)
{
	assert_lock_held(&nlru->lock, site, "the LRU", inode);
	if (!inode_alive(inode, site, "isolates") || inode->i_lru_on != LIST_lru)
		return;
	/* A second shrinker meeting one the first has pinned: see
	 * i_lru_dropped_pinned. */
	if (inode_state(inode) & I_LRU_ISOLATING)
		inode->i_lru_dropped_pinned = true;
	lru_unlink(nlru, inode, site);
}

void list_lru_isolate_move(struct list_lru_node *nlru, struct inode *inode,
			   struct list_head *dispose, enum site site)
{
	list_lru_isolate(nlru, inode, site);
	inode_dispose_add(inode, dispose, site);
}

/* LRU_ROTATE: to the young end; membership does not change. */
static void lru_rotate(struct list_lru_node *nlru, struct inode *inode, enum site site)
{
	list_move_tail(&inode->i_lru, &nlru->list);
	trace_inode_list(this_cpu, inode->i_ino, inode->i_lock.life, LIST_lru, LACT_rotate, site);
}

/*
 * __list_lru_walk_one.  The walk keeps the next item before calling back,
 * as list_for_each_safe does: the callback may take the current one off.
 * When the lock was dropped that next item may be gone, so it restarts.
 */
static long walk_locked(struct list_lru_node *nlru, list_lru_walk_cb isolate, void *arg,
			long *nr_to_walk)
{
	SITE(list_lru_walk_one);
	struct list_head *pos, *next;
	long isolated = 0;

restart:
	for (pos = nlru->list.next; pos != &nlru->list; pos = next) {
		struct inode *inode = list_entry(pos, struct inode, i_lru);

		next = pos->next;
		if (*nr_to_walk <= 0)
			break;
		--*nr_to_walk;
		switch (isolate(inode, nlru, arg)) {
		case LRU_REMOVED_RETRY:
			isolated++;
			goto restart;
		case LRU_REMOVED:
			isolated++;
			break;
		case LRU_ROTATE:
			lru_rotate(nlru, inode, __site);
			break;
		case LRU_SKIP:
			break;
		case LRU_RETRY:
			goto restart;
		}
	}
	return isolated;
}

long list_lru_walk_one(struct list_lru *lru, int nid, list_lru_walk_cb isolate, void *arg,
		       long *nr_to_walk)
{
	SITE(list_lru_walk_one);
	struct list_lru_node *nlru = &lru->node[nid];
	long isolated;

	spin_lock(&nlru->lock);
	isolated = walk_locked(nlru, isolate, arg, nr_to_walk);
	spin_unlock(&nlru->lock);
	return isolated;
}

long list_lru_count_node(struct list_lru *lru, int nid)
{
	return __atomic_load_n(&lru->node[nid].nr_items, __ATOMIC_RELAXED);
}

long list_lru_count(struct list_lru *lru)
{
	long n = 0;

	for (int nid = 0; nid < lru->nr_nodes; nid++)
		n += list_lru_count_node(lru, nid);
	return n;
}
