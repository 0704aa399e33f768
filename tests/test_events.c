/*
 * test_events.c - the event table and the lock order carried as data.
 *
 * order_verdicts_equal_validator: for EVERY registered scheme, a real
 * trace is recorded (icache-sim record, 2 CPUs, mixed) and read back; the
 * viewer's verdict on each lock-order edge it saw (documented / AGAINST
 * THE ORDER / undocumented, from icache-view --summary --json) must be
 * the validator's own, computed by lockdep from the same scheme table, and
 * the edges must be those the validator drew (record --graph).  The
 * viewer learns the order only from the trace's order_rule events.
 */
#include <stdint.h>

#include "lib/selector.h"
#include "sim/core/lockdep.h"
#include "sim/core/scheme.h"
#include "tests/testutil.h"

static char tmp[256];

static void make_tmp(void)
{
	scratch_make(tmp, sizeof(tmp), "icache-events");
}

static void cleanup(void)
{
	scratch_remove(tmp);
}

/* The validator's verdict on from -> to: +1 documented, -1 against. */
static int validator_verdict(int from, int to)
{
	if (lockdep_documented(from, to))
		return 1;
	return lockdep_documented(to, from) ? -1 : 0;
}

/* Does the validator's DOT graph have the edge "from" -> "to"? */
static bool dot_has(const char *dot, int from, int to)
{
	char want[128];
	snprintf(want, sizeof(want), "\"%s\" -> \"%s\"", lock_class_name(from),
		 lock_class_name(to));
	return strstr(dot, want) != NULL;
}

static int dot_edges(const char *dot)
{
	int n = 0;
	for (const char *p = strstr(dot, "\" -> \""); p; p = strstr(p + 1, "\" -> \""))
		n++;
	return n;
}

/* The next JSON string value after "key": in p, copied to out. */
static const char *json_word(const char *p, const char *key, char *out, size_t len)
{
	char k[64];
	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(p, k);
	ck_assert_msg(p, "no %s in the viewer's JSON", key);
	p += strlen(k);
	if (*p == '"')
		p++;
	size_t n = strcspn(p, "\",}");
	snprintf(out, len, "%.*s", (int)n, p);
	return p + n;
}

static int class_by_name(const char *name)
{
	for (int c = 0; c < NR_LOCK_CLASSES; c++)
		if (!strcmp(lock_class_name(c), name))
			return c;
	ck_abort_msg("unknown class %s", name);
	return -1;
}

/* Record scheme s, read it with icache-view, compare every edge; returns
 * how many edges the viewer judged documented. */
static int check_scheme(const struct scheme *s)
{
	char dir[400], dot[400];
	int st;
	snprintf(dir, sizeof(dir), "%s/%s", tmp, s->name);
	snprintf(dot, sizeof(dot), "%s/%s.dot", tmp, s->name);
	char *json = run_cmd(&st,
			     "%s record --scheme %s --workload mixed --cpus 2 "
			     "--ops 2000 --seed 7 --quiet --json --graph %s -o %s 2>%s.err",
			     bin_path("icache-sim"), s->name, dot, dir, dir);
	ck_assert_msg(st == 0 || st == 1, "%s: record exited %d", s->name, st);
	ck_assert_msg(json_num(json, NULL, "discarded_events") == 0,
		      "%s: events were lost, the comparison would be moot", s->name);
	free(json);

	/* The order travels as data: one order_rule event per rule. */
	char *n = run_cmd(&st, "babeltrace2 %s | grep -c 'icache:order_rule:'", dir);
	ck_assert_int_eq(atoi(n), s->norder);
	free(n);
	char *text = run_cmd(&st, "%s --summary %s", bin_path("icache-view"), dir);
	ck_assert_msg(st == 0 && !strstr(text, "not given as data"), "%s: %s", s->name, text);
	free(text);

	char *view = run_cmd(&st, "%s --summary --json %s", bin_path("icache-view"), dir);
	ck_assert_int_eq(st, 0);
	char *graph = run_cmd(&st, "cat %s", dot);
	lockdep_reset(s->order, s->norder);
	int documented = 0, judged = 0;
	const char *p = strstr(view, "\"edges\":[");
	ck_assert(p);
	const char *end = strstr(p, "],\"violations\"");
	ck_assert(end);
	while ((p = strstr(p, "{\"from\":")) && p < end) {
		char from[64], to[64], against[8], doc[8];
		p = json_word(p, "from", from, sizeof(from));
		p = json_word(p, "to", to, sizeof(to));
		p = json_word(p, "against_order", against, sizeof(against));
		p = json_word(p, "documented", doc, sizeof(doc));
		int a = class_by_name(from), b = class_by_name(to);
		if (a == b)
			continue; /* two instances of one class: no edge */
		int viewer = !strcmp(doc, "true") ? 1 : !strcmp(against, "true") ? -1 : 0;
		judged++;
		ck_assert_msg(viewer == validator_verdict(a, b),
			      "%s: %s -> %s: viewer says %d, validator %d", s->name, from, to,
			      viewer, validator_verdict(a, b));
		ck_assert_msg(dot_has(graph, a, b),
			      "%s: the viewer saw %s -> %s, the validator did not", s->name, from,
			      to);
		documented += viewer > 0;
	}
	ck_assert_msg(judged == dot_edges(graph), "%s: viewer %d edges, validator %d", s->name,
		      judged, dot_edges(graph));
	free(graph);
	free(view);
	return documented;
}

