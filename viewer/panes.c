/*
 * panes.c - the five panes: each draws itself from the model at the
 * cursor into its rectangle, and keeps nothing between frames except the
 * focused pane's scroll offset and the selected inode's history.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "viewer/app.h"
#include "viewer/report.h"

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
		if (i < 0 || (uint64_t)i >= a->ix->nev)
			return -1;
		if (!a->has_filter || query_match(&a->filter, a->ix, (uint64_t)i))
			return i;
	}
}

static void draw_lanes(struct app *a, struct canvas *c, struct rect r)
{
	const struct trace_index *ix = a->ix;
	if (r.h < 3)
		return;
	int prefix = 19;
	int nl = (int)ix->ncpus + (a->has_nocpu ? 1 : 0); /* last: no CPU */
	int lane_w = (r.w - prefix) / (nl ? nl : 1);
	int first = 0, shown = nl;
	if (lane_w < 14) {
		lane_w = 14;
		shown = (r.w - prefix) / lane_w;
		if (shown < 1)
			shown = 1;
		int ccpu = ix->ev[a->cur].cpu == IX_NO_CPU ? nl - 1 : ix->ev[a->cur].cpu;
		if (ccpu >= nl)
			ccpu = nl - 1;
		first = ccpu - shown / 2;
		if (first + shown > nl)
			first = nl - shown;
		if (first < 0)
			first = 0;
	}
	/* Lane titles. */
	canvas_printf(c, r.x, r.y, prefix, R_TITLE, "%8s %9s ", "event", "ms");
	for (int l = first; l < first + shown && l < nl; l++) {
		int x = r.x + prefix + (l - first) * lane_w;
		if (l == nl - 1 && a->has_nocpu)
			canvas_printf(c, x, r.y, lane_w, R_TITLE, "| (no cpu)");
		else
			canvas_printf(c, x, r.y, lane_w, R_TITLE, "| cpu%d", l);
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
		int y = y0 + row;
		const struct ix_event *e = &ix->ev[i];
		bool cur = (uint64_t)i == a->cur;
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
			canvas_printf(c, r.x + prefix, y, r.w - prefix, R_BAD, "%s %s",
				      glyph(c, G_WARN), txt);
		} else if (lane < 0) {
			canvas_text(c, r.x + prefix, y, r.w - prefix, R_TITLE, txt);
		} else if (lane >= first && lane < first + shown) {
			int x = r.x + prefix + (lane - first) * lane_w;
			canvas_text(c, x, y, lane_w - 1, role, txt);
		} else {
			canvas_printf(c, r.x + prefix, y, r.w - prefix, R_DIM, "(cpu%d) %s",
				      (int)(int16_t)e->cpu, txt);
		}
		for (int l = first + 1; l < first + shown && l < nl; l++) {
			int x = r.x + prefix + (l - first) * lane_w - 1;
			if (c->cells[y * c->w + x].ch == ' ')
				canvas_text(c, x, y, 1, R_DIM, c->utf8 ? "│" : "|");
		}
		if (cur)
			canvas_role(c, r.x, y, r.w, R_CURSOR);
		i = scan_vis(a, i, 1);
	}
	char det[300];
	event_text(ix, a->cur, false, det, sizeof(det));
	canvas_printf(c, r.x, r.y + r.h - 1, r.w, R_TITLE, "%s cpu%d %s", glyph(c, G_CURSOR),
		      (int)(int16_t)ix->ev[a->cur].cpu, det);
}

/* ---- held locks ------------------------------------------------------------ */

