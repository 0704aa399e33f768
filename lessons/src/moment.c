/*
 * moment.c - parsing moment selectors and finding them in a trace.
 *
 * The words follow the scenario files' schedule lines ("cpu0 until release
 * i_lock in iput_final"), so a teacher writes a moment the same way in a
 * lesson and in a scenario.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/src/moment.h"
#include "viewer/names.h"

#define MAX_WORDS 24

static int split_words(char *s, char **w)
{
	int n = 0;
	for (char *p = strtok(s, " \t,"); p && n < MAX_WORDS; p = strtok(NULL, " \t,"))
		w[n++] = p;
	return n;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	if (!s || !isdigit((unsigned char)*s))
		return false;
	char *end;
	unsigned long long x = strtoull(s, &end, 10);
	if (*end)
		return false;
	*v = x;
	return true;
}

/* first, second, ..., last, 1st, 2nd, 3rd, 4th ... */
static bool parse_ordinal(const char *s, int *nth)
{
	static const char *const words[] = { "first", "second",  "third",  "fourth", "fifth",
					     "sixth", "seventh", "eighth", "ninth",  "tenth" };
	for (int i = 0; i < 10; i++)
		if (strcmp(s, words[i]) == 0) {
			*nth = i + 1;
			return true;
		}
	if (strcmp(s, "last") == 0) {
		*nth = -1;
		return true;
	}
	char *end;
	long v = strtol(s, &end, 10);
	if (end != s && v > 0 && v < 1000000 &&
	    (strcmp(end, "st") == 0 || strcmp(end, "nd") == 0 || strcmp(end, "rd") == 0 ||
	     strcmp(end, "th") == 0)) {
		*nth = (int)v;
		return true;
	}
	return false;
}

static int list_by_name(const char *s)
{
	for (int i = 0; i < nr_list_labels(); i++)
		if (strcmp(s, list_label(i)) == 0)
			return i;
	return -1;
}

static int op_by_name(const char *s)
{
	/* The scenario files' operation names, as the trace records them
	 * (lock and unlock are both "test" in a trace, so neither is an
	 * alias: say "test", or name the lock event instead). */
	static const struct {
		const char *scn, *op;
	} alias[] = { { "deactivate", "umount" },     { "invalidate", "umount" },
		      { "mark-dirty", "mark_dirty" }, { "iget-locked", "iget" },
		      { "unlock-new", "iget" },       { "ihold", "igrab" } };
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (strcmp(s, alias[i].scn) == 0)
			s = alias[i].op;
	for (int i = 0; i < nr_op_labels(); i++)
		if (strcmp(s, op_label(i)) == 0)
			return i;
	return -1;
}

static int viol_by_name(const char *s)
{
	for (int i = 0; i < nr_violation_labels(); i++)
		if (strcmp(s, violation_label(i)) == 0)
			return i;
	return -1;
}

static int action_by_name(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(s, list_action_label(i)) == 0)
			return i;
	return -1;
}

static bool parse_cpu(const char *s, int *cpu)
{
	uint64_t v;
	if (strncmp(s, "cpu", 3) == 0)
		s += 3;
	if (!parse_u64(s, &v) || v > 255)
		return false;
	*cpu = (int)v;
	return true;
}

/* The words that start a qualifier, after which a verb's argument ends. */
static bool is_qual(const char *w)
{
	static const char *const q[] = { "in", "on", "inode", "of", "times", "after" };
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		if (strcmp(w, q[i]) == 0)
			return true;
	return false;
}

/* The lock verbs and the event each names. */
static const struct {
	const char *word;
	int type;
	int trylock_ok;
} lock_verbs[] = {
	{ "acquire", EV_lock_acquire, -1 },       { "contended", EV_lock_contended, -1 },
	{ "acquired", EV_lock_acquired, -1 },     { "take", EV_lock_acquired, -1 },
	{ "lock", EV_lock_acquired, -1 },         { "release", EV_lock_release, -1 },
	{ "unlock", EV_lock_release, -1 },        { "trylock", EV_lock_trylock, -1 },
	{ "trylock-ok", EV_lock_trylock, 1 },     { "trylock-fail", EV_lock_trylock, 0 },
	{ "trylock-failed", EV_lock_trylock, 0 }, /* the scenario word */
};

