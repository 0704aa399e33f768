/*
 * trace.h - the simulator's only door to LTTng.
 *
 * Each icache event has a small inline function here; the rest of the code
 * calls trace_lock_acquired(c, l, site) and never sees a tracepoint macro.
 * Built with ICACHE_TRACE=0 every function is empty and the tracer is not
 * linked at all (make TRACE=0): the bench compares the two builds.
 * With tracing compiled in but no session listening, an event costs a load
 * and a predicted branch.
 *
 * In scenario mode each inode and operation event below is also a step of
 * the deterministic scheduler (sched_point, lock.h): the CPU that fires it
 * may be stopped right after it.  The lock events get their steps in
 * lock.c, where the lock's state at the step is known.
 */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/lock.h"

#ifndef ICACHE_TRACE
#define ICACHE_TRACE 1
#endif

#if ICACHE_TRACE
#include "tracepoints/icache_tp.h"
#define ICACHE_TP(name, ...) lttng_ust_tracepoint(icache, name, __VA_ARGS__)
#else
#define ICACHE_TP(name, ...) \
	do {                 \
	} while (0)
#endif

static inline uint16_t trace_cpu(const struct sim_cpu *c)
{
	return c ? (uint16_t)c->id : 0xffff;
}

/*
 * The lock events name a lock by class and instance.  A spinlock's
 * instance is its own; a rw-lock's read holds each get one (lock.h).
 */
static inline void trace_lock_acquire_as(const struct sim_cpu *c, enum lock_class cls,
					 uint64_t inst, enum site s)
{
	ICACHE_TP(lock_acquire, trace_cpu(c), cls, inst, s);
}

static inline void trace_lock_contended_as(const struct sim_cpu *c, enum lock_class cls,
					   uint64_t inst, enum site s, int holder)
{
	ICACHE_TP(lock_contended, trace_cpu(c), cls, inst, s, holder);
}

static inline void trace_lock_acquired_as(const struct sim_cpu *c, enum lock_class cls,
					  uint64_t inst, enum site s, uint64_t wait_ns)
{
	ICACHE_TP(lock_acquired, trace_cpu(c), cls, inst, s, wait_ns);
}

static inline void trace_lock_release_as(const struct sim_cpu *c, enum lock_class cls,
					 uint64_t inst, enum site s, uint64_t hold_ns)
{
	ICACHE_TP(lock_release, trace_cpu(c), cls, inst, s, hold_ns);
}

static inline void trace_lock_acquire(const struct sim_cpu *c, const struct sim_lock *l,
				      enum site s)
{
	trace_lock_acquire_as(c, l->cls, l->inst, s);
}

static inline void trace_lock_contended(const struct sim_cpu *c, const struct sim_lock *l,
					enum site s, int holder)
{
	trace_lock_contended_as(c, l->cls, l->inst, s, holder);
}

static inline void trace_lock_acquired(const struct sim_cpu *c, const struct sim_lock *l,
				       enum site s, uint64_t wait_ns)
{
	trace_lock_acquired_as(c, l->cls, l->inst, s, wait_ns);
}

static inline void trace_lock_release(const struct sim_cpu *c, const struct sim_lock *l,
				      enum site s, uint64_t hold_ns)
{
	trace_lock_release_as(c, l->cls, l->inst, s, hold_ns);
}

static inline void trace_lock_trylock(const struct sim_cpu *c, const struct sim_lock *l,
				      enum site s, int success)
{
	ICACHE_TP(lock_trylock, trace_cpu(c), l->cls, l->inst, s, success);
}

static inline void trace_inode_state(const struct sim_cpu *c, uint64_t ino, unsigned old_state,
				     unsigned new_state, enum site s)
{
	ICACHE_TP(inode_state, trace_cpu(c), ino, old_state, new_state, s);
	sched_point(SEV_state, s, NULL, ino, old_state, new_state);
}

static inline void trace_inode_ref(const struct sim_cpu *c, uint64_t ino, int old_count,
				   int new_count, enum site s)
{
	ICACHE_TP(inode_ref, trace_cpu(c), ino, old_count, new_count, s);
	sched_point(SEV_ref, s, NULL, ino, old_count, new_count);
}

static inline void trace_inode_list(const struct sim_cpu *c, uint64_t ino, enum inode_list_id list,
				    enum list_action action, enum site s)
{
	ICACHE_TP(inode_list, trace_cpu(c), ino, list, action, s);
	sched_point(SEV_list, s, NULL, ino, list, action);
}

static inline void trace_inode_alloc(const struct sim_cpu *c, uint64_t ino, uint32_t sb,
				     uint32_t nlink)
{
	ICACHE_TP(inode_alloc, trace_cpu(c), ino, sb, nlink);
	sched_point(SEV_alloc, SITE_unknown, NULL, ino, sb, nlink);
}

static inline void trace_inode_free(const struct sim_cpu *c, uint64_t ino, uint32_t sb)
{
	ICACHE_TP(inode_free, trace_cpu(c), ino, sb);
	sched_point(SEV_free, SITE_unknown, NULL, ino, sb, 0);
}

static inline void trace_inode_nlink(const struct sim_cpu *c, uint64_t ino, uint32_t nlink)
{
	ICACHE_TP(inode_nlink, trace_cpu(c), ino, nlink);
	sched_point(SEV_nlink, SITE_unknown, NULL, ino, 0, nlink);
}

static inline void trace_op_begin(const struct sim_cpu *c, enum op_kind op, uint64_t ino)
{
	ICACHE_TP(op_begin, trace_cpu(c), op, ino);
	sched_point(SEV_op_begin, SITE_workload, NULL, ino, op, 0);
}

static inline void trace_op_end(const struct sim_cpu *c, enum op_kind op, uint64_t ino,
				int64_t result)
{
	ICACHE_TP(op_end, trace_cpu(c), op, ino, result);
	sched_point(SEV_op_end, SITE_workload, NULL, ino, op, result);
}

static inline void trace_sched_step(uint64_t step, int cpu, const char *what)
{
	ICACHE_TP(sched_step, step, (uint16_t)cpu, what);
}

/* Is anyone recording sched_step?  Saves formatting its text for nobody. */
static inline bool trace_sched_step_enabled(void)
{
#if ICACHE_TRACE
	return lttng_ust_tracepoint_enabled(icache, sched_step);
#else
	return false;
#endif
}

static inline void trace_violation(int cpu, int kind, int cls_a, int cls_b, int site_a, int site_b,
				   uint64_t ino, const char *text)
{
	ICACHE_TP(violation, (uint16_t)cpu, kind, cls_a, cls_b, site_a, site_b, ino, text);
}

static inline void trace_run_begin(const char *scheme, const char *workload, int cpus,
				   uint64_t seed, const char *order)
{
	ICACHE_TP(run_begin, scheme, workload, (uint16_t)cpus, seed, order);
}

static inline void trace_run_end(uint64_t ops, uint32_t violations)
{
	ICACHE_TP(run_end, ops, violations);
}

#endif /* SIM_TRACE_H */
