/*
 * icache_events.h - THE list of icache trace events.
 *
 * One row per event.  Everything that knows about events is generated from
 * it: the LTTng-UST provider (icache_tp.h), the simulator's raw emitters
 * trace_ev_NAME() (sim/core/trace.h), the scheduler's step kinds SEV_*
 * (sim/core/lock.h), the viewer's event types EV_*, their names and the
 * field table its decoder reads (viewer/names.h, viewer/index.c), and the
 * words of the event grammar shared by .scn and .lesson files
 * (lib/selector.h).  tracepoints/EVENTS.md says what each event means.
 *
 * A row:  E(name, sched, "text")
 *   name   the LTTng event name (icache:name);
 *   sched  SCHED(kind): the event is a step of the deterministic scheduler
 *          (scenario mode) of that kind, or NOSCHED;
 *   text   the word the viewer's one-line text starts with.
 * Its fields, in trace order, are ICACHE_FIELDS_name(F), one
 *   F(kind, type, field, slot)
 * per field, where kind is INT (an integer of C type `type`), HEX (the
 * same, printed in hex), ENUM (an LTTng enum over the list `type` of
 * icache_names.h, stored in 8 bits) or STR (a string; type unused), and
 * slot is where the viewer keeps the value in its 32-byte struct ix_event
 * (viewer/index.h): CPU, A, B, SITE, OBJ (interned 64-bit id), VAL, HI / LO
 * (the two 32-bit halves of val), STRID (interned string in obj), RAW (obj
 * as is), SRC and LINE (the source file and line of the call site), LIFE
 * (low 16 bits in life), or SIDE (kept only in a side table: violation,
 * run_begin).
 *
 * Rules: add events at the END of the list (the viewer's numbering is
 * internal, but keep it stable for readers of old code); never rename or
 * remove an event or a field (traces are a contract); a new field of an
 * existing event goes at the end of its field list and is documented in
 * EVENTS.md.  A field the viewer must also read in older traces that lack
 * it is marked optional in viewer/index.c.
 */
#ifndef ICACHE_EVENTS_H
#define ICACHE_EVENTS_H

/* clang-format off */
#define ICACHE_EVENTS(E)                                  \
	E(lock_acquire, SCHED(acquire), "lock_acquire")     \
	E(lock_contended, NOSCHED, "lock_contended")        \
	E(lock_acquired, SCHED(acquired), "lock_acquired")  \
	E(lock_release, SCHED(release), "lock_release")     \
	E(lock_trylock, SCHED(trylock), "lock_trylock")     \
	E(inode_state, SCHED(state), "inode_state")         \
	E(inode_ref, SCHED(ref), "inode_ref")               \
	E(inode_list, SCHED(list), "inode_list")            \
	E(inode_alloc, SCHED(alloc), "inode_alloc")         \
	E(inode_free, SCHED(free), "inode_free")            \
	E(inode_nlink, SCHED(nlink), "inode_nlink")         \
	E(op_begin, SCHED(op_begin), "op_begin")            \
	E(op_end, SCHED(op_end), "op_end")                  \
	E(sched_step, NOSCHED, "sched_step")                \
	E(violation, NOSCHED, "violation")                  \
	E(run_begin, NOSCHED, "run_begin")                  \
	E(run_end, NOSCHED, "run_end")                      \
	E(order_rule, NOSCHED, "order_rule")                \
	E(inode_wait, NOSCHED, "inode_wait")                \
	E(inode_wait_end, NOSCHED, "inode_wait_end")        \
	E(note, NOSCHED, "note")                            \
	E(virtual_time, NOSCHED, "virtual_time")            \
	E(inode_pages, SCHED(pages), "inode_pages")         \
	E(rcu_read_lock, SCHED(rcu_lock), "rcu_read_lock")  \
	E(rcu_read_unlock, SCHED(rcu_unlock), "rcu_read_unlock") \
	E(inode_rcu_free, SCHED(rcu_free), "inode_rcu_free") \
	E(inode_rcu_freed, NOSCHED, "inode_rcu_freed")      \
	ICACHE_TEST_EVENTS(E)

