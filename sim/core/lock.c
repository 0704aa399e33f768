/*
 * lock.c - instrumented spinlocks: held-lock stacks, lock_stat counters,
 * validator calls and tracepoints around a ticket lock, an MCS lock or a
 * pthread mutex (lock.h says why three).
 *
 * The order of events is the contract of tracepoints/EVENTS.md:
 *   lock_acquire  -> [lock_contended] -> (mutex taken) -> lock_acquired
 *   lock_release  -> (mutex given up)
 *   lock_trylock(success) -> [lock_acquired]
 * "acquired" is fired only once the lock is ours and "release" while it
 * still is, so in a trace the holders of one lock never overlap.
 *
 * Under a scheduler (scenario or virtual mode) only one simulated CPU runs
 * at a time, so nobody may spin: a waiter parks in sim_sched->blocked()
 * and looks again when it is resumed.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim/core/clock.h"
#include "sim/core/list.h"
#include "sim/core/lock.h"
#include "sim/core/lockdep.h"
#include "sim/core/trace.h"
#include "sim/core/violation.h"

__thread struct sim_cpu *this_cpu;
__thread struct src_mark sim_src_nocpu;
const struct sched_hooks *sim_sched;
void (*sim_list_line)(const void *link);  /* list.h: --virtual --list-lines, --lines */
void (*sim_list_store)(const void *link); /* list.h: the same */
void (*sim_line_write)(const void *addr); /* list.h: --virtual --lines */
void (*sim_line_rmw)(const void *addr);   /* list.h: --virtual --lines */
enum lock_kind sim_lock_kind = LOCK_MUTEX;
bool sim_virtual_time;

static const char *const lock_kind_names[NR_LOCK_KINDS] = {
	[LOCK_MUTEX] = "mutex",
	[LOCK_TICKET] = "ticket",
	[LOCK_MCS] = "mcs",
};

const char *lock_kind_name(enum lock_kind k)
{
	return (unsigned)k < NR_LOCK_KINDS ? lock_kind_names[k] : "?";
}

bool lock_kind_parse(const char *s, enum lock_kind *out)
{
	for (int k = 0; k < NR_LOCK_KINDS; k++) {
		if (strcmp(s, lock_kind_names[k]) == 0) {
			*out = (enum lock_kind)k;
			return true;
		}
	}
	return false;
}

/* Wall time, or the CPU's virtual time in virtual mode. */
static inline uint64_t lock_now(const struct sim_cpu *c)
{
	return sim_virtual_time ? c->vclock : now_ns();
}

bool thread_is_real_time(void)
{
	int policy = sched_getscheduler(0);
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/*
 * Does this thread give its core away now and then while it spins
 * (every 128 looks)?
 * Under the host's ordinary scheduler, yes: a host thread's lock holder
 * can be preempted, by the very spinner waiting for it among others, and
 * an oversubscribed host must let it run.  Under a real-time policy, no:
 * there no thread of the run takes the core from another of its priority,
 * so a holder keeps running, and a yield would only hand this CPU's core
 * to the run's flusher while this CPU holds its place in a ticket or MCS
 * queue; every later waiter would then wait for it to come back (5-20 us
 * a time on the AMD VM, and a 2-CPU mixed run 40 % slower), which a
 * kernel CPU, never preempted while it spins, does not do.  A waiter that
 * spins SPIN_BEFORE_SLEEP times still sleeps, so nothing spins for ever.
 * (-1: not looked up yet on this thread.)
 */
static _Thread_local int spin_yields = -1;

bool sim_spin_yields(void)
{
	if (spin_yields < 0)
		spin_yields = !thread_is_real_time();
	return spin_yields;
}

/* What a spinning CPU does between two looks at the lock word. */
static inline void cpu_pause(unsigned *spins)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
	if (++*spins % 128 == 0 && sim_spin_yields())
		sched_yield();
}

#define X(n) #n,
static const char *const lock_class_names[] = { ICACHE_LOCK_CLASSES(X) };
static const char *const site_names[] = { ICACHE_SITES(X) };
#undef X

