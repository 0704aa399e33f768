/*
 * evtext.c - ONE function turns an event into a line of text: the lanes
 * (brief), the details line and search (full), and so the lessons, which
 * show the viewer's panes.
 *
 * The events of the table that have a hand-made wording are worded here;
 * every other event, such as one just added to tracepoints/icache_events.h,
 * is written from its fields in the table ("order_rule outer=i_lock
 * inner=hash_bucket"), so a new event is readable with no code here.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lib/evtext.h"
#include "viewer/evtext.h"
#include "viewer/report.h"
#include "viewer/threads.h"

/* The scheduler, the validator, the run and losses: events only a trace
 * has, with their side tables; false if e is not one of them. */
static bool trace_only_text(const struct trace_index *ix, const struct ix_event *e, bool brief,
			    char *buf, size_t len)
{
	switch (e->type) {
	case EV_sched_step:
		snprintf(buf, len, "%s%" PRIu64 " %s", brief ? "step " : "sched_step ", e->val,
			 ix_str(ix, e->obj));
		break;
	case EV_violation: {
		const struct ix_violation *v = &ix->viols[e->val];
		snprintf(buf, len, "%s %s: %s", brief ? "!!" : "violation",
			 violation_label(v->kind), ix_str(ix, v->text));
		break;
	}
	case EV_run_begin: {
		const struct ix_run *r = &ix->runs[e->val];
		snprintf(buf, len, "run_begin %s %s, %u CPUs", ix_str(ix, r->scheme),
			 ix_str(ix, r->workload), r->cpus);
		break;
	}
	case EV_run_end:
		snprintf(buf, len, "run_end %" PRIu64 " ops, %u violations", e->val, e->obj);
		break;
	case EV_note:
		if (!brief) /* the details: from the table, "note text=... scn_line=24" */
			return false;
		snprintf(buf, len, "-- %s", ix_str(ix, e->obj));
		break;
	case EV_discarded_events:
		snprintf(buf, len, "LOST %" PRIu64 " events (discarded by the tracer)", e->val);
		break;
	case EV_discarded_packets:
		snprintf(buf, len, "LOST %" PRIu64 " packets (discarded by the tracer)", e->val);
		break;
	default:
		return false;
	}
	return true;
}

/* The value of field f of e, from where the index keeps it. */
#define LOAD_(slot, member) \
	case slot:          \
		return e->member;
static uint64_t field_value(const struct trace_index *ix, const struct ix_event *e,
			    const struct ix_field *f)
{
	switch (f->slot) {
		IX_PLAIN_SLOTS(LOAD_)
	case SL_OBJ:
		return ix_id_value(ix, e->obj);
	case SL_HI:
		return e->val >> 32;
	case SL_LO:
		return e->val & 0xffffffffu;
	case SL_STRID:
	case SL_SIDE:
		break;
	}
	return 0;
}
#undef LOAD_

