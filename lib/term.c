/*
 * term.c - the terminal's palette and its cleanup on a fatal error (see
 * term.h).
 */
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>

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
		{ R_FOCUS, COLOR_CYAN, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		{ R_CURSOR, -1, -1, A_REVERSE, A_REVERSE },
		{ R_DIM, COLOR_BLUE, -1, 0, A_DIM },
		{ R_HOLD, COLOR_GREEN, -1, 0, A_BOLD },
		{ R_WAIT, COLOR_YELLOW, -1, 0, A_UNDERLINE },
		{ R_BAD, COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		{ R_GOOD, COLOR_GREEN, -1, 0, 0 },
		{ R_WILLFREE, COLOR_MAGENTA, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		{ R_FREEING, COLOR_WHITE, COLOR_RED, A_BOLD, A_BOLD | A_REVERSE },
		{ R_STATUS, COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE },
		{ R_HEADER, COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD },
		{ R_MATCH, COLOR_BLACK, COLOR_YELLOW, 0, A_STANDOUT },
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
