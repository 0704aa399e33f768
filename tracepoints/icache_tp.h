/*
 * icache_tp.h - the LTTng-UST provider "icache".
 *
 * This header is the provider definition only.  The simulator never calls
 * these macros directly: sim/core/trace.h wraps each event in a small inline
 * function, so the code reads trace_lock_acquired(l, site) and a build with
 * ICACHE_TRACE=0 compiles every event away.
 *
 * The meaning of each event and field is documented in EVENTS.md, which is
 * the contract the viewer reads against.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER icache

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "icache_tp.h"

#if !defined(ICACHE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define ICACHE_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>
#include "icache_enums.h"

/* One enum entry per name of a list in icache_names.h. */
#define ICACHE_TP_LC(n) lttng_ust_field_enum_value(#n, LC_##n)
#define ICACHE_TP_SITE(n) lttng_ust_field_enum_value(#n, SITE_##n)
#define ICACHE_TP_LIST(n) lttng_ust_field_enum_value(#n, LIST_##n)
#define ICACHE_TP_LACT(n) lttng_ust_field_enum_value(#n, LACT_##n)
#define ICACHE_TP_OP(n) lttng_ust_field_enum_value(#n, OP_##n)
#define ICACHE_TP_VIOL(n) lttng_ust_field_enum_value(#n, VIOL_##n)

LTTNG_UST_TRACEPOINT_ENUM(icache, lock_class,
	LTTNG_UST_TP_ENUM_VALUES(
		ICACHE_LOCK_CLASSES(ICACHE_TP_LC)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(icache, site,
	LTTNG_UST_TP_ENUM_VALUES(
		ICACHE_SITES(ICACHE_TP_SITE)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(icache, list,
	LTTNG_UST_TP_ENUM_VALUES(
		ICACHE_LISTS(ICACHE_TP_LIST)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(icache, list_action,
	LTTNG_UST_TP_ENUM_VALUES(
		ICACHE_LIST_ACTIONS(ICACHE_TP_LACT)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(icache, op,
	LTTNG_UST_TP_ENUM_VALUES(
		ICACHE_OPS(ICACHE_TP_OP)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(icache, violation_kind,
	LTTNG_UST_TP_ENUM_VALUES(
		ICACHE_VIOLATIONS(ICACHE_TP_VIOL)
	)
)

/* ---- locks ---------------------------------------------------------- */

LTTNG_UST_TRACEPOINT_EVENT_CLASS(icache, lock_class_ev,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, int, cls, uint64_t, inst, int, site),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_enum(icache, lock_class, uint8_t, cls, cls)
		lttng_ust_field_integer(uint64_t, inst, inst)
		lttng_ust_field_enum(icache, site, uint8_t, site, site)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(icache, lock_class_ev, icache, lock_acquire,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, int, cls, uint64_t, inst, int, site))

LTTNG_UST_TRACEPOINT_EVENT(icache, lock_contended,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, int, cls, uint64_t, inst, int, site,
			  int, holder),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_enum(icache, lock_class, uint8_t, cls, cls)
		lttng_ust_field_integer(uint64_t, inst, inst)
		lttng_ust_field_enum(icache, site, uint8_t, site, site)
		lttng_ust_field_integer(int16_t, holder, holder)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, lock_acquired,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, int, cls, uint64_t, inst, int, site,
			  uint64_t, wait_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_enum(icache, lock_class, uint8_t, cls, cls)
		lttng_ust_field_integer(uint64_t, inst, inst)
		lttng_ust_field_enum(icache, site, uint8_t, site, site)
		lttng_ust_field_integer(uint64_t, wait_ns, wait_ns)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, lock_release,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, int, cls, uint64_t, inst, int, site,
			  uint64_t, hold_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_enum(icache, lock_class, uint8_t, cls, cls)
		lttng_ust_field_integer(uint64_t, inst, inst)
		lttng_ust_field_enum(icache, site, uint8_t, site, site)
		lttng_ust_field_integer(uint64_t, hold_ns, hold_ns)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, lock_trylock,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, int, cls, uint64_t, inst, int, site,
			  int, success),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_enum(icache, lock_class, uint8_t, cls, cls)
		lttng_ust_field_integer(uint64_t, inst, inst)
		lttng_ust_field_enum(icache, site, uint8_t, site, site)
		lttng_ust_field_integer(uint8_t, success, success)
	)
)

/* ---- inodes --------------------------------------------------------- */

LTTNG_UST_TRACEPOINT_EVENT(icache, inode_state,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, uint64_t, ino, uint32_t, old_state,
			  uint32_t, new_state, int, site),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_integer(uint64_t, ino, ino)
		lttng_ust_field_integer_hex(uint32_t, old_state, old_state)
		lttng_ust_field_integer_hex(uint32_t, new_state, new_state)
		lttng_ust_field_enum(icache, site, uint8_t, site, site)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, inode_ref,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, uint64_t, ino, int, old_count,
			  int, new_count, int, site),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_integer(uint64_t, ino, ino)
		lttng_ust_field_integer(int32_t, old_count, old_count)
		lttng_ust_field_integer(int32_t, new_count, new_count)
		lttng_ust_field_enum(icache, site, uint8_t, site, site)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, inode_list,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, uint64_t, ino, int, list, int, action,
			  int, site),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_integer(uint64_t, ino, ino)
		lttng_ust_field_enum(icache, list, uint8_t, list, list)
		lttng_ust_field_enum(icache, list_action, uint8_t, action, action)
		lttng_ust_field_enum(icache, site, uint8_t, site, site)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, inode_alloc,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, uint64_t, ino, uint32_t, sb,
			  uint32_t, nlink),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_integer(uint64_t, ino, ino)
		lttng_ust_field_integer(uint32_t, sb, sb)
		lttng_ust_field_integer(uint32_t, nlink, nlink)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, inode_free,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, uint64_t, ino, uint32_t, sb),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_integer(uint64_t, ino, ino)
		lttng_ust_field_integer(uint32_t, sb, sb)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, inode_nlink,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, uint64_t, ino, uint32_t, nlink),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_integer(uint64_t, ino, ino)
		lttng_ust_field_integer(uint32_t, nlink, nlink)
	)
)

