/*
 * run.h - running a workload on simulated CPUs, and what a run reports.
 *
 * A run starts one pthread per simulated CPU (pinned to a real core), a
 * flusher thread for writeback and a watchdog.  Each CPU performs the
 * workload's operations until its share of --ops is done or --duration has
 * passed.  Then every thread stops, the invariant checker walks the whole
 * cache, and the per-CPU counters are merged into one result.
 */
#ifndef SIM_RUN_H
#define SIM_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/core/scheme.h"

struct run_ctx;

struct workload {
	const char *name;
	const char *summary;
	bool flusher; /* needs the flusher thread */
	/* One operation on CPU c; returns false when it has nothing to do. */
	void (*op)(struct run_ctx *ctx, struct sim_cpu *c);
	/* Give back whatever the workload still holds (main thread). */
	void (*teardown)(struct run_ctx *ctx);
};

extern const struct workload *const all_workloads[];
const struct workload *workload_find(const char *name);
/* Test only: the workload, after cpu0 and cpu1 deadlock on two test locks. */
const struct workload *workload_with_abba(const struct workload *inner);

/*
 * --watchdog's default, in seconds.  A sanitizer build runs 2 to 15 times
 * slower, and on a busy machine its threads wait longer for a core: the
 * bound on a hang grows with it, so that slowness is not called a deadlock
 * (a real one is still reported, later).
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WATCHDOG_DEFAULT_S 20.0
#else
#define WATCHDOG_DEFAULT_S 5.0
#endif

struct run_config {
	const struct scheme *scheme;
	const struct workload *workload;
	int ncpus;
	uint64_t ops; /* total operations; 0 means use duration */
	uint64_t duration_ns;
	uint64_t seed;
	int nsbs; /* shared superblocks */
	unsigned hash_bits;
	int nodes;                   /* simulated NUMA nodes (list_lru) */
	unsigned hot;                /* inodes in the lookup hot set, per sb */
	unsigned cache_limit;        /* pressure: unused inodes the shrinker keeps */
	unsigned vfs_cache_pressure; /* the sysctl shrink_icache_memory scales by */
	double watchdog_s;           /* no progress for this long = deadlock */
	uint64_t check_every_ns;     /* stop the world and check, 0 = only at end */
	bool pin;
	bool quiet;     /* don't print violations as they happen */
	bool trace_run; /* emit run_begin / run_end events */
	int locks;      /* enum lock_kind, or LOCKS_AUTO */
	/* Virtual-time mode (vrun.h): --duration is virtual time then. */
	bool virtual_time;
	const struct cost_model *costs;
	/* --jitter: each step's work varies by up to this fraction either
	 * way (seeded, so still deterministic); 0 = every step costs the same. */
	double jitter;
	/* --lines=lists: charge every line a list operation writes (node,
	 * neighbours, the very head) by the CPU that wrote it last, instead
	 * of one line per list kind (--lines=heads: neither flag). */
	bool list_lines;
	/* --lines=all, the default of --virtual (cli.c sets it): the same
	 * for every write of shared data the core makes (list links, an
	 * inode's fields, shared counters, a lock's bookkeeping; list.h's
	 * SIM_LINE), so list lines too. */
	bool lines;
	/* --flusher-cpu=own: the virtual flusher runs on a CPU of its own,
	 * as a real run's flusher thread does on a spare core; the default
	 * (shared) puts it on the last CPU beside that CPU's worker, as a
	 * kernel's flusher thread is scheduled on one of the box's CPUs. */
	bool flusher_own_cpu;
};

/* --locks not given: spin (ticket) if every simulated CPU has a core. */
#define LOCKS_AUTO (-1)
enum lock_kind run_lock_kind(const struct run_config *cfg);

void run_config_defaults(struct run_config *cfg);

struct run_inode {
	uint64_t ino;
	uint32_t sb;
	uint32_t state;
	int count;
	unsigned nlink;
	bool hashed, on_sb, on_lru, on_wb;
	int wb_list; /* LIST_b_* or -1 */
};

