/*
 * vrun.h - the virtual-time mode: N simulated CPUs on one host thread.
 *
 * `icache-sim run --virtual --cpus N` runs the same scheme and workload
 * code as a real run, but each simulated CPU is a coroutine (fiber.h) with
 * its own virtual clock, and only one runs at a time: always the runnable
 * CPU whose clock is smallest.  That is a conservative discrete-event
 * simulation whose events are the instrumentation points the scenario
 * scheduler already stops at (lock.h's sched hooks).  At each point the
 * running CPU is charged by the cost model (costs.h); a CPU that finds a
 * lock taken parks, and the release decides when it runs again (FIFO
 * handoff for ticket and MCS, a wakeup for the mutex).  Nothing depends on
 * the host's timing, so the same seed and cost file give the same result,
 * bit for bit.
 */
#ifndef SIM_VRUN_H
#define SIM_VRUN_H

#include <stdbool.h>

#include "sim/engine/run.h"

/* Like run_workload; result->seconds is virtual time. */
int vrun_workload(const struct run_config *cfg, struct run_result *result, bool keep_inodes);

#endif
