/*
 * sched.h - the deterministic scheduler of scenario mode.
 *
 * Each simulated CPU is still a real pthread taking real (instrumented)
 * locks, but only one of them runs at any moment: the one the controller
 * (the thread that called sched_run_segment) has handed the baton to.
 * Every instrumentation point of the core (lock.h, trace.h) is a step; at
 * each step the running CPU asks its segment's stop rule whether to go on,
 * and if not it hands the baton back and waits.  So a run is a sequence of
 * segments "cpuN runs until R", the same every time.
 *
 * A CPU that finds a lock taken does not spin: it parks (BLOCKED) and its
 * segment ends; it may run again once the lock is free.  A CPU that must
 * sleep on an inode parks (SLEEPING) until another CPU wakes that inode.
 * When every CPU with work left is parked and none can go on, that is a
 * deadlock, and sched_cpus_text() says who holds what and who waits
 * for what, the way the watchdog and lockdep do.
 */
#ifndef SIM_SCHED_H
#define SIM_SCHED_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/core/lock.h"

#define SCHED_MAX_CPUS 8

enum sched_cpu_state {
	SCPU_IDLE, /* not started yet, or stopped at a step */
	SCPU_RUNNING,
	SCPU_BLOCKED,  /* parked on a lock another CPU holds */
	SCPU_SLEEPING, /* parked on an inode until woken */
	SCPU_DONE,     /* its program is over */
	SCPU_FAILED,   /* its program hit a scenario error */
};

/* Why a segment ended. */
enum seg_end {
	SEG_STOPPED, /* its stop rule said so */
	SEG_BLOCKED,
	SEG_SLEEPING,
	SEG_DONE,
	SEG_LIMIT, /* ran the segment's step limit: livelock? */
	SEG_FAILED,
};

struct sched;
struct sched_cpu;

/* Should the CPU stop right after this step? Runs on the CPU's thread. */
typedef bool (*sched_stop_fn)(struct sched *s, struct sched_cpu *sc, const struct sched_event *ev,
			      void *arg);

struct sched_cpu {
	int idx;
	struct sim_cpu *cpu;
	struct sched *s;
	pthread_t tid;
	pthread_cond_t cv;
	enum sched_cpu_state state;
	struct sim_lock *blocked_on; /* SCPU_BLOCKED */
	enum site blocked_site;
	uint64_t sleep_ino; /* SCPU_SLEEPING */
	enum site sleep_site;
	bool woken;
	/* The inode's state changed since it fell asleep (from, to: the last
	 * change): with no wake after it, the wakeup was missed. */
	bool sleep_changed;
	unsigned sleep_from, sleep_to;
	uint64_t steps;    /* this CPU's steps so far */
	uint64_t ops_done; /* op_end steps so far */
	/* The program, run on the CPU's thread. */
	void (*body)(struct sched_cpu *sc, void *arg);
	void *arg;
};

struct sched {
	pthread_mutex_t m;
	pthread_cond_t ctl_cv;
	int running; /* the CPU holding the baton, or -1 */
	int ncpus;
	struct sched_cpu cpu[SCHED_MAX_CPUS];
	uint64_t step; /* steps of every CPU, numbered from 1 */

	/* The segment under way (written by the controller, read by the
	 * running CPU; the baton handoff orders the two). */
	sched_stop_fn stop;
	void *stop_arg;
	uint64_t seg_steps, seg_limit;
	enum seg_end seg_end;

	/* Observers, called on the running CPU's thread. */
	void (*on_step)(struct sched *s, struct sched_cpu *sc, const struct sched_event *ev,
			void *arg);
	void (*on_park)(struct sched *s, struct sched_cpu *sc, void *arg);
	/* Describes a CPU's current operation, for op_begin/op_end text. */
	void (*op_text)(struct sched_cpu *sc, char *buf, size_t len, void *arg);
	void *obs_arg;
	bool trace; /* emit icache:sched_step */
};

/* Set up n CPUs (cpus[i] becomes CPU i); bodies are set by the caller. */
void sched_init(struct sched *s, int n, struct sim_cpu **cpus);

/* Install the hooks and start the threads; each waits for its turn. */
void sched_start(struct sched *s);

/*
 * Let CPU idx run until stop() says so, it parks or its program ends,
 * or limit steps have passed (0: no limit).  The CPU must be runnable.
 */
enum seg_end sched_run_segment(struct sched *s, int idx, sched_stop_fn stop, void *arg,
			       uint64_t limit);

/* Could CPU idx make progress if it were given the baton? */
bool sched_runnable(const struct sched *s, int idx);
bool sched_all_done(const struct sched *s);
/* Some CPU has work left, and none of them can go on. */
bool sched_stuck(const struct sched *s);
/* Every CPU with work left sleeps, unwoken, and one of them sleeps on an
 * inode whose state changed after it fell asleep: nobody is left to wake
 * it, the change came without its wake_up_inode().  That CPU, or NULL. */
const struct sched_cpu *sched_missed_wakeup(const struct sched *s);

/* Join the threads (all DONE) and remove the hooks. */
void sched_finish(struct sched *s);
/* Remove the hooks, join the CPUs that are done and leave parked threads
 * parked (the process exits). */
void sched_abandon(struct sched *s);

/* A program hit a scenario error: park for good, the controller reports. */
void sched_cpu_fail(struct sched_cpu *sc);

/* One step in words, in the event grammar (lib/selector.h): "cpu1 acquired
 * i_lock inode 42 in find_inode_fast", "cpu0 add lru inode 42 in iput_final". */
void sched_event_text(const struct sched *s, const struct sched_cpu *sc,
		      const struct sched_event *ev, char *buf, size_t len);
/* Why a parked CPU cannot go on, in words. */
void sched_park_text(const struct sched *s, const struct sched_cpu *sc, char *buf, size_t len);
/* Lockdep-style account of every CPU: held locks, what it waits for. */
void sched_cpus_text(const struct sched *s, char *buf, size_t len);

/* "i_lock inode 42", "inode_hash_lock", "hash_bucket 17", "inode_sb_list_lock sb 1" */
void sched_lock_text(const struct sim_lock *l, char *buf, size_t len);
/* "I_NEW|I_REFERENCED", or "0" */
void inode_flags_text(unsigned flags, char *buf, size_t len);
const char *sched_event_kind_name(enum sched_event_kind k);
const char *list_id_name(int id);
const char *list_action_name(int a);
const char *op_kind_name(int op);

#endif /* SIM_SCHED_H */
