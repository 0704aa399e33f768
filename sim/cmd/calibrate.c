/*
 * calibrate.c - `icache-sim calibrate`: measure the virtual mode's cost
 * model on this host and write it to a cost file (costs.h says what each
 * figure means).
 *
 *   xfer_ns       two threads pinned to two cores ping-pong one cache
 *                 line; a round trip moves it twice
 *   line_ns       a line another CPU wrote, fetched here: a chain of
 *                 64 lines the partner has just written, followed one
 *                 dependent miss at a time (a hand-over above is two
 *                 trips, this is one)
 *   xfer_more_ns  the same ping-pong, each side storing to 1 and then to 8 more
 *                 lines (4 KiB apart) before it hands over: what each
 *                 line after the first adds, (T8 - T1) / 7, when the
 *                 store buffer has them in flight together
 *   wake_ns       two threads ping-pong through a mutex and condition
 *                 variable (futex sleeps); a round trip is two wakeups
 *   wake_call_ns  FUTEX_WAKE with nobody waiting: the releaser's share
 *   nap_ns        the flusher's usleep(500): how long it really lasts
 *                 (timer slack, the wakeup); the median of 20 batches of 10
 *   nap_spread_ns and how much one differs from the next: half the 5-95 %
 *                 range of those 200 naps
 *   contended_ns  what the lock code adds when it has to wait: lock_stat
 *                 reads the clock when the wait begins and when it ends
 *                 (sim_spin_lock's contended path): two clock reads
 *   lock_ns       one thread takes and releases one ticket lock through
 *                 the simulator's lock code (validator, lock_stat and its
 *                 clock reads, tracepoint checks): what a real run pays
 *                 per uncontended lock, whatever the scheme
 *   lock_hold_ns  of that, what lock_stat counted as the hold (the same
 *                 batch's hold_ns_total over its acquisitions)
 *   step_ns W S   a real 1-CPU run of workload W under scheme S (--locks ticket)
 *                 keeps its CPU busy for T (the worker thread's CPU time,
 *                 the median of three runs); the same run made virtually
 *                 (with the flusher on a CPU of its own, as the real run's
 *                 is) takes V(s) with step s, a straight line in s: the
 *                 step is where it meets T, found from V(0) and one trial
 *                 V(s1), s1 = (T - V(0)) / P for the P points of its CPU
 *                 that are not a lock's acquisition.  So a 1-CPU virtual
 *                 run of W under S takes as long as the real one.  That
 *                 figure is thus fitted at 1 CPU; 2 CPUs and up are
 *                 predictions.  A step of 1 ns says V(0) > T: the model
 *                 charges more than the real run took.
 *                 The code between two points differs from scheme to
 *                 scheme (merged's inodes are freed through RCU, global's
 *                 one lock stays in the cache), so each has its own.
 *
 * A shared host disturbs any one measurement (a thread preempted mid
 * ping-pong costs a time slice), so each one-thread figure but T is the
 * fastest of several batches: the undisturbed cost, which is what the
 * model wants.
 * A two-core figure is the median of its batches instead: a VM's two CPUs
 * may also share one core for a while, which makes a batch faster than
 * the machine usually is; T is a median for the same reason.  T is CPU
 * time, not wall time: a worker the host preempts stops its CPU clock,
 * not the wall clock.  Every thread of the 1-CPU runs may use every core,
 * as in `icache-sim run --cpus 1` (its flusher runs beside the worker,
 * not on its core).
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "sim/cmd/cli.h"
#include "sim/core/clock.h"
#include "sim/core/lock.h"
#include "sim/core/lockdep.h"
#include "sim/core/scheme.h"
#include "sim/engine/costs.h"

#define BATCHES 40

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void pin(int core)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(core % host_cpus(), &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorts v): the middle one, or the mean of the
 * middle two. */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- two cores handing a turn back and forth ------------------------------ */

static long pp_rounds;

