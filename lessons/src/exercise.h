/*
 * exercise.h - "edit the scenario, and the tool checks it".
 *
 * The student gets a copy of the step's scenario in
 * $XDG_STATE_HOME/icache-lab/work/ (kept between sessions, like
 * vimtutor's copy), edits it in $VISUAL or $EDITOR (default vi), and the
 * tool plays it with `icache-sim play -o DIR --ctf-direct=auto` (no
 * session daemon needed) and judges the trace (see
 * exercise_judge), not the student's own expectations.
 */
#ifndef LESSON_EXERCISE_H
#define LESSON_EXERCISE_H

#include <stdbool.h>
#include <stddef.h>

#include "lessons/src/lesson.h"
#include "lessons/src/lesson_trace.h"

/* The student's copy (malloc'd), made from the step's scenario if new. */
char *exercise_copy(const struct lesson *l, const struct step *s);
/*
 * interactive: run the editor first.  Then judge the copy: 1 passed,
 * 0 not yet, -1 it did not play; msg says why in full, t keeps the
 * student's run for the panes (free it with lt_free unless -1).
 */
int exercise_edit(const struct lesson *l, const struct step *s, struct lesson_trace *t, char *msg,
		  size_t len, bool interactive);
/*
 * The verdict on a scenario file: its own expect lines are ignored; the
 * step's reach: and require: moments must happen, its forbid: moments
 * must not, and every CPU must finish its program.
 */
int exercise_judge(const struct step *s, const char *scn, struct lesson_trace *t, char *msg,
		   size_t len);

#endif
