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
#include <sys/types.h>

/*
 * pipe2(fds, O_CLOEXEC), stdio flushed (or the child would write the
 * parent's buffered output a second time), then fork(): 0 in the child,
 * the child's pid in the parent, -1 if either failed (then no end of the
 * pipe is left open, and errno says why).  What each end is for, and
 * closing the other, is the caller's.
 */
pid_t fork_piped(int fds[2]);

/*
 * Run argv[0] (searched in $PATH) with argv, stdin from /dev/null; its
 * stdout, and its stderr too if with_stderr, go into *output (malloc'd,
 * NUL-terminated, never NULL).  Returns its exit status, -1 if it died of
 * a signal or could not be started (then *output says why).
 */
int spawn_capture(char *const argv[], bool with_stderr, char **output);

/*
 * The same with stdout and stderr apart (both malloc'd, never NULL), for
 * a program whose error line must not land inside its output.  The
 * caller's own stderr is pointed at a temporary file while the child
 * runs (the child inherits it); single-threaded callers only.
 */
int spawn_capture_split(char *const argv[], char **output, char **errors);

#endif /* LIB_SPAWN_H */
