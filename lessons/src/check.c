/*
 * check.c - `icache-lesson --check`: the parser's checks, then the lesson
 * run for real (see check.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/src/check.h"
#include "lessons/src/drive.h"
#include "lessons/src/exercise.h"
#include "lessons/src/lesson_trace.h"

/* Every step that shows the lesson's own scenario: is its moment there? */
static void check_moments(const struct lesson *l, const struct lesson_trace *t,
			  const char *scn, struct diag *d)
{
	for (int i = 0; i < l->nsteps; i++) {
		const struct step *s = &l->steps[i];
		if (s->kind != STEP_NARRATE || !s->at_text)
			continue;
		if (s->at.kind == M_SELECT && s->at.type < 0)
			continue;          /* did not parse: already reported */
		if (lt_find(t, &s->at) < 0)
			ldiag_add(d, l->path, s->at_line,
				 "at: '%s' never happens in the trace of %s (%llu events)",
				 s->at_text, scn, (unsigned long long)t->ix->nev);
	}
}

static void check_drive(const struct lesson *l, const struct step *s,
			struct diag *d)
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
		ldiag_add(d, l->path, s->solution_line,
			 "solution: key %d of '%s' is refused: %s", o.refused_at + 1,
			 s->solution, o.why);
	else if (!o.reached)
		ldiag_add(d, l->path, s->solution_line,
			 "solution: '%s' does not reach '%s' in %s", s->solution,
			 s->reach_text, scn);
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
				ldiag_add(d, l->path, s->compare_line, "compare: %s",
					 err);
			else if (o.reached)
				ldiag_add(d, l->path, s->compare_line,
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

static void check_edit(const struct lesson *l, const struct step *s,
		       struct diag *d)
{
	char *sol = lesson_resolve(l, s->solution);
	struct lesson_trace t;
	char msg[1200];
	int v = exercise_judge(s, sol, &t, msg, sizeof(msg));
	if (v != 1)
		ldiag_add(d, l->path, s->solution_line, "solution: %s: %s", sol,
			  msg);
	if (v >= 0)
		lt_free(&t);
	/* The scenario the student starts from must not already pass. */
	char *start = lesson_resolve(l, step_scenario(l, s));
	v = exercise_judge(s, start, &t, msg, sizeof(msg));
	if (v == 1)
		ldiag_add(d, l->path, s->scenario_line,
			  "edit: %s passes as it is: the exercise checks nothing",
			  start);
	if (v >= 0)
		lt_free(&t);
	free(start);
	free(sol);
}

int lesson_check(const char *path, bool deep, FILE *err)
{
	struct diag d = { 0 };
	struct lesson *l = lesson_parse(path, &d);
	if (l && !d.n && deep) {
		char *scn = lesson_resolve(l, l->scenario);
		struct lesson_trace t;
		if (!lt_play(scn, &t))
			ldiag_add(&d, l->path, l->scenario_line, "scenario: %s",
				 t.err);
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
