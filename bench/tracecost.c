/*
 * tracecost.c - the bare cost of one icache tracepoint, for bench/tracing.sh.
 *
 * T threads each fire icache:lock_acquired N times in a tight loop, first
 * with no session listening (the cost every untraced run pays), then while
 * this process records itself exactly as `icache-sim record` does
 * (sim/cmd/record.c: per-UID buffers, 4 x 8 MiB per CPU, vtid).  The simulator's
 * per-event cost in bench/tracing.sh is set against this one: the
 * difference is what the probe effect inside critical sections adds.
 *
 * usage: tracecost -o DIR [-n EVENTS_PER_THREAD] [-t THREADS]
 * Prints one JSON object.  bench/tracing.sh compiles it against the
 * simulator's library, so it needs no rule of its own in the Makefile.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "sim/core/clock.h"
#include "sim/cmd/record.h"
#include "tracepoints/icache_tp.h"

struct loop {
	pthread_t tid;
	int id;
	uint64_t n;
	uint64_t ns;
};

static void *fire(void *p)
{
	struct loop *l = p;
	uint64_t t0 = now_ns();

	for (uint64_t i = 0; i < l->n; i++)
		lttng_ust_tracepoint(icache, lock_acquired, (uint16_t)l->id, LC_i_lock, i,
				     SITE_workload, 0, SRC_unknown, 0, 0);
	l->ns = now_ns() - t0;
	return NULL;
}

/* ns per event of the slowest thread. */
static double run_loops(int nthreads, uint64_t n)
{
	struct loop *ls = xcalloc((size_t)nthreads, sizeof(*ls));
	uint64_t worst = 0;

	for (int i = 0; i < nthreads; i++) {
		ls[i].id = i;
		ls[i].n = n;
		xpthread_create(&ls[i].tid, NULL, fire, &ls[i]);
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(ls[i].tid, NULL);
		if (ls[i].ns > worst)
			worst = ls[i].ns;
	}
	free(ls);
	return (double)worst / (double)n;
}

int main(int argc, char **argv)
{
	struct recorder_opts o = { .no_watcher = true };
	struct recorder rec;
	struct trace_counts c;
	uint64_t n = 2000000;
	int nthreads = 2, opt;
	char dir[4096];

	while ((opt = getopt(argc, argv, "o:n:t:")) != -1) {
		if (opt == 'o')
			o.dir = optarg;
		else if (opt == 'n')
			n = strtoull(optarg, NULL, 10);
		else if (opt == 't')
			nthreads = atoi(optarg);
		else
			return 2;
	}
	if (!o.dir || !n || nthreads < 1 || nthreads > 64 || !realpath(o.dir, dir)) {
		fprintf(stderr, "usage: tracecost -o EXISTING_EMPTY_DIR [-n N] [-t THREADS]\n");
		return 2;
	}
	o.dir = dir;
	if (recorder_prepare(&o, argv))
		return 2;
	double off = run_loops(nthreads, n);
	if (recorder_start(&rec, &o)) {
		recorder_stop_sessiond(&rec);
		return 2;
	}
	run_loops(nthreads, n / 4); /* warm-up: fault the rings in */
	double on = run_loops(nthreads, n);
	int st = recorder_finish(&rec, &o, &c);
	recorder_stop_sessiond(&rec);
	if (st)
		return st;
	printf("{\"threads\":%d,\"events_per_thread\":%" PRIu64
	       ",\"ns_per_event_no_session\":%.2f,\"ns_per_event_recording\":%.1f"
	       ",\"events\":%" PRIu64 ",\"discarded_events\":%" PRIu64 "}\n",
	       nthreads, n, off, on, c.events, c.discarded_events);
	return 0;
}
