/*
 * vrun.c - the virtual-time mode (vrun.h): coroutines, virtual clocks and
 * the cost model applied at every instrumentation point.
 *
 * Time is kept in picoseconds per CPU (costs like 41.3 ns add up exactly)
 * and shown to lock.c in nanoseconds (sim_cpu.vclock).  At each point the
 * running CPU is charged the work since its last point (a lock's
 * acquisition: the measured cost of taking and releasing a lock; any
 * other point: the step cost) plus the event's own cost, and if
 * its clock has passed another runnable CPU's, it gives way to the
 * smallest.  So whatever a CPU does at its next point (take a lock, find
 * it busy, move a list) happens at a virtual time no other CPU has passed.
 *
 * Lock waits: a CPU that finds a lock taken parks (lock.c calls the
 * blocked hook in a loop until it is its turn).  The release, at the
 * releaser's clock t, decides:
 *   ticket  the waiter whose ticket comes up runs at t + xfer*(n+1)/2,
 *           n the number of CPUs spinning on the lock;
 *   mcs     the next in the queue runs at t + xfer;
 *   mutex   the releaser pays the wake call; the longest sleeper runs at
 *           t + wake and tries again (a CPU arriving meanwhile may barge).
 * Sleeps on an inode (I_NEW, I_SYNC) end at the waker's clock + wake.
 *
 * Simplifications, each said once here: by default (--lines=all) every
 * write of shared data the core reports moves a line (list nodes,
 * neighbours and heads, an inode's fields, shared counters, a lock's
 * bookkeeping); --lines=lists follows only the lines a list operation
 * writes; --lines=heads tracks a list head's line per list kind (not per
 * superblock or hash bucket, and hash chains are taken as local: a bucket
 * is rarely shared) and a lock's word, nothing else;
 * only writes move lines (a read of a line another CPU wrote is free);
 * with --lines=all and a cost file that measured xfer_more_ns, the line
 * of a store to a line not read first (list.h's LIST_STORE) is in flight
 * while its CPU goes on (store_miss), with no limit on the lines in
 * flight, and only a locked read-modify-write waits for it (v_line_rmw:
 * a lock taken, i_count; a counter the kernel keeps as a plain field
 * under a lock, such as nr_unused, counts as a plain field);
 * the flusher sleeps 500 us when it finds nothing to write, as the real
 * one does, for as long as the cost file's nap_ns says a real usleep(500)
 * lasts (500 us without it), give or take its nap_spread_ns (drawn
 * uniformly, seeded: a real nap's spread is not uniform), at no cost to
 * its CPU.
 *
 * The flusher is a task, not a CPU: by default it shares the last
 * simulated CPU with that CPU's worker (--flusher-cpu=own gives it a CPU
 * of its own, as a real run's flusher thread has a spare core).  The two
 * share the CPU as CFS does, in two rules with 2.6.39's unscaled
 * constants (kernel/sched_fair.c): a task that wakes is placed at most
 * sched_latency / 2 = 3 ms of CPU time behind the other (place_entity),
 * and the one running gives way at its next point where it holds no
 * lock once it is sched_wakeup_granularity = 1 ms ahead of the one
 * waiting.  A task spinning for a lock keeps the CPU, as a kernel's
 * does; one that sleeps (on an inode, or for a sleeping lock: an rw
 * semaphore, or any lock under --locks mutex) gives it to the other task
 * only if it holds no lock itself.  A context switch costs nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "sim/core/clock.h"
#include "sim/core/lockdep.h"
#include "sim/core/rcu.h"
#include "sim/core/trace.h"
#include "sim/core/violation.h"
#include "sim/engine/costs.h"
#include "sim/engine/fiber.h"
#include "sim/engine/vclock.h"
#include "sim/engine/vrun.h"

#define VSTACK (256 * 1024)
#define SLEEPER_PS (3ull * 1000 * 1000 * 1000)     /* sched_latency / 2 */
#define WAKEUP_GRAN_PS (1ull * 1000 * 1000 * 1000) /* sched_wakeup_granularity */
/* No operation finished anywhere in this many points: a livelock. */
#define LIVELOCK_POINTS (20ull * 1000 * 1000)

/*
 * A task's state.  On its CPU: V_RUNNING, V_READY (in the heap, its
 * clock the time it runs next), V_BLOCKED (spinning for a lock).  Off
 * it: V_SLEEPING (on an inode), V_OFF_CPU (could run, but the other task
 * of its CPU has it), V_IDLE (the flusher's sleep, until idle_until,
 * while the other task has the CPU), V_DONE.
 */
