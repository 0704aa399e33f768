/*
 * decode.h - inside the index's decoder (index.c, pdecode.c only).
 *
 * What babeltrace2 delivers is first described as a struct ix_raw (no
 * babeltrace2 object in it), then applied to the index.  The serial
 * loader does both in one process; the parallel one (pdecode.c) has
 * decoder processes describe their share of the streams, sends the
 * descriptions over pipes, and applies them here, merged by time, with
 * the very same functions: the index comes out the same either way.
 */
#ifndef VIEWER_DECODE_H
#define VIEWER_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "viewer/index.h"

enum ix_raw_kind {
	RAW_EVENT,      /* an icache event */
	RAW_OTHER,      /* an event of another provider: name */
	RAW_DISCARD,    /* discarded events (packets: packets) */
	RAW_PACKET_END, /* a packet of stream ended at ts */
	RAW_STREAM_END, /* stream ended (its message has no time) */
	RAW_CLASS,      /* the metadata declares event class name */
	RAW_STREAM,     /* (pipes only) stream is the stream file name */
	RAW_END,        /* (pipes only) the decoder is done */
	RAW_ERROR,      /* (pipes only) the decoder failed: name is why */
};

struct ix_raw {
	uint8_t kind;
	uint8_t core;       /* RAW_EVENT: the packet's cpu_id, 255 none */
	bool packets;       /* RAW_DISCARD: packets rather than events */
	int type, nf;       /* RAW_EVENT: the event's EV_ type, fields */
	uint32_t absent;    /* bit f: optional field f not in this trace */
	uint32_t is_class;  /* bit f: field f is a lock class */
	int stream;         /* in ix->streams, -1 unknown */
	int64_t ts;         /* ns; INT64_MIN none (RAW_EVENT: keep the last) */
	int64_t te;         /* RAW_DISCARD: end, INT64_MIN unknown */
	int64_t vtid, vpid; /* RAW_EVENT: -1 unknown */
	uint64_t count;     /* RAW_DISCARD */
	const char *name;
	uint64_t v[IX_MAX_FIELDS];
	const char *s[IX_MAX_FIELDS];
};

/* Apply one description to the index (the loader's state included). */
void ix_raw_apply(struct trace_index *ix, const struct ix_raw *r);

/* Where descriptions go instead of ix_raw_apply (a decoder process). */
typedef void (*ix_raw_emit_fn)(struct trace_index *ix, const struct ix_raw *r);
void ix_set_emit(struct trace_index *ix, ix_raw_emit_fn emit);

/* psplit.c: the packets of a trace dealt to the decoders (see there). */
struct ctf_dirs;
struct ix_split;
/* NULL if the trace is not wholly accounted for by LTTng's index files
 * (then its streams are dealt instead), or n < 2. */
struct ix_split *split_plan(const struct trace_index *ix, const struct ctf_dirs *dirs, int n);
void split_free(struct ix_split *sp);
int split_decoders(const struct ix_split *sp);
/* Decoder k's copy of trace directory d (links and its own index). */
void split_dir(const struct ix_split *sp, int k, int d, char *buf, size_t len);
/* Decoder k saw a packet of stream end. */
void split_packet_end(struct ix_split *sp, int k, int stream);
/* Of count packets babeltrace2 says were lost before decoder k's next
 * packet of stream, those that were not dealt to another decoder. */
uint64_t split_discard(const struct ix_split *sp, int k, int stream, uint64_t count);
/* The sequence number of decoder k's packet of stream under way (ties
 * between two decoders at one time go to the earlier packet). */
uint64_t split_seq(const struct ix_split *sp, int k, int stream);
/* A decoder ended stream: was it the last one with a packet of it? */
bool split_stream_end(struct ix_split *sp, int stream);

/* pdecode.c, for index.c's loader. */
struct ix_pdec;
/* Decode with a process per core (at most 8; ICACHE_VIEW_DECODERS=N says
 * how many, 1 none) if the trace allows it (no --run/--pid, none of its
 * streams known damaged), each with a share of the packets (psplit.c)
 * or else of the streams (at most one decoder per stream): NULL
 * otherwise, and the serial graph is used. */
struct ix_pdec *pdec_start(struct trace_index *ix, uint64_t streams, const struct ctf_dirs *dirs);
/* Apply up to `rounds` x 512 merged descriptions; IX_MORE, IX_OK (all
 * decoded) or IX_ERROR with err. */
enum ix_status pdec_step(struct trace_index *ix, struct ix_pdec *p, int rounds, char *err,
			 size_t len);
/* Stop and reap the decoders; what they used (peak resident set, CPU
 * time) is added to ix's decoders_* figures (ix may be NULL). */
void pdec_free(struct ix_pdec *p, struct trace_index *ix);

#endif