/*
 * One ping-pong between CPU 0 (serve, here) and CPU 1 (partner, a thread):
 * BATCHES runs of `rounds` rounds, each timed by serve (ns per one-way
 * hand-off, or per whatever serve counts), and the median of them.  Not
 * the best: a VM's two CPUs may share one core for a while (their caches
 * too), which makes a batch faster than the machine usually is, as a
 * preempted one is slower.
 * The calling thread is pinned meanwhile and given back its cores after:
 * the threads of the step runs (flusher, watchdog) inherit them.
 */
static double ping_pong(long rounds, void (*reset)(void), void *(*partner)(void *),
			double (*serve)(long rounds))
{
	double ns[BATCHES];
	int n = 0;
	cpu_set_t was;
	bool restore = sched_getaffinity(0, sizeof(was), &was) == 0;
	pthread_attr_t attr;
	cpu_set_t other;
	/*
	 * The partner starts on core 1: created on ours and left to move
	 * itself, it would never run under a real-time policy (chrt -f),
	 * where we spin on core 0 without giving it away.
	 */
	CPU_ZERO(&other);
	CPU_SET(1 % host_cpus(), &other);
	if (pthread_attr_init(&attr) != 0)
		return -1;
	(void)pthread_attr_setaffinity_np(&attr, sizeof(other), &other);
	pp_rounds = rounds;
	pin(0);
	for (; n < BATCHES; n++) {
		pthread_t t;
		reset();
		if (pthread_create(&t, &attr, partner, NULL) != 0)
			break;
		ns[n] = serve(rounds);
		pthread_join(t, NULL);
	}
	pthread_attr_destroy(&attr);
	if (restore)
		(void)sched_setaffinity(0, sizeof(was), &was);
	if (n < BATCHES)
		return -1;
	return median(ns, BATCHES);
}

/* ---- cache lines between two cores ------------------------------------------ */

#define MORE_LINES 8
#define LINE_GAP 64 /* lines apart: 4 KiB, no two in one prefetched pair */

static _Alignas(64) atomic_long ball;
static _Alignas(64) struct {
	atomic_long v;
	char pad[64 - sizeof(atomic_long)];
} spread[MORE_LINES * LINE_GAP];
static int pp_nlines; /* lines each side stores to before it hands over */

static void ball_reset(void)
{
	atomic_store(&ball, 0);
}

/* Plain stores to the first pp_nlines lines of spread. */
static void store_lines(long i)
{
	for (int k = 0; k < pp_nlines; k++)
		atomic_store_explicit(&spread[k * LINE_GAP].v, i, memory_order_relaxed);
}

static void *pong(void *p)
{
	pin(1);
	for (long i = 0; i < pp_rounds; i++) {
		while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 1)
			spin_pause();
		store_lines(i);
		atomic_store_explicit(&ball, 2 * i + 2, memory_order_release);
	}
	return p;
}

static double ping(long rounds)
{
	uint64_t t0 = now_ns();
	for (long i = 0; i < rounds; i++) {
		store_lines(i);
		atomic_store_explicit(&ball, 2 * i + 1, memory_order_release);
		while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 2)
			spin_pause();
	}
	return (double)(now_ns() - t0) / (2.0 * (double)rounds);
}

/* One way of a hand-over in which each side first stores to n lines. */
static double hand_over(long rounds, int n)
{
	pp_nlines = n;
	return ping_pong(rounds, ball_reset, pong, ping);
}

static double measure_xfer(long rounds)
{
	return hand_over(rounds, 0);
}

/*
 * A line another CPU wrote, read and then written here: the partner
 * dirties a chain of CHAIN_LINES lines, then we follow it, reading each
 * line's link and writing its value.  Each load waits for the one before
 * (the link is on the line), so no two misses overlap; the lines are in
 * a shuffled order, so no prefetcher guesses the next, and few enough to
 * stay in the partner's first-level cache.  Each is on a page of its own
 * (4 KiB and 128 bytes apart): what a line costs depends on where its
 * address is homed (on the AMD VM a chain within two pages took 48 ns a
 * line in one process and 130 in the next), so the walk averages over 64
 * pages.  No one spins on these lines, unlike the ball above, whose every
 * hand-over is two trips: the store invalidates the spinner's copy, and
 * the spinner fetches it again.
 */
