/*
 * pane_locks.c - the held locks: per CPU what it holds (in the order taken), what it waits for,
 * or that its state is unknown after lost events.
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
		const struct lock_inst *li =
			model_lock(a->m, s->wait_cls, s->wait_obj, s->wait_life);
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
	int y = r.y - *pane_scroll(a, VIEW_LOCKS);
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

const struct pane pane_locks = { VIEW_LOCKS, "Held locks", draw_locks, SLOT_SIDE };
