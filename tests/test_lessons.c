/*
 * test_lessons.c - icache-lesson: every shipped lesson passes --check; a
 * student walks lesson 01 from start to end in a real terminal (tmux);
 * --keys drives lesson 05's "you are the scheduler" step to its goal;
 * malformed lessons get FILE:LINE: errors and exit 2.
 *
 * Run from the top of the source tree (make check does), so lessons/ is
 * found; the programs come from $BUILD/bin.
 */
#include <dirent.h>
#include <glob.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/testutil.h"
#include "lessons/src/moment.h"
#include "viewer/names.h"

/* A private state directory per test, so progress starts empty. */
static char state_dir[256];

static void fresh_state(void)
{
	snprintf(state_dir, sizeof(state_dir), "/tmp/test-lessons-state.%d", (int)getpid());
	int st;
	free(run_cmd(&st, "rm -rf %s && mkdir -p %s", state_dir, state_dir));
}

static char *lesson_file(int i)
{
	glob_t g;
	char *out = NULL;
	if (glob("lessons/[0-9][0-9]-*.lesson", 0, NULL, &g) == 0) {
		if ((size_t)i < g.gl_pathc)
			out = strdup(g.gl_pathv[i]);
		globfree(&g);
	}
	return out;
}

static int nlessons(void)
{
	glob_t g;
	int n = 0;
	if (glob("lessons/[0-9][0-9]-*.lesson", 0, NULL, &g) == 0) {
		n = (int)g.gl_pathc;
		globfree(&g);
	}
	return n;
}

/* ---- every shipped lesson is sound ------------------------------------- */

START_TEST(ten_lessons_in_order)
{
	static const char *const want[] = { "01-", "02-", "03-", "04-", "05-",
					    "06-", "07-", "08-", "09-", "10-" };
	ck_assert_int_ge(nlessons(), 10);
	for (int i = 0; i < 10; i++) {
		char *f = lesson_file(i);
		ck_assert_msg(f && strstr(f, want[i]), "lesson %d is %s", i + 1, f ? f : "missing");
		free(f);
	}
}
END_TEST

START_TEST(shipped_lesson_passes_check)
{
	char *f = lesson_file(_i);
	ck_assert_ptr_nonnull(f);
	int st;
	char *out = run_cmd(&st, "%s --check %s 2>&1", bin_path("icache-lesson"), f);
	ck_assert_msg(st == 0, "%s: --check exited %d:\n%s", f, st, out);
	ck_assert_msg(strstr(out, ": ok"), "%s: %s", f, out);
	free(out);
	free(f);
}
END_TEST

/* ---- malformed lessons -------------------------------------------------- */

static char tmpdir[256];

static const char *write_lesson(const char *name, const char *text)
{
	static char path[512];
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-lessons.%d", (int)getpid());
	mkdir(tmpdir, 0755);
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* The absolute path of a shipped scenario, for lessons written to /tmp. */
static const char *scn(const char *name)
{
	static char buf[4][1024];
	static int k;
	char cwd[512];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	char *p = buf[k++ & 3];
	snprintf(p, 1024, "%s/lessons/scenarios/%s", cwd, name);
	return p;
}

/* --check FILE must exit 2 with "FILE:LINE: ...needle..." first. */
static void bad_lesson(const char *name, const char *text, int line, const char *needle, bool deep)
{
	const char *path = write_lesson(name, text);
	int st;
	char *out = run_cmd(&st, "%s --check %s %s 2>&1 >/dev/null", bin_path("icache-lesson"),
			    deep ? "" : "--static", path);
	ck_assert_msg(st == 2, "%s: exited %d, not 2: %s", name, st, out);
	char want[700];
	snprintf(want, sizeof(want), "%s:%d: ", path, line);
	ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%s: wanted '%s...', got: %s", name,
		      want, out);
	ck_assert_msg(strstr(out, needle), "%s: wanted '%s' in: %s", name, needle, out);
	free(out);
	unlink(path);
}

#define HEAD(SCN) "title: A test lesson\ngoal: fail\nscenario: " SCN "\n\n"

START_TEST(unknown_key)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 HEAD("%s") "step: One\nat: start\ncolour: red\ntext:\n  Hello.\n",
		 scn("one-inode-life.scn"));
	bad_lesson("unknown-key.lesson", text, 7, "unknown key 'colour'", false);
}
END_TEST

