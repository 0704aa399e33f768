/*
 * run.c - simulated CPUs on real cores: start them, stop them, watch them.
 *
 * Threads of a run:
 *   cpu0..cpuN-1  the workload, one pthread each, pinned to core i % cores
 *   flusher       writeback passes over the bdi (if the workload wants it)
 *   watchdog      wakes every 50 ms; if no lock was taken by anyone for
 *                 --watchdog seconds, it prints who holds what and who waits
 *                 for what, lockdep style, and ends the run with status 1;
 *                 if one CPU finishes no operation (the flusher no pass)
 *                 for twice as long, it reports that CPU the same way
 *                 (a livelock, or a deadlock if it waits for a lock).
 *
 * With --check-every, the main thread stops the world now and then (each
 * CPU parks between two operations) and runs the invariant checker.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "sim/core/clock.h"
#include "sim/core/rcu.h"
#include "sim/core/trace.h"
#include "sim/core/violation.h"
#include "sim/engine/costs.h"
#include "sim/engine/run.h"
#include "sim/engine/vrun.h"

struct run_ctx {
	const struct run_config *cfg;
	struct sim_cpu *cpus; /* ncpus workers, then flusher, main */
	struct sim_cpu **cpu_ptrs;
	int nthreads; /* workers + flusher + main */
	atomic_bool stop;
	atomic_bool stop_flusher;
	atomic_bool watchdog_stop;
	uint64_t deadline_ns;
	uint64_t ops_per_cpu, ops_extra;
	/* stop-the-world for --check-every */
	pthread_mutex_t pause_m;
	pthread_cond_t pause_c;
	atomic_bool pause_req;
	int parked;          /* under pause_m */
	int workers_running; /* under pause_m */
	/* A thread that has left its loop; the watchdog stops watching it. */
	atomic_bool finished[MAX_SIM_CPUS + 2];
	/* Its CPU time when it left (written by it before it is joined). */
	uint64_t cpu_ns[MAX_SIM_CPUS + 2];
};

const struct run_config *run_cfg(struct run_ctx *ctx)
{
	return ctx->cfg;
}

uint64_t sim_rand(struct sim_cpu *c)
{
	/* xorshift64*: small, fast, and each CPU has its own stream. */
	uint64_t x = c->rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	c->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

struct super_block *run_shared_sb(struct run_ctx *ctx, struct sim_cpu *c)
{
	return &icache.sbs[sim_rand(c) % (uint64_t)ctx->cfg->nsbs];
}

struct super_block *run_private_sb(struct run_ctx *ctx, struct sim_cpu *c)
{
	return &icache.sbs[ctx->cfg->nsbs + c->id];
}

void run_config_defaults(struct run_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->scheme = &scheme_merged;
	cfg->workload = workload_find("mixed");
	cfg->ncpus = 2;
	cfg->ops = 0;
	cfg->duration_ns = 2ull * 1000000000ull;
	cfg->seed = 1;
	cfg->nsbs = 2;
	cfg->hash_bits = 12;
	cfg->nodes = 1;
	cfg->hot = 256;
	cfg->cache_limit = 512;
	cfg->vfs_cache_pressure = 100; /* the kernel's default */
	cfg->watchdog_s = WATCHDOG_DEFAULT_S;
	cfg->pin = true;
	cfg->trace_run = true;
	cfg->locks = LOCKS_AUTO;
}

enum lock_kind run_lock_kind(const struct run_config *cfg)
{
	if (cfg->locks != LOCKS_AUTO)
		return (enum lock_kind)cfg->locks;
	if (cfg->virtual_time)
		return LOCK_TICKET; /* the kernel's, and nothing is preempted */
	/* A spinner whose lock holder is preempted spins for a time slice:
	 * spin only when no simulated CPU has to share a core. */
	return cfg->ncpus <= host_cpus() ? LOCK_TICKET : LOCK_MUTEX;
}

int host_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

const char *host_cpu_model(void)
{
	static char model[128];
	if (model[0])
		return model;
	snprintf(model, sizeof(model), "unknown CPU");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return model;
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) == 0) {
			char *p = strchr(line, ':');
			if (p) {
				p += 2;
				p[strcspn(p, "\n")] = 0;
				snprintf(model, sizeof(model), "%s", p);
			}
			break;
		}
	}
	fclose(f);
	return model;
}

static void pin_to_core(int id)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(id % host_cpus(), &set);
	/* Best effort: a restricted cpuset just means we run unpinned. */
	(void)sched_setaffinity(0, sizeof(set), &set);
}

