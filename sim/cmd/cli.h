/*
 * cli.h - command-line parsing shared by the icache-sim subcommands.
 */
#ifndef SIM_CLI_H
#define SIM_CLI_H

#include <stdbool.h>

#include "sim/engine/run.h"

/* What the run-style commands (run, record) accept beyond run_config. */
struct run_flags {
	bool json;
	bool inodes;       /* list every final inode in the JSON */
	const char *graph; /* write the lock-order graph as DOT */
	const char *out;   /* record: the trace directory (-o) */
	bool allow_out;    /* this command takes -o */
};

/*
 * Parse run options from argv[first..]; on error print one line naming the
 * flag and value and return false (the caller exits 2).
 */
bool parse_run_flags(const char *cmd, int argc, char **argv, struct run_config *cfg,
		     struct run_flags *fl);

/* The options paragraph of --help, shared by run and record. */
/* The text of the options run and record share (a static buffer). */
const char *run_options_help(void);

/* Parse "5s", "250ms", "2m", "1.5s"; false if malformed. */
bool parse_duration(const char *s, uint64_t *ns);

/*
 * Can a result file be written at path?  Checked before the work starts, so
 * a long run does not end in "cannot write".  NULL if so, else why not.
 */
const char *output_file_problem(const char *path);

/* Print the run's report (text or JSON) and write --graph. Returns status. */
int finish_run(const char *cmd, const struct run_config *cfg, const struct run_flags *fl,
	       struct run_result *r, int status, const char *extra_json);

/* Subcommands living in other files. */
int cmd_record(int argc, char **argv);
int cmd_calibrate(int argc, char **argv); /* calibrate.c */
int cmd_play(int argc, char **argv);      /* play.c */
int cmd_explore(int argc, char **argv);   /* explore.c */

#endif
