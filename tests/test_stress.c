/*
 * test_stress.c - every registered scheme not marked known_racy (global,
 * vfs-scale, merged, modern today) under every workload on real threads, with the
 * invariant checker stopping the world several times a run.  Bounded in
 * time; under SAN=thread this is the race test of the core and of those
 * schemes.  inode-scale-v4 is known_racy: it keeps the iput_final race on
 * purpose (test_schemes catches it).
 */
#include "sim/core/violation.h"
#include "sim/engine/run.h"
#include "tests/testutil.h"

/*
 * One timed run.  Its stop-the-world checks come from the main thread
 * every 120 ms of wall time: a host that starves that thread (a loaded
 * machine, a sanitizer at low priority) can let the 400 ms run end before
 * the first one, so a run with fewer than two checks (periodic + final)
 * is tried again, up to three times.  Each attempt must be clean.
 */
static int stress_once(const struct scheme *scheme, const char *workload, int cpus)
{
	struct run_config cfg;
	struct run_result r;

	run_config_defaults(&cfg);
	cfg.scheme = scheme;
	cfg.workload = workload_find(workload);
	ck_assert_ptr_nonnull(cfg.workload);
	cfg.ncpus = cpus;
	cfg.duration_ns = 400ull * 1000 * 1000;
	cfg.check_every_ns = 120ull * 1000 * 1000;
	cfg.hot = 64; /* small sets: more sharing */
	cfg.cache_limit = 128;
	cfg.quiet = true;
	cfg.watchdog_s = 20; /* sanitizers are slow, not stuck */
	int status = run_workload(&cfg, &r, false);
	if (status || r.invariant_failures) {
		for (int i = 0; i < violations_distinct(); i++)
			fprintf(stderr, "%s/%s: %s\n", scheme->name, workload,
				violation_get(i)->text);
	}
	ck_assert_int_eq(r.invariant_failures, 0);
	ck_assert_uint_eq(r.violations, 0);
	ck_assert_int_eq(status, 0);
	ck_assert_uint_gt(r.ops, 0);
	ck_assert_int_ge(r.invariant_checks, 1);
	/* Counters agree with the lists they count.  2.6.36's nr_unused
	 * (COUNTERS_2636) counts every unused inode, a dirty one on the
	 * writeback lists too, so there it can exceed the LRU's length; the
	 * final invariant check (invariant_failures above) compares it with
	 * the unused inodes instead. */
	if (scheme->counters != COUNTERS_2636)
		ck_assert_int_eq(r.nr_unused, r.lru_len);
	else
		ck_assert_int_ge(r.nr_unused, r.lru_len);
	int checks = r.invariant_checks;
	run_result_free(&r);
	return checks;
}

static void stress(const struct scheme *scheme, const char *workload, int cpus)
{
	int checks = 0;
	for (int attempt = 0; attempt < 3 && checks < 2; attempt++)
		checks = stress_once(scheme, workload, cpus);
	ck_assert_msg(checks >= 2, "%s/%s: no stop-the-world check in three runs", scheme->name,
		      workload);
}

/* The n-th registered scheme that must run clean (not known_racy). */
static const struct scheme *clean_scheme(int n)
{
	for (int i = 0; all_schemes[i]; i++)
		if (!all_schemes[i]->known_racy && n-- == 0)
			return all_schemes[i];
	return NULL;
}

static int nr_clean_schemes(void)
{
	int n = 0;
	while (clean_scheme(n))
		n++;
	return n;
}

#define WORKLOAD_TEST(fn, name, cpus)                 \
	START_TEST(fn)                                \
	{                                             \
		stress(clean_scheme(_i), name, cpus); \
	}                                             \
	END_TEST

WORKLOAD_TEST(create_unlink, "create-unlink", 4)
WORKLOAD_TEST(lookup, "lookup", 4)
WORKLOAD_TEST(writeback, "writeback", 3)
WORKLOAD_TEST(pressure, "pressure", 4)
WORKLOAD_TEST(umount, "umount", 3)
WORKLOAD_TEST(mixed, "mixed", 4)

int main(void)
{
	int nschemes = nr_clean_schemes();
	Suite *s = suite_create("stress");
	TCase *tc = suite_case(s, "schemes", 90, NULL);
	tcase_add_loop_test(tc, create_unlink, 0, nschemes);
	tcase_add_loop_test(tc, lookup, 0, nschemes);
	tcase_add_loop_test(tc, writeback, 0, nschemes);
	tcase_add_loop_test(tc, pressure, 0, nschemes);
	tcase_add_loop_test(tc, umount, 0, nschemes);
	tcase_add_loop_test(tc, mixed, 0, nschemes);
	return run_suite(s);
}
