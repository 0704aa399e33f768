/*
 * details.c - Enter: the whole event under the cursor in an overlay.
 *
 * The lanes and the details line give an event in one line; this gives
 * all of it: every field of the event table, what the index keeps beside
 * it (a violation's full report, a loss's window), for a lock order
 * violation both chains (the dependency seen first and the one this
 * event adds), and the distance from each mark.  Lines are wrapped at
 * spaces, never cut; the overlay scrolls.  Keys while it is open: Up/Down
 * j/k PgUp/PgDn Space/b scroll, Esc q Enter Backspace close, any other key
 * works as usual (v goes to the next violation and shows its details).
 */
#include <curses.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "viewer/app.h"
#include "viewer/report.h"
#include "viewer/threads.h"

struct dline {
	int role, indent;
	char text[240];
};

struct dlines {
	struct dline *l;
	int n, cap, width;
};

static void put(struct dlines *d, int role, int indent, const char *text)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->l = xreallocarray(d->l, (size_t)d->cap, sizeof(*d->l));
	}
	struct dline *l = &d->l[d->n++];
	l->role = role;
	l->indent = indent;
	snprintf(l->text, sizeof(l->text), "%s", text);
}

/* Text wrapped at spaces (and at its own newlines) to the overlay's
 * width; continuation lines are indented two more columns. */
static void say(struct dlines *d, int role, int indent, const char *text)
{
	const char *p = text;
	int w = d->width - indent;
	bool first = true;
	if (w < 10)
		w = 10;
	while (*p) {
		int room = first ? w : w - 2;
		int cut = canvas_wrap_cut(p, (int)strcspn(p, "\n"), room);
		char buf[240];
		snprintf(buf, sizeof(buf), "%.*s", cut < 239 ? cut : 239, p);
		put(d, role, first ? indent : indent + 2, buf);
		p += cut;
		if (*p == '\n') {
			p++;
			first = true;
			continue;
		}
		while (*p == ' ')
			p++;
		first = false;
	}
	if (!*text)
		put(d, role, indent, "");
}

