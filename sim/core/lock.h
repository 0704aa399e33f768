/*
 * lock.h - instrumented locks and the simulated CPUs that take them.
 *
 * A struct sim_lock stands for a kernel spinlock.  It comes in three kinds,
 * chosen for a whole run (--locks):
 *
 *   ticket  the x86 ticket spinlock of 2.6.25..3.x: FIFO, the waiters spin
 *           (with a pause) on one shared word, so each release is seen by
 *           every spinner at once;
 *   mcs     a queued lock, the heart of today's qspinlock: FIFO, each
 *           waiter spins on its own node, a release touches one waiter;
 *   mutex   a pthread mutex: waiters sleep, the lock is unfair.  Helgrind
 *           only understands this kind (ThreadSanitizer all three).
 *
 * Whatever the kind, every operation on it does four things the kernel's
 * lockdep and lock_stat do:
 *
 *   - keeps the taking CPU's held-locks stack (for the validator, for the
 *     deadlock watchdog's dump and for "is this lock held?" assertions);
 *   - counts, per CPU and per lock class, acquisitions, contentions, wait
 *     and hold times and bounces (the lock last taken on another CPU);
 *     the per-CPU counters are merged only when a run ends;
 *   - tells the validator (lockdep.c) which locks were held when it was
 *     taken, so the lock-order graph grows;
 *   - fires an LTTng tracepoint at each step: acquire, contended,
 *     acquired (after the lock is ours), release (before it is given up),
 *     so that a trace never shows two holders of one lock.
 *
 * Code takes locks with spin_lock(&l) and friends.  Each function that does
 * so names itself first with SITE(function_name); the macros pass that site
 * along, so every event says which function took or dropped the lock.
 */
#ifndef SIM_LOCK_H
#define SIM_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tracepoints/icache_enums.h"
#include "tracepoints/icache_events.h"

#define MAX_HELD_LOCKS 16
#define MAX_SIM_CPUS 256

enum lock_kind { LOCK_MUTEX, LOCK_TICKET, LOCK_MCS, NR_LOCK_KINDS };

/* The kind the next sim_lock_init() gives; a run sets it before its locks. */
extern enum lock_kind sim_lock_kind;
const char *lock_kind_name(enum lock_kind k);
bool lock_kind_parse(const char *s, enum lock_kind *out);
/* Does the calling thread run under a real-time policy (chrt -f, -r)? */
bool thread_is_real_time(void);
/* Does it give its core away now and then while it spins?  Not under a
 * real-time policy (lock.c says why). */
bool sim_spin_yields(void);

/* An MCS waiter's node: it spins on its own line, not the lock's. */
struct mcs_node {
	_Atomic(struct mcs_node *) next;
	atomic_int locked;   /* 1 until the previous holder hands over */
	atomic_int sleepers; /* its waiter sleeps on `locked` (lock.c) */
} __attribute__((aligned(64)));

struct sim_lock {
	enum lock_kind kind;
	pthread_mutex_t mu;                  /* LOCK_MUTEX */
	atomic_uint tk_next, tk_owner;       /* LOCK_TICKET: next ticket, now served */
	atomic_int tk_sleepers;              /* LOCK_TICKET: waiters asleep on tk_owner */
	_Atomic(struct mcs_node *) mcs_tail; /* LOCK_MCS: last in the queue */
	pthread_rwlock_t rw;                 /* sleeping rw-locks (sim_rwsem_init) */
	bool is_rwsem;
	/*
	 * Set by a test variant that removes this lock from its scheme (the
	 * "variant no-iprune-sem" scenario line): every operation on it is
	 * then a no-op, so the scheme runs as if the lock did not exist.
	 */
	bool off;
	enum lock_class cls;
	uint64_t inst;      /* which one: bucket, sb, or inode number */
	uint64_t life;      /* i_lock: its inode life's id (traced), else 0 */
	atomic_int holder;  /* simulated CPU holding it (for write), -1 */
	atomic_int readers; /* rw-locks: how many hold it for read */
	/* The fields below are protected by the lock itself. */
	int last_cpu;              /* for bounces */
	int prev_cpu;              /* last_cpu before the holder took it */
	uint64_t acquired_ns;      /* for hold times */
	struct mcs_node *mcs_mine; /* LOCK_MCS: the holder's node */
};

/*
 * The call site a CPU is at: every use of __site (SITE() below) stores
 * its file and line here, the way lockdep records its caller's address,
 * and the trace events of that site carry them (tracepoints/EVENTS.md).
 */
