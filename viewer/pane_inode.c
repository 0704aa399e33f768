/*
 * pane_inode.c - the inode pane: one inode's whole life up to the cursor.
 *
 * Every state change, reference change, list move (hash, sb list,
 * writeback lists, LRU add / rotate, dispose), sleep on it and violation
 * that names it, each with the thread, the function, the locks its CPU
 * held then and the source line; plus who skipped or waited on it while
 * it was being freed (the I_WILL_FREE / I_FREEING handoff).  Only events
 * at or before the cursor are shown (a lesson hides the rest), and the
 * pane follows the last inode touched at or before the cursor unless
 * `i` pinned one.  Built on demand by one pass over the events; nothing
 * else is kept between frames.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "viewer/app.h"
#include "viewer/report.h"
#include "viewer/threads.h"

/* ---- which inode an event names ---------------------------------------------- */

uint32_t event_inode(const struct trace_index *ix, uint64_t i)
{
	const struct ix_event *e = &ix->ev[i];
	switch (e->type) {
	case EV_inode_state:
	case EV_inode_ref:
	case EV_inode_list:
	case EV_inode_alloc:
	case EV_inode_free:
	case EV_inode_nlink:
	case EV_inode_wait:
	case EV_inode_wait_end:
		return e->obj;
	case EV_op_begin:
	case EV_op_end:
		return ix_id_value(ix, e->obj) ? e->obj : UINT32_MAX;
	case EV_violation: {
		const struct ix_violation *v = &ix->viols[e->val];
		int64_t id = v->ino ? ix_id_find(ix, v->ino) : -1;
		return id >= 0 ? (uint32_t)id : UINT32_MAX;
	}
	default:
		if (ev_is_lock(e->type) && !strcmp(lock_class_label(e->a), "i_lock"))
			return e->obj;
		return UINT32_MAX;
	}
}

/* ---- the history --------------------------------------------------------------- */

enum {
	H_ALLOC,
	H_FREE,
	H_STATE,
	H_WILLFREE,
	H_FREEING,
	H_REF,
	H_NLINK,
	H_WAITED,
	H_SKIPPED,
	H_LIST,
	H_VIOL,
	H_SLEEP,
	H_WOKEN
};

/* Each thread's held lock classes, as the pass goes. */
struct held_track {
	uint8_t cls[257][MODEL_MAX_HELD];
	uint32_t obj[257][MODEL_MAX_HELD];
	uint8_t n[257];
	bool pending[257]; /* took i_lock on a dying inode it does not own */
};

static int track_slot(const struct ix_event *e)
{
	return e->cpu == IX_NO_CPU ? 256 : e->cpu > 255 ? 255 : e->cpu;
}

static void track_lock(struct held_track *t, const struct ix_event *e)
{
	int c = track_slot(e);
	bool take = e->type == EV_lock_acquired; /* a trylock that works is followed by one */
	if (take && t->n[c] < MODEL_MAX_HELD) {
		t->cls[c][t->n[c]] = e->a;
		t->obj[c][t->n[c]++] = e->obj;
	} else if (e->type == EV_lock_release) {
		for (int k = t->n[c] - 1; k >= 0; k--)
			if (t->cls[c][k] == e->a && t->obj[c][k] == e->obj) {
				memmove(&t->cls[c][k], &t->cls[c][k + 1],
					(size_t)(t->n[c] - k - 1));
				memmove(&t->obj[c][k], &t->obj[c][k + 1],
					(size_t)(t->n[c] - k - 1) * sizeof(uint32_t));
				t->n[c]--;
				break;
			}
	}
}

static void hist_add(struct inode_hist *h, const struct held_track *t, uint64_t ev, int slot,
		     int kind)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 256;
		h->ev = xrealloc(h->ev, h->cap * sizeof(*h->ev));
		h->kind = xrealloc(h->kind, h->cap);
		h->held = xrealloc(h->held, h->cap * sizeof(*h->held));
		h->nheld = xrealloc(h->nheld, h->cap);
	}
	h->ev[h->n] = ev;
	h->kind[h->n] = (uint8_t)kind;
	/* the innermost HIST_HELD locks, outermost first */
	int n = t->n[slot], from = n > HIST_HELD ? n - HIST_HELD : 0;
	memset(h->held[h->n], 255, HIST_HELD);
	for (int k = from; k < n; k++)
		h->held[h->n][k - from] = t->cls[slot][k];
	h->nheld[h->n] = (uint8_t)n;
	h->n++;
}

