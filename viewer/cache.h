/*
 * cache.h - the index on disk: built once, reopened in a blink.
 *
 * While a trace is decoded, its event array is a shared mapping of a file
 * (32 bytes an event) and every replay checkpoint is written to a second
 * file as soon as it is made, so what stays in memory does not grow with
 * the trace: pages of the event file behind the replay are handed back
 * to the kernel (they stay in its page cache).  When the load succeeds
 * the side tables and a header are added and both files are renamed into
 * $XDG_CACHE_HOME/icache-lab/ (default ~/.cache/icache-lab/):
 *
 *   LOC.idx  header (4 KiB), checkpoint blobs, side tables
 *   LOC.ev   the events, nev x struct ix_event
 *
 * LOC names the trace (its real path and the --run/--pid choice); the
 * header holds the trace's identity (every file's name, size and mtime,
 * the metadata's content, the format version and the record sizes) and
 * one checksum over everything else.  A cache whose identity differs is
 * stale, one whose checksum or structure is wrong is corrupt: either is
 * said in one line, deleted and rebuilt, never trusted.  Writers only
 * ever rename finished files into place, so a reader never sees a file
 * change under it.
 */
#ifndef VIEWER_CACHE_H
#define VIEWER_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "viewer/index.h"

/* Bump when anything written to the cache changes meaning. */
#define IX_CACHE_VERSION 8 /* 8: an i_lock taken after its free keeps its bounces */

enum ix_cache_mode {
	IX_CACHE_ON,  /* reuse a valid cache, write one after a load */
	IX_CACHE_OFF, /* neither (the events still go to an unlinked file) */
};
extern enum ix_cache_mode ix_cache_mode;

/* How the index in hand came to be. */
enum ix_cache_state {
	IXC_MEMORY,  /* events in malloc'd memory (no file could be made) */
	IXC_TEMP,    /* on disk in unlinked files: not kept */
	IXC_WRITING, /* being decoded into files the load will keep */
	IXC_WRITTEN, /* decoded, and the cache written for next time */
	IXC_HIT,     /* reopened from the cache, nothing decoded */
};
const char *ix_cache_state_name(enum ix_cache_state s);
enum ix_cache_state ix_cache_state(const struct trace_index *ix);

/* Called with one line when a cache file is stale, corrupt or cannot be
 * written; the default prints it on stderr. */
extern void (*ix_cache_warn)(const char *line);

/* The cache directory (created if missing).  0, or -1 and err. */
int ix_cache_dir(char *buf, size_t len, char *err, size_t errlen);
/* Remove every cache file of the directory; how many, or -1 and err. */
int ix_cache_clear(char *err, size_t errlen);

/* The index of path from its cache, or NULL (no cache, or a stale or
 * corrupt one: then said through ix_cache_warn and deleted). */
struct trace_index *ix_cache_open(const char *path, const struct ix_select *sel);

/* Decoding into files: set up before the first event (falls back to
 * memory, silently, if no file can be made). */
void ix_store_begin(struct trace_index *ix, const struct ix_select *sel);
/* Room for one more event at ix->ev[ix->nev] (may move ix->ev). */
void ix_store_grow(struct trace_index *ix);
/* Events before upto are final (replayed, never reordered again): hash
 * them and let their pages go. */
void ix_store_settled(struct trace_index *ix, uint64_t upto);
/* The load is over: cut the event file to what it holds. */
void ix_store_shrink(struct trace_index *ix);
/* Move c's blob to the checkpoint file (it stays in memory if it cannot). */
void ix_store_ckpt(struct trace_index *ix, struct ix_checkpoint *c);
/* c's blob: in memory, or read into *tofree (free it after use); NULL if
 * it cannot be read. */
const void *ix_ckpt_blob(const struct trace_index *ix, const struct ix_checkpoint *c,
			 void **tofree);
/* After a successful load: write the tables and header, rename into the
 * cache.  A failure is warned about; the index in hand stays usable. */
void ix_cache_commit(struct trace_index *ix);
/* Unmap and close; temporary files are removed. */
void ix_store_free(struct trace_index *ix);

#endif
