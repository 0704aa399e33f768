/*
 * rcu.c - the schemes' RCU, on liburcu's urcu-memb flavour (see rcu.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "sim/core/list.h"

#include "sim/core/rcu.h"
#include "sim/core/trace.h"
#include "sim/core/violation.h"

/* ---- ThreadSanitizer: liburcu's ordering, said by hand ------------------ */

#if defined(__SANITIZE_THREAD__)
#define RCU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RCU_TSAN 1
#endif
#endif

#ifdef RCU_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static char rcu_tsan_sync; /* only its address is used */

void rcu_tsan_release(void)
{
	__tsan_release(&rcu_tsan_sync);
}

void rcu_tsan_acquire(void)
{
	__tsan_acquire(&rcu_tsan_sync);
}
#else
void rcu_tsan_release(void)
{
}

void rcu_tsan_acquire(void)
{
}
#endif

/* ---- registration --------------------------------------------------------- */

/* Is the calling host thread registered with liburcu? */
static __thread bool rcu_registered;
static pthread_key_t rcu_exit_key;
static pthread_once_t rcu_once = PTHREAD_ONCE_INIT;

/* A thread registered behind its back leaves liburcu's registry here. */
static void rcu_thread_exit(void *unused)
{
	(void)unused;
	rcu_unregister_sim_thread();
}

/*
 * A fork() (the test runner forks a child per test) must not happen while
 * liburcu's call_rcu thread is half way through something: the library's
 * own handlers pause it and restart it on both sides.
 */
static void *rcu_probe(void *arg)
{
	return arg;
}

/*
 * liburcu starts its call_rcu thread at the first call_rcu and aborts the
 * process if it cannot (urcu_die).  Start it here instead, from the first
 * thread to register (a run's main thread, before any simulated CPU exists
 * or is pinned, so it inherits no pinning), and only after a thread of our
 * own has started and ended: under a process or memory limit the run then
 * stops with one line, never liburcu's abort half way through the run.
 */
static void rcu_start_callback_thread(void)
{
	pthread_t t;

	xpthread_create(&t, NULL, rcu_probe, NULL);
	pthread_join(t, NULL);
	(void)urcu_memb_get_default_call_rcu_data();
}

static void rcu_setup(void)
{
	if (pthread_key_create(&rcu_exit_key, rcu_thread_exit) != 0) {
		fprintf(stderr, "icache: pthread_key_create failed\n");
		exit(2);
	}
	if (pthread_atfork(urcu_memb_call_rcu_before_fork, urcu_memb_call_rcu_after_fork_parent,
			   urcu_memb_call_rcu_after_fork_child) != 0) {
		fprintf(stderr, "icache: pthread_atfork failed\n");
		exit(2);
	}
	rcu_start_callback_thread();
}

void rcu_register_sim_thread(void)
{
	pthread_once(&rcu_once, rcu_setup);
	if (rcu_registered)
		return;
	urcu_memb_register_thread();
	rcu_registered = true;
	/* Unregistered at exit if the thread does not do it itself. */
	pthread_setspecific(rcu_exit_key, &rcu_registered);
}

void rcu_unregister_sim_thread(void)
{
	if (!rcu_registered)
		return;
	urcu_memb_unregister_thread();
	rcu_registered = false;
	pthread_setspecific(rcu_exit_key, NULL);
}

static atomic_long rcu_queued; /* callbacks queued, not yet run */

/* ---- virtual mode: grace periods by the fiber schedule ---------------------- */

/* Only the one host thread of a virtual run touches these. */
static int vreaders; /* fibers inside a section */
static struct sim_rcu_head *vqueue, **vqueue_tail = &vqueue;

static void vqueue_run(void)
{
	struct sim_rcu_head *h = vqueue;

	vqueue = NULL;
	vqueue_tail = &vqueue;
	/* The batch leaves the queue and the count (liburcu's callback
	 * thread does this in a real run). */
	SIM_LINE(&vqueue_tail);
	SIM_LINE(&rcu_queued);
	while (h) {
		struct sim_rcu_head *next = h->next;
		h->fn(h);
		atomic_fetch_sub(&rcu_queued, 1);
		h = next;
	}
}

