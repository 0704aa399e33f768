/*
 * selector.c - the one grammar for naming an event (see selector.h).
 *
 * The vocabulary is tables: the verbs below, and the name lists of
 * tracepoints/icache_names.h (lib/names.h) for classes, sites, lists,
 * operations, violation kinds and i_state flags.  Parsing allocates
 * nothing.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/errmsg.h"
#include "lib/names.h"
#include "lib/num.h"
#include "lib/selector.h"
#include "tracepoints/icache_enums.h"
#include "tracepoints/icache_events.h"

/* What a verb takes after it. */
enum arg { A_NONE, A_CLASS, A_FLAG, A_LIST, A_COUNT, A_OP, A_VIOL };

struct verb {
	const char *word;  /* as written */
	const char *canon; /* the canonical spelling (itself if NULL) */
	int ev, sched;
	enum arg arg;
	int extra; /* trylock: 1 ok / 0 failed; set/clear: 1/0;
				 * list verbs: the action */
};

/* Canonical words first, then the old spellings (kept for one release). */
static const struct verb verbs[] = {
	{ "acquire", NULL, ICACHE_EV_lock_acquire, SEV_acquire, A_CLASS, -1 },
	{ "contended", NULL, ICACHE_EV_lock_contended, -1, A_CLASS, -1 },
	{ "acquired", NULL, ICACHE_EV_lock_acquired, SEV_acquired, A_CLASS, -1 },
	{ "release", NULL, ICACHE_EV_lock_release, SEV_release, A_CLASS, -1 },
	{ "trylock", NULL, ICACHE_EV_lock_trylock, SEV_trylock, A_CLASS, 1 },
	{ "trylock-failed", NULL, ICACHE_EV_lock_trylock, SEV_trylock_failed, A_CLASS, 0 },
	{ "set", NULL, ICACHE_EV_inode_state, SEV_state, A_FLAG, 1 },
	{ "clear", NULL, ICACHE_EV_inode_state, SEV_state, A_FLAG, 0 },
	{ "add", NULL, ICACHE_EV_inode_list, SEV_list, A_LIST, LACT_add },
	{ "del", NULL, ICACHE_EV_inode_list, SEV_list, A_LIST, LACT_del },
	{ "move", NULL, ICACHE_EV_inode_list, SEV_list, A_LIST, LACT_move },
	{ "rotate", NULL, ICACHE_EV_inode_list, SEV_list, A_LIST, LACT_rotate },
	{ "ref", NULL, ICACHE_EV_inode_ref, SEV_ref, A_COUNT, -1 },
	{ "nlink", NULL, ICACHE_EV_inode_nlink, SEV_nlink, A_COUNT, -1 },
	{ "pages", NULL, ICACHE_EV_inode_pages, SEV_pages, A_COUNT, -1 },
	{ "alloc", NULL, ICACHE_EV_inode_alloc, SEV_alloc, A_NONE, -1 },
	{ "free", NULL, ICACHE_EV_inode_free, SEV_free, A_NONE, -1 },
	{ "wake", NULL, -1, SEV_wake, A_NONE, -1 },
	{ "begin", NULL, ICACHE_EV_op_begin, SEV_op_begin, A_OP, -1 },
	{ "end", NULL, ICACHE_EV_op_end, SEV_op_end, A_OP, -1 },
	{ "violation", NULL, ICACHE_EV_violation, -1, A_VIOL, -1 },
	{ "blocked", NULL, -1, -1, A_NONE, -1 },
	/* old spellings */
	{ "take", "acquired", ICACHE_EV_lock_acquired, SEV_acquired, A_CLASS, -1 },
	{ "lock", "acquired", ICACHE_EV_lock_acquired, SEV_acquired, A_CLASS, -1 },
	{ "unlock", "release", ICACHE_EV_lock_release, SEV_release, A_CLASS, -1 },
	{ "trylock-ok", "trylock", ICACHE_EV_lock_trylock, SEV_trylock, A_CLASS, 1 },
	{ "trylock-fail", "trylock-failed", ICACHE_EV_lock_trylock, SEV_trylock_failed, A_CLASS,
	  0 },
	{ "state", "set", ICACHE_EV_inode_state, SEV_state, A_FLAG, 1 },
};

