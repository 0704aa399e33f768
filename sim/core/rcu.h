/*
 * rcu.h - read-copy-update for the schemes, on liburcu.
 *
 * The kernel's inode cache uses RCU in two ways, and so can a scheme:
 *
 *   - a lookup or a list walker may follow a hash chain or sb->s_inodes
 *     without the list's lock, inside rcu_read_lock()/rcu_read_unlock().
 *     What it finds may be dying: it must take the candidate's i_lock and
 *     look again (still hashed? I_FREEING or I_WILL_FREE?) before it uses
 *     it, and skip (or wait for) one that is going away;
 *   - an evicted inode's memory is given back only after a grace period
 *     (destroy_inode_rcu() in icache.h: call_rcu), so such a walker never
 *     touches memory that a new inode already reuses.
 *
 * The rules, as the kernel's:
 *   - a read-side section nests; it may take spinlocks, but never sleep
 *     (wait_inode_token() reports a sleeper that is inside one);
 *   - nothing in a scheme waits for a grace period (no synchronize_rcu):
 *     memory is freed by callbacks on liburcu's call_rcu thread;
 *   - lists walked under RCU are changed with the _rcu list helpers
 *     (list.h), which publish a node only once it is complete and leave a
 *     removed node's ->next in place for a walker standing on it.
 *
 * The flavour is liburcu's urcu-memb (the membarrier one): no signals, and
 * readers pay a compiler barrier.  Every thread that runs simulated CPUs
 * registers itself with rcu_register_sim_thread() (the engines do it; a thread
 * that forgot is registered at its first read-side section and
 * unregistered when it exits).  In virtual mode several CPUs (fibers)
 * share one host thread: liburcu counts that thread's nesting, which is
 * the sum of its fibers' sections, so a fiber switched out inside a
 * section keeps the grace period waiting, as a preempted reader does in
 * the kernel.  Each simulated CPU keeps its own depth too (rcu_nesting in
 * struct sim_cpu), for the trace and the checks.
 *
 * Virtual mode decides grace periods itself, by the fiber schedule: a
 * callback runs as soon as no fiber is inside a section (at once if none
 * is when it is queued).  That is a grace period by definition, and it
 * keeps a virtual run reproducible: liburcu's call_rcu thread would run
 * it at a wall-clock moment, and which memory a new inode reuses would
 * change from run to run.
 *
 * Every section is traced: rcu_read_lock / rcu_read_unlock with the CPU,
 * the depth and the function (tracepoints/EVENTS.md).
 */
#ifndef SIM_RCU_H
#define SIM_RCU_H

#include <stdbool.h>

#include <urcu/urcu-memb.h> /* struct rcu_head; its name mappings end with it */

#include "sim/core/lock.h"

/* Register / unregister the calling thread as an RCU reader (idempotent). */
void rcu_register_sim_thread(void);
void rcu_unregister_sim_thread(void);

void sim_rcu_read_lock(enum site site);
void sim_rcu_read_unlock(enum site site);
/* Is the calling simulated CPU inside a read-side section? */
bool sim_rcu_read_lock_held(void);

/* What call_rcu needs in the object it frees (the kernel's rcu_head). */
struct sim_rcu_head {
	struct rcu_head head;
	void (*fn)(struct sim_rcu_head *h);
	struct sim_rcu_head *next; /* virtual mode: the queue of waiting ones */
};

/* Run fn(h) after a grace period, on liburcu's call_rcu thread. */
void sim_call_rcu(struct sim_rcu_head *h, void (*fn)(struct sim_rcu_head *h));
/* How many callbacks are queued and have not run yet. */
long sim_rcu_pending(void);
/*
 * Wait until every callback queued so far has run (the end of a run
 * only: never from a scheme path, never inside a read-side section).
 * It waits for our own count to drain rather than calling liburcu's
 * rcu_barrier(), whose internal hand-off ThreadSanitizer cannot see.
 */
void sim_rcu_barrier(void);

/* In a function that named itself with SITE(fn), as for the locks. */
#define rcu_read_lock() sim_rcu_read_lock(__site)
#define rcu_read_unlock() sim_rcu_read_unlock(__site)

/*
 * ThreadSanitizer cannot see liburcu's ordering (the library is not
 * instrumented, and urcu-memb's readers order themselves with membarrier,
 * not with atomics): the read-side exits and call_rcu release one sync
 * object and each callback acquires it.  A no-op in other builds.
 */
void rcu_tsan_release(void);
void rcu_tsan_acquire(void);

#endif /* SIM_RCU_H */
