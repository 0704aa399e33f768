/*
 * app.c - keys, actions, searching and the screen layout.
 *
 * The key table below is the only place a key is bound; the help screen
 * lists it.  Actions move the cursor and let the model follow: one step
 * forward is one model_apply(), anything else is model_seek() (a
 * checkpoint restore plus at most one interval of replay).
 */
#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/keys.h"
#include "lib/selector.h"
#include "lib/xalloc.h"
#include "viewer/app.h"
#include "viewer/threads.h"
#include "viewer/report.h"

/* ---- queries ------------------------------------------------------------- */

/* An event type named by a search word: the event grammar's verbs (any
 * spelling, lib/selector.h), plus "list" for any list change and "lost"
 * for a loss; -1 if none. */
static int type_word(const char *w)
{
	if (!strcmp(w, "list"))
		return EV_inode_list;
	if (!strcmp(w, "lost"))
		return EV_discarded_events;
	return selector_event_word(w);
}

/* One word of a search: cpuN, an inode number, a name of one of the
 * trace's vocabularies (tried in this order), else text to find. */
static void term_parse(struct query_term *t, const struct trace_index *ix, char *w)
{
	static const struct {
		int (*by_name)(const char *);
		enum term_kind kind;
	} names[] = { { state_flag_by_name, Q_FLAG },
		      { lock_class_by_name, Q_CLASS },
		      { ev_type_by_name, Q_TYPE },
		      { site_by_name, Q_SITE } };
	char *end;
	memset(t, 0, sizeof(*t));
	if (!strncmp(w, "ino=", 4))
		w += 4;
	if (!strncmp(w, "cpu", 3) && w[3] && isdigit((unsigned char)w[3])) {
		t->kind = Q_CPU;
		t->value = atoi(w + 3);
		return;
	}
	if (isdigit((unsigned char)w[0]) && (strtoull(w, &end, 0), *end == 0)) {
		t->kind = Q_ID;
		t->id = ix_id_find(ix, strtoull(w, NULL, 0));
		return;
	}
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if ((t->value = names[k].by_name(w)) >= 0) {
			t->kind = names[k].kind;
			return;
		}
	t->value = type_word(w);
	t->kind = t->value >= 0 ? Q_TYPE : Q_TEXT;
	snprintf(t->text, sizeof(t->text), "%s", w);
}

bool query_parse(struct query *q, const struct trace_index *ix, const char *s, char *err,
		 size_t errlen)
{
	q->n = 0;
	snprintf(q->src, sizeof(q->src), "%s", s);
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", s);
	char *save;
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (q->n == q->cap) {
			q->cap = q->cap ? q->cap * 2 : 4;
			q->t = xreallocarray(q->t, (size_t)q->cap, sizeof(*q->t));
		}
		term_parse(&q->t[q->n++], ix, w);
	}
	if (q->n == 0) {
		snprintf(err, errlen, "empty search");
		return false;
	}
	return true;
}

static bool term_match(const struct query_term *t, const struct trace_index *ix, uint64_t i)
{
	const struct ix_event *e = &ix->ev[i];
	switch (t->kind) {
	case Q_TYPE:
		return e->type == t->value ||
		       (t->value == EV_discarded_events && e->type == EV_discarded_packets);
	case Q_CLASS:
		return ev_is_lock(e->type) && e->a == t->value;
	case Q_CPU:
		return e->cpu == t->value;
	case Q_SITE:
		return (ev_is_lock(e->type) || e->type == EV_inode_state ||
			e->type == EV_inode_ref || e->type == EV_inode_list) &&
		       e->site == t->value;
	case Q_FLAG:
		return e->type == EV_inode_state && ((uint32_t)e->val >> t->value & 1) &&
		       !((uint32_t)(e->val >> 32) >> t->value & 1);
	case Q_ID:
		return t->id >= 0 && e->obj == (uint32_t)t->id && e->type != EV_sched_step &&
		       e->type < EV_run_begin;
	case Q_TEXT: {
		char buf[300];
		event_text(ix, i, false, buf, sizeof(buf));
		return strstr(buf, t->text) != NULL;
	}
	}
	return false;
}

void query_free(struct query *q)
{
	free(q->t);
	q->t = NULL;
	q->n = q->cap = 0;
}

bool query_match(const struct query *q, const struct trace_index *ix, uint64_t i)
{
	for (int k = 0; k < q->n; k++)
		if (!term_match(&q->t[k], ix, i))
			return false;
	return true;
}

/* ---- moving ---------------------------------------------------------------- */

void app_goto(struct app *a, uint64_t ev)
{
	if (a->ix->nev == 0)
		return;
	if (ev >= a->end)
		ev = a->end - 1;
	a->cur = ev;
	model_seek(a->m, a->ix, ev + 1);
}

static bool visible(const struct app *a, uint64_t i)
{
	return !a->has_filter || query_match(&a->filter, a->ix, i);
}

