/*
 * lesson.c - reading a .lesson file.
 *
 * The format is RFC 822 in spirit: "key: value" lines, a value continued
 * on the following indented lines, '#' comments, and "step:" starting each
 * step.  Everything that can be checked without running the scenario is
 * checked here (unknown keys, a question whose answer is not among its
 * choices, a moment that does not parse, a missing scenario file, a file
 * that ends in the middle of a step); lesson_check (check.c) does the rest
 * against a trace.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lessons/src/credit.h"
#include "lessons/src/lesson.h"
#include "lib/regfile.h"
#include "lib/xalloc.h"
#include "viewer/names.h"

/* ---- diagnostics ------------------------------------------------------ */

void ldiag_add(struct diag *d, const char *file, int line, const char *fmt, ...)
{
	char msg[600], full[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one line each, and nothing a terminal would take for a command */
	for (char *p = msg; *p; p++)
		if (*p == '\n')
			*p = ' ';
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	if (line > 0)
		snprintf(full, sizeof(full), "%s:%d: %s", file, line, msg);
	else
		snprintf(full, sizeof(full), "%s: %s", file, msg);
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 8;
		d->msg = xrealloc(d->msg, (size_t)d->cap * sizeof(*d->msg));
		d->line = xrealloc(d->line, (size_t)d->cap * sizeof(*d->line));
	}
	d->line[d->n] = line;
	d->msg[d->n++] = xstrdup(full);
}

