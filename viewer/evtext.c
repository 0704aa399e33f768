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
#include <stdio.h>
#include <string.h>

#include "viewer/evtext.h"
#include "viewer/report.h"
#include "viewer/threads.h"

/* inode_hash_lock -> hash, inode_sb_list_lock -> sb_list, i_lock stays. */
static const char *short_class(int cls)
{
	static char buf[4][32];
	static unsigned next;
	const char *n = lock_class_label(cls);
	if (!strcmp(n, "i_lock") || !strcmp(n, "inode_lock"))
		return n; /* shortened, 2.6.36's lock would read "lock" */
	char *p = buf[next++ & 3];
	snprintf(p, sizeof(buf[0]), "%s", strncmp(n, "inode_", 6) ? n : n + 6);
	size_t l = strlen(p);
	if (l > 5 && !strcmp(p + l - 5, "_lock"))
		p[l - 5] = 0;
	return p;
}

/*
 * The lock events; false if e is not one of them.  Brief (a lane): a word,
 * the short class and the event's figure, "HOLD i_lock 42", "WAIT hash
 * cpu1".  Full (the details line): the event's name, the lock, the site
 * and the figure in words, "lock_acquired i_lock inst=42 at iput, waited
 * 1.2us".
 */
static bool lock_text(const struct trace_index *ix, const struct ix_event *e, uint64_t id,
		      bool brief, char *buf, size_t len)
{
	static const struct {
		int type;
		const char *word;
	} words[] = { { EV_lock_acquire, "acq" },
		      { EV_lock_contended, "WAIT" },
		      { EV_lock_acquired, "HOLD" },
		      { EV_lock_release, "rel" },
		      { EV_lock_trylock, "trylock" } };
	const char *word = NULL;
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (words[k].type == e->type)
			word = words[k].word;
	if (!word)
		return false;
	char fig[48], tail[64] = "", d[32];
	int holder = (int)(int16_t)e->val;
	snprintf(fig, sizeof(fig), "%" PRIu64, id);
	if (e->type == EV_lock_contended) {
		/* -1: the holder let it go between our try and our look */
		const char *who = holder >= 0 ? thread_name(ix, (unsigned)holder) : "free";
		snprintf(fig, sizeof(fig), "%s", who);
		snprintf(tail, sizeof(tail), holder >= 0 ? ", held by %s" : ", released just then",
			 who);
	} else if (e->type == EV_lock_acquired || e->type == EV_lock_release) {
		snprintf(tail, sizeof(tail), ", %s %s",
			 e->type == EV_lock_acquired ? "waited" : "held",
			 fmt_dur((int64_t)e->val, d, sizeof(d)));
	} else if (e->type == EV_lock_trylock) {
		snprintf(fig, sizeof(fig), "%s", e->b ? "ok" : "FAILED");
		snprintf(tail, sizeof(tail), ": %s", e->b ? "success" : "failed");
	}
	if (brief)
		snprintf(buf, len, "%s %s %s", word, short_class(e->a), fig);
	else
		snprintf(buf, len, "%s %s inst=%" PRIu64 " at %s%s", ev_type_name(e->type),
			 lock_class_label(e->a), id, site_label(e->site), tail);
	return true;
}