const char *lock_class_name(enum lock_class c)
{
	if ((unsigned)c >= NR_LOCK_CLASSES)
		return "none";
	return lock_class_names[c];
}

const char *site_name(enum site s)
{
	if ((unsigned)s >= NR_SITES)
		return "none";
	return site_names[s];
}

void sim_lock_init(struct sim_lock *l, enum lock_class cls, uint64_t inst)
{
	l->kind = sim_lock_kind;
	pthread_mutex_init(&l->mu, NULL);
	atomic_init(&l->tk_next, 0);
	atomic_init(&l->tk_owner, 0);
	atomic_init(&l->tk_sleepers, 0);
	atomic_init(&l->mcs_tail, NULL);
	l->mcs_mine = NULL;
	l->cls = cls;
	l->inst = inst;
	l->life = 0;
	atomic_init(&l->holder, -1);
	atomic_init(&l->readers, 0);
	l->is_rwsem = false;
	l->off = false;
	l->last_cpu = -1;
	l->prev_cpu = -1;
	l->acquired_ns = 0;
}

void sim_rwsem_init(struct sim_lock *l, enum lock_class cls)
{
	sim_lock_init(l, cls, 0);
	pthread_rwlock_init(&l->rw, NULL);
	l->is_rwsem = true;
}

void sim_lock_destroy(struct sim_lock *l)
{
	pthread_mutex_destroy(&l->mu);
	if (l->is_rwsem)
		pthread_rwlock_destroy(&l->rw);
}

static void push_held(struct sim_cpu *c, struct sim_lock *l, enum site site, bool trylock)
{
	int n = atomic_load_explicit(&c->nheld, memory_order_relaxed);
	if (n >= MAX_HELD_LOCKS) {
		fprintf(stderr, "icache-sim: %s holds more than %d locks at %s\n", c->name,
			MAX_HELD_LOCKS, site_name(site));
		abort();
	}
	c->held[n].lock = l;
	c->held[n].site = site;
	c->held[n].trylock = trylock;
	c->held[n].since_ns = lock_now(c);
	atomic_store_explicit(&c->nheld, n + 1, memory_order_release);
}

/* Remove l from the held stack (it need not be on top). */
static bool pop_held(struct sim_cpu *c, struct sim_lock *l)
{
	int n = atomic_load_explicit(&c->nheld, memory_order_relaxed);
	for (int i = n - 1; i >= 0; i--) {
		if (c->held[i].lock != l)
			continue;
		memmove(&c->held[i], &c->held[i + 1], (size_t)(n - 1 - i) * sizeof(c->held[0]));
		atomic_store_explicit(&c->nheld, n - 1, memory_order_release);
		return true;
	}
	return false;
}

bool sim_lock_held(const struct sim_lock *l)
{
	struct sim_cpu *c = this_cpu;
	int n = atomic_load_explicit(&c->nheld, memory_order_relaxed);
	for (int i = 0; i < n; i++)
		if (c->held[i].lock == l)
			return true;
	return false;
}

bool sim_lock_busy(const struct sim_lock *l)
{
	return atomic_load_explicit(&l->holder, memory_order_relaxed) >= 0 ||
	       atomic_load_explicit(&l->readers, memory_order_relaxed) > 0;
}

/* Bookkeeping once the mutex is ours. */
static void lock_acquired(struct sim_cpu *c, struct sim_lock *l, enum site site, uint64_t wait_ns,
			  bool trylock)
{
	struct lock_class_stats *st = &c->stats[l->cls];
	uint64_t now = lock_now(c);

	push_held(c, l, site, trylock);
	/* holder, last_cpu, prev_cpu, acquired_ns: the lock's bookkeeping
	 * (the kernel's lock_stat writes its own into the lock's
	 * lockdep_map), a line of its own after the lock words. */
	SIM_LINE(&l->holder);
	atomic_store_explicit(&l->holder, c->id, memory_order_relaxed);
	if (l->last_cpu >= 0 && l->last_cpu != c->id)
		st->bounces++;
	l->prev_cpu = l->last_cpu;
	l->last_cpu = c->id;
	l->acquired_ns = now;
	st->acquisitions++;
	st->wait_ns_total += wait_ns;
	if (wait_ns > st->wait_ns_max)
		st->wait_ns_max = wait_ns;
	atomic_fetch_add_explicit(&c->progress, 1, memory_order_relaxed);
	trace_lock_acquired(c, l, site, wait_ns);
}