/*
 * Scheduling steps that are not a trace event of their own: a failed
 * trylock is the lock_trylock event with success 0, and waking an inode's
 * sleepers leaves no event (nothing in the cache changed).
 */
#define ICACHE_SCHED_ONLY(S) S(trylock_failed) S(wake)

/*
 * A test-only event (make EXTRA_CFLAGS=-DICACHE_TEST_DUMMY_EVENT): it
 * proves that one row here is all the plumbing an event needs
 * (tests/test_events.c fires, records, decodes and names it).
 */
#ifdef ICACHE_TEST_DUMMY_EVENT
#define ICACHE_TEST_EVENTS(E) E(test_dummy, SCHED(test_dummy), "test_dummy")
#define ICACHE_FIELDS_test_dummy(F) \
	ICACHE_INODE_FIELDS(F) F(INT, uint64_t, value, VAL)
#else
#define ICACHE_TEST_EVENTS(E)
#endif

/* The lock events: which lock (cls, inst), who (cpu), where (site). */
#define ICACHE_LOCK_FIELDS(F) \
	F(INT, uint16_t, cpu, CPU) F(ENUM, lock_class, cls, A) \
	F(INT, uint64_t, inst, OBJ) F(ENUM, site, site, SITE)
/* Appended to the lock and inode events: the call site's file and line
 * (sim/core/lock.h, SITE() and __site), as lockdep records its caller. */
#define ICACHE_SRC_FIELDS(F) \
	F(ENUM, src_file, src, SRC) F(INT, uint16_t, line, LINE)

/* The inode events begin with who (cpu) and which inode (ino)... */
#define ICACHE_INODE_FIELDS(F) F(INT, uint16_t, cpu, CPU) F(INT, uint64_t, ino, OBJ)
/* ... and one made at a call site ends with where: site, file, line. */
#define ICACHE_SITE_FIELDS(F) F(ENUM, site, site, SITE) ICACHE_SRC_FIELDS(F)

/* Appended after those to every lock event: the lock's life (i_lock: the
 * inode life's id, unique in the run; 0 for the other locks), so two lives
 * of one inode number are two locks to a reader (EVENTS.md section 4). */
#define ICACHE_LOCK_TAIL(F) ICACHE_SRC_FIELDS(F) F(INT, uint64_t, life, LIFE)

#define ICACHE_FIELDS_lock_acquire(F) ICACHE_LOCK_FIELDS(F) ICACHE_LOCK_TAIL(F)
#define ICACHE_FIELDS_lock_contended(F) \
	ICACHE_LOCK_FIELDS(F) F(INT, int16_t, holder, VAL) ICACHE_LOCK_TAIL(F)
#define ICACHE_FIELDS_lock_acquired(F) \
	ICACHE_LOCK_FIELDS(F) F(INT, uint64_t, wait_ns, VAL) ICACHE_LOCK_TAIL(F)
#define ICACHE_FIELDS_lock_release(F) \
	ICACHE_LOCK_FIELDS(F) F(INT, uint64_t, hold_ns, VAL) ICACHE_LOCK_TAIL(F)
#define ICACHE_FIELDS_lock_trylock(F) \
	ICACHE_LOCK_FIELDS(F) F(INT, uint8_t, success, B) ICACHE_LOCK_TAIL(F)

/* An inode's value changes from old (HI) to new (LO) at a call site. */
#define ICACHE_INODE_CHANGE(F, kind, type, old, new) \
	ICACHE_INODE_FIELDS(F) F(kind, type, old, HI) F(kind, type, new, LO) ICACHE_SITE_FIELDS(F)
/* life (appended to inode_state, inode_ref, inode_list, inode_alloc,
 * inode_nlink and inode_free): the id its i_lock events carry, so a reader
 * pairs a life's alloc, locks, changes and free even while its number has
 * two lives. */
#define ICACHE_INODE_LIFE(F) F(INT, uint64_t, life, LIFE)

#define ICACHE_FIELDS_inode_state(F) \
	ICACHE_INODE_CHANGE(F, HEX, uint32_t, old_state, new_state) ICACHE_INODE_LIFE(F)