#define CHAIN_LINES 64
#define CHAIN_GAP 33 /* 128-byte slots apart: 4 KiB + 128 bytes */

static _Alignas(64) struct link {
	struct link *next;
	long v;
	char pad[128 - sizeof(struct link *) - sizeof(long)];
} chain[CHAIN_LINES * CHAIN_GAP];

static void chain_reset(void)
{
	static bool linked;
	int order[CHAIN_LINES];
	uint64_t x = 88172645463325252ull;

	atomic_store(&ball, 0);
	if (linked)
		return;
	for (int i = 0; i < CHAIN_LINES; i++)
		order[i] = i;
	for (int i = CHAIN_LINES - 1; i > 0; i--) { /* Fisher-Yates, fixed seed */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int j = (int)(x % (uint64_t)(i + 1)), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < CHAIN_LINES; i++)
		chain[order[i] * CHAIN_GAP].next = &chain[order[(i + 1) % CHAIN_LINES] * CHAIN_GAP];
	linked = true;
}

static void *dirty_chain(void *p)
{
	pin(1);
	for (long i = 0; i < pp_rounds; i++) {
		while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 1)
			spin_pause();
		for (int k = 0; k < CHAIN_LINES; k++)
			chain[k * CHAIN_GAP].v++;
		atomic_store_explicit(&ball, 2 * i + 2, memory_order_release);
	}
	return p;
}

/* ns to follow the chain once, reading and writing each line. */
static double walk_chain(void)
{
	volatile struct link *l = &chain[0];
	uint64_t t0 = now_ns();
	for (int k = 0; k < CHAIN_LINES; k++) {
		l->v = l->v + 1;
		l = l->next;
	}
	return (double)(now_ns() - t0);
}

/* Per line, a walk of lines the partner wrote less a walk of the same
 * lines once they are ours: what a line from another CPU adds. */
static double follow_chain(long rounds)
{
	double remote = 0, local = 0;
	for (long i = 0; i < rounds; i++) {
		atomic_store_explicit(&ball, 2 * i + 1, memory_order_release);
		while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 2)
			spin_pause();
		remote += walk_chain();
		local += walk_chain();
	}
	double ns = (remote - local) / ((double)rounds * CHAIN_LINES);
	return ns > 0 ? ns : 0;
}

static double measure_line(long rounds)
{
	return ping_pong(rounds, chain_reset, dirty_chain, follow_chain);
}

static double measure_xfer_more(long rounds)
{
	double one = hand_over(rounds, 1);
	double all = hand_over(rounds, MORE_LINES);
	if (one < 0 || all < 0)
		return -1;
	double more = (all - one) / (MORE_LINES - 1);
	return more > 0 ? more : 0;
}

/* ---- sleeping and waking ------------------------------------------------------- */

static pthread_mutex_t wm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wc = PTHREAD_COND_INITIALIZER;
static long turn;

static void turn_reset(void)
{
	turn = 0;
}

static void *waker(void *p)
{
	pin(1);
	pthread_mutex_lock(&wm);
	for (long i = 0; i < pp_rounds; i++) {
		while (turn != 2 * i + 1)
			pthread_cond_wait(&wc, &wm);
		turn = 2 * i + 2;
		pthread_cond_signal(&wc);
	}
	pthread_mutex_unlock(&wm);
	return p;
}

static double wake(long rounds)
{
	uint64_t t0 = now_ns();
	pthread_mutex_lock(&wm);
	for (long i = 0; i < rounds; i++) {
		turn = 2 * i + 1;
		pthread_cond_signal(&wc);
		while (turn != 2 * i + 2)
			pthread_cond_wait(&wc, &wm);
	}
	pthread_mutex_unlock(&wm);
	return (double)(now_ns() - t0) / (2.0 * (double)rounds);
}

static double measure_wake(long rounds)
{
	return ping_pong(rounds, turn_reset, waker, wake);
}

static double measure_wake_call(long calls)
{
	static int word;
	double best = 1e18;
	for (int b = 0; b < BATCHES; b++) {
		uint64_t t0 = now_ns();
		for (long i = 0; i < calls; i++)
			syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		double ns = (double)(now_ns() - t0) / (double)calls;
		if (ns < best)
			best = ns;
	}
	return best;
}