/* Between two operations: park here while the main thread checks. */
static void maybe_park(struct run_ctx *ctx)
{
	if (!atomic_load_explicit(&ctx->pause_req, memory_order_acquire))
		return;
	pthread_mutex_lock(&ctx->pause_m);
	ctx->parked++;
	pthread_cond_broadcast(&ctx->pause_c);
	while (atomic_load(&ctx->pause_req))
		pthread_cond_wait(&ctx->pause_c, &ctx->pause_m);
	ctx->parked--;
	pthread_mutex_unlock(&ctx->pause_m);
}

struct worker_arg {
	struct run_ctx *ctx;
	struct sim_cpu *cpu;
};

/* Set from a signal handler: a lock-free atomic is all it may touch. */
static atomic_int stop_signal;

void run_request_stop(int sig)
{
	atomic_store(&stop_signal, sig);
}

static bool worker_done(struct run_ctx *ctx, struct sim_cpu *c, uint64_t done)
{
	if (atomic_load_explicit(&ctx->stop, memory_order_relaxed) ||
	    atomic_load_explicit(&stop_signal, memory_order_relaxed))
		return true;
	if (ctx->cfg->ops) {
		uint64_t mine = ctx->ops_per_cpu + ((uint64_t)c->id < ctx->ops_extra ? 1 : 0);
		return done >= mine;
	}
	/* At least 16 operations each: a worker the host starts only after
	 * the deadline (a loaded machine, a short --duration) would
	 * otherwise report 0 ops/s, a figure of the host, not of the code. */
	return done > 0 && (done & 15) == 0 && now_ns() >= ctx->deadline_ns;
}

static uint64_t cpu_clock_ns(clockid_t clock)
{
	struct timespec ts;
	if (clock_gettime(clock, &ts) != 0)
		return 0; /* no CPU clock here: the figures say 0 */
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A worker or the flusher is done: the main thread's wait (and a pause
 * waiting for everyone to park) must stop counting it. */
static void thread_finished(struct run_ctx *ctx, struct sim_cpu *cpu)
{
	ctx->cpu_ns[cpu->id] = cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	atomic_store(&ctx->finished[cpu->id], true);
	pthread_mutex_lock(&ctx->pause_m);
	ctx->workers_running--;
	pthread_cond_broadcast(&ctx->pause_c);
	pthread_mutex_unlock(&ctx->pause_m);
}

static void *worker_main(void *p)
{
	struct worker_arg *a = p;
	struct run_ctx *ctx = a->ctx;
	uint64_t done = 0;

	this_cpu = a->cpu;
	rcu_register_sim_thread();
	if (ctx->cfg->pin)
		pin_to_core(a->cpu->id);
	while (!worker_done(ctx, a->cpu, done)) {
		ctx->cfg->workload->op(ctx, a->cpu);
		done++;
		atomic_store_explicit(&a->cpu->ops_done, done, memory_order_relaxed);
		maybe_park(ctx);
	}
	rcu_unregister_sim_thread();
	thread_finished(ctx, a->cpu);
	return NULL;
}

static void *flusher_main(void *p)
{
	struct worker_arg *a = p;
	struct run_ctx *ctx = a->ctx;
	bool rt = thread_is_real_time();

	this_cpu = a->cpu;
	rcu_register_sim_thread();
	while (!atomic_load(&ctx->stop_flusher)) {
		long n = ctx->cfg->scheme->writeback_inodes(&icache.wb, 64);
		atomic_fetch_add_explicit(&a->cpu->ops_done, 1, memory_order_relaxed);
		maybe_park(ctx);
		/*
		 * writeback_sb_inodes calls cond_resched() after each inode
		 * (fs/fs-writeback.c at v2.6.39).  Under a real-time policy
		 * (chrt -f) nothing else takes the core from us: a pass that
		 * writes a little at a time while a worker waits for this
		 * very core would keep it for ever.  So there a pass that
		 * wrote something gives the core away; the host's ordinary
		 * scheduler preempts us.  (A pass that finds only inodes
		 * someone else owns, I_NEW or being freed, wrote nothing:
		 * wb_writeback then sleeps, and so do we.)
		 */
		if (n == 0) /* 500 us; calibrate times it (nap_ns) */
			usleep((useconds_t)(COST_NAP_ASKED_NS / 1000));
		else if (rt)
			sched_yield();
	}
	rcu_unregister_sim_thread();
	thread_finished(ctx, a->cpu);
	return NULL;
}

