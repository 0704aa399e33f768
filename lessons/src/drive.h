/*
 * drive.h - "you are the scheduler" (after The Deadlock Empire).
 *
 * The student presses a CPU's number to let that CPU run to its next step
 * that matters (a lock taken, dropped or tried, a change of state, count
 * or list; play's "cpuN next"); u takes the last press back.  Nothing
 * runs live: each press turns the base scenario into a new one whose
 * schedule is the presses so far, one "cpuN next" line each, and plays it
 * with `icache-sim play -o DIR --ctf-direct=auto` (through LTTng, or
 * written directly when no session daemon answers).  Play is deterministic, so replaying N
 * presses always lands on the same state, and undo is a replay of N-1.
 *
 * A press the scheduler refuses (the CPU is parked on a lock another CPU
 * holds, asleep on an inode, or finished) is not kept; the outcome says
 * why, in the simulator's words ("waits for i_lock inode 42, held by
 * cpu1").
 */
#ifndef LESSON_DRIVE_H
#define LESSON_DRIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "lessons/src/moment.h"
#include "lessons/src/lesson_trace.h"

#define DRIVE_MAX_KEYS 512

struct drive;

struct drive_outcome {
	bool reached; /* the goal moment is in the trace */
	int64_t reach_ev;
	bool refused;   /* a press could not run (it was dropped) */
	int refused_at; /* the index it had */
	int dropped;    /* presses dropped in all */
	char why[400];
	char last[400];        /* what the last press did, as a sentence */
	bool finished;         /* every CPU's program is over */
	bool deadlock;         /* the presses left every CPU blocked */
	int64_t boundary_ev;   /* the last event of the presses (-1: none) */
	struct lesson_trace t; /* the trace of the presses kept */
	bool have_trace;
};

struct drive *drive_new(const char *scenario);
/* Read the base scenario: CPUs, their programs. */
bool drive_load(struct drive *d, char *err, size_t len);
void drive_free(struct drive *d);

int drive_ncpus(const struct drive *d);
/* The program of a CPU as written in the scenario (one op a line). */
const char *drive_program(const struct drive *d, int cpu);
const char *drive_scheme(const struct drive *d);

void drive_push(struct drive *d, int cpu);
void drive_undo(struct drive *d);
int drive_nkeys(const struct drive *d);
int drive_key(const struct drive *d, int i);
void drive_copy_keys(struct drive *dst, const struct drive *src);

/* The scenario text the presses make (malloc'd). */
char *drive_scenario_text(const struct drive *d);

/*
 * Play the presses.  Each press play refuses is dropped (the outcome
 * says why, for the last one refused), with the later presses the same
 * reason refuses; the trace is that of the presses kept.  false only
 * when play itself failed (err says how).
 */
bool drive_replay(struct drive *d, const struct moment *goal, struct drive_outcome *o, char *err,
		  size_t len);
/* Only the first half of drive_replay: drop the presses play refuses,
 * without recording (o has no trace; free it all the same). */
bool drive_settle(struct drive *d, struct drive_outcome *o, char *err, size_t len);
void drive_outcome_free(struct drive_outcome *o);

#endif
