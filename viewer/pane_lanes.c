/*
 * pane_lanes.c - the lanes: one column per simulated CPU, the events around the cursor.
 * Drawn from the model at the cursor; nothing is kept between frames
 * but the scroll offset (and the inode history, built on demand).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "viewer/app.h"
#include "viewer/report.h"
#include "viewer/threads.h"
#include "viewer/unprot.h"

/* ---- lanes: one column per simulated CPU, events around the cursor ------- */

static int event_role(const struct trace_index *ix, const struct ix_event *e)
{
	uint32_t wf = flag_will_free(), fr = flag_freeing();
	switch (e->type) {
	case EV_lock_acquired:
		return R_HOLD;
	case EV_lock_contended:
		return R_WAIT;
	case EV_lock_trylock:
		return e->b ? R_NORMAL : R_WAIT;
	case EV_violation:
	case EV_discarded_events:
	case EV_discarded_packets:
		return R_BAD;
	case EV_inode_state: {
		uint32_t o = (uint32_t)(e->val >> 32), n = (uint32_t)e->val;
		if ((n & fr) && !(o & fr))
			return R_FREEING;
		if ((n & wf) && !(o & wf))
			return R_WILLFREE;
		return R_NORMAL;
	}
	case EV_inode_free:
	case EV_inode_alloc:
		return R_TITLE;
	default:
		return R_NORMAL;
	}
	(void)ix;
}

static int64_t scan_vis(const struct app *a, int64_t i, int dir)
{
	for (;;) {
		i += dir;
		if (i < 0 || (uint64_t)i >= a->end)
			return -1;
		if (!a->has_filter || query_match(&a->filter, a->ix, (uint64_t)i))
			return i;
	}
}

/* Where the lanes go: one per CPU (and one for "no CPU"), at least 14
 * columns each, the cursor's CPU in view when they do not all fit. */
struct lanes {
	int prefix; /* event number and time */
	int nl;     /* lanes in all */
	int lane_w;
	int first, shown;
};

static struct lanes lanes_layout(const struct app *a, struct rect r)
{
	const struct trace_index *ix = a->ix;
	struct lanes lg = { .prefix = 19 };

	lg.nl = (int)ix->ncpus + (a->has_nocpu ? 1 : 0); /* last: no CPU */
	lg.lane_w = (r.w - lg.prefix) / (lg.nl ? lg.nl : 1);
	lg.shown = lg.nl;
	if (lg.lane_w < 14) {
		lg.lane_w = 14;
		lg.shown = (r.w - lg.prefix) / lg.lane_w;
		if (lg.shown < 1)
			lg.shown = 1;
		int ccpu = ix->ev[a->cur].cpu == IX_NO_CPU ? lg.nl - 1 : ix->ev[a->cur].cpu;
		if (ccpu >= lg.nl)
			ccpu = lg.nl - 1;
		lg.first = ccpu - lg.shown / 2;
		if (lg.first + lg.shown > lg.nl)
			lg.first = lg.nl - lg.shown;
		if (lg.first < 0)
			lg.first = 0;
	}
	return lg;
}

/* In the other lanes of row y: a CPU that holds an inode pointer nothing
 * protects (viewer/unprot.h), from the event that dropped its last
 * protection to the one that touches the inode again. */
static void draw_unprotected(struct app *a, struct canvas *c, struct rect r, const struct lanes *lg,
			     int y, int64_t i, int lane)
{
	const struct unprot *u = unprot_spans(a->ix);
	for (int l = lg->first; l < lg->first + lg->shown && l < lg->nl; l++) {
		const struct unprot_span *s = unprot_at(u, (unsigned)l, (uint64_t)i);
		if (!s || l == lane || lane < 0 || (uint64_t)i <= s->from)
			continue;
		int x = r.x + lg->prefix + (l - lg->first) * lg->lane_w;
		canvas_printf(c, x, y, lg->lane_w - 1, R_BAD, "%s UNPROTECTED %" PRIu64,
			      c->utf8 ? "┊" : "!", ix_id_value(a->ix, s->obj));
	}
}

/* Row y: event i, in its CPU's lane (or across, for a loss or an event
 * of a CPU out of view), with the lane separators. */