/* The next (dir=+1) or previous visible event satisfying pred, or -1. */
static int64_t scan(const struct app *a, uint64_t from, int dir,
		    bool (*pred)(const struct app *, uint64_t, const void *), const void *arg)
{
	int64_t i = (int64_t)from;
	for (;;) {
		i += dir;
		if (i < 0 || (uint64_t)i >= a->end)
			return -1;
		if (visible(a, (uint64_t)i) && (!pred || pred(a, (uint64_t)i, arg)))
			return i;
	}
}

static void job_start(struct app *a, enum job_kind kind, int dir, int left);

/* count visible events forward or back; through a filter, as a job (the
 * next match can be millions of events away). */
static void step(struct app *a, int dir, int count)
{
	if (a->has_filter) {
		job_start(a, JOB_STEP, dir, count);
		return;
	}
	for (int k = 0; k < count; k++) {
		int64_t i = scan(a, a->cur, dir, NULL, NULL);
		if (i < 0) {
			snprintf(a->message, sizeof(a->message), "%s of the trace",
				 dir > 0 ? "end" : "start");
			break;
		}
		app_goto(a, (uint64_t)i);
	}
}

static bool same_cpu(const struct app *a, uint64_t i, const void *arg)
{
	return a->ix->ev[i].cpu == *(const uint16_t *)arg;
}

static bool search_pred(const struct app *a, uint64_t i, const void *arg)
{
	return query_match(&a->search, a->ix, i);
}

static void act_next(struct app *a)
{
	step(a, 1, 1);
}
static void act_prev(struct app *a)
{
	step(a, -1, 1);
}
static void act_pgdn(struct app *a)
{
	step(a, 1, 20);
}
static void act_pgup(struct app *a)
{
	step(a, -1, 20);
}

static void cpu_step(struct app *a, int dir)
{
	uint16_t cpu = a->ix->ev[a->cur].cpu;
	int64_t i = scan(a, a->cur, dir, same_cpu, &cpu);
	if (i < 0)
		snprintf(a->message, sizeof(a->message), "no %s event on this CPU",
			 dir > 0 ? "later" : "earlier");
	else
		app_goto(a, (uint64_t)i);
}

static void act_cpu_next(struct app *a)
{
	cpu_step(a, 1);
}
static void act_cpu_prev(struct app *a)
{
	cpu_step(a, -1);
}

/* A row of the lanes looks this far for its visible event: a sparse
 * filter draws blank rows rather than scan the whole trace each frame. */
#define ROW_SCAN_MAX 65536

/* scan() without pred, giving up (-1) after `limit` events. */
static int64_t scan_near(const struct app *a, uint64_t from, int dir, uint64_t limit)
{
	int64_t i = (int64_t)from;
	for (uint64_t n = 0; n < limit; n++) {
		i += dir;
		if (i < 0 || (uint64_t)i >= a->end)
			return -1;
		if (visible(a, (uint64_t)i))
			return i;
	}
	return -1;
}

int64_t app_scan_visible(const struct app *a, int64_t from, int dir)
{
	return scan_near(a, (uint64_t)from, dir, ROW_SCAN_MAX);
}

int64_t app_rows_top(const struct app *a, int rows, int *row)
{
	int64_t top = (int64_t)a->cur;
	int above = 0;
	for (; above < rows / 2; above++) {
		int64_t i = scan_near(a, (uint64_t)top, -1, ROW_SCAN_MAX);
		if (i < 0)
			break;
		top = i;
	}
	*row = rows / 2 - above;
	return top;
}

/* ---- next / previous event of a kind: violation, loss, note ---------------- */

static bool type_pred(const struct app *a, uint64_t i, const void *arg)
{
	int t = a->ix->ev[i].type, want = *(const int *)arg;
	return t == want || (want == EV_discarded_events && t == EV_discarded_packets);
}

int64_t nav_find(const struct app *a, int type, int dir)
{
	return type < 0 ? -1 : scan(a, a->cur, dir, type_pred, &type);
}

static void kind_step(struct app *a, int type, int dir, const char *what)
{
	int64_t i = nav_find(a, type, dir);
	if (i < 0)
		snprintf(a->message, sizeof(a->message), "no %s %s", what,
			 dir > 0 ? "below" : "above");
	else
		app_goto(a, (uint64_t)i);
	a->dscroll = 0;
}

static void act_viol_next(struct app *a)
{
	kind_step(a, EV_violation, 1, "violation");
}
static void act_viol_prev(struct app *a)
{
	kind_step(a, EV_violation, -1, "violation");
}
static void act_loss_next(struct app *a)
{
	kind_step(a, EV_discarded_events, 1, "loss (discarded events)");
}
static void act_loss_prev(struct app *a)
{
	kind_step(a, EV_discarded_events, -1, "loss (discarded events)");
}
/* Scenario narration: play -o writes the scenario's say lines as notes. */
static void act_note_next(struct app *a)
{
	kind_step(a, EV_note, 1, "note (scenario narration)");
}
static void act_note_prev(struct app *a)
{
	kind_step(a, EV_note, -1, "note (scenario narration)");
}

