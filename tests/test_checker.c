/*
 * test_checker.c - the checker misses nothing it claims to check.
 *
 * Each claim is proved the hard way: `merged` is broken on purpose in one
 * small way (ICACHE_BREAK_<name> in sim/schemes/merged.c, compiled into a
 * test-only icache-sim under BUILD/break/<name>/ by the Makefile; for the
 * RCU lookup, `vfs-scale` under BUILD/break-vfs-scale/<name>/) and
 * `icache-sim run` must report it, naming what went wrong, before a
 * 5-second timeout ends it (scaled by test_slowdown() in a sanitizer
 * build).  Then the in-process checks: same-class nesting
 * with and without its annotation, and de-duplication that keeps distinct
 * failures apart.
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
	/* unlock_new_inode forgets wake_up_inode: a sleeper on I_NEW is a
	 * missed wakeup, not a silent 20 ms retry. */
	{ "missed_wakeup", "iput-race", "--duration 2500ms --watchdog 1", "missed wakeup: cpu",
	  NULL },
	/* evict frees an inode it left hashed: a lookup loops on it for
	 * ever; the per-CPU watchdog names that CPU, even with --quiet. */
	{ "freed_hashed", "mixed", "--duration 30s --watchdog 1 --quiet",
	  "finished no operation for", NULL },
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
	ck_assert_msg(status == 1, "%s: exit %d (124 = not reported within %d s):\n%.2000s",
		      b->name, status, secs, out);
	ck_assert_msg(strstr(out, b->expect), "%s: no \"%s\" in:\n%.2000s", b->name, b->expect,
		      out);
	free(out);
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
	suite_add_tcase(s, tb);

	TCase *tp = tcase_create("in process");
	tcase_add_test(tp, nesting_needs_an_annotation);
	tcase_add_test(tp, distinct_failures_are_kept_apart);
	suite_add_tcase(s, tp);
	return run_suite(s);
}