static int draw_cpu(struct app *a, struct canvas *c, struct rect r, int y, unsigned cpu,
		    const struct cpu_state *s)
{
	const struct trace_index *ix = a->ix;
	int64_t now = ix->ev[a->cur].ts;
	char d[32], name[16];
	if (cpu == IX_NO_CPU)
		snprintf(name, sizeof(name), "nocpu");
	else
		snprintf(name, sizeof(name), "cpu%u", cpu);
	if (y >= r.y + r.h)
		return y;
	if (s->unknown) {
		/* Its events may be lost: say so rather than show stale locks. */
		canvas_printf(c, r.x, y++, r.w, R_BAD,
			      "%s  STATE UNKNOWN since +%s (events lost): held locks not known",
			      name, fmt_dur(s->unknown_since - ix_t0(ix), d, sizeof(d)));
		return y;
	}
	if (s->in_op)
		canvas_printf(c, r.x, y++, r.w, R_TITLE, "%s  in %s %" PRIu64 "%s", name,
			      op_label(s->op), ix_id_value(ix, s->op_obj),
			      s->nheld ? "" : "  (no lock held)");
	else
		canvas_printf(c, r.x, y++, r.w, R_TITLE, "%s  %s", name,
			      s->nheld ? "" : "idle, no lock held");
	for (int i = 0; i < s->nheld && y < r.y + r.h; i++) {
		const struct held_lock *h = &s->held[i];
		canvas_printf(c, r.x, y++, r.w, R_HOLD, " %s%d %-18s %-10" PRIu64 " %10s %s%s",
			      glyph(c, G_HOLD), i + 1, lock_class_label(h->cls),
			      ix_id_value(ix, h->obj), fmt_dur(now - h->since, d, sizeof(d)),
			      site_label(h->site), h->trylock ? " (trylock)" : "");
	}
	if (s->waiting && y < r.y + r.h) {
		const struct lock_inst *li = model_lock(a->m, s->wait_cls, s->wait_obj);
		char who[40] = "free";
		if (li && li->holder >= 0)
			snprintf(who, sizeof(who), "held by cpu%d", li->holder);
		canvas_printf(c, r.x, y++, r.w, R_WAIT, " %s %s %s %" PRIu64 " at %s, %s%s",
			      glyph(c, G_WAIT), s->contended ? "WAITS for" : "acquiring",
			      lock_class_label(s->wait_cls), ix_id_value(ix, s->wait_obj),
			      site_label(s->wait_site), who, s->contended ? " (contended)" : "");
	}
	return y;
}

static void draw_locks(struct app *a, struct canvas *c, struct rect r)
{
	int y = r.y - a->scroll[1];
	struct rect clip = r;
	/* Draw into rows >= r.y only: skip scrolled-off lines. */
	for (unsigned cpu = 0; cpu < a->ix->ncpus; cpu++) {
		const struct cpu_state *s = model_cpu(a->m, cpu);
		if (y < r.y) {
			int lines = s->unknown ? 1 : 1 + s->nheld + (s->waiting ? 1 : 0);
			if (y + lines <= r.y) {
				y += lines;
				continue;
			}
			y = r.y;
		}
		y = draw_cpu(a, c, clip, y, cpu, s);
	}
	const struct cpu_state *n = model_cpu(a->m, IX_NO_CPU);
	if (n->nheld || n->waiting)
		y = draw_cpu(a, c, clip, y, IX_NO_CPU, n);
	if (y < r.y + r.h && a->m->discards)
		canvas_printf(c, r.x, y, r.w, R_BAD,
			      "%s events were lost before this point: a CPU's state is known "
			      "again at its next operation",
			      glyph(c, G_WARN));
}

/* ---- inode history -------------------------------------------------------------- */

enum { H_ALLOC, H_FREE, H_STATE, H_WILLFREE, H_FREEING, H_REF, H_NLINK, H_WAITED, H_SKIPPED };

static void hist_add(struct inode_hist *h, uint64_t ev, int kind)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 256;
		h->ev = xrealloc(h->ev, h->cap * sizeof(*h->ev));
		h->kind = xrealloc(h->kind, h->cap);
	}
	h->ev[h->n] = ev;
	h->kind[h->n++] = (uint8_t)kind;
}