/* ---- lanes: which CPUs, and how ------------------------------------------- */

int lane_of(const struct app *a, uint16_t cpu)
{
	if (cpu == IX_NO_CPU)
		return a->has_nocpu ? (int)a->ix->ncpus : -1;
	return cpu;
}

bool lane_picked(const struct app *a, int lane)
{
	return lane >= 0 && lane < 256 && (a->lane_pick[lane / 64] >> (lane % 64) & 1);
}

static void act_compact(struct app *a)
{
	a->compact = a->compact_shown ? 2 : 1;
	snprintf(a->message, sizeof(a->message), "%s lanes", a->compact == 1 ? "compact" : "text");
}

static void act_strip(struct app *a)
{
	a->strip_wait = !a->strip_wait;
	snprintf(a->message, sizeof(a->message), "timeline: %s per lock class",
		 a->strip_wait ? "time waited" : "contentions");
}

static void act_lanes(struct app *a)
{
	a->prompt = P_LANES;
	a->ninput = 0;
	a->input[0] = 0;
}

/* "0-3,8 12" -> the lanes' bits; "" or "all": none picked (every lane, or
 * those around the cursor when they do not fit). */
static bool parse_lanes(struct app *a, const char *s)
{
	uint64_t pick[4] = { 0 };
	bool any = false;
	if (!*s || !strcmp(s, "all")) {
		a->lanes_picked = false;
		return true;
	}
	while (*s) {
		char *end;
		if (*s == ',' || *s == ' ') {
			s++;
			continue;
		}
		if (!strncmp(s, "cpu", 3))
			s += 3;
		long lo = strtol(s, &end, 10), hi = lo;
		if (end == s || lo < 0 || lo > 255)
			return false;
		s = end;
		if (*s == '-') {
			hi = strtol(s + 1, &end, 10);
			if (end == s + 1 || hi < lo || hi > 255)
				return false;
			s = end;
		}
		for (long l = lo; l <= hi; l++)
			pick[l / 64] |= 1ull << (l % 64);
		any = true;
	}
	memcpy(a->lane_pick, pick, sizeof(pick));
	a->lanes_picked = any;
	return any;
}

/* One app_work() call in the terminal viewer: at most this long, so
 * keys are never kept waiting (the clock is read every 4096 events). */
#define SEARCH_SLICE_NS 30000000ull

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void job_start(struct app *a, enum job_kind kind, int dir, int left)
{
	a->job = (struct app_job){ .on = true,
				   .kind = kind,
				   .dir = dir,
				   .left = left,
				   .at = (int64_t)a->cur,
				   .from = a->cur };
	app_work(a);
}

static void search_step(struct app *a, int dir)
{
	if (!a->has_search) {
		snprintf(a->message, sizeof(a->message), "no search yet: type / first");
		return;
	}
	job_start(a, JOB_SEARCH, dir, 1);
}

/* Is event i what the job looks for?  (A new filter is not in force until
 * its first event is found: the frames drawn meanwhile stay cheap.) */
static bool job_match(const struct app *a, uint64_t i)
{
	switch (a->job.kind) {
	case JOB_SEARCH:
		return visible(a, i) && search_pred(a, i, NULL);
	case JOB_FILTER:
		return query_match(&a->filter, a->ix, i);
	default:
		return visible(a, i);
	}
}

/* The job's event j->at is what it looks for: go there; done? */
static bool job_found(struct app *a)
{
	struct app_job *j = &a->job;
	if (j->kind == JOB_FILTER)
		a->has_filter = true; /* in force from its first event on */
	app_goto(a, (uint64_t)j->at);
	return j->kind != JOB_STEP || --j->left <= 0;
}

/* The job ran off the end of the trace: say so; done? */
static bool job_ran_out(struct app *a)
{
	struct app_job *j = &a->job;
	switch (j->kind) {
	case JOB_SEARCH:
		snprintf(a->message, sizeof(a->message), "'%s' not found %s", a->search.src,
			 j->dir > 0 ? "below" : "above");
		return true;
	case JOB_FILTER:
		if (!j->turned) { /* nothing below the cursor: look above it */
			j->turned = true;
			j->dir = -1;
			j->at = (int64_t)j->from;
			return false;
		}
		a->has_filter = false;
		snprintf(a->message, sizeof(a->message), "filter '%s' matches nothing",
			 a->filter.src);
		return true;
	default:
		snprintf(a->message, sizeof(a->message), "%s of the trace",
			 j->dir > 0 ? "end" : "start");
		return true;
	}
}