/* ---- the watchdog --------------------------------------------------------- */

/*
 * A ticket lock nobody holds may still be spoken for: the CPU whose
 * ticket is being served has not seen it yet (it is not running).
 */
static const struct sim_cpu *wd_turn_of(struct run_ctx *ctx, const struct sim_lock *w)
{
	if (w->kind != LOCK_TICKET)
		return NULL;
	unsigned served = atomic_load(&w->tk_owner);
	for (int i = 0; i < ctx->nthreads - 1; i++) {
		const struct sim_cpu *o = &ctx->cpus[i];
		if (atomic_load(&o->waiting_for) == w && o->wait_ticket == served)
			return o;
	}
	return NULL;
}

static void dump_waiting(FILE *f, struct run_ctx *ctx, const struct sim_cpu *c,
			 const struct sim_lock *w)
{
	int holder = atomic_load(&w->holder);
	const struct sim_cpu *turn = holder < 0 ? wd_turn_of(ctx, w) : NULL;

	fprintf(f, "; waits for %s (instance %llu) in %s, ", lock_class_name(w->cls),
		(unsigned long long)w->inst, site_name(atomic_load(&c->waiting_site)));
	if (holder >= 0)
		fprintf(f, "held by cpu%d", holder);
	else if (turn && turn != c)
		fprintf(f, "held by nobody: %s's turn, which has not taken it", turn->name);
	else if (turn)
		fprintf(f, "held by nobody: its own turn, not yet seen");
	else
		fprintf(f, "held by nobody");
	/* A free ticket lock that nobody takes: its turn went to a waiter
	 * the host has not run since (a starved thread). */
	if (w->kind == LOCK_TICKET)
		fprintf(f, " (ticket %u served, %u handed out)", atomic_load(&w->tk_owner),
			atomic_load(&w->tk_next));
}

static void dump_cpu(FILE *f, struct run_ctx *ctx, const struct sim_cpu *c)
{
	int n = atomic_load(&c->nheld);
	struct sim_lock *w = atomic_load(&c->waiting_for);

	fprintf(f, " %s:", c->name);
	if (n == 0)
		fprintf(f, " holds no lock");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s holds %s (instance %llu, taken in %s)", i ? ";" : "",
			lock_class_name(c->held[i].lock->cls),
			(unsigned long long)c->held[i].lock->inst, site_name(c->held[i].site));
	if (w)
		dump_waiting(f, ctx, c, w);
	fprintf(f, "\n");
}

/*
 * Progress is per CPU: each worker must finish an operation, and the
 * flusher a pass, within twice --watchdog.  Counting everyone together
 * let one CPU spin for ever on a freed inode while the others (or the
 * flusher) kept the sum moving.
 */
struct wd_watch {
	uint64_t ops[MAX_SIM_CPUS + 2];
	uint64_t since[MAX_SIM_CPUS + 2];
};

/* The first watched thread idle for longer than limit, or -1. */
static int wd_stuck_cpu(struct run_ctx *ctx, struct wd_watch *w, uint64_t t, uint64_t limit)
{
	for (int i = 0; i < ctx->nthreads - 1; i++) {
		uint64_t ops = atomic_load(&ctx->cpus[i].ops_done);
		if (atomic_load(&ctx->finished[i]) || ops != w->ops[i]) {
			w->ops[i] = ops;
			w->since[i] = t;
		} else if (t - w->since[i] > limit) {
			return i;
		}
	}
	return -1;
}

/* The report goes out even with --quiet: it ends the run. */
static void wd_report(struct run_ctx *ctx, const char *headline)
{
	char buf[4096];
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	if (!m) {
		fprintf(stderr, "icache-sim: %s\n", headline);
		_exit(1);
	}
	fprintf(m, "%s\n", headline);
	for (int i = 0; i < ctx->nthreads - 1; i++)
		dump_cpu(m, ctx, &ctx->cpus[i]);
	fclose(m);
	buf[sizeof(buf) - 1] = 0;
	report_violation(VIOL_deadlock, -1, -1, -1, -1, -1, -1, 0, "%s", buf);
	if (ctx->cfg->quiet)
		fprintf(stderr, "icache-sim: %s", buf);
	fflush(stderr);
	fflush(stdout);
	_exit(1);
}

