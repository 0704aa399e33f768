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
#define LTTNG_UST_TRACEPOINT_INCLUDE "tracepoints/icache_tp.h"

#if !defined(ICACHE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define ICACHE_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>
#include "tracepoints/icache_enums.h"
#include "tracepoints/icache_events.h"

/* One enum entry per name of a list in icache_names.h. */
#define ICACHE_TP_LC(n) lttng_ust_field_enum_value(#n, LC_##n)
#define ICACHE_TP_SITE(n) lttng_ust_field_enum_value(#n, SITE_##n)
#define ICACHE_TP_LIST(n) lttng_ust_field_enum_value(#n, LIST_##n)
#define ICACHE_TP_LACT(n) lttng_ust_field_enum_value(#n, LACT_##n)
#define ICACHE_TP_OP(n) lttng_ust_field_enum_value(#n, OP_##n)
#define ICACHE_TP_VIOL(n) lttng_ust_field_enum_value(#n, VIOL_##n)
#define ICACHE_TP_SRC(n) lttng_ust_field_enum_value(#n, SRC_##n)

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

LTTNG_UST_TRACEPOINT_ENUM(icache, src_file,
	LTTNG_UST_TP_ENUM_VALUES(
		ICACHE_SRC_FILES(ICACHE_TP_SRC)
	)
)

/*
 * The events, generated from the table in icache_events.h: each row
 * becomes one LTTNG_UST_TRACEPOINT_EVENT whose arguments and fields are
 * its field list.  (This header is read several times by
 * <lttng/tracepoint-event.h>, with the LTTng macros defined differently
 * each time, so the helpers are redefined on every pass.)
 */
#undef ICACHE_TP_ARG
#undef ICACHE_TP_FLD_INT
#undef ICACHE_TP_FLD_HEX
#undef ICACHE_TP_FLD_ENUM
#undef ICACHE_TP_FLD_STR
#undef ICACHE_TP_FLD
#undef ICACHE_TP_EVENT
#define ICACHE_TP_ARG(kind, type, name, slot) , ICACHE_CTYPE_##kind(type), name
#define ICACHE_TP_FLD_INT(t, n) lttng_ust_field_integer(t, n, n)
#define ICACHE_TP_FLD_HEX(t, n) lttng_ust_field_integer_hex(t, n, n)
#define ICACHE_TP_FLD_ENUM(e, n) lttng_ust_field_enum(icache, e, uint8_t, n, n)
#define ICACHE_TP_FLD_STR(t, n) lttng_ust_field_string(n, n)
#define ICACHE_TP_FLD(kind, type, name, slot) ICACHE_TP_FLD_##kind(type, name)
#define ICACHE_TP_EVENT(name, sched, text)                                 \
	LTTNG_UST_TRACEPOINT_EVENT(icache, name,                           \
		LTTNG_UST_TP_ARGS(ICACHE_LIST(ICACHE_FIELDS_##name, ICACHE_TP_ARG)), \
		LTTNG_UST_TP_FIELDS(ICACHE_FIELDS_##name(ICACHE_TP_FLD)))

ICACHE_EVENTS(ICACHE_TP_EVENT)

#endif /* ICACHE_TP_H */

#include <lttng/tracepoint-event.h>
