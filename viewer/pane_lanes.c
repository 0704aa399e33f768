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

/* Where the lanes go: one per CPU (and one for "no CPU"), at least 14
 * columns each; when they do not all fit, the picked ones (p) or those
 * around the cursor's CPU, and a narrow "others" column at the right for
 * the events of the lanes out of view, so no text crosses a lane. */
#define LANES_MAX 64
#define OTHERS_W 11

struct lanes {
	int prefix;    /* event number and time */
	int numw, msw; /* their widths: the trace's largest (msw 0: no time) */
	int nl;        /* lanes in all */
	int lane_w;
	int shown;
	int lane[LANES_MAX]; /* the lanes in view, left to right */
	int others;          /* width of the others column (0: none) */
};

static int lanes_slot(const struct lanes *lg, int lane)
{
	for (int k = 0; k < lg->shown; k++)
		if (lg->lane[k] == lane)
			return k;
	return -1;
}

/* The lanes in view when they do not all fit: the picked ones, else a
 * window around the cursor's lane. */
static void lanes_choose(const struct app *a, struct lanes *lg, int fit)
{
	lg->shown = 0;
	if (a->lanes_picked) {
		for (int l = 0; l < lg->nl && lg->shown < fit; l++)
			if (lane_picked(a, l))
				lg->lane[lg->shown++] = l;
		if (lg->shown)
			return;
	}
	/* The simulated CPUs around the cursor's come first; the cursor's
	 * own lane if it is another thread (flusher, RCU callbacks). */
	int sim = (int)ix_sim_cpus(a->ix), ccpu = lane_of(a, a->ix->ev[a->cur].cpu);
	if (sim > lg->nl)
		sim = lg->nl;
	bool other = ccpu >= sim && ccpu < lg->nl && fit > 1;
	int n = fit - (other ? 1 : 0), mid = ccpu >= 0 && ccpu < sim ? ccpu : 0;
	int first = mid - n / 2;
	if (first + n > sim)
		first = sim - n;
	if (first < 0)
		first = 0;
	for (int l = first; l < sim && lg->shown < n; l++)
		lg->lane[lg->shown++] = l;
	for (int l = sim; l < lg->nl && lg->shown < fit; l++) /* room left, or the cursor's */
		if (!other || l == ccpu || lg->shown < n)
			lg->lane[lg->shown++] = l;
}

static struct lanes lanes_layout(const struct app *a, struct rect r)
{
	const struct trace_index *ix = a->ix;
	/* Narrow: the time is on the status line.  Wide enough for the
	 * last visible event's number and time: 10 M events or 10 s never
	 * cut. */
	struct lanes lg = { .numw = 7, .msw = r.w < 90 ? 0 : 9 };
	char b[32];
	int64_t dur = a->end ? ix->ev[a->end - 1].ts - ix->ev[0].ts : 0;
	int w = snprintf(b, sizeof(b), "%" PRIu64, a->end ? a->end - 1 : 0);
	lg.numw = w > lg.numw ? w : lg.numw;
	w = snprintf(b, sizeof(b), "%.4f", (double)dur / 1e6);
	if (lg.msw && w > lg.msw)
		lg.msw = w;
	lg.prefix = 1 + lg.numw + 1 + (lg.msw ? lg.msw + 1 : 0);

	lg.nl = (int)ix->ncpus + (a->has_nocpu ? 1 : 0); /* last: no CPU */
	int avail = r.w - lg.prefix, n = 0;
	for (int l = 0; l < lg.nl; l++)
		n += !a->lanes_picked || lane_picked(a, l);
	if (n > 0 && n <= LANES_MAX && avail / n >= 14 && n == lg.nl) {
		lg.lane_w = avail / n;
		lg.shown = n;
		for (int l = 0; l < n; l++)
			lg.lane[l] = l;
		return lg;
	}
	lg.others = OTHERS_W;
	int fit = (avail - lg.others) / 14;
	if (fit < 1)
		fit = 1;
	if (fit > LANES_MAX)
		fit = LANES_MAX;
	lanes_choose(a, &lg, fit);
	lg.lane_w = (avail - lg.others) / (lg.shown ? lg.shown : 1);
	lg.others = avail - lg.shown * lg.lane_w; /* the rest, after the last lane */
	return lg;
}

/* In the other lanes of row y: a CPU that holds an inode pointer nothing
 * protects (viewer/unprot.h), from the event that dropped its last
 * protection to the one that touches the inode again. */
static void draw_unprotected(struct app *a, struct canvas *c, struct rect r, const struct lanes *lg,
			     int y, int64_t i, int lane)
{
	const struct unprot *u = unprot_spans(a->ix);
	for (int k = 0; k < lg->shown; k++) {
		int l = lg->lane[k];
		const struct unprot_span *s = unprot_at(u, (unsigned)l, (uint64_t)i, a->end);
		if (!s || l == lane || lane < 0 || (uint64_t)i <= s->from)
			continue;
		int x = r.x + lg->prefix + k * lg->lane_w;
		canvas_printf(c, x, y, lg->lane_w - 1, s->unreliable ? R_DIM : R_BAD,
			      "%s UNPROTECTED%s %" PRIu64, c->utf8 ? "┊" : "!",
			      s->unreliable ? "?" : "", ix_id_value(a->ix, s->obj));
	}
}