static void sayf(struct dlines *d, int role, int indent, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void sayf(struct dlines *d, int role, int indent, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	say(d, role, indent, buf);
}

/* One edge of the observed order as a chain line. */
static void say_edge(struct dlines *d, const struct app *a, int from, int to, const char *what)
{
	const struct model *m = a->m;
	unsigned k = from < MODEL_MAX_CLASSES && to < MODEL_MAX_CLASSES ? m->edge_ix[from][to] : 0;
	if (!k) {
		sayf(d, R_NORMAL, 2,
		     "%s: %s -> %s: not seen directly (a longer chain: see the report)", what,
		     lock_class_label(from), lock_class_label(to));
		return;
	}
	const struct lock_edge *e = &m->edges[k - 1];
	const struct ix_event *fe = &a->ix->ev[e->first_ev];
	sayf(d, e->verdict < 0 ? R_BAD : R_NORMAL, 2,
	     "%s: %s (taken in %s) -> %s (taken in %s), first by %s at #%" PRIu64
	     ", %u times so far%s",
	     what, lock_class_label(from), site_label(e->first_held_site), lock_class_label(to),
	     site_label(e->first_site), thread_name(a->ix, fe->cpu), e->first_ev, e->count,
	     e->verdict < 0 ? ", against the documented order" :
	     e->verdict > 0 ? ", documented" :
			      "");
}

/* What the violation names, and for a lock order one both chains. */
static void violation_head(struct dlines *d, const struct app *a, const struct ix_violation *v)
{
	sayf(d, R_BAD, 0, "%s violation reported by the simulator", violation_label(v->kind));
	if (v->cls_a != 255 || v->site_a != 255)
		sayf(d, R_NORMAL, 2, "cls_a = %s, site_a = %s, cls_b = %s, site_b = %s",
		     v->cls_a != 255 ? lock_class_label(v->cls_a) : "-",
		     v->site_a != 255 ? site_label(v->site_a) : "-",
		     v->cls_b != 255 ? lock_class_label(v->cls_b) : "-",
		     v->site_b != 255 ? site_label(v->site_b) : "-");
	if (v->ino)
		sayf(d, R_NORMAL, 2, "inode %" PRIu64 " (i pins its history)", v->ino);
	const char *k = violation_label(v->kind);
	if (v->cls_a == 255 || v->cls_b == 255 ||
	    (strcmp(k, "lock_order") && strcmp(k, "lock_cycle")))
		return; /* only these two are about an order, with chains */
	put(d, R_TITLE, 0, "Both chains (from the trace up to here):");
	say_edge(d, a, v->cls_b, v->cls_a, "existing");
	sayf(d, R_BAD, 2, "new: %s (taken in %s) -> %s (taken in %s), by %s here",
	     lock_class_label(v->cls_a), site_label(v->site_a), lock_class_label(v->cls_b),
	     site_label(v->site_b), thread_name(a->ix, v->cpu));
}

static void violation_lines(struct dlines *d, const struct app *a, const struct ix_event *e)
{
	const struct ix_violation *v = &a->ix->viols[e->val];
	violation_head(d, a, v);
	put(d, R_TITLE, 0, "The report:");
	say(d, R_NORMAL, 2, ix_str(a->ix, v->text));
}

static void loss_lines(struct dlines *d, const struct app *a, const struct ix_event *e)
{
	if (e->obj >= a->ix->ndiscards)
		return;
	const struct ix_discard *x = &a->ix->discards[e->obj];
	char d1[32], d2[32];
	int64_t t0 = ix_t0(a->ix);
	sayf(d, R_BAD, 0, "%s%" PRIu64 " %s lost%s", x->cut ? "stream cut: " : "", x->count,
	     x->packets ? "packets" : "events", x->count ? "" : " (count unknown)");
	if (x->begin != INT64_MIN && x->end != INT64_MIN)
		sayf(d, R_NORMAL, 2, "between +%s and +%s: every figure across it is a lower bound",
		     fmt_dur(x->begin - t0, d1, sizeof(d1)), fmt_dur(x->end - t0, d2, sizeof(d2)));
	if (x->stream >= 0 && (uint32_t)x->stream < a->ix->nstreams)
		sayf(d, R_NORMAL, 2, "stream %s", a->ix->streams[x->stream].name);
}

/* A lock event: the instance's holder and what this CPU holds now. */
static void lock_lines(struct dlines *d, const struct app *a, const struct ix_event *e)
{
	const struct lock_inst *li = model_lock(a->m, e->a, e->obj, e->life);
	if (li) {
		char who[24] = "free";
		if (li->holder >= 0)
			snprintf(who, sizeof(who), "held by %s",
				 thread_name(a->ix, (unsigned)li->holder));
		sayf(d, R_NORMAL, 2, "%s %" PRIu64 " after this event: %s", lock_class_label(e->a),
		     ix_id_value(a->ix, e->obj), who);
	}
	if (e->cpu == IX_NO_CPU)
		return;
	const struct cpu_state *s = model_cpu(a->m, e->cpu);
	for (int k = 0; k < s->nheld; k++)
		sayf(d, R_HOLD, 2, "%s holds #%d: %s %" PRIu64 " (taken in %s)",
		     thread_name(a->ix, e->cpu), k + 1, lock_class_label(s->held[k].cls),
		     ix_id_value(a->ix, s->held[k].obj), site_label(s->held[k].site));
}

static void build(struct dlines *d, const struct app *a)
{
	const struct ix_event *e = &a->ix->ev[a->cur];
	char buf[300], d1[32];
	sayf(d, R_TITLE, 0, "#%" PRIu64 " of %" PRIu64 "   t=+%s   %s   %s", a->cur, a->end,
	     fmt_dur(e->ts - a->ix->ev[0].ts, d1, sizeof(d1)), event_thread(a->ix, a->cur),
	     ev_type_name(e->type));
	if (e->type != EV_violation) { /* a violation's text is its report, below */
		event_text(a->ix, a->cur, false, buf, sizeof(buf));
		say(d, R_NORMAL, 2, buf);
	}
	put(d, R_TITLE, 0, "Fields:");
	sayf(d, R_NORMAL, 2, "timestamp = %" PRId64 " ns (clock), real core = %d", e->ts,
	     e->core == 255 ? -1 : e->core);
	for (int f = 0; f < IX_MAX_FIELDS; f++) {
		char v[200];
		const char *name = event_field(a->ix, a->cur, f, v, sizeof(v));
		if (!name)
			break;
		if (v[0]) /* fields kept beside the event come below */
			sayf(d, R_NORMAL, 2, "%s = %s", name, v);
	}
	if (e->type == EV_violation && e->val < a->ix->nviols)
		violation_lines(d, a, e);
	else if (e->type == EV_discarded_events || e->type == EV_discarded_packets)
		loss_lines(d, a, e);
	else if (ev_is_lock(e->type))
		lock_lines(d, a, e);
	for (int m = 0; m < 26; m++) {
		if (!a->mark_set[m])
			continue;
		int64_t dt = e->ts - a->ix->ev[a->marks[m]].ts;
		uint64_t n = a->cur > a->marks[m] ? a->cur - a->marks[m] : a->marks[m] - a->cur;
		sayf(d, R_NORMAL, 0, "from mark %c (#%" PRIu64 "): %s%s, %" PRIu64 " events",
		     'a' + m, a->marks[m], dt < 0 ? "-" : "+",
		     fmt_dur(dt < 0 ? -dt : dt, d1, sizeof(d1)), n);
	}
}

void details_draw(struct app *a, struct canvas *c)
{
	struct rect r = { 2, 1, c->w - 4, c->h - 2 };
	if (r.w < 20 || r.h < 5)
		return;
	struct dlines d = { .width = r.w - 4 };
	build(&d, a);
	int rows = r.h - 3;
	if (a->dscroll > d.n - rows)
		a->dscroll = d.n - rows > 0 ? d.n - rows : 0;
	for (int y = r.y; y < r.y + r.h; y++) /* and a blank column each side */
		canvas_fill(c, r.x - 1, y, r.w + 2, R_NORMAL, ' ');
	canvas_box(c, r, "Event details (Esc closes)", true);
	for (int k = 0; k < rows && a->dscroll + k < d.n; k++) {
		const struct dline *l = &d.l[a->dscroll + k];
		canvas_text(c, r.x + 2 + l->indent, r.y + 1 + k, r.w - 4 - l->indent, l->role,
			    l->text);
	}
	canvas_printf(
		c, r.x + 2, r.y + r.h - 2, r.w - 4, R_TITLE,
		"lines %d-%d of %d   Up/Down PgUp/PgDn scroll   v/V x/X a/A n/N: next/previous",
		d.n ? a->dscroll + 1 : 0, a->dscroll + rows < d.n ? a->dscroll + rows : d.n, d.n);
	free(d.l);
}

bool details_key(struct app *a, int key)
{
	switch (key) {
	case 27:
	case 'q':
	case '\n':
	case KEY_ENTER:
	case KEY_BACKSPACE:
	case 127:
		a->details = false;
		return true;
	case KEY_DOWN:
	case 'j':
		a->dscroll++;
		return true;
	case KEY_UP:
	case 'k':
		a->dscroll = a->dscroll > 0 ? a->dscroll - 1 : 0;
		return true;
	case KEY_NPAGE:
	case ' ':
		a->dscroll += 10;
		return true;
	case KEY_PPAGE:
	case 'b':
		a->dscroll = a->dscroll > 10 ? a->dscroll - 10 : 0;
		return true;
	default:
		return false; /* the usual meaning; the details follow the cursor */
	}
}