START_TEST(answer_not_a_choice)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 HEAD("%s") "step: One\nat: start\ntext:\n  Hello.\n"
			    "ask: Which?\nchoice: cpu0\nchoice: cpu1\nanswer: cpu2\n",
		 scn("one-inode-life.scn"));
	bad_lesson("answer.lesson", text, 12, "answer: 'cpu2' is not one of the choices", false);
}
END_TEST

START_TEST(missing_scenario)
{
	bad_lesson("missing.lesson",
		   HEAD("scenarios/no-such-thing.scn") "step: One\nat: start\ntext:\n  Hello.\n", 3,
		   "scenario: cannot read", false);
}
END_TEST

/* Credits name primary sources, never a file the reader does not have. */
START_TEST(credit_outside_repository)
{
	char text[2048];
	snprintf(text, sizeof(text), HEAD("%s") "step: One\nat: start\ntext:\n  Hello.\n",
		 scn("one-inode-life.scn"));
	/* the credit goes in the header, after scenario: (line 4) */
	char *nl = strstr(text, "\n\n");
	ck_assert_ptr_nonnull(nl);
	char with[2600];
	snprintf(with, sizeof(with), "%.*s\ncredit: the icache notes, /home/me/notes/icache.md%s",
		 (int)(nl - text), text, nl);
	bad_lesson("credit-abs.lesson", with, 4, "points outside the repository", false);
	snprintf(with, sizeof(with), "%.*s\ncredit: Al Viro, 22 Oct 2010 (seed 005)%s",
		 (int)(nl - text), text, nl);
	bad_lesson("credit-seed.lesson", with, 4, "a seed number", false);
	snprintf(with, sizeof(with), "%.*s\ncredit: see ../shared/mails.txt%s", (int)(nl - text),
		 text, nl);
	bad_lesson("credit-up.lesson", with, 4, "outside the repository (../)", false);
	snprintf(with, sizeof(with), "%.*s\ncredit: what I remember of the thread%s",
		 (int)(nl - text), text, nl);
	bad_lesson("credit-none.lesson", with, 4, "names no source", false);
}
END_TEST

/* With a docs/sources.md beside the lessons, a credit must cite it. */
START_TEST(credit_not_in_sources)
{
	char text[2600];
	snprintf(text, sizeof(text),
		 "title: A test lesson\ngoal: fail\nscenario: %s\n"
		 "credit: a mail, <listed@example.org>\n"
		 "credit: another mail, <not-listed@example.org>\n\n"
		 "step: One\nat: start\ntext:\n  Hello.\n",
		 scn("one-inode-life.scn"));
	write_lesson("dummy", "");
	char docs[600];
	snprintf(docs, sizeof(docs), "%s/docs", tmpdir);
	mkdir(docs, 0755);
	strncat(docs, "/sources.md", sizeof(docs) - strlen(docs) - 1);
	FILE *f = fopen(docs, "w");
	ck_assert_ptr_nonnull(f);
	fputs("| Alice | a mail | <listed@example.org> |\n", f);
	fclose(f);
	bad_lesson("credit-unlisted.lesson", text, 5,
		   "'<not-listed@example.org>' is not listed in docs/sources.md", false);
	unlink(docs);
}
END_TEST

START_TEST(truncated_file)
{
	char text[2048];
	/* cut in the middle of the second step's key */
	snprintf(text, sizeof(text),
		 HEAD("%s") "step: One\nat: start\ntext:\n  Hello.\n\nstep: Two\nat: end\nte",
		 scn("one-inode-life.scn"));
	bad_lesson("truncated.lesson", text, 10, "step 'Two' has no text", false);
	/* and the same cut mid-line is reported as such */
	const char *path = write_lesson("truncated2.lesson", text);
	int st;
	char *out = run_cmd(&st, "%s --check --static %s 2>&1", bin_path("icache-lesson"), path);
	ck_assert_int_eq(st, 2);
	char want[600];
	snprintf(want, sizeof(want), "%s:12: the file ends in the middle of a line: truncated?",
		 path);
	ck_assert_msg(strstr(out, want), "%s", out);
	free(out);
	/* random bytes are not a lesson */
	char bin[64];
	for (int i = 0; i < 63; i++)
		bin[i] = (char)(i * 37 + 1);
	bin[63] = 0;
	bad_lesson("binary.lesson", bin, 1, "not a text file", false);
	/* a file that stops after its header has no step */
	snprintf(text, sizeof(text), HEAD("%s"), scn("one-inode-life.scn"));
	bad_lesson("nostep.lesson", text, 4, "no step:", false);
}
END_TEST