/*
 * The flusher's usleep(500), as the real runs' flusher_main makes it:
 * the median of 20 batches' mean (a rare long nap counts in the mean, as
 * it does in how often the flusher comes round), and in *give half the
 * 5-95 % range of the 200 naps one by one.
 */
#define NAP_BATCHES 20
#define NAPS 10

static double measure_nap(double *give)
{
	double ns[NAP_BATCHES], one[NAP_BATCHES * NAPS];
	for (int b = 0; b < NAP_BATCHES; b++) {
		double sum = 0;
		for (int i = 0; i < NAPS; i++) {
			uint64_t t0 = now_ns();
			usleep((useconds_t)(COST_NAP_ASKED_NS / 1000));
			one[b * NAPS + i] = (double)(now_ns() - t0);
			sum += one[b * NAPS + i];
		}
		ns[b] = sum / NAPS;
	}
	qsort(one, NAP_BATCHES * NAPS, sizeof(one[0]), cmp_double);
	*give = (one[NAP_BATCHES * NAPS * 95 / 100] - one[NAP_BATCHES * NAPS * 5 / 100]) / 2;
	return median(ns, NAP_BATCHES);
}

/* ---- a lock, uncontended ------------------------------------------------------- */

/*
 * The best ns per lock taken and released, on this thread as a simulated
 * CPU of its own, with a ticket lock (what the step runs use); and in
 * *hold, the part of it lock_stat counts as the hold in that batch (from
 * the lock's own counters: nothing else runs between taking and
 * releasing it).
 */
static double measure_lock(long n, double *hold)
{
	struct sim_cpu *cpu = xcalloc(1, sizeof(*cpu));
	struct sim_lock *l = xcalloc(1, sizeof(*l));
	struct sim_cpu *was_cpu = this_cpu;
	enum lock_kind was_kind = sim_lock_kind;
	double best = 1e18;

	cpu->name = "calibrate";
	atomic_init(&cpu->waiting_for, NULL);
	sim_lock_kind = LOCK_TICKET;
	sim_lock_init(l, LC_inode_hash_lock, 0);
	lockdep_reset(NULL, 0);
	this_cpu = cpu;
	for (int b = 0; b < BATCHES; b++) {
		struct lock_class_stats *st = &cpu->stats[LC_inode_hash_lock];
		memset(st, 0, sizeof(*st));
		uint64_t t0 = now_ns();
		for (long i = 0; i < n; i++) {
			sim_spin_lock(l, SITE_unknown);
			sim_spin_unlock(l, SITE_unknown);
		}
		double ns = (double)(now_ns() - t0) / (double)n;
		if (ns < best) {
			best = ns;
			*hold = (double)st->hold_ns_total / (double)n;
		}
	}
	this_cpu = was_cpu;
	sim_lock_destroy(l);
	sim_lock_kind = was_kind;
	free(l);
	free(cpu);
	return best;
}

/*
 * The best ns for what a contended acquisition adds to an uncontended
 * one: the two clock reads that time its wait (the contention counter,
 * the waiting_for stores and the disabled tracepoint cost next to
 * nothing beside them).
 */
static double measure_contended(long n)
{
	double best = 1e18;
	volatile uint64_t sink = 0;

	for (int b = 0; b < BATCHES; b++) {
		uint64_t t0 = now_ns();
		for (long i = 0; i < n; i++) {
			uint64_t a = now_ns();
			sink += now_ns() - a;
		}
		double ns = (double)(now_ns() - t0) / (double)n;
		if (ns < best)
			best = ns;
	}
	(void)sink;
	return best;
}

/* ---- the work between two points ---------------------------------------------- */

/*
 * The real run's worker CPU time is the median of three runs, not the
 * fastest: its flusher runs on the other core, and while the host has
 * put the two CPUs on one core's two threads (on the AMD VM, for seconds
 * at a time) the flusher's lines reach the worker several times faster.
 * The fastest of three once gave mixed under global a step of 1 ns (the
 * floor): a run of 200000 ops in 0.34 s of CPU, where a dozen runs
 * minutes later took 0.43 to 0.49 s.
 */
