/*
 * session.h - one private temporary directory per lesson run.
 *
 * Every trace a lesson records, every scenario the scheduler writes and
 * every copy an exercise judges goes under it (TMPDIR points there for
 * this process and its children), so one removal cleans up everything:
 * at a normal exit, and from a signal handler on Ctrl-C, a kill or a crash.
 */
#ifndef LESSON_SESSION_H
#define LESSON_SESSION_H

#include <stdbool.h>

/* Make the directory and install the handlers; false: it says why on
 * stderr (the lesson can still run, without the clean-up). */
bool session_begin(void);
/* Catch the signals again after a library (ncurses) installed its own
 * handlers: ours runs first, then theirs. */
void session_catch(void);
/* Put the handlers back as they were (before initscr: ncurses installs
 * its own only where none is set; session_catch then chains to them). */
void session_release(void);
/* Remove the directory (normal exit). */
void session_end(void);
/* The directory, "" if none. */
const char *session_dir(void);

#endif