/* ---- the three kinds: take, look again, try, give up ----------------- */

static struct mcs_node *mcs_node_get(struct sim_cpu *c)
{
	for (int i = 0; i <= MAX_HELD_LOCKS; i++) {
		if (!(c->mcs_busy & (1u << i))) {
			c->mcs_busy |= 1u << i;
			return &c->mcs_nodes[i];
		}
	}
	fprintf(stderr, "icache-sim: %s has no free MCS node\n", c->name);
	abort();
}

static void mcs_node_put(struct sim_cpu *c, struct mcs_node *n)
{
	c->mcs_busy &= ~(1u << (n - c->mcs_nodes));
}

/* Join the lock's line of waiters; true if the lock is ours at once. */
/*
 * The mutex kind tries first, so that a taken lock is seen (and counted as
 * contended) before we block.  ThreadSanitizer and Helgrind build their
 * lock-order graphs from blocking acquisitions only, so with
 * ICACHE_PLAIN_LOCKS (make PLAIN_LOCKS=1) contention is judged by looking at
 * the holder and every spin_lock() blocks in pthread_mutex_lock(): the
 * counters become approximate, the order becomes visible to those tools.
 */
#ifndef ICACHE_PLAIN_LOCKS
#define ICACHE_PLAIN_LOCKS 0
#endif

static bool mutex_enter(struct sim_lock *l)
{
	if (!ICACHE_PLAIN_LOCKS || sim_sched)
		return pthread_mutex_trylock(&l->mu) == 0;
	if (atomic_load_explicit(&l->holder, memory_order_relaxed) >= 0)
		return false; /* contended: kind_wait() blocks */
	pthread_mutex_lock(&l->mu);
	return true;
}

/*
 * The lock words' lines (SIM_LINE, list.h): the ticket pair, the MCS tail
 * and the nodes a hand-over writes, the mutex.  Every write to them is
 * reported, whether or not it takes the lock.
 */
static bool kind_enter(struct sim_cpu *c, struct sim_lock *l)
{
	switch (l->kind) {
	case LOCK_TICKET:
		SIM_LINE_RMW(&l->tk_next);
		c->wait_ticket = atomic_fetch_add_explicit(&l->tk_next, 1, memory_order_relaxed);
		return atomic_load_explicit(&l->tk_owner, memory_order_acquire) == c->wait_ticket;
	case LOCK_MCS: {
		struct mcs_node *n = mcs_node_get(c), *prev;
		atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
		atomic_store_explicit(&n->locked, 1, memory_order_relaxed);
		c->wait_node = n;
		SIM_LINE_RMW(&l->mcs_tail);
		prev = atomic_exchange_explicit(&l->mcs_tail, n, memory_order_acq_rel);
		if (!prev)
			return true;
		SIM_LINE(prev);
		atomic_store_explicit(&prev->next, n, memory_order_release);
		return false;
	}
	default:
		SIM_LINE_RMW(&l->mu);
		return mutex_enter(l);
	}
}

/* Is it our turn now?  For the mutex, looking is trying. */
static bool kind_ready(struct sim_cpu *c, struct sim_lock *l)
{
	switch (l->kind) {
	case LOCK_TICKET:
		return atomic_load_explicit(&l->tk_owner, memory_order_acquire) == c->wait_ticket;
	case LOCK_MCS:
		return !atomic_load_explicit(&c->wait_node->locked, memory_order_acquire);
	default:
		return pthread_mutex_trylock(&l->mu) == 0;
	}
}

bool sim_lock_turn(struct sim_cpu *c, const struct sim_lock *l)
{
	if (l->kind == LOCK_MUTEX)
		return atomic_load_explicit(&l->holder, memory_order_relaxed) < 0;
	return kind_ready(c, (struct sim_lock *)l);
}

