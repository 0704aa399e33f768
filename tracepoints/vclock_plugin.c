/*
 * vclock_plugin.c - an LTTng-UST clock plugin: events of `icache-sim record
 * --virtual` are stamped with the simulated CPUs' virtual time.
 *
 * liblttng-ust loads the shared object named by LTTNG_UST_CLOCK_PLUGIN in
 * its constructor and calls lttng_ust_clock_plugin_init().  The time itself
 * comes from the program: icache-sim exports icache_vclock_read()
 * (sim/engine/vclock.h).  Loaded into any other program, the plugin says so
 * and leaves LTTng's own clock in place.
 *
 * The clock keeps LTTng's name and frequency (monotonic, 1 GHz): outside
 * the virtual run it *is* CLOCK_MONOTONIC, and the session daemon, which
 * writes the trace's clock description, never loads this plugin.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lttng/ust-clock.h>

void lttng_ust_clock_plugin_init(void);

static uint64_t (*sim_read)(void);

static uint64_t vclock_read64(void)
{
	return sim_read();
}

static uint64_t vclock_freq(void)
{
	return 1000000000ull;
}

static const char *vclock_name(void)
{
	return "monotonic";
}

static const char *vclock_description(void)
{
	return "Monotonic Clock; during an icache-sim virtual run, its virtual time";
}

void lttng_ust_clock_plugin_init(void)
{
	void (*attach)(void);

	*(void **)&sim_read = dlsym(RTLD_DEFAULT, "icache_vclock_read");
	*(void **)&attach = dlsym(RTLD_DEFAULT, "icache_vclock_attach");
	if (!sim_read || !attach) {
		fprintf(stderr, "icache-vclock: not loaded into icache-sim; "
				"events keep LTTng's own clock\n");
		return;
	}
	if (lttng_ust_trace_clock_set_read64_cb(vclock_read64) ||
	    lttng_ust_trace_clock_set_freq_cb(vclock_freq) ||
	    lttng_ust_trace_clock_set_name_cb(vclock_name) ||
	    lttng_ust_trace_clock_set_description_cb(vclock_description) ||
	    lttng_ust_enable_trace_clock_override()) {
		fprintf(stderr, "icache-vclock: liblttng-ust refused the clock override\n");
		return;
	}
	attach();
}
