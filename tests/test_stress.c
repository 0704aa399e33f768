/*
 * test_stress.c - the merged scheme under every workload on real threads,
 * with the invariant checker stopping the world several times a run.
 * Bounded in time; under SAN=thread this is the race test of the core.
 */
#include "sim/core/violation.h"
#include "sim/run.h"
#include "testutil.h"

static void stress(const char *workload, int cpus)
{
	struct run_config cfg;
	struct run_result r;

	run_config_defaults(&cfg);
	cfg.scheme = &scheme_merged;
	cfg.workload = workload_find(workload);
	ck_assert_ptr_nonnull(cfg.workload);
	cfg.ncpus = cpus;
	cfg.duration_ns = 600ull * 1000 * 1000;
	cfg.check_every_ns = 150ull * 1000 * 1000;
	cfg.hot = 64;                   /* small sets: more sharing */
	cfg.cache_limit = 128;
	cfg.quiet = true;
	cfg.watchdog_s = 20;            /* sanitizers are slow, not stuck */
	int status = run_workload(&cfg, &r, false);
	if (status || r.invariant_failures) {
		for (int i = 0; i < violations_distinct(); i++)
			fprintf(stderr, "%s: %s\n", workload, violation_get(i)->text);
	}
	ck_assert_int_eq(r.invariant_failures, 0);
	ck_assert_uint_eq(r.violations, 0);
	ck_assert_int_eq(status, 0);
	ck_assert_uint_gt(r.ops, 0);
	ck_assert_int_ge(r.invariant_checks, 2);
	/* Counters agree with the lists they count. */
	ck_assert_int_eq(r.nr_unused, r.lru_len);
	run_result_free(&r);
}

START_TEST(merged_create_unlink) { stress("create-unlink", 4); }
END_TEST
START_TEST(merged_lookup) { stress("lookup", 4); }
END_TEST
START_TEST(merged_writeback) { stress("writeback", 3); }
END_TEST
START_TEST(merged_pressure) { stress("pressure", 4); }
END_TEST
START_TEST(merged_umount) { stress("umount", 3); }
END_TEST
START_TEST(merged_mixed) { stress("mixed", 4); }
END_TEST

int main(void)
{
	Suite *s = suite_create("stress");
	TCase *tc = tcase_create("merged");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, merged_create_unlink);
	tcase_add_test(tc, merged_lookup);
	tcase_add_test(tc, merged_writeback);
	tcase_add_test(tc, merged_pressure);
	tcase_add_test(tc, merged_umount);
	tcase_add_test(tc, merged_mixed);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
