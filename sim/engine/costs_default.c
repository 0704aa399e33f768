/*
 * costs_default.c - the cost model shipped with the simulator, used by
 * `run --virtual` without --costs.  It is the output of `icache-sim
 * calibrate` on the machine its source line names, pasted here unchanged;
 * calibrate on your own machine for figures that are yours.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim/engine/costs.h"

static const char shipped[] = "source placeholder\n"
			      "xfer_ns 100\n"
			      "wake_ns 5000\n"
			      "wake_call_ns 500\n"
			      "step_default_ns 40\n";

void cost_model_default(struct cost_model *m)
{
	char err[256];
	if (!cost_model_parse(shipped, "costs_default.c", m, err, sizeof(err))) {
		fprintf(stderr, "icache-sim: the shipped cost model is broken: %s\n", err);
		abort();
	}
}
