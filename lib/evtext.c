/*
 * evtext.c - ONE wording of an event (see evtext.h).
 *
 * A case per kind of event, its three styles side by side, so that the
 * lanes, the details line and the scheduler's step line of one event are
 * read (and changed) together.
 */
#include "lib/evtext.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tracepoints/icache_enums.h"
#include "tracepoints/icache_events.h"

#define ROW_NAME(name, sched, text) #name,
static const char *const ev_names[] = { ICACHE_EVENTS(ROW_NAME) };
#undef ROW_NAME

static const char *type_name(int type)
{
	return type >= 0 && type < NR_ICACHE_EVENTS ? ev_names[type] : "?";
}

const char *ev_class_short(const char *n, char *buf, size_t len)
{
	if (!strcmp(n, "i_lock") || !strcmp(n, "inode_lock"))
		return n; /* shortened, 2.6.36's lock would read "lock" */
	snprintf(buf, len, "%s", strncmp(n, "inode_", 6) ? n : n + 6);
	size_t l = strlen(buf);
	if (l > 5 && !strcmp(buf + l - 5, "_lock"))
		buf[l - 5] = 0;
	return buf;
}

void ev_lock_words(int cls, const char *name, uint64_t inst, char *buf, size_t len)
{
	unsigned long long n = (unsigned long long)inst;

	if (cls == LC_i_lock)
		snprintf(buf, len, "i_lock inode %llu", n);
	else if (cls == LC_hash_bucket)
		snprintf(buf, len, "hash_bucket %llu", n);
	else if (cls == LC_inode_sb_list_lock && n)
		snprintf(buf, len, "%s sb %llu", name, n - 1);
	else
		snprintf(buf, len, "%s", name);
}

/* The lock events: "HOLD i_lock 42" / "lock_acquired i_lock inst=42 at
 * iput, waited 1.2us" / "cpu0 acquired i_lock inode 42 in iput". */
static bool lock_text(const struct ev_desc *d, enum ev_style st, char *buf, size_t len)
{
	static const struct {
		int type;
		const char *word;
	} words[] = { { ICACHE_EV_lock_acquire, "acq" },
		      { ICACHE_EV_lock_contended, "WAIT" },
		      { ICACHE_EV_lock_acquired, "HOLD" },
		      { ICACHE_EV_lock_release, "rel" },
		      { ICACHE_EV_lock_trylock, "trylock" } };
	const char *word = NULL;
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (words[k].type == d->type)
			word = words[k].word;
	if (!word)
		return false;
	char lock[96], fig[48], tail[64] = "", sh[32];
	bool failed = d->type == ICACHE_EV_lock_trylock && !d->ok;
	if (st == EVT_STEP) {
		ev_lock_words(d->cls, d->cls_name, d->id, lock, sizeof(lock));
		if (failed)
			snprintf(buf, len, "%s trylock-failed %s in %s (held by %s)", d->who, lock,
				 d->site, d->holder ? d->holder : "?");
		else
			snprintf(buf, len, "%s %s %s in %s", d->who, d->verb, lock, d->site);
		return true;
	}
	snprintf(fig, sizeof(fig), "%" PRIu64, d->id);
	if (d->type == ICACHE_EV_lock_contended) {
		/* no holder: it let go between our try and our look */
		snprintf(fig, sizeof(fig), "%s", d->holder ? d->holder : "free");
		snprintf(tail, sizeof(tail), d->holder ? ", held by %s" : ", released just then",
			 fig);
	} else if (d->type == ICACHE_EV_lock_acquired || d->type == ICACHE_EV_lock_release) {
		snprintf(tail, sizeof(tail), ", %s %s",
			 d->type == ICACHE_EV_lock_acquired ? "waited" : "held", d->dur);
	} else if (d->type == ICACHE_EV_lock_trylock) {
		snprintf(fig, sizeof(fig), "%s", failed ? "FAILED" : "ok");
		snprintf(tail, sizeof(tail), ": %s", failed ? "failed" : "success");
	}
	if (st == EVT_LANE)
		snprintf(buf, len, "%s %s %s", word, ev_class_short(d->cls_name, sh, sizeof(sh)),
			 fig);
	else
		snprintf(buf, len, "%s %s inst=%" PRIu64 " at %s%s", type_name(d->type),
			 d->cls_name, d->id, d->site, tail);
	return true;
}

/* An inode's value changing at a site: state, ref and pages. */
static bool change_text(const struct ev_desc *d, enum ev_style st, char *buf, size_t len)
{
	static const struct {
		int type;
		const char *lane, *what, *step; /* what: the details' name of the value */
	} kinds[] = { { ICACHE_EV_inode_state, "state", "", "state" },
		      { ICACHE_EV_inode_ref, "ref", "i_count ", "ref" },
		      { ICACHE_EV_inode_pages, "pages", "nrpages ", "pages" } };
	int k = -1;
	for (int i = 0; i < (int)(sizeof(kinds) / sizeof(kinds[0])); i++)
		if (kinds[i].type == d->type)
			k = i;
	if (k < 0)
		return false;
	char na[24], nb[24];
	const char *a = d->old_flags, *b = d->new_flags;
	if (d->type != ICACHE_EV_inode_state) {
		snprintf(na, sizeof(na), "%" PRId64, d->before);
		snprintf(nb, sizeof(nb), "%" PRId64, d->after);
		a = na;
		b = nb;
	}
	if (st == EVT_LANE)
		snprintf(buf, len, "%s %" PRIu64 " %s>%s", kinds[k].lane, d->id, a, b);
	else if (st == EVT_DETAILS)
		snprintf(buf, len, "%s ino=%" PRIu64 " %s%s -> %s at %s", type_name(d->type), d->id,
			 kinds[k].what, a, b, d->site);
	else
		snprintf(buf, len, "%s %s inode %" PRIu64 ": %s -> %s in %s", d->who, kinds[k].step,
			 d->id, a, b, d->site);
	return true;
}

