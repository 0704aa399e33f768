/*
 * pane_timeline.c - time: a strip of contentions per lock class over the
 * whole trace, with the cursor on it, and the hottest lock instances
 * around the cursor.
 *
 * The strip's figures are folded from the index once, into a fixed
 * number of time buckets whose width doubles (merging pairs) whenever
 * the trace is longer than they cover, so a frame never re-reads the
 * trace and a trace still loading is folded as it grows.  A bucket that
 * a loss window touches is marked, and the figures of an incomplete trace
 * are called lower bounds: the strip never shows a quiet time that may
 * only be lost events.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "viewer/app.h"
#include "viewer/omap.h"
#include "viewer/report.h"
#include "viewer/timestrip.h"

void timeline_free(struct time_buckets *tb)
{
	free(tb);
}

/* Fold events [done, end) in; start again if the visible end moved back
 * (a lesson hides what comes after its question).  A whole trace's strip
 * may come folded already, from the index cache (timestrip.h). */
static struct time_buckets *tb_update(struct app *a)
{
	const struct trace_index *ix = a->ix;
	if (!a->tb)
		a->tb = xcalloc(1, sizeof(*a->tb));
	struct time_buckets *tb = a->tb;
	if (tb->width == 0 && ix->strip && a->end == ix->nev) {
		int cols = tb->cols;
		memcpy(tb, ix->strip, sizeof(*tb));
		tb->cols = cols;
	}
	strip_fold(tb, ix, a->end);
	return tb;
}

/* The strip's column of a time, for cols columns over the visible trace. */
static int col_of(const struct app *a, int64_t ts, int cols)
{
	int64_t t0 = a->ix->ev[0].ts, span = a->ix->ev[a->end - 1].ts - t0 + 1;
	int64_t k = (ts - t0) * cols / span;
	return k < 0 ? 0 : k >= cols ? cols - 1 : (int)k;
}

/* Time range [*from, *to) of a column: the buckets the strip puts in it,
 * so the hot locks count exactly what the strip shows there. */
static void col_range(const struct app *a, int col, int cols, int64_t *from, int64_t *to)
{
	const struct time_buckets *tb = a->tb;
	*from = INT64_MAX;
	*to = INT64_MIN;
	for (int k = 0; k < TB_N; k++) {
		int64_t b = tb->t0 + (int64_t)k * tb->width;
		if (col_of(a, b, cols) != col)
			continue;
		*from = b < *from ? b : *from;
		*to = b + tb->width > *to ? b + tb->width : *to;
	}
	if (*from == INT64_MAX) /* a column narrower than a bucket */
		*from = *to = tb->t0;
}

/* One class's figures per column: contentions, wait. */
static void class_cols(const struct app *a, const struct time_buckets *tb, int cls, int cols,
		       uint64_t *cont, uint64_t *wait)
{
	memset(cont, 0, sizeof(*cont) * (size_t)cols);
	memset(wait, 0, sizeof(*wait) * (size_t)cols);
	for (int k = 0; k < TB_N; k++) {
		if (!tb->cont[cls][k] && !tb->wait[cls][k])
			continue;
		int col = col_of(a, tb->t0 + (int64_t)k * tb->width, cols);
		cont[col] += tb->cont[cls][k];
		wait[col] += tb->wait[cls][k];
	}
}

static const char *level_glyph(const struct canvas *c, uint64_t v, uint64_t max)
{
	static const char *const u[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char *const s[] = { ".", ":", "-", "=", "+", "*", "#", "@" };
	if (!v)
		return " ";
	int l = max ? (int)((v * 8 - 1) / max) : 0;
	l = l < 0 ? 0 : l > 7 ? 7 : l;
	return c->utf8 ? u[l] : s[l];
}

/* The classes that contended, hottest (most contentions) first. */
static int hot_classes(const struct time_buckets *tb, int *cls, int max)
{
	int n = 0;
	for (int c = 0; c < MODEL_MAX_CLASSES; c++)
		if (tb->total[c])
			cls[n++] = c;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && tb->total[cls[j]] > tb->total[cls[j - 1]]; j--) {
			int t = cls[j];
			cls[j] = cls[j - 1];
			cls[j - 1] = t;
		}
	return n < max ? n : max;
}

