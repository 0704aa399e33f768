/*
 * moment.h - "release i_lock in iput_final on cpu0": naming a point of a
 * trace in words.
 *
 * A lesson step shows the machine at one moment of its scenario's trace,
 * and a "you are the scheduler" goal is a moment the student must make
 * happen.  A moment is
 *
 *   start | end | step N | event N | SELECTOR
 *
 * where SELECTOR is the event grammar shared with the scenario files'
 * schedule lines (lib/selector.h, lessons/README.md): "second
 * trylock-failed i_lock inode 42 in find_inode_fast on cpu0".  A trace
 * has no "wake" or "blocked" event, and "sb N" is not needed in it.
 *
 * Parsing needs only the names; matching works on the viewer's decoded
 * events (viewer/index.h), one at a time, so it costs no trace library.
 */
#ifndef LESSON_MOMENT_H
#define LESSON_MOMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "viewer/index.h"

enum moment_kind { M_START, M_END, M_STEP, M_EVENT, M_SELECT };

struct moment {
	enum moment_kind kind;
	uint64_t number; /* step N / event N */
	/* M_SELECT */
	int type;         /* EV_* */
	uint32_t classes; /* bit per lock class, 0 any */
	int site;         /* -1 any */
	int cpu;          /* -1 any */
	bool has_ino;
	uint64_t ino;
	unsigned flags; /* set / clear: these i_state bits */
	bool flag_set;
	int list, action; /* add / del / move / rotate */
	int op;           /* begin / end, -1 any */
	int viol;         /* violation kind, -1 any */
	int trylock_ok;   /* -1 any, 0 failed, 1 succeeded */
	bool has_count;   /* ref N / nlink N */
	int64_t count;
	bool has_after; /* after step N */
	uint64_t after_step;
	int nth; /* 1-based; -1 = last */
};

/* Parse text; on error false and a message (without FILE:LINE) in err. */
bool moment_parse(const char *text, struct moment *m, char *err, size_t len);

/*
 * Does event e (obj_value = the inode number or lock instance its obj id
 * stands for) match the selector, leaving aside nth and "after"?  Those
 * two depend on the events before: moment_find handles them.
 */
bool moment_match_event(const struct moment *m, const struct ix_event *e, uint64_t obj_value);

/*
 * The event a moment names in a sequence of events: its index, or -1 if
 * it never comes.  value_of turns an event's obj id into its value.
 * For start the result is 0 and for end it is n (one past the last).
 */
int64_t moment_find(const struct moment *m, const struct ix_event *ev, uint64_t n,
		    uint64_t (*value_of)(const void *ctx, uint32_t id), const void *ctx);

#endif
