/*
 * term.h - what icache-view and icache-lesson share about the terminal:
 * whether to use colours (NO_COLOR and TERM=dumb are honoured here and
 * nowhere else), whether the locale is UTF-8, the one palette, and the
 * hook that leaves curses before a fatal error is printed.
 */
#ifndef LIB_TERM_H
#define LIB_TERM_H

#include <curses.h>
#include <stdbool.h>

#include "lib/roles.h"

/* Does the environment allow colours (NO_COLOR unset or empty, TERM set
 * and not "dumb")?  The terminal's own has_colors() is asked separately. */
bool term_env_wants_color(void);
/* Is the locale's codeset UTF-8 (after setlocale)? */
bool term_locale_utf8(void);

/* Can this terminal be drawn on?  Asks terminfo before curses does:
 * newterm() on an unknown TERM prints its own error and exits, and on a
 * dumb one draws nothing.  If not, why says so in one line, naming what
 * cannot be drawn ("the viewer") and what to do instead. */
bool term_usable(const char *what, const char *instead, char *why, size_t len);

/* After initscr()/newterm(): start colours if color, set up the roles. */
void term_palette_init(bool color);
/* The attributes and colour pair of a role (R_NORMAL for unknown ones). */
void term_role(int role, attr_t *attr, short *pair);

/* Curses is on the screen: a fatal error leaves it first (xalloc.h). */
void term_entered(void);
/* Curses has been left (endwin()): nothing to undo any more. */
void term_left(void);

#endif /* LIB_TERM_H */
