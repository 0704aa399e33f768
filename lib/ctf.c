/*
 * ctf.c - finding CTF trace directories and building the reading graph
 * (see ctf.h).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/ctf.h"
#include "lib/xalloc.h"

/* Deeper than any LTTng layout; stops a symlink loop. */
#define CTF_MAX_DEPTH 8

static void scan_dir(struct ctf_dirs *s, const char *dir, int depth)
{
	DIR *d = depth <= CTF_MAX_DEPTH ? opendir(dir) : NULL;
	struct dirent *de;
	bool has_meta = false;
	uint64_t bytes = 0;
	char path[4096];

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			scan_dir(s, path, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			s->nfiles++;
			if (!strcmp(de->d_name, "metadata"))
				has_meta = true;
			else
				bytes += (uint64_t)st.st_size;
		}
	}
	closedir(d);
	if (has_meta) {
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 4;
			s->dirs = xreallocarray(s->dirs, (size_t)s->cap, sizeof(char *));
		}
		s->dirs[s->n++] = xstrdup(dir);
		s->bytes += bytes;
	}
}

void ctf_dirs_scan(struct ctf_dirs *s, const char *root)
{
	scan_dir(s, root, 0);
}

void ctf_dirs_free(struct ctf_dirs *s)
{
	free_strs(s->dirs, (size_t)s->n);
	free(s->dirs);
	memset(s, 0, sizeof(*s));
}

static const bt_plugin *find_plugin(const char *name)
{
	const bt_plugin *p = NULL;

	if (bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &p) !=
	    BT_PLUGIN_FIND_STATUS_OK)
		return NULL;
	return p;
}

enum ctf_status ctf_graph_init(struct ctf_graph *g)
{
	memset(g, 0, sizeof(*g));
	bt_current_thread_clear_error();
	g->ctf = find_plugin("ctf");
	g->utils = find_plugin("utils");
	if (!g->ctf || !g->utils)
		return CTF_NO_PLUGINS;
	g->fs = bt_plugin_borrow_source_component_class_by_name_const(g->ctf, "fs");
	const bt_component_class_filter *mux =
		bt_plugin_borrow_filter_component_class_by_name_const(g->utils, "muxer");
	g->graph = bt_graph_create(0);
	if (!g->fs || !mux || !g->graph)
		return CTF_NO_CLASSES;
	if (bt_graph_add_filter_component(g->graph, mux, "muxer", NULL, BT_LOGGING_LEVEL_NONE,
					  &g->mux) != BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		return CTF_MUXER;
	return CTF_OK;
}

enum ctf_status ctf_graph_add_trace(struct ctf_graph *g, const char *dir)
{
	const bt_component_source *src = NULL;
	bt_value *params = bt_value_map_create();
	bt_value *inputs = NULL;
	char name[32];

