/*
 * pane_order.c - the lock-order pane: the edges held -> taken observed so far, their
 * verdicts against the documented order, and the shortest cycle.
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

/* ---- lock-order graph ---------------------------------------------------------- */

/* A cycle through the observed edges (classes), shortest first from each
 * node (breadth-first, as lockdep reports it).  Returns its length. */
static int find_cycle(const struct model *m, int *path)
{
	int best = 0;
	for (int s = 0; s < MODEL_MAX_CLASSES; s++) {
		int prev[MODEL_MAX_CLASSES], q[MODEL_MAX_CLASSES], qh = 0, qt = 0;
		for (int i = 0; i < MODEL_MAX_CLASSES; i++)
			prev[i] = -2;
		q[qt++] = s;
		prev[s] = -1;
		int hit = -1;
		while (qh < qt && hit < 0) {
			int u = q[qh++];
			for (unsigned k = 0; k < m->nedges; k++) {
				const struct lock_edge *e = &m->edges[k];
				if (e->from != u || e->from == e->to)
					continue;
				if (e->to == s) {
					hit = u;
					break;
				}
				if (prev[e->to] == -2) {
					prev[e->to] = u;
					q[qt++] = e->to;
				}
			}
		}
		if (hit < 0)
			continue;
		int tmp[MODEL_MAX_CLASSES + 1], n = 0;
		for (int v = hit; v != -1; v = prev[v])
			tmp[n++] = v;
		if (!best || n < best) {
			best = n;
			for (int i = 0; i < n; i++)
				path[i] = tmp[n - 1 - i];
			path[n] = s;
		}
	}
	return best;
}

/* ---- the documented order as a nested tree (as fs/inode.c writes it) ----- */

#define TREE_MAX 96

struct tree_line {
	uint8_t depth, cls;
	bool seen; /* expanded earlier: "(see above)" */
};

static bool is_outer(const struct trace_index *ix, int cls)
{
	for (uint32_t k = 0; k < ix->nrules; k++)
		if (ix->rules[k].outer == cls)
			return true;
	return false;
}

/* cls and, below it, what nests inside it; a class already expanded is
 * named again but not expanded twice. */
static int tree_add(const struct trace_index *ix, struct tree_line *t, int n, int cls, int depth,
		    uint64_t *done)
{
	if (n >= TREE_MAX || depth > 12)
		return n;
	bool seen = cls < 64 && (*done >> cls & 1) && is_outer(ix, cls);
	t[n++] = (struct tree_line){ (uint8_t)depth, (uint8_t)cls, seen };
	if (seen || cls >= 64)
		return n;
	*done |= 1ull << cls;
	for (uint32_t k = 0; k < ix->nrules; k++)
		if (ix->rules[k].outer == cls)
			n = tree_add(ix, t, n, ix->rules[k].inner, depth + 1, done);
	return n;
}

/* The whole order: one tree per lock nothing is taken before. */
static int order_tree(const struct trace_index *ix, struct tree_line *t)
{
	int n = 0;
	uint64_t done = 0, roots = 0;
	for (uint32_t k = 0; k < ix->nrules; k++) {
		int o = ix->rules[k].outer;
		bool inner = false;
		for (uint32_t j = 0; j < ix->nrules; j++)
			inner |= ix->rules[j].inner == o;
		if (!inner && o < 64 && !(roots >> o & 1)) {
			roots |= 1ull << o;
			n = tree_add(ix, t, n, o, 0, &done);
		}
	}
	return n;
}

static int tree_width(const struct tree_line *t, int n)
{
	int w = 0;
	for (int i = 0; i < n; i++) {
		int l = 2 * t[i].depth + (int)strlen(lock_class_label(t[i].cls)) +
			(t[i].seen ? 4 : 0);
		w = l > w ? l : w;
	}
	return w + 2;
}

/* The tree in columns of height h at (x, y), if it fits in w; returns the
 * width used, 0 if it does not fit (never cut: the caller says so). */
static int draw_tree(struct canvas *c, int x, int y, int w, int h, const struct tree_line *t, int n)
{
	int cw = tree_width(t, n), cols = h > 0 ? (n + h - 1) / h : 0;
	if (h <= 0 || cols * cw > w)
		return 0;
	for (int i = 0; i < n; i++)
		canvas_printf(c, x + (i / h) * cw, y + i % h, cw, t[i].depth ? R_NORMAL : R_TITLE,
			      "%*s%s%s", 2 * t[i].depth, "", lock_class_label(t[i].cls),
			      t[i].seen ? " ..." : "");
	return cols * cw;
}

/* The order as text, wrapped at rule groups; returns rows used.  What
 * does not fit in maxh rows is not cut silently: the last row says so. */
