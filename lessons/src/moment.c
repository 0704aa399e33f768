/*
 * moment.c - parsing moment selectors and finding them in a trace.
 *
 * A moment is start, end, step N, event N, or a selector in the grammar
 * the scenario files' schedule lines use too (lib/selector.h): a teacher
 * writes "release i_lock in iput_final" the same way in both.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/src/moment.h"
#include "lib/selector.h"
#include "viewer/names.h"

#define MAX_WORDS 24

static int split_words(char *s, char **w)
{
	int n = 0;
	for (char *p = strtok(s, " \t,"); p && n < MAX_WORDS; p = strtok(NULL, " \t,"))
		w[n++] = p;
	return n;
}

static bool fail(char *err, size_t len, const char *fmt, const char *a)
{
	snprintf(err, len, fmt, a);
	return false;
}

/* A selector (lib/selector.h) as a moment of a trace. */
static bool from_selector(const struct selector *sel, struct moment *m, char *err, size_t len)
{
	if (sel->ev < 0)
		return fail(err, len, "'%s' leaves no event in a trace (name the event around it)",
			    sel->verb);
	if (sel->has_sb)
		return fail(err, len, "%s",
			    "'sb N' is for scenarios: in a trace, 'inode N' is enough");
	m->kind = M_SELECT;
	m->type = sel->ev; /* the viewer's EV_* are the table's numbers */
	m->classes = sel->classes;
	m->site = sel->site;
	m->cpu = sel->cpu;
	m->flags = sel->flags;
	m->flag_set = sel->flag_set;
	m->list = sel->list;
	m->action = sel->action;
	m->op = sel->op;
	m->viol = sel->viol;
	m->trylock_ok = sel->trylock_ok;
	m->has_count = sel->has_count;
	m->count = sel->count;
	m->has_after = sel->has_after;
	m->after_step = sel->after_step;
	m->nth = sel->nth;
	m->has_ino = sel->inode != NULL;
	if (m->has_ino && !sel_parse_u64(sel->inode, &m->ino))
		return fail(err, len, "'inode' needs a number, not '%s'", sel->inode);
	return true;
}

bool moment_parse(const char *text, struct moment *m, char *err, size_t len)
{
	char buf[512];
	char *w[MAX_WORDS];
	struct selector sel;

	memset(m, 0, sizeof(*m));
	if (!text || strlen(text) >= sizeof(buf))
		return fail(err, len, "%s", text ? "moment too long" : "empty moment");
	snprintf(buf, sizeof(buf), "%s", text);
	int n = split_words(buf, w);
	if (n == 0)
		return fail(err, len, "%s", "empty moment");
	if (n == 1 && (strcmp(w[0], "start") == 0 || strcmp(w[0], "end") == 0)) {
		m->kind = w[0][0] == 's' ? M_START : M_END;
		return true;
	}
	if (n == 2 && (strcmp(w[0], "step") == 0 || strcmp(w[0], "event") == 0)) {
		if (!sel_parse_u64(w[1], &m->number))
			return fail(err, len, "'%s' is not a number", w[1]);
		m->kind = w[0][0] == 's' ? M_STEP : M_EVENT;
		return true;
	}
	if (!selector_parse(w, n, &sel, err, len)) {
		/* say what else a moment can be */
		size_t l = strlen(err);
		if (strncmp(err, "unknown event", 13) == 0 && l + 40 < len)
			snprintf(err + l, len - l, "; or start, end, step N, event N");
		return false;
	}
	return from_selector(&sel, m, err, len);
}

bool moment_match_event(const struct moment *m, const struct ix_event *e, uint64_t obj_value)
{
	if (m->kind != M_SELECT || e->type != m->type)
		return false;
	if (m->cpu >= 0 && e->cpu != m->cpu)
		return false;
	if (m->site >= 0 && e->site != m->site)
		return false;
	if (ev_is_lock(e->type)) {
		if (m->classes && !(e->a < 32 && (m->classes >> e->a & 1)))
			return false;
		if (m->trylock_ok >= 0 && e->b != m->trylock_ok)
			return false;
		/* "inode N" on an i_lock: the instance is the inode number */
		return !m->has_ino || obj_value == m->ino;
	}
	switch (e->type) {
	case EV_inode_state: {
		uint32_t old = (uint32_t)(e->val >> 32), nw = (uint32_t)e->val;
		uint32_t f = m->flags;
		if (m->has_ino && obj_value != m->ino)
			return false;
		return m->flag_set ? (!(old & f) && (nw & f)) : ((old & f) && !(nw & f));
	}
	case EV_inode_list:
		if (m->list >= 0 && e->a != m->list)
			return false;
		if (m->action >= 0 && e->b != m->action)
			return false;
		return !m->has_ino || obj_value == m->ino;
	case EV_inode_ref:
	case EV_inode_pages:
		if (m->has_count && (int32_t)(uint32_t)e->val != m->count)
			return false;
		return !m->has_ino || obj_value == m->ino;
	case EV_inode_nlink:
		if (m->has_count && (int64_t)e->val != m->count)
			return false;
		return !m->has_ino || obj_value == m->ino;
	case EV_inode_alloc:
	case EV_inode_free:
	case EV_inode_wait:
	case EV_inode_wait_end:
		return !m->has_ino || obj_value == m->ino;
	case EV_op_begin:
	case EV_op_end:
		if (m->op >= 0 && e->a != m->op)
			return false;
		return !m->has_ino || obj_value == m->ino;
	case EV_violation:
		return m->viol < 0 || e->a == m->viol;
	default:
		/* any other event named by its own name ("note"): the type,
		 * the CPU and the site say it all */
		return !m->has_ino;
	}
}

static bool has_obj_value(int type)
{
	return type != EV_sched_step && type != EV_violation && type != EV_run_begin &&
	       type != EV_run_end && type != EV_discarded_events && type != EV_discarded_packets;
}

int64_t moment_find(const struct moment *m, const struct ix_event *ev, uint64_t n,
		    uint64_t (*value_of)(const void *ctx, uint32_t id), const void *ctx)
{
	switch (m->kind) {
	case M_START:
		return 0;
	case M_END:
		return (int64_t)n;
	case M_EVENT:
		return m->number < n ? (int64_t)m->number : -1;
	case M_STEP:
		for (uint64_t i = 0; i < n; i++)
			if (ev[i].type == EV_sched_step && ev[i].val == m->number)
				return (int64_t)i;
		return -1;
	case M_SELECT:
		break;
	}
	bool armed = !m->has_after;
	int seen = 0;
	int64_t last = -1;
	for (uint64_t i = 0; i < n; i++) {
		const struct ix_event *e = &ev[i];
		if (!armed) {
			if (e->type == EV_sched_step && e->val >= m->after_step)
				armed = true;
			continue;
		}
		uint64_t v = has_obj_value(e->type) && value_of ? value_of(ctx, e->obj) : 0;
		if (!moment_match_event(m, e, v))
			continue;
		last = (int64_t)i;
		if (m->nth > 0 && ++seen == m->nth)
			return last;
	}
	return m->nth < 0 ? last : -1;
}
