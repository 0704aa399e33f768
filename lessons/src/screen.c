/*
 * screen.c - ncurses front end of the lesson (see screen.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <curses.h>
#include <stdio.h>
#include <term.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "lessons/src/screen.h"

struct scr {
	bool utf8;
	bool color;
	bool suspended;
	attr_t attr[R__COUNT];
};

static void palette(struct scr *t)
{
	/* Without colour every role that matters still looks different. */
	static const attr_t mono[R__COUNT] = {
		[R_TITLE] = A_REVERSE,   [R_FOCUS] = A_BOLD,
		[R_CURSOR] = A_REVERSE,  [R_DIM] = A_DIM,
		[R_HOLD] = A_BOLD,       [R_WAIT] = A_UNDERLINE,
		[R_BAD] = A_BOLD | A_UNDERLINE, [R_GOOD] = A_BOLD,
		[R_WILLFREE] = A_UNDERLINE, [R_FREEING] = A_BOLD | A_REVERSE,
		[R_STATUS] = A_REVERSE,  [R_HEADER] = A_BOLD,
		[R_MATCH] = A_STANDOUT,
	};
	for (int i = 0; i < R__COUNT; i++)
		t->attr[i] = mono[i];
	if (!t->color)
		return;
	static const short fg[R__COUNT] = {
		[R_TITLE] = COLOR_BLACK, [R_FOCUS] = COLOR_CYAN,
		[R_CURSOR] = COLOR_BLACK, [R_DIM] = -1, [R_HOLD] = COLOR_GREEN,
		[R_WAIT] = COLOR_YELLOW, [R_BAD] = COLOR_RED,
		[R_GOOD] = COLOR_GREEN, [R_WILLFREE] = COLOR_YELLOW,
		[R_FREEING] = COLOR_MAGENTA, [R_STATUS] = COLOR_BLACK,
		[R_HEADER] = COLOR_CYAN, [R_MATCH] = COLOR_BLACK,
	};
	static const short bg[R__COUNT] = {
		[R_TITLE] = COLOR_CYAN, [R_CURSOR] = COLOR_WHITE,
		[R_STATUS] = COLOR_WHITE, [R_MATCH] = COLOR_YELLOW,
	};
	start_color();
	use_default_colors();
	for (int i = 1; i < R__COUNT; i++) {
		init_pair((short)i, fg[i] ? fg[i] : -1, bg[i] ? bg[i] : -1);
		t->attr[i] |= COLOR_PAIR(i);
	}
}

/*
 * Can this terminal draw the lesson?  initscr() on an unknown TERM prints
 * its own error and exits, and on a dumb one draws nothing: ask terminfo
 * first and say what to do instead.
 */
static bool usable_term(char *why, size_t len)
{
	const char *term = getenv("TERM");
	int err = 0;
	if (!term || !*term) {
		snprintf(why, len, "TERM is not set: set it to your terminal's type (e.g. TERM=xterm-256color)");
		return false;
	}
	if (setupterm(term, 1, &err) != OK) {
		snprintf(why, len, "the terminal type TERM=%s is unknown here (no terminfo entry; try TERM=xterm-256color)",
			 term);
		return false;
	}
	bool ok = tigetstr("cup") != NULL && tigetstr("cup") != (char *)-1;
	del_curterm(cur_term);
	if (!ok)
		snprintf(why, len, "the terminal type TERM=%s cannot move the cursor, so the lesson cannot be drawn (run it in a terminal like xterm, or see --keys)",
			 term);
	return ok;
}

struct scr *scr_open(char *why, size_t len)
{
	if (!isatty(0) || !isatty(1)) {
		snprintf(why, len, "standard input and output must be a terminal");
		return NULL;
	}
	if (!usable_term(why, len))
		return NULL;
	setlocale(LC_ALL, "");
	struct scr *t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	const char *term = getenv("TERM");
	if (!newterm(NULL, stdout, stdin)) {
		snprintf(why, len, "ncurses cannot open the terminal TERM=%s", term);
		free(t);
		return NULL;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	t->color = has_colors() && !getenv("NO_COLOR") &&
		   !(term && strcmp(term, "dumb") == 0);
	palette(t);
	return t;
}

void scr_close(struct scr *t)
{
	if (!t)
		return;
	endwin();
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
			setcchar(&cc, wc, t->attr[cl->role < R__COUNT ? cl->role : 0],
				 0, NULL);
			mvadd_wch(y, x, &cc);
		}
	}
	refresh();
}

int scr_getkey(struct scr *t)
{
	(void)t;
	int k = getch();
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

int scr_parse_keys(const char *s, int *out, int max)
{
	static const struct {
		const char *name;
		int code;
	} names[] = { { "<Enter>", '\n' }, { "<Space>", ' ' },
		      { "<Left>", SCR_LEFT }, { "<Right>", SCR_RIGHT },
		      { "<Up>", SCR_UP }, { "<Down>", SCR_DOWN },
		      { "<lt>", '<' }, { "<Print>", SCR_PRINT } };
	int n = 0;
	while (*s && n < max) {
		bool named = false;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			size_t len = strlen(names[i].name);
			if (strncmp(s, names[i].name, len) == 0) {
				out[n++] = names[i].code;
				s += len;
				named = true;
				break;
			}
		}
		if (!named)
			out[n++] = (unsigned char)*s++;
	}
	return n;
}
