/*
 * lockdep.h - the lock-order validator, after the kernel's lockdep.
 *
 * Locks are grouped in classes.  Each time a CPU takes a lock (not a
 * trylock) while holding others, an edge held-class -> new-class joins the
 * dependency graph.  A trylock adds no edge of its own, because a trylock
 * cannot wait and so cannot deadlock, but locks taken while it is held do.
 * Two things are reported:
 *   - an edge that closes a cycle (a possible circular locking dependency,
 *     with both chains, their sites and the CPUs that made them);
 *   - an edge that contradicts the scheme's documented order, even if no
 *     cycle was ever completed.
 * Each distinct report is printed once; repeats are counted.
 */
#ifndef SIM_LOCKDEP_H
#define SIM_LOCKDEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/core/lock.h"

struct lock_rule {
	enum lock_class outer, inner;
};

/* Reset the graph and load a documented order (rules may be NULL). */
void lockdep_reset(const struct lock_rule *rules, int nrules);

/* Called by sim_spin_lock before it waits for the lock. */
void lockdep_acquire(struct sim_cpu *c, struct sim_lock *l, enum site site);

/* Does the documented order (its transitive closure) put a before b? */
bool lockdep_documented(enum lock_class a, enum lock_class b);

struct lockdep_edge {
	uint64_t count;
	enum site first_site_outer, first_site_inner;
	int first_cpu;
	bool against_order; /* contradicts the documented order */
	bool closes_cycle;  /* completed a circular dependency */
};

/* Read the observed graph (for --graph and the report). */
const struct lockdep_edge *lockdep_edge(enum lock_class from, enum lock_class to);

/* Write the observed graph as Graphviz DOT. */
void lockdep_write_dot(FILE *f, const char *title);

#endif
