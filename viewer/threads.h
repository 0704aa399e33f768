/*
 * threads.h - who ran an event: simulated CPUs and the other threads,
 * named as run_begin names them (cpuN, flusher, setup, main).
 */
#ifndef VIEWER_THREADS_H
#define VIEWER_THREADS_H

#include "viewer/index.h"

/* The simulated CPUs the run declared (run_begin's cpus); the CPUs seen
 * when the trace has no run_begin. */
unsigned ix_sim_cpus(const struct trace_index *ix);
/* The name of the thread numbered cpu: "cpu0", "flusher", "main" ...
 * (a few rotating static buffers: two may share one printf). */
const char *thread_name(const struct trace_index *ix, unsigned cpu);
/* The thread that wrote event i: thread_name(), except that an event
 * with no simulated CPU is named by its writer (call_rcu for a grace
 * period's end, main for the rest: narration, reports). */
const char *event_thread(const struct trace_index *ix, uint64_t i);

#endif