/* Row y: event i, in its CPU's lane (or across, for a loss; or in the
 * others column, for a CPU out of view), with the lane separators. */
static void draw_lane_row(struct app *a, struct canvas *c, struct rect r, const struct lanes *lg,
			  int y, int64_t i)
{
	const struct trace_index *ix = a->ix;
	const struct ix_event *e = &ix->ev[i];
	bool cur = (uint64_t)i == a->cur;
	int prefix = lg->prefix;
	char txt[200];

	event_text(ix, (uint64_t)i, true, txt, sizeof(txt));
	if (!lg->msw)
		canvas_printf(c, r.x, y, prefix, cur ? R_CURSOR : R_DIM, "%s%*" PRIu64 " ",
			      cur ? glyph(c, G_CURSOR) : " ", lg->numw, (uint64_t)i);
	else
		canvas_printf(c, r.x, y, prefix, cur ? R_CURSOR : R_DIM, "%s%*" PRIu64 " %*.4f ",
			      cur ? glyph(c, G_CURSOR) : " ", lg->numw, (uint64_t)i, lg->msw,
			      (double)(e->ts - ix->ev[0].ts) / 1e6);
	int lane = lane_of(a, e->cpu);
	int slot = lane >= 0 ? lanes_slot(lg, lane) : -1;
	int role = event_role(ix, e);
	if (a->has_search && query_match(&a->search, ix, (uint64_t)i))
		role = R_MATCH;
	if (e->type == EV_discarded_events || e->type == EV_discarded_packets) {
		canvas_printf(c, r.x + prefix, y, r.w - prefix, R_BAD, "%s %s", glyph(c, G_WARN),
			      txt);
	} else if (lane < 0) {
		canvas_text(c, r.x + prefix, y, r.w - prefix, R_TITLE, txt);
	} else if (slot >= 0) {
		int x = r.x + prefix + slot * lg->lane_w;
		canvas_text(c, x, y, lg->lane_w - 1, role, txt);
	} else if (lg->others) {
		int x = r.x + r.w - lg->others;
		canvas_printf(c, x, y, lg->others, role, "%d %s", (int)(int16_t)e->cpu, txt);
	}
	draw_unprotected(a, c, r, lg, y, i, lane);
	for (int k = 1; k < lg->shown + (lg->others ? 1 : 0); k++) {
		int x = r.x + prefix + k * lg->lane_w - 1;
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
	if (lanes_compact_wanted(a, r)) {
		lanes_compact_draw(a, c, r);
		return;
	}
	struct lanes lg = lanes_layout(a, r);
	/* Lane titles. */
	if (!lg.msw)
		canvas_printf(c, r.x, r.y, lg.prefix, R_TITLE, "%*s ", lg.numw + 1, "event");
	else
		canvas_printf(c, r.x, r.y, lg.prefix, R_TITLE, "%*s %*s ", lg.numw + 1, "event",
			      lg.msw, "ms");
	for (int k = 0; k < lg.shown; k++) {
		int l = lg.lane[k], x = r.x + lg.prefix + k * lg.lane_w;
		if (l == lg.nl - 1 && a->has_nocpu)
			canvas_printf(c, x, r.y, lg.lane_w - 1, R_TITLE, "(no cpu)");
		else
			canvas_printf(c, x, r.y, lg.lane_w - 1, R_TITLE, "%s",
				      thread_name(ix, (unsigned)l));
		if (k + 1 < lg.shown || lg.others)
			canvas_text(c, x + lg.lane_w - 1, r.y, 1, R_DIM, c->utf8 ? "│" : "|");
	}
	if (lg.others)
		canvas_printf(c, r.x + r.w - lg.others, r.y, lg.others, R_TITLE, "+%d cpus",
			      lg.nl - lg.shown);
	/* Events above the cursor, then the cursor, then below. */
	int rows = r.h - 2, row;
	for (int64_t i = app_rows_top(a, rows, &row); row < rows && i >= 0; row++) {
		draw_lane_row(a, c, r, &lg, r.y + 1 + row, i);
		i = app_scan_visible(a, i, 1);
	}
	char det[300];
	event_text(ix, a->cur, false, det, sizeof(det));
	cursor_context(a, det, sizeof(det));
	canvas_printf(c, r.x, r.y + r.h - 1, r.w, R_TITLE, "%s %s %s", glyph(c, G_CURSOR),
		      event_thread(ix, a->cur), det);
}

const struct pane pane_lanes = { VIEW_LANES, "Events by CPU", draw_lanes, SLOT_MAIN };
