/*
 * screen.h - the lesson's terminal: a canvas copied to ncurses, keys back.
 *
 * The viewer draws every frame into a canvas; this copies one to the
 * screen with the viewer's palette (lib/term.h: colours, or under NO_COLOR
 * and on terminals without colour, bold / reverse / underline, never
 * colour alone), and reads keys with a short escape delay.
 */
#ifndef LESSON_SCREEN_H
#define LESSON_SCREEN_H

#include <stdbool.h>
#include <stddef.h>

#include "viewer/canvas.h"

enum {
	SCR_EOF = -1,
	SCR_RESIZE = -2,
	SCR_LEFT = -3,
	SCR_RIGHT = -4,
	SCR_UP = -5,
	SCR_DOWN = -6,
	SCR_PRINT = -7 /* --keys only: <Print> prints the screen here */
};

struct scr;

/* NULL if the terminal cannot draw the lesson (why says what to do). */
struct scr *scr_open(char *why, size_t len);
void scr_close(struct scr *t);
void scr_size(struct scr *t, int *w, int *h);
bool scr_utf8(const struct scr *t);
void scr_show(struct scr *t, const struct canvas *c);
int scr_getkey(struct scr *t);
/* A key already typed, or SCR_EOF if none is waiting. */
int scr_pending(struct scr *t);
/* Leave curses for a child program (an editor), and come back. */
void scr_suspend(struct scr *t);
void scr_resume(struct scr *t);

/* --keys (lib/keys.h): "nn a<Enter><Left>" -> key codes as scr_getkey()
 * returns them; returns how many. */
int scr_parse_keys(const char *s, int *out, int max);

#endif
