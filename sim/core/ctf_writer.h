/*
 * ctf_writer.h - write a run's trace as CTF 1.8 directly, without LTTng.
 *
 * `icache-sim play --ctf-direct -o DIR` (and the lessons, when no LTTng
 * session daemon answers) record through this instead of a session: the
 * same events, fields and names as the LTTng provider, because both are
 * generated from the one table (tracepoints/icache_events.h): each
 * trace_ev_NAME() of sim/core/trace.h fires the tracepoint and, while a
 * direct trace is open, hands the same arguments to ctfw_ev_NAME() here.
 * The viewer reads the result through libbabeltrace2 like an LTTng trace.
 *
 * What differs from an LTTng trace (tracepoints/EVENTS.md, section 6):
 * one stream file in DIR itself, plain-text metadata, tracer_name
 * "icache-sim", no cpu_id (the host core is not known), and event times
 * made strictly increasing (firing order is the stream's order).
 *
 *	ctfw_open(dir, err, len);      metadata written, stream file created
 *	... fire events ...
 *	ctfw_close(&n, err, len);      last packet written, file closed
 */
#ifndef SIM_CTF_WRITER_H
#define SIM_CTF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracepoints/icache_enums.h"
#include "tracepoints/icache_events.h"

/*
 * True between ctfw_open and ctfw_close: the events test it without a
 * lock (an atomic relaxed load, a plain load on x86); a late event that
 * saw it true finds the trace closed under the writer's lock.
 */
extern bool ctfw_active;

/* Create DIR/metadata and DIR/icache_0 (DIR exists and is empty).  0, or
 * -1 with one line in err. */
int ctfw_open(const char *dir, char *err, size_t len);
/* Write the last packet and close.  0 (events written in *events), or -1
 * with one line in err: the first write that failed, and where. */
int ctfw_close(uint64_t *events, char *err, size_t len);

/* The metadata text of a direct trace (malloc'd): for tests and tools. */
char *ctfw_metadata(void);

/* One writer per event of the table, arguments as trace_ev_NAME's. */
#define CTFW_PARAM_(kind, type, name, slot) , ICACHE_CTYPE_##kind(type) name
#define CTFW_DECL_(name, sched, text) \
	void ctfw_ev_##name(ICACHE_LIST(ICACHE_FIELDS_##name, CTFW_PARAM_));
ICACHE_EVENTS(CTFW_DECL_)
#undef CTFW_DECL_

#endif /* SIM_CTF_WRITER_H */
