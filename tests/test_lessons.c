/*
 * test_lessons.c - icache-lesson: every shipped lesson passes --check;
 * every lesson is walked end to end in a real terminal (tmux), all ten at
 * once, every question answered wrong then right, every scheduler level
 * and exercise solved, no pane ever ahead of its moment; the lessons run
 * as a user with no reachable session daemon; the scheduler survives the
 * crash sequence and 1 000 random sequences; malformed lessons get
 * FILE:LINE: errors and exit 2.
 *
 * Most of a lesson's time is spent waiting for the session daemon to
 * record, not on a CPU: the slow cases run their lessons side by side
 * (run_parallel, walk_child), which keeps the suite to seconds.
 *
 * Run from the top of the source tree (make check does), so lessons/ is
 * found; the programs come from $BUILD/bin.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lttng/lttng.h>
#include <signal.h>
#include <glob.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/testutil.h"
#include "lessons/src/drive.h"
#include "lessons/src/glossary.h"
#include "lessons/src/lesson.h"
#include "lessons/src/lesson_trace.h"
#include "lessons/src/moment.h"
#include "viewer/names.h"

/* A test body run by side_by_side (below) in a child of its own. */
#define SIDE_TEST(name) static void name##_fn(int _i CK_ATTRIBUTE_UNUSED)

/* A private state directory per test, so progress starts empty. */
static char state_dir[256];

static void fresh_state(void)
{
	snprintf(state_dir, sizeof(state_dir), "/tmp/test-lessons-state.%d", (int)getpid());
	int st;
	free(run_cmd(&st, "rm -rf %s && mkdir -p %s", state_dir, state_dir));
}

/* ... and its removal at the end of the test. */
static void drop_state(void)
{
	int st;
	free(run_cmd(&st, "rm -rf %s", state_dir));
}

/* icache-lesson ARGS (printf-made) with that state directory: its output,
 * stderr too, and its status in *st. */
