/*
 * trace.c - play, record, load (see trace.h).
 */
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lessons/src/lesson_trace.h"
#include "lib/xalloc.h"

static uint64_t value_of(const void *ctx, uint32_t id)
{
	return ix_id_value(ctx, id);
}

/*
 * The line of play's output that says what went wrong: a FILE:LINE:
 * message, a line from the recorder, or else the last line.
 */
static void telling_line(const char *out, char *buf, size_t len)
{
	static const char *const marks[] = { ".scn:",  "error",  "Error",
					     "cannot", "failed", "record:" };
	const char *best = NULL, *last = NULL;
	for (const char *p = out ? out : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n)
			last = p;
		for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]) && !best; i++) {
			const char *m = strstr(p, marks[i]);
			/* the title line "scenario F.scn: ..." is not an error */
			if (m && m < p + n && !(i == 0 && strncmp(p, "scenario ", 9) == 0))
				best = p;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	const char *p = best ? best : last ? last : "";
	const char *nl = strchr(p, '\n');
	size_t n = nl ? (size_t)(nl - p) : strlen(p);
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
}

/* Did play reject the scenario itself ("FILE:LINE: message")? */
static bool scenario_error(const char *out, const char *scn)
{
	size_t n = strlen(scn);
	for (const char *p = out ? out : ""; (p = strstr(p, scn)); p += n)
		if (p[n] == ':' && p[n + 1] >= '0' && p[n + 1] <= '9')
			return true;
	return false;
}

static bool lt_play_once(const char *scn, const char *how, struct lesson_trace *t);
static bool lt_record(const char *scn, const char *how, struct lesson_trace *t);

/*
 * Recording goes through the LTTng session daemon, which other programs
 * on the machine may be starting or stopping at that moment: a recording
 * that failed for a reason other than the scenario is tried once more.
 */
/* The directory of the pre-recorded traces, or NULL. */
static const char *shipped_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("ICACHE_TRACES");
	if (env && *env)
		return env;
	static const char *const rel[] = { "../traces", "../share/icache-lab/traces" };
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", lp_exe_dir(), rel[i]);
		if (access(dir, R_OK | X_OK) == 0)
			return dir;
	}
	return NULL;
}

bool lt_shipped(const char *scn, struct lesson_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->play.status = -1;
	const char *base = strrchr(scn, '/') ? strrchr(scn, '/') + 1 : scn;
	size_t n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".scn") == 0)
		n -= 4;
	const char *dir = shipped_dir();
	char path[PATH_MAX + 256], err[300];
	snprintf(path, sizeof(path), "%s/%.*s", dir ? dir : "(no traces directory)", (int)n, base);
	if (!dir || access(path, R_OK | X_OK) != 0) {
		snprintf(
			t->err, sizeof(t->err),
			"no LTTng session daemon to record %.100s, and no pre-recorded trace of it (%.200s; make traces records them)",
			base, path);
		return false;
	}
	t->ix = ix_load(path, err, sizeof(err));
	if (!t->ix) {
		snprintf(t->err, sizeof(t->err),
			 "the pre-recorded trace %.200s does not load: %.250s", path, err);
		return false;
	}
	/* no trace_dir: lt_free must never remove a shipped trace */
	t->play.output = xstrdup("");
	t->play.status = 0;
	t->shipped = true;
	return true;
}

bool lt_play_live(const char *scn, struct lesson_trace *t)
{
	if (lt_play_once(scn, "--ctf-direct=auto", t))
		return true;
	const char *out = t->play.output ? t->play.output : "";
	if (t->play.status == 127 || scenario_error(out, scn))
		return false; /* no icache-sim, or the scenario itself */
	/* A daemon answered but the recording failed (one starting or
	 * stopping, or broken): write this run directly rather than wait. */
	lt_free(t);
	return lt_play_once(scn, "--ctf-direct", t);
}

bool lt_play(const char *scn, struct lesson_trace *t)
{
	if (lt_record(scn, NULL, t))
		return true;
	/* The scenario itself is at fault: say so, whatever is shipped. */
	if (t->play.output && scenario_error(t->play.output, scn))
		return false;
	char why[sizeof(t->err)];
	snprintf(why, sizeof(why), "%s", t->err);
	lt_free(t);
	if (lt_shipped(scn, t))
		return true;
	char more[sizeof(t->err)];
	snprintf(more, sizeof(more), "%s", t->err);
	snprintf(t->err, sizeof(t->err), "%.300s (and %.180s)", why, more);
	return false;
}

/* Record scn through the session daemon, or as `how` (one more argument
 * for play) says (see lt_play, lt_play_live). */
static bool lt_record(const char *scn, const char *how, struct lesson_trace *t)
{
	for (int attempt = 0;; attempt++) {
		if (lt_play_once(scn, how, t))
			return true;
		const char *out = t->play.output ? t->play.output : "";
		/* "icache-sim record: lttng-sessiond said: ..." and the like;
		 * a scenario's own errors name its FILE:LINE instead. */
		bool recorder = !scenario_error(out, scn);
		if (t->ix == NULL && t->play.status <= 1 && t->play.status >= 0)
			recorder = true; /* it played; the trace did not load */
		if (t->play.status == 127 || !recorder || attempt == 2)
			return false; /* no icache-sim, or the scenario itself */
		lt_free(t);
		usleep(300000 * (unsigned)(attempt + 1));
	}
}

static bool lt_play_once(const char *scn, const char *how, struct lesson_trace *t)
{
	memset(t, 0, sizeof(*t));
	char line[300];
	if (!lp_run_args(scn, true, how, &t->play)) {
		telling_line(t->play.output, line, sizeof(line));
		snprintf(t->err, sizeof(t->err), "icache-sim play did not run: %s", line);
		return false;
	}
	if (t->play.status != 0 && t->play.status != 1) {
		telling_line(t->play.output, line, sizeof(line));
		snprintf(t->err, sizeof(t->err), "icache-sim play %s exited %d: %s", scn,
			 t->play.status, line);
		return false;
	}
	t->ix = ix_load(t->play.trace_dir, line, sizeof(line));
	if (!t->ix) {
		snprintf(t->err, sizeof(t->err), "the trace of %s does not load: %s", scn, line);
		return false;
	}
	return true;
}

void lt_free(struct lesson_trace *t)
{
	if (t->ix)
		ix_free(t->ix);
	lp_result_free(&t->play);
	memset(t, 0, sizeof(*t));
}

int64_t lt_find(const struct lesson_trace *t, const struct moment *m)
{
	return moment_find(m, t->ix->ev, t->ix->nev, value_of, t->ix);
}

uint64_t lt_obj(const struct lesson_trace *t, const struct ix_event *e)
{
	return ix_id_value(t->ix, e->obj);
}
