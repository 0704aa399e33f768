/*
 * test_workshop.c - docs/workshop.md, the instructor kit, still matches the
 * tools and the lessons: tools/workshop-check.sh follows its set-up where
 * this machine allows and checks every command, the answer key and the
 * projector size.  The key check is proved by a guide with one question
 * taken out (it must be named) and one with a question no lesson asks.
 *
 * Run from the top of the source tree (make check does).
 */
#include "tests/testutil.h"

START_TEST(guide_matches_tools_and_lessons)
{
	int st;
	char *out = run_cmd(&st, "BUILD=%s sh tools/workshop-check.sh 2>&1", build_dir());
	ck_assert_msg(st == 0, "workshop-check exited %d:\n%s", st, out);
	ck_assert_msg(strstr(out, ", 0 failed"), "no summary line:\n%s", out);
	ck_assert_msg(strstr(out, "ok    answer key:"), "answer key not checked:\n%s", out);
	/* The projector check counts every lesson of the catalog. */
	char *n = run_cmd(&st, "ls lessons/[0-9][0-9]-*.lesson | wc -l");
	char want[96];
	snprintf(want, sizeof(want), "ok    projector: every verbatim line of the %d lessons fits",
		 atoi(n));
	free(n);
	ck_assert_msg(strstr(out, want), "no \"%s\":\n%s", want, out);
	ck_assert_msg(strstr(out, "ok    command: build/bin/icache-lesson --check"),
		      "the set-up command was not checked:\n%s", out);
	free(out);
}
END_TEST

/* A guide whose answer key lost a question: the check names it. */
START_TEST(missing_answer_is_reported)
{
	int st;
	char guide[256];
	snprintf(guide, sizeof(guide), "/tmp/test-workshop.%d.md", (int)getpid());
	free(run_cmd(&st,
		     "grep -v '^\\*\\*Which list lets umount find an inode nobody is using' "
		     "docs/workshop.md > %s",
		     guide));
	ck_assert_int_eq(st, 0);
	char *out = run_cmd(&st, "GUIDE=%s BUILD=%s sh tools/workshop-check.sh 2>&1", guide,
			    build_dir());
	ck_assert_msg(st == 1, "exited %d, not 1:\n%s", st, out);
	ck_assert_msg(strstr(out, "FAIL  answer key: no entry for lessons/01-inode-cache.lesson: "
				  "\"Which list lets umount find an inode nobody is using?\""),
		      "the missing question is not named:\n%s", out);
	free(out);

	/* and a question that no lesson asks is stale */
	free(run_cmd(&st,
		     "cp docs/workshop.md %s && printf '\\n**Is this asked\\nanywhere?**\\n' >> %s",
		     guide, guide));
	out = run_cmd(&st, "GUIDE=%s BUILD=%s sh tools/workshop-check.sh 2>&1", guide, build_dir());
	ck_assert_msg(st == 1, "exited %d, not 1:\n%s", st, out);
	ck_assert_msg(strstr(out, "questions no lesson asks: Is this asked anywhere?"),
		      "the stale question is not named:\n%s", out);
	free(out);
	unlink(guide);
}
END_TEST

/*
 * The projector check covers every lesson, the last one too: a copy of
 * lesson 11 given back a one-line order as wide as the one it had (72
 * columns) is named with its line.
 */
START_TEST(wide_verbatim_line_is_reported)
{
	int st;
	char dir[256];
	snprintf(dir, sizeof(dir), "/tmp/test-workshop-wide.%d", (int)getpid());
	free(run_cmd(&st,
		     "mkdir -p %s && sed 's/^  | wb->list_lock$/  | iunique_lock > "
		     "inode_hash_lock > s_inode_list_lock > i_lock > LRU lock/' "
		     "lessons/11-fifteen-years-later.lesson > %s/11-fifteen-years-later.lesson",
		     dir, dir));
	ck_assert_int_eq(st, 0);
	char *out = run_cmd(&st, "PROJECTOR_LESSONS=%s BUILD=%s sh tools/workshop-check.sh 2>&1",
			    dir, build_dir());
	ck_assert_msg(st == 1, "exited %d, not 1:\n%s", st, out);
	ck_assert_msg(strstr(out, "FAIL  projector: lines wider than the narrative column") &&
			      strstr(out, "/11-fifteen-years-later.lesson:26: 72 columns"),
		      "the wide line of lesson 11 is not named:\n%s", out);
	free(out);
	free(run_cmd(&st, "rm -rf %s", dir));
}
END_TEST

/*
 * The project stands alone: nothing cites the material it was written from
 * (numbered seeds, a shared directory, design notes) instead of the primary
 * sources of docs/sources.md.  The files that name these patterns on
 * purpose (the credit check and the tests of it) are left out.
 */
START_TEST(repository_cites_no_internal_material)
{
	int st;
	char *out = run_cmd(
		&st, "grep -rnIE '[Ss]eeds? 0[0-9][0-9]|\\.\\./shared|/work/shared|DESIGN\\.md|"
		     "reference/(kernel-icache|lttng-ust|teaching-tools|trace-viewers)' "
		     "README.md docs lessons man sim tracepoints viewer bench tools tests lib "
		     "--exclude=credit.c --exclude=credit.h --exclude=test_lessons.c "
		     "--exclude=test_workshop.c 2>/dev/null");
	ck_assert_msg(st == 1 && out[0] == 0, "internal material cited (grep status %d):\n%s", st,
		      out);
	free(out);
	/* Nor a path of the machine it was built on (an example's output run
	 * as root, the build's own directory). */
	out = run_cmd(&st,
		      "grep -rnIE \"(^|[[:space:]'(\\`])/(root|work)/\" "
		      "README.md docs lessons man sim tracepoints viewer bench tools tests lib "
		      "--exclude=check.c --exclude=test_lessons.c --exclude=test_workshop.c "
		      "2>/dev/null");
	ck_assert_msg(st == 1 && out[0] == 0, "a build machine's path (grep status %d):\n%s", st,
		      out);
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("workshop");
	suite_case(s, "guide", 60,
		   (const TTest *[]){ guide_matches_tools_and_lessons, missing_answer_is_reported,
				      wide_verbatim_line_is_reported,
				      repository_cites_no_internal_material, NULL });
	return run_suite(s);
}
