/*
 * trace.h - a lesson's trace: the viewer's index of one recorded play.
 *
 * The lesson tool reads traces only through the viewer's library
 * (viewer/index.h, viewer/model.h); this is the thin layer that plays a
 * scenario, loads what it recorded and finds moments in it.
 */
#ifndef LESSON_TRACE_H
#define LESSON_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "lessons/src/moment.h"
#include "lessons/src/simexec.h"
#include "viewer/timeline.h"

struct lesson_trace {
	struct play_result play;
	struct trace_index *ix;
	bool shipped; /* a pre-recorded trace, not a fresh recording */
	char err[512];
};

/* Play scn with -o into a fresh directory and load it.  false: t->err
 * says what failed (play's exit status 2, or the trace did not load); a
 * scenario whose expectations fail (exit 1) still loads. */
bool lt_play(const char *scn, struct lesson_trace *t);
/*
 * Without an LTTng session daemon (the recording fails for a reason that
 * is not the scenario's),
 * lt_play loads the pre-recorded trace of the scenario instead: `make
 * traces` records one per lesson scenario into TRACES/NAME (NAME: the
 * file name without .scn), where TRACES is $ICACHE_TRACES, else
 * ../traces or ../share/icache-lab/traces beside this program.
 */
bool lt_shipped(const char *scn, struct lesson_trace *t);
/*
 * A student's own run (a scheduler level's presses, an edited scenario):
 * recorded through LTTng if a session daemon answers, else written
 * directly by play (`--ctf-direct=auto`, sim/core/ctf_writer.h), so it
 * needs no daemon; if the daemon answers but the recording fails, once
 * more written directly (`--ctf-direct`).  Never a shipped trace, which
 * has no such run.
 */
bool lt_play_live(const char *scn, struct lesson_trace *t);
void lt_free(struct lesson_trace *t);

/* The event index a moment names, -1 if it never comes. */
int64_t lt_find(const struct lesson_trace *t, const struct moment *m);
/* The value an event's obj id stands for. */
uint64_t lt_obj(const struct lesson_trace *t, const struct ix_event *e);

#endif
