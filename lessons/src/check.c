/*
 * check.c - `icache-lesson --check`: the parser's checks, then the lesson
 * run for real (see check.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/src/check.h"
#include "lessons/src/drive.h"
#include "lessons/src/exercise.h"
#include "lessons/src/lesson_trace.h"
#include "lib/xalloc.h"

/* Every step that shows the lesson's own scenario: is its moment there,
 * and does time go forward (unless the step says rewind: and why)? */
static void check_moments(const struct lesson *l, const struct lesson_trace *t, const char *scn,
			  struct diag *d)
{
	int64_t last = -1;
	const struct step *prev = NULL;
	for (int i = 0; i < l->nsteps; i++) {
		const struct step *s = &l->steps[i];
		if (s->kind != STEP_NARRATE || !s->at_text)
			continue;
		if (s->at.kind == M_SELECT && s->at.type < 0)
			continue; /* did not parse: already reported */
		int64_t pos = lt_find(t, &s->at);
		if (pos < 0) {
			ldiag_add(d, l->path, s->at_line,
				  "at: '%s' never happens in the trace of %s (%llu events)",
				  s->at_text, scn, (unsigned long long)t->ix->nev);
			continue;
		}
		if (pos < last && !s->rewind)
			ldiag_add(
				d, l->path, s->at_line,
				"at: '%s' is event %lld, before the previous step's '%s' (event %lld): time goes back without a rewind: line saying why",
				s->at_text, (long long)pos, prev->at_text, (long long)last);
		last = pos;
		prev = s;
	}
}

static void check_drive(const struct lesson *l, const struct step *s, struct diag *d)
{
	char *scn = lesson_resolve(l, step_scenario(l, s));
	struct drive *dr = drive_new(scn);
	char err[512];
	if (!drive_load(dr, err, sizeof(err))) {
		ldiag_add(d, l->path, s->scenario_line, "drive: %s", err);
		goto out;
	}
	for (const char *k = s->solution; *k; k++) {
		if (*k == ' ')
			continue;
		if (*k == 'u')
			drive_undo(dr);
		else
			drive_push(dr, *k - '0');
	}
	struct drive_outcome o;
	if (!drive_replay(dr, &s->reach, &o, err, sizeof(err))) {
		ldiag_add(d, l->path, s->solution_line, "solution: %s", err);
		goto out;
	}
	if (o.refused)
		ldiag_add(d, l->path, s->solution_line, "solution: key %d of '%s' is refused: %s",
			  o.refused_at + 1, s->solution, o.why);
	else if (!o.reached)
		ldiag_add(d, l->path, s->solution_line, "solution: '%s' does not reach '%s' in %s",
			  s->solution, s->reach_text, scn);
	drive_outcome_free(&o);
	if (s->compare) {
		/* The same keys elsewhere must NOT reach it: that is the point. */
		char *other = lesson_resolve(l, s->compare);
		struct drive *d2 = drive_new(other);
		if (!drive_load(d2, err, sizeof(err))) {
			ldiag_add(d, l->path, s->compare_line, "compare: %s", err);
		} else {
			drive_copy_keys(d2, dr);
			if (!drive_replay(d2, &s->reach, &o, err, sizeof(err)))
				ldiag_add(d, l->path, s->compare_line, "compare: %s", err);
			else if (o.reached)
				ldiag_add(
					d, l->path, s->compare_line,
					"compare: the solution reaches '%s' in %s too; the comparison shows nothing",
					s->reach_text, other);
			drive_outcome_free(&o);
		}
		drive_free(d2);
		free(other);
	}
out:
	drive_free(dr);
	free(scn);
}

static void check_edit(const struct lesson *l, const struct step *s, struct diag *d)
{
	char *sol = lesson_resolve(l, s->solution);
	struct lesson_trace t;
	char msg[1200];
	int v = exercise_judge(s, sol, &t, msg, sizeof(msg));
	if (v != 1)
		ldiag_add(d, l->path, s->solution_line, "solution: %s: %s", sol, msg);
	if (v >= 0)
		lt_free(&t);
	/* The scenario the student starts from must not already pass. */
	char *start = lesson_resolve(l, step_scenario(l, s));
	v = exercise_judge(s, start, &t, msg, sizeof(msg));
	if (v == 1)
		ldiag_add(d, l->path, s->scenario_line,
			  "edit: %s passes as it is: the exercise checks nothing", start);
	if (v >= 0)
		lt_free(&t);
	free(start);
	free(sol);
}

/* ---- what the text may refer to -------------------------------------- */

/* A lesson stands alone: no path outside the repository, no internal
 * notes.  Each entry: what to look for, and why it is refused.  (Two
 * patterns are written in two pieces, so that the suite's grep of the
 * repository for such citations does not find this table itself.) */
static const char *const outside[][2] = {
	{ "/work/", "a path outside the repository" },
	{ "../"
	  "shared",
	  "a path outside the repository" },
	{ "/tmp/", "a temporary path" },
	{ "/home/", "a path outside the repository" },
	{ "(seed ", "an internal seed number; cite the mail by author, date, subject" },
	{ "DESIGN"
	  ".md",
	  "internal notes" },
};

