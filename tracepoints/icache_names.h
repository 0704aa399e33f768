/*
 * icache_names.h - the vocabulary shared by the simulator and its traces.
 *
 * Every list here is an "X-macro": a list of X(name) entries that each user
 * expands the way it needs (an enum in the simulator, an LTTng enum in the
 * tracepoint provider, a table of strings for printing).  Keeping the lists
 * in one place is what keeps the trace, the simulator and the viewer speaking
 * the same language.  The numeric value of an entry is its position, so add
 * new entries at the END of a list: old traces keep their meaning.
 *
 * tracepoints/EVENTS.md documents what each name means in a trace.
 */
#ifndef ICACHE_NAMES_H
#define ICACHE_NAMES_H

/* Lock classes, as lockdep groups them: every inode's i_lock is one class. */
#define ICACHE_LOCK_CLASSES(X)                                               \
	X(inode_lock)         /* 2.6.36: the one global lock */              \
	X(i_lock)             /* per inode */                                \
	X(inode_hash_lock)    /* one lock for the whole hash table */        \
	X(hash_bucket)        /* one lock per hash chain (hlist_bl style) */ \
	X(inode_sb_list_lock) /* sb->s_inodes and i_sb_list */               \
	X(inode_wb_list_lock) /* bdi b_dirty / b_io / b_more_io */           \
	X(inode_lru_lock)     /* the global LRU and nr_unused */             \
	X(iunique_lock)       /* the iunique counter */                      \
	X(test_lock_a)        /* used only by tests and the ABBA lesson */   \
	X(test_lock_b)                                                       \
	X(iprune_sem)    /* rw-semaphore: prune_icache vs umount */          \
	X(s_umount)      /* per-sb rw-semaphore: one umount at a time */     \
	X(list_lru_lock) /* today: one per (sb LRU, NUMA node), list_lru_node */

/*
 * Call sites: the function that took or dropped a lock, changed a flag or
 * moved a list.  Named after the kernel function the code models.
 */
#define ICACHE_SITES(X)             \
	X(unknown)                  \
	X(new_inode)                \
	X(iget_locked)              \
	X(find_inode_fast)          \
	X(get_new_inode_fast)       \
	X(unlock_new_inode)         \
	X(wait_on_inode)            \
	X(wait_on_freeing_inode)    \
	X(ilookup)                  \
	X(igrab)                    \
	X(ihold)                    \
	X(iput)                     \
	X(iput_final)               \
	X(evict)                    \
	X(dispose_list)             \
	X(remove_inode_hash)        \
	X(inode_sb_list_add)        \
	X(inode_sb_list_del)        \
	X(inode_lru_list_add)       \
	X(inode_lru_list_del)       \
	X(unlink)                   \
	X(mark_inode_dirty)         \
	X(queue_io)                 \
	X(writeback_sb_inodes)      \
	X(writeback_single_inode)   \
	X(prune_icache)             \
	X(invalidate_inodes)        \
	X(iunique)                  \
	X(get_next_ino)             \
	X(test_abba)                \
	X(destroy_inode)            \
	X(umount)                   \
	X(insert_inode_hash)        \
	X(workload)                 \
	X(evict_inodes)             \
	X(generic_shutdown_super)   \
	X(insert_inode_locked)      \
	X(can_unuse)                \
	X(shrink_icache_memory)     \
	X(ifind_fast)               \
	X(inode_lru_isolate)        \
	X(list_lru_walk_one)        \
	X(prune_icache_sb)          \
	X(super_cache_scan)         \
	X(wait_for_lru_isolating)   \
	X(inode_io_list_del)        \
	X(inode_wait_for_writeback) \
	X(d_mark_dontcache)         \
	X(inode_insert5)            \
	X(insert_inode_locked4)

/* The lists an inode can be on. */
#define ICACHE_LISTS(X)                                                   \
	X(hash)    /* inode hash chain (i_hash) */                        \
	X(sb)      /* sb->s_inodes (i_sb_list) */                         \
	X(lru)     /* the unused-inode LRU (i_lru) */                     \
	X(b_dirty) /* bdi writeback lists (i_wb_list) */                  \
	X(b_io)                                                           \
	X(b_more_io)                                                      \
	X(in_use)     /* 2.6.36 only: inode_in_use (i_list) */            \
	X(dispose)    /* a private dispose list threaded through i_lru */ \
	X(sb_dispose) /* V4's invalidate_inodes: one threaded through i_sb_list */

#define ICACHE_LIST_ACTIONS(X) \
	X(add)                 \
	X(del)                 \
	X(move)                \
	X(rotate)

/* Top-level operations a simulated CPU performs (op_begin / op_end). */
#define ICACHE_OPS(X)  \
	X(iget)        \
	X(ilookup)     \
	X(iput)        \
	X(create)      \
	X(unlink)      \
	X(mark_dirty)  \
	X(writeback)   \
	X(prune)       \
	X(umount)      \
	X(mount)       \
	X(igrab)       \
	X(iunique)     \
	X(test)        \
	X(read_pages)  \
	X(write_inode) \
	X(shrink)      \
	X(dontcache)

/* What the validator and the invariant checker can report. */
#define ICACHE_VIOLATIONS(X)                                                       \
	X(lock_order)          /* an edge that contradicts the documented order */ \
	X(lock_cycle)          /* a circular dependency (possible deadlock) */     \
	X(use_after_free)      /* a freed inode was touched */                     \
	X(freed_on_list)       /* a freed inode is reachable from a list */        \
	X(walker_took_freeing) /* a list walker grabbed an I_FREEING inode */      \
	X(freeing_unlocked)    /* I_FREEING set without the lock it needs */       \
	X(invariant)           /* a structural invariant does not hold */          \
	X(deadlock)            /* the watchdog saw no progress */                  \
	X(double_unlock)       /* releasing a lock that is not held */             \
	X(busy_inodes)         /* umount returned with inodes of the sb left */    \
	X(missed_wakeup)       /* a sleeper on an inode was never woken */         \
	X(unlocked_ref)        /* a reference taken from 0 without the lock */     \
	X(duplicate_inode)     /* two live hashed inodes for one (sb, ino) */      \
	X(nested_class)        /* two locks of one class held, not annotated */    \
	X(rcu_sleep)           /* a CPU slept inside an RCU read-side section */

/* i_state flags: bit number, then name.  Values follow 2.6.39's order. */
#define ICACHE_STATE_FLAGS(X)  \
	X(0, I_DIRTY_SYNC)     \
	X(1, I_DIRTY_DATASYNC) \
	X(2, I_DIRTY_PAGES)    \
	X(3, I_NEW)            \
	X(4, I_WILL_FREE)      \
	X(5, I_FREEING)        \
	X(6, I_CLEAR)          \
	X(7, I_SYNC)           \
	X(8, I_REFERENCED)     \
	X(9, I_LRU_ISOLATING)  \
	X(10, I_DIRTY_TIME)    \
	X(11, I_CREATING)      \
	X(12, I_DONTCACHE)

/*
 * Which source file an event's `line` field is a line of (the lock and
 * inode events carry both, as lockdep records its caller): the scheme's
 * own file (run_begin's scheme_file), or a shared file of the core.
 */
#define ICACHE_SRC_FILES(X)                        \
	X(unknown)   /* no call site was marked */ \
	X(scheme)    /* run_begin's scheme_file */ \
	X(core)      /* sim/core/icache.c */       \
	X(workloads) /* sim/engine/workloads.c */  \
	X(list_lru)  /* sim/core/list_lru.c */

#endif /* ICACHE_NAMES_H */