#define STEP_RUNS 3

static double measure_step(const struct workload *w, const struct scheme *s, uint64_t ops,
			   const struct cost_model *m)
{
	struct run_config cfg;
	struct run_result r;
	double busy[STEP_RUNS];

	run_config_defaults(&cfg);
	cfg.scheme = s;
	cfg.workload = w;
	cfg.ncpus = 1;
	cfg.ops = ops;
	cfg.duration_ns = 3600ull * 1000000000ull;
	cfg.locks = LOCK_TICKET;
	cfg.quiet = true;
	cfg.trace_run = false;
	for (int i = 0; i < STEP_RUNS; i++) {
		run_workload(&cfg, &r, false);
		/* The worker's CPU time; the wall clock if the host has none. */
		busy[i] = r.worker_cpu_seconds > 0 ? r.worker_cpu_seconds : r.seconds;
		run_result_free(&r);
	}
	double real = median(busy, STEP_RUNS) * 1e9;

	/* The same run, virtually, with no step and with a trial step: its
	 * time grows with the step faster than by the step points the
	 * worker passes (the flusher's holds, which it waits for, pass
	 * points too), but in a straight line, so the step that makes the
	 * two runs as long is where that line meets the real time. */
	struct cost_model trial = *m;
	double t[2], step[2] = { 0, 0 };
	cfg.virtual_time = true;
	cfg.flusher_own_cpu = true; /* as the real run's: on the other core */
	cfg.lines = true;           /* the default model, as run --virtual's */
	cfg.costs = &trial;
	for (int pass = 0; pass < 2; pass++) {
		cost_set_step(&trial, w->name, s->name, step[pass]);
		run_workload(&cfg, &r, false);
		uint64_t points = r.worker_step_points;
		t[pass] = r.seconds * 1e9;
		run_result_free(&r);
		if (!points)
			return -1;
		if (pass > 0)
			break;
		step[1] = (real - t[0]) / (double)points;
		if (step[1] < 1)
			return 1; /* the model charges more than the run took */
	}
	double ns = step[1] * (real - t[0]) / (t[1] - t[0]);
	return ns < 1 ? 1 : ns;
}

static const struct {
	const char *workload;
	uint64_t ops;
} step_runs[] = {
	{ "create-unlink", 200000 }, { "lookup", 200000 }, { "writeback", 100000 },
	{ "pressure", 100000 },      { "umount", 2000 },   { "mixed", 200000 },
	{ "iput-race", 100000 },
};

/* Each workload under each scheme; merged's step also stands for a
 * scheme the file does not name (and mixed's for a workload). */
static void measure_steps(struct cost_model *m, int div)
{
	for (size_t i = 0; i < sizeof(step_runs) / sizeof(step_runs[0]); i++) {
		const struct workload *w = workload_find(step_runs[i].workload);
		if (!w)
			continue;
		for (int k = 0; all_schemes[k]; k++) {
			const struct scheme *s = all_schemes[k];
			double ns = measure_step(w, s, step_runs[i].ops / (uint64_t)div, m);
			if (ns <= 0)
				continue;
			cost_set_step(m, w->name, s->name, ns);
			if (strcmp(s->name, "merged") != 0)
				continue;
			cost_set_step(m, w->name, NULL, ns);
			if (strcmp(w->name, "mixed") == 0)
				m->step_default_ns = ns;
		}
	}
}

/* The steps as a table: a row per workload, a column per scheme. */
static void print_steps(const struct cost_model *m)
{
	printf("  step (ns)     ");
	for (int k = 0; all_schemes[k]; k++)
		printf(" %s", all_schemes[k]->name);
	printf("\n");
	for (size_t i = 0; i < sizeof(step_runs) / sizeof(step_runs[0]); i++) {
		printf("  %-14s", step_runs[i].workload);
		for (int k = 0; all_schemes[k]; k++)
			printf(" %*.1f", (int)strlen(all_schemes[k]->name),
			       cost_step_ns(m, step_runs[i].workload, all_schemes[k]->name));
		printf("\n");
	}
}