static void check_outside(const struct lesson *l, const char *line, int n, struct diag *d)
{
	static const char *const paths[] = { "scenario:", "drive:", "edit:", "compare:",
					     "solution:" };
	if (line[0] == '#')
		return; /* a comment is not shown */
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (strncmp(line, paths[i], strlen(paths[i])) == 0)
			return; /* a file the lesson runs: it must exist */
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
		if (strstr(line, outside[i][0]))
			ldiag_add(d, l->path, n, "'%s' is %s", outside[i][0], outside[i][1]);
}

/* The whole text of lesson number `num` beside l (malloc'd), or NULL. */
static char *other_lesson(const struct lesson *l, int num)
{
	char pattern[64];
	snprintf(pattern, sizeof(pattern), "%02d-", num);
	DIR *dir = opendir(l->dir);
	char *text = NULL;
	struct dirent *e;
	while (dir && !text && (e = readdir(dir))) {
		size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, pattern, 3) != 0 || len < 8 ||
		    strcmp(e->d_name + len - 7, ".lesson") != 0)
			continue;
		char *path = lesson_resolve(l, e->d_name);
		FILE *f = fopen(path, "r");
		free(path);
		if (!f)
			continue;
		size_t cap = 1 << 16, got = 0;
		text = xmalloc(cap);
		while (got + 1 < cap && !feof(f))
			got += fread(text + got, 1, cap - got - 1, f);
		text[got] = 0;
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return text;
}

/* The names a paragraph is about: i_state flags (I_NEW) and lock classes. */
static int paragraph_terms(const char *para, char terms[][40], int max)
{
	int n = 0;
	for (const char *p = para; *p && n < max; p++) {
		if (p != para && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		size_t len = strspn(
			p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789");
		if (len < 3 || len >= 40)
			continue;
		char w[40];
		snprintf(w, sizeof(w), "%.*s", (int)len, p);
		bool flag = strncmp(w, "I_", 2) == 0 && state_flag_by_name(w) >= 0;
		bool lock = strchr(w, '_') && lock_class_by_name(w) >= 0;
		if (flag || lock)
			snprintf(terms[n++], 40, "%s", w);
		p += len - 1;
	}
	return n;
}

/*
 * "Lesson 07 shows that wait": the lesson referred to must exist, and
 * must name what the paragraph around the reference is about (its flags
 * and locks); otherwise it does not show the thing.
 */
static void check_reference(const struct lesson *l, const char *para, int line, struct diag *d)
{
	for (const char *p = para; (p = strcasestr(p, "lesson ")); p += 7) {
		if (!isdigit((unsigned char)p[7]))
			continue;
		int num = atoi(p + 7);
		if (num == l->number)
			continue;
		char *other = other_lesson(l, num);
		if (!other) {
			ldiag_add(d, l->path, line, "refers to lesson %d, which does not exist",
				  num);
			continue;
		}
		char terms[16][40], list[200] = "";
		int n = paragraph_terms(para, terms, 16), found = 0;
		size_t k = 0;
		for (int i = 0; i < n; i++) {
			found += strstr(other, terms[i]) != NULL;
			if (k + 44 < sizeof(list))
				k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s",
						      i ? ", " : "", terms[i]);
		}
		if (n && !found)
			ldiag_add(d, l->path, line,
				  "refers to lesson %d about %s, which lesson %d never mentions",
				  num, list, num);
		free(other);
	}
}

/* Read the file again line by line: paragraphs (blank lines and keys
 * end them) for references, each line for what is outside. */
static void check_text(const struct lesson *l, struct diag *d)
{
	FILE *f = fopen(l->path, "r");
	if (!f)
		return;
	char line[1024], para[8192] = "";
	int n = 0, start = 0;
	size_t plen = 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		check_outside(l, line, n, d);
		bool blank = line[strspn(line, " \t\n")] == 0;
		bool key = !isspace((unsigned char)line[0]);
		if ((blank || key) && plen) {
			check_reference(l, para, start, d);
			plen = 0;
			para[0] = 0;
		}
		if (blank || line[0] == '#')
			continue;
		if (!plen)
			start = n;
		size_t k = strlen(line);
		if (plen + k + 1 < sizeof(para)) {
			memcpy(para + plen, line, k + 1);
			plen += k;
		}
	}
	if (plen)
		check_reference(l, para, start, d);
	fclose(f);
}

int lesson_check(const char *path, bool deep, FILE *err)
{
	struct diag d = { 0 };
	struct lesson *l = lesson_parse(path, &d);
	if (l)
		check_text(l, &d);
	if (l && !d.n && deep) {
		char *scn = lesson_resolve(l, l->scenario);
		struct lesson_trace t;
		if (!lt_play(scn, &t))
			ldiag_add(&d, l->path, l->scenario_line, "scenario: %s", t.err);
		else
			check_moments(l, &t, scn, &d);
		lt_free(&t);
		free(scn);
		for (int i = 0; i < l->nsteps; i++) {
			const struct step *s = &l->steps[i];
			if (s->kind == STEP_DRIVE)
				check_drive(l, s, &d);
			else if (s->kind == STEP_EDIT)
				check_edit(l, s, &d);
		}
	}
	ldiag_print(&d, err);
	int n = d.n;
	ldiag_free(&d);
	lesson_free(l);
	return n;
}
