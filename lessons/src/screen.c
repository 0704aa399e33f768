/*
 * screen.c - ncurses front end of the lesson (see screen.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <curses.h>
#include <stdio.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "lessons/src/screen.h"
#include "lib/keys.h"
#include "lib/term.h"
#include "lib/xalloc.h"

struct scr {
	bool utf8;
	bool suspended;
};

struct scr *scr_open(char *why, size_t len)
{
	if (!isatty(0) || !isatty(1)) {
		snprintf(why, len, "standard input and output must be a terminal");
		return NULL;
	}
	if (!term_usable("the lesson", "see icache-lesson --help for --keys", why, len))
		return NULL;
	setlocale(LC_ALL, "");
	struct scr *t = xcalloc(1, sizeof(*t));
	t->utf8 = term_locale_utf8();
	if (!newterm(NULL, stdout, stdin)) {
		snprintf(why, len, "ncurses cannot open the terminal TERM=%s", getenv("TERM"));
		free(t);
		return NULL;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	term_entered();
	term_palette_init(has_colors() && term_env_wants_color());
	return t;
}

void scr_close(struct scr *t)
{
	if (!t)
		return;
	endwin();
	term_left();
	free(t);
}

void scr_size(struct scr *t, int *w, int *h)
{
	(void)t;
	getmaxyx(stdscr, *h, *w);
	if (*w < 60)
		*w = 60;
	if (*h < 20)
		*h = 20;
}

bool scr_utf8(const struct scr *t)
{
	return t->utf8;
}

void scr_show(struct scr *t, const struct canvas *c)
{
	int sw, sh;
	getmaxyx(stdscr, sh, sw);
	erase();
	for (int y = 0; y < c->h && y < sh; y++) {
		for (int x = 0; x < c->w && x < sw; x++) {
			const struct cell *cl = &c->cells[y * c->w + x];
			wchar_t wc[2] = { (wchar_t)cl->ch, 0 };
			if (!t->utf8 && cl->ch > 0x7e)
				wc[0] = '?';
			cchar_t cc;
			attr_t attr;
			short pair;
			term_role(cl->role, &attr, &pair);
			setcchar(&cc, wc, attr, pair, NULL);
			mvadd_wch(y, x, &cc);
		}
	}
	refresh();
}

/* A curses key code as the runner knows it. */
static int from_curses(int k)
{
	switch (k) {
	case ERR:
		return SCR_EOF;
	case KEY_RESIZE:
		return SCR_RESIZE;
	case KEY_LEFT:
		return SCR_LEFT;
	case KEY_RIGHT:
		return SCR_RIGHT;
	case KEY_UP:
		return SCR_UP;
	case KEY_DOWN:
		return SCR_DOWN;
	case KEY_ENTER:
	case '\r':
		return '\n';
	default:
		return k;
	}
}

int scr_getkey(struct scr *t)
{
	(void)t;
	return from_curses(getch());
}

int scr_pending(struct scr *t)
{
	nodelay(stdscr, TRUE);
	int k = scr_getkey(t);
	nodelay(stdscr, FALSE);
	return k == SCR_RESIZE ? SCR_EOF : k;
}

void scr_suspend(struct scr *t)
{
	def_prog_mode();
	endwin();
	t->suspended = true;
}

void scr_resume(struct scr *t)
{
	if (!t->suspended)
		return;
	reset_prog_mode();
	refresh();
	t->suspended = false;
}

/* lib/keys.h's notation, plus <Print> (the lesson's own: print the
 * screen at this point of --keys). */
int scr_parse_keys(const char *s, int *out, int max)
{
	static const char print[] = "<Print>";
	int n = 0;
	while (*s && n < max) {
		const char *p = strstr(s, print);
		size_t len = p ? (size_t)(p - s) : strlen(s);
		char *part = xstrndup(s, len);
		int k = keys_parse(part, out + n, max - n);
		free(part);
		for (int i = n; i < n + k; i++)
			out[i] = from_curses(out[i]);
		n += k;
		if (!p)
			break;
		if (n < max)
			out[n++] = SCR_PRINT;
		s = p + sizeof(print) - 1;
	}
	return n;
}
