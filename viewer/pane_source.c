/*
 * pane_source.c - the source pane: the scheme's file with the line each
 * CPU's latest event came from marked in that CPU's colour, centred on
 * the line of the event under the cursor.  The lines come from the
 * events' `line` field, the file from run_begin (viewer/source.c finds
 * and checks it).
 */
#include <stdio.h>

#include "tracepoints/icache_enums.h"
#include "viewer/app.h"
#include "viewer/source.h"
#include "viewer/threads.h"

static const char *name_of(const void *arg, unsigned cpu)
{
	return thread_name(arg, cpu);
}

/* The marks at the cursor: each thread's latest line (model.h). */
static int cursor_marks(const struct app *a, struct src_cpu_mark *marks, int max)
{
	int n = 0;
	for (unsigned cpu = 0; cpu < a->ix->ncpus && n < max; cpu++) {
		const struct cpu_state *s = model_cpu(a->m, cpu);
		if (s->line)
			marks[n++] = (struct src_cpu_mark){ cpu, s->src, s->line,
							    site_label(s->src_site), false };
	}
	return n;
}

static void draw_source(struct app *a, struct canvas *c, struct rect r)
{
	struct src_cpu_mark marks[64];
	int n = cursor_marks(a, marks, 64);
	const struct ix_event *e = &a->ix->ev[a->cur];
	int center = 0;
	/* follow the cursor: its CPU's line, else the first CPU's */
	for (int k = 0; k < n && !center; k++)
		if (marks[k].cpu == e->cpu && marks[k].src == SRC_scheme)
			center = marks[k].line;
	for (int k = 0; k < n && !center; k++)
		if (marks[k].src == SRC_scheme)
			center = marks[k].line;
	source_draw(c, r, source_for_trace(a->ix), marks, n, center, name_of, a->ix);
}

const struct pane pane_source = { VIEW_SOURCE, "Source", draw_source, SLOT_SIDE };