/*
 * Under a real-time policy (chrt -f) every thread of the run has the
 * same priority, and a spinning CPU keeps the watchdog off its core for
 * as long as it spins: the watchdog outranks them by one, so that a hang
 * is reported, not waited out.  Best effort: without the right to raise
 * it, it stays where it is.
 */
static void watchdog_outrank(void)
{
	struct sched_param sp;
	int policy;

	if (pthread_getschedparam(pthread_self(), &policy, &sp) != 0 ||
	    (policy != SCHED_FIFO && policy != SCHED_RR) ||
	    sp.sched_priority >= sched_get_priority_max(policy))
		return;
	sp.sched_priority++;
	(void)pthread_setschedparam(pthread_self(), policy, &sp);
}

static void *watchdog_main(void *p)
{
	struct run_ctx *ctx = p;
	struct wd_watch *w = xcalloc(1, sizeof(*w));
	uint64_t last_progress = 0, still_since = now_ns();
	uint64_t limit = (uint64_t)(ctx->cfg->watchdog_s * 1e9);
	char head[160];

	watchdog_outrank();
	for (int i = 0; i < ctx->nthreads - 1; i++)
		w->since[i] = still_since;
	while (!atomic_load(&ctx->watchdog_stop)) {
		usleep(50 * 1000);
		uint64_t t = now_ns(), prog = 0;
		if (atomic_load(&ctx->pause_req)) {
			still_since = t;
			for (int i = 0; i < ctx->nthreads - 1; i++)
				w->since[i] = t;
			continue;
		}
		for (int i = 0; i < ctx->nthreads - 1; i++)
			prog += atomic_load(&ctx->cpus[i].progress);
		if (prog != last_progress) {
			last_progress = prog;
			still_since = t;
		}
		if (t - still_since > limit) {
			snprintf(head, sizeof(head), "deadlock: no CPU took a lock for %.1f s",
				 (double)(t - still_since) / 1e9);
			wd_report(ctx, head);
		}
		int stuck = wd_stuck_cpu(ctx, w, t, 2 * limit);
		if (stuck >= 0) {
			const struct sim_cpu *c = &ctx->cpus[stuck];
			snprintf(head, sizeof(head), "%s: %s finished no %s for %.1f s",
				 atomic_load(&c->waiting_for) ? "deadlock" : "livelock", c->name,
				 stuck < ctx->cfg->ncpus ? "operation" : "writeback pass",
				 (double)(t - w->since[stuck]) / 1e9);
			wd_report(ctx, head);
		}
	}
	free(w);
	return NULL;
}

/* ---- stop the world ---------------------------------------------------------- */

static int pause_and_check(struct run_ctx *ctx)
{
	pthread_mutex_lock(&ctx->pause_m);
	atomic_store(&ctx->pause_req, true);
	while (ctx->parked < ctx->workers_running)
		pthread_cond_wait(&ctx->pause_c, &ctx->pause_m);
	pthread_mutex_unlock(&ctx->pause_m);

	int failures = check_invariants(false);

	pthread_mutex_lock(&ctx->pause_m);
	atomic_store(&ctx->pause_req, false);
	pthread_cond_broadcast(&ctx->pause_c);
	pthread_mutex_unlock(&ctx->pause_m);
	return failures;
}

/* ---- results --------------------------------------------------------------------- */

static void collect_inodes(struct run_result *r)
{
	size_t cap = 0;
	for (int s = 0; s < icache.nsbs; s++) {
		struct list_head *pos;
		list_for_each(pos, &icache.sbs[s].s_inodes) {
			struct inode *inode = list_entry(pos, struct inode, i_sb_list);
			if (r->ninodes == cap) {
				cap = cap ? cap * 2 : 256;
				r->inodes = xrealloc(r->inodes, cap * sizeof(*r->inodes));
			}
			struct run_inode *ri = &r->inodes[r->ninodes++];
			ri->ino = inode->i_ino;
			ri->sb = inode->i_sb->s_id;
			ri->state = inode_state(inode);
			ri->count = atomic_load(&inode->i_count);
			ri->nlink = atomic_load(&inode->i_nlink);
			ri->hashed = inode_hashed(inode);
			ri->on_sb = true;
			ri->on_lru = inode_on_lru(inode);
			ri->on_wb = inode_on_wb(inode);
			ri->wb_list = ri->on_wb ? (int)inode->i_wb_on : -1;
		}
	}
}

