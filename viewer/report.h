/*
 * report.h - the non-interactive outputs: a summary (text or JSON, whose
 * figures can be compared with `icache-sim run --json`), the observed
 * lock-order graph as Graphviz DOT, and the bench figures.
 */
#ifndef VIEWER_REPORT_H
#define VIEWER_REPORT_H

#include <stdio.h>

#include "viewer/index.h"
#include "viewer/model.h"
#include "viewer/timeline.h"

/* m: the model at the end of the trace. */
void report_summary(FILE *f, const struct trace_index *ix, const struct model *m);
void report_json(FILE *f, const struct trace_index *ix, const struct model *m);
void report_dot(FILE *f, const struct trace_index *ix, const struct model *m);

/* "12.345678 ms" style, for relative times and durations. */
char *fmt_dur(int64_t ns, char *buf, size_t len);

/* Bench: index rate, bytes per event, jump times.  Returns 0 if the
 * trace loaded. */
int report_bench(FILE *f, const char *path);

#endif
