/*
 * test_checker.c - the checker misses nothing it claims to check.
 *
 * Each claim is proved the hard way: `merged` is broken on purpose in one
 * small way (ICACHE_BREAK_<name> in sim/schemes/merged.c, compiled into a
 * test-only icache-sim under BUILD/break/<name>/ by the Makefile; for the
 * RCU lookup, `vfs-scale` under BUILD/break-vfs-scale/<name>/) and
 * `icache-sim run` must report it, naming what went wrong, before a
 * 5-second timeout ends it (scaled by test_slowdown() in a sanitizer
 * build); the missed wakeup, whose window a free run meets only by chance,
 * is played on a schedule instead (`icache-sim play`).  Then the
 * in-process checks: same-class nesting with and without its annotation,
 * the free-running missed-wakeup watchdog, and de-duplication that keeps
 * distinct failures apart.
 */
#include <stdio.h>

#include "sim/core/lockdep.h"
#include "tests/simenv.h"
#include "tests/testutil.h"

struct breakage {
	const char *name;     /* ICACHE_BREAK_<name> */
	const char *workload; /* one that walks into it quickly */
	const char *extra;    /* more run flags */
	const char *expect;   /* the report's words */
	const char *scheme;   /* the scheme broken (NULL: merged) */
};

static const struct breakage breaks[] = {
	/* missed_wakeup (unlock_new_inode forgets wake_up_inode) is not run
	 * free: a lookup meets an inode in its short I_NEW window only by
	 * chance, and a sanitizer build on a busy machine ran 2.5 s without
	 * one.  missed_wakeup_is_reported_when_scripted puts a sleeper there
	 * every time; watchdog_reports_a_sleeper_nobody_wakes proves the
	 * free-running watchdog that would report it. */
	/* evict frees an inode it left hashed: a lookup loops on it for
	 * ever; the per-CPU watchdog names that CPU, even with --quiet. */
	{ "freed_hashed", "mixed", "--duration 30s --watchdog 1 --quiet",
	  "finished no operation for", NULL },
	/* The same in virtual time, where the lookup's loop passes points
	 * but finishes nothing: a livelock, said even with --quiet. */
	{ "freed_hashed", "mixed", "--virtual --cpus 2 --ops 200000 --quiet",
	  "livelock: no operation finished in", NULL },
	/* get_new_inode_fast does not look again under the lock. */
	{ "duplicate_inode", "iput-race", "--duration 2500ms",
	  "hashes a second live inode for (sb 0,", NULL },
	/* find_inode_fast takes its reference after dropping i_lock. */
	{ "unlocked_ref", "lookup", "--duration 2500ms",
	  "takes the first reference to unused inode", NULL },
	/* evict_inodes peeks at the next inode under both i_locks. */
	{ "nested_ilock", "umount", "--duration 2500ms", "possible recursive locking: cpu", NULL },
	/* vfs-scale's RCU lookup trusts what the walk found: no recheck of
	 * hashed / I_FREEING under i_lock.  An inode freed twice queues
	 * its RCU head twice: the end-of-run barrier waits 1 s for the
	 * lost callbacks and says so, hence the shorter run. */
	{ "rcu_no_recheck", "iput-race", "--duration 1500ms",
	  "in find_inode_fast although it is marked I_FREEING", "vfs-scale" },
	/* vfs-scale's lookup sleeps on a freeing inode inside its RCU
	 * section (it must leave the section first). */
	{ "rcu_sleep", "iput-race", "--duration 2500ms",
	  "in wait_on_freeing_inode inside an RCU read-side section", "vfs-scale" },
};

static const char *break_scheme(const struct breakage *b)
{
	return b->scheme ? b->scheme : "merged";
}

