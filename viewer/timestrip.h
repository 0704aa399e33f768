/*
 * timestrip.h - the figures of the timeline strip: contentions and wait
 * time per lock class per time bucket, over the whole trace.
 *
 * They are folded from the index once, into a fixed number of time
 * buckets whose width doubles (merging pairs) whenever the trace is
 * longer than they cover, so a frame never re-reads the trace and a trace
 * still loading is folded as it grows.  A finished load folds them all
 * and the index cache keeps them (trace_index.strip), so that a reopened
 * trace's first screen does not fold every event again.  The pane that
 * draws them is pane_timeline.c.
 */
#ifndef VIEWER_TIMESTRIP_H
#define VIEWER_TIMESTRIP_H

#include <stdint.h>

#include "viewer/index.h"
#include "viewer/model.h"

#define TB_N 512 /* buckets */

struct time_buckets {
	uint64_t done;     /* events [0, done) are folded in */
	int64_t t0, width; /* bucket k: [t0 + k * width, t0 + (k + 1) * width) */
	uint32_t cont[MODEL_MAX_CLASSES][TB_N]; /* contentions */
	uint64_t wait[MODEL_MAX_CLASSES][TB_N]; /* ns waited, at the acquire */
	uint64_t total[MODEL_MAX_CLASSES];      /* contentions in all */
	uint8_t lost[TB_N];                     /* a loss window touches it */
	int cols;                               /* strip width, last frame */
};

/* Fold events [tb->done, end) of ix into tb; start again (from zero) if
 * end is before what was folded, or tb is all zero. */
void strip_fold(struct time_buckets *tb, const struct trace_index *ix, uint64_t end);

#endif