static void draw_lane_row(struct app *a, struct canvas *c, struct rect r, const struct lanes *lg,
			  int y, int64_t i)
{
	const struct trace_index *ix = a->ix;
	const struct ix_event *e = &ix->ev[i];
	bool cur = (uint64_t)i == a->cur;
	int prefix = lg->prefix, first = lg->first, shown = lg->shown, nl = lg->nl;
	char txt[200];

	event_text(ix, (uint64_t)i, true, txt, sizeof(txt));
	canvas_printf(c, r.x, y, prefix, cur ? R_CURSOR : R_DIM, "%s%7" PRIu64 " %9.4f ",
		      cur ? glyph(c, G_CURSOR) : " ", (uint64_t)i,
		      (double)(e->ts - ix->ev[0].ts) / 1e6);
	int lane = e->cpu == IX_NO_CPU ? (a->has_nocpu ? nl - 1 : -1) : e->cpu;
	int role = event_role(ix, e);
	if (a->has_search && query_match(&a->search, ix, (uint64_t)i))
		role = R_MATCH;
	if (e->type == EV_discarded_events || e->type == EV_discarded_packets) {
		canvas_printf(c, r.x + prefix, y, r.w - prefix, R_BAD, "%s %s", glyph(c, G_WARN),
			      txt);
	} else if (lane < 0) {
		canvas_text(c, r.x + prefix, y, r.w - prefix, R_TITLE, txt);
	} else if (lane >= first && lane < first + shown) {
		int x = r.x + prefix + (lane - first) * lg->lane_w;
		canvas_text(c, x, y, lg->lane_w - 1, role, txt);
	} else {
		canvas_printf(c, r.x + prefix, y, r.w - prefix, R_DIM, "(%s) %s",
			      thread_name(ix, e->cpu), txt);
	}
	draw_unprotected(a, c, r, lg, y, i, lane);
	for (int l = first + 1; l < first + shown && l < nl; l++) {
		int x = r.x + prefix + (l - first) * lg->lane_w - 1;
		if (c->cells[y * c->w + x].ch == ' ')
			canvas_text(c, x, y, 1, R_DIM, c->utf8 ? "│" : "|");
	}
	if (cur)
		canvas_role(c, r.x, y, r.w, R_CURSOR);
}

/* The details line's tail: what an acquire is taken under (the locks its
 * CPU already holds), and the source line of the event. */
static void cursor_context(const struct app *a, char *det, size_t len)
{
	const struct trace_index *ix = a->ix;
	const struct ix_event *e = &ix->ev[a->cur];
	size_t o = strlen(det);
	if (e->type == EV_lock_acquire) {
		const struct cpu_state *s = model_cpu(a->m, e->cpu);
		o += (size_t)snprintf(det + o, len - o, "%s",
				      s->nheld ? ", under" : ", no lock held");
		for (int i = 0; i < s->nheld && o < len; i++)
			o += (size_t)snprintf(det + o, len - o, "%s %s %" PRIu64, i ? "," : "",
					      lock_class_label(s->held[i].cls),
					      ix_id_value(ix, s->held[i].obj));
	}
	if (e->line && o < len) {
		const struct ix_run *r = ix_run0(ix);
		const char *f = e->src == 1 && r ? ix_str(ix, r->scheme_file) :
				e->src == 2      ? "sim/core/icache.c" :
						   "sim/engine/workloads.c";
		const char *base = strrchr(f, '/');
		snprintf(det + o, len - o, "  [%s:%u]", base ? base + 1 : f, e->line);
	}
}

static void draw_lanes(struct app *a, struct canvas *c, struct rect r)
{
	const struct trace_index *ix = a->ix;
	if (r.h < 3)
		return;
	struct lanes lg = lanes_layout(a, r);
	/* Lane titles. */
	canvas_printf(c, r.x, r.y, lg.prefix, R_TITLE, "%8s %9s ", "event", "ms");
	for (int l = lg.first; l < lg.first + lg.shown && l < lg.nl; l++) {
		int x = r.x + lg.prefix + (l - lg.first) * lg.lane_w;
		if (l == lg.nl - 1 && a->has_nocpu)
			canvas_printf(c, x, r.y, lg.lane_w, R_TITLE, "| (no cpu)");
		else
			canvas_printf(c, x, r.y, lg.lane_w, R_TITLE, "| %s",
				      thread_name(ix, (unsigned)l));
	}
	int rows = r.h - 2;
	int mid = rows / 2;
	/* Events above the cursor, then the cursor, then below. */
	int64_t above[256];
	int na = 0;
	for (int64_t i = (int64_t)a->cur; na < mid && na < 256;) {
		i = scan_vis(a, i, -1);
		if (i < 0)
			break;
		above[na++] = i;
	}
	int y0 = r.y + 1 + (mid - na);
	int64_t i = na ? above[na - 1] : (int64_t)a->cur;
	for (int row = 0; row < rows - (mid - na) && i >= 0; row++) {
		draw_lane_row(a, c, r, &lg, y0 + row, i);
		i = scan_vis(a, i, 1);
	}
	char det[300];
	event_text(ix, a->cur, false, det, sizeof(det));
	cursor_context(a, det, sizeof(det));
	canvas_printf(c, r.x, r.y + r.h - 1, r.w, R_TITLE, "%s %s %s", glyph(c, G_CURSOR),
		      thread_name(ix, ix->ev[a->cur].cpu), det);
}

const struct pane pane_lanes = { VIEW_LANES, "Events by CPU", draw_lanes, SLOT_MAIN };