/*
 * Spin, then sleep.  A kernel CPU spinning for a lock is never
 * preempted; a host thread is.  A ticket or MCS queue hands the lock to
 * one waiter, and if the host is not running that one, every later
 * waiter stalls behind it while the spinners burn the cores it needs:
 * with four busy loops beside it, global's mixed workload fell from some
 * 500 000 to 123 operations a second.  (Starved hard enough, a run may
 * still be called a deadlock by the watchdog: it cannot tell a thread the
 * host does not run from one that waits.)  So a waiter that has spun
 * SPIN_BEFORE_SLEEP times sleeps on
 * the word it watches (a futex) and the unlock that changes the word
 * wakes it, as the kernel's paravirt spinlocks do under a hypervisor
 * (pv_wait / pv_kick).  An idle host never gets that far: no lock is
 * held for the 100 us or more it takes.  The sleep has a 1 ms bound, so
 * a wake-up that crosses the sleeper's last look costs a millisecond at
 * worst (the unlock path has no fence to close that window).
 */
#define SPIN_BEFORE_SLEEP 4096

static void futex_sleep(atomic_int *word, int seen, atomic_int *sleepers)
{
	struct timespec bound = { 0, 1000000 };

	atomic_fetch_add(sleepers, 1);
	if (atomic_load(word) == seen)
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, &bound, NULL, 0);
	atomic_fetch_sub(sleepers, 1);
}

