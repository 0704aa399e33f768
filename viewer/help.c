/*
 * help.c - the help overlay: the key table (app.c), wrapped and cut into
 * pages so no key is dropped on a small screen, then the legend: every
 * word, glyph and colour the panes use, drawn in its own role so the
 * legend shows the colours it explains.
 *
 * Keys while it is open: ? Space PgDn Down Right go to the next page
 * (after the last one: close), b PgUp Up Left to the previous one, any
 * other key closes it.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/keys.h"
#include "lib/xalloc.h"
#include "viewer/app.h"

/* One line of the help: a label column and a text column, each in a
 * role; page = true starts a new page (the legend's first line). */
struct hline {
	const char *label;
	char text[200];
	int lrole, trole;
	bool page;
};

struct hlines {
	struct hline *l;
	int n, cap;
};

static void add(struct hlines *h, bool page, const char *label, int lrole, int trole,
		const char *text)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 64;
		h->l = xreallocarray(h->l, (size_t)h->cap, sizeof(*h->l));
	}
	struct hline *l = &h->l[h->n++];
	l->label = label;
	snprintf(l->text, sizeof(l->text), "%s", text);
	l->lrole = lrole;
	l->trole = trole;
	l->page = page;
}

/* Text wrapped at spaces to width w: the first line with its label, the
 * rest under the text column. */
static void add_wrapped(struct hlines *h, bool page, const char *label, int lrole, int trole,
			const char *text, int w)
{
	const char *p = text;
	bool first = true;
	if (w < 8)
		w = 8;
	do {
		int cut = canvas_wrap_cut(p, (int)strlen(p), w);
		char buf[200];
		snprintf(buf, sizeof(buf), "%.*s", cut, p);
		add(h, page && first, first ? label : "", lrole, trole, buf);
		first = false;
		p += cut;
		while (*p == ' ')
			p++;
	} while (*p);
}

/* The legend of the lanes: a label drawn in its own role (or, with
 * g >= 0, the glyph g), and what it means. */
static const struct legend_row {
	const char *label;
	int g, role;
	const char *text;
} lanes_legend[] = {
	{ "acq i_lock 42", -1, R_NORMAL,
	  "lock_acquire: the CPU asks for the lock (class, instance: an inode number "
	  "for i_lock, 0 for a global lock)" },
	{ "WAIT hash cpu1", -1, R_WAIT,
	  "lock_contended: the lock is held (by cpu1): this CPU waits" },
	{ "HOLD i_lock 42", -1, R_HOLD, "lock_acquired: the CPU holds the lock now" },
	{ "rel i_lock 42", -1, R_NORMAL, "lock_release" },
	{ "trylock hash FAILED", -1, R_WAIT, "a trylock that failed (ok: it took the lock)" },
	{ "state 42 A>B", -1, R_NORMAL, "i_state of inode 42 went from A to B (NEW, DIRTY, ...)" },
	{ "state 42 0>WILL_FREE", -1, R_WILLFREE,
	  "I_WILL_FREE set: the inode is being written back before it is freed" },
	{ "state 42 WILL_FREE>FREEING", -1, R_FREEING,
	  "I_FREEING set: this CPU owns the inode's end; nobody may take a new reference" },
	{ "ref 42 1>0", -1, R_NORMAL,
	  "i_count went from 1 to 0; add/del LIST 42: a list move; ALLOC / FREE: "
	  "the inode's life begins / ends; { op 42 and } op 42 = result: an operation" },
	{ "!! kind: text", -1, R_BAD,
	  "a violation the validator reported (Enter shows the whole report)" },
	{ NULL, G_WARN, R_BAD,
	  "LOST: the tracer discarded events here; figures after it are lower bounds" },
	{ "match", -1, R_MATCH, "an event the search matches" },
};

