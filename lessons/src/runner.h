/*
 * runner.h - playing a lesson: the narrative beside the viewer's panes.
 */
#ifndef LESSON_RUNNER_H
#define LESSON_RUNNER_H

#include "lessons/src/lesson.h"

struct runner_opts {
	const char *keys;  /* non-NULL: no terminal; press these, print */
	int width, height; /* the screen for keys */
	int start;         /* the step to begin at (1-based); 0: where the
			     * student left off in a terminal, 1 with keys */
};

/* 0 done or quit, 1 the scenario could not be played, 2 bad input. */
int lesson_run(struct lesson *l, const struct runner_opts *o);

#endif
