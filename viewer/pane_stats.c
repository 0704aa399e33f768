/*
 * pane_stats.c - lock_stat: per lock class the figures the kernel's lock_stat keeps, and
 * the validator's reports so far.
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

/* ---- lock_stat ----------------------------------------------------------------- */

static char *us(uint64_t ns, char *b, size_t n)
{
	if (ns == UINT64_MAX)
		ns = 0;
	snprintf(b, n, "%.1f", (double)ns / 1e3);
	return b;
}

/*
 * s from row y on, broken at spaces into lines of w (the next ones
 * indented), down to row ymax; only the last row left is cut ("…").
 * Returns the row after it.
 */
static int wrap_text(struct canvas *c, int x, int y, int w, int ymax, const char *s)
{
	int indent = 0;
	while (*s && y < ymax) {
		int room = w - indent, len = (int)strlen(s), take = len;
		if (len > room && y + 1 < ymax) {
			take = room;
			while (take > 0 && s[take] != ' ')
				take--;
			if (take == 0)
				take = room;
		}
		canvas_printf(c, x + indent, y++, room, R_BAD, "%.*s", take, s);
		s += take;
		while (*s == ' ')
			s++;
		indent = 3;
	}
	return y;
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
		if (!strncmp(n, "inode_", 6) && strcmp(n, "inode_lock") != 0)
			n += 6; /* the one global lock keeps its name: not "lock" */
		if (!wide) {
			canvas_printf(c, r.x, y++, r.w, s->contentions ? R_WAIT : R_NORMAL,
				      "%-12s %8" PRIu64 " %6" PRIu64 " %6" PRIu64 " %4" PRIu64
				      " %10s",
				      n, s->acquisitions, s->contentions, s->bounces,
				      s->trylock_failures, us(s->wait_ns_total, b1, sizeof(b1)));
			continue;
		}
		canvas_printf(
			c, r.x, y++, r.w, s->contentions ? R_WAIT : R_NORMAL,
			"%-12s %8" PRIu64 " %6" PRIu64 " %6" PRIu64 " %5" PRIu64 " %9s %8s %9s %8s",
			n, s->acquisitions, s->contentions, s->bounces, s->trylock_failures,
			us(s->wait_ns_total, b1, sizeof(b1)), us(s->wait_ns_max, b2, sizeof(b2)),
			us(s->hold_ns_total, b3, sizeof(b3)), us(s->hold_ns_max, b4, sizeof(b4)));
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
		char buf[1024];
		snprintf(buf, sizeof(buf), " #%" PRIu64 " %s: %s", v->ev, violation_label(v->kind),
			 ix_str(a->ix, v->text));
		y = wrap_text(c, r.x, y, r.w, r.y + r.h, buf);
	}
}

const struct pane pane_stats = { VIEW_STATS, "lock_stat", draw_stats, SLOT_BOTTOM };