static void futex_wake(atomic_int *word, atomic_int *sleepers)
{
	if (atomic_load_explicit(sleepers, memory_order_relaxed))
		syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* The ticket word as the futex's int (the same 32 bits). */
static atomic_int *tk_word(struct sim_lock *l)
{
	return (atomic_int *)&l->tk_owner;
}

static void kind_sleep(struct sim_cpu *c, struct sim_lock *l)
{
	if (l->kind == LOCK_TICKET) {
		int seen = atomic_load(tk_word(l));
		if ((unsigned)seen != c->wait_ticket)
			futex_sleep(tk_word(l), seen, &l->tk_sleepers);
	} else {
		futex_sleep(&c->wait_node->locked, 1, &c->wait_node->sleepers);
	}
}

/* Wait in line: park under a scheduler, else spin (or sleep: mutex). */
static void kind_wait(struct sim_cpu *c, struct sim_lock *l, enum site site)
{
	unsigned spins = 0;

	if (sim_sched) {
		while (!kind_ready(c, l))
			sim_sched->blocked(c, l, site);
	} else if (l->kind == LOCK_MUTEX) {
		pthread_mutex_lock(&l->mu);
	} else {
		while (!kind_ready(c, l)) {
			if (spins < SPIN_BEFORE_SLEEP)
				cpu_pause(&spins);
			else
				kind_sleep(c, l);
		}
	}
}

/* Take it only if nobody holds it nor waits for it. */
static bool kind_try(struct sim_cpu *c, struct sim_lock *l)
{
	switch (l->kind) {
	case LOCK_TICKET: {
		unsigned t = atomic_load_explicit(&l->tk_owner, memory_order_acquire);
		SIM_LINE_RMW(&l->tk_next);
		if (!atomic_compare_exchange_strong_explicit(
			    &l->tk_next, &t, t + 1, memory_order_acquire, memory_order_relaxed))
			return false;
		c->wait_ticket = t;
		return true;
	}
	case LOCK_MCS: {
		struct mcs_node *n = mcs_node_get(c), *none = NULL;
		atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
		SIM_LINE_RMW(&l->mcs_tail);
		if (!atomic_compare_exchange_strong_explicit(
			    &l->mcs_tail, &none, n, memory_order_acquire, memory_order_relaxed)) {
			mcs_node_put(c, n);
			return false;
		}
		c->wait_node = n;
		return true;
	}
	default:
		SIM_LINE_RMW(&l->mu);
		return pthread_mutex_trylock(&l->mu) == 0;
	}
}

/* Hand the lock to the next in line, or leave it free. */
static void kind_leave(struct sim_cpu *c, struct sim_lock *l)
{
	switch (l->kind) {
	case LOCK_TICKET:
		/* Only the holder writes tk_owner. */
		SIM_LINE(&l->tk_owner);
		atomic_store_explicit(&l->tk_owner,
				      atomic_load_explicit(&l->tk_owner, memory_order_relaxed) + 1,
				      memory_order_release);
		futex_wake(tk_word(l), &l->tk_sleepers);
		break;
	case LOCK_MCS: {
		struct mcs_node *n = l->mcs_mine, *next, *self = n;
		unsigned spins = 0;
		l->mcs_mine = NULL;
		next = atomic_load_explicit(&n->next, memory_order_acquire);
		if (!next) {
			SIM_LINE_RMW(&l->mcs_tail);
			if (atomic_compare_exchange_strong_explicit(&l->mcs_tail, &self, NULL,
								    memory_order_release,
								    memory_order_relaxed)) {
				mcs_node_put(c, n);
				break;
			}
			/* A successor swapped the tail but has not linked in:
			 * under a scheduler it did both in one step. */
			while (!(next = atomic_load_explicit(&n->next, memory_order_acquire)))
				cpu_pause(&spins);
		}
		SIM_LINE(next);
		atomic_store_explicit(&next->locked, 0, memory_order_release);
		futex_wake(&next->locked, &next->sleepers);
		mcs_node_put(c, n);
		break;
	}
	default:
		SIM_LINE_RMW(&l->mu);
		pthread_mutex_unlock(&l->mu);
	}
}

/* ---- what callers use ----------------------------------------------------- */

void sim_spin_lock(struct sim_lock *l, enum site site)
{
	struct sim_cpu *c = this_cpu;
	uint64_t wait_ns = 0;

	sched_point(SEV_acquire, site, l, 0, 0, 0);
	lockdep_acquire(c, l, site);
	trace_lock_acquire(c, l, site);
	if (!kind_enter(c, l)) {
		int holder = atomic_load_explicit(&l->holder, memory_order_relaxed);
		uint64_t t0 = lock_now(c);

		c->stats[l->cls].contentions++;
		trace_lock_contended(c, l, site, holder);
		atomic_store_explicit(&c->waiting_site, site, memory_order_relaxed);
		atomic_store_explicit(&c->waiting_for, l, memory_order_release);
		kind_wait(c, l, site);
		atomic_store_explicit(&c->waiting_for, NULL, memory_order_release);
		wait_ns = lock_now(c) - t0;
	}
	if (l->kind == LOCK_MCS)
		l->mcs_mine = c->wait_node;
	lock_acquired(c, l, site, wait_ns, false);
	sched_point(SEV_acquired, site, l, 0, 0, 0);
}

bool sim_spin_trylock(struct sim_lock *l, enum site site)
{
	struct sim_cpu *c = this_cpu;

	/* The step comes after the attempt: a trylock never waits, and the
	 * scheduler wants to know how it went. */
	if (!kind_try(c, l)) {
		c->stats[l->cls].trylock_failures++;
		trace_lock_trylock(c, l, site, 0);
		sched_point(SEV_trylock_failed, site, l, 0, 0, 0);
		return false;
	}
	if (l->kind == LOCK_MCS)
		l->mcs_mine = c->wait_node;
	trace_lock_trylock(c, l, site, 1);
	lock_acquired(c, l, site, 0, true);
	sched_point(SEV_trylock, site, l, 0, 0, 0);
	return true;
}

void sim_spin_unlock(struct sim_lock *l, enum site site)
{
	struct sim_cpu *c = this_cpu;
	struct lock_class_stats *st = &c->stats[l->cls];

	if (!pop_held(c, l)) {
		report_violation(VIOL_double_unlock, l->cls, -1, site, -1, c->id, -1, 0,
				 "%s releases %s (instance %llu) at %s but does not hold it",
				 c->name, lock_class_name(l->cls), (unsigned long long)l->inst,
				 site_name(site));
		return;
	}
	uint64_t hold_ns = lock_now(c) - l->acquired_ns;
	st->hold_ns_total += hold_ns;
	if (hold_ns > st->hold_ns_max)
		st->hold_ns_max = hold_ns;
	trace_lock_release(c, l, site, hold_ns);
	SIM_LINE(&l->holder);
	atomic_store_explicit(&l->holder, -1, memory_order_relaxed);
	kind_leave(c, l);
	sched_point(SEV_release, site, l, 0, 0, 0);
}

void lock_stats_sum(struct sim_cpu *const *cpus, int n, struct lock_class_stats *out)
{
	memset(out, 0, sizeof(*out) * NR_LOCK_CLASSES);
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < NR_LOCK_CLASSES; k++) {
			const struct lock_class_stats *s = &cpus[i]->stats[k];
			struct lock_class_stats *o = &out[k];
			o->acquisitions += s->acquisitions;
			o->contentions += s->contentions;
			o->bounces += s->bounces;
			o->trylock_failures += s->trylock_failures;
			o->wait_ns_total += s->wait_ns_total;
			o->hold_ns_total += s->hold_ns_total;
			if (s->wait_ns_max > o->wait_ns_max)
				o->wait_ns_max = s->wait_ns_max;
			if (s->hold_ns_max > o->hold_ns_max)
				o->hold_ns_max = s->hold_ns_max;
		}
	}
}

