/*
 * trace_count.c - count (and optionally walk) the events of a CTF trace with
 * libbabeltrace2: src.ctf.fs -> flt.utils.muxer -> a simple sink.
 *
 * The sink counts event messages and adds up discarded-events and
 * discarded-packets messages, which is the only trustworthy loss figure in
 * LTTng 2.13 (see trace_count.h).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/cmd/trace_count.h"

struct reader {
	trace_event_fn fn;
	void *user;
	struct trace_counts counts;
	int stopped; /* what fn returned to stop, 0 otherwise */
};

static void count_message(struct reader *r, const bt_message *msg)
{
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
	bt_message_array_const msgs;
	uint64_t count;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		count_message(r, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	/* A callback asked to stop: END the graph cleanly, we keep counts. */
	if (r->stopped)
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* The deepest cause of the current thread's error, as one line. */
static void take_error(char *err, size_t errlen, const char *dir, const char *what)
{
	const bt_error *e = bt_current_thread_take_error();
	const char *why = NULL;

	if (e && bt_error_get_cause_count(e) > 0) {
		/* Cause 0 is the innermost: "does not contain a metadata file". */
		why = bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0));
	}
	snprintf(err, errlen, "%s: %s%s%s", dir, what, why ? ": " : "", why ? why : "");
	char *nl = strchr(err, '\n');
	if (nl)
		*nl = 0;
	if (e)
		bt_error_release(e);
}

static const bt_plugin *find_plugin(const char *name)
{
	const bt_plugin *p = NULL;

	if (bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &p) !=
	    BT_PLUGIN_FIND_STATUS_OK)
		return NULL;
	return p;
}

/*
 * src.ctf.fs wants the directories that hold a "metadata" file; an LTTng
 * session directory has them a few levels down (ust/uid/0/64-bit, or one
 * per pid), which the babeltrace2 CLI finds by itself and we must find
 * ourselves.  Each one becomes its own source component: one component
 * refuses several traces whose UUIDs differ.
 */
static int add_sources(bt_graph *g, const bt_component_class_source *cls, const char *dir,
		       int depth, int *nsrc, const bt_component_source **srcs, int max)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		bt_value *params = bt_value_map_create();
		bt_value *inputs = bt_value_array_create();
		char name[32];
		int ret = -1;

		snprintf(name, sizeof(name), "src%d", *nsrc);
		if (*nsrc < max && params && inputs &&
		    !bt_value_array_append_string_element(inputs, dir) &&
		    !bt_value_map_insert_entry(params, "inputs", inputs) &&
		    !bt_graph_add_source_component(g, cls, name, params, BT_LOGGING_LEVEL_NONE,
						   &srcs[*nsrc])) {
			(*nsrc)++;
			ret = 0;
		}
		bt_value_put_ref(inputs);
		bt_value_put_ref(params);
		return ret;
	}
	DIR *d = depth < 8 ? opendir(dir) : NULL;
	if (!d)
		return 0;
	struct dirent *e;
	int ret = 0;
	while (ret == 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			ret = add_sources(g, cls, path, depth + 1, nsrc, srcs, max);
	}
	closedir(d);
	return ret;
}

/* Every output port of every source into a fresh input port of the muxer. */
static int connect_all(bt_graph *g, const bt_component_source *const *srcs, int nsrc,
		       const bt_component_filter *mux, const bt_component_sink *sink)
{
	uint64_t k = 0;

	for (int s = 0; s < nsrc; s++) {
		uint64_t n = bt_component_source_get_output_port_count(srcs[s]);
		for (uint64_t i = 0; i < n; i++, k++) {
			const bt_port_output *out =
				bt_component_source_borrow_output_port_by_index_const(srcs[s], i);
			const bt_port_input *in =
				bt_component_filter_borrow_input_port_by_index_const(mux, k);
			if (!in || bt_graph_connect_ports(g, out, in, NULL))
				return -1;
		}
	}
	if (k == 0)
		return -1;
	return bt_graph_connect_ports(
		       g, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
		       bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL) ?
		       -1 :
		       0;
}

#define MAX_TRACES 64

static int build_graph(bt_graph *g, const char *dir, struct reader *r, char *err, size_t errlen)
{
	const bt_plugin *ctf = find_plugin("ctf");
	const bt_plugin *utils = find_plugin("utils");
	const bt_component_source *srcs[MAX_TRACES];
	const bt_component_filter *mux = NULL;
	const bt_component_sink *sink = NULL;
	int nsrc = 0, ret = -1;

	if (!ctf || !utils) {
		snprintf(err, errlen, "%s: babeltrace2's ctf and utils plugins are not installed",
			 dir);
		goto out;
	}
	if (add_sources(g, bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs"), dir, 0,
			&nsrc, srcs, MAX_TRACES)) {
		take_error(err, errlen, dir, "not a readable CTF trace");
		goto out;
	}
	if (nsrc == 0) {
		snprintf(err, errlen, "%s: no CTF trace in there (no metadata file)", dir);
		goto out;
	}
	if (bt_graph_add_filter_component(
		    g, bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"), "mux",
		    NULL, BT_LOGGING_LEVEL_NONE, &mux) ||
	    bt_graph_add_simple_sink_component(g, "count", NULL, consume, NULL, r, &sink)) {
		take_error(err, errlen, dir, "cannot build the reading graph");
		goto out;
	}
	if (connect_all(g, srcs, nsrc, mux, sink)) {
		take_error(err, errlen, dir, "the trace has no stream");
		goto out;
	}
	ret = 0;
out:
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return ret;
}

int trace_read(const char *dir, trace_event_fn fn, void *user, struct trace_counts *out, char *err,
	       size_t errlen)
{
	struct reader r = { .fn = fn, .user = user };
	bt_graph *g = bt_graph_create(0);
	int ret = -1;

	if (!g) {
		snprintf(err, errlen, "%s: out of memory", dir);
		return -1;
	}
	if (build_graph(g, dir, &r, err, errlen))
		goto out;
	for (;;) {
		bt_graph_run_status st = bt_graph_run(g);
		if (st == BT_GRAPH_RUN_STATUS_OK)
			break;
		if (st != BT_GRAPH_RUN_STATUS_AGAIN) {
			take_error(err, errlen, dir, "reading failed");
			goto out;
		}
	}
	ret = r.stopped;
out:
	bt_graph_put_ref(g);
	if (out)
		*out = r.counts;
	return ret;
}