/* The legend: what each word, glyph and colour of the panes means. */
static void add_legend(struct hlines *h, const struct canvas *c, int w)
{
	add(h, true, "", R_NORMAL, R_TITLE,
	    "Legend: the lanes (one column per CPU, time going down)");
	for (size_t i = 0; i < sizeof(lanes_legend) / sizeof(lanes_legend[0]); i++) {
		const struct legend_row *l = &lanes_legend[i];
		add_wrapped(h, false, l->g >= 0 ? glyph(c, (enum glyph)l->g) : l->label, l->role,
			    R_NORMAL, l->text, w);
	}
}

/* The glyphs, the compact lanes' letters and the strip's levels. */
static void add_glyphs(struct hlines *h, const struct canvas *c, int w)
{
	static char letters[IX_MAX_CLASSES][2];
	add(h, false, "", R_NORMAL, R_TITLE, "Glyphs");
	add_wrapped(h, false, glyph(c, G_CURSOR), R_CURSOR, R_NORMAL,
		    "the cursor: the panes show the state after this event", w);
	add_wrapped(h, false, glyph(c, G_HOLD), R_HOLD, R_NORMAL,
		    "a lock held (held locks: in the order taken, 1 = first)", w);
	add_wrapped(h, false, glyph(c, G_WAIT), R_WAIT, R_NORMAL, "waiting for a lock", w);
	add_wrapped(h, false, glyph(c, G_STAR), R_WILLFREE, R_NORMAL,
		    "inode pane: the I_WILL_FREE / I_FREEING handoff; compact lanes: a violation",
		    w);
	add_wrapped(h, false, glyph(c, G_CHECK), R_GOOD, R_NORMAL,
		    "lock order: an edge the scheme documents", w);
	add_wrapped(h, false, glyph(c, G_CROSS), R_BAD, R_NORMAL,
		    "lock order: an edge against the documented order; compact lanes: a failed "
		    "trylock",
		    w);
	add(h, false, "", R_NORMAL, R_TITLE,
	    "Compact lanes (C): a glyph per event, its lock class");
	add_wrapped(h, false, c->utf8 ? "→ ⧗ ● ○" : "> W H o", R_NORMAL, R_NORMAL,
		    "acquire, wait (contended), hold (acquired), release; t: trylock ok", w);
	add_wrapped(h, false, "s F W r l", R_NORMAL, R_NORMAL,
		    "i_state change (F: I_FREEING set, W: I_WILL_FREE set), i_count, list move", w);
	add_wrapped(h, false, "+ - { }", R_NORMAL, R_NORMAL,
		    "inode allocated, freed; an operation begins, ends", w);
	add_wrapped(h, false, "0 1 .. f s m -", R_TITLE, R_NORMAL,
		    "column heads: the CPUs by number, then the flusher, setup and main threads; "
		    "-: no simulated CPU (a scenario's narration, call_rcu)",
		    w);
	add_wrapped(h, false, "z ^", R_WAIT, R_NORMAL,
		    "sleeps on an inode's state (I_NEW, I_FREEING, I_WILL_FREE); wakes", w);
	add_wrapped(h, false, c->utf8 ? "¶" : "#", R_TITLE, R_NORMAL,
		    "a note: the scenario's narration (a / A go from note to note)", w);
	for (int cls = 0; cls < nr_lock_class_labels() && cls < IX_MAX_CLASSES; cls++) {
		letters[cls][0] = class_letter(cls);
		add(h, false, letters[cls], class_role(cls), R_NORMAL, lock_class_label(cls));
	}
	add(h, false, "", R_NORMAL, R_TITLE, "Timeline strip");
	add_wrapped(h, false, c->utf8 ? "▁▂▃▄▅▆▇█" : ".:-=+*#@", R_NORMAL, R_NORMAL,
		    "contentions of a lock class in a slice of time, or with T the time waited "
		    "(taller: more; the class's top slice is full); the cursor's slice is marked, "
		    "with its figures at the right; ? under a slice: events were lost there",
		    w);
}

