/*
 * catalog.h - finding the shipped lessons: `icache-lesson 4` means the
 * file lessons/04-*.lesson.
 *
 * The lessons directory is $ICACHE_LESSONS, else ./lessons, else the
 * source tree's lessons/ seen from the build directory (BUILD/bin/..
 * /../lessons), else PREFIX/share/icache-lab/lessons.
 */
#ifndef LESSON_CATALOG_H
#define LESSON_CATALOG_H

/* The directory (static), or NULL if none has a .lesson file. */
const char *catalog_dir(void);
/* Sorted paths of every NN-*.lesson in it (malloc'd, NULL-terminated). */
char **catalog_list(int *n);
void catalog_free(char **list);
/* "4", "04", "04-nicks-order" or a path -> a path (malloc'd) or NULL. */
char *catalog_find(const char *arg);

#endif