static void collect_lists(struct run_result *r)
{
	/* The global LRU (2.6.36..2.6.39), or every sb's list_lru (today). */
	r->lru_len = (long)list_count(&icache.inode_lru);
	for (int i = 0; i < icache.nsbs; i++)
		for (int nid = 0; nid < icache.sbs[i].s_inode_lru.nr_nodes; nid++)
			r->lru_len += (long)list_count(&icache.sbs[i].s_inode_lru.node[nid].list);
	r->b_dirty = (long)list_count(&icache.wb.b_dirty);
	r->b_io = (long)list_count(&icache.wb.b_io);
	r->b_more_io = (long)list_count(&icache.wb.b_more_io);
	r->hashed = 0;
	size_t nb = (size_t)1 << icache.hash_bits;
	for (size_t i = 0; i < nb; i++) {
		struct hlist_node *n;
		hlist_for_each(n, &icache.hash[i].head)
			r->hashed++;
	}
}

void run_result_free(struct run_result *r)
{
	free(r->inodes);
	r->inodes = NULL;
	r->ninodes = 0;
}

void run_begin_cpus(const struct run_config *cfg, struct sim_cpu *cpus, struct sim_cpu **ptrs,
		    char (*names)[16])
{
	int nworkers = cfg->ncpus, nthreads = nworkers + 2;

	for (int i = 0; i < nthreads; i++) {
		struct sim_cpu *c = &cpus[i];
		c->id = i;
		if (i < nworkers)
			snprintf(names[i], 16, "cpu%d", i);
		else
			snprintf(names[i], 16, "%s", i == nworkers ? "flusher" : "main");
		c->name = names[i];
		c->rng = cfg->seed * 0x9e3779b97f4a7c15ull + (uint64_t)i * 7919 + 1;
		atomic_init(&c->waiting_for, NULL);
		ptrs[i] = c;
	}

	struct icache_config icfg = {
		.nsbs = cfg->nsbs + nworkers, /* shared, then one private each */
		.hash_bits = cfg->hash_bits,
		.nodes = cfg->nodes,
		.workers = nworkers,
	};
	sim_lock_kind = run_lock_kind(cfg);
	sim_virtual_time = cfg->virtual_time;
	icache_init(cfg->scheme, &icfg, ptrs, nthreads);
	icache.vfs_cache_pressure = cfg->vfs_cache_pressure;
	lockdep_reset(cfg->scheme->order, cfg->scheme->norder);
	violations_reset();
	violations_set_quiet(cfg->quiet);
	this_cpu = &cpus[nthreads - 1];
	rcu_register_sim_thread(); /* main: set-up, checks, umount */
	if (cfg->trace_run) {
		uint32_t cksum;
		const char *file = scheme_source(cfg->scheme, &cksum);
		trace_run_begin(cfg->scheme->name, cfg->workload->name, cfg->ncpus, cfg->seed,
				scheme_order_text(cfg->scheme), cfg->scheme->order,
				cfg->scheme->norder, file, cksum, "flusher,main");
	}
}

void run_collect(struct run_result *result, struct sim_cpu *const *cpus, int n, int failures,
		 bool keep_inodes)
{
	/* The world is still now: check everything. */
	failures += check_invariants(true);
	result->invariant_checks++;
	result->invariant_failures = failures;
	result->lru_window = invariants_lru_window();
	lock_stats_sum(cpus, n, result->locks);
	result->nr_inodes = get_nr_inodes();
	result->nr_unused = get_nr_unused();
	result->inodes_allocated = inodes_allocated();
	/* Counting a broken ring would never end: the checker has said
	 * what is wrong, the list figures stay -1. */
	if (!icache_lists_corrupt()) {
		collect_lists(result);
		if (keep_inodes)
			collect_inodes(result);
	} else {
		result->lru_len = result->hashed = -1;
		result->b_dirty = result->b_io = result->b_more_io = -1;
	}
	result->violations = violations_total();
}

struct run_ctx *run_ctx_alloc(const struct run_config *cfg)
{
	struct run_ctx *ctx = xcalloc(1, sizeof(*ctx));
	ctx->cfg = cfg;
	return ctx;
}

/*
 * --check-every: stop the world and check the invariants every period
 * until the workers are done; returns the failures seen.
 */
