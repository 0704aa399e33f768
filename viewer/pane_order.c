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

/* A class's name in the tree: as fs/inode.c writes it, or (narrow) without
 * the "inode_" that most of them share, as lock_stat's column does. */
static const char *tree_label(int cls, bool narrow)
{
	const char *n = lock_class_label(cls);
	if (narrow && !strncmp(n, "inode_", 6) && strcmp(n, "inode_lock") != 0)
		n += 6; /* the one global lock keeps its name: not "lock" */
	return n;
}

static int line_width(const struct tree_line *l, bool narrow)
{
	return 2 * l->depth + (int)strlen(tree_label(l->cls, narrow)) + (l->seen ? 4 : 0);
}

/*
 * The tree wrapped into columns of at most h rows, read top to bottom then
 * left to right; the indentation says the depth, as in fs/inode.c.  A
 * column ends before the least nested line of its lower half, so that the
 * next one starts with a whole subtree where it can.
 * start[c] is column c's first line (start[ncols] = n); returns ncols.
 */
static int tree_columns(const struct tree_line *t, int n, int h, int *start)
{
	int nc = 0;
	for (int i = 0; h > 0 && i < n; nc++) {
		start[nc] = i;
		int end = i + h < n ? i + h : n;
		for (int k = end - 1; end < n && k > i + h / 2; k--)
			if (t[k].depth < t[end].depth)
				end = k;
		i = end;
	}
	start[nc] = n;
	return nc;
}

/* The width the tree needs in columns of h rows (each column as wide as
 * its widest line, +2 apart); colw[c] each column's, if colw. */
static int tree_layout(const struct tree_line *t, int n, int h, bool narrow, int *colw)
{
	int start[TREE_MAX + 1], total = 0;
	int nc = tree_columns(t, n, h, start);
	for (int c = 0; c < nc; c++) {
		int w = 0;
		for (int i = start[c]; i < start[c + 1]; i++) {
			int l = line_width(&t[i], narrow);
			w = l > w ? l : w;
		}
		if (colw)
			colw[c] = w + 2;
		total += w + 2;
	}
	return total;
}

/* The tree in columns of h rows at (x, y); never cut (the caller made room). */
static void draw_tree(struct canvas *c, int x, int y, int h, const struct tree_line *t, int n,
		      bool narrow)
{
	int colw[TREE_MAX], start[TREE_MAX + 1];
	int nc = tree_columns(t, n, h, start);
	tree_layout(t, n, h, narrow, colw);
	for (int col = 0; col < nc; x += colw[col++])
		for (int i = start[col]; i < start[col + 1]; i++)
			canvas_printf(c, x, y + i - start[col], colw[col],
				      t[i].depth ? R_NORMAL : R_TITLE, "%*s%s%s", 2 * t[i].depth,
				      "", tree_label(t[i].cls, narrow), t[i].seen ? " ..." : "");
}

/* Room the edges keep beside the tree: a verdict, an edge and its count. */
#define EDGES_MIN_W 36
/* ... and the room that is worth full names (else the narrow ones). */
#define EDGES_GOOD_W 48

/*
 * Where the documented order goes: beside the edges on the right (h rows
 * of columns; full names if they leave the edges room enough, else the
 * narrow ones), or else above them across
 * the pane (as few rows as the columns allow).  Returns false if it fits
 * nowhere whole: then the rules are written as text (never cut either).
 */
struct tree_place {
	bool beside, narrow;
	int w, rows;
};

static bool tree_place(const struct tree_line *t, int n, struct rect r, struct tree_place *p)
{
	int h = r.h - 1; /* under its title */
	for (int narrow = 0; narrow < 2; narrow++) {
		int w = tree_layout(t, n, h, narrow, NULL);
		if (h > 0 && w <= r.w - (narrow ? EDGES_MIN_W : EDGES_GOOD_W)) {
			*p = (struct tree_place){ true, narrow, w, h };
			return true;
		}
	}
	/* Above the edges: the fewest rows whose columns fit the width,
	 * leaving at least the edges' title and one edge below. */
	for (int narrow = 0; narrow < 2; narrow++)
		for (int rows = 1; rows <= r.h - 3; rows++) {
			int w = tree_layout(t, n, rows, narrow, NULL);
			if (w <= r.w) {
				*p = (struct tree_place){ false, narrow, w, rows };
				return true;
			}
		}
	return false;
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
	/* the documented order: a nested tree beside or above the edges, never
	 * cut; the rules as text, wrapped, where the tree fits nowhere */
	struct tree_line t[TREE_MAX];
	struct tree_place p;
	int nt = a->ix->order_known ? order_tree(a->ix, t) : 0;
	if (nt && tree_place(t, nt, r, &p) && p.beside) {
		canvas_text(c, r.x + r.w - p.w, r.y, p.w, R_TITLE, "documented order");
		draw_tree(c, r.x + r.w - p.w, r.y + 1, p.rows, t, nt, p.narrow);
		w = r.w - p.w - 1;
	} else if (nt && tree_place(t, nt, r, &p)) {
		canvas_text(c, r.x, y++, r.w, R_TITLE, "documented order");
		draw_tree(c, r.x, y, p.rows, t, nt, p.narrow);
		y += p.rows;
	} else {
		y += draw_order_text(c, r.x, y, r.w, r.h > 4 ? r.h - 3 : 1,
				     !a->ix->order_known ?
					     "documented: (not given as data in this trace)" :
				     run ? ix_str(a->ix, run->order) :
					   "");
	}
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