START_TEST(moment_does_not_parse)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 HEAD("%s") "step: One\nat: release no_such_lock\ntext:\n  Hello.\n",
		 scn("one-inode-life.scn"));
	bad_lesson("syntax.lesson", text, 6, "unknown lock class 'no_such_lock'", false);
}
END_TEST

START_TEST(moment_never_comes)
{
	char text[2048];
	/* one-inode-life never sets I_WILL_FREE: the trace says so */
	snprintf(text, sizeof(text),
		 HEAD("%s") "step: One\nat: start\ntext:\n  Hello.\n\n"
			    "step: Two\nat: set I_WILL_FREE of inode 42\ntext:\n  Never.\n",
		 scn("one-inode-life.scn"));
	bad_lesson("never.lesson", text, 11, "never happens in the trace", true);
}
END_TEST

START_TEST(drive_solution_must_reach)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 HEAD("%s") "step: Drive\ndrive: same\nreach: violation freed_on_list\n"
			    "solution: 0 0 0\ntext:\n  Try.\n",
		 scn("iput-lru-race-v4.scn"));
	bad_lesson("drive.lesson", text, 8, "does not reach", true);
}
END_TEST

/* ---- moments, parsed directly ------------------------------------------- */

START_TEST(moment_grammar)
{
	struct moment m;
	char err[300];
	ck_assert(moment_parse("release i_lock in iput_final on cpu0", &m, err, sizeof(err)));
	ck_assert_int_eq(m.type, EV_lock_release);
	ck_assert_uint_eq(m.classes, 1u << lock_class_by_name("i_lock"));
	ck_assert_int_eq(m.site, site_by_name("iput_final"));
	ck_assert_int_eq(m.cpu, 0);
	/* the scenario files' own spellings */
	ck_assert(moment_parse("trylock-failed i_lock of inode 42 in prune_icache", &m, err,
			       sizeof(err)));
	ck_assert_int_eq(m.trylock_ok, 0);
	ck_assert(m.has_ino && m.ino == 42);
	ck_assert(moment_parse("list rotate lru of inode 42", &m, err, sizeof(err)));
	ck_assert_int_eq(m.type, EV_inode_list);
	ck_assert(moment_parse("state I_FREEING", &m, err, sizeof(err)));
	ck_assert(m.flag_set);
	ck_assert(moment_parse("second begin iget on cpu1 after step 3", &m, err, sizeof(err)));
	ck_assert_int_eq(m.nth, 2);
	ck_assert(m.has_after && m.after_step == 3);
	ck_assert(moment_parse("last end test on cpu1", &m, err, sizeof(err)));
	ck_assert_int_eq(m.nth, -1);
	ck_assert(moment_parse("end deactivate", &m, err, sizeof(err)));
	ck_assert(!moment_parse("end unlock", &m, err, sizeof(err)));
	ck_assert(moment_parse("step 12", &m, err, sizeof(err)));
	ck_assert_int_eq(m.kind, M_STEP);
	ck_assert(!moment_parse("frobnicate i_lock", &m, err, sizeof(err)));
	ck_assert(!moment_parse("release i_lock on cpuX", &m, err, sizeof(err)));
	ck_assert(!moment_parse("set NOT_A_FLAG", &m, err, sizeof(err)));
}
END_TEST

/* ---- non-interactive: --keys --screen ------------------------------------ */

