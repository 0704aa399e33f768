/*
 * canvas.h - an off-screen grid of cells that every pane draws into.
 *
 * The terminal front end (tty.c) copies the grid to ncurses; --screen
 * prints it as text.  Both show the same grid, so a test of --screen output
 * tests what a user sees.  A cell holds one character and a role; the
 * palette (lib/term.c) turns roles into colours or, under NO_COLOR, into
 * attributes, and nothing is said by colour alone: every role that matters
 * also has a glyph.
 */
#ifndef VIEWER_CANVAS_H
#define VIEWER_CANVAS_H

#include <stdbool.h>
#include <stdint.h>
#include <wchar.h>

#include "lib/roles.h"

struct cell {
	uint32_t ch;
	uint8_t role;
};

struct canvas {
	int w, h;
	struct cell *cells;
	bool utf8; /* may use box drawing and other non-ASCII glyphs */
};

struct rect {
	int x, y, w, h;
};

void canvas_init(struct canvas *c, int w, int h, bool utf8);
void canvas_free(struct canvas *c);
void canvas_clear(struct canvas *c);
/* Write UTF-8 text at (x, y), clipped to the canvas and to maxw columns
 * (maxw < 0: to the right edge).  Text that does not fit ends with an
 * ellipsis ("…", "~" in ASCII) after its last whole word: a value is
 * never cut in the middle.  Returns the columns written. */
int canvas_text(struct canvas *c, int x, int y, int maxw, int role, const char *s);
int canvas_printf(struct canvas *c, int x, int y, int maxw, int role, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
void canvas_fill(struct canvas *c, int x, int y, int w, int role, uint32_t ch);
/* Recolour a run of cells without changing their characters. */
void canvas_role(struct canvas *c, int x, int y, int w, int role);
/* A frame with a title on its top edge. */
void canvas_box(struct canvas *c, struct rect r, const char *title, bool focused);
/* The canvas as UTF-8 text, one line per row, trailing blanks trimmed. */
char *canvas_to_text(const struct canvas *c);
/* Greedy word wrap: how many of the len bytes at s go on a line of room
 * columns (all if they fit, else up to the last space within room, else
 * room: a word longer than the line is cut). */
int canvas_wrap_cut(const char *s, int len, int room);

/* A glyph by name, UTF-8 if the canvas allows, ASCII if not. */
enum glyph { G_ARROW, G_CURSOR, G_WAIT, G_STAR, G_CROSS, G_CHECK, G_HOLD, G_DOT, G_WARN };
const char *glyph(const struct canvas *c, enum glyph g);

#endif