struct run_result {
	uint64_t ops;
	double seconds;
	struct lock_class_stats locks[NR_LOCK_CLASSES];
	long nr_inodes, nr_unused;
	long lru_len, hashed, b_dirty, b_io, b_more_io;
	uint64_t inodes_allocated;
	int invariant_checks;
	int invariant_failures;
	long lru_window; /* invariants_lru_window() at the end */
	uint64_t violations;
	/* Every inode alive at the end (kept only if asked for). */
	struct run_inode *inodes;
	size_t ninodes;
	/* Virtual mode: seconds above is virtual; what simulating it took. */
	uint64_t vpoints;
	uint64_t worker_points;      /* of them, passed by the workload's CPUs */
	uint64_t worker_step_points; /* of those, charged a step (not a lock) */
	double host_seconds;
	uint64_t line_xfers; /* lock and list-head lines moved between CPUs */
	/* Real mode: the CPU time the host gave the workers (all together),
	 * the flusher, and the whole process while the workers ran (they,
	 * the flusher, liburcu's call_rcu thread, the watchdog), so that a
	 * reader can tell a slow program from one the host did not run.
	 * Virtual mode: the virtual time the workers and the flusher spent on
	 * a CPU (running or spinning; process is their sum). */
	double worker_cpu_seconds, flusher_cpu_seconds, process_cpu_seconds;
	int interrupted; /* the signal that stopped it early, or 0 */
};

/*
 * Ask a running run_workload() to stop at the next operation boundary, as
 * if its time were up; sig is reported in run_end.  Async-signal-safe: a
 * signal handler calls it (record's SIGINT/SIGTERM).
 */
void run_request_stop(int sig);

/* Run it.  keep_inodes: fill result->inodes. Returns 0, or 1 on a report. */
int run_workload(const struct run_config *cfg, struct run_result *result, bool keep_inodes);
void run_result_free(struct run_result *r);

/* The start of a run: name the CPUs (nworkers, flusher, main: cpus and
 * ptrs hold ncpus + 2), build the cache, reset the validator. */
void run_begin_cpus(const struct run_config *cfg, struct sim_cpu *cpus, struct sim_cpu **ptrs,
		    char (*names)[16]);
/* The end of a run, the world still: invariants, counters, final lists. */
void run_collect(struct run_result *result, struct sim_cpu *const *cpus, int n, int failures,
		 bool keep_inodes);
/* A context for a run driven elsewhere (virtual mode); free() it. */
struct run_ctx *run_ctx_alloc(const struct run_config *cfg);

/* Private superblocks (umount) start after the shared ones. */
struct super_block *run_private_sb(struct run_ctx *ctx, struct sim_cpu *c);
struct super_block *run_shared_sb(struct run_ctx *ctx, struct sim_cpu *c);
const struct run_config *run_cfg(struct run_ctx *ctx);
uint64_t sim_rand(struct sim_cpu *c);

/* The invariant checker: walk the quiescent cache; returns failures. */
int check_invariants(bool quiescent);
/* Of the last check: unused clean inodes accepted off the LRU because a
 * shrinker dropped them while another had them pinned (I_LRU_ISOLATING). */
long invariants_lru_window(void);
/* Did the last check find a list that does not come back to its head? */
bool icache_lists_corrupt(void);

/* Reports. */
void print_report(FILE *f, const struct run_config *cfg, const struct run_result *r);
/* "  accepted: N unused clean inodes off the LRU ...\n" (invariants_lru_window). */
const char *lru_window_note(long n);
void print_locks_json(FILE *f, const struct lock_class_stats *locks);
void print_json(FILE *f, const struct run_config *cfg, const struct run_result *r,
		const char *extra_json);

/* The host, for figures printed beside absolute times. */
const char *host_cpu_model(void);
int host_cpus(void);

#endif