START_TEST(keys_drive_reaches_goal)
{
	fresh_state();
	/* lesson 05: answer step 3, walk to the drive step, play the solution */
	FILE *f = fopen("lessons/05-daves-order.lesson", "r");
	ck_assert_ptr_nonnull(f);
	char line[512], sol[256] = "";
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "solution: ", 10) == 0)
			for (char *p = line + 10, *q = sol; *p; p++)
				if (*p >= '0' && *p <= '9') {
					*q++ = *p;
					*q = 0;
				}
	fclose(f);
	ck_assert(sol[0]);
	int st;
	char *out = run_cmd(&st, "XDG_STATE_HOME=%s %s 5 --keys 'nncnnnnn%s' --screen 140x45 2>&1",
			    state_dir, bin_path("icache-lesson"), sol);
	ck_assert_msg(st == 0, "exit %d: %s", st, out);
	ck_assert_msg(strstr(out, "YOU ARE THE SCHEDULER"), "%s", out);
	ck_assert_msg(strstr(out, "GOAL REACHED"), "%s", out);
	ck_assert_msg(strstr(out, "Held locks") && strstr(out, "Events by CPU"), "%s", out);
	free(out);
	/* the same keys, then c: merged refuses cpu1, and says why */
	out = run_cmd(&st, "XDG_STATE_HOME=%s %s 5 --keys 'nncnnnnn%sc' --screen 140x45 2>&1",
		      state_dir, bin_path("icache-lesson"), sol);
	ck_assert_msg(strstr(out, "cannot be reached here"), "%s", out);
	ck_assert_msg(strstr(out, "waits for i_lock of"), "%s", out);
	free(out);
	free(run_cmd(&st, "rm -rf %s", state_dir));
}
END_TEST

START_TEST(keys_edit_exercise)
{
	fresh_state();
	/* lesson 08, step 6: the untouched copy does not reach the goal */
	int st;
	char *out = run_cmd(&st, "XDG_STATE_HOME=%s %s 8 --keys 'nbnnnne' --screen 130x40 2>&1",
			    state_dir, bin_path("icache-lesson"));
	ck_assert_msg(strstr(out, "Step 6/6"), "%s", out);
	ck_assert_msg(strstr(out, "does not happen yet"), "%s", out);
	free(out);
	/* the student's copy, fixed (here: the shipped solution), passes */
	free(run_cmd(&st,
		     "cp lessons/scenarios/abba-fixed.scn "
		     "%s/icache-lab/work/08-lock-order-and-deadlock-step6.scn",
		     state_dir));
	ck_assert_int_eq(st, 0);
	out = run_cmd(&st, "XDG_STATE_HOME=%s %s 8 --keys 'nbnnnne' --screen 130x40 2>&1",
		      state_dir, bin_path("icache-lesson"));
	ck_assert_msg(strstr(out, "Well done"), "%s", out);
	free(out);
	free(run_cmd(&st, "rm -rf %s", state_dir));
}
END_TEST

START_TEST(list_and_help)
{
	fresh_state();
	int st;
	char *out = run_cmd(&st, "%s --help", bin_path("icache-lesson"));
	ck_assert_int_eq(st, 0);
	ck_assert(strstr(out, "--check"));
	free(out);
	out = run_cmd(&st, "XDG_STATE_HOME=%s %s", state_dir, bin_path("icache-lesson"));
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(out, "What the inode cache is") && strstr(out, "Measure it"), "%s",
		      out);
	ck_assert(strstr(out, " new"));
	free(out);
	out = run_cmd(&st, "%s 99 2>&1", bin_path("icache-lesson"));
	ck_assert_int_eq(st, 2);
	free(out);
	out = run_cmd(&st, "%s --frob 2>&1", bin_path("icache-lesson"));
	ck_assert_int_eq(st, 2);
	free(out);
	free(run_cmd(&st, "rm -rf %s", state_dir));
}
END_TEST

/* ---- a student in a real terminal ---------------------------------------- */

static char sock[64];

static char *capture(void)
{
	int st;
	return run_cmd(&st, "tmux -L %s capture-pane -p -t lesson 2>/dev/null", sock);
}

/* Wait until the screen shows `text`; false after `secs`. */
static bool wait_for(const char *text, double secs)
{
	for (int i = 0; i < (int)(secs * 10); i++) {
		char *s = capture();
		bool ok = strstr(s, text) != NULL;
		free(s);
		if (ok)
			return true;
		usleep(100000);
	}
	return false;
}

static void keys(const char *k)
{
	int st;
	free(run_cmd(&st, "tmux -L %s send-keys -t lesson %s", sock, k));
}

