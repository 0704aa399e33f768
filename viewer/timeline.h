/*
 * timeline.h - loading a trace and moving through it.
 *
 * The layers, each depending only on those before it:
 *   index (index.c, health.c)  decodes the CTF trace into events and side
 *                              tables, and says what is missing from it;
 *   model (model.c, omap.c)    the state one event implies, one step at a
 *                              time (model_apply);
 *   timeline (timeline.c)      replays the events into a model while they
 *                              are decoded (the consistency check, the
 *                              order of same-time events), leaves
 *                              checkpoints, and seeks any position.
 * The viewer, reports and lessons load traces through this header.
 */
#ifndef VIEWER_TIMELINE_H
#define VIEWER_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "viewer/index.h"
#include "viewer/model.h"

/* Loading, in steps (a UI shows progress between them): ix_open checks
 * the path and builds the decoder (errors found here: missing/empty dir,
 * no metadata, damaged metadata); ix_step decodes and replays a little;
 * ix_finish checks what the whole trace said. */
struct trace_index *ix_open(const char *path, char *err, size_t errlen);
/* The same for one run or process (sel may be NULL); from the index
 * cache (cache.h) when it holds a valid index of the trace. */
struct trace_index *ix_open_sel(const char *path, const struct ix_select *sel, char *err,
				size_t errlen);
enum ix_status ix_step(struct trace_index *ix, int rounds, char *err, size_t errlen);
enum ix_status ix_finish(struct trace_index *ix, char *err, size_t errlen);
/* All of it at once; NULL and err on failure. */
struct trace_index *ix_load(const char *path, char *err, size_t errlen);
struct trace_index *ix_load_sel(const char *path, const struct ix_select *sel, char *err,
				size_t errlen);
void ix_free(struct trace_index *ix);

/* Give model m the trace's documented order (model_set_order). */
void ix_apply_order(const struct trace_index *ix, struct model *m);

/* State after events [0, pos): restore the nearest checkpoint at or
 * before pos and replay (or just replay forward from m if cheaper). */
void model_seek(struct model *m, const struct trace_index *ix, uint64_t pos);

#endif