bool app_work(struct app *a)
{
	struct app_job *j = &a->job;
	uint64_t budget = a->sliced && a->slice ? a->slice : UINT64_MAX;
	uint64_t t0 = a->sliced ? mono_ns() : 0;
	for (uint64_t n = 0; j->on && n < budget; n++) {
		if (a->sliced && !a->slice && (n & 4095) == 4095 &&
		    mono_ns() - t0 > SEARCH_SLICE_NS)
			break;
		j->at += j->dir;
		if (j->at < 0 || (uint64_t)j->at >= a->end)
			j->on = !job_ran_out(a);
		else if (job_match(a, (uint64_t)j->at))
			j->on = !job_found(a);
	}
	return j->on;
}

/* How far the job under way got, in per cent of its way. */
static int job_percent(const struct app *a)
{
	const struct app_job *j = &a->job;
	uint64_t way = j->dir > 0 ? a->end - j->from : j->from;
	uint64_t done = j->dir > 0 ? (uint64_t)j->at - j->from : j->from - (uint64_t)j->at;
	return way ? (int)(done * 100 / way) : 0;
}

/* Esc (or any key) while a job runs: it stops where it is; a filter that
 * had not found its first event is dropped (the cursor is not on one). */
static void job_stop(struct app *a, bool say)
{
	struct app_job *j = &a->job;
	j->on = false;
	if (j->kind == JOB_FILTER)
		a->has_filter = false;
	if (!say && j->kind != JOB_FILTER)
		return;
	snprintf(a->message, sizeof(a->message), "%s stopped (%d %% looked at)%s",
		 j->kind == JOB_SEARCH ? "search" :
		 j->kind == JOB_FILTER ? "filter" :
					 "step",
		 job_percent(a), j->kind == JOB_FILTER ? ": filter off" : "");
}

static void act_search_next(struct app *a)
{
	search_step(a, 1);
}
static void act_search_prev(struct app *a)
{
	search_step(a, -1);
}
static void act_start(struct app *a)
{
	app_goto(a, 0);
	if (!visible(a, 0))
		step(a, 1, 1);
}
static void act_end(struct app *a)
{
	app_goto(a, a->end - 1);
	if (!visible(a, a->cur))
		step(a, -1, 1);
}

static void open_prompt(struct app *a, enum prompt_kind k)
{
	a->prompt = k;
	a->ninput = 0;
	a->input[0] = 0;
}

static void act_search(struct app *a)
{
	open_prompt(a, P_SEARCH);
}
static void act_filter(struct app *a)
{
	open_prompt(a, P_FILTER);
}
static void act_goto(struct app *a)
{
	open_prompt(a, P_GOTO);
}
static void act_mark(struct app *a)
{
	open_prompt(a, P_MARK_SET);
}
static void act_jump(struct app *a)
{
	open_prompt(a, P_MARK_JUMP);
}
static void act_pane(struct app *a)
{
	a->focus = (a->focus + 1) % npanes;
}
static void act_pane_back(struct app *a)
{
	a->focus = (a->focus + npanes - 1) % npanes;
}
static void act_zoom(struct app *a)
{
	a->zoom = !a->zoom;
}
static void act_help(struct app *a)
{
	a->help = true;
	a->help_page = 0;
}
static void act_details(struct app *a)
{
	a->details = true;
	a->dscroll = 0;
}
static void act_reasons(struct app *a)
{
	a->reasons = true;
}
static void act_quit(struct app *a)
{
	a->quit = true;
}
static void act_scroll_down(struct app *a)
{
	a->scroll[a->focus] += 5;
}
static void act_scroll_up(struct app *a)
{
	a->scroll[a->focus] = a->scroll[a->focus] > 5 ? a->scroll[a->focus] - 5 : 0;
}

uint32_t app_inode(const struct app *a)
{
	if (a->pinned != UINT32_MAX)
		return a->pinned;
	/* the last inode touched at or before the cursor (after a jump too);
	 * a bounded look back keeps a frame cheap on any trace */
	for (uint64_t i = a->cur + 1, n = 0; i-- > 0 && n < 200000; n++) {
		uint32_t obj = event_inode(a->ix, i);
		if (obj != UINT32_MAX)
			return obj;
	}
	return UINT32_MAX;
}

static void act_source(struct app *a)
{
	a->source = !a->source;
	snprintf(a->message, sizeof(a->message), "%s",
		 a->source ? "source pane: each CPU's line (s: the inode pane)" :
			     "inode pane (s: the source pane)");
}

