/*
 * vclock.h - the time stamped on the events of a virtual recording.
 *
 * LTTng stamps each event with its own clock.  In `icache-sim record
 * --virtual` that clock is replaced (an LTTng-UST clock plugin,
 * tracepoints/vclock_plugin.c, loaded through LTTNG_UST_CLOCK_PLUGIN) by
 * icache_vclock_read() below: the host's CLOCK_MONOTONIC outside the
 * virtual run, and during it the host time at which the run started plus
 * the running simulated CPU's virtual clock.  So the viewer's times, waits
 * and holds are the run's virtual nanoseconds, with nothing to convert.
 *
 * Two promises keep the trace valid: the stamps never go backwards (the
 * virtual run always runs the CPU with the smallest clock, so they do not;
 * a stamp that would is held at the last one and counted), and they never
 * pass the host clock, which LTTng's consumer uses when it closes the last
 * packets at the end (vclock_set waits for the host to catch up, which in
 * practice never happens: simulating is slower than the simulated time).
 */
#ifndef SIM_VCLOCK_H
#define SIM_VCLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* The plugin is loaded: events are stamped by this clock. */
bool vclock_attached(void);

/* The virtual run starts / the running CPU's clock is now vns / it ended. */
void vclock_begin(void);
void vclock_set(uint64_t vns);
void vclock_end(void);

/* Stamps that would have gone backwards, held at the previous one. */
uint64_t vclock_held_back(void);

/* What the plugin calls (exported from the executable by name). */
uint64_t icache_vclock_read(void);
void icache_vclock_attach(void);

#endif /* SIM_VCLOCK_H */
