/*
 * lesson.h - a lesson file, parsed.
 *
 * A lesson is a plain-text file (lessons/README.md documents the format):
 * a few header keys (title, goal, scenario, credit), then steps.  Each step
 * points at a moment of the scenario's trace, says what to highlight, and
 * tells its part of the story; it may ask a predict-first question, hand
 * the student the scheduler ("drive"), or ask for an edited scenario.
 *
 * The parser keeps the line of every value so that every complaint, from
 * the parser or from a later check against a trace, reads FILE:LINE.
 */
#ifndef LESSON_H
#define LESSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lessons/src/moment.h"

#define LESSON_MAX_CHOICES 8
#define LESSON_MAX_SHOW 8

/* What a step asks the student to look at. */
enum show_kind { SHOW_PANE, SHOW_LOCK, SHOW_INODE, SHOW_CPU };
enum pane_id { PANE_LANES, PANE_LOCKS, PANE_INODE, PANE_GRAPH, PANE_STATS, NR_PANES };

struct show_item {
	enum show_kind kind;
	int value; /* pane id, lock class, cpu */
	unsigned long long ino;
};

#define LESSON_MAX_CHECKS 6
#define LESSON_MAX_HINTS 3

enum step_kind {
	STEP_NARRATE, /* text at a moment */
	STEP_DRIVE,   /* you are the scheduler */
	STEP_EDIT     /* edit a scenario; the tool runs it */
};

struct step {
	int line; /* the "step:" line */
	char *title;
	enum step_kind kind;

	char *at_text; /* moment selector as written */
	int at_line;
	struct moment at;

	char *rewind; /* why this moment comes before the last */
	int rewind_line;

	struct show_item show[LESSON_MAX_SHOW];
	int nshow;
	int show_line;

	char *text; /* narrative, lines joined with '\n' */
	int text_line;

	/* Predict first: ask, then the choices, then the answer. */
	char *ask;
	int ask_line;
	char *choice[LESSON_MAX_CHOICES];
	int nchoice;
	char *answer_text; /* as written */
	int answer;        /* index into choice, -1 none */
	int answer_line;
	char *explain; /* shown once the student answered */
	/* Graded hints, shown one more per i: what to look for, then where;
	 * a drive step's last level is its solution. */
	char *hint[LESSON_MAX_HINTS];
	int nhint;

	/* drive / edit */
	char *scenario; /* path as written, relative to lesson */
	int scenario_line;
	char *reach_text; /* the goal, a moment selector */
	int reach_line;
	struct moment reach;
	char *solution; /* drive: keys; edit: a scenario path */
	int solution_line;
	char *compare; /* drive: rerun the keys on this scenario */
	int compare_line;
	/* edit: more moments that must all happen (require:) and moments
	 * that must not (forbid:); every CPU must also finish its program */
	char *require_text[LESSON_MAX_CHECKS];
	struct moment require[LESSON_MAX_CHECKS];
	int nrequire;
	char *forbid_text[LESSON_MAX_CHECKS];
	struct moment forbid[LESSON_MAX_CHECKS];
	int nforbid;
	int check_line; /* the first require:/forbid: */
};

struct lesson {
	char *path; /* as given */
	char *dir;  /* its directory, for relative paths */
	char *name; /* basename without .lesson */
	int number; /* NN of NN-name, or 0 */

	char *title;
	char *goals[16];
	int ngoals;
	char *credits[16];
	int ncredits;
	char *scenario;
	int scenario_line;

	struct step *steps;
	int nsteps;
};

/* A list of FILE:LINE: message lines. */
struct diag {
	char **msg;
	int *line;
	int n, cap;
};

void ldiag_add(struct diag *d, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void ldiag_print(const struct diag *d, FILE *f);
void ldiag_free(struct diag *d);

/*
 * Parse path.  Returns the lesson, or NULL when the file cannot be read or
 * the errors leave nothing usable; errors go to d either way (a lesson with
 * errors is still returned when it parsed far enough to be checked).
 */
struct lesson *lesson_parse(const char *path, struct diag *d);
void lesson_free(struct lesson *l);

/* A path written in the lesson, resolved against its directory (malloc). */
char *lesson_resolve(const struct lesson *l, const char *rel);
/* The scenario a step runs: its own, else the lesson's. */
const char *step_scenario(const struct lesson *l, const struct step *s);

const char *lesson_pane_name(int pane);
int lesson_pane_by_name(const char *s);

#endif