static void act_pick(struct app *a)
{
	uint32_t was = a->pinned;
	a->pinned = UINT32_MAX;
	uint32_t obj = event_inode(a->ix, a->cur);
	if (obj == UINT32_MAX) {
		a->pinned = was;
		snprintf(a->message, sizeof(a->message), "no inode under the cursor");
		return;
	}
	if (was == obj) {
		snprintf(a->message, sizeof(a->message),
			 "inode %" PRIu64 " unpinned: the pane follows the cursor",
			 ix_id_value(a->ix, obj));
		return;
	}
	a->pinned = obj;
	if (pane_index(VIEW_INODE) >= 0)
		a->focus = pane_index(VIEW_INODE);
	snprintf(a->message, sizeof(a->message), "inode %" PRIu64 " pinned",
		 ix_id_value(a->ix, obj));
}

static void act_clear(struct app *a)
{
	a->has_filter = false;
	a->has_search = false;
	snprintf(a->message, sizeof(a->message), "search and filter cleared");
}

#define K(...)                 \
	{                      \
		__VA_ARGS__, 0 \
	}
const struct keydef keytab[] = {
	{ K('j', KEY_DOWN), "j Down", "next event", act_next },
	{ K('k', KEY_UP), "k Up", "previous event", act_prev },
	{ K('J', KEY_SF), "J", "next event on this CPU", act_cpu_next },
	{ K('K', KEY_SR), "K", "previous event on this CPU", act_cpu_prev },
	{ K(KEY_NPAGE, ' '), "PgDn Space", "20 events forward", act_pgdn },
	{ K(KEY_PPAGE, 'b'), "PgUp b", "20 events back", act_pgup },
	{ K('g', KEY_HOME, '<'), "g Home", "first event", act_start },
	{ K('G', KEY_END, '>'), "G End", "last event", act_end },
	{ K('/'), "/", "search: event name, inode, lock class, cpuN, site, flag", act_search },
	{ K('n'), "n", "next match of the search", act_search_next },
	{ K('N'), "N", "previous match of the search", act_search_prev },
	{ K('f', '\\'), "f", "filter: show only matching events (empty = all)", act_filter },
	{ K('c'), "c", "clear search and filter", act_clear },
	{ K(':'), ":", "go to event number, or time (1.5ms, +20us, 0.3s)", act_goto },
	{ K('\n', KEY_ENTER), "Enter", "the whole event: every field, a violation's report",
	  act_details },
	{ K('v'), "v", "next violation", act_viol_next },
	{ K('V'), "V", "previous violation", act_viol_prev },
	{ K('x'), "x", "next loss (window of discarded events)", act_loss_next },
	{ K('X'), "X", "previous loss", act_loss_prev },
	{ K('a'), "a", "next note (scenario narration)", act_note_next },
	{ K('A'), "A", "previous note", act_note_prev },
	{ K('m'), "m x",
	  "set mark x (a-z) at the cursor; the status line then shows the time and events from it to the cursor",
	  act_mark },
	{ K('\''), "' x", "jump to mark x (and measure from it)", act_jump },
	{ K('C'), "C", "lanes: compact (a narrow column per CPU) or text", act_compact },
	{ K('T'), "T", "timeline strip: contentions or time waited per slice", act_strip },
	{ K('p'), "p", "pick the lanes shown: 0-3,8 (empty: all, or around the cursor)",
	  act_lanes },
	{ K('i'), "i", "pick (pin) the inode under the cursor; again: unpin", act_pick },
	{ K('s'), "s", "the scheme's source (each CPU's line) in place of the inode pane",
	  act_source },
	{ K('\t', KEY_RIGHT), "Tab", "focus the next pane", act_pane },
	{ K(KEY_BTAB, KEY_LEFT), "S-Tab", "focus the previous pane", act_pane_back },
	{ K(']'), "]", "scroll the focused pane down", act_scroll_down },
	{ K('['), "[", "scroll the focused pane up", act_scroll_up },
	{ K('z'), "z", "zoom the focused pane (again: all panes)", act_zoom },
	{ K('!'), "!", "why the trace is INCOMPLETE (every reason)", act_reasons },
	{ K('h', KEY_F(1), '?'), "h F1 ?", "this help", act_help },
	{ K('q', KEY_F(10)), "q", "quit", act_quit },
};
const int nkeys = sizeof(keytab) / sizeof(keytab[0]);

/* ---- prompts ---------------------------------------------------------------- */

/* "123" event number; "1.5ms" "+20us" "0.3s" "100ns" time from the start. */
static bool parse_goto(struct app *a, const char *s, uint64_t *ev)
{
	char *end;
	if (*s == '#')
		s++;
	const char *num = *s == '+' ? s + 1 : s;
	double v = strtod(num, &end);
	if (end == num)
		return false;
	while (*end == ' ')
		end++;
	if (*end == 0 && *s != '+' && !strchr(num, '.')) {
		*ev = (uint64_t)v;
		return true;
	}
	double mult;
	if (!strcmp(end, "ns"))
		mult = 1;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "s") || *end == 0)
		mult = 1e9;
	else
		return false;
	*ev = ix_find_time(a->ix, ix_t0(a->ix) + (int64_t)(v * mult));
	return true;
}