/* One field's value as text: enum labels, hex masks, strings, numbers. */
static void field_text(const struct trace_index *ix, const struct ix_event *e,
		       const struct ix_field *f, char *buf, size_t len)
{
	uint64_t v = field_value(ix, e, f);
	static const struct {
		const char *type;
		const char *(*label)(int);
	} enums[] = { { "lock_class", lock_class_label },
		      { "site", site_label },
		      { "list", list_label },
		      { "list_action", list_action_label },
		      { "op", op_label },
		      { "violation_kind", violation_label },
		      { "src_file", src_file_label } };
	if (f->slot == SL_STRID) {
		snprintf(buf, len, "%s", ix_str(ix, e->obj));
		return;
	}
	for (size_t k = 0; k < sizeof(enums) / sizeof(enums[0]); k++)
		if (!strcmp(f->type, enums[k].type)) {
			snprintf(buf, len, "%s", enums[k].label((int)v));
			return;
		}
	if (f->type[0] == 'i') /* int16_t, int32_t, int64_t */
		snprintf(buf, len, "%" PRId64, (int64_t)v);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

/* Room for the names describe() makes. */
struct desc_text {
	char old_flags[96], new_flags[96], dur[32];
};

/*
 * How a field of the event table fills lib/evtext.c's struct ev_desc,
 * found by the field's type (the enums) or else its name: a number, a
 * label, i_state flags, the holder's name, a duration, a yes/no.
 */
enum field_use { U_NUM, U_LABEL, U_CLASS, U_FLAGS, U_HOLDER, U_DUR, U_OK };

static const struct field_rule {
	const char *type, *name;
	enum field_use use;
	size_t off; /* the member of struct ev_desc it fills */
	const char *(*label)(int);
} rules[] = {
#define R(type, name, use, member, label)                                \
	{                                                                \
		type, name, use, offsetof(struct ev_desc, member), label \
	}
	R("lock_class", NULL, U_CLASS, cls_name, lock_class_label),
	R("site", NULL, U_LABEL, site, site_label),
	R("list", NULL, U_LABEL, list, list_label),
	R("list_action", NULL, U_LABEL, action, list_action_label),
	R("op", NULL, U_LABEL, op, op_label),
	R(NULL, "old_state", U_FLAGS, old_flags, NULL),
	R(NULL, "new_state", U_FLAGS, new_flags, NULL),
	R(NULL, "state", U_FLAGS, new_flags, NULL),
	R(NULL, "old_count", U_NUM, before, NULL),
	R(NULL, "new_count", U_NUM, after, NULL),
	R(NULL, "old_pages", U_NUM, before, NULL),
	R(NULL, "new_pages", U_NUM, after, NULL),
	R(NULL, "sb", U_NUM, sb, NULL),
	R(NULL, "nlink", U_NUM, nlink, NULL),
	R(NULL, "depth", U_NUM, depth, NULL),
	R(NULL, "result", U_NUM, result, NULL),
	R(NULL, "holder", U_HOLDER, holder, NULL),
	R(NULL, "wait_ns", U_DUR, dur, NULL),
	R(NULL, "hold_ns", U_DUR, dur, NULL),
	R(NULL, "success", U_OK, ok, NULL),
	R(NULL, "woken", U_OK, ok, NULL),
#undef R
};

/* The rule of field f, or -1; found once per event type (a lane row
 * must not pay for string compares). */
static int rule_of(int type, int f)
{
	static signed char rule[EV__COUNT][IX_MAX_FIELDS];
	static bool known;
	for (int k = 0; !known && k < EV__COUNT; k++)
		for (int g = 0; g < IX_MAX_FIELDS; g++) {
			const struct ix_field *fd = &ix_schemas[k].fields[g];
			rule[k][g] = -1;
			for (int r = 0; fd->name && fd->slot != SL_SIDE && fd->slot != SL_STRID &&
					r < (int)(sizeof(rules) / sizeof(rules[0]));
			     r++)
				if (rules[r].type ? !strcmp(fd->type, rules[r].type) :
						    !strcmp(fd->name, rules[r].name)) {
					rule[k][g] = (signed char)r;
					break;
				}
		}
	known = true;
	return rule[type][f];
}

/* A field's value as a signed number, by its C type. */
static int64_t field_num(const struct trace_index *ix, const struct ix_event *e,
			 const struct ix_field *f)
{
	uint64_t v = field_value(ix, e, f);
	if (!strcmp(f->type, "int16_t"))
		return (int16_t)v;
	if (!strcmp(f->type, "int32_t"))
		return (int32_t)v;
	return (int64_t)v;
}

/* Event e (its inode or lock instance: id) as lib/evtext.c reads it. */
static void describe(const struct trace_index *ix, const struct ix_event *e, uint64_t id,
		     struct ev_desc *d, struct desc_text *t)
{
	memset(d, 0, sizeof(*d));
	d->type = e->type;
	d->id = id;
	for (int f = 0; e->type < EV__COUNT && f < IX_MAX_FIELDS; f++) {
		int r = rule_of(e->type, f);
		if (r < 0)
			continue;
		const struct field_rule *u = &rules[r];
		int64_t v = field_num(ix, e, &ix_schemas[e->type].fields[f]);
		void *at = (char *)d + u->off;
		switch (u->use) {
		case U_NUM:
			*(int64_t *)at = v;
			break;
		case U_CLASS: /* the class's number too, for its lane name */
			d->cls = (int)v;
			/* fall through */
		case U_LABEL:
			*(const char **)at = u->label((int)v);
			break;
		case U_FLAGS: {
			char *buf = u->off == offsetof(struct ev_desc, old_flags) ? t->old_flags :
										    t->new_flags;
			*(const char **)at =
				state_flags_str((uint32_t)v, 1, buf, sizeof(t->old_flags));
			break;
		}
		case U_HOLDER: /* -1: none, it was let go between the try and the look */
			d->holder = v >= 0 ? thread_name(ix, (unsigned)v) : NULL;
			break;
		case U_DUR:
			d->dur = fmt_dur(v, t->dur, sizeof(t->dur));
			break;
		case U_OK:
			d->ok = v != 0;
			break;
		}
	}
}

/* Any event, from its fields in the table: "NAME field=value ..." (full)
 * or "TEXT value ..." (brief; the CPU is the lane's). */
static void generic_text(const struct trace_index *ix, const struct ix_event *e, bool brief,
			 char *buf, size_t len)
{
	const struct ix_schema *sc = &ix_schemas[e->type];
	size_t o = (size_t)snprintf(buf, len, "%s", brief ? sc->text : sc->name);
	for (int f = 0; f < IX_MAX_FIELDS && sc->fields[f].name && o < len; f++) {
		const struct ix_field *fd = &sc->fields[f];
		char v[96];
		if (fd->slot == SL_SIDE ||
		    (brief && (fd->slot == SL_CPU || fd->slot == SL_SRC || fd->slot == SL_LINE)))
			continue;
		field_text(ix, e, fd, v, sizeof(v));
		o += (size_t)snprintf(buf + o, len - o, brief ? " %s" : " %s=%s",
				      brief ? v : fd->name, v);
	}
}

/* Put "…" before the token tail in buf: the lane shows a number's
 * last digits, and says they are only its last digits. */
static void mark_tail(char *buf, size_t len, uint64_t tail)
{
	char t[24];
	int tl = snprintf(t, sizeof(t), "%" PRIu64, tail);
	for (char *p = strstr(buf, t); p; p = strstr(p + 1, t)) {
		if ((p > buf && p[-1] != ' ') || (p[tl] && p[tl] != ' '))
			continue;
		size_t rest = strlen(p) + 1;
		if ((size_t)(p - buf) + rest + 3 > len)
			return;
		memmove(p + 3, p, rest);
		memcpy(p, "\xe2\x80\xa6", 3); /* … */
		return;
	}
}

void event_text(const struct trace_index *ix, uint64_t i, bool brief, char *buf, size_t len)
{
	const struct ix_event *e = &ix->ev[i];
	uint64_t id = ix_id_value(ix, e->obj);
	/* In a lane, an inode number keeps its last 5 digits after a "…"
	 * (the details line below the lanes has it whole). */
	bool tail = brief && id >= 100000;
	if (tail)
		id %= 100000;
	struct ev_desc d;
	struct desc_text t;
	describe(ix, e, id, &d, &t);
	if (ev_text(&d, brief ? EVT_LANE : EVT_DETAILS, buf, len) ||
	    trace_only_text(ix, e, brief, buf, len)) {
		if (tail)
			mark_tail(buf, len, id);
		return;
	}
	if (e->type < EV__COUNT && ix_schemas[e->type].name)
		generic_text(ix, e, brief, buf, len);
	else
		snprintf(buf, len, "%s", ev_type_name(e->type));
}

const char *event_field(const struct trace_index *ix, uint64_t i, int f, char *buf, size_t len)
{
	const struct ix_event *e = &ix->ev[i];
	if (e->type >= EV__COUNT || f < 0 || f >= IX_MAX_FIELDS)
		return NULL;
	const struct ix_field *fd = &ix_schemas[e->type].fields[f];
	if (!fd->name)
		return NULL;
	if (fd->slot == SL_SIDE)
		buf[0] = 0; /* kept in a side table (violation, run_begin) */
	else
		field_text(ix, e, fd, buf, len);
	return fd->name;
}

const char *lock_class_short(int cls)
{
	static char buf[4][32];
	static unsigned next;
	return ev_class_short(lock_class_label(cls), buf[next++ & 3], sizeof(buf[0]));
}
