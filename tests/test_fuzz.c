/*
 * test_fuzz.c - a short libFuzzer run over icache-view's trace loader
 * (viewer/fuzz_load.c: mutated metadata and stream files of a small CTF
 * trace).  Any crash or sanitizer report fails it; `make fuzz` runs the
 * same for longer.  Skipped, with a note, where clang is missing.
 */
#include "tests/testutil.h"

START_TEST(trace_loader_survives_fuzzing)
{
	int st;
	char *have = run_cmd(&st, "command -v clang");
	free(have);
	if (st != 0) {
		fprintf(stderr, "fuzz: clang not installed, skipped\n");
		return;
	}
	char *out = run_cmd(&st, "FUZZ_SECONDS=15 BUILD=%s/fuzz-test sh viewer/fuzz.sh 2>&1",
			    build_dir());
	ck_assert_msg(st == 0, "the fuzzer found a problem (exit %d):\n%.3000s", st, out);
	ck_assert_ptr_nonnull(strstr(out, "no crash"));
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuzz");
	TCase *tc = tcase_create("loader");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, trace_loader_survives_fuzzing);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
