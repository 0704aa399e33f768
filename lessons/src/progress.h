/*
 * progress.h - what a student has done, kept per user.
 *
 * One text file, $XDG_STATE_HOME/icache-lab/progress (default
 * ~/.local/state/icache-lab/progress), one line per lesson:
 *
 *   NAME SEEN TOTAL DONE RIGHT ASKED LAST MARKS
 *
 * (steps seen, steps in the lesson, 1 when finished, questions answered
 * right first time, questions answered, the step to resume at (1-based),
 * and one mark per step: '.' a plain step, '-' a question not answered
 * yet, 'R' / 'W' its FIRST answer right / wrong, 'x' / 'X' an exercise
 * or scheduler step not solved / solved).  A first answer is never
 * overwritten, so a second run cannot undo it.  Lines written before
 * LAST and MARKS existed still read.  Plain text so a teacher can look.
 */
#ifndef LESSON_PROGRESS_H
#define LESSON_PROGRESS_H

#include <stdbool.h>

#define PROGRESS_MAX_STEPS 64

struct progress {
	int seen, total;
	bool done;
	int right, asked;
	int last; /* step to resume at, 1-based; 0 none */
	char marks[PROGRESS_MAX_STEPS + 1];
};

/* Exercises (x and X marks) in all and solved. */
void progress_exercises(const struct progress *p, int *solved, int *all);

/* The directory (malloc'd), created when create is true; NULL if no home. */
char *progress_dir(bool create);
/* false when the lesson has no line yet (p zeroed). */
bool progress_get(const char *name, struct progress *p);
/* Replace the lesson's line; false (and errno) if it cannot be written. */
bool progress_put(const char *name, const struct progress *p);

#endif
