/*
 * tty.h - the ncurses front end: indexing with a progress bar, then the
 * key loop.  The screen is the canvas the panes drew (canvas.h).
 */
#ifndef VIEWER_TTY_H
#define VIEWER_TTY_H

#include <stdbool.h>
#include <stddef.h>

#include "viewer/index.h"

struct tty_opts {
	bool no_color; /* forced off (--no-color); NO_COLOR and TERM=dumb too */
	bool ascii;    /* no UTF-8 glyphs even in a UTF-8 locale */
};

/* Finish loading ix (already ix_open'ed) on screen, then run the viewer.
 * Returns the exit status; on a load error, err has the one-line message
 * and the result is 2. */
int tty_run(struct trace_index *ix, const struct tty_opts *o, char *err, size_t errlen);

#endif
