/*
 * evtext.h - an event as one line of text (see evtext.c).
 */
#ifndef VIEWER_EVTEXT_H
#define VIEWER_EVTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "viewer/index.h"

/* Event i of ix: brief for a lane ("HOLD i_lock 42"), else the details
 * line ("lock_acquired i_lock inst=42 at iput_final, waited 1.2 us"). */
void event_text(const struct trace_index *ix, uint64_t i, bool brief, char *buf, size_t len);

/* Field f (0, 1, ... in the event table's order) of event i: its name,
 * and its value as text in buf (empty for a field the index keeps in a
 * side table: a violation's, a run's); NULL past the last field. */
const char *event_field(const struct trace_index *ix, uint64_t i, int f, char *buf, size_t len);

/* A lock class as the lanes name it: inode_hash_lock -> hash (the last
 * four results stay valid). */
const char *lock_class_short(int cls);

#endif /* VIEWER_EVTEXT_H */
