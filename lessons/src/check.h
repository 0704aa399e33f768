/*
 * check.h - `icache-lesson --check FILE`: is this lesson sound?
 *
 * Static checks come from the parser (lesson.c).  Then the lesson's
 * scenario is played and recorded, and every step's moment must be found
 * in the trace; every drive step's solution keys must reach its goal, and
 * every edit step's solution scenario must reach its goal.
 */
#ifndef LESSON_CHECK_H
#define LESSON_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "lessons/src/lesson.h"

/* deep=false: the parser's checks only.  Prints FILE:LINE: lines to err;
 * returns the number of problems. */
int lesson_check(const char *path, bool deep, FILE *err);

#endif
