/*
 * keys.c - parsing the --keys notation (see keys.h).
 */
#include <curses.h>
#include <stdbool.h>
#include <string.h>

#include "lib/keys.h"

static const struct {
	const char *name;
	int key;
} key_names[] = {
	{ "Enter", '\n' },     { "CR", '\n' },       { "Tab", '\t' },         { "S-Tab", KEY_BTAB },
	{ "Esc", 27 },         { "Space", ' ' },     { "BS", KEY_BACKSPACE }, { "Up", KEY_UP },
	{ "Down", KEY_DOWN },  { "Left", KEY_LEFT }, { "Right", KEY_RIGHT },  { "PgUp", KEY_PPAGE },
	{ "PgDn", KEY_NPAGE }, { "Home", KEY_HOME }, { "End", KEY_END },      { "F1", KEY_F(1) },
	{ "F10", KEY_F(10) },  { "lt", '<' },        { "gt", '>' },
};

/* The key named between s[0] == '<' and the next '>', or -1. */
static int named_key(const char *s, const char **end)
{
	const char *e = strchr(s, '>');

	if (!e)
		return -1;
	for (size_t k = 0; k < sizeof(key_names) / sizeof(key_names[0]); k++)
		if (strlen(key_names[k].name) == (size_t)(e - s - 1) &&
		    !strncmp(key_names[k].name, s + 1, (size_t)(e - s - 1))) {
			*end = e + 1;
			return key_names[k].key;
		}
	return -1;
}

int keys_parse(const char *s, int *out, int max)
{
	int n = 0;

	while (*s && n < max) {
		int k;
		if (*s == '<' && (k = named_key(s, &s)) >= 0) {
			out[n++] = k;
		} else if (*s == '\\' && s[1] == 'n') {
			out[n++] = '\n';
			s += 2;
		} else {
			out[n++] = (unsigned char)*s++;
		}
	}
	return n;
}