START_TEST(tmux_walk_lesson_01)
{
	fresh_state();
	snprintf(sock, sizeof(sock), "lessontest%d", (int)getpid());
	char cwd[512];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	char exe[1024];
	snprintf(exe, sizeof(exe), "%s/%s", build_dir()[0] == '/' ? "" : cwd,
		 bin_path("icache-lesson"));
	int st;
	free(run_cmd(&st,
		     "cd %s && tmux -L %s new-session -d -s lesson -x 140 -y 45 "
		     "'env XDG_STATE_HOME=%s LANG=C.UTF-8 %s 1; sleep 30'",
		     cwd, sock, state_dir, exe));
	ck_assert_int_eq(st, 0);
	ck_assert_msg(wait_for("Step 1/10", 15), "the lesson did not start");
	char *s = capture();
	ck_assert_msg(strstr(s, "In this lesson you will:"), "%s", s);
	ck_assert_msg(strstr(s, "Events by CPU"), "no lanes pane: %s", s);
	free(s);

	/* step 4 asks; the trace after the moment waits for the answer */
	keys("Space Space Space");
	ck_assert(wait_for("Step 4/10", 5));
	s = capture();
	ck_assert_msg(strstr(s, "Predict first"), "%s", s);
	ck_assert_msg(strstr(s, "Inode") && strstr(s, "Held locks"), "%s", s);
	free(s);
	keys("b");
	ck_assert_msg(wait_for("Right.", 5), "no verdict");
	keys("n n n n");
	ck_assert(wait_for("Step 8/10", 5));
	keys("a"); /* a wrong answer is told so, with the right one */
	ck_assert(wait_for("Not this time", 5));
	keys("n n");
	ck_assert(wait_for("Step 10/10", 5));
	s = capture();
	ck_assert_msg(strstr(s, "I_FREEING and the end"), "%s", s);
	ck_assert_msg(strstr(s, "Sources:"), "%s", s);
	free(s);
	keys("n");
	ck_assert(wait_for("That was the last step", 5));
	keys("q");
	/* progress: all ten steps seen, done, one of two answers right */
	char path[512];
	snprintf(path, sizeof(path), "%s/icache-lab/progress", state_dir);
	bool found = false;
	for (int i = 0; i < 50 && !found; i++) {
		FILE *f = fopen(path, "r");
		char line[256];
		while (f && fgets(line, sizeof(line), f))
			found |= strcmp(line, "01-inode-cache 10 10 1 1 2\n") == 0;
		if (f)
			fclose(f);
		usleep(100000);
	}
	free(run_cmd(&st, "tmux -L %s kill-server 2>/dev/null", sock));
	ck_assert_msg(found, "progress file %s has no finished line", path);
	/* and the list says so */
	char *out = run_cmd(&st, "XDG_STATE_HOME=%s %s", state_dir, bin_path("icache-lesson"));
	ck_assert_msg(strstr(out, "done, 1/2 right"), "%s", out);
	free(out);
	free(run_cmd(&st, "rm -rf %s", state_dir));
}
END_TEST

static Suite *lessons_suite(void)
{
	Suite *s = suite_create("lessons");
	TCase *tc = tcase_create("check");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, ten_lessons_in_order);
	tcase_add_loop_test(tc, shipped_lesson_passes_check, 0, nlessons());
	suite_add_tcase(s, tc);

	tc = tcase_create("malformed");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, unknown_key);
	tcase_add_test(tc, answer_not_a_choice);
	tcase_add_test(tc, missing_scenario);
	tcase_add_test(tc, truncated_file);
	tcase_add_test(tc, credit_outside_repository);
	tcase_add_test(tc, credit_not_in_sources);
	tcase_add_test(tc, moment_does_not_parse);
	tcase_add_test(tc, moment_never_comes);
	tcase_add_test(tc, drive_solution_must_reach);
	tcase_add_test(tc, moment_grammar);
	suite_add_tcase(s, tc);

	tc = tcase_create("run");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, list_and_help);
	tcase_add_test(tc, keys_drive_reaches_goal);
	tcase_add_test(tc, keys_edit_exercise);
	tcase_add_test(tc, tmux_walk_lesson_01);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(lessons_suite());
}
