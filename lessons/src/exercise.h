/*
 * exercise.h - "edit the scenario, and the tool checks it".
 *
 * The student gets a copy of the step's scenario in
 * $XDG_STATE_HOME/icache-lab/work/ (kept between sessions, like
 * vimtutor's copy), edits it in $VISUAL or $EDITOR (default vi), and the
 * tool plays it with `icache-sim play -o DIR` and looks for the step's
 * reach: moment in the trace.
 */
#ifndef LESSON_EXERCISE_H
#define LESSON_EXERCISE_H

#include <stdbool.h>
#include <stddef.h>

#include "lessons/src/lesson.h"

/* The student's copy (malloc'd), made from the step's scenario if new. */
char *exercise_copy(const struct lesson *l, const struct step *s);
/* interactive: run the editor first.  The verdict goes to msg. */
bool exercise_edit(const struct lesson *l, const struct step *s, char *msg, size_t len,
		   bool interactive);
/* Play a scenario file and look for the step's goal: 1 reached, 0 not,
 * -1 it did not play (msg says why). */
int exercise_verdict(const struct step *s, const char *scn, char *msg, size_t len);

#endif
