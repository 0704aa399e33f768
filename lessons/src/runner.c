/*
 * runner.c - a lesson on screen: the narrative on the left, the viewer's
 * panes on the right, one step at a time.
 *
 * The lesson's scenario is played through the recorder once (and again on
 * r); each step's moment is looked up in that trace, and the viewer's app
 * (viewer/app.h) is put at that event, so the panes on the right are the
 * viewer's own, drawn from the viewer's model.  A drive step swaps in the
 * trace of the student's schedule instead.
 *
 * Every frame is drawn from scratch into a canvas (viewer/canvas.h); the
 * terminal (screen.c) or --keys prints it.  Keys are handled the same way in
 * both, so the tmux test and --keys see what a student sees.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/src/drive.h"
#include "lessons/src/exercise.h"
#include "lessons/src/glossary.h"
#include "lessons/src/progress.h"
#include "lessons/src/runner.h"
#include "lessons/src/lesson_trace.h"
#include "lessons/src/screen.h"
#include "lessons/src/session.h"
#include "lib/xalloc.h"
#include "tracepoints/icache_enums.h"
#include "viewer/app.h"
#include "viewer/canvas.h"
#include "viewer/names.h"
#include "viewer/source.h"
#include "viewer/threads.h"

struct step_state {
	int answer;        /* the choice picked last, -1 none */
	int first;         /* the first choice picked (progress), -1 none */
	int tries;         /* 2 wrong tries reveal the answer */
	bool skipped_warn; /* n pressed once on an unanswered question */
	bool seen;
	int hint;    /* hints shown: 0 none, up to 3 (graded) */
	bool solved; /* a drive goal reached / an exercise passed */
};

/* A question is open until it is answered right or tried twice. */
static bool question_open(const struct step *s, const struct step_state *st)
{
	return s->ask && st->answer != s->answer && st->tries < 2;
}

/*
 * What the panes may see: a trace up to one event and no further.  The
 * index is shared (never edited, never copied); the app's visible end
 * (app_set_visible) stops at the moment, and every pane reads up to it
 * only, so none can print a later event: not the lanes, not the inode's
 * history, not the lock_stat totals, not an unprotected span that ends
 * after the moment.
 */
struct view {
	struct app app; /* app.ix: the trace, app.end: one past the moment */
	bool ok;
};

struct runner {
	struct lesson *l;
	const struct runner_opts *o;
	struct lesson_trace t;
	bool have_trace;
	struct view main; /* the lesson's trace, up to the step's moment */
	int64_t *pos;     /* per step: its event, -1 not found */
	struct step_state *ss;
	int cur;
	char msg[300];
	bool quit;

	/* the drive step under way */
	int drive_step; /* -1 none */
	struct drive *dr;
	struct drive_outcome out;
	bool have_out;
	struct view dview; /* the presses' trace, up to the last press */
	bool compare;      /* showing the same keys on the compare scenario */
	struct drive_outcome cmp;
	bool have_cmp;
	struct view cview;
	bool reached; /* the goal was reached at least once */
	bool stale;   /* presses not played yet */

	/* the glossary (lessons/GLOSSARY.md), shown over the panes */
	struct glossary gl;
	bool gl_loaded, gl_open;
	int gl_start, gl_next; /* this page's first entry, the next page's */
	int tab;               /* Tab presses in this step: the panes turn */

	/* the edit exercise's last verdict: the student's own run */
	int ex_step;    /* -1 none */
	int ex_verdict; /* 1 passed, 0 not yet, -1 did not play */
	char ex_msg[1200];
	struct lesson_trace ex_trace;
	bool have_ex;
	struct view eview;
};

/* ---- the viewer's panes ---------------------------------------------- */

static void view_close(struct view *v)
{
	if (v->ok)
		app_free(&v->app);
	v->ok = false;
}

/* The view of `full` up to event `upto` (-1: nothing yet). */
static void view_open(struct view *v, struct trace_index *full, int64_t upto)
{
	view_close(v);
	if (!full || upto < 0 || !full->nev)
		return;
	app_init(&v->app, full);
	app_set_visible(&v->app, (uint64_t)upto + 1);
	v->ok = true;
}

/* The viewer's pane for one of ours, by name; -1 if it has none. */
static int viewer_pane(int ours)
{
	static const enum view_pane id[NR_PANES] = {
		[PANE_LANES] = VIEW_LANES, [PANE_LOCKS] = VIEW_LOCKS, [PANE_INODE] = VIEW_INODE,
		[PANE_GRAPH] = VIEW_ORDER, [PANE_STATS] = VIEW_STATS,
	};
	return pane_index(id[ours]);
}

static void app_point(struct app *a, const struct step *s, int64_t ev)
{
	const struct trace_index *ix = a->ix;
	if (ev < 0)
		ev = 0;
	if ((uint64_t)ev >= a->end)
		ev = (int64_t)a->end - 1;
	app_goto(a, (uint64_t)ev);
	a->has_search = false;
	a->pinned = UINT32_MAX;
	a->message[0] = 0;
	if (!s)
		return;
	char q[128] = "";
	for (int i = 0; i < s->nshow; i++) {
		const struct show_item *it = &s->show[i];
		if (it->kind == SHOW_INODE) {
			int64_t id = ix_id_find(ix, it->ino);
			if (id >= 0)
				a->pinned = (uint32_t)id;
		} else if (it->kind == SHOW_LOCK) {
			snprintf(q, sizeof(q), "%s", lock_class_label(it->value));
		} else if (it->kind == SHOW_PANE) {
			int p = viewer_pane(it->value);
			if (p >= 0)
				a->focus = p;
		}
	}
	if (q[0]) {
		char err[128];
		a->has_search = query_parse(&a->search, ix, q, err, sizeof(err));
	}
}

/* ---- text layout ------------------------------------------------------- */

/*
 * A '|' line is shown as written; one too long for the column goes on
 * over the next lines (indented, broken at a space), never cut off.
 */
