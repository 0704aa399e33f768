/*
 * exercise.c - edit exercises (see exercise.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lessons/src/drive.h"
#include "lessons/src/exercise.h"
#include "lessons/src/progress.h"
#include "lessons/src/lesson_trace.h"
#include "viewer/app.h"
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

/*
 * The copy that is judged: the student's file without its expect lines
 * (what the student expects is not the verdict: the trace is), plus the
 * one expectation play needs to run.  Written to a temporary file.
 */
static char *judged_copy(const char *scn, char *msg, size_t len)
{
	FILE *in = fopen(scn, "r");
	if (!in) {
		snprintf(msg, len, "cannot read %s", scn);
		return NULL;
	}
	const char *tmp = getenv("TMPDIR");
	char path[512];
	snprintf(path, sizeof(path), "%s/icache-exercise.XXXXXX.scn", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemps(path, 4);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		if (fd >= 0)
			close(fd);
		fclose(in);
		snprintf(msg, len, "cannot write a temporary scenario");
		return NULL;
	}
	char line[1024];
	while (fgets(line, sizeof(line), in)) {
		const char *w = line + strspn(line, " \t");
		fputs(strncmp(w, "expect", 6) == 0 ? "\n" : line, out);
	}
	fclose(in);
	fputs("\nexpect no deadlock\n", out);
	if (fclose(out) != 0) {
		unlink(path);
		snprintf(msg, len, "cannot write a temporary scenario");
		return NULL;
	}
	return xstrdup(path);
}

/* Did every CPU of the scenario finish its program?  Play says
 * "cpuN is done" when one does. */
static int unfinished_cpu(const char *scn, const char *log)
{
	struct drive *d = drive_new(scn);
	char err[300];
	int bad = -1;
	if (drive_load(d, err, sizeof(err)))
		for (int c = 0; c < drive_ncpus(d) && bad < 0; c++) {
			char want[32];
			snprintf(want, sizeof(want), "   cpu%d is done", c);
			if (!strstr(log ? log : "", want))
				bad = c;
		}
	drive_free(d);
	return bad;
}

static size_t say(char *msg, size_t len, size_t k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t say(char *msg, size_t len, size_t k, const char *fmt, ...)
{
	if (k >= len)
		return k;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg + k, len - k, fmt, ap);
	va_end(ap);
	return n > 0 ? k + (size_t)n : k;
}

/* A report's layout (lockdep's two-column scenario) means nothing once
 * wrapped in a narrow column: one space between words. */
static void squeeze_spaces(char *s)
{
	char *o = s;
	for (const char *p = s; *p; p++) {
		char ch = *p == '\n' || *p == '\t' ? ' ' : *p;
		if (ch != ' ' || (o > s && o[-1] != ' '))
			*o++ = ch;
	}
	*o = 0;
}

/* Every check the step makes, on the trace; the failures go to msg. */
static int judge(const struct step *s, const char *scn, const struct lesson_trace *t, char *msg,
		 size_t len)
{
	size_t k = say(msg, len, 0, "Not yet.");
	int bad = 0;
	if (lt_find(t, &s->reach) < 0)
		bad++, k = say(msg, len, k, " '%s' does not happen.", s->reach_text);
	for (int i = 0; i < s->nrequire; i++)
		if (lt_find(t, &s->require[i]) < 0)
			bad++, k = say(msg, len, k, " '%s' does not happen.", s->require_text[i]);
	for (int i = 0; i < s->nforbid; i++) {
		int64_t e = lt_find(t, &s->forbid[i]);
		if (e < 0)
			continue;
		char what[700]; /* a validator's report, whole: the student reads it */
		event_text(t->ix, (uint64_t)e, false, what, sizeof(what));
		squeeze_spaces(what);
		bad++, k = say(msg, len, k, " '%s' happens (event %lld: %s).", s->forbid_text[i],
			       (long long)e, what);
	}
	int cpu = unfinished_cpu(scn, t->play.output);
	if (cpu >= 0)
		bad++, k = say(msg, len, k,
			       " cpu%d does not finish its program (a deadlock, or the schedule stops it).",
			       cpu);
	return bad;
}

int exercise_judge(const struct step *s, const char *scn, struct lesson_trace *t, char *msg,
		   size_t len)
{
	memset(t, 0, sizeof(*t));
	char *copy = judged_copy(scn, msg, len);
	if (!copy)
		return -1;
	/* no daemon: play writes the trace itself (lt_play_live) */
	bool ok = lt_play_live(copy, t);
	unlink(copy);
	free(copy);
	if (!ok && (t->play.status == 0 || t->play.status == 1)) {
		/* it played, but its recording cannot be read whole (a stream
		 * cut inside its only packet leaves nothing to load) */
		snprintf(
			msg, len,
			"The recording of your scenario is incomplete (%s): no verdict drawn from it. Check it again.",
			t->err);
		lt_free(t);
		return -1;
	}
	if (!ok) {
		snprintf(msg, len, "Your scenario does not play: %s", t->err);
		lt_free(t);
		return -1;
	}
	if (!ix_complete(t->ix)) {
		/* the instrument never lies: no verdict from a partial trace */
		snprintf(
			msg, len,
			"The recording of your scenario is incomplete (%s): no verdict drawn from it. Check it again.",
			t->ix->reasons[0]);
		lt_free(t);
		return -1;
	}
	if (judge(s, scn, t, msg, len))
		return 0;
	snprintf(msg, len, "Checked: '%s' happens, every CPU finishes%s. Well done.", s->reach_text,
		 s->nforbid ? ", and nothing forbidden happens" : "");
	return 1;
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

int exercise_edit(const struct lesson *l, const struct step *s, struct lesson_trace *t, char *msg,
		  size_t len, bool interactive)
{
	memset(t, 0, sizeof(*t));
	char *path = exercise_copy(l, s);
	if (!path) {
		snprintf(msg, len, "cannot make a working copy of the scenario");
		return -1;
	}
	if (interactive)
		run_editor(path);
	int v = exercise_judge(s, path, t, msg, len);
	free(path);
	return v;
}
