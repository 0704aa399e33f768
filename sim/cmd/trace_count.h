/*
 * trace_count.h - read an LTTng trace back with libbabeltrace2.
 *
 * `icache-sim record` counts what really reached the disk, not what the
 * tracer claims: in LTTng 2.13 the session daemon's discard counters are
 * unreliable (per-PID stats leave with the app, per-UID ones can carry a
 * stray bit 63), while every packet a consumer writes carries the number of
 * events the tracer had to drop before it.  babeltrace2 turns those into
 * "discarded events" messages, which is what we add up here.
 *
 * The graph is the one the viewer uses: src.ctf.fs (every trace found under
 * the directory) -> flt.utils.muxer (one port per stream, merged in time
 * order) -> a simple sink that calls back for each event message.
 */
#ifndef SIM_TRACE_COUNT_H
#define SIM_TRACE_COUNT_H

#include <stddef.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

struct trace_counts {
	uint64_t events;
	uint64_t discarded_events; /* sum of the known counts */
	uint64_t discarded_packets;
	uint64_t discard_msgs; /* discarded-events/packets messages */
};

/*
 * Called for every event message, in timestamp order.  Return 0 to go on,
 * anything else to stop reading (trace_read then returns that value).
 */
typedef int (*trace_event_fn)(const bt_message *msg, void *user);

/*
 * Read every trace under dir.  Returns 0 on success, -1 if the trace cannot
 * be read (err gets one line saying why), or what fn returned to stop.
 */
int trace_read(const char *dir, trace_event_fn fn, void *user, struct trace_counts *out, char *err,
	       size_t errlen);

/* Any loss at all?  A discard message without a count still is one. */
static inline int trace_counts_lossy(const struct trace_counts *c)
{
	return c->discarded_events || c->discarded_packets || c->discard_msgs;
}

#endif /* SIM_TRACE_COUNT_H */