struct src_mark {
	uint16_t line;
	uint8_t file; /* enum src_file */
	uint8_t site; /* the enum site that marked it */
};

struct held_lock {
	struct sim_lock *lock;
	enum site site;
	bool trylock;
	uint64_t since_ns; /* rw-locks: when this hold began */
};

/* lock_stat's columns, per lock class. */
struct lock_class_stats {
	uint64_t acquisitions;
	uint64_t contentions;
	uint64_t bounces;
	uint64_t trylock_failures;
	uint64_t wait_ns_total, wait_ns_max;
	uint64_t hold_ns_total, hold_ns_max;
};

/*
 * One simulated CPU: a pthread pinned to a real core.  Everything in here is
 * written only by its own thread; the watchdog reads the atomics.
 */
struct sim_cpu {
	int id;
	const char *name; /* "cpu0", "flusher", "main" */
	atomic_int nheld;
	struct held_lock held[MAX_HELD_LOCKS];
	_Atomic(struct sim_lock *) waiting_for;
	atomic_int waiting_site;
	atomic_uint_fast64_t progress; /* locks taken: the watchdog's pulse */
	atomic_uint_fast64_t ops_done; /* operations finished */
	struct lock_class_stats stats[NR_LOCK_CLASSES];
	int64_t nr_inodes; /* this CPU's share of nr_inodes */
	/* its share of nr_unused (COUNTERS_PERCPU); written by this CPU only,
	 * summed by any reader (the shrinker's count), hence atomic */
	atomic_llong nr_unused;
	uint64_t last_ino, last_ino_end; /* get_next_ino's per-CPU batch */
	uint64_t rng;                    /* workload random state */
	int sched_blocked;               /* scenario mode: parked on a lock */
	int nest_subclass;               /* set by spin_lock_nested() for one call */
	/* The acquisition under way (ticket taken, MCS node queued). */
	unsigned wait_ticket;
	struct mcs_node *wait_node;
	struct mcs_node mcs_nodes[MAX_HELD_LOCKS + 1];
	unsigned mcs_busy;   /* bitmap of mcs_nodes in use */
	uint64_t vclock;     /* virtual mode: this CPU's time, ns */
	struct src_mark src; /* the call site it is at (sim_src_mark) */
	int rcu_nesting;     /* depth of its RCU read-side sections (rcu.h) */
};

/* Virtual-time mode (sim/engine/vrun.c): lock times are CPUs' vclocks. */
extern bool sim_virtual_time;

/* Could c, parked waiting for l, take it now?  (Schedulers ask.) */
bool sim_lock_turn(struct sim_cpu *c, const struct sim_lock *l);

/* The CPU the calling thread simulates. */
extern __thread struct sim_cpu *this_cpu;

void sim_lock_init(struct sim_lock *l, enum lock_class cls, uint64_t inst);
void sim_lock_destroy(struct sim_lock *l);

void sim_spin_lock(struct sim_lock *l, enum site site);
bool sim_spin_trylock(struct sim_lock *l, enum site site);
void sim_spin_unlock(struct sim_lock *l, enum site site);
bool sim_lock_held(const struct sim_lock *l);
/* Is it held by anyone, for read or write? (A waiter may not go on.) */
bool sim_lock_busy(const struct sim_lock *l);

/*
 * A sleeping reader-writer lock, the kernel's rw_semaphore (iprune_sem).
 * Traced and validated like a spinlock, with one difference: readers
 * share it, so a read hold is traced as instance 1 + CPU id and the write
 * hold as instance 0, which keeps "one holder per instance" true in the
 * trace (tracepoints/EVENTS.md).
 */
void sim_rwsem_init(struct sim_lock *l, enum lock_class cls);
void sim_down_read(struct sim_lock *l, enum site site);
/* down_read_trylock: true with a read hold, or false without waiting. */
bool sim_down_read_trylock(struct sim_lock *l, enum site site);
void sim_up_read(struct sim_lock *l, enum site site);
void sim_down_write(struct sim_lock *l, enum site site);
void sim_up_write(struct sim_lock *l, enum site site);

/*
 * Name the function that is about to take locks: SITE(iput_final);
 * Each later use of __site in it is that site and also marks the line it
 * is written on as where the CPU now is (a comma expression, evaluated as
 * the call's argument, before the call), so the helper's trace events
 * say which line of which file called them.  SRC_FILE_ID is the file
 * (the Makefile gives sim/schemes/ SRC_scheme; core files define theirs).
 */