/* In line order (a stable insertion sort: lessons are short). */
void ldiag_print(const struct diag *d, FILE *f)
{
	int *order = xmalloc((size_t)(d->n ? d->n : 1) * sizeof(*order));
	for (int i = 0; i < d->n; i++) {
		int j = i;
		while (j > 0 && d->line[order[j - 1]] > d->line[i]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	for (int i = 0; i < d->n; i++)
		fprintf(f, "%s\n", d->msg[order[i]]);
	free(order);
}

void ldiag_free(struct diag *d)
{
	free_strs(d->msg, (size_t)d->n);
	free(d->msg);
	free(d->line);
	memset(d, 0, sizeof(*d));
}

/* ---- panes ------------------------------------------------------------ */

static const char *const pane_names[NR_PANES] = { "lanes", "locks", "inode", "graph", "stats" };

const char *lesson_pane_name(int pane)
{
	return pane >= 0 && pane < NR_PANES ? pane_names[pane] : "?";
}

int lesson_pane_by_name(const char *s)
{
	for (int i = 0; i < NR_PANES; i++)
		if (strcmp(s, pane_names[i]) == 0)
			return i;
	return -1;
}

/* ---- the parser ------------------------------------------------------- */

enum key_scope { K_HEADER, K_STEP };

struct key_def {
	const char *name;
	enum key_scope scope;
	bool repeat;
};

static const struct key_def keys[] = {
	{ "title", K_HEADER, false },    { "goal", K_HEADER, true },
	{ "scenario", K_HEADER, false }, { "credit", K_HEADER, true },
	{ "step", K_STEP, false },       { "at", K_STEP, false },
	{ "show", K_STEP, false },       { "text", K_STEP, false },
	{ "ask", K_STEP, false },        { "choice", K_STEP, true },
	{ "answer", K_STEP, false },     { "explain", K_STEP, false },
	{ "hint", K_STEP, true },        { "drive", K_STEP, false },
	{ "edit", K_STEP, false },       { "reach", K_STEP, false },
	{ "solution", K_STEP, false },   { "compare", K_STEP, false },
	{ "require", K_STEP, true },     { "forbid", K_STEP, true },
	{ "rewind", K_STEP, false },
};

static const struct key_def *find_key(const char *name)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* One "key: value" with its continuation lines, as read. */
struct field {
	char key[32];
	char *value;
	size_t len, cap; /* of value, while continuation lines are added */
	int line;
};

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

/* One continuation line more; the buffer doubles, so a long value is
 * read in linear time. */
static void append(struct field *fl, const char *s)
{
	size_t b = strlen(s);
	if (fl->len + b + 2 > fl->cap) {
		fl->cap = 2 * (fl->len + b + 2);
		fl->value = xrealloc(fl->value, fl->cap);
	}
	if (fl->len)
		fl->value[fl->len++] = '\n';
	memcpy(fl->value + fl->len, s, b + 1);
	fl->len += b;
}

struct parser {
	struct lesson *l;
	struct diag *d;
	const char *file;
	struct step *cur; /* the step being read, or NULL in the header */
	bool seen[sizeof(keys) / sizeof(keys[0])];
};

static bool key_seen(struct parser *p, const struct key_def *k)
{
	return p->seen[k - keys];
}

static void finish_step(struct parser *p);

static void parse_show(struct parser *p, struct step *s, char *v, int line)
{
	s->show_line = line;
	for (char *item = strtok(v, ",;"); item; item = strtok(NULL, ",;")) {
		char what[32] = "", arg[64] = "";
		item = trim(item);
		if (!*item)
			continue;
		if (s->nshow == LESSON_MAX_SHOW) {
			ldiag_add(p->d, p->file, line, "show: at most %d items", LESSON_MAX_SHOW);
			return;
		}
		struct show_item *it = &s->show[s->nshow];
		if (sscanf(item, "%31s %63s", what, arg) < 1)
			continue;
		if (strncmp(what, "cpu", 3) == 0 && isdigit((unsigned char)what[3])) {
			snprintf(arg, sizeof(arg), "%s", what + 3);
			snprintf(what, sizeof(what), "cpu");
		}
		if (strcmp(what, "pane") == 0) {
			it->kind = SHOW_PANE;
			it->value = lesson_pane_by_name(arg);
			if (it->value < 0) {
				ldiag_add(
					p->d, p->file, line,
					"show: unknown pane '%s' (lanes, locks, inode, graph, stats)",
					arg);
				continue;
			}
		} else if (strcmp(what, "lock") == 0) {
			it->kind = SHOW_LOCK;
			it->value = lock_class_by_name(arg);
			if (it->value < 0) {
				ldiag_add(p->d, p->file, line, "show: '%s' is not a lock class",
					  arg);
				continue;
			}
		} else if (strcmp(what, "inode") == 0 || strcmp(what, "cpu") == 0) {
			char *end;
			unsigned long long n = strtoull(arg, &end, 10);
			if (!*arg || *end) {
				ldiag_add(p->d, p->file, line, "show: '%s' needs a number", what);
				continue;
			}
			it->kind = what[0] == 'i' ? SHOW_INODE : SHOW_CPU;
			it->ino = n;
			it->value = (int)n;
		} else {
			ldiag_add(p->d, p->file, line,
				  "show: unknown item '%s' (pane NAME, lock CLASS, inode N, cpu N)",
				  what);
			continue;
		}
		s->nshow++;
	}
}

static void set_moment(struct parser *p, struct moment *m, const char *key, const char *text,
		       int line)
{
	char err[300];
	if (!moment_parse(text, m, err, sizeof(err)))
		ldiag_add(p->d, p->file, line, "%s: %s", key, err);
}

static void header_field(struct parser *p, const struct key_def *k, struct field *f)
{
	struct lesson *l = p->l;
	if (strcmp(k->name, "title") == 0) {
		l->title = f->value;
	} else if (strcmp(k->name, "goal") == 0) {
		if (l->ngoals < 16)
			l->goals[l->ngoals++] = f->value;
		else
			free(f->value);
	} else if (strcmp(k->name, "credit") == 0) {
		char why[400];
		if (!credit_ok(f->value, l->dir, why, sizeof(why)))
			ldiag_add(p->d, p->file, f->line, "%s", why);
		if (l->ncredits < 16)
			l->credits[l->ncredits++] = f->value;
		else
			free(f->value);
	} else if (strcmp(k->name, "scenario") == 0) {
		l->scenario = f->value;
		l->scenario_line = f->line;
	}
	f->value = NULL;
}

/* require: / forbid: one more moment an edit exercise is judged by. */
static void check_field(struct parser *p, struct step *s, bool require, char *v, int line)
{
	int *n = require ? &s->nrequire : &s->nforbid;
	if (*n == LESSON_MAX_CHECKS) {
		ldiag_add(p->d, p->file, line, "at most %d %s: lines", LESSON_MAX_CHECKS,
			  require ? "require" : "forbid");
		free(v);
		return;
	}
	if (!s->check_line)
		s->check_line = line;
	(require ? s->require_text : s->forbid_text)[*n] = v;
	set_moment(p, &(require ? s->require : s->forbid)[*n], require ? "require" : "forbid", v,
		   line);
	(*n)++;
}

/* Keep v as step s's text for key n, with the line it is on, if n is a key
 * that keeps its text as written; at: and reach: are moments too. */
static bool text_field(struct parser *p, struct step *s, const char *n, char *v, int line)
{
	int no_line;
	const struct {
		const char *name;
		char **text;
		int *line;
	} fields[] = {
		{ "rewind", &s->rewind, &s->rewind_line },
		{ "text", &s->text, &s->text_line },
		{ "ask", &s->ask, &s->ask_line },
		{ "answer", &s->answer_text, &s->answer_line },
		{ "explain", &s->explain, &no_line },
		{ "solution", &s->solution, &s->solution_line },
		{ "compare", &s->compare, &s->compare_line },
		{ "at", &s->at_text, &s->at_line },
		{ "reach", &s->reach_text, &s->reach_line },
	};
	for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
		if (strcmp(n, fields[k].name) != 0)
			continue;
		*fields[k].text = v;
		*fields[k].line = line;
		if (strcmp(n, "at") == 0 || strcmp(n, "reach") == 0)
			set_moment(p, n[0] == 'a' ? &s->at : &s->reach, n, v, line);
		return true;
	}
	return false;
}

/* A repeated key's next value into list (of max, *count used); a line
 * that says so (what) past the limit. */
static void list_field(struct parser *p, char **list, int *count, int max, char *v, int line,
		       const char *what)
{
	if (*count == max) {
		ldiag_add(p->d, p->file, line, what, max);
		free(v);
	} else {
		list[(*count)++] = v;
	}
}

static void step_field(struct parser *p, const struct key_def *k, struct field *f)
{
	struct step *s = p->cur;
	const char *n = k->name;
	char *v = f->value;
	f->value = NULL;

	if (text_field(p, s, n, v, f->line)) {
		return;
	} else if (strcmp(n, "show") == 0) {
		char *copy = xstrdup(v);
		parse_show(p, s, copy, f->line);
		free(copy);
		free(v);
	} else if (strcmp(n, "choice") == 0) {
		list_field(p, s->choice, &s->nchoice, LESSON_MAX_CHOICES, v, f->line,
			   "at most %d choices");
	} else if (strcmp(n, "hint") == 0) {
		list_field(p, s->hint, &s->nhint, LESSON_MAX_HINTS, v, f->line,
			   "at most %d hint: lines (each one stronger)");
	} else if (strcmp(n, "drive") == 0 || strcmp(n, "edit") == 0) {
		if (s->kind != STEP_NARRATE) {
			ldiag_add(p->d, p->file, f->line,
				  "a step is either drive: or edit:, not both");
			free(v);
			return;
		}
		s->kind = n[0] == 'd' ? STEP_DRIVE : STEP_EDIT;
		s->scenario = v;
		s->scenario_line = f->line;
	} else if (strcmp(n, "require") == 0 || strcmp(n, "forbid") == 0) {
		check_field(p, s, n[0] == 'r', v, f->line);
	} else {
		free(v);
	}
}

/* Resolve what can only be judged once a step is complete. */
static void finish_step(struct parser *p)
{
	struct step *s = p->cur;
	const char *f = p->file;
	if (!s)
		return;
	if (!s->title || !*s->title)
		ldiag_add(p->d, f, s->line, "step: needs a title");
	else if (strchr(s->title, '\n'))
		ldiag_add(p->d, f, s->line, "step: a title is one line");
	if (!s->text)
		ldiag_add(p->d, f, s->line,
			  "step '%.*s' has no text:", s->title ? (int)strcspn(s->title, "\n") : 0,
			  s->title ? s->title : "");
	if (s->kind == STEP_NARRATE && !s->at_text)
		ldiag_add(p->d, f, s->line, "step '%.*s' has no at: (which moment it shows)",
			  s->title ? (int)strcspn(s->title, "\n") : 0, s->title ? s->title : "");
	if (s->kind != STEP_NARRATE && !s->at_text)
		s->at.kind = M_START;
	if (s->ask) {
		if (s->nchoice < 2)
			ldiag_add(p->d, f, s->ask_line, "ask: needs at least two choice: lines");
		if (!s->answer_text)
			ldiag_add(p->d, f, s->ask_line, "ask: has no answer:");
	} else if (s->nchoice || s->answer_text) {
		ldiag_add(p->d, f, s->nchoice ? s->line : s->answer_line,
			  "choice:/answer: without an ask:");
	}
	s->answer = -1;
	if (s->answer_text) {
		for (int i = 0; i < s->nchoice; i++)
			if (strcasecmp(s->choice[i], s->answer_text) == 0)
				s->answer = i;
		if (s->answer < 0 && s->ask)
			ldiag_add(p->d, f, s->answer_line, "answer: '%s' is not one of the choices",
				  s->answer_text);
	}
	if (s->kind != STEP_NARRATE) {
		const char *k = s->kind == STEP_DRIVE ? "drive" : "edit";
		if (!s->reach_text)
			ldiag_add(p->d, f, s->scenario_line,
				  "%s: needs a reach: (the goal, as a moment)", k);
		if (!s->solution)
			ldiag_add(
				p->d, f, s->scenario_line,
				"%s: needs a solution: so --check can prove the goal can be reached",
				k);
		/* what to look for, then where; the answer comes after them */
		if (s->nhint < 2)
			ldiag_add(
				p->d, f, s->scenario_line,
				"%s: needs graded hints: two hint: lines at least (what to look for, then where; the answer is shown after them)",
				k);
	} else {
		if (s->reach_text)
			ldiag_add(p->d, f, s->reach_line,
				  "reach: belongs to a drive: or edit: step");
		if (s->solution)
			ldiag_add(p->d, f, s->solution_line,
				  "solution: belongs to a drive: or edit: step");
	}
	if (s->compare && s->kind != STEP_DRIVE)
		ldiag_add(p->d, f, s->compare_line, "compare: belongs to a drive: step");
	if ((s->nrequire || s->nforbid) && s->kind != STEP_EDIT)
		ldiag_add(p->d, f, s->check_line, "require:/forbid: belong to an edit: step");
	if (s->kind == STEP_DRIVE && s->solution) {
		for (const char *c = s->solution; *c; c++)
			if (!isdigit((unsigned char)*c) && *c != ' ' && *c != 'u') {
				ldiag_add(
					p->d, f, s->solution_line,
					"solution: of a drive step is CPU keys 0-9 (and u), not '%c'",
					*c);
				break;
			}
	}
	p->cur = NULL;
}

static void new_step(struct parser *p, struct field *fl)
{
	struct lesson *l = p->l;
	finish_step(p);
	/* Doubling, not one more each time: parsing stays linear. */
	if ((l->nsteps & (l->nsteps - 1)) == 0)
		l->steps = xrealloc(l->steps,
				    (size_t)(l->nsteps ? 2 * l->nsteps : 1) * sizeof(*l->steps));
	p->cur = &l->steps[l->nsteps++];
	memset(p->cur, 0, sizeof(*p->cur));
	p->cur->line = fl->line;
	p->cur->title = fl->value;
	p->cur->answer = -1;
	fl->value = NULL;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].scope == K_STEP)
			p->seen[i] = false;
}