/* ---- operations, scheduler, validator, run --------------------------- */

LTTNG_UST_TRACEPOINT_EVENT(icache, op_begin,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, int, op, uint64_t, ino),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_enum(icache, op, uint8_t, op, op)
		lttng_ust_field_integer(uint64_t, ino, ino)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, op_end,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, int, op, uint64_t, ino, int64_t, result),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_enum(icache, op, uint8_t, op, op)
		lttng_ust_field_integer(uint64_t, ino, ino)
		lttng_ust_field_integer(int64_t, result, result)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, sched_step,
	LTTNG_UST_TP_ARGS(uint64_t, step, uint16_t, cpu, const char *, what),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, step, step)
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_string(what, what)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, violation,
	LTTNG_UST_TP_ARGS(uint16_t, cpu, int, kind, int, cls_a, int, cls_b,
			  int, site_a, int, site_b, uint64_t, ino,
			  const char *, text),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cpu, cpu)
		lttng_ust_field_enum(icache, violation_kind, uint8_t, kind, kind)
		lttng_ust_field_enum(icache, lock_class, uint8_t, cls_a, cls_a)
		lttng_ust_field_enum(icache, lock_class, uint8_t, cls_b, cls_b)
		lttng_ust_field_enum(icache, site, uint8_t, site_a, site_a)
		lttng_ust_field_enum(icache, site, uint8_t, site_b, site_b)
		lttng_ust_field_integer(uint64_t, ino, ino)
		lttng_ust_field_string(text, text)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, run_begin,
	LTTNG_UST_TP_ARGS(const char *, scheme, const char *, workload,
			  uint16_t, cpus, uint64_t, seed, const char *, order),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(scheme, scheme)
		lttng_ust_field_string(workload, workload)
		lttng_ust_field_integer(uint16_t, cpus, cpus)
		lttng_ust_field_integer(uint64_t, seed, seed)
		lttng_ust_field_string(order, order)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(icache, run_end,
	LTTNG_UST_TP_ARGS(uint64_t, ops, uint32_t, violations),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, ops, ops)
		lttng_ust_field_integer(uint32_t, violations, violations)
	)
)

#endif /* ICACHE_TP_H */

#include <lttng/tracepoint-event.h>