#define ICACHE_FIELDS_inode_ref(F) \
	ICACHE_INODE_CHANGE(F, INT, int32_t, old_count, new_count) ICACHE_INODE_LIFE(F)
#define ICACHE_FIELDS_inode_list(F) \
	ICACHE_INODE_FIELDS(F) F(ENUM, list, list, A) F(ENUM, list_action, action, B) \
	ICACHE_SITE_FIELDS(F) ICACHE_INODE_LIFE(F)
#define ICACHE_FIELDS_inode_alloc(F) \
	ICACHE_INODE_FIELDS(F) F(INT, uint32_t, sb, HI) F(INT, uint32_t, nlink, LO) \
	ICACHE_INODE_LIFE(F)
#define ICACHE_FIELDS_inode_free(F) \
	ICACHE_INODE_FIELDS(F) F(INT, uint32_t, sb, VAL) ICACHE_INODE_LIFE(F)
#define ICACHE_FIELDS_inode_nlink(F) \
	ICACHE_INODE_FIELDS(F) F(INT, uint32_t, nlink, VAL) ICACHE_INODE_LIFE(F)
#define ICACHE_FIELDS_inode_pages(F) \
	ICACHE_INODE_CHANGE(F, INT, int32_t, old_pages, new_pages)

#define ICACHE_FIELDS_op_begin(F) \
	F(INT, uint16_t, cpu, CPU) F(ENUM, op, op, A) F(INT, uint64_t, ino, OBJ)
#define ICACHE_FIELDS_op_end(F)                                        \
	F(INT, uint16_t, cpu, CPU) F(ENUM, op, op, A)                  \
	F(INT, uint64_t, ino, OBJ) F(INT, int64_t, result, VAL)
#define ICACHE_FIELDS_sched_step(F) \
	F(INT, uint64_t, step, VAL) F(INT, uint16_t, cpu, CPU) F(STR, -, what, STRID)
#define ICACHE_FIELDS_violation(F)                                       \
	F(INT, uint16_t, cpu, CPU) F(ENUM, violation_kind, kind, A)      \
	F(ENUM, lock_class, cls_a, SIDE) F(ENUM, lock_class, cls_b, SIDE) \
	F(ENUM, site, site_a, SIDE) F(ENUM, site, site_b, SIDE)          \
	F(INT, uint64_t, ino, OBJ) F(STR, -, text, SIDE)
/* order_rules: how many order_rule events follow (the documented order as
 * data); the `order` string is the same rules as text, for people.
 * scheme_file and scheme_cksum: the scheme's source file (relative to the
 * source tree) and its POSIX cksum(1) CRC at build time; threads: the
 * names of the simulated threads numbered cpus, cpus+1, ... ("flusher,main"),
 * comma-separated (0xffff, no CPU, is the main thread). */
#define ICACHE_FIELDS_run_begin(F)                                  \
	F(STR, -, scheme, SIDE) F(STR, -, workload, SIDE)           \
	F(INT, uint16_t, cpus, SIDE) F(INT, uint64_t, seed, SIDE)   \
	F(STR, -, order, SIDE) F(INT, uint16_t, order_rules, SIDE)  \
	F(STR, -, scheme_file, SIDE) F(HEX, uint32_t, scheme_cksum, SIDE) \
	F(STR, -, threads, SIDE)
/* interrupted: 0, or the signal that stopped the run (record's SIGINT/SIGTERM). */
#define ICACHE_FIELDS_run_end(F)                                   \
	F(INT, uint64_t, ops, VAL) F(INT, uint32_t, violations, RAW) \
	F(INT, uint8_t, interrupted, SIDE)
/* One rule of the scheme's documented lock order: outer before inner. */
#define ICACHE_FIELDS_order_rule(F) \
	F(ENUM, lock_class, outer, A) F(ENUM, lock_class, inner, B)
/* An RCU read-side section begins / ends: depth is the CPU's nesting
 * after the event (1 = outermost section entered, 0 = left). */
