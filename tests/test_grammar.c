/*
 * test_grammar.c - one grammar names an event in .scn and .lesson files.
 *
 * lib/selector.c parses both a scenario's "cpu0 until SELECTOR" and a
 * lesson's "at: SELECTOR".  Checked here: the old spellings of each file
 * (kept for one release) mean exactly what the canonical words mean; a
 * scenario rewritten in the canonical words, or in the lessons' old words,
 * plays the same log as the original; and a moment written either way
 * finds the same event in a real recorded trace.
 */
#include <stdint.h>

#include "lessons/src/moment.h"
#include "lib/selector.h"
#include "tests/testutil.h"
#include "viewer/timeline.h"

static char tmp[256];

static void make_tmp(void)
{
	scratch_make(tmp, sizeof(tmp), "icache-grammar");
}

static void cleanup(void)
{
	scratch_remove(tmp);
}

static struct selector parse(const char *text)
{
	static char buf[8][256];
	static int next;
	char *b = buf[next++ & 7], *w[24], err[300];
	int n = 0;
	snprintf(b, sizeof(buf[0]), "%s", text);
	for (char *p = strtok(b, " "); p && n < 24; p = strtok(NULL, " "))
		w[n++] = p;
	struct selector s;
	ck_assert_msg(selector_parse(w, n, &s, err, sizeof(err)), "%s: %s", text, err);
	return s;
}

/* Two selectors that name the same thing. */
static void same(const char *a, const char *b)
{
	struct selector x = parse(a), y = parse(b);
	ck_assert_msg(!strcmp(x.verb, y.verb) && x.ev == y.ev && x.sched == y.sched &&
			      x.trylock_ok == y.trylock_ok && x.classes == y.classes &&
			      x.flags == y.flags && x.flag_set == y.flag_set && x.list == y.list &&
			      x.action == y.action && x.has_count == y.has_count &&
			      x.count == y.count && x.site == y.site && x.nth == y.nth &&
			      !x.inode == !y.inode && (!x.inode || !strcmp(x.inode, y.inode)),
		      "'%s' and '%s' differ", a, b);
}

START_TEST(old_spellings_are_aliases)
{
	same("acquired i_lock", "take i_lock");
	same("acquired i_lock", "lock i_lock");
	same("release i_lock in iput_final", "unlock i_lock in __iput_final");
	same("trylock i_lock", "trylock-ok i_lock");
	same("trylock-failed i_lock inode 42", "trylock-fail i_lock of inode 42");
	same("set I_WILL_FREE inode 42", "state I_WILL_FREE of inode 42");
	same("set I_FREEING", "set FREEING");
	same("rotate lru inode 42", "list rotate lru of inode 42");
	same("add sb inode 42", "list add sb of 42");
	same("ref 0", "ref to 0");
	same("second release i_lock", "release i_lock times 2");
	struct selector s = parse("trylock-failed hash");
	ck_assert(s.trylock_ok == 0 && s.classes && s.sched >= 0 && s.ev >= 0);
	/* what a schedule can stop at and what a trace holds */
	ck_assert(parse("wake inode 42").ev < 0);
	ck_assert(parse("contended i_lock").sched < 0);
	ck_assert(parse("blocked").blocked);
	char *w[] = { "frobnicate" }, err[300];
	ck_assert(!selector_parse(w, 1, &s, err, sizeof(err)));
	ck_assert_msg(strstr(err, "unknown event 'frobnicate'"), "%s", err);
}
END_TEST

/* Play a scenario; its log without timings and without the schedule
 * lines it echoes as written. */
static char *play_log(const char *path, int *st)
{
	return run_cmd(st, "%s play %s 2>&1 | sed -e 's/[0-9.]* [mu]s//g' -e '/^-- line /d'",
		       bin_path("icache-sim"), path);
}

/* Rewrite a shipped scenario with sed and compare the logs. */
static void same_play(const char *scn, const char *sed)
{
	char path[400];
	int st0, st1;
	snprintf(path, sizeof(path), "%s/%s", tmp, scn);
	free(run_cmd(&st0, "sed -e '%s' lessons/scenarios/%s > %s", sed, scn, path));
	char *diff = run_cmd(&st0, "diff lessons/scenarios/%s %s", scn, path);
	ck_assert_msg(st0 == 1, "%s: the rewrite changed nothing", scn);
	free(diff);
	char *a = play_log(path, &st0);
	snprintf(path, sizeof(path), "lessons/scenarios/%s", scn);
	char *b = play_log(path, &st1);
	/* the log names the file it played: compare from the 2nd line */
	ck_assert_msg(st0 == st1 && !strcmp(strchr(a, '\n'), strchr(b, '\n')),
		      "%s played differently:\n%.1500s\n---\n%.1500s", scn, a, b);
	free(a);
	free(b);
}