START_TEST(broken_scheme_is_reported)
{
	const struct breakage *b = &breaks[_i];
	char bin[600];
	int status;

	if (b->scheme)
		snprintf(bin, sizeof(bin), "%s/break-%s/%s/icache-sim", build_dir(), b->scheme,
			 b->name);
	else
		snprintf(bin, sizeof(bin), "%s/break/%s/icache-sim", build_dir(), b->name);
	/* 5 s, scaled for a sanitizer build, which starts and runs slower */
	int secs = (int)(5 * test_slowdown());
	char *out = run_cmd(&status, "timeout %d %s run --scheme %s --workload %s %s 2>&1", secs,
			    bin, break_scheme(b), b->workload, b->extra);
	const char *said = strstr(out, b->expect);
#ifdef __SANITIZE_THREAD__
	/* Some breaks are data races by design (rcu_no_recheck: two CPUs
	 * evict and free the same inode).  ThreadSanitizer sees the race
	 * that follows the checker's report and ends the run with its own
	 * exit status, 66 (tests/run-all.sh sets halt_on_error=1).  The
	 * checker is still what is tested: its report must come first. */
	const char *tsan = strstr(out, "WARNING: ThreadSanitizer: data race");
	if (status == 66 && said && tsan && said < tsan)
		status = 1;
#endif
	ck_assert_msg(status == 1, "%s: exit %d (124 = not reported within %d s):\n%.2000s",
		      b->name, status, secs, out);
	ck_assert_msg(said, "%s: no \"%s\" in:\n%.2000s", b->name, b->expect, out);
	free(out);
}
END_TEST

/*
 * The missed wakeup again, on the scripted scheduler: the free-running run
 * above needs a lookup to meet an inode in its I_NEW window by chance (a
 * matter of timing, rarer in a sanitizer build); a schedule puts cpu1 to
 * sleep on inode 42 while cpu0 builds it, every time.  cpu0 then finishes
 * and nobody is left to wake cpu1: `play` must call it a missed wakeup,
 * not a deadlock, and the intact scheme must run the same schedule clean.
 */
static const char missed_wakeup_scn[] = "scheme merged\n"
					"title cpu1 sleeps on I_NEW while cpu0 builds inode 42\n"
					"cpu0: iget-locked 42\n"
					"cpu0: unlock-new 42\n"
					"cpu0: iput 42\n"
					"cpu1: iget 42\n"
					"cpu1: iput 42\n"
					"cpu0 ops 1\n"
					"cpu1 until blocked\n"
					"cpu0 to end\n"
					"expect no violation\n";

START_TEST(missed_wakeup_is_reported_when_scripted)
{
	char dir[64], scn[128], bin[600];
	int status;

	scratch_make(dir, sizeof(dir), "icache-checker");
	ck_assert(dir[0]);
	snprintf(scn, sizeof(scn), "%s/missed-wakeup.scn", dir);
	FILE *f = fopen(scn, "w");
	ck_assert_ptr_nonnull(f);
	fputs(missed_wakeup_scn, f);
	ck_assert_int_eq(fclose(f), 0);

	snprintf(bin, sizeof(bin), "%s/break/missed_wakeup/icache-sim", build_dir());
	int secs = (int)(10 * test_slowdown());
	char *out = run_cmd(&status, "timeout %d %s play %s 2>&1", secs, bin, scn);
	ck_assert_msg(status == 1, "broken: exit %d:\n%.3000s", status, out);
	ck_assert_msg(strstr(out, "missed wakeup: cpu1 sleeps on inode 42") &&
			      strstr(out, "(its state went I_NEW -> 0 since, and nobody woke it)"),
		      "broken: no missed wakeup in:\n%.3000s", out);
	free(out);

	out = run_cmd(&status, "timeout %d %s play %s 2>&1", secs, bin_path("icache-sim"), scn);
	ck_assert_msg(status == 0 && !strstr(out, "missed wakeup"), "intact: exit %d:\n%.3000s",
		      status, out);
	free(out);
	scratch_remove(dir);
}
END_TEST

/* The free-running watchdog: a sleeper whose token nobody moves is reported
 * once the limit is up, as a missed wakeup; a woken one never is. */
START_TEST(watchdog_reports_a_sleeper_nobody_wakes)
{
	env_start(&scheme_merged, 1);
	SITE(wait_on_inode);
	struct inode *inode = scheme_merged.iget_locked(&icache.sbs[0], 42);
	ck_assert(inode_state(inode) & I_NEW);
	set_missed_wakeup_ns(100ull * 1000000); /* 100 ms */

	uint64_t token = wait_inode_prepare(inode);
	wake_up_inode(inode); /* woken before it sleeps: returns at once */
	wait_inode_token(inode, token, __site);
	ck_assert_uint_eq(violations_of_kind(VIOL_missed_wakeup), 0);

	token = wait_inode_prepare(inode);
	wait_inode_token(inode, token, __site); /* nobody wakes it */
	ck_assert_uint_eq(violations_of_kind(VIOL_missed_wakeup), 1);
	ck_assert_ptr_nonnull(strstr(violation_get(0)->text,
				     "missed wakeup: cpu0 sleeps on inode 42 in "
				     "wait_on_inode and nobody woke it in 0.1 s"));

	set_missed_wakeup_ns(5ull * 1000000000); /* the default */
	scheme_merged.unlock_new_inode(inode);
	scheme_merged.iput(inode);
	env_stop();
}
END_TEST