/* The inode's other events: lists, birth, death, links. */
static bool inode_text(const struct ev_desc *d, enum ev_style st, char *buf, size_t len)
{
	bool lane = st == EVT_LANE, step = st == EVT_STEP;
	const char *name = type_name(d->type);
	switch (d->type) {
	case ICACHE_EV_inode_list:
		if (step)
			snprintf(buf, len, "%s %s %s inode %" PRIu64 " in %s", d->who, d->action,
				 d->list, d->id, d->site);
		else if (lane)
			snprintf(buf, len, "%s %s %" PRIu64, d->action, d->list, d->id);
		else
			snprintf(buf, len, "%s %s %s ino=%" PRIu64 " at %s", name, d->action,
				 d->list, d->id, d->site);
		break;
	case ICACHE_EV_inode_alloc:
		if (step)
			snprintf(buf, len, "%s alloc inode %" PRIu64 " (sb %" PRId64 ")", d->who,
				 d->id, d->sb);
		else if (lane)
			snprintf(buf, len, "ALLOC %" PRIu64, d->id);
		else
			snprintf(buf, len, "%s ino=%" PRIu64 " sb=%" PRId64 " nlink=%" PRId64, name,
				 d->id, d->sb, d->nlink);
		break;
	case ICACHE_EV_inode_free:
		if (step)
			snprintf(buf, len, "%s free inode %" PRIu64, d->who, d->id);
		else
			snprintf(buf, len, "%s%" PRIu64 " sb=%" PRId64,
				 lane ? "FREE " : "inode_free ino=", d->id, d->sb);
		break;
	case ICACHE_EV_inode_nlink:
		if (step)
			snprintf(buf, len, "%s nlink inode %" PRIu64 " -> %" PRId64, d->who, d->id,
				 d->nlink);
		else
			snprintf(buf, len, "%s%" PRIu64 " nlink=%" PRId64,
				 lane ? "nlink " : "inode_nlink ino=", d->id, d->nlink);
		break;
	default:
		return false;
	}
	return true;
}

/* Sleeps on an inode's state (the trace's words only: a step parks). */
static bool wait_text(const struct ev_desc *d, enum ev_style st, char *buf, size_t len)
{
	if (st == EVT_STEP)
		return false;
	bool lane = st == EVT_LANE;
	switch (d->type) {
	case ICACHE_EV_inode_wait:
		if (lane)
			snprintf(buf, len, "SLEEP on %" PRIu64 " %s", d->id, d->new_flags);
		else
			snprintf(buf, len, "inode_wait ino=%" PRIu64 " sleeps on i_state %s at %s",
				 d->id, d->new_flags, d->site);
		break;
	case ICACHE_EV_inode_wait_end:
		if (lane)
			snprintf(buf, len, "%s %" PRIu64, d->ok ? "WOKEN" : "NOT WOKEN", d->id);
		else
			snprintf(buf, len, "inode_wait_end ino=%" PRIu64 " %s at %s", d->id,
				 d->ok ? "woken" : "gave up, never woken", d->site);
		break;
	default:
		return false;
	}
	return true;
}

/* Operations, RCU and wake-ups. */
static bool other_text(const struct ev_desc *d, enum ev_style st, char *buf, size_t len)
{
	bool step = st == EVT_STEP, lane = st == EVT_LANE;
	switch (d->type) {
	case ICACHE_EV_op_begin:
		if (step)
			snprintf(buf, len, "%s begin %s", d->who, d->op);
		else
			snprintf(buf, len, "%s %s %" PRIu64, lane ? "{" : "op_begin", d->op, d->id);
		return true;
	case ICACHE_EV_op_end:
		if (step)
			snprintf(buf, len, "%s end %s (result %" PRId64 ")", d->who, d->op,
				 d->result);
		else
			snprintf(buf, len, "%s %s %" PRIu64 " = %" PRId64, lane ? "}" : "op_end",
				 d->op, d->id, d->result);
		return true;
	}
	if (!step) /* the viewer writes these from the event table */
		return false;
	switch (d->type) {
	case ICACHE_EV_rcu_read_lock:
	case ICACHE_EV_rcu_read_unlock:
		snprintf(buf, len, "%s %s (depth %" PRId64 ") in %s", d->who, d->verb, d->depth,
			 d->site);
		return true;
	case ICACHE_EV_inode_rcu_free:
		snprintf(buf, len,
			 "%s queues inode %" PRIu64 " for freeing after a grace period (call_rcu)",
			 d->who, d->id);
		return true;
	case EVD_WAKE:
		snprintf(buf, len, "%s wake inode %" PRIu64, d->who, d->id);
		return true;
	}
	return false;
}

bool ev_text(const struct ev_desc *d, enum ev_style st, char *buf, size_t len)
{
	if (lock_text(d, st, buf, len) || change_text(d, st, buf, len) ||
	    inode_text(d, st, buf, len) || wait_text(d, st, buf, len) ||
	    other_text(d, st, buf, len))
		return true;
	if (st != EVT_STEP)
		return false;
	snprintf(buf, len, "%s ?", d->who);
	return true;
}
