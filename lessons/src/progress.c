/*
 * progress.c - the per-user progress file (see progress.h).
 *
 * Written whole to a temporary file and renamed, so two lessons open in
 * two terminals never leave half a file behind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lessons/src/progress.h"
#include "lib/xalloc.h"

static void mkdir_p(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

char *progress_dir(bool create)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char buf[4096];
	if (xdg && *xdg == '/')
		snprintf(buf, sizeof(buf), "%s/icache-lab", xdg);
	else if (home && *home)
		snprintf(buf, sizeof(buf), "%s/.local/state/icache-lab", home);
	else
		return NULL;
	if (create)
		mkdir_p(buf);
	return xstrdup(buf);
}

static char *progress_file(bool create)
{
	char *dir = progress_dir(create);
	if (!dir)
		return NULL;
	size_t n = strlen(dir) + 16;
	char *f = xmalloc(n);
	snprintf(f, n, "%s/progress", dir);
	free(dir);
	return f;
}

bool progress_get(const char *name, struct progress *p)
{
	memset(p, 0, sizeof(*p));
	char *path = progress_file(false);
	if (!path)
		return false;
	FILE *f = fopen(path, "r");
	free(path);
	if (!f)
		return false;
	char line[512], n[256];
	bool found = false;
	while (fgets(line, sizeof(line), f)) {
		int seen, total, done, right, asked, last = 0;
		char marks[PROGRESS_MAX_STEPS + 1] = "";
		if (sscanf(line, "%255s %d %d %d %d %d %d %64s", n, &seen, &total, &done, &right,
			   &asked, &last, marks) >= 6 &&
		    strcmp(n, name) == 0) {
			*p = (struct progress){ seen, total, done != 0, right, asked, last, "" };
			if (strcmp(marks, "~") != 0) /* "~": no marks */
				snprintf(p->marks, sizeof(p->marks), "%s", marks);
			found = true;
		}
	}
	fclose(f);
	return found;
}

bool progress_put(const char *name, const struct progress *p)
{
	char *path = progress_file(true);
	if (!path)
		return false;
	size_t n = strlen(path) + 16;
	char *tmp = xmalloc(n);
	snprintf(tmp, n, "%s.%d", path, (int)getpid());
	FILE *in = fopen(path, "r");
	FILE *out = fopen(tmp, "w");
	if (!out) {
		int e = errno;
		if (in)
			fclose(in);
		free(path);
		free(tmp);
		errno = e;
		return false;
	}
	char line[512], nm[256];
	while (in && fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%255s", nm) == 1 && strcmp(nm, name) == 0)
			continue;
		fputs(line, out);
	}
	if (in)
		fclose(in);
	fprintf(out, "%s %d %d %d %d %d %d %s\n", name, p->seen, p->total, p->done ? 1 : 0,
		p->right, p->asked, p->last, p->marks[0] ? p->marks : "~");
	bool ok = fclose(out) == 0 && rename(tmp, path) == 0;
	if (!ok)
		unlink(tmp);
	free(path);
	free(tmp);
	return ok;
}

void progress_exercises(const struct progress *p, int *solved, int *all)
{
	*solved = *all = 0;
	for (const char *m = p->marks; *m; m++) {
		*all += *m == 'x' || *m == 'X';
		*solved += *m == 'X';
	}
}
