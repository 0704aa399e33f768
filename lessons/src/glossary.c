/*
 * glossary.c - read lessons/GLOSSARY.md (see glossary.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/src/glossary.h"
#include "lib/xalloc.h"

static void add_entry(struct glossary *g, const char *line, const char *section)
{
	const char *t = line + 4; /* after "- **" */
	const char *end = strstr(t, "**");
	if (!end)
		return;
	struct gloss_entry *e = g->e;
	/* Doubling, not one more each time: reading stays linear. */
	if ((g->n & (g->n - 1)) == 0) {
		e = xreallocarray(g->e, (size_t)(g->n ? 2 * g->n : 1), sizeof(*e));
		g->e = e;
	}
	const char *m = end + 2;
	m += strspn(m, ": ");
	e[g->n].term = xstrndup(t, (size_t)(end - t));
	e[g->n].meaning = xstrdup(m);
	e[g->n].section = (char *)section;
	g->n++;
}

/* An indented line continues the entry before it. */
static void continue_entry(struct glossary *g, const char *line)
{
	struct gloss_entry *e = &g->e[g->n - 1];
	const char *w = line + strspn(line, " \t");
	size_t n = strlen(e->meaning), m = strlen(w);
	char *both = xrealloc(e->meaning, n + m + 2);
	both[n] = ' ';
	memcpy(both + n + 1, w, m + 1);
	e->meaning = both;
}

bool glossary_load(const char *path, struct glossary *g)
{
	memset(g, 0, sizeof(*g));
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char line[1024];
	const char *section = "";
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "## ", 3) == 0 && g->nsections < 16) {
			section = g->sections[g->nsections++] = xstrdup(line + 3);
		} else if (strncmp(line, "- **", 4) == 0) {
			add_entry(g, line, section);
		} else if (g->n && (line[0] == ' ' || line[0] == '\t') && line[1]) {
			continue_entry(g, line);
		}
	}
	fclose(f);
	return true;
}

void glossary_free(struct glossary *g)
{
	for (int i = 0; i < g->n; i++) {
		free(g->e[i].term);
		free(g->e[i].meaning);
	}
	free(g->e);
	free_strs(g->sections, (size_t)g->nsections);
	memset(g, 0, sizeof(*g));
}