static void build(struct hlines *h, const struct canvas *c, int w)
{
	int tw = w - 20; /* the text column of help_draw */
	for (int i = 0; i < nkeys; i++)
		add_wrapped(h, false, keytab[i].label, R_TITLE, R_NORMAL, keytab[i].help, tw);
	add_wrapped(h, false, "", R_NORMAL, R_NORMAL, KEYS_NOTATION_HELP, tw);
	add_legend(h, c, tw);
	add_glyphs(h, c, tw);
}

/* The box and the lines per page for this canvas. */
static struct rect help_box(const struct canvas *c, int *per)
{
	int w = c->w - 4 < 96 ? c->w - 4 : 96, h = c->h - 2;
	*per = h - 4;
	if (*per < 1)
		*per = 1;
	return (struct rect){ (c->w - w) / 2, 1, w, h };
}

/* Page of each line: pages hold per lines, and a page flag starts one. */
static int paginate(const struct hlines *h, int per, int *pg)
{
	int page = 0, used = 0;
	for (int i = 0; i < h->n; i++) {
		if ((h->l[i].page && used) || used == per) {
			page++;
			used = 0;
		}
		pg[i] = page;
		used++;
	}
	return page + 1;
}

/* Pages of the help on a w x h screen (a key moves between them before
 * the next frame is drawn, so they are counted without one). */
static int help_count(int w, int h, bool utf8)
{
	struct canvas c = { .w = w > 0 ? w : 80, .h = h > 0 ? h : 24, .utf8 = utf8 };
	int per;
	struct rect r = help_box(&c, &per);
	struct hlines hl = { 0 };
	build(&hl, &c, r.w);
	int *pg = xcalloc((size_t)hl.n + 1, sizeof(int));
	int n = paginate(&hl, per, pg);
	free(pg);
	free(hl.l);
	return n;
}

void help_draw(struct app *a, struct canvas *c)
{
	int per;
	struct rect r = help_box(c, &per);
	struct hlines h = { 0 };
	build(&h, c, r.w);
	int *pg = xcalloc((size_t)h.n + 1, sizeof(int));
	int pages = paginate(&h, per, pg);
	if (a->help_page >= pages)
		a->help_page = pages - 1;
	for (int y = r.y; y < r.y + r.h; y++) /* and a blank column each side */
		canvas_fill(c, r.x - 1, y, r.w + 2, R_NORMAL, ' ');
	char title[96];
	int y = r.y + 1;
	for (int i = 0; i < h.n; i++) {
		if (pg[i] != a->help_page)
			continue;
		canvas_text(c, r.x + 2, y, 15, h.l[i].lrole, h.l[i].label);
		canvas_text(c, r.x + 18, y, r.w - 20, h.l[i].trole, h.l[i].text);
		y++;
	}
	bool legend = false;
	for (int i = 0; i < h.n; i++)
		if (h.l[i].page && pg[i] <= a->help_page)
			legend = true;
	snprintf(title, sizeof(title), "Help %d/%d: %s", a->help_page + 1, pages,
		 legend ? "legend" : "keys");
	canvas_box(c, r, title, true);
	canvas_text(c, r.x + 2, r.y + r.h - 2, r.w - 4, R_TITLE,
		    a->help_page + 1 < pages ? "? or Space: next page   b: back   Esc: close" :
					       "b: back   any other key closes");
	free(pg);
	free(h.l);
}

void help_key(struct app *a, int key)
{
	switch (key) {
	case '?':
	case ' ':
	case KEY_NPAGE:
	case KEY_DOWN:
	case KEY_RIGHT:
	case 'j':
		if (++a->help_page >= help_count(a->scr_w, a->scr_h, a->scr_utf8))
			a->help = false; /* past the last page */
		break;
	case 'b':
	case KEY_PPAGE:
	case KEY_UP:
	case KEY_LEFT:
	case 'k':
		if (a->help_page > 0)
			a->help_page--;
		break;
	default:
		a->help = false;
	}
}