void inode_hist_build(struct app *a, uint32_t obj)
{
	struct inode_hist *h = &a->hist;
	if (h->obj == obj)
		return;
	h->obj = obj;
	h->n = 0;
	if (obj == UINT32_MAX)
		return;
	const struct trace_index *ix = a->ix;
	int ilock = lock_class_by_name("i_lock");
	uint32_t wf = flag_will_free(), fr = flag_freeing();
	uint32_t flags = 0;
	int owner = -1;
	static bool pending[257];
	memset(pending, 0, sizeof(pending));
	for (uint64_t i = 0; i < ix->nev; i++) {
		const struct ix_event *e = &ix->ev[i];
		if (e->obj != obj)
			continue;
		int cpu = e->cpu == IX_NO_CPU ? 256 : (e->cpu > 255 ? 255 : e->cpu);
		switch (e->type) {
		case EV_inode_alloc:
			flags = 0;
			owner = -1;
			hist_add(h, i, H_ALLOC);
			break;
		case EV_inode_free:
			hist_add(h, i, H_FREE);
			flags = 0;
			break;
		case EV_inode_state: {
			uint32_t o = (uint32_t)(e->val >> 32), n = (uint32_t)e->val;
			int k = H_STATE;
			if ((n & fr) && !(o & fr))
				k = H_FREEING;
			else if ((n & wf) && !(o & wf))
				k = H_WILLFREE;
			if (k != H_STATE)
				owner = cpu;
			flags = n;
			hist_add(h, i, k);
			break;
		}
		case EV_inode_ref:
			hist_add(h, i, H_REF);
			break;
		case EV_inode_nlink:
			hist_add(h, i, H_NLINK);
			break;
		case EV_lock_acquired:
			if (e->a == ilock && (flags & (wf | fr)) && cpu != owner)
				pending[cpu] = true;
			break;
		case EV_lock_release:
			if (e->a == ilock && pending[cpu]) {
				pending[cpu] = false;
				hist_add(h, i,
					 !strcmp(site_label(e->site), "wait_on_freeing_inode") ?
						 H_WAITED :
						 H_SKIPPED);
			}
			break;
		default:
			break;
		}
	}
}

static void hist_line(struct app *a, struct canvas *c, int x, int y, int w, uint32_t k, bool future)
{
	const struct trace_index *ix = a->ix;
	uint64_t i = a->hist.ev[k];
	const struct ix_event *e = &ix->ev[i];
	char f1[96], f2[96];
	int role = future ? R_DIM : R_NORMAL;
	int cpu = (int)(int16_t)e->cpu;
	bool here = !future && (k + 1 == a->hist.n || a->hist.ev[k + 1] > a->cur);
	const char *mark = here ? glyph(c, G_CURSOR) : " ";
	switch (a->hist.kind[k]) {
	case H_ALLOC:
		canvas_printf(c, x, y, w, future ? R_DIM : R_TITLE,
			      "%s%8" PRIu64 " cpu%-2d allocated (nlink %u)", mark, i, cpu,
			      (unsigned)e->val);
		break;
	case H_FREE:
		canvas_printf(c, x, y, w, future ? R_DIM : R_TITLE, "%s%8" PRIu64 " cpu%-2d freed",
			      mark, i, cpu);
		break;
	case H_WILLFREE:
		canvas_printf(c, x, y, w, future ? R_DIM : R_WILLFREE,
			      "%s%8" PRIu64 " cpu%-2d %s I_WILL_FREE set by cpu%d in %s", mark, i,
			      cpu, glyph(c, G_STAR), cpu, site_label(e->site));
		break;
	case H_FREEING:
		canvas_printf(c, x, y, w, future ? R_DIM : R_FREEING,
			      "%s%8" PRIu64 " cpu%-2d %s I_FREEING set by cpu%d in %s: it owns it",
			      mark, i, cpu, glyph(c, G_STAR), cpu, site_label(e->site));
		break;
	case H_STATE:
		state_flags_str((uint32_t)(e->val >> 32), 1, f1, sizeof(f1));
		state_flags_str((uint32_t)e->val, 1, f2, sizeof(f2));
		canvas_printf(c, x, y, w, role, "%s%8" PRIu64 " cpu%-2d %s>%s %s", mark, i, cpu, f1,
			      f2, site_label(e->site));
		break;
	case H_REF:
		canvas_printf(c, x, y, w, role, "%s%8" PRIu64 " cpu%-2d i_count %d>%d %s", mark, i,
			      cpu, (int)(int32_t)(e->val >> 32), (int)(int32_t)e->val,
			      site_label(e->site));
		break;
	case H_NLINK:
		canvas_printf(c, x, y, w, role, "%s%8" PRIu64 " cpu%-2d i_nlink=%u", mark, i, cpu,
			      (unsigned)e->val);
		break;
	case H_WAITED:
		canvas_printf(c, x, y, w, future ? R_DIM : R_WAIT,
			      "%s%8" PRIu64 " cpu%-2d %s saw it freeing and WAITED (%s)", mark, i,
			      cpu, glyph(c, G_WAIT), site_label(e->site));
		break;
	case H_SKIPPED:
		canvas_printf(c, x, y, w, future ? R_DIM : R_WAIT,
			      "%s%8" PRIu64 " cpu%-2d saw it freeing and SKIPPED it (%s)", mark, i,
			      cpu, site_label(e->site));
		break;
	}
	if (here)
		canvas_role(c, x, y, 1, R_CURSOR);
}

