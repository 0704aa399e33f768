/*
 * glossary.h - lessons/GLOSSARY.md, read at run time for the `?` key.
 *
 * The file is the one source: an entry is a line "- **TERM**: meaning"
 * (indented lines continue it); "## Heading" lines start a section.
 */
#ifndef LESSON_GLOSSARY_H
#define LESSON_GLOSSARY_H

#include <stdbool.h>

struct gloss_entry {
	char *term;    /* without the ** */
	char *meaning; /* continuation lines joined */
	char *section; /* the heading it is under (shared, not owned) */
};

struct glossary {
	struct gloss_entry *e;
	int n;
	char *sections[16];
	int nsections;
};

/* false: the file cannot be read (g is empty). */
bool glossary_load(const char *path, struct glossary *g);
void glossary_free(struct glossary *g);

#endif
