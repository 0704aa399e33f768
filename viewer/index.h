/*
 * index.h - a trace decoded once into a compact in-memory event index.
 *
 * The loader runs a libbabeltrace2 graph (src.ctf.fs for every trace
 * directory found under the path -> flt.utils.muxer -> a simple sink of
 * ours) one bt_graph_run_once() step at a time, so a UI can show progress
 * between steps.  Each event becomes one 32-byte struct ix_event; what does
 * not fit (inode numbers and lock instances, strings, violation reports,
 * the run header, discard ranges) lives in side tables the event points
 * into.  This layer depends on no other of the viewer's: the replay
 * (model.h) and the timeline that drives it while loading (timeline.h)
 * sit above it and hear from it through struct ix_hooks.
 */
#ifndef VIEWER_INDEX_H
#define VIEWER_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/dirguard.h"
#include "viewer/names.h"

/*
 * One event.  The meaning of a, b and val depends on type:
 *   lock_*          a=lock class, obj=instance id, val=wait_ns (acquired),
 *                   hold_ns (release), holder cpu (contended, -1 none),
 *                   b=success (trylock), life=the i_lock's life (0 other)
 *   inode_state     obj=ino id, val=old<<32|new
 *   inode_ref       obj=ino id, val=(u32)old<<32|(u32)new
 *   inode_list      obj=ino id, a=list, b=action
 *   inode_alloc     obj=ino id, val=sb<<32|nlink, life
 *   inode_free      obj=ino id, val=sb, life
 *   inode_nlink     obj=ino id, val=nlink
 *   op_begin/op_end a=op, obj=ino id, val=result (end)
 *   sched_step      val=step, obj=string id of "what"
 *   violation       a=kind, val=index in ix->viols
 *   run_begin       val=index in ix->runs
 *   run_end         val=ops, obj=violations
 *   order_rule      a=outer class, b=inner class
 *   inode_wait      obj=ino id, val=state seen; inode_wait_end b=woken
 *   note            obj=string id of the text, val=scenario line
 * lock, inode_state/ref/list and the waits also have src and line.
 * (the slots come from the event table, tracepoints/icache_events.h)
 *   discarded_*     val=count (0 if unknown), obj=index in ix->discards
 */
struct ix_event {
	int64_t ts; /* ns from the clock's origin */
	uint64_t val;
	uint32_t obj;
	uint16_t cpu; /* simulated CPU, IX_NO_CPU for none */
	uint8_t type;
	uint8_t a;
	uint8_t b;
	uint8_t site;
	uint8_t core;  /* real CPU (packet context cpu_id), 255 if above */
	uint8_t src;   /* enum src_file of `line` (lock, inode events) */
	uint16_t line; /* source line of the call site, 0 unknown */
	uint16_t life; /* lock, inode_alloc/free: the life id, low 16 bits (0 none) */
};

/*
 * The slots (enum ix_slot, names.h) that keep a field's value as it is, each
 * in one member of struct ix_event: X(slot, member).  The decoder stores a
 * value there (narrowed to the member's width) and the event's text reads
 * it back, both from this list.  The other slots are spelled out where they
 * are used: SL_OBJ interns an inode number, SL_HI/SL_LO share val, SL_STRID
 * interns a string, SL_SIDE goes to a side table.
 */
#define IX_PLAIN_SLOTS(X) \
	X(SL_CPU, cpu)    \
	X(SL_A, a)        \
	X(SL_B, b)        \
	X(SL_SITE, site)  \
	X(SL_VAL, val)    \
	X(SL_RAW, obj)    \
	X(SL_SRC, src)    \
	X(SL_LINE, line)  \
	X(SL_LIFE, life)

struct ix_violation {
	uint8_t kind, cls_a, cls_b, site_a, site_b;
	uint16_t cpu;
	uint64_t ino;
	uint32_t text; /* string id */
	uint64_t ev;   /* event number */
};

struct ix_run {
	uint32_t scheme, workload, order; /* string ids */
	uint32_t scheme_file, threads;    /* string ids ("" in older traces) */
	uint32_t scheme_cksum;            /* POSIX cksum of scheme_file, 0 unknown */
	unsigned cpus;
	uint64_t seed;
	uint64_t ev;              /* its run_begin, UINT64_MAX if not shown */
	int64_t pid;              /* vpid, else the vtid of run_begin (the main
			     * thread's tid is the pid); -1 unknown */
	int64_t begin_ts, end_ts; /* end_ts INT64_MIN: no run_end seen */
	uint64_t ops;             /* from run_end */
	bool interrupted;         /* run_end says a signal stopped it */
	/* A virtual_time event: the run's CPUs were simulated in virtual time;
	 * stamped: the events carry that virtual time (record --virtual), not
	 * the host's. */
	bool virtual_run, virtual_stamped;
	bool kept; /* shown (all, or the one --run/--pid chose) */
};

