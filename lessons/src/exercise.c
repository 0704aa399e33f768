/*
 * exercise.c - edit exercises (see exercise.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lessons/src/exercise.h"
#include "lessons/src/progress.h"
#include "lessons/src/lesson_trace.h"
#include "lib/xalloc.h"

static bool copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "r");
	if (!in)
		return false;
	FILE *out = fopen(to, "w");
	if (!out) {
		fclose(in);
		return false;
	}
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	return fclose(out) == 0;
}

char *exercise_copy(const struct lesson *l, const struct step *s)
{
	char *dir = progress_dir(true);
	if (!dir)
		return NULL;
	size_t n = strlen(dir) + strlen(l->name) + 80;
	char *path = xmalloc(n);
	snprintf(path, n, "%s/work", dir);
	mkdir(path, 0755);
	snprintf(path, n, "%s/work/%s-step%d.scn", dir, l->name, (int)(s - l->steps) + 1);
	free(dir);
	if (access(path, R_OK) != 0) {
		char *src = lesson_resolve(l, step_scenario(l, s));
		bool ok = copy_file(src, path);
		free(src);
		if (!ok) {
			free(path);
			return NULL;
		}
	}
	return path;
}

int exercise_verdict(const struct step *s, const char *scn, char *msg, size_t len)
{
	struct lesson_trace t;
	int v;
	if (!lt_play(scn, &t)) {
		snprintf(msg, len, " %s", t.err);
		v = -1;
	} else if (lt_find(&t, &s->reach) >= 0) {
		snprintf(msg, len, " Checked: %s happens. Well done.", s->reach_text);
		v = 1;
	} else {
		snprintf(msg, len, " Played it: '%s' does not happen yet. e edits again.",
			 s->reach_text);
		v = 0;
	}
	lt_free(&t);
	return v;
}

static void run_editor(const char *path)
{
	const char *ed = getenv("VISUAL");
	if (!ed || !*ed)
		ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = "vi";
	pid_t pid = fork();
	if (pid == 0) {
		execlp("sh", "sh", "-c", "exec $0 \"$1\"", ed, path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0) {
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
}

bool exercise_edit(const struct lesson *l, const struct step *s, char *msg, size_t len,
		   bool interactive)
{
	char *path = exercise_copy(l, s);
	if (!path) {
		snprintf(msg, len, " cannot make a working copy of the scenario");
		return false;
	}
	if (interactive)
		run_editor(path);
	int v = exercise_verdict(s, path, msg, len);
	free(path);
	return v == 1;
}
