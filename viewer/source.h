/*
 * source.h - the scheme source beside the trace.
 *
 * run_begin names the scheme's file (relative to the source tree) and its
 * POSIX cksum at build time; the lock and inode events name a line of it
 * (tracepoints/EVENTS.md).  This finds that file, checks it is the one
 * the run was built from, and draws it with each CPU's line marked.  The
 * drawing takes plain (cpu, line) marks, so a caller that knows where
 * each CPU will be next (the lesson runner's scheduler mode) draws the
 * same pane.
 */
#ifndef VIEWER_SOURCE_H
#define VIEWER_SOURCE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "viewer/canvas.h"
#include "viewer/index.h"

struct src_text {
	char path[PATH_MAX]; /* where it was found ("" if nowhere) */
	char name[128];      /* as run_begin names it, "sim/schemes/merged.c" */
	char **lines;        /* nlines lines, without their newlines */
	int nlines;
	bool found;
	bool mismatch; /* found, but its cksum is not the run's */
	uint32_t want, got;
	char why[300]; /* one plain sentence when not found / mismatched */
};

/* A CPU's line to mark: src is enum src_file (only SRC_scheme lines are
 * lines of the scheme file shown). */
struct src_cpu_mark {
	unsigned cpu;
	int src;
	int line;
	const char *fn; /* the function, or NULL */
	bool next;      /* "will run next" rather than "ran last" */
};

/* POSIX cksum(1) of n bytes (the CRC the Makefile records). */
uint32_t posix_cksum(const unsigned char *p, size_t n);

/*
 * Find and read file (a path relative to the source tree) whose cksum
 * should be want (0: unknown).  Looks in $ICACHE_SRC, next to the
 * binary's tree (bin/../..), where `make install` puts it
 * (bin/../share/icache-lab), up from the trace's directory, and in the
 * working directory.  Never NULL; ->found says if it was.
 */
struct src_text *source_load(const char *file, uint32_t want, const char *trace_path);
void source_free(struct src_text *st);
/* The trace's scheme source (loaded once per index and kept). */
const struct src_text *source_for_trace(const struct trace_index *ix);

/*
 * Draw st in r: a header saying where it came from (or why it cannot be
 * shown), then the lines around `center` with each mark in the gutter,
 * in its CPU's colour ("0>" ran last, "1:" runs next).
 */
void source_draw(struct canvas *c, struct rect r, const struct src_text *st,
		 const struct src_cpu_mark *marks, int nmarks, int center,
		 const char *(*cpu_name)(const void *arg, unsigned cpu), const void *arg);

#endif
