/*
 * lanes_compact.c - the lanes for many CPUs: one narrow column per CPU,
 * a glyph per event kind and the lock class as a letter in its colour.
 *
 * A 16-CPU run does not fit text lanes of 14 columns; here each CPU gets
 * 2 to 5 columns, so every CPU of a 16-64 CPU run is in view and nothing
 * written for one CPU crosses into the next column.  The glyphs are those
 * of the legend (help page two); the details line under the lanes has the
 * cursor's event in full, as in the text lanes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "viewer/app.h"
#include "viewer/report.h"
#include "viewer/threads.h"

/* The letter and colour of a lock class: a hand-made table for the
 * classes the schemes have (distinct letters, the hot classes of one
 * scheme in distinct colours), first free letter of the name for any
 * class added later. */
static const struct {
	const char *name;
	char letter;
	int colour;
} class_marks[] = {
	{ "inode_lock", 'G', 2 },         { "i_lock", 'i', 0 },
	{ "inode_hash_lock", 'h', 2 },    { "hash_bucket", 'b', 2 },
	{ "inode_sb_list_lock", 's', 3 }, { "inode_wb_list_lock", 'w', 1 },
	{ "inode_lru_lock", 'l', 4 },     { "iunique_lock", 'u', 5 },
	{ "test_lock_a", 'A', 0 },        { "test_lock_b", 'B', 2 },
	{ "iprune_sem", 'p', 5 },         { "s_umount", 'm', 5 },
};
#define NMARKS (int)(sizeof(class_marks) / sizeof(class_marks[0]))

static int mark_of(int cls)
{
	const char *n = lock_class_label(cls);
	for (int k = 0; k < NMARKS; k++)
		if (!strcmp(n, class_marks[k].name))
			return k;
	return -1;
}

static bool letter_taken(char ch, int upto)
{
	for (int k = 0; k < NMARKS; k++)
		if (class_marks[k].letter == ch)
			return true;
	for (int c = 0; c < upto; c++)
		if (mark_of(c) < 0 && class_letter(c) == ch)
			return true;
	return false;
}

char class_letter(int cls)
{
	int k = mark_of(cls);
	if (k >= 0)
		return class_marks[k].letter;
	const char *n = lock_class_label(cls);
	if (!strncmp(n, "inode_", 6))
		n += 6;
	for (const char *p = n; *p; p++)
		if (*p >= 'a' && *p <= 'z' && !letter_taken(*p, cls))
			return *p;
	for (const char *p = n; *p; p++)
		if (*p >= 'a' && *p <= 'z' && !letter_taken((char)(*p - 32), cls))
			return (char)(*p - 32);
	return '?';
}

int class_role(int cls)
{
	int k = mark_of(cls);
	return R_CLASS0 + (k >= 0 ? class_marks[k].colour : cls % R_NCLASS);
}

/* The glyph of an event in a compact lane and its role; lock events
 * also carry their class letter. */
static const char *compact_glyph(const struct canvas *c, const struct ix_event *e, int *role)
{
	uint32_t o = (uint32_t)(e->val >> 32), n = (uint32_t)e->val;
	*role = ev_is_lock(e->type) ? class_role(e->a) : R_NORMAL;
	switch (e->type) {
	case EV_lock_acquire:
		return c->utf8 ? "→" : ">";
	case EV_lock_contended:
		return glyph(c, G_WAIT);
	case EV_lock_acquired:
		return glyph(c, G_HOLD);
	case EV_lock_release:
		return c->utf8 ? "○" : "o";
	case EV_lock_trylock:
		return e->b ? "t" : glyph(c, G_CROSS);
	case EV_inode_state:
		if ((n & flag_freeing()) && !(o & flag_freeing())) {
			*role = R_FREEING;
			return "F";
		}
		if ((n & flag_will_free()) && !(o & flag_will_free())) {
			*role = R_WILLFREE;
			return "W";
		}
		return "s";
	case EV_inode_ref:
		return "r";
	case EV_inode_list:
		return "l";
	case EV_inode_alloc:
		return "+";
	case EV_inode_free:
		return "-";
	case EV_op_begin:
		return "{";
	case EV_op_end:
		return "}";
	case EV_violation:
		*role = R_BAD;
		return glyph(c, G_STAR);
	case EV_inode_wait:
		*role = R_WAIT;
		return "z";
	case EV_inode_wait_end:
		return "^";
	case EV_note:
		*role = R_TITLE;
		return c->utf8 ? "¶" : "#";
	case EV_discarded_events:
	case EV_discarded_packets:
		*role = R_BAD;
		return glyph(c, G_WARN);
	default:
		return glyph(c, G_DOT);
	}
}

/* The geometry: which lanes, how wide. */
struct compact {
	int prefix, cw, shown;
	int lane[256];
};

static struct compact compact_layout(const struct app *a, struct rect r)
{
	struct compact g = { .prefix = r.w < 90 ? 9 : 19 };
	int nl = (int)a->ix->ncpus + (a->has_nocpu ? 1 : 0);
	for (int l = 0; l < nl && g.shown < 256; l++)
		if (!a->lanes_picked || lane_picked(a, l))
			g.lane[g.shown++] = l;
	int avail = r.w - g.prefix;
	if (g.shown && avail / g.shown < 2 && g.prefix > 9) {
		g.prefix = 9; /* the time goes before a CPU does */
		avail = r.w - g.prefix;
	}
	g.cw = g.shown ? avail / g.shown : avail;
	if (g.cw > 5)
		g.cw = 5;
	if (g.cw < 1) {
		g.cw = 1;
		g.shown = avail; /* the first ones; p picks others */
	}
	return g;
}

