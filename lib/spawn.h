/*
 * spawn.h - run a program and capture what it prints.
 *
 * The one fork/exec-and-capture helper: the lesson runner runs
 * `icache-sim play` through it, and the test suites run every command
 * line they check through it (as `sh -c CMD`).
 */
#ifndef LIB_SPAWN_H
#define LIB_SPAWN_H

#include <stdbool.h>

/*
 * Run argv[0] (searched in $PATH) with argv, stdin from /dev/null; its
 * stdout, and its stderr too if with_stderr, go into *output (malloc'd,
 * NUL-terminated, never NULL).  Returns its exit status, -1 if it died of
 * a signal or could not be started (then *output says why).
 */
int spawn_capture(char *const argv[], bool with_stderr, char **output);

#endif /* LIB_SPAWN_H */