/* What --run N / --pid P asked for (0 / -1: no choice). */
struct ix_select {
	unsigned run; /* 1-based */
	int64_t pid;
};

struct ix_discard {
	int64_t begin, end; /* ns; INT64_MIN if unknown */
	uint64_t count;
	bool packets;
	bool cut;   /* not a discard: its stream ends here, early */
	int stream; /* index in ix->streams, -1 unknown */
	uint64_t ev;
};

/*
 * One data stream of the trace (LTTng: one per real core and channel),
 * what its file and babeltrace2 said about it.  See health.h.
 */
struct ix_stream {
	char name[64];   /* file name, e.g. icache_1 */
	char *path;      /* the file as given; NULL if it is missing */
	char *read_dir;  /* directory babeltrace2 read it from */
	const void *bt;  /* its bt_stream, while loading */
	int core;        /* packet cpu_id, -1 unknown */
	uint64_t events; /* icache events read from it */
	int64_t last_ts; /* of its last icache event, INT64_MIN none */
	int64_t end_ts;  /* end of its last packet, INT64_MIN unknown */
	uint64_t lost_events, lost_packets, windows;
	int64_t lost_from, lost_to;
	/* from the files, before babeltrace2 reads them */
	uint64_t size, whole;  /* bytes; bytes in whole packets */
	uint32_t packets;      /* whole packets in the file */
	uint32_t idx_packets;  /* packets its index file lists */
	uint64_t idx_bytes;    /* bytes its index file accounts for */
	bool missing;          /* index file without a data file */
	bool empty;            /* LTTng-UST data file of 0 bytes: never flushed */
	bool cut_mid;          /* last packet cut short */
	bool cut_idx;          /* fewer packets than the index lists */
	bool ends_early;       /* set at the end of the load */
	uint32_t packets_read; /* packet ends babeltrace2 delivered */
	bool end_noted;        /* its end is a pending cut already */
	/* packet times (raw clock values) from the files: for progress */
	uint64_t clk_begin, clk_end; /* 0: unknown */
};

/* A saved replay state.  Its blob is in memory (blob != NULL) or, when
 * the index lives on disk (cache.h), at byte off of the checkpoint file. */
struct ix_checkpoint {
	uint64_t pos; /* events applied */
	void *blob;
	size_t size;
	uint64_t off;
};

struct model;
struct timeline;
struct trace_index;
struct unprot_span;
struct time_buckets;

/* Lock class values are clamped below this (the model's tables). */
#define IX_MAX_CLASSES 64

/* What the decoder tells the layer above while it loads; the index itself
 * knows nothing of the replay. */
struct ix_hooks {
	/* Events before `end` are settled (no later one shares their time):
	 * replay them; reordering within the last timestamp is allowed. */
	void (*settled)(struct trace_index *ix, uint64_t end);
	/* The shown run's documented order changed (its rules came in). */
	void (*order)(struct trace_index *ix);
	/* Is what was replayed consistent?  Nonzero and err if not. */
	int (*check)(struct trace_index *ix, char *err, size_t len);
};

struct trace_index {
	char *path;
	struct ix_event *ev;
	uint64_t nev, cap;

	uint64_t *ids; /* id -> 64-bit value (ino, instance) */
	uint32_t nids, ids_cap;
	uint32_t *id_hash; /* open addressing over ids */
	uint32_t id_hash_cap;

	char **strs;
	uint32_t nstrs, strs_cap;

	struct ix_violation *viols;
	uint32_t nviols, viols_cap;
	struct ix_run *runs;
	uint32_t nruns, runs_cap;
	/* The first run's documented lock order: the order_rule events
	 * after its run_begin.  order_known once all the rules its
	 * order_rules field announced have arrived. */
	struct order_rule *rules;
	uint32_t nrules, rules_cap, rules_expected;
	bool order_known;
	struct ix_discard *discards;
	uint32_t ndiscards, discards_cap;
	uint64_t discarded_events, discarded_packets;

	/* Checkpoints of the replay, left by the timeline (timeline.c). */
	struct ix_checkpoint *ckpts;
	uint32_t nckpts, ckpts_cap;
	uint64_t ckpt_interval;
	size_t ckpt_bytes;