#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/*
 * Any event of the table can also be named by its own name, with no
 * argument ("order_rule", "lock_trylock"): a new event is nameable in
 * both files without a line of parser.
 */
#define SEL_SCHED_SCHED(kind) SEV_##kind
#define SEL_SCHED_NOSCHED -1
#define SEL_ROW(name, sched, text) { #name, NULL, ICACHE_EV_##name, SEL_SCHED_##sched, A_NONE, -1 },
static const struct verb table_verbs[] = { ICACHE_EVENTS(SEL_ROW) };
#undef SEL_ROW

static const struct verb *table_verb(const char *word)
{
	for (int k = 0; k < NELEM(table_verbs); k++)
		if (strcmp(word, table_verbs[k].word) == 0)
			return &table_verbs[k];
	return NULL;
}

int selector_event_word(const char *word)
{
	for (size_t k = 0; k < NVERBS; k++)
		if (strcmp(word, verbs[k].word) == 0)
			return verbs[k].ev;
	const struct verb *v = table_verb(word);
	return v ? v->ev : -1;
}

const char *selector_sched_word(int k)
{
	for (size_t i = 0; i < NVERBS; i++)
		if (verbs[i].sched == k && !verbs[i].canon)
			return verbs[i].word;
	for (int i = 0; i < NELEM(table_verbs); i++)
		if (table_verbs[i].sched == k)
			return table_verbs[i].word;
	return "?";
}

uint32_t selector_class_mask(const char *t)
{
	static const struct {
		const char *alias;
		uint32_t mask;
	} aliases[] = {
		{ "lru_lock", 1u << LC_inode_lru_lock },
		{ "hash_lock", 1u << LC_inode_hash_lock },
		/* "hash": whichever lock guards a hash chain in this era */
		{ "hash", (1u << LC_inode_hash_lock) | (1u << LC_hash_bucket) },
		{ "sb_list_lock", 1u << LC_inode_sb_list_lock },
		{ "wb_list_lock", 1u << LC_inode_wb_list_lock },
		{ "a", 1u << LC_test_lock_a },
		{ "b", 1u << LC_test_lock_b },
		{ "any", 0xffffffffu },
	};
	int c = name_find(&icache_class_names, t);
	if (c >= 0)
		return 1u << c;
	for (int i = 0; i < NELEM(aliases); i++)
		if (strcmp(t, aliases[i].alias) == 0)
			return aliases[i].mask;
	return 0;
}

int selector_site(const char *t)
{
	while (*t == '_') /* __wait_on_freeing_inode */
		t++;
	return name_find(&icache_site_names, t);
}

unsigned selector_flag_bits(const char *t)
{
	static const struct {
		const char *name;
		unsigned bits;
	} flags[] = {
#define F(bit, name) { #name, 1u << (bit) },
		ICACHE_STATE_FLAGS(F)
#undef F
			{ "I_DIRTY", I_DIRTY },
	};
	for (int i = 0; i < NELEM(flags); i++)
		if (strcmp(t, flags[i].name) == 0 || strcmp(t, flags[i].name + 2) == 0)
			return flags[i].bits;
	return 0;
}

/* An operation, by the trace's name or the scenario files' word. */
static int op_index(const char *s)
{
	/* lock and unlock are both "test" in a trace, so neither is an
	 * alias: say "test", or name the lock event instead. */
	static const struct {
		const char *scn, *op;
	} alias[] = { { "deactivate", "umount" },     { "invalidate", "umount" },
		      { "mark-dirty", "mark_dirty" }, { "iget-locked", "iget" },
		      { "unlock-new", "iget" },       { "ihold", "igrab" } };
	for (int i = 0; i < NELEM(alias); i++)
		if (strcmp(s, alias[i].scn) == 0)
			s = alias[i].op;
	return name_find(&icache_op_names, s);
}

