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
#include "sim/core/lockdep.h"

#ifndef ICACHE_TRACE
#define ICACHE_TRACE 1
#endif

/*
 * ICACHE_DIRECT: the same event to the direct CTF writer while one is open
 * (play --ctf-direct, sim/core/ctf_writer.h), out of line: off, it costs
 * one load and a predicted branch, like the tracepoint.
 */
#if ICACHE_TRACE
#include "tracepoints/icache_tp.h"
#include "sim/core/ctf_writer.h"
#define ICACHE_TP(name, ...) lttng_ust_tracepoint(icache, name, __VA_ARGS__)
#define ICACHE_DIRECT(name, ...)                                                          \
	do {                                                                              \
		if (__builtin_expect(__atomic_load_n(&ctfw_active, __ATOMIC_RELAXED), 0)) \
			ctfw_ev_##name(__VA_ARGS__);                                      \
	} while (0)
#else
#include "tracepoints/icache_events.h"
#define ICACHE_TP(name, ...) \
	do {                 \
	} while (0)
#define ICACHE_DIRECT(name, ...) ICACHE_TP(name, __VA_ARGS__)
#endif

/*
 * The raw emitters, one per row of tracepoints/icache_events.h:
 * trace_ev_NAME(field, field, ...) in the event's field order.  The
 * functions below give them the simulator's types; a new event can be
 * fired with its trace_ev_ function directly.
 */
