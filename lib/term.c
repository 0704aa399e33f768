/*
 * term.c - the terminal's palette and its cleanup on a fatal error (see
 * term.h).
 */
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <term.h>

#include "lib/term.h"
#include "lib/xalloc.h"

bool term_env_wants_color(void)
{
	const char *nc = getenv("NO_COLOR");
	const char *term = getenv("TERM");

	if (nc && *nc)
		return false;
	if (!term || !strcmp(term, "dumb"))
		return false;
	return true;
}

bool term_locale_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

/* Set once by term_palette_init() in the one UI thread. */
static attr_t role_attr[R__COUNT];
static short role_pair[R__COUNT];

/*
 * The palette, chosen to read on a projector: text in colour is bold, the
 * states that matter are high-contrast pairs (black on green, black on
 * yellow, white on red), and nothing is dim or blue on the default
 * background (a projector washes both out).  Without colours each role is
 * an attribute, so the screen still says everything.
 */
void term_palette_init(bool color)
{
	static const struct {
		int role;
		short fg, bg;
		attr_t cattr; /* with colour */
		attr_t mattr; /* monochrome */
	} p[] = {
		{ R_NORMAL, -1, -1, 0, 0 },
		{ R_TITLE, -1, -1, A_BOLD, A_BOLD },
		{ R_FOCUS, COLOR_BLACK, COLOR_CYAN, A_BOLD, A_BOLD | A_REVERSE },
		{ R_CURSOR, -1, -1, A_REVERSE | A_BOLD, A_REVERSE },
		{ R_DIM, -1, -1, 0, 0 },
		{ R_HOLD, COLOR_BLACK, COLOR_GREEN, 0, A_BOLD },
		{ R_WAIT, COLOR_BLACK, COLOR_YELLOW, 0, A_UNDERLINE },
		{ R_BAD, COLOR_WHITE, COLOR_RED, A_BOLD, A_BOLD | A_UNDERLINE },
		{ R_GOOD, COLOR_GREEN, -1, A_BOLD, 0 },
		{ R_WILLFREE, COLOR_WHITE, COLOR_MAGENTA, A_BOLD, A_BOLD | A_UNDERLINE },
		{ R_FREEING, COLOR_WHITE, COLOR_RED, A_BOLD, A_BOLD | A_REVERSE },
		{ R_STATUS, COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE },
		{ R_HEADER, COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD },
		{ R_MATCH, COLOR_BLACK, COLOR_CYAN, 0, A_STANDOUT },
		{ R_CLASS0, COLOR_BLACK, COLOR_GREEN, 0, A_BOLD },
		{ R_CLASS1, COLOR_BLACK, COLOR_YELLOW, 0, A_BOLD },
		{ R_CLASS2, COLOR_WHITE, COLOR_RED, A_BOLD, A_BOLD },
		{ R_CLASS3, COLOR_BLACK, COLOR_CYAN, 0, A_BOLD },
		{ R_CLASS4, COLOR_WHITE, COLOR_MAGENTA, A_BOLD, A_BOLD },
		{ R_CLASS5, COLOR_BLACK, COLOR_WHITE, 0, A_BOLD },
		{ R_CPU0, COLOR_BLACK, COLOR_GREEN, A_BOLD, A_BOLD | A_REVERSE },
		{ R_CPU1, COLOR_BLACK, COLOR_CYAN, A_BOLD, A_BOLD | A_UNDERLINE },
		{ R_CPU2, COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_BOLD | A_REVERSE },
		{ R_CPU3, COLOR_WHITE, COLOR_MAGENTA, A_BOLD, A_BOLD | A_UNDERLINE },
	};

	if (color) {
		start_color();
		use_default_colors();
	}
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		int r = p[i].role;
		if (color) {
			init_pair((short)(r + 1), p[i].fg, p[i].bg);
			role_pair[r] = (short)(r + 1);
			role_attr[r] = p[i].cattr;
		} else {
			role_pair[r] = 0;
			role_attr[r] = p[i].mattr;
		}
	}
}

bool term_usable(const char *what, const char *instead, char *why, size_t len)
{
	const char *term = getenv("TERM");
	int err = 0;
	if (!term || !*term) {
		snprintf(why, len,
			 "TERM is not set: set it to your terminal's type (e.g. "
			 "TERM=xterm-256color), or %s",
			 instead);
		return false;
	}
	if (setupterm(term, 1, &err) != OK) {
		snprintf(why, len,
			 "the terminal type TERM=%s is unknown here (no terminfo entry): try "
			 "TERM=xterm-256color, or %s",
			 term, instead);
		return false;
	}
	const char *cup = tigetstr("cup");
	bool ok = cup != NULL && cup != (char *)-1;
	del_curterm(cur_term);
	if (!ok)
		snprintf(
			why, len,
			"the terminal type TERM=%s cannot move the cursor, so %s cannot be drawn: %s",
			term, what, instead);
	return ok;
}

void term_role(int role, attr_t *attr, short *pair)
{
	if (role < 0 || role >= R__COUNT)
		role = R_NORMAL;
	*attr = role_attr[role];
	*pair = role_pair[role];
}

static void leave_curses(void)
{
	if (!isendwin())
		endwin();
}

void term_entered(void)
{
	fatal_hook_set(leave_curses);
}

void term_left(void)
{
	fatal_hook_set(NULL);
}