static int check_while_running(struct run_ctx *ctx, bool flusher, struct run_result *result)
{
	int failures = 0;

	for (;;) {
		uint64_t next = now_ns() + ctx->cfg->check_every_ns;
		bool finished = false;
		while (now_ns() < next) {
			usleep(10000);
			pthread_mutex_lock(&ctx->pause_m);
			finished = ctx->workers_running <= (flusher ? 1 : 0);
			pthread_mutex_unlock(&ctx->pause_m);
			if (finished)
				return failures;
		}
		failures += pause_and_check(ctx);
		result->invariant_checks++;
	}
}

int run_workload(const struct run_config *cfg, struct run_result *result, bool keep_inodes)
{
	if (cfg->virtual_time)
		return vrun_workload(cfg, result, keep_inodes);

	struct run_ctx ctx;
	int nworkers = cfg->ncpus;
	int nthreads = nworkers + 2; /* + flusher + main */
	bool flusher = cfg->workload->flusher;

	memset(&ctx, 0, sizeof(ctx));
	memset(result, 0, sizeof(*result));
	ctx.cfg = cfg;
	ctx.nthreads = nthreads;
	ctx.cpus = xcalloc((size_t)nthreads, sizeof(*ctx.cpus));
	ctx.cpu_ptrs = xcalloc((size_t)nthreads, sizeof(*ctx.cpu_ptrs));
	pthread_mutex_init(&ctx.pause_m, NULL);
	pthread_cond_init(&ctx.pause_c, NULL);
	char(*names)[16] = xcalloc((size_t)nthreads, 16);
	run_begin_cpus(cfg, ctx.cpus, ctx.cpu_ptrs, names);

	if (cfg->ops) {
		ctx.ops_per_cpu = cfg->ops / (uint64_t)nworkers;
		ctx.ops_extra = cfg->ops % (uint64_t)nworkers;
	}
	uint64_t t0 = now_ns(), cpu0 = cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	ctx.deadline_ns = t0 + cfg->duration_ns;

	pthread_t *tids = xcalloc((size_t)nthreads, sizeof(*tids));
	struct worker_arg *args = xcalloc((size_t)nthreads, sizeof(*args));
	pthread_t wd;
	ctx.workers_running = nworkers + (flusher ? 1 : 0);
	set_missed_wakeup_ns((uint64_t)(cfg->watchdog_s * 1e9));
	atomic_store(&ctx.finished[nworkers], !flusher);
	xpthread_create(&wd, NULL, watchdog_main, &ctx);
	for (int i = 0; i < nworkers; i++) {
		args[i].ctx = &ctx;
		args[i].cpu = &ctx.cpus[i];
		xpthread_create(&tids[i], NULL, worker_main, &args[i]);
	}
	if (flusher) {
		args[nworkers].ctx = &ctx;
		args[nworkers].cpu = &ctx.cpus[nworkers];
		xpthread_create(&tids[nworkers], NULL, flusher_main, &args[nworkers]);
	}

	int failures = cfg->check_every_ns ? check_while_running(&ctx, flusher, result) : 0;
	for (int i = 0; i < nworkers; i++)
		pthread_join(tids[i], NULL);
	uint64_t t1 = now_ns();
	result->process_cpu_seconds = (double)(cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / 1e9;
	atomic_store(&ctx.stop_flusher, true);
	if (flusher)
		pthread_join(tids[nworkers], NULL);
	atomic_store(&ctx.watchdog_stop, true);
	pthread_join(wd, NULL);
	/* The frees still waiting for a grace period run now, so that their
	 * inode_rcu_freed events come before run_end, which ends the trace. */
	sim_rcu_barrier();

	result->seconds = (double)(t1 - t0) / 1e9;
	for (int i = 0; i < nworkers; i++) {
		result->ops += atomic_load(&ctx.cpus[i].ops_done);
		result->worker_cpu_seconds += (double)ctx.cpu_ns[i] / 1e9;
	}
	result->flusher_cpu_seconds = (double)ctx.cpu_ns[nworkers] / 1e9;
	run_collect(result, ctx.cpu_ptrs, nthreads, failures, keep_inodes);
	result->interrupted = atomic_load(&stop_signal);
	if (cfg->trace_run)
		trace_run_end(result->ops, (uint32_t)result->violations, result->interrupted);

	this_cpu = NULL;
	icache_destroy();
	sim_lock_kind = LOCK_MUTEX; /* scenario mode's, and the default */
	free(tids);
	free(args);
	free(ctx.cpu_ptrs);
	free(ctx.cpus);
	pthread_mutex_destroy(&ctx.pause_m);
	pthread_cond_destroy(&ctx.pause_c);
	free(names);
	return result->violations ? 1 : 0;
}