/* The kind of an inode_state entry: the handoff flags stand out. */
static int state_kind(const struct ix_event *e)
{
	uint32_t o = (uint32_t)(e->val >> 32), n = (uint32_t)e->val;
	if ((n & flag_freeing()) && !(o & flag_freeing()))
		return H_FREEING;
	if ((n & flag_will_free()) && !(o & flag_will_free()))
		return H_WILLFREE;
	return H_STATE;
}

/* One event of the pass that names obj: its entry, if it makes one. */
static void hist_event(struct inode_hist *h, struct held_track *t, const struct trace_index *ix,
		       uint64_t i, int *owner, uint32_t *flags)
{
	static const int kinds[] = {
		[EV_inode_alloc] = H_ALLOC, [EV_inode_free] = H_FREE,      [EV_inode_ref] = H_REF,
		[EV_inode_nlink] = H_NLINK, [EV_inode_list] = H_LIST,      [EV_violation] = H_VIOL,
		[EV_inode_wait] = H_SLEEP,  [EV_inode_wait_end] = H_WOKEN,
	};
	const struct ix_event *e = &ix->ev[i];
	int c = track_slot(e), ilock = lock_class_by_name("i_lock");
	uint32_t dying = flag_will_free() | flag_freeing();
	if (e->type == EV_inode_state) {
		int k = state_kind(e);
		if (k != H_STATE)
			*owner = c;
		*flags = (uint32_t)e->val;
		hist_add(h, t, i, c, k);
	} else if (e->type < sizeof(kinds) / sizeof(kinds[0]) &&
		   (kinds[e->type] || e->type == EV_inode_alloc)) {
		if (e->type == EV_inode_alloc || e->type == EV_inode_free) {
			*owner = -1;
			*flags = 0;
		}
		hist_add(h, t, i, c, kinds[e->type]);
	} else if (e->type == EV_lock_acquired && e->a == ilock && (*flags & dying) &&
		   c != *owner) {
		t->pending[c] = true;
	} else if (e->type == EV_lock_release && e->a == ilock && t->pending[c]) {
		t->pending[c] = false;
		hist_add(h, t, i, c,
			 !strcmp(site_label(e->site), "wait_on_freeing_inode") ? H_WAITED :
										 H_SKIPPED);
	}
}

void inode_hist_build(struct app *a, uint32_t obj)
{
	struct inode_hist *h = &a->hist;
	if (h->obj == obj && h->upto == a->end)
		return;
	h->obj = obj;
	h->upto = a->end;
	h->n = 0;
	if (obj == UINT32_MAX)
		return;
	const struct trace_index *ix = a->ix;
	struct held_track *t = xcalloc(1, sizeof(*t));
	int owner = -1;
	uint32_t flags = 0;
	for (uint64_t i = 0; i < a->end; i++) {
		const struct ix_event *e = &ix->ev[i];
		/* the entry first: a lock event's entry lists what was held before it */
		if (event_inode(ix, i) == obj)
			hist_event(h, t, ix, i, &owner, &flags);
		if (ev_is_lock(e->type))
			track_lock(t, e);
	}
	free(t);
}

/* ---- drawing ------------------------------------------------------------------- */

/* inode_lru_lock -> lru, hash_bucket stays */
static const char *short_cls(int cls, char *buf, size_t len)
{
	const char *n = lock_class_label(cls);
	snprintf(buf, len, "%s", strncmp(n, "inode_", 6) || !strcmp(n, "inode_lock") ? n : n + 6);
	size_t l = strlen(buf);
	if (l > 5 && !strcmp(buf + l - 5, "_lock") && strcmp(buf, "inode_lock") &&
	    strcmp(buf, "i_lock"))
		buf[l - 5] = 0;
	return buf;
}

/* "under i_lock, lru" / "no lock" */
static void held_text(const struct inode_hist *h, uint32_t k, char *buf, size_t len)
{
	size_t o = 0;
	if (!h->nheld[k]) {
		snprintf(buf, len, "no lock");
		return;
	}
	o += (size_t)snprintf(buf, len, "%s", h->nheld[k] > HIST_HELD ? "under ..." : "under");
	for (int j = 0; j < HIST_HELD && h->held[k][j] != 255 && o < len; j++) {
		char b[32];
		o += (size_t)snprintf(buf + o, len - o, "%s %s", j ? "," : "",
				      short_cls(h->held[k][j], b, sizeof(b)));
	}
}