/* Take one complete field. */
static void take_field(struct parser *p, struct field *fl)
{
	const struct key_def *k = find_key(fl->key);
	if (!k) {
		ldiag_add(
			p->d, p->file, fl->line,
			"unknown key '%s' (header: title, goal, scenario, credit; step: step, at, show, text, ask, choice, answer, explain, hint, drive, edit, reach, solution, compare, require, forbid, rewind)",
			fl->key);
		goto out;
	}
	if (!fl->value || !*fl->value) {
		if (strcmp(k->name, "step") != 0) {
			ldiag_add(p->d, p->file, fl->line, "%s: has no value", fl->key);
			goto out;
		}
		free(fl->value);
		fl->value = xstrdup("");
	}
	if (strcmp(k->name, "step") == 0) {
		new_step(p, fl);
		return;
	}
	if (k->scope == K_HEADER && p->l->nsteps) {
		/* a step may name its own scenario through drive:/edit: */
		ldiag_add(p->d, p->file, fl->line,
			  "'%s' belongs in the header, before the first step:", fl->key);
		goto out;
	}
	if (k->scope == K_STEP && !p->cur) {
		ldiag_add(p->d, p->file, fl->line, "'%s' comes before any step: line", fl->key);
		goto out;
	}
	if (!k->repeat && key_seen(p, k)) {
		ldiag_add(p->d, p->file, fl->line, "%s: given twice%s", fl->key,
			  k->scope == K_STEP ? " in one step" : "");
		goto out;
	}
	p->seen[k - keys] = true;
	if (k->scope == K_HEADER)
		header_field(p, k, fl);
	else
		step_field(p, k, fl);
out:
	free(fl->value);
	fl->value = NULL;
}