static bool draw_verbatim(struct canvas *c, struct rect r, int *y, const char *p, size_t n,
			  int indent, int width)
{
	const char *v = p + 1, *end = p + n;
	if (*v == ' ')
		v++;
	int lead = 0;
	while (v < end) {
		if (*y >= r.y + r.h)
			return false;
		int room = width - lead;
		size_t take = (size_t)canvas_wrap_cut(v, (int)(end - v), room);
		canvas_printf(c, r.x + indent + lead, (*y)++, room, R_HEADER, "%.*s", (int)take, v);
		v += take;
		while (v < end && *v == ' ')
			v++;
		lead = 4;
	}
	return true;
}

/*
 * Draw text wrapped into r from row *y on.  Lines are reflowed into
 * paragraphs; an empty line separates paragraphs; a line that starts with
 * '|' is kept as written (for small diagrams).  Returns false when it ran
 * out of room.
 */
static bool draw_wrapped(struct canvas *c, struct rect r, int *y, int role, const char *text,
			 int indent)
{
	char para[4096];
	size_t pn = 0;
	const char *p = text;
	int width = r.w - indent;
	if (width < 10)
		width = 10;
	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		bool verbatim = n && p[0] == '|';
		bool flush = !n || verbatim || !nl;
		if (!verbatim && n) {
			if (pn && pn < sizeof(para) - 1)
				para[pn++] = ' ';
			size_t k = n < sizeof(para) - pn - 1 ? n : sizeof(para) - pn - 1;
			memcpy(para + pn, p, k);
			pn += k;
		}
		if (flush && pn) {
			para[pn] = 0;
			/* greedy wrap */
			const char *s = para;
			while (*s) {
				if (*y >= r.y + r.h)
					return false;
				size_t take = (size_t)canvas_wrap_cut(s, (int)strlen(s), width);
				char line[512];
				snprintf(line, sizeof(line), "%.*s", (int)take, s);
				canvas_text(c, r.x + indent, (*y)++, width, role, line);
				s += take;
				while (*s == ' ')
					s++;
			}
			pn = 0;
		}
		if (verbatim && !draw_verbatim(c, r, y, p, n, indent, width))
			return false;
		if (!n && nl && *y < r.y + r.h)
			(*y)++; /* paragraph break */
		if (!nl)
			break;
		p = nl + 1;
	}
	return true;
}

/* A prefix ("b) ") then text wrapped under the text, not the prefix. */
static void draw_hanging(struct canvas *c, struct rect r, int *y, int role, const char *prefix,
			 const char *text)
{
	if (*y >= r.y + r.h)
		return;
	int pw = canvas_text(c, r.x, *y, r.w, role, prefix);
	draw_wrapped(c, r, y, role, text, pw);
}

/* ---- the narrative pane ---------------------------------------------- */

static void draw_question(struct runner *rn, const struct step *s, struct canvas *c, struct rect r,
			  int *y)
{
	const struct step_state *st = &rn->ss[rn->cur];
	bool open = question_open(s, st);
	(*y)++;
	draw_wrapped(c, r, y, R_HEADER, s->ask, 0);
	for (int i = 0; i < s->nchoice && *y < r.y + r.h; i++) {
		int role = R_NORMAL;
		const char *mark = "  ";
		if (!open && i == s->answer) {
			role = R_GOOD;
			mark = glyph(c, G_CHECK);
		} else if (st->answer == i || st->first == i) {
			role = R_BAD;
			mark = glyph(c, G_CROSS);
		}
		char prefix[32];
		snprintf(prefix, sizeof(prefix), " %s %c) ", mark, 'a' + i);
		draw_hanging(c, r, y, role, prefix, s->choice[i]);
	}
	if (st->answer < 0) {
		draw_wrapped(
			c, r, y, R_DIM,
			"Predict first: press a letter. The panes never show what comes after this moment.",
			0);
		return;
	}
	(*y)++;
	if (open) {
		draw_wrapped(
			c, r, y, R_BAD,
			"Not this one. Look at the panes again and pick another letter (one more try).",
			0);
		return;
	}
	char line[300];
	if (st->answer == s->answer)
		snprintf(line, sizeof(line), "Right%s.",
			 st->first != s->answer ? " on the second try" : "");
	else
		snprintf(line, sizeof(line), "Not this time: the answer is %c) %s.",
			 'a' + s->answer, s->choice[s->answer]);
	draw_wrapped(c, r, y, st->answer == s->answer ? R_GOOD : R_BAD, line, 0);
	if (s->explain)
		draw_wrapped(c, r, y, R_NORMAL, s->explain, 0);
}

/*
 * A CPU's program with its place marked, Deadlock Empire style: operations
 * done get a check, the one under way an arrow.  The place is read from
 * the op_end / op_begin events of the presses' trace (the setup's run
 * before the first scheduler step and do not count).
 */
static void program_progress(const struct runner *rn, int cpu, const struct canvas *c, char *buf,
			     size_t len)
{
	const char *prog = drive_program(rn->dr, cpu);
	int done = 0;
	bool inside = false;
	if (rn->have_out && rn->out.have_trace && rn->out.t.ix) {
		const struct trace_index *ix = rn->out.t.ix;
		/* The first scheduled op_begin comes just before the first
		 * sched_step (the step is counted after the event). */
		uint64_t start = 0;
		while (start < ix->nev && ix->ev[start].type != EV_sched_step)
			start++;
		if (start > 0 && start < ix->nev && ix->ev[start - 1].type == EV_op_begin)
			start--;
		/* The trace runs on past the presses (to the end of the
		 * scenario): count only up to the last event of the last one. */
		uint64_t end = rn->out.boundary_ev < 0 ? 0 : (uint64_t)rn->out.boundary_ev + 1;
		if (end > ix->nev)
			end = ix->nev;
		for (uint64_t i = start; i < end; i++) {
			const struct ix_event *e = &ix->ev[i];
			if (e->cpu != cpu)
				continue;
			if (e->type == EV_op_begin)
				inside = true;
			else if (e->type == EV_op_end) {
				inside = false;
				done++;
			}
		}
	}
	size_t k = 0;
	int op = 0;
	buf[0] = 0;
	for (const char *p = prog; *p && k + 8 < len; op++) {
		const char *semi = strstr(p, "; ");
		size_t n = semi ? (size_t)(semi - p) : strlen(p);
		const char *mark = op < done            ? glyph(c, G_CHECK) :
				   op == done && inside ? glyph(c, G_CURSOR) :
							  "";
		/* the mark stands apart: an ASCII check is a 'v' */
		k += (size_t)snprintf(buf + k, len - k, "%s%s%s%.*s", op ? "  " : "", mark,
				      *mark ? " " : "", (int)n, p);
		p = semi ? semi + 2 : p + n;
	}
}

