/*
 * progress.h - what a student has done, kept per user.
 *
 * One text file, $XDG_STATE_HOME/icache-lab/progress (default
 * ~/.local/state/icache-lab/progress), one line per lesson:
 *
 *   NAME SEEN TOTAL DONE RIGHT ASKED
 *
 * (steps seen, steps in the lesson, 1 when finished, questions answered
 * right first time, questions asked).  Plain text so a teacher can look.
 */
#ifndef LESSON_PROGRESS_H
#define LESSON_PROGRESS_H

#include <stdbool.h>

struct progress {
	int seen, total;
	bool done;
	int right, asked;
};

/* The directory (malloc'd), created when create is true; NULL if no home. */
char *progress_dir(bool create);
/* false when the lesson has no line yet (p zeroed). */
bool progress_get(const char *name, struct progress *p);
/* Replace the lesson's line; false (and errno) if it cannot be written. */
bool progress_put(const char *name, const struct progress *p);

#endif
