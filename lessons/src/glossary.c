/*
 * glossary.c - read lessons/GLOSSARY.md (see glossary.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/src/glossary.h"

static bool add_entry(struct glossary *g, const char *line, const char *section)
{
	const char *t = line + 4; /* after "- **" */
	const char *end = strstr(t, "**");
	if (!end)
		return true;
	struct gloss_entry *e = g->e;
	/* Doubling, not one more each time: reading stays linear. */
	if ((g->n & (g->n - 1)) == 0) {
		e = realloc(g->e, (size_t)(g->n ? 2 * g->n : 1) * sizeof(*e));
		if (!e)
			return false;
		g->e = e;
	}
	const char *m = end + 2;
	m += strspn(m, ": ");
	e[g->n].term = strndup(t, (size_t)(end - t));
	e[g->n].meaning = strdup(m);
	e[g->n].section = (char *)section;
	if (!e[g->n].term || !e[g->n].meaning)
		return false;
	g->n++;
	return true;
}

/* An indented line continues the entry before it. */
static bool continue_entry(struct glossary *g, const char *line)
{
	struct gloss_entry *e = &g->e[g->n - 1];
	const char *w = line + strspn(line, " \t");
	size_t n = strlen(e->meaning), m = strlen(w);
	char *both = realloc(e->meaning, n + m + 2);
	if (!both)
		return false;
	both[n] = ' ';
	memcpy(both + n + 1, w, m + 1);
	e->meaning = both;
	return true;
}

bool glossary_load(const char *path, struct glossary *g)
{
	memset(g, 0, sizeof(*g));
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char line[1024];
	const char *section = "";
	bool ok = true;
	while (ok && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "## ", 3) == 0 && g->nsections < 16) {
			char *s = strdup(line + 3);
			ok = s != NULL;
			if (ok)
				section = g->sections[g->nsections++] = s;
		} else if (strncmp(line, "- **", 4) == 0) {
			ok = add_entry(g, line, section);
		} else if (g->n && (line[0] == ' ' || line[0] == '\t') && line[1]) {
			ok = continue_entry(g, line);
		}
	}
	fclose(f);
	if (!ok)
		glossary_free(g);
	return ok;
}

void glossary_free(struct glossary *g)
{
	for (int i = 0; i < g->n; i++) {
		free(g->e[i].term);
		free(g->e[i].meaning);
	}
	free(g->e);
	for (int i = 0; i < g->nsections; i++)
		free(g->sections[i]);
	memset(g, 0, sizeof(*g));
}