/* ---- where the host put our two CPUs --------------------------------------------- */

/*
 * The two-core figures depend on where the host has put our two CPUs, and
 * a VM's host may move them at any time: on the AMD VM a hand-over took
 * 30 to 45 ns while its two vCPUs were the two threads of one core, for
 * seconds or minutes at a time, and 196 to 408 ns on two cores.  A cost
 * file measured in one placement says nothing about a run made in the
 * other, so calibrate measures the hand-over again after its step runs,
 * and `calibrate --check FILE` tells whether the CPUs are still where FILE
 * found them: more than 3x off is another placement (within one, the
 * figures were at most 2.1x apart; between the two, 4.4x and more).
 */
#define MOVED_FACTOR 3.0

/* How far apart two hand-overs are, as a factor >= 1. */
static double apart(double a, double b)
{
	if (a <= 0 || b <= 0)
		return 0;
	return a > b ? a / b : b / a;
}

static bool moved(double was, double now)
{
	return apart(was, now) > MOVED_FACTOR;
}

/* `calibrate --check FILE`: 0 the same placement, 1 moved, 2 cannot tell. */
static int check_placement(const char *path, int div)
{
	struct cost_model m;
	char err[512];

	if (!cost_model_load(path, &m, err, sizeof(err))) {
		fprintf(stderr, "icache-sim calibrate: %s\n", err);
		return 2;
	}
	double xfer = measure_xfer(5000 / div);
	double line = measure_line(1000 / div);
	if (xfer < 0 || line < 0) {
		fprintf(stderr, "icache-sim calibrate: cannot start a measuring thread\n");
		return 2;
	}
	bool gone = moved(m.xfer_ns, xfer);
	printf("hand-over %.1f ns, %s says %.1f ns: %.2fx, %s (a line another wrote: %.1f ns, "
	       "there %.1f ns)\n",
	       xfer, path, m.xfer_ns, apart(m.xfer_ns, xfer),
	       gone ? "the CPUs have moved" : "the same placement", line, cost_line_ns(&m));
	return gone ? 1 : 0;
}

/* Every figure of the model, the step runs last. */
static bool measure_all(struct cost_model *m, int div)
{
	m->nsteps = 0;
	m->xfer_ns = measure_xfer(5000 / div);
	m->xfer_more_ns = measure_xfer_more(5000 / div);
	m->line_ns = measure_line(2000 / div);
	m->wake_ns = measure_wake(500 / div);
	m->wake_call_ns = measure_wake_call(5000 / div);
	m->lock_ns = measure_lock(20000 / div, &m->lock_hold_ns);
	m->contended_ns = measure_contended(20000 / div);
	m->nap_ns = measure_nap(&m->nap_spread_ns);
	m->step_default_ns = 1; /* until mixed is measured; the counts need none */
	if (m->xfer_ns < 0 || m->xfer_more_ns < 0 || m->line_ns < 0 || m->wake_ns < 0)
		return false;
	measure_steps(m, div);
	return true;
}

#define ATTEMPTS 3

static int usage_error(const char *what)
{
	fprintf(stderr, "icache-sim calibrate: %s (see icache-sim calibrate --help)\n", what);
	return 2;
}