/* What entry k says, without who/where. */
static void entry_what(const struct app *a, uint32_t k, const char *glyph_star, char *buf,
		       size_t len)
{
	const struct trace_index *ix = a->ix;
	const struct ix_event *e = &ix->ev[a->hist.ev[k]];
	char f1[96], f2[96];
	switch (a->hist.kind[k]) {
	case H_ALLOC:
		snprintf(buf, len, "allocated (nlink %u)", (unsigned)e->val);
		break;
	case H_FREE:
		snprintf(buf, len, "FREED");
		break;
	case H_WILLFREE:
		snprintf(buf, len, "%s I_WILL_FREE set by %s", glyph_star, thread_name(ix, e->cpu));
		break;
	case H_FREEING:
		snprintf(buf, len, "%s I_FREEING set by %s: it owns it", glyph_star,
			 thread_name(ix, e->cpu));
		break;
	case H_STATE:
		state_flags_str((uint32_t)(e->val >> 32), 1, f1, sizeof(f1));
		state_flags_str((uint32_t)e->val, 1, f2, sizeof(f2));
		snprintf(buf, len, "i_state %s>%s", f1, f2);
		break;
	case H_REF:
		snprintf(buf, len, "i_count %d>%d", (int)(int32_t)(e->val >> 32),
			 (int)(int32_t)e->val);
		break;
	case H_NLINK:
		snprintf(buf, len, "i_nlink=%u", (unsigned)e->val);
		break;
	case H_LIST:
		snprintf(buf, len, "%s %s", list_action_label(e->b), list_label(e->a));
		break;
	case H_WAITED:
		snprintf(buf, len, "saw it freeing, WAITED");
		break;
	case H_SKIPPED:
		snprintf(buf, len, "saw it freeing, SKIPPED it");
		break;
	case H_SLEEP:
		state_flags_str((uint32_t)e->val, 1, f1, sizeof(f1));
		snprintf(buf, len, "SLEEPS on it (%s)", f1);
		break;
	case H_WOKEN:
		snprintf(buf, len, "%s", e->b ? "woken" : "never woken");
		break;
	case H_VIOL: {
		const struct ix_violation *v = &ix->viols[e->val];
		snprintf(buf, len, "!! %s", violation_label(v->kind));
		break;
	}
	}
}

static int entry_role(uint32_t kind)
{
	switch (kind) {
	case H_ALLOC:
	case H_FREE:
		return R_TITLE;
	case H_WILLFREE:
		return R_WILLFREE;
	case H_FREEING:
		return R_FREEING;
	case H_WAITED:
	case H_SKIPPED:
	case H_SLEEP:
		return R_WAIT;
	case H_VIOL:
		return R_BAD;
	default:
		return R_NORMAL;
	}
}

/*
 * A violation carries no line of its own: its CPU's last line before it
 * (what that CPU was running when the checker spoke), 0 if none near.
 */
static const struct ix_event *line_before(const struct trace_index *ix, uint64_t i)
{
	uint16_t cpu = ix->ev[i].cpu;
	for (uint64_t j = i; j-- > 0 && i - j < 4096;)
		if (ix->ev[j].cpu == cpu && ix->ev[j].line)
			return &ix->ev[j];
	return NULL;
}

/* Where entry k happened: its function (a violation's first site). */
static const char *entry_site(const struct trace_index *ix, const struct ix_event *e, int kind)
{
	if (kind == H_VIOL) {
		const struct ix_violation *v = &ix->viols[e->val];
		return v->site_a < nr_site_labels() ? site_label(v->site_a) : "";
	}
	if (kind == H_FREE || kind == H_ALLOC || kind == H_NLINK)
		return "";
	return site_label(e->site);
}

static void hist_line(struct app *a, struct canvas *c, int x, int y, int w, uint32_t k, bool here)
{
	const struct trace_index *ix = a->ix;
	uint64_t i = a->hist.ev[k];
	const struct ix_event *e = &ix->ev[i];
	int kind = a->hist.kind[k];
	char what[240], held[80], line[24] = "";
	entry_what(a, k, glyph(c, G_STAR), what, sizeof(what));
	held_text(&a->hist, k, held, sizeof(held));
	const struct ix_event *at = kind == H_VIOL ? line_before(ix, i) : e;
	if (at && at->line)
		snprintf(line, sizeof(line), " %s:%u", at->src == 1 ? "line" : "core", at->line);
	canvas_printf(c, x, y, w, entry_role(kind), "%s%7" PRIu64 " %-7s %-26s %s %s%s",
		      here ? glyph(c, G_CURSOR) : " ", i, event_thread(ix, i), what,
		      entry_site(ix, e, kind), held, line);
	if (here)
		canvas_role(c, x, y, 1, R_CURSOR);
}