static bool fail(char *err, size_t len, const char *fmt, const char *a)
{
	snprintf(err, len, fmt, a);
	return false;
}

/* The verb and its argument, from w[*i] on; advances *i. */
static bool parse_verb(char **w, int n, int *i, struct moment *m, char *err, size_t len)
{
	const char *v = w[(*i)++];
	/* (v may be re-pointed below for the scenario spellings) */
	const char *arg = *i < n ? w[*i] : NULL;

	for (size_t k = 0; k < sizeof(lock_verbs) / sizeof(lock_verbs[0]); k++) {
		if (strcmp(v, lock_verbs[k].word) != 0)
			continue;
		m->type = lock_verbs[k].type;
		m->trylock_ok = lock_verbs[k].trylock_ok;
		if (arg && !is_qual(arg)) {
			m->cls = lock_class_by_name(arg);
			if (m->cls < 0)
				return fail(
					err, len,
					"'%s' is not a lock class (i_lock, inode_lru_lock, ...)",
					arg);
			(*i)++;
		}
		return true;
	}
	/* The scenario files' words: "state I_FREEING", "list add lru". */
	if (strcmp(v, "state") == 0)
		v = "set";
	if (strcmp(v, "list") == 0 && arg && action_by_name(arg) >= 0) {
		v = w[(*i)++];
		arg = *i < n ? w[*i] : NULL;
	}
	if (strcmp(v, "set") == 0 || strcmp(v, "clear") == 0) {
		m->type = EV_inode_state;
		m->flag_set = v[0] == 's';
		if (!arg)
			return fail(err, len, "'%s' needs a flag (I_FREEING, ...)", v);
		m->flag_bit = state_flag_by_name(arg);
		if (m->flag_bit < 0)
			return fail(err, len, "'%s' is not an i_state flag", arg);
		(*i)++;
		return true;
	}
	int act = action_by_name(v);
	if (act >= 0) {
		m->type = EV_inode_list;
		m->action = act;
		if (arg) {
			m->list = list_by_name(arg);
			if (m->list >= 0)
				(*i)++;
			else if (!is_qual(arg))
				return fail(err, len,
					    "'%s' is not a list (hash, sb, lru, b_dirty, ...)",
					    arg);
		}
		return true;
	}
	if (strcmp(v, "ref") == 0 || strcmp(v, "nlink") == 0) {
		m->type = v[0] == 'r' ? EV_inode_ref : EV_inode_nlink;
		uint64_t c;
		if (arg && parse_u64(arg, &c)) {
			m->has_count = true;
			m->count = (int64_t)c;
			(*i)++;
		}
		return true;
	}
	if (strcmp(v, "alloc") == 0 || strcmp(v, "free") == 0) {
		m->type = v[0] == 'a' ? EV_inode_alloc : EV_inode_free;
		return true;
	}
	if (strcmp(v, "begin") == 0 || strcmp(v, "end") == 0) {
		m->type = v[0] == 'b' ? EV_op_begin : EV_op_end;
		if (arg && (m->op = op_by_name(arg)) >= 0)
			(*i)++;
		else if (arg && !is_qual(arg))
			return fail(err, len, "'%s' is not an operation (iget, iput, unlink, ...)",
				    arg);
		return true;
	}
	if (strcmp(v, "violation") == 0) {
		m->type = EV_violation;
		if (arg && (m->viol = viol_by_name(arg)) >= 0)
			(*i)++;
		else if (arg && !is_qual(arg))
			return fail(err, len, "'%s' is not a violation kind", arg);
		return true;
	}
	return fail(
		err, len,
		"unknown moment '%s' (want start, end, step N, event N, or a verb: acquire, acquired, release, trylock-fail, set, clear, add, del, rotate, ref, alloc, free, begin, end, violation)",
		v);
}

