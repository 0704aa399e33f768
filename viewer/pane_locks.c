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
#include "viewer/threads.h"
#include "viewer/unprot.h"

/* ---- held locks ------------------------------------------------------------ */

/* A sleep on an inode's state, and whom it waits for: the CPU that set
 * the I_NEW / I_FREEING / I_WILL_FREE it saw. */
static int draw_sleep(struct app *a, struct canvas *c, struct rect r, int y,
		      const struct cpu_state *s)
{
	const struct trace_index *ix = a->ix;
	const struct inode_state *is = model_inode(a->m, s->sleep_obj);
	char fl[96], who[48] = "";
	state_flags_str(s->sleep_state, 0, fl, sizeof(fl));
	if (is && is->setter >= 0)
		snprintf(who, sizeof(who), ", waits for %s", thread_name(ix, (unsigned)is->setter));
	canvas_printf(c, r.x, y++, r.w, R_WAIT,
		      " %s SLEEPS on inode %" PRIu64 " (%s)%s, since #%" PRIu64 " in %s",
		      glyph(c, G_WAIT), ix_id_value(ix, s->sleep_obj), fl, who, s->sleep_ev,
		      site_label(ix->ev[s->sleep_ev].site));
	return y;
}

/*
 * Who holds what a CPU waits for, as "held by cpu1" or "free".  The
 * sleeping rw-locks (iprune_sem, s_umount) are one lock over several
 * instances (tracepoints/EVENTS.md): instance 0 is the write hold, 1 + CPU
 * a read hold.  A writer waits for any hold of the class, a reader for the
 * write hold, so "free" is said only when none of those is held.
 */
static void wait_holder(const struct app *a, const struct cpu_state *s, unsigned self, char *who,
			size_t len)
{
	const struct trace_index *ix = a->ix;
	const struct lock_inst *li = model_lock(a->m, s->wait_cls, s->wait_obj, s->wait_life);
	snprintf(who, len, "free");
	if (li && li->holder >= 0) {
		snprintf(who, len, "held by %s", thread_name(ix, (unsigned)li->holder));
		return;
	}
	if (s->wait_cls != lock_class_by_name("iprune_sem") &&
	    s->wait_cls != lock_class_by_name("s_umount"))
		return;
	bool writer = ix_id_value(ix, s->wait_obj) == 0;
	for (unsigned cpu = 0; cpu < ix->ncpus; cpu++) {
		const struct cpu_state *o = model_cpu(a->m, cpu);
		for (int i = 0; cpu != self && i < o->nheld; i++) {
			const struct held_lock *h = &o->held[i];
			uint64_t inst = ix_id_value(ix, h->obj);
			if (h->cls == s->wait_cls && (writer || inst == 0)) {
				snprintf(who, len, "held %s by %s", inst ? "for read" : "for write",
					 thread_name(ix, cpu));
				return;
			}
		}
	}
}

static int draw_cpu(struct app *a, struct canvas *c, struct rect r, int y, unsigned cpu,
		    const struct cpu_state *s)
{
	const struct trace_index *ix = a->ix;
	int64_t now = ix->ev[a->cur].ts;
	char d[32], name[24];
	snprintf(name, sizeof(name), "%s", thread_name(ix, cpu));
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
			      s->nheld    ? "" :
			      s->sleeping ? "  (asleep, no lock held)" :
					    "  (no lock held)");
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
		char who[48];
		wait_holder(a, s, cpu, who, sizeof(who));
		canvas_printf(c, r.x, y++, r.w, R_WAIT, " %s %s %s %" PRIu64 " at %s, %s%s",
			      glyph(c, G_WAIT), s->contended ? "WAITS for" : "acquiring",
			      lock_class_label(s->wait_cls), ix_id_value(ix, s->wait_obj),
			      site_label(s->wait_site), who, s->contended ? " (contended)" : "");
	}
	if (s->sleeping && y < r.y + r.h)
		y = draw_sleep(a, c, r, y, s);
	const struct unprot_span *u = unprot_at(unprot_spans(ix), cpu, a->cur, a->end);
	if (u && a->cur > u->from && y < r.y + r.h)
		canvas_printf(c, r.x, y++, r.w, R_BAD,
			      " %s UNPROTECTED%s: holds inode %" PRIu64
			      " with no reference and no lock since #%" PRIu64 "%s",
			      glyph(c, G_WARN), u->unreliable ? "?" : "", ix_id_value(ix, u->obj),
			      u->from,
			      u->unreliable ? " (unreliable: events were lost before it ended)" :
					      "");
	return y;
}

/* Does this CPU have anything to show: a lock held or awaited, or a
 * state not known? */
static bool cpu_busy(const struct cpu_state *s)
{
	return s->unknown || s->nheld || s->waiting || s->sleeping;
}