	if (!params || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, dir)) {
		bt_value_put_ref(params);
		return CTF_SOURCE;
	}
	snprintf(name, sizeof(name), "src%d", g->nsrc);
	bt_graph_add_component_status st = bt_graph_add_source_component(
		g->graph, g->fs, name, params, BT_LOGGING_LEVEL_NONE, &src);
	bt_value_put_ref(params);
	if (st != BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		return CTF_SOURCE;
	g->nsrc++;
	uint64_t np = bt_component_source_get_output_port_count(src);
	for (uint64_t p = 0; p < np; p++, g->nports++) {
		if (g->nparts > 1 && (int)(g->nseen++ % (uint64_t)g->nparts) != g->part) {
			g->nports--; /* (the loop counts it back) */
			continue;
		}
		const bt_port_output *op =
			bt_component_source_borrow_output_port_by_index_const(src, p);
		const bt_port_input *ip =
			bt_component_filter_borrow_input_port_by_index_const(g->mux, g->nports);
		if (!ip || bt_graph_connect_ports(g->graph, op, ip, NULL) !=
				   BT_GRAPH_CONNECT_PORTS_STATUS_OK)
			return CTF_CONNECT;
	}
	return CTF_OK;
}

void ctf_graph_set_part(struct ctf_graph *g, int part, int nparts)
{
	g->part = part;
	g->nparts = nparts;
	g->nseen = 0;
}

enum ctf_status ctf_graph_add_sink(struct ctf_graph *g, const char *name,
				   bt_graph_simple_sink_component_consume_func consume, void *user)
{
	const bt_component_sink *sink = NULL;

	if (g->nports == 0)
		return CTF_NO_STREAM;
	if (bt_graph_add_simple_sink_component(g->graph, name, NULL, consume, NULL, user, &sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		return CTF_SINK;
	const bt_port_output *mo = bt_component_filter_borrow_output_port_by_index_const(g->mux, 0);
	const bt_port_input *si = bt_component_sink_borrow_input_port_by_index_const(sink, 0);
	if (bt_graph_connect_ports(g->graph, mo, si, NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		return CTF_CONNECT;
	return CTF_OK;
}

bt_graph_simple_sink_component_consume_func_status
ctf_sink_status(bt_message_iterator_next_status st)
{
	switch (st) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
}

bt_graph_simple_sink_component_consume_func_status
ctf_sink_each(bt_message_iterator *it, bool (*fn)(const bt_message *msg, void *user), void *user)
{
	bt_message_array_const msgs;
	uint64_t n;
	bool stop = false;
	bt_message_iterator_next_status st = bt_message_iterator_next(it, &msgs, &n);
	if (st != BT_MESSAGE_ITERATOR_NEXT_STATUS_OK)
		return ctf_sink_status(st);
	for (uint64_t i = 0; i < n; i++) {
		stop |= fn(msgs[i], user);
		bt_message_put_ref(msgs[i]);
	}
	return stop ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END :
		      BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/*
 * babeltrace2 has one set of accessors for each kind of loss, alike but
 * for their names: one table row per kind, and one reader.
 */
static const struct discard_api {
	bt_property_availability (*count)(const bt_message *msg, uint64_t *count);
	const bt_stream *(*stream)(const bt_message *msg);
	bt_bool (*has_clock)(const bt_stream_class *sc);
	const bt_clock_snapshot *(*begin)(const bt_message *msg);
	const bt_clock_snapshot *(*end)(const bt_message *msg);
} discard_api[2] = {
	[false] = { bt_message_discarded_events_get_count,
		    bt_message_discarded_events_borrow_stream_const,
		    bt_stream_class_discarded_events_have_default_clock_snapshots,
		    bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const,
		    bt_message_discarded_events_borrow_end_default_clock_snapshot_const },
	[true] = { bt_message_discarded_packets_get_count,
		   bt_message_discarded_packets_borrow_stream_const,
		   bt_stream_class_discarded_packets_have_default_clock_snapshots,
		   bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const,
		   bt_message_discarded_packets_borrow_end_default_clock_snapshot_const },
};

bool ctf_discard_read(const bt_message *msg, struct ctf_discard *d)
{
	bt_message_type type = bt_message_get_type(msg);
	if (type != BT_MESSAGE_TYPE_DISCARDED_EVENTS && type != BT_MESSAGE_TYPE_DISCARDED_PACKETS)
		return false;
	d->packets = type == BT_MESSAGE_TYPE_DISCARDED_PACKETS;
	const struct discard_api *api = &discard_api[d->packets];
	if (api->count(msg, &d->count) != BT_PROPERTY_AVAILABILITY_AVAILABLE)
		d->count = 0;
	d->stream = api->stream(msg);
	d->begin = d->end = INT64_MIN;
	if (api->has_clock(bt_stream_borrow_class_const(d->stream))) {
		bt_clock_snapshot_get_ns_from_origin(api->begin(msg), &d->begin);
		bt_clock_snapshot_get_ns_from_origin(api->end(msg), &d->end);
	}
	return true;
}

void ctf_graph_fini(struct ctf_graph *g)
{
	bt_graph_put_ref(g->graph);
	bt_plugin_put_ref(g->ctf);
	bt_plugin_put_ref(g->utils);
	memset(g, 0, sizeof(*g));
}

/* babeltrace2's messages end in its internals ("...: msg-it-addr=0x55...,
 * stream-class-id=0"): keep the words before them. */
static void drop_internals(char *msg)
{
	char *hex = strstr(msg, "=0x");
	if (!hex)
		return;
	*hex = 0;
	char *colon = strrchr(msg, ':');
	if (colon)
		*colon = 0;
	else
		*hex = '=';
}

void ctf_take_error(char *buf, size_t len, bool *metadata)
{
	const bt_error *err = bt_current_thread_take_error();
	const char *best = NULL;
	bool meta = false;

	if (len)
		buf[0] = 0;
	if (err) {
		uint64_t n = bt_error_get_cause_count(err);
		for (uint64_t i = 0; i < n; i++) {
			const char *msg =
				bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, i));
			if (!msg)
				continue;
			if (strstr(msg, "metadata") || strstr(msg, "Metadata") ||
			    strstr(msg, "TSDL"))
				meta = true;
			if (!best)
				best = msg; /* cause 0 is the innermost */
		}
	}
	if (best && len) {
		size_t o = 0;
		for (const char *p = best; *p && o + 1 < len; p++)
			buf[o++] = (*p == '\n' || *p == '\t') ? ' ' : *p;
		buf[o] = 0;
		drop_internals(buf);
	}
	if (err)
		bt_error_release(err);
	if (metadata)
		*metadata = meta;
}
