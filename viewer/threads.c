/*
 * threads.c - naming the threads of a run.
 *
 * The simulator numbers the workload CPUs 0 .. cpus-1 and gives the other
 * threads the numbers after them; run_begin's `threads` field names those
 * in order ("flusher,main" for a run, "setup" for a scenario).  A trace
 * older than that field is named by the convention EVENTS.md documents
 * (cpus: the flusher, or the setup of a scenario; cpus + 1: main).
 */
#include <stdio.h>
#include <string.h>

#include "viewer/threads.h"

unsigned ix_sim_cpus(const struct trace_index *ix)
{
	const struct ix_run *r = ix_run0(ix);
	return r && r->cpus ? r->cpus : ix->ncpus;
}

/* The k-th comma-separated name of list into buf; false if there is none. */
static bool nth_name(const char *list, unsigned k, char *buf, size_t len)
{
	const char *p = list;
	for (unsigned i = 0; i < k && p; i++) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	if (!p || !*p)
		return false;
	size_t n = strcspn(p, ",");
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	return n > 0;
}

const char *thread_name(const struct trace_index *ix, unsigned cpu)
{
	static char bufs[4][24];
	static unsigned next;
	char *b = bufs[next++ & 3];
	const struct ix_run *r = ix_run0(ix);
	if (cpu == IX_NO_CPU)
		return "main";
	if (!r || cpu < r->cpus || !r->cpus) {
		snprintf(b, sizeof(bufs[0]), "cpu%u", cpu);
		return b;
	}
	unsigned k = cpu - r->cpus;
	if (nth_name(ix_str(ix, r->threads), k, b, sizeof(bufs[0])))
		return b;
	bool scenario = !strcmp(ix_str(ix, r->workload), "scenario");
	snprintf(b, sizeof(bufs[0]), "%s",
		 k == 0 ? (scenario ? "setup" : "flusher") :
		 k == 1 ? "main" :
			  "thread");
	if (k > 1)
		snprintf(b, sizeof(bufs[0]), "thread%u", cpu);
	return b;
}

const char *event_thread(const struct trace_index *ix, uint64_t i)
{
	const struct ix_event *e = &ix->ev[i];
	if (e->cpu == IX_NO_CPU && e->type == EV_inode_rcu_freed)
		return "call_rcu"; /* liburcu's thread (EVENTS.md) */
	return thread_name(ix, e->cpu);
}