#define ICACHE_FIELDS_rcu_read_lock(F) \
	F(INT, uint16_t, cpu, CPU) F(INT, uint32_t, depth, VAL) ICACHE_SITE_FIELDS(F)
#define ICACHE_FIELDS_rcu_read_unlock(F) ICACHE_FIELDS_rcu_read_lock(F)
/* An evicted inode's memory is queued for freeing after a grace period
 * (call_rcu), and given back when it has passed: waited_ns is the time in
 * between; cpu is 0xffff (liburcu's call_rcu thread). */
#define ICACHE_FIELDS_inode_rcu_free(F) \
	ICACHE_INODE_FIELDS(F) F(INT, uint32_t, sb, VAL) ICACHE_SRC_FIELDS(F)
#define ICACHE_FIELDS_inode_rcu_freed(F) \
	ICACHE_INODE_FIELDS(F) F(INT, uint64_t, waited_ns, VAL) F(INT, uint64_t, life, LIFE)

/* A sleep on an inode's state bit (I_NEW, I_FREEING, I_WILL_FREE):
 * inode_wait as the CPU goes to sleep, with the state it saw, and
 * inode_wait_end when it wakes (woken 1) or gives up (0). */
#define ICACHE_FIELDS_inode_wait(F) \
	ICACHE_INODE_FIELDS(F) F(HEX, uint32_t, state, VAL) ICACHE_SITE_FIELDS(F)
#define ICACHE_FIELDS_inode_wait_end(F) \
	ICACHE_INODE_FIELDS(F) F(INT, uint8_t, woken, B) ICACHE_SITE_FIELDS(F)
/* A line of a scenario's narration (`say` in a .scn), written by
 * `icache-sim play -o` where it falls in the schedule: scn_line is its
 * line in the scenario file. */
#define ICACHE_FIELDS_note(F) \
	F(STR, -, text, STRID) F(INT, uint32_t, scn_line, VAL)
/* A virtual run starts (icache-sim --virtual): cpus simulated CPUs take
 * turns on one host thread; stamped is 1 if the events from here to the end
 * of the run carry their virtual time (record --virtual loads the clock
 * plugin), 0 if they carry the host's. */
#define ICACHE_FIELDS_virtual_time(F) \
	F(INT, uint16_t, cpus, SIDE) F(INT, uint8_t, stamped, SIDE)

/* clang-format on */

/* ---- the events' numbers ------------------------------------------------- */

/* Each event's position in the table (the viewer's EV_* are the same). */
#define ICACHE_EV_ROW_(name, sched, text) ICACHE_EV_##name,
enum icache_event { ICACHE_EVENTS(ICACHE_EV_ROW_) NR_ICACHE_EVENTS };

/* ---- the scheduler's step kinds ------------------------------------------ */

#define ICACHE_SEV_ROW_(name, sched, text) ICACHE_SEV_##sched
#define ICACHE_SEV_SCHED(kind) SEV_##kind,
#define ICACHE_SEV_NOSCHED
#define ICACHE_SEV_ONLY_(kind) SEV_##kind,

/* The kinds of step the deterministic scheduler sees (sim/core/lock.h). */
enum sched_event_kind {
	ICACHE_EVENTS(ICACHE_SEV_ROW_) ICACHE_SCHED_ONLY(ICACHE_SEV_ONLY_) NR_SCHED_EVENTS
};

/* ---- helpers for generating code from a field list ------------------------ */

/* ICACHE_ARGS(_ , a, b, c) -> a, b, c: drops the leading comma of a list
 * that each field macro started with ", ". */
#define ICACHE_DROP1_(x, ...) __VA_ARGS__
#define ICACHE_APPLY_(m, ...) m(__VA_ARGS__)
#define ICACHE_LIST(fields, F) ICACHE_APPLY_(ICACHE_DROP1_, _ fields(F))

/* The C type of a field as a function parameter. */
#define ICACHE_CTYPE_INT(t) t
#define ICACHE_CTYPE_HEX(t) t
#define ICACHE_CTYPE_ENUM(t) int
#define ICACHE_CTYPE_STR(t) const char *

#endif /* ICACHE_EVENTS_H */