bool sel_parse_u64(const char *s, uint64_t *v)
{
	return parse_u64_in(s, 0, UINT64_MAX, v);
}

/* first ... tenth, last, 1st 2nd 3rd 4th ... */
static bool parse_ordinal(const char *s, int *nth)
{
	static const char *const words[] = { "first", "second",  "third",  "fourth", "fifth",
					     "sixth", "seventh", "eighth", "ninth",  "tenth" };
	int i = str_find(words, NELEM(words), s);
	if (i >= 0) {
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
	    (!strcmp(end, "st") || !strcmp(end, "nd") || !strcmp(end, "rd") ||
	     !strcmp(end, "th"))) {
		*nth = (int)v;
		return true;
	}
	return false;
}

/* The words that start a qualifier, where a verb's optional argument ends. */
static bool is_qual(const char *w)
{
	static const char *const q[] = { "in", "on", "inode", "of", "sb", "times", "after" };
	return str_find(q, NELEM(q), w) >= 0;
}

/* The verb's argument, if any, from w[*i]; advances *i. */
static bool parse_arg(const struct verb *v, char **w, int n, int *i, struct selector *s, char *err,
		      size_t len)
{
	const char *a = *i < n && !is_qual(w[*i]) ? w[*i] : NULL;
	uint64_t c;

	/* "add sb inode 42": sb is the list here, not the qualifier */
	if (v->arg == A_LIST && *i < n && name_find(&icache_list_names, w[*i]) >= 0)
		a = w[*i];

	switch (v->arg) {
	case A_NONE:
		return true;
	case A_CLASS:
		if (a && !(s->classes = selector_class_mask(a)))
			return errmsg(err, len,
				      "unknown lock class '%s' (i_lock, inode_hash_lock, "
				      "hash_bucket, inode_sb_list_lock, inode_wb_list_lock, "
				      "inode_lru_lock, hash, a, b, any)",
				      a);
		break;
	case A_FLAG:
		if (!a)
			return errmsg(err, len, "'%s' needs an i_state flag (I_FREEING, ...)",
				      s->verb);
		if (!(s->flags = selector_flag_bits(a)))
			return errmsg(err, len,
				      "'%s' is not an i_state flag (I_NEW, I_FREEING, ...)", a);
		break;
	case A_LIST:
		if (a && (s->list = name_find(&icache_list_names, a)) < 0)
			return errmsg(err, len,
				      "'%s' is not a list (hash, sb, lru, b_dirty, b_io, "
				      "b_more_io, dispose)",
				      a);
		break;
	case A_COUNT:
		if (a && strcmp(a, "to") == 0 && *i + 1 < n) /* old: "ref to N" */
			a = w[++*i];
		if (a && !sel_parse_u64(a, &c))
			return errmsg(err, len, "'%s' needs a number, not '%s'", s->verb, a);
		s->has_count = a != NULL;
		s->count = a ? (int64_t)c : 0;
		break;
	case A_OP:
		if (a && (s->op = op_index(a)) < 0)
			return errmsg(err, len,
				      "'%s' is not an operation (iget, iput, unlink, ...)", a);
		break;
	case A_VIOL:
		if (a && (s->viol = name_find(&icache_violation_names, a)) < 0)
			return errmsg(err, len, "'%s' is not a violation kind (lock_order, ...)",
				      a);
		break;
	}
	if (a)
		(*i)++;
	return true;
}