int cmd_calibrate(int argc, char **argv)
{
	const char *out = "icache-costs.txt";
	const char *check = NULL;
	int div = 1;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: icache-sim calibrate [-o FILE] [--quick]\n"
			       "       icache-sim calibrate --check FILE [--quick]\n\n"
			       "Measure the virtual mode's cost model on this host: a cache-line\n"
			       "hand-over between two cores (and what each further line stored with\n"
			       "it adds), a line another core wrote, fetched, a futex sleep/wake, a\n"
			       "lock taken and released, and the work between two instrumentation\n"
			       "points of each workload under each scheme (real 1-CPU runs, their\n"
			       "worker's CPU time).  The two-core figures are the median of 40\n"
			       "batches, the others the fastest.  Writes the cost file that\n"
			       "`icache-sim run --virtual --costs FILE` reads.\n\n"
			       "A VM's host may move its CPUs (two threads of one core hand a line\n"
			       "over several times faster than two cores): if the hand-over at the\n"
			       "end differs more than 3x from the start, calibrate measures again\n"
			       "(at most 3 times, then the file's source line says so).\n\n"
			       "options:\n"
			       "  -o FILE       where to write it (default icache-costs.txt)\n"
			       "  --quick       ten times shorter runs (less precise)\n"
			       "  --check FILE  measure the hand-over again and compare it with FILE's:\n"
			       "                are the CPUs still where FILE found them?  (about 2 s)\n\n"
			       "Needs two cores for the transfers.  Takes about 30 s.\n"
			       "exit status: 0 written (--check: the same placement), 1 --check: the\n"
			       "CPUs have moved (more than 3x), 2 bad usage or it cannot measure here\n");
			return 0;
		} else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--check") == 0) &&
			   i + 1 == argc) {
			char msg[64];
			snprintf(msg, sizeof(msg), "%s needs a FILE", argv[i]);
			return usage_error(msg);
		} else if (strcmp(argv[i], "-o") == 0) {
			out = argv[++i];
		} else if (strcmp(argv[i], "--quick") == 0) {
			div = 10;
		} else if (strcmp(argv[i], "--check") == 0) {
			check = argv[++i];
		} else {
			char msg[300];
			snprintf(msg, sizeof(msg), "unknown option '%s'", argv[i]);
			return usage_error(msg);
		}
	}
	if (host_cpus() < 2)
		return usage_error("needs at least two cores to time a cache-line transfer");

	if (check)
		return check_placement(check, div);

	struct cost_model m;
	memset(&m, 0, sizeof(m));
	time_t now = time(NULL);
	char date[32];
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%MZ", gmtime(&now));
	snprintf(m.source, sizeof(m.source), "%s, %d cores, %s", host_cpu_model(), host_cpus(),
		 date);
	/* If the CPUs are not where they were at the start, all of it again:
	 * the step fits use the hand-over too. */
	for (int attempt = 1;; attempt++) {
		if (!measure_all(&m, div))
			return usage_error("cannot start a measuring thread");
		double again = measure_xfer(5000 / div);
		if (again < 0)
			return usage_error("cannot start a measuring thread");
		if (!moved(m.xfer_ns, again))
			break;
		fprintf(stderr,
			"icache-sim calibrate: the two CPUs moved while measuring (a hand-over took "
			"%.1f ns at the start, %.1f ns at the end)%s\n",
			m.xfer_ns, again,
			attempt < ATTEMPTS ? "; measuring again" : "; the file says so");
		if (attempt == ATTEMPTS) {
			size_t n = strlen(m.source);
			snprintf(m.source + n, sizeof(m.source) - n,
				 " (CPUs moved while measuring: hand-over %.0f, then %.0f ns)",
				 m.xfer_ns, again);
			break;
		}
	}
	if (!cost_model_write(out, &m)) {
		fprintf(stderr, "icache-sim calibrate: cannot write '%s'\n", out);
		return 2;
	}
	printf("cost model of %s\n", m.source);
	printf("  cache-line hand-over  %8.1f ns\n  ... each further line %8.1f ns\n"
	       "  a line another wrote  %8.1f ns\n"
	       "  futex wake (sleeper)  %8.1f ns\n"
	       "  FUTEX_WAKE call       %8.1f ns\n  lock taken, released  %8.1f ns\n"
	       "  ... of it, held       %8.1f ns\n"
	       "  ... after a wait      %8.1f ns more\n"
	       "  flusher's usleep(500) %8.1f ns\n"
	       "  ... give or take      %8.1f ns\n",
	       m.xfer_ns, m.xfer_more_ns, m.line_ns, m.wake_ns, m.wake_call_ns, m.lock_ns,
	       m.lock_hold_ns, m.contended_ns, m.nap_ns, m.nap_spread_ns);
	print_steps(&m);
	printf("written to %s\n", out);
	return 0;
}