static int draw_order_text(struct canvas *c, int x, int y, int w, int maxh, const char *txt)
{
	int row = 0;
	const char *p = txt;
	while (*p && row < maxh) {
		if (row == maxh - 1 && (int)strlen(p) > w) {
			canvas_text(c, x, y + row++, w, R_DIM, "... (the whole order: z zooms)");
			break;
		}
		int len = (int)strlen(p);
		int take = len <= w ? len : w;
		if (len > w) {
			/* break after the last "; " or ", " that fits */
			for (int k = take - 1; k > 0; k--)
				if ((p[k] == ' ' && (p[k - 1] == ';' || p[k - 1] == ','))) {
					take = k + 1;
					break;
				}
		}
		canvas_printf(c, x, y + row++, w, R_DIM, "%.*s", take, p);
		p += take;
	}
	return row;
}

/* Did the event at the cursor add or use edge e (held -> being taken)? */
static int edge_now(const struct app *a, const struct lock_edge *e)
{
	const struct ix_event *ev = &a->ix->ev[a->cur];
	if (ev->type != EV_lock_acquire)
		return 0;
	if (e->first_ev == a->cur)
		return 2; /* added by it */
	const struct cpu_state *s = model_cpu(a->m, ev->cpu);
	if (e->to != ev->a)
		return 0;
	for (int i = 0; i < s->nheld; i++)
		if (s->held[i].cls == e->from)
			return 1;
	return 0;
}

static void draw_edge(struct app *a, struct canvas *c, int x, int y, int w,
		      const struct lock_edge *e)
{
	const struct model *m = a->m;
	const char *g = e->verdict > 0 ? glyph(c, G_CHECK) :
			e->verdict < 0 ? glyph(c, G_CROSS) :
					 "?";
	int now = edge_now(a, e);
	int n = canvas_printf(
		c, x, y, w,
		e->verdict < 0 ? R_BAD :
		e->verdict > 0 ? R_GOOD :
				 R_NORMAL,
		"%s %s%s %s %s x%u, first #%" PRIu64 " %s%s", g,
		now == 2 ? "NEW, this event: " :
		now      ? "this event: " :
			   "",
		lock_class_label(e->from), glyph(c, G_ARROW), lock_class_label(e->to), e->count,
		e->first_ev, site_label(e->first_site),
		e->lossy && e->verdict < 0 ? "  AGAINST THE ORDER? unreliable (after lost events)" :
		e->verdict < 0             ? "  AGAINST THE ORDER" :
		e->verdict == 0 ? (m->order.known ? "  undocumented" : "  order unknown") :
		e->lossy        ? "  (after lost events)" :
				  "");
	if (now)
		canvas_role(c, x, y, n, R_MATCH);
}

static void draw_graph(struct app *a, struct canvas *c, struct rect r)
{
	const struct model *m = a->m;
	const struct ix_run *run = ix_run0(a->ix);
	int y = r.y, w = r.w;
	/* the documented order: a nested tree on the right if it fits, else
	 * the rules as text, wrapped */
	struct tree_line t[TREE_MAX];
	int nt = a->ix->order_known ? order_tree(a->ix, t) : 0;
	if (nt) {
		int tw =
			draw_tree(c, r.x + r.w - (tree_width(t, nt) * ((nt + r.h - 2) / (r.h - 1))),
				  r.y + 1, r.w / 2, r.h - 1, t, nt);
		if (tw) {
			canvas_text(c, r.x + r.w - tw, r.y, tw, R_TITLE, "documented order");
			w = r.w - tw - 1;
		}
	}
	if (w == r.w)
		y += draw_order_text(c, r.x, y, r.w, r.h > 4 ? r.h - 3 : 1,
				     !a->ix->order_known ?
					     "documented: (not given as data in this trace)" :
				     run ? ix_str(a->ix, run->order) :
					   "");
	unsigned against = 0, lossy = 0;
	for (unsigned k = 0; k < m->nedges; k++) {
		against += m->edges[k].verdict < 0;
		lossy += m->edges[k].lossy && m->edges[k].verdict < 0;
	}
	int path[MODEL_MAX_CLASSES + 1];
	int n = find_cycle(m, path);
	bool cycle_lossy = false;
	for (int i = 0; i < n; i++) {
		uint16_t k = m->edge_ix[path[i]][path[i + 1]];
		cycle_lossy |= k && m->edges[k - 1].lossy;
	}
	if (n) {
		char buf[300];
		size_t o = 0;
		for (int i = 0; i <= n && o < sizeof(buf); i++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? " --> " : "",
					      lock_class_label(path[i]));
		canvas_printf(c, r.x, y++, w, R_BAD,
			      "%s possible circular locking dependency%s: %s", glyph(c, G_CROSS),
			      cycle_lossy ? " (UNRELIABLE: after lost events)" : "", buf);
	}
	canvas_printf(c, r.x, y++, w, R_TITLE,
		      "%u edges held -> taken so far, %u against the order%s", m->nedges, against,
		      lossy ? " (some UNRELIABLE: after lost events)" : "");
	for (unsigned k = (unsigned)*pane_scroll(a, VIEW_ORDER); k < m->nedges && y < r.y + r.h;
	     k++)
		draw_edge(a, c, r.x, y++, w, &m->edges[k]);
}

const struct pane pane_order = { VIEW_ORDER, "Lock order", draw_graph, SLOT_BOTTOM };
