/*
 * costs.h - the virtual-time mode's cost model, and its file.
 *
 * Every number here is measured by `icache-sim calibrate` on some host
 * (the file says which); none is chosen to produce an answer.  The model:
 *
 *   - a lock taken and released costs lock_ns (one CPU taking and
 *     releasing one lock through the simulator's own lock code,
 *     lock_stat's clock reads and the validator included), and a lock
 *     taken after a wait contended_ns more (the lock code's contended
 *     path, lock_stat's two clock reads of the wait), charged once it is
 *     taken.  Of lock_ns, lock_hold_ns runs while the lock is held
 *     (lock_stat's hold of a lock taken and released with nothing
 *     between, from the lock's own counters) and is charged once it is
 *     taken; the rest (the validator, the tracepoint checks, the atomic)
 *     before.  Simplified: the release's share of the rest is charged
 *     before the acquisition too, and a trylock, which has no point
 *     before its attempt, is charged all of lock_ns after it.  A file
 *     without lock_hold_ns charges all of lock_ns inside the hold: on the
 *     AMD VM a 1-CPU mixed run under merged then held inode_wb_list_lock
 *     208 ns per acquisition in its worker, the real run 120 to 125;
 *   - the code between two other instrumentation points costs step_ns
 *     (measured per workload and scheme: a real 1-CPU run's time, less
 *     its locks and the modelled transfers and waits, over its other
 *     points; a file may give a workload's step for any scheme);
 *   - touching a line last written by another CPU (a lock word, a list
 *     link, with --lines=all any shared field) costs line_ns: calibrate
 *     follows a chain of lines another CPU has just written, one miss at
 *     a time.  A file without line_ns charges xfer_ns there, the model
 *     before it was measured, which charged a moved line what a lock's
 *     hand-over costs: on the AMD VM, 1.6 times too much;
 *     Not modelled: misses that overlap.  Each moved line is a stall of
 *     its own, but a core that knows several addresses at once (fields
 *     of one inode) fetches them together: on the AMD VM a chain whose
 *     nodes are touched at lines 0, 3 and 6 cost 149-164 ns a node, one
 *     line 146-155, and a chain in address order 16 (the prefetcher).
 *     Charging nothing for a line near the last one its CPU waited for
 *     brought the virtual flusher's holds to the real ones but made the
 *     2-CPU runs 1.24-1.54x too fast (docs/bench.md);
 *   - a hand-over to a CPU spinning on the line (a ticket or MCS lock
 *     passed on, below) costs xfer_ns: two pinned threads ping-ponging
 *     a line, where each turn is two trips (the store takes the line
 *     from the spinner, the spinner fetches it back);
 *   - with --lines=all and a file that has xfer_more_ns, a store to a
 *     line the CPU has not read first (a list neighbour, a new node:
 *     list.h's LIST_STORE) does not stall it: the line arrives line_ns
 *     later, and each further line stored while one is still on its way
 *     arrives xfer_more_ns after the last (the store buffer overlaps the
 *     misses; calibrate times a ping-pong of 1 and of 8 lines); a line
 *     read first (a field updated, a list head) still stalls.  Only a locked
 *     read-modify-write (a lock taken, an atomic_t) waits for them, and a
 *     lock's release is seen by its waiters when they have arrived;
 *   - a ticket lock's handoff with n spinners costs xfer_ns * (n + 1) / 2:
 *     the release invalidates every spinner's copy, their re-reads are
 *     served one after another, and the next owner is on average in the
 *     middle (Boyd-Wickizer, Kaashoek, Morris, Zeldovich, "Non-scalable
 *     locks are dangerous", Linux Symposium 2012);
 *   - an MCS handoff writes one waiter's own line: xfer_ns, whatever n;
 *   - a mutex waiter sleeps: it runs again wake_ns after the release
 *     (two threads ping-ponging through a futex), and the releaser pays
 *     wake_call_ns for the FUTEX_WAKE system call;
 *   - the flusher, finding nothing to write, sleeps 500 us as a real
 *     run's does with usleep(500): that lasts nap_ns (timer slack and the
 *     wakeup make it longer: 536 to 576 us under chrt -f on the AMD VM,
 *     588 to 656 us without).  A file without it sleeps exactly 500 us, the
 *     model before.  No two naps last the same: each lasts nap_ns give or
 *     take up to nap_spread_ns, drawn uniformly from the flusher's seeded
 *     generator (calibrate: half the 5-95 % range of 200 naps timed one
 *     by one, 5.5 to 24.8 us on the AMD VM; 2 000 naps under chrt -f
 *     there: 531 us at 5 %, 548 at 95 %).  A file without it naps
 *     exactly nap_ns each time, and the flusher's wake-ups may then stay
 *     in step with the worker's operations: a 1-CPU create-unlink under
 *     merged, whose one dirty inode lives for
 *     part of each 2 us operation, met its flusher 30 times in 200 000
 *     operations with 537 us naps and 397 times with 570 us ones (the
 *     real run about 400); with a spread of 2.5 or 8.4 us, 325 to 388
 *     times for any nap from 537 to 600 us.
 *     Simplified: the nap costs its CPU nothing.  A
 *     usleep(500) cost 13 to 21 us of CPU on the AMD VM, and charged to
 *     a flusher that shares a CPU it made create-unlink under global at
 *     2 CPUs contend 0.80x as much as the real runs (1.04x without).
 */