/* The state at the cursor, two lines. */
static int draw_now(struct app *a, struct canvas *c, struct rect r, int y, uint32_t obj)
{
	const struct inode_state *s = model_inode(a->m, obj);
	char fl[160];
	if (!s) {
		canvas_text(c, r.x, y++, r.w, R_DIM,
			    "not allocated at the cursor (freed, or not yet)");
		return y + 1;
	}
	state_flags_str(s->flags, 0, fl, sizeof(fl));
	int role = s->flags & flag_freeing()   ? R_FREEING :
		   s->flags & flag_will_free() ? R_WILLFREE :
						 R_NORMAL;
	canvas_printf(c, r.x, y++, r.w, role, "i_state %s", fl);
	char lists[120] = "";
	for (int l = 0; l < nr_list_labels() && l < 16; l++)
		if (s->lists >> l & 1)
			snprintf(lists + strlen(lists), sizeof(lists) - strlen(lists), " %s",
				 list_label(l));
	canvas_printf(c, r.x, y++, r.w, R_NORMAL, "i_count %d  i_nlink %u  sb %u  lists:%s",
		      s->count, s->nlink, s->sb, lists[0] ? lists : " none");
	return y;
}

/*
 * Did a loss window (or a cut or missing stream) overlap this life, from
 * its allocation (or first sight) to the cursor?  Its state is then a sum
 * over a partial history.  A window of unknown bounds counts as open.
 */
static bool life_lossy(const struct app *a, uint32_t obj)
{
	const struct inode_state *s = model_inode(a->m, obj);
	const struct trace_index *ix = a->ix;
	if (!s || !ix->ndiscards)
		return false;
	int64_t from = ix->ev[s->alloc_ev].ts, to = ix->ev[a->cur].ts;
	for (uint32_t i = 0; i < ix->ndiscards; i++) {
		const struct ix_discard *d = &ix->discards[i];
		int64_t hi = d->end != INT64_MIN ? d->end : INT64_MAX;
		if (d->begin <= to && hi >= from)
			return true;
	}
	return false;
}

/* The owner: the last I_WILL_FREE / I_FREEING setter of this life. */
static int draw_owner(struct app *a, struct canvas *c, struct rect r, int y, uint32_t upto)
{
	int owner_k = -1;
	for (uint32_t k = 0; k < upto; k++) {
		if (a->hist.kind[k] == H_ALLOC)
			owner_k = -1;
		if (a->hist.kind[k] == H_FREEING || a->hist.kind[k] == H_WILLFREE)
			owner_k = (int)k;
	}
	if (owner_k < 0 || !model_inode(a->m, a->hist.obj))
		return y + 1;
	const struct ix_event *e = &a->ix->ev[a->hist.ev[owner_k]];
	bool fr = a->hist.kind[owner_k] == H_FREEING;
	canvas_printf(c, r.x, y++, r.w, fr ? R_FREEING : R_WILLFREE,
		      "handoff: %s set %s at #%" PRIu64 " in %s; others must skip or wait",
		      thread_name(a->ix, e->cpu), fr ? "I_FREEING" : "I_WILL_FREE",
		      a->hist.ev[owner_k], site_label(e->site));
	return y;
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
	canvas_printf(c, r.x, y++, r.w, R_TITLE, "inode %" PRIu64 "%s", ix_id_value(ix, obj),
		      a->pinned == obj ? "  [pinned: i unpins]" :
					 "  (the last one touched; i pins)");
	y = draw_now(a, c, r, y, obj);
	if (life_lossy(a, obj))
		canvas_printf(c, r.x, y++, r.w, R_BAD,
			      "%s UNRELIABLE: events were lost during its life; its state and "
			      "history may be incomplete",
			      glyph(c, G_WARN));
	/* only the past: entries at or before the cursor */
	uint32_t upto = 0;
	while (upto < a->hist.n && a->hist.ev[upto] <= a->cur)
		upto++;
	y = draw_owner(a, c, r, y, upto);
	canvas_printf(c, r.x, y++, r.w, R_TITLE,
		      "its life to the cursor: %u entries (%s = cursor; who, what, where, locks "
		      "held, line)",
		      upto, glyph(c, G_CURSOR));
	int rows = r.y + r.h - y;
	if (rows <= 0 || upto == 0)
		return;
	/* the newest entries, the cursor's at the bottom; scrolling goes back */
	int64_t start = (int64_t)upto - rows - *pane_scroll(a, VIEW_INODE);
	if (start < 0)
		start = 0;
	for (int row = 0; row < rows && start + row < (int64_t)upto; row++) {
		uint32_t k = (uint32_t)(start + row);
		hist_line(a, c, r.x, y + row, r.w, k, k + 1 == upto && a->hist.ev[k] == a->cur);
	}
}

const struct pane pane_inode = { VIEW_INODE, "Inode", draw_inode, SLOT_SIDE };