/* ---- read-side sections ------------------------------------------------------ */

void sim_rcu_read_lock(enum site site)
{
	if (!rcu_registered)
		rcu_register_sim_thread();
	urcu_memb_read_lock();
	int depth = this_cpu ? ++this_cpu->rcu_nesting : 1;
	if (sim_virtual_time && depth == 1)
		vreaders++;
	trace_rcu_read_lock(this_cpu, depth, site);
}

void sim_rcu_read_unlock(enum site site)
{
	int depth = this_cpu ? this_cpu->rcu_nesting : 1;

	if (depth <= 0) {
		report_violation(VIOL_invariant, -1, -1, site, -1, this_cpu->id, -1, 0,
				 "%s leaves an RCU read-side section in %s that it never "
				 "entered",
				 this_cpu->name, site_name(site));
		return;
	}
	if (this_cpu)
		this_cpu->rcu_nesting--;
	trace_rcu_read_unlock(this_cpu, depth - 1, site);
	/* Everything read in the section happens before a callback that
	 * the end of this section lets run. */
	rcu_tsan_release();
	urcu_memb_read_unlock();
	if (sim_virtual_time && depth == 1 && --vreaders == 0 && vqueue)
		vqueue_run();
}

bool sim_rcu_read_lock_held(void)
{
	return this_cpu && this_cpu->rcu_nesting > 0;
}

/* ---- callbacks -------------------------------------------------------------- */

long sim_rcu_pending(void)
{
	return atomic_load(&rcu_queued);
}

static void rcu_trampoline(struct rcu_head *head)
{
	struct sim_rcu_head *h = container_of(head, struct sim_rcu_head, head);

	rcu_tsan_acquire();
	h->fn(h);
	atomic_fetch_sub(&rcu_queued, 1);
}

void sim_call_rcu(struct sim_rcu_head *h, void (*fn)(struct sim_rcu_head *h))
{
	if (!rcu_registered)
		rcu_register_sim_thread();
	h->fn = fn;
	/* A shared count, and (vqueue_tail standing for it in virtual mode)
	 * the tail of liburcu's queue, which every CPU's call_rcu writes. */
	SIM_LINE(&rcu_queued);
	SIM_LINE(&vqueue_tail);
	atomic_fetch_add(&rcu_queued, 1);
	if (sim_virtual_time) {
		h->next = NULL;
		*vqueue_tail = h;
		vqueue_tail = &h->next;
		if (vreaders == 0)
			vqueue_run();
		return;
	}
	rcu_tsan_release();
	urcu_memb_call_rcu(&h->head, rcu_trampoline);
}

void sim_rcu_barrier(void)
{
	if (this_cpu && this_cpu->rcu_nesting > 0) {
		fprintf(stderr, "icache: rcu barrier inside an RCU read-side section\n");
		abort();
	}
	if (vqueue) /* a virtual run that ended inside a section */
		vqueue_run();
	vreaders = 0;
	/* A head queued twice (two CPUs freeing one inode, in a broken
	 * scheme) corrupts liburcu's queue and its callback never runs:
	 * after 1 s without progress say so, rather than wait for ever. */
	long left = atomic_load(&rcu_queued), last = left;
	for (int idle_ms = 0; left > 0 && idle_ms < 1000;) {
		usleep(1000);
		left = atomic_load(&rcu_queued);
		idle_ms = left < last ? 0 : idle_ms + 1;
		last = left < last ? left : last;
	}
	if (left > 0)
		report_violation(VIOL_invariant, -1, -1, -1, -1, -1, -1, 0,
				 "%ld RCU callbacks never ran: a head was queued twice"
				 " (one inode freed twice?)",
				 left);
}