/* The verb at w[*i] (with "list ACTION" read as ACTION); advances *i. */
static bool parse_verb(char **w, int n, int *i, struct selector *s, char *err, size_t len)
{
	const char *word = w[(*i)++];
	if (strcmp(word, "list") == 0) { /* old: "list add lru" */
		if (*i >= n || name_find(&icache_list_action_names, w[*i]) < 0)
			return errmsg(err, len, "'list' needs an action (add, del, move, rotate)");
		word = w[(*i)++];
	}
	const struct verb *v = NULL;
	for (size_t k = 0; k < NVERBS && !v; k++)
		if (strcmp(word, verbs[k].word) == 0)
			v = &verbs[k];
	if (!v)
		v = table_verb(word);
	if (!v)
		return errmsg(err, len, "unknown event '%s' (%s)", word, SELECTOR_VERBS);
	s->verb = v->canon ? v->canon : v->word;
	s->ev = v->ev;
	s->sched = v->sched;
	s->blocked = strcmp(s->verb, "blocked") == 0;
	if (v->ev == ICACHE_EV_lock_trylock)
		s->trylock_ok = v->extra;
	if (v->arg == A_FLAG)
		s->flag_set = v->extra;
	if (v->arg == A_LIST)
		s->action = v->extra;
	return parse_arg(v, w, n, i, s, err, len);
}

/* One qualifier at w[*i]; advances *i. */
static bool parse_qual(char **w, int n, int *i, struct selector *s, char *err, size_t len)
{
	const char *q = w[(*i)++];
	const char *a = *i < n ? w[*i] : NULL;
	uint64_t v;

	if (strcmp(q, "of") == 0 && a && strcmp(a, "inode") == 0) /* old: "of inode N" */
		a = ++*i < n ? w[*i] : NULL;
	if (strcmp(q, "inode") == 0 || strcmp(q, "of") == 0) {
		if (!a)
			return errmsg(err, len, "'inode' needs an inode number");
		s->inode = a;
	} else if (strcmp(q, "sb") == 0) {
		if (!sel_parse_u64(a, &v) || v > 15)
			return errmsg(err, len, "'sb' needs a superblock number (0..15), not '%s'",
				      a ? a : "");
		s->has_sb = true;
		s->sb = (uint32_t)v;
	} else if (strcmp(q, "in") == 0) {
		if (!a || (s->site = selector_site(a)) < 0)
			return errmsg(err, len,
				      "'%s' is not a call site (iput_final, find_inode_fast, "
				      "prune_icache, ...)",
				      a ? a : "");
	} else if (strcmp(q, "on") == 0) {
		const char *c = a && strncmp(a, "cpu", 3) == 0 ? a + 3 : a;
		if (!sel_parse_u64(c, &v) || v > 255)
			return errmsg(err, len, "'on' needs a CPU like cpu0, not '%s'", a ? a : "");
		s->cpu = (int)v;
	} else if (strcmp(q, "times") == 0) {
		if (!sel_parse_u64(a, &v) || v == 0 || v > 1000000)
			return errmsg(err, len, "'times' needs a count, not '%s'", a ? a : "");
		s->nth = (int)v;
		s->has_nth = true;
	} else if (strcmp(q, "after") == 0) {
		if (!a || strcmp(a, "step") != 0 || *i + 1 >= n || !sel_parse_u64(w[*i + 1], &v))
			return errmsg(err, len, "'after' wants 'step N'");
		s->has_after = true;
		s->after_step = v;
		++*i;
	} else {
		return errmsg(err, len,
			      "unexpected '%s' (after the event: inode N, sb N, in FUNCTION, "
			      "on cpuN, times N, after step N)",
			      q);
	}
	++*i;
	return true;
}

bool selector_parse(char **w, int n, struct selector *s, char *err, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->ev = s->sched = s->trylock_ok = -1;
	s->list = s->action = s->op = s->viol = s->site = s->cpu = -1;
	s->nth = 1;
	int i = 0;
	if (n > 0 && parse_ordinal(w[0], &s->nth)) {
		s->has_nth = true;
		i++;
	}
	if (i >= n)
		return errmsg(err, len, "an event expected (%s)", SELECTOR_VERBS);
	if (!parse_verb(w, n, &i, s, err, len))
		return false;
	while (i < n)
		if (!parse_qual(w, n, &i, s, err, len))
			return false;
	return true;
}