/* Row 0: the time axis, the marks and the cursor (▼). */
static void strip_axis(struct app *a, struct canvas *c, struct rect r, int lw, int cols, int ccol)
{
	char d[32];
	canvas_printf(c, r.x, r.y, lw, R_TITLE, "%s",
		      !ix_complete(a->ix) ? "LOWER BOUNDS" :
		      a->strip_wait       ? "time waited" :
					    "contentions");
	if (!ix_complete(a->ix))
		canvas_role(c, r.x, r.y, lw - 1, R_BAD);
	canvas_text(c, r.x + lw, r.y, cols, R_DIM, "+0");
	fmt_dur(a->ix->ev[a->end - 1].ts - a->ix->ev[0].ts, d, sizeof(d));
	int dl = (int)strlen(d) + 1;
	if (dl < cols - 4)
		canvas_printf(c, r.x + lw + cols - dl, r.y, dl, R_DIM, "+%s", d);
	for (int m = 0; m < 26; m++)
		if (a->mark_set[m] && a->marks[m] < a->end) {
			char t[2] = { (char)('a' + m), 0 };
			canvas_text(c, r.x + lw + col_of(a, a->ix->ev[a->marks[m]].ts, cols), r.y,
				    1, R_TITLE, t);
		}
	canvas_text(c, r.x + lw + ccol, r.y, 1, R_CURSOR, c->utf8 ? "▼" : "v");
}

/* One class's row: its name, its levels per column (contentions, or
 * the time waited with T), the cursor's column, its figures there. */
static void class_row(struct app *a, struct canvas *c, struct rect r, int y, int cls, int lw,
		      int cols, int fw, int ccol, uint64_t *cont, uint64_t *wait)
{
	class_cols(a, a->tb, cls, cols, cont, wait);
	const uint64_t *v = a->strip_wait ? wait : cont;
	uint64_t max = 0;
	for (int k = 0; k < cols; k++)
		max = v[k] > max ? v[k] : max;
	canvas_text(c, r.x, y, lw - 1, class_role(cls), lock_class_short(cls));
	for (int k = 0; k < cols; k++)
		canvas_text(c, r.x + lw + k, y, 1, k == ccol ? R_CURSOR : R_NORMAL,
			    level_glyph(c, v[k], max));
	char d[32];
	if (fw)
		canvas_printf(c, r.x + lw + cols + 1, y, fw - 1, R_NORMAL, "%5" PRIu64 " %s",
			      cont[ccol], fmt_dur((int64_t)wait[ccol], d, sizeof(d)));
}

/* The slices a loss window touches, as ? on the last row. */
static void lost_row(struct app *a, struct canvas *c, struct rect r, int lw, int cols)
{
	int y = r.y + r.h - 1;
	canvas_text(c, r.x, y, lw - 1, R_BAD, "lost events");
	for (int k = 0; k < TB_N; k++)
		if (a->tb->lost[k])
			canvas_text(c,
				    r.x + lw +
					    col_of(a, a->tb->t0 + (int64_t)k * a->tb->width, cols),
				    y, 1, R_BAD, "?");
}

static void draw_timeline(struct app *a, struct canvas *c, struct rect r)
{
	if (a->end == 0 || a->ix->nev == 0)
		return; /* nothing decoded yet */
	struct time_buckets *tb = tb_update(a);
	int lw = 13, fw = r.w >= 70 ? 22 : 0; /* label, figures at the cursor */
	int cols = r.w - lw - fw;
	if (cols < 8 || r.h < 2)
		return;
	tb->cols = cols;
	int ccol = col_of(a, a->ix->ev[a->cur].ts, cols);
	strip_axis(a, c, r, lw, cols, ccol);
	int cls[MODEL_MAX_CLASSES];
	bool lost = false;
	for (int k = 0; k < TB_N; k++)
		lost |= tb->lost[k];
	int rows = r.h - 1 - (lost ? 1 : 0);
	int n = hot_classes(tb, cls, rows > 0 ? rows : 0);
	if (n == 0)
		canvas_text(c, r.x + lw, r.y + 1, cols, R_NORMAL, "no lock was contended");
	uint64_t *cont = xcalloc((size_t)cols, sizeof(*cont)), *wait = xcalloc((size_t)cols, 8);
	for (int i = 0; i < n; i++)
		class_row(a, c, r, r.y + 1 + i, cls[i], lw, cols, fw, ccol, cont, wait);
	free(cont);
	free(wait);
	if (fw)
		canvas_text(c, r.x + lw + cols + 1, r.y, fw - 1, R_TITLE, "here: cont waited");
	if (lost)
		lost_row(a, c, r, lw, cols);
}

