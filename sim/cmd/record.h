/*
 * record.h - recording this very process with LTTng, from the inside.
 *
 * `icache-sim record` uses it around run_workload(); a scenario player can
 * use it the same way around its own loop (pass blocking = true there: one
 * simulated CPU runs at a time, so a writer that waits for buffer space
 * stalls nobody's lock).
 *
 *	recorder_prepare(&opts, argc, argv);   may re-exec the program
 *	recorder_start(&rec, &opts);           session active, we are traced
 *	... fire events ...
 *	recorder_finish(&rec, &counts);        stopped, destroyed, counted
 *
 * The session traces only this process (a VPID tracker), so other
 * icache-sim processes of the same user, traced by the same daemon, cannot
 * slip into the trace.
 */
#ifndef SIM_RECORD_H
#define SIM_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/cmd/trace_count.h"

struct recorder_opts {
	const char *dir;      /* absolute trace directory */
	bool blocking;        /* writers wait instead of discarding */
	uint64_t subbuf_size; /* bytes per sub-buffer, 0 = computed */
	unsigned num_subbuf;  /* sub-buffers per CPU ring, 0 = 4 */
	bool ring_given;      /* --buffer-size: split into packets <= 4 MiB */
	uint64_t ring_bytes;  /* what one CPU's events will take, 0 = unknown */
	/*
	 * No watcher process.  By default recorder_start leaves behind a
	 * small process (this program re-executed as `icache-sim record
	 * --watch`) that stops and destroys the session, and stops a daemon
	 * we started, if this process dies before recorder_finish: Ctrl-C,
	 * a deadlock report (the watchdog _exits), a crash.  Programs that
	 * are not icache-sim must set this.
	 */
	bool no_watcher;
	/*
	 * Stamp events with the virtual run's clock (record --virtual): load
	 * the clock plugin (sim/engine/vclock.h), which must happen at exec
	 * time, so recorder_prepare may re-exec for it too.
	 */
	bool virtual_clock;
};

struct recorder {
	char session[64];
	bool own_sessiond; /* we started the daemon: stop it */
	bool sessiond_stopped;
	int sessiond_pid;
	char sessiond_dir[256]; /* its pidfile, log and LTTNG_HOME */
	uint64_t subbuf_size;
	unsigned num_subbuf;
	double start_s, stop_s; /* time spent in start and stop */
	int watch_fd;           /* write end of the watcher's pipe, or -1 */
	int watcher_pid;        /* it registers with the daemon too */
};

/*
 * Make sure a session daemon is reachable and that this process registered
 * with it at startup (liblttng-ust registers in its constructor, long before
 * main).  If there is none, start one (the root daemon when we are root, a
 * private one with its own LTTNG_HOME otherwise) and re-exec argv so the
 * constructor of the new image registers with it.  Returns 0, or prints one
 * line and returns 2.  full_argv is main's argv.
 */
int recorder_prepare(const struct recorder_opts *o, char **full_argv);
/* Does a session daemon answer this process (or is it one recorder_prepare
 * started for us)?  Nothing is started to find out. */
bool recorder_daemon_answers(void);

int recorder_start(struct recorder *r, const struct recorder_opts *o);
int recorder_finish(struct recorder *r, const struct recorder_opts *o, struct trace_counts *counts);

/* `icache-sim record --watch ...`: the watcher itself (cmd_record calls it). */
int recorder_watch_main(int argc, char **argv);

/* Stop the daemon recorder_prepare started, if any (also on error paths). */
void recorder_stop_sessiond(struct recorder *r);

#endif /* SIM_RECORD_H */
