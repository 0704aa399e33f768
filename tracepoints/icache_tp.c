/*
 * icache_tp.c - instantiates the "icache" tracepoint provider.
 * Linked statically into the simulator (one program, one provider).
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tracepoints/icache_tp.h"