static void lesson_names(struct lesson *l, const char *path)
{
	l->path = xstrdup(path);
	const char *slash = strrchr(path, '/');
	if (slash)
		l->dir = xstrndup(path, (size_t)(slash - path));
	else
		l->dir = xstrdup(".");
	const char *base = slash ? slash + 1 : path;
	const char *dot = strstr(base, ".lesson");
	l->name = dot ? xstrndup(base, (size_t)(dot - base)) : xstrdup(base);
	if (isdigit((unsigned char)base[0]) && isdigit((unsigned char)base[1]))
		l->number = (base[0] - '0') * 10 + (base[1] - '0');
}

/* A NUL or a control byte other than \n \t \r: how many. */
static size_t control_bytes(const char *buf, size_t len)
{
	size_t ctl = 0;

	for (size_t i = 0; i < len; i++)
		if (buf[i] == 0 || ((unsigned char)buf[i] < 0x20 && !strchr("\n\t\r", buf[i])))
			ctl++;
	return ctl;
}

/* "key: value" lines with indented continuations into fields; returns
 * the number of lines. */
static int parse_fields(struct parser *p, char *buf)
{
	struct lesson *l = p->l;
	struct diag *d = p->d;
	struct field fl = { .value = NULL };
	bool infield = false;
	int pending_blank = 0;
	int lineno = 0;

	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		if (strchr(line, '\r'))
			*strchr(line, '\r') = 0;
		if (line[0] == '#')
			continue;
		if (!*trim(line)) {
			if (infield)
				pending_blank++;
			continue;
		}
		if (line[0] == ' ' || line[0] == '\t') {
			if (!infield) {
				ldiag_add(
					d, l->path, lineno,
					"indented line outside a value (continuation lines follow a 'key:' line)");
				continue;
			}
			for (; pending_blank; pending_blank--)
				append(&fl, "");
			append(&fl, trim(line));
			continue;
		}
		if (infield)
			take_field(p, &fl);
		infield = false;
		pending_blank = 0;
		char *colon = strchr(line, ':');
		char *k = line;
		if (!colon) {
			ldiag_add(d, l->path, lineno, "expected 'key: value', got '%.40s'", line);
			continue;
		}
		*colon = 0;
		k = trim(k);
		if (!*k || strlen(k) >= sizeof(fl.key) || strpbrk(k, " \t")) {
			ldiag_add(d, l->path, lineno, "expected 'key: value', got '%.40s'", line);
			continue;
		}
		snprintf(fl.key, sizeof(fl.key), "%s", k);
		char *v = trim(colon + 1);
		fl.value = *v ? xstrdup(v) : NULL;
		fl.len = fl.value ? strlen(fl.value) : 0;
		fl.cap = fl.value ? fl.len + 1 : 0;
		fl.line = lineno;
		infield = true;
	}
	if (infield)
		take_field(p, &fl);
	return lineno;
}