/* The inode events; false if e is not one of them. */
static bool inode_text(const struct trace_index *ix, const struct ix_event *e, uint64_t id,
		       bool brief, char *buf, size_t len)
{
	char f1[96], f2[96];
	switch (e->type) {
	case EV_inode_state:
		state_flags_str((uint32_t)(e->val >> 32), 1, f1, sizeof(f1));
		state_flags_str((uint32_t)e->val, 1, f2, sizeof(f2));
		if (brief)
			snprintf(buf, len, "state %" PRIu64 " %s>%s", id, f1, f2);
		else
			snprintf(buf, len, "inode_state ino=%" PRIu64 " %s -> %s at %s", id, f1, f2,
				 site_label(e->site));
		break;
	case EV_inode_ref:
		if (brief)
			snprintf(buf, len, "ref %" PRIu64 " %d>%d", id,
				 (int)(int32_t)(e->val >> 32), (int)(int32_t)e->val);
		else
			snprintf(buf, len, "inode_ref ino=%" PRIu64 " i_count %d -> %d at %s", id,
				 (int)(int32_t)(e->val >> 32), (int)(int32_t)e->val,
				 site_label(e->site));
		break;
	case EV_inode_list:
		if (brief)
			snprintf(buf, len, "%s %s %" PRIu64, list_action_label(e->b),
				 list_label(e->a), id);
		else
			snprintf(buf, len, "inode_list %s %s ino=%" PRIu64 " at %s",
				 list_action_label(e->b), list_label(e->a), id,
				 site_label(e->site));
		break;
	case EV_inode_alloc:
		if (brief)
			snprintf(buf, len, "ALLOC %" PRIu64, id);
		else
			snprintf(buf, len, "inode_alloc ino=%" PRIu64 " sb=%u nlink=%u", id,
				 (unsigned)(e->val >> 32), (unsigned)e->val);
		break;
	case EV_inode_free:
		snprintf(buf, len, "%s%" PRIu64 " sb=%u", brief ? "FREE " : "inode_free ino=", id,
			 (unsigned)e->val);
		break;
	case EV_inode_nlink:
		snprintf(buf, len, "%s%" PRIu64 " nlink=%u",
			 brief ? "nlink " : "inode_nlink ino=", id, (unsigned)e->val);
		break;
	case EV_inode_pages:
		if (brief)
			snprintf(buf, len, "pages %" PRIu64 " %d>%d", id,
				 (int)(int32_t)(e->val >> 32), (int)(int32_t)e->val);
		else
			snprintf(buf, len, "inode_pages ino=%" PRIu64 " nrpages %d -> %d at %s", id,
				 (int)(int32_t)(e->val >> 32), (int)(int32_t)e->val,
				 site_label(e->site));
		break;
	default:
		return false;
	}
	return true;
}

/* Sleeps on an inode's state; false if e is not one of them. */
static bool wait_text(const struct trace_index *ix, const struct ix_event *e, uint64_t id,
		      bool brief, char *buf, size_t len)
{
	char f[96];
	switch (e->type) {
	case EV_inode_wait:
		state_flags_str((uint32_t)e->val, 1, f, sizeof(f));
		if (brief)
			snprintf(buf, len, "SLEEP on %" PRIu64 " %s", id, f);
		else
			snprintf(buf, len, "inode_wait ino=%" PRIu64 " sleeps on i_state %s at %s",
				 id, f, site_label(e->site));
		break;
	case EV_inode_wait_end:
		if (brief)
			snprintf(buf, len, "%s %" PRIu64, e->b ? "WOKEN" : "NOT WOKEN", id);
		else
			snprintf(buf, len, "inode_wait_end ino=%" PRIu64 " %s at %s", id,
				 e->b ? "woken" : "gave up, never woken", site_label(e->site));
		break;
	default:
		return false;
	}
	return true;
}

/* Operations, the scheduler, the validator, the run and losses; false if e is not one of them. */
static bool other_text(const struct trace_index *ix, const struct ix_event *e, uint64_t id,
		       bool brief, char *buf, size_t len)
{
	switch (e->type) {
	case EV_op_begin:
		snprintf(buf, len, "%s %s %" PRIu64, brief ? "{" : "op_begin", op_label(e->a), id);
		break;
	case EV_op_end:
		snprintf(buf, len, "%s %s %" PRIu64 " = %" PRId64, brief ? "}" : "op_end",
			 op_label(e->a), id, (int64_t)e->val);
		break;
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
		return wait_text(ix, e, id, brief, buf, len);
	}
	return true;
}

/* The value of field f of e, from where the index keeps it. */
static uint64_t field_value(const struct trace_index *ix, const struct ix_event *e,
			    const struct ix_field *f)
{
	switch (f->slot) {
	case SL_CPU:
		return e->cpu;
	case SL_A:
		return e->a;
	case SL_B:
		return e->b;
	case SL_SITE:
		return e->site;
	case SL_OBJ:
		return ix_id_value(ix, e->obj);
	case SL_VAL:
		return e->val;
	case SL_HI:
		return e->val >> 32;
	case SL_LO:
		return e->val & 0xffffffffu;
	case SL_RAW:
		return e->obj;
	case SL_SRC:
		return e->src;
	case SL_LINE:
		return e->line;
	case SL_LIFE:
		return e->life;
	case SL_STRID:
	case SL_SIDE:
		break;
	}
	return 0;
}

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
	if (lock_text(ix, e, id, brief, buf, len) || inode_text(ix, e, id, brief, buf, len) ||
	    other_text(ix, e, id, brief, buf, len)) {
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
	return short_class(cls);
}
