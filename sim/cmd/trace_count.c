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

static bool count_message(const bt_message *msg, void *user)
{
	struct reader *r = user;
	struct ctf_discard d;

	if (bt_message_get_type(msg) == BT_MESSAGE_TYPE_EVENT) {
		r->counts.events++;
		if (r->fn && !r->stopped)
			r->stopped = r->fn(msg, r->user);
	} else if (ctf_discard_read(msg, &d)) {
		r->counts.discard_msgs++;
		if (d.packets)
			r->counts.discarded_packets += d.count;
		else
			r->counts.discarded_events += d.count;
	}
	/* A callback asked to stop: END the graph cleanly, we keep counts. */
	return r->stopped != 0;
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
								  void *user)
{
	return ctf_sink_each(it, count_message, user);
}

/* "DIR: WHAT: babeltrace2's reason", on one line. */
static void take_error(char *err, size_t errlen, const char *dir, const char *what)
{
	char why[400];

	ctf_take_error(why, sizeof(why), NULL);
	snprintf(err, errlen, "%s: %s%s%s", dir, what, why[0] ? ": " : "", why);
}

/* What a failing step of lib/ctf.h means to the reader of a trace. */
static const char *what_failed(enum ctf_status st)
{
	switch (st) {
	case CTF_SOURCE:
		return "not a readable CTF trace";
	case CTF_CONNECT:
	case CTF_NO_STREAM:
		return "the trace has no stream";
	default: /* CTF_MUXER, CTF_SINK */
		return "cannot build the reading graph";
	}
}

static int build_graph(struct ctf_graph *g, const char *dir, struct reader *r, char *err,
		       size_t errlen)
{
	struct ctf_dirs d = { 0 };
	enum ctf_status st = ctf_graph_init(g);

	if (st == CTF_NO_PLUGINS || st == CTF_NO_CLASSES) {
		snprintf(err, errlen, "%s: babeltrace2's ctf and utils plugins are not installed",
			 dir);
		return -1;
	}
	if (st == CTF_OK) {
		ctf_dirs_scan(&d, dir);
		if (d.n == 0) {
			snprintf(err, errlen, "%s: no CTF trace in there (no metadata file)", dir);
			ctf_dirs_free(&d);
			return -1;
		}
	}
	for (int i = 0; i < d.n && st == CTF_OK; i++)
		st = ctf_graph_add_trace(g, d.dirs[i]);
	ctf_dirs_free(&d);
	if (st == CTF_OK)
		st = ctf_graph_add_sink(g, "count", consume, r);
	if (st != CTF_OK) {
		take_error(err, errlen, dir, what_failed(st));
		return -1;
	}
	return 0;
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
