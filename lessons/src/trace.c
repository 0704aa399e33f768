/*
 * trace.c - play, record, load (see trace.h).
 */
#include <stdio.h>
#include <string.h>

#include "trace.h"

static uint64_t value_of(const void *ctx, uint32_t id)
{
	return ix_id_value(ctx, id);
}

/* The first line of play's output that says something. */
static void first_line(const char *out, char *buf, size_t len)
{
	const char *p = out ? out : "";
	while (*p == '\n')
		p++;
	const char *nl = strchr(p, '\n');
	size_t n = nl ? (size_t)(nl - p) : strlen(p);
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
}

bool trace_play(const char *scn, struct lesson_trace *t)
{
	memset(t, 0, sizeof(*t));
	char line[300];
	if (!play_run(scn, true, &t->play)) {
		first_line(t->play.output, line, sizeof(line));
		snprintf(t->err, sizeof(t->err), "icache-sim play did not run: %s",
			 line);
		return false;
	}
	if (t->play.status != 0 && t->play.status != 1) {
		first_line(t->play.output, line, sizeof(line));
		snprintf(t->err, sizeof(t->err), "icache-sim play %s exited %d: %s",
			 scn, t->play.status, line);
		return false;
	}
	t->ix = ix_load(t->play.trace_dir, line, sizeof(line));
	if (!t->ix) {
		snprintf(t->err, sizeof(t->err), "the trace of %s does not load: %s",
			 scn, line);
		return false;
	}
	return true;
}

void trace_free(struct lesson_trace *t)
{
	if (t->ix)
		ix_free(t->ix);
	play_result_free(&t->play);
	memset(t, 0, sizeof(*t));
}

int64_t trace_find(const struct lesson_trace *t, const struct moment *m)
{
	return moment_find(m, t->ix->ev, t->ix->nev, value_of, t->ix);
}

uint64_t trace_obj(const struct lesson_trace *t, const struct ix_event *e)
{
	return ix_id_value(t->ix, e->obj);
}
