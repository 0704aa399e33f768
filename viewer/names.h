/*
 * names.h - the viewer's vocabulary: event types and the label lists of
 * tracepoints/icache_names.h turned into strings.
 *
 * The trace records enum values as numbers; these tables give them their
 * names back.  A value beyond a list prints as "cls#12" and so on, so a
 * trace from a newer simulator still reads.
 */
#ifndef VIEWER_NAMES_H
#define VIEWER_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracepoints/icache_events.h"

/* One entry per row of the event table (tracepoints/icache_events.h), in
 * its order, plus the two kinds of loss babeltrace2 reports as messages. */
#define IX_EV_ROW_(name, sched, text) EV_##name,
enum ix_type { ICACHE_EVENTS(IX_EV_ROW_) EV_discarded_events, EV_discarded_packets, EV__COUNT };
#undef IX_EV_ROW_

/* The five lock events open the table: acquire .. trylock. */
static inline bool ev_is_lock(int type)
{
	return type >= EV_lock_acquire && type <= EV_lock_trylock;
}

/*
 * What each event carries, from the event table: its fields in trace order
 * and where the index keeps each one in struct ix_event (index.h).  The
 * decoder reads events with it and event_text() prints any event from it.
 */
#define IX_MAX_FIELDS 12

enum ix_slot {
	SL_CPU,
	SL_A,
	SL_B,
	SL_SITE,
	SL_OBJ,
	SL_VAL,
	SL_HI,
	SL_LO,
	SL_STRID,
	SL_RAW,
	SL_SRC,
	SL_LINE,
	SL_LIFE,
	SL_SIDE
};

struct ix_field {
	const char *name;
	const char *type; /* C type, or the enum list's name (lock_class, site, ...) */
	bool str;
	enum ix_slot slot;
};

struct ix_schema {
	const char *name; /* the event name without "icache:" */
	const char *text; /* the table's text word */
	struct ix_field fields[IX_MAX_FIELDS];
};

extern const struct ix_schema ix_schemas[EV__COUNT];

/* One rule of a scheme's documented lock order (an order_rule event). */
struct order_rule {
	uint8_t outer, inner;
};

/* Simulated CPU field value meaning "no CPU" (the main thread). */
#define IX_NO_CPU 0xffffu

/* Names; never NULL (an out-of-range value gets a "kind#N" name). */
const char *ev_type_name(int type);
const char *lock_class_label(int cls);
const char *site_label(int site);
const char *list_label(int list);
const char *list_action_label(int act);
const char *op_label(int op);
const char *src_file_label(int src);
const char *violation_label(int kind);

/* Number of entries of each list (for tables and lookups). */
int nr_lock_class_labels(void);
int nr_site_labels(void);
int nr_list_labels(void);
int nr_op_labels(void);
int nr_violation_labels(void);

/* Name -> value, or -1.  Case-sensitive, exact. */
int ev_type_by_name(const char *s);
int lock_class_by_name(const char *s);
int site_by_name(const char *s);
int state_flag_by_name(const char *s); /* "I_FREEING" or "FREEING": bit */

/* "I_NEW|I_REFERENCED" (or "0"); short=1 drops the "I_" prefixes. */
char *state_flags_str(uint32_t flags, int brief, char *buf, size_t len);

/* The bit of I_WILL_FREE / I_FREEING, looked up from the list once. */
uint32_t flag_will_free(void);
uint32_t flag_freeing(void);
uint32_t flag_new(void);

#endif