static void prompt_done(struct app *a)
{
	char err[120];
	enum prompt_kind k = a->prompt;
	a->prompt = P_NONE;
	switch (k) {
	case P_SEARCH:
		if (!a->ninput) {
			if (a->has_search)
				search_step(a, 1);
			return;
		}
		if (!query_parse(&a->search, a->ix, a->input, err, sizeof(err))) {
			snprintf(a->message, sizeof(a->message), "%s", err);
			return;
		}
		a->has_search = true;
		search_step(a, 1);
		break;
	case P_FILTER:
		if (!a->ninput) {
			a->has_filter = false;
			snprintf(a->message, sizeof(a->message), "filter off");
			return;
		}
		if (!query_parse(&a->filter, a->ix, a->input, err, sizeof(err))) {
			snprintf(a->message, sizeof(a->message), "%s", err);
			return;
		}
		a->has_filter = query_match(&a->filter, a->ix, a->cur);
		if (!a->has_filter) /* its first event below, else above */
			job_start(a, JOB_FILTER, 1, 1);
		break;
	case P_LANES:
		if (!parse_lanes(a, a->input))
			snprintf(a->message, sizeof(a->message),
				 "lanes: CPU numbers and ranges like 0-3,8 (empty: all)");
		break;
	case P_GOTO: {
		uint64_t ev;
		if (!parse_goto(a, a->input, &ev)) {
			snprintf(a->message, sizeof(a->message),
				 "go to what? an event number or a time like 1.5ms");
			return;
		}
		app_goto(a, ev);
		break;
	}
	default:
		break;
	}
}

static void prompt_key(struct app *a, int key)
{
	if (a->prompt == P_MARK_SET || a->prompt == P_MARK_JUMP) {
		enum prompt_kind k = a->prompt;
		a->prompt = P_NONE;
		if (key < 'a' || key > 'z') {
			snprintf(a->message, sizeof(a->message), "marks are a to z");
			return;
		}
		int m = key - 'a';
		if (k == P_MARK_SET) {
			a->marks[m] = a->cur;
			a->mark_set[m] = true;
			a->last_mark = m;
			snprintf(a->message, sizeof(a->message), "mark %c at #%" PRIu64, key,
				 a->cur);
		} else if (!a->mark_set[m]) {
			snprintf(a->message, sizeof(a->message), "mark %c is not set", key);
		} else {
			app_goto(a, a->marks[m]);
			a->last_mark = m;
		}
		return;
	}
	if (key == 27 || key == 7) { /* Esc, ^G */
		a->prompt = P_NONE;
		return;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		prompt_done(a);
		return;
	}
	if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (a->ninput > 0)
			a->input[--a->ninput] = 0;
		else
			a->prompt = P_NONE;
		return;
	}
	if (key >= 0x20 && key < 0x7f && a->ninput < (int)sizeof(a->input) - 1) {
		a->input[a->ninput++] = (char)key;
		a->input[a->ninput] = 0;
	}
}

void app_key(struct app *a, int key)
{
	if (a->ix->nev == 0)
		return;
	a->message[0] = 0;
	if (a->job.on) { /* a key stops the job under way; Esc only that */
		job_stop(a, key == 27);
		if (key == 27)
			return;
	}
	if (a->prompt != P_NONE) {
		prompt_key(a, key);
		return;
	}
	if (a->help) {
		help_key(a, key);
		return;
	}
	if (a->reasons) {
		a->reasons = false; /* any key closes the overlay */
		return;
	}
	if (a->details && details_key(a, key))
		return;
	for (int i = 0; i < nkeys; i++)
		for (int k = 0; keytab[i].keys[k]; k++)
			if (keytab[i].keys[k] == key) {
				keytab[i].fn(a);
				return;
			}
	if (key != KEY_RESIZE && key != ERR)
		snprintf(a->message, sizeof(a->message), "key not bound; h for help");
}

/* ---- layout -------------------------------------------------------------------- */

void app_init(struct app *a, struct trace_index *ix)
{
	memset(a, 0, sizeof(*a));
	a->ix = ix;
	a->m = model_new();
	a->end = ix->nev;
	a->scroll = xcalloc((size_t)npanes, sizeof(*a->scroll));
	ix_apply_order(ix, a->m);
	a->pinned = UINT32_MAX;
	a->hist.obj = UINT32_MAX;
	a->last_mark = -1;
	/* A lane for the events without a CPU (RCU callbacks, the main
	 * thread), the run's own records aside: no text goes across lanes.
	 * The index knows if there is any: no scan of a big trace for
	 * nothing. */
	for (uint64_t i = 0; ix->nocpu_seen && i < ix->nev && !a->has_nocpu; i++)
		a->has_nocpu = ix->ev[i].cpu == IX_NO_CPU && ev_in_lane(ix->ev[i].type);
	app_goto(a, 0);
}