/* How many hint levels a step has: its hint: lines, and for a drive or
 * edit step one more, the answer. */
static int hint_levels(const struct step *s)
{
	return s->nhint + (s->kind != STEP_NARRATE && s->solution);
}

static void draw_hints(struct runner *rn, const struct step *s, struct canvas *c, struct rect r,
		       int *y)
{
	int shown = rn->ss[rn->cur].hint;
	for (int i = 0; i < shown && i < hint_levels(s); i++) {
		char line[700];
		if (i < s->nhint)
			snprintf(line, sizeof(line), "Hint %d: %s", i + 1, s->hint[i]);
		else if (s->kind == STEP_DRIVE)
			snprintf(line, sizeof(line), "The answer: press %s", s->solution);
		else
			snprintf(
				line, sizeof(line),
				"The answer: the scenario %s beside the lesson is a fix that passes.",
				s->solution);
		(*y)++;
		draw_wrapped(c, r, y, R_DIM, line, 0);
	}
}

static void draw_drive(struct runner *rn, const struct step *s, struct canvas *c, struct rect r,
		       int *y)
{
	char line[600];
	(*y)++;
	canvas_text(c, r.x, (*y)++, r.w, R_HEADER, "YOU ARE THE SCHEDULER");
	snprintf(line, sizeof(line), "Goal: make this happen: %s", s->reach_text);
	draw_wrapped(c, r, y, R_NORMAL, line, 0);
	if (!rn->dr) {
		draw_wrapped(c, r, y, R_BAD, rn->msg, 0);
		return;
	}
	int n = drive_ncpus(rn->dr);
	snprintf(
		line, sizeof(line),
		"Keys: 0-%d run that CPU to its next step that matters; u undoes; r starts over%s.",
		n - 1, s->compare ? "; c shows the same schedule under the other scenario" : "");
	draw_wrapped(c, r, y, R_DIM, line, 0);
	for (int i = 0; i < n && *y < r.y + r.h; i++) {
		char prefix[24], prog[400];
		snprintf(prefix, sizeof(prefix), " cpu%d: ", i);
		program_progress(rn, i, c, prog, sizeof(prog));
		draw_hanging(c, r, y, R_NORMAL, prefix, prog);
	}
	int k = drive_nkeys(rn->dr);
	size_t len = (size_t)snprintf(line, sizeof(line), "Your schedule (%d): ", k);
	for (int i = k > 40 ? k - 40 : 0; i < k && len < sizeof(line) - 4; i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%d", drive_key(rn->dr, i));
	if (!k)
		snprintf(line + len, sizeof(line) - len, "(nothing yet)");
	draw_wrapped(c, r, y, R_NORMAL, line, 0);
	const struct drive_outcome *o = rn->compare && rn->have_cmp ? &rn->cmp :
					rn->have_out                ? &rn->out :
								      NULL;
	if (rn->compare && rn->have_cmp) {
		/* the verdict first, on a line of its own: it must not wrap */
		draw_wrapped(c, r, y, o->reached ? R_BAD : R_GOOD,
			     o->reached ? "CONTRAST: the goal is reached here too" :
					  "CONTRAST: the goal cannot be reached here",
			     0);
		snprintf(line, sizeof(line), "(your schedule, played on %s; c goes back)",
			 s->compare);
		draw_wrapped(c, r, y, R_DIM, line, 0);
	}
	if (o && o->last[0]) {
		snprintf(line, sizeof(line), "Last press: %s", o->last);
		draw_wrapped(c, r, y, R_NORMAL, line, 0);
	}
	if (o && o->refused) {
		snprintf(line, sizeof(line), "Refused: %.300s. %s not kept.", o->why,
			 o->dropped > 1 ? "Those presses were" : "That press was");
		draw_wrapped(c, r, y, R_WAIT, line, 0);
	} else if (o && o->why[0]) {
		draw_wrapped(c, r, y, R_DIM, o->why, 0);
	}
	if (o && o->deadlock)
		draw_wrapped(c, r, y, R_BAD, "Every CPU with work left is blocked: a deadlock.", 0);
	if (o && o->reached && !rn->compare) {
		(*y)++;
		draw_wrapped(c, r, y, R_GOOD,
			     "GOAL REACHED. Look at the panes: this is the interleaving.", 0);
		if (s->explain)
			draw_wrapped(c, r, y, R_NORMAL, s->explain, 0);
	} else if (o && o->finished && !o->reached) {
		draw_wrapped(
			c, r, y, R_BAD,
			"Every CPU has finished and the goal did not happen. Undo (u) or start over (r).",
			0);
	}
	draw_hints(rn, s, c, r, y);
}

static void draw_edit(struct runner *rn, const struct step *s, struct canvas *c, struct rect r,
		      int *y)
{
	char line[600];
	(*y)++;
	snprintf(
		line, sizeof(line),
		"EXERCISE: press e to edit a copy of %s in $EDITOR. When you save and quit, the tool plays it under the checker (your own expect lines do not count) and checks that '%s' happens and every CPU finishes.",
		s->scenario, s->reach_text);
	draw_wrapped(c, r, y, R_HEADER, line, 0);
}

/* The verdict on the student's scenario goes first, above the step's
 * text: a validator's report is long, and it must not run off the
 * bottom of a 120x40 screen. */
static void draw_edit_verdict(struct runner *rn, struct canvas *c, struct rect r, int *y)
{
	draw_wrapped(c, r, y, rn->ex_verdict == 1 ? R_GOOD : R_BAD, rn->ex_msg, 0);
	if (rn->have_ex)
		draw_wrapped(c, r, y, R_DIM, "The panes show your run, to its last event.", 0);
	(*y)++;
}

static void draw_narrative(struct runner *rn, struct canvas *c, struct rect r)
{
	const struct step *s = &rn->l->steps[rn->cur];
	char title[200];
	snprintf(title, sizeof(title), "Step %d/%d: %s", rn->cur + 1, rn->l->nsteps, s->title);
	canvas_box(c, r, title, true);
	struct rect in = { r.x + 2, r.y + 1, r.w - 4, r.h - 2 };
	int y = in.y;
	if (rn->cur == 0 && rn->l->ngoals) {
		canvas_text(c, in.x, y++, in.w, R_HEADER, "In this lesson you will:");
		for (int i = 0; i < rn->l->ngoals; i++) {
			char prefix[16];
			snprintf(prefix, sizeof(prefix), " %s ", glyph(c, G_DOT));
			draw_hanging(c, in, &y, R_NORMAL, prefix, rn->l->goals[i]);
		}
		y++;
	}
	if (s->rewind) {
		char line[600];
		snprintf(line, sizeof(line), "Back in time: %s", s->rewind);
		draw_wrapped(c, in, &y, R_WAIT, line, 0);
		y++;
	}
	if (s->kind == STEP_EDIT && rn->ex_step == rn->cur)
		draw_edit_verdict(rn, c, in, &y);
	if (s->text)
		draw_wrapped(c, in, &y, R_NORMAL, s->text, 0);
	if (s->ask)
		draw_question(rn, s, c, in, &y);
	if (s->kind == STEP_DRIVE)
		draw_drive(rn, s, c, in, &y);
	if (s->kind == STEP_EDIT)
		draw_edit(rn, s, c, in, &y);
	if (s->kind != STEP_DRIVE)
		draw_hints(rn, s, c, in, &y);
	if (rn->cur == rn->l->nsteps - 1 && rn->l->ncredits && y + 2 < in.y + in.h) {
		y++;
		canvas_text(c, in.x, y++, in.w, R_DIM, "Sources:");
		for (int i = 0; i < rn->l->ncredits; i++)
			draw_wrapped(c, in, &y, R_DIM, rn->l->credits[i], 1);
	}
}

/* ---- the right-hand side ---------------------------------------------- */

static bool first_is_pane(const struct step *s)
{
	for (int i = 0; i < s->nshow; i++)
		if (s->show[i].kind == SHOW_PANE)
			return true;
	return false;
}

static const char *code_cpu_name(const void *ix, unsigned cpu)
{
	return thread_name(ix, cpu);
}

/*
 * Scheduler mode shows the code, Deadlock Empire style: the scheme's file
 * with each CPU's next line marked.  The presses' trace goes on past the
 * presses (play runs every CPU to its end and records it), so a CPU's
 * next line is the line of its first event after them.
 */
static void draw_code(struct runner *rn, struct canvas *c, struct rect r)
{
	const struct drive_outcome *o = rn->compare && rn->have_cmp ? &rn->cmp :
					rn->have_out                ? &rn->out :
								      NULL;
	canvas_box(c, r, "Code: each CPU's next line", false);
	struct rect in = { r.x + 1, r.y + 1, r.w - 2, r.h - 2 };
	if (!o || !o->have_trace || !rn->dr) {
		canvas_text(c, in.x + 1, in.y, in.w - 2, R_DIM, "Press a CPU number to start.");
		return;
	}
	const struct trace_index *ix = o->t.ix;
	int k = drive_nkeys(rn->dr);
	int last = k ? drive_key(rn->dr, k - 1) : 0;
	struct src_cpu_mark marks[10];
	int n = 0, center = 0;
	for (int cpu = 0; cpu < drive_ncpus(rn->dr) && cpu < 10; cpu++) {
		uint64_t i = o->boundary_ev < 0 ? 0 : (uint64_t)o->boundary_ev + 1;
		for (; i < ix->nev; i++) {
			const struct ix_event *e = &ix->ev[i];
			if (e->cpu != cpu || !e->line || e->src != SRC_scheme)
				continue;
			marks[n++] = (struct src_cpu_mark){ (unsigned)cpu, e->src, e->line,
							    site_label(e->site), true };
			if (cpu == last || !center)
				center = e->line;
			break;
		}
	}
	source_draw(c, in, source_for_trace(ix), marks, n, center, code_cpu_name, ix);
}

static void draw_right(struct runner *rn, struct canvas *c, struct rect r)
{
	const struct step *s = &rn->l->steps[rn->cur];
	struct app *a = rn->main.ok ? &rn->main.app : NULL;
	if (s->kind == STEP_DRIVE)
		a = rn->compare && rn->cview.ok ? &rn->cview.app :
		    rn->dview.ok                ? &rn->dview.app :
						  NULL;
	else if (s->kind == STEP_EDIT && rn->ex_step == rn->cur && rn->eview.ok)
		a = &rn->eview.app;
	if (!a) {
		canvas_box(c, r, "trace", false);
		canvas_text(c, r.x + 2, r.y + 2, r.w - 4, R_DIM,
			    s->kind == STEP_DRIVE ? "Press a CPU number to start." : "No trace.");
		return;
	}
	int most = 3; /* panes under the code, in a drive step: two */
	if (s->kind == STEP_DRIVE && r.h >= 20) {
		int hh = r.h * 2 / 5;
		draw_code(rn, c, (struct rect){ r.x, r.y, r.w, hh });
		r.y += hh;
		r.h -= hh;
		most = 2;
	}
	/* The panes this step asks for, then the lanes and the locks. */
	int order[NR_PANES], n = 0;
	bool used[NR_PANES] = { false };
	for (int i = 0; i < s->nshow; i++)
		if (s->show[i].kind == SHOW_PANE && !used[s->show[i].value]) {
			used[s->show[i].value] = true;
			order[n++] = s->show[i].value;
		}
	bool inodes = false;
	for (uint64_t i = 0; i < a->end && !inodes; i++)
		inodes = a->ix->ev[i].type == EV_inode_alloc;
	const int deflt[] = { PANE_LANES, PANE_LOCKS, inodes ? PANE_INODE : PANE_GRAPH,
			      inodes ? PANE_GRAPH : PANE_INODE, PANE_STATS };
	int shown = n;
	for (int i = 0; i < NR_PANES; i++)
		if (!used[deflt[i]]) {
			used[deflt[i]] = true;
			shown += shown < most;
			order[n++] = deflt[i];
		}
	/* Tab turns the list: each press brings the next pane first. */
	int turned[NR_PANES];
	for (int i = 0; i < n; i++)
		turned[i] = order[(i + rn->tab) % n];
	memcpy(order, turned, sizeof(turned));
	n = shown;
	/* Heights: share the column, the first pane a little larger. */
	int y = r.y;
	for (int i = 0; i < n; i++) {
		int left = r.y + r.h - y;
		int hh = i == n - 1 ? left : (i == 0 ? r.h * 2 / 5 : r.h * 3 / 10);
		if (hh < 4)
			hh = 4;
		if (y + hh > r.y + r.h)
			hh = r.y + r.h - y;
		int vp = viewer_pane(order[i]);
		if (vp >= 0 && hh >= 4) {
			/* Boxed and titled the way icache-view boxes them; the
			 * pane the step asks for is the focused one. */
			bool focus = i == 0 && (rn->tab || (s->nshow && first_is_pane(s)));
			struct rect box = { r.x, y, r.w, hh };
			canvas_box(c, box, panes[vp]->title, focus);
			int saved = a->focus;
			a->focus = focus ? vp : -1;
			panes[vp]->draw(a, c, (struct rect){ r.x + 1, y + 1, r.w - 2, hh - 2 });
			a->focus = saved;
		}
		y += hh;
	}
}

static void glossary_open(struct runner *rn)
{
	if (!rn->gl_loaded) {
		char *path = lesson_resolve(rn->l, "GLOSSARY.md");
		rn->gl_loaded = glossary_load(path, &rn->gl);
		if (!rn->gl_loaded)
			snprintf(rn->msg, sizeof(rn->msg), " No glossary: cannot read %.200s",
				 path);
		free(path);
	}
	rn->gl_open = rn->gl_loaded && rn->gl.n;
	rn->gl_start = 0;
}

/* The glossary over the panes, one page; gl_next is where the next begins. */
static void draw_glossary(struct runner *rn, struct canvas *c, struct rect r)
{
	canvas_box(c, r, "Glossary: ? or space for more, any other key closes", true);
	struct rect in = { r.x + 2, r.y + 1, r.w - 4, r.h - 2 };
	int y = in.y;
	const char *section = NULL;
	int i = rn->gl_start;
	for (; i < rn->gl.n; i++) {
		const struct gloss_entry *e = &rn->gl.e[i];
		int before = y;
		if (e->section != section) {
			if (y + 2 >= in.y + in.h)
				break;
			canvas_text(c, in.x, y++, in.w, R_HEADER, e->section);
			section = e->section;
		}
		char prefix[80];
		snprintf(prefix, sizeof(prefix), "%.60s: ", e->term);
		int probe = y;
		struct rect rest = { in.x, y, in.w, in.y + in.h - y };
		if (y >= in.y + in.h)
			break;
		int pw = canvas_text(c, in.x, y, in.w, R_FOCUS, prefix);
		if (pw > 16) { /* a long term: its meaning below it */
			probe++;
			rest.y++;
			rest.h--;
			pw = 4;
		}
		if (!draw_wrapped(c, rest, &probe, R_NORMAL, e->meaning, pw)) {
			/* it did not fit: it starts the next page */
			for (int k = before; k < in.y + in.h; k++)
				canvas_fill(c, in.x, k, in.w, R_NORMAL, ' ');
			break;
		}
		y = probe;
	}
	rn->gl_next = i > rn->gl_start ? i : rn->gl.n;
}

/* The title line: the lesson's title, cut with a '~' where it would run
 * into what is drawn at the right (the step's moment), never into it. */
static int draw_title(struct runner *rn, struct canvas *c, int room)
{
	char head[300];
	int n = snprintf(head, sizeof(head), " icache-lesson %02d: %s", rn->l->number,
			 rn->l->title);
	if (room < 2)
		room = 2;
	if (n >= room && room < (int)sizeof(head)) {
		head[room - 2] = '~';
		head[room - 1] = 0;
	}
	canvas_fill(c, 0, 0, c->w, R_TITLE, ' ');
	canvas_text(c, 0, 0, c->w, R_TITLE, head);
	return (int)strlen(head);
}

static void draw(struct runner *rn, struct canvas *c)
{
	canvas_clear(c);
	const struct step *s = &rn->l->steps[rn->cur];
	char where[160] = "";
	if (rn->have_trace && s->kind == STEP_NARRATE && rn->pos[rn->cur] >= 0)
		snprintf(where, sizeof(where), "at: %s (event %lld of %llu)%s ", s->at_text,
			 (long long)rn->pos[rn->cur], (unsigned long long)rn->t.ix->nev,
			 rn->t.shipped ? " [pre-recorded]" : "");
	int wl = (int)strlen(where);
	int hl = draw_title(rn, c, c->w - wl) + 2;
	if (wl && wl < c->w)
		canvas_text(c, c->w - wl, 0, wl, R_TITLE, where);
	if (rn->have_trace && rn->t.ix && !ix_complete(rn->t.ix) && hl < c->w)
		/* The panes below come from a damaged trace: that goes first,
		 * over the moment if the line is short. */
		canvas_printf(c, hl, 0, c->w - hl, R_BAD, "INCOMPLETE TRACE (%u): %s",
			      rn->t.ix->nreasons, rn->t.ix->reasons[0]);
	int lw = c->w * 2 / 5;
	if (lw < 44)
		lw = 44;
	if (lw > c->w - 40)
		lw = c->w - 40;
	draw_narrative(rn, c, (struct rect){ 0, 1, lw, c->h - 2 });
	struct rect right = { lw, 1, c->w - lw, c->h - 2 };
	if (rn->gl_open)
		draw_glossary(rn, c, right);
	else
		draw_right(rn, c, right);
	const char *keys =
		s->kind == STEP_DRIVE ?
			" 0-9 run a CPU  u undo  c compare  n next  b back  r restart  i hint  Tab panes  ? glossary  q quit" :
		s->ask ?
			" a-h answer  space/n next  Left back  r replay  i hint  Tab panes  ? glossary  q quit" :
			" space/n next  b back  r replay  i hint  Tab panes  ? glossary  q quit";
	canvas_fill(c, 0, c->h - 1, c->w, R_STATUS, ' ');
	canvas_text(c, 0, c->h - 1, c->w, R_STATUS, rn->msg[0] ? rn->msg : keys);
}

/* ---- progress ----------------------------------------------------------- */

/* A step's mark in the progress file (see progress.h); a first answer
 * and a solved exercise, once written, stay. */
static char step_mark(const struct runner *rn, int i, char old)
{
	const struct step *s = &rn->l->steps[i];
	const struct step_state *st = &rn->ss[i];
	if (s->ask && (old == 'R' || old == 'W'))
		return old;
	if (s->ask)
		return st->first < 0 ? '-' : st->first == s->answer ? 'R' : 'W';
	if (s->kind != STEP_NARRATE)
		return old == 'X' || st->solved ? 'X' : 'x';
	return '.';
}

static void save_progress(struct runner *rn)
{
	struct progress p = { 0 };
	progress_get(rn->l->name, &p);
	int seen = 0, n = rn->l->nsteps;
	if (n > PROGRESS_MAX_STEPS)
		n = PROGRESS_MAX_STEPS;
	char old[PROGRESS_MAX_STEPS + 1];
	snprintf(old, sizeof(old), "%s", p.marks);
	if ((int)strlen(old) != n)
		old[0] = 0; /* the lesson changed: start the marks over */
	p.right = p.asked = 0;
	for (int i = 0; i < n; i++) {
		seen += rn->ss[i].seen;
		p.marks[i] = step_mark(rn, i, old[0] ? old[i] : '.');
		p.asked += p.marks[i] == 'R' || p.marks[i] == 'W';
		p.right += p.marks[i] == 'R';
	}
	p.marks[n] = 0;
	if (seen > p.seen)
		p.seen = seen;
	p.total = rn->l->nsteps;
	if (rn->ss[rn->l->nsteps - 1].seen)
		p.done = true;
	p.last = rn->cur + 1;
	progress_put(rn->l->name, &p);
}

/* ---- driving ------------------------------------------------------------ */

/* A view never outlives the trace it looks at: both go together. */
static void outcome_drop(struct drive_outcome *o, bool *have, struct view *v)
{
	view_close(v);
	if (*have)
		drive_outcome_free(o);
	*have = false;
}

static void drive_stop(struct runner *rn)
{
	outcome_drop(&rn->out, &rn->have_out, &rn->dview);
	outcome_drop(&rn->cmp, &rn->have_cmp, &rn->cview);
	drive_free(rn->dr);
	rn->dr = NULL;
	rn->compare = false;
	rn->drive_step = -1;
}

/* What ran after the presses (play runs the rest to the end) is not the
 * student's doing: the panes end at the last press. */
static void drive_show(struct drive_outcome *o, struct view *v, const struct step *s)
{
	view_open(v, o->have_trace ? o->t.ix : NULL, o->boundary_ev);
	if (v->ok)
		app_point(&v->app, s, (int64_t)v->app.end - 1);
}

static void drive_run(struct runner *rn)
{
	const struct step *s = &rn->l->steps[rn->cur];
	char err[400];
	outcome_drop(&rn->out, &rn->have_out, &rn->dview);
	if (!drive_replay(rn->dr, &s->reach, &rn->out, err, sizeof(err))) {
		snprintf(rn->msg, sizeof(rn->msg), " %.290s", err);
		return;
	}
	rn->have_out = true;
	if (rn->out.reached && !rn->reached) {
		rn->reached = true;
		rn->ss[rn->cur].solved = true;
		save_progress(rn);
	}
	drive_show(&rn->out, &rn->dview, s);
}

static void drive_begin(struct runner *rn)
{
	const struct step *s = &rn->l->steps[rn->cur];
	if (rn->drive_step == rn->cur)
		return;
	drive_stop(rn);
	char *scn = lesson_resolve(rn->l, step_scenario(rn->l, s));
	rn->dr = drive_new(scn);
	free(scn);
	char err[400];
	if (!drive_load(rn->dr, err, sizeof(err))) {
		snprintf(rn->msg, sizeof(rn->msg), " %.290s", err);
		drive_free(rn->dr);
		rn->dr = NULL;
		return;
	}
	rn->drive_step = rn->cur;
	rn->reached = false;
	rn->stale = true; /* no press yet: the panes show what the setup left */
}

static void drive_compare(struct runner *rn)
{
	const struct step *s = &rn->l->steps[rn->cur];
	if (!s->compare || !rn->dr)
		return;
	if (rn->compare) {
		rn->compare = false;
		return;
	}
	char *other = lesson_resolve(rn->l, s->compare);
	struct drive *d2 = drive_new(other);
	free(other);
	char err[400];
	outcome_drop(&rn->cmp, &rn->have_cmp, &rn->cview);
	if (drive_load(d2, err, sizeof(err))) {
		drive_copy_keys(d2, rn->dr);
		if (drive_replay(d2, &s->reach, &rn->cmp, err, sizeof(err))) {
			rn->have_cmp = true;
			rn->compare = true;
			drive_show(&rn->cmp, &rn->cview, s);
		}
	}
	if (!rn->have_cmp)
		snprintf(rn->msg, sizeof(rn->msg), " compare: %.280s", err);
	drive_free(d2);
}

/* ---- moving between steps --------------------------------------------- */

static void enter_step(struct runner *rn, int i)
{
	rn->cur = i;
	rn->tab = 0;
	rn->ss[i].seen = true;
	const struct step *s = &rn->l->steps[i];
	if (s->kind == STEP_DRIVE) {
		drive_begin(rn);
	} else if (rn->have_trace) {
		view_open(&rn->main, rn->t.ix, rn->pos[i] < 0 ? 0 : rn->pos[i]);
		if (rn->main.ok)
			app_point(&rn->main.app, s, rn->pos[i]);
	}
	save_progress(rn);
}

static bool load_trace(struct runner *rn)
{
	view_close(&rn->main);
	if (rn->have_trace)
		lt_free(&rn->t);
	rn->have_trace = false;
	char *scn = lesson_resolve(rn->l, rn->l->scenario);
	bool ok = lt_play(scn, &rn->t);
	free(scn);
	if (!ok) {
		fprintf(stderr, "%s:%d: scenario: %s\n", rn->l->path, rn->l->scenario_line,
			rn->t.err);
		lt_free(&rn->t);
		return false;
	}
	rn->have_trace = true;
	for (int i = 0; i < rn->l->nsteps; i++) {
		const struct step *s = &rn->l->steps[i];
		rn->pos[i] = s->kind == STEP_NARRATE ? lt_find(&rn->t, &s->at) : 0;
	}
	return true;
}

/* Play the presses made since the last frame (one play for a burst). */
static void settle(struct runner *rn)
{
	if (rn->stale && rn->dr && rn->drive_step == rn->cur)
		drive_run(rn);
	rn->stale = false;
}

static void exercise_drop(struct runner *rn)
{
	view_close(&rn->eview);
	if (rn->have_ex)
		lt_free(&rn->ex_trace);
	rn->have_ex = false;
	rn->ex_step = -1;
}

/* Edit, judge, and show the student's own run in the panes. */
static void edit_exercise(struct runner *rn, const struct step *s)
{
	exercise_drop(rn);
	rn->ex_verdict = exercise_edit(rn->l, s, &rn->ex_trace, rn->ex_msg, sizeof(rn->ex_msg),
				       rn->o->keys == NULL);
	rn->ex_step = rn->cur;
	rn->have_ex = rn->ex_verdict >= 0;
	if (rn->have_ex) {
		view_open(&rn->eview, rn->ex_trace.ix, (int64_t)rn->ex_trace.ix->nev - 1);
		if (rn->eview.ok)
			app_point(&rn->eview.app, s, (int64_t)rn->eview.app.end - 1);
	}
	if (rn->ex_verdict == 1) {
		rn->ss[rn->cur].solved = true;
		save_progress(rn);
	}
	snprintf(rn->msg, sizeof(rn->msg), " %s",
		 rn->ex_verdict == 1 ? "Passed: the verdict is on the left." :
				       "Not passed: the verdict is on the left; e edits again.");
}

/* r: a drive step drops its presses; elsewhere a fresh trace, step 1. */
static void replay(struct runner *rn, const struct step *s)
{
	if (s->kind == STEP_DRIVE && rn->dr) {
		while (drive_nkeys(rn->dr))
			drive_undo(rn->dr);
		drive_run(rn);
		return;
	}
	if (!load_trace(rn)) {
		rn->quit = true;
		return;
	}
	for (int i = 0; i < rn->l->nsteps; i++) {
		rn->ss[i].answer = -1; /* the first answers stay */
		rn->ss[i].tries = 0;
	}
	enter_step(rn, 0);
	snprintf(rn->msg, sizeof(rn->msg), " Replayed: a fresh trace, back to step 1.");
}

/* The keys of a drive or edit step; false if k is none of them. */
static bool step_key(struct runner *rn, const struct step *s, int k)
{
	if (s->kind == STEP_DRIVE && rn->dr && isdigit(k)) {
		int cpu = k - '0';
		if (cpu >= drive_ncpus(rn->dr)) {
			snprintf(rn->msg, sizeof(rn->msg), " There is no cpu%d here (0-%d).", cpu,
				 drive_ncpus(rn->dr) - 1);
			return true;
		}
		rn->compare = false;
		drive_push(rn->dr, cpu);
		rn->stale = true; /* played before the next frame */
	} else if (s->kind == STEP_DRIVE && rn->dr && k == 'u') {
		rn->compare = false;
		if (drive_nkeys(rn->dr)) {
			drive_undo(rn->dr);
			rn->stale = true;
		}
	} else if (s->kind == STEP_DRIVE && k == 'c') {
		settle(rn);
		drive_compare(rn);
	} else if (s->kind == STEP_EDIT && k == 'e') {
		edit_exercise(rn, s);
	} else {
		return false;
	}
	return true;
}

/* An open question takes its letters first (b is a choice there; Left
 * still goes back).  The first answer is the one progress keeps; a
 * second try is for understanding. */
static void answer(struct runner *rn, struct step_state *st, int k)
{
	if (k - 'a' == st->answer)
		return; /* the same wrong letter again */
	st->answer = k - 'a';
	if (st->first < 0)
		st->first = st->answer;
	st->tries++;
	save_progress(rn);
}

static void next_step(struct runner *rn, const struct step *s, struct step_state *st)
{
	settle(rn);
	if (s->ask && st->answer < 0 && !st->skipped_warn) {
		st->skipped_warn = true;
		snprintf(rn->msg, sizeof(rn->msg),
			 " Predict first: pick an answer (a-%c). Press n again to skip it.",
			 'a' + s->nchoice - 1);
		return;
	}
	if (rn->cur + 1 < rn->l->nsteps)
		enter_step(rn, rn->cur + 1);
	else
		snprintf(rn->msg, sizeof(rn->msg),
			 " That was the last step. q quits; icache-lesson lists the others.");
}

static void key(struct runner *rn, int k)
{
	const struct step *s = &rn->l->steps[rn->cur];
	struct step_state *st = &rn->ss[rn->cur];
	rn->msg[0] = 0;
	if (rn->gl_open) {
		/* ?, space or n: the next page; any other key closes it */
		if ((k == '?' || k == ' ' || k == 'n') && rn->gl_next < rn->gl.n)
			rn->gl_start = rn->gl_next;
		else
			rn->gl_open = false;
		return;
	}
	if (question_open(s, st) && k >= 'a' && k < 'a' + s->nchoice) {
		answer(rn, st, k);
	} else if (k == 'q' || k == 'Q') {
		rn->quit = true;
	} else if (k == ' ' || k == 'n' || k == SCR_RIGHT || k == '\n') {
		next_step(rn, s, st);
	} else if (k == 'b' || k == SCR_LEFT) {
		settle(rn);
		if (rn->cur > 0)
			enter_step(rn, rn->cur - 1);
	} else if (k == 'r') {
		replay(rn, s);
	} else if (k == '?') {
		glossary_open(rn);
	} else if (k == '\t') {
		rn->tab++;
		snprintf(
			rn->msg, sizeof(rn->msg),
			" Tab: the next pane comes first (the step's own return after the others).");
	} else if (k == 'i') {
		if (st->hint < hint_levels(s))
			st->hint++;
		if (!hint_levels(s))
			snprintf(rn->msg, sizeof(rn->msg), " No hint for this step.");
		else if (st->hint == hint_levels(s))
			snprintf(rn->msg, sizeof(rn->msg), " That was the last hint%s.",
				 s->kind != STEP_NARRATE ? ": the answer itself" : "");
	} else {
		step_key(rn, s, k);
	}
}

/* The editor needs the terminal back. */
static bool s_is_edit_key(const struct runner *rn, int k)
{
	return k == 'e' && rn->l->steps[rn->cur].kind == STEP_EDIT;
}

/* --keys: the screen as it is now, as text. */
static void print_screen(struct runner *rn)
{
	struct canvas c;
	canvas_init(&c, rn->o->width, rn->o->height, false);
	settle(rn);
	draw(rn, &c);
	char *text = canvas_to_text(&c);
	if (text)
		fputs(text, stdout);
	free(text);
	canvas_free(&c);
}

/* Where to begin: --step N, else where the student left off (in a
 * terminal, unless the lesson was finished), else step 1. */
static int first_step(struct runner *rn)
{
	const struct runner_opts *o = rn->o;
	int n = rn->l->nsteps;
	if (o->start > 0)
		return (o->start <= n ? o->start : n) - 1;
	struct progress p;
	if (o->keys || !progress_get(rn->l->name, &p) || p.last < 2 || p.last > n ||
	    (p.done && p.last == n))
		return 0;
	snprintf(rn->msg, sizeof(rn->msg),
		 " Resumed at step %d, where you left off: b goes back, r starts over.", p.last);
	return p.last - 1;
}

int lesson_run(struct lesson *l, const struct runner_opts *o)
{
	struct runner rn = { .l = l, .o = o, .drive_step = -1, .ex_step = -1 };
	rn.pos = xcalloc((size_t)l->nsteps, sizeof(*rn.pos));
	rn.ss = xcalloc((size_t)l->nsteps, sizeof(*rn.ss));
	for (int i = 0; i < l->nsteps; i++)
		rn.ss[i].answer = rn.ss[i].first = -1;
	int rc = 0;
	if (!load_trace(&rn)) {
		rc = 1;
		goto out;
	}
	for (int i = 0; i < l->nsteps; i++)
		if (l->steps[i].kind == STEP_NARRATE && rn.pos[i] < 0)
			fprintf(stderr,
				"%s:%d: at: '%s' never happens in this trace (showing the start)\n",
				l->path, l->steps[i].at_line, l->steps[i].at_text);
	enter_step(&rn, first_step(&rn));

	if (o->keys) {
		int n = 0;
		int *codes = xcalloc(strlen(o->keys) + 1, sizeof(*codes));
		n = scr_parse_keys(o->keys, codes, (int)strlen(o->keys) + 1);
		for (int i = 0; i < n && !rn.quit; i++) {
			if (codes[i] == SCR_PRINT) {
				print_screen(&rn);
				fputs("\f\n", stdout);
			} else {
				key(&rn, codes[i]);
			}
		}
		free(codes);
		print_screen(&rn);
	} else {
		char why[300];
		session_release();
		struct scr *t = scr_open(why, sizeof(why));
		session_catch();
		if (!t) {
			fprintf(stderr,
				"icache-lesson: %s.\nWithout a terminal, --keys KEYS --screen WxH prints the screen after KEYS.\n",
				why);
			rc = 2;
			goto out;
		}
		while (!rn.quit) {
			struct canvas c;
			int w, h;
			scr_size(t, &w, &h);
			canvas_init(&c, w, h, scr_utf8(t));
			settle(&rn);
			draw(&rn, &c);
			scr_show(t, &c);
			canvas_free(&c);
			int k = scr_getkey(t);
			if (k == SCR_RESIZE)
				continue;
			if (k == SCR_EOF)
				break;
			if (s_is_edit_key(&rn, k))
				scr_suspend(t);
			key(&rn, k);
			scr_resume(t);
			/* a burst of presses (a held key) is played once */
			while (!rn.quit && (k = scr_pending(t)) != SCR_EOF)
				key(&rn, k);
		}
		scr_close(t);
	}
out:
	drive_stop(&rn);
	exercise_drop(&rn);
	view_close(&rn.main);
	if (rn.gl_loaded)
		glossary_free(&rn.gl);
	if (rn.have_trace)
		lt_free(&rn.t);
	free(rn.pos);
	free(rn.ss);
	return rc;
}