START_TEST(scenarios_play_the_same_in_any_spelling)
{
	/* the scenario files' old words (the shipped ones use the canonical) */
	same_play("will-free-handoff.scn", "s/until set /until state /");
	same_play("vfs-scale-trylock-retry.scn", "/until/s/ inode / of inode /");
	same_play("prune-trylock-rotate.scn", "s/until rotate /until list rotate /");
	/* the lessons' old words, accepted in a scenario too */
	same_play("vfs-scale-trylock-retry.scn",
		  "s/trylock-failed /trylock-fail /; s/trylock i_lock/trylock-ok i_lock/");
}
END_TEST

static uint64_t value_of(const void *ctx, uint32_t id)
{
	return ix_id_value(ctx, id);
}

static int64_t find(const struct trace_index *ix, const char *text)
{
	struct moment m;
	char err[300];
	ck_assert_msg(moment_parse(text, &m, err, sizeof(err)), "%s: %s", text, err);
	return moment_find(&m, ix->ev, ix->nev, value_of, ix);
}

START_TEST(moments_find_the_same_event_in_any_spelling)
{
	char dir[400], err[1024];
	int st;
	snprintf(dir, sizeof(dir), "%s/retry", tmp);
	char *out = run_cmd(&st, "%s play lessons/scenarios/vfs-scale-trylock-retry.scn -o %s 2>&1",
			    bin_path("icache-sim"), dir);
	ck_assert_msg(st == 0, "%s", out);
	free(out);
	struct trace_index *ix = ix_load(dir, err, sizeof(err));
	ck_assert_msg(ix, "%s", err);
	static const char *const pairs[][2] = {
		{ "second trylock-failed i_lock on cpu0",
		  "second trylock-fail i_lock of inode 42 on cpu0" },
		{ "trylock i_lock on cpu0", "trylock-ok i_lock on cpu0" },
		{ "acquired i_lock inode 42 on cpu1", "take i_lock of inode 42 on cpu1" },
		{ "release hash_bucket", "unlock hash_bucket" },
		{ "add lru inode 42", "list add lru of inode 42" },
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		int64_t a = find(ix, pairs[i][0]), b = find(ix, pairs[i][1]);
		ck_assert_msg(a >= 0, "'%s' found nothing", pairs[i][0]);
		ck_assert_msg(a == b, "'%s' -> %lld, '%s' -> %lld", pairs[i][0], (long long)a,
			      pairs[i][1], (long long)b);
	}
	/* a trace has no wake step: the moment is refused, not "never" */
	struct moment m;
	ck_assert(!moment_parse("wake inode 42", &m, err, sizeof(err)));
	ck_assert_msg(strstr(err, "no event in a trace"), "%s", err);
	ix_free(ix);
}
END_TEST

/*
 * The play log names each step in the grammar: "cpu0 release i_lock inode
 * 42 in iput_final" is "release i_lock inode 42 in iput_final on cpu0", so a
 * line copied from the log into an `until` or an `at:` parses.  The old
 * "of inode 42" is gone from the log.
 */
START_TEST(the_log_speaks_the_grammar)
{
	int st, parsed = 0;
	char *out = run_cmd(&st, "%s play lessons/scenarios/two-lives.scn 2>&1",
			    bin_path("icache-sim"));
	ck_assert_msg(st == 0, "%s", out);
	char *save = NULL;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *p = strncmp(l, "step ", 5) ? NULL : strstr(l, ": cpu");
		if (!p || !(p = strchr(p + 2, ' ')))
			continue;
		p++;
		ck_assert_msg(!strstr(p, " of inode "), "old spelling in the log: %s", p);
		p[strcspn(p, ":(")] = 0; /* "ref inode 42: 1 -> 0 in iput" -> "ref inode 42" */
		/* steps that are no event of the grammar: operations, state
		 * changes (set and clear at once), RCU's queueing */
		if (!strncmp(p, "begin", 5) || !strncmp(p, "end", 3) || !strncmp(p, "state", 5) ||
		    !strncmp(p, "queues", 6))
			continue;
		struct selector s = parse(p);
		ck_assert_msg(s.verb, "%s", p);
		parsed++;
	}
	ck_assert_int_gt(parsed, 30);
	free(out);
}
END_TEST

int main(void)
{
	return run_tests("grammar", make_tmp, cleanup, 60,
			 (const TTest *[]){ old_spellings_are_aliases,
					    scenarios_play_the_same_in_any_spelling,
					    moments_find_the_same_event_in_any_spelling,
					    the_log_speaks_the_grammar, NULL });
}