#define TRACE_EV_PARAM_(kind, type, name, slot) , ICACHE_CTYPE_##kind(type) name
#define TRACE_EV_NAME_(kind, type, name, slot) , name
#define TRACE_EV_FN_(name, sched, text)                                                        \
	static inline void trace_ev_##name(ICACHE_LIST(ICACHE_FIELDS_##name, TRACE_EV_PARAM_)) \
	{                                                                                      \
		ICACHE_TP(name, ICACHE_LIST(ICACHE_FIELDS_##name, TRACE_EV_NAME_));            \
		ICACHE_DIRECT(name, ICACHE_LIST(ICACHE_FIELDS_##name, TRACE_EV_NAME_));        \
	}
ICACHE_EVENTS(TRACE_EV_FN_)
#undef TRACE_EV_FN_

static inline uint16_t trace_cpu(const struct sim_cpu *c)
{
	return c ? (uint16_t)c->id : 0xffff;
}

/*
 * The lock events: which lock (class, instance, life) comes from the lock,
 * and each but lock_acquire carries one more figure, `x` (holder, wait_ns,
 * hold_ns, success).  The rw-locks, whose instance is per holder, call
 * trace_ev_lock_*() themselves (lock.c).
 */
static inline void trace_lock_acquire(const struct sim_cpu *c, const struct sim_lock *l,
				      enum site s)
{
	struct src_mark m = sim_src_at(s);

	trace_ev_lock_acquire(trace_cpu(c), l->cls, l->inst, s, m.file, m.line, l->life);
}

#define TRACE_LOCK_FN_(ev, xtype)                                                            \
	static inline void trace_##ev(const struct sim_cpu *c, const struct sim_lock *l,     \
				      enum site s, xtype x)                                  \
	{                                                                                    \
		struct src_mark m = sim_src_at(s);                                           \
		trace_ev_##ev(trace_cpu(c), l->cls, l->inst, s, x, m.file, m.line, l->life); \
	}
TRACE_LOCK_FN_(lock_contended, int)
TRACE_LOCK_FN_(lock_acquired, uint64_t)
TRACE_LOCK_FN_(lock_release, uint64_t)
TRACE_LOCK_FN_(lock_trylock, int)
#undef TRACE_LOCK_FN_

static inline void trace_inode_state(const struct sim_cpu *c, uint64_t ino, uint64_t life,
				     unsigned old_state, unsigned new_state, enum site s)
{
	struct src_mark m = sim_src_at(s);

	trace_ev_inode_state(trace_cpu(c), ino, old_state, new_state, s, m.file, m.line, life);
	sched_point(SEV_state, s, NULL, ino, old_state, new_state);
}

static inline void trace_inode_ref(const struct sim_cpu *c, uint64_t ino, uint64_t life,
				   int old_count, int new_count, enum site s)
{
	struct src_mark m = sim_src_at(s);

	trace_ev_inode_ref(trace_cpu(c), ino, old_count, new_count, s, m.file, m.line, life);
	sched_point(SEV_ref, s, NULL, ino, old_count, new_count);
}

static inline void trace_inode_list(const struct sim_cpu *c, uint64_t ino, uint64_t life,
				    enum inode_list_id list, enum list_action action, enum site s)
{
	struct src_mark m = sim_src_at(s);

	trace_ev_inode_list(trace_cpu(c), ino, list, action, s, m.file, m.line, life);
	sched_point(SEV_list, s, NULL, ino, list, action);
}

static inline void trace_inode_alloc(const struct sim_cpu *c, uint64_t ino, uint32_t sb,
				     uint32_t nlink, uint64_t life)
{
	trace_ev_inode_alloc(trace_cpu(c), ino, sb, nlink, life);
	sched_point(SEV_alloc, SITE_unknown, NULL, ino, sb, nlink);
}

static inline void trace_inode_free(const struct sim_cpu *c, uint64_t ino, uint32_t sb,
				    uint64_t life)
{
	trace_ev_inode_free(trace_cpu(c), ino, sb, life);
	sched_point(SEV_free, SITE_unknown, NULL, ino, sb, 0);
}

static inline void trace_rcu_read_lock(const struct sim_cpu *c, int depth, enum site s)
{
	struct src_mark m = sim_src_at(s);

	trace_ev_rcu_read_lock(trace_cpu(c), (uint32_t)depth, s, m.file, m.line);
	sched_point(SEV_rcu_lock, s, NULL, 0, depth, 0);
}

static inline void trace_rcu_read_unlock(const struct sim_cpu *c, int depth, enum site s)
{
	struct src_mark m = sim_src_at(s);

	trace_ev_rcu_read_unlock(trace_cpu(c), (uint32_t)depth, s, m.file, m.line);
	sched_point(SEV_rcu_unlock, s, NULL, 0, depth, 0);
}

static inline void trace_inode_rcu_free(const struct sim_cpu *c, uint64_t ino, uint32_t sb,
					enum site s)
{
	struct src_mark m = sim_src_at(s);

	trace_ev_inode_rcu_free(trace_cpu(c), ino, sb, m.file, m.line);
	sched_point(SEV_rcu_free, s, NULL, ino, sb, 0);
}

/* From liburcu's call_rcu thread: not a step of any simulated CPU. */
static inline void trace_inode_rcu_freed(uint64_t ino, uint64_t waited_ns, uint64_t life)
{
	trace_ev_inode_rcu_freed(0xffff, ino, waited_ns, life);
}

static inline void trace_inode_nlink(const struct sim_cpu *c, uint64_t ino, uint64_t life,
				     uint32_t nlink)
{
	trace_ev_inode_nlink(trace_cpu(c), ino, nlink, life);
	sched_point(SEV_nlink, SITE_unknown, NULL, ino, 0, nlink);
}

/* An inode's page cache grew or was invalidated (i_data.nrpages). */
static inline void trace_inode_pages(const struct sim_cpu *c, uint64_t ino, long old_pages,
				     long new_pages, enum site s)
{
	struct src_mark m = sim_src_at(s);

	trace_ev_inode_pages(trace_cpu(c), ino, (int32_t)old_pages, (int32_t)new_pages, s, m.file,
			     m.line);
	sched_point(SEV_pages, s, NULL, ino, old_pages, new_pages);
}

static inline void trace_op_begin(const struct sim_cpu *c, enum op_kind op, uint64_t ino)
{
	trace_ev_op_begin(trace_cpu(c), op, ino);
	sched_point(SEV_op_begin, SITE_workload, NULL, ino, op, 0);
}

static inline void trace_op_end(const struct sim_cpu *c, enum op_kind op, uint64_t ino,
				int64_t result)
{
	trace_ev_op_end(trace_cpu(c), op, ino, result);
	sched_point(SEV_op_end, SITE_workload, NULL, ino, op, result);
}

/* A sleep on an inode's state: its start (with the state seen) and end. */
static inline void trace_inode_wait(const struct sim_cpu *c, uint64_t ino, unsigned state,
				    enum site s)
{
	struct src_mark m = sim_src_at(s);

	trace_ev_inode_wait(trace_cpu(c), ino, state, s, m.file, m.line);
}

static inline void trace_inode_wait_end(const struct sim_cpu *c, uint64_t ino, bool woken,
					enum site s)
{
	struct src_mark m = sim_src_at(s);

	trace_ev_inode_wait_end(trace_cpu(c), ino, woken, s, m.file, m.line);
}

/* A scenario's narration line, where it falls in the schedule. */
static inline void trace_note(const char *text, int scn_line)
{
	trace_ev_note(text, (uint32_t)scn_line);
}

static inline void trace_sched_step(uint64_t step, int cpu, const char *what)
{
	trace_ev_sched_step(step, (uint16_t)cpu, what);
}

/* Is anyone recording sched_step?  Saves formatting its text for nobody. */
static inline bool trace_sched_step_enabled(void)
{
#if ICACHE_TRACE
	return __atomic_load_n(&ctfw_active, __ATOMIC_RELAXED) ||
	       lttng_ust_tracepoint_enabled(icache, sched_step);
#else
	return false;
#endif
}

static inline void trace_violation(int cpu, int kind, int cls_a, int cls_b, int site_a, int site_b,
				   uint64_t ino, const char *text)
{
	trace_ev_violation((uint16_t)cpu, kind, cls_a, cls_b, site_a, site_b, ino, text);
}

/*
 * The first events of a run: run_begin, then the scheme's documented lock
 * order as data, one order_rule event per rule (outer before inner), so a
 * reader never has to parse the order text.  The scheme's source file and
 * its cksum let a viewer show the lines the events name; threads names
 * the simulated threads after the CPUs (see EVENTS.md).
 */
static inline void trace_run_begin(const char *scheme, const char *workload, int cpus,
				   uint64_t seed, const char *order, const struct lock_rule *rules,
				   int nrules, const char *file, uint32_t cksum,
				   const char *threads)
{
	trace_ev_run_begin(scheme, workload, (uint16_t)cpus, seed, order, (uint16_t)nrules, file,
			   cksum, threads);
	for (int i = 0; i < nrules; i++)
		trace_ev_order_rule(rules[i].outer, rules[i].inner);
#ifdef ICACHE_TEST_DUMMY_EVENT
	/* Test-only: the table's dummy row, fired with no other plumbing
	 * (tests/test_events.c, make check-dummy-event). */
	trace_ev_test_dummy(0xffff, 42, 7);
#endif
}

static inline void trace_run_end(uint64_t ops, uint32_t violations, int interrupted)
{
	trace_ev_run_end(ops, violations, (uint8_t)interrupted);
}

#endif /* SIM_TRACE_H */