bool lanes_compact_wanted(struct app *a, struct rect r)
{
	if (a->compact == 0) {
		int nl = (int)a->ix->ncpus + (a->has_nocpu ? 1 : 0), n = 0;
		for (int l = 0; l < nl; l++)
			n += !a->lanes_picked || lane_picked(a, l);
		/* Many CPUs (above 8) that text lanes cannot all show; a few
		 * extra lanes go to the text lanes' others column instead. */
		a->compact_shown = n > 8 && (r.w - 19) / n < 14;
	} else {
		a->compact_shown = a->compact == 1;
	}
	return a->compact_shown;
}

static void compact_row(struct app *a, struct canvas *c, struct rect r, const struct compact *g,
			int y, int64_t i)
{
	const struct ix_event *e = &a->ix->ev[i];
	bool cur = (uint64_t)i == a->cur;
	if (g->prefix < 19)
		canvas_printf(c, r.x, y, g->prefix, cur ? R_CURSOR : R_DIM, "%s%7" PRIu64 " ",
			      cur ? glyph(c, G_CURSOR) : " ", (uint64_t)i);
	else
		canvas_printf(c, r.x, y, g->prefix, cur ? R_CURSOR : R_DIM, "%s%7" PRIu64 " %9.4f ",
			      cur ? glyph(c, G_CURSOR) : " ", (uint64_t)i,
			      (double)(e->ts - a->ix->ev[0].ts) / 1e6);
	int lane = lane_of(a, e->cpu);
	for (int k = 0; k < g->shown; k++) {
		int x = r.x + g->prefix + k * g->cw;
		if (g->lane[k] != lane) {
			if (g->cw >= 3)
				canvas_text(c, x + g->cw - 1, y, 1, R_DIM, c->utf8 ? "│" : "|");
			continue;
		}
		int role;
		char cell[16];
		const char *gl = compact_glyph(c, e, &role);
		if (ev_is_lock(e->type) && g->cw >= 2)
			snprintf(cell, sizeof(cell), "%s%c", gl, class_letter(e->a));
		else
			snprintf(cell, sizeof(cell), "%s", gl);
		canvas_text(c, x, y, g->cw >= 3 ? g->cw - 1 : g->cw, role, cell);
		if (g->cw >= 3)
			canvas_text(c, x + g->cw - 1, y, 1, R_DIM, c->utf8 ? "│" : "|");
	}
	if (cur)
		canvas_role(c, r.x, y, g->prefix, R_CURSOR);
}

/* The bottom lines: the classes' letters in their colours, then the
 * cursor's event in full. */
static void compact_footer(struct app *a, struct canvas *c, struct rect r)
{
	int x = r.x, y = r.y + r.h - 2;
	x += canvas_text(c, x, y, r.w, R_TITLE, "classes: ");
	for (int cls = 0; cls < MODEL_MAX_CLASSES && x < r.x + r.w; cls++) {
		if (!a->m->stats[cls].acquisitions)
			continue;
		char t[48];
		snprintf(t, sizeof(t), "%c", class_letter(cls));
		x += canvas_text(c, x, y, r.x + r.w - x, class_role(cls), t);
		snprintf(t, sizeof(t), " %s  ", lock_class_short(cls));
		x += canvas_text(c, x, y, r.x + r.w - x, R_NORMAL, t);
	}
	char det[300];
	event_text(a->ix, a->cur, false, det, sizeof(det));
	canvas_printf(c, r.x, r.y + r.h - 1, r.w, R_TITLE, "%s %s %s", glyph(c, G_CURSOR),
		      event_thread(a->ix, a->cur), det);
}

void lanes_compact_draw(struct app *a, struct canvas *c, struct rect r)
{
	if (r.h < 4)
		return;
	struct compact g = compact_layout(a, r);
	canvas_text(c, r.x, r.y, g.prefix, R_TITLE,
		    g.prefix < 19 ? "   event" : "   event        ms");
	for (int k = 0; k < g.shown; k++) {
		int l = g.lane[k];
		char t[16];
		/* CPUs by number, the other threads by initial (f: flusher,
		 * s: setup, m: main); "-" the events of no simulated CPU
		 * (a scenario's narration, call_rcu's grace periods) */
		if (l < (int)ix_sim_cpus(a->ix))
			snprintf(t, sizeof(t), "%d", l);
		else if (l == (int)a->ix->ncpus)
			snprintf(t, sizeof(t), "-");
		else
			snprintf(t, sizeof(t), "%c", thread_name(a->ix, (unsigned)l)[0]);
		int w = (int)strlen(t), cw = g.cw >= 3 ? g.cw - 1 : g.cw;
		if (w <= cw)
			canvas_text(c, r.x + g.prefix + k * g.cw, r.y, cw, R_TITLE, t);
	}
	int rows = r.h - 3, row;
	for (int64_t i = app_rows_top(a, rows, &row); row < rows && i >= 0; row++) {
		compact_row(a, c, r, &g, r.y + 1 + row, i);
		i = app_scan_visible(a, i, 1);
	}
	compact_footer(a, c, r);
}
