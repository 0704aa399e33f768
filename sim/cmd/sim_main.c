/*
 * main.c - icache-sim: the inode cache simulator's command line.
 *
 * Each subcommand is one entry of the table below: its name, the function
 * that runs it and its line in the help.  Exit status everywhere: 0 all
 * well, 1 a violation or failed expectation was found, 2 bad usage or input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cmd/cli.h"
#include "sim/core/scheme.h"

#ifndef ICACHE_VERSION
#define ICACHE_VERSION "0.1"
#endif

static bool wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}

static int cmd_run(int argc, char **argv)
{
	struct run_config cfg;
	struct run_flags fl = { 0 };
	struct run_result r;

	if (wants_help(argc, argv)) {
		printf("usage: icache-sim run [options]\n\n"
		       "Run a workload on simulated CPUs under one locking scheme and print\n"
		       "ops/s and a lock_stat-style table per lock class.  The invariant\n"
		       "checker runs at the end; the lock-order validator runs throughout.\n\n"
		       "options:\n%s\n"
		       "exit status: 0 ok, 1 a violation was found, 2 bad usage\n",
		       run_options_help());
		return 0;
	}
	run_config_defaults(&cfg);
	if (!parse_run_flags("run", argc, argv, &cfg, &fl))
		return 2;
	int status = run_workload(&cfg, &r, fl.inodes);
	status = finish_run("run", &cfg, &fl, &r, status, NULL);
	run_result_free(&r);
	return status;
}

/*
 * A listing command takes no argument: its usage for --help (0), a one-line
 * error for anything else (2); -1 when it should go on and list.
 */
static int listing_args(const char *cmd, const char *what, int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		printf("usage: icache-sim %s\n\n%s\n", cmd, what);
		return 0;
	}
	if (argc > 0) {
		fprintf(stderr, "icache-sim %s: unexpected argument '%s'\n", cmd, argv[0]);
		return 2;
	}
	return -1;
}

static int cmd_schemes(int argc, char **argv)
{
	int done = listing_args(
		"schemes", "List the locking schemes and their documented lock order.", argc, argv);
	if (done >= 0)
		return done;
	for (int i = 0; all_schemes[i]; i++) {
		const struct scheme *s = all_schemes[i];
		printf("%-15s %s\n", s->name, s->era);
		printf("%-15s %s\n", "", s->summary);
		printf("%-15s order: %s\n\n", "", scheme_order_text(s));
	}
	return 0;
}

static int cmd_workloads(int argc, char **argv)
{
	int done = listing_args("workloads", "List the workloads.", argc, argv);
	if (done >= 0)
		return done;
	for (int i = 0; all_workloads[i]; i++)
		printf("%-14s %s\n", all_workloads[i]->name, all_workloads[i]->summary);
	return 0;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "run", cmd_run, "run a workload and print lock statistics" },
	{ "record", cmd_record, "run a workload while LTTng records it into a trace" },
	{ "play", cmd_play, "replay a scenario: a scripted interleaving, step by step" },
	{ "explore", cmd_explore, "search randomized schedules for a violation" },
	{ "calibrate", cmd_calibrate, "measure this host's costs for run --virtual" },
	{ "schemes", cmd_schemes, "list the locking schemes and their lock order" },
	{ "workloads", cmd_workloads, "list the workloads" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: icache-sim COMMAND [options]\n\n"
		   "A simulator of the Linux inode cache under the locking schemes of\n"
		   "the 2010 inode_lock debate.\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n`icache-sim COMMAND --help` tells more; --version prints the version.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr,
			"icache-sim: no command given; usage: icache-sim COMMAND [options] (see icache-sim --help)\n");
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("icache-sim %s\n", ICACHE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 2, argv + 2);
	fprintf(stderr, "icache-sim: unknown command '%s' (see icache-sim --help)\n", argv[1]);
	return 2;
}