/* "WHAT: cannot read 'FILE'" unless the file a lesson names is readable. */
static void need_readable(const struct lesson *l, struct diag *d, const char *rel, int line,
			  const char *what)
{
	char *sc = lesson_resolve(l, rel);

	if (access(sc, R_OK) != 0)
		ldiag_add(d, l->path, line, "%s: cannot read '%s'", what, sc);
	free(sc);
}

/* What a whole lesson must have, and the files it names. */
static void check_lesson(struct lesson *l, struct diag *d, int lineno)
{
	if (!l->title)
		ldiag_add(d, l->path, 1, "no title: line");
	if (!l->scenario)
		ldiag_add(d, l->path, 1, "no scenario: line (which .scn file the lesson plays)");
	if (!l->nsteps)
		ldiag_add(d, l->path, lineno ? lineno : 1, "no step: (is the file truncated?)");
	if (l->scenario)
		need_readable(l, d, l->scenario, l->scenario_line, "scenario");
	for (int i = 0; i < l->nsteps; i++) {
		struct step *s = &l->steps[i];
		if (s->scenario && strcmp(s->scenario, "same") != 0)
			need_readable(l, d, s->scenario, s->scenario_line,
				      s->kind == STEP_DRIVE ? "drive" : "edit");
		if (s->compare)
			need_readable(l, d, s->compare, s->compare_line, "compare");
		if (s->kind == STEP_EDIT && s->solution)
			need_readable(l, d, s->solution, s->solution_line, "solution");
	}
}

