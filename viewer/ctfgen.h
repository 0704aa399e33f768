/*
 * ctfgen.h - write tiny CTF 1.8 traces by hand, for tests and the fuzzer.
 *
 * Real traces come from LTTng; these exist to make the cases LTTng never
 * writes on purpose: another provider's events, lock holders that overlap,
 * a stream whose bytes are whatever a fuzzer chose.  The metadata declares
 * PROVIDER:lock_acquired, PROVIDER:lock_release (the icache fields) and
 * PROVIDER:hello, one stream, ns clock.
 */
#ifndef VIEWER_CTFGEN_H
#define VIEWER_CTFGEN_H

#include <stddef.h>
#include <stdint.h>

enum { CTFGEN_ACQUIRED, CTFGEN_RELEASE, CTFGEN_HELLO };

struct ctfgen_event {
	int id; /* CTFGEN_* */
	uint64_t ts;
	uint16_t cpu;
	uint8_t cls, site;
	uint64_t inst, val;
};

/* The metadata text for `provider` (malloc'd). */
char *ctfgen_metadata(const char *provider);
/* The bytes of one packet holding the events (malloc'd, *len set). */
uint8_t *ctfgen_stream(const struct ctfgen_event *ev, size_t n, size_t *len);
/* dir/metadata and dir/stream_0; returns 0 or -1. */
int ctfgen_write(const char *dir, const char *provider, const struct ctfgen_event *ev, size_t n);

#endif