#ifndef SRC_FILE_ID
#define SRC_FILE_ID SRC_unknown
#endif
#define SITE(fn) const enum site __site_fn = SITE_##fn
#define __site (sim_src_mark(SRC_FILE_ID, __LINE__, __site_fn), __site_fn)
#define spin_lock(l) sim_spin_lock((l), __site)
#define spin_trylock(l) sim_spin_trylock((l), __site)
#define spin_unlock(l) sim_spin_unlock((l), __site)
/*
 * lockdep's annotation: this lock may be taken while another lock of its
 * class is held (subclass > 0, e.g. SINGLE_DEPTH_NESTING).  Without it,
 * nesting two locks of one class is reported: the validator cannot order
 * two instances, so only the author can say the nesting is safe.
 */
#define SINGLE_DEPTH_NESTING 1
#define spin_lock_nested(l, sub) (this_cpu->nest_subclass = (sub), sim_spin_lock((l), __site))
#define down_read(l) sim_down_read((l), __site)
#define up_read(l) sim_up_read((l), __site)
#define down_read_trylock(l) sim_down_read_trylock((l), __site)
#define down_write(l) sim_down_write((l), __site)
#define up_write(l) sim_up_write((l), __site)

/* The thread's mark when it has no simulated CPU (this_cpu NULL). */
extern __thread struct src_mark sim_src_nocpu;

static inline struct src_mark *sim_src_slot(void)
{
	return this_cpu ? &this_cpu->src : &sim_src_nocpu;
}

static inline void sim_src_mark(enum src_file file, int line, enum site site)
{
#ifdef ICACHE_NO_SRC_MARK /* measuring what the marks cost (a bench-only build) */
	return;
#endif
	struct src_mark *m = sim_src_slot();
	m->line = (uint16_t)line;
	m->file = (uint8_t)file;
	m->site = (uint8_t)site;
}

/*
 * The mark for an event of site s: only a mark made by s itself counts
 * (a helper reached without a fresh mark, e.g. with a literal site, gets
 * "unknown" rather than the line of some earlier call).
 */
static inline struct src_mark sim_src_at(enum site s)
{
	struct src_mark m = *sim_src_slot();
	if (m.site != (uint8_t)s || m.line == 0)
		return (struct src_mark){ 0, SRC_unknown, (uint8_t)s };
	return m;
}

const char *lock_class_name(enum lock_class c);
const char *site_name(enum site s);

/* Merge every CPU's counters into out[NR_LOCK_CLASSES]. */
void lock_stats_sum(struct sim_cpu *const *cpus, int n, struct lock_class_stats *out);

/*
 * Scenario mode (sim/script/sched.c installs the hooks).  Every instrumentation
 * point is a step: the CPU that reaches it reports a sched_event and may
 * have to wait there for its turn, so only the scheduled CPU ever runs.
 * A CPU that finds a lock taken parks in blocked() instead of spinning,
 * and one that must sleep on an inode (I_NEW, I_FREEING, I_SYNC) parks in
 * wait() until some CPU calls wake() for that inode.  With sim_sched NULL
 * (every other mode) each point costs a load and a predicted branch.
 */
/* The step kinds (enum sched_event_kind, SEV_*) are generated from the
 * event table, tracepoints/icache_events.h: a row's SCHED(kind) column,
 * plus SEV_trylock_failed and SEV_wake, which have no event of their own.
 * The a and b of a step: state and ref old -> new; list a = enum
 * inode_list_id, b = enum list_action; nlink b = new; alloc a = sb;
 * op_begin a = enum op_kind, op_end also b = result. */

struct sched_event {
	enum sched_event_kind kind;
	enum site site;
	const struct sim_lock *lock; /* lock events, else NULL */
	uint64_t ino;                /* the inode concerned, or 0 */
	int64_t a, b;                /* see the kinds above */
};

struct sched_hooks {
	void (*point)(const struct sched_event *ev);
	void (*blocked)(struct sim_cpu *c, struct sim_lock *l, enum site site);
	void (*wait)(struct sim_cpu *c, uint64_t ino, enum site site);
	void (*wake)(struct sim_cpu *c, uint64_t ino);
};
extern const struct sched_hooks *sim_sched;

/* Report a step to the scheduler, if there is one. */
static inline void sched_point(enum sched_event_kind kind, enum site site, const struct sim_lock *l,
			       uint64_t ino, int64_t a, int64_t b)
{
	if (__builtin_expect(sim_sched != NULL, 0)) {
		struct sched_event ev = { kind, site, l, ino, a, b };
		sim_sched->point(&ev);
	}
}

#endif /* SIM_LOCK_H */