/* ---- sleeping rw-locks (rw_semaphore) ------------------------------------ */

/*
 * The rw-lock's events follow the spinlock's order (acquire, [contended],
 * acquired ... release).  Read holds overlap, so each is traced as its own
 * instance (1 + CPU id); the write hold is instance 0.  Hold times and
 * bounces live in the held-lock entry, not in the lock, because several
 * readers hold it at once.
 */
static uint64_t rwsem_inst(const struct sim_cpu *c, bool write)
{
	return write ? 0 : 1 + (uint64_t)c->id;
}

static int rwsem_try(struct sim_lock *l, bool write)
{
	return write ? pthread_rwlock_trywrlock(&l->rw) : pthread_rwlock_tryrdlock(&l->rw);
}

static void rwsem_wait(struct sim_cpu *c, struct sim_lock *l, bool write, enum site site)
{
	if (sim_sched) {
		/* Scenario mode: park until the scheduler frees us. */
		while (rwsem_try(l, write) != 0)
			sim_sched->blocked(c, l, site);
	} else if (write) {
		pthread_rwlock_wrlock(&l->rw);
	} else {
		pthread_rwlock_rdlock(&l->rw);
	}
}

static void sim_down(struct sim_lock *l, enum site site, bool write)
{
	struct sim_cpu *c = this_cpu;
	uint64_t inst = rwsem_inst(c, write), wait_ns = 0;
	struct src_mark m = sim_src_at(site);

	if (l->off)
		return;
	sched_point(SEV_acquire, site, l, 0, 0, 0);
	lockdep_acquire(c, l, site);
	trace_ev_lock_acquire(trace_cpu(c), l->cls, inst, site, m.file, m.line, l->life);
	if (ICACHE_PLAIN_LOCKS && !sim_sched && !sim_lock_busy(l))
		rwsem_wait(c, l, write, site); /* blocking: see mutex_enter() */
	else if (rwsem_try(l, write) != 0) {
		uint64_t t0 = lock_now(c);

		c->stats[l->cls].contentions++;
		trace_ev_lock_contended(trace_cpu(c), l->cls, inst, site,
					atomic_load_explicit(&l->holder, memory_order_relaxed),
					m.file, m.line, l->life);
		atomic_store_explicit(&c->waiting_site, site, memory_order_relaxed);
		atomic_store_explicit(&c->waiting_for, l, memory_order_release);
		rwsem_wait(c, l, write, site);
		atomic_store_explicit(&c->waiting_for, NULL, memory_order_release);
		wait_ns = lock_now(c) - t0;
	}
	push_held(c, l, site, false);
	if (write) {
		atomic_store_explicit(&l->holder, c->id, memory_order_relaxed);
		/* Bounces follow the trace's instances: the write hold is one
		 * lock (last_cpu is the last writer, written under the write
		 * hold); each CPU's read hold is its own instance, so a read
		 * never bounces (simplification: lock_stat counts readers). */
		if (l->last_cpu >= 0 && l->last_cpu != c->id)
			c->stats[l->cls].bounces++;
		l->last_cpu = c->id;
	} else
		atomic_fetch_add_explicit(&l->readers, 1, memory_order_relaxed);
	c->stats[l->cls].acquisitions++;
	c->stats[l->cls].wait_ns_total += wait_ns;
	if (wait_ns > c->stats[l->cls].wait_ns_max)
		c->stats[l->cls].wait_ns_max = wait_ns;
	atomic_fetch_add_explicit(&c->progress, 1, memory_order_relaxed);
	trace_ev_lock_acquired(trace_cpu(c), l->cls, inst, site, wait_ns, m.file, m.line, l->life);
	sched_point(SEV_acquired, site, l, 0, 0, 0);
}

