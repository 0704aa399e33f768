/*
 * catalog.c - the lessons directory and the lessons in it.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lessons/src/catalog.h"
#include "lessons/src/simexec.h"
#include "lib/xalloc.h"

static bool is_lesson_name(const char *n)
{
	size_t len = strlen(n);
	return len > 9 && isdigit((unsigned char)n[0]) && isdigit((unsigned char)n[1]) &&
	       n[2] == '-' && strcmp(n + len - 7, ".lesson") == 0;
}

static bool has_lessons(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	struct dirent *e;
	bool found = false;
	while (!found && (e = readdir(d)))
		found = is_lesson_name(e->d_name);
	closedir(d);
	return found;
}

const char *catalog_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("ICACHE_LESSONS");
	if (env && *env) {
		snprintf(dir, sizeof(dir), "%s", env);
		return dir;
	}
	const char *exe = lp_exe_dir();
	const char *tries[] = { "lessons", "%s/../../lessons", "%s/../lessons",
				"%s/../share/icache-lab/lessons" };
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		snprintf(dir, sizeof(dir), tries[i], exe);
		if (has_lessons(dir))
			return dir;
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **catalog_list(int *n)
{
	*n = 0;
	const char *dir = catalog_dir();
	char **list = xcalloc(1, sizeof(*list));
	if (!dir)
		return list;
	DIR *d = opendir(dir);
	if (!d)
		return list;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!is_lesson_name(e->d_name))
			continue;
		list = xrealloc(list, (size_t)(*n + 2) * sizeof(*list));
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		list[*n] = xmalloc(len);
		snprintf(list[*n], len, "%s/%s", dir, e->d_name);
		list[++*n] = NULL;
	}
	closedir(d);
	qsort(list, (size_t)*n, sizeof(*list), cmp);
	return list;
}

void catalog_free(char **list)
{
	for (char **p = list; p && *p; p++)
		free(*p);
	free(list);
}

char *catalog_find(const char *arg)
{
	if (strchr(arg, '/') || strstr(arg, ".lesson"))
		return access(arg, F_OK) == 0 ? xstrdup(arg) : NULL;
	int n;
	char **list = catalog_list(&n);
	char *found = NULL;
	char *end;
	long num = strtol(arg, &end, 10);
	for (int i = 0; i < n && !found; i++) {
		const char *base = strrchr(list[i], '/') + 1;
		if (end != arg && *end == 0 && atoi(base) == num)
			found = xstrdup(list[i]);
		else if (strncmp(base, arg, strlen(arg)) == 0)
			found = xstrdup(list[i]);
	}
	catalog_free(list);
	return found;
}