static void draw_inode(struct app *a, struct canvas *c, struct rect r)
{
	const struct trace_index *ix = a->ix;
	uint32_t obj = app_inode(a);
	inode_hist_build(a, obj);
	int y = r.y;
	if (obj == UINT32_MAX) {
		canvas_text(c, r.x, y, r.w, R_DIM,
			    "no inode yet: step to an inode event, i pins it");
		return;
	}
	const struct inode_state *s = model_inode(a->m, obj);
	canvas_printf(c, r.x, y++, r.w, R_TITLE, "inode %" PRIu64 "%s", ix_id_value(ix, obj),
		      a->pinned == obj ? "  [pinned: i unpins]" : "  (follows the cursor; i pins)");
	char fl[160];
	if (s) {
		state_flags_str(s->flags, 0, fl, sizeof(fl));
		int role = s->flags & flag_freeing()   ? R_FREEING :
			   s->flags & flag_will_free() ? R_WILLFREE :
							 R_NORMAL;
		canvas_printf(c, r.x, y++, r.w, role, "i_state %s", fl);
		char lists[120] = "";
		for (int l = 0; l < nr_list_labels() && l < 16; l++)
			if (s->lists >> l & 1)
				snprintf(lists + strlen(lists), sizeof(lists) - strlen(lists),
					 " %s", list_label(l));
		canvas_printf(c, r.x, y++, r.w, R_NORMAL, "i_count %d  i_nlink %u  sb %u  lists:%s",
			      s->count, s->nlink, s->sb, lists[0] ? lists : " none");
	} else {
		canvas_text(c, r.x, y++, r.w, R_DIM,
			    "not allocated at the cursor (freed, or not yet)");
		y++;
	}
	/* The owner: the last I_WILL_FREE / I_FREEING setter at or before the cursor. */
	uint32_t here = 0;
	bool any = false;
	for (uint32_t k = 0; k < a->hist.n && a->hist.ev[k] <= a->cur; k++) {
		here = k;
		any = true;
	}
	int owner_k = -1;
	for (uint32_t k = 0; any && k <= here; k++) {
		if (a->hist.kind[k] == H_ALLOC)
			owner_k = -1;
		if (a->hist.kind[k] == H_FREEING || a->hist.kind[k] == H_WILLFREE)
			owner_k = (int)k;
	}
	if (owner_k >= 0 && s) {
		const struct ix_event *e = &ix->ev[a->hist.ev[owner_k]];
		canvas_printf(c, r.x, y++, r.w,
			      a->hist.kind[owner_k] == H_FREEING ? R_FREEING : R_WILLFREE,
			      "handoff: cpu%d set %s at #%" PRIu64
			      " in %s; others must skip or wait",
			      (int)(int16_t)e->cpu,
			      a->hist.kind[owner_k] == H_FREEING ? "I_FREEING" : "I_WILL_FREE",
			      a->hist.ev[owner_k], site_label(e->site));
	} else {
		y++;
	}
	canvas_printf(c, r.x, y++, r.w, R_TITLE, "history (%u entries; %s = cursor)", a->hist.n,
		      glyph(c, G_CURSOR));
	int rows = r.y + r.h - y;
	if (rows <= 0 || a->hist.n == 0)
		return;
	int64_t start = any ? (int64_t)here - rows / 2 : 0;
	start += a->scroll[2];
	if (start + rows > (int64_t)a->hist.n)
		start = (int64_t)a->hist.n - rows;
	if (start < 0)
		start = 0;
	for (int row = 0; row < rows && start + row < (int64_t)a->hist.n; row++) {
		uint32_t k = (uint32_t)(start + row);
		hist_line(a, c, r.x, y + row, r.w, k, a->hist.ev[k] > a->cur);
	}
}

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
	for (unsigned k = (unsigned)a->scroll[3]; k < m->nedges && y < r.y + r.h; k++) {
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

/* ---- lock_stat ----------------------------------------------------------------- */

static char *us(uint64_t ns, char *b, size_t n)
{
	if (ns == UINT64_MAX)
		ns = 0;
	snprintf(b, n, "%.1f", (double)ns / 1e3);
	return b;
}

static void draw_stats(struct app *a, struct canvas *c, struct rect r)
{
	const struct model *m = a->m;
	int y = r.y;
	char b1[24], b2[24], b3[24], b4[24];
	bool wide = r.w >= 84;
	if (wide)
		canvas_printf(c, r.x, y++, r.w, R_TITLE, "%-12s %8s %6s %6s %5s %9s %8s %9s %8s",
			      "class", "acq", "cont", "bounce", "try-f", "wait-us", "wmax-us",
			      "hold-us", "hmax-us");
	else
		canvas_printf(c, r.x, y++, r.w, R_TITLE, "%-12s %8s %6s %6s %4s %10s", "class",
			      "acq", "cont", "bounce", "tryf", "wait-us");
	for (int k = 0; k < MODEL_MAX_CLASSES && y < r.y + r.h - 1; k++) {
		const struct class_stats *s = &m->stats[k];
		if (!s->acquisitions && !s->contentions && !s->trylock_failures)
			continue;
		const char *n = lock_class_label(k);
		if (!strncmp(n, "inode_", 6))
			n += 6;
		if (!wide) {
			canvas_printf(c, r.x, y++, r.w, s->contentions ? R_WAIT : R_NORMAL,
				      "%-12s %8" PRIu64 " %6" PRIu64 " %6" PRIu64 " %4" PRIu64
				      " %10s",
				      n, s->acquisitions, s->contentions, s->bounces,
				      s->trylock_failures, us(s->wait_total, b1, sizeof(b1)));
			continue;
		}
		canvas_printf(c, r.x, y++, r.w, s->contentions ? R_WAIT : R_NORMAL,
			      "%-12s %8" PRIu64 " %6" PRIu64 " %6" PRIu64 " %5" PRIu64
			      " %9s %8s %9s %8s",
			      n, s->acquisitions, s->contentions, s->bounces, s->trylock_failures,
			      us(s->wait_total, b1, sizeof(b1)), us(s->wait_max, b2, sizeof(b2)),
			      us(s->hold_total, b3, sizeof(b3)), us(s->hold_max, b4, sizeof(b4)));
	}
	if (y >= r.y + r.h)
		return;
	if (!ix_complete(a->ix) && y < r.y + r.h - 1)
		canvas_printf(c, r.x, y++, r.w, R_BAD,
			      "%s INCOMPLETE trace: figures cover only "
			      "what was recorded%s",
			      glyph(c, G_WARN), m->discards ? "; lost events undercount them" : "");
	canvas_printf(c, r.x, y++, r.w, m->violations ? R_BAD : R_GOOD,
		      "validator reports so far: %" PRIu64, m->violations);
	/* The latest reports at or before the cursor. */
	uint32_t last = 0;
	while (last < a->ix->nviols && a->ix->viols[last].ev <= a->cur)
		last++;
	for (uint32_t k = last; k > 0 && y < r.y + r.h; k--) {
		const struct ix_violation *v = &a->ix->viols[k - 1];
		canvas_printf(c, r.x, y++, r.w, R_BAD, " #%" PRIu64 " %s: %s", v->ev,
			      violation_label(v->kind), ix_str(a->ix, v->text));
	}
}

const struct pane panes[] = {
	{ "Events by CPU", draw_lanes }, { "Held locks", draw_locks }, { "Inode", draw_inode },
	{ "Lock order", draw_graph },    { "lock_stat", draw_stats },
};
const int npanes = sizeof(panes) / sizeof(panes[0]);
