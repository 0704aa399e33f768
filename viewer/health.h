/*
 * health.h - is this trace complete, and if not, what is missing and where.
 *
 * The viewer must never show a partial trace as a whole story.  Before
 * babeltrace2 reads anything, the stream files are checked against their
 * packet framing and LTTng's index files (a stream cut mid-packet, cut at
 * a packet boundary, or deleted).  A stream cut mid-packet is read from a
 * temporary copy holding its whole packets, so the events before the cut
 * still show.  While loading, index.c notes per stream its events, loss
 * windows and where it ends.  At the end, health_finish() turns all of it
 * into ix->reasons: one sentence each, in the user's terms.
 */
#ifndef VIEWER_HEALTH_H
#define VIEWER_HEALTH_H

#include <stddef.h>

#include "viewer/index.h"

/* Check the stream files of dirs[0..ndirs); a dir with a cut stream is
 * replaced (in dirs) by a temporary copy.  0, or -1 and err. */
int health_scan(struct trace_index *ix, char **dirs, int ndirs, char *err, size_t len);
/* The stream babeltrace2 calls bt_name (a file path); created if new. */
int health_stream(struct trace_index *ix, const char *bt_name);
/* Fill ix->reasons from what the load saw; unmatched: lock releases
 * without an acquire outside loss windows (the replay counts them). */
void health_finish(struct trace_index *ix, uint64_t unmatched);
/* One reason (printf-like). */
void health_reason(struct trace_index *ix, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "run 1: merged/mixed, 2 CPUs, pid 4242, +0.000..+0.812 s; run 2: ..." */
void health_runs_text(const struct trace_index *ix, char *buf, size_t len);
/* How many runs/processes the trace holds (the larger of the two). */
unsigned health_nstories(const struct trace_index *ix);
/* Free the stream table and reasons; remove the temporary copy. */
void health_free(struct trace_index *ix);

#endif