static char *lesson_run(int *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *lesson_run(int *st, const char *fmt, ...)
{
	char args[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return run_cmd(st, "XDG_STATE_HOME=%s %s %s 2>&1", state_dir, bin_path("icache-lesson"),
		       args);
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

/*
 * Run n shell commands at once: most of what a lesson test waits for is
 * the session daemon, not a CPU.  out[i] gets each one's stdout and
 * stderr (malloc'd), st[i] its exit status (-1: killed).
 */
static void run_parallel(int n, char *const *cmd, char **out, int *st)
{
	pid_t pid[64];
	char path[64][80];
	ck_assert_int_le(n, 64);
	for (int i = 0; i < n; i++) {
		snprintf(path[i], sizeof(path[i]), "/tmp/test-lessons-par.%d.%d", (int)getpid(), i);
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0) {
			int fd = open(path[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
			int in = open("/dev/null", O_RDONLY);
			if (fd < 0 || in < 0)
				_exit(126);
			dup2(fd, 1);
			dup2(fd, 2);
			dup2(in, 0);
			execl("/bin/sh", "sh", "-c", cmd[i], (char *)NULL);
			_exit(127);
		}
	}
	for (int i = 0; i < n; i++) {
		int status = -1;
		while (waitpid(pid[i], &status, 0) < 0 && errno == EINTR)
			;
		st[i] = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		FILE *f = fopen(path[i], "r");
		size_t cap = 1 << 16, len = 0;
		out[i] = malloc(cap);
		ck_assert_ptr_nonnull(out[i]);
		for (size_t got; f && (got = fread(out[i] + len, 1, cap - len - 1, f)) > 0;) {
			len += got;
			if (len + 1 == cap) {
				cap *= 2;
				out[i] = realloc(out[i], cap);
				ck_assert_ptr_nonnull(out[i]);
			}
		}
		out[i][len] = 0;
		if (f)
			fclose(f);
		unlink(path[i]);
	}
}

static void free_all(int n, char **v)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
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

/* --check plays each lesson's scenario, solutions and contrasts: all
 * the lessons at once. */
START_TEST(shipped_lessons_pass_check)
{
	int n = nlessons(), st[64];
	char *cmd[64], *out[64], *f[64];
	for (int i = 0; i < n && i < 64; i++) {
		f[i] = lesson_file(i);
		ck_assert_int_ge(
			asprintf(&cmd[i], "%s --check %s", bin_path("icache-lesson"), f[i]), 0);
	}
	run_parallel(n, cmd, out, st);
	for (int i = 0; i < n; i++)
		ck_assert_msg(st[i] == 0 && strstr(out[i], ": ok"), "%s: --check exited %d:\n%s",
			      f[i], st[i], out[i]);
	free_all(n, cmd);
	free_all(n, out);
	free_all(n, f);
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

/*
 * Lessons with one mistake each, after a good header on a shipped
 * scenario: icache-lesson --check (deep: with its trace) exits 2 with one
 * line naming the file and the line.
 */
static const struct bad_case {
	const char *file, *scn, *body;
	int line;
	const char *needle;
	bool deep;
} bad_cases[] = {
	{ "unknown-key.lesson", "one-inode-life.scn",
	  "step: One\nat: start\ncolour: red\ntext:\n  Hello.\n", 7, "unknown key 'colour'",
	  false },
	{ "answer.lesson", "one-inode-life.scn",
	  "step: One\nat: start\ntext:\n  Hello.\n"
	  "ask: Which?\nchoice: cpu0\nchoice: cpu1\nanswer: cpu2\n",
	  12, "answer: 'cpu2' is not one of the choices", false },
	{ "syntax.lesson", "one-inode-life.scn",
	  "step: One\nat: release no_such_lock\ntext:\n  Hello.\n", 6,
	  "unknown lock class 'no_such_lock'", false },
	/* one-inode-life never sets I_WILL_FREE: the trace says so */
	{ "never.lesson", "one-inode-life.scn",
	  "step: One\nat: start\ntext:\n  Hello.\n\n"
	  "step: Two\nat: set I_WILL_FREE of inode 42\ntext:\n  Never.\n",
	  11, "never happens in the trace", true },
	{ "drive.lesson", "iput-lru-race-v4.scn",
	  "step: Drive\ndrive: same\nreach: violation freed_on_list\n"
	  "solution: 0 0 0\nhint: Look.\nhint: There.\ntext:\n  Try.\n",
	  8, "does not reach", true },
	/* A scheduler level or an exercise has graded hints: what to look
	 * for, then where (the answer comes after them); one that only
	 * gives the answer is not graded. */
	{ "hints.lesson", "iput-lru-race-v4.scn",
	  "step: Drive\ndrive: same\nreach: violation freed_on_list\n"
	  "solution: 0000 11111111111111111111111111111 00\n"
	  "hint: Press 0000 then hold 1.\ntext:\n  Try.\n",
	  6, "needs graded hints", false },
};

START_TEST(bad_lesson_cases)
{
	const struct bad_case *c = &bad_cases[_i];
	char text[2048];
	snprintf(text, sizeof(text), HEAD("%s") "%s", scn(c->scn), c->body);
	bad_lesson(c->file, text, c->line, c->needle, c->deep);
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
	char *out = run_expect(2, "%s --check --static %s 2>&1", bin_path("icache-lesson"), path);
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

SIDE_TEST(keys_drive_reaches_goal)
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
	/* after the first press, a sentence says what it did */
	char with[300];
	snprintf(with, sizeof(with), "%c<Print>%s", sol[0], sol + 1);
	char *out = lesson_run(&st, "5 --keys 'nncnnnnn%s' --screen 140x45", with);
	ck_assert_msg(st == 0, "exit %d: %s", st, out);
	ck_assert_msg(strstr(out, "Last press: cpu0 began iput 42, took i_lock"), "%s", out);
	/* each CPU's program, as far as the presses went: cpu0 inside its
	 * iput, cpu1 not begun (the trace runs on to the scenario's end,
	 * which must not count) */
	char *first = strstr(out, "\f\n");
	ck_assert_ptr_nonnull(first);
	*first = 0;
	ck_assert_msg(strstr(out, "cpu0: > iput 42") &&
			      strstr(out, "cpu1: iget 42  unlink 42  iput 42"),
		      "%s", out);
	*first = '\f';
	/* the code, each CPU's next line marked: after that press cpu0's
	 * next is the i_count drop in iput, cpu1 has not started */
	ck_assert_msg(strstr(out, "Code: each CPU's next line") &&
			      strstr(out, "cpu0 next iput line:"),
		      "%s", out);
	ck_assert_msg(strstr(out, "YOU ARE THE SCHEDULER"), "%s", out);
	ck_assert_msg(strstr(out, "GOAL REACHED"), "%s", out);
	ck_assert_msg(strstr(out, "Held locks") && strstr(out, "Events by CPU"), "%s", out);
	free(out);
	/* the same keys, then c: merged refuses cpu1, and says why */
	out = run_cmd(&st,
		      "XDG_CACHE_HOME=%s/cache XDG_STATE_HOME=%s %s 5 --keys 'nncnnnnn%sc' "
		      "--screen 140x45 2>&1",
		      state_dir, state_dir, bin_path("icache-lesson"), sol);
	ck_assert_msg(strstr(out, "cannot be reached here"), "%s", out);
	ck_assert_msg(strstr(out, "waits for i_lock inode"), "%s", out);
	free(out);
	/* ~40 temporary traces, and no index cache of any left behind */
	out = run_cmd(&st, "find %s/cache -type f 2>/dev/null", state_dir);
	ck_assert_msg(!out[0], "the lesson left index caches of its temporary traces:\n%s", out);
	free(out);
	drop_state();
}
END_TEST

/* The ABBA programs kept, scheduled so they happen not to deadlock, and
 * the student's own expect line claiming success. */
static const char nonfix[] = "scheme merged\ntitle ABBA kept, scheduled around\n"
			     "cpu0: lock a\ncpu0: lock b\ncpu0: unlock b\ncpu0: unlock a\n"
			     "cpu1: lock b\ncpu1: lock a\ncpu1: unlock a\ncpu1: unlock b\n"
			     "cpu0 to end\ncpu1 to end\nexpect violation lock_cycle\n";

SIDE_TEST(keys_edit_exercise)
{
	fresh_state();
	/* lesson 08, step 6: the untouched copy does not pass */
	int st;
	char *out = lesson_run(&st, "8 --keys 'nbnnnne' --screen 130x40");
	ck_assert_msg(strstr(out, "Step 6/6"), "no step 6");
	ck_assert_msg(strstr(out, "Not yet."), "the untouched copy passed");
	free(out);
	/* a non-fix (the order kept, both CPUs run to the end, the student
	 * expecting the cycle) is rejected for the cycle, in full */
	char work[512];
	snprintf(work, sizeof(work), "%s/icache-lab/work/08-lock-order-and-deadlock-step6.scn",
		 state_dir);
	FILE *f = fopen(work, "w");
	ck_assert_ptr_nonnull(f);
	fputs(nonfix, f);
	fclose(f);
	out = lesson_run(&st, "8 --step 6 --keys e --screen 120x40");
	ck_assert_msg(!strstr(out, "Well done"), "the non-fix passed");
	ck_assert_msg(strstr(out, "'violation lock_cycle' happens"), "no reason given");
	/* the validator's whole report, to its last words, at 120x40 */
	ck_assert_msg(strstr(out, "DEADLOCK") && strstr(out, "holds:"), "the report is cut:\n%s",
		      out);
	/* ... and the panes show the student's run: its cycle */
	ck_assert_msg(strstr(out, "possible circular locking dependency"), "not the student's run");
	free(out);
	/* the shipped solution passes, and progress records the exercise */
	free(run_cmd(&st, "cp lessons/scenarios/abba-fixed.scn %s", work));
	ck_assert_int_eq(st, 0);
	out = lesson_run(&st, "8 --step 6 --keys e --screen 130x40");
	ck_assert_msg(strstr(out, "Well done"), "the fix did not pass");
	free(out);
	out = run_cmd(&st, "XDG_STATE_HOME=%s %s --progress", state_dir, bin_path("icache-lesson"));
	ck_assert_msg(strstr(out, "exercises 1/2 solved"), "%s", out);
	free(out);
	drop_state();
}
END_TEST

SIDE_TEST(list_and_help)
{
	fresh_state();
	int st;
	char *out = run_expect(0, "%s --help", bin_path("icache-lesson"));
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
	drop_state();
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
	for (int i = 0; i < (int)(secs * test_slowdown() * 10); i++) {
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

/*
 * A lesson in a terminal of its own, from a fresh state: the tmux socket
 * "TAGPID" (sock), the current directory into cwd[512] and the lesson
 * runner's absolute path into exe[1024].
 */
static void lesson_terminal(const char *tag, char *cwd, char *exe)
{
	fresh_state();
	snprintf(sock, sizeof(sock), "%s%d", tag, (int)getpid());
	ck_assert_ptr_nonnull(getcwd(cwd, 512));
	snprintf(exe, 1024, "%s/%s", build_dir()[0] == '/' ? "" : cwd, bin_path("icache-lesson"));
}

SIDE_TEST(tmux_walk_lesson_01)
{
	char cwd[512], exe[1024];
	lesson_terminal("lessontest", cwd, exe);
	int st;
	free(run_cmd(&st,
		     "cd %s && tmux -L %s new-session -d -s lesson -x 140 -y 45 "
		     "'env XDG_STATE_HOME=%s LANG=C.UTF-8 %s 1; sleep 30'",
		     cwd, sock, state_dir, exe));
	ck_assert_int_eq(st, 0);
	ck_assert_msg(wait_for("Step 1/11", 15), "the lesson did not start");
	char *s = capture();
	ck_assert_msg(strstr(s, "In this lesson you will:"), "%s", s);
	ck_assert_msg(strstr(s, "Events by CPU"), "no lanes pane: %s", s);
	free(s);

	/* step 4 asks; the panes never show what comes after the moment */
	keys("Space Space Space");
	ck_assert(wait_for("Step 4/11", 5));
	s = capture();
	ck_assert_msg(strstr(s, "Predict first"), "%s", s);
	ck_assert_msg(strstr(s, "Inode") && strstr(s, "Held locks"), "%s", s);
	free(s);
	keys("b");
	ck_assert_msg(wait_for("Right.", 5), "no verdict");
	keys("n n n n");
	ck_assert(wait_for("Step 8/11", 5));
	keys("a"); /* a wrong answer gets a second try */
	ck_assert(wait_for("Not this one", 5));
	s = capture();
	ck_assert_msg(!strstr(s, "worth keeping"), "the explanation came early: %s", s);
	free(s);
	keys("b");
	ck_assert(wait_for("Right on the second try", 5));
	keys("n n n");
	ck_assert(wait_for("Step 11/11", 5));
	s = capture();
	ck_assert_msg(strstr(s, "I_FREEING and the end"), "%s", s);
	ck_assert_msg(strstr(s, "Sources:"), "%s", s);
	free(s);
	keys("n");
	ck_assert(wait_for("That was the last step", 5));
	keys("q");
	/* progress: all eleven steps seen, done, one of two FIRST answers
	 * right, the marks of each step */
	char path[512];
	snprintf(path, sizeof(path), "%s/icache-lab/progress", state_dir);
	bool found = false;
	for (int i = 0; i < 50 && !found; i++) {
		FILE *f = fopen(path, "r");
		char line[256];
		while (f && fgets(line, sizeof(line), f))
			found |= strcmp(line, "01-inode-cache 11 11 1 1 2 11 ...R...W...\n") == 0;
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
	drop_state();
}
END_TEST

/* ---- scheduler mode: the crash sequence and random presses -------------- */

/* Nothing a student sees may look like memory garbage or leak our
 * plumbing: what it shows that it should not, or NULL. */
static const char *unclean(const char *screen)
{
	static const char *const bad[] = { "/tmp/", "exited", "icache-drive", ".scn:", "(null)" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strstr(screen, bad[i]))
			return bad[i];
	/* a negative number (like -93913413) is garbage everywhere but
	 * "cpu-1", the lane of events without a CPU */
	for (const char *p = screen; (p = strchr(p, '-')); p++)
		if (p[1] >= '0' && p[1] <= '9' &&
		    (p == screen || p[-1] == ' ' || p[-1] == '(' || p[-1] == '=' || p[-1] == '|'))
			return "a negative number";
	return NULL;
}

static void assert_clean(const char *screen, const char *what)
{
	const char *bad = unclean(screen);
	ck_assert_msg(!bad, "%s shows %s:\n%.3000s", what, bad, screen);
}

SIDE_TEST(scheduler_crash_sequence)
{
	/* The issue's sequence: lesson 05 step 8, 1 x15, 0 x33, then 0, 0:
	 * it crashed in draw_graph after drawing garbage.  In a terminal,
	 * key bursts and all. */
	fresh_state();
	snprintf(sock, sizeof(sock), "lessoncrash%d", (int)getpid());
	char cwd[512];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	int st;
	free(run_cmd(
		&st,
		"cd %s && tmux -L %s new-session -d -s lesson -x 150 -y 45 "
		"'env XDG_STATE_HOME=%s LANG=C.UTF-8 %s/%s 5 --step 8; echo EXIT=$?; sleep 30'",
		cwd, sock, state_dir, build_dir()[0] == '/' ? "" : cwd, bin_path("icache-lesson")));
	ck_assert_int_eq(st, 0);
	ck_assert_msg(wait_for("YOU ARE THE SCHEDULER", 15), "no scheduler step");
	keys("1 1 1 1 1 1 1 1 1 1 1 1 1 1 1");
	keys("0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0");
	ck_assert(wait_for("Your schedule (", 15));
	keys("0");
	keys("0");
	ck_assert_msg(wait_for("Refused:", 15), "the overshooting presses were not refused");
	usleep(500000);
	char *scr = capture();
	ck_assert_msg(!strstr(scr, "EXIT="), "the lesson died:\n%s", scr);
	ck_assert_msg(strstr(scr, "has finished its program"), "%s", scr);
	assert_clean(scr, "the crash sequence");
	free(scr);
	keys("q");
	ck_assert_msg(wait_for("EXIT=0", 10), "no clean exit");
	free(run_cmd(&st, "tmux -L %s kill-server 2>/dev/null", sock));
	drop_state();
}
END_TEST

/*
 * "cpuN next", the scheduler levels' key press, stops after a step that
 * matters: the beginning of an operation and a lock request taken at once
 * run on, a free runs on until the memory is freed (here: to the end).
 */
SIDE_TEST(next_stops_where_it_matters)
{
	static const char text[] = "scheme merged\ninode 42 held cpu0\n"
				   "cpu0: iput 42\ncpu1: iget 43\n"
				   "cpu0 next\ncpu0 next\nexpect no violation\n";
	const char *path = write_lesson("next.scn", text);
	int st;
	char *out = run_cmd(&st, "%s play --verbose %s 2>&1", bin_path("icache-sim"), path);
	ck_assert_msg(st == 0, "%s", out);
	/* the first segment: begin, acquire, acquired i_lock; then it stops */
	char *one = strstr(out, "-- line 5: cpu0 next");
	char *two = strstr(out, "-- line 6: cpu0 next");
	ck_assert_msg(one && two, "%s", out);
	*two = 0;
	ck_assert_msg(strstr(one, "begin iput 42") && strstr(one, "acquired i_lock inode 42") &&
			      strstr(one, "cpu0 stops"),
		      "%s", one);
	ck_assert_msg(!strstr(one, "ref inode 42"), "ran past the lock: %s", one);
	*two = '-';
	char *rest = strstr(two, "\n-- ");
	if (rest)
		*rest = 0;
	ck_assert_msg(strstr(two, "ref inode 42: 1 -> 0") && strstr(two, "cpu0 stops"), "%s", two);
	free(out);
	/* an unlinked inode's last iput: the press that frees it runs on */
	static const char gone[] = "scheme merged\ninode 42 held cpu0\n"
				   "cpu0: unlink 42\ncpu0: iput 42\ncpu1: iget 43\n";
	char big[2048];
	int k = snprintf(big, sizeof(big), "%s", gone);
	for (int i = 0; i < 40; i++)
		k += snprintf(big + k, sizeof(big) - (size_t)k, "cpu0 next\n");
	snprintf(big + k, sizeof(big) - (size_t)k, "expect no violation\n");
	path = write_lesson("next-free.scn", big);
	out = run_cmd(&st, "%s play --verbose %s 2>&1", bin_path("icache-sim"), path);
	char *free_at = strstr(out, "free inode 42");
	ck_assert_msg(free_at, "%s", out);
	char *nl = strchr(free_at, '\n');
	ck_assert_msg(nl && strncmp(nl + 1, "-- line", 7) != 0, "stopped at the free:\n%s", out);
	ck_assert_msg(strstr(out, "has already finished its program"), "%s", out);
	free(out);
}
END_TEST

/*
 * Random key sequences (CPU numbers, some past a CPU's end, some for a
 * CPU that does not exist, some undos) on lesson 05's race, lesson 08's
 * ABBA and the merged race, straight through drive.h: each settles
 * without an error, keeps only presses play accepts (settling again drops
 * nothing), and every reason given is one of the sentences a student is
 * meant to read.  every_sequence_drawn draws 1 000 such sequences on
 * screen; random_sequences_drawn records a few through the session daemon.
 */
SIDE_TEST(scheduler_random_sequences)
{
	setenv("ICACHE_SIM", bin_path("icache-sim"), 1);
	static const char *const scns[] = { "iput-lru-race-v4.scn", "abba-deadlock.scn",
					    "iput-lru-race-merged.scn" };
	/* _i is the half: 100 sequences each, side by side (sched_cases) */
	unsigned seed = 20101022u + 7919u * (unsigned)_i;
	for (int run = 0; run < 100; run++) {
		struct drive *d = drive_new(scn(scns[(2 * run + _i) % 3]));
		char err[400];
		ck_assert(drive_load(d, err, sizeof(err)));
		int n = 1 + (int)(rand_r(&seed) % 16);
		for (int i = 0; i < n; i++) {
			unsigned r = rand_r(&seed) % 10;
			if (r == 9)
				drive_undo(d);
			else if (r % 3 < (unsigned)drive_ncpus(d))
				drive_push(d, (int)(r % 3));
		}
		if (run % 10 == 9) /* now and then a long one, past the ends */
			for (int i = 0; i < 40; i++)
				drive_push(d, (int)(rand_r(&seed) % 2));
		struct drive_outcome o;
		ck_assert_msg(drive_settle(d, &o, err, sizeof(err)), "run %d: %s", run, err);
		if (o.refused) {
			ck_assert_msg(
				strstr(o.why, " is blocked: it ") || strstr(o.why, " sleeps ") ||
					strstr(o.why, "every CPU with work left is blocked") ||
					strstr(o.why, " has finished its program"),
				"run %d: reason '%s'", run, o.why);
			assert_clean(o.why, "a refusal");
		}
		int kept = drive_nkeys(d);
		drive_outcome_free(&o);
		if (run % 10 == 0) { /* a tenth: settling again keeps all */
			ck_assert(drive_settle(d, &o, err, sizeof(err)));
			ck_assert_msg(!o.refused && drive_nkeys(d) == kept,
				      "run %d: settling twice dropped more (%s)", run, o.why);
			drive_outcome_free(&o);
		}
		drive_free(d);
	}
}
END_TEST

/* A few random sequences recorded and drawn, in four runs of the lesson
 * at once (three sequences each): r starts the schedule over, <Print>
 * shows each screen; 2 is no CPU here and is refused on the status line. */
SIDE_TEST(random_sequences_drawn)
{
	fresh_state();
	unsigned seed = 42;
	char *cmd[4], *out[4];
	int st[4];
	for (int p = 0; p < 4; p++) {
		char k[2048] = "";
		size_t len = 0;
		for (int run = 0; run < 3; run++) {
			int n = 5 + (int)(rand_r(&seed) % 50);
			for (int i = 0; i < n; i++) {
				unsigned r = rand_r(&seed) % 10;
				k[len++] = r == 9 ? 'u' : (char)('0' + r % 3);
			}
			len += (size_t)snprintf(k + len, sizeof(k) - len, "<Print>r");
		}
		ck_assert_int_ge(asprintf(&cmd[p],
					  "XDG_STATE_HOME=%s/%d %s 5 --step 8 --keys '%s' --screen "
					  "150x45 2>&1",
					  state_dir, p, bin_path("icache-lesson"), k),
				 0);
	}
	run_parallel(4, cmd, out, st);
	for (int p = 0; p < 4; p++) {
		ck_assert_msg(st[p] == 0, "exit %d: %.2000s", st[p], out[p]);
		int screens = 0;
		for (char *q = out[p]; (q = strstr(q, "YOU ARE THE SCHEDULER")); q++)
			screens++;
		ck_assert_int_ge(screens, 3);
		assert_clean(out[p], "random sequences");
	}
	free_all(4, cmd);
	free_all(4, out);
	int rs;
	free(run_cmd(&rs, "rm -rf %s", state_dir));
}
END_TEST

/* ---- every random sequence drawn and its screen checked ------------------ */

static long long max_event_shown(const char *screen, int narrative_w);

/* One scheduler level of a shipped lesson. */
struct level {
	char name[64]; /* the lesson's name, for icache-lesson */
	int step;      /* 1-based */
	int ncpus;
	bool compare;
};

static int shipped_levels(struct level *lv, int max)
{
	int n = 0;
	for (int i = 0; i < nlessons(); i++) {
		char *f = lesson_file(i);
		struct diag d = { 0 };
		struct lesson *l = lesson_parse(f, &d);
		ck_assert_msg(l && d.n == 0, "%s does not parse", f);
		for (int k = 0; k < l->nsteps && n < max; k++) {
			const struct step *s = &l->steps[k];
			if (s->kind != STEP_DRIVE)
				continue;
			char *path = lesson_resolve(l, step_scenario(l, s));
			struct drive *dr = drive_new(path);
			char err[400];
			ck_assert_msg(drive_load(dr, err, sizeof(err)), "%s: %s", path, err);
			snprintf(lv[n].name, sizeof(lv[n].name), "%s", l->name);
			lv[n].step = k + 1;
			lv[n].ncpus = drive_ncpus(dr);
			lv[n].compare = s->compare != NULL;
			n++;
			drive_free(dr);
			free(path);
		}
		lesson_free(l);
		ldiag_free(&d);
		free(f);
	}
	return n;
}

/*
 * Every scheduler level has its contrast (compare:): c replays the
 * student's presses where the goal cannot happen.  --check (above)
 * proves each contrast refuses the level's solution; the tmux walk
 * presses c after solving each level.
 */
START_TEST(every_level_has_a_contrast)
{
	struct level lv[64];
	int n = shipped_levels(lv, 64);
	for (int i = 0; i < n; i++)
		ck_assert_msg(lv[i].compare,
			      "lesson %s step %d: a scheduler level without compare:", lv[i].name,
			      lv[i].step);
	ck_assert_int_ge(n, 6);
}
END_TEST

/*
 * One random sequence for a level, in --keys notation, then <Print>:
 * CPU numbers (now and then one the level does not have), undos, a long
 * tail of presses past the CPUs' ends, the contrast (c) and a hint (i).
 * The presses of the sequence before are undone first (r now and then:
 * that too is what a student does).  Returns the presses typed.
 */
static int random_sequence(unsigned *seed, int run, int ncpus, bool compare, int undo, char *k,
			   size_t cap)
{
	size_t len = strlen(k);
	int typed = 0;
	if (run % 10 == 3)
		k[len++] = 'r';
	else
		for (int i = 0; i < undo && len + 1 < cap; i++)
			k[len++] = 'u';
	int n = 1 + (int)(rand_r(seed) % 16);
	if (run % 10 == 9) /* now and then a long one, past the ends */
		n += 40;
	for (int i = 0; i < n && len + 1 < cap; i++) {
		unsigned r = rand_r(seed) % 20;
		if (r >= 18)
			k[len++] = 'u';
		else if (r == 17) /* a CPU the level does not have */
			k[len++] =
				(char)('0' + ncpus + (int)(rand_r(seed) % (unsigned)(10 - ncpus)));
		else
			k[len++] = (char)('0' + (int)(r % (unsigned)ncpus)), typed++;
	}
	if (compare && run % 7 == 5)
		k[len++] = 'c';
	if (run % 11 == 6)
		k[len++] = 'i';
	k[len] = 0;
	snprintf(k + len, cap - len, "<Print>");
	return typed;
}

/* The screen's lines (at most h; each cut at its '\n'), in line[]. */
static int screen_lines(char *scr, char **line, int h)
{
	int n = 0;
	for (char *p = scr; p && *p && n < h; n++) {
		line[n] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = 0;
	}
	return n;
}

/* The screen's lines joined again (screen_lines undone). */
static void screen_join(char **line, int n)
{
	for (int y = 0; y + 1 < n; y++)
		line[y][strlen(line[y])] = '\n';
}

/* An event of no CPU (the run's start, its lock-order rules) takes a
 * lanes row's whole width: its text may cover the lane borders. */
static bool full_width_row(const char *text)
{
	static const char *const word[] = { "order_rule ", "run_begin ", "run_end ", "note " };
	text += strspn(text, " ");
	for (size_t i = 0; i < sizeof(word) / sizeof(word[0]); i++)
		if (!strncmp(text, word[i], strlen(word[i])))
			return true;
	return false;
}

/* The lanes (their rows, from the header to the border below): lane text
 * never over a lane's border, and no event after the cursor, which sits
 * on the last event of the presses.  NULL, or what is wrong. */
static const char *lanes_bad(char **line, int n, char *why, size_t len)
{
	int head = -1;
	for (int y = 1; y < n && head < 0; y++)
		if (strstr(line[y], "[ Events by CPU ]") || strstr(line[y], "- Events by CPU -"))
			head = y + 1;
	if (head < 0 || head >= n)
		return NULL; /* not shown: the checks above still hold */
	const char *hl = line[head], *ev = strstr(hl, " event ");
	if (!ev) {
		snprintf(why, len, "no lanes header at line %d", head);
		return why;
	}
	int x0 = (int)(ev - hl), sep[10], nsep = 0;
	while (x0 > 0 && hl[x0 - 1] != '|')
		x0--;
	for (const char *p = ev + 7; *p && p[1] && nsep < 10; p++)
		if (*p == '|' && p[1] != '|')
			sep[nsep++] = (int)(p - hl);
	long long cursor = -1, most = -1;
	for (int y = head + 1; y < n && line[y][x0] != '+'; y++) {
		const char *l = line[y] + x0;
		long long v;
		if (!isdigit((unsigned char)l[strspn(l, "> ")]) || sscanf(l, "%*[> ]%lld", &v) != 1)
			continue;
		if (l[0] == '>')
			cursor = v;
		most = v > most ? v : most;
		if (full_width_row(l + strspn(l, "> ") + strspn(l + strspn(l, "> "), "0123456789")))
			continue;
		for (int s = 0; s < nsep; s++)
			if ((int)strlen(line[y]) <= sep[s] || line[y][sep[s]] != '|') {
				snprintf(why, len, "lane text over a lane border at line %d", y);
				return why;
			}
	}
	if (cursor < 0) {
		snprintf(why, len, "no cursor in the lanes");
		return why;
	}
	if (most > cursor) {
		snprintf(why, len, "event %lld in the lanes past the last press (event %lld)", most,
			 cursor);
		return why;
	}
	return NULL;
}

/*
 * What is wrong with a scheduler screen (w x h, one byte a column), or
 * NULL: plumbing or a negative number (unclean), a line too long, a pane
 * border broken by text, the lanes (lanes_bad), an event number in
 * another pane past the lanes' cursor.
 */
static const char *sched_screen_bad(char *scr, int w, int h, char *why, size_t len)
{
	const char *bad = unclean(scr);
	if (bad) {
		snprintf(why, len, "shows %s", bad);
		return why;
	}
	char *line[256];
	int n = screen_lines(scr, line, h < 256 ? h : 256);
	bad = n == h ? NULL : "not a whole screen";
	for (int y = 0; y < n && !bad; y++)
		if ((int)strlen(line[y]) > w)
			bad = "a line too long";
	/* the panes' left and right borders: the corners of the first row */
	for (int x = 0; n > 2 && !bad && line[1][x]; x++)
		for (int y = 1; y < n - 1 && line[1][x] == '+' && !bad; y++)
			if ((int)strlen(line[y]) <= x || !strchr("|+", line[y][x])) {
				snprintf(why, len, "text over a pane border at line %d column %d",
					 y, x);
				bad = why;
			}
	if (!bad)
		bad = lanes_bad(line, n, why, len);
	/* the panes below the code pane (its numbers are source lines) */
	int lw = w * 2 / 5, code = -1;
	const char *rest = scr;
	for (int y = 1; y < n; y++)
		if (code < 0 && strstr(line[y], "- Code: "))
			code = y;
		else if (code >= 0 && (int)strlen(line[y]) > lw && line[y][lw] == '+') {
			rest = y + 1 < n ? line[y + 1] : "";
			break;
		}
	screen_join(line, n);
	if (bad)
		return bad;
	long long cursor = -1, shown = max_event_shown(rest, lw);
	const char *c = strstr(scr, "||>");
	if (c && sscanf(c + 3, "%lld", &cursor) == 1 && shown > cursor) {
		snprintf(why, len, "event %lld shown past the last press (event %lld)", shown,
			 cursor);
		return why;
	}
	return NULL;
}

/* sched_screen_bad sees what it claims to: a copy of a good screen
 * broken each way in turn is refused. */
static void checks_catch(const char *good, int w, int h)
{
	char why[200], *s = strdup(good);
	ck_assert_ptr_nonnull(s);
	ck_assert_msg(!sched_screen_bad(s, w, h, why, sizeof(why)), "%s", why);
	/* a pane border (the right column's left one, on the last pane row) */
	char *row = s;
	for (int y = 0; y < h - 2; y++)
		row = strchr(row, '\n') + 1;
	size_t lw = (size_t)(w * 2 / 5);
	row[lw] = 'x';
	ck_assert_ptr_nonnull(sched_screen_bad(s, w, h, why, sizeof(why)));
	row[lw] = '|';
	/* a negative number in the lanes */
	char *cur = strstr(s, "||>");
	ck_assert_ptr_nonnull(cur);
	char *num = cur + 3 + strspn(cur + 3, " ");
	char keep = num[-1];
	num[-1] = '-';
	ck_assert_ptr_nonnull(sched_screen_bad(s, w, h, why, sizeof(why)));
	num[-1] = keep;
	/* an event past the cursor, in the row above it */
	char *above = cur;
	while (above > s && above[-1] != '\n')
		above--;
	above -= 2;
	while (above > s && above[-1] != '\n')
		above--;
	char *n2 = strstr(above, "||");
	ck_assert_ptr_nonnull(n2);
	n2 += 2 + strspn(n2 + 2, " ");
	ck_assert_msg(isdigit((unsigned char)*n2), "no event above the cursor:\n%s", s);
	char saved[4];
	memcpy(saved, n2 - 3, 4);
	memcpy(n2 - 3, "9999", 4);
	ck_assert_ptr_nonnull(sched_screen_bad(s, w, h, why, sizeof(why)));
	memcpy(n2 - 3, saved, 4);
	/* lane text over a lane border */
	char *bar = strchr(cur + 3, '|');
	ck_assert_ptr_nonnull(bar);
	*bar = 'x';
	ck_assert_ptr_nonnull(sched_screen_bad(s, w, h, why, sizeof(why)));
	*bar = '|';
	ck_assert_msg(!sched_screen_bad(s, w, h, why, sizeof(why)), "%s", why);
	free(s);
}

/* A copy of icache-sim that writes every recording itself (play
 * --ctf-direct: the same events, tests/test_direct.c), not through the
 * session daemon: a thousand recordings in seconds. */
static const char *direct_sim(void)
{
	static char path[300];
	snprintf(path, sizeof(path), "%s/direct-sim", state_dir);
	write_script(path,
		     "#!/bin/sh\n"
		     "o=\n"
		     "for a; do\n"
		     "\tshift\n"
		     "\tcase $a in --ctf-direct*) continue ;; -o) o=1 ;; esac\n"
		     "\tset -- \"$@\" \"$a\"\n"
		     "done\n"
		     "[ -n \"$o\" ] && set -- \"$@\" --ctf-direct\n"
		     "exec %s \"$@\"\n",
		     bin_path("icache-sim"));
	return path;
}

/* A refusal gives one of the sentences a student is meant to read. */
static bool refusal_ok(const char *scr)
{
	const char *r = strstr(scr, "Refused: ");
	if (!r)
		return true;
	char text[700];
	/* the sentence wraps: join the narrative's lines up to its end */
	size_t n = 0;
	for (const char *p = r; *p && n + 1 < sizeof(text) && !strstr(text, " kept."); p++) {
		if (*p == '|') { /* the narrative's right border: skip to the next line's text */
			p = strchr(p, '\n');
			if (!p || !(p = strchr(p + 1, '|')))
				break;
			text[n++] = ' ';
			text[n] = 0;
			continue;
		}
		text[n++] = *p;
		text[n] = 0;
	}
	return strstr(text, " is blocked: it ") || strstr(text, " sleeps ") ||
	       strstr(text, "every CPU with work left is blocked") ||
	       strstr(text, " has finished its program");
}

/*
 * The issue's claim in full: 1 000 random key sequences in scheduler
 * mode, on every scheduler level of every lesson, each one drawn by the
 * lesson runner's own drawing code (--keys, <Print> after each) and its
 * screen checked (sched_screen_bad, refusal_ok).  One runner per level,
 * all side by side.
 */
SIDE_TEST(every_sequence_drawn)
{
	enum { W = 150, H = 45, MAXLV = 16, CAP = 1 << 16 };
	fresh_state();
	struct level lv[MAXLV];
	int nl = shipped_levels(lv, MAXLV);
	ck_assert_int_ge(nl, 6);
	const char *sim = direct_sim();
	char *keys[MAXLV], *cmd[MAXLV], *out[MAXLV];
	int st[MAXLV], seqs[MAXLV] = { 0 }, typed[MAXLV] = { 0 };
	for (int j = 0; j < nl; j++) {
		keys[j] = calloc(CAP, 1);
		ck_assert_ptr_nonnull(keys[j]);
	}
	unsigned seed = 20101022u;
	for (int run = 0; run < 1000; run++) {
		int j = run % nl;
		typed[j] = random_sequence(&seed, run / nl, lv[j].ncpus, lv[j].compare, typed[j],
					   keys[j], CAP);
		seqs[j]++;
	}
	for (int j = 0; j < nl; j++)
		ck_assert_int_ge(asprintf(&cmd[j],
					  "ICACHE_SIM=%s XDG_STATE_HOME=%s/%d %s %s --step %d "
					  "--keys '%s' --screen %dx%d 2>%s/err.%d",
					  sim, state_dir, j, bin_path("icache-lesson"), lv[j].name,
					  lv[j].step, keys[j], W, H, state_dir, j),
				 0);
	run_parallel(nl, cmd, out, st);
	int drawn = 0, seen[4] = { 0 };
	for (int j = 0; j < nl; j++) {
		char path[400];
		snprintf(path, sizeof(path), "%s/err.%d", state_dir, j);
		struct stat sb;
		ck_assert_msg(st[j] == 0 && stat(path, &sb) == 0 && sb.st_size == 0,
			      "%s step %d: exit %d, errors in %s: %.2000s", lv[j].name, lv[j].step,
			      st[j], path, out[j]);
		int screens = 0;
		for (char *scr = out[j], *end; *scr; scr = end + 2) {
			end = strstr(scr, "\f\n");
			if (!end)
				end = scr + strlen(scr);
			char keep = *end, why[200];
			*end = 0;
			screens++;
			ck_assert_msg(strstr(scr, "YOU ARE THE SCHEDULER"),
				      "%s step %d, screen %d:\n%s", lv[j].name, lv[j].step, screens,
				      scr);
			const char *bad = sched_screen_bad(scr, W, H, why, sizeof(why));
			if (!bad && !refusal_ok(scr))
				bad = "a refusal in other words";
			if (bad) /* a screen is longer than a Check message */
				fprintf(stderr, "%s step %d, sequence %d:\n%s\n", lv[j].name,
					lv[j].step, screens, scr);
			ck_assert_msg(!bad, "%s step %d, sequence %d: %s (the screen is above)",
				      lv[j].name, lv[j].step, screens, bad);
			static const char *const what[4] = { "Refused: ", "CONTRAST: ",
							     "GOAL REACHED", "Hint 1: " };
			for (int i = 0; i < 4; i++)
				seen[i] += strstr(scr, what[i]) != NULL;
			if (j == 0 && screens == 1)
				checks_catch(scr, W, H);
			*end = keep;
			if (!keep)
				break;
		}
		/* each sequence's screen, and the one after the last key */
		ck_assert_int_eq(screens, seqs[j] + 1);
		drawn += seqs[j];
	}
	ck_assert_int_eq(drawn, 1000);
	/* the sequences went where they should: refusals, contrasts, goals */
	for (int i = 0; i < 4; i++)
		ck_assert_msg(seen[i] >= 5, "only %d screens of kind %d", seen[i], i);
	free_all(nl, keys);
	free_all(nl, cmd);
	free_all(nl, out);
	int rs;
	free(run_cmd(&rs, "rm -rf %s", state_dir));
}
END_TEST

/* ---- every lesson, end to end, in a real terminal ------------------------ */

/* The largest event number a screen's panes print (the lanes' event
 * column, the inode history, the graph's #N), or -1. */
static long long max_event_shown(const char *screen, int narrative_w)
{
	long long max = -1;
	for (const char *line = screen; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if ((int)len > narrative_w + 2) {
			const char *r = line + narrative_w + 2; /* "||" */
			long long v;
			int a, b;
			char cpu[8];
			/* lanes: "   123    0.4567 ..."; history: "   45 cpu0 ..." */
			if (sscanf(r, "%*[> ]%lld %d.%d", &v, &a, &b) == 3)
				max = v > max ? v : max;
			else if (sscanf(r, "%*[> ]%lld %7[cpu0-9]", &v, cpu) == 2 &&
				 strncmp(cpu, "cpu", 3) == 0)
				max = v > max ? v : max;
			for (const char *h = r; (h = strchr(h, '#')) && h < line + len; h++)
				if (h[1] >= '0' && h[1] <= '9') {
					v = atoll(h + 1);
					max = v > max ? v : max;
				}
		}
		line = nl ? nl + 1 : NULL;
	}
	return max;
}

/*
 * A student in a real terminal, every lesson at once: each lesson is
 * walked by a child process in its own tmux server (most of a walk is
 * spent waiting for the session daemon, not on the CPU).  At every step
 * the screen is captured and checked: no pane prints an event after the
 * step's moment, nothing looks like garbage.  Every question is answered
 * wrong first (the explanation must not show yet), then right; every
 * scheduler level gets its solution and, where it has one, `c` shows the
 * contrast refused; every exercise is handed back untouched through
 * $EDITOR (rejected), then solved.  Then progress must say all of it.
 */
struct walker {
	const struct lesson *l;
	int panes_read; /* screens whose panes' events the check read */
	char sock[64];
	char state[300];
	char err[6000];
};

#define WALK_CHECK(w, cond, ...)                                           \
	do {                                                               \
		if (!(cond)) {                                             \
			snprintf((w)->err, sizeof((w)->err), __VA_ARGS__); \
			return false;                                      \
		}                                                          \
	} while (0)

/* tmux gives the screen in UTF-8: one byte per column again, so that
 * max_event_shown finds the panes where --keys has them. */
static void ascii_screen(char *s)
{
	char *o = s;
	for (unsigned char *p = (unsigned char *)s; *p;) {
		if (*p < 0x80) {
			*o++ = (char)*p++;
			continue;
		}
		int n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
		/* U+2502 and U+2551 are borders; U+25B6 the cursor */
		bool bar = p[0] == 0xe2 && p[1] == 0x94 && p[2] == 0x82;
		bool arrow = p[0] == 0xe2 && p[1] == 0x96 && p[2] == 0xb6;
		*o++ = bar ? '|' : arrow ? '>' : '?';
		for (int i = 0; i < n && *p; i++)
			p++;
	}
	*o = 0;
}

static char *w_capture(const struct walker *w)
{
	int st;
	char *s = run_cmd(&st, "tmux -L %s capture-pane -p -t lesson 2>/dev/null", w->sock);
	ascii_screen(s);
	return s;
}

/* The screen once it shows `text` (malloc'd), or NULL after `secs`. */
static char *w_wait(const struct walker *w, const char *text, double secs)
{
	for (int i = 0; i < (int)(secs * 5); i++) {
		char *s = w_capture(w);
		if (strstr(s, text))
			return s;
		free(s);
		usleep(200000);
	}
	return NULL;
}

/* send-keys: flags "-l" sends the text as typed, "" key names. */
static void w_keys(const struct walker *w, const char *flags, const char *k)
{
	int st;
	free(run_cmd(&st, "tmux -L %s send-keys -t lesson %s '%s'", w->sock, flags, k));
}

/* No pane shows an event after the moment, and nothing is garbled. */
static bool w_screen_ok(struct walker *w, const char *scr, const char *where)
{
	const char *at = strstr(scr, "(event ");
	long long pos, of;
	if (at && sscanf(at, "(event %lld of %lld)", &pos, &of) == 2) {
		long long m = max_event_shown(scr, 160 * 2 / 5);
		WALK_CHECK(w, m <= pos, "%s, %s: a pane shows event %lld at event %lld:\n%s",
			   w->l->name, where, m, pos, scr);
		w->panes_read += m >= 0;
	}
	const char *bad = unclean(scr);
	WALK_CHECK(w, !bad, "%s, %s: the screen shows %s:\n%s", w->l->name, where, bad, scr);
	return true;
}

/* Wait until the screen shows `text`, then check that screen. */
static bool w_expect(struct walker *w, const char *text, double secs, const char *where)
{
	char *s = w_wait(w, text, secs);
	if (!s) {
		char *now = w_capture(w);
		snprintf(w->err, sizeof(w->err), "%s, %s: '%s' never came; the screen:\n%s",
			 w->l->name, where, text, now);
		free(now);
		return false;
	}
	bool ok = w_screen_ok(w, s, where);
	free(s);
	return ok;
}

/* The next $EDITOR run copies `from` over the student's copy. */
static void w_editor_gives(const struct walker *w, const char *from)
{
	int st;
	free(run_cmd(&st, "echo '%s' > %s/editor-next", from, w->state));
}

static bool w_question(struct walker *w, const struct step *s, const char *where)
{
	char k[2] = { (char)('a' + (s->answer + 1) % s->nchoice), 0 };
	w_keys(w, "-l", k);
	if (!w_expect(w, "Not this one", 30, where))
		return false;
	if (s->explain) {
		char head[32];
		snprintf(head, sizeof(head), "%.24s", s->explain);
		head[strcspn(head, "\n")] = 0;
		char *scr = w_capture(w);
		bool early = strstr(scr, head) != NULL;
		free(scr);
		WALK_CHECK(w, !early, "%s, %s: the explanation shows after a wrong answer",
			   w->l->name, where);
	}
	k[0] = (char)('a' + s->answer);
	w_keys(w, "-l", k);
	return w_expect(w, "Right on the second try", 30, where);
}

static bool w_drive(struct walker *w, const struct step *s, const char *where)
{
	char k[1024];
	size_t n = 0;
	for (const char *c = s->solution; c && *c && n + 1 < sizeof(k); c++)
		if (*c != ' ')
			k[n++] = *c;
	k[n] = 0;
	if (!w_expect(w, "Code: each CPU's next line", 30, where))
		return false;
	w_keys(w, "-l", k);
	if (!w_expect(w, "GOAL REACHED", 90, where))
		return false;
	if (!s->compare)
		return true;
	w_keys(w, "", "c");
	return w_expect(w, "cannot be reached here", 60, where);
}

static bool w_edit(struct walker *w, const struct step *s, const char *where)
{
	char *from = lesson_resolve(w->l, step_scenario(w->l, s));
	w_editor_gives(w, from);
	free(from);
	w_keys(w, "", "e");
	if (!w_expect(w, "Not yet", 60, where))
		return false;
	from = lesson_resolve(w->l, s->solution);
	w_editor_gives(w, from);
	free(from);
	w_keys(w, "", "e");
	return w_expect(w, "Well done", 60, where) &&
	       w_expect(w, "The panes show your run", 5, where);
}

static bool w_step(struct walker *w, int i)
{
	const struct step *s = &w->l->steps[i];
	char where[32], title[32];
	snprintf(where, sizeof(where), "step %d", i + 1);
	snprintf(title, sizeof(title), "Step %d/%d:", i + 1, w->l->nsteps);
	if (!w_expect(w, title, i ? 30 : 90, where))
		return false;
	if (s->ask && !w_question(w, s, where))
		return false;
	if (s->kind == STEP_DRIVE && !w_drive(w, s, where))
		return false;
	if (s->kind == STEP_EDIT && !w_edit(w, s, where))
		return false;
	w_keys(w, "", "Right");
	return true;
}

/* The progress file's line and --progress after the walk. */
static bool w_progress(struct walker *w)
{
	const struct lesson *l = w->l;
	int n = l->nsteps, asked = 0, solved = 0;
	char marks[256];
	for (int i = 0; i < n && i < 255; i++) {
		const struct step *s = &l->steps[i];
		marks[i] = s->ask ? 'W' : s->kind != STEP_NARRATE ? 'X' : '.';
		asked += s->ask != NULL;
		solved += s->kind != STEP_NARRATE;
	}
	marks[n < 255 ? n : 255] = 0;
	char want[400], path[400], line[400];
	snprintf(want, sizeof(want), "%s %d %d 1 0 %d %d %s\n", l->name, n, n, asked, n, marks);
	snprintf(path, sizeof(path), "%s/icache-lab/progress", w->state);
	bool found = false;
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		found |= strcmp(line, want) == 0;
	if (f)
		fclose(f);
	WALK_CHECK(w, found, "%s: the progress file has no line '%.*s'", l->name,
		   (int)strlen(want) - 1, want);
	int st;
	char *out = run_cmd(&st, "XDG_STATE_HOME=%s %s --progress", w->state,
			    bin_path("icache-lesson"));
	snprintf(want, sizeof(want), "finished steps %2d/%-2d", n, n);
	bool ok = strstr(out, want) != NULL;
	if (ok && asked) {
		snprintf(want, sizeof(want), "questions 0/%d right first time (%d answered)", asked,
			 asked);
		ok = strstr(out, want) != NULL;
	}
	if (ok && solved) {
		snprintf(want, sizeof(want), "exercises %d/%d solved", solved, solved);
		ok = strstr(out, want) != NULL;
	}
	snprintf(w->err, sizeof(w->err), "%s: --progress lacks '%s':\n%s", l->name, want, out);
	free(out);
	return ok;
}

static bool walk(struct walker *w, const char *exe, const char *cwd)
{
	int st;
	free(run_cmd(&st,
		     "rm -rf %s && mkdir -p %s && "
		     "echo 'cp \"$(cat %s/editor-next)\" \"$1\"' > %s/editor.sh",
		     w->state, w->state, w->state, w->state));
	free(run_cmd(
		&st,
		"cd %s && tmux -L %s new-session -d -s lesson -x 160 -y 50 "
		"'env XDG_STATE_HOME=%s EDITOR=\"sh %s/editor.sh\" VISUAL= LANG=C.UTF-8 %s %s; "
		"echo EXIT=$?; sleep 120'",
		cwd, w->sock, w->state, w->state, exe, w->l->path));
	WALK_CHECK(w, st == 0, "%s: tmux did not start", w->l->name);
	for (int i = 0; i < w->l->nsteps; i++)
		if (!w_step(w, i))
			return false;
	if (!w_expect(w, "That was the last step", 30, "the end"))
		return false;
	w_keys(w, "", "q");
	if (!w_expect(w, "EXIT=0", 30, "quitting"))
		return false;
	/* the spoiler check did read the panes, not a blank */
	WALK_CHECK(w, w->panes_read >= w->l->nsteps / 2,
		   "%s: the panes' events were read on %d screens only", w->l->name, w->panes_read);
	return w_progress(w);
}

/* One child per lesson; the failures come back in a file each. */
static pid_t walk_child(int i, const char *errfile)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	char cwd[512], exe[1024];
	bool ok = getcwd(cwd, sizeof(cwd)) != NULL;
	snprintf(exe, sizeof(exe), "%s/%s", build_dir()[0] == '/' ? "" : cwd,
		 bin_path("icache-lesson"));
	char *f = lesson_file(i);
	struct diag d = { 0 };
	struct lesson *l = f ? lesson_parse(f, &d) : NULL;
	struct walker *w = calloc(1, sizeof(*w));
	if (ok && l && w && !d.n) {
		w->l = l;
		snprintf(w->sock, sizeof(w->sock), "lessonwalk%d_%d", (int)getppid(), i);
		snprintf(w->state, sizeof(w->state), "/tmp/test-lessons-walk.%d.%d", (int)getppid(),
			 i);
		ok = walk(w, exe, cwd);
		int st;
		free(run_cmd(&st, "tmux -L %s kill-server 2>/dev/null; rm -rf %s", w->sock,
			     w->state));
	} else {
		ok = false;
		if (w)
			snprintf(w->err, sizeof(w->err), "%s does not parse", f ? f : "a lesson");
	}
	FILE *e = fopen(errfile, "w");
	if (e && w && !ok)
		fputs(w->err, e);
	if (e)
		fclose(e);
	_exit(ok ? 0 : 1);
}

START_TEST(every_lesson_in_tmux)
{
	int n = nlessons();
	ck_assert_int_ge(n, 10);
	pid_t pid[64];
	char errfile[64][128];
	for (int i = 0; i < n && i < 64; i++) {
		snprintf(errfile[i], sizeof(errfile[i]), "/tmp/test-lessons-walk.%d.%d.err",
			 (int)getpid(), i);
		pid[i] = walk_child(i, errfile[i]);
		ck_assert_int_gt(pid[i], 0);
	}
	char *all = calloc(1, 65536);
	ck_assert_ptr_nonnull(all);
	int failed = 0;
	for (int i = 0; i < n && i < 64; i++) {
		int status;
		waitpid(pid[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			failed++;
			size_t len = strlen(all);
			FILE *e = fopen(errfile[i], "r");
			size_t got = e ? fread(all + len, 1, 65536 - len - 200, e) : 0;
			all[len + got] = 0;
			if (e)
				fclose(e);
			strcat(all, "\n----\n");
		}
		unlink(errfile[i]);
	}
	if (failed) /* all of it; Check's message has room for the start */
		fputs(all, stderr);
	ck_assert_msg(failed == 0, "%d of %d lessons failed in tmux:\n%.1500s", failed, n, all);
	free(all);
}
END_TEST
/* ---- progress across runs ------------------------------------------------ */

SIDE_TEST(progress_keeps_first_answers)
{
	fresh_state();
	int st;
	/* lesson 02, step 3: right the first time */
	char *out = lesson_run(&st, "2 --keys 'nnb' --screen 130x40");
	ck_assert_msg(strstr(out, "Right."), "%s", out);
	free(out);
	/* again, wrong: the first answer stays */
	out = run_cmd(&st, "XDG_STATE_HOME=%s %s 2 --keys 'nna' --screen 130x40 2>&1", state_dir,
		      bin_path("icache-lesson"));
	ck_assert_msg(strstr(out, "Not this one"), "%s", out);
	free(out);
	out = run_cmd(&st, "XDG_STATE_HOME=%s %s --progress", state_dir, bin_path("icache-lesson"));
	ck_assert_msg(strstr(out, "questions 1/2 right first time (1 answered)"), "%s", out);
	ck_assert_msg(strstr(out, "not started"), "%s", out);
	char want[64];
	snprintf(want, sizeof(want), "0 of %d lessons finished; 1 of 1 questions", nlessons());
	ck_assert_msg(strstr(out, want), "%s", out);
	free(out);
	drop_state();
}
END_TEST

/* ---- the glossary --------------------------------------------------------- */

SIDE_TEST(glossary_covers_what_is_shown)
{
	struct glossary g;
	ck_assert(glossary_load("lessons/GLOSSARY.md", &g));
	/* what the panes print in short, and the issue's list */
	static const char *const words[] = {
		"acq",     "WAIT",    "HOLD",    "rel",     "inst=",     "sb=",     "ino=",
		"H1",      "ALLOC",   "FREE",    "!!",      "try-f",     "bounce",  "wait-us",
		"hold-us", "I_CLEAR", "b_io",    "bdi",     "MS_ACTIVE", "depth-2", "lock_cycle",
		"ABBA",    "LRU",     "i_count", "i_nlink",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		bool found = false;
		for (int k = 0; k < g.n && !found; k++)
			found = strstr(g.e[k].term, words[i]) != NULL;
		ck_assert_msg(found, "GLOSSARY.md has no entry for %s", words[i]);
	}
	/* and every flag, writeback list and MS_ word a lesson uses */
	int nl = nlessons();
	for (int i = 0; i < nl; i++) {
		char *f = lesson_file(i);
		int st;
		char *out = run_cmd(
			&st,
			"grep -ohE '\\b(I_[A-Z_]+|MS_[A-Z]+|b_[a-z_]+|depth-[0-9]+)\\b' %s | sort -u",
			f);
		for (char *w = strtok(out, "\n"); w; w = strtok(NULL, "\n")) {
			bool found = false;
			for (int k = 0; k < g.n && !found; k++)
				found = strstr(g.e[k].term, w) != NULL;
			ck_assert_msg(found, "%s uses %s, which GLOSSARY.md does not explain", f,
				      w);
		}
		free(out);
		free(f);
	}
	glossary_free(&g);
	/* ? shows it in the lesson, and any key closes it */
	fresh_state();
	int st;
	char *out = lesson_run(&st, "1 --keys '?<Print>x' --screen 140x40");
	char *ff = strstr(out, "\f\n");
	ck_assert_ptr_nonnull(ff);
	*ff = 0;
	ck_assert_msg(strstr(out, "Glossary") && strstr(out, "HOLD: the CPU now holds"), "%s", out);
	ck_assert_msg(!strstr(ff + 2, "Glossary"), "it did not close");
	free(out);
	drop_state();
}
END_TEST

/* ---- terminals, signals and temporary files ------------------------------- */

SIDE_TEST(bad_terminals_and_cleanup)
{
	char cwd[512], exe[1024], tmp[300];
	lesson_terminal("lessonterm", cwd, exe);
	snprintf(tmp, sizeof(tmp), "%s/tmp", state_dir);
	int st;
	free(run_cmd(&st, "mkdir -p %s", tmp));
	/* dumb, unknown and unset TERM: a sentence and exit 2, in a tty */
	free(run_cmd(
		&st,
		"cd %s && tmux -L %s new-session -d -s lesson -x 150 -y 45 "
		"'for t in dumb no-such-term-x; do TERM=$t XDG_STATE_HOME=%s %s 1 2>&1; echo \"EXIT $t=$?\"; done; "
		"env -u TERM XDG_STATE_HOME=%s %s 1 2>&1; echo \"EXIT unset=$?\"; sleep 30'",
		cwd, sock, state_dir, exe, state_dir, exe));
	ck_assert_msg(wait_for("EXIT unset=", 20), "the lessons did not exit");
	char *s = capture();
	ck_assert_msg(strstr(s, "TERM=dumb cannot move the cursor") && strstr(s, "EXIT dumb=2"),
		      "%s", s);
	ck_assert_msg(strstr(s, "TERM=no-such-term-x is unknown") &&
			      strstr(s, "EXIT no-such-term-x=2"),
		      "%s", s);
	ck_assert_msg(strstr(s, "TERM is not set") && strstr(s, "EXIT unset=2"), "%s", s);
	free(s);
	free(run_cmd(&st, "tmux -L %s kill-server 2>/dev/null", sock));
	/* Ctrl-C, then a crash (SIGSEGV), in the middle of a drive step:
	 * no temporary trace or scenario is left behind */
	static const char *const how[] = { "C-c", "SEGV" };
	for (int i = 0; i < 2; i++) {
		char pidfile[300];
		snprintf(pidfile, sizeof(pidfile), "%s/pid", state_dir);
		free(run_cmd(
			&st,
			"cd %s && tmux -L %s new-session -d -s lesson -x 150 -y 45 "
			"'echo $$ > %s; exec env %s TMPDIR=%s XDG_STATE_HOME=%s LANG=C.UTF-8 %s 5 "
			"--step 8'",
			cwd, sock, pidfile,
			/* the SEGV is sent on purpose: ASan must not report it when
			 * the lesson re-raises it after cleaning up */
			i ? "ASAN_OPTIONS=\"$ASAN_OPTIONS handle_segv=0\"" : "", tmp, state_dir,
			exe));
		ck_assert(wait_for("YOU ARE THE SCHEDULER", 15));
		keys("0 0 1");
		ck_assert(wait_for("Your schedule (3)", 15));
		char *ls = run_cmd(&st, "find %s -mindepth 1 | wc -l", tmp);
		ck_assert_msg(atoi(ls) > 0, "the lesson keeps nothing in TMPDIR?");
		free(ls);
		char *pid = run_cmd(&st, "cat %s", pidfile);
		if (i == 0)
			keys("C-c");
		else
			free(run_cmd(&st, "kill -SEGV %d", atoi(pid)));
		bool gone = false;
		for (int t = 0; t < 100 && !gone; t++) {
			gone = kill(atoi(pid), 0) != 0;
			usleep(100000);
		}
		free(pid);
		ck_assert_msg(gone, "%s: still running", how[i]);
		ls = run_cmd(&st, "find %s -mindepth 1", tmp);
		ck_assert_msg(!ls[0], "%s left behind:\n%s", how[i], ls);
		free(ls);
		free(run_cmd(&st, "tmux -L %s kill-server 2>/dev/null", sock));
	}
	drop_state();
}
END_TEST

/* ---- lesson 10's figures are what its commands print ----------------------- */

/*
 * Lesson 10 quotes virtual runs (deterministic with the shipped cost
 * model): its tables ("| CPU global v4 merged", then "|   8 174142/5.98
 * ..." rows: ops per virtual second / contentions per op), the ratios and
 * bounces it works out from them, and merged's per-class counts at 8 CPUs.
 * Every one is compared with a fresh run, so a change to a scheme or the
 * cost model that moves a figure fails here until the lesson says what
 * the tool says.
 */
struct l10_run {
	char args[64]; /* --scheme ... [--locks mcs] */
	int cpus;
	char *json;
};

static const char *l10_args(const char *col)
{
	static const char *const map[][2] = {
		{ "global", "--scheme global" },          { "ticket", "--scheme global" },
		{ "v4", "--scheme inode-scale-v4" },      { "merged", "--scheme merged" },
		{ "mcs", "--scheme global --locks mcs" },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(col, map[i][0]) == 0)
			return map[i][1];
	return NULL;
}

/* The sum over a JSON text of every number after "key": (from `from`
 * up to `to`, or the end). */
static double json_sum(const char *from, const char *to, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	double sum = 0;
	for (const char *p = from; (p = strstr(p, pat)) && (!to || p < to); p++)
		sum += strtod(p + strlen(pat), NULL);
	return sum;
}

static struct l10_run *l10_find(struct l10_run *r, int n, const char *args, int cpus)
{
	for (int i = 0; i < n; i++)
		if (r[i].cpus == cpus && strcmp(r[i].args, args) == 0)
			return &r[i];
	return NULL;
}

static double l10_per_op(const struct l10_run *r, const char *key)
{
	return json_sum(r->json, NULL, key) / json_num(r->json, NULL, "ops");
}

/* A lock class's acquisitions and contentions in a run. */
static void l10_class(const struct l10_run *r, const char *cls, long *acq, long *cont)
{
	char pat[80];
	snprintf(pat, sizeof(pat), "\"class\":\"%s\"", cls);
	const char *p = strstr(r->json, pat);
	ck_assert_msg(p, "no class %s in %s", cls, r->json);
	const char *end = strchr(p, '}');
	*acq = (long)json_sum(p, end, "acquisitions");
	*cont = (long)json_sum(p, end, "contentions");
}

/* The acquisitions of a run's most contended lock class. */
static long l10_busiest(const struct l10_run *r)
{
	long best = -1, best_acq = 0;
	for (const char *p = r->json; (p = strstr(p, "{\"class\":\"")); p++) {
		const char *end = strchr(p, '}');
		long cont = (long)json_sum(p, end, "contentions");
		if (cont > best)
			best = cont, best_acq = (long)json_sum(p, end, "acquisitions");
	}
	ck_assert_msg(best >= 0, "no lock class in %s", r->json);
	return best_acq;
}

/* The lesson's table cells, in order; returns how many. */
struct l10_cell {
	char args[64];
	int cpus;
	long ops_s;
	char cont[16];
};

static int l10_cells(const char *text, struct l10_cell *c, int max)
{
	int n = 0;
	char cols[8][16];
	int ncol = 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		char buf[256];
		snprintf(buf, sizeof(buf), "%.*s", (int)(nl ? nl - line : (long)strlen(line)),
			 line);
		line = nl ? nl + 1 : NULL;
		int cpus, used;
		if (strncmp(buf, "  | CPU ", 8) == 0) {
			ncol = 0;
			for (char *t = strtok(buf + 8, " "); t && ncol < 8; t = strtok(NULL, " "))
				snprintf(cols[ncol++], sizeof(cols[0]), "%s", t);
		} else if (ncol && sscanf(buf, "  | %d%n", &cpus, &used) == 1) {
			const char *p = buf + used;
			for (int k = 0; k < ncol && n < max; k++, n++) {
				int w;
				ck_assert_msg(sscanf(p, " %ld/%15[0-9.]%n", &c[n].ops_s, c[n].cont,
						     &w) == 2,
					      "lesson 10: a table row does not read: %s", buf);
				p += w;
				const char *a = l10_args(cols[k]);
				ck_assert_msg(a, "lesson 10: no run for the column '%s'", cols[k]);
				snprintf(c[n].args, sizeof(c[n].args), "%s", a);
				c[n].cpus = cpus;
			}
		} else {
			ncol = 0;
		}
	}
	return n;
}

/* The runs behind the cells, each once, all at once. */
static int l10_runs(const struct l10_cell *c, int nc, struct l10_run *r)
{
	int n = 0, st[64];
	char *cmd[64], *out[64];
	for (int i = 0; i < nc; i++) {
		if (l10_find(r, n, c[i].args, c[i].cpus))
			continue;
		ck_assert_int_lt(n, 64);
		snprintf(r[n].args, sizeof(r[n].args), "%.63s", c[i].args);
		r[n].cpus = c[i].cpus;
		ck_assert_int_ge(asprintf(&cmd[n],
					  "%s run --virtual %s --cpus %d --workload create-unlink "
					  "--ops 40000 --json",
					  bin_path("icache-sim"), r[n].args, r[n].cpus),
				 0);
		n++;
	}
	run_parallel(n, cmd, out, st);
	for (int i = 0; i < n; i++) {
		ck_assert_msg(st[i] == 0 && strstr(out[i], "\"ops_per_s\":"), "%s: exit %d: %s",
			      cmd[i], st[i], out[i]);
		r[i].json = out[i];
	}
	free_all(n, cmd);
	return n;
}

/* "A / B = R" in the text works out; A and B are contentions of the table. */
static void l10_ratios(const char *text, const struct l10_cell *c, int nc)
{
	int found = 0;
	for (const char *p = text; (p = strstr(p, " = ")); p++) {
		const char *q = p;
		while (q > text && q[-1] != '\n' && q[-1] != ',' && q[-1] != '=')
			q--;
		double a, b, r;
		char sa[16], sb[16];
		if (sscanf(q, " %15[0-9.] / %15[0-9.] = %lf", sa, sb, &r) != 3)
			continue;
		a = atof(sa), b = atof(sb);
		ck_assert_msg(b > 0 && fabs(a / b - r) < 0.05, "lesson 10: %s / %s is not %.1f", sa,
			      sb, r);
		bool ina = false, inb = false;
		for (int i = 0; i < nc; i++) {
			ina |= strcmp(c[i].cont, sa) == 0;
			inb |= strcmp(c[i].cont, sb) == 0;
		}
		ck_assert_msg(ina && inb, "lesson 10: %s / %s: not figures of its tables", sa, sb);
		found++;
	}
	ck_assert_int_ge(found, 2);
}

/* What the V4 step and its explanation quote of the 8-CPU runs. */
static void l10_prose(const char *text, struct l10_run *r, int n)
{
	struct l10_run *g = l10_find(r, n, "--scheme global", 8),
		       *v = l10_find(r, n, "--scheme inode-scale-v4", 8),
		       *m = l10_find(r, n, "--scheme merged", 8);
	ck_assert(g && v && m);
	char want[200];
	snprintf(want, sizeof(want), "(%.1f and %.1f against %.1f)", l10_per_op(m, "bounces"),
		 l10_per_op(v, "bounces"), l10_per_op(g, "bounces"));
	ck_assert_msg(strstr(text, want), "lesson 10 should say the bounces per op %s", want);
	long acq, cont, hacq, hcont;
	l10_class(m, "inode_wb_list_lock", &acq, &cont);
	l10_class(m, "inode_hash_lock", &hacq, &hcont);
	snprintf(want, sizeof(want),
		 "contended on %ld of its %ld acquisitions, the hash lock on %ld of %ld", cont, acq,
		 hcont, hacq);
	ck_assert_msg(strstr(text, want), "lesson 10 should say merged's classes: %s", want);
	/* the saturated lock's acquisitions per op, a floor under merged's
	 * contention per op */
	snprintf(want, sizeof(want), "(%.2f in merged)", (double)l10_busiest(m) / 40000);
	ck_assert_msg(strstr(text, want), "lesson 10 should say %s", want);
	/* "262 thousand at 2, 174 thousand at 8": global's column */
	int k = 0;
	for (const char *p = text; (p = strstr(p, " thousand ")); p++) {
		const char *q = p;
		while (q > text && q[-1] >= '0' && q[-1] <= '9')
			q--;
		const char *at = strstr(p, " at ");
		int cpus = at ? atoi(at + 4) : 0;
		struct l10_run *x = l10_find(r, n, "--scheme global", cpus);
		ck_assert_msg(x, "lesson 10: '%.30s' names no run", q);
		double ops = json_num(x->json, NULL, "ops_per_s");
		ck_assert_msg(atol(q) == lround(ops / 1000),
			      "lesson 10: '%.30s': the run gives %.0f", q, ops);
		k++;
	}
	ck_assert_int_ge(k, 3);
}

SIDE_TEST(lesson10_figures_are_real)
{
	glob_t g;
	ck_assert_int_eq(glob("lessons/10-*.lesson", 0, NULL, &g), 0);
	int st;
	char *text = run_cmd(&st, "cat %s", g.gl_pathv[0]);
	globfree(&g);
	ck_assert_msg(strstr(text, "--workload create-unlink \\\n  |     --ops 40000"),
		      "lesson 10's command is not the one this test runs");
	struct l10_cell cell[96];
	struct l10_run run[64];
	int nc = l10_cells(text, cell, 96);
	ck_assert_int_ge(nc, 21 + 7);
	int n = l10_runs(cell, nc, run);
	for (int i = 0; i < nc; i++) {
		struct l10_run *x = l10_find(run, n, cell[i].args, cell[i].cpus);
		/* printf's rounding: what a student gets printing the JSON */
		char cont[16], ops[32], said[32];
		snprintf(cont, sizeof(cont), "%.2f", l10_per_op(x, "contentions"));
		snprintf(ops, sizeof(ops), "%.0f", json_num(x->json, NULL, "ops_per_s"));
		snprintf(said, sizeof(said), "%ld", cell[i].ops_s);
		ck_assert_msg(strcmp(ops, said) == 0 && strcmp(cont, cell[i].cont) == 0,
			      "lesson 10 says %s/%s for %s at %d CPUs; the run gives %s/%s", said,
			      cell[i].cont, cell[i].args, cell[i].cpus, ops, cont);
	}
	/* the prose, its lines joined */
	char *flat = strdup(text);
	ck_assert_ptr_nonnull(flat);
	char *o = flat;
	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			while (p[1] == ' ')
				p++;
			*o++ = ' ';
		} else {
			*o++ = *p;
		}
	}
	*o = 0;
	l10_ratios(flat, cell, nc);
	l10_prose(flat, run, n);
	free(flat);
	for (int i = 0; i < n; i++)
		free(run[i].json);
	free(text);
}
END_TEST

/* ---- --check: time, references ------------------------------------------- */

START_TEST(check_time_and_references)
{
	char text[4096];
	/* time goes back without saying so */
	snprintf(text, sizeof(text),
		 HEAD("%s") "step: Late\nat: free of inode 42\ntext:\n  Gone.\n\n"
			    "step: Early\nat: alloc of inode 42\ntext:\n  Back?\n",
		 scn("one-inode-life.scn"));
	bad_lesson("back.lesson", text, 11, "time goes back", true);
	/* ... which a rewind: line allows */
	snprintf(
		text, sizeof(text),
		HEAD("%s") "step: Late\nat: free of inode 42\ntext:\n  Gone.\n\n"
			   "step: Early\nat: alloc of inode 42\nrewind: to its birth\ntext:\n  Back.\n",
		scn("one-inode-life.scn"));
	const char *path = write_lesson("rewind.lesson", text);
	int st;
	char *out = run_cmd(&st, "%s --check %s 2>&1", bin_path("icache-lesson"), path);
	ck_assert_msg(st == 0, "%s", out);
	free(out);
	/* a path outside the repository, an internal seed number */
	snprintf(text, sizeof(text),
		 HEAD("%s") "credit: notes (see /work/shared/notes.md)\n"
			    "step: One\nat: start\ntext:\n  Hello.\n",
		 scn("one-inode-life.scn"));
	bad_lesson("outside.lesson", text, 5, "a path outside the repository", false);
	snprintf(text, sizeof(text),
		 HEAD("%s") "credit: Al Viro, 22 Oct 2010 (seed 005)\n"
			    "step: One\nat: start\ntext:\n  Hello.\n",
		 scn("one-inode-life.scn"));
	bad_lesson("seed.lesson", text, 5, "internal seed number", false);
	/* a cross-reference to a lesson that does not show the thing: the
	 * test lesson lives beside 07-x.lesson, which never names I_NEW */
	char other[600];
	snprintf(
		other, sizeof(other), "%s",
		write_lesson(
			"07-x.lesson",
			"title: x\nscenario: y.scn\n\nstep: a\nat: start\ntext:\n  I_FREEING only.\n"));
	snprintf(text, sizeof(text),
		 HEAD("%s") "step: One\nat: start\ntext:\n  It is marked I_NEW and others wait.\n"
			    "  (Lesson 07 shows that wait.)\n",
		 scn("one-inode-life.scn"));
	bad_lesson("01-xref.lesson", text, 7, "refers to lesson 7 about I_NEW", false);
	unlink(other);
	snprintf(text, sizeof(text), HEAD("%s") "step: One\nat: start\ntext:\n  See lesson 42.\n",
		 scn("one-inode-life.scn"));
	bad_lesson("01-xref2.lesson", text, 7, "lesson 42, which does not exist", false);
}
END_TEST

/* ---- lessons without a session daemon -------------------------------------- */

/* The lessons' own scenarios (their scenario: lines), as file names. */
static int lesson_scenarios(char names[][128], int max)
{
	int n = 0;
	for (int i = 0; i < nlessons() && n < max; i++) {
		char *f = lesson_file(i);
		struct diag d = { 0 };
		struct lesson *l = lesson_parse(f, &d);
		if (l && l->scenario) {
			const char *b = strrchr(l->scenario, '/') ? strrchr(l->scenario, '/') + 1 :
								    l->scenario;
			bool dup = false;
			for (int k = 0; k < n; k++)
				dup |= strcmp(names[k], b) == 0;
			if (!dup)
				snprintf(names[n++], 128, "%s", b);
		}
		lesson_free(l);
		ldiag_free(&d);
		free(f);
	}
	return n;
}

/*
 * The events of a simulated CPU, in order, are the same in both traces
 * (times and durations aside).  Events of no CPU (an RCU callback
 * freeing an inode after its grace period) land wherever the grace
 * period ended: those are compared as a set.
 */
static void same_events(const char *name, const struct lesson_trace *x,
			const struct lesson_trace *y)
{
	uint64_t i = 0, j = 0, nx = x->ix->nev, ny = y->ix->nev, async = 0;
	for (;;) {
		while (i < nx && x->ix->ev[i].cpu == IX_NO_CPU)
			i++, async++;
		while (j < ny && y->ix->ev[j].cpu == IX_NO_CPU)
			j++, async--;
		if (i == nx || j == ny)
			break;
		const struct ix_event *a = &x->ix->ev[i], *b = &y->ix->ev[j];
		ck_assert_msg(a->type == b->type && a->cpu == b->cpu && a->a == b->a &&
				      a->b == b->b && a->site == b->site &&
				      lt_obj(x, a) == lt_obj(y, b),
			      "%s: event %llu differs from a fresh recording: make traces", name,
			      (unsigned long long)i);
		i++, j++;
	}
	ck_assert_msg(i == nx && j == ny && async == 0,
		      "%s: the events of no CPU differ from a fresh recording: make traces", name);
}

/* The shipped trace of every lesson scenario (make traces) is the trace
 * a fresh recording gives, event for event (times and durations aside);
 * the fresh ones are recorded all at once. */
SIDE_TEST(shipped_traces_match_fresh)
{
	setenv("ICACHE_SIM", bin_path("icache-sim"), 1);
	char names[32][128], dir[64];
	int n = lesson_scenarios(names, 32), st[32];
	ck_assert_int_ge(n, 8);
	snprintf(dir, sizeof(dir), "/tmp/test-lessons-fresh.%d", (int)getpid());
	char *cmd[32], *out[32];
	for (int i = 0; i < n; i++)
		ck_assert_int_ge(asprintf(&cmd[i], "%s play %s -o %s/%d", bin_path("icache-sim"),
					  scn(names[i]), dir, i),
				 0);
	run_parallel(n, cmd, out, st);
	for (int i = 0; i < n; i++) {
		ck_assert_msg(st[i] <= 1, "%s: play -o exited %d: %s", names[i], st[i], out[i]);
		char path[600], err[300];
		struct lesson_trace shipped, fresh = { 0 };
		ck_assert_msg(lt_shipped(scn(names[i]), &shipped), "%s: %s (run make traces)",
			      names[i], shipped.err);
		ck_assert_msg(shipped.shipped, "%s", names[i]);
		snprintf(path, sizeof(path), "%s/%d", dir, i);
		fresh.ix = ix_load(path, err, sizeof(err));
		ck_assert_msg(fresh.ix, "%s: the fresh trace does not load: %s", names[i], err);
		ck_assert_msg(
			shipped.ix->nev == fresh.ix->nev,
			"%s: the shipped trace has %llu events, a fresh one %llu: make traces",
			names[i], (unsigned long long)shipped.ix->nev,
			(unsigned long long)fresh.ix->nev);
		same_events(names[i], &shipped, &fresh);
		lt_free(&shipped);
		lt_free(&fresh);
	}
	free_all(n, cmd);
	free_all(n, out);
	int rs;
	free(run_cmd(&rs, "rm -rf %s", dir));
}
END_TEST

/*
 * A laptop with no session daemon: the lessons run as another user
 * (uid 4242, not in the tracing group, so the root daemon is not its
 * daemon), with a private LTTNG_HOME where no daemon listens and no
 * lttng-sessiond on its PATH to start one.  Recording fails for want of
 * a daemon; every lesson loads its shipped trace, its narrated steps play
 * with their panes, a scheduler level plays its first press (the trace
 * written by play itself, tests/test_direct.c), and nothing is
 * left in TMPDIR.  The machine's own daemon is never touched: it must be
 * as alive after as before.
 */
static void sandbox_for(const char *d)
{
	int st;
	char *out = run_cmd(
		&st,
		"rm -rf %s && mkdir -p %s/bin %s/path %s/home %s/state %s/tmp && chmod 755 %s && "
		"cp %s %s %s/bin/ && cp -r %s/traces %s/traces && cp -r lessons %s/lessons && "
		"chmod -R a+rX %s/bin %s/traces %s/lessons && "
		"ln -s /usr/bin/* %s/path/ && rm -f %s/path/lttng* && "
		"chown -R 4242:4242 %s/home %s/state %s/tmp 2>&1",
		d, d, d, d, d, d, d, bin_path("icache-lesson"), bin_path("icache-sim"), d,
		build_dir(), d, d, d, d, d, d, d, d, d, d);
	ck_assert_msg(st == 0, "cannot make the sandbox %s: %s", d, out);
	free(out);
}

SIDE_TEST(lessons_without_daemon)
{
	int st;
	free(run_cmd(&st, "command -v setpriv >/dev/null"));
	if (st != 0) {
		fprintf(stderr, "test_lessons: no setpriv: lessons_without_daemon skipped\n");
		return;
	}
	int alive = lttng_session_daemon_alive();
	char d[64];
	snprintf(d, sizeof(d), "/tmp/test-lessons-nodaemon.%d", (int)getpid());
	sandbox_for(d);
	int n = nlessons(), ncmd = 0, drive_of[64], sts[128];
	char *cmd[128], *out[128];
	struct lesson *ls[64];
	for (int i = 0; i < n && i < 64; i++) {
		char *f = lesson_file(i);
		struct diag dg = { 0 };
		ls[i] = lesson_parse(f, &dg);
		ck_assert_msg(ls[i] && !dg.n, "%s does not parse", f);
		ldiag_free(&dg);
		free(f);
		char k[2048] = "";
		size_t len = 0;
		drive_of[i] = -1;
		for (int s = 0; s < ls[i]->nsteps && len + 40 < sizeof(k); s++) {
			if (ls[i]->steps[s].kind == STEP_DRIVE && drive_of[i] < 0)
				drive_of[i] = s;
			len += (size_t)snprintf(k + len, sizeof(k) - len, "<Print><Right><Right>");
		}
		const char *as = "setpriv --reuid=4242 --regid=4242 --clear-groups env -i";
		free(run_cmd(&st, "mkdir -p %s/tmp/%d && chown 4242 %s/tmp/%d", d, i, d, i));
		ck_assert_int_eq(st, 0);
		ck_assert_int_ge(
			asprintf(
				&cmd[ncmd++],
				"%s PATH=%s/path HOME=%s/home LTTNG_HOME=%s/home XDG_STATE_HOME=%s/state "
				"TMPDIR=%s/tmp/%d %s/bin/icache-lesson %s/lessons/%s.lesson --keys '%s' "
				"--screen 150x45",
				as, d, d, d, d, d, i, d, d, ls[i]->name, k),
			0);
		if (drive_of[i] >= 0)
			ck_assert_int_ge(
				asprintf(
					&cmd[ncmd++],
					"%s PATH=%s/path HOME=%s/home LTTNG_HOME=%s/home "
					"XDG_STATE_HOME=%s/state TMPDIR=%s/tmp/%d %s/bin/icache-lesson "
					"%s/lessons/%s.lesson --step %d --keys 0 --screen 150x45",
					as, d, d, d, d, d, i, d, d, ls[i]->name, drive_of[i] + 1),
				0);
	}
	run_parallel(ncmd, cmd, out, sts);
	for (int i = 0, c = 0; i < n; i++, c++) {
		const char *name = ls[i]->name, *o = out[c];
		ck_assert_msg(sts[c] == 0, "%s without a daemon: exit %d:\n%.2000s", name, sts[c],
			      o);
		ck_assert_msg(strstr(o, "[pre-recorded]"), "%s: not the shipped trace", name);
		ck_assert_msg(strstr(o, "Events by CPU") || strstr(o, "Held locks") ||
				      strstr(o, "Lock order"),
			      "%s: no panes", name);
		char want[64];
		snprintf(want, sizeof(want), "Step %d/%d", ls[i]->nsteps, ls[i]->nsteps);
		ck_assert_msg(strstr(o, want), "%s: did not reach the last step", name);
		if (drive_of[i] >= 0) {
			c++;
			/* the press is played and written directly (play
			 * --ctf-direct=auto): no daemon needed */
			ck_assert_msg(strstr(out[c], "Last press: cpu0"), "%s:\n%s", name, out[c]);
		}
		lesson_free(ls[i]);
	}
	free_all(ncmd, cmd);
	free_all(ncmd, out);
	char *left = run_cmd(&st, "find %s/tmp -mindepth 2; pgrep -u 4242 lttng-sessiond", d);
	ck_assert_msg(!left[0], "left behind without a daemon:\n%s", left);
	free(left);
	ck_assert_int_eq(lttng_session_daemon_alive(), alive);
	free(run_cmd(&st, "rm -rf %s", d));
}
END_TEST

/* In a terminal a lesson resumes where the student left it. */
SIDE_TEST(tmux_resume)
{
	char cwd[512], exe[1024];
	lesson_terminal("lessonresume", cwd, exe);
	int st;
	for (int run = 0; run < 2; run++) {
		free(run_cmd(&st,
			     "cd %s && tmux -L %s new-session -d -s lesson -x 150 -y 45 "
			     "'env XDG_STATE_HOME=%s LANG=C.UTF-8 %s 2; echo EXIT=$?; sleep 30'",
			     cwd, sock, state_dir, exe));
		if (run == 0) {
			ck_assert(wait_for("Step 1/", 15));
			keys("n n");
			ck_assert(wait_for("Step 3/", 5));
		} else {
			ck_assert_msg(wait_for("Step 3/", 15), "did not resume at step 3");
			ck_assert(wait_for("Resumed at step 3", 5));
		}
		keys("q");
		ck_assert(wait_for("EXIT=0", 10));
		free(run_cmd(&st, "tmux -L %s kill-server 2>/dev/null", sock));
	}
	drop_state();
}
END_TEST

/* 2.6.36's lock is called by its name in lesson 02's lanes and lock_stat. */
SIDE_TEST(global_lock_named)
{
	fresh_state();
	int st;
	char *out = lesson_run(&st, "2 --step 5 --keys '' --screen 160x45");
	ck_assert_msg(strstr(out, "||inode_lock "), "lock_stat does not name inode_lock");
	ck_assert_msg(!strstr(out, "||lock "), "lock_stat calls inode_lock 'lock'");
	free(out);
	drop_state();
}
END_TEST

/* A title too long for the line is cut with '~' before the step's
 * moment, never run into it ("...when walkiat: last acquired"). */
SIDE_TEST(title_and_moment_apart)
{
	fresh_state();
	int st;
	char *out = lesson_run(&st, "4 --step 5 --keys '' --screen 140x40");
	char *nl = strchr(out, '\n');
	ck_assert_ptr_nonnull(nl);
	*nl = 0;
	ck_assert_msg(strstr(out, " icache-lesson 04: Nick's order") &&
			      strstr(out, "~ at: last acquired i_lock in insert_inode_locked"),
		      "%s", out);
	free(out);
	drop_state();
}
END_TEST

/* Tab brings the next pane first, the step's own back after the others
 * (lesson 03's last step shows the inode and lock_stat panes). */
SIDE_TEST(tab_turns_panes)
{
	fresh_state();
	int st;
	char *out = lesson_run(&st, "3 --step 7 --keys '<Print><Tab><Print><Tab><Tab><Tab><Tab>' "
				    "--screen 140x40");
	/* the first box on the right of each screen: its title */
	const char *want[] = { "+-[ Inode ]", "+-[ lock_stat ]", "+-[ Inode ]" };
	char *p = out;
	for (int i = 0; i < 3; i++) {
		char *end = strstr(p, "\f\n");
		if (end)
			*end = 0;
		char *box = strstr(p, "++-");
		ck_assert_msg(box && strncmp(box + 1, want[i], strlen(want[i])) == 0,
			      "screen %d: not %s first:\n%s", i, want[i], p);
		p = end ? end + 2 : p + strlen(p);
	}
	free(out);
	drop_state();
}
END_TEST

/* iprune_sem is one rw_semaphore over several trace instances (0 the
 * write hold, 1 + CPU a read hold): umount waiting to write it while the
 * shrinker reads it is told who holds it, never "free" (lesson 09). */
SIDE_TEST(rwsem_wait_names_reader)
{
	fresh_state();
	char text[1024];
	snprintf(text, sizeof(text),
		 HEAD("%s") "step: One\nat: contended iprune_sem on cpu0\nshow: pane locks\n"
			    "text:\n  Umount waits.\n",
		 scn("umount-dispose.scn"));
	char path[600];
	snprintf(path, sizeof(path), "%s/rwsem.lesson", state_dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	int st;
	char *out = lesson_run(&st, "%s --keys '' --screen 140x40", path);
	ck_assert_msg(strstr(out, "WAITS for iprune_sem 0 at evict_inodes, held for read by cpu1"),
		      "%s", out);
	free(out);
	drop_state();
}
END_TEST

/*
 * Run test bodies side by side, each in a child of its own: the cases of
 * this suite mostly wait for the session daemon to record, and a daemon
 * shared by the whole machine answers many clients at once about as fast
 * as one.  A failing child reports through Check's own channel (its
 * ck_assert message is the test's) and exits 1; then this test fails too.
 */
typedef void (*side_fn)(int);

static void side_by_side(const char *const *name, const side_fn *fn, const int *arg, int n)
{
	pid_t pid[32];
	ck_assert_int_le(n, 32);
	for (int i = 0; i < n; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0) {
			fn[i](arg[i]);
			_exit(0);
		}
	}
	char failed[1024] = "";
	for (int i = 0; i < n; i++) {
		int st = -1;
		while (waitpid(pid[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			snprintf(failed + strlen(failed), sizeof(failed) - strlen(failed), " %s",
				 name[i]);
	}
	if (failed[0]) {
		fprintf(stderr, "test_lessons: failed side by side:%s\n", failed);
		_exit(1); /* the child's message stands as the test's */
	}
}

/*
 * The judge draws no verdict from a partial recording: with icache-sim
 * wrapped so that a stream of every recording is cut in half, lesson
 * 08's real fix is neither passed nor failed; the student is told the
 * recording is incomplete.
 */
SIDE_TEST(judge_refuses_a_cut_trace)
{
	fresh_state();
	char wrap[300], work[512];
	snprintf(wrap, sizeof(wrap), "%s/cutting-sim", state_dir);
	write_script(
		wrap,
		"#!/bin/sh\n"
		"out=; prev=\n"
		"for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
		/* one layout every time: recorded by LTTng (--ctf-direct=auto
		 * asks the daemon, and a loaded machine can make it miss and
		 * write the trace directly, in one packet too short to cut
		 * into a partial trace) */
		"for a in \"$@\"; do shift; case $a in --ctf-direct*) continue;; esac;"
		" set -- \"$@\" \"$a\"; done\n"
		"%s \"$@\"; rc=$?\n"
		"[ -n \"$out\" ] || exit $rc\n"
		"s=$(ls -S \"$out\"/ust/uid/*/64-bit/* | grep -v -e metadata -e index | head -1)\n"
		"truncate -s $(( $(stat -c %%s \"$s\") / 2 )) \"$s\"\n"
		"exit $rc\n",
		bin_path("icache-sim"));
	int st;
	snprintf(work, sizeof(work), "%s/icache-lab/work", state_dir);
	free(run_cmd(&st,
		     "mkdir -p %s && cp lessons/scenarios/abba-fixed.scn "
		     "%s/08-lock-order-and-deadlock-step6.scn",
		     work, work));
	ck_assert_int_eq(st, 0);
	char *out = run_cmd(&st,
			    "ICACHE_SIM=%s XDG_STATE_HOME=%s %s 8 --step 6 --keys e "
			    "--screen 130x40 2>&1",
			    wrap, state_dir, bin_path("icache-lesson"));
	ck_assert_msg(!strstr(out, "Well done") && !strstr(out, "Not yet."),
		      "a verdict from a cut trace:\n%.1500s", out);
	ck_assert_msg(strstr(out, "incomplete"), "the cut is not said:\n%.1500s", out);
	free(out);
	drop_state();
}

/* A table of cases, run side by side. */
struct side_case {
	const char *name;
	side_fn fn;
	int arg;
};

static void side_cases(const struct side_case *c, int n)
{
	const char *name[32];
	side_fn fn[32];
	int arg[32];
	ck_assert_int_le(n, 32);
	for (int i = 0; i < n; i++) {
		name[i] = c[i].name;
		fn[i] = c[i].fn;
		arg[i] = c[i].arg;
	}
	side_by_side(name, fn, arg, n);
}

#define SIDE(f, a) #f, f##_fn, a

START_TEST(run_cases)
{
	static const struct side_case c[] = {
		{ SIDE(list_and_help, 0) },
		{ SIDE(keys_drive_reaches_goal, 0) },
		{ SIDE(keys_edit_exercise, 0) },
		{ SIDE(tmux_walk_lesson_01, 0) },
		{ SIDE(progress_keeps_first_answers, 0) },
		{ SIDE(glossary_covers_what_is_shown, 0) },
		{ SIDE(bad_terminals_and_cleanup, 0) },
		{ SIDE(tmux_resume, 0) },
		{ SIDE(global_lock_named, 0) },
		{ SIDE(lesson10_figures_are_real, 0) },
		{ SIDE(title_and_moment_apart, 0) },
		{ SIDE(rwsem_wait_names_reader, 0) },
		{ SIDE(tab_turns_panes, 0) },
		{ SIDE(judge_refuses_a_cut_trace, 0) },
	};
	side_cases(c, (int)(sizeof(c) / sizeof(c[0])));
}
END_TEST

/* The scheduler: random sequences settled in two halves, the crash
 * sequence in tmux, 1 000 sequences drawn and a few recorded through the
 * session daemon, side by side. */
START_TEST(sched_cases)
{
	static const struct side_case c[] = {
		{ SIDE(scheduler_random_sequences, 0) },  { SIDE(scheduler_random_sequences, 1) },
		{ SIDE(next_stops_where_it_matters, 0) }, { SIDE(scheduler_crash_sequence, 0) },
		{ SIDE(random_sequences_drawn, 0) },      { SIDE(every_sequence_drawn, 0) },
	};
	side_cases(c, (int)(sizeof(c) / sizeof(c[0])));
}
END_TEST

/* Without a daemon, and the shipped traces against fresh ones. */
START_TEST(offline_cases)
{
	const char *name[] = { "shipped_traces_match_fresh", "lessons_without_daemon" };
	side_fn fn[] = { shipped_traces_match_fresh_fn, lessons_without_daemon_fn };
	int arg[] = { 0, 0 };
	side_by_side(name, fn, arg, 2);
}
END_TEST

static Suite *lessons_suite(void)
{
	Suite *s = suite_create("lessons");
	suite_case(s, "check", 120,
		   (const TTest *[]){ ten_lessons_in_order, shipped_lessons_pass_check,
				      every_level_has_a_contrast, NULL });

	TCase *tc = suite_case(s, "malformed", 30, NULL);
	tcase_add_loop_test(tc, bad_lesson_cases, 0,
			    (int)(sizeof(bad_cases) / sizeof(bad_cases[0])));
	tcase_add_tests(tc, (const TTest *[]){ missing_scenario, truncated_file,
					       credit_outside_repository, credit_not_in_sources,
					       moment_grammar, check_time_and_references, NULL });

	/* the slow cases, each group side by side (side_by_side) */
	suite_case(s, "run", 240, (const TTest *[]){ run_cases, NULL });

	/* a guard against a hang, not a measure: 1 000 drawn sequences take
	 * ~30 s of CPU, and minutes on a loaded 2-core machine */
	suite_case(s, "scheduler", 600, (const TTest *[]){ sched_cases, NULL });

	suite_case(s, "offline", 180, (const TTest *[]){ offline_cases, NULL });

	suite_case(s, "walk", 300, (const TTest *[]){ every_lesson_in_tmux, NULL });
	return s;
}

int main(void)
{
	return run_suite(lessons_suite());
}
