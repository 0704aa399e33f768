/*
 * play.h - running a scenario through `icache-sim play`.
 *
 * Lessons never link the simulator: they run it, the way a student would
 * from a shell, into a fresh temporary trace directory each time, so what
 * a lesson shows is exactly what `icache-sim play FILE -o DIR` records.
 */
#ifndef LESSON_PLAY_H
#define LESSON_PLAY_H

#include <stdbool.h>

struct play_result {
	int status;      /* play's exit status; -1 it did not run */
	char *output;    /* stdout and stderr, malloc'd */
	char *trace_dir; /* the directory given to -o, malloc'd (or NULL) */
};

/* The icache-sim to run: $ICACHE_SIM, else next to this program, else
 * the one on $PATH. */
const char *lp_sim_path(void);
/* The directory this program lives in (static). */
const char *lp_exe_dir(void);

/*
 * icache-sim play SCN [-o fresh-temp-dir] [extra args].  record=false runs
 * without -o (no LTTng session; just the exit status and output).
 */
bool lp_run(const char *scn, bool record, struct play_result *r);
/* ... with one more argument for play (NULL: none), e.g. "--verbose". */
bool lp_run_args(const char *scn, bool record, const char *extra, struct play_result *r);
/* Remove the trace directory and free the strings. */
void lp_result_free(struct play_result *r);

#endif