const struct pane pane_timeline = { VIEW_TIMELINE, "Timeline: lock classes over time",
				    draw_timeline, SLOT_STRIP };

/* ---- the hottest lock instances around the cursor ----------------------- */

struct hot {
	uint8_t cls;
	uint32_t obj;
	uint32_t acq, cont;
	uint64_t wait;
};

#define HOT_SCAN 200000 /* events scanned each side of the cursor, at most */

/* Fold the lock events of [from, to) into a map (cls, obj) -> figures. */
static uint64_t hot_fold(const struct app *a, int64_t from, int64_t to, struct omap *m)
{
	const struct trace_index *ix = a->ix;
	uint64_t i0 = ix_find_time(ix, from), n = 0;
	if (a->cur > HOT_SCAN && i0 < a->cur - HOT_SCAN)
		i0 = a->cur - HOT_SCAN;
	for (uint64_t i = i0; i < a->end && ix->ev[i].ts < to && i < a->cur + HOT_SCAN; i++, n++) {
		const struct ix_event *e = &ix->ev[i];
		if (e->type != EV_lock_contended && e->type != EV_lock_acquired)
			continue;
		struct hot *h = omap_put(m, (uint64_t)e->a << 32 | e->obj);
		h->cls = e->a;
		h->obj = e->obj;
		if (e->type == EV_lock_contended)
			h->cont++;
		else {
			h->acq++;
			h->wait += e->val;
		}
	}
	return n;
}

static int hot_cmp(const void *x, const void *y)
{
	const struct hot *a = x, *b = y;
	if (a->wait != b->wait)
		return a->wait < b->wait ? 1 : -1;
	if (a->cont != b->cont)
		return a->cont < b->cont ? 1 : -1;
	return a->acq < b->acq ? 1 : a->acq > b->acq ? -1 : 0;
}

static void draw_hot(struct app *a, struct canvas *c, struct rect r)
{
	if (a->end == 0 || a->ix->nev == 0)
		return;
	struct time_buckets *tb = tb_update(a);
	int cols = tb->cols ? tb->cols : 60;
	int64_t from, to;
	col_range(a, col_of(a, a->ix->ev[a->cur].ts, cols), cols, &from, &to);
	struct omap m;
	omap_init(&m, sizeof(struct hot));
	hot_fold(a, from, to, &m);
	struct hot *v = xcalloc(m.n + 1, sizeof(*v));
	uint32_t n = 0;
	for (uint32_t k = 0; k < m.cap; k++)
		if (m.keys[k])
			v[n++] = *(struct hot *)oval(&m, k);
	omap_free(&m);
	qsort(v, n, sizeof(*v), hot_cmp);
	char d1[32], d2[32];
	int64_t t0 = a->ix->ev[0].ts;
	canvas_printf(c, r.x, r.y, r.w, ix_complete(a->ix) ? R_TITLE : R_BAD, "slice +%s..+%s%s",
		      fmt_dur(from - t0, d1, sizeof(d1)), fmt_dur(to - t0, d2, sizeof(d2)),
		      ix_complete(a->ix) ? "" : ": LOWER BOUNDS, events lost");
	int y = r.y + 1;
	if (!n)
		canvas_text(c, r.x, y, r.w, R_NORMAL, "no lock taken in this slice");
	else
		canvas_printf(c, r.x, y++, r.w, R_TITLE, "%-16s %12s %6s %6s", "lock", "waited",
			      "cont", "acq");
	for (uint32_t k = 0; k < n && y < r.y + r.h; k++, y++) {
		char name[48];
		snprintf(name, sizeof(name), "%s %" PRIu64, lock_class_short(v[k].cls),
			 ix_id_value(a->ix, v[k].obj));
		canvas_text(c, r.x, y, 16, class_role(v[k].cls), name);
		canvas_printf(c, r.x + 16, y, r.w - 16, R_NORMAL, " %12s %6u %6u",
			      fmt_dur((int64_t)v[k].wait, d1, sizeof(d1)), v[k].cont, v[k].acq);
	}
	free(v);
}

const struct pane pane_hot = { VIEW_HOT, "Hot locks", draw_hot, SLOT_STRIP };
