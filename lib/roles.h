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
	/* Lock classes in the compact lanes and the timeline: class c is
	 * R_CLASS0 + c % R_NCLASS (its letter says it without colour). */
	R_CLASS0,
	R_CLASS1,
	R_CLASS2,
	R_CLASS3,
	R_CLASS4,
	R_CLASS5,
	/* a simulated CPU's own colour (the source pane's line marks),
	 * cpuN uses R_CPU0 + N % 4 */
	R_CPU0,
	R_CPU1,
	R_CPU2,
	R_CPU3,
	R__COUNT
};

#define R_NCLASS 6

#endif /* LIB_ROLES_H */