enum vstate { V_READY, V_RUNNING, V_BLOCKED, V_SLEEPING, V_OFF_CPU, V_IDLE, V_DONE };

struct vcpu {
	int idx;
	struct sim_cpu *cpu;
	struct fiber fib;
	enum vstate state;
	uint64_t ps;                 /* virtual clock, picoseconds */
	struct sim_lock *blocked_on; /* V_BLOCKED */
	uint64_t blocked_at;
	uint64_t sleep_ino; /* V_SLEEPING */
	bool handed;        /* got its lock by a handoff: the line is paid */
	bool waited;        /* blocked on the lock it is taking */
	int heap_pos;       /* in the ready heap, or -1 */
	uint64_t ops_target;
	bool flusher;
	uint64_t rng; /* --jitter: this CPU's xorshift state */
	/* A CPU two tasks share (the flusher and the last worker): */
	struct vcpu *twin;   /* the other task on this CPU, or NULL */
	int line_id;         /* whose cache it writes in: the CPU's id */
	uint64_t run_ps;     /* time on the CPU (running or spinning) */
	uint64_t fair_ps;    /* run_ps as CFS counts it (vruntime): placed on waking */
	uint64_t idle_until; /* V_IDLE */
	bool idling;         /* in the heap only as the end of its idle */
	bool gave_cpu;       /* V_BLOCKED on a sleeping lock, its CPU given up */
	uint64_t drained_ps; /* when the lines its stores moved have all arrived */
};

/*
 * --lines=lists|all: the simulated CPU that last wrote each cache line a
 * list operation (with all, the default, any shared write) wrote, by the line's
 * address (open addressing; a line is never forgotten, as a cache keeps
 * it until another CPU takes it).  Only equality of line addresses
 * matters, never their values, so the result does not depend on where
 * the host put the memory: which fields share a line follows the
 * program's own layout (the allocator and the linker keep offsets within
 * a page the same from one run to the next).
 */
struct line_map {
	uintptr_t *line; /* address / 64 + 1; 0 = empty slot */
	int *owner;
	size_t cap, n;
};

struct vrun {
	const struct run_config *cfg;
	struct run_ctx *ctx;
	struct vcpu *v;
	int nv, nworkers, workers_left;
	struct vcpu **heap; /* ready CPUs, smallest clock first */
	int nheap;
	struct vcpu *cur;
	struct fiber main;
	uint64_t step_ps, wake_ps, wake_call_ps, lock_ps, contended_ps;
	uint64_t hold_ps;       /* of lock_ps, the part inside the hold */
	uint64_t nap_ps;        /* the flusher's nap */
	uint64_t nap_spread_ps; /* it lasts nap_ps +- this, drawn each time */
	uint64_t line_ps;       /* a line another CPU wrote last: line_ns */
	uint64_t xfer_ps;       /* a hand-over to a CPU spinning on the line */
	uint64_t more_ps;       /* xfer_more_ns; stores stall their CPU without it */
	bool overlap;           /* --lines=all with xfer_more_ns: stores overlap */
	uint64_t points, worker_points, worker_step_points, xfers, end_ps, duration_ps;
	uint64_t points_at_last_op;     /* no op done for LIVELOCK_POINTS: livelock */
	int line_owner[NR_INODE_LISTS]; /* who wrote each list head last */
	struct line_map lines;          /* --lines=lists|all */
};

/* One virtual run at a time: the core's hooks carry no context. */
static struct vrun *V;

/* ---- the ready heap ----------------------------------------------------- */

static bool before(const struct vcpu *a, const struct vcpu *b)
{
	return a->ps < b->ps || (a->ps == b->ps && a->idx < b->idx);
}

static void heap_set(struct vrun *r, int i, struct vcpu *v)
{
	r->heap[i] = v;
	v->heap_pos = i;
}

/* Move v, at heap slot i, up towards the root while it is before its
 * parent, and down while a child is before it. */