#ifndef SIM_COSTS_H
#define SIM_COSTS_H

#include <stdbool.h>
#include <stddef.h>

#define COST_MAX_STEPS 64

struct cost_model {
	char source[256]; /* the host and date it was measured on */
	double xfer_ns;
	double wake_ns;
	double wake_call_ns;
	/* Optional: 0 (a file without it) charges a lock's acquisition one
	 * step like any point, the model before lock_ns was measured. */
	double lock_ns;
	/* Optional: 0 (a file without it) charges a contended acquisition
	 * what an uncontended one costs, the model before it was measured. */
	double contended_ns;
	/* Optional: < 0 (a file without it) charges every line a store
	 * moves xfer_ns at once, the model before it was measured. */
	double xfer_more_ns;
	/* Optional: < 0 (a file without it) charges a line another CPU
	 * wrote last xfer_ns, the model before it was measured. */
	double line_ns;
	/* Optional: < 0 (a file without it) naps 500 us, the model before
	 * it was measured. */
	double nap_ns;
	/* Optional: < 0 (a file without it) charges all of lock_ns inside
	 * the hold, the model before it was measured. */
	double lock_hold_ns;
	/* Optional: <= 0 (a file without it) naps exactly nap_ns each time,
	 * the model before it was measured. */
	double nap_spread_ns;
	double step_default_ns; /* a workload not measured */
	int nsteps;
	struct {
		char workload[32];
		char scheme[32]; /* "": any scheme without a step of its own */
		double ns;
	} step[COST_MAX_STEPS];
};

/* The shipped default (costs_default.c), measured on the machine it names. */
void cost_model_default(struct cost_model *m);
/* Read a cost file; on error say "FILE:LINE: why" in err and return false. */
bool cost_model_load(const char *path, struct cost_model *m, char *err, size_t errlen);
/* Parse the text of a cost file (name is for messages). */
bool cost_model_parse(const char *text, const char *name, struct cost_model *m, char *err,
		      size_t errlen);
bool cost_model_write(const char *path, const struct cost_model *m);
/* The step of workload under scheme: its own, else the workload's for any
 * scheme, else step_default_ns.  scheme may be NULL or "" (any). */
double cost_step_ns(const struct cost_model *m, const char *workload, const char *scheme);
void cost_set_step(struct cost_model *m, const char *workload, const char *scheme, double ns);
/* What a line another CPU wrote last costs: line_ns, or xfer_ns without it. */
double cost_line_ns(const struct cost_model *m);

/* The flusher's nap: what it asks for, and what it lasts (nap_ns, else
 * what it asks). */
#define COST_NAP_ASKED_NS 500000.0
double cost_nap_ns(const struct cost_model *m);
/* How much a nap may differ from cost_nap_ns, either way (0: never). */
double cost_nap_spread_ns(const struct cost_model *m);
/* Of lock_ns, the part charged inside the hold: lock_hold_ns, else all. */
double cost_lock_hold_ns(const struct cost_model *m);

#endif