struct lesson *lesson_parse(const char *path, struct diag *d)
{
	size_t len;
	long line;
	char why[160];
	char *buf = read_text_file(path, &len, &line, why, sizeof(why));
	if (!buf) {
		ldiag_add(d, path, (int)line, "%s", why);
		return NULL;
	}
	struct lesson *l = xcalloc(1, sizeof(*l));
	lesson_names(l, path);
	/* A NUL or a run of control bytes: not a text file at all. */
	size_t ctl = control_bytes(buf, len);
	if (ctl) {
		ldiag_add(d, l->path, 1, "not a text file (%zu control bytes): is this a lesson?",
			  ctl);
		free(buf);
		return l;
	}
	struct parser p = { .l = l, .d = d, .file = l->path };
	bool cut = len && buf[len - 1] != '\n';
	int lineno = parse_fields(&p, buf);
	/* A file cut short most often ends inside a step, without a newline. */
	if (cut)
		ldiag_add(d, l->path, lineno, "the file ends in the middle of a line: truncated?");
	finish_step(&p);
	free(buf);
	check_lesson(l, d, lineno);
	return l;
}

static void step_free(struct step *s)
{
	free_strs(s->choice, (size_t)s->nchoice);
	free_strs(s->hint, (size_t)s->nhint);
	free_strs(s->require_text, (size_t)s->nrequire);
	free_strs(s->forbid_text, (size_t)s->nforbid);
	free_all(s->title, s->at_text, s->rewind, s->text, s->ask, s->answer_text, s->explain,
		 s->scenario, s->reach_text, s->solution, s->compare);
}

void lesson_free(struct lesson *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->nsteps; i++)
		step_free(&l->steps[i]);
	free_strs(l->goals, (size_t)l->ngoals);
	free_strs(l->credits, (size_t)l->ncredits);
	free_all(l->steps, l->title, l->scenario, l->path, l->dir, l->name, l);
}

char *lesson_resolve(const struct lesson *l, const char *rel)
{
	char *out;
	if (rel[0] == '/') {
		out = xstrdup(rel);
	} else {
		size_t n = strlen(l->dir) + strlen(rel) + 2;
		out = xmalloc(n);
		snprintf(out, n, "%s/%s", l->dir, rel);
	}
	return out;
}

const char *step_scenario(const struct lesson *l, const struct step *s)
{
	if (s->scenario && strcmp(s->scenario, "same") != 0)
		return s->scenario;
	return l->scenario;
}