static void sim_up(struct sim_lock *l, enum site site, bool write)
{
	struct sim_cpu *c = this_cpu;
	struct lock_class_stats *st = &c->stats[l->cls];
	int n = atomic_load_explicit(&c->nheld, memory_order_relaxed);
	uint64_t since = 0;
	struct src_mark m = sim_src_at(site);

	if (l->off)
		return;
	for (int i = n - 1; i >= 0; i--)
		if (c->held[i].lock == l)
			since = c->held[i].since_ns;
	if (!pop_held(c, l)) {
		report_violation(VIOL_double_unlock, l->cls, -1, site, -1, c->id, -1, 0,
				 "%s releases %s at %s but does not hold it", c->name,
				 lock_class_name(l->cls), site_name(site));
		return;
	}
	uint64_t hold_ns = lock_now(c) - since;
	st->hold_ns_total += hold_ns;
	if (hold_ns > st->hold_ns_max)
		st->hold_ns_max = hold_ns;
	trace_ev_lock_release(trace_cpu(c), l->cls, rwsem_inst(c, write), site, hold_ns, m.file,
			      m.line, l->life);
	if (write)
		atomic_store_explicit(&l->holder, -1, memory_order_relaxed);
	else
		atomic_fetch_sub_explicit(&l->readers, 1, memory_order_relaxed);
	pthread_rwlock_unlock(&l->rw);
	sched_point(SEV_release, site, l, 0, 0, 0);
}

/*
 * down_read_trylock: a read hold if no writer has it, else false at once.
 * Traced as a lock_trylock of the read instance, like a spin trylock; a
 * trylock adds no order edge (it cannot wait), locks taken under it do.
 */
bool sim_down_read_trylock(struct sim_lock *l, enum site site)
{
	struct sim_cpu *c = this_cpu;
	uint64_t inst = rwsem_inst(c, false);
	struct src_mark m = sim_src_at(site);

	if (l->off)
		return true;
	if (rwsem_try(l, false) != 0) {
		c->stats[l->cls].trylock_failures++;
		trace_ev_lock_trylock(trace_cpu(c), l->cls, inst, site, 0, m.file, m.line, l->life);
		sched_point(SEV_trylock_failed, site, l, 0, 0, 0);
		return false;
	}
	push_held(c, l, site, true);
	atomic_fetch_add_explicit(&l->readers, 1, memory_order_relaxed);
	c->stats[l->cls].acquisitions++;
	atomic_fetch_add_explicit(&c->progress, 1, memory_order_relaxed);
	trace_ev_lock_trylock(trace_cpu(c), l->cls, inst, site, 1, m.file, m.line, l->life);
	trace_ev_lock_acquired(trace_cpu(c), l->cls, inst, site, 0, m.file, m.line, l->life);
	sched_point(SEV_trylock, site, l, 0, 0, 0);
	return true;
}

void sim_down_read(struct sim_lock *l, enum site site)
{
	sim_down(l, site, false);
}

void sim_up_read(struct sim_lock *l, enum site site)
{
	sim_up(l, site, false);
}

void sim_down_write(struct sim_lock *l, enum site site)
{
	sim_down(l, site, true);
}

void sim_up_write(struct sim_lock *l, enum site site)
{
	sim_up(l, site, true);
}