void app_set_visible(struct app *a, uint64_t n)
{
	a->end = n < 1 ? 1 : n > a->ix->nev ? a->ix->nev : n;
	a->hist.obj = UINT32_MAX; /* its history may reach past the end */
	if (a->cur >= a->end)
		app_goto(a, a->end - 1);
}

void app_free(struct app *a)
{
	model_free(a->m);
	free(a->scroll);
	query_free(&a->search);
	query_free(&a->filter);
	free(a->hist.ev);
	free(a->hist.kind);
	free(a->hist.held);
	free(a->hist.nheld);
	timeline_free(a->tb);
}

/* The header: the trace and its run; a trace still indexing or
 * incomplete says so first in what room there is (a narrow screen cuts
 * the path, never the word INCOMPLETE). */
static void draw_header(struct app *a, struct canvas *c)
{
	const struct ix_run *r = ix_run0(a->ix);
	canvas_fill(c, 0, 0, c->w, R_HEADER, ' ');
	char d[32], badge[64] = "";
	if (a->ix->loader) {
		uint64_t done, total;
		ix_progress(a->ix, &done, &total);
		snprintf(badge, sizeof(badge), "%s %d %%: figures so far",
			 c->utf8 ? "indexing\u2026" : "indexing...",
			 total ? (int)(done * 100 / total) : 0);
	} else if (!ix_complete(a->ix)) {
		snprintf(badge, sizeof(badge), "INCOMPLETE (%u, ! lists)", a->ix->nreasons);
	}
	int bw = badge[0] ? (int)strlen(badge) + 2 : 0;
	if (bw > c->w / 2)
		bw = 0; /* tiny: the header as it comes */
	int64_t dur = a->ix->ev[a->end - 1].ts - a->ix->ev[0].ts;
	int n = canvas_printf(
		c, 0, 0, c->w - bw, R_HEADER,
		" icache-view  %s  %s%s%s  %u CPUs  %" PRIu64 " events  %s%s%s", a->ix->path,
		r ? ix_str(a->ix, r->scheme) : "?", r ? "/" : "",
		r ? ix_str(a->ix, r->workload) : "", ix_sim_cpus(a->ix), a->end,
		fmt_dur(dur, d, sizeof(d)),
		r && r->virtual_run && r->virtual_stamped ? " virtual time" : "",
		a->ix->discarded_events || a->ix->discarded_packets ? "  LOST EVENTS" : "");
	canvas_role(c, 0, 0, c->w, R_HEADER);
	if (!badge[0])
		return;
	if (bw)
		n = n + 2 < c->w - bw ? n : c->w - bw - 2;
	if (n + 2 >= c->w)
		return;
	if (a->ix->loader) /* what shows is a part; completeness comes at the end */
		canvas_text(c, n + 2, 0, c->w - n - 2, R_BAD, badge);
	else
		canvas_printf(c, n + 2, 0, c->w - n - 2, R_BAD, "%s: %s", badge, a->ix->reasons[0]);
}

/* "mark a->cursor +1.234 ms, 567 events": from the last mark to the cursor. */
static void measure_text(const struct app *a, char *buf, size_t len)
{
	buf[0] = 0;
	if (a->last_mark < 0 || !a->mark_set[a->last_mark])
		return;
	uint64_t m = a->marks[a->last_mark];
	int64_t dt = a->ix->ev[a->cur].ts - a->ix->ev[m].ts;
	char d[32];
	snprintf(buf, len, "  mark %c->cursor %s%s, %" PRIu64 " events", 'a' + a->last_mark,
		 dt < 0 ? "-" : "+", fmt_dur(dt < 0 ? -dt : dt, d, sizeof(d)),
		 a->cur > m ? a->cur - m : m - a->cur);
}

