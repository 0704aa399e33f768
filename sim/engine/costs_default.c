/*
 * costs_default.c - the cost model shipped with the simulator, used by
 * `run --virtual` without --costs.  It is the output of `icache-sim
 * calibrate` on the machine its source line names, pasted here unchanged;
 * calibrate on your own machine for figures that are yours.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim/engine/costs.h"

static const char shipped[] = "# icache-sim cost model, written by `icache-sim calibrate`.\n"
			      "# Every figure was measured on the host below; see icache-sim(1).\n"
			      "source Intel(R) Xeon(R) Processor, 2 cores, 2026-12-04T04:40Z\n"
			      "xfer_ns 76.5  # a cache line from another CPU\n"
			      "wake_ns 124831.6  # a sleeping waiter runs again\n"
			      "wake_call_ns 106.3 # the releaser's FUTEX_WAKE\n"
			      "step_default_ns 85.0 # between two points, any workload\n"
			      "step_ns create-unlink 71.6\n"
			      "step_ns lookup 53.3\n"
			      "step_ns writeback 39.5\n"
			      "step_ns pressure 38.7\n"
			      "step_ns umount 109.4\n"
			      "step_ns mixed 85.0\n"
			      "step_ns iput-race 64.3\n";

void cost_model_default(struct cost_model *m)
{
	char err[256];
	if (!cost_model_parse(shipped, "costs_default.c", m, err, sizeof(err))) {
		fprintf(stderr, "icache-sim: the shipped cost model is broken: %s\n", err);
		abort();
	}
}
