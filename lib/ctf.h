/*
 * ctf.h - reading CTF trace directories with libbabeltrace2.
 *
 * The graph icache-sim record (to count what reached the disk) and
 * icache-view (to index) both build:
 *
 *   src.ctf.fs (one per directory holding a `metadata` file)
 *     -> flt.utils.muxer (one input port per stream; time order)
 *     -> a simple sink that is the caller's
 *
 * An LTTng session directory holds its traces a few levels down
 * (ust/uid/0/64-bit, or one per pid); the babeltrace2 CLI finds them by
 * itself, a library user must do it: ctf_dirs_scan().  Each directory gets
 * its own source component: one component refuses traces whose UUIDs
 * differ.
 */
#ifndef LIB_CTF_H
#define LIB_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

/* The trace directories under a root, and what they hold. */
struct ctf_dirs {
	char **dirs; /* malloc'd paths, in directory order */
	int n, cap;
	int nfiles;     /* regular files seen, metadata included */
	uint64_t bytes; /* sizes of the stream (non-metadata) files */
};

/* Every directory at most 8 levels under root with a regular `metadata`
 * file, root itself included; appends to s (zero it first). */
void ctf_dirs_scan(struct ctf_dirs *s, const char *root);
void ctf_dirs_free(struct ctf_dirs *s);

struct ctf_graph {
	bt_graph *graph;
	const bt_plugin *ctf, *utils;
	const bt_component_class_source *fs;
	const bt_component_filter *mux;
	int nsrc;
	uint64_t nports; /* muxer input ports in use: the streams */
	/* Only every nparts-th stream, from part (ctf_graph_set_part). */
	int part, nparts;
	uint64_t nseen; /* streams offered by the sources so far */
};

/* Which step failed; ctf_take_error() then tells babeltrace2's reason. */
enum ctf_status {
	CTF_OK,
	CTF_NO_PLUGINS, /* the ctf and utils plugins cannot be loaded */
	CTF_NO_CLASSES, /* they lack src.ctf.fs or flt.utils.muxer, or no graph */
	CTF_MUXER,      /* the muxer cannot be created */
	CTF_SOURCE,     /* src.ctf.fs refused the directory */
	CTF_CONNECT,    /* a port could not be connected */
	CTF_NO_STREAM,  /* no source had any stream */
	CTF_SINK,       /* the sink cannot be created */
};

/* Clear a pending babeltrace2 error (libbabeltrace2 aborts on any call
 * made with one pending), load the plugins, make the graph and muxer. */
enum ctf_status ctf_graph_init(struct ctf_graph *g);
/* From now on connect only streams part, part + nparts, ... (counted
 * over every source, in port order): a graph for one share of a trace.
 * The other streams' ports stay unconnected, and are never read. */
void ctf_graph_set_part(struct ctf_graph *g, int part, int nparts);
/* A src.ctf.fs for dir, every one of its streams into the muxer. */
enum ctf_status ctf_graph_add_trace(struct ctf_graph *g, const char *dir);
/* The muxer into a simple sink calling consume(iterator, user). */
enum ctf_status ctf_graph_add_sink(struct ctf_graph *g, const char *name,
				   bt_graph_simple_sink_component_consume_func consume, void *user);
/*
 * A sink's status for what bt_message_iterator_next() returned, when that
 * was not OK: END, AGAIN, MEMORY_ERROR or ERROR as the iterator said.
 */
bt_graph_simple_sink_component_consume_func_status
ctf_sink_status(bt_message_iterator_next_status st);
/*
 * A sink's consume step: the next batch of messages from it, each given to
 * fn (which borrows it) and then put.  OK, or ctf_sink_status() of what
 * the iterator said (END at the end of the trace).  fn returns true to
 * stop: the rest of the batch is still given to it, then END is returned
 * so the graph ends cleanly.
 */
bt_graph_simple_sink_component_consume_func_status
ctf_sink_each(bt_message_iterator *it, bool (*fn)(const bt_message *msg, void *user), void *user);

/* What a discarded-events or discarded-packets message says. */
struct ctf_discard {
	bool packets;            /* packets were lost, else events */
	uint64_t count;          /* 0 where the tracer did not say */
	const bt_stream *stream; /* borrowed from the message */
	int64_t begin, end;      /* the loss window, ns from origin; INT64_MIN unknown */
};
/* Fill d from msg; false (d untouched) if msg is of neither type. */
bool ctf_discard_read(const bt_message *msg, struct ctf_discard *d);

/* Drop the graph and the plugins (safe on a half-built graph). */
void ctf_graph_fini(struct ctf_graph *g);

/*
 * The innermost cause of this thread's babeltrace2 error, on one line
 * (newlines and tabs become spaces; "" if there is none), and whether any
 * cause speaks of the metadata (metadata may be NULL).  Takes the error.
 */
void ctf_take_error(char *buf, size_t len, bool *metadata);

#endif /* LIB_CTF_H */