bool moment_parse(const char *text, struct moment *m, char *err, size_t len)
{
	char buf[512];
	char *w[MAX_WORDS];
	memset(m, 0, sizeof(*m));
	m->type = m->cls = m->site = m->cpu = m->flag_bit = -1;
	m->list = m->action = m->op = m->viol = m->trylock_ok = -1;
	m->nth = 1;
	if (!text || strlen(text) >= sizeof(buf))
		return fail(err, len, "%s", text ? "moment too long" : "empty moment");
	snprintf(buf, sizeof(buf), "%s", text);
	int n = split_words(buf, w);
	if (n == 0)
		return fail(err, len, "%s", "empty moment");
	int i = 0;

	if (n == 1 && strcmp(w[0], "start") == 0) {
		m->kind = M_START;
		return true;
	}
	if (n == 1 && strcmp(w[0], "end") == 0) {
		m->kind = M_END;
		return true;
	}
	if (n == 2 && (strcmp(w[0], "step") == 0 || strcmp(w[0], "event") == 0)) {
		if (!parse_u64(w[1], &m->number))
			return fail(err, len, "'%s' is not a number", w[1]);
		m->kind = w[0][0] == 's' ? M_STEP : M_EVENT;
		return true;
	}
	m->kind = M_SELECT;
	if (parse_ordinal(w[0], &m->nth))
		i++;
	if (i >= n)
		return fail(err, len, "%s", "an ordinal needs an event after it");
	if (!parse_verb(w, n, &i, m, err, len))
		return false;
	while (i < n) {
		const char *q = w[i++];
		const char *a = i < n ? w[i] : NULL;
		if (strcmp(q, "in") == 0) {
			if (!a)
				return fail(err, len, "%s", "'in' needs a function name");
			m->site = site_by_name(a);
			if (m->site < 0)
				return fail(
					err, len,
					"'%s' is not a call site (iput_final, prune_icache, ...)",
					a);
			i++;
		} else if (strcmp(q, "on") == 0) {
			if (!a || !parse_cpu(a, &m->cpu))
				return fail(err, len, "'on' needs a CPU like cpu0, not '%s'",
					    a ? a : "");
			i++;
		} else if (strcmp(q, "inode") == 0 || strcmp(q, "of") == 0) {
			if (q[0] == 'o' && a && strcmp(a, "inode") == 0)
				a = ++i < n ? w[i] : NULL;
			if (!a || !parse_u64(a, &m->ino))
				return fail(err, len,
					    "'inode' (or 'of inode') needs a number, not '%s'",
					    a ? a : "");
			m->has_ino = true;
			i++;
		} else if (strcmp(q, "times") == 0) {
			uint64_t t;
			if (!a || !parse_u64(a, &t) || t == 0 || t > 1000000)
				return fail(err, len, "'times' needs a count, not '%s'",
					    a ? a : "");
			m->nth = (int)t;
			i++;
		} else if (strcmp(q, "after") == 0) {
			if (!a || strcmp(a, "step") || i + 1 >= n ||
			    !parse_u64(w[i + 1], &m->after_step))
				return fail(err, len, "%s", "'after' wants 'step N'");
			m->has_after = true;
			i += 2;
		} else {
			return fail(
				err, len,
				"unexpected '%s' (qualifiers: in SITE, on cpuN, inode N, times N, after step N)",
				q);
		}
	}
	return true;
}