/* The CPUs with nothing held, in one line: "no lock held: cpu0-3 cpu7". */
static int draw_idle(struct app *a, struct canvas *c, struct rect r, int y)
{
	char line[512];
	int n = 0, o = snprintf(line, sizeof(line), "no lock held:");
	unsigned ncpu = ix_sim_cpus(a->ix); /* the threads after them by name */
	for (unsigned cpu = 0; cpu < a->ix->ncpus; cpu++) {
		if (cpu_busy(model_cpu(a->m, cpu)))
			continue;
		unsigned last = cpu;
		while (last + 1 < a->ix->ncpus && last + 1 < ncpu &&
		       !cpu_busy(model_cpu(a->m, last + 1)))
			last++;
		if (o < (int)sizeof(line))
			o += last > cpu ? snprintf(line + o, sizeof(line) - (size_t)o, " cpu%u-%u",
						   cpu, last) :
					  snprintf(line + o, sizeof(line) - (size_t)o, " %s",
						   thread_name(a->ix, cpu));
		n += (int)(last - cpu) + 1;
		cpu = last;
	}
	if (n && y >= r.y && y < r.y + r.h)
		canvas_text(c, r.x, y, r.w, R_DIM, line);
	return n ? y + 1 : y;
}

/* A CPU that holds nothing and waits, on one line (many CPUs). */
static int draw_waiter(struct app *a, struct canvas *c, struct rect r, int y, unsigned cpu,
		       const struct cpu_state *s)
{
	char who[48];
	wait_holder(a, s, cpu, who, sizeof(who));
	if (y >= r.y && y < r.y + r.h)
		canvas_printf(c, r.x, y, r.w, R_WAIT, "%-6s %s %s %" PRIu64 " (%s) at %s",
			      thread_name(a->ix, cpu), glyph(c, G_WAIT),
			      lock_class_label(s->wait_cls), ix_id_value(a->ix, s->wait_obj), who,
			      site_label(s->wait_site));
	return y + 1;
}

/* One CPU with what it holds and waits for; y < r.y: scrolled off. */
static int draw_one(struct app *a, struct canvas *c, struct rect r, int y, unsigned cpu,
		    const struct cpu_state *s)
{
	if (y < r.y) {
		const struct unprot_span *u = unprot_at(unprot_spans(a->ix), cpu, a->cur, a->end);
		int lines = s->unknown ?
				    1 :
				    1 + s->nheld + (s->waiting ? 1 : 0) + (s->sleeping ? 1 : 0) +
					    (u && a->cur > u->from ? 1 : 0);
		if (y + lines <= r.y)
			return y + lines;
		y = r.y;
	}
	return draw_cpu(a, c, r, y, cpu, s);
}

/*
 * Who holds comes first, then who waits (or whose state is unknown).
 * Up to 4 CPUs each has its lines, with the operation it is in; above,
 * a CPU that only waits takes one line and the idle ones share one.
 */
static void draw_locks(struct app *a, struct canvas *c, struct rect r)
{
	int y = r.y - *pane_scroll(a, VIEW_LOCKS);
	bool many = a->ix->ncpus > 4;
	for (unsigned cpu = 0; cpu < a->ix->ncpus; cpu++) {
		const struct cpu_state *s = model_cpu(a->m, cpu);
		if (s->nheld && !s->unknown)
			y = draw_one(a, c, r, y, cpu, s);
	}
	for (unsigned cpu = 0; cpu < a->ix->ncpus; cpu++) {
		const struct cpu_state *s = model_cpu(a->m, cpu);
		if (s->nheld && !s->unknown)
			continue;
		if (many && s->waiting && !s->unknown)
			y = draw_waiter(a, c, r, y, cpu, s);
		else if (cpu_busy(s))
			y = draw_one(a, c, r, y, cpu, s);
	}
	const struct cpu_state *n = model_cpu(a->m, IX_NO_CPU);
	if (n->nheld || n->waiting)
		y = draw_one(a, c, r, y, IX_NO_CPU, n);
	if (many) {
		y = draw_idle(a, c, r, y);
	} else { /* room for each: say which operation it is in */
		for (unsigned cpu = 0; cpu < a->ix->ncpus; cpu++)
			if (!cpu_busy(model_cpu(a->m, cpu)))
				y = draw_one(a, c, r, y, cpu, model_cpu(a->m, cpu));
	}
	if (y >= r.y && y < r.y + r.h && a->m->discards)
		canvas_printf(c, r.x, y, r.w, R_BAD,
			      "%s events were lost before this point: a CPU's state is known "
			      "again at its next operation",
			      glyph(c, G_WARN));
}

const struct pane pane_locks = { VIEW_LOCKS, "Held locks", draw_locks, SLOT_SIDE };
