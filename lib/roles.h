/*
 * roles.h - what a screen cell shows, not how: the palette (term.c) turns
 * a role into colours, or without colours into bold / reverse /
 * underline, so nothing is said by colour alone.
 */
#ifndef LIB_ROLES_H
#define LIB_ROLES_H

enum role {
	R_NORMAL,
	R_TITLE,
	R_FOCUS,
	R_CURSOR,
	R_DIM,
	R_HOLD,
	R_WAIT,
	R_BAD,
	R_GOOD,
	R_WILLFREE,
	R_FREEING,
	R_STATUS,
	R_HEADER,
	R_MATCH,
	R__COUNT
};

#endif /* LIB_ROLES_H */
