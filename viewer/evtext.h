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

#endif /* VIEWER_EVTEXT_H */
