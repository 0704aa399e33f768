/*
 * list_lru.h - today's LRU: one list and one lock per NUMA node.
 *
 * From 3.12 on (mm/list_lru.c, by Dave Chinner and Glauber Costa) the
 * unused inodes of a superblock sit on sb->s_inode_lru, a list_lru: an
 * array of list_lru_node, one per NUMA node, each with its own spinlock,
 * its own list and its own count.  An inode goes on the list of the node
 * its memory lives on, so CPUs of different nodes never share an LRU lock.
 *
 * Reclaim walks one node's list with the node lock held and asks a
 * callback, the isolate function, what to do with each item: the callback
 * may take the item off (LRU_REMOVED), send it to the young end
 * (LRU_ROTATE), leave it (LRU_SKIP), or say that it had to drop the node
 * lock, so the walk must start again (LRU_RETRY, LRU_REMOVED_RETRY).
 *
 * Simplifications, each said once here: items are inodes (the kernel's are
 * any struct list_head); no memcg lists; an inode's node is the node of the
 * CPU that allocated it (the slab allocates from the local node).
 */
#ifndef SIM_LIST_LRU_H
#define SIM_LIST_LRU_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/list.h"
#include "sim/core/lock.h"

#define MAX_NUMA_NODES 16

struct inode;

struct list_lru_node {
	/* LC_list_lru_lock; protects list, nr_items and the i_lru of every
	 * inode on the list. */
	struct sim_lock lock;
	struct list_head list; /* oldest at the head: added at the tail */
	long nr_items;
};

struct list_lru {
	struct list_lru_node node[MAX_NUMA_NODES];
	int nr_nodes;
};

/* What an isolate callback did with an item (include/linux/list_lru.h). */
enum lru_status {
	LRU_REMOVED,       /* taken off the list; the node lock is still held */
	LRU_REMOVED_RETRY, /* taken off, but the node lock was dropped meanwhile */
	LRU_ROTATE,        /* send it to the young end */
	LRU_SKIP,          /* leave it where it is */
	LRU_RETRY,         /* not taken; the node lock was dropped, start again */
};

/*
 * Called with nlru->lock held.  If it drops the lock it must take it
 * again before returning, and return LRU_RETRY or LRU_REMOVED_RETRY.
 */
typedef enum lru_status (*list_lru_walk_cb)(struct inode *inode, struct list_lru_node *nlru,
					    void *arg);

/* The trace's instance of a node lock: (sb id + 1) * 256 + node. */
#define LIST_LRU_INST(sb_id, nid) (((uint64_t)(sb_id) + 1) * 256 + (uint64_t)(nid))

/* inst_base names the locks: the node lock of node n is inst_base + n. */
void list_lru_init(struct list_lru *lru, int nr_nodes, uint64_t inst_base);
void list_lru_destroy(struct list_lru *lru);

/* The node list an inode belongs on (the node of its memory). */
struct list_lru_node *list_lru_node_of(struct list_lru *lru, const struct inode *inode);

/*
 * Add at the young end, or take off, taking the node lock; both do
 * nothing (and return false) if i_lru is already (or not) in use, as
 * list_lru_add / list_lru_del do.  Counted in nr_unused.
 */
bool list_lru_add(struct list_lru *lru, struct inode *inode, enum site site);
bool list_lru_del(struct list_lru *lru, struct inode *inode, enum site site);

/* For isolate callbacks (node lock held): take it off, or move it to a
 * private dispose list. */
void list_lru_isolate(struct list_lru_node *nlru, struct inode *inode, enum site site);
void list_lru_isolate_move(struct list_lru_node *nlru, struct inode *inode,
			   struct list_head *dispose, enum site site);

/*
 * list_lru_walk_one: walk node nid from its old end with the node lock
 * held, at most *nr_to_walk items (decremented as they are looked at, so
 * a list of LRU_RETRY items cannot livelock the walk).  Returns how many
 * the callback removed.
 */
long list_lru_walk_one(struct list_lru *lru, int nid, list_lru_walk_cb isolate, void *arg,
		       long *nr_to_walk);

/* Items on one node, or on all; read without the lock, as the kernel's
 * list_lru_count_one does. */
long list_lru_count_node(struct list_lru *lru, int nid);
long list_lru_count(struct list_lru *lru);

/* ---- simulated NUMA ---------------------------------------------------- */

/* The node of a simulated CPU: the workload's CPUs are dealt out in
 * blocks, cpu0.. on node 0; the flusher and main threads, round robin. */
int cpu_to_node(const struct sim_cpu *c);

#endif /* SIM_LIST_LRU_H */