bool moment_match_event(const struct moment *m, const struct ix_event *e, uint64_t obj_value)
{
	if (m->kind != M_SELECT || e->type != m->type)
		return false;
	if (m->cpu >= 0 && e->cpu != m->cpu)
		return false;
	if (m->site >= 0 && e->site != m->site)
		return false;
	switch (e->type) {
	case EV_lock_acquire:
	case EV_lock_contended:
	case EV_lock_acquired:
	case EV_lock_release:
	case EV_lock_trylock:
		if (m->cls >= 0 && e->a != m->cls)
			return false;
		if (m->trylock_ok >= 0 && e->b != m->trylock_ok)
			return false;
		/* "inode N" on an i_lock: the instance is the inode number */
		if (m->has_ino && obj_value != m->ino)
			return false;
		return true;
	case EV_inode_state: {
		uint32_t old = (uint32_t)(e->val >> 32), nw = (uint32_t)e->val;
		uint32_t f = 1u << m->flag_bit;
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
		if (m->has_count && (int32_t)(uint32_t)e->val != m->count)
			return false;
		return !m->has_ino || obj_value == m->ino;
	case EV_inode_nlink:
		if (m->has_count && (int64_t)e->val != m->count)
			return false;
		return !m->has_ino || obj_value == m->ino;
	case EV_inode_alloc:
	case EV_inode_free:
		return !m->has_ino || obj_value == m->ino;
	case EV_op_begin:
	case EV_op_end:
		if (m->op >= 0 && e->a != m->op)
			return false;
		return !m->has_ino || obj_value == m->ino;
	case EV_violation:
		return m->viol < 0 || e->a == m->viol;
	default:
		return false;
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

void moment_describe_event(const struct ix_event *e, uint64_t obj_value, char *buf, size_t len)
{
	char who[16];
	if (e->cpu == IX_NO_CPU)
		snprintf(who, sizeof(who), "main");
	else
		snprintf(who, sizeof(who), "cpu%u", e->cpu);
	switch (e->type) {
	case EV_lock_acquire:
	case EV_lock_contended:
	case EV_lock_acquired:
	case EV_lock_release:
		snprintf(buf, len, "%s %s %s #%llu in %s", who,
			 e->type == EV_lock_acquire   ? "acquire" :
			 e->type == EV_lock_contended ? "contended" :
			 e->type == EV_lock_acquired  ? "acquired" :
							"release",
			 lock_class_label(e->a), (unsigned long long)obj_value,
			 site_label(e->site));
		break;
	case EV_lock_trylock:
		snprintf(buf, len, "%s trylock %s #%llu in %s: %s", who, lock_class_label(e->a),
			 (unsigned long long)obj_value, site_label(e->site),
			 e->b ? "ok" : "FAILED");
		break;
	case EV_inode_state: {
		char o[96], nw[96];
		state_flags_str((uint32_t)(e->val >> 32), 1, o, sizeof(o));
		state_flags_str((uint32_t)e->val, 1, nw, sizeof(nw));
		snprintf(buf, len, "%s inode %llu state %s -> %s in %s", who,
			 (unsigned long long)obj_value, o, nw, site_label(e->site));
		break;
	}
	case EV_inode_ref:
		snprintf(buf, len, "%s inode %llu i_count %d -> %d in %s", who,
			 (unsigned long long)obj_value, (int)(int32_t)(e->val >> 32),
			 (int)(int32_t)(uint32_t)e->val, site_label(e->site));
		break;
	case EV_inode_list:
		snprintf(buf, len, "%s inode %llu %s %s in %s", who, (unsigned long long)obj_value,
			 list_action_label(e->b), list_label(e->a), site_label(e->site));
		break;
	case EV_inode_alloc:
		snprintf(buf, len, "%s alloc inode %llu", who, (unsigned long long)obj_value);
		break;
	case EV_inode_free:
		snprintf(buf, len, "%s free inode %llu", who, (unsigned long long)obj_value);
		break;
	case EV_inode_nlink:
		snprintf(buf, len, "%s inode %llu nlink %llu", who, (unsigned long long)obj_value,
			 (unsigned long long)e->val);
		break;
	case EV_op_begin:
	case EV_op_end:
		snprintf(buf, len, "%s %s %s inode %llu", who,
			 e->type == EV_op_begin ? "begin" : "end", op_label(e->a),
			 (unsigned long long)obj_value);
		break;
	case EV_sched_step:
		snprintf(buf, len, "step %llu: %s", (unsigned long long)e->val, who);
		break;
	case EV_violation:
		snprintf(buf, len, "%s VIOLATION %s", who, violation_label(e->a));
		break;
	default:
		snprintf(buf, len, "%s %s", who, ev_type_name(e->type));
		break;
	}
}