static void draw_status(struct app *a, struct canvas *c)
{
	int y = c->h - 1;
	canvas_fill(c, 0, y, c->w, R_STATUS, ' ');
	if (a->prompt == P_SEARCH || a->prompt == P_FILTER || a->prompt == P_GOTO ||
	    a->prompt == P_LANES) {
		const char *p = a->prompt == P_SEARCH ? "search: /" :
				a->prompt == P_FILTER ? "filter: " :
				a->prompt == P_LANES  ? "lanes (0-3,8; empty: all): " :
							"go to: ";
		canvas_printf(c, 0, y, c->w, R_STATUS, "%s%s_", p, a->input);
		return;
	}
	if (a->prompt == P_MARK_SET || a->prompt == P_MARK_JUMP) {
		canvas_printf(c, 0, y, c->w, R_STATUS, "%s which mark (a-z)?",
			      a->prompt == P_MARK_SET ? "set" : "jump to");
		return;
	}
	if (a->job.on) {
		const struct app_job *j = &a->job;
		canvas_printf(c, 0, y, c->w, R_STATUS, " %s '%s' %s: %d %%  (Esc stops)",
			      j->kind == JOB_SEARCH ? "searching" :
			      j->kind == JOB_FILTER ? "filter: first event of" :
						      "stepping through filter",
			      j->kind == JOB_SEARCH ? a->search.src : a->filter.src,
			      j->dir > 0 ? "below" : "above", job_percent(a));
		return;
	}
	char d[32], meas[96];
	const struct ix_event *e = &a->ix->ev[a->cur];
	measure_text(a, meas, sizeof(meas));
	int n = canvas_printf(c, 0, y, c->w, R_STATUS,
			      " #%" PRIu64 "/%" PRIu64 "  t=+%s  %s%s%s%s%s%s%s  [%s]", a->cur,
			      a->end - 1, fmt_dur(e->ts - a->ix->ev[0].ts, d, sizeof(d)),
			      event_thread(a->ix, a->cur), meas, a->has_filter ? "  filter: " : "",
			      a->has_filter ? a->filter.src : "", a->has_search ? "  search: " : "",
			      a->has_search ? a->search.src : "", a->zoom ? "  zoom" : "",
			      a->focus >= 0 && a->focus < npanes ? panes[a->focus]->title : "");
	if (a->message[0])
		canvas_printf(c, n + 2, y, c->w - n - 2, R_STATUS, "| %s", a->message);
	else if (c->w - n >= 18)
		canvas_text(c, c->w - 16, y, 16, R_STATUS, "?:help  q:quit");
}

/* Every reason the trace is incomplete, wrapped, in a box. */
static void draw_reasons(struct app *a, struct canvas *c)
{
	int w = c->w - 4, h = c->h - 4;
	struct rect r = { 2, 2, w, h };
	for (int y = r.y; y < r.y + r.h; y++)
		canvas_fill(c, r.x, y, r.w, R_NORMAL, ' ');
	canvas_box(c, r, "INCOMPLETE TRACE: why (any key closes)", true);
	int y = r.y + 1, tw = r.w - 6;
	if (ix_complete(a->ix))
		canvas_text(c, r.x + 2, y, r.w - 4, R_GOOD, "complete: nothing missing");
	for (uint32_t i = 0; i < a->ix->nreasons && y < r.y + r.h - 1; i++) {
		const char *t = a->ix->reasons[i];
		size_t len = strlen(t);
		for (size_t o = 0; o < len && y < r.y + r.h - 1; o += (size_t)tw)
			canvas_printf(c, r.x + 2, y++, r.w - 4, R_BAD, "%s %.*s", o ? " " : "-", tw,
				      t + o);
	}
}

/* Pane rectangles for the body below the header: the slots' layout; on a
 * smaller screen the lanes over the full width and the focused pane (the
 * held locks while the lanes have the focus, or the source pane after s)
 * below them, so 80x24 shows two CPU lanes and what they hold; the
 * focused pane alone when zoomed or tiny. */
static void layout(struct app *a, struct canvas *c, struct rect *r)
{
	int top = 1, bh = c->h - 2;
	/* the source and the inode pane share a place: s (or focus) picks */
	int src = pane_index(VIEW_SOURCE), ino = pane_index(VIEW_INODE);
	bool show_src = (a->source || a->focus == src) && a->focus != ino;
	if (a->zoom || c->w < 80 || bh < 16) {
		pane_layout(r, a->focus, c->w, top, bh);
		return;
	}
	if (c->w < 120 || bh < 30) {
		int lanes = pane_index(VIEW_LANES);
		int below = a->focus != lanes ? a->focus : show_src ? src : pane_index(VIEW_LOCKS);
		pane_layout_pair(r, lanes, below, c->w, top, bh);
		return;
	}
	pane_layout_without(r, -1, c->w, top, bh, show_src ? ino : src);
}

void app_draw(struct app *a, struct canvas *c)
{
	canvas_clear(c);
	a->scr_w = c->w;
	a->scr_h = c->h;
	a->scr_utf8 = c->utf8;
	if (c->w < 20 || c->h < 6) {
		canvas_text(c, 0, 0, c->w, R_NORMAL, "terminal too small");
		return;
	}
	draw_header(a, c);
	struct rect *r = xcalloc((size_t)npanes, sizeof(*r));
	layout(a, c, r);
	for (int i = 0; i < npanes; i++) {
		if (r[i].w < 4 || r[i].h < 3)
			continue;
		canvas_box(c, r[i], panes[i]->title, i == a->focus);
		struct rect in = { r[i].x + 1, r[i].y + 1, r[i].w - 2, r[i].h - 2 };
		panes[i]->draw(a, c, in);
	}
	free(r);
	if (a->help)
		help_draw(a, c);
	else if (a->details)
		details_draw(a, c);
	else if (a->reasons)
		draw_reasons(a, c);
	draw_status(a, c);
}
