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

static void draw_graph(struct app *a, struct canvas *c, struct rect r)
{
	const struct model *m = a->m;
	const struct ix_run *run = ix_run0(a->ix);
	int y = r.y;
	canvas_printf(c, r.x, y++, r.w, R_DIM, "documented: %s",
		      !a->ix->order_known ? "(not given as data in this trace)" :
		      run                 ? ix_str(a->ix, run->order) :
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
		canvas_printf(c, r.x, y++, r.w, R_BAD,
			      "%s possible circular locking dependency%s: %s", glyph(c, G_CROSS),
			      cycle_lossy ? " (UNRELIABLE: after lost events)" : "", buf);
	}
	canvas_printf(c, r.x, y++, r.w, R_TITLE,
		      "%u edges held -> taken so far, %u against the order%s", m->nedges, against,
		      lossy ? " (some UNRELIABLE: after lost events)" : "");
	for (unsigned k = (unsigned)*pane_scroll(a, VIEW_ORDER); k < m->nedges && y < r.y + r.h;
	     k++) {
		const struct lock_edge *e = &m->edges[k];
		const char *g = e->verdict > 0 ? glyph(c, G_CHECK) :
				e->verdict < 0 ? glyph(c, G_CROSS) :
						 "?";
		canvas_printf(
			c, r.x, y++, r.w,
			e->verdict < 0 ? R_BAD :
			e->verdict > 0 ? R_GOOD :
					 R_NORMAL,
			"%s %-18s %s %-18s x%-7u first %s #%" PRIu64 "%s", g,
			lock_class_label(e->from), glyph(c, G_ARROW), lock_class_label(e->to),
			e->count, site_label(e->first_site), e->first_ev,
			e->lossy && e->verdict < 0 ?
				"  AGAINST THE ORDER? unreliable (after lost events)" :
			e->verdict < 0  ? "  AGAINST THE ORDER" :
			e->verdict == 0 ? (m->order.known ? "  undocumented" : "  order unknown") :
			e->lossy        ? "  (after lost events)" :
					  "");
	}
}

const struct pane pane_order = { VIEW_ORDER, "Lock order", draw_graph, SLOT_BOTTOM };