static void heap_sift(struct vrun *r, int i, struct vcpu *v)
{
	while (i > 0 && before(v, r->heap[(i - 1) / 2])) {
		heap_set(r, i, r->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	for (;;) {
		int c = 2 * i + 1;
		if (c >= r->nheap)
			break;
		if (c + 1 < r->nheap && before(r->heap[c + 1], r->heap[c]))
			c++;
		if (!before(r->heap[c], v))
			break;
		heap_set(r, i, r->heap[c]);
		i = c;
	}
	heap_set(r, i, v);
}

static void heap_push(struct vrun *r, struct vcpu *v)
{
	heap_sift(r, r->nheap++, v);
	v->state = V_READY;
}

/* Take v out of the heap, wherever it is. */
static void heap_remove(struct vrun *r, struct vcpu *v)
{
	struct vcpu *last = r->heap[--r->nheap];
	if (last != v)
		heap_sift(r, v->heap_pos, last);
	v->heap_pos = -1;
}

static struct vcpu *heap_pop(struct vrun *r)
{
	struct vcpu *top = r->heap[0];
	heap_remove(r, top);
	return top;
}

/* ---- switching ------------------------------------------------------------ */

static bool on_cpu(const struct vcpu *v)
{
	return v->state == V_RUNNING || v->state == V_READY ||
	       (v->state == V_BLOCKED && !v->gave_cpu);
}

/* v's clock moves to ps; time it spent on its CPU counts as its run time. */
static void set_clock(struct vcpu *v, uint64_t ps)
{
	if (ps > v->ps && on_cpu(v)) {
		v->run_ps += ps - v->ps;
		v->fair_ps += ps - v->ps;
	}
	v->ps = ps;
	v->cpu->vclock = ps / 1000;
	if (V && V->cur == v)
		vclock_set(v->cpu->vclock); /* the time its next event is stamped with */
}

static void deadlock(struct vrun *r, const char *what);

/* The running CPU stops (parked, done, or giving way): run the next. */
static void run_next(struct vrun *r, struct vcpu *from)
{
	struct fiber *to;

	if (r->nheap) {
		struct vcpu *next = heap_pop(r);
		next->state = V_RUNNING;
		r->cur = next;
		this_cpu = next->cpu;
		vclock_set(next->cpu->vclock);
		to = &next->fib;
	} else if (r->workers_left == 0) {
		r->cur = NULL;
		this_cpu = NULL;
		to = &r->main;
	} else {
		deadlock(r, "deadlock: no simulated CPU can run");
		return;
	}
	fiber_switch(&from->fib, to);
}

static void maybe_give_way(struct vrun *r, struct vcpu *v)
{
	if (r->nheap && before(r->heap[0], v)) {
		heap_push(r, v);
		run_next(r, v);
	}
}

/* ---- the cost of each point ---------------------------------------------- */

/* The cache a task of this id writes in (the main thread's own). */
static int line_id_of(const struct vrun *r, int cpu_id)
{
	return cpu_id < r->nv ? r->v[cpu_id].line_id : cpu_id;
}

static uint64_t lock_line_cost(struct vrun *r, struct vcpu *v, const struct sim_lock *l)
{
	if (v->handed) {
		v->handed = false; /* the handoff carried the line */
		return 0;
	}
	if (r->cfg->lines)
		return 0; /* v_line charged the lock word's line when it was written */
	if (l->prev_cpu >= 0 && line_id_of(r, l->prev_cpu) != v->line_id) {
		r->xfers++;
		return r->line_ps;
	}
	return 0;
}

static size_t line_hash(uintptr_t line, size_t cap)
{
	return (size_t)((line * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static void line_map_grow(struct line_map *m)
{
	struct line_map big = { .cap = m->cap ? 2 * m->cap : 1 << 16 };
	big.line = xcalloc(big.cap, sizeof(*big.line));
	big.owner = xcalloc(big.cap, sizeof(*big.owner));
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->line[i])
			continue;
		size_t h = line_hash(m->line[i], big.cap);
		while (big.line[h])
			h = (h + 1) & (big.cap - 1);
		big.line[h] = m->line[i];
		big.owner[h] = m->owner[i];
	}
	big.n = m->n;
	free(m->line);
	free(m->owner);
	*m = big;
}

/* The owner of the line at addr (-1: never written yet). */
static int *line_owner_of(struct line_map *m, const void *addr)
{
	if (2 * (m->n + 1) > m->cap)
		line_map_grow(m);
	uintptr_t line = (uintptr_t)addr / 64 + 1;
	size_t h = line_hash(line, m->cap);
	while (m->line[h] && m->line[h] != line)
		h = (h + 1) & (m->cap - 1);
	if (!m->line[h]) {
		m->line[h] = line;
		m->owner[h] = -1;
		m->n++;
	}
	return &m->owner[h];
}

static struct vcpu *me(void);

/* v writes the line of addr: did another CPU write it last? */
static bool line_moves(struct vrun *r, struct vcpu *v, const void *addr)
{
	int *owner = line_owner_of(&r->lines, addr);
	bool moves = *owner >= 0 && *owner != v->line_id;
	*owner = v->line_id;
	if (moves)
		r->xfers++;
	return moves;
}

/* A plain store missed: its line is on its way, and v goes on.  With
 * others on their way it arrives xfer_more after the last of them. */
static void store_miss(struct vrun *r, struct vcpu *v)
{
	if (v->drained_ps > v->ps)
		v->drained_ps += r->more_ps;
	else
		v->drained_ps = v->ps + r->line_ps;
}

/* list.h's hooks: the running CPU reads, then writes, the line of addr (a
 * list link, or with --lines any shared field): it waits for the line. */
static void v_line(const void *addr)
{
	struct vcpu *v = me();
	if (!v)
		return; /* the main thread, setting up or tearing down */
	struct vrun *r = V;
	if (line_moves(r, v, addr))
		set_clock(v, v->ps + r->line_ps);
}

/* list.h's LIST_STORE: a link the running CPU only stores to. */
static void v_line_store(const void *addr)
{
	struct vcpu *v = me();
	if (v && !V->overlap)
		v_line(addr); /* the model without xfer_more: it waits */
	else if (v && line_moves(V, v, addr))
		store_miss(V, v);
}

/* A locked read-modify-write of addr: it waits for v's stores in flight,
 * then for its own line.  Simplified: it takes effect when the fetch
 * begins (no other CPU runs meanwhile), not when the line leaves its
 * owner, about half-way (measured: moving it there changes lesson 10's
 * ops/s by up to 2 % and the validation's contention ratios both ways). */
static void v_line_rmw(const void *addr)
{
	struct vcpu *v = me();
	if (!v)
		return;
	struct vrun *r = V;
	if (r->overlap && v->drained_ps > v->ps)
		set_clock(v, v->drained_ps);
	if (line_moves(r, v, addr))
		set_clock(v, v->ps + r->line_ps);
}

static uint64_t list_line_cost(struct vrun *r, struct vcpu *v, int list)
{
	if (r->cfg->list_lines || r->cfg->lines)
		return 0; /* v_line has charged every line it wrote */
	if (list < 0 || list >= NR_INODE_LISTS || list == LIST_hash)
		return 0;
	int was = r->line_owner[list];
	r->line_owner[list] = v->line_id;
	if (was >= 0 && was != v->line_id) {
		r->xfers++;
		return r->line_ps;
	}
	return 0;
}

static uint64_t later(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* ---- two tasks on one CPU: the flusher and the last worker ---------------- */

/* w wakes while t has their CPU: CFS puts it at most 3 ms behind t. */
static void place_woken(struct vcpu *w, const struct vcpu *t)
{
	uint64_t floor = t->fair_ps > SLEEPER_PS ? t->fair_ps - SLEEPER_PS : 0;
	w->fair_ps = later(w->fair_ps, floor);
}

/* v leaves its CPU (sleeps, idles, is done): the other task takes it, at
 * once if it was waiting, or when its idle is over. */
static void leave_cpu(struct vrun *r, struct vcpu *v)
{
	struct vcpu *t = v->twin;
	if (!t || (t->state != V_OFF_CPU && t->state != V_IDLE))
		return;
	t->idling = t->state == V_IDLE;
	set_clock(t, later(t->idling ? t->idle_until : t->ps, v->ps));
	heap_push(r, t);
}

/* w, asleep, may run again from virtual time at: at once if its CPU is
 * free, else when the other task of its CPU gives it way. */
static void make_runnable(struct vrun *r, struct vcpu *w, uint64_t at)
{
	struct vcpu *t = w->twin;
	set_clock(w, at);
	if (t && t->idling && t->state == V_READY && t->idle_until > at) {
		heap_remove(r, t); /* the CPU was idle until t's timer: w has it */
		t->state = V_IDLE;
	} else if (t && on_cpu(t)) {
		place_woken(w, t);
		w->state = V_OFF_CPU;
		return;
	}
	heap_push(r, w);
}

/* At each of v's points: the other task of its CPU wakes if its idle is
 * over, and gets the CPU if v holds no lock and is 1 ms of CPU ahead. */
static void share_cpu(struct vrun *r, struct vcpu *v)
{
	struct vcpu *t = v->twin;
	if (!t)
		return;
	if (t->state == V_IDLE && t->idle_until <= v->ps) {
		t->state = V_OFF_CPU;
		place_woken(t, v);
	}
	if (t->state != V_OFF_CPU || atomic_load(&v->cpu->nheld) > 0 ||
	    v->fair_ps <= t->fair_ps + WAKEUP_GRAN_PS)
		return;
	v->state = V_OFF_CPU;
	leave_cpu(r, v);
	run_next(r, v); /* back when t leaves the CPU or gives it way */
}

/* v's next 53 random bits (xorshift64, seeded from --seed and its id). */
static uint64_t v_random(struct vcpu *v)
{
	v->rng ^= v->rng << 13;
	v->rng ^= v->rng >> 7;
	v->rng ^= v->rng << 17;
	return v->rng >> 11;
}

/* How long this nap lasts: nap_ps, or with a spread a seeded draw in
 * nap_ps +- spread, as no two real usleep(500)s last the same. */
static uint64_t nap_length(struct vrun *r, struct vcpu *v)
{
	uint64_t s = r->nap_spread_ps;
	if (!s)
		return r->nap_ps;
	return r->nap_ps - s + v_random(v) % (2 * s + 1);
}

/* The flusher found nothing to write: it sleeps 500 us (for as long as
 * the cost file says a real usleep(500) lasts), and its CPU's worker, if
 * it was waiting, has the CPU meanwhile. */
static void flusher_idle(struct vrun *r, struct vcpu *v)
{
	struct vcpu *t = v->twin;
	v->idle_until = v->ps + nap_length(r, v);
	v->state = V_IDLE;
	if (t && t->state == V_OFF_CPU) {
		leave_cpu(r, v);
		run_next(r, v); /* back when t wakes it, or leaves the CPU */
	} else {
		set_clock(v, v->idle_until); /* not run time: it is V_IDLE */
		v->state = V_RUNNING;
		v->idling = true;
		maybe_give_way(r, v);
	}
	v->idling = false;
}

/* A sleeping lock's waiter w may try again from virtual time at. */
static void wake_waiter(struct vrun *r, struct vcpu *w, uint64_t at)
{
	if (w->gave_cpu) {
		w->gave_cpu = false;
		w->state = V_SLEEPING; /* as it was: its wait is not run time */
		make_runnable(r, w, at);
		return;
	}
	set_clock(w, at);
	heap_push(r, w);
}

/* l was just released by v: who runs next, and when. */
static void release_wakes(struct vrun *r, struct vcpu *v, const struct sim_lock *l)
{
	struct vcpu *pick = NULL;
	uint64_t n = 0;
	/* Its waiters see the release once v's earlier stores have arrived
	 * (x86 makes stores visible in order). */
	uint64_t t = r->overlap ? later(v->ps, v->drained_ps) : v->ps;

	if (l->is_rwsem) {
		/* A sleeping rw-lock: every sleeper wakes and tries again. */
		for (int i = 0; i < r->nv; i++) {
			struct vcpu *w = &r->v[i];
			if (w->state == V_BLOCKED && w->blocked_on == l) {
				w->blocked_on = NULL;
				wake_waiter(r, w, later(w->ps, t) + r->wake_ps);
			}
		}
		return;
	}
	for (int i = 0; i < r->nv; i++) {
		struct vcpu *w = &r->v[i];
		if (w->state != V_BLOCKED || w->blocked_on != l)
			continue;
		n++;
		if (l->kind == LOCK_MUTEX) {
			if (!pick || w->blocked_at < pick->blocked_at)
				pick = w;
		} else if (sim_lock_turn(w->cpu, l)) {
			pick = w;
		}
	}
	if (!pick)
		return;
	switch (l->kind) {
	case LOCK_TICKET:
		r->xfers += n; /* every spinner reads the line again */
		set_clock(pick, later(pick->ps, t) + r->xfer_ps * (n + 1) / 2);
		pick->handed = true;
		break;
	case LOCK_MCS:
		r->xfers++;
		set_clock(pick, later(pick->ps, t) + r->xfer_ps);
		pick->handed = true;
		break;
	default:
		set_clock(v, v->ps + r->wake_call_ps);
		pick->blocked_on = NULL;
		wake_waiter(r, pick, later(pick->ps, t) + r->wake_ps);
		return;
	}
	pick->blocked_on = NULL;
	heap_push(r, pick);
}

static uint64_t event_cost(struct vrun *r, struct vcpu *v, const struct sched_event *ev)
{
	switch (ev->kind) {
	case SEV_acquired:
	case SEV_trylock:
		return lock_line_cost(r, v, ev->lock);
	case SEV_trylock_failed:
		if (r->cfg->lines)
			return 0; /* its write of the lock word was charged (v_line) */
		r->xfers++;       /* it read a line another CPU holds */
		return r->line_ps;
	case SEV_list:
		return list_line_cost(r, v, (int)ev->a);
	default:
		return 0;
	}
}

/* ---- the hooks ----------------------------------------------------------------- */

/*
 * The work between two points: the measured step cost, or with --jitter a
 * draw in step * [1 - j, 1 + j].  Without it, CPUs that do the same thing
 * stay in lockstep for ever, which no real machine does (interrupts, cache
 * misses, frequency changes); a race that needs one CPU to fall behind
 * another by a few steps then never happens.
 */
static uint64_t step_cost(struct vrun *r, struct vcpu *v)
{
	double j = r->cfg->jitter;
	if (j <= 0)
		return r->step_ps;
	double u = (double)v_random(v) / 9007199254740992.0; /* [0, 1) */
	return (uint64_t)((double)r->step_ps * (1 - j + 2 * j * u));
}

/*
 * The work since v's last point.  A lock's code costs what calibrate
 * timed for a lock taken and released: the part lock_stat counts in the
 * hold once the lock is taken (at its acquired point), the rest before
 * (at its acquire point, with the step that leads there); after a wait,
 * what calibrate timed for the contended path's own clock reads too.  A
 * trylock has no point before its attempt: all of it comes after.
 * Everything else costs a step.
 */
static uint64_t work_cost(struct vrun *r, struct vcpu *v, const struct sched_event *ev)
{
	if (ev->kind == SEV_acquired && v->waited) {
		v->waited = false; /* the contended path: its clock reads */
		if (r->lock_ps)
			return r->hold_ps + r->contended_ps;
	}
	if (r->lock_ps && ev->kind == SEV_acquired)
		return r->hold_ps;
	if (r->lock_ps && ev->kind == SEV_trylock)
		return r->lock_ps;
	if (!v->flusher)
		r->worker_step_points++;
	if (ev->kind == SEV_acquire)
		return step_cost(r, v) + r->lock_ps - r->hold_ps;
	return step_cost(r, v);
}

static struct vcpu *me(void)
{
	struct vrun *r = V;
	return r && r->cur && this_cpu == r->cur->cpu ? r->cur : NULL;
}

static void v_point(const struct sched_event *ev)
{
	struct vcpu *v = me();
	if (!v)
		return; /* the main thread, setting up or tearing down */
	struct vrun *r = V;
	r->points++;
	if (!v->flusher)
		r->worker_points++;
	set_clock(v, v->ps + work_cost(r, v, ev) + event_cost(r, v, ev));
	if (ev->kind == SEV_op_end)
		r->points_at_last_op = r->points;
	else if (r->points - r->points_at_last_op > LIVELOCK_POINTS)
		deadlock(r, "livelock: no operation finished in 20000000 points");
	if (ev->kind == SEV_release)
		release_wakes(r, v, ev->lock);
	share_cpu(r, v);
	maybe_give_way(r, v);
}

static void v_blocked(struct sim_cpu *c, struct sim_lock *l, enum site site)
{
	struct vcpu *v = me();
	if (!v)
		return;
	v->state = V_BLOCKED;
	v->waited = true;
	v->blocked_on = l;
	v->blocked_at = v->ps;
	if ((l->is_rwsem || l->kind == LOCK_MUTEX) && atomic_load(&c->nheld) == 0) {
		v->gave_cpu = true; /* it sleeps: the other task may run */
		leave_cpu(V, v);
	}
	run_next(V, v);
}

static void v_wait(struct sim_cpu *c, uint64_t ino, enum site site)
{
	struct vcpu *v = me();
	if (!v)
		return;
	v->state = V_SLEEPING;
	v->sleep_ino = ino;
	if (atomic_load(&v->cpu->nheld) == 0)
		leave_cpu(V, v); /* a task asleep holding a lock keeps its CPU */
	run_next(V, v);
}

static void v_wake(struct sim_cpu *c, uint64_t ino)
{
	struct vcpu *v = me();
	struct vrun *r = V;
	if (!v)
		return;
	for (int i = 0; i < r->nv; i++) {
		struct vcpu *w = &r->v[i];
		if (w->state == V_SLEEPING && w->sleep_ino == ino)
			make_runnable(r, w, later(w->ps, v->ps) + r->wake_ps);
	}
}

static const struct sched_hooks vhooks = {
	.point = v_point,
	.blocked = v_blocked,
	.wait = v_wait,
	.wake = v_wake,
};

/* Nobody can run and some CPU has work left: say who holds and waits. */
static void deadlock(struct vrun *r, const char *what)
{
	char buf[8192];
	size_t off = 0;

	off += (size_t)snprintf(buf, sizeof(buf), "%s\n", what);
	for (int i = 0; i < r->nv && off < sizeof(buf); i++) {
		struct vcpu *w = &r->v[i];
		int n = atomic_load(&w->cpu->nheld);
		const char *sep = " ";
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %s:", w->cpu->name);
		for (int k = 0; k < n && off < sizeof(buf); k++, sep = "; ")
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
						"%sholds %s (instance %llu, taken in %s)", sep,
						lock_class_name(w->cpu->held[k].lock->cls),
						(unsigned long long)w->cpu->held[k].lock->inst,
						site_name(w->cpu->held[k].site));
		if (w->state == V_BLOCKED && off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
						"%swaits for %s (instance %llu)", sep,
						lock_class_name(w->blocked_on->cls),
						(unsigned long long)w->blocked_on->inst);
		else if (w->state == V_SLEEPING && off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
						"%ssleeps on inode %llu", sep,
						(unsigned long long)w->sleep_ino);
		else if (w->state == V_OFF_CPU && off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
						"%swaits for its CPU, which %s has", sep,
						w->twin->cpu->name);
		if (off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "\n");
	}
	report_violation(VIOL_deadlock, -1, -1, -1, -1, -1, -1, 0, "%s", buf);
	if (r->cfg->quiet) /* the report goes out even so: it ends the run */
		fprintf(stderr, "icache-sim: %s", buf);
	fflush(stdout);
	fflush(stderr);
	_exit(1);
}

/* ---- the simulated CPUs' programs ---------------------------------------- */

static void v_done(struct vrun *r, struct vcpu *v)
{
	v->state = V_DONE;
	if (!v->flusher) {
		r->workers_left--;
		r->end_ps = later(r->end_ps, v->ps);
	}
	leave_cpu(r, v);
	run_next(r, v); /* never comes back */
}

static void v_worker(void *p)
{
	struct vcpu *v = p;
	struct vrun *r = V;
	uint64_t done = 0;

	while (r->cfg->ops ? done < v->ops_target : v->ps < r->duration_ps) {
		r->cfg->workload->op(r->ctx, v->cpu);
		done++;
		atomic_store_explicit(&v->cpu->ops_done, done, memory_order_relaxed);
	}
	v_done(r, v);
}

static void v_flusher(void *p)
{
	struct vcpu *v = p;
	struct vrun *r = V;

	while (r->workers_left > 0) {
		long n = r->cfg->scheme->writeback_inodes(&icache.wb, 64);
		atomic_fetch_add_explicit(&v->cpu->ops_done, 1, memory_order_relaxed);
		if (n == 0)
			flusher_idle(r, v);
	}
	v_done(r, v);
}

/* ---- setting up, running, collecting ----------------------------------------- */

static uint64_t to_ps(double ns)
{
	return (uint64_t)(ns * 1000.0 + 0.5);
}

/* The flusher f runs on worker w's CPU; w has it first (f waits its turn,
 * as a task just started waits for the one running). */
static void share_last_cpu(struct vrun *r, struct vcpu *w, struct vcpu *f)
{
	w->twin = f;
	f->twin = w;
	f->line_id = w->line_id;
	heap_remove(r, f);
	f->state = V_OFF_CPU;
}

static bool vrun_setup(struct vrun *r, const struct run_config *cfg, struct sim_cpu *cpus)
{
	const struct cost_model *cm = cfg->costs;
	int n = r->nv;

	r->cfg = cfg;
	r->step_ps = to_ps(cost_step_ns(cm, cfg->workload->name, cfg->scheme->name));
	r->xfer_ps = to_ps(cm->xfer_ns);
	r->line_ps = to_ps(cost_line_ns(cm));
	r->wake_ps = to_ps(cm->wake_ns);
	r->wake_call_ps = to_ps(cm->wake_call_ns);
	r->nap_ps = to_ps(cost_nap_ns(cm));
	r->nap_spread_ps = to_ps(cost_nap_spread_ns(cm));
	r->lock_ps = to_ps(cm->lock_ns);
	r->hold_ps = to_ps(cost_lock_hold_ns(cm));
	r->contended_ps = to_ps(cm->contended_ns);
	r->overlap = cfg->lines && cm->xfer_more_ns >= 0;
	r->more_ps = r->overlap ? to_ps(cm->xfer_more_ns) : 0;
	r->duration_ps = cfg->duration_ns * 1000;
	for (int i = 0; i < NR_INODE_LISTS; i++)
		r->line_owner[i] = -1;
	r->heap = xcalloc((size_t)n, sizeof(*r->heap));
	r->ctx = run_ctx_alloc(cfg);
	for (int i = 0; i < n; i++) {
		struct vcpu *v = &r->v[i];
		v->idx = i;
		v->cpu = &cpus[i];
		v->heap_pos = -1;
		v->flusher = i >= r->nworkers;
		v->line_id = i;
		v->rng = (cfg->seed + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(i + 1) << 32;
		if (cfg->ops)
			v->ops_target = cfg->ops / (uint64_t)r->nworkers +
					((uint64_t)i < cfg->ops % (uint64_t)r->nworkers);
		if (!fiber_create(&v->fib, VSTACK, v->flusher ? v_flusher : v_worker, v))
			return false;
		heap_push(r, v);
	}
	if (n > r->nworkers && !cfg->flusher_own_cpu)
		share_last_cpu(r, &r->v[r->nworkers - 1], &r->v[r->nworkers]);
	return true;
}

/* Run every simulated CPU until all are done; back on the main thread. */
static void vrun_go(struct vrun *r)
{
	const struct sched_hooks *saved = sim_sched;

	fiber_init_main(&r->main);
	/* Every fiber runs on this thread: one registration for them all
	 * (liburcu's nesting count is then the sum of theirs, rcu.h). */
	rcu_register_sim_thread();
	sim_sched = &vhooks;
	struct vcpu *first = heap_pop(r);
	first->state = V_RUNNING;
	r->cur = first;
	struct sim_cpu *main_cpu = this_cpu;
	this_cpu = first->cpu;
	vclock_set(first->cpu->vclock);
	fiber_switch(&r->main, &first->fib);
	this_cpu = main_cpu;
	sim_sched = saved;
}

int vrun_workload(const struct run_config *cfg, struct run_result *result, bool keep_inodes)
{
	int nworkers = cfg->ncpus, nthreads = nworkers + 2; /* + flusher + main */
	bool flusher = cfg->workload->flusher;
	struct vrun r = { .nworkers = nworkers, .workers_left = nworkers };
	struct sim_cpu *cpus = xcalloc((size_t)nthreads, sizeof(*cpus));
	struct sim_cpu **ptrs = xcalloc((size_t)nthreads, sizeof(*ptrs));
	char(*names)[16] = xcalloc((size_t)nthreads, 16);

	memset(result, 0, sizeof(*result));
	r.nv = nworkers + (flusher ? 1 : 0);
	r.v = xcalloc((size_t)r.nv, sizeof(*r.v));
	run_begin_cpus(cfg, cpus, ptrs, names);
	V = &r;
	if (!vrun_setup(&r, cfg, cpus)) {
		fprintf(stderr, "icache-sim: no memory for %d virtual CPUs' stacks\n", r.nv);
		exit(2);
	}
	uint64_t t0 = now_ns();
	vclock_begin();     /* until run_end: the run ends at its virtual end */
	if (cfg->trace_run) /* stamped at virtual time 0 */
		trace_ev_virtual_time((uint16_t)cfg->ncpus, vclock_attached());
	if (cfg->list_lines || cfg->lines) {
		sim_list_line = v_line;
		sim_list_store = v_line_store;
	}
	if (cfg->lines) {
		sim_line_write = v_line;
		sim_line_rmw = v_line_rmw;
	}
	vrun_go(&r);
	sim_list_line = NULL;
	sim_list_store = NULL;
	sim_line_write = NULL;
	sim_line_rmw = NULL;
	result->host_seconds = (double)(now_ns() - t0) / 1e9;
	V = NULL;
	result->seconds = (double)r.end_ps / 1e12;
	result->vpoints = r.points;
	result->worker_points = r.worker_points;
	result->worker_step_points = r.worker_step_points;
	result->line_xfers = r.xfers;
	for (int i = 0; i < nworkers; i++)
		result->ops += atomic_load(&cpus[i].ops_done);
	for (int i = 0; i < r.nv; i++)
		*(r.v[i].flusher ? &result->flusher_cpu_seconds : &result->worker_cpu_seconds) +=
			(double)r.v[i].run_ps / 1e12;
	result->process_cpu_seconds = result->worker_cpu_seconds + result->flusher_cpu_seconds;
	run_collect(result, ptrs, nthreads, 0, keep_inodes);
	if (cfg->trace_run)
		trace_run_end(result->ops, (uint32_t)result->violations, 0);
	vclock_end();

	this_cpu = NULL;
	icache_destroy();
	sim_lock_kind = LOCK_MUTEX;
	sim_virtual_time = false; /* run_begin_cpus set both */
	for (int i = 0; i < r.nv; i++)
		fiber_destroy(&r.v[i].fib);
	free(r.lines.line);
	free(r.lines.owner);
	free(r.heap);
	free(r.ctx);
	free(r.v);
	free(ptrs);
	free(cpus);
	free(names);
	return result->violations ? 1 : 0;
}
