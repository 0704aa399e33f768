/*
 * panes.c - the registry of panes and the layout computed from their slots.
 *
 * A pane is {id, title, draw, slot} (app.h), one file each
 * (viewer/pane_*.c).  Adding one: a file with its draw function and its
 * struct pane, an id in enum view_pane, a line here.  The layout gives each
 * slot a region and splits a region between the panes that share it, in
 * the order of this table.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "viewer/app.h"

extern const struct pane pane_lanes, pane_locks, pane_inode, pane_order, pane_stats;
extern const struct pane pane_timeline, pane_hot, pane_source;

const struct pane *const panes[] = { &pane_lanes, &pane_locks, &pane_inode,    &pane_source,
				     &pane_order, &pane_stats, &pane_timeline, &pane_hot };
const int npanes = sizeof(panes) / sizeof(panes[0]);

int pane_index(enum view_pane id)
{
	for (int i = 0; i < npanes; i++)
		if (panes[i]->id == id)
			return i;
	return -1;
}

const struct pane *pane_by_id(enum view_pane id)
{
	int i = pane_index(id);
	return i >= 0 ? panes[i] : NULL;
}

/* The region of each slot in a body w x h at (0, top): the main pane on
 * the left, the side panes on the right, then the strip and the bottom
 * band across the whole width. */
static struct rect slot_region(enum pane_slot s, int w, int top, int h)
{
	int lw = w * 11 / 20, rw = w - lw;
	int bottom = h / 4 < 8 ? 8 : h / 4;
	int strip = h / 5 < 5 ? 5 : h / 5 > 9 ? 9 : h / 5;
	int th = h - bottom - strip;
	switch (s) {
	case SLOT_MAIN:
		return (struct rect){ 0, top, lw, th };
	case SLOT_SIDE:
		return (struct rect){ lw, top, rw, th };
	case SLOT_STRIP:
		return (struct rect){ 0, top + th, w, strip };
	case SLOT_BOTTOM:
	default:
		return (struct rect){ 0, top + th + strip, w, bottom };
	}
}

/* Split region r between the n panes of one slot: the side slot stacks
 * them (the first a little smaller), the bottom band puts them side by
 * side (the first a little wider). */
static struct rect slot_part(enum pane_slot s, struct rect r, int k, int n)
{
	if (n <= 1)
		return r;
	if (s == SLOT_BOTTOM || s == SLOT_STRIP) {
		int first = r.w * (s == SLOT_STRIP ? 12 : 11) / 20, rest = (r.w - first) / (n - 1);
		int x = k == 0 ? r.x : r.x + first + (k - 1) * rest;
		int wk = k == 0 ? first : k == n - 1 ? r.x + r.w - x : rest;
		return (struct rect){ x, r.y, wk, r.h };
	}
	int first = r.h * 9 / 20, rest = (r.h - first) / (n - 1);
	int y = k == 0 ? r.y : r.y + first + (k - 1) * rest;
	int hk = k == 0 ? first : k == n - 1 ? r.y + r.h - y : rest;
	return (struct rect){ r.x, y, r.w, hk };
}

void pane_layout(struct rect *r, int zoomed, int w, int top, int h)
{
	pane_layout_without(r, zoomed, w, top, h, -1);
}

void pane_layout_without(struct rect *r, int zoomed, int w, int top, int h, int hidden)
{
	memset(r, 0, sizeof(*r) * (size_t)npanes);
	if (zoomed >= 0) {
		r[zoomed] = (struct rect){ 0, top, w, h };
		return;
	}
	for (int i = 0; i < npanes; i++) {
		enum pane_slot s = panes[i]->slot;
		int k = 0, n = 0;
		if (i == hidden)
			continue;
		for (int j = 0; j < npanes; j++)
			if (panes[j]->slot == s && j != hidden) {
				k += j < i;
				n++;
			}
		r[i] = slot_part(s, slot_region(s, w, top, h), k, n);
	}
}

void pane_layout_pair(struct rect *r, int upper, int lower, int w, int top, int h)
{
	memset(r, 0, sizeof(*r) * (size_t)npanes);
	int uh = h * 3 / 5;
	r[upper] = (struct rect){ 0, top, w, lower >= 0 && lower != upper ? uh : h };
	if (lower >= 0 && lower != upper)
		r[lower] = (struct rect){ 0, top + uh, w, h - uh };
}
