/*
 * trace_count.c - count (and optionally walk) the events of a CTF trace with
 * libbabeltrace2: the graph of lib/ctf.h, ending in a sink of ours.
 *
 * The sink counts event messages and adds up discarded-events and
 * discarded-packets messages, which is the only trustworthy loss figure in
 * LTTng 2.13 (see trace_count.h).
 */
#include <stdio.h>

#include "lib/ctf.h"
#include "sim/cmd/trace_count.h"

struct reader {
	trace_event_fn fn;
	void *user;
	struct trace_counts counts;
	int stopped; /* what fn returned to stop, 0 otherwise */
};

static void count_message(const bt_message *msg, void *user)
{
	struct reader *r = user;
	uint64_t n;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		r->counts.events++;
		if (r->fn && !r->stopped)
			r->stopped = r->fn(msg, r->user);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		r->counts.discard_msgs++;
		if (bt_message_discarded_events_get_count(msg, &n) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			r->counts.discarded_events += n;
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		r->counts.discard_msgs++;
		if (bt_message_discarded_packets_get_count(msg, &n) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			r->counts.discarded_packets += n;
		break;
	default:
		break;
	}
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
								  void *user)
{
	struct reader *r = user;
	bt_graph_simple_sink_component_consume_func_status st = ctf_sink_each(it, count_message, r);

	if (st != BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK)
		return st;
	/* A callback asked to stop: END the graph cleanly, we keep counts. */
	if (r->stopped)
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* "DIR: WHAT: babeltrace2's reason", on one line. */
static void take_error(char *err, size_t errlen, const char *dir, const char *what)
{
	char why[400];

	ctf_take_error(why, sizeof(why), NULL);
	snprintf(err, errlen, "%s: %s%s%s", dir, what, why[0] ? ": " : "", why);
}

static int build_graph(struct ctf_graph *g, const char *dir, struct reader *r, char *err,
		       size_t errlen)
{
	struct ctf_dirs d = { 0 };
	enum ctf_status st = ctf_graph_init(g);
	int ret = -1;

	if (st == CTF_NO_PLUGINS || st == CTF_NO_CLASSES) {
		snprintf(err, errlen, "%s: babeltrace2's ctf and utils plugins are not installed",
			 dir);
		return -1;
	}
	if (st != CTF_OK) {
		take_error(err, errlen, dir, "cannot build the reading graph");
		return -1;
	}
	ctf_dirs_scan(&d, dir);
	if (d.n == 0) {
		snprintf(err, errlen, "%s: no CTF trace in there (no metadata file)", dir);
		goto out;
	}
	for (int i = 0; i < d.n; i++) {
		st = ctf_graph_add_trace(g, d.dirs[i]);
		if (st == CTF_SOURCE) {
			take_error(err, errlen, dir, "not a readable CTF trace");
			goto out;
		}
		if (st != CTF_OK) {
			take_error(err, errlen, dir, "the trace has no stream");
			goto out;
		}
	}
	st = ctf_graph_add_sink(g, "count", consume, r);
	if (st == CTF_SINK) {
		take_error(err, errlen, dir, "cannot build the reading graph");
		goto out;
	}
	if (st != CTF_OK) {
		take_error(err, errlen, dir, "the trace has no stream");
		goto out;
	}
	ret = 0;
out:
	ctf_dirs_free(&d);
	return ret;
}

int trace_read(const char *dir, trace_event_fn fn, void *user, struct trace_counts *out, char *err,
	       size_t errlen)
{
	struct reader r = { .fn = fn, .user = user };
	struct ctf_graph g;
	int ret = -1;

	if (build_graph(&g, dir, &r, err, errlen))
		goto out;
	for (;;) {
		bt_graph_run_status st = bt_graph_run(g.graph);
		if (st == BT_GRAPH_RUN_STATUS_OK)
			break;
		if (st != BT_GRAPH_RUN_STATUS_AGAIN) {
			take_error(err, errlen, dir, "reading failed");
			goto out;
		}
	}
	ret = r.stopped;
out:
	ctf_graph_fini(&g);
	if (out)
		*out = r.counts;
	return ret;
}