/* The unbroken scheme, same runs: none of these reports. */
START_TEST(intact_scheme_is_quiet)
{
	const struct breakage *b = &breaks[_i];
	int status;

	char *out = run_cmd(
		&status, "timeout %d %s run --scheme %s --workload %s --duration 1s 2>&1",
		(int)(10 * test_slowdown()), bin_path("icache-sim"), break_scheme(b), b->workload);
	ck_assert_msg(status == 0, "intact %s, %s: exit %d:\n%.2000s", break_scheme(b), b->workload,
		      status, out);
	ck_assert_ptr_null(strstr(out, b->expect));
	free(out);
}
END_TEST

/* ---- in process ---------------------------------------------------------- */

START_TEST(nesting_needs_an_annotation)
{
	env_start(&scheme_merged, 1);
	struct sim_lock a, b;
	sim_lock_init(&a, LC_i_lock, 1);
	sim_lock_init(&b, LC_i_lock, 2);
	SITE(test_abba);

	spin_lock(&a);
	spin_lock_nested(&b, SINGLE_DEPTH_NESTING);
	spin_unlock(&b);
	spin_unlock(&a);
	ck_assert_uint_eq(violations_of_kind(VIOL_nested_class), 0);

	spin_lock(&a);
	spin_lock(&b);
	spin_unlock(&b);
	spin_unlock(&a);
	ck_assert_uint_eq(violations_of_kind(VIOL_nested_class), 1);
	ck_assert_ptr_nonnull(strstr(violation_get(0)->text, "possible recursive locking"));

	/* The annotation covers one acquisition only. */
	spin_lock(&a);
	spin_lock(&b);
	spin_unlock(&b);
	spin_unlock(&a);
	ck_assert_uint_eq(violations_of_kind(VIOL_nested_class), 2);
	sim_lock_destroy(&a);
	sim_lock_destroy(&b);
	env_stop();
}
END_TEST

START_TEST(distinct_failures_are_kept_apart)
{
	violations_reset();
	violations_set_quiet(true);
	/* One check failing twice: one report, counted twice. */
	for (int i = 0; i < 2; i++)
		report_violation(VIOL_invariant, -1, -1, -1, -1, -1, -1, 7,
				 "invariant: inode %d is on the wrong hash chain", i);
	/* Another check, same kind, classes and sites: its own report. */
	report_violation(VIOL_invariant, -1, -1, -1, -1, -1, -1, 7,
			 "invariant: hashed inode %d is on no sb list", 7);
	ck_assert_int_eq(violations_distinct(), 2);
	ck_assert_uint_eq(violations_total(), 3);
	ck_assert_uint_eq(violation_get(0)->count, 2);
	ck_assert_uint_eq(violation_get(1)->count, 1);
	ck_assert_ptr_nonnull(strstr(violation_get(1)->text, "on no sb list"));
	violations_set_quiet(false);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("checker");
	int n = (int)(sizeof(breaks) / sizeof(breaks[0]));

	TCase *tb = tcase_create("broken on purpose");
	tcase_set_timeout(tb, 30);
	tcase_add_loop_test(tb, broken_scheme_is_reported, 0, n);
	tcase_add_loop_test(tb, intact_scheme_is_quiet, 0, n);
	tcase_add_test(tb, missed_wakeup_is_reported_when_scripted);
	suite_add_tcase(s, tb);

	TCase *tp = tcase_create("in process");
	tcase_add_test(tp, nesting_needs_an_annotation);
	tcase_add_test(tp, watchdog_reports_a_sleeper_nobody_wakes);
	tcase_add_test(tp, distinct_failures_are_kept_apart);
	suite_add_tcase(s, tp);
	return run_suite(s);
}