START_TEST(order_verdicts_equal_validator)
{
	int schemes = 0;
	for (int i = 0; all_schemes[i]; i++, schemes++) {
		int documented = check_scheme(all_schemes[i]);
		/* A scheme with an order nests its locks in a mixed run: at
		 * least one edge must be judged documented (vfs-scale's were
		 * all "undocumented" when the viewer parsed the order text). */
		if (all_schemes[i]->norder)
			ck_assert_msg(documented > 0, "%s: no documented edge",
				      all_schemes[i]->name);
	}
	ck_assert_int_ge(schemes, 4);
}
END_TEST

/* The first line of text holding every one of the words, or NULL. */
static const char *line_with(const char *text, const char *a, const char *b)
{
	for (const char *l = text; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		char *line = strndup(l, len);
		bool hit = line && strstr(line, a) && (!b || strstr(line, b));
		free(line);
		if (hit)
			return l;
		l = end ? end + 1 : NULL;
	}
	return NULL;
}

/*
 * RCU in a real trace: vfs-scale's lookup is inside rcu_read_lock when
 * cpu0 frees the inode it is looking at; the memory is queued
 * (inode_rcu_free) and given back (inode_rcu_freed) only after the
 * reader's rcu_read_unlock.
 */
START_TEST(rcu_free_waits_for_reader_in_trace)
{
	char dir[400];
	int st;
	snprintf(dir, sizeof(dir), "%s/rcu", tmp);
	char *out =
		run_cmd(&st, "%s play lessons/scenarios/rcu-lookup-skips-freeing.scn -o %s 2>&1",
			bin_path("icache-sim"), dir);
	ck_assert_msg(st == 0, "%s", out);
	free(out);
	out = run_cmd(&st, "babeltrace2 %s | grep -E 'icache:(rcu_read|inode_rcu|inode_free)'",
		      dir);
	const char *lock = line_with(out, "icache:rcu_read_lock:", "cpu = 1,");
	const char *queued = line_with(out, "icache:inode_rcu_free:", "ino = 42");
	const char *unlock = line_with(out, "icache:rcu_read_unlock:", "cpu = 1,");
	const char *freed = line_with(out, "icache:inode_rcu_freed:", "ino = 42");
	ck_assert_msg(lock && queued && unlock && freed, "%s", out);
	ck_assert_msg(lock < queued && queued < unlock && unlock < freed,
		      "freed before the reader left its section:\n%s", out);
	ck_assert_msg(strstr(freed, "cpu = 65535"), "%s", out);
	free(out);
}
END_TEST

#ifdef ICACHE_TEST_DUMMY_EVENT
/*
 * Built with -DICACHE_TEST_DUMMY_EVENT (make check-dummy-event), the event
 * table has one more row, test_dummy, and icache-sim fires it once after
 * run_begin.  Nothing else was written for it: this proves the row alone
 * reaches the LTTng provider, the trace (and a direct one), the viewer's
 * decoder, its names,
 * its text, the scheduler's kinds and the event grammar.
 */
START_TEST(dummy_event_end_to_end)
{
	char dir[400];
	int st;
	snprintf(dir, sizeof(dir), "%s/dummy", tmp);
	char *out = run_cmd(&st,
			    "%s record --scheme merged --workload lookup --cpus 1 --ops 20 "
			    "--quiet -o %s 2>&1",
			    bin_path("icache-sim"), dir);
	ck_assert_msg(st == 0, "%s", out);
	free(out);
	/* in the trace, with its fields */
	out = run_cmd(&st, "babeltrace2 %s | grep 'icache:test_dummy:'", dir);
	ck_assert_msg(strstr(out, "ino = 42") && strstr(out, "value = 7"), "%s", out);
	free(out);
	/* the viewer finds it by name and words it from the table */
	out = run_cmd(&st, "%s --keys '/test_dummy<Enter>' --screen 160x40 %s 2>&1",
		      bin_path("icache-view"), dir);
	ck_assert_msg(st == 0, "%s", out);
	ck_assert_msg(strstr(out, "test_dummy cpu=65535 ino=42 value=7"), "%s", out);
	free(out);
	/* in a trace play writes itself: the direct writer's code and metadata
	 * come from the same row (sim/core/ctf_writer.c) */
	out = run_cmd(
		&st,
		"%s play lessons/scenarios/abba-deadlock.scn --quiet --ctf-direct -o %s-direct "
		">/dev/null && babeltrace2 %s-direct | grep 'icache:test_dummy:'",
		bin_path("icache-sim"), dir, dir);
	ck_assert_msg(st == 0 && strstr(out, "ino = 42") && strstr(out, "value = 7"), "%s", out);
	free(out);
	/* a scheduler step kind, and a word of the grammar */
	ck_assert_int_lt(SEV_test_dummy, NR_SCHED_EVENTS);
	char *w[] = { "test_dummy", "inode", "42" }, err[300];
	struct selector sel;
	ck_assert_msg(selector_parse(w, 3, &sel, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(sel.ev, ICACHE_EV_test_dummy);
	ck_assert_int_eq(sel.sched, SEV_test_dummy);
	ck_assert_str_eq(selector_sched_word(SEV_test_dummy), "test_dummy");
}
END_TEST
#endif

int main(void)
{
	return run_tests("events", make_tmp, cleanup, 120,
			 (const TTest *[]){ order_verdicts_equal_validator,
					    rcu_free_waits_for_reader_in_trace,
#ifdef ICACHE_TEST_DUMMY_EVENT
					    dummy_event_end_to_end,
#endif
					    NULL });
}