	struct ix_stream *streams;
	uint32_t nstreams, streams_cap;
	/* Completeness (health.c): empty = complete.  Each reason is one
	 * sentence in the user's terms. */
	char **reasons;
	uint32_t nreasons, reasons_cap;
	struct ix_select sel;
	int64_t pids[16]; /* distinct vpids seen (if recorded) */
	unsigned npids;
	bool has_vpid;
	char *shadow;                  /* temp copy of cut streams, or NULL */
	struct dir_guard shadow_guard; /* the process that removes it */
	uint64_t classes_seen;         /* bit per EV_ type the metadata has */
	char unknown_classes[256];     /* icache:* names we do not know */

	unsigned ncpus;        /* 1 + highest simulated CPU seen */
	uint64_t other_events; /* events of other providers */
	char other_names[256]; /* a few of their names */

	uint64_t load_ns;    /* wall time of the load */
	struct model *build; /* the timeline's replaying model (timeline.c) */
	struct timeline *tl; /* the timeline's loading state */
	struct ix_hooks hooks;
	uint64_t cpu_seen[4]; /* bit per simulated CPU with an event (< 256) */
	struct ix_loader *loader;
	/* Where the event array and the checkpoints live (cache.h): NULL
	 * means malloc'd memory. */
	struct ix_store *store;
	uint64_t decoded;             /* events babeltrace2 decoded for this process */
	unsigned decoders;            /* processes that decoded them (pdecode.c), 0: this one */
	bool packet_split;            /* they had a share of the packets, not of the streams */
	uint64_t decoders_maxrss_kb;  /* their peak resident sets, summed */
	uint64_t decoders_cpu_ns;     /* their CPU time (user + system), summed */
	uint64_t decoders_cpu_max_ns; /* the busiest one's */
	/* The "unprotected" spans (unprot.h) of a finished load, found once
	 * and kept in the index cache so that a reopen need not scan every
	 * event again; uspans_known: these are all of them (malloc'd). */
	struct unprot_span *uspans;
	uint32_t nuspans;
	uint64_t uspans_longest;
	uint32_t uspans_unreliable;
	bool uspans_known;
	/* The timeline strip's figures over the whole trace (timestrip.h),
	 * the same way; NULL if not kept. */
	struct time_buckets *strip;
	bool nocpu_seen;      /* an event without a CPU (not a run's) */
	uint64_t clock_freq;  /* of the trace's clock, Hz (0 unknown) */
	int64_t clock_off_ns; /* its offset: ns = off + value * 1e9 / freq */
};

/* Decoding (the layer under timeline.h, which most code uses):
 * ix_decode_open checks the path and builds the graph (errors found here:
 * missing/empty dir, no metadata, damaged metadata); ix_decode_step runs
 * the graph a little; ix_decode_finish checks what the whole trace said. */
enum ix_status { IX_OK, IX_MORE, IX_ERROR };

struct trace_index *ix_decode_open(const char *path, char *err, size_t errlen);
/* Show one run or process of a trace holding several (before stepping). */
void ix_select(struct trace_index *ix, unsigned run, int64_t pid);
enum ix_status ix_decode_step(struct trace_index *ix, int rounds, char *err, size_t errlen);
enum ix_status ix_decode_finish(struct trace_index *ix, char *err, size_t errlen);
void ix_decode_free(struct trace_index *ix);
/* Bytes of the stream files read so far and in all (for progress):
 * whole packets delivered, and within the current ones the share of the
 * streams' time range already read (babeltrace2 gives no byte offset). */
void ix_progress(const struct trace_index *ix, uint64_t *done, uint64_t *total);

/* babeltrace2's stderr is silenced while it runs unless this is set. */
extern bool ix_keep_stderr;
/* Set once babeltrace2 has been jumped out of: its state is unknown, so
 * no further trace can be loaded in this process (the viewer loads one). */
extern bool ix_bt_poisoned;

/* A pass over all the events may call this behind it: the pages of
 * events [from, to) are handed back (they are in the index's file and
 * come back from it when read again), so that what stays resident does
 * not grow with the trace.  Nothing happens for an index in memory. */
void ix_release(const struct trace_index *ix, uint64_t from, uint64_t to);

/* Side tables. */
uint64_t ix_id_value(const struct trace_index *ix, uint32_t id);
int64_t ix_id_find(const struct trace_index *ix, uint64_t value); /* -1 */
const char *ix_str(const struct trace_index *ix, uint32_t id);

/* Is the trace complete (no reason to doubt what it shows)? */
static inline bool ix_complete(const struct trace_index *ix)
{
	return ix->nreasons == 0;
}

/* The first run_begin shown, or NULL. */
const struct ix_run *ix_run0(const struct trace_index *ix);
int64_t ix_t0(const struct trace_index *ix);
/* The first event with ts >= t (nev if none). */
uint64_t ix_find_time(const struct trace_index *ix, int64_t t);

#endif
