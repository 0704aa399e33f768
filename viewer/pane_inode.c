/*
 * pane_inode.c - the inode pane: the selected inode's history of state changes, with the
 * I_WILL_FREE / I_FREEING handoff (who set each flag, who skipped or waited).
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
	for (uint64_t i = 0; i < a->end; i++) {
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
	start += *pane_scroll(a, VIEW_INODE);
	if (start + rows > (int64_t)a->hist.n)
		start = (int64_t)a->hist.n - rows;
	if (start < 0)
		start = 0;
	for (int row = 0; row < rows && start + row < (int64_t)a->hist.n; row++) {
		uint32_t k = (uint32_t)(start + row);
		hist_line(a, c, r.x, y + row, r.w, k, a->hist.ev[k] > a->cur);
	}
}

const struct pane pane_inode = { VIEW_INODE, "Inode", draw_inode, SLOT_SIDE };
